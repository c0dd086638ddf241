"""The page's audit after one new event: carried on by the server (`audit --json --kept`, ledger/audit/
`Continued`) against the whole audit from the first event (`audit --json`), side by side in one process, as the
page's Runner runs them. Targets: < 150 ms at 5,000 events, < 300 ms at
20,000.

    .venv/bin/python bench/bench_audit_kept.py [--events 5000 20000] [--moves 5]

The campaign is bench_web.py's (the shipped sample, both sides' keys, signed rolls up to the size). Each move is one
signed roll (bench_ledger.py `roll_batched`, the decision a `roll` makes); after it the kept audit and the whole one
are timed, in turn (a gc.collect() before each). Each kept report is compared with the whole one: equal, or the
bench stops. Measured, not asserted: the bench exits 0.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_ledger import roll_batched  # noqa: E402
from bench_web import KEYS, build, count  # noqa: E402

from cgledger.cli.web.runner import Runner  # noqa: E402
from cgledger.ledger.application import open_ledger  # noqa: E402
from cgledger.ledger.rules.dice import SeededDice  # noqa: E402

TARGETS = {5000: 0.150, 20000: 0.300}


def timed(runner: Runner, words: list[str]) -> tuple[float, str]:
    gc.collect()
    t0 = time.perf_counter()
    outcome = runner.run(words)
    took = time.perf_counter() - t0
    if outcome.error and "problem" not in (outcome.error or ""):
        raise SystemExit(f"{' '.join(words)}: {outcome.error}")
    return took, outcome.out


def measure(db: Path, moves: int, keys: dict[str, bytes] = KEYS) -> dict[str, list[float]]:
    """`keys`: each side's key material in the campaign (the German's is the page's)."""
    runner = Runner(str(db), None, keys["german"], "1")
    first, _ = timed(runner, ["audit", "--json", "--kept"])  # the server's first audit: the whole log, kept
    out: dict[str, list[float]] = {"first kept": [first], "kept": [], "whole": []}
    ledger = open_ledger(str(db), dice=SeededDice(7))
    for move in range(moves):
        roll_batched(ledger, 1, 1_000_000 + move, keys)  # one signed roll: the other side's move
        kept, kept_out = timed(runner, ["audit", "--json", "--kept"])
        whole, whole_out = timed(runner, ["audit", "--json"])
        if kept_out != whole_out:
            raise SystemExit(f"the kept audit differs from the whole one after move {move + 1}")
        out["kept"].append(kept)
        out["whole"].append(whole)
    ledger.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--moves", type=int, default=5, help="moves timed at each size (default 5)")
    args = parser.parse_args()
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-audit-"))
    try:
        for events in args.events:
            db = tmp / f"{events}.db"
            t0 = time.perf_counter()
            build(db, events)
            size = count(db)
            print(f"built a {size:,}-event campaign in {time.perf_counter() - t0:.0f} s", flush=True)
            rows.append((events, size, measure(db, args.moves)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nthe page's audit after one new event: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite; "
          f"median of {args.moves} moves, each kept report equal to the whole one\n")
    print(f"{'events':>8}{'first kept ms':>15}{'kept ms':>9}{'max':>6}{'whole ms':>10}{'whole/kept':>12}"
          f"{'target ms':>11}{'met':>5}")
    for events, size, out in rows:
        kept, whole = statistics.median(out["kept"]), statistics.median(out["whole"])
        target = TARGETS.get(events)
        met = "-" if target is None else ("yes" if kept < target else "no")
        print(f"{size:>8,}{out['first kept'][0] * 1000:>15.0f}{kept * 1000:>9.0f}{max(out['kept']) * 1000:>6.0f}"
              f"{whole * 1000:>10.0f}{whole / kept:>11.1f}x{(target or 0) * 1000:>11.0f}{met:>5}")


if __name__ == "__main__":
    main()
