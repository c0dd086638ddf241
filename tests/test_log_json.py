"""`log --json` writes each row's JSON from the fact's own encoding and tells the CG Date of each row without folding
the whole campaign state: on the samples (KGP: six CG Dates, undos across a CG Date change and a rewind;
RR; CGS) and a campaign where both sides hold keys, what it writes is byte for byte what the whole fold writes (the
row dicts of every field, the CG Date from CampaignState.evolve, msgspec's indented list), whole and for every
`--last N`; the text of `log` as well."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from conftest import Cli, keyed_players
from two_players import CHART
from cgledger.cli.logtext import render, sides_in
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import CampaignState, first_step
from cgledger.ledger.domain.commands import AnyCommand, Buy, Step
from cgledger.ledger.domain.events import CampaignStarted
from cgledger.ledger.domain.timeline import voided_actions
from cgledger.projections.log import _complete, json_list

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def reference_rows(logged: list) -> list[dict[str, Any]]:
    """The rows as a fold of the whole campaign state gives them (as the projection first computed them)."""
    voided = voided_actions(logged)
    state = None
    rows = []
    for event in logged:
        fact = event.fact
        row: dict[str, Any] = {"version": event.version, "type": event.topic,
                               "timestamp": event.timestamp.isoformat() if event.timestamp else None}
        if fact is None:
            row["error"] = event.error
            row["request"] = None
            rows.append(row)
            continue
        if isinstance(fact, CampaignStarted):
            state = CampaignState()
            state.start(fact, event.digest, first_step(fact.system))
        row["cg_date"] = state.cg_date if state else None
        data = _complete(fact) if fact.__struct_config__.omit_defaults else msgspec.to_builtins(fact)
        data.pop("type", None)
        row.update(data)
        row["in_force"] = getattr(fact, "action", None) not in voided
        row["digest"] = event.digest
        row["author"] = getattr(event, "author", "") or None
        row["signed"] = bool(getattr(event, "signature", ""))
        row["request"] = None if event.request is None else msgspec.to_builtins(event.request)
        if state is not None and not isinstance(fact, CampaignStarted):
            state.evolve(fact, event.digest, event.version, getattr(event, "author", ""), getattr(event, "command", ""))
        rows.append(row)
    return rows


def _named(rows: list[dict], logged: list, sides: dict) -> list[dict]:
    """The text log's rows: an undo's and a take-back proposal's name what they take back by its action's first
    fact, in plain words (projections/takeback.py), where the log read holds it."""
    from cgledger.projections.takeback import words

    first: dict = {}
    rgs: dict = {}  # a purchase's event -> the RG in words, as its purchase (or its reveal) shows it
    rolls: dict = {}  # a declaration's event -> its side and table
    out = []
    for row, event in zip(rows, logged):
        fact = event.fact
        if getattr(fact, "action", None) is not None:
            first.setdefault(fact.action, fact)
        row = dict(row)
        if row["type"] == "RGPurchased":
            rgs[row["version"]] = f"RG {row['rg']}"
        if row["type"] == "RGPurchaseSealed":
            rgs[row["version"]] = f"an RG bought in secret on {row['cg_date']}"
        if row["type"] == "RGPurchaseRevealed":
            rgs[row["purchase"]] = f"RG {row['fact']['rg']}"
        if row.get("rg") in rgs:
            row["rg_named"] = rgs[row["rg"]]
        if row["type"] == "RollDeclared":
            rolls[row["version"]] = f"the {sides.get(row['side'], row['side'])} side's fair roll on {row['table']}" + (
                f" for {row['rg_named']}" if row.get("rg_named") else "")
        if row["type"] in ("RollAnswered", "RollLapsed") and row["declared"] in rolls:
            row["roll_named"] = rolls[row["declared"]]
        voided = [row["undone"]] if row["type"] == "ActionUndone" else \
            row["voided"] if row["type"] == "TakeBackProposed" and row["kind"] == "undo" else []
        out.append({**row, "takes_back": " and ".join(words(first[a], sides) for a in voided)}
                   if voided and all(a in first for a in voided) else row)
    return out


def reference_json(rows: list[dict]) -> str:
    """As the CLI wrote a list before: each row indented by msgspec, a bracket and a newline around them."""
    if not rows:
        return "[]\n"
    return "[" + ",".join("\n  " + msgspec.json.format(msgspec.json.encode(r), indent=2).decode().replace("\n", "\n  ")
                          for r in rows) + "\n]\n"


def _keyed(at) -> Cli:
    """Both sides with keys (signed events, authors), rolls of each, an undo."""
    cli = at("scenario")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    for dice in ("3,3", "6,6", "1,2"):
        german.ok("roll", "KGP3", "--side", "german", "--dice", dice)
        us.ok("roll", "KGP3", "--side", "us", "--dice", dice)
    german.ok("undo")
    return cli


@pytest.mark.parametrize("sample", ["kgp-cg1-sample.cgl", "rr-sample.cgl", "cgs-sample.cgl", "keyed"])
def test_log_json_is_the_whole_folds_byte_for_byte(played, request, sample):
    if sample == "keyed":
        cli = _keyed(request.getfixturevalue("at"))
    else:
        cli = Cli(played(sample), seed="7")
    logged = open_ledger(str(cli.db)).history(None)
    expected = reference_rows(logged)
    assert cli.ok("log", "--json").stdout == reference_json(expected)
    sides = sides_in(expected)  # the log names the sides as the system does
    rows = _named(expected, logged, sides)
    moves = [None] + [row.get("action") for row in rows]  # `+`: the same move as the event before it
    assert cli.ok("log").stdout == "".join(render(row, sides, continues=moves[i] is not None and moves[i] == row.get("action")) + "\n"
                                           for i, row in enumerate(rows))
    assert "#" not in "".join(line[:12] for line in cli.ok("log").stdout.splitlines())  # no action numbers
    if sample == "kgp-cg1-sample.cgl":
        assert len({r["cg_date"] for r in expected}) > 3 and any(not r["in_force"] for r in expected)
    for last in range(1, len(expected) + 2):  # each tail starts from the campaign just before it (its snapshot)
        assert cli.ok("log", "--json", "--last", str(last)).stdout == reference_json(expected[-last:]), last


def test_the_json_list_is_written_in_pages_as_one_list():
    rows = [msgspec.json.encode({"version": n, "drms": [], "fact": {}}) for n in range(1, 8)]
    for count in range(0, 8):
        for page in (1, 2, 3, 7, 500):
            written = b"".join(json_list(iter(rows[:count]), page)).decode()
            assert written == reference_json([msgspec.json.decode(r) for r in rows[:count]]), (count, page)


def test_each_row_names_the_command_its_action_was_recorded_with(make_db):
    """The first event of an action keeps the typed command that made it (envelope form 3): its row's `request` is
    that command as stored (tag `verb`, fields at their default left out), which decodes back to the very command;
    every other row's is null: a later event of the action, and each event of a log written before commands were
    kept (form 1). The keys the rows had before stand as they were, `request` after them."""
    cli = Cli(make_db())
    cli.ok("import", str(Path(__file__).parent / "data" / "kgp-sample-form1.json"))
    old = cli.json("log")
    assert old and all(r["request"] is None for r in old)
    assert all(list(r)[-5:] == ["in_force", "digest", "author", "signed", "request"] for r in old if "error" not in r)
    cli.ok("step", "next")  # 20 N's Idle Day: on to 21 AM, one action of two events, its command with the first
    first, second = cli.json("log")[len(old):]
    assert first["action"] == second["action"] and (first["request"], second["request"]) == ({"verb": "Step"}, None)
    cli = Cli(make_db(), seed="7")
    cli.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=12", "--start-cpp", "us=8")
    cli.ok("rules", "load", str(CHART))
    cli.ok("step", "8.619")
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    cli.ok("step", "next")  # 8.620: the strength roll the RG needs (8.6201)
    cli.ok("follow-ups", "--side", "german", "--rg", "I2#1")  # 8.6201: the RG's strength
    rows = {r["version"]: r for r in cli.json("log")}
    history = open_ledger(str(cli.db)).history(None)
    assert [rows[e.version]["request"] for e in history] == [
        None if e.request is None else msgspec.json.decode(msgspec.json.encode(e.request)) for e in history]
    for event in history:
        if event.request is not None:
            assert msgspec.convert(rows[event.version]["request"], AnyCommand) == event.request
    bought = next(r for r in rows.values() if r["type"] == "RGPurchased")
    assert bought["request"] == {"verb": "Buy", "rg": "I2", "side": "german", "map_group": "St",
                                 "objective": "StJ19"}
    assert msgspec.convert(bought["request"], AnyCommand) == Buy(rg="I2", side="german", map_group="St",
                                                                 objective="StJ19")
    assert [r["request"] for r in rows.values() if r["type"] == "StepOpened"] == [
        {"verb": "Step", "target": "8.619"}, {"verb": "Step"}]
    assert Step() == msgspec.convert({"verb": "Step"}, AnyCommand)
    tail = cli.json("log", "--last", "2")
    assert [r["request"] for r in tail] == [rows[r["version"]]["request"] for r in tail]
