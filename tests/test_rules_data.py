"""Every shipped rules file: decodes into typed records, every table carries its rule number,
and its rows cover every Final roll it can see exactly once (checked here independently of the
engine's own validation)."""

from __future__ import annotations

import re
from itertools import product

import pytest

from cgledger.ledger.rules import dice
from cgledger.ledger import rules as rulesmod
from cgledger.ledger.errors import RulesDataError

RULES = rulesmod.load("kgp")
RULE_NUMBER = re.compile(r"^(KGP\d{1,2}|8\.6\d{1,4})$")
SAMPLE_COUNTS = range(0, 31)  # player numbers tried for count/value DRMs without bounds


def drm_values(drm, calendar) -> set[int]:
    """Every value the DRM can add, 0 (not applying) included."""
    if drm.kind == "automatic":
        if drm.count:  # value x a count the log keeps (8.618: CG scenarios completed since a CG Date)
            return {drm.value * n for n in SAMPLE_COUNTS}
        if drm.days_after is not None:
            return {drm.value * max(0, (d.day or 0) - drm.days_after) for d in calendar}
        return {0, drm.value}
    if drm.input == "flag":
        return {0, drm.value}
    low = drm.min if drm.min is not None else min(SAMPLE_COUNTS)
    high = drm.max if drm.max is not None else max(SAMPLE_COUNTS)
    if drm.input == "value":
        return {0, *range(low, high + 1)}
    return {0, *(drm.value * ((n - drm.offset) // drm.per) for n in range(low, high + 1))}


def reachable_finals(table, calendar=None) -> set[int]:
    count, low, high = dice.FACES[table.die]
    finals = {dice.read(table.die, faces, table.reads) for faces in product(range(low, high + 1), repeat=count)}
    if table.on == "original":
        return finals
    for drm in table.drm:
        finals = {f + v for f in finals for v in drm_values(drm, calendar or RULES.calendar)}
    return finals


@pytest.mark.parametrize("table", list(RULES.tables.values()), ids=lambda t: t.id)
def test_every_kgp_table_carries_its_rule_number(table):
    assert RULE_NUMBER.match(table.rule), table.rule
    assert table.id.split("/")[0] == table.rule or table.id.startswith(table.rule)


ALL_TABLES = [(system, table) for system in rulesmod.systems() for table in rulesmod.load(system).tables.values()]


@pytest.mark.parametrize("system, table", ALL_TABLES, ids=lambda x: x if isinstance(x, str) else x.id)
def test_rows_cover_every_final_exactly_once(system, table):
    """Every shipped system (KGP, RR, CGS): each reachable Final lands in exactly one row."""
    if table.value is not None:
        assert not table.rows
        return
    for final in reachable_finals(table, rulesmod.load(system).calendar):
        covering = [row for row in table.rows if row.covers(final)]
        assert len(covering) == 1, (system, table.id, final, [r.label() for r in covering])


def test_every_kgp_dice_table_of_the_seeds_is_there():
    expected = {
        "KGP3", "KGP3/recall", "KGP8", "KGP13",
        "8.606/infantry", "8.606/vehicle", "8.6061", "8.610", "8.6113", "8.6114", "8.6122", "8.613",
        "8.613/personnel", "8.613/vehicle", "8.6141b", "8.6141c", "8.6142", "8.61421", "8.6144", "8.6146",
        "8.615", "8.616", "8.6171", "8.6171/mist", "8.618", "8.6201", "8.6202", "8.6203/I", "8.6203/II",
        "8.6204", "8.6205", "8.6206/german", "8.6206/us", "8.6206/armor", "8.622", "8.6233a", "8.625",
    }
    assert expected <= set(RULES.tables)


def test_named_but_unprinted_tables_are_listed_not_invented():
    assert "H1.42" in RULES.missing and "H1.42" not in RULES.tables
    assert RULES.missing["H1.42"].named_in == "KGP17"


def test_ambiguous_readings_are_written_beside_the_data():
    assert "six columns" in RULES.charts["8.6161"].note
    assert "8-0" in RULES.tables["8.6114"].note
    assert "≥ 4" in RULES.tables["KGP8"].note
    assert "OCR" in RULES.tables["8.622"].note


def test_cpp_base_chart_reading():
    # '20 N505040356540' -> CG I 50/50, CG II 40/35, CG III 65/40; '19 N5025--2035' -> CG II has no entry.
    values = {(e.cg, e.date): e.values for e in RULES.charts["8.6161"].entries}
    assert values[("I", "20 N")] == {"german": 50, "us": 50}
    assert values[("II", "20 N")] == {"german": 40, "us": 35}
    assert values[("III", "20 N")] == {"german": 65, "us": 40}
    assert ("II", "19 N") not in values and values[("III", "19 N")] == {"german": 20, "us": 35}
    # '23 AM----175-': read as German '-', U.S. 75 (reph.toml gives why; an override gives another reading)
    assert values[("III", "23 AM")] == values[("III", "23 PM")] == {"us": 75}


def test_engine_refuses_an_inconsistent_table():
    text = '[[table]]\nid = "x"\nrule = "8.610"\ntitle = "x"\ndie = "dr"\nrows = [ { max = 3, result = "a" }, { min = 3, result = "b" } ]\n'
    with pytest.raises(RulesDataError, match="gap or overlap"):
        rulesmod.load("kgp", (("mine.toml", text),))


def test_override_replaces_a_table_and_fills_a_missing_one():
    text = (
        '[[table]]\nid = "H1.42"\nrule = "H1.42"\ntitle = "Gyrostabilizer (our copy)"\ndie = "dr"\n'
        'rows = [ { max = 3, result = "Functioning" }, { min = 4, result = "Not functioning" } ]\n'
    )
    rules = rulesmod.load("kgp", (("gyro.toml", text),))
    assert "H1.42" in rules.tables and "H1.42" not in rules.missing
    assert "H1.42" in RULES.missing  # the shipped rules are untouched


# ---- what each roll is due for (per, per_rule, after, steps, rolls/rolls_if) -------------------------------
SYSTEMS = {system: rulesmod.load(system) for system in rulesmod.systems()}
PER = {"any", "side/date", "date", "rg", "unit"}
RULE = re.compile(r"^(KGP\d{1,2}|8\.6\d{1,4}|2\.5\d{2,4}|\d{1,2}(\.\d{1,2}){1,3})$")
# per = 'rg' tables that no shipped RG line names, because the RG chart lines that would (KGP: a German 'HW' line;
# footnote 'l'/'a' lines) are not printed in the seeds: a player's own chart file names them.
RG_TABLES_NAMED_BY_PLAYERS_CHART = {"kgp": {"8.6205", "8.6206/german", "8.6206/us", "8.6206/armor"}}


def codes(table) -> set[str]:
    return {row.code for row in table.rows if row.code}


def followups(rg) -> list[str]:
    return [*rg.rolls, *(t for more in rg.rolls_if.values() for t in more)]


@pytest.mark.parametrize("system, table", ALL_TABLES, ids=lambda x: x if isinstance(x, str) else x.id)
def test_every_table_says_what_its_roll_is_due_for_and_which_rule_says_so(system, table):
    assert table.per in PER, (system, table.id, table.per)
    assert RULE.match(table.per_rule), (system, table.id, table.per_rule)
    assert table.per_rule.split(".")[0] == table.rule.split(".")[0], "per_rule is a rule of the table's own part"


@pytest.mark.parametrize("system, table", ALL_TABLES, ids=lambda x: x if isinstance(x, str) else x.id)
def test_after_names_a_table_and_a_code_that_table_produces(system, table):
    rules = SYSTEMS[system]
    for item in table.after:
        table_id, _, code = item.rpartition(":")
        assert table_id in rules.tables and table_id != table.id, (table.id, item)
        assert code in codes(rules.tables[table_id]), (table.id, item, sorted(codes(rules.tables[table_id])))


@pytest.mark.parametrize("system, table", ALL_TABLES, ids=lambda x: x if isinstance(x, str) else x.id)
def test_further_steps_are_known_and_differ_from_the_table_step(system, table):
    rules = SYSTEMS[system]
    for step in table.steps:
        assert step in rules.steps or step == "scenario", (table.id, step)
        assert step != table.step


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_rolls_if_keys_are_codes_of_the_rg_own_rolls(system):
    rules = SYSTEMS[system]
    for rg in rules.rgs.values():
        produced = set().union(*(codes(rules.tables[t]) for t in rg.rolls)) if rg.rolls else set()
        for key in rg.rolls_if:
            assert key in produced, (rg.side, rg.id, key, sorted(produced))
        for table_id in followups(rg):
            assert rules.tables[table_id].per == "rg", (rg.side, rg.id, table_id)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_every_rg_table_is_named_by_an_rg_line(system):
    rules = SYSTEMS[system]
    named = {t for rg in rules.rgs.values() for t in followups(rg)}
    unlisted = RG_TABLES_NAMED_BY_PLAYERS_CHART.get(system, set())
    for table in rules.tables.values():
        if table.per != "rg":
            continue
        if table.id in unlisted:
            assert table.id not in named, f"{table.id} is named now: drop it from the players'-chart list"
            assert "not printed" in " ".join(table.note.split()), "the note says why no shipped RG line names it"
        else:
            assert table.id in named, (system, table.id)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_a_depleted_rg_gets_one_sw_dr_per_sw_of_its_full_allotment(system):
    rules = SYSTEMS[system]
    for rg in rules.rgs.values():
        strength = [t for t in rg.rolls if rules.tables[t].effect == "rg_strength"]
        sw_drs = [t for more in rg.rolls_if.values() for t in more if rules.tables[t].effect in ("rg_sw", "rg_equipment")]
        if not strength:
            assert not sw_drs, (rg.side, rg.id)
            continue
        printed = sum(int(n) for n in re.findall(r"(?:^|, )(\d+) ", rg.sw))
        depleted = [row.code for row in rules.tables[strength[0]].rows if row.code == "D"]
        assert depleted == ["D"], "the strength tables' Depleted code is 'D' (the RG Purchase Record's Str column)"
        assert len(rg.rolls_if.get("D", [])) == printed, (rg.side, rg.id, rg.sw, rg.rolls_if)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_each_rg_rolls_the_leader_table_of_its_own_type_only(system):
    rules = SYSTEMS[system]
    for rg in rules.rgs.values():
        for table_id in followups(rg):
            if rules.tables[table_id].effect != "rg_leader":
                continue
            if table_id.endswith("/armor"):
                assert rg.id.startswith("V"), (rg.side, rg.id, table_id)
            else:
                assert rg.id.startswith("I"), (rg.side, rg.id, table_id)


def test_rg_the_rules_never_deplete_list_no_strength_or_sw_roll():
    rr = SYSTEMS["rr"]
    for (side, rg_id), rg in rr.rgs.items():
        never = (side, rg_id) == ("canadian", "I2") or rg_id[0] in "OMF"  # 2.5191: I, V, G, HW [EXC: Canadian I2]
        if never:
            assert not set(followups(rg)) & {"2.5191", "2.5192"}, (side, rg_id)
            assert not rg.rolls_if
        else:
            assert "2.5191" in rg.rolls, (side, rg_id)
    for (side, rg_id), rg in SYSTEMS["kgp"].rgs.items():
        if side == "us":  # 8.6201/8.6204: only German RG are Depleted
            assert not set(followups(rg)) & {"8.6201", "8.6204", "8.6205"}
    assert SYSTEMS["kgp"].rgs[("german", "I2")].rolls_if == {"D": ["8.6204", "8.6204", "8.6204"]}


# ---- DRM conditions the log decides ---------------------------------------------------------------------------
ALL_DRMS = [(system, table, drm) for system, table in ALL_TABLES for drm in table.drm]


@pytest.mark.parametrize("system, table, drm", ALL_DRMS,
                         ids=lambda x: x if isinstance(x, str) else getattr(x, "key", None) or getattr(x, "id", None))
def test_logged_conditions_name_codes_the_log_can_hold(system, table, drm):
    rules = SYSTEMS[system]
    if drm.rg_strength:
        strength = [t for t in rules.tables.values() if t.effect == "rg_strength"]
        assert any(drm.rg_strength in codes(t) for t in strength), (table.id, drm.key)
        assert table.per == "rg"
    if drm.previous_weather:
        weather = set().union(*(codes(t) for t in rules.tables.values() if t.effect == "weather"))
        assert set(drm.previous_weather) <= weather, (table.id, drm.key)
    for pattern in drm.rg:
        assert re.match(r"^[A-Z]+\d*\*?$", pattern), pattern
        assert table.per == "rg"
    if drm.count:
        assert drm.kind == "automatic" and drm.since, (table.id, drm.key)
        rules.calendar.parse(drm.since)


@pytest.mark.parametrize("system, table", ALL_TABLES, ids=lambda x: x if isinstance(x, str) else x.id)
def test_exclusive_drms_come_in_groups_of_two_or_more(system, table):
    groups: dict[str, int] = {}
    for drm in table.drm:
        if drm.group:
            groups[drm.group] = groups.get(drm.group, 0) + 1
    assert all(n >= 2 for n in groups.values()), (table.id, groups)


def drm(rules, table_id, key):
    return next(d for d in rules.tables[table_id].drm if d.key == key)


def test_kgp_drms_the_log_decides():
    assert (drm(RULES, "8.6201", "vehicle_or_gun").kind, drm(RULES, "8.6201", "vehicle_or_gun").rg) == ("automatic", ["V*", "G*"])
    assert (drm(RULES, "8.6202", "armored").kind, drm(RULES, "8.6202", "armored").rg) == ("automatic", ["I6", "I8"])
    for table_id in ("8.6206/german", "8.6206/armor"):
        depleted = drm(RULES, table_id, "depleted")
        assert (depleted.kind, depleted.value, depleted.rg_strength) == ("automatic", 1, "D")
    assert drm(RULES, "8.6206/armor", "depleted").side == "german"  # NA to U.S.
    assert (drm(RULES, "8.6113", "won").kind, drm(RULES, "8.6113", "won").won) == ("automatic", True)
    won = drm(RULES, "8.6114", "won")  # the player may ignore it or apply only -1: declared, refused unless won
    assert (won.kind, won.input, won.won, won.min, won.max) == ("declared", "value", True, -2, 0)
    assert drm(RULES, "8.6171", "prev_overcast").previous_weather == ["mist_overcast", "overcast"]
    assert drm(RULES, "8.6171", "prev_clear").previous_weather == ["clear"]
    assert "KGP2" in RULES.tables["8.6171"].note  # why 'Mist' alone is neither Overcast nor Clear
    shortage = drm(RULES, "8.618", "scenarios_after_20am")
    assert (shortage.kind, shortage.count, shortage.since) == ("automatic", "scenarios_since", "20 PM")
    assert "excludes the 20 AM scenario" in RULES.tables["8.618"].note
    assert RULES.tables["8.6171/mist"].after == ["8.6171:mist_overcast", "8.6171:mist"]
    assert RULES.tables["KGP8"].steps == ["8.624"]  # KGP8: every AFV setting up in a building: Secret Bog DR
    assert SYSTEMS["rr"].tables["2.506/vehicle"].steps == ["2.514"]  # 2.51428 Canadian tanks at night


def test_exclusive_pairs():
    def group(rules, table_id, *keys):
        return {drm(rules, table_id, key).group for key in keys}

    for table_id in ("8.606/infantry", "8.606/vehicle"):
        assert group(RULES, table_id, "adjacent_setup_area", "two_hexes_setup_area") == {"setup_area_distance"}
    assert group(RULES, "8.615", "front_line", "adjacent_front_line", "roadblock_front_line",
                 "roadblock_adjacent_front_line") == {"front_line"}
    rr = SYSTEMS["rr"]
    for table_id in ("2.506/infantry", "2.506/vehicle"):
        assert group(rr, table_id, "adjacent_setup_area", "two_hexes_setup_area") == {"setup_area_distance"}
    assert group(rr, "2.515", "front_line", "adjacent_front_line") == {"front_line"}


# ---- a tester's reports ---------------------------------------------------------------------------------------
def test_a_6_plus_1_leader_gives_its_plus_1_to_an_escape():
    for table_id in ("8.606/infantry", "8.606/vehicle"):
        leader = drm(RULES, table_id, "leader")
        assert (leader.min, leader.max) == (-3, 1)
        where = rulesmod.Situation("us", "I", RULES.calendar.parse("19 PM"))
        assert RULES.declared(RULES.tables[table_id], "leader", 1, where).value == 1


def test_medium_tank_tables_agree_with_the_rg_chart_lines():
    assert RULES.rgs[("us", "V3")].rolls == ["8.6203/I"] and RULES.rgs[("us", "V4")].rolls == ["8.6203/II"]
    for table_id in ("8.6203/I", "8.6203/II"):
        assert "player picks" not in RULES.tables[table_id].note
    assert "appropriate table" in RULES.tables["8.6203/I"].note


def test_cpp_replenishment_keeps_a_negative_result_and_says_why():
    table = RULES.tables["8.616"]
    assert table.value.floor is None and "No floor" in table.note and "8.31" in table.note
    lowest = min(v for e in RULES.charts["8.6161"].entries for v in e.values.values())
    assert lowest == 10  # CG II 21 PM German: a DR of 11 or 12 replenishes -1 or -2
    rr = SYSTEMS["rr"]
    assert min(v for e in rr.charts["2.5161"].entries if e.date != "19 AM" for v in e.values.values()) > 12


@pytest.mark.parametrize("system, table, sides", [("kgp", "8.625", ("german", "us")), ("rr", "2.525", ("german", "canadian"))])
def test_one_first_move_dr_per_dual_attack(cli, system, table, sides):
    """8.625, RR 2.525: one dr decides which side moves first in a Dual Attack; both sides could roll it on one CG
    Date, with opposite results, and the audit was clean. The second, by either side, is refused."""
    start = ["--start-cpp", f"{sides[0]}=40", "--start-cpp", f"{sides[1]}=40"] if system == "rr" else []
    cli.ok("new", "DA", "--system", system, "--cg", "I" if system == "kgp" else "RR", *start)
    initiative = "8.623" if system == "kgp" else "2.522"
    cli.to(initiative, "19 PM")
    cli.ok("initiative", "--chit", f"{sides[0]}=attack", "--chit", f"{sides[1]}=attack")
    assert cli.json("status")["scenario"] == "Dual Attack"
    cli.to(table)
    cli.ok("roll", table, "--side", sides[0], "--dice", "2")
    cli.refused("roll", table, "--side", sides[1], "--dice", "5", contains=f"table {table} was rolled already on 19 PM")


def test_8_6161_cg_iii_23_gives_the_german_no_cpp_base_number():
    """8.6161 prints '----175-' for 23 AM and 23 PM: read as German '-' and U.S. 75 (reph.toml says why). A side the
    chart gives '-' on a CG Date it lists makes no 8.616 DR there: the step does not need it, the table refuses it."""
    from cgledger.ledger.errors import BadInput
    from cgledger.ledger.rules import Situation

    rules = RULES
    table = rules.table("8.616")
    for date in ("23 AM", "23 PM"):
        when = rules.calendar.parse(date)
        assert not rules.charted(table, "german", "III", when) and rules.charted(table, "us", "III", when)
        assert rules.chart_value("8.6161", Situation(side="us", cg="III", cg_date=when)) == 75
        with pytest.raises(BadInput, match="gives the German side no value in CG III"):
            rules.check_available(table, Situation(side="german", cg="III", cg_date=when))
    assert rules.charted(table, "german", "III", rules.calendar.parse("22 N"))
