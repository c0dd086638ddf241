"""Every shipped rules file: decodes into typed records, every table carries its rule number,
and its rows cover every Final roll it can see exactly once (checked here independently of the
engine's own validation)."""

from __future__ import annotations

import re
from itertools import product

import pytest

from ledger import dice
from ledger import rules as rulesmod
from ledger.errors import RulesDataError

RULES = rulesmod.load("kgp")
RULE_NUMBER = re.compile(r"^(KGP\d{1,2}|8\.6\d{1,4})$")
SAMPLE_COUNTS = range(0, 31)  # player numbers tried for count/value DRMs without bounds


def drm_values(drm, calendar) -> set[int]:
    """Every value the DRM can add, 0 (not applying) included."""
    if drm.kind == "automatic":
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
    assert ("III", "23 AM") not in values  # unreadable in the OCR: not invented


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
