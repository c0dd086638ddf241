"""The worked examples the rules print, reproduced through the CLI with the dice entered."""

from __future__ import annotations


def test_8_6201_german_rg_strength_example(at):
    # 8.6205 EX: CG I, 21 AM; two SS Inf Pltn, a Pz IV Sect, an SS PzGr HW Pltn; +2 DRM "two days past
    # 19 December"; Final DR 12, 6, 8 and 13: Depleted, Full, Full, Depleted.
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"), ("I2", "german"), ("V1", "german"), ("HW1", "german"))
    cases = [("6,4", "I2#1", 12, "D"), ("2,2", "I2#2", 6, "F"), ("3,4", "V1#1", 8, "F"), ("5,6", "HW1#1", 13, "D")]
    for dice, rg, final, code in cases:  # the V-type's -1 is derived from the RG, not declared
        roll = kgp.json("roll", "8.6201", "--side", "german", "--rg", rg, "--dice", dice)
        assert roll["final"] == final
        assert roll["code"] == code
        assert {"key": "days_after_19", "value": 2} in [{"key": d["key"], "value": d["value"]} for d in roll["drms"]]
        assert roll["secret"] is True  # 8.6201: a Secret DR


def test_8_6204_depleted_platoon_sw_example(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"))
    kgp.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "6,4")  # Final 12: Depleted
    # 8.6205 EX: Depleted SS Inf Pltn, one dr per SW: LMG 6 and 4, PSK 3 -> one LMG and the PSK.
    results = [kgp.json("roll", "8.6204", "--side", "german", "--rg", "I2#1", "--dice", d)["code"] for d in ("6", "4", "3")]
    assert results == ["forfeit", "received", "received"]
    kgp.refused("roll", "8.6204", "--side", "german", "--rg", "I2#1", "--dice", "1", contains="not due for RG I2")


def test_8_606_escape_example(at):
    kgp = at("8.606")
    # 8.606 EX: U.S. squad in German Setup Area A: Original 6, +1 enemy Setup Area, +1 per HS-equivalent > one.
    squad = kgp.json("roll", "8.606/infantry", "--side", "us", "--dice", "2,4",
                     "--drm", "enemy_setup_area", "--drm", "hs_equivalents=2", "--for", "squad")
    assert (squad["original"], squad["final"], squad["result"]) == (6, 8, "Escapes")
    # The unarmed truck: Original 7, Final 9 "Abandoned; crew Escapes".
    truck = kgp.json("roll", "8.606/vehicle", "--side", "us", "--dice", "3,4", "--drm", "unarmed", "--drm", "enemy_setup_area",
                     "--for", "truck")
    assert (truck["final"], truck["code"]) == (9, "abandoned")
    # The German tank escapes on a Final 7; the two German squads in No Man's Land roll Original 8 and 10.
    assert kgp.json("roll", "8.606/vehicle", "--side", "german", "--dice", "3,4")["result"] == "Escapes"
    first = kgp.json("roll", "8.606/infantry", "--side", "german", "--dice", "4,4", "--drm", "hs_equivalents=2", "--for", "A")
    second = kgp.json("roll", "8.606/infantry", "--side", "german", "--dice", "5,5", "--drm", "hs_equivalents=2", "--for", "B")
    assert (first["final"], first["code"]) == (9, "replaced")
    assert (second["final"], second["code"]) == (11, "replaced_reduced")
    # The Isolated squad in the J19 steeple: "+3 Escape DRM".
    steeple = kgp.json("roll", "8.606/infantry", "--side", "us", "--dice", "1,1", "--drm", "isolated", "--drm", "hs_equivalents=2")
    assert sum(d["value"] for d in steeple["drms"]) == 3


def test_8_606_original_2_heat_of_battle_note(at):
    kgp = at("8.606")
    roll = kgp.json("roll", "8.606/infantry", "--side", "us", "--dice", "1,1")
    assert roll["result"] == "Escapes"
    assert any("Heat of Battle" in n for n in roll["notes"])


def test_8_6122_san_example(at):
    kgp = at("8.612")
    # 8.6122 EX: U.S. SAN 6, +2 drm: an Original dr >= 3 lowers the SAN to 4.
    lowered = kgp.json("roll", "8.6122", "--side", "us", "--drm", "san=6", "--dice", "3")
    kgp.ok("undo")  # 8.6122: one SAN dr per side and CG Date; the other outcome, after an undo
    kept = kgp.json("roll", "8.6122", "--side", "us", "--drm", "san=6", "--dice", "2")
    assert (lowered["final"], lowered["code"]) == (5, "reduced")
    assert (kept["final"], kept["code"]) == (4, "unchanged")


def test_8_6202_quality_example(at):
    kgp = at("8.619", "21 AM").with_rgs(("I1", "us"), ("I6", "us"))
    # 8.6202 EX: Original dr 5 for the Inf Pltn -> 2nd Line; Final dr 1 for the Arm'd Inf Pltn -> Elite.
    assert kgp.json("roll", "8.6202", "--side", "us", "--rg", "I1#1", "--dice", "5")["code"] == "second_line"
    armored = kgp.json("roll", "8.6202", "--side", "us", "--rg", "I6#1", "--dice", "2")  # Arm'd: from the RG
    assert (armored["final"], armored["code"]) == (1, "elite")


def test_8_6162_cpp_replenishment(at, tmp_path):
    # 8.6162 EX: German CPP Base # 30 at CG I 19 PM, DR 6: 30 - 6 = 24. The chart prints 35 (the chart
    # wins: 29); a player whose printing says 30 loads an override and gets the example's 24.
    kgp = at("8.616", "19 PM")
    assert kgp.json("roll", "8.616", "--side", "german", "--dice", "2,4")["value"] == 29
    kgp.ok("undo")
    override = tmp_path / "cpp.toml"
    override.write_text(
        '[[chart]]\nid = "8.6161"\nrule = "8.6161"\ntitle = "CPP Base # Chart (our printing)"\n'
        'entries = [ { cg = "I", date = "19 PM", values = { german = 30, us = 35 } } ]\n'
    )
    kgp.ok("rules", "load", str(override))
    assert kgp.json("roll", "8.616", "--side", "german", "--dice", "2,4")["value"] == 24
    assert kgp("audit").exit_code == 0


def test_8_6162_no_replenishment_before_the_initial_scenario(kgp):
    # 8.6162: the 19 AM Repl box is shaded. Step 8.616 is not a † step, so it never opens before the
    # Initial Scenario; rolling it there is refused with the step's number.
    result = kgp.refused("roll", "8.616", "--side", "german", "--dice", "2,4", contains="rolled in step 8.616")
    assert "(8.616)" in result.stderr


def test_kgp13_out_of_gas_per_day_after_21(at):
    cli = at("scenario", "22 AM", cg="III")
    roll = cli.json("roll", "KGP13", "--side", "german", "--dice", "5,6")
    assert roll["final"] == 12 and roll["code"] == "out_of_gas"  # +1: one day after 21 December


def test_kgp3_mist_change_pm(at):
    kgp = at("scenario", "19 PM")
    roll = kgp.json("roll", "KGP3", "--side", "us", "--dice", "2,2")
    assert roll["final"] == 3 and roll["code"] == "decrease"


def test_kgp8_cellar_reads_original_colored_die(at):
    kgp = at("scenario")
    assert kgp.json("roll", "KGP8", "--side", "us", "--dice", "1,4", "--for", "M4 StJ19")["code"] == "falls"
    assert kgp.json("roll", "KGP8", "--side", "us", "--dice", "6,3", "--for", "M4 StK20")["code"] == "no_fall"
