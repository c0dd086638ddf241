"""Initiative, one decision at a time (tests/given.py): the chits cross-indexed on the matrix (KGP 8.6232, RR 2.5222),
the Attack Chit limits of the CG (RR 2.5221: Canadian 2, German 6; none for the Initial Scenario) and the German's
Attack Chit while the U.S. has no on-map Retained units (KGP 8.6232 *)."""

from __future__ import annotations

import pytest

from cgledger.ledger.domain.commands import Initiative
from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, InitiativeChosen, StepOpened

from given import given

RR = CampaignStarted(name="RR", system="rr", cg="RR", cg_date="19 AM")
KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM")


def at_initiative(start, step: str, *chosen: dict, dates=("19 PM", "19 N", "20 AM", "20 PM")):
    """Past the Initial Scenario, the Initiative chosen on one CG Date after another (each dict: the chits), then the
    Initiative step of the next CG Date."""
    facts, action, date = [start, StepOpened(action=1, step="scenario")], 1, start.cg_date
    for chits, new in zip([*chosen, None], dates):
        action += 1
        facts += [CGDateChanged(action=action, previous=date, cg_date=new), StepOpened(action=action, step=step)]
        date = new
        if chits is not None:
            action += 1
            facts.append(InitiativeChosen(action=action, chits=chits, scenario=""))
    return given(*facts)


@pytest.mark.parametrize("german, canadian, scenario", [
    ("attack", "attack", "Dual Attack"), ("attack", "idle", "German Assault"), ("idle", "attack", "Canadian Assault"),
    ("idle", "idle", "Idle Day")])
def test_2_5222_the_matrix_gives_the_scenario(german, canadian, scenario):
    campaign = at_initiative(RR, "2.522")
    campaign.when(Initiative(chits={"german": german, "canadian": canadian})).then(
        InitiativeChosen(action=campaign.next_action, chits={"german": german, "canadian": canadian},
                         scenario=scenario))


def test_2_5221_the_canadians_have_two_attack_chits_the_initial_scenario_none():
    two = at_initiative(RR, "2.522", {"german": "idle", "canadian": "attack"}, {"german": "idle", "canadian": "attack"})
    assert two.state.chits == {"german": 0, "canadian": 2}
    two.when(Initiative(chits={"german": "idle", "canadian": "attack"})).refused(
        "2.5221", "the Canadian side has used its 2 Attack Chits of CG RR")
    assert two.when(Initiative(chits={"german": "attack", "canadian": "idle"})).decided()[0].scenario == \
        "German Assault"  # the German has 6


def test_8_6232_the_german_may_not_attack_while_the_us_has_no_on_map_retained_units():
    campaign = at_initiative(KGP, "8.623")
    campaign.when(Initiative(chits={"german": "attack", "us": "idle"}, us_has_no_units=True)).refused(
        "8.6232", "may not select the Attack Chit")
    assert campaign.when(Initiative(chits={"german": "idle", "us": "attack"}, us_has_no_units=True)).decided()[0] \
        .scenario == "U.S. Assault"


def test_8_6232_each_side_gives_attack_or_idle_and_initiative_is_chosen_once_a_cg_date():
    campaign = at_initiative(KGP, "8.623")
    campaign.when(Initiative(chits={"german": "attack"})).refused("8.6232", "give each side's chit")
    campaign.when(Initiative(chits={"german": "defend", "us": "idle"})).refused("8.6232", "attack or idle")
    chosen = campaign.when(Initiative(chits={"german": "idle", "us": "idle"})).decided()
    campaign.and_then(*chosen).when(Initiative(chits={"german": "idle", "us": "attack"})).refused(
        "8.6232", "already determined")
