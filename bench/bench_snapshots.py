"""Snapshot bytes against event bytes: one campaign's log grown to each size, the stored bytes
of its events and of its snapshots (one every 100 events) summed, and their ratio. One run, one table.

    .venv/bin/python bench/bench_snapshots.py [--sizes 20000,50000] [--layout dates|one-date]

Layouts:
  - dates (default): a KGP CG III campaign (the longest KGP CG; eleven CG Dates, 19 PM - 22 N: the CPP Base #
    Chart of the rules data gives the German no value on 23 AM) whose rolls are spread over those CG Dates, as
    play spreads them: on each date the 8.614 rolls (one due item each, as bench_ledger.py makes them), each
    side's CPP Replenishment (8.616), the 8.618 DR, both sides' sealed Initiative chits (Idle Day, 8.623), then the
    next CG Date. Both sides hold keys (a passphrase each): each walks the RePh itself and signs its own events.
    `--per-date N` puts N rolls on each CG Date instead (what is left after the last one goes there);
  - one-date: bench_ledger.py's log, every roll on one CG Date (19 PM, step 8.614).

Built in a temp directory deleted afterwards. "state" is the encoded campaign state at the end (the size of the
latest snapshot's state); "largest" the attributes that take most of it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_ledger import roll_batched, to_8614  # noqa: E402
from cgledger.ledger.application import open_ledger  # noqa: E402
from cgledger.ledger.verbs import acts, keys as keyverbs, rolling  # noqa: E402
from cgledger.ledger.domain.commands import ChooseDiceMode  # noqa: E402
from cgledger.ledger.domain.commands import LoadRules  # noqa: E402
from cgledger.ledger.rules import read_rules_file  # noqa: E402
from cgledger.ledger.rules.dice import SeededDice  # noqa: E402
from cgledger.ledger.errors import LedgerError  # noqa: E402

KEYS = {"german": b"bench snapshots: the German side's key", "us": b"bench snapshots: the U.S. side's own key"}
CG = "III"
LAST = "22 N"  # the last CG Date played: the CPP Base # Chart (8.6161) has no German value for CG III on 23 AM


def stored_bytes(db: Path) -> tuple[int, int, int, int]:
    """(events, event bytes, snapshots, snapshot bytes) as stored."""
    with sqlite3.connect(db) as conn:
        events, event_bytes = conn.execute("SELECT count(*), sum(length(state)) FROM stored_events").fetchone()
        snaps, snap_bytes = conn.execute("SELECT count(*), sum(length(state)) FROM stored_snapshots").fetchone()
    conn.close()
    return events, event_bytes or 0, snaps, snap_bytes or 0


class Builder:
    """One campaign, grown by `grow(n)`; `dates` crosses CG Dates as it goes."""

    def __init__(self, db: Path, layout: str, per_date: int | None, target: int, rules_files: tuple[str, ...] = ()):
        self.db, self.layout, self.per_date, self.target = db, layout, per_date, target
        self.ledger = open_ledger(str(db), create=True, dice=SeededDice(1))
        self.made = 0  # rolls recorded
        self.dates = 1
        ledger = self.ledger
        acts.new_campaign(ledger, "Bench", "kgp", CG)
        for path in rules_files:  # e.g. a Map Group's grid, as the shipped sample loads it (bench_layouts.py)
            ledger.execute(None, LoadRules(source=Path(path).name, text=read_rules_file(path)))
        to_8614(ledger)
        ledger.execute(None, ChooseDiceMode(mode="immediate"))
        for side, material in KEYS.items():
            ledger.key_material = material
            keyverbs.register_key(ledger, None, side, material, "immediate")
        campaign = ledger.campaign(None)
        rules = ledger.rules_for(campaign)
        cg = next(c for c in rules.system.cg if c.id == CG)
        order = [d for d in rules.system.calendar]
        self.calendar = order[order.index(cg.start): order.index(LAST) + 1]
        self.date_of = 0  # rolls made on the open CG Date
        self.per = per_date or -(-target // len(self.calendar))  # spread over the CG's dates

    def as_side(self, side: str, act, *args):
        self.ledger.key_material = KEYS[side]
        return act(self.ledger, None, *args)

    def rolls_at_8614(self, n: int) -> None:
        """`n` signed rolls, each side signing with its own key, saved BATCH at a time (as bench_ledger.py)."""
        roll_batched(self.ledger, n, self.made, KEYS)
        self.made += n
        self.date_of += n

    def walk(self, side: str, target: str | None) -> None:
        """The side walks on to `target`, first making the rolls the steps on the way need of it (status says
        which; the Ammunition Shortage DR of 8.618 made as 1,1: none)."""
        for _ in range(20):
            try:
                self.as_side(side, acts.step, target)
                return
            except LedgerError as e:
                needed = re.search(r"needs a roll on (\S+) --side (\w+)", str(e))
                if needed is None:
                    raise
                table, who = needed.groups()  # the roll walks its side to the table's step first
                self.as_side(who, rolling.roll, table, who, (), "1,1" if table == "8.618" else None)
        raise SystemExit(f"the {side} side never reached {target}")

    def next_date(self) -> None:
        """The rest of the CG Date (CPP Replenishment, sealed Idle chits), then the next one's 8.614."""
        for side in KEYS:
            self.walk(side, "8.616")
            try:
                self.as_side(side, rolling.roll, "8.616", side)
            except LedgerError:  # 8.6161: no CPP Base # for this side on this CG Date
                pass
        for side in KEYS:
            self.walk(side, "8.623")
            self.as_side(side, acts.initiative, {side: "idle"})
        for side in KEYS:
            self.walk(side, None)  # the new CG Date (8.612), then on to 8.614
            self.walk(side, "8.614")
        self.dates += 1
        self.date_of = 0

    def events(self) -> int:
        return stored_bytes(self.db)[0]

    def grow(self, size: int) -> None:
        """Rolls (and CG Dates) until the log holds `size` events."""
        while True:
            left = size - self.events()
            if left <= 0:
                return
            if self.layout == "one-date":
                self.rolls_at_8614(left)
                continue
            dates_left = len(self.calendar) - self.dates
            here = min(left, max(self.per - self.date_of, 0))
            if here:
                self.rolls_at_8614(here)
            elif dates_left:
                self.next_date()
            else:
                self.rolls_at_8614(left)  # the CG's last CG Date: the rest of the rolls go there

    def state(self):
        self.ledger.key_material = None
        return self.ledger.campaign(None)


def state_sizes(state) -> tuple[int, list[tuple[int, str]]]:
    attributes = {k: v for k, v in state.__dict__.items() if not k.startswith("_") and k != "pending_facts"}
    sizes = sorted(((len(msgspec.json.encode(v)), k) for k, v in attributes.items()), reverse=True)
    return len(msgspec.json.encode(attributes)), sizes[:3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,50000", help="log sizes in events (default 20000,50000)")
    parser.add_argument("--layout", choices=["dates", "one-date"], default="dates")
    parser.add_argument("--per-date", type=int, default=None, help="rolls per CG Date (default: spread evenly)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[0] < 100:
        parser.error("sizes start at 100 events")
    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-snap-"))
    rows = []
    try:
        t0 = time.perf_counter()
        builder = Builder(tmp / "bench.db", args.layout, args.per_date, sizes[-1])
        for size in sizes:
            builder.grow(size)
            events, event_bytes, snaps, snap_bytes = stored_bytes(builder.db)
            state_bytes, largest = state_sizes(builder.state())
            rows.append((events, builder.dates, event_bytes, snaps, snap_bytes, state_bytes, largest))
            print(f"measured {events} events ({time.perf_counter() - t0:.0f} s)", flush=True)
        builder.ledger.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"\ncgledger snapshot bytes: KGP CG {CG}, layout {args.layout}, a snapshot every 100 events, SQLite\n")
    print(f"{'events':>8}{'CG Dates':>10}{'event MB':>10}{'snapshots':>11}{'snapshot MB':>13}{'ratio':>8}"
          f"{'state KB':>10}  largest attributes of the state (KB)")
    for events, dates, event_bytes, snaps, snap_bytes, state_bytes, largest in rows:
        big = ", ".join(f"{k} {n / 1024:.0f}" for n, k in largest)
        print(f"{events:>8}{dates:>10}{event_bytes / 1e6:>10.1f}{snaps:>11}{snap_bytes / 1e6:>13.1f}"
              f"{snap_bytes / event_bytes:>7.2f}x{state_bytes / 1024:>10.0f}  {big}")
    print("snapshot bytes / event bytes: " + ", ".join(f"{r[4] / r[2]:.2f}x at {r[0]:,}" for r in rows))


if __name__ == "__main__":
    main()
