"""The command line as players run it: start-up against `python -c "import click"`, and every read command on
campaigns of 1k, 10k and 50k events against the floor, with each command's peak memory. One run, one table. The
reads whose answers are kept per log head (ledger/read/answers.py) are timed both repeated (the answer kept) and first
(no answer kept on the sample; one roll recorded just before on the grown campaigns): the read tables' other rows
run each command several times, so those of the reads kept are their repeated figure after the first run.

    .venv/bin/python bench/bench_cli.py [--sizes 1000,10000,50000] [--runs 3] [--audit-only]

The campaigns: the shipped KGP sample (six CG Dates, a Map Group, undos, a rewind), then both sides' keys and
rolls up to each size (every one signed, as bench_ledger.py records them), in a temp directory deleted afterwards.
Each command runs as a subprocess (`cgledger ...`), wall time best of --runs; memory is the child's ru_maxrss.

Floors, measured in this process on the same file:
  - typed decode: raw sqlite3 SELECT of every event + msgspec's typed decode of each into its envelope and fact
    (what any read of the whole log cannot avoid);
  - + verify: the same, plus the Ed25519 check of every signature (what the audit cannot avoid either);
  - + verify on two threads: the same, the checks split over two threads (`cryptography` releases the GIL while it
    verifies): what an audit verifying on a worker thread is compared with on a 2-core machine.
"x floor" of a command = its wall time / (start-up of `import click` + the typed-decode floor at that size).
The audit is also timed in process against the floors (no start-up in either), with the signatures verified in line
and on a worker thread (ledger/trust/signatures.py `Verifier`), and the peak memory (VmHWM) of a child process running
the decode + verify floor once, against `cgledger audit`'s. `--audit-only` builds the campaigns and prints only the
audit's in-process table, the floor and the audit run back to back in each of --runs rounds.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_ledger import PASSPHRASE, roll_batched  # noqa: E402
from cgledger.ledger.application import open_ledger  # noqa: E402
from cgledger.ledger.verbs import acts, keys as keyverbs  # noqa: E402
from cgledger.ledger.domain.commands import ChooseDiceMode  # noqa: E402
from cgledger.ledger.rules.dice import SeededDice  # noqa: E402
from cgledger.ledger.trust.envelope import decode_envelope  # noqa: E402

# The entry point, reporting its peak RSS on exit: VmHWM of its own memory (ru_maxrss would count the bench's
# memory too, inherited through fork).
HWM = ("import atexit, os\n"
       "def _hwm():\n"
       "    kb = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
       "    os.write(2, f'\\nHWM {kb}\\n'.encode())\n"
       "atexit.register(_hwm)\n")
# as the console script runs it (cli/quick.py: the reads in its COMMANDS without click, the rest through the click
# group)
CGLEDGER = [sys.executable, "-c", HWM + "import sys\nsys.argv[0] = 'cgledger'\nfrom cgledger.cli.quick import main\nmain()"]
CLICK = [sys.executable, "-c", HWM + "import click"]
# what any full read imports before it reads a row (the fold, the events, the rules engine, msgspec, sqlite3,
# hashlib), no event-sourcing library, no CLI module, nothing read: the floor of a read no answer is kept for
FOLD_IMPORTS = [sys.executable, "-c", HWM + "import click, msgspec, sqlite3, hashlib, json\n"
                "import cgledger.ledger.domain.evolve, cgledger.ledger.rules, cgledger.ledger.trust.envelope, cgledger.ledger.trust.chain"]
# the same without click: what `status` (cli/quick.py) imports before it reads a row when no answer is kept
QUICK_IMPORTS = [FOLD_IMPORTS[0], "-c", FOLD_IMPORTS[2].replace("import click, ", "import ")]
READS = [  # (label, arguments): every command that reads the whole log, or a part of it
    ("status", ["status"]),
    ("head", ["head"]),
    ("roster", ["roster", "--side", "german"]),
    ("rg-record", ["rg-record", "--side", "german"]),
    ("log --json", ["log", "--json"]),
    ("history", ["history"]),
    ("audit", ["audit"]),
    ("audit --fast", ["audit", "--fast"]),  # trusts this machine's mark
    ("areas", ["areas", "--group", "St", "--json"]),
    ("map", ["map", "--group", "St", "--svg", "{tmp}/map.svg"]),
    ("dice-stats", ["dice-stats"]),
    ("report --html", ["report", "--html", "{tmp}/report.html"]),
    ("export", ["export", "--since", "0", "{tmp}/bundle.json"]),
    ("tables", ["tables"]),
]


KEPT = [  # the reads served by the views kept current: cold, current, and one event behind
    ("roster", ["roster", "--side", "german"]),
    ("rg-record", ["rg-record", "--side", "german"]),
    ("history", ["history"]),
    ("dice-stats", ["dice-stats"]),
    ("report --html", ["report", "--html", "{tmp}/report.html"]),
    ("areas", ["areas", "--group", "St", "--json"]),
    ("map", ["map", "--group", "St", "--svg", "{tmp}/map.svg"]),
]

ANSWERED = [  # the reads whose answers are kept per log head (ledger/read/answers.py): repeated, and first after an event
    ("status", ["status"]),
    ("step", ["step", "--json"]),
    ("date", ["date"]),
    ("roster", ["roster", "--side", "german"]),
    ("rg-record", ["rg-record", "--side", "german"]),
    ("history", ["history"]),
    ("dice-stats", ["dice-stats"]),
    ("final", ["final"]),
    ("areas", ["areas", "--group", "St", "--json"]),
    ("map", ["map", "--group", "St", "--svg", "{tmp}/map.svg"]),
]

ENV = dict(os.environ)  # + PYTHONPYCACHEPREFIX and this machine's XDG_STATE_HOME (its kept views): `isolate`


def isolate(tmp: Path) -> dict:
    """The commands' environment, kept in ENV (which `run` uses) and returned: bytecode as an installed package has
    it (compiled once, cached under `tmp`: without it, as with PYTHONDONTWRITEBYTECODE=1, every command compiles ~40
    modules again, ~100 ms), this machine's marks, heads, views and answers (XDG_STATE_HOME) and the parsed rules'
    cache (XDG_CACHE_HOME, ledger/rules/cachefile.py, filled once) under `tmp`, not the user's."""
    ENV.clear()
    ENV.update(os.environ)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    ENV["XDG_STATE_HOME"] = str(tmp / "state")
    ENV["XDG_CACHE_HOME"] = str(tmp / "cache")
    return dict(ENV)


def kept_reads(tmp: Path, env: dict, runs: int) -> dict[str, tuple[float, float, float, float]]:
    """Each kept read: (cold: no view on this machine, so folded from the whole log and kept; current: the view is
    at the log's head; one behind: another machine recorded one roll since, so one event is folded; undo: another
    machine recorded a roll and undid it, so the view is folded again from a checkpoint), best of runs."""
    views = Path(env["XDG_STATE_HOME"]) / "cgledger" / "views"
    answers = views.parent / "answers"  # forgotten before each run: these rows time the views, not the answers kept
    other = {**env, "XDG_STATE_HOME": str(tmp / "other-machine"), "CGLEDGER_PASSPHRASE": PASSPHRASE.decode()}
    count = iter(range(10**6))

    def one_more() -> None:  # recorded by another machine: this machine's views are not advanced by it
        i = next(count)
        subprocess.run([*CGLEDGER, "roll", "8.6142", "--side", "us", "--drm", "vehicular", "--for", f"bench {i}"], env=other,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def undone() -> None:  # another machine rolls and takes the roll back: the undo changes what an earlier event means
        i = next(count)
        for argv in (["roll", "8.6142", "--side", "german", "--drm", "vehicular", "--for", f"undone {i}"], ["undo"]):
            subprocess.run([*CGLEDGER, *argv], env=other, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)

    out = {}
    for label, argv in KEPT:
        argv = [*CGLEDGER, *[a.replace("{tmp}", str(tmp)) for a in argv]]
        cold = run(argv, runs, env, before=lambda: [shutil.rmtree(p, ignore_errors=True) for p in (views, answers)])[0]
        current = run(argv, runs, env, before=lambda: shutil.rmtree(answers, ignore_errors=True))[0]
        behind = run(argv, runs, env, before=one_more)[0]
        out[label] = (cold, current, behind, run(argv, runs, env, before=undone)[0])
    return out


def answered_reads(tmp: Path, env: dict, runs: int) -> dict[str, tuple[float, float]]:
    """Each read whose answer is kept: (repeated: the answer kept for this head, best of runs; first after a new
    event: this machine records one roll before each run, so the answer misses and the read runs in full, then keeps
    it), best of runs."""
    keyed = {**env, "CGLEDGER_PASSPHRASE": PASSPHRASE.decode()}  # the roll only: the timed read has no key
    count = iter(range(10**6))

    def one_more() -> None:
        i = next(count)
        subprocess.run([*CGLEDGER, "roll", "8.6142", "--side", "us", "--drm", "vehicular", "--for", f"answer {i}"],
                       env=keyed, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    out = {}
    for label, argv in ANSWERED:
        argv = [*CGLEDGER, *[a.replace("{tmp}", str(tmp)) for a in argv]]
        first = run(argv, runs, env, before=one_more)[0]
        out[label] = (run(argv, runs, env)[0], first)
    return out


def run(args: list[str], runs: int, env: dict | None = None, before=None) -> tuple[float, float]:
    """(best wall seconds, peak MB of the child) of a command run `runs` times (`before()` ahead of each, untimed)."""
    best, peak = float("inf"), 0.0
    for _ in range(runs):
        if before is not None:
            before()
        t0 = time.perf_counter()
        done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args[3:])} failed: {done.stderr.decode()[-2000:]}")
        kb = int(done.stderr.decode().rsplit("HWM ", 1)[1])
        best, peak = min(best, wall), max(peak, kb / 1024)
    return best, peak


def build(folder: Path, sizes: list[int]) -> dict[int, Path]:
    """One campaign grown to each size in turn, a copy of its file kept at each."""
    db = folder / "grow.db"
    env = {**os.environ, "CGLEDGER_DB": str(db), "CGLEDGER_SEED": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    subprocess.run([*CGLEDGER, "script", str(ROOT / "fixtures" / "kgp-cg1-sample.cgl"), "--quiet"], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    copies = {0: folder / "sample.db"}  # the shipped sample alone (124 events): the start-up table's campaign
    shutil.copy(db, copies[0])
    ledger = open_ledger(str(db), dice=SeededDice(1))
    acts.step(ledger, None, None)  # 21 AM: a new CG Date, then on to step 8.614, whose rolls fill the log
    acts.step(ledger, None, "8.614")
    ledger.execute(None, ChooseDiceMode(mode="immediate"))
    for side in ("german", "us"):
        keyverbs.register_key(ledger, None, side, PASSPHRASE, "immediate")
    ledger.key_material = PASSPHRASE
    for size in sorted(sizes):
        have = len(ledger.history(None))
        if size > have:
            roll_batched(ledger, size - have, have)
        copies[size] = folder / f"campaign-{size}.db"
        ledger.close()
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{db}{suffix}").exists():
                shutil.copy(f"{db}{suffix}", f"{copies[size]}{suffix}")
        ledger = open_ledger(str(db), dice=SeededDice(1))
        ledger.key_material = PASSPHRASE
    ledger.close()
    return copies


def floor_typed(db: Path) -> tuple[float, int]:
    """Best of 3: SELECT every stored event, msgspec typed decode of each envelope (fact included)."""
    best, count = float("inf"), 0
    for _ in range(3):
        gc.collect()
        t0 = time.perf_counter()
        with sqlite3.connect(db) as conn:
            count = len([decode_envelope(s) for (s,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid")])
        conn.close()
        best = min(best, time.perf_counter() - t0)
    return best, count


def floor_verify(db: Path) -> float:
    """The typed-decode floor plus the Ed25519 check of every signed event against its side's key."""
    from cgledger.ledger.trust.secrets import verify

    ledger = open_ledger(str(db))
    keys = {side: key["public"] for side, key in ledger.campaign(None).keys.items()}
    ledger.close()
    best = float("inf")
    for _ in range(3):
        gc.collect()
        t0 = time.perf_counter()
        with sqlite3.connect(db) as conn:
            envelopes = [decode_envelope(s) for (s,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid")]
        conn.close()
        assert all(verify(keys[e.author], e.digest, e.signature) for e in envelopes if e.signature)
        best = min(best, time.perf_counter() - t0)
    return best


def floor_verify_threads(db: Path, threads: int = 2) -> float:
    """The decode + verify floor with the checks split over `threads` threads (each takes every n-th event)."""
    from concurrent.futures import ThreadPoolExecutor

    from cgledger.ledger.trust.secrets import verify

    ledger = open_ledger(str(db))
    keys = {side: key["public"] for side, key in ledger.campaign(None).keys.items()}
    ledger.close()
    best = float("inf")
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(3):
            gc.collect()
            t0 = time.perf_counter()
            with sqlite3.connect(db) as conn:
                envelopes = [decode_envelope(s) for (s,) in conn.execute("SELECT state FROM stored_events ORDER BY "
                                                                         "rowid")]
            conn.close()
            signed = [e for e in envelopes if e.signature]
            share = lambda n: all(verify(keys[e.author], e.digest, e.signature)  # noqa: E731
                                  for e in signed[n::threads])
            assert all(pool.map(share, range(threads)))
            best = min(best, time.perf_counter() - t0)
    return best


# The decode + verify floor once, in a child of its own (only what it needs imported): its peak memory. DB is argv[1].
FLOOR_CHILD = [sys.executable, "-c", HWM + f"""
import sqlite3, sys
sys.path.insert(0, {str(ROOT)!r})
from cgledger.ledger.trust.envelope import decode_envelope
from cgledger.ledger.domain.events import SideKeyRegistered
from cgledger.ledger.trust.secrets import verify
with sqlite3.connect(sys.argv[1]) as conn:
    envelopes = [decode_envelope(s) for (s,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid")]
keys = {{e.author: e.fact.public for e in envelopes if isinstance(e.fact, SideKeyRegistered)}}
assert all(verify(keys[e.author], e.digest, e.signature) for e in envelopes if e.signature)
"""]


def audit_in_process(db: Path, worker: str | None) -> tuple[float, float]:
    """`CampaignLedger.audit`'s work, with the signatures verified in line (None), on a worker "thread" or in a child
    "process", best of 3: (wall seconds, CPU seconds of the calling thread: with a worker, what is left on the main
    thread; on a shared machine the wall time of two threads says little, this does)."""
    from cgledger.ledger.trust.chain import campaign_id
    from cgledger.ledger.audit.replay import audit
    from cgledger.ledger.store.reading import collector_paused

    ledger = open_ledger(str(db))
    name = ledger.resolve_name(None)
    best, cpu = float("inf"), float("inf")
    for _ in range(3):
        gc.collect()
        t0, c0 = time.perf_counter(), time.thread_time()
        with collector_paused():
            rows = ledger.store.loader.rows(campaign_id(name), ledger.store.READ_PAGE)
            report = audit(campaign_id(name), rows, ledger.store.snapshots_of(name), worker=worker)
        best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.thread_time() - c0)
        assert report.clean, report.findings[:3]
    ledger.close()
    return best, cpu


def audit_only(dbs: dict[int, Path], sizes: list[int], runs: int) -> None:
    """`--audit-only`: the in-process audit against the decode + verify floor, the two run back to back in each of
    `runs` rounds (each itself best of 3), the best of each kept; and the audit verifying in line, for reference."""
    rows = {}
    for size in sizes:
        db = dbs[size]
        floor, child, cpu = float("inf"), float("inf"), float("inf")
        for _ in range(runs):
            floor = min(floor, floor_verify(db))
            wall, main = audit_in_process(db, "process")
            child, cpu = min(child, wall), min(cpu, main)
        typed, count = floor_typed(db)
        rows[size] = (typed, floor, audit_in_process(db, None)[0], child, cpu, count)
        print(f"measured {size}", flush=True)
    print(f"\naudit in process, {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite: best of {runs} "
          "rounds, the floor and the audit back to back in each")
    print(f"{'in process':<40}" + "".join(f"{f'{size:,} ev: ms':>14}{'µs/ev':>7}" for size in sizes))
    for i, label in ((0, "floor: SELECT + typed decode"), (1, "floor + Ed25519 verify of each"),
                     (2, "audit, signatures verified in line"), (3, "audit, checks shared with a child"),
                     (4, "  its main thread's CPU")):
        print(f"{label:<40}" + "".join(f"{rows[s][i] * 1000:>14.0f}{rows[s][i] / rows[s][5] * 1e6:>7.0f}"
                                       for s in sizes))
    print("audit / (floor + verify): in line " + ", ".join(f"{rows[s][2] / rows[s][1]:.2f}x" for s in sizes)
          + "; shared with the child " + ", ".join(f"{rows[s][3] / rows[s][1]:.2f}x at {s:,}" for s in sizes))


def print_ms_table(title: str, columns: list[tuple[str, int]], reads, timed: dict, sizes: list[int]) -> None:
    """One table of seconds per read and size, in ms: each size's columns (name, width), the first named with the size."""
    print(title)
    print(f"{'read command':<16}" + "".join(
        "".join(f"{(f'{size:,} {name}' if i == 0 else name):>{width}}" for i, (name, width) in enumerate(columns))
        for size in sizes))
    for label, _argv in reads:
        print(f"{label:<16}" + "".join("".join(f"{timed[size][label][i] * 1000:>{width}.0f}"
                                               for i, (_name, width) in enumerate(columns)) for size in sizes))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="campaign sizes in events (default 1000,10000,50000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command, best kept (default 3)")
    parser.add_argument("--audit-only", action="store_true",
                        help="only the in-process audit against its decode + verify floor (--runs rounds)")
    parser.add_argument("--reads", default=None,
                        help="only these reads, by label, comma-separated, in every table that has them (default: all; the audit's memory line needs audit)")
    args = parser.parse_args()
    if args.reads:
        wanted = set(args.reads.split(","))
        known = {label for table in (READS, KEPT, ANSWERED) for label, _argv in table}
        if wanted - known:
            parser.error(f"--reads: known reads are {', '.join(sorted(known))}")
        for table in (READS, KEPT, ANSWERED):
            table[:] = [(label, argv) for label, argv in table if label in wanted]
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[0] < 200:
        parser.error("sizes start at 200 events (the sample campaign alone is 114)")
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-cli-"))
    isolate(tmp)
    (tmp / "no-cache").write_text("")  # XDG_CACHE_HOME naming a file: no rules cache, parsed as before it
    try:
        t0 = time.perf_counter()
        dbs = build(tmp, sizes)
        print(f"built {', '.join(map(str, sizes))}-event campaigns in {time.perf_counter() - t0:.0f} s", flush=True)
        if args.audit_only:
            return audit_only(dbs, sizes, args.runs)
        small = {**ENV, "CGLEDGER_DB": str(dbs[sizes[0]])}
        runs = max(args.runs, 5) if args.runs > 1 else 1  # the start-up rows: at least 5, but once in a smoke run
        run(CLICK, 1)
        run([*CGLEDGER, "--help"], 1, small)  # the bytecode cache filled
        click_s, click_mb = run(CLICK, runs)
        startup = [("python -c 'import click'", click_s, click_mb)]
        startup.append(("imports of a full read, nothing read", *run(FOLD_IMPORTS, runs)))
        startup.append(("the same without click (status's)", *run(QUICK_IMPORTS, runs)))
        sample = {**ENV, "CGLEDGER_DB": str(dbs[0])}
        uncached = {**sample, "XDG_CACHE_HOME": str(tmp / "no-cache")}
        answers = Path(ENV["XDG_STATE_HOME"]) / "cgledger" / "answers"

        def forgotten() -> None:  # no answer kept: the read runs in full, as the first after a new event does
            shutil.rmtree(answers, ignore_errors=True)

        for label, argv in ANSWERED:  # the shipped sample: each read first (no answer kept), then repeated
            argv = [*CGLEDGER, *[a.replace("{tmp}", str(tmp)) for a in argv]]
            startup.append((f"{label} (sample), no answer kept", *run(argv, runs, sample, before=forgotten)))
            startup.append((f"{label} (sample), repeated", *run(argv, runs, sample)))
        startup.append(("status (sample), no rules cache", *run([*CGLEDGER, "status"], runs, uncached, before=forgotten)))
        for label, argv, env in (("--help", ["--help"], small), (f"head ({sizes[0]} events)", ["head"], small),
                                 ("head (sample, 114 events)", ["head"], sample),
                                 ("log (sample)", ["log"], sample),
                                 ("tables", ["tables", "--system", "kgp"], small),
                                 (f"tables ({sizes[0]} events)", ["tables"], small)):
            startup.append((label, *run([*CGLEDGER, *argv], runs, env)))
        results: dict[tuple[str, int], tuple[float, float]] = {}
        floors: dict[int, tuple] = {}
        kept: dict[int, dict] = {}
        answered: dict[int, dict] = {}
        for size in sizes:
            env = {**ENV, "CGLEDGER_DB": str(dbs[size])}
            run([*CGLEDGER, "status"], 1, env)  # this machine checks a log it has not seen once, then marks it
            typed, count = floor_typed(dbs[size])
            floor_mb = run([*FLOOR_CHILD, str(dbs[size])], 1, env)[1]
            (inline, inline_cpu), (thread, thread_cpu), (child, child_cpu) = (
                audit_in_process(dbs[size], w) for w in (None, "thread", "process"))
            floors[size] = (typed, floor_verify(dbs[size]), floor_verify_threads(dbs[size]), inline, thread, count,
                            floor_mb, inline_cpu, thread_cpu, child, child_cpu)
            kept[size] = kept_reads(tmp, env, args.runs)
            answered[size] = answered_reads(tmp, env, args.runs)
            for label, argv in READS:
                argv = [a.replace("{tmp}", str(tmp)) for a in argv]
                results[label, size] = run([*CGLEDGER, *argv], args.runs if size <= 10_000 else 1, env)
            print(f"measured {size}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"\ncgledger CLI benchmark: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite files; wall time "
          f"of each command as a subprocess (bytecode cached), best of {args.runs} (1 at sizes over 10,000); "
          f"MB = the child's peak RSS (VmHWM)\n")
    print(f"{'start-up':<38}{'ms':>8}{'x click':>9}{'MB':>7}")
    for label, wall, mb in startup:
        print(f"{label:<38}{wall * 1000:>8.0f}{wall / click_s:>8.2f}x{mb:>7.0f}")
    print()
    head = f"{'read command':<16}" + "".join(f"{f'{size:,} ev: ms':>14}{'x floor':>8}{'MB':>6}" for size in sizes)
    print(head)
    for label, _argv in READS:
        line = f"{label:<16}"
        for size in sizes:
            wall, mb = results[label, size]
            floor = click_s + floors[size][0]
            line += f"{wall * 1000:>14.0f}{wall / floor:>7.1f}x{mb:>6.0f}"
        print(line)
    line = f"{'FLOOR':<16}"
    for size in sizes:
        line += f"{(click_s + floors[size][0]) * 1000:>14.0f}{1:>7.1f}x{'':>6}"
    print(line + "   (import click + typed decode of every event)")
    print()
    print_ms_table("kept views, ms: cold = no view on this machine (folded from the whole log, "
                   "then kept); current = the view at the log's head; +1 = another machine recorded one roll since "
                   "(one event folded); undo = another machine recorded a roll and its undo since (folded again "
                   "from a checkpoint)", [("cold", 12), ("current", 9), ("+1", 7), ("undo", 7)], KEPT, kept, sizes)
    print_ms_table("answers kept per log head (ledger/read/answers.py), ms: repeated = the answer kept for this head; "
                   "first = this machine recorded one roll just before (the answer misses: the read runs in full, "
                   "then keeps it)", [("repeated", 16), ("first", 8)], ANSWERED, answered, sizes)
    print(f"{'in process':<40}" + "".join(f"{f'{size:,} ev: ms':>14}{'µs/ev':>7}" for size in sizes))
    for i, label in ((0, "floor: SELECT + typed decode"), (1, "floor + Ed25519 verify of each"),
                     (2, "floor + verify on two threads"), (3, "audit, signatures verified in line"),
                     (4, "audit, verified on a worker thread"), (9, "audit, verified in a child process"),
                     (7, "  its main thread's CPU, in line"), (8, "  its main thread's CPU, worker thread"),
                     (10, "  its main thread's CPU, child process")):
        print(f"{label:<40}" + "".join(f"{floors[s][i] * 1000:>14.0f}{floors[s][i] / floors[s][5] * 1e6:>7.0f}"
                                       for s in sizes))
    print("audit / typed-decode floor: " + ", ".join(f"{floors[s][3] / floors[s][0]:.1f}x at {s:,}" for s in sizes)
          + "; audit / (floor + verify): in line " + ", ".join(f"{floors[s][3] / floors[s][1]:.2f}x" for s in sizes)
          + "; worker thread " + ", ".join(f"{floors[s][4] / floors[s][1]:.2f}x" for s in sizes)
          + "; child process " + ", ".join(f"{floors[s][9] / floors[s][1]:.2f}x" for s in sizes)
          + "; child process / (floor + verify on two threads) " + ", ".join(f"{floors[s][9] / floors[s][2]:.2f}x"
                                                                             for s in sizes))
    print("peak MB (VmHWM of a child): floor + verify " + ", ".join(f"{floors[s][6]:.0f}" for s in sizes)
          + "; `cgledger audit` " + ", ".join(f"{results['audit', s][1]:.0f}" for s in sizes)
          + "; audit / floor " + ", ".join(f"{results['audit', s][1] / floors[s][6]:.2f}x at {s:,}" for s in sizes))
    slowest = {size: max((results[label, size][0], label) for label, _a in READS) for size in sizes}
    print("slowest read command: " + ", ".join(f"{label} {wall * 1000:.0f} ms at {size:,}"
                                               for size, (wall, label) in slowest.items()))


if __name__ == "__main__":
    main()
