"""The campaign state as Given events / When a command / Then events, with the real store."""

from __future__ import annotations

import pytest

from ledger.application import open_ledger
from ledger.campaign import CampaignState
from ledger.errors import LedgerError
from ledger.events import ActionUndone, CampaignStarted, CGDateChanged, DiceRolled


def fold(facts) -> CampaignState:
    state = CampaignState()
    state.start(facts[0], "0")
    for fact in facts[1:]:
        state.evolve(fact, "0")
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
    state.evolve(ActionUndone(action=3, undone=2), "0")
    assert state.flags == [] and state.cg_date == "20 AM" and state.live == [[1, 1]]


def test_undo_twice_walks_back():
    state = fold([STARTED, CGDateChanged(action=1, previous="19 AM", cg_date="19 PM"),
                  CGDateChanged(action=2, previous="19 PM", cg_date="19 N"),
                  ActionUndone(action=3, undone=2), ActionUndone(action=4, undone=1)])
    assert state.cg_date == "19 AM" and state.last_live_action() is None


@pytest.fixture
def ledger(tmp_path):
    ledger = open_ledger(str(tmp_path / "c.db"), create=True)
    ledger.new_campaign("c", "kgp", "I")
    return ledger


def test_automatic_drms_follow_campaign_state(ledger):
    # Given 20 AM and an Ammunition Shortage rolled, When the German rolls Weapon Repair,
    # Then the +1 'German and Ammunition Shortage' DRM is there; after undoing the 8.618 roll it is gone.
    ledger.advance(None, "20 AM")
    ledger.roll(None, "8.618", "german", dice="6,6")
    with_shortage = ledger.roll(None, "8.6142", "german", dice="2")
    assert [d.key for d in with_shortage.fact.drms] == ["ammo_shortage"]
    ledger.undo(None)  # the 8.6142 roll
    ledger.undo(None)  # the 8.618 roll
    without = ledger.roll(None, "8.6142", "german", dice="2")
    assert without.fact.drms == () and ledger.audit(None).findings == ()


def test_night_drm_is_automatic(ledger):
    ledger.advance(None, "19 N")
    fact = ledger.roll(None, "8.606/vehicle", "us", dice="4,4").fact
    assert [(d.key, d.value, d.kind) for d in fact.drms] == [("night", -1, "automatic")]


def test_a_roll_is_one_action_and_undo_appends(ledger):
    first = ledger.roll(None, "8.610", "german", dice="3").fact
    second = ledger.roll(None, "8.610", "german", dice="4").fact
    assert second.action == first.action + 1
    undone, voided = ledger.undo(None, "typo")
    assert undone == second.action and [e.fact for e in voided] == [second]
    history = ledger.history(None)
    assert isinstance(history[-1].fact, ActionUndone) and len(history) == 4  # nothing deleted


def test_seeded_dice_are_recorded_as_seeded(tmp_path):
    from ledger.dice import SeededDice

    ledger = open_ledger(str(tmp_path / "s.db"), create=True, dice=SeededDice(5))
    ledger.new_campaign("c", "kgp", "I")
    fact = ledger.roll(None, "8.606/infantry", "us").fact
    assert fact.source == "seeded" and fact.dice == SeededDice(5).roll("DR")


def test_stale_writer_is_refused_and_nothing_stored(ledger):
    from ledger.campaign import campaign_id

    mine = ledger.campaign(None)
    ledger.roll(None, "8.610", "german", dice="3")  # another player records first
    mine.record(shortage(mine.begin_action()))
    with pytest.raises(LedgerError, match="the campaign moved on"):
        ledger._save(mine)
    assert len(ledger.recorder.select_events(campaign_id("c"))) == 2


def test_snapshots_restore_the_same_state(tmp_path):
    ledger = open_ledger(str(tmp_path / "snap.db"), create=True)
    ledger.new_campaign("c", "kgp", "I")
    ledger.advance(None, "20 AM")
    ledger.roll(None, "8.618", "german", dice="6,6")
    for i in range(230):
        ledger.roll(None, "8.610", "german", dice=str(i % 6 + 1))
    ledger.undo(None)
    loaded = ledger.campaign(None)  # from the snapshot at version 200 plus the events after it
    assert ledger.snapshots is not None and list(ledger.snapshots.get(loaded.id))
    replayed = fold([e.fact for e in ledger.history(None)])
    for attribute in ("cg_date", "flags", "next_action", "live", "reverts", "overrides"):
        assert getattr(loaded, attribute) == getattr(replayed, attribute), attribute
    assert loaded.head == ledger.history(None)[-1].digest
