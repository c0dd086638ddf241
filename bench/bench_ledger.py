"""Benchmark of the campaign ledger: append, audit/history/log replay, the raw floor, and our
msgspec mapper against eventsourcing's default one. One run prints everything side by side.

    .venv/bin/python bench/bench_ledger.py [--rolls N]      (default N = 20000)

Builds a fresh SQLite campaign of N rolls in a temp directory (deleted afterwards). Timed reads
are run 3 times and the best is kept. "x floor" is the time per event divided by the floor's
time per row: raw sqlite3 SELECT + untyped msgspec decode, what a full replay cannot avoid doing.
(Untyped decode builds dicts; msgspec's typed decode into Structs is cheaper still, so a pure
fold over already-decoded events, like log_rows, can come out below 1.0x.)
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from uuid import UUID

import msgspec
from eventsourcing.persistence import JSONTranscoder, Mapper

from cgledger.ledger.application import CampaignLedger, open_ledger
from cgledger.ledger.verbs import acts, keys as keyverbs, rolling
from cgledger.ledger.domain.commands import ChooseDiceMode
from cgledger.ledger.store.campaign import campaign_id
from cgledger.ledger.rules.dice import SeededDice
from cgledger.ledger.decide import rolls
from cgledger.ledger.store.persistence import decode_envelope
from cgledger.ledger.rules import parse_declared
from cgledger.projections.log import log_rows

# The rolls cycled over: (table, side, declared DRMs), all of RePh step 8.614 (a roll belongs to
# its step), where the benchmark campaign is parked on 19 PM.
PLAN = [
    ("8.6141b", "german", ("front_line", "armor_leader=-1")),
    ("8.6142", "us", ("vehicular",)),
    ("8.61421", "german", ()),
    ("8.6144", "us", ()),
    ("8.6146", "german", ()),
]
PASSPHRASE = b"bench: both sides' signing keys"  # one passphrase opens both sides' keys (a bench, not a game)
CMD_MAX = 3000  # rolls timed one command (one save, one commit) each: ~ms apiece
TAIL = 200  # one-command rolls again at the end, on the full log, to show how append scales
BATCH = 500  # facts per save for the bulk of the log


def best_of(fn, repeat=3):
    """(best seconds, last result) of `repeat` calls, each started after a full GC (the collector
    stays on while timing: a real replay pays for it too)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def to_8614(ledger: CampaignLedger) -> None:
    """The Initial Scenario, its end, each side's 8.6113 DR (needed before 8.611 is left), then on to 8.614 of 19 PM."""
    acts.step(ledger, None, "scenario")
    acts.step(ledger, None, "8.603")
    acts.scenario_end(ledger, None, ("german=0", "us=0"), "german")
    for side in ("german", "us"):
        rolling.roll(ledger, None, "8.6113", side)
    acts.step(ledger, None, "8.614")


def roll_commands(ledger: CampaignLedger, count: int, start: int) -> None:
    """`count` rolls exactly as a player makes them: one `roll` command = load, check, one save."""
    for i in range(start, start + count):
        table, side, drms = PLAN[i % len(PLAN)]
        rolling.roll(ledger, None, table, side, drms, dice=None, purpose=f"item {i}")  # one due item per weapon/unit


def roll_batched(ledger: CampaignLedger, count: int, start: int, keys: dict[str, bytes] | None = None) -> None:
    """`count` rolls recorded into one loaded aggregate, saved once per BATCH facts. Each fact is
    decided as `rolling.roll` decides it (the same decision), so the audit stays clean. `keys`: each side's
    own key material (else the one the ledger holds signs for every side)."""
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    signers = {}
    for side in rules.system.sides:
        if keys:
            ledger.key_material = keys[side]
        signers[side] = ledger.keyring.signer(campaign, rules, side)
    for n, i in enumerate(range(start, start + count), 1):
        table_id, side, drms = PLAN[i % len(PLAN)]
        table = rules.table(table_id)
        command = rolls.RollCommand(table=table.id, side=side, drms=tuple(parse_declared(drms).items()),
                                    faces=ledger.dice.roll(table.die), source=ledger.dice.name, purpose=f"item {i}")
        # signed and kept with its command, as a command does
        campaign.record(rolls.roll(campaign, rules, command)[0], side, signers[side], "", command)
        if n % BATCH == 0:
            ledger.store.save(campaign)
    ledger.store.save(campaign)


def verify_all(ledger: CampaignLedger) -> int:
    """The signature checks the audit makes, alone: every signed event's Ed25519 signature of its digest."""
    from cgledger.ledger.trust.secrets import verify

    state = ledger.campaign(None)
    keys = {side: key["public"] for side, key in state.keys.items()}
    signed = [e for e in ledger.history(None) if e.signature]
    assert all(verify(keys[e.author], e.digest, e.signature) for e in signed)
    return len(signed)


def floor_decode(db: str) -> int:
    """The floor of a full replay: raw rows from stdlib sqlite3, each state decoded untyped."""
    with sqlite3.connect(db) as conn:
        decode = msgspec.json.decode
        return len([decode(state) for (state,) in conn.execute("SELECT state FROM stored_events ORDER BY rowid")])


def floor_select(db: str) -> int:
    with sqlite3.connect(db) as conn:
        return len(conn.execute("SELECT state FROM stored_events ORDER BY rowid").fetchall())


@dataclass
class PlainRecorded:
    """The same stored content as a Campaign.Recorded event, as the default mapper can take it:
    plain attributes read through vars(), the fact as a dict of builtins."""

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    prev: str
    digest: str
    fact: dict


def compare_mappers(ledger: CampaignLedger, cid: UUID) -> dict[str, tuple[float, float, int, float]]:
    """Encode (domain event -> StoredEvent) + decode (StoredEvent -> domain event) of the same
    N+2 campaign events, best of 3 each, with:
      - ours: MsgspecMapper on the real Campaign events; decoding rebuilds typed facts
        (DiceRolled Structs, AppliedDRM tuples) and checks them against the event schema;
      - default: eventsourcing's Mapper + JSONTranscoder with the UUID/Decimal/datetime
        transcodings Application registers, on PlainRecorded copies whose fact is
        msgspec.to_builtins(fact). Its decode returns that fact as an untyped dict (no Struct
        rebuilt, no validation), so the comparison flatters the default mapper.
    Returns {name: (encode seconds, decode seconds, events, mean stored bytes per event)}."""
    ours = ledger.store.app.mapper  # the library's mapper (reads before a write use sqlite3 rows: ledger/store/reading.py)
    stored_rows = ledger.store.app.recorder.select_events(cid)
    transcoder = JSONTranscoder()
    ledger.store.app.register_transcodings(transcoder)
    default = Mapper(transcoder=transcoder)

    def plain_events() -> list[PlainRecorded]:
        envelopes = [(s, decode_envelope(s.state)) for s in stored_rows]
        return [
            PlainRecorded(s.originator_id, s.originator_version, e.timestamp, e.prev, e.digest,
                          msgspec.to_builtins(e.fact))
            for s, e in envelopes
        ]

    results = {}
    # Each mapper is timed with the same objects alive (the stored rows + its own events): at 20k events
    # the cyclic GC's passes over live objects are a large part of any decode.
    for name, mapper, make in (
        ("ours (msgspec)", ours, lambda: [ours.to_domain_event(s) for s in stored_rows]),
        ("default (JSONTranscoder)", default, plain_events),
    ):
        domain = make()
        t_enc, stored = best_of(lambda: [mapper.to_stored_event(e) for e in domain])
        t_dec, back = best_of(lambda: [mapper.to_domain_event(s) for s in stored])
        assert len(back) == len(domain) and back[-1].digest == domain[-1].digest
        results[name] = (t_enc, t_dec, len(domain), sum(len(s.state) for s in stored) / len(stored))
        del domain, stored, back
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=20000, help="rolls in the log (default 20000)")
    n = parser.parse_args().rolls
    if n < 20:
        parser.error("--rolls must be at least 20")
    tail = min(TAIL, n // 10)
    n_cmd = min(CMD_MAX, (n - tail) // 2)
    n_batch = n - n_cmd - tail
    tmp = tempfile.mkdtemp(prefix="cgledger-bench-")
    db = str(Path(tmp) / "bench.db")
    rows: list[tuple[str, int, float]] = []  # (what, events, seconds)
    try:
        ledger = open_ledger(db, create=True, dice=SeededDice(1))
        acts.new_campaign(ledger, "Bench", "kgp", "I")
        to_8614(ledger)
        ledger.execute(None, ChooseDiceMode(mode="immediate"))  # the ledger rolls at once (fair dice wait for the other side's answer)
        for side in ("german", "us"):  # every event from here on is signed by its side (Ed25519)
            keyverbs.register_key(ledger, None, side, PASSPHRASE, "immediate")
        ledger.key_material = PASSPHRASE
        setup_events = len(ledger.history(None))  # CampaignStarted, steps, CG-Scenario End, 8.6113 DRs, New CG Date
        cid = campaign_id("Bench")
        print(f"recording {n} rolls in {db} ...", flush=True)

        # 1. APPEND
        t, _ = timed(lambda: roll_commands(ledger, n_cmd, 0))
        rows.append((f"append: roll command, 1 save each (log 0-{n_cmd})", n_cmd, t))
        t, _ = timed(lambda: roll_batched(ledger, n_batch, n_cmd))
        rows.append((f"append: batched, {BATCH} rolls per save", n_batch, t))
        t, _ = timed(lambda: roll_commands(ledger, tail, n_cmd + n_batch))
        rows.append((f"append: roll command, 1 save each (log {n - tail}-{n})", tail, t))

        # 3. FLOOR, measured first: the reads below leave 20k-object results alive, and every
        # later allocation-heavy loop pays for them in GC passes.
        t_sel, count = best_of(lambda: floor_select(db))
        t_floor, _ = best_of(lambda: floor_decode(db))
        events = n + setup_events
        assert count == events, (count, events)

        # 2. HISTORY, LOG PROJECTION, AUDIT (history is dropped before the audit, as in the CLI)
        t, history = best_of(lambda: ledger.history(None))
        assert len(history) == events
        rows.append(("history (read + decode every stored event)", events, t))
        t, _ = best_of(lambda: log_rows(history))
        rows.append(("log_rows fold (over history)", events, t))
        del history
        t_verify, verified = best_of(lambda: verify_all(ledger))
        t, report = best_of(lambda: ledger.verification.audit(None))
        rows.append(("audit (history + chain + every roll re-checked)", events, t))
        print(f"audit report: {report.events} events, {report.rolls} rolls, "
              f"{'CLEAN' if report.clean else f'{len(report.findings)} FINDINGS: {report.findings[:3]}'}")
        assert report.clean and report.rolls == n + 2  # and the two 8.6113 DRs of the set-up
        rows.append(("  of which: Ed25519 verify of every signature", verified, t_verify))
        rows.append(("floor: raw sqlite3 SELECT", count, t_sel))
        rows.append(("FLOOR: raw SELECT + msgspec.json.decode", count, t_floor))

        # 4. MAPPER vs DEFAULT
        mappers = compare_mappers(ledger, cid)
        for name, (t_enc, t_dec, count, _size) in mappers.items():
            rows.append((f"mapper encode+decode: {name}", count, t_enc + t_dec))
        ledger.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # Final table
    floor_per_event = t_floor / events
    print(f"\ncgledger benchmark: {n} rolls ({n_cmd} + {tail} one command each, {n_batch} batched), "
          f"{events} stored events, SQLite file in a temp dir; reads best of 3\n")
    print(f"{'measurement':<56}{'events':>8}{'time s':>10}{'events/s':>11}{'µs/ev':>9}{'x floor':>9}")
    for what, count, t in rows:
        per = t / count if count else float("nan")
        rate = f"{count / t:,.0f}" if count and t else "n/a"
        print(f"{what:<56}{count:>8}{t:>10.3f}{rate:>11}{per * 1e6:>9.1f}{per / floor_per_event:>8.1f}x")
    print()
    for name, (t_enc, t_dec, count, size) in mappers.items():
        print(f"mapper {name}: encode {t_enc / count * 1e6:.1f} µs/ev, decode {t_dec / count * 1e6:.1f} µs/ev, "
              f"{size:.0f} stored bytes/ev")
    (e_o, d_o, _, b_o), (e_d, d_d, _, b_d) = mappers.values()
    print(f"mapper: ours is {(e_d + d_d) / (e_o + d_o):.1f}x faster than the default (encode {e_d / e_o:.1f}x, "
          f"decode {d_d / d_o:.1f}x) and stores {1 - b_o / b_d:.0%} fewer bytes")
    for what, count, t in rows[3:6]:
        print(f"{what.split(' (')[0]} = {t / count / floor_per_event:.1f}x floor (raw select + msgspec decode)")
    print(f"append: {rows[0][1] / rows[0][2]:,.0f} rolls/s one command per roll at log 0-{n_cmd}, "
          f"{rows[2][1] / rows[2][2]:,.0f} rolls/s at log {n - tail}-{n}, "
          f"{rows[1][1] / rows[1][2]:,.0f} rolls/s batched ({BATCH} per save)")


if __name__ == "__main__":
    main()
