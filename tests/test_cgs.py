"""CGS: percentile rolls recorded and audited like any roll, and Campaign Firefights that change the map."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli
from ledger.application import open_ledger
from ledger.events import DiceRolled

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def cgs(make_db):
    cli = Cli(make_db())
    cli.ok("script", str(FIXTURES / "cgs-sample.cgl"))
    return cli


def cells(cli, *as_of):
    data = cli.json("terrain", "--map", "DTW", *(("--as-of", as_of[0]) if as_of else ()))
    return {c["hex"]: c for c in data["hexes"]}


def test_percentile_rolls_are_recorded_and_audited(cgs):
    rolls = [r for r in cgs.json("log") if r["type"] == "DiceRolled"]
    zeros = [r for r in rolls if r["die"] == "d100" and r["dice"] == [0, 0]]
    assert [(r["table"], r["original"], r["code"]) for r in zeros] == [("7.3.2", 100, "rubble_both"),
                                                                     ("7.4.7", 100, "mines_removed")]
    assert [r["original"] for r in rolls if r["die"] == "d10"] == [7, 10]  # a d10's "0" reads 10
    assert cgs.json("audit")["clean"]


def test_a_wrong_percentile_result_fails_audit(cgs):
    ledger = open_ledger(str(cgs.db))
    campaign = ledger.campaign(None)
    campaign.record(DiceRolled(action=campaign.begin_action(), table="7.4.7", rule="7.4.7", side="german", die="d100",
                               dice=(0, 0), source="entered", original=100, final=100, code="fft",
                               result="Resolve on the FFT (12 column vs infantry, 45+ vs vehicles; not printed)"))
    ledger.save(campaign)
    kinds = [f["kind"] for f in json.loads(cgs("audit", "--json").stdout)["findings"]]
    assert kinds == ["result"]


def test_firefight_end_changes_the_map(cgs):
    now = cells(cgs)
    assert now["DTW-U14"]["rubble"] and now["DTW-U14"]["levels"] == 0  # 6.7.2: Fire -> Rubble, levels gone
    assert now["DTW-Q5"]["rubble"] and now["DTW-Q5"]["interior_walls"]  # ... Factory interior walls remain
    assert len(now["DTW-U14"]["changes"]) == 1  # the second Fire in what is now rubble adds nothing
    assert now["DTW-V14"]["wrecks"] == 2 and now["DTW-V15"]["wrecks"] == 1  # 6.8.2.1: Burning Wrecks -> Wrecks
    assert now["DTW-P5"]["rubble"] and now["DTW-P6"]["levels"] == 2
    assert now["DTW-D8"]["rubble"] and not now["DTW-D8"]["changes"]  # rubble printed on the map (6.7 note)


def test_as_of_an_earlier_firefight_shows_the_old_terrain(cgs):
    # --as-of Firefight 1: the map the first firefight left, before the second one burnt P5
    first = cells(cgs, "Firefight 1")
    assert first["DTW-U14"]["rubble"] and first["DTW-V14"]["wrecks"] == 1
    assert not first["DTW-P5"]["rubble"] and first["DTW-P5"]["levels"] == 2 and first["DTW-V15"]["wrecks"] == 0
    assert cells(cgs)["DTW-P5"]["rubble"]
    cgs.refused("terrain", "--map", "DTW", "--as-of", "Firefight 3", contains="has not ended")


def test_sewer_units_stay_unless_redeployed(cgs):
    ended = [r for r in cgs.json("log") if r["type"] == "FirefightEnded"][0]
    assert ended["in_sewer"] == ["4-4-7 in DTW-N32", "leader 8-1 in DTW-N32"]
    assert ended["redeployed"] == ["leader 8-1 in DTW-N32"]


def test_firefight_end_refusals(cgs, at):
    cgs.refused("firefight-end", "--map", "DTW", "--fire", "DTW-Z99", contains="not on the DTW map")
    cgs.refused("firefight-end", "--map", "GE", contains="GE Map Group's grid is not in the rules seeds")
    cgs.refused("firefight-end", "--map", "DTW", "--redeployed", "x", contains="Re-Deployed but was not In Sewer")
    cgs.refused("step", "next", contains="no Refit Phase steps")
    at("scenario").refused("firefight-end", "--map", "St", contains="end in its Refit Phase")


def test_terrain_picture(cgs, tmp_path):
    picture = tmp_path / "dtw.svg"
    cgs.ok("terrain", "--map", "DTW", "--svg", str(picture))
    svg = picture.read_text()
    assert 'id="terrain"' in svg and svg.count('class="hex"') == 24 * 40
    assert svg.count('stroke="#c0282d"') >= 5 and svg.count('class="wreck"') == 2


@pytest.mark.parametrize("buy, item, where, extra, contains", [
    (("F2", "russian"), "dug_in", "DTW-J3", (), "no Dug-In in paved road (DTW-J3) (7.1.1)"),
    (("F2", "russian"), "dug_in", "DTW-G26", (), "no Dug-In in machine parts (DTW-G26) (6.13.1)"),
    (("F1", "russian"), "roadblock", "DTW-A1", (), "goes only in a road or paved road hex"),
    (("F1", "german"), "mines", "DTW-J3", ("--hidden",), "no hidden Mines in paved road (DTW-J3) (7.4.4)"),
    (("F2", "german"), "wire", "DTW-P6", (), "no Wire in building (DTW-P6) (7.6.1)"),
])
def test_placement_rules_are_data_and_cite_the_rule(cgs, buy, item, where, extra, contains):
    rg, side = buy
    cgs.ok("buy", rg, "--side", side)
    cgs.refused("place", item, where, "--side", side, *extra, contains=contains)


def test_placing_needs_a_bought_fortification(cgs):
    cgs.refused("place", "wire", "DTW-P7", "--side", "german", contains="no Wire bought and not yet placed")
    cgs.ok("buy", "F2", "--side", "german")
    cgs.ok("place", "wire", "DTW-P7", "--side", "german")
    assert cells(cgs)["DTW-P7"]["fortifications"] == [{"item": "wire", "side": "german", "hidden": False}]
    assert cells(cgs)["DTW-G26"]["fortifications"] == [{"item": "mines", "side": "german", "hidden": True}]
    cgs.refused("place", "wire", "DTW-P8", "--side", "german", contains="no Wire bought and not yet placed")
