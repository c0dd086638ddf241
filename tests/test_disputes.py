"""Settling disputes: a roll that is not due is refused with one line and nothing written; a DRM the log
decides is derived, not declared; a winner the rules decide cannot be overridden. And for each decision, a
forged event written straight into the store (bypassing the commands) is named by the audit and refused by
`import`: the audit calls the same decisions as the commands."""

from __future__ import annotations

import json

import pytest

from ledger.application import open_ledger
from ledger.events import CampaignStarted, DiceRolled, RGPurchased, StepOpened


def forge(db, *facts) -> None:
    """Given a log holding facts the commands would have refused (a forger's, or a bug's)."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    for fact in facts:
        campaign.record(fact)
    ledger.save(campaign)


def audit(cli) -> list[dict]:
    result = cli("audit", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report["findings"]


# ---- what is due ---------------------------------------------------------------------------------------
def test_a_second_cpp_replenishment_roll_is_refused(at):
    kgp = at("8.616", "19 PM")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "2,4")
    cpp = kgp.json("status")["cpp"]
    kgp.refused("roll", "8.616", "--side", "german", "--dice", "1,1", contains="rolled already by the German side "
                                                                                 "on 19 PM")
    assert kgp.json("status")["cpp"] == cpp
    kgp.ok("roll", "8.616", "--side", "us", "--dice", "2,4")  # the other side's item is its own


def test_undo_makes_the_roll_due_again(at):
    kgp = at("8.616", "19 PM")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "2,4")
    kgp.ok("undo")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "2,4")  # the same dice: a correction, not a re-roll
    assert audit(kgp) == []


def test_a_forged_second_cpp_roll_is_named_by_the_audit(at):
    kgp = at("8.616", "19 PM")
    kgp.ok("roll", "8.616", "--side", "german", "--dice", "2,4")
    first = kgp.json("log")[-1]
    ledger = open_ledger(str(kgp.db))
    campaign = ledger.campaign(None)
    stored = ledger.history(None)[-1].fact
    forged = DiceRolled(**{f: getattr(stored, f) for f in stored.__struct_fields__ if f != "action"},
                        action=campaign.next_action)
    forge(kgp.db, forged)
    found = audit(kgp)
    assert [f["kind"] for f in found] == ["due"]
    assert found[0]["version"] == first["version"] + 1 and "rolled already" in found[0]["message"]


def test_a_second_strength_roll_for_one_rg_is_refused(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"))
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "6,4")  # Depleted
    kgp.refused("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "1,1", contains="not due for RG I2")


def test_a_follow_up_roll_needs_its_rg_and_only_the_tables_its_chart_line_names(at):
    kgp = at("8.619", "21 AM").with_rgs(("I1", "us"), ("I2", "german"))
    kgp.refused("roll", "8.6202", "--side", "us", "--dice", "3", contains="name it with --rg")
    kgp.refused("roll", "8.6206/armor", "--side", "us", "--rg", "I1#1", "--dice", "3,3", contains="not due for RG I1")
    kgp.refused("roll", "8.6202", "--side", "us", "--rg", "I2#1", "--dice", "3", contains="no RG")
    # a Full-Strength RG rolls no SW drs: 8.6204 is due only for a Depleted one
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "1,1")
    kgp.refused("roll", "8.6204", "--side", "german", "--rg", "I2#1", "--dice", "3", contains="not due for RG I2")


def test_depleted_rg_sw_drs_are_due_and_the_step_waits_for_them(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"))
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "6,4")  # Final 12: Depleted
    needs = [n["table"] for n in kgp.json("status")["needs"]]
    assert needs == ["8.6204", "8.6204", "8.6204"]
    kgp.refused("step", "next", contains="roll 8.6204 --side german --rg")


def test_the_ammunition_shortage_roll_stops_once_the_shortage_applies(at):
    kgp = at("8.618", "20 PM")
    kgp.ok("roll", "8.618", "--side", "german", "--dice", "6,6")  # Original 12: the shortage applies
    assert "german_ammo_shortage" in kgp.json("status")["flags"]
    kgp.ok("step", "next")
    while kgp.json("status")["step"] != "8.618" or kgp.json("status")["cg_date"] == "20 PM":
        kgp.satisfy(kgp.json("status"))
        kgp.ok("step", "next")
    kgp.refused("roll", "8.618", "--side", "german", "--dice", "2,2", contains="already does")


def test_a_unit_rolls_once_and_its_name_is_read_loosely(kgp, at):
    cli = at("8.610")
    cli.ok("roll", "8.610", "--side", "us", "--dice", "2", "--for", "StJ19 8-1")
    cli.refused("roll", "8.610", "--side", "us", "--dice", "5", "--for", "stj19  8-1 ", contains="rolled already")
    cli.ok("roll", "8.610", "--side", "us", "--dice", "5", "--for", "StK20 7-0")


def test_a_reroll_after_undo_is_found_whatever_the_spacing_of_the_unit(at):
    cli = at("8.610")
    cli.ok("roll", "8.610", "--side", "us", "--dice", "5", "--for", "9-1")
    cli.ok("undo")
    cli.ok("roll", "8.610", "--side", "us", "--dice", "1", "--for", " 9-1 ")
    assert [f["kind"] for f in audit(cli)] == ["reroll"]


# ---- what the log decides ------------------------------------------------------------------------------
def test_the_rg_type_decides_the_vehicle_drm(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"), ("V1", "german"))
    infantry = kgp.json("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "3,4")
    assert "vehicle_or_gun" not in [d["key"] for d in infantry["drms"]]
    vehicle = kgp.json("roll", "8.6201", "--side", "german", "--rg", "V1#1", "--dice", "3,4")
    assert {"key": "vehicle_or_gun", "value": -1, "kind": "automatic"} in [
        {k: d[k] for k in ("key", "value", "kind")} for d in vehicle["drms"]]



def test_a_winner_the_rules_decide_cannot_be_overridden(at):
    cli = at("8.603", "19 PM")
    assert cli.json("status")["scenario"] == "German Assault"
    before = cli.events()
    cli.refused("scenario-end", "--lvp", "german=0", "--lvp", "us=5", "--winner", "german",
                contains="the rules decide it, not --winner")
    assert cli.events() == before
    assert cli.json("scenario-end", "--lvp", "german=0", "--lvp", "us=5")["winner"] == "us"


# ---- forged events, straight into the store: the audit names each -------------------------------------
def test_a_forged_purchase_for_negative_cpp_is_named(at):
    kgp = at("8.619", "21 AM")
    ledger = open_ledger(str(kgp.db))
    action = ledger.campaign(None).next_action
    forge(kgp.db, RGPurchased(action=action, side="german", rg="I2", group_type="SS Inf Pltn", cpp=-500,
                              map_group="St", objective="StJ19", rolls=("8.6201",)))
    found = audit(kgp)
    assert [f["kind"] for f in found] == ["decision"]
    assert "RGPurchased" in found[0]["message"]


def test_a_forged_rg_in_no_chart_is_named(at):
    kgp = at("8.619", "21 AM")
    action = open_ledger(str(kgp.db)).campaign(None).next_action
    forge(kgp.db, RGPurchased(action=action, side="german", rg="Z9", group_type="Tiger II", cpp=0, map_group="St"))
    found = audit(kgp)
    assert found and "no RG 'Z9'" in found[0]["message"]


def test_a_forged_step_past_an_open_need_is_named(at):
    kgp = at("8.616", "19 PM")
    action = open_ledger(str(kgp.db)).campaign(None).next_action
    forge(kgp.db, StepOpened(action=action, step="8.619", skipped=("8.617", "8.618")))
    found = audit(kgp)
    assert [f["kind"] for f in found] == ["step"] and "still needs" in found[0]["message"]


def test_a_forged_second_campaign_started_is_named_and_refused_on_import(at, tmp_path, make_db):
    from conftest import Cli

    kgp = at("8.610")
    forge(kgp.db, CampaignStarted(name="Stoumont", system="kgp", cg="I", cg_date="19 AM",
                                  start_cpp={"german": 999, "us": 0}))
    found = audit(kgp)
    assert [f["kind"] for f in found] == ["decision"] and "second CampaignStarted" in found[0]["message"]
    assert kgp.json("status")["cpp"]["german"] != 999
    bundle = tmp_path / "b.json"
    kgp.ok("export", "--since", "0", str(bundle))
    other = Cli(make_db())
    other.refused("import", str(bundle), contains="the rules do not bear out")
