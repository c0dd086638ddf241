"""The campaign state as Given events / When a command / Then events, with the real store."""

from __future__ import annotations

import pytest

from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.commands import Undo
from cgledger.ledger.verbs import acts, rolling
from cgledger.ledger.store.campaign import CampaignState
from cgledger.ledger.store.campaign import fold as fold_log
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import ActionUndone, CampaignStarted, CGDateChanged, DiceRolled


def fold(facts) -> CampaignState:
    state = CampaignState()
    state.start(facts[0], "0", "8.618")
    for version, fact in enumerate(facts[1:], 2):
        state.evolve(fact, "0", version)
    return state


STARTED = CampaignStarted(name="c", system="kgp", cg="I", cg_date="19 AM")


def shortage(action: int) -> DiceRolled:
    return DiceRolled(action=action, table="8.618", rule="8.618", side="german", die="DR", dice=(6, 6), source="entered",
                      original=12, final=12, result="shortage", sets=("german_ammo_shortage",))


def test_undo_reverts_a_cg_date_change():
    state = fold([STARTED, CGDateChanged(action=1, previous="19 AM", cg_date="19 PM"), ActionUndone(action=2, undone=1)])
    assert state.cg_date == "19 AM" and state.live == [] and state.next_action == 3


def test_undo_reverts_a_lasting_flag_and_only_the_last_action():
    state = fold([STARTED, CGDateChanged(action=1, previous="19 AM", cg_date="20 AM"), shortage(2)])
    assert state.flags == ["german_ammo_shortage"]
    state.evolve(ActionUndone(action=3, undone=2), "0", 9)
    assert state.flags == [] and state.cg_date == "20 AM" and state.live == [[1, 1]]


def test_undo_twice_walks_back():
    state = fold([STARTED, CGDateChanged(action=1, previous="19 AM", cg_date="19 PM"),
                  CGDateChanged(action=2, previous="19 PM", cg_date="19 N"),
                  ActionUndone(action=3, undone=2), ActionUndone(action=4, undone=1)])
    assert state.cg_date == "19 AM" and state.last_live_action() is None


def test_automatic_drms_follow_campaign_state(at):
    # Given 20 AM and an Ammunition Shortage rolled in 8.618, When the German rolls Weapon Repair in
    # 8.614 of 21 AM, Then the +1 'German and Ammunition Shortage' DRM is there.
    cli = at("8.618", "20 AM")
    cli.ok("roll", "8.618", "--side", "german", "--dice", "6,6")
    assert cli.json("status")["flags"] == ["german_ammo_shortage"]
    cli.to("8.614", "21 AM")
    roll = cli.json("roll", "8.6142", "--side", "german", "--dice", "2")
    assert [d["key"] for d in roll["drms"]] == ["ammo_shortage"]
    assert cli("audit").exit_code == 0


def test_undoing_the_shortage_roll_removes_the_drm(at):
    cli = at("8.618", "20 AM")
    cli.ok("roll", "8.618", "--side", "german", "--dice", "6,6")
    cli.ok("undo", "--reason", "wrong dice")
    assert cli.json("status")["flags"] == []
    cli.ok("roll", "8.618", "--side", "german", "--dice", "6,6")
    assert cli.json("status")["flags"] == ["german_ammo_shortage"]


def test_night_drm_is_automatic(at):
    cli = at("8.606", "19 N")
    roll = cli.json("roll", "8.606/vehicle", "--side", "us", "--dice", "4,4")
    assert [(d["key"], d["value"], d["kind"]) for d in roll["drms"]] == [("night", -1, "automatic")]


def test_a_roll_is_one_action_and_undo_appends(at):
    cli = at("8.610")
    ledger = open_ledger(str(cli.db))
    first = rolling.roll(ledger, None, "8.610", "german", dice="3", purpose="9-1").fact
    second = rolling.roll(ledger, None, "8.610", "german", dice="4", purpose="8-0").fact
    assert second.action == first.action + 1
    before = len(ledger.history(None))
    undone, = ledger.execute(None, Undo(reason="typo"))
    voided = acts.concerned(ledger, None, undone)
    assert undone.undone == second.action and [e.fact for e in voided] == [second]
    history = ledger.history(None)
    assert isinstance(history[-1].fact, ActionUndone) and len(history) == before + 1  # nothing deleted


def test_seeded_dice_are_recorded_as_seeded(at):
    from cgledger.ledger.rules.dice import SeededDice

    cli = at("8.606")
    ledger = open_ledger(str(cli.db), dice=SeededDice(5))
    fact = rolling.roll(ledger, None, "8.606/infantry", "us").fact
    assert fact.source == "seeded" and fact.dice == SeededDice(5).roll("DR")


def test_stale_writer_is_refused_and_nothing_stored(at):
    from cgledger.ledger.store.campaign import campaign_id

    cli = at("8.610")
    ledger = open_ledger(str(cli.db))
    mine = ledger.campaign(None)
    rolling.roll(ledger, None, "8.610", "german", dice="3")  # another player records first
    before = len(ledger.store.recorder.select_events(campaign_id("CG I")))
    mine.record(shortage(mine.begin_action()))
    with pytest.raises(LedgerError, match="the campaign moved on"):
        ledger.store.save_campaign(mine)
    assert len(ledger.store.recorder.select_events(campaign_id("CG I"))) == before


def test_snapshots_restore_the_same_state(at):
    cli = at("8.610")
    ledger = open_ledger(str(cli.db))
    for i in range(230):
        rolling.roll(ledger, None, "8.610", "german", dice=str(i % 6 + 1), purpose=f"leader {i}")
    ledger.execute(None, Undo())
    loaded = ledger.campaign(None)  # from the latest snapshot plus the events after it
    assert ledger.store.snapshots is not None and list(ledger.store.snapshots.get(loaded.id))
    replayed = fold_log(ledger.history(None))
    for attribute in ("cg_date", "step", "flags", "next_action", "live", "reverts", "overrides", "cpp", "lvp",
                      "done", "scenario", "initial", "options", "chits", "bought", "bought_today", "rgs", "consumed", "weather", "scenarios", "today", "reph_ends",
                      "fpp", "fortified", "keys", "sealed", "fair"):
        assert getattr(loaded, attribute) == getattr(replayed, attribute), attribute
    assert loaded.head == ledger.history(None)[-1].digest
