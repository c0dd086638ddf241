"""Two players who do not trust each other: each side signs its own events, takes back only its own
actions, and neither can slip a forged event, an edited row or an edited snapshot past the other. Each test runs
on SQLite and, with --backend postgres, on PostgreSQL, and fails if the check it names is removed."""

from __future__ import annotations

import json

import msgspec
import pytest

from conftest import Cli, Player, count_events, kept_command, sql
from cgledger.ledger.trust import chain
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import campaign_id
from cgledger.ledger.domain.commands import AnyCommand
from cgledger.ledger.domain.events import ActionUndone, AnyFact
from cgledger.ledger.player.keyring import Keyring

GERMAN, US = "Peiper's own words", "Harrison's own words"


@pytest.fixture
def table(at):
    """A campaign at 8.610 where both sides have set up their keys."""
    cli = at("8.610")
    german, us, anyone = Player(cli.db, GERMAN), Player(cli.db, US), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    return german, us, anyone


def kinds(cli) -> list[str]:
    result = cli("audit", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return [f["kind"] for f in report["findings"]]


def forge(db, fact_of, author: str, signer: str | None, side: str | None = None) -> None:
    """Writes straight into the store what a cheating player could: `fact_of(campaign)` recorded in `author`'s
    name, signed with `signer`'s passphrase as `side`'s key (or unsigned)."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    sign = None
    if signer is not None:
        keyring = Keyring(signer.encode())
        sign = keyring.signer(campaign, rules, keyring.opens(campaign))
    fact = fact_of(campaign)
    campaign.record(fact, author, sign, "", kept_command(fact))
    ledger.store.save(campaign)


def imports_into_a_fresh_ledger(sender: Cli, make_db, tmp_path) -> Cli:
    path = tmp_path / "bundle.json"
    sender.ok("export", "--since", "0", str(path))
    return Cli(make_db()), path


def test_keys_init_makes_a_signing_key_and_every_later_event_is_signed(table):
    german, us, anyone = table
    rows = anyone.json("log")
    keys = [r for r in rows if r["type"] == "SideKeyRegistered"]
    assert [(r["side"], r["author"], r["signed"], len(r["public"])) for r in keys] == [
        ("german", "german", True, 64), ("us", "us", True, 64)]
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    last = anyone.json("log")[-1]
    assert (last["author"], last["signed"]) == ("german", True)
    assert "[by German, signed]" in anyone.ok("log").stdout.splitlines()[-1]
    assert kinds(anyone) == []


def test_a_weak_passphrase_is_refused(at):
    cli = at("8.610")
    Player(cli.db, "summer2024").refused("keys", "init", "--side", "us", contains="too weak")
    Player(cli.db, "aaaaaaaaaaaaaaaaaaaa").refused("keys", "init", "--side", "us", contains="too weak")
    Player(cli.db, "correct horse battery staple").ok("keys", "init", "--side", "us")


def test_no_side_can_record_in_the_other_sides_name(table):
    german, us, anyone = table
    us.refused("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A", contains="not the German side's")
    anyone.refused("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A", contains="give its passphrase")
    anyone.refused("step", "next", contains="every side signs its acts")


def honest_roll(german):
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    from cgledger.ledger.domain.events import DiceRolled

    row = german.json("log")[-1]  # the fact's fields of its log row (the row's own keys are no field of it)
    fields = {f.encode_name for f in msgspec.structs.fields(DiceRolled)}
    return msgspec.convert({k: v for k, v in row.items() if k in fields} | {"type": "DiceRolled"}, AnyFact,
                           strict=False)


@pytest.mark.parametrize("author, signer, kind", [
    ("us", US, "author"),  # the U.S. player records a German roll in his own name
    ("german", US, "signature"),  # ... in the German's name, signed with the U.S. key
    ("german", None, "signature"),  # ... in the German's name, unsigned
])
def test_an_event_in_the_other_sides_name_is_named_and_refused_on_import(table, make_db, tmp_path, author, signer,
                                                                         kind):
    german, us, anyone = table
    roll = honest_roll(german)
    # a roll the rules would accept (another unit), only its envelope is forged
    forge(german.db, lambda c: msgspec.structs.replace(roll, action=c.next_action, purpose="B",
                                                       item=roll.item[:-1] + "b"), author, signer)
    assert kinds(anyone) == [kind]
    fresh, path = imports_into_a_fresh_ledger(anyone, make_db, tmp_path)
    fresh.refused("import", str(path), contains="forged")


def test_undo_of_the_other_sides_action_is_a_proposal_the_other_side_accepts(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    proposed = us.json("undo", "--reason", "he rolled for the wrong unit")
    assert proposed["proposed"] == "undo" and proposed["actions"] == [german.json("log")[-2]["action"]]
    assert german.json("log")[-2]["in_force"] is True  # nothing voided yet
    us.refused("accept", contains="only the other side can accept it")
    anyone.refused("accept", contains="only the other side can accept it")
    accepted = german.json("accept")
    rows = anyone.json("log")
    assert accepted["undone"] == proposed["actions"][0] and accepted["accepted"] == rows[-2]["version"]
    assert rows[-3]["in_force"] is False and rows[-1]["type"] == "ActionUndone" and rows[-1]["author"] == "german"
    assert rows[-2]["type"] == "TakeBackProposed" and rows[-2]["author"] == "us" and rows[-2]["signed"]
    assert kinds(anyone) == []
    # a side takes back its own roll alone
    german.ok("roll", "8.610", "--side", "german", "--dice", "4", "--for", "A")
    assert "undone" in german.json("undo")


def test_a_proposal_lapses_when_anything_else_is_recorded(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    us.ok("undo")
    us.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "B")
    german.refused("accept", contains="no proposal is open")


def test_a_shared_action_is_taken_back_only_with_the_other_sides_acceptance(table):
    german, us, anyone = table
    us.ok("step", "next")  # each side walks the RePh: the U.S. is done with 8.610 (its own act)...
    german.ok("step", "next")  # ...and the campaign moves when the German is done too: a shared act
    assert anyone.json("status")["step"] == "8.611"
    us.ok("roll", "8.6113", "--side", "us")  # the U.S. side has it: it records after it (and takes that back)
    assert "undone" in us.json("undo")
    assert "proposed" in german.json("undo")  # even its recorder cannot void it alone now
    us.ok("accept")
    assert kinds(anyone) == []


def test_a_side_walks_the_reph_alone_but_never_takes_the_other_past_its_steps(table):
    """8.6: the RePh steps "are performed simultaneously by each side". Found by email: the U.S. ran `step 8.623`
    and skipped the German's purchase step while he held 62 CPP."""
    german, us, anyone = table
    us.ok("roll", "8.6113", "--side", "us")  # 8.611 needs each side's DR: declared, his walk goes on past it
    moved = us.json("step", "8.616")  # a new CG Date (8.612) is entered by both sides together: the U.S. waits there
    assert moved["ahead"] and moved["step"] == "8.612" and moved["campaign_step"] == "8.610"
    assert anyone.json("status")["step"] == "8.610"  # the German may still roll 8.610 for his units
    us.refused("step", "next", contains="enter together")
    us.refused("roll", "8.6122", "--side", "us", "--dice", "3", contains="8.612")  # nothing done at the door
    assert "proposed" not in us.json("undo")  # walking on is the U.S. side's own act: it takes it back alone
    us.ok("step", "8.612")
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    german.ok("roll", "8.6113", "--side", "german")
    us.ok("answer")  # the U.S. ledger answers the German DR and makes its own: both are made before 8.611 is left
    german.ok("step", "8.612")  # the German catches up, and the campaign enters the new CG Date with both
    status = anyone.json("status")
    assert status["step"] == "8.612" and status["cg_date"] == "19 PM" and not status["progress"]["us"]["ahead"]
    assert kinds(anyone) == []


def test_a_forged_undo_of_the_other_sides_action_is_named_and_refused_on_import(table, make_db, tmp_path):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    target = anyone.json("log")[-1]["action"]
    forge(german.db, lambda c: ActionUndone(action=c.next_action, undone=target), "us", US)
    assert kinds(anyone) == ["rights"]
    fresh, path = imports_into_a_fresh_ledger(anyone, make_db, tmp_path)
    fresh.refused("import", str(path), contains="took back an act alone: it is the other side's or shared, and needs its acceptance")


def test_a_forged_undo_of_an_action_not_the_last_is_named_and_said_on_every_read(table, make_db, tmp_path):
    """an undo of an action that is not the last one in force (no ledger writes one) leaves the state's totals
    as they stood before it, while the roster replays what is in force: the audit names it, import refuses it, and
    every read of the ledger holding it says so, instead of showing two books that disagree without a word."""
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    target, event = anyone.json("log")[-1]["action"], anyone.json("log")[-1]["version"]
    german.ok("roll", "8.610", "--side", "german", "--dice", "4", "--for", "B")
    forge(german.db, lambda c: ActionUndone(action=c.next_action, undone=target), "german", GERMAN)
    assert "rights" in kinds(anyone)
    undo = anyone.json("log")[-1]["version"]
    for read in (("status",), ("roster", "--side", "german")):
        shown = anyone(*read)
        said = f"event {undo} takes back the act of event {event} out of order"  # events, as the log shows them
        assert shown.exit_code == 0 and said in shown.stderr and "action" not in shown.stderr, shown.stderr
    fresh, path = imports_into_a_fresh_ledger(anyone, make_db, tmp_path)
    fresh.refused("import", str(path), contains="undone recorded")


def test_a_re_signed_forged_tail_is_refused(table, make_db, tmp_path):
    """The U.S. player edits the German's roll in a bundle, recomputes the whole chain and signs it with his own
    key: the chain is whole, the signature is not the German's."""
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "A")
    path = tmp_path / "b.json"
    german.ok("export", "--since", "0", str(path))
    data = json.loads(path.read_text())
    us_key = Keyring(US.encode())
    ledger = open_ledger(str(german.db))
    state = ledger.campaign(None)
    sign = us_key.signer(state, ledger.rules_for(state), "us")
    cid = campaign_id(data["campaign"])
    prev = chain.GENESIS
    for event in data["events"]:
        if event is data["events"][-1]:
            event["fact"]["dice"], event["fact"]["original"] = [1], 1
        fact = msgspec.convert(event["fact"], AnyFact)
        from datetime import datetime

        event["prev"] = prev
        event["digest"] = chain.digest(cid, event["version"], datetime.fromisoformat(event["timestamp"]), prev, fact,
                                       fact.__struct_config__.tag, event["author"], event["command"], event["form"],
                                       msgspec.convert(event["request"], AnyCommand) if event.get("request") else None)
        if event["signature"]:
            event["signature"] = sign(event["digest"])
        prev = event["digest"]
    path.write_text(json.dumps(data))
    fresh = Cli(make_db())
    fresh.refused("import", str(path), contains="signature does not verify")


def test_a_flagged_honest_reroll_imports_and_the_next_bundle_still_imports(at, make_db, tmp_path):
    german, us = at("8.610"), Cli(make_db())
    german.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "A")
    german.ok("undo")
    german.ok("roll", "8.610", "--side", "german", "--dice", "2", "--for", "A")  # re-rolled: a dispute, not forgery
    first = tmp_path / "1.json"
    german.ok("export", "--since", "0", str(first))
    us.ok("import", str(first))
    assert kinds(us) == ["reroll"] and kinds(german) == ["reroll"]
    german.ok("roll", "8.610", "--side", "german", "--dice", "4", "--for", "B")
    second = tmp_path / "2.json"
    german.ok("export", "--since", us.ok("head").stdout.strip(), str(second))
    us.ok("import", str(second))
    assert us.ok("head").stdout == german.ok("head").stdout and kinds(us) == ["reroll"]


def a_snapshot(played) -> Cli:
    """The KGP sample (118 events): a snapshot at event 100."""
    cli = Cli(played())
    assert sql(cli.db, "SELECT originator_version FROM {snapshots}") == [(100,)]
    return cli


def edit_snapshot(cli, change, reseal: bool) -> None:
    from cgledger.ledger.store.persistence import snapshot_seal

    (state,) = sql(cli.db, "SELECT state FROM {snapshots}")[0]
    snap = json.loads(bytes(state))
    change(snap["state"])
    raw = json.dumps(snap["state"]).encode()
    snap["seal"] = snapshot_seal(snap["head"], raw) if reseal else snap["seal"]
    data = b'{"timestamp":' + json.dumps(snap["timestamp"]).encode() + b',"topic":' + json.dumps(
        snap["topic"]).encode() + b',"state":' + raw + b',"seal":' + json.dumps(snap["seal"]).encode() + \
        b',"head":' + json.dumps(snap["head"]).encode() + b"}"
    sql(cli.db, "UPDATE {snapshots} SET state = ?", (data,))


def test_an_edited_snapshot_is_not_read_and_the_audit_names_it(played):
    cli = a_snapshot(played)
    honest = cli.json("status")["cpp"]
    edit_snapshot(cli, lambda s: s["cpp"].update(german=717), reseal=False)
    result = cli("status", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["cpp"] == honest  # read from the log instead
    assert "snapshot at event 100 was edited" in result.stderr
    assert kinds(cli) == ["snapshot"]


def test_a_resealed_edited_snapshot_is_named_by_the_audit(played):
    cli = a_snapshot(played)
    edit_snapshot(cli, lambda s: s["cpp"].update(german=717), reseal=True)
    report = json.loads(cli("audit", "--json").stdout)
    assert [f["kind"] for f in report["findings"]] == ["snapshot"] and "cpp" in report["findings"][0]["message"]


def test_an_edited_topic_is_named_and_reads_give_one_line(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    last = count_events(german.db)
    sql(german.db, "UPDATE {events} SET topic = 'DiceReported' WHERE originator_version = ?", (last,))
    assert "tampered" in kinds(anyone)
    result = anyone("status")
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1 and "damaged" in result.stderr
    assert anyone("log").exit_code == 0


def test_head_recomputes_the_digest(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    last = count_events(german.db)
    (state,) = sql(german.db, "SELECT state FROM {events} WHERE originator_version = ?", (last,))[0]
    edited = bytes(state).replace(b'"dice":[3]', b'"dice":[1]')
    assert edited != bytes(state)
    sql(german.db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (edited, last))
    anyone.refused("head", contains=f"event {last} was altered", code=1)


def test_every_command_checks_the_events_it_replays(table):
    """On a shared server the other player can write rows; the next command says so before anything else."""
    german, us, anyone = table
    roll = honest_roll(german)
    forge(german.db, lambda c: msgspec.structs.replace(roll, action=c.next_action, purpose="B",
                                                       item=roll.item[:-1] + "b"), "german", US)
    result = german("status")
    assert result.exit_code == 0 and "signature does not verify" in result.stderr and "Warning" in result.stderr


def test_keys_show_gives_each_sides_fingerprint(table):
    german, us, anyone = table
    rows = anyone.json("keys", "show")
    assert [(r["side"], r["signs"], len(r["fingerprint"])) for r in rows] == [("german", True, 19), ("us", True, 19)]
    assert rows[0]["fingerprint"] in anyone.ok("keys", "show").stdout
    assert rows[0]["fingerprint"] != rows[1]["fingerprint"]


def test_a_rewind_over_shared_acts_is_a_proposal_the_other_side_accepts(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    before = [r["in_force"] for r in anyone.json("log")]
    proposed = german.json("rewind", "19 AM", "--reason", "we forgot the reinforcements")
    assert proposed["proposed"] == "rewind" and len(proposed["actions"]) > 3
    assert [r["in_force"] for r in anyone.json("log")][: len(before)] == before  # nothing voided yet
    german.refused("accept", contains="only the other side can accept it")
    done = us.json("accept")
    assert done["cg_date"] == "19 AM" and done["voided"] == proposed["actions"] and done["accepted"]
    assert anyone.json("status")["cg_date"] == "19 AM" and kinds(anyone) == []


def test_a_field_added_later_leaves_stored_digests_as_they_were():
    """Events gain fields (always with a default): an event stored before one existed keeps its digest. Form 2
    digests leave default values out; form-1 events (the release before signing) are read as they were written."""
    import hashlib
    from datetime import datetime, timezone
    from uuid import uuid4

    from cgledger.ledger.domain.events import DiceRolled

    cid, when = uuid4(), datetime(2026, 11, 22, tzinfo=timezone.utc)
    roll = DiceRolled(action=3, table="8.610", rule="8.610", side="german", die="dr", dice=(3,), source="rng",
                      original=3, final=3, result="x", item="8.610|german|19 AM|a")
    older = json.loads(msgspec.json.encode(roll))
    for added in ("adds", "item", "series"):  # as a release before these fields wrote it
        older.pop(added) if older[added] in ("", []) else None
    as_read = msgspec.convert(older, AnyFact)
    assert chain.digest(cid, 4, when, "p", as_read, "DiceRolled", "german", "c", 2) == \
        chain.digest(cid, 4, when, "p", roll, "DiceRolled", "german", "c", 2)
    # a form-1 ActionUndone as the release before signing digested it (no `proposal` field then)
    payload = msgspec.json.encode((str(cid), 5, chain.iso_utc(when), "p",
                                   {"type": "ActionUndone", "action": 4, "undone": 3, "reason": ""}))
    stored = msgspec.convert({"type": "ActionUndone", "action": 4, "undone": 3, "reason": ""}, AnyFact)
    assert chain.digest(cid, 5, when, "p", stored) == hashlib.sha256(payload).hexdigest()
    # and a form-1 RGPurchased from before an RG could raise the SAN
    bought = {"type": "RGPurchased", "action": 6, "side": "german", "rg": "I2", "group_type": "Infantry", "cpp": 8,
              "map_group": "St", "objective": "", "given": False, "rolls": [], "fpp": 0.0, "on_map": False,
              "pre_registered": 0}
    payload = msgspec.json.encode((str(cid), 7, chain.iso_utc(when), "p", bought))
    assert chain.digest(cid, 7, when, "p", msgspec.convert(bought, AnyFact)) == hashlib.sha256(payload).hexdigest()


def test_a_rules_file_is_a_proposal_once_sides_have_keys(table, tmp_path):
    """A rules file changes the tables for both sides: one side proposes it, the other accepts."""
    from pathlib import Path

    german, us, anyone = table
    chart = tmp_path / "chart.toml"
    chart.write_text((Path(__file__).resolve().parent / "data" / "kgp-rg-test-chart.toml").read_text())
    proposed = german.json("rules", "load", str(chart))
    assert proposed["proposed"] is True
    assert not [r for r in anyone.json("log") if r["type"] == "TablesOverridden"]  # nothing in force yet
    german.refused("accept", contains="only the other side can accept it")
    accepted = us.json("accept")
    assert accepted["accepted"] and accepted["tables"] == proposed["tables"]
    assert kinds(anyone) == []


def test_a_rules_file_loaded_alone_is_named_and_refused_on_import(table, make_db, tmp_path):
    from pathlib import Path

    from cgledger.ledger.decide import secrets as secret_decisions

    german, us, anyone = table
    text = (Path(__file__).resolve().parent / "data" / "kgp-rg-test-chart.toml").read_text()
    forge(german.db, lambda c: secret_decisions.load_rules(c, "mine.toml", text), "german", GERMAN)
    assert kinds(anyone) == ["decision"]
    fresh, path = imports_into_a_fresh_ledger(anyone, make_db, tmp_path)
    fresh.refused("import", str(path), contains="changed the tables alone")


def test_a_forged_walk_past_the_other_sides_step_is_named_and_refused_on_import(table, make_db, tmp_path):
    """A doctored ledger moves the campaign past 8.610 while the German may still roll there, signed by the U.S."""
    from cgledger.ledger.domain.events import StepOpened

    german, us, anyone = table
    forge(us.db, lambda c: StepOpened(action=c.next_action, step="8.611"), "us", US)
    assert kinds(anyone) == ["step"]
    fresh, path = imports_into_a_fresh_ledger(anyone, make_db, tmp_path)
    fresh.refused("import", str(path), contains="step opened")


def test_a_forged_walk_through_a_new_cg_date_alone_is_named(table):
    """A side may walk ahead only to the door of a new CG Date: one recorded beyond it is refused by the audit."""
    from cgledger.ledger.domain.events import SideAdvanced

    german, us, anyone = table
    us.ok("roll", "8.6113", "--side", "us")  # what 8.611 needs of the U.S. (8.6113): the walk's only fault is the door
    forge(us.db, lambda c: SideAdvanced(action=c.next_action, side="us", step="8.616", passed=("8.611", "8.612")),
          "us", US)
    findings = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert {f["kind"] for f in findings} == {"step"} and "the rules give '8.612'" in findings[0]["message"], findings


@pytest.mark.parametrize("weak", ["Password1234", "summer2024!!", "CG I12345678", "germanGERMAN1944"])
def test_a_guessable_passphrase_is_refused(at, weak):
    """`Password1234` passed the character-class floor, and the opponent found it in 0.5 s from a
    10-word list (the salt and check value travel in every bundle). zxcvbn, with the campaign's own words (its name,
    the sides) counted as guessable, must score it 4."""
    cli = at("8.610")
    Player(cli.db, weak).refused("keys", "init", "--side", "german", contains="too weak")
    Player(cli.db, "Peiper's own words").ok("keys", "init", "--side", "german")


def test_a_passphrase_the_guide_printed_is_refused(kgp):
    """The guide's example passphrases pass zxcvbn (a sentence scores high), and an opponent holding the salt tries
    them first: refused, nothing written."""
    from conftest import Player

    Player(kgp.db, "Harrison  held the Chateau").refused("keys", "init", "--side", "us",
                                                        contains="printed in the ledger's own guide")


def test_a_command_id_the_other_side_used_is_no_retry_of_yours(kgp):
    """On a shared database the other side can read a script's command ids in the rows and record his own act under
    the next one: the script's line then answered 'already recorded' (exit 0) and never acted. It is refused: the
    act under that id is not the player's own, nothing written."""
    from conftest import Player

    german = Player(kgp.db, "Peiper's own words, nobody else's 7")
    us = Player(kgp.db, "Harrison's own words, nobody else's 9")
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("--command-id", "script-line-1", "step", "next")
    us.ok("--command-id", "script-line-2", "step", "next")  # squatting the German script's next id
    german.refused("--command-id", "script-line-2", "step", "next", contains="by the other side's act")
    again = german("--command-id", "script-line-1", "step", "next")  # his own retry: recorded once, as ever
    assert again.exit_code == 0 and "already recorded" in (again.stdout + again.stderr)
