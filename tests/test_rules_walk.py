"""The Refit Phase walked in its order, one decision at a time (tests/given.py): each step entered only once the one
before it holds what it needs (KGP 8.6: CPP Replenishment for each side, 8.616; the German Ammunition Shortage dr from
20 AM on, unless a shortage lasts, 8.618; the weather only with random weather, 8.617), never going back (an undo
does that), no step the system does not print."""

from __future__ import annotations

import msgspec
import pytest

from cgledger.ledger.domain.commands import RollCommand, Step
from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, StepOpened

from given import given

KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM", start_cpp={"german": 10, "us": 10})


def at(step: str, date: str = "19 PM", random_weather: bool = False):
    """Past the Initial Scenario of 19 AM, on `date`, in RePh step `step`."""
    start = msgspec.structs.replace(KGP, random_weather=random_weather)
    return given(start, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date=date),
                 StepOpened(action=2, step=step))


def rolled(campaign, table: str, side: str, *faces: int):
    (fact,) = campaign.when(RollCommand(table=table, side=side, faces=faces, source="entered")).decided()
    return campaign.and_then(fact)


def walked(campaign, target: str) -> list[str]:
    """The steps a walk to `target` opens (the one it ends on: those passed need nothing)."""
    return [f.step for f in campaign.when(Step(target=target)).decided() if isinstance(f, StepOpened)]


def test_8_616_each_side_rolls_its_cpp_replenishment_before_the_rephs_next_step():
    campaign = at("8.616")
    campaign.when(Step(target="8.619")).refused("8.616", "still needs", "8.616 --side german", "8.616 --side us")
    campaign = rolled(campaign, "8.616", "german", 3, 4)
    assert "german" not in campaign.when(Step(target="8.619")).refused("8.616", "still needs", "--side us").line()
    campaign = rolled(campaign, "8.616", "us", 2, 2)
    assert walked(campaign, "8.619") == ["8.619"]  # through 8.617 and 8.618, which need nothing on 19 PM


def test_8_618_the_ammunition_shortage_dr_is_made_from_20_am_on():
    assert walked(at("8.618", "19 PM"), "8.619") == ["8.619"]  # 19 AM-19 N: no dr
    on_20 = at("8.618", "20 AM")
    on_20.when(Step(target="8.619")).refused("8.618", "still needs", "8.618 --side german")
    assert walked(rolled(on_20, "8.618", "german", 3, 4), "8.619") == ["8.619"]


def test_8_617_the_weather_is_rolled_only_with_random_weather():
    assert walked(at("8.617"), "8.618") == ["8.618"]
    with_weather = at("8.617", random_weather=True)
    with_weather.when(Step(target="8.618")).refused("8.617", "still needs")


@pytest.mark.parametrize("target", ["8.610", "8.616"])
def test_8_6_the_reph_is_never_walked_back_an_undo_does_that(target):
    campaign = rolled(rolled(at("8.616"), "8.616", "german", 3, 4), "8.616", "us", 2, 2)
    campaign = campaign.and_then(StepOpened(action=campaign.next_action, step="8.617"))
    campaign.when(Step(target=target)).refused("8.6", "going back is an undo")


def test_8_6_a_step_the_system_does_not_print_is_named():
    at("8.616").when(Step(target="8.699")).refused("8.6", "no RePh step '8.699' in KGP")
