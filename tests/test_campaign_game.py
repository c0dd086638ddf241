"""A whole KGP campaign through the CLI: the RePh steps, the CG Roster, RG purchases and their
limits, CG-Scenario End, Initiative, Idle Days, rewind and --as-of (8.6-8.625)."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from cgledger.cli.script import words
from conftest import Cli
from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide.steps import decide_winner

KGP = rulesmod.load("kgp")

FIXTURES = Path(__file__).parent.parent / "fixtures"
CHART = FIXTURES / "kgp-rg-chart-example.toml"


def roster(cli, side: str, **as_of) -> list[dict]:
    extra = ["--as-of", as_of["date"]] if as_of else []
    return cli.json("roster", "--side", side, *extra)


def row(cli, side: str, date: str) -> dict:
    return next(r for r in roster(cli, side) if r["date"] == date)


def test_8_6033_cg_lvp_totals(kgp):
    # 8.6033 EX: the Americans end the Initial Scenario with 10 LVP (CG-LVP 10); on 19 PM with 15
    # (CG-LVP 25); on 19 N with 12 (CG-LVP 37).
    kgp.ok("step", "scenario")
    kgp.ok("step", "8.603")
    kgp.ok("scenario-end", "--lvp", "german=5", "--lvp", "us=10", "--winner", "us")
    kgp.to("8.603", "19 PM")
    kgp.ok("scenario-end", "--lvp", "german=5", "--lvp", "us=15")
    kgp.to("8.603", "19 N")
    kgp.ok("scenario-end", "--lvp", "german=5", "--lvp", "us=12")
    us = {r["date"]: (r["lvp"], r["cg_lvp"]) for r in roster(kgp, "us")}
    assert us == {"19 AM": (10, 10), "19 PM": (15, 25), "19 N": (12, 37)}


def test_8_6162_roster_update(cli, tmp_path):
    # 8.6162 EX: German Base # 30 at 19 PM (our printing, loaded as an override), CPP Replenishment
    # DR 6: Repl 24; 2 CPP Left on 19 AM become Start; Total 26.
    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=2")
    override = tmp_path / "cpp.toml"
    override.write_text('[[chart]]\nid = "8.6161"\nrule = "8.6161"\ntitle = "CPP Base # (our printing)"\n'
                        'entries = [ { cg = "I", date = "19 PM", values = { german = 30, us = 35 } } ]\n')
    cli.ok("rules", "load", str(override))
    cli.to("8.616", "19 PM")
    cli.ok("roll", "8.616", "--side", "german", "--dice", "4,2")
    german = row(cli, "german", "19 PM")
    assert (german["start"], german["repl"], german["total"], german["left"]) == (2, 24, 26, 26)
    assert row(cli, "german", "19 AM")["repl"] is None  # shaded: no replenishment before the Initial Scenario


def test_8_6234_assault_needs_twenty_percent_more():
    # 8.6234 EX: 26 at scenario start needs >= 32 (26 x .2 = 5.2, FRU 6); from 0 it needs >= 1.
    assert decide_winner(KGP, "U.S. Assault", {"us": 26, "german": 0}, {"us": 31, "german": 0}) == "german"
    assert decide_winner(KGP, "U.S. Assault", {"us": 26, "german": 0}, {"us": 32, "german": 0}) == "us"
    assert decide_winner(KGP, "German Assault", {}, {"german": 1, "us": 0}) == "german"
    assert decide_winner(KGP, "German Assault", {}, {"german": 0, "us": 0}) == "us"
    assert decide_winner(KGP, "Dual Attack", {"us": 8}, {"us": 8, "german": 3}) == "german"
    assert decide_winner(KGP, "Dual Attack", {"us": 8}, {"us": 9, "german": 3}) == "us"
    assert decide_winner(KGP, "Initial Scenario", {}, {"us": 9, "german": 3}) is None


def test_8_6234_through_the_cli(kgp):
    kgp.ok("step", "scenario")
    kgp.ok("step", "8.603")
    kgp.refused("scenario-end", "--lvp", "german=26", "--lvp", "us=0", contains="name the winner with --winner")
    kgp.ok("scenario-end", "--lvp", "german=26", "--lvp", "us=0", "--winner", "german")
    kgp.to("8.603", "19 PM")  # the driver's German Assault on the target date
    assert kgp.json("scenario-end", "--lvp", "german=31", "--lvp", "us=0")["winner"] == "us"
    kgp.ok("undo")
    assert kgp.json("scenario-end", "--lvp", "german=32", "--lvp", "us=0")["winner"] == "german"


def test_8_6205_strength_and_depleted_platoon_sw(cli):
    # 8.6205 EX: 21 AM of CG I; two SS Inf Pltn; +2 DRM; Final DR 12 and 6: one Depleted, one Full.
    # The Depleted one rolls a dr per SW: LMG 6 and 4, PSK 3 -> one LMG and the PSK.
    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=100")
    cli.ok("rules", "load", str(CHART))
    cli.to("8.619", "21 AM")
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StK20")
    cli.ok("step", "next")
    assert [n["table"] for n in cli.json("status")["needs"]] == ["8.6201", "8.6201"]
    cli.refused("step", "next", contains="roll 8.6201 --side german --rg")
    assert cli.json("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "4,6")["final"] == 12
    assert cli.json("roll", "8.6201", "--side", "german", "--rg", "I2#2", "--dice", "2,2")["final"] == 6
    for dice, sw in (("6", "LMG"), ("4", "LMG"), ("3", "PSK")):
        cli.ok("roll", "8.6204", "--side", "german", "--rg", "I2#1", "--dice", dice, "--for", sw)
    records = cli.json("rg-record", "--side", "german")
    depleted, full = records
    assert (depleted["str"], depleted["units"], depleted["sw"]) == ("D", "2 6-5-8", "LMG, PSK")
    assert (full["str"], full["units"], full["sw"]) == ("F", "3 6-5-8", "2 LMG, 1 PSK")
    assert (depleted["p"], depleted["r"], full["p"], full["r"]) == (1, 5, 2, 4)
    cli.ok("step", "next")  # all follow-ups made


@pytest.fixture
def buying(cli):
    """CG I at 19 PM step 8.619, the example RG chart loaded, the German with 41 CPP."""
    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=12")
    cli.ok("rules", "load", str(CHART))
    cli.to("8.619", "19 PM")
    return cli


@pytest.mark.parametrize(
    "args, contains",
    [
        (("buy", "I9", "--side", "german", "--map-group", "St"), "no RG 'I9' on the German RG chart"),
        (("buy", "I2", "--side", "german", "--map-group", "Xx", "--objective", "StJ19"), "unknown Map Group 'Xx'"),
        (("buy", "I2", "--side", "german", "--objective", "StJ19"),
         "an RG is bought for a Map Group of CG I: give --map-group St|Ch|Lg (8.6195)"),
        (("buy", "I2", "--side", "german", "--map-group", "St"), "needs its Objective Hex"),
        (("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "J19"), "malformed hex 'J19'"),
        (("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--given"), "only an Initial-Scenario OB"),
        (("buy", "V3", "--side", "us", "--map-group", "St"), "not printed in the rules seeds"),
    ],
)
def test_purchase_refusals(buying, args, contains):
    buying.refused(*args, contains=contains)


def test_purchase_limits(buying):
    german = ("--side", "german", "--map-group", "St", "--objective", "StJ19")
    buying.ok("buy", "I2", *german)
    buying.ok("buy", "I2", *german)
    refused = buying.refused("buy", "I2", *german, contains="at most 2 SS Inf Pltn (I2) per CG Date per Map Group")
    assert "(8.6195)" in refused.stderr
    buying.ok("buy", "I2", "--side", "german", "--map-group", "Lg", "--objective", "LgN25")
    buying.ok("buy", "I2", "--side", "german", "--map-group", "Lg", "--objective", "LgN25")
    # Start 12 + Repl 23 (Base 35 - DR 12) = 35; four I2 at 8 CPP leave 3
    assert buying.json("status")["cpp"]["german"] == 3
    assert buying.json("roster", "--side", "german")[-1]["left"] == 3
    refused = buying.refused("buy", "I2", "--side", "german", "--map-group", "Ch", "--objective", "ChA1",
                             contains="costs 8 CPP; the German side has 3 CPP left")
    assert "(8.6194)" in refused.stderr


def test_cg_maximum(cli, tmp_path):
    chart = tmp_path / "tight.toml"
    chart.write_text(CHART.read_text().replace("cg_max = { I = 6, II = 6, III = 8 }", "cg_max = { I = 1, II = 6, III = 8 }"))
    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=40")
    cli.ok("step", "8.619")
    cli.ok("rules", "load", str(chart))
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--given")  # not counted
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    cli.refused("buy", "I2", "--side", "german", "--map-group", "Lg", "--objective", "LgN25",
                contains="at most 1 SS Inf Pltn (I2) in CG I and has bought 1")


def test_idle_day_loops_to_a_new_cg_date(at):
    cli = at("8.623", "19 PM")
    cli.ok("initiative", "--german", "idle", "--us", "idle")
    assert cli.json("status")["next"] == "8.612"
    moved = cli.json("step", "next")
    assert (moved["step"], moved["new_cg_date"]) == ("8.612", "19 N")
    rows = roster(cli, "us")
    assert rows[-2]["date"] == "19 PM" and rows[-2]["lvp"] == rows[-3]["lvp"]  # Current-LVP carried (8.6232)


def test_german_may_not_attack_when_the_us_has_no_units(at):
    cli = at("8.623", "19 PM")
    cli.refused("initiative", "--german", "attack", "--us", "idle", "--us-has-no-units", contains="no on-map Retained units")
    cli.refused("initiative", "--german", "attack", "--us", "maybe", contains="Invalid value", code=2)


def test_dual_attack_needs_its_drs(at):
    cli = at("8.623", "19 PM")
    cli.ok("initiative", "--german", "attack", "--us", "attack")
    cli.refused("step", "next", contains="8.6233a --side us")
    cli.ok("roll", "8.6233a", "--side", "us", "--dice", "5")
    cli.ok("step", "next")
    cli.refused("step", "scenario", contains="a roll on 8.625")


def test_rewind_voids_later_actions_and_play_resumes(at):
    cli = at("8.603", "19 PM")
    cli.ok("scenario-end", "--lvp", "german=9", "--lvp", "us=4")
    cli.ok("step", "8.606")
    before = cli.events()
    result = cli.json("rewind", "19 PM", "--reason", "wrong hex")
    assert cli.events() == before + 1  # one event; nothing deleted
    assert cli.json("status")["step"] == "scenario"
    log = cli.json("log")
    after_cut = [r for r in log if r["version"] > result["to_version"]]
    assert [r["in_force"] for r in after_cut] == [False] * (len(after_cut) - 1) + [True]
    assert {r["action"] for r in after_cut[:-1]} == set(result["voided"])
    assert cli("audit").exit_code == 0
    cli.ok("step", "8.603")
    cli.ok("scenario-end", "--lvp", "german=7", "--lvp", "us=6")
    assert row(cli, "us", "19 PM")["lvp"] == 6


def test_roster_as_of_equals_the_roster_of_that_date(make_db, tmp_path, sample_lines):
    # Replays the sample campaign line by line; each time a CG Date's RePh ends (its scenario
    # begins, or an Idle Day is chosen) both rosters are taken; afterwards --as-of must equal them.
    cli = Cli(make_db())
    taken: dict[str, dict] = {}
    for line in sample_lines:
        args = words(line.replace("$HERE", str(FIXTURES)))
        if not args:
            continue
        cli.ok(*args)
        status = cli.json("status")
        ended = (args[:2] == ["step", "scenario"]) or (args[0] == "initiative" and status["scenario"] == "Idle Day")
        if ended:
            taken[status["cg_date"]] = {side: roster(cli, side) for side in ("german", "us")}
    assert list(taken) == ["19 AM", "19 PM", "19 N", "20 AM", "20 PM", "20 N"]
    for date, rosters in taken.items():
        for side in ("german", "us"):
            assert roster(cli, side, date=date) == rosters[side], (date, side)
    assert cli.json("status", "--as-of", "19 N")["cg_date"] == "19 N"
    assert cli.json("history", "--as-of", "20 AM")["dates"][-1]["date"] == "20 AM"
    assert cli("audit").exit_code == 0


def test_history_and_report(played, tmp_path, sample_lines):
    cli = Cli(played())
    story = cli.json("history")
    assert [d["scenario"] for d in story["dates"]] == [
        "Initial Scenario", "German Assault", "Idle Day", "Dual Attack", "U.S. Assault", "Idle Day"]
    assert [d["winner"] for d in story["dates"]] == ["german", "german", None, "us", "us", None]
    assert any("rewind" in u for d in story["dates"] for u in d["undos"])
    assert story["dates"][1]["rg"]["german"] == [{"id": "I2", "cpp": 8}]
    page = tmp_path / "report.html"
    cli.ok("report", "--html", str(page))
    html = page.read_text()
    for marker in ('id="history"', 'id="roster-german"', 'id="roster-us"', 'id="rg-german"', 'id="lvp-chart"'):
        assert marker in html
    csv = cli.ok("roster", "--side", "us", "--csv").stdout.splitlines()
    assert csv[0] == ("date,start,repl,total,spent,left,rg,lvp,cg_lvp,win,weather,recon,recon_cpp,scenario,fpp,"
                      "fortifications,secret,conditions")
    assert csv[3].endswith(",Moon Phase: No Moon; Cloud Cover: Overcast")  # 19 N (8.617)
    assert len(csv) == 7


def test_8_621_fortification_purchase_example(buying):
    # 8.621 EX: 30 FPP: four A-T factors (16 FPP), HIP for a squad, two HS, a crew and a SMC (9 FPP),
    # five "?" (5 FPP).
    for _ in range(3):
        buying.ok("buy", "FPP", "--side", "german", "--map-group", "St")
    buying.to("8.621", "19 PM")
    assert buying.json("status")["fpp"] == {"german": 30}
    area = ("--side", "german", "--setup-area", "A")
    assert buying.json("fortify", "at_mines", *area, "--count", "4", "--squads", "2")["fpp"] == 16
    for size, count in (("squad", "1"), ("hs", "2"), ("crew", "1"), ("smc", "1")):
        buying.ok("fortify", "hip", *area, "--size", size, "--count", count)
    buying.ok("fortify", "dummy", *area, "--count", "5")
    assert buying.json("status")["fpp"] == {}
    forts = roster(buying, "german")[-1]["fortifications"]
    assert [(f["item"], f["count"], f["fpp"]) for f in forts] == [
        ("at_mines", 4, 16), ("hip", 1, 3), ("hip", 2, 4), ("hip", 1, 1), ("hip", 1, 1), ("dummy", 5, 5)]
    buying.refused("fortify", "dummy", *area, contains="cost 1 FPP; the German side has 0 FPP")


def test_8_621_fortifications_are_offered_only_to_a_side_with_fpp(buying):
    """8.621: Fortifications are bought with this CG Date's FPP. Status offers `fortify` only to a side that has
    some (a side with none would be refused: "cost 1 FPP; the German side has 0 FPP"), and the line it offers,
    filled in, is taken."""
    buying.ok("buy", "FPP", "--side", "german", "--map-group", "St")
    buying.to("8.621", "19 PM")
    offered = [m["command"] for m in buying.json("status")["may"] if m["command"].startswith("cgledger fortify")]
    assert offered == ["cgledger fortify ITEM --side german --setup-area ID [--count N]"], offered
    line = offered[0].replace("ITEM", "dummy").replace("ID [--count N]", "A")  # filled in: one "?" in Setup Area A
    buying.ok(*line.split()[1:])
    assert buying.json("status")["fpp"] == {"german": 9}
    buying.ok("step", "next")  # 9 FPP unspent: forfeit once the step is left, and no longer shown as to spend
    assert buying.json("status")["fpp"] == {} and "FPP to spend" not in buying.ok("status").stdout
    buying.ok("undo")
    buying.ok("fortify", "dummy", "--side", "german", "--setup-area", "A", "--count", "9")  # the rest of the 10 FPP
    assert buying.json("status")["fpp"] == {}
    assert not [m for m in buying.json("status")["may"] if m["command"].startswith("cgledger fortify")]


def test_8_621_the_rg_chart_lists_the_fortifications_at_the_price_fortify_charges(buying):
    """A player at 8.621 had no way to see what `fortify ITEM` takes and what each costs (its help listed KGP's items
    in every system). `rg-chart` lists the lines of the table the side has a price on, with its FPP to spend; each
    price listed is what `fortify` charges."""
    buying.ok("buy", "FPP", "--side", "german", "--map-group", "St")
    buying.to("8.621", "19 PM")
    chart = buying.json("rg-chart", "--side", "german")
    assert chart["fpp"] == 10
    listed = {f["id"]: f["fpp"] for f in chart["fortifications"]}
    assert {"trench", "foxhole", "ap_mines", "dummy", "hip"} <= set(listed) and isinstance(listed["foxhole"], dict)
    bought = buying.json("fortify", "ap_mines", "--side", "german", "--setup-area", "A", "--count", "2", "--squads", "1")
    assert bought["fpp"] == 2 * listed["ap_mines"]
    assert buying.json("rg-chart", "--side", "german")["fpp"] == 10 - bought["fpp"]
    assert "Fortifications (8.621), FPP each" in buying.ok("rg-chart", "--side", "german").stdout
    assert "lists the items and their FPP" in " ".join(buying.ok("fortify", "--help").stdout.split())


def test_8_621_the_next_act_stops_where_fpp_are_spent_not_past_it(at):
    """8.621: FPP not spent are forfeit. A keyed German who bought FPP in secret in 8.619 was told "next for you:
    your Initiative chit" (8.623); pasting it walked him past 8.621 and his FPP were gone. The next act now walks
    him to 8.621; there nothing beyond is offered as next, only the Fortifications and going on."""
    from conftest import Player

    cli = at("8.619", "19 PM")
    cli.ok("rules", "load", str(CHART))
    german, us = Player(cli.db, "Peiper's own words"), Player(cli.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("buy", "FPP", "--side", "german", "--map-group", "St")  # sealed: the public FPP show none
    assert german.json("status")["fpp"] == {"german": 10.0}  # his own, as his CPP count his secret purchases
    assert "FPP to spend this CG Date: German 10" in german.ok("status").stdout
    assert us.json("status")["fpp"] == {} and "FPP" not in us.ok("status").stdout.split("\nCPP:")[-1]
    nxt = german.json("status")["next_acts"]
    assert [(a["step"], a["command"]) for a in nxt] == [("8.621", "cgledger step 8.621")], nxt
    assert "FPP to spend on Fortifications" in german.ok("status").stdout
    german.ok(*nxt[0]["command"].split()[1:])
    there = german.json("status")
    assert there["progress"]["german"]["step"] == "8.621" and there["next_acts"] == []
    assert any(m["command"].startswith("cgledger fortify ITEM --side german") for m in there["may"])
    german.ok("fortify", "dummy", "--side", "german", "--setup-area", "A", "--count", "10")  # all of them spent
    assert [a["step"] for a in german.json("status")["next_acts"]] == ["8.623"]  # then on to the chit
    # the U.S. has no FPP; it bought nothing yet with its CPP: its purchases are its next act, not the chit past them
    assert [(a["step"], a["effect"]) for a in us.json("status")["next_acts"]] == [("8.619", "rg")]


def test_8_621_a_side_that_bought_in_secret_is_not_taken_past_its_fortifications_by_the_other(at):
    """8.621: FPP bought in secret (8.619) are known to their buyer's books alone. The German walking on carried the
    campaign past 8.621 while the U.S. stood there with FPP to spend (his ledger had not said so, and could not):
    once the purchase was revealed the audit named the step ("could not move past 8.621"). A side that bought an RG
    in secret this CG Date may still buy Fortifications for all the other side knows: it leaves 8.621 itself."""
    from conftest import Player

    cli = at("8.619", "19 PM")
    cli.ok("rules", "load", str(CHART))
    german, us = Player(cli.db, "Peiper's own words"), Player(cli.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    us.ok("buy", "FPP", "--side", "us", "--map-group", "St")  # sealed
    us.ok("step", "8.621")
    german.ok("step", "8.623")
    status = us.json("status")
    assert status["step"] == "8.621" and status["progress"]["us"]["step"] == "8.621", status["progress"]
    assert status["progress"]["german"]["step"] == "8.623"
    assert any(m["command"].startswith("cgledger fortify ITEM --side us") for m in status["may"])
    us.ok("fortify", "dummy", "--side", "us", "--setup-area", "A", "--count", "4")
    assert us.json("status")["progress"]["us"]["may"] == "buy Fortifications"  # 6 FPP left
    assert german.json("status")["progress"]["us"]["may"] == "buy Fortifications"  # all the German can know
    us.ok("fortify", "dummy", "--side", "us", "--setup-area", "A", "--count", "6")
    assert us.json("status")["progress"]["us"]["may"] is None  # his books know he has none left
    assert german.json("status")["progress"]["us"]["may"] == "buy Fortifications"
    us.ok("step", "8.623")
    us.ok("reveal", "--all", "--side", "us")
    findings = [f for f in json.loads(us("audit", "--final", "--json").stdout)["findings"] if f["kind"] != "pending"]
    assert findings == [], findings


@pytest.mark.parametrize(
    "args, contains",
    [
        (("fortify", "trench", "--front-line", "--squads", "3"), "only 'F' items may be set up in a Front-Line Hex"),
        (("fortify", "ap_mines", "--count", "6", "--isolated", "--squads", "3"), "only 'i' items may be added"),
        (("fortify", "foxhole", "--size", "3", "--squads", "2"),
         "Setup Area A has 2 Retained squad-equivalents (--squads), as many 'S' items as it may get: it has 0 already, "
         "these count 3"),
        (("fortify", "roadblock"), "is an 'S' item: a Setup Area gets as many as it has Retained squad-equivalents; "
                                   "give Setup Area A's number with --squads N"),
        (("fortify", "foxhole", "--squads", "2"), "needs --size 3|2|1"),
        (("fortify", "pillbox"), "no Fortification 'pillbox'"),
        (("fortify", "trench", "--count", "2", "--squads", "3"), "cost 14 FPP; the German side has 10 FPP"),
    ],
)
def test_fortification_refusals(buying, args, contains):
    buying.ok("buy", "FPP", "--side", "german", "--map-group", "St")
    buying.to("8.621", "19 PM")
    buying.refused(*args, "--side", "german", "--setup-area", "A", contains=contains)


def test_fortify_outside_its_step(buying):
    buying.ok("step", "8.622")  # past it: going back is an undo (a step ahead is walked on to, as `step` would)
    buying.refused("fortify", "dummy", "--side", "german", "--setup-area", "A", contains="purchased in step 8.621")


def test_recon_of_idle_days_is_cumulative(at):
    # 8.622: Recon CPP come off the next Start; an Idle CG Date's Recon adds to the next dates' until
    # the next CG scenario.
    cli = at("8.622", "19 PM")
    left = row(cli, "us", "19 PM")["left"]
    cli.ok("roll", "8.622", "--side", "us", "--drm", "spent_2_cpp", "--dice", "2")
    cli.ok("step", "8.623")
    cli.ok("initiative", "--german", "idle", "--us", "idle")
    cli.to("8.622", "19 N")
    assert row(cli, "us", "19 N")["start"] == left - 2 and row(cli, "us", "19 N")["recon"] == 3
    cli.ok("roll", "8.622", "--side", "us", "--dice", "4")
    assert row(cli, "us", "19 N")["recon"] == 7
    cli.ok("step", "8.623")
    cli.ok("initiative", "--german", "attack", "--us", "idle")
    cli.to("8.622", "20 AM")
    assert row(cli, "us", "20 AM")["recon"] is None  # 19 N had a scenario: nothing carries


def test_random_weather_by_option(cli):
    cli.ok("new", "CG I", "--cg", "I", "--random-weather")
    assert row(cli, "us", "19 AM")["weather"] is None  # not the historical chart
    cli.to("8.617", "19 PM")
    cli.refused("step", "next", contains="a roll on 8.6171 --side us")
    assert cli.json("roll", "8.6171", "--side", "us", "--dice", "3,3")["result"] == "Mist"
    cli.ok("roll", "8.6171/mist", "--side", "us", "--dice", "2")  # 2 + 1 (PM) = 3: Heavy
    assert row(cli, "us", "19 PM")["weather"] == "Heavy Mist"
    cli.ok("step", "next")


def test_historical_weather_by_default(kgp):
    assert [r["weather"] for r in roster(kgp, "german")] == ["Extremely Heavy Mist"]


def test_a_given_rg_is_not_bought_against_the_cg_date_maximum(cli, tmp_path):
    """8.6195 counts the RG bought this CG Date; an Initial-Scenario OB's RG (--given) is not bought, so it does not
    use up the CG Date maximum (it did: the one I2 allowed per CG Date was refused after a given one)."""
    chart = tmp_path / "one-a-date.toml"
    chart.write_text(CHART.read_text().replace("date_max = 2", "date_max = 1", 1))  # I2: one a CG Date
    cli.ok("new", "CG I", "--cg", "I", "--start-cpp", "german=40")
    cli.ok("step", "8.619")
    cli.ok("rules", "load", str(chart))
    assert next(r for r in cli.json("rg-chart", "--side", "german")["rgs"] if r["id"] == "I2")["date_max"] == 1
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--given")
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    cli.refused("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19",
                contains="at most 1 SS Inf Pltn (I2) per CG Date")


EARLY_CHART = """
[[rg]]
side = "us"
id = "V3"
group_type = "Med Tank Pltn I"
cost = 7
date_max = 1
cg_max = { I = 4 }

[[rg]]
side = "german"
id = "V1"
group_type = "Pz IV Sect"
cost = 4
date_max = 1
cg_max = { I = 4 }

[[rg]]
side = "us"
id = "HW1"
group_type = "Hvy Wpns Pltn"
cost = 5
date_max = 1
cg_max = { I = 4 }
"""


def test_us_early_entry_costs_half_again_rounded_down(buying, tmp_path):
    """KGP 8.6194b: 'By increasing the listed CPP cost of a U.S. RG whose ID begins with 'T', "V" or "G" by 50% (FRD),
    that RG may enter ... one CG Date prior to the CG Date printed in that Entry Area's arrow.' The 'T' read as "I":
    8.6197 gives the Entry Code color to 'each "I", "V" and "G" RG type'."""
    chart = tmp_path / "early.toml"
    chart.write_text(EARLY_CHART, encoding="utf-8")
    buying.ok("rules", "load", str(chart))
    before, events = buying.json("status")["cpp"]["us"], buying.events()
    for args, contains in (
            (("HW1", "--side", "us"), "Early Entry is for a U.S. RG whose ID begins with 'I', 'V', 'G'; HW1 is not one"),
            (("V1", "--side", "german"), "V1 is not one"),
            (("V3", "--side", "us", "--given"), "only an Initial-Scenario OB")):
        refused = buying.refused("buy", *args, "--map-group", "St", "--objective", "StJ19", "--early", contains=contains)
        assert "(8.6194b)" in refused.stderr or "--given" in args
    assert buying.events() == events  # nothing written
    bought = buying.json("buy", "V3", "--side", "us", "--map-group", "St", "--early")
    assert (bought["cpp"], bought["early"]) == (10, True)  # 7 + 3.5, fractions rounded down
    assert buying.json("status")["cpp"]["us"] == before - 10
    assert buying.json("rg-record", "--side", "us")[-1]["early"] is True
    assert "U.S. RG V3 Med Tank Pltn I for St (10 CPP, Early Entry)" in buying.ok("log").stdout
    infantry = buying.json("buy", "I1", "--side", "us", "--map-group", "St", "--objective", "StJ19", "--early")
    assert (infantry["cpp"], infantry["early"]) == (9, True)  # an "I" RG: 6 + 3
    assert buying.ok("audit").exit_code == 0
