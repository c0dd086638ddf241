"""A command decides on the campaign as it loaded it, never on events another writer stored since. Live, a side's
own server makes its answered Secret fair roll while that side's command is on its way: the command's own books
(its secret purchases and Secret rolls opened with its key) must be folded from the same events as the campaign,
so the command meets 'the campaign moved on' (retried, as a protocol record) and not a refusal that the roll was
made already (8.619: a secret RG's follow-ups are Secret rolls; fair dice)."""

from __future__ import annotations

import pytest

from conftest import Player
from test_email_campaign import CHART, GERMAN, MAP, US


def us_ledger(db):
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.player.keyring import Keyring

    ledger = open_ledger(str(db))
    ledger.keyring = Keyring(US.encode())
    return ledger


@pytest.fixture
def answered_secret_roll(make_db):
    """KGP CG I, 19 PM: the U.S. side's RG bought in secret (8.619) and its Secret follow-up rolls declared and
    answered, not made yet."""
    db = make_db()
    german, us = Player(db, GERMAN), Player(db, US)
    german.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    german.ok("keys", "init", "--side", "german")
    german.ok("rules", "load", str(CHART))
    us.ok("accept")
    us.ok("keys", "init", "--side", "us")
    us.ok("rules", "load", str(MAP))
    german.ok("accept")
    german.ok("step", "scenario")
    us.ok("step", "scenario")
    us.ok("roll", "KGP3", "--side", "us", "--dice", "3,4")
    german.ok("witness", "--all")
    us.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    us.ok("roll", "8.6113", "--side", "us")
    german.ok("roll", "8.6113", "--side", "german")  # answers the U.S. roll first
    us.ok("step", "8.616")  # makes its answered roll, answers the German one
    german.ok("step", "8.616")  # 19 PM
    us.ok("roll", "8.616", "--side", "us")
    german.ok("roll", "8.616", "--side", "german")
    us.ok("answer")
    german.ok("answer")
    us.ok("buy", "I1", "--side", "us", "--map-group", "St", "--objective", "StK17", "--follow-ups")  # in secret
    german.ok("answer")
    return db, us


def test_a_command_loaded_before_its_own_server_made_the_roll_meets_a_moved_campaign(answered_secret_roll):
    from cgledger.ledger.errors import CampaignMovedOn

    db, us = answered_secret_roll
    mine, server = us_ledger(db), us_ledger(db)
    try:
        campaign = mine.store.campaign(None, writing=True)  # this command's load ...
        rules = mine.rules_for(campaign)
        assert any(s["side"] == "us" for s in campaign.secret_rgs.values())
        waiting = [e for e in campaign.declared.values() if e["side"] == "us" and not e["made"]]
        assert waiting and all(e["secret"] and e["answered"] for e in waiting)
        made = server.answer(None)  # ... and the side's own server makes the roll meanwhile
        assert made, "the server made the U.S. follow-up roll"
        assert len(mine.store.log_at(campaign)) == campaign.version  # the events the campaign was folded from
        assert len(mine.store.history(None)) > campaign.version
        facts = mine.settle(campaign, rules)  # decided on what it loaded: the roll made once more ...
        assert facts
        before = len(mine.store.history(None))
        with pytest.raises(CampaignMovedOn) as moved:  # ... and refused at the save, nothing written
            mine.store.save_campaign(campaign)
        assert moved.value.protocol_only  # so a verb decides again on the log as it now stands
        assert len(mine.store.history(None)) == before
    finally:
        mine.close()
        server.close()
    assert us("audit").exit_code == 0
