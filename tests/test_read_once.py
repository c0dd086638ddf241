"""The campaign read once per command: a second read in the
same command is the first one's campaign while the log's last stored row is byte for byte the one it read up to;
anything else reads it again, with every check a read makes."""

from __future__ import annotations

import json

import pytest

from conftest import sql
from cgledger.ledger.application import open_ledger
from cgledger.ledger.verbs import acts


@pytest.fixture
def kgp(at):
    return at("8.610")  # where a roll can be recorded (8.610 Wounded Leaders)


def read_twice(db):
    ledger = open_ledger(str(db))
    return ledger, ledger.campaign(None), ledger.campaign(None)


def test_a_second_read_in_one_command_is_the_first(kgp):
    ledger, first, second = read_twice(kgp.db)
    assert second is first and not ledger.notices


def test_a_new_event_a_write_or_a_new_command_reads_afresh(kgp):
    ledger, first, _ = read_twice(kgp.db)
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "9-1")  # another process (another ledger) records
    after = ledger.campaign(None)
    assert after is not first and after.version == first.version + 1
    assert ledger.campaign(None, writing=True) is not after  # a verb that records gets its own aggregate
    ledger.store.forget_reads()  # as the CLI does when the next command opens the ledger
    assert ledger.campaign(None) is not after


def test_a_campaign_a_verb_recorded_on_is_read_again(kgp):
    ledger, first, _ = read_twice(kgp.db)
    acts.step(ledger, None, None)  # recorded through its own aggregate
    again = ledger.campaign(None)
    assert again is not first and again.version > first.version


def test_an_edited_last_row_is_read_again_and_named(kgp):
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "9-1")
    ledger, first, _ = read_twice(kgp.db)
    (version, state), = sql(kgp.db, "SELECT originator_version, state FROM {events} ORDER BY originator_version DESC "
                                    "LIMIT 1")
    event = json.loads(bytes(state))
    assert event["fact"]["dice"] == [2]
    event["fact"]["dice"] = [1]  # the digest left in place
    sql(kgp.db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (json.dumps(event).encode(), version))
    again = ledger.campaign(None)
    assert again is not first
    assert any("altered" in notice for notice in ledger.notices), ledger.notices


def test_a_read_that_warned_is_not_kept(kgp):
    ledger = open_ledger(str(kgp.db))
    ledger.notices.append("a warning of an earlier read")  # as a load that worked around a problem leaves it
    assert ledger.campaign(None) is not ledger.campaign(None)
