"""CGS: percentile rolls recorded and audited like any roll, Campaign Firefights that change the map, fortifications
placed, hidden (7.4.4), revealed and removed by the rules that remove them, Mouseholes and their "00" rubble (7.3),
units In Sewer (6.16.3), CPP from the players' chart, and refusals that cite the CGS text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from conftest import Cli, Player
from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.commands import HidePlacement
from cgledger.ledger.domain.events import DiceRolled, FortificationPlaced, FortificationRemoved, HiddenFortificationPlaced

FIXTURES = Path(__file__).parent.parent / "fixtures"
GERMAN, RUSSIAN = "Paulus keeps the factory", "Chuikov holds the river"


@pytest.fixture
def cgs(played):
    """The shipped sample: two firefights on the DTW fixture map."""
    return Cli(played("cgs-sample.cgl"))


@pytest.fixture
def fresh(make_db):
    """A new CGS campaign with the DTW fixture map and the example RG chart, before its first firefight."""
    cli = Cli(make_db())
    cli.ok("new", "CGS test", "--system", "cgs", "--cg", "CGS", "--start-cpp", "russian=20")
    cli.ok("rules", "load", str(FIXTURES / "cgs-dtw-fixture-map.toml"))
    cli.ok("rules", "load", str(FIXTURES / "cgs-rg-chart-example.toml"))
    return cli


@pytest.fixture
def keyed(fresh):
    """`fresh` where both sides have set up their keys: (german, russian, anyone without a passphrase)."""
    german, russian, anyone = Player(fresh.db, GERMAN), Player(fresh.db, RUSSIAN), Player(fresh.db, None)
    german.ok("keys", "init", "--side", "german")
    russian.ok("keys", "init", "--side", "russian")
    return german, russian, anyone


def cells(cli, *args):
    data = cli.json("terrain", "--map", "DTW", *args)
    return {c["hex"]: c for c in data["hexes"]}


def items(cell) -> list[tuple[str, str]]:
    return [(f["side"], f["item"]) for f in cell["fortifications"]]


def findings(cli) -> list[dict]:
    result = cli("audit", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report["findings"]


def record(db, *facts, sign: tuple[str, str] | None = None, request=None) -> None:
    """Given facts the ledger would never have written (a forger's, or a bug's), straight into the store; signed with
    a side's passphrase when `sign` = (side, passphrase)."""
    from cgledger.ledger.player.keyring import Keyring
    from cgledger.ledger.rules import load

    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    action = campaign.begin_action()
    signer = None
    if sign:
        signer = Keyring(sign[1].encode()).signer(campaign, load(campaign.system, campaign.override_sources()), sign[0])
    for index, fact in enumerate(facts):
        campaign.record(msgspec.structs.replace(fact, action=action), sign[0] if sign else "", signer, "",
                        request if index == 0 else None)
    ledger.store.save(campaign)


# ---- rolls and firefight ends ------------------------------------------------------------------------------------
def test_percentile_rolls_are_recorded_and_audited(cgs):
    rolls = [r for r in cgs.json("log") if r["type"] == "DiceRolled"]
    zeros = [r for r in rolls if r["die"] == "d100" and r["dice"] == [0, 0]]
    assert [(r["table"], r["original"], r["code"]) for r in zeros] == [("7.3.2", 100, "rubble_both"),
                                                                     ("7.4.7", 100, "mines_removed")]
    assert [r["original"] for r in rolls if r["die"] == "d10"] == [7, 10]  # a d10's "0" reads 10
    assert cgs.json("audit")["clean"]


def test_a_wrong_percentile_result_fails_audit(cgs):
    record(cgs.db, DiceRolled(action=0, table="7.4.7", rule="7.4.7", side="german", die="d100", dice=(0, 0),
                              source="entered", original=100, final=100, code="fft",
                              result="Resolve on the FFT (12 column vs infantry, 45+ vs vehicles; not printed)"))
    assert [f["kind"] for f in findings(cgs)] == ["result"]


def test_firefight_end_changes_the_map(cgs):
    now = cells(cgs)
    assert now["DTW-U14"]["rubble"] and now["DTW-U14"]["levels"] == 0  # 6.7.2: Fire -> Rubble, levels gone
    assert now["DTW-Q5"]["rubble"] and now["DTW-Q5"]["interior_walls"]  # ... Factory interior walls remain
    assert len(now["DTW-U14"]["changes"]) == 1  # the second Fire in what is now rubble adds nothing
    assert now["DTW-V14"]["wrecks"] == 2 and now["DTW-V15"]["wrecks"] == 1  # 6.8.2.1: Burning Wrecks -> Wrecks
    assert len(now["DTW-P5"]["changes"]) == 1  # the "00" rubbled it in Firefight 1; Fire there in Firefight 2: none
    assert now["DTW-D8"]["rubble"] and not now["DTW-D8"]["changes"]  # rubble printed on the map (6.7 note)


def test_as_of_an_earlier_firefight_shows_the_old_terrain(cgs):
    # --as-of Firefight 1: the map the first firefight left, before the second one
    first = cells(cgs, "--as-of", "Firefight 1")
    assert first["DTW-U14"]["rubble"] and first["DTW-V14"]["wrecks"] == 1 and first["DTW-V15"]["wrecks"] == 0
    assert items(first["DTW-M23"]) == [("russian", "mines")] and items(first["DTW-J4"]) == [("russian", "roadblock")]
    assert items(cells(cgs)["DTW-M23"]) == [] and items(cells(cgs)["DTW-J4"]) == []
    cgs.refused("terrain", "--map", "DTW", "--as-of", "Firefight 3", contains="has not ended")


def test_sewer_units_are_projected_per_firefight(cgs):
    sewer = cgs.json("terrain", "--map", "DTW")["sewer"]
    assert list(sewer) == ["Firefight 1", "Firefight 2"]
    first = {u["unit"]: u for u in sewer["Firefight 1"]}
    # 6.16.3: In Sewer at the end, in the sector it ended in, unless it Re-Deployed (to a sewer within three hexes)
    assert first["4-4-7"] == {"unit": "4-4-7", "hex": "DTW-N32", "sector": "north (fixture)", "redeployed": False,
                              "to": None, "now": "DTW-N32", "sector_now": "north (fixture)"}
    assert first["leader 8-1"]["redeployed"] and first["leader 8-1"]["now"] == "DTW-O34"
    assert first["leader 8-1"]["sector_now"] == "south (fixture)"
    assert "In Sewer after Firefight 2: 4-4-7 stays in DTW-N32, sector north (fixture)" in cgs.ok(
        "terrain", "--map", "DTW").stdout


def test_firefight_end_refusals(cgs, at):
    cgs.refused("firefight-end", "--map", "DTW", "--fire", "DTW-Z99", contains="not on the DTW map (6.7.2)")
    cgs.refused("firefight-end", "--map", "DTW", "--burning-wreck", "DTW-A99", contains="(6.8.2.1)")
    cgs.refused("firefight-end", "--map", "GE", contains="GE Map Group's grid is not in the rules seeds")
    cgs.refused("firefight-end", "--map", "DTW", "--redeployed", "x", contains="Re-Deployed but was not In Sewer")
    cgs.refused("firefight-end", "--map", "DTW", "--sewer", "4-4-7", contains="name the hex '4-4-7' is In Sewer in")
    cgs.refused("firefight-end", "--map", "DTW", "--sewer", "4-4-7 in DTW-A1", contains="has no sewer")
    cgs.refused("firefight-end", "--map", "DTW", "--sewer", "4-4-7 in DTW-N32", "--redeployed", "4-4-7 to DTW-P35",
                contains="within three hexes; DTW-P35 is 4 hexes from DTW-N32 (6.16.3)")
    cgs.refused("step", "next", contains="no Refit Phase steps")
    at("scenario").refused("firefight-end", "--map", "St", contains="end in its Refit Phase")


def test_the_cpp_chart_gives_cpp_as_each_firefight_starts(cgs, fresh):
    # the example chart: Firefight 2 German 4 / Russian 6, Firefight 3 German 3 / Russian 5 (made-up numbers)
    gained = [(r["side"], r["cpp"], r["cg_date"]) for r in cgs.json("log") if r["type"] == "CPPGained"]
    assert gained == [("german", 4, "Firefight 2"), ("russian", 6, "Firefight 2"), ("german", 3, "Firefight 3"),
                      ("russian", 5, "Firefight 3")]
    assert cgs.json("status")["cpp"] == {"german": 7, "russian": 8 - 2 + 6 + 5}  # the Russian F3 mines cost 2
    assert [r["repl"] for r in cgs.json("roster", "--side", "russian")] == [None, 6, 5]
    fresh.ok("firefight-end", "--map", "DTW")
    assert fresh.json("status")["cpp"] == {"german": 4, "russian": 26}


def test_without_a_cpp_chart_no_cpp_are_gained(make_db):
    cli = Cli(make_db())
    cli.ok("new", "bare", "--system", "cgs", "--cg", "CGS")
    cli.ok("rules", "load", str(FIXTURES / "cgs-dtw-fixture-map.toml"))
    assert "gains" not in cli.ok("firefight-end", "--map", "DTW").stdout
    assert [r for r in cli.json("log") if r["type"] == "CPPGained"] == []


def test_cpp_recorded_without_a_firefight_end_fails_audit(cgs):
    from cgledger.ledger.domain.events import CPPGained

    record(cgs.db, CPPGained(action=0, side="german", cpp=50, cg_date="Firefight 3", chart="CPP"))
    assert [(f["kind"], "recorded only with what decides it" in f["message"]) for f in findings(cgs)] == [
        ("decision", True)]


# ---- fortifications: placed, removed ----------------------------------------------------------------------------
@pytest.mark.parametrize("buy, item, where, extra, contains", [
    (("F2", "russian"), "dug_in", "DTW-J3", (), "no Dug-In in paved road (DTW-J3) (7.1.1)"),
    (("F2", "russian"), "dug_in", "DTW-G26", (), "no Dug-In in machine parts (DTW-G26) (6.13.1)"),
    (("F1", "russian"), "roadblock", "DTW-A1", (), "goes only in a road or paved road hex"),
    (("F1", "german"), "mines", "DTW-J3", ("--hidden",), "no hidden Mines in paved road (DTW-J3) (7.4.4)"),
    (("F2", "german"), "wire", "DTW-Q6", (), "no Wire in factory (DTW-Q6) (7.6.1)"),
    (("F2", "german"), "wire", "DTW-A1", ("--hidden",), "a Wire is not set up hidden (only Mines may be) (7.4.4)"),
])
def test_placement_rules_are_data_and_cite_the_rule(cgs, buy, item, where, extra, contains):
    rg, side = buy
    cgs.ok("buy", rg, "--side", side)
    cgs.refused("place", item, where, "--side", side, *extra, contains=contains)


def test_placing_needs_a_bought_fortification(cgs):
    cgs.refused("place", "wire", "DTW-P7", "--side", "german", contains="no Wire bought and not yet placed")
    cgs.ok("buy", "F2", "--side", "german")
    cgs.ok("place", "wire", "DTW-P7", "--side", "german")
    assert items(cells(cgs)["DTW-P7"]) == [("german", "wire")]
    cgs.refused("place", "wire", "DTW-P8", "--side", "german", contains="no Wire bought and not yet placed")


def test_wire_goes_in_rubble_printed_or_made_by_fire(fresh):
    """7.6.1 'any non-building hex': Rubble is no building, whether printed (6.7 note) or made by Fire (6.7.2)."""
    for _ in range(3):
        fresh.ok("buy", "F2", "--side", "german")
    fresh.refused("place", "wire", "DTW-U14", "--side", "german", contains="no Wire in building (DTW-U14) (7.6.1)")
    fresh.ok("place", "wire", "DTW-D8", "--side", "german")  # printed rubble
    fresh.ok("firefight-end", "--map", "DTW", "--fire", "DTW-U14")
    fresh.ok("place", "wire", "DTW-U14", "--side", "german")  # rubble a Fire made
    assert items(cells(fresh)["DTW-U14"]) == items(cells(fresh)["DTW-D8"]) == [("german", "wire")]
    assert fresh.json("audit")["clean"]


@pytest.fixture
def fortified(fresh, tmp_path):
    """German mines in N22, wire in H20 and a trench in K12; Russian roadblock in J4, Dug-In in K10, mines in M23."""
    for rg, side in (("F1", "german"), ("F2", "german"), ("F1", "russian"), ("F2", "russian"), ("F3", "russian")):
        fresh.ok("buy", rg, "--side", side)
    chart = tmp_path / "trench-chart.toml"
    chart.write_text('[[rg]]\nside = "german"\nid = "T1"\ngroup_type = "Trench"\ncost = 0\ndate_max = 1\n'
                     'cg_max = { CGS = 1 }\nfortification = "trench"\n')
    fresh.ok("rules", "load", str(chart))
    fresh.ok("buy", "T1", "--side", "german")
    for item, where, side in (("mines", "DTW-N22", "german"), ("wire", "DTW-H20", "german"),
                              ("roadblock", "DTW-J4", "russian"), ("dug_in", "DTW-K10", "russian"),
                              ("mines", "DTW-M23", "russian"), ("trench", "DTW-K12", "german")):
        fresh.ok("place", item, where, "--side", side)
    return fresh


@pytest.mark.parametrize("item, where, by, rule", [
    ("mines", "DTW-N22", "clearance", "7.4.8"),
    ("wire", "DTW-H20", "fire", "7.6.3"),
    ("wire", "DTW-H20", "clearance", "7.6.3"),
    ("roadblock", "DTW-J4", "fire", "7.5.3"),
    ("roadblock", "DTW-J4", "clearance", "7.5.3"),
    ("dug_in", "DTW-K10", "abandoned", "7.1.2"),
])
def test_each_removal_by_its_rule(fortified, item, where, by, rule):
    removed = fortified.json("remove", item, where, "--by", by)
    assert (removed["item"], removed["hex"], removed["by"], removed["rule"]) == (item, where, by, rule)
    cell = cells(fortified)[where]
    assert items(cell) == [] and cell["changes"][-1]["change"].endswith(f"({rule})")
    row = fortified.json("log")[-1]
    assert row["type"] == "FortificationRemoved" and row["placed"] == removed["placed"]
    assert fortified.json("audit")["clean"]
    fortified.refused("remove", item, where, "--by", by, contains=f"known in {where} ({rule})")  # gone already


@pytest.mark.parametrize("args, contains", [
    (("trench", "DTW-K12", "--by", "clearance"), "no rule removes a Trench (7.2.3)"),
    (("mines", "DTW-N22", "--by", "fire"), "a Mines is removed by clearance (7.4.8), not by fire (7.4.8)"),
    (("dug_in", "DTW-K10", "--by", "clearance"), "removed by abandoned (7.1.2), not by clearance (7.1.2)"),
    (("wire", "DTW-N22", "--by", "fire"), "no Wire known in DTW-N22 (7.6.3)"),
    (("mines", "DTW-N22", "--by", "clearance", "--side", "russian"), "no Mines known in DTW-N22 (7.4.8)"),
    (("mines", "DTW-Z1", "--by", "clearance"), "DTW-Z1 is not on the DTW map (7.4.8)"),
    (("foxhole", "DTW-N22", "--by", "clearance"), "no fortification 'foxhole'"),
])
def test_removal_refusals(fortified, args, contains):
    fortified.refused("remove", *args, contains=contains)


def test_a_00_mine_attack_eliminates_the_mines_it_names(fortified):
    kept = fortified.json("roll", "7.4.7", "--side", "russian", "--dice", "4,2", "--for", "mines in DTW-N22 vs 4-4-7")
    assert kept["hexes"] == ["DTW-N22"] and kept["map"] == []  # any other result: the FFT, the mines stay
    assert items(cells(fortified)["DTW-N22"]) == [("german", "mines")]
    gone = fortified.json("roll", "7.4.7", "--side", "russian", "--dice", "0,0", "--hex", "DTW-N22")
    assert [(m["type"], m["hex"], m["rule"]) for m in gone["map"]] == [("FortificationRemoved", "DTW-N22", "7.4.7.2")]
    assert items(cells(fortified)["DTW-N22"]) == []
    assert "DTW-N22: Firefight 1: Mines eliminated by the roll's result (7.4.7.2)" in fortified.ok(
        "terrain", "--map", "DTW").stdout
    assert fortified.json("audit")["clean"]
    fortified.ok("undo")  # the roll and what it did go together
    assert items(cells(fortified)["DTW-N22"]) == [("german", "mines")]


@pytest.mark.parametrize("args, contains", [
    (("7.4.7", "--hex", "DTW-A1"), "no Mines known in DTW-A1 (7.4.7)"),
    (("7.4.7", "--hex", "DTW-N22", "--hex", "DTW-M23"), "made for 1 hex; 2 named (DTW-N22, DTW-M23) (7.4.7)"),
    (("7.4.7", "--for", "mines in DTW-N22 vs DTW-N23"), "2 named"),
    (("7.4.5", "--hex", "DTW-N22"), "a roll on 7.4.5 is made for no hex: --hex does not apply (7.4.5)"),
    (("7.3.2", "--hex", "DTW-P5/P7"), "DTW-P5 and DTW-P7 are not adjacent: they share no hexside (7.3.2)"),
    (("7.3.2", "--hex", "DTW-A1/A2"), "interior Factory wall or between Cellar hexes; DTW-A1 is open, DTW-A2 open (7.3.1)"),
    (("7.3.2", "--hex", "DTW-P6/Q6"), "DTW-P6 is building, DTW-Q6 factory (7.3.1)"),
])
def test_a_roll_names_the_hexes_its_table_is_made_for(fortified, args, contains):
    dice = "0,0" if args[0] != "7.4.5" else "3"
    fortified.refused("roll", args[0], "--side", "german", "--dice", dice, *args[1:], contains=contains)


def test_a_forged_map_change_fails_audit(fortified):
    before = fortified.json("log")
    mines = next(r for r in before if r["type"] == "FortificationPlaced" and r["hex"] == "DTW-N22")
    roll = DiceRolled(action=0, table="7.4.7", rule="7.4.7", side="russian", die="d100", dice=(4, 2), source="entered",
                      original=42, final=42, code="fft", hexes=("DTW-N22",),
                      result="Resolve on the FFT (12 column vs infantry, 45+ vs vehicles; not printed)")
    removal = FortificationRemoved(action=0, side="german", item="mines", hex="DTW-N22", placed=mines["version"],
                                   by="roll", rule="7.4.7.2")
    record(fortified.db, roll, removal)  # a 42 does not remove mines
    assert [f["kind"] for f in findings(fortified)] == ["decision"]


def test_a_00_recorded_without_its_removal_fails_audit(fortified):
    roll = DiceRolled(action=0, table="7.4.7", rule="7.4.7", side="russian", die="d100", dice=(0, 0), source="entered",
                      original=100, final=100, code="mines_removed", hexes=("DTW-N22",),
                      result="\"00\": the mines are eliminated (remove the Mine counter), no other effect")
    record(fortified.db, roll)
    found = findings(fortified)
    assert [f["kind"] for f in found] == ["decision"] and "fortification removed" in found[0]["message"]


def test_a_removal_by_command_where_no_rule_allows_it_fails_audit(fortified):
    trench = next(r for r in fortified.json("log") if r["type"] == "FortificationPlaced" and r["item"] == "trench")
    record(fortified.db, FortificationRemoved(action=0, side="german", item="trench", hex="DTW-K12",
                                              placed=trench["version"], by="clearance", rule="7.4.8"))
    found = findings(fortified)
    assert [f["kind"] for f in found] == ["decision"] and "no rule removes a Trench (7.2.3)" in found[0]["message"]


# ---- Mouseholes --------------------------------------------------------------------------------------------------
def test_a_00_mousehole_rubbles_both_hexes(fresh, tmp_path):
    made = fresh.json("roll", "7.3.2", "--side", "russian", "--dice", "0,0", "--for", "DC team, mousehole DTW-P5/P6")
    assert made["hexes"] == ["DTW-P5", "DTW-P6"]
    assert [(m["type"], m.get("hexes")) for m in made["map"]] == [("MouseholeMade", ["DTW-P5", "DTW-P6"]),
                                                               ("RubblePlaced", ["DTW-P5", "DTW-P6"])]
    now = cells(fresh)
    for name in ("DTW-P5", "DTW-P6"):  # 7.3.2: rubble in both hexes (instead of Fire), read as 6.7.2's rubble
        assert now[name]["rubble"] and now[name]["levels"] == 0
        assert now[name]["changes"] == [{"firefight": "Firefight 1",
                                         "change": '"00": Rubble instead of Fire (7.3.2), 2 upper level(s) gone'}]
    assert now["DTW-P5"]["mouseholes"] == ["DTW-P6"] and now["DTW-P6"]["mouseholes"] == ["DTW-P5"]
    picture = tmp_path / "dtw.svg"
    fresh.ok("terrain", "--map", "DTW", "--svg", str(picture))
    svg = picture.read_text()
    assert svg.count('class="mousehole"') == 2  # the map's and the legend's
    assert 'data-hex="DTW-P5" data-terrain="building" data-rubble="true"' in svg
    assert fresh.json("audit")["clean"]
    # a Mousehole stays: the next firefight's map still has it
    fresh.ok("firefight-end", "--map", "DTW")
    assert cells(fresh)["DTW-P5"]["mouseholes"] == ["DTW-P6"]


def test_a_mousehole_by_an_e_result_is_recorded_with_its_roll(fresh):
    attempt = fresh.json("roll", "7.3.2", "--side", "german", "--dice", "1,7", "--hex", "DTW-Q5/Q6")
    assert attempt["map"] == [] and cells(fresh)["DTW-Q5"]["mouseholes"] == []  # the FFT decides (not printed)
    fresh.refused("mousehole", "DTW-Q5/Q6", "--side", "russian", "--roll", str(attempt["id"]),
                  contains="no Mousehole attempt of the Russian side in force (7.3.1)")
    hole = fresh.json("mousehole", "DTW-Q5", "DTW-Q6", "--side", "german", "--roll", str(attempt["id"]))
    assert hole == {"hexes": ["DTW-Q5", "DTW-Q6"], "side": "german", "rule": "7.3.1", "roll": attempt["id"]}
    fresh.refused("mousehole", "DTW-Q6/Q5", "--side", "german", contains="already blown across DTW-Q6/DTW-Q5")
    fresh.refused("mousehole", "DTW-P6/Q6", "--side", "german", contains="(7.3.1)")
    fresh.refused("mousehole", "DTW-P5", "--side", "german", contains="name the hexside's two hexes")
    assert fresh.json("audit")["clean"]


# ---- hidden fortifications (7.4.4) --------------------------------------------------------------------------------
def test_hidden_mines_are_invisible_to_the_other_sides_terrain(keyed, tmp_path):
    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    placed = german.json("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    row = anyone.json("log")[-1]
    assert row["type"] == "HiddenFortificationPlaced" and (row["side"], row["item"]) == ("german", "mines")
    assert "DTW-G26" not in json.dumps(row)  # the hex is sealed with the German key
    for viewer, args in ((russian, ()), (anyone, ()), (russian, ("--side", "russian"))):
        view = viewer.json("terrain", "--map", "DTW", *args)
        assert all(c["fortifications"] == [] for c in view["hexes"])
        assert view["hidden"] == [{"event": placed["event"], "side": "german", "item": "mines"}]
        picture = tmp_path / "r.svg"
        viewer.ok("terrain", "--map", "DTW", *args, "--svg", str(picture))
        assert 'class="fortification' not in picture.read_text().split('<g id="legend">')[0]
        viewer.ok("map", "--group", "DTW", "--svg", str(picture))
        assert 'class="fortification' not in picture.read_text().split('<g id="legend">')[0]
    mine = german.json("terrain", "--map", "DTW")  # the side of the passphrase given sees its own
    assert {c["hex"]: items(c) for c in mine["hexes"] if c["fortifications"]} == {"DTW-G26": [("german", "mines")]}
    assert mine["hidden"] == [] and mine["viewer"] == "german"
    german.ok("terrain", "--map", "DTW", "--svg", str(tmp_path / "g.svg"))
    assert 'class="fortification hidden" data-item="mines"' in (tmp_path / "g.svg").read_text()
    russian.refused("terrain", "--map", "DTW", "--side", "german", contains="not the German side's")
    anyone.refused("terrain", "--map", "DTW", "--side", "german", contains="give its passphrase")
    report = anyone.json("audit")
    assert report["clean"] and {"version": placed["event"], "what": "the German side's hidden Mines was never "
                                                                    "revealed"} in report["pending"]
    assert anyone("audit", "--final").exit_code == 1  # at campaign end every secret is opened


def test_hidden_mines_are_revealed_on_entry_and_rechecked_by_the_audit(keyed):
    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    placed = german.json("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    russian.refused("roll", "7.4.7", "--side", "russian", "--dice", "1,1", "--hex", "DTW-G26",
                    contains="no Mines known in DTW-G26; hidden ones are revealed by their side first")
    russian.refused("reveal", str(placed["event"]), "--entered", contains="not the German side's")
    shown = german.json("reveal", str(placed["event"]), "--entered")
    assert shown == [{"placed": placed["event"], "item": "mines", "side": "german", "hex": "DTW-G26",
                      "cause": "entry"}]
    assert items(cells(russian)["DTW-G26"]) == [("german", "mines")]
    assert anyone.json("audit")["clean"]
    russian.ok("roll", "7.4.7", "--side", "russian", "--dice", "1,1", "--hex", "DTW-G26")
    german.refused("reveal", str(placed["event"]), contains="no unrevealed Secret roll")


def test_a_roll_on_its_own_hidden_mines_reveals_them_first(keyed):
    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    german.ok("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    german.refused("roll", "7.4.7", "--side", "german", "--dice", "0,0", "--hex", "DTW-G26", "--secret",
                   contains="a roll that changes the map is made in the open")
    rolled = german.json("roll", "7.4.7", "--side", "german", "--dice", "0,0", "--hex", "DTW-G26")
    assert [m["type"] for m in rolled["map"]] == ["HiddenFortificationRevealed", "FortificationRemoved"]
    assert items(cells(russian)["DTW-G26"]) == [] and cells(russian)["DTW-G26"]["changes"]
    assert anyone.json("audit")["clean"]
    # one action, kept with its command: the reveal first, then the roll; the audit decides the command again
    from cgledger.ledger.decide import commands

    log = open_ledger(str(german.db)).history(None)
    opened = next(e for e in log if isinstance(e.request, commands.RollRevealing))
    assert [a.fact.hex for a in opened.request.reveals] == ["DTW-G26"] and opened.request.roll.faces == (0, 0)
    action = [e.fact for e in log if getattr(e.fact, "action", None) == opened.fact.action]
    assert [type(f).__name__ for f in action] == ["HiddenFortificationRevealed", "DiceRolled", "FortificationRemoved"]


def test_a_roll_kept_without_the_reveal_its_command_makes_is_named(keyed):
    """A cheater keeps the roll's command (which reveals his mines first) but not the reveal: named, not trusted."""
    from cgledger.ledger.decide import commands

    german, _russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    german.ok("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    german.ok("roll", "7.4.7", "--side", "german", "--dice", "0,0", "--hex", "DTW-G26")
    ledger = open_ledger(str(german.db))
    log = ledger.history(None)
    opened = next(e for e in log if isinstance(e.request, commands.RollRevealing))
    later = [e.fact for e in log if getattr(e.fact, "action", None) == opened.fact.action][1:]
    german.ok("undo")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    action = campaign.next_action
    for index, fact in enumerate(later):
        campaign.record(msgspec.structs.replace(fact, action=action), "", None, "",
                        opened.request if index == 0 else None)
    ledger.store.save(campaign)
    found = findings(anyone)
    assert {"kind": "decision", "version": found[0]["version"],  # unsigned too: the forger did not need a key
            "message": "recorded dice rolled; the ledger decides hidden fortification revealed"} in found, found


def test_a_hidden_search_reveal_needs_the_other_sides_search_roll(keyed):
    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    placed = german.json("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    own = german.json("roll", "7.4.5", "--side", "german", "--dice", "4")
    german.refused("reveal", str(placed["event"]), "--searched", str(own["id"]), contains="not the other side's")
    german.refused("reveal", str(placed["event"]), "--searched", str(placed["event"]), contains="no search roll in force (7.4.5)")
    search = russian.json("roll", "7.4.5", "--side", "russian", "--dice", "4")
    german.ok("reveal", str(placed["event"]), "--searched", str(search["id"]))
    assert anyone.json("audit")["clean"]


def test_a_sealed_placement_the_rules_forbid_is_named_when_revealed(keyed):
    """A cheater seals hidden mines on a paved road (7.4.4): nobody can tell until the reveal; then the audit re-decides
    the placement on the log as it stood."""
    from cgledger.ledger.player.keyring import Keyring
    from cgledger.ledger.rules import load
    from cgledger.ledger.trust.secrets import commitment, new_salt, seal_placement

    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    rules = load(campaign.system, campaign.override_sources())
    rg = next(r["version"] for r in anyone.json("log") if r["type"] == "RGPurchased")
    cheat = FortificationPlaced(action=campaign.next_action, side="german", item="mines", hex="DTW-J3", rg=rg,
                                hidden=True)
    salt = new_salt()
    key = Keyring(GERMAN.encode()).key(campaign, rules, "german")
    sealed = HiddenFortificationPlaced(action=cheat.action, side="german", item="mines", rg=rg,
                                       commitment=commitment(cheat, salt), sealed=seal_placement(key, cheat, salt))
    record(german.db, sealed, sign=("german", GERMAN),
           request=HidePlacement(side="german", item="mines", commitment=sealed.commitment, sealed=sealed.sealed))
    assert anyone.json("audit")["clean"]  # sealed: what can be checked checks out
    german.ok("reveal", "--all", "--side", "german")
    found = findings(anyone)
    assert [f["kind"] for f in found] == ["decision"]
    assert "no hidden Mines in paved road (DTW-J3) (7.4.4)" in found[0]["message"]


def test_without_keys_hidden_mines_show_only_in_their_sides_view(fresh):
    fresh.ok("buy", "F1", "--side", "german")
    fresh.ok("place", "mines", "DTW-W33", "--side", "german", "--hidden")
    assert items(cells(fresh)["DTW-W33"]) == [] and items(cells(fresh, "--side", "russian")["DTW-W33"]) == []
    assert items(cells(fresh, "--side", "german")["DTW-W33"]) == [("german", "mines")]
    assert fresh.json("terrain", "--map", "DTW")["hidden"][0]["item"] == "mines"


def test_the_sample_searches_out_one_hidden_minefield_and_keeps_one(cgs):
    for view in ((), ("--side", "russian")):
        now = cells(cgs, *view)
        assert items(now["DTW-G26"]) == [("german", "mines")]  # found by the Russian search (7.4.5), revealed
        assert items(now["DTW-W33"]) == []  # never found
    assert items(cells(cgs, "--side", "german")["DTW-W33"]) == [("german", "mines")]


# ---- the picture and the citations ---------------------------------------------------------------------------------
def test_terrain_picture(cgs, tmp_path):
    picture = tmp_path / "dtw.svg"
    cgs.ok("terrain", "--map", "DTW", "--side", "german", "--svg", str(picture))
    svg = picture.read_text()
    board, legend = svg.split('<g id="legend">')
    assert 'id="terrain"' in svg and board.count('class="hex"') == 24 * 40
    assert board.count('stroke="#c0282d"') >= 9 and board.count('class="wreck"') == 2
    assert board.count('class="fortification placed"') == 4  # G26 (revealed), N22, D8, U14; W33 is the German's own
    assert board.count('class="fortification hidden"') == 1 and board.count('class="fortification removed"') == 4
    assert board.count('class="mousehole"') == 2 and board.count('class="sewer"') == 3
    assert board.count('class="in-sewer"') == 2
    for text in ("Machine Parts / Lumber Yard", "Road (unpaved)", "Paved road", "Mousehole", "Hidden (7.4.4)",
                 "Removed", "In Sewer", "Sewer (6.16.1)", "Roadblock (7.5)", "Dug-In (7.1)"):
        assert text in legend
    russian = tmp_path / "russian.svg"
    cgs.ok("terrain", "--map", "DTW", "--side", "russian", "--svg", str(russian))
    board = russian.read_text().split('<g id="legend">')[0]
    assert board.count('class="fortification hidden"') == 0 and board.count('class="fortification placed"') == 4
    assert "German: 1 Mines" in russian.read_text()


@pytest.mark.parametrize("args, cite", [
    (("place", "wire", "DTW-A1", "--side", "german", "--hidden"), "(7.4.4)"),
    (("remove", "wire", "DTW-A1", "--by", "clearance"), "(7.6.3)"),
    (("mousehole", "DTW-A1/A2", "--side", "german"), "(7.3.1)"),
    (("roll", "7.4.7", "--side", "german", "--dice", "0,0", "--hex", "DTW-A1"), "(7.4.7)"),
    (("roll", "7.3.2", "--side", "german", "--dice", "0,0", "--hex", "DTW-A1/A3"), "(7.3.2)"),
    (("reveal", "1", "--entered"), "(7.4.4)"),
    (("firefight-end", "--map", "DTW", "--fire", "DTW-A41"), "(6.7.2)"),
    (("firefight-end", "--map", "DTW", "--sewer", "x in DTW-A1"), "(6.16.1)"),
    (("firefight-end", "--map", "DTW", "--sewer", "x in DTW-N32", "--sewer", "x in DTW-N32"), "(6.16.3)"),
    (("scenario-end", "--lvp", "german=0", "--lvp", "russian=0"), ""),
    (("initiative", "--chit", "german=attack", "--chit", "russian=idle"), ""),
    (("hq", "DTW-P5"), ""),
    (("buy", "F1", "--side", "german", "--given"), ""),
    (("areas", "--group", "DTW"), ""),
])
def test_cgs_refusals_cite_the_cgs_text(cgs, args, cite):
    """A CGS refusal cites the CGS section as printed, or none where the seeds print none: never a KGP or RR rule,
    never a bare sub-number like '(2)'."""
    result = cgs.refused(*args, contains=cite or "Error:")
    assert not re.search(r"\((?:KGP|8\.\d|2\.\d|\d\))", result.stderr), result.stderr
    if not cite:
        assert not re.search(r"\([\d.]+\)\s*$", result.stderr), result.stderr


# ---- forged map facts: the audit names each, `import` refuses the bundle -------------------------------------------
def _forged(fortified):
    from cgledger.ledger.domain.events import FirefightEnded, HiddenFortificationRevealed, MouseholeMade, RubblePlaced

    log = fortified.json("log")
    mines = next(r for r in log if r["type"] == "FortificationPlaced" and r["hex"] == "DTW-N22")
    placed = FortificationPlaced(action=mines["action"], side="german", item="mines", hex="DTW-N22", rg=mines["rg"])
    zeros = DiceRolled(action=0, table="7.4.7", rule="7.4.7", side="russian", die="d100", dice=(0, 0),
                       source="entered", original=100, final=100, code="mines_removed", hexes=("DTW-N22",),
                       result="\"00\": the mines are eliminated (remove the Mine counter), no other effect")
    removal = FortificationRemoved(action=0, side="german", item="mines", hex="DTW-N22", placed=mines["version"],
                                   by="roll", rule="7.4.7.2")
    return {
        "mousehole in the open": ([MouseholeMade(action=0, side="german", hexes=("DTW-A1", "DTW-A2"), rule="7.3.1")],
                                  "interior Factory wall or between Cellar hexes"),
        "rubble without its roll": ([RubblePlaced(action=0, hexes=("DTW-U14",), rule="7.3.2")],
                                    "recorded only with what decides it"),
        "more than the 00 does": ([zeros, removal, RubblePlaced(action=0, hexes=("DTW-N22",), rule="7.3.2")],
                                  "rubble placed beyond what the ledger decides"),
        "a sewer unit Re-Deployed too far": (
            [FirefightEnded(action=0, map="DTW", firefight="Firefight 1", in_sewer=("4-4-7 in DTW-N32",),
                            redeployed=("4-4-7 to DTW-P35",))], "within three hexes"),
        "a reveal of mines never hidden": (
            [HiddenFortificationRevealed(action=0, placed=mines["version"], fact=placed, cause="entry")],
            "no hidden fortification still hidden"),
    }


@pytest.mark.parametrize("case", ["mousehole in the open", "rubble without its roll", "more than the 00 does",
                                  "a sewer unit Re-Deployed too far", "a reveal of mines never hidden"])
def test_a_forged_map_fact_is_named_and_refused_on_import(fortified, make_db, tmp_path, case):
    facts, message = _forged(fortified)[case]
    record(fortified.db, *facts)
    found = findings(fortified)
    assert len(found) == 1 and message in found[0]["message"], found
    bundle = tmp_path / "b.json"
    fortified.ok("export", "--since", "0", str(bundle))
    Cli(make_db()).refused("import", str(bundle), contains=message)


def test_a_revealed_hex_other_than_the_sealed_one_fails_audit(keyed):
    from cgledger.ledger.domain.events import HiddenFortificationRevealed

    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    placed = german.json("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    made = next(r for r in anyone.json("log") if r["version"] == placed["event"])
    moved = FortificationPlaced(action=made["action"], side="german", item="mines", hex="DTW-W33", rg=made["rg"],
                                hidden=True)
    record(german.db, HiddenFortificationRevealed(action=0, placed=placed["event"], fact=moved, salt="00" * 16),
           sign=("german", GERMAN))
    found = findings(anyone)
    assert [f["kind"] for f in found] == ["secret"] and "does not match its commitment" in found[0]["message"]


def test_a_sealed_placement_of_what_may_not_be_hidden_fails_audit(keyed):
    from cgledger.ledger.domain.events import HiddenFortificationPlaced

    german, russian, anyone = keyed
    german.ok("buy", "F2", "--side", "german")
    rg = next(r["version"] for r in anyone.json("log") if r["type"] == "RGPurchased")
    record(german.db, HiddenFortificationPlaced(action=0, side="german", item="wire", rg=rg, commitment="0" * 64,
                                                sealed="x"), sign=("german", GERMAN))
    found = findings(anyone)
    assert [f["kind"] for f in found] == ["decision"] and "not set up hidden" in found[0]["message"]


def test_more_placement_and_reveal_refusals(keyed):
    german, russian, anyone = keyed
    early = russian.json("roll", "7.4.5", "--side", "russian", "--dice", "5")
    german.ok("buy", "F1", "--side", "german")
    german.refused("place", "mines", "DTW-G26/1", "--side", "german", contains="placed in a hex, not a level (7.4.3)")
    german.refused("place", "mines", "DTW-Z1", "--side", "german", contains="DTW-Z1 is not on the DTW map (7.4.3)")
    placed = german.json("place", "mines", "DTW-G26", "--side", "german", "--hidden")
    german.refused("reveal", str(placed["event"]), "--searched", str(early["id"]),
                   contains="not the other side's, made after the placement (7.4.5)")
    german.refused("reveal", str(placed["event"]), "--entered", "--searched", str(early["id"]), code=2,
                   contains="not both")


def test_more_sewer_and_mousehole_refusals(fresh):
    fresh.refused("firefight-end", "--map", "DTW", "--sewer", "4-4-7 in DTW-N32", "--redeployed", "4-4-7 to DTW-O34",
                  "--redeployed", "4-4-7", contains="'4-4-7' Re-Deployed twice (6.16.3)")
    fresh.refused("firefight-end", "--map", "DTW", "--sewer", "4-4-7 in DTW-N32", "--redeployed", "4-4-7 to DTW-N33",
                  contains="DTW-N33 has no sewer: Sewer Movement ends in a sewer hex (6.16.1)")
    attempt = fresh.json("roll", "7.3.2", "--side", "german", "--dice", "1,7", "--hex", "DTW-P5/P6")
    fresh.refused("mousehole", "DTW-Q5/Q6", "--side", "german", "--roll", str(attempt["id"]),
                  contains="the attempt of event")


def test_the_report_draws_each_cgs_map(cgs, tmp_path):
    page = tmp_path / "report.html"
    cgs.ok("report", "--html", str(page))
    html = page.read_text()
    assert html.count('id="terrain"') == 2 and "DTW map after Firefight 2" in html
    # the report is both sides': hidden mines only counted (the one hidden badge per map is its legend's)
    assert html.count('class="fortification hidden"') == 2 and "German: 1 Mines" in html


def test_a_00_without_its_hexes_says_the_map_is_left_as_it_was(fortified):
    out = fortified.ok("roll", "7.4.7", "--side", "russian", "--dice", "0,0").stdout
    assert "no hex named, so the map is left as it was" in out
    assert items(cells(fortified)["DTW-N22"]) == [("german", "mines")]


@pytest.mark.parametrize("change, message", [
    ({"cause": "bribe"}, "revealed on entry or by a search, not 'bribe'"),
    ({"hex": "DTW-G26"}, "is not the one recorded there"),
])
def test_a_forged_reveal_of_mines_hidden_in_the_open_fails_audit(fresh, change, message):
    from cgledger.ledger.domain.events import HiddenFortificationRevealed

    fresh.ok("buy", "F1", "--side", "german")
    placed = fresh.json("place", "mines", "DTW-W33", "--side", "german", "--hidden")
    made = fresh.json("log")[-1]
    fact = FortificationPlaced(action=made["action"], side="german", item="mines",
                               hex=change.get("hex", "DTW-W33"), rg=made["rg"], hidden=True)
    record(fresh.db, HiddenFortificationRevealed(action=0, placed=placed["event"], fact=fact,
                                                 cause=change.get("cause", "entry")))
    found = findings(fresh)
    assert [f["kind"] for f in found] == ["secret"] and message in found[0]["message"], found


@pytest.mark.parametrize("kind", ["MouseholeMade", "HiddenFortificationPlaced"])
def test_a_sides_own_map_act_in_the_other_sides_name_is_named(keyed, kind):
    from cgledger.ledger.domain.events import HiddenFortificationPlaced, MouseholeMade

    german, russian, anyone = keyed
    german.ok("buy", "F1", "--side", "german")
    rg = next(r["version"] for r in anyone.json("log") if r["type"] == "RGPurchased")
    fact = (MouseholeMade(action=0, side="german", hexes=("DTW-Q5", "DTW-Q6"), rule="7.3.1") if kind == "MouseholeMade"
            else HiddenFortificationPlaced(action=0, side="german", item="mines", rg=rg, commitment="0" * 64,
                                           sealed="x"))
    record(russian.db, fact, sign=("russian", RUSSIAN))  # the Russian records a German act with his own key
    assert [f["kind"] for f in findings(anyone)] == ["author"]


def test_a_side_with_a_key_shows_its_hidden_placements_to_its_own_key_only(fresh):
    """Mines hidden before the German set up his key stay in the open record, but `terrain --side german` is his
    view: another player's passphrase is refused."""
    fresh.ok("buy", "F1", "--side", "german")
    fresh.ok("place", "mines", "DTW-W33", "--side", "german", "--hidden")
    german, russian = Player(fresh.db, GERMAN), Player(fresh.db, RUSSIAN)
    german.ok("keys", "init", "--side", "german")
    russian.ok("keys", "init", "--side", "russian")
    russian.refused("terrain", "--map", "DTW", "--side", "german", contains="not the German side's")
    assert items(cells(german, "--side", "german")["DTW-W33"]) == [("german", "mines")]
    assert items(cells(russian)["DTW-W33"]) == []


def test_with_fair_dice_a_roll_that_changes_the_map_takes_the_dice_of_play(fortified):
    """A declared fair roll cannot carry its map effects yet: naming hexes without --dice is refused, so naming a
    hex is no way round the fair dice."""
    from conftest import Player

    german, russian = Player(fortified.db, "Peiper's own words"), Player(fortified.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german")
    russian.ok("keys", "init", "--side", "russian")
    russian.refused("roll", "7.4.7", "--side", "russian", "--hex", "DTW-N22", contains="give --dice or --vasl")
    assert russian.json("roll", "7.4.7", "--side", "russian", "--dice", "0,0", "--hex", "DTW-N22")["map"]


def test_wire_and_roadblocks_are_placed_only_at_the_start_of_a_firefight(tmp_path):
    """CGS 7.6.1: 'Wire may be placed in any non-building hex at the start of the firefight'; 7.5.1: Roadblocks 'can
    only be placed at the start of a firefight'. Once the firefight is played (a roll, a change on the map), neither is
    placed; after its end, the next firefight starts again."""
    from cgledger.cli.script import words
    from conftest import Cli

    lines = [line for line in (FIXTURES / "cgs-sample.cgl").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    cli = Cli(tmp_path / "cgs.db")
    upto = next(i for i, line in enumerate(lines) if line.startswith("place wire DTW-U14"))
    script = tmp_path / "first-part.cgl"  # the sample up to its wire of Firefight 2, its files where the sample's are
    script.write_text("\n".join(lines[:upto]).replace("$HERE", str(FIXTURES)) + "\n")
    cli.ok("script", str(script))
    first_roll = next(i for i, line in enumerate(lines) if i > upto and line.startswith("roll "))
    cli.ok(*words(lines[first_roll]))  # Firefight 2 is under way
    before = cli.events()
    cli.refused(*words(lines[upto]), contains="placed at the start of a firefight; this one is under way")
    assert cli.events() == before
    # a Roadblock bought now goes in at the next firefight's start: `buy` says so at once, not first `place`
    said = cli.ok("buy", "F1", "--side", "russian").stderr
    assert "a Roadblock is placed at the start of a firefight (7.5.1): this one is under way" in said, said


def test_with_both_keys_each_player_is_offered_only_his_own_sides_rolls_and_each_is_taken(keyed):
    """CGS has no Refit Phase to walk, yet once both sides hold keys every act is signed by its own side's key: a
    roll offered to the other side would be refused ("that passphrase ... is not the German side's"). Each player's
    `status` offers his own side's rolls only, and each line offered, its N filled in, is taken."""
    german, russian, _anyone = keyed
    for player, side, other in ((german, "german", "russian"), (russian, "russian", "german")):
        offered = [m["command"] for m in player.json("status")["may"] if m["command"].startswith("cgledger roll")]
        assert offered and all(f"--side {side} " in line and other not in line for line in offered), offered
        for line in offered:  # the dice as the line names them: a d100 its tens and units, a DR white and colored
            line = line.split(" (or")[0].replace("--for UNIT", "--for squad").replace("HEX/HEX", "DTW-Q5/Q6")
            filled = line.replace("--dice T,U", "--dice 0,7").replace("--dice W,C", "--dice 3,4").replace("--dice N", "--dice 5")
            if "--hex HEX" in filled:  # a mine attack (7.4.7) on a hex with Mines known: none are placed here
                player.refused(*filled.replace("HEX", "DTW-N22").split()[1:], contains="no Mines known in DTW-N22")
                continue
            player.ok(*filled.split()[1:])


def test_status_offers_buying_and_placing_fortifications_as_place_decides_them(fresh):
    """CGS has no purchase step: fortifications are bought as RG (7.2.3, 7.4.2, 7.5.1) and placed on the map.
    `status` offers `buy` to the sides whose chart has RG, and `place` with the items each side bought and has not
    placed, Mines also hidden (7.4.4); a Wire (7.6.1) is offered only before the firefight's play begins. Each line
    offered, its HEX filled in, is taken; nothing is offered that `place` refuses."""
    def offered(verb: str) -> list[str]:
        return [m["command"] for m in fresh.json("status")["may"] if m["command"].startswith(f"cgledger {verb} ")]

    assert offered("buy") == ["cgledger buy RG_ID --side german|russian"]
    assert offered("place") == []  # nothing bought yet
    fresh.ok("buy", "F1", "--side", "german")  # Mines
    fresh.ok("buy", "F2", "--side", "german")  # Wire
    assert offered("place") == ["cgledger place mines|wire HEX --side german",
                                "cgledger place mines HEX --side german --hidden"]
    fresh.ok("place", "wire", "DTW-N22", "--side", "german")
    assert offered("place") == ["cgledger place mines HEX --side german",
                                "cgledger place mines HEX --side german --hidden"]
    fresh.ok("buy", "F2", "--side", "german")  # a second Wire, then play begins: it waits for the next firefight
    fresh.ok("roll", "7.4.5", "--side", "german", "--dice", "3")
    assert offered("place") == ["cgledger place mines HEX --side german",
                                "cgledger place mines HEX --side german --hidden"]
    refused = fresh("place", "wire", "DTW-N22", "--side", "german")
    assert refused.exit_code != 0 and "7.6.1" in refused.stderr
    fresh.ok(*offered("place")[1].replace("HEX", "DTW-N22").split()[1:])
    assert offered("place") == []
    fresh.ok("firefight-end", "--map", "DTW")
    assert offered("place") == ["cgledger place wire HEX --side german"]  # the next firefight's start
    assert findings(fresh) == []
