"""KGP 8.6131 EXC: "The German must be informed if all Retained, on-map U.S. units on a Map Group are Eliminated or
successfully Escape/Shift to (a) Holding Box(es). In such a case the Germans immediately gain Control of all Strategic
Locations on that Map Group, and may automatically include them within their Setup Area for the next CG scenario."
Control after 8.605 Setup Area Determination, recorded by the U.S. side (its own units) with `vacated GROUP`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, Player
from test_commands import START, given
from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide import commands
from cgledger.ledger.domain.events import LocationControlled, StepOpened, TablesOverridden
from cgledger.ledger.errors import LedgerError

MAP = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"
GERMAN, US = "Peiper's own words, nobody else's 7", "Harrison's own words, nobody else's 9"


def scenario_on_st(cli: Cli) -> Cli:
    """KGP CG I's Initial Scenario on the St Map Group: the U.S. holds two Strategic Locations, the German one."""
    cli.ok("new", "CG I", "--system", "kgp", "--cg", "I")
    cli.ok("rules", "load", str(MAP))
    cli.ok("step", "scenario")
    cli.ok("control", "StJ19", "--side", "german", "--strategic", "B")
    cli.ok("control", "StQ20", "--side", "us", "--strategic", "B")
    cli.ok("control", "StK20", "--side", "us", "--strategic", "G")
    return cli


def us_left_st(cli: Cli) -> bool:
    """The U.S. Controls no Strategic Location on St (so has no Setup Area there, 8.605) and the German's Setup
    Areas hold both Locations it gained."""
    areas = cli.json("areas", "--group", "St")
    german = {h for hexes in areas["setup_areas"]["german"].values() for h in hexes}
    return areas["no_strategic_location"] == ["us"] and {"StK20", "StQ20"} <= german


def test_the_german_gains_every_strategic_location_of_a_map_group_the_us_units_left(cli):
    kgp = scenario_on_st(cli)
    kgp.refused("vacated", "St", contains="is recorded in the Refit Phase from 8.605 Setup Area Determination through "
                                          "8.613 Shift; the campaign is at")  # in play, Control is recorded as it changes
    kgp.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=4", "--winner", "us")
    kgp.ok("step", "8.606")  # 8.606: the last U.S. squad on St Escapes to a Holding Box
    kgp.refused("vacated", "Xx", contains="unknown Map Group 'Xx': choose St, Ch, Lg (8.6131)")
    assert kgp.json("vacated", "St") == [{"location": "StK20", "side": "german", "strategic": "G"},
                                         {"location": "StQ20", "side": "german", "strategic": "B"}]
    assert us_left_st(kgp)
    kgp.refused("vacated", "St", contains="no Strategic Location on the St Map Group is Controlled by any side but the "
                                          "German: nothing to gain (8.6131)")
    assert kgp.json("audit")["clean"]
    kgp.ok("undo")  # one action, taken back whole
    assert not us_left_st(kgp)


def test_only_the_us_side_says_its_last_units_left(cli):
    kgp = scenario_on_st(cli)
    kgp.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=4", "--winner", "us")
    german, us = Player(kgp.db, GERMAN), Player(kgp.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    us.refused("vacated", "St", contains="the U.S. side stands at 8.603")  # not yet where its units can leave
    german.ok("step", "8.610")  # the campaign moves on with him to 8.606, where the U.S. may still act
    german.refused("vacated", "St", contains="the U.S. side records that its own last units left the St Map Group")
    us.ok("vacated", "St")
    assert us_left_st(us)
    assert german.json("audit")["clean"]


def test_a_system_without_the_rule_refuses_it(rr):
    rr.refused("vacated", "St", contains="rules give no Control for a Map Group its units have left")


def test_given_the_us_holding_two_strategic_locations_when_it_vacates_then_the_german_gains_both():
    """The decision alone: given the facts, when `Vacate`, then the facts, or the refusal citing 8.6131."""
    mapped = TablesOverridden(action=1, source=MAP.name, text=MAP.read_text(encoding="utf-8"), tables=("map St",))
    held = (LocationControlled(action=3, location="StJ19", side="german", strategic="B"),
            LocationControlled(action=4, location="StQ20", side="us", strategic="B"),
            LocationControlled(action=5, location="StK20", side="us", strategic="G"))
    in_play = given(START, mapped, StepOpened(action=2, step="scenario"), *held)
    rules = rulesmod.load("kgp", in_play.override_sources())
    with pytest.raises(LedgerError, match=r"8\.605 Setup Area Determination through 8\.613 Shift") as refused:
        commands.decide(in_play, rules, commands.Vacate(map_group="St"))
    assert refused.value.rule == "8.6131"
    at_escape = given(START, mapped, StepOpened(action=2, step="scenario"), *held, StepOpened(action=6, step="8.606"))
    assert commands.decide(at_escape, rules, commands.Vacate(map_group="st")) == [
        LocationControlled(action=7, location="StK20", side="german", strategic="G"),
        LocationControlled(action=7, location="StQ20", side="german", strategic="B")]


def test_the_page_records_a_vacated_map_group_as_the_cli_would(cli):
    from test_web import page, post

    kgp = scenario_on_st(cli)
    kgp.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=4", "--winner", "us")
    error, _ = post(page(kgp.db), ["vacated"], arg="St")  # at 8.603: refused as the CLI refuses it
    assert error == kgp("vacated", "St").stderr.strip().removeprefix("Error: ")
    kgp.ok("step", "8.606")
    error, shown = post(page(kgp.db), ["vacated"], arg="St")
    assert error is None and "StQ20: Controlled by German" in shown and us_left_st(kgp)
