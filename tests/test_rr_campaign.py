"""An RR campaign runs through the same engine as KGP, with its own data."""

from __future__ import annotations

from pathlib import Path


from conftest import Cli

SAMPLE = Path(__file__).parent.parent / "fixtures" / "rr-sample.cgl"


def test_the_rr_sample_campaign(make_db):
    cli = Cli(make_db())
    cli.ok("script", str(SAMPLE))
    assert cli("audit").exit_code == 0
    canadian, german = cli.json("roster", "--side", "canadian"), cli.json("roster", "--side", "german")
    assert [r["date"] for r in canadian] == ["19 AM", "19 PM", "19 N", "20 AM"]
    # 2.5033: only the Canadian keeps a CG-LVP total; 2.5231: no CG scenario is won
    assert [r["cg_lvp"] for r in canadian] == [4, 7, 10, 17] and all(r["cg_lvp"] is None for r in german)
    assert all(r["win"] is None for r in canadian + german)
    assert canadian[0]["weather"] and canadian[0]["repl"] is None  # 2.517 chart; no 19 AM replenishment
    assert [d["scenario"] for d in cli.json("history")["dates"]] == ["Initial Scenario", "German Assault", "Idle Day",
                                                                       "Canadian Assault"]
    record = cli.json("rg-record", "--side", "german")
    assert [(r["id"], r["str"]) for r in record] == [("I1", "F"), ("G1", "D"), ("V2", "D")]


def test_rr_rg_chart_refusals(rr):
    # 2.5185 CG Date max: one G3 per CG Date
    rr.ok("buy", "G3", "--side", "german")
    rr.refused("buy", "G3", "--side", "german", contains="at most 1 AT Sect 3 (G3) per CG Date; 1 already bought")
    # footnote f: G2 and G3 together at most 2 in the CG
    rr.ok("buy", "G2", "--side", "german")
    refused = rr.refused("buy", "G2", "--side", "german", contains="at most 2 of G2+G3 together in the CG")
    assert "(2.5186)" in refused.stderr
    # M4 only after 19 PM
    rr.refused("buy", "M4", "--side", "german", contains="available only from 19 N")
    # 2.5186 CG max: German I4 Eng Pltn, 1 in the CG
    rr.ok("buy", "I4", "--side", "german")
    rr.to("2.518", "19 PM")
    rr.refused("buy", "I4", "--side", "german", contains="at most 1 Eng Pltn (I4) in CG RR and has bought 1")
    rr.refused("buy", "M4", "--side", "german", contains="available only from 19 N")


def test_rr_on_map_setup_costs(rr):
    assert rr.json("buy", "I1", "--side", "german", "--on-map")["cpp"] == 28 + 8  # an 'I' company: +8
    assert rr.json("buy", "I4", "--side", "german", "--on-map")["cpp"] == 14 + 3
    assert rr.json("buy", "G1", "--side", "german", "--on-map")["cpp"] == 8  # G: Standard on-map setup free
    rr.refused("buy", "V1", "--side", "german", "--on-map", contains="may not set up on board")  # Panzer Lehr
    rr.refused("buy", "V4", "--side", "canadian", "--on-map", contains="may not set up on board")
    assert rr.json("buy", "O1", "--side", "german", "--pre-registered", "2")["cpp"] == 5 + 2
    rr.refused("buy", "O2", "--side", "german", "--pre-registered", "3", contains="at most 2 Pre-Registered hexes")
    rr.refused("buy", "I1", "--side", "german", "--map-group", "St", contains="RR RG are not bought for a Map Group")


def test_rr_scenario_has_no_winner_and_attack_chits_are_limited(rr):
    rr.ok("step", "scenario")
    rr.ok("step", "2.503")
    rr.refused("scenario-end", "--lvp", "german=1", "--lvp", "canadian=1", "--winner", "german",
               contains="RR CG scenarios have no winner")
    rr.ok("scenario-end", "--lvp", "german=1", "--lvp", "canadian=1")
    for date in ("19 PM", "19 N"):  # 2.5221: the Canadians are limited to 2 Attack Chits
        rr.to("2.522", date)
        rr.ok("initiative", "--chit", "german=idle", "--chit", "canadian=attack")
    rr.to("2.522", "20 AM")
    refused = rr.refused("initiative", "--chit", "german=idle", "--chit", "canadian=attack",
                         contains="used its 2 Attack Chits")
    assert "(2.5221)" in refused.stderr


def test_canadian_tanks_at_night_reminder(rr):
    rr.to("2.514", "19 N")
    reminders = rr.json("status")["reminders"]
    assert [r["rule"] for r in reminders] == ["2.51428"]
    assert "remember 2.51428" in rr.ok("status").stdout
    rr.to("2.514", "20 AM")
    assert rr.json("status")["reminders"] == []


def test_rr_initial_only_fortifications(rr):
    rr.to("2.520", "19 PM")
    rr.refused("fortify", "trench", "--side", "german", "--setup-area", "A", contains="only for the Initial Scenario")


def test_recon_attacked_drm_is_derived_from_the_chits(rr):
    """RR 2.521: '-1 Attacked in the previous CG Scenario' comes from the recorded chits, never typed.
    The Initial Scenario attacks nobody (2.5221: no Attack Chit is selected for it)."""
    def recon(side: str) -> list[str]:
        rr.ok("roll", "2.521", "--side", side, "--dice", "3")
        return [d["key"] for d in rr.json("log")[-1]["drms"]]

    rr.to("2.521", "19 PM")  # after the Initial Scenario
    assert recon("canadian") == [] and recon("german") == []
    rr.to("2.522", "19 PM")
    rr.ok("initiative", "--chit", "german=attack", "--chit", "canadian=idle")  # a German Assault
    rr.to("2.521", "19 N")
    rr.refused("roll", "2.521", "--side", "canadian", "--dice", "3", "--drm", "attacked", contains="automatic")
    assert recon("canadian") == ["attacked"]  # Final 2, not 3
    assert rr.json("log")[-1]["final"] == 2
    assert recon("german") == []
    rr.to("2.522", "19 N")
    rr.ok("initiative", "--chit", "german=idle", "--chit", "canadian=idle")  # an Idle Date: no scenario
    rr.to("2.521", "20 AM")
    assert recon("canadian") == ["attacked"]  # the CG scenario before 20 AM is still the German Assault of 19 PM
    assert rr("audit").exit_code == 0
