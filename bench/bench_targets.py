"""Every speed target where players wait, measured in one run on one campaign and printed as met or not.

    .venv/bin/python bench/bench_targets.py [--sizes 1000,5000,20000,50000] [--runs 5]   # ~16 min on 2 cores

The campaign is bench_snapshots.py's `dates` layout, as play makes one: KGP CG III with its signed rolls spread over
the CG's eleven CG Dates (each date's 8.614 rolls, CPP Replenishment, the 8.618 DR, both sides' sealed Initiative
chits), each side signing with its own key, the St Map Group's grid loaded. It is grown once and copied at each size.
The four sizes: the first is the small campaign a roll is compared with, the second and third are where reads and
the page's audit have their limits (120 and 250 ms, 150 and 300 ms), the last the largest the first read is timed on.

What is timed (whole processes as a player runs them, `cgledger ...`, bytecode cached; medians):
  - every read after the other side's move (the limits were set where `python -c "import click"` took 45 ms: on a
    slower machine each is scaled by this run's `import click` against that): before each run another machine (its own state folder) records one
    signed roll, so this machine's kept views and answers are one event behind and the read folds it; a read that
    keeps nothing reads the whole log. The same read cold (no view and no answer kept: a rules file loaded, an
    upgrade) is printed beside it, not a target: the first read on a new machine has its own target below;
  - the page's audit after one new event (bench_audit_kept.py: the server's audit carried on, in process);
  - the first read on a new machine (`status` with a fresh state folder: every digest and signature checked) and
    `audit`, each against the floor that decodes every row and verifies every signature on all cores, in pairs
    run in turn (bench_first_read.py);
  - a signed `roll` with the key agent on at the largest size against one at the smallest, run in turn (the median
    of the pairs' ratios; bench_agent.py times each apart);
  - the peak memory (VmHWM) of `audit` and of `report --html` after a move (its cold figure beside it) at the third
    size against a floor that streams: each row read, decoded and its signature verified, nothing kept.
Measured, not asserted: the bench exits 0 whatever it measures.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_audit_kept  # noqa: E402
import bench_cli  # noqa: E402
import bench_first_read  # noqa: E402
from bench_cli import CGLEDGER, HWM  # noqa: E402
from bench_snapshots import KEYS, Builder  # noqa: E402

# `python -c "import click"` on the machine the read limits were set on (bench/history.md): on a slower machine each
# limit is scaled by how much longer that start-up takes there, measured in the same run
CLICK_THEN = 0.045
PLAYER = str(Path(sys.executable).parent / "cgledger")  # the console script, as players run it (no memory report)
READS = [(label, argv) for label, argv in bench_cli.READS if label != "audit"] + [
    ("step", ["step", "--json"]), ("date", ["date"]), ("final", ["final"])]
ROLL = ["roll", "8.6142", "--side", "us", "--drm", "vehicular"]
_ITEM = itertools.count(1)

# The decode + verify floor that streams: each row read, decoded and its signature checked, nothing kept. DB is argv[1].
STREAMING_FLOOR = [sys.executable, "-c", HWM + f"""
import sqlite3, sys
sys.path.insert(0, {str(ROOT)!r})
from cgledger.ledger.trust.envelope import decode_envelope
from cgledger.ledger.domain.events import SideKeyRegistered
from cgledger.ledger.trust.secrets import verify
keys = {{}}
conn = sqlite3.connect(sys.argv[1])
for (state,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid"):
    envelope = decode_envelope(state)
    if isinstance(envelope.fact, SideKeyRegistered):
        keys[envelope.author] = envelope.fact.public
    assert not envelope.signature or verify(keys[envelope.author], envelope.digest, envelope.signature)
"""]


def grow(folder: Path, sizes: list[int]) -> dict[int, Path]:
    """The `dates` campaign grown to each size in turn, a copy kept at each."""
    builder = Builder(folder / "grow.db", "dates", None, sizes[-1], (str(ROOT / "fixtures" / "kgp-st-fixture-map.toml"),))
    copies = {}
    for size in sizes:
        builder.grow(size)
        copies[size] = folder / f"campaign-{size}.db"
        with sqlite3.connect(builder.db) as source, sqlite3.connect(copies[size]) as target:
            source.backup(target)
        source.close(), target.close()
    builder.ledger.close()
    return copies


def wall(argv: list[str], env: dict) -> float:
    return bench_cli.run(argv, 1, env)[0]


def move(other: dict) -> None:
    """The other side's move: one signed roll recorded by another machine (`other`: its environment)."""
    subprocess.run([*CGLEDGER, *ROLL, "--for", f"move {next(_ITEM)}"], env=other, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def peaks(db: Path, env: dict, other: dict, tmp: Path) -> dict[str, float]:
    """Peak MB (VmHWM) of `audit`, of `report --html` after the other side's move (the views kept, one event behind)
    and cold (no view kept: the whole log folded), and of the streaming floor."""
    env, other = {**env, "CGLEDGER_DB": str(db)}, {**other, "CGLEDGER_DB": str(db)}
    report = [*CGLEDGER, "report", "--html", str(tmp / "report.html")]
    state = Path(env["XDG_STATE_HOME"]) / "cgledger"
    bench_cli.run(report, 1, env)  # the views kept
    out = {"audit": bench_cli.run([*CGLEDGER, "audit"], 1, env)[1],
           "report --html": bench_cli.run(report, 1, env, before=lambda: move(other))[1],
           "floor": bench_cli.run([*STREAMING_FLOOR, str(db)], 1, env)[1]}
    out["report cold"] = bench_cli.run(report, 1, env, before=lambda: [
        shutil.rmtree(state / place, ignore_errors=True) for place in ("views", "answers")])[1]
    return out


def reads(db: Path, env: dict, other: dict, runs: int, tmp: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Each read: (its times after the other side's move, its times cold)."""
    state = Path(env["XDG_STATE_HOME"]) / "cgledger"
    env, other = {**env, "CGLEDGER_DB": str(db)}, {**other, "CGLEDGER_DB": str(db)}
    wall([*CGLEDGER, "status"], env)  # this machine checks the log once and marks it, as a player's first read does

    def moved() -> None:
        move(other)

    def forgotten() -> None:
        for place in ("views", "answers"):
            shutil.rmtree(state / place, ignore_errors=True)

    out = {}
    for label, argv in READS:
        argv = [*CGLEDGER, *[a.replace("{tmp}", str(tmp)) for a in argv]]
        after = [bench_cli.run(argv, 1, env, before=moved)[0] for _ in range(runs)]
        cold = [bench_cli.run(argv, 1, env, before=forgotten)[0] for _ in range(runs)]
        out[label] = (after, cold)
    return out


def agent_rolls(dbs: dict[int, Path], sizes: tuple[int, int], env: dict, runs: int, runtime: Path
                ) -> tuple[float, float, float]:
    """A signed roll (the U.S. side's) with the key agent on, at the small size and at the large one in turn, 2 x runs
    pairs: (the small one's median, the large one's, the median of the pairs' ratios, large / small)."""
    base = {**env, "CGLEDGER_PASSPHRASE": KEYS["us"].decode(), "XDG_RUNTIME_DIR": str(runtime)}
    here = {size: {**base, "CGLEDGER_DB": str(dbs[size]), "XDG_STATE_HOME": str(runtime / f"state-{size}")}
            for size in sizes}
    for size in sizes:
        wall([*CGLEDGER, "status"], here[size])  # this machine checks the log once
        subprocess.run([*CGLEDGER, "keys", "unlock", "--for", "30m"], env=here[size], check=True, capture_output=True)
    times: dict[int, list[float]] = {size: [] for size in sizes}
    try:
        for _ in range(2 * runs + 1):  # the first pair warms the caches: not counted
            for size in sizes:
                times[size].append(wall([*CGLEDGER, *ROLL, "--for", f"agent {next(_ITEM)}"], here[size]))
    finally:
        subprocess.run([*CGLEDGER, "keys", "lock"], env=here[sizes[0]], capture_output=True)
    small, large = (times[size][1:] for size in sizes)
    return statistics.median(small), statistics.median(large), statistics.median(b / a for a, b in zip(small, large))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000,50000",
                        help="four campaign sizes in events: the roll's base, the two read sizes, the largest")
    parser.add_argument("--runs", type=int, default=5, help="runs (or pairs) of each measurement (default 5)")
    parser.add_argument("--reads", default=None, help="the reads timed, by label, comma-separated (default: all)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if len(sizes) != 4 or sizes[0] < 200:
        parser.error("give four sizes, from 200 events")
    if args.reads:
        wanted = args.reads.split(",")
        READS[:] = [(label, argv) for label, argv in READS if label in wanted]
        if len(READS) != len(wanted):
            parser.error(f"--reads: known reads are {', '.join(label for label, _a in bench_cli.READS)}, step, date, final")
    small, mid, large, big = sizes
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-targets-"))
    runtime = Path(tempfile.mkdtemp(prefix="cgl-run-"))  # short: a socket's path has at most 107 bytes
    env = bench_cli.isolate(tmp)
    os.environ.update(env)  # bench_first_read's pairs run with this environment
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    other = {**env, "XDG_STATE_HOME": str(tmp / "other-machine"), "CGLEDGER_PASSPHRASE": KEYS["us"].decode()}
    rows: list[tuple[str, str, bool]] = []  # (target, measured, met)
    try:
        t0 = time.perf_counter()
        dbs = grow(tmp, sizes)
        print(f"built the campaign at {', '.join(f'{s:,}' for s in sizes)} events in {time.perf_counter() - t0:.0f} s",
              flush=True)
        first = {}
        for size in (mid, large, big):  # before any other measurement adds events to the copies
            copy = tmp / f"first-{size}.db"
            shutil.copy(dbs[size], copy)
            first[size] = (bench_first_read.pairs(copy, args.runs, PLAYER, tmp),
                           bench_first_read.pairs(copy, args.runs, PLAYER, tmp, ("audit",)))
            copy.unlink()
            print(f"measured the first read and the audit at {size:,}", flush=True)
        click = statistics.median(bench_cli.run(bench_cli.CLICK, 1, env)[0] for _ in range(max(args.runs, 5)))
        timed = {size: reads(dbs[size], env, other, args.runs, tmp) for size in (mid, large)}
        print("measured the reads", flush=True)
        memory = peaks(dbs[large], env, other, tmp)
        audited = {size: bench_audit_kept.measure(dbs[size], args.runs, KEYS) for size in (mid, large)}
        print("measured the page's audit", flush=True)
        rolled = agent_rolls(dbs, (small, big), env, args.runs, runtime)
    finally:
        subprocess.run([*CGLEDGER, "keys", "lock"], env={**env, "XDG_RUNTIME_DIR": str(runtime)}, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)

    print(f"\nreads, ms: median / best of {args.runs}; after a move = another machine recorded one signed roll just "
          f"before; cold = no view and no answer kept (not a target)\n")
    print(f"{'read':<16}" + "".join(f"{f'{s:,} after a move':>22}{'cold':>12}" for s in (mid, large)))
    for label, _argv in READS:
        print(f"{label:<16}" + "".join(
            f"{f'{statistics.median(timed[s][label][0]) * 1000:.0f} / {min(timed[s][label][0]) * 1000:.0f}':>22}"
            f"{f'{statistics.median(timed[s][label][1]) * 1000:.0f}':>12}" for s in (mid, large)))
    scale = max(click / CLICK_THEN, 1.0)
    print(f"\n`python -c 'import click'` {click * 1000:.0f} ms here, {CLICK_THEN * 1000:.0f} ms where the read limits "
          f"were set: each limit x{scale:.2f}")
    for size, limit in ((mid, 120), (large, 250)):
        worst, label = max((statistics.median(timed[size][label][0]), label) for label, _a in READS)
        rows.append((f"every read after a move at {size:,} events < {limit} ms (x{scale:.2f}: {limit * scale:.0f} ms)",
                     f"slowest median: {label} {worst * 1000:.0f} ms", worst * 1000 < limit * scale))
    for size, limit in ((mid, 150), (large, 300)):
        kept = statistics.median(audited[size]["kept"])
        rows.append((f"the page's /audit after one new event at {size:,} events < {limit} ms",
                     f"{kept * 1000:.0f} ms (max {max(audited[size]['kept']) * 1000:.0f}; the whole audit "
                     f"{statistics.median(audited[size]['whole']) * 1000:.0f})", kept * 1000 < limit))
    for size, ((read, floor, ratio), (audit, afloor, aratio)) in first.items():
        rows.append((f"first read on a new machine at {size:,} events within 1.2x its floor on all cores",
                     f"{ratio:.2f}x ({read:.2f} s against {floor:.2f})", ratio <= 1.2))
        rows.append((f"`audit` at {size:,} events within 1.2x the same floor",
                     f"{aratio:.2f}x ({audit:.2f} s against {afloor:.2f})", aratio <= 1.2))
    small_ms, big_ms, ratio = rolled
    rows.append((f"a signed roll at {big:,} events within 1.1x one at {small:,}, key agent on",
                 f"{ratio:.2f}x ({big_ms * 1000:.0f} ms against {small_ms * 1000:.0f}, medians of {2 * args.runs} "
                 "pairs)", ratio <= 1.1))
    for label, when in (("audit", ""), ("report --html", " after a move")):
        share = memory[label] / memory["floor"]
        cold = f"; cold {memory['report cold']:.0f} MB" if label.startswith("report") else ""
        rows.append((f"peak memory of `{label}`{when} at {large:,} events within 1.5x a streaming floor",
                     f"{share:.2f}x ({memory[label]:.0f} MB against {memory['floor']:.0f}{cold})", share <= 1.5))
    print(f"\nthe targets: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite, load average "
          f"{os.getloadavg()[0]:.1f} at the end\n")
    width = max(len(target) for target, _m, _ok in rows) + 2
    for target, measured, met in rows:
        print(f"{'met' if met else 'NOT MET':<9}{target:<{width}}{measured}")
    print(f"\n{sum(ok for _t, _m, ok in rows)} of {len(rows)} targets met")


if __name__ == "__main__":
    main()
