"""The RR rules data (ledger/rules/rr/): every table loads with its 2.5xxx rule number, covers every Final roll
it can see exactly once, and answers the printed boundaries. Each boundary test cites the OCR line of
shared/rules/003_5b3a1900f219baf1.txt it checks ('L64' = line 64)."""

from __future__ import annotations

import re

import json

import pytest

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.store.campaign import first_step
from cgledger.ledger.errors import BadInput, UnknownTable
from cgledger.ledger.rules import Situation

R = rulesmod.load("rr")
RULE_NUMBER = re.compile(r"^2\.5\d{2,4}$")


# ---- helpers ---------------------------------------------------------------------------------------------
def at(table_id: str, final: int) -> str:
    """The code of the one row covering `final` (row.covers)."""
    rows = [row for row in R.tables[table_id].rows if row.covers(final)]
    assert len(rows) == 1, (table_id, final, [r.label() for r in rows])
    return rows[0].code


def situation(side: str = "german", date: str = "20 AM") -> Situation:
    return Situation(side, "RR", R.calendar.parse(date))


def roll(table_id: str, faces, declared=None, side: str = "german", date: str = "20 AM"):
    """Through the engine: declared DRMs named by the player, automatic ones derived from the situation
    ('depleted': the RG the roll is for was Depleted by its 2.5191 roll, which the log decides)."""
    from msgspec.structs import replace

    declared = dict(declared or {})
    where = situation(side, date)
    if "depleted" in declared:
        declared.pop("depleted")
        where = replace(where, rg="I1", rg_strength="D")
    if "attacked" in declared:  # the log decides it from the chits (2.521): stands for the situation here
        declared.pop("attacked")
        where = replace(where, attacked=True)
    return R.resolve(R.tables[table_id], tuple(faces), declared, where)


# ---- every table -------------------------------------------------------------------------------------------
EXPECTED = {
    "2.506/infantry", "2.506/vehicle", "2.510", "2.5122", "2.513", "2.513/personnel", "2.513/vehicle",
    "2.5141b", "2.5141d", "2.5142", "2.515", "2.516", "2.5191", "2.5192", "2.5193/company",
    "2.5193/infantry", "2.5193/armor", "2.521", "2.5223a", "2.525",
}


def test_every_rr_dice_table_is_there():
    assert set(R.tables) == EXPECTED


@pytest.mark.parametrize("table", list(R.tables.values()), ids=lambda t: t.id)
def test_table_has_a_2_5_rule_number_and_its_step(table):
    assert RULE_NUMBER.match(table.rule), table.rule
    assert table.id == table.rule or table.id.startswith(table.rule)
    assert table.step in R.steps or table.step == "scenario"
    assert table.note, "every RR table says where it was read"


# ---- system ------------------------------------------------------------------------------------------------
def test_sides_calendar_and_cg():
    assert R.system.id == "rr" and list(R.system.sides) == ["german", "canadian"]
    # L186-200: 19 AM … 21 Night, Interlude AM/PM/Night, 26 AM
    assert [d.text for d in R.calendar] == [
        "19 AM", "19 PM", "19 N", "20 AM", "20 PM", "20 N", "21 AM", "21 PM", "21 N",
        "Interlude AM", "Interlude PM", "Interlude N", "26 AM",
    ]
    assert R.calendar.parse("21 Night").text == "21 N" and R.calendar.parse("Interlude Night").day is None
    (cg,) = R.system.cg
    assert (cg.id, cg.start, cg.last) == ("RR", "19 AM", "26 AM")
    assert cg.attack_chits == {"canadian": 2, "german": 6}  # L393


def test_steps_and_their_markers():
    # L2-24 step list, plus 2.524/2.525 (L408-409)
    assert [s.id for s in R.system.steps] == [f"2.5{n:02d}" for n in range(1, 26)]
    markers = {s.id: s.markers for s in R.system.steps}
    # printed '†' (L2-4): the steps to CG-Scenario End -> engine '§'
    assert markers["2.501"] == markers["2.502"] == markers["2.503"] == "§"
    # printed '*††' (L19-21): the only steps before the Initial Scenario -> engine '†'
    assert all(markers[s] == "†*" for s in ("2.518", "2.519", "2.520"))
    # printed '*' (L13-18, L22-23)
    assert all(markers[s] == "*" for s in ("2.512", "2.513", "2.514", "2.515", "2.516", "2.517", "2.521", "2.522"))
    assert all(markers[s] == "" for s in ("2.504", "2.511", "2.523", "2.524", "2.525"))
    assert "'*†'" in R.steps["2.503"].note and R.steps["2.512"].new_cg_date
    assert first_step("rr") == "2.518"  # a new RR campaign opens on the first '††' step
    assert next(s.id for s in R.system.steps if "*" in s.markers) == "2.512"  # Idle Date loop


def test_initiative_matrix():
    # L395-398 (RR prints 'Idle Date'; stored under the engine's 'Idle Day')
    assert R.system.initiative == {
        "german:attack/canadian:attack": "Dual Attack", "german:attack/canadian:idle": "German Assault",
        "german:idle/canadian:attack": "Canadian Assault", "german:idle/canadian:idle": "Idle Day",
    }


# ---- 2.506 Escape --------------------------------------------------------------------------------------------
def test_escape_infantry_boundaries():
    # L64 '≥ 8 | Escapes1' read as ≤ 8; L65-67 9, 10, 11; L68 '≤ 12 | All units and Equipment Eliminated' read as ≥ 12
    assert at("2.506/infantry", -6) == "escapes"
    assert at("2.506/infantry", 8) == "escapes"
    assert at("2.506/infantry", 9) == "replaced"
    assert at("2.506/infantry", 10) == "casualty_reduced"
    assert at("2.506/infantry", 11) == "replaced_reduced"
    assert at("2.506/infantry", 12) == "eliminated"
    assert at("2.506/infantry", 40) == "eliminated"
    # L77 '-1 if current CG Date is Night*': automatic, infantry only
    assert roll("2.506/infantry", (4, 5), date="20 Night").code == "escapes"  # 9 - 1
    assert roll("2.506/infantry", (4, 5), date="20 PM").code == "replaced"
    # L81 '+1 per HS-equivalent > one HS': a squad + a HS = 3 HS-equivalents -> +2; L83 '+2 if Isolated'
    assert roll("2.506/infantry", (3, 3), {"hs_equivalents": 3, "isolated": None}).final == 10
    # L69 note 1: an Original 2 DR
    assert "Heat of Battle" in roll("2.506/infantry", (1, 1)).notes[0]


def test_escape_vehicle_boundaries():
    # L64-68 Mobile Vehicle column
    assert at("2.506/vehicle", -5) == "escapes"
    assert at("2.506/vehicle", 8) == "escapes"
    assert at("2.506/vehicle", 9) == "abandoned"
    assert at("2.506/vehicle", 10) == "eliminated_crew_escapes"
    assert at("2.506/vehicle", 11) == "abandoned_crew_eliminated"
    assert at("2.506/vehicle", 12) == "eliminated"
    assert at("2.506/vehicle", 20) == "eliminated"
    # L77/L84 Night is NA to vehicle Escape; L76 '-1 if CT AFV'; L83 '+1 if stunned'
    assert roll("2.506/vehicle", (4, 5), date="20 Night").code == "abandoned"
    assert roll("2.506/vehicle", (4, 5), {"ct_afv": None}).code == "escapes"
    assert roll("2.506/vehicle", (4, 5), {"stunned": None}).code == "eliminated_crew_escapes"
    keys = {d.key for d in R.tables["2.506/vehicle"].drm}
    assert not keys & {"night", "hs_equivalents", "excess_pp", "encircled"}  # L84 '* NA to vehicle Escape attempt'


# ---- 2.510 Wounded Leaders ------------------------------------------------------------------------------------
def test_wounded_leader_boundaries():
    # L100 '≤ 1 | Retained unwounded', L101 '2-4 | Retained wounded', L102 '≥ 5 | Eliminated (evacuated)'
    assert at("2.510", 0) == "unwounded"
    assert at("2.510", 1) == "unwounded"
    assert at("2.510", 2) == "wounded"
    assert at("2.510", 4) == "wounded"
    assert at("2.510", 5) == "eliminated"
    assert at("2.510", 7) == "eliminated"
    # L105 '+1 if Isolated', L106 '-1 if Heroic'
    assert roll("2.510", (4,), {"isolated": None}).code == "eliminated"
    assert roll("2.510", (2,), {"heroic": None}).code == "unwounded"


# ---- 2.5122 SAN --------------------------------------------------------------------------------------------
def test_san_adjustment_boundaries():
    # L112 'If a SAN is > 5 ... +drm equal to the current SAN minus 4. A Final dr > 5 ... reduces' ('>' read as '≥')
    assert at("2.5122", 2) == "unchanged"
    assert at("2.5122", 4) == "unchanged"
    assert at("2.5122", 5) == "reduced"
    assert at("2.5122", 20) == "reduced"
    assert roll("2.5122", (3,), {"san": 5}).code == "unchanged"  # 3 + 1
    assert roll("2.5122", (4,), {"san": 5}).code == "reduced"  # 4 + 1
    assert roll("2.5122", (1,), {"san": 8}).final == 5
    with pytest.raises(BadInput):
        roll("2.5122", (6,), {"san": 4})  # a SAN below 5 makes no dr
    with pytest.raises(BadInput):
        roll("2.5122", (6,))  # the SAN must be given


# ---- 2.513 Shift ---------------------------------------------------------------------------------------------
def test_shift_boundaries():
    # L118 '≤ 8 | Shifted safely', L119 '9-10 | No Shift*', L120 '11 | Shifted with Casualties†', L121 '≥ 12 | All ... Eliminated'
    assert at("2.513", 1) == "shifted"
    assert at("2.513", 8) == "shifted"
    assert at("2.513", 9) == "no_shift"
    assert at("2.513", 10) == "no_shift"
    assert at("2.513", 11) == "casualties"
    assert at("2.513", 12) == "eliminated"
    assert at("2.513", 25) == "eliminated"
    # L123 '+1 per every five Uncontrolled-Territory hexes'
    assert roll("2.513", (4, 4), {"uncontrolled_hexes": 14}).final == 10
    assert R.tables["2.513"].secret  # L115 'Make a separate Secret DR'


def test_shift_casualty_boundaries():
    # L125 '† Each Personnel unit suffers Casualty Reduction on a subsequent dr ≥ 4. Each vehicle is Eliminated on a subsequent dr ≥ 4'
    for table in ("2.513/personnel", "2.513/vehicle"):
        assert at(table, 1) == "none"
        assert at(table, 3) == "none"
        assert at(table, 4) in ("reduced", "eliminated")
        assert at(table, 6) == at(table, 4)
    assert at("2.513/vehicle", 4) == "eliminated" and at("2.513/personnel", 4) == "reduced"


# ---- 2.514 Repair ------------------------------------------------------------------------------------------
def test_immobilization_repair_boundaries():
    # L131 '≤ 2 | Becomes Mobile*', L132 '≥ 3 | No change'; L135-137 three +1 drm
    assert at("2.5141b", 1) == "mobile"
    assert at("2.5141b", 2) == "mobile"
    assert at("2.5141b", 3) == "none"
    assert at("2.5141b", 9) == "none"
    assert roll("2.5141b", (1,), {"isolated": None, "front_line": None}).code == "none"
    assert roll("2.5141b", (2,), side="german").code == "mobile"  # no German DRM in RR


def test_stun_recovery_boundaries():
    # L143 '≤ 2 | Recover, remove Stun', L144 '3-5 | Retain Stun', L145 '≥ 6 | Eliminated'; L148-149 +1 Isolated, +1 Captured
    assert at("2.5141d", 1) == "recovered"
    assert at("2.5141d", 2) == "recovered"
    assert at("2.5141d", 3) == "stunned"
    assert at("2.5141d", 5) == "stunned"
    assert at("2.5141d", 6) == "eliminated"
    assert at("2.5141d", 8) == "eliminated"
    assert roll("2.5141d", (4,), {"isolated": None, "captured": None}).code == "eliminated"


def test_weapon_repair_boundaries():
    # L153 '≤ 1 | Repaired', L154 '≥ 2 | Eliminated*'; L157-161 -1 vehicular, -1 FT MA, -x Repair Number, +1, +1
    assert at("2.5142", -20) == "repaired"
    assert at("2.5142", 1) == "repaired"
    assert at("2.5142", 2) == "eliminated"
    assert at("2.5142", 8) == "eliminated"
    assert roll("2.5142", (3,), {"repair_number": 2}).code == "repaired"  # 3 - 2
    assert roll("2.5142", (4,), {"repair_number": 2}).code == "eliminated"
    assert roll("2.5142", (3,), {"vehicular": None, "ft_ma": None}).final == 1
    drm = next(d for d in R.tables["2.5142"].drm if d.key == "repair_number")
    assert drm.kind == "declared"


# ---- 2.515 Removal ------------------------------------------------------------------------------------------
def test_removal_boundaries():
    # L175 '≤ 3 | Eliminated*', L176 '≥ 4 ** | No Effect'; L179-181 +2, +1, -1 per Assault Engineer HS-equivalent
    assert at("2.515", -10) == "eliminated"
    assert at("2.515", 3) == "eliminated"
    assert at("2.515", 4) == "none"
    assert at("2.515", 9) == "none"
    assert roll("2.515", (5,), {"assault_engineers": 2}).code == "eliminated"
    assert roll("2.515", (2,), {"front_line": None}).code == "none"
    assert "Casualty Reduction" in roll("2.515", (6,)).notes[0]  # L183 '** An Original dr of 6'


# ---- 2.516 CPP ------------------------------------------------------------------------------------------------
def test_cpp_base_number_chart():
    # L186 'CG Date | Canadian Base # | German Base #', L188-200
    printed = {
        "19 AM": (0, 0), "19 PM": (40, 80), "19 Night": (25, 80), "20 AM": (40, 60), "20 PM": (40, 75),
        "20 Night": (25, 75), "21 AM": (40, 40), "21 PM": (40, 40), "21 Night": (25, 40),
        "Interlude AM": (40, 40), "Interlude PM": (40, 40), "Interlude Night": (50, 40), "26 AM": (25, 50),
    }
    entries = {R.calendar.parse(e.date).text: e for e in R.charts["2.5161"].entries}
    assert len(entries) == len(printed)
    for date, (canadian, german) in printed.items():
        assert entries[R.calendar.parse(date).text].values == {"canadian": canadian, "german": german}
        assert entries[R.calendar.parse(date).text].cg == "RR"


def test_cpp_replenishment_is_base_minus_dr():
    # L184 'the CPP Base Number minus a secret DR ... [EXC: no DR is made for 19AM]'
    assert roll("2.516", (3, 4), side="german", date="19 PM").value == 73  # 80 - 7
    assert roll("2.516", (3, 4), side="canadian", date="19 PM").value == 33  # 40 - 7
    assert roll("2.516", (6, 6), side="canadian", date="Interlude Night").value == 38  # 50 - 12
    assert roll("2.516", (1, 1), side="german", date="26 AM").value == 48  # 50 - 2
    with pytest.raises(BadInput, match="not rolled before 19 PM"):
        roll("2.516", (3, 4), side="german", date="19 AM")
    assert R.tables["2.516"].secret and R.tables["2.516"].effect == "cpp_replenishment"


def test_weather_chart():
    # L204-220: EC per CG Date, no dice
    entries = {R.calendar.parse(e.date).text: e.text for e in R.charts["2.517"].entries}
    assert len(entries) == 13
    assert entries["19 AM"] == {"ec": "Wet/…", "weather": "Overcast"}  # L204-205 'Wet/' cut
    assert entries["20 AM"]["weather"] == "Overcast/V. Heavy Mist*"  # L210
    assert entries["20 N"] == {"ec": "Moist", "weather": "Overcast", "moon_cloud": "Overcast"}  # L213
    assert entries["26 AM"] == {"ec": "Moist", "weather": "Clear"}  # L220
    assert not any(t.effect == "weather" for t in R.tables.values())


# ---- 2.519 RG Strength, SW, Leaders -------------------------------------------------------------------------
def test_rg_strength_boundaries():
    # L328 '≤ 8 | Full', L329 '≥ 9 | Depleted', L330 '-1 DRM if Canadian'
    assert at("2.5191", 1) == "F"
    assert at("2.5191", 8) == "F"
    assert at("2.5191", 9) == "D"
    assert at("2.5191", 12) == "D"
    assert roll("2.5191", (4, 5), side="german").code == "D"
    assert roll("2.5191", (4, 5), side="canadian").code == "F"  # 9 - 1
    assert roll("2.5191", (5, 5), side="canadian").code == "D"
    # L325 '[EXC: Canadian RG I2]'
    assert "2.5191" not in R.rgs[("canadian", "I2")].rolls


def test_sw_allotment_boundaries():
    # L331 'A Depleted RG must make a dr ≤ 4 to receive each SW'
    assert at("2.5192", 1) == "received"
    assert at("2.5192", 4) == "received"
    assert at("2.5192", 5) == "forfeit"
    assert at("2.5192", 6) == "forfeit"


def test_company_leader_boundaries():
    # L345 '≤ 1 | 10-3, 9-1, 8-1' ... L355 '11 | 8-0, 6+1', L356 '≥ 13 | 7-0, 6+1' read as ≥ 12; L357 +2 Depleted, -2 HQ Pltn
    assert at("2.5193/company", 0) == "10-3/9-1/8-1"
    assert at("2.5193/company", 1) == "10-3/9-1/8-1"
    assert at("2.5193/company", 2) == "10-2/8-1/8-0"  # L346
    assert at("2.5193/company", 6) == "8-1/8-0/7-0"  # L350
    assert at("2.5193/company", 7) == "9-1/8-0"  # L351
    assert at("2.5193/company", 11) == "8-0/6+1"
    assert at("2.5193/company", 12) == "7-0/6+1"
    assert at("2.5193/company", 14) == "7-0/6+1"
    table = R.tables["2.5193/company"]
    assert R.declared(table, "hq_platoon", None, situation("german")).value == -2 and at("2.5193/company", 2 - 2) == "10-3/9-1/8-1"
    # L357 '+2 DRM if Depleted' is decided by the log: automatic once the RG's 2.5191 roll gave 'D' (a tester's
    # Depleted company rolled an Original 10 and got Final 10 when the +2 was left to the player: it is 12)
    depleted = next(d for d in table.drm if d.key == "depleted")
    assert (depleted.kind, depleted.value, depleted.rg_strength) == ("automatic", 2, "D")
    assert at("2.5193/company", 10 + depleted.value) == "7-0/6+1"
    assert "≥ 13" in R.tables["2.5193/company"].note


def test_platoon_leader_boundaries():
    # L361 '2 | 10-2 | 10-2' … L365 '6-7 | 8-1 |' … L368 '10 | 6+1 |', L369 '≥ 11 | - |'; L370 '+1 DRM if Depleted'
    assert at("2.5193/infantry", 2) == "10-2"
    assert at("2.5193/infantry", 4) == "9-2"  # L363
    assert at("2.5193/infantry", 5) == "9-1"
    assert at("2.5193/infantry", 6) == "8-1"
    assert at("2.5193/infantry", 7) == "8-1"
    assert at("2.5193/infantry", 8) == "8-0"
    assert at("2.5193/infantry", 10) == "6+1"
    assert at("2.5193/infantry", 11) == "none"
    assert at("2.5193/infantry", 13) == "none"
    # Armor column: L361-364 10-2, 9-2, 9-1, 8-1; empty from 6 on
    assert at("2.5193/armor", 2) == "10-2"
    assert at("2.5193/armor", 4) == "9-1"
    assert at("2.5193/armor", 5) == "8-1"
    assert at("2.5193/armor", 6) == "none"
    assert at("2.5193/armor", 13) == "none"
    for table_id in ("2.5193/infantry", "2.5193/armor"):
        depleted = next(d for d in R.tables[table_id].drm if d.key == "depleted")
        assert (depleted.kind, depleted.value, depleted.rg_strength) == ("automatic", 1, "D")
    assert at("2.5193/armor", 4 + 1) == "8-1"  # a Depleted RG's Original 4


# ---- 2.521 Recon ----------------------------------------------------------------------------------------------
def test_recon_value_and_cost():
    # L387 'deducts 3 CPP (plus additional CPP for a beneficial drm)'; L389 '+x | Spent x CPP extra (x ≤ 3)'; L390 -1
    table = R.tables["2.521"]
    assert table.cpp == 3 and table.effect == "recon"
    low = roll("2.521", (1,), {"attacked": None})
    assert low.value == 0 and R.cpp_cost(table, low.drms) == 3
    assert [d.kind for d in low.drms] == ["automatic"]  # derived from the chits, never typed
    with pytest.raises(BadInput, match="automatic"):
        R.resolve(table, (4,), {"attacked": None}, situation("german", "20 AM"))
    high = roll("2.521", (6,), {"extra_cpp": 3})
    assert high.value == 9 and R.cpp_cost(table, high.drms) == 6
    assert roll("2.521", (4,), {"extra_cpp": 1}).value == 5
    with pytest.raises(BadInput):
        roll("2.521", (4,), {"extra_cpp": 4})


# ---- 2.522 / 2.525 Dual Attack ---------------------------------------------------------------------------------
def test_dual_attack_setup_boundaries():
    # L399 'The Canadian player makes a dr ...: if ≤ 3 the Canadian does; otherwise the German does'
    assert at("2.5223a", 1) == "canadian"
    assert at("2.5223a", 3) == "canadian"
    assert at("2.5223a", 4) == "german"
    assert at("2.5223a", 6) == "german"
    assert roll("2.5223a", (3,), side="canadian").code == "canadian"
    with pytest.raises(BadInput):
        roll("2.5223a", (3,), side="german")


def test_dual_attack_first_move_boundaries():
    # L409 'On a dr > 4 the Canadian player moves first' ('>' read as '≥')
    assert at("2.525", 1) == "german"
    assert at("2.525", 3) == "german"
    assert at("2.525", 4) == "canadian"
    assert at("2.525", 6) == "canadian"


# ---- RG charts ------------------------------------------------------------------------------------------------
# (side, ID, CPP cost, CG Date max, CG max) as printed, L228-254 and L273-297
PRINTED_RG = [
    ("german", "I1", 28, 2, 4), ("german", "I2", 27, 2, 4), ("german", "I3", 25, 1, 3), ("german", "I4", 14, 1, 1),
    ("german", "V1", 12, 3, 6), ("german", "V2", 14, 1, 2), ("german", "V3", 21, 3, 8), ("german", "V4", 25, 1, 1),
    ("german", "V5", 11, 2, 6), ("german", "V6", 8, 2, 2), ("german", "G1", 8, 1, 2), ("german", "G2", 13, 1, 2),
    ("german", "G3", 11, 1, 2), ("german", "HW1", 12, 1, 3), ("german", "O1", 5, 1, 6), ("german", "O2", 8, 1, 3),
    ("german", "O3", 7, 1, 3), ("german", "O4", 9, 1, 3), ("german", "M1", 1, 3, 16), ("german", "M2", 2, 1, 8),
    ("german", "M3", 3, 1, 8), ("german", "M4", 2, 1, 6),
    ("canadian", "I1", 20, 2, 4), ("canadian", "I2", 5, 1, 2), ("canadian", "I3", 10, 1, 1),
    ("canadian", "V1", 14, 1, 1), ("canadian", "V2", 13, 1, 1), ("canadian", "V3", 15, 1, 2),
    ("canadian", "V4", 4, 2, 2), ("canadian", "G1", 6, 3, 6), ("canadian", "G2", 10, 2, 4),
    ("canadian", "HW1", 10, 1, 3), ("canadian", "O1", 3, 1, 8), ("canadian", "O2", 6, 1, 5),
    ("canadian", "O3", 5, 1, 5), ("canadian", "M1", 1, 5, 18), ("canadian", "M2", 2, 1, 8),
    ("canadian", "M3", 3, 1, 8), ("canadian", "F1", 2, 1, 5),
]


def test_rg_charts_are_complete_and_as_printed():
    assert set(R.rgs) == {(side, rg) for side, rg, *_ in PRINTED_RG}
    for side, rg_id, cost, date_max, cg_max in PRINTED_RG:
        rg = R.rgs[(side, rg_id)]
        assert (rg.cost, rg.date_max, rg.cg_max) == (cost, date_max, {"RR": cg_max}), (side, rg_id)
        assert rg.note.startswith("OCR"), (side, rg_id)


def test_rg_strength_and_footnotes():
    german, canadian = (lambda i: R.rgs[("german", i)]), (lambda i: R.rgs[("canadian", i)])
    # L228 'I1 | Para Inf Coy | 10/7 | 5-4-8deLo'
    assert (german("I1").units_full, german("I1").units_depleted, german("I1").footnotes) == (10, 7, ["d", "e", "L", "o"])
    assert german("I1").rolls == ["2.5191", "2.5193/company"] and german("I1").sw == "3 LMG, 1 PSK"
    # L229 '10;4 / 7;2': two unit types, not one number
    assert german("I2").units_full is None and "10;4 / 7;2" in german("I2").note
    # L244-245 footnote f on G2/G3; L254 M4 only after 19PM
    assert "f" in german("G2").footnotes and "f" in german("G3").footnotes
    assert "after 19PM" in german("M4").unit_type
    # L251 / L294 M1: 15 FPP
    assert german("M1").fpp == canadian("M1").fpp == 15
    # L273-274 Canadian I1: Depleted figures cut
    assert canadian("I1").units_depleted is None and canadian("I1").rolls == ["2.5191", "2.5193/company"]
    # L286 V4 10/7 Ram Kangaroo, d h; L313 never on board
    assert (canadian("V4").units_full, canadian("V4").units_depleted) == (10, 7) and "h" in canadian("V4").footnotes
    assert "may not set up on board" in canadian("V4").note
    # l -> platoon leader table: infantry for an 'I', armor for a 'V' RG
    assert "2.5193/infantry" in canadian("I3").rolls and "2.5193/armor" in canadian("V1").rolls
    assert "2.5193/armor" in german("V3").rolls
    # O/M/F lines are not subject to Depletion
    assert not any(rg.rolls for (side, rid), rg in R.rgs.items() if rid[0] in "OMF")


def test_fortification_purchase_table():
    # L375-386; 'G: Only available for German purchase'
    forts = R.fortifications
    assert forts["trench"].by_side == {"german": 7} and forts["wire"].by_side == {"german": 15}
    assert forts["ap_mines"].by_side == {"german": 1.5} and forts["at_mines"].cost == 4
    assert forts["foxhole"].by_size == {"3": 3, "2": 2, "1": 1}
    assert forts["hip"].by_size == {"squad": 3, "hs": 2, "crew": 1, "smc": 1}
    assert forts["fortified_building"].cost == 10 and forts["dummy"].cost == 1
    assert all(f.rule == "2.520" for f in forts.values())


def test_named_but_unprinted_tables_are_listed_not_invented():
    assert "2.51422" in R.missing
    with pytest.raises(UnknownTable):
        R.table("2.51422")


def test_a_san_reduced_to_4_makes_no_dr_the_next_cg_date(rr):
    """RR 2.5122: the dr is made only by a side whose SAN is > 5 (read >= 5, as the table's min); a SAN its dr left
    at 4 needs none, so the next CG Date's 2.512 does not wait for one the table would refuse (it deadlocked)."""
    rr.to("2.512", "19 PM")
    rr.ok("roll", "2.5122", "--side", "german", "--drm", "san=6", "--dice", "6")  # 6 + 2 = 8: reduced by two, SAN 4
    rr.to("2.513", "19 N")
    assert not [r for r in rr.json("log") if r.get("table") == "2.5122" and r.get("cg_date") == "19 N"]


def test_a_sniper_rg_raises_the_san_the_next_dr_reads(rr):
    """RR M2 Sniper RG: 'SAN Increase +1'. Bought at a SAN of 6, the side's SAN is 7: the next CG Date's 2.5122 dr
    takes --drm san=7 and refuses the 6 the log knew before the purchase."""
    rr.to("2.512", "19 PM")
    rr.ok("roll", "2.5122", "--side", "german", "--drm", "san=6", "--dice", "1")  # 1 + 2 = 3: unchanged, SAN 6
    rr.to("2.518")
    bought = rr.json("buy", "M2", "--side", "german")
    assert bought["san"] == 1
    rr.to("2.512", "19 N")
    rr.refused("roll", "2.5122", "--side", "german", "--drm", "san=6", "--dice", "1", contains="7")
    rr.ok("roll", "2.5122", "--side", "german", "--drm", "san=7", "--dice", "1")
    assert rr.ok("audit").exit_code == 0


def test_a_san_hidden_by_a_secret_purchase_may_be_up_to_what_it_adds():
    """8.619: an RG bought in secret is known to its side only until revealed; it may be an M2 Sniper ('SAN Increase
    +1'), so the other side's ledger and the audit take a SAN up to one higher per such purchase, and no more."""
    from msgspec.structs import replace

    where = replace(situation(), san=6, san_unknown=1)
    assert R.resolve(R.tables["2.5122"], (1,), {"san": 7}, where).final == 4
    assert R.resolve(R.tables["2.5122"], (1,), {"san": 6}, where).final == 3
    with pytest.raises(BadInput, match="up to 7 by its RG bought in secret"):
        R.resolve(R.tables["2.5122"], (1,), {"san": 8}, where)
    with pytest.raises(BadInput, match="SAN is 6 since"):
        R.resolve(R.tables["2.5122"], (1,), {"san": 7}, replace(where, san_unknown=0))


def test_a_depleted_hw_platoon_receives_at_least_two_sw(rr):
    """RR 2.5192 EXC: 'At least two SW must be received with a HWRG; if the RG's final total is < 2 SW, ignore this
    result; roll again for each SW in the RG until a final total >= 2 are received after rolling for each.' A round
    of four drs that gives one MMG is rolled again, four drs more; a round that gives two ends it."""
    rr.to("2.518", "19 PM")
    rr.ok("buy", "HW1", "--side", "german")
    rg = "HW1#1"
    rr.to("2.519")
    rr.ok("roll", "2.5191", "--side", "german", "--rg", str(rg), "--dice", "6,6")  # Depleted
    for die in (6, 6, 6, 1):  # one SW received: the round is ignored
        rr.ok("roll", "2.5192", "--side", "german", "--rg", str(rg), "--dice", str(die))
    due = [n["command"] for n in rr.json("status")["needs"] + rr.json("status")["next_acts"] if "2.5192" in n["command"]]
    assert due, "the second round is owed"
    for die in (2, 6, 3, 6):  # two received: enough
        rr.ok("roll", "2.5192", "--side", "german", "--rg", str(rg), "--dice", str(die))
    rr.refused("roll", "2.5192", "--side", "german", "--rg", str(rg), "--dice", "1", contains="not due")
    assert rr.ok("audit").exit_code == 0


def test_a_round_that_gives_two_ends_at_once_and_an_infantry_rg_is_not_held_to_it(rr):
    rr.to("2.518", "19 PM")
    rr.ok("buy", "HW1", "--side", "german")
    rr.ok("buy", "I2", "--side", "german")  # a PzGr company: its three LMG drs may give none
    rr.to("2.519")
    for rg, dice in (("HW1#1", (1, 6, 2, 6)), ("I2#1", (6, 6, 6))):
        rr.ok("roll", "2.5191", "--side", "german", "--rg", rg, "--dice", "6,6")  # Depleted
        for die in dice:
            rr.ok("roll", "2.5192", "--side", "german", "--rg", rg, "--dice", str(die))
        rr.refused("roll", "2.5192", "--side", "german", "--rg", rg, "--dice", "1", contains="not due")
    assert rr.ok("audit").exit_code == 0


def test_a_secret_hw_platoons_second_round_is_decided_as_known_once_revealed(rr):
    """RR 2.518/2.5192 EXC with keys: a HW RG bought in secret, its strength and SW drs Secret too; the second round
    its own ledger owes is made, and once revealed the final audit decides every round as the buyer knew it."""
    from conftest import Player

    rr.to("2.518", "19 PM")
    german, canadian = Player(rr.db, "Meyer's own long words"), Player(rr.db, "Foulkes' own long words")
    rr.ok("fair-dice", "mode", "immediate")  # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    canadian.ok("keys", "init", "--side", "canadian", "--dice", "immediate")
    assert german.json("buy", "HW1", "--side", "german")["secret"]
    german.ok("step", "2.519")
    german.ok("roll", "2.5191", "--side", "german", "--rg", "HW1#1", "--dice", "6,6")
    for die in (6, 6, 6, 1, 6, 2, 6, 1):  # one received, then the round again: two
        german.ok("roll", "2.5192", "--side", "german", "--rg", "HW1#1", "--dice", str(die))
    german.refused("roll", "2.5192", "--side", "german", "--rg", "HW1#1", "--dice", "1", contains="not due")
    german.ok("reveal", "--all", "--side", "german")
    found = json.loads(rr("audit", "--final", "--json").stdout)["findings"]
    assert {f["kind"] for f in found} == {"unwitnessed"}, found  # typed dice the Canadian has not witnessed, only


def test_a_third_round_its_buyer_forged_is_named_once_revealed(rr):
    """A doctored ledger seals a ninth 2.5192 dr after a second round that gave two: the other side admits a Secret
    follow-up it cannot read (a round may fall short), and the final audit refuses it once revealed."""
    import msgspec

    from conftest import Player
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide import commands
    from cgledger.ledger.player.keyring import Keyring
    from cgledger.ledger.trust.secrets import commitment

    rr.to("2.518", "19 PM")
    words = "Meyer's own long words"
    german, canadian = Player(rr.db, words), Player(rr.db, "Foulkes' own long words")
    rr.ok("fair-dice", "mode", "immediate")  # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    canadian.ok("keys", "init", "--side", "canadian", "--dice", "immediate")
    german.ok("buy", "HW1", "--side", "german")
    german.ok("step", "2.519")
    german.ok("roll", "2.5191", "--side", "german", "--rg", "HW1#1", "--dice", "6,6")
    for die in (6, 6, 6, 1, 6, 2, 6, 1):
        german.ok("roll", "2.5192", "--side", "german", "--rg", "HW1#1", "--dice", str(die))
    ledger = open_ledger(str(rr.db))
    campaign, keyring = ledger.campaign(None), Keyring(words.encode())
    rules = ledger.rules_for(campaign)
    last = ledger.history(None)[-1].fact
    opened = keyring.unseal(campaign, rules, last).fact
    forged = msgspec.structs.replace(opened, action=campaign.next_action, item=opened.item.rsplit("|", 1)[0] + "|9")
    salt, text = keyring.seal(campaign, rules, forged)
    request = commands.SealRoll(table="", side="german", rg=forged.rg, commitment=commitment(forged, salt),
                                sealed=text)  # veiled, as every roll for an RG bought in secret (8.619)
    made, = commands.decide(campaign, rules, request)  # what the other side can check before the reveal
    campaign.record(made, "german", keyring.signer(campaign, rules, "german"), "", request)
    ledger.store.save(campaign)
    german.ok("reveal", "--all", "--side", "german")
    found = [f for f in json.loads(rr("audit", "--final", "--json").stdout)["findings"] if f["kind"] != "unwitnessed"]
    assert len(found) == 1 and "once revealed" in found[0]["message"] and "not due" in found[0]["message"], found
