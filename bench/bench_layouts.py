"""Cold reads by the shape of the campaign ("every read command at 5,000 events under 150 ms and at 20,000
under 300 ms"): the same reads on two campaigns of each size, side by side in one run.

    .venv/bin/python bench/bench_layouts.py [--sizes 5000,20000] [--runs 5]

Layouts:
  - one-date: bench_cli.py's campaign, the shipped KGP sample then every roll on one CG Date (21 AM, step 8.614).
    The open CG Date's due items are the whole state, so its latest snapshot is large (about 0.9 MB at 20,000
    events) and a cold read loads it (the campaign) and hashes it (the answer's key, ledger/read/answers.py);
  - dates: bench_snapshots.py's campaign, KGP CG III with its rolls spread over its eleven CG Dates as play spreads
    them (each date's 8.614 rolls, CPP Replenishment, the 8.618 DR, both sides' sealed Initiative chits), each side
    signing with its own key: a closed CG Date leaves its due items behind. The St Map Group's
    fixture grid is loaded first, as the sample loads it, so that `areas` and `map` have a map to read.
Each read is cold, as bench_cli.py's "kept views" table times it: no view kept on this machine and no answer kept
(both folders removed before each run), so the views are folded from the whole log and kept. Each command runs as
a subprocess (`cgledger ...`, bytecode cached), best and median of --runs, alternating the layouts run by run.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_cli  # noqa: E402
from bench_cli import CGLEDGER  # noqa: E402
from bench_snapshots import Builder  # noqa: E402

COLD = [  # (label, arguments): the reads a player runs, each from no kept view and no kept answer
    ("roster", ["roster", "--side", "german"]),
    ("rg-record", ["rg-record", "--side", "german"]),
    ("history", ["history"]),
    ("dice-stats", ["dice-stats"]),
    ("areas", ["areas", "--group", "St", "--json"]),
    ("map", ["map", "--group", "St", "--svg", "{tmp}/map.svg"]),
    ("report --html", ["report", "--html", "{tmp}/report.html"]),
    ("log --json", ["log", "--json"]),
    ("export", ["export", "--since", "0", "{tmp}/bundle.json"]),
]


def build_dates(folder: Path, size: int) -> Path:
    """bench_snapshots.py's `dates` campaign grown to `size` events."""
    db = folder / f"dates-{size}.db"
    builder = Builder(db, "dates", None, size, (str(ROOT / "fixtures" / "kgp-st-fixture-map.toml"),))
    builder.grow(size)
    builder.ledger.close()
    return db


def snapshot_kb(db: Path) -> float:
    """The latest snapshot's stored size, in KB."""
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT length(state) FROM stored_snapshots ORDER BY originator_version DESC LIMIT 1").fetchone()
    conn.close()
    return (row[0] if row else 0) / 1024


def timed(argv: list[str], env: dict, forget: list[Path]) -> float:
    for place in forget:
        shutil.rmtree(place, ignore_errors=True)
    t0 = time.perf_counter()
    bench_cli.run(argv, 1, env)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000", help="campaign sizes in events (default 5000,20000)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each read on each campaign (default 5)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[0] < 200:
        parser.error("sizes start at 200 events (the sample campaign alone is 114)")
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-layouts-"))
    env = bench_cli.isolate(tmp)
    state = Path(env["XDG_STATE_HOME"]) / "cgledger"
    forget = [state / "views", state / "answers"]
    try:
        t0 = time.perf_counter()
        dbs = {("one-date", size): db for size, db in bench_cli.build(tmp, sizes).items() if size}
        for size in sizes:
            dbs["dates", size] = build_dates(tmp, size)
        print(f"built both layouts at {', '.join(map(str, sizes))} events in {time.perf_counter() - t0:.0f} s",
              flush=True)
        for db in dbs.values():  # this machine checks each log once and marks it (as a player's first read does)
            bench_cli.run([*CGLEDGER, "--db", str(db), "status"], 1, env)
        times: dict[tuple, list[float]] = {}
        for label, argv in COLD:
            argv = [a.replace("{tmp}", str(tmp)) for a in argv]
            for _ in range(args.runs):
                for key, db in dbs.items():
                    times.setdefault((label, *key), []).append(timed([*CGLEDGER, "--db", str(db), *argv], env, forget))
        print(f"\ncold reads by the campaign's layout: no view and no answer kept on this machine; wall ms of each "
              f"command as a subprocess, best / median of {args.runs}\n")
        columns = [(layout, size) for size in sizes for layout in ("one-date", "dates")]
        print(f"{'':<16}" + "".join(f"{f'{layout} {size:,}':>18}" for layout, size in columns))
        print(f"{'latest snapshot':<16}" + "".join(f"{f'{snapshot_kb(dbs[key]):,.0f} KB':>18}" for key in columns))
        for label, _argv in COLD:
            cells = (times[label, *key] for key in columns)
            print(f"{label:<16}" + "".join(f"{f'{min(t) * 1000:.0f} / {statistics.median(t) * 1000:.0f}':>18}"
                                            for t in cells))
        for size in sizes:
            limit = 150 if size <= 5000 else 300
            for layout in ("one-date", "dates"):
                worst = max((statistics.median(times[label, layout, size]), label) for label, _a in COLD)
                print(f"{layout} at {size:,}: slowest median {worst[1]} {worst[0] * 1000:.0f} ms "
                      f"(target under {limit} ms: {worst[0] * 1000 / limit:.2f}x of it)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
