"""`cgledger serve`'s pages at 5,000 events (every page under 150 ms): each page GET through the real app,
in process, against the in-process CLI `status --json` every page is built on. One run, one table.

    .venv/bin/python bench/bench_web.py [--events 5000] [--repeat 5]

The campaign: the shipped KGP sample (six CG Dates, the St Map Group, undos, a rewind), then both sides' keys (one
passphrase each) and signed rolls up to --events, half of them on 21 AM (which then goes on through CPP
Replenishment, Ammunition Shortage and sealed Initiative chits to 21 PM) and half on 21 PM, 8.614, where it is left.
The page is the German player's (`cgledger serve` with the German key); "no key" times the same campaign's pages
served without one (one table), to show what opening the key costs each command. For comparison the same pages are
timed on the shipped sample alone (114 events, no keys), replayed with the CLI `script` command. All in a temp
directory deleted afterwards.

Each page is fetched once (imports, templates), then --repeat times (a gc.collect() before each), through
Starlette's TestClient speaking ASGI to `create_app(...)` with the guard's cookie and Host (live=False: no watcher).
"cmds" is how many CLI commands the page ran through its Runner. The floor is `Runner.run(["status", "--json"])`,
which every page runs for its header: "x status" = the page's median / the floor's median at the same size, so a
page's own overhead (its other commands, templates, SVG) shows. Measured, not asserted: the bench exits 0.
"""

from __future__ import annotations

import argparse
import gc
import os
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

from bench_ledger import roll_batched  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cgledger.cli.web.app import create_app  # noqa: E402
from cgledger.cli.web.pages import VIEWS  # noqa: E402
from cgledger.cli.web.runner import Runner  # noqa: E402
from cgledger.ledger.application import open_ledger  # noqa: E402
from cgledger.ledger.verbs import acts, keys as keyverbs, rolling  # noqa: E402
from cgledger.ledger.domain.commands import ChooseDiceMode  # noqa: E402
from cgledger.ledger.rules.dice import SeededDice  # noqa: E402

SAMPLE = ROOT / "fixtures" / "kgp-cg1-sample.cgl"
KEYS = {"german": b"bench web: the German side's own key", "us": b"bench web: the U.S. side's key, another one"}
TARGET = 0.150  # seconds
TOKEN, PORT = "bench-token", 8765
EXTRA = {"/roll": ["/roll?table=8.616"]}  # the roll page with a table chosen, after the bare one
PAGES = [p for view in VIEWS for p in (view, *EXTRA.get(view, []))]


def count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        n = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    conn.close()
    return n


def sample(db: Path) -> None:
    outcome = Runner(str(db), None, None, "1").run(["script", str(SAMPLE), "--quiet"])
    if not outcome.ok:
        raise SystemExit(f"script {SAMPLE.name} failed: {outcome.error}")


def build(db: Path, events: int) -> None:
    """The sample, keys, then signed rolls to `events`: half on 21 AM, half on 21 PM (where the campaign is left)."""
    sample(db)
    ledger = open_ledger(str(db), dice=SeededDice(1))

    def as_side(side: str, act, *args):
        ledger.key_material = KEYS[side]
        act(ledger, None, *args)

    ledger.execute(None, ChooseDiceMode(mode="immediate"))  # the ledger rolls at once (fair dice wait for the other side's answer)
    for side, material in KEYS.items():
        ledger.key_material = material
        keyverbs.register_key(ledger, None, side, material, "immediate")

    def rolls_at_8614(n: int, start: int) -> None:  # each side signing with its own key
        for side in KEYS:
            as_side(side, acts.step, None)  # the new CG Date, then on to 8.614
            as_side(side, acts.step, "8.614")
        roll_batched(ledger, n, start, KEYS)

    left = max(0, events - count(db) - 24)  # ~22 events of steps, CPP rolls and chits around them
    rolls_at_8614(left // 2, 0)
    for side in KEYS:  # the rest of 21 AM: CPP Replenishment, Ammunition Shortage, sealed Initiative chits (Idle)
        as_side(side, acts.step, "8.616")
        as_side(side, rolling.roll, "8.616", side)
    for side in KEYS:
        as_side(side, acts.step, "8.623")
        as_side(side, acts.initiative, {side: "idle"})
    rolls_at_8614(left - left // 2, left // 2)
    ledger.close()


def measure(db: Path, material: bytes | None, repeat: int) -> dict[str, tuple[list[float], int]]:
    """{page: (seconds of each GET, CLI commands per GET)}, and "status --json" for the floor."""
    runner = Runner(str(db), None, material, "1")
    calls = [0]
    run = runner.run

    def counted(*args, **kwargs):
        calls[0] += 1
        return run(*args, **kwargs)

    runner.run = counted
    client = TestClient(create_app(runner, TOKEN, "127.0.0.1", PORT, live=False), base_url=f"http://127.0.0.1:{PORT}")
    client.cookies.set("cgledger_token", TOKEN)
    out = {}
    with client:
        for path in PAGES:
            response = client.get(path)  # imports, templates compiled
            if response.status_code != 200:
                raise SystemExit(f"GET {path}: {response.status_code} {response.text[:500]}")
            times = []
            calls[0] = 0
            for _ in range(repeat):
                gc.collect()
                t0 = time.perf_counter()
                response = client.get(path)
                times.append(time.perf_counter() - t0)
                assert response.status_code == 200, (path, response.status_code)
            out[path] = (times, calls[0] // repeat)
        runner.run(["status", "--json"])
        times = []
        for _ in range(repeat):
            gc.collect()
            t0 = time.perf_counter()
            assert runner.run(["status", "--json"]).ok
            times.append(time.perf_counter() - t0)
        out["status --json"] = (times, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000, help="events in the large campaign (default 5000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed GETs of each page (default 5)")
    args = parser.parse_args()
    if args.events < 200:
        parser.error("--events starts at 200 (the sample campaign alone is 114)")
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-web-"))
    try:
        t0 = time.perf_counter()
        small, large = tmp / "sample.db", tmp / "large.db"
        sample(small)
        build(large, args.events)
        sizes = {"small": count(small), "large": count(large)}
        print(f"built the sample ({sizes['small']} events) and a {sizes['large']:,}-event campaign in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        results = {"small": measure(small, None, args.repeat), "large": measure(large, KEYS["german"], args.repeat),
                   "no key": measure(large, None, args.repeat)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = {size: {p: statistics.median(t) for p, (t, _c) in r.items()} for size, r in results.items()}
    floor = {size: med[size]["status --json"] for size in med}
    n = f"{sizes['large']:,} ev"
    print(f"\ncgledger serve benchmark: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite files; each "
          f"page GET in process (TestClient, live=False), median and max of {args.repeat}; target "
          f"{TARGET * 1000:.0f} ms; floor = in-process `status --json`\n")
    s = f"{sizes['small']} ev: ms"
    print(f"{'page':<20}{'cmds':>5}{s:>13}{'x status':>9}{f'{n}: ms':>14}{'max ms':>8}{'x 150 ms':>9}{'x status':>9}"
          f"{'no key ms':>10}")
    for path in [*PAGES, "status --json"]:
        times, calls = results["large"][path]
        label = path if path in PAGES else "FLOOR status --json"
        print(f"{label:<20}{calls:>5}{med['small'][path] * 1000:>13.0f}{med['small'][path] / floor['small']:>8.1f}x"
              f"{med['large'][path] * 1000:>14.0f}{max(times) * 1000:>8.0f}{med['large'][path] / TARGET:>8.2f}x"
              f"{med['large'][path] / floor['large']:>8.1f}x{med['no key'][path] * 1000:>10.0f}")
    over = [(med["large"][p], p) for p in PAGES if med["large"][p] > TARGET]
    print(f"over {TARGET * 1000:.0f} ms at {n}: " + (", ".join(f"{p} {t * 1000:.0f} ms" for t, p in sorted(over, reverse=True))
                                                    or "none"))


if __name__ == "__main__":
    main()
