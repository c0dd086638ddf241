"""The map (8.605-8.6057): Control events, Setup Areas, No Man's Land, Isolation, LVP, on the fixture grid."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.rules.hexmap import Grid, column_index, parse_location
from cgledger.projections.areas import NML, SETUP, UNCONTROLLED, determine

FIXTURE = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"

# 8.605 "MARKING THE MAP" example, rebuilt on the fixture grid: the St. Hubert church (J19 with its
# steeple, joined to I20 at level 1), the U.S. Strategic Locations J19 (ground and steeple), J21 and the
# Gun in L21; the German J19/1, I20 (both levels) and the Immobile vehicle in H20; plus one more
# Strategic Location per side so that each has the Setup Areas the illustration shows.
EXAMPLE = [
    ("StJ19", "us", "B"), ("StJ19/2", "us", "B"), ("StJ21", "us", "F"), ("StL21", "us", "G"), ("StN19", "us", "B"),
    ("StJ19/1", "german", "B"), ("StI20", "german", "B"), ("StI20/1", "german", "B"), ("StH20", "german", "V"),
    ("StI23", "german", "B"), ("StE22", "german", "B"), ("StP15", "german", "B"),
]


@pytest.fixture
def mapped(at):
    cli = at("scenario")
    cli.ok("rules", "load", str(FIXTURE))
    for location, side, kind in EXAMPLE:
        cli.ok("control", location, "--side", side, "--strategic", kind)
    return cli


def hexes(data) -> dict[str, dict]:
    return {h["hex"]: h for h in data["hexes"]}


def test_marking_the_map_example(mapped):
    data = mapped.json("areas", "--group", "St")
    by_hex = hexes(data)
    # both sides Control a Location in J19: the hex is in each side's Setup Area A
    assert by_hex["StJ19"]["german"] == SETUP and by_hex["StJ19"]["us"] == SETUP
    assert by_hex["StJ19"]["area"] == {"german": "A", "us": "A"}
    # the U.S. unit in the steeple is Isolated (its path down runs through the German first level)
    assert "StJ19/2" in data["isolated"]["us"]
    # the German first level is not: I20's first level leads to German ground level in I20
    assert "StJ19/1" not in data["isolated"]["german"] and data["isolated"]["german"] == []
    # J21 is Isolated: surrounded by No Man's Land and German-Controlled Strategic Locations
    assert "StJ21" in data["isolated"]["us"]
    # the U.S. Gun in L21 is not
    assert "StL21" not in data["isolated"]["us"]
    # the German squads' hex K23 is No Man's Land; the German tank's L23 is in the U.S. Setup Area;
    # the U.S. squad's E18 is Uncontrolled Territory
    assert by_hex["StK23"]["german"] == NML and by_hex["StL23"]["us"] == SETUP
    assert by_hex["StE18"]["german"] == UNCONTROLLED == by_hex["StE18"]["us"]
    assert sorted(data["setup_areas"]["german"]) == ["A", "B"]


def test_without_the_h20_vehicle_the_church_is_isolated(mapped):
    mapped.ok("control", "StH20", "--side", "german", "--strategic", "none")  # no longer a Strategic Location
    data = mapped.json("areas", "--group", "St")
    assert hexes(data)["StH20"]["german"] == NML
    assert {"StI20", "StI20/1", "StJ19/1"} <= set(data["isolated"]["german"])


def test_lvp_per_map_group(mapped):
    data = mapped.json("areas", "--group", "St")
    assert data["lvp"] == {"german": 0, "us": 7} and data["lvp_total"] == 52
    mapped.ok("control", "StJ19", "--side", "german", "--strategic", "B")
    assert mapped.json("areas", "--group", "St")["lvp"] == {"german": 5, "us": 2}


def test_control_refusals(mapped):
    mapped.refused("control", "StZ19", "--side", "us", contains="not on the St Map Group")
    mapped.refused("control", "StJ19/3", "--side", "us", contains="no level 3")
    mapped.refused("control", "StK20/1", "--side", "us", contains="no level 1")
    mapped.refused("control", "StJ19", "--side", "us", "--strategic", "Q", contains="unknown Strategic Location kind")
    mapped.refused("control", "XxJ19", "--side", "us", contains="unknown Map Group 'Xx'")
    mapped.refused("control", "LgN25", "--side", "us", contains="Lg Map Group's grid is not in the rules seeds")
    mapped.refused("control", "StJ", "--side", "us", contains="malformed Location")
    mapped.ok("step", "8.603")
    mapped.ok("scenario-end", "--lvp", "german=0", "--lvp", "us=7", "--winner", "us")
    mapped.ok("step", "8.606")
    mapped.refused("control", "StJ19", "--side", "german", contains="up to Setup Area Determination")


def test_setup_area_ids_stay_between_cg_dates(mapped):
    before = mapped.json("areas", "--group", "St")["setup_areas"]
    mapped.to("scenario", "19 PM")
    mapped.ok("control", "StC27", "--side", "us", "--strategic", "E")  # a new, separate U.S. area
    after = mapped.json("areas", "--group", "St")["setup_areas"]
    assert after["us"]["A"] == before["us"]["A"] and after["us"]["C"] == before["us"]["C"]
    assert "StC27" in after["us"]["D"]
    # as of the end of 19 PM's RePh (its scenario about to begin): the 19 AM scenario's Control, not the new one
    assert mapped.json("areas", "--group", "St", "--as-of", "19 PM")["setup_areas"] == before


# ---- properties over random control patterns (hypothesis) ---------------------------------------
RULES = rulesmod.load("kgp", (("fixture", FIXTURE.read_text()),))
GEOMETRY = RULES.map_of("St")
GRID = RULES.grid(GEOMETRY)
HEXES = [str(h) for h in GRID.hexes]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(HEXES), st.tuples(st.sampled_from(["german", "us"]),
                                                           st.sampled_from(["", "B", "E", "F", "G", "V"])),
                       max_size=40))
def test_properties_of_any_control_pattern(pattern):
    control = {parse_location(h): value for h, value in pattern.items()}
    result = determine(RULES, GEOMETRY, control, {})
    strategic_hexes = {loc.hex for loc, (_s, kind) in control.items() if kind}
    for h, classes in result["cls"].items():
        assert set(classes) == {"german", "us"}  # exactly one classification per side
        nml = [s for s, c in classes.items() if c == NML]
        assert nml in ([], ["german", "us"])  # NML for one side is NML for both
        if nml:
            assert h not in strategic_hexes  # a Strategic Location is never No Man's Land
            assert all(h not in hx for s in result["areas"] for hx in result["areas"][s].values())
    for side, named in result["areas"].items():
        seen = set()
        for area in named.values():
            assert not (area & seen)  # Setup Areas of a side never overlap
            seen |= area
        assert seen == {h for h, c in result["cls"].items() if c[side] == SETUP}
    for loc, (side, kind) in control.items():
        if kind:
            assert result["cls"][loc.hex][side] == SETUP  # a side's Strategic Location is in its Setup Area


def test_grid_geometry():
    grid = Grid("St", (0, 30), (0, 30), "odd")
    for h in grid.hexes[::37]:
        assert set(grid.neighbours(h)) == {o for o in grid.hexes if grid.distance(h, o) == 1}
    assert column_index("GG") == 32 and column_index("TT") == 45
    assert str(parse_location("StGG1")) == "StGG1" and parse_location("StJ19/2").level == 2


def test_scenario_end_reads_the_lvp_off_the_map(mapped):
    mapped.ok("step", "8.603")
    ended = mapped.json("scenario-end", "--winner", "us")
    assert ended["lvp"] == {"german": 0, "us": 7}
    assert mapped.json("roster", "--side", "us")[-1]["lvp"] == 7


def test_scenario_end_needs_lvp_without_a_map(at):
    cli = at("8.603")
    cli.refused("scenario-end", "--winner", "us", contains="no map is loaded")


def test_the_report_shows_one_map_per_group_per_cg_date(played, tmp_path):
    from conftest import Cli

    cli = Cli(played())
    maps = cli.json("history")["maps"]
    assert [(m["group"], m["date"]) for m in maps] == [("St", d) for d in ("19 AM", "19 PM", "19 N", "20 AM", "20 PM", "20 N")]
    # the Initial Scenario's Control shows from 19 PM on (the end of 19 PM's RePh); the German
    # Assault of 19 PM takes J21, which shows from 19 N on
    assert maps[0]["areas"]["setup_areas"] == {"german": {}, "us": {}}
    assert "StJ21" in maps[1]["areas"]["isolated"]["us"]
    assert "StJ21" not in maps[2]["areas"]["isolated"]["us"]
    page = tmp_path / "r.html"
    cli.ok("report", "--html", str(page))
    assert [m["set_up"] for m in maps] == [False, True, False, True, True, False]  # 19 AM: the card's; Idle Days
    assert page.read_text().count('<div class="map">') == 3  # the report draws the maps scenarios were set up on


def test_a_map_file_whose_lvp_exceeds_the_group_total_is_refused(at, tmp_path):
    cli = at("scenario")
    bad = tmp_path / "bad.toml"
    bad.write_text(FIXTURE.read_text().replace("lvp = 5,", "lvp = 51,"))
    cli.refused("rules", "load", str(bad), contains="add up to 53, more than the Map Group's 52")


def test_lvp_read_off_the_map_are_decided_again_by_the_audit(mapped, make_db, tmp_path):
    """reading the Current-LVP off the map is a decision, not the service's: a scenario end that says
    it read the map but records other LVP is named by the audit and refused by import."""
    from conftest import Cli, named_and_refused
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide import steps

    mapped.ok("step", "8.603")
    ledger = open_ledger(str(mapped.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    honest = steps.scenario_end(campaign, rules, {}, "us", True, ledger.history(campaign.name))
    assert dict(honest.lvp) == {"german": 0, "us": 7}
    campaign.record(msgspec.structs.replace(honest, lvp={"german": 0, "us": 9}), "", None)  # 9: two more than the map
    ledger.store.save(campaign)
    named_and_refused(mapped, Cli(make_db()), tmp_path, "decision", "are not the map's")


def test_an_idle_day_counts_the_current_lvp_the_map_gives_after_a_control_change(mapped):
    """8.6232 note 2: on an Idle Day 'each side calculates its Current-LVP and CG-LVP Totals and records them'. Control
    may change after the CG-Scenario End (8.605), so where the scenario's Current-LVP was read off the map, the Idle
    Day's is read off it too: the German's StL21 (2 LVP) taken in 8.605 counts for him, not for the U.S."""
    mapped.ok("step", "8.603")
    assert mapped.json("scenario-end", "--winner", "us")["lvp"] == {"german": 0, "us": 7}
    mapped.ok("step", "8.605")
    mapped.ok("control", "StL21", "--side", "german")
    mapped.to("8.623")
    mapped.ok("initiative", "--german", "idle", "--us", "idle")
    german, us = (mapped.json("roster", "--side", side)[-1] for side in ("german", "us"))
    assert german["scenario"] == "Idle Day" and (german["lvp"], german["cg_lvp"]) == (2, 2)
    assert (us["lvp"], us["cg_lvp"]) == (5, 12)
    final = mapped.json("final")
    assert {s: v["cg_lvp"] for s, v in final["sides"].items()} == {"german": 2, "us": 12}


def test_an_idle_day_without_the_map_keeps_the_last_recorded_current_lvp(at):
    """Where the players typed the Current-LVP (no map), the Idle Day repeats it: the ledger has nothing else."""
    cli = at("8.603")
    cli.ok("scenario-end", "--lvp", "german=4", "--lvp", "us=3", "--winner", "german")
    cli.to("8.623")
    cli.ok("initiative", "--german", "idle", "--us", "idle")
    row = cli.json("roster", "--side", "german")[-1]
    assert (row["scenario"], row["lvp"], row["cg_lvp"]) == ("Idle Day", 4, 8)


def _assault_after_a_control_change(mapped):
    """The Initial Scenario read off the map (U.S. 7: StJ19 and StL21), the German taking StL21 in 8.605, then a
    German Assault whose scenario ends with Control as it started: German 2, U.S. 5."""
    mapped.ok("step", "8.603")
    mapped.ok("scenario-end", "--winner", "us")
    mapped.ok("step", "8.605")
    mapped.ok("control", "StL21", "--side", "german")
    mapped.to("8.623")
    mapped.ok("initiative", "--german", "attack", "--us", "idle")
    mapped.to("scenario")
    mapped.ok("step", "8.603")


def test_an_assault_is_judged_against_control_at_its_own_start(mapped):
    """8.6234b: 'The Assaulting side wins if at CG-Scenario End its Current-LVP Total is >= 20% (FRU, with a minimum
    increase of 1 LVP) more than it was at scenario start'. The German held 2 LVP when this scenario started (taken in
    8.605), not the 0 of the last CG-Scenario End: ending at 2 he has not won."""
    _assault_after_a_control_change(mapped)
    ended = mapped.json("scenario-end")
    assert ended["lvp"] == {"german": 2, "us": 5} and ended["winner"] == "us"


def test_an_assault_the_lvp_test_does_not_give_may_be_declared_won_by_the_players(mapped):
    """8.6234b is cut in the OCR after 'and/': where the LVP test fails, the other way for the assaulter to win is not
    printed, so a winner the players name is recorded as declared; the defender cannot be named where the test is met."""
    _assault_after_a_control_change(mapped)
    ended = mapped.json("scenario-end", "--winner", "german")
    assert ended["winner"] == "german" and ended["declared"] is True
    assert mapped.ok("audit").exit_code == 0


LG = Path(__file__).parent / "data" / "kgp-lg-test-map.toml"


def test_a_new_german_hq_only_once_the_last_is_lost_and_in_a_building(at):
    """8.6052 EXC: 'On the "Lg" (only) Map Group, the German path must instead be traced to Location LgN25 ("Peiper's
    HQ"). Should that (or any such subsequently designated "HQ") Location become U.S.-Controlled, the German must ...
    record some other secret "HQ" Location (using any ground-level building level of his choice) on that Map Group.'"""
    cli = at("scenario")
    cli.ok("rules", "load", str(LG))
    before = cli.events()
    cli.refused("hq", "LgM24", "--side", "german", contains="LgN25 is not Controlled by the other side")
    cli.ok("control", "LgN25", "--side", "german")
    cli.refused("hq", "LgM24", "--side", "german", contains="LgN25 is not Controlled by the other side")
    cli.ok("control", "LgN25", "--side", "us")
    after = cli.events()
    cli.refused("hq", "LgM23", "--side", "german", contains="LgM23 is no building on the loaded Lg map")
    cli.refused("hq", "LgM24", "--side", "us", contains="the U.S. side has no HQ on the Lg Map Group")
    cli.refused("hq", "LgN25", "--side", "german", contains="the HQ the other side Controls")
    assert cli.events() == after and after == before + 2  # refusals write nothing
    cli.ok("hq", "LgM24", "--side", "german")
    cli.refused("hq", "LgL27", "--side", "german", contains="LgM24 is not Controlled by the other side")
    cli.ok("control", "LgM24", "--side", "us")
    cli.ok("hq", "LgL27", "--side", "german")
    assert cli.ok("audit").exit_code == 0


# ---- the same Control recorded again (8.605, A26.11): no side gained it ----------------------------------------------
def _in_play(edition: int = 2, *more):
    from cgledger.ledger.domain.events import CampaignStarted, StepOpened, TablesOverridden

    from given import given

    start = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM", edition=edition)
    mapped = TablesOverridden(action=1, source=FIXTURE.name, text=FIXTURE.read_text(encoding="utf-8"),
                              tables=("map St",))
    return given(start, mapped, StepOpened(action=2, step="scenario"), *more)


def test_given_a_control_recorded_when_the_same_side_is_recorded_again_then_it_is_refused():
    from cgledger.ledger.domain.commands import Control
    from cgledger.ledger.domain.events import ActionUndone, LocationControlled

    held = LocationControlled(action=3, location="StJ19", side="us", strategic="B")
    campaign = _in_play(2, held)
    campaign.when(Control(location="StJ19", side="us")).refused("8.605", "StJ19 is Controlled by the U.S. side already")
    campaign.when(Control(location="StJ19", side="us", strategic="b")).refused("8.605", "already")
    # what changes is recorded: the other side gaining it, a Strategic kind given or cleared, another Location or level
    campaign.when(Control(location="StJ19", side="german")).then(
        LocationControlled(action=4, location="StJ19", side="german", strategic="B"))
    campaign.when(Control(location="StJ19", side="us", strategic="F")).then(
        LocationControlled(action=4, location="StJ19", side="us", strategic="F"))
    campaign.when(Control(location="StJ19", side="us", strategic="none")).then(
        LocationControlled(action=4, location="StJ19", side="us", strategic=""))
    campaign.when(Control(location="StJ19/1", side="us")).then(
        LocationControlled(action=4, location="StJ19/1", side="us", strategic=""))
    # taken back, the Control is unknown again: recorded anew
    undone = campaign.and_then(ActionUndone(action=4, undone=3))
    undone.when(Control(location="StJ19", side="us")).then(
        LocationControlled(action=5, location="StJ19", side="us", strategic=""))
    # a change and back: each recorded once
    back = campaign.and_then(LocationControlled(action=4, location="StJ19", side="german", strategic="B"))
    back.when(Control(location="StJ19", side="german")).refused("8.605", "German side already")
    back.when(Control(location="StJ19", side="us")).then(
        LocationControlled(action=5, location="StJ19", side="us", strategic="B"))


def test_a_campaign_started_before_that_reading_still_takes_the_same_control_again():
    """Its log was written by a ledger that took it: the audit and `import` decide it as that ledger did."""
    from cgledger.ledger.domain.commands import Control
    from cgledger.ledger.domain.events import LocationControlled

    held = LocationControlled(action=3, location="StJ19", side="us", strategic="B")
    _in_play(1, held).when(Control(location="StJ19", side="us")).then(
        LocationControlled(action=4, location="StJ19", side="us", strategic="B"))


def test_the_same_control_again_is_one_line_and_writes_nothing(mapped):
    before = mapped.events()
    mapped.refused("control", "StJ19", "--side", "us", contains="StJ19 is Controlled by the U.S. side already")
    mapped.refused("control", "StJ19", "--side", "us", "--strategic", "B", contains="(8.605)")
    assert mapped.events() == before
    mapped.ok("control", "StJ19", "--side", "german")
    mapped.ok("control", "StJ19", "--side", "us")
    assert mapped.json("audit")["clean"]
