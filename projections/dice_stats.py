"""Dice statistics over the whole campaign, per side and source (ledger, entered, vasl): counts, means
against 7.0 / 3.5, the distribution against the expected one with a chi-square p-value, the longest
streaks, rolls per table; undone rolls counted apart (they are what players dispute). The VASL rolls also per
scenario (each imported file), per player and per category. Pure."""

from __future__ import annotations

import math
from typing import Any

from cgledger.ledger.events import CampaignStarted, CGDateChanged, DiceReported, DiceRolled, VaslLogImported
from cgledger.ledger.evolve import CLAIMED
from cgledger.ledger.timeline import voided_actions

SOURCES = {"rng": "ledger", "entered": "entered", "vasl": "vasl", "seeded": "seeded", "fair": "fair"}
# P(total) of two d6 and of one d6
EXPECTED = {"DR": {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}, "dr": {f: 1 / 6 for f in range(1, 7)}}
MEAN = {"DR": 7.0, "dr": 3.5}
HIGH_LOW = {"DR": (8, 6), "dr": (4, 3)}  # a 'high' streak is >= the first, a 'low' one <= the second


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


UNWITNESSED = "not witnessed"  # added to a source's name for dice the other side has not witnessed (issue 22)


def rolls_of(logged, unwitnessed: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """Every DR and dr in the log, in order, with whether it is still in force. A VASL import's reports count
    from its VaslLogImported (an attached one is also the DiceRolled after it, counted once); each VASL roll
    carries its player, category, extra dice and the import (scenario) it came from. An old VASSAL 3d6 counts as
    the DR and the dr VASL reads in it. `unwitnessed`: the events of rolls whose dice the other side has not
    witnessed; their source is named apart ('entered, not witnessed')."""
    return labelled(fold(logged), unwitnessed)


# The dice as a kept view (projections/kept.py): the rolls in log order, each as read from its event alone
# (whether it is in force by the actions voided so far; which dice were witnessed is the state's, applied by
# `labelled` when read); `finish` gives what `dice_stats` always gave.
def init(rules=None) -> dict[str, Any]:
    return {"rolls": [], "voided": [], "date": None, "imports": {}, "claims": []}


def fold(logged) -> dict[str, Any]:
    view = init()
    view["voided"] = sorted(voided_actions(logged))
    voided = set(view["voided"])
    for event in logged:
        _step(view, event.fact, event.version, voided)
    return view


def step(view: dict[str, Any], fact, version: int, rules=None) -> dict[str, Any]:
    """One event (any: undone rolls are counted apart) folded into the view, in place. An undo or a rewind is no
    step: it changes rolls before it (the view is folded again, `fold`)."""
    return _step(view, fact, version, set(view["voided"]))


def _step(view: dict[str, Any], fact, version: int, voided: set[int]) -> dict[str, Any]:
    if isinstance(fact, (CampaignStarted, CGDateChanged)) and getattr(fact, "action", None) not in voided:
        view["date"] = fact.cg_date
    date = view["date"]
    if isinstance(fact, VaslLogImported):
        view["imports"][str(version)] = {"action": fact.action, "file": fact.file, "form": fact.form}
        for entry in fact.reports:
            view["rolls"].append({"version": version, "side": entry.side or "unassigned", "die": entry.die,
                                  "dice": list(entry.dice), "source": "vasl", "table": entry.table or None,
                                  "in_force": fact.action not in voided, "player": entry.player,
                                  "category": entry.category, "scenario": version, "third": entry.third,
                                  "rof": entry.rof, "cg_date": date,
                                  "_claim": [fact.action, entry.table, list(entry.dice)]})
    elif isinstance(fact, (DiceRolled, DiceReported)):
        if isinstance(fact, DiceRolled) and fact.source in CLAIMED:  # the dice a witness may not have seen yet
            view["claims"].append([version, fact.action, fact.table, list(fact.dice)])
        if fact.die in EXPECTED or fact.die == "3d6":
            vasl = bool(getattr(fact, "vasl", ""))
            view["rolls"].append({"version": version, "side": fact.side or "unassigned", "die": fact.die,
                                  "dice": list(fact.dice), "source": SOURCES.get(fact.source, fact.source),
                                  "table": getattr(fact, "table", None), "in_force": fact.action not in voided,
                                  "player": fact.player if vasl else None,
                                  "category": getattr(fact, "category", "") if vasl else None,
                                  "scenario": f"action {fact.action}" if vasl else None, "third": None,
                                  "rof": None, "cg_date": date,
                                  "_attached": fact.action if isinstance(fact, DiceRolled) and fact.vasl else None})
    return view


def labelled(view: dict[str, Any], unwitnessed: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """The view's rolls as `rolls_of` gives them: an import's attached rolls counted from the import, the dice not
    witnessed named apart, a 3d6 split in its DR and dr."""
    imports = {i["action"] for i in view["imports"].values()}
    claimed = {(action, table, tuple(dice)) for version, action, table, dice in view["claims"]
               if version in unwitnessed} if unwitnessed else set()
    rolls = []
    for roll in view["rolls"]:
        roll = dict(roll)
        if "_claim" in roll:
            action, table, dice = roll.pop("_claim")
            if (action, table, tuple(dice)) in claimed:
                roll["source"] += f", {UNWITNESSED}"
        else:
            attached = roll.pop("_attached")
            if attached is not None and attached in imports:
                continue  # counted from its import
            if roll["version"] in unwitnessed:
                roll["source"] += f", {UNWITNESSED}"
        rolls += _split(roll)
    return rolls


def _split(roll: dict) -> list[dict]:
    if roll["die"] != "3d6":
        return [roll]
    white, colored, third = roll["dice"]
    return [{**roll, "die": "DR", "dice": [white, colored]}, {**roll, "die": "dr", "dice": [third]}]


def _both(rolls: list[dict]) -> dict[str, Any]:
    return {"DR": _summary(rolls, "DR"), "dr": _summary(rolls, "dr")}


def _by(rolls: list[dict], key: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rolls:
        out.setdefault(r[key] or "", []).append(r)
    return out


def vasl_stats(logged, rolls: list[dict], imports: dict | None = None) -> dict[str, Any]:
    """The VASL rolls in force: per scenario (each imported file, with its players and categories), per player
    and per category across the campaign, and VASL's extra dice (the Dust die, the ROF die) as drs."""
    vasl = [r for r in rolls if r["in_force"] and r["player"] is not None]
    if imports is None:
        imports = {e.version: {"file": e.fact.file, "form": e.fact.form} for e in logged
                   if isinstance(e.fact, VaslLogImported)}
    scenarios = []
    for scenario, mine in _by(vasl, "scenario").items():
        fact = imports.get(scenario)
        scenarios.append({"event": scenario if fact else None, "file": fact["file"] if fact else scenario,
                          "form": fact["form"] if fact else "", "cg_date": mine[0]["cg_date"], "reports": len(mine),
                          **_both(mine), "players": {p: _both(r) for p, r in sorted(_by(mine, "player").items())},
                          "categories": {c: _both(r) for c, r in sorted(_by(mine, "category").items())}})
    players = {}
    for player, mine in sorted(_by(vasl, "player").items()):
        players[player] = {"sides": sorted({r["side"] for r in mine}), **_both(mine),
                           "categories": {c: len(r) for c, r in sorted(_by(mine, "category").items())}}
    extra = {name: _summary([{"die": "dr", "dice": [r[name]]} for r in vasl if r[name] is not None], "dr")
             for name in ("third", "rof")}
    return {"scenarios": scenarios, "players": players,
            "categories": {c: _both(r) for c, r in sorted(_by(vasl, "category").items())},
            "dust_die": extra["third"], "rof_die": extra["rof"]}


def dice_stats(logged, side: str | None = None, unwitnessed: frozenset[int] = frozenset()) -> dict[str, Any]:
    return finish(fold(logged), side, unwitnessed)


def finish(view: dict[str, Any], side: str | None = None, unwitnessed: frozenset[int] = frozenset()) -> dict[str, Any]:
    rolls = [r for r in labelled(view, unwitnessed) if side is None or r["side"] == side]

    def groups(selected: list[dict]) -> list[dict[str, Any]]:
        keys = sorted({(r["side"], r["source"]) for r in selected})
        out = []
        for group_side, source in keys:
            mine = [r for r in selected if (r["side"], r["source"]) == (group_side, source)]
            tables: dict[str, int] = {}
            for r in mine:
                tables[r["table"] or "(no table)"] = tables.get(r["table"] or "(no table)", 0) + 1
            out.append({"side": group_side, "source": source, "DR": _summary(mine, "DR"), "dr": _summary(mine, "dr"),
                        "tables": dict(sorted(tables.items()))})
        return out

    in_force = [r for r in rolls if r["in_force"]]
    per_side = {s: {"DR": _summary([r for r in in_force if r["side"] == s], "DR"),
                    "dr": _summary([r for r in in_force if r["side"] == s], "dr")}
                for s in sorted({r["side"] for r in in_force})}
    return {"groups": groups(in_force), "sides": per_side, "undone": groups([r for r in rolls if not r["in_force"]]),
            "vasl": vasl_stats(None, rolls, {int(v): i for v, i in view["imports"].items()})}
