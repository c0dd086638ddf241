"""`audit` catches each kind of problem; each test fails if that check is removed."""

from __future__ import annotations


import msgspec
import pytest

from cgledger.ledger.application import open_ledger
from cgledger.ledger.decide.rolls import command_of
from conftest import sql
from cgledger.ledger.domain.events import AppliedDRM, DiceRolled


def roll_fact(campaign, **changes) -> DiceRolled:
    """A correct 8.610 roll for the German at 19 AM (dr 3, -1 German = 2, Retained wounded), then changed."""
    fields = dict(
        action=campaign.begin_action(), table="8.610", rule="8.610", side="german", die="dr", dice=(3,),
        source="entered", original=3, drms=(AppliedDRM(key="german", name="If German", value=-1, kind="automatic"),),
        final=2, result="Retained wounded", code="wounded", item="8.610|german|19 AM|",
    )
    fields.update(changes)
    return DiceRolled(**fields)


def record(db, **changes) -> None:
    """Given a log holding a roll the service would never have written (a forger's, or a bug's)."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    fact = roll_fact(campaign, **changes)
    campaign.record(fact, "", None, "", command_of(fact))  # with the command its roll records, as a ledger writes it
    ledger.store.save(campaign)


def findings(cli) -> list[dict]:
    result = cli("audit", "--json")
    import json

    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report["findings"]


def kinds(cli) -> list[str]:
    return [f["kind"] for f in findings(cli)]


@pytest.fixture
def kgp(at):
    """A CG I campaign at step 8.610 (Wounded Leaders) after its 19 AM Initial Scenario."""
    return at("8.610")


def test_clean_log_passes(kgp):
    record(kgp.db)
    kgp.ok("roll", "8.610", "--side", "us", "--drm", "isolated", "--for", "unit 53")
    result = kgp("audit")
    assert result.exit_code == 0
    assert "2 rolls re-checked: clean" in result.stdout


def test_an_act_recorded_without_its_command_is_named(kgp):
    """A log written today keeps each act's command with its first event, and the audit decides the act from it; a
    fact written without one did not come from the ledger (a doctored copy, an edit), even where the fact is what
    the rules give. Named once, where nothing else is named for that event."""
    ledger = open_ledger(str(kgp.db))
    campaign = ledger.campaign(None)
    campaign.record(roll_fact(campaign))
    ledger.store.save(campaign)
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["decision"]
    assert found[0]["message"] == ("Dice rolled is recorded without the command that made it: the ledger keeps each "
                                   "act's command with its first event")


def test_wrong_final(kgp):
    record(kgp.db, final=3, result="Retained wounded")
    assert "final" in kinds(kgp)


def test_wrong_result(kgp):
    record(kgp.db, result="Retained unwounded", code="unwounded")
    assert kinds(kgp) == ["result"]


def test_wrong_original(kgp):
    record(kgp.db, original=4, final=3)
    assert "original" in kinds(kgp)


def test_wrong_automatic_drm(kgp):
    # The German -1 on the Wounded Leader Table left out: Final 3 would still say "Retained wounded".
    record(kgp.db, drms=(), final=3)
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["automatic_drm"]
    assert "german -1" in found[0]["message"]


def test_automatic_drm_claimed_for_the_wrong_side(kgp):
    record(kgp.db, side="us")  # the German -1 recorded on a U.S. roll
    assert "automatic_drm" in kinds(kgp)


def test_wrong_declared_drm_value(kgp):
    record(kgp.db, drms=(AppliedDRM(key="german", name="If German", value=-1, kind="automatic"),
                         AppliedDRM(key="isolated", name="If Isolated", value=-1, kind="declared")), final=1,
           result="Retained unwounded", code="unwounded")
    assert "drm" in kinds(kgp)


def test_rerolled_after_undo(at):
    kgp = at("8.612")
    kgp.ok("roll", "8.6122", "--side", "us", "--drm", "san=6", "--dice", "2", "--for", "SAN")
    kgp.ok("undo", "--reason", "did not like it")
    kgp.ok("roll", "8.6122", "--side", "us", "--drm", "san=6", "--dice", "5", "--for", "SAN")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["reroll"]
    assert "re-rolled after undo" in found[0]["message"]
    assert kgp("audit").exit_code == 1


def test_same_dice_after_undo_is_a_correction(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"), ("V1", "german"))
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "5,6")
    kgp.ok("undo", "--reason", "wrong RG")
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "5,6")
    assert kinds(kgp) == []


def test_a_roll_for_another_unit_after_an_undo_is_a_reroll_naming_both(kgp):
    """A unit named otherwise ('Tiger in StJ19', then 'Tiger StJ19') is no new roll: the table's first roll after an
    undo with new dice is a re-roll, whatever unit it names, and the audit names both. A unit named wrongly is
    corrected by entering the same dice again; a later roll of the table is a roll of its own."""
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "9-1")
    kgp.ok("undo")
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "5", "--for", "8-1")
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "4", "--for", "7-0")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["reroll"]
    assert "for '8-1') was rolled at event" in found[0]["message"] and "for '9-1' (Original 2" in found[0]["message"]


def test_a_roll_on_a_table_of_its_kind_after_an_undo_is_a_reroll(at):
    """8.606/infantry and 8.606/vehicle are one rule's tables: the unit's Isolation roll undone and made on the other
    is the re-roll the audit names, with the table it was first made on."""
    kgp = at("8.606")
    kgp.ok("roll", "8.606/infantry", "--side", "german", "--dice", "6,6", "--for", "StJ19 4-6-7")
    kgp.ok("undo", "--reason", "x")
    kgp.ok("roll", "8.606/vehicle", "--side", "german", "--dice", "1,2", "--for", "StJ19 4-6-7")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["reroll"] and "on 8.606/infantry (Original" in found[0]["message"]


def test_a_dr_after_an_undone_dr_of_its_rule_is_no_reroll_of_it(at):
    """KGP3's Mist Change DR and its Air Support Recall dr share a rule, not a kind: the DR undone, the recall dr made
    with other dice is a roll of its own; the Mist Change DR made again with new dice is the re-roll."""
    kgp = at("scenario")
    kgp.ok("roll", "KGP3", "--side", "us", "--dice", "2,1")
    kgp.ok("undo", "--reason", "typed before the Wind Change DR")
    kgp.ok("roll", "KGP3/recall", "--side", "german", "--dice", "6")
    kgp.ok("roll", "KGP3/recall", "--side", "us", "--dice", "4")
    assert kinds(kgp) == []
    kgp.ok("roll", "KGP3", "--side", "us", "--dice", "5,6")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["reroll"] and "KGP3 (U.S." in found[0]["message"], found


def test_a_secret_roll_undone_unrevealed_and_made_again_is_a_reroll(at):
    """A Secret roll sealed with dice typed (no fair dice) and undone before it was revealed showed no dice: the next
    one of its table is a re-roll, named with both sealed."""
    from conftest import Player

    kgp = at("8.611", "19 PM")
    kgp.ok("fair-dice", "mode", "immediate")
    german, us = Player(kgp.db, "Peiper's own words"), Player(kgp.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    us.ok("keys", "init", "--side", "us", "--dice", "immediate")
    german.ok("roll", "8.6113", "--side", "german")
    german.ok("undo", "--reason", "oops")
    german.ok("roll", "8.6113", "--side", "german")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["reroll"], found
    assert "(sealed: its dice never shown), undone, and rolled again (sealed)" in found[0]["message"]


def test_a_unit_named_wrongly_is_corrected_with_the_same_dice(kgp):
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "9-1")
    kgp.ok("undo")
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "8-1")
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "5", "--for", "7-0")
    assert kinds(kgp) == []


def rows(db):
    return sql(db, "SELECT originator_version, state FROM {events} ORDER BY originator_version")


def set_state(db, version: int, state: bytes) -> None:
    sql(db, "UPDATE {events} SET state=? WHERE originator_version=?", (state, version))


def test_tampered_stored_event(kgp):
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "leader")
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "1", "--for", "unit 130")
    stored = rows(kgp.db)
    version, state = stored[-2]
    data = msgspec.json.decode(bytes(state))
    data["fact"]["dice"] = [1]  # a better die for the German...
    data["fact"]["original"], data["fact"]["final"] = 1, 0
    data["fact"]["result"], data["fact"]["code"] = "Retained unwounded", "unwounded"
    set_state(kgp.db, version, msgspec.json.encode(data))
    found = findings(kgp)
    # its digest no longer matches; and the command stored with it (the dice entered) gives another result
    assert [(f["version"], f["kind"]) for f in found] == [(version, "tampered"), (version, "result")]


def test_tampered_last_event_is_caught_by_its_own_digest(kgp):
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "unit 143")
    version, state = rows(kgp.db)[-1]
    set_state(kgp.db, version, bytes(state).replace(b'"dice":[6]', b'"dice":[5]'))
    assert kinds(kgp) == ["tampered", "original"]


def test_removed_stored_event(kgp):
    for die in "123":
        kgp.ok("roll", "8.610", "--side", "german", "--dice", die, "--for", f"unit {die}")
    stored = rows(kgp.db)
    sql(kgp.db, "DELETE FROM {events} WHERE originator_version=?", (stored[-2][0],))
    found = findings(kgp)
    assert "missing" in [f["kind"] for f in found]
    assert any(f"event(s) {stored[-2][0]} missing" in f["message"] for f in found)
    kgp.refused("roll", "8.610", "--side", "german", "--dice", "4", "--for", "unit 157", contains="the campaign log is damaged")


def test_reordered_stored_events(kgp):
    for die in "12":
        kgp.ok("roll", "8.610", "--side", "german", "--dice", die, "--for", f"unit {die}")
    (version_a, state_a), (version_b, state_b) = rows(kgp.db)[-2:]
    set_state(kgp.db, version_a, bytes(state_b))
    set_state(kgp.db, version_b, bytes(state_a))
    found = kinds(kgp)
    assert "chain" in found and "tampered" in found
    assert kgp("audit").exit_code == 1


def test_unreadable_stored_event(kgp):
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "2", "--for", "unit 172")
    set_state(kgp.db, rows(kgp.db)[-1][0], b"{garbage")
    found = findings(kgp)
    assert [f["kind"] for f in found] == ["unreadable"]
    assert kgp("log").exit_code == 0  # the log still shows what can be read
    kgp.refused("undo", contains="run `cgledger audit`")


def test_head_changes_with_history_and_matches_for_the_same_log(tmp_path, kgp):
    first = kgp.ok("head").stdout.strip()
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "2", "--for", "unit 182")
    second = kgp.ok("head").stdout.strip()
    assert first != second and second.startswith(f"{kgp.events()}:")
    assert kgp.ok("head").stdout.strip() == second


def test_rerolled_after_rewind(at):
    kgp = at("8.616", "19 PM")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "6,6", "--for", "CPP")
    kgp.ok("rewind", "19 AM", "--reason", "we forgot the German reinforcements")
    kgp.to("8.616", "19 PM")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "1,1", "--for", "CPP")
    assert "reroll" in kinds(kgp)


def test_roll_outside_its_step(kgp):
    record(kgp.db, table="8.6122", rule="8.6122", drms=(), item="8.6122|german|19 AM", original=3, final=3, result="SAN unchanged", code="unchanged")
    assert "step" in kinds(kgp)


def test_a_purchase_under_an_undone_actions_number_is_named(cli, tmp_path):
    """A purchase written under the number of an action it had undone was counted by the state (CPP spent) while
    roster, RG record and log showed it undone, and the audit and import accepted it. Named, and refused."""
    import msgspec

    from cgledger.ledger.application import open_ledger
    from conftest import Cli, named_and_refused

    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=12", "--start-cpp", "us=8")
    cli.to("8.619")
    cli.ok("rules", "load", str(__import__("pathlib").Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"))
    bought = cli.json("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    cli.ok("undo")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    first = next(r for r in cli.json("log") if r["type"] == "RGPurchased")
    fact = next(e.fact for e in ledger.history(None) if type(e.fact).__name__ == "RGPurchased")
    assert fact.action == first["action"] and bought
    campaign.record(msgspec.structs.replace(fact, action=first["action"]), "", None)
    ledger.store.save(campaign)
    named_and_refused(cli, Cli(tmp_path / "other.db"), tmp_path, "decision", "earlier action's number")


def test_a_purchase_under_a_number_ahead_of_the_next_action_is_named(cli, tmp_path):
    """Action numbers are taken in order: a fact written under a number past the next one (skipping actions an undo
    would then never find) is named by the audit and refused by import, as a reused number is."""
    import msgspec

    from cgledger.ledger.application import open_ledger
    from conftest import Cli, named_and_refused

    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=12", "--start-cpp", "us=8")
    cli.to("8.619")
    cli.ok("rules", "load", str(__import__("pathlib").Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"))
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    fact = next(e.fact for e in ledger.history(None) if type(e.fact).__name__ == "RGPurchased")
    campaign.record(msgspec.structs.replace(fact, action=campaign.next_action + 5), "", None)
    ledger.store.save(campaign)
    named_and_refused(cli, Cli(tmp_path / "other.db"), tmp_path, "decision", "numbers are taken in order")
