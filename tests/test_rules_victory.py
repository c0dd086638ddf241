"""KGP 8.6234 CG-scenario Victory Conditions, one decision at a time (tests/given.py): a Dual Attack is the
Americans' if their Current-LVP rose (a); an Assault is the assaulter's if its Current-LVP rose by >= 20% FRU, at
least 1 (b, with its EX: from 26 it needs 32). A winner the rules decide cannot be named otherwise."""

from __future__ import annotations

import pytest

from cgledger.ledger.domain.commands import EndScenario
from cgledger.ledger.domain.events import (
    CampaignStarted, CGDateChanged, InitiativeChosen, ScenarioEnded, StepOpened,
)

from given import given

KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM")


def ended(scenario: str, start: dict[str, int]):
    """The CG scenario of 19 PM (`scenario`, by the 8.6232 matrix) played, at 8.603; the Current-LVP at its start:
    `start`, as the Initial Scenario's end recorded them."""
    return given(KGP, StepOpened(action=1, step="scenario"), StepOpened(action=2, step="8.603"),
                 ScenarioEnded(action=3, scenario="Initial Scenario", lvp=start, winner="german", declared=True),
                 CGDateChanged(action=4, previous="19 AM", cg_date="19 PM"), StepOpened(action=4, step="8.623"),
                 InitiativeChosen(action=5, chits={}, scenario=scenario), StepOpened(action=6, step="scenario"),
                 StepOpened(action=7, step="8.603"))


@pytest.mark.parametrize("german_end, winner", [(31, "us"), (32, "german"), (40, "german")])
def test_8_6234b_an_assault_is_won_by_20_percent_more_lvp_rounded_up(german_end, winner):
    """The EX: 'If the Assaulter's Current-LVP Total is (e.g.) "26" at scenario start ... it must equal >= "32"'."""
    campaign = ended("German Assault", {"german": 26, "us": 20})
    (fact,) = campaign.when(EndScenario(lvp={"german": german_end, "us": 46 - german_end})).decided()
    assert (fact.scenario, fact.winner, fact.declared) == ("German Assault", winner, False)


def test_8_6234b_an_assaulter_with_no_lvp_at_the_start_needs_one():
    campaign = ended("U.S. Assault", {"german": 20, "us": 0})
    assert campaign.when(EndScenario(lvp={"german": 20, "us": 0})).decided()[0].winner == "german"
    assert campaign.when(EndScenario(lvp={"german": 19, "us": 1})).decided()[0].winner == "us"


def test_8_6234a_a_dual_attack_is_the_americans_if_their_lvp_rose():
    campaign = ended("Dual Attack", {"german": 30, "us": 10})
    assert campaign.when(EndScenario(lvp={"german": 29, "us": 11})).decided()[0].winner == "us"
    assert campaign.when(EndScenario(lvp={"german": 30, "us": 10})).decided()[0].winner == "german"
    campaign.when(EndScenario(lvp={"german": 29, "us": 11}, winner="german")).refused(
        "8.6234", "the rules decide it, not --winner")


def test_8_603_the_current_lvp_stay_within_the_lvp_of_the_map_groups():
    campaign = ended("Dual Attack", {"german": 30, "us": 10})
    campaign.when(EndScenario(lvp={"german": 90, "us": 10})).refused("8.6033", "exceed the 99 LVP of all Map Groups")
    campaign.when(EndScenario(lvp={"german": 30})).refused("8.6032", "give every side's Current-LVP")
