"""The first read on a new machine against its floor on all cores: `cgledger status` with a fresh state folder (no
verify-once mark, no kept answer: every event's digest recomputed and every signature checked) beside a process that
does only what such a read cannot avoid: every row read with `sqlite3`, decoded with msgspec into its envelope and
fact, and every signature verified, split over as many processes as the machine has CPUs (forked once the rows are
decoded: no second start-up, the checks halved on 2 cores).

    .venv/bin/python bench/bench_first_read.py DB [DB ...] [--runs 7]   # the read and the floor in turn, each DB
    .venv/bin/python bench/bench_first_read.py --floor DB                # the floor once (to time it from outside)

Each DB is copied into a temp folder first (the read writes its WAL beside it); campaigns: `bench_cli.py`'s build.
Whole process, pairs run in turn (read, floor, read, floor ...), wall time; prints each DB's medians and the median
of the pairs' ratios. The parsed rules are kept ($XDG_CACHE_HOME) as on any machine after its first command.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

def floor(db: str) -> None:
    """Read, decode, verify on every CPU: the parent checks its share while each forked child checks its own."""
    from cgledger.ledger.domain.events import SideKeyRegistered
    from cgledger.ledger.trust.envelope import decode_envelope
    from cgledger.ledger.trust.secrets import verify

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        envelopes = [decode_envelope(s) for (s,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid")]
    keys = {e.author: e.fact.public for e in envelopes if isinstance(e.fact, SideKeyRegistered)}
    signed = [e for e in envelopes if e.signature]
    shares = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    children = []
    for n in range(1, shares):
        pid = os.fork()
        if pid == 0:
            os._exit(0 if all(verify(keys[e.author], e.digest, e.signature) for e in signed[n::shares]) else 1)
        children.append(pid)
    ok = all(verify(keys[e.author], e.digest, e.signature) for e in signed[0::shares])
    ok = all([os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 for pid in children]) and ok
    if not ok:
        sys.exit("a signature does not verify")


def timed(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def pairs(copy: Path, runs: int, cgledger: str | list[str], tmp: Path,
          command: tuple[str, ...] = ("status",)) -> tuple[float, float, float]:
    """(the read's median, the floor's, the median of the pairs' ratios): the read (`cgledger --db COPY command`)
    with a fresh state folder, then the floor, `runs` times after one pair not counted (it warms the caches)."""
    reads, floors, ratios = [], [], []
    program = [cgledger] if isinstance(cgledger, str) else cgledger
    for _ in range(runs + 1):
        state = tempfile.mkdtemp(dir=tmp)
        read = timed([*program, "--db", str(copy), *command], {**os.environ, "XDG_STATE_HOME": state})
        shutil.rmtree(state)
        base = timed([sys.executable, __file__, "--floor", str(copy)], dict(os.environ))
        reads.append(read), floors.append(base), ratios.append(read / base)
    return statistics.median(reads[1:]), statistics.median(floors[1:]), statistics.median(ratios[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dbs", nargs="+", help="campaign databases (copied first)")
    parser.add_argument("--runs", type=int, default=7, help="pairs per database (default 7)")
    parser.add_argument("--floor", action="store_true", help="run the floor once on DB and exit")
    parser.add_argument("--cgledger", default=str(Path(sys.executable).parent / "cgledger"),
                        help="the console script timed (default: this Python's)")
    args = parser.parse_args()
    if args.floor:
        floor(args.dbs[0])
        return
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-first-read-"))
    print(f"{'campaign':<28}{'read s':>9}{'floor s':>9}{'ratio':>8}   (medians of {args.runs} pairs)")
    try:
        for db in args.dbs:
            copy = tmp / Path(db).name
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as source, sqlite3.connect(copy) as target:
                source.backup(target)
            read, base, ratio = pairs(copy, args.runs, args.cgledger, tmp)
            print(f"{Path(db).name:<28}{read:>9.3f}{base:>9.3f}{ratio:>7.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
