"""What the dice statistics count and how they compute them (projections/dice_stats.py, dice_plain.py): the
sources' names, DR and dr with their expected distributions and means, a 3d6 read as its DR and its dr, the chi-square
p-value, and one die's statistics (count, means against 7.0 / 3.5, the distribution against the expected one, the
longest streaks) from its rolls (`_summary`) or from their counts (`_stats`). Pure."""

from __future__ import annotations

import math
from typing import Any

SOURCES = {"rng": "ledger", "entered": "entered", "vasl": "vasl", "seeded": "seeded", "fair": "fair"}
# P(total) of two d6 and of one d6
EXPECTED = {"DR": {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}, "dr": {f: 1 / 6 for f in range(1, 7)}}
MEAN = {"DR": 7.0, "dr": 3.5}
HIGH_LOW = {"DR": (8, 6), "dr": (4, 3)}  # a 'high' streak is >= the first, a 'low' one <= the second
UNWITNESSED = "not witnessed"  # added to a source's name for dice the other side has not witnessed


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square distribution: the regularized upper incomplete gamma Q(df/2, x/2)
    (series below a+1, continued fraction above; Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    a, z = df / 2, x / 2
    log_front = -z + a * math.log(z) - math.lgamma(a)
    if z < a + 1:
        term = total = 1 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= z / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    b, c, d = z + 1 - a, 1 / 1e-300, 1 / (z + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def _split(roll: dict) -> list[dict]:
    if roll["die"] != "3d6":
        return [roll]
    white, colored, third = roll["dice"]
    return [{**roll, "die": "DR", "dice": [white, colored]}, {**roll, "die": "dr", "dice": [third]}]


def _streaks(totals: list[int], die: str) -> dict[str, int]:
    high, low = HIGH_LOW[die]
    best = {"high": 0, "low": 0, "same": 0}
    run = {"high": 0, "low": 0, "same": 0}
    previous = None
    for total in totals:
        run["high"] = run["high"] + 1 if total >= high else 0
        run["low"] = run["low"] + 1 if total <= low else 0
        run["same"] = run["same"] + 1 if total == previous else 1
        previous = total
        for key in best:
            best[key] = max(best[key], run[key])
    return best


def _summary(rolls: list[dict], die: str) -> dict[str, Any] | None:
    mine = [r for r in rolls if r["die"] == die]
    if not mine:
        return None
    totals = [sum(r["dice"]) for r in mine]
    n = len(mine)
    observed = {str(t): totals.count(t) for t in EXPECTED[die]}
    expected = {str(t): round(p * n, 3) for t, p in EXPECTED[die].items()}
    chi = sum((observed[str(t)] - p * n) ** 2 / (p * n) for t, p in EXPECTED[die].items())
    stats: dict[str, Any] = {"count": n, "mean_total": round(sum(totals) / n, 3), "expected_mean": MEAN[die]}
    if die == "DR":
        stats["mean_white"] = round(sum(r["dice"][0] for r in mine) / n, 3)
        stats["mean_colored"] = round(sum(r["dice"][1] for r in mine) / n, 3)
        stats["expected_die_mean"] = 3.5
    stats.update({
        "distribution": observed, "expected": expected, "chi_square": round(chi, 3),
        "p_value": round(chi_square_sf(chi, len(EXPECTED[die]) - 1), 4),
        "reliable": min(expected.values()) >= 5,  # the chi-square rule of thumb: >= 5 expected per cell
        "longest_streaks": _streaks(totals, die),
    })
    return stats


def _stats(agg: dict[str, Any] | None, die: str) -> dict[str, Any] | None:
    """`_summary` from the counts."""
    if agg is None or not agg["n"]:
        return None
    n = agg["n"]
    observed = {str(t): agg["counts"].get(str(t), 0) for t in EXPECTED[die]}
    expected = {str(t): round(p * n, 3) for t, p in EXPECTED[die].items()}
    chi = sum((observed[str(t)] - p * n) ** 2 / (p * n) for t, p in EXPECTED[die].items())
    stats: dict[str, Any] = {"count": n, "mean_total": round(agg["sum"] / n, 3), "expected_mean": MEAN[die]}
    if die == "DR":
        stats["mean_white"] = round(agg["white"] / n, 3)
        stats["mean_colored"] = round(agg["colored"] / n, 3)
        stats["expected_die_mean"] = 3.5
    best = agg["best"]
    stats.update({
        "distribution": observed, "expected": expected, "chi_square": round(chi, 3),
        "p_value": round(chi_square_sf(chi, len(EXPECTED[die]) - 1), 4),
        "reliable": min(expected.values()) >= 5,
        "longest_streaks": {"high": best[0], "low": best[1], "same": best[2]},
    })
    return stats
