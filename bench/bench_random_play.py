"""Longer random two-player play than CI's (tests/test_random_play.py): fresh plays each run, more of them and
longer; with --shrink a failure comes back as the shortest play that shows it (slow: each try replays the game).

    .venv/bin/python bench/bench_random_play.py [--examples 40] [--steps 600] [--game kgp|rr|cgs] [--backend ...]

Prints pytest's report; each example's acts, emails and the CG Date it reached with --trace."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--game", choices=["kgp", "rr", "cgs"])
    parser.add_argument("--shrink", action="store_true", help="shrink a failing play (minutes more)")
    parser.add_argument("--trace", action="store_true", help="one line per play: acts, emails, where it got to")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. --backend postgres --pg-url URL)")
    args = parser.parse_args()
    env = {**os.environ, "CGLEDGER_RANDOM_EXAMPLES": str(args.examples), "CGLEDGER_RANDOM_STEPS": str(args.steps),
           "CGLEDGER_RANDOM_FRESH": "1"}
    if args.shrink:
        env["CGLEDGER_RANDOM_SHRINK"] = "1"
    if args.trace:
        env["CGLEDGER_RANDOM_TRACE"] = "1"
    select = ["-k", args.game] if args.game else []
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-s" if args.trace else "-q",
                            str(ROOT / "tests" / "test_random_play.py"), *select, *args.pytest_args], env=env,
                           cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
