"""A player's own rules file (`cgledger rules load FILE`) is input like any other: the opponent's ledger
uses it too, so what could tilt the game is refused. Through the real CLI on a real SQLite file: exit 1,
one `Error: ...` line naming the problem (and the rule where there is one), and no event written.
Bounds: ledger/rules/engine.py and validate.py (DRMs), ledger/rules/schema.py (costs), ledger/rules/__init__.py (files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cgledger.ledger.rules import MAX_RULES_FILE

RG = 'side = "german"\nid = "I2"\ngroup_type = "SS Inf Pltn"\n'
DR_ROWS = 'rows = [ { max = 6, result = "low" }, { min = 7, result = "high" } ]\n'
dr_ROWS = 'rows = [ { max = 3, result = "low" }, { min = 4, result = "high" } ]\n'


def table(table_id: str = "8.610", die: str = "dr", drm: str = "", extra: str = "", rows: str = "") -> str:
    """A table file (8.610 is a shipped dr table); rows open at both ends so no row check can refuse."""
    rows = rows or (DR_ROWS if die == "DR" else dr_ROWS)
    drms = f"drm = [ {drm} ]\n" if drm else ""
    return f'[[table]]\nid = "{table_id}"\nrule = "8.610"\ntitle = "mine"\ndie = "{die}"\n{extra}{rows}{drms}'


def flag(value: int, key: str = "mine") -> str:
    return f'{{ key = "{key}", text = "mine", kind = "declared", value = {value} }}'


def write(tmp_path: Path, content: str | bytes, name: str = "mine.toml") -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def refused(kgp, path: Path, *contains: str):
    """Exit 1, one `Error: ` line holding every `contains`, the same events and the same head after."""
    head, log = kgp.ok("head").stdout, kgp.json("log")
    result = kgp.refused("rules", "load", str(path), contains=contains[0])
    assert result.stderr.startswith("Error: "), result.stderr
    for text in contains[1:]:
        assert text in result.stderr, result.stderr
    assert kgp.ok("head").stdout == head and kgp.json("log") == log
    return result


def loads(kgp, path: Path) -> None:
    events = kgp.events()
    kgp.ok("rules", "load", str(path))
    assert kgp.events() == events + 1


# ---- never negative: costs, maxima, FPP (msgspec constraints, refused at decode) ------------------------
@pytest.mark.parametrize("line, shown", [
    ("cost = -3", "cost = -3"),
    ("on_map_cost = -3", "on_map_cost = -3"),
    ("pre_registered_cost = -1", "pre_registered_cost = -1"),
    ("pre_registered_max = -1", "pre_registered_max = -1"),
    ("date_max = -1", "date_max = -1"),
    ("cg_max = { I = 6, II = -1 }", "cg_max = {'I': 6, 'II': -1}"),
    ('shared = "G2+G3"\nshared_max = -2', "shared_max = -2"),
])
def test_negative_rg_cost_or_maximum_is_refused(kgp, tmp_path, line, shown):
    path = write(tmp_path, f"[[rg]]\n{RG}{line}\n")
    refused(kgp, path, f"RG german I2: {shown}: Expected `int` >= 0", "8.619")


def test_negative_rg_fpp_is_refused_naming_8_621(kgp, tmp_path):
    refused(kgp, write(tmp_path, f"[[rg]]\n{RG}fpp = -10.0\n"), "RG german I2: fpp = -10.0: Expected `float` >= 0.0",
            "8.621")


def test_infinite_rg_fpp_is_refused(kgp, tmp_path):
    refused(kgp, write(tmp_path, f"[[rg]]\n{RG}fpp = inf\n"), "RG german I2: fpp = inf: FPP are a finite number (8.621)")


@pytest.mark.parametrize("line, shown", [
    ("cost = -7.0", "cost = -7.0"),
    ("cost = 0.0", "cost = 0.0"),
    ("by_side = { us = 1.0, german = -1.5 }", "by_side = {'us': 1.0, 'german': -1.5}"),
    ('by_size = { "3" = 3.0, "2" = -2.0 }', "by_size = {'3': 3.0, '2': -2.0}"),
])
def test_negative_or_free_fortification_is_refused(kgp, tmp_path, line, shown):
    path = write(tmp_path, f'[[fortification]]\nid = "trench"\nname = "Trench"\n{line}\n')
    refused(kgp, path, f"fortification trench: {shown}: Expected `float` > 0.0", "8.621")


def test_infinite_fortification_cost_is_refused(kgp, tmp_path):
    path = write(tmp_path, '[[fortification]]\nid = "trench"\nname = "Trench"\nby_side = { us = inf }\n')
    refused(kgp, path, "fortification trench: an FPP cost is a finite number (8.621)")


def test_negative_table_cpp_is_refused(kgp, tmp_path):
    refused(kgp, write(tmp_path, table(extra="cpp = -2\n")), "table 8.610: cpp = -2: Expected `int` >= 0 (8.610)")


def test_negative_drm_cpp_is_refused(kgp, tmp_path):
    drm = '{ key = "extra", text = "Spent CPP", kind = "declared", value = 1, cpp = -5, rule = "8.622" }'
    refused(kgp, write(tmp_path, table(drm=drm)), "table 8.610: DRM 'extra': cpp = -5: Expected `int` >= 0 (8.622)")


def test_zero_cost_rg_is_allowed(kgp, tmp_path):
    """Chosen: CGS has no CPP chart (its RG cost 0) and no rule forbids a 0-CPP line (schema docstring)."""
    loads(kgp, write(tmp_path, f"[[rg]]\n{RG}cost = 0\ndate_max = 0\ncg_max = {{ I = 0 }}\n"))


# ---- an id once per file -----------------------------------------------------------------------------
CHART = '[[chart]]\nid = "8.6161"\nrule = "8.6161"\ntitle = "CPP Base #"\n'
FORT = '[[fortification]]\nid = "trench"\nname = "Trench"\ncost = 7.0\n'
MAP = '[[map]]\ngroup = "St"\ncolumns = ["C", "Q"]\nrows = [14, 28]\n'


@pytest.mark.parametrize("text, contains", [
    (table() + table(), "table 8.610 is given twice in this file (8.610)"),
    (f"[[rg]]\n{RG}cost = 8\n[[rg]]\n{RG}cost = 1\n", "RG german I2 is given twice in this file (8.619)"),
    (CHART + CHART, "chart 8.6161 is given twice in this file (8.6161)"),
    (FORT + FORT, "fortification trench is given twice in this file (8.621)"),
    (MAP + MAP, "map of Map Group St is given twice in this file"),
])
def test_an_id_given_twice_in_one_file_is_refused(kgp, tmp_path, text, contains):
    refused(kgp, write(tmp_path, text), contains)


def test_one_rg_id_for_each_side_is_no_duplicate(kgp, tmp_path):
    loads(kgp, write(tmp_path, f"[[rg]]\n{RG}cost = 8\n[[rg]]\n{RG.replace('german', 'us')}cost = 6\n"))


# ---- a replacement keeps its die ---------------------------------------------------------------------
def test_replacing_a_table_with_another_die_is_refused(kgp, tmp_path):
    refused(kgp, write(tmp_path, table(die="DR")),
            "table 8.610 (8.610): is rolled with a dr (kgp/reph.toml); a replacement keeps its die, not a DR")


def test_replacing_a_table_with_another_effect_is_refused(kgp, tmp_path):
    """8.616 needs each side's CPP Replenishment DR (its table's `effect`): a replacement without it would leave the
    step a need nothing meets, so the campaign could never leave 8.616."""
    refused(kgp, write(tmp_path, table(table_id="8.616", die="DR")),
            "table 8.616 (8.610): does 'cpp_replenishment' for the books, which the steps' needs count on: a "
            "replacement keeps its effect")
    refused(kgp, write(tmp_path, table(extra='effect = "san"\n')), "does 'nothing' for the books")


def test_a_table_under_a_new_id_may_use_any_die(kgp, tmp_path):
    loads(kgp, write(tmp_path, table(table_id="8.610/mine", die="DR")))


# ---- DRM magnitudes ----------------------------------------------------------------------------------
@pytest.mark.parametrize("die, value, limit", [("DR", 50, 6), ("DR", 7, 6), ("DR", -7, 6), ("dr", 7, 6)])
def test_a_flag_drm_beyond_the_bound_is_refused(kgp, tmp_path, die, value, limit):
    refused(kgp, write(tmp_path, table(table_id="8.610/mine", die=die, drm=flag(value))),
            f"table 8.610/mine (8.610): DRM 'mine': {value:+d} is beyond ±{limit}, the most a DRM may add on a {die} roll")


def test_d100_bound_is_proportionate(kgp, tmp_path):
    rows = 'rows = [ { max = 50, result = "low" }, { min = 51, result = "high" } ]\n'
    refused(kgp, write(tmp_path, table(table_id="X100", die="d100", drm=flag(51), rows=rows)),
            "DRM 'mine': +51 is beyond ±50, the most a DRM may add on a d100 roll")
    loads(kgp, write(tmp_path, table(table_id="X100", die="d100", drm=flag(50), rows=rows), "ok.toml"))


def test_a_drm_at_the_bound_loads(kgp, tmp_path):
    loads(kgp, write(tmp_path, table(table_id="8.610/mine", die="DR", drm=f'{flag(6)}, {flag(-6, "other")}')))


def test_an_automatic_drm_beyond_the_bound_is_refused(kgp, tmp_path):
    drm = '{ key = "night", text = "Night", kind = "automatic", time = "N", value = 9 }'
    refused(kgp, write(tmp_path, table(drm=drm)), "DRM 'night': +9 is beyond ±6")


def test_a_count_drm_beyond_the_per_unit_bound_is_refused(kgp, tmp_path):
    drm = '{ key = "hexes", text = "+3 per hex", kind = "declared", input = "count", value = 3 }'
    refused(kgp, write(tmp_path, table(drm=drm)),
            "table 8.610 (8.610): DRM 'hexes': +3 per unit is beyond ±2, the most a counted DRM may add per unit on a dr roll")


def test_a_per_day_drm_beyond_the_per_unit_bound_is_refused(kgp, tmp_path):
    drm = '{ key = "days", text = "+3 per day after 19", kind = "automatic", days_after = 19, value = 3 }'
    refused(kgp, write(tmp_path, table(die="DR", table_id="8.610/mine", drm=drm)), "DRM 'days': +3 per unit is beyond ±2")


@pytest.mark.parametrize("bounds, contains", [
    ("min = -7, max = 0", "DRM 'leader': min -7 is beyond ±6"),
    ("min = 0, max = 12", "DRM 'leader': max +12 is beyond ±6"),
    ("min = 0, max = 3, default = 9", "DRM 'leader': default +9 is beyond ±6"),
    ("min = 2, max = -2", "DRM 'leader': min 2 is above max -2"),
    ("min = -3, max = 0, default = 2", "DRM 'leader': default 2 is outside min..max"),
])
def test_a_value_drm_out_of_bounds_is_refused(kgp, tmp_path, bounds, contains):
    drm = f'{{ key = "leader", text = "Leader", kind = "declared", input = "value", {bounds} }}'
    refused(kgp, write(tmp_path, table(drm=drm)), contains, "(8.610)")


# ---- the file itself ---------------------------------------------------------------------------------
def test_non_utf8_file_is_refused(kgp, tmp_path):
    path = write(tmp_path, table().encode() + b'note = "caf\xe9"\n')
    refused(kgp, path, f"rules file {path} is not UTF-8 text: byte 0xe9 on line 7")


def test_nul_byte_is_refused(kgp, tmp_path):
    path = write(tmp_path, table().encode() + b"# \x00\n")
    refused(kgp, path, f"rules file {path} contains a NUL byte on line 7")


def test_utf16_file_is_refused(kgp, tmp_path):
    path = write(tmp_path, table().encode("utf-16"))
    refused(kgp, path, f"rules file {path} is not UTF-8 text")


def padded(size: int) -> bytes:
    """A valid rules file of exactly `size` bytes (a comment fills it)."""
    body = table().encode() + b"# "
    return body + b"x" * (size - len(body) - 1) + b"\n"


def test_file_over_the_size_limit_is_refused(kgp, tmp_path):
    assert MAX_RULES_FILE == 256 * 1024
    refused(kgp, write(tmp_path, padded(MAX_RULES_FILE + 1)), "is larger than 256 KiB")
    loads(kgp, write(tmp_path, padded(MAX_RULES_FILE), "at-limit.toml"))


def test_directory_is_refused(kgp, tmp_path):
    folder = tmp_path / "rules.toml"
    folder.mkdir()
    refused(kgp, folder, f"rules file {folder} is not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_is_refused_without_blocking(kgp, tmp_path):
    pipe = tmp_path / "rules.toml"
    os.mkfifo(pipe)
    refused(kgp, pipe, f"rules file {pipe} is not a regular file")


def test_missing_file_is_refused(kgp, tmp_path):
    refused(kgp, tmp_path / "none.toml", "no rules file at")


def test_a_zero_divisor_is_refused(kgp, tmp_path):
    drm = '{ key = "hexes", text = "+1 per 0 hexes", kind = "declared", input = "count", value = 1, per = 0 }'
    refused(kgp, write(tmp_path, table(drm=drm)), "table 8.610: DRM 'hexes': per = 0: Expected `int` >= 1 (8.610)")
    refused(kgp, write(tmp_path, FORT + "squads = true\ns_per = 0\n", "fort.toml"),
            "fortification trench: s_per = 0: Expected `int` >= 1", "8.621")


def test_a_map_of_two_billion_rows_is_no_map(kgp, tmp_path):
    """A map file the other side proposes is read by every command that draws or judges the map: a grid of 2*10^9
    rows (accepted, it made `areas` die) is refused when loaded, one line, nothing written."""
    text = (Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml").read_text()
    huge = tmp_path / "huge.toml"
    huge.write_text(text.replace("rows = [14, 28]", "rows = [14, 2000000000]"))
    kgp.refused("rules", "load", str(huge), contains="at most 200 each")
    backwards = tmp_path / "backwards.toml"
    backwards.write_text(text.replace('columns = ["C", "Q"]', 'columns = ["Q", "C"]'))
    kgp.refused("rules", "load", str(backwards), contains="must run forward")


@pytest.mark.parametrize("kind, content", [
    ("RG", '[[rg]]\nside = "us"\nid = \'I1", "--open\'\ngroup_type = "Inf Pltn"\ncost = 6\n'),
    ("table", table('8.622 --dice 1')),
])
def test_an_id_that_is_no_single_word_is_refused(kgp, tmp_path, kind, content):
    """An id is typed on command lines (`buy I1`, `roll 8.622`), and the page and `status` build lines and forms from
    it: an id with a quote or a space would carry options of its own (`--open` on the victim's Buy button: his RG
    bought in the open). Refused, nothing written."""
    refused(kgp, write(tmp_path, content), f"{kind} id", "is not one word of letters, digits and . _ / # -")
