"""A Secret roll made void, one decision at a time (tests/given.py). KGP 8.6201 / RR 2.5191: an RG's strength is a
Secret DR, so a roll declared for one of its results (a Depleted RG's SW drs: KGP 8.6204, RR 2.5192) that the
strength does not call for is made void and sealed as a roll made is. Revealed, the void is decided: declared for a
strength result, and the strength (known, or revealed before it in the same reveal) gave another. 8.619: a secret
RG declares as many veiled follow-ups as any line of its side's chart may; the ones it does not call for keep the
count, always void."""

from __future__ import annotations

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide.fair import check_void
from cgledger.ledger.decide.veiled import followups_kept
from cgledger.ledger.domain.commands import Buy, RollCommand
from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, StepOpened
from cgledger.ledger.errors import LedgerError

import pytest

from given import given

RR = CampaignStarted(name="RR", system="rr", cg="RR", cg_date="19 AM", start_cpp={"german": 40, "canadian": 30})


def strength(*faces: int):
    """RR on 19 PM: a German HW1 bought in the open (event 5), its 2.5191 strength DR made with `faces` (no dice:
    not made); (the campaign, the strength roll or None)."""
    campaign = given(RR, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date="19 PM"),
                     StepOpened(action=2, step="2.518"))
    (purchase,) = campaign.when(Buy(rg="HW1", side="german")).decided()
    campaign = campaign.and_then(purchase, StepOpened(action=4, step="2.519"))
    if not faces:
        return campaign, None
    (rolled,) = campaign.when(RollCommand(table="2.5191", side="german", faces=faces, source="entered", rg=5)).decided()
    return campaign.and_then(rolled), rolled


def sw_dr(if_result: str = "D", table: str = "2.5192") -> dict:
    """A German 2.5192 SW dr declared for one result of the HW1's strength, as the state holds it."""
    return {"side": "german", "table": table, "rg": 5, "if_result": if_result, "version": 9}


def refused(campaign, entry: dict, rule: str, words: str, revealed=()) -> None:
    with pytest.raises(LedgerError) as refusal:
        check_void(campaign.state, campaign.rules, entry, revealed)
    assert refusal.value.rule == rule and words in refusal.value.line(), refusal.value.line()


def test_2_5192_a_dr_declared_for_a_depleted_rg_is_void_where_the_strength_gave_full():
    full, rolled = strength(1, 1)
    assert rolled.code == "F"
    check_void(full.state, full.rules, sw_dr())  # decided: no error


def test_2_5192_a_dr_the_strength_called_for_is_never_void():
    depleted, rolled = strength(6, 6)
    assert rolled.code == "D"
    refused(depleted, sw_dr(), "2.5192", "made void, though its RG's strength roll gave 'D'")


def test_a_roll_declared_without_condition_is_never_void():
    full, _ = strength(1, 1)
    refused(full, sw_dr(if_result=""), "cgledger fair dice", "declared without condition, yet made void")


def test_a_void_is_decided_on_the_strength_revealed_before_it_in_the_same_reveal():
    """The strength roll was Secret: the campaign has it sealed until the reveal, whose acts are all decided on the
    campaign before it; the strength revealed earlier in the same reveal decides the void."""
    _campaign, depleted = strength(6, 6)
    sealed, _ = strength()
    refused(sealed, sw_dr(), "cgledger fair dice", "revealed with its RG's strength roll, or after it")
    refused(sealed, sw_dr(), "2.5192", "though its RG's strength roll gave 'D'", revealed=(depleted,))
    _campaign, full = strength(1, 1)
    check_void(sealed.state, sealed.rules, sw_dr(), (full,))


def test_8_619_a_declaration_that_kept_the_count_is_always_void():
    depleted, _ = strength(6, 6)
    check_void(depleted.state, depleted.rules, sw_dr(if_result="", table=""))


@pytest.mark.parametrize("system, side, count", [("kgp", "german", 4), ("kgp", "us", 1), ("rr", "german", 6),
                                                 ("rr", "canadian", 8)])
def test_8_619_each_rg_bought_in_secret_declares_as_many_follow_ups_as_any_line_of_its_chart_may(system, side, count):
    """KGP German: an I2's 8.6201 and three 8.6204 drs for a 'D' (4); RR German: an I1's 2.5191, 2.5193/company and
    four 2.5192 drs (6). Read from the charts in force, so a player's own chart file changes it for both sides."""
    rules = rulesmod.load(system)
    assert followups_kept(rules, side) == count
