"""A signed `roll` as a player runs it (a subprocess), with the key agent (`keys unlock`) on and off, at 1,000 and
20,000 events (or 50,000): one run, one table, the ratios side by side (the largest within 1.1x of 1,000, agent on).

    .venv/bin/python bench/bench_agent.py [--sizes 1000,20000] [--runs 7] [--layout one-date|dates]

The campaigns are bench_cli.py's (`one-date`: the shipped KGP sample, then both sides' keys and signed rolls up to
each size on one CG Date, one passphrase opening both keys) or bench_layouts.py's (`dates`: KGP CG III's CG Dates,
each side its own key), in a temp directory deleted afterwards. Each roll is `cgledger roll 8.6142 --side us
--drm vehicular --for ...` (a new item each time: every run appends one signed event), wall time best of --runs, with
the agent off (every command stretches the passphrase: scrypt) and then on (one `keys unlock` before, `keys lock`
after). The agent's folder is a private temp folder (XDG_RUNTIME_DIR), never the player's own.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_cli  # noqa: E402
import bench_layouts  # noqa: E402
from bench_ledger import PASSPHRASE  # noqa: E402
from bench_snapshots import KEYS  # noqa: E402

ROLL = ["roll", "8.6142", "--side", "us", "--drm", "vehicular"]
_ITEM = itertools.count(1)


def cgledger(env: dict, *args: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([*bench_cli.CGLEDGER, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode()[-2000:]}")
    return wall


def best_roll(env: dict, runs: int) -> float:
    return min(cgledger(env, *ROLL, "--for", f"bench item {next(_ITEM)}") for _ in range(runs))


def scrypt_ms() -> float:
    from cgledger.ledger.trust.secrets import derive_key, new_salt

    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        derive_key(PASSPHRASE, new_salt())
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,20000", help="campaign sizes in events (default 1000,20000)")
    parser.add_argument("--runs", type=int, default=7, help="rolls timed per size and mode, best kept (default 7)")
    parser.add_argument("--layout", choices=["one-date", "dates"], default="one-date",
                        help="one-date: bench_cli.py's campaigns, every roll on one CG Date (the state carries them "
                             "all); dates: bench_layouts.py's, KGP CG III's CG Dates (default one-date)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if len(sizes) < 2 or sizes[0] < 200:
        parser.error("give two sizes or more, from 200 events (the sample campaign alone is 114)")
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-agent-"))
    runtime = Path(tempfile.mkdtemp(prefix="cgl-run-"))  # short: a socket's path has at most 107 bytes
    bench_cli.ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    bench_cli.ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    results: dict[tuple[int, str], float] = {}
    phrase = KEYS["us"] if args.layout == "dates" else PASSPHRASE  # the U.S. side's, who rolls
    base = {**bench_cli.ENV, "CGLEDGER_PASSPHRASE": phrase.decode(), "XDG_RUNTIME_DIR": str(runtime),
            "XDG_STATE_HOME": str(tmp / "state")}
    base.pop("CGLEDGER_KEY_FILE", None)
    try:
        t0 = time.perf_counter()
        dbs = bench_cli.build(tmp, sizes) if args.layout == "one-date" else {
            size: bench_layouts.build_dates(tmp, size) for size in sizes}
        print(f"built {', '.join(f'{s:,}' for s in sizes)}-event campaigns in {time.perf_counter() - t0:.0f} s",
              flush=True)
        for size in sizes:
            env = {**base, "CGLEDGER_DB": str(dbs[size])}
            cgledger(env, "status")  # bytecode cache filled, the machine's "seen" head recorded
            results[size, "off"] = best_roll(env, args.runs)
            cgledger(env, "keys", "unlock", "--for", "30m")
            try:
                results[size, "on"] = best_roll(env, args.runs)
            finally:
                cgledger(env, "keys", "lock")
            print(f"measured {size:,}", flush=True)
    finally:
        subprocess.run([*bench_cli.CGLEDGER, "keys", "lock"], env=base, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)

    small = sizes[0]
    print(f"\nsigned `roll` as a subprocess, {args.layout} layout: {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, SQLite files; "
          f"wall time best of {args.runs}; scrypt of the passphrase in process: {scrypt_ms():.0f} ms\n")
    print(f"{'events':>8}{'agent off ms':>14}{'agent on ms':>13}{'on / off':>10}"
          f"{f'off / off@{small:,}':>18}{f'on / on@{small:,}':>16}")
    for size in sizes:
        off, on = results[size, "off"], results[size, "on"]
        print(f"{size:>8,}{off * 1000:>14.0f}{on * 1000:>13.0f}{on / off:>9.2f}x"
              f"{off / results[small, 'off']:>17.2f}x{on / results[small, 'on']:>15.2f}x")
    big = sizes[-1]
    ratio = results[big, "on"] / results[small, "on"]
    print(f"\ntarget: a signed roll at {big:,} events within 1.1x of one at {small:,}, agent on: {ratio:.2f}x "
          f"({'met' if ratio <= 1.1 else 'not met'}); the agent saves {(results[small, 'off'] - results[small, 'on']) * 1000:.0f} ms "
          f"at {small:,}, {(results[big, 'off'] - results[big, 'on']) * 1000:.0f} ms at {big:,}")


if __name__ == "__main__":
    main()
