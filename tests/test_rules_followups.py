"""RR 2.519 follow-up rolls, one decision at a time (tests/given.py): the RG Strength DR (2.5191: Full on a Final
DR <= 8, -1 if Canadian) and a Depleted RG's SW dr's (2.5192: each SW on a dr <= 4; a HW RG must receive at least two,
else the round is ignored and rolled again, one dr per SW, until a round gives two)."""

from __future__ import annotations

from cgledger.ledger.domain.commands import Buy, RollCommand
from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, StepOpened

from given import given

RR = CampaignStarted(name="RR", system="rr", cg="RR", cg_date="19 AM", start_cpp={"german": 40, "canadian": 30})


def bought(rg: str, side: str):
    """RR on 19 PM: `rg` bought in the open by `side` (event 5), the campaign at 2.519."""
    campaign = given(RR, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date="19 PM"),
                     StepOpened(action=2, step="2.518"))
    (purchase,) = campaign.when(Buy(rg=rg, side=side)).decided()
    return campaign.and_then(purchase, StepOpened(action=4, step="2.519"))


def rolled(campaign, table: str, side: str, *faces: int):
    """The roll decided, and the campaign with it."""
    (fact,) = campaign.when(RollCommand(table=table, side=side, faces=faces, source="entered", rg=5)).decided()
    return fact, campaign.and_then(fact)


def test_2_5191_full_on_a_final_dr_of_8_or_less_and_the_canadian_rolls_one_lower():
    assert rolled(bought("HW1", "german"), "2.5191", "german", 4, 4)[0].code == "F"
    assert rolled(bought("HW1", "german"), "2.5191", "german", 4, 5)[0].code == "D"
    canadian, _ = rolled(bought("HW1", "canadian"), "2.5191", "canadian", 4, 5)
    assert (canadian.final, canadian.code) == (8, "F")


def test_2_5191_canadian_rg_i2_is_never_depleted_so_rolls_none():
    bought("I2", "canadian").when(RollCommand(table="2.5191", side="canadian", faces=(1, 1), source="entered",
                                              rg=5)).refused("2.5191", "not due for RG I2")


def test_2_5192_a_full_rg_receives_every_sw_a_depleted_one_rolls_a_dr_each():
    full, campaign = rolled(bought("HW1", "german"), "2.5191", "german", 1, 1)
    assert full.adds == () and campaign.state.rgs["5"]["pending"] == []
    campaign.when(RollCommand(table="2.5192", side="german", faces=(1,), source="entered", rg=5)).refused(
        "2.5192", "not due for RG HW1")
    depleted, campaign = rolled(bought("HW1", "german"), "2.5191", "german", 6, 6)
    assert depleted.adds == ("2.5192",) * 4  # one dr per SW of the HW RG's line


def test_2_5192_a_hw_rg_below_two_sw_rolls_the_round_again_until_one_gives_two():
    _, campaign = rolled(bought("HW1", "german"), "2.5191", "german", 6, 6)
    results = []
    for dr in (5, 5, 5, 4):  # one SW received: the round is ignored, a new one is due
        fact, campaign = rolled(campaign, "2.5192", "german", dr)
        results.append(fact.code)
    assert results == ["forfeit"] * 3 + ["received"] and fact.adds == ("2.5192",) * 4
    for dr in (4, 4, 6, 6):  # two received: done
        fact, campaign = rolled(campaign, "2.5192", "german", dr)
    assert fact.adds == () and campaign.state.rgs["5"]["pending"] == []
    campaign.when(RollCommand(table="2.5192", side="german", faces=(1,), source="entered", rg=5)).refused(
        "2.5192", "rolled 8 time(s) already")


def test_2_5192_an_infantry_rg_is_not_held_to_two_sw():
    _, campaign = rolled(bought("I3", "german"), "2.5191", "german", 6, 6)
    for dr in (5, 5, 5):
        fact, campaign = rolled(campaign, "2.5192", "german", dr)
    assert fact.adds == () and campaign.state.rgs["5"]["pending"] == []
