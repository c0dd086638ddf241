"""Rules data checked before the engine reads it (ledger/rules/engine.py `Rules.add`): every file, shipped or a
player's own (`rules load`, whose text the opponent's ledger then uses too). Besides consistency (rows contiguous,
every reachable Final covered), nothing a player could use to tilt the dice passes: the bounds are in engine.py's
docstring (DRM_LIMIT). `rules`: the Rules being built (engine.py), read for what they hold so far (their
system, calendar, steps, charts)."""

from __future__ import annotations

import re
from . import dice as dicemod
from ..errors import RulesDataError
from .schema import DRM, Chart, MapGeometry, SystemFile, Table, TablesFile, drm_value

_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
# an id a command line names (`roll 8.606/infantry`, `buy I2`, `fortify ap_mines`): one word of letters, digits and
# . _ / # -, so that no id carries a quote, a space or an option of its own into a line the page or status offers
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/#-]{0,39}\Z")
OPTIONS = frozenset({"random_weather"})  # what `cgledger new` lets players choose (CampaignStarted, state.options)
DRM_LIMIT = {"DR": (6, 2), "dr": (6, 2), "d10": (10, 3), "d100": (50, 10)}  # die -> (per DRM, per unit); see engine.py
MAP_SPAN = 200  # hexes a Map Group's columns or rows may span (a board is 10 x 33; the largest groups a few boards)


def check_unique(rules, name: str, tables_file: TablesFile) -> None:
    """Each id once in one file: two lines with one id leave the reader (and the opponent) to guess
    which one the ledger uses."""
    kinds = [
        ("table", [(t.id, t.rule) for t in tables_file.table]),
        ("chart", [(c.id, c.rule) for c in tables_file.chart]),
        ("RG", [(f"{r.side} {r.id}", purchase_step(rules.system, "rg")) for r in tables_file.rg]),
        ("fortification", [(f.id, f.rule) for f in tables_file.fortification]),
        ("placement", [(p.id, p.rule) for p in tables_file.placement]),
        ("map of Map Group", [(m.group, None) for m in tables_file.map]),
    ]
    for kind, ids in kinds:
        seen = set()
        for key, rule in ids:
            if kind != "map of Map Group" and not _ID.match(key.split(" ", 1)[-1] if kind == "RG" else key):
                raise RulesDataError(f"{name}: {kind} id {key!r} is not one word of letters, digits and . _ / # - (up "
                                     "to 40): an id is typed on command lines", rule or None)
            if key in seen:
                raise RulesDataError(f"{name}: {kind} {key} is given twice in this file", rule or None)
            seen.add(key)


def check_map(rules, name: str, geometry: MapGeometry) -> None:
    from .hexmap import parse_location

    groups = {g.id for g in rules.system.map_groups}
    if geometry.group not in groups:
        known = f"known: {', '.join(sorted(groups))}" if groups else "these rules print no Map Groups"
        raise RulesDataError(f"{name}: map of unknown Map Group '{geometry.group}' ({known})")
    if len(geometry.columns) != 2 or len(geometry.rows) != 2:
        raise RulesDataError(f"{name}: map {geometry.group}: columns and rows are [first, last]")
    from .hexmap import column_index

    first, last = (column_index(c) for c in geometry.columns)
    if not (0 <= last - first < MAP_SPAN and 0 <= geometry.rows[1] - geometry.rows[0] < MAP_SPAN):
        # a Map Group is a few boards: a grid of 2*10^9 rows (a file the other side proposed) is no map
        raise RulesDataError(f"{name}: map {geometry.group}: columns {geometry.columns[0]}-{geometry.columns[1]} and "
                             f"rows {geometry.rows[0]}-{geometry.rows[1]} must run forward, at most {MAP_SPAN} each")
    from .hexmap import map_grid

    grid = map_grid(geometry)
    places = [h for area in geometry.entry_areas for h in area.hexes] + [p.location for p in geometry.lvp_locations]
    places += [h for b in geometry.buildings for h in b.levels] + list(geometry.terrain) + list(geometry.sewers)
    places += [h for sector in geometry.sectors for h in sector.hexes]
    for text in places:
        where = parse_location(text)
        if not grid.contains(where.hex):
            raise RulesDataError(f"{name}: map {geometry.group}: {text} is not on its grid")
    total = next(g.lvp for g in rules.system.map_groups if g.id == geometry.group)
    listed = sum(p.lvp for p in geometry.lvp_locations)
    if listed > total:
        raise RulesDataError(f"{name}: map {geometry.group}: its LVP Locations add up to {listed}, more than the "
                             f"Map Group's {total} (8.6033)")
    for area in geometry.entry_areas:
        for side in area.sides:
            if side not in rules.system.sides:
                raise RulesDataError(f"{name}: entry area {area.id}: unknown side '{side}'")


def fail(rules, name: str, table: Table | Chart, problem: str):
    raise RulesDataError(f"{name}: table {table.id} ({table.rule}): {problem}")


def check_chart(rules, name: str, chart: Chart) -> None:
    seen = set()
    for entry in chart.entries:
        rules.calendar.parse(entry.date)
        if entry.cg and entry.cg not in {cg.id for cg in rules.system.cg}:
            fail(rules, name, chart, f"unknown CG '{entry.cg}'")
        for side in entry.values:
            if side not in rules.system.sides:
                fail(rules, name, chart, f"unknown side '{side}'")
        if (entry.cg, entry.date) in seen:
            fail(rules, name, chart, f"CG {entry.cg} {entry.date} given twice")
        seen.add((entry.cg, entry.date))


def check_table(rules, name: str, table: Table) -> None:
    """A table whose data the engine can read: what it names exists, its DRMs and map effects are well formed,
    its rows cover every final its dice and DRMs can give (or it is a value table)."""
    check_names(rules, name, table)
    check_drms(rules, name, table)
    check_map_rows(rules, name, table)
    if table.value is not None:
        if table.value.base_chart and table.value.base_chart not in rules.charts:
            fail(rules, name, table, f"base chart {table.value.base_chart} is not defined")
        if table.rows:
            fail(rules, name, table, "a value table has no rows")
        return
    check_rows(rules, name, table)


def check_names(rules, name: str, table: Table) -> None:
    """Its steps, sides, dates, the die it reads and its `after` and `when` name what the rules hold."""
    for step in (table.step, *table.steps):
        if step and step != "scenario" and step not in rules.steps:
            fail(rules, name, table, f"unknown RePh step '{step}'")
    for side in table.sides:
        if side not in rules.system.sides:
            fail(rules, name, table, f"unknown side '{side}'")
    for date in (table.from_date, table.until_date):
        if date:
            rules.calendar.parse(date)
    if table.reads != "total" and table.reads not in dicemod.DIE_NAMES[table.die]:
        fail(rules, name, table, f"a {table.die} has no {table.reads} die")
    for item in table.after:
        if ":" not in item:
            fail(rules, name, table, f"'after' item '{item}' is not TABLE:CODE")
    if table.when is not None:
        check_when(rules, name, table)


def check_drms(rules, name: str, table: Table) -> None:
    """Unique lower_case keys, each DRM well formed, groups of two or more, none on an Original-roll table."""
    keys = set()
    groups: dict[str, int] = {}
    for drm in table.drm:
        if not _KEY.match(drm.key) or drm.key in keys:
            fail(rules, name, table, f"DRM key '{drm.key}' is not a unique lower_case key")
        keys.add(drm.key)
        check_drm(rules, name, table, drm)
        if drm.group:
            groups[drm.group] = groups.get(drm.group, 0) + 1
    lonely = [g for g, n in groups.items() if n < 2]
    if lonely:
        fail(rules, name, table, f"DRM group '{lonely[0]}' has a single member: a group is of exclusive DRMs")
    if table.on == "original" and table.drm:
        fail(rules, name, table, "a table read on the Original roll takes no DRM")


def check_map_rows(rules, name: str, table: Table) -> None:
    """A row that changes the map needs the hexes the roll names; a Mousehole, a hexside of two hexes."""
    for row in table.rows:
        if (row.removes or row.rubble or row.mousehole) and table.map is None:
            fail(rules, name, table, f"row {row.label()} changes the map, but the table names no hexes (`map`)")
        if row.mousehole and not (table.map and table.map.hexside):
            fail(rules, name, table, f"row {row.label()} makes a Mousehole: the table's hexes are a hexside")
    if table.map and table.map.hexside and table.map.hexes != 2:
        fail(rules, name, table, "a hexside is two hexes (`map.hexes = 2`)")


def check_rows(rules, name: str, table: Table) -> None:
    """Rows in order, without gap or overlap, covering every final the dice and DRMs can give."""
    if not table.rows:
        fail(rules, name, table, "no rows")
    low, high = final_bounds(rules.calendar, table)
    rows = table.rows
    for before, after in zip(rows, rows[1:]):
        if before.max is None or after.min is None or after.min != before.max + 1:
            fail(rules, name, table, f"rows {before.label()} and {after.label()} leave a gap or overlap")
    for row in rows:
        if row.min is not None and row.max is not None and row.min > row.max:
            fail(rules, name, table, f"row {row.label()} is empty")
    first, last = rows[0], rows[-1]
    if first.min is not None and (low is None or low < first.min):
        fail(rules, name, table, f"a final of {low if low is not None else 'below'} {first.min} has no row")
    if last.max is not None and (high is None or high > last.max):
        fail(rules, name, table, f"a final of {high if high is not None else 'above'} {last.max} has no row")


def check_when(rules, name: str, table: Table) -> None:
    """A table's `when` names what the log can decide: a scenario type the Initiative matrix gives, an option
    `new` offers, a CG Date, TABLE:CODE results."""
    when = table.when
    scenarios = {"Initial Scenario", *rules.system.initiative.values()}
    if when.scenario and when.scenario not in scenarios:
        fail(rules, name, table, f"when: scenario '{when.scenario}' is none the Initiative matrix gives "
                                f"({', '.join(sorted(scenarios))})")
    if when.option and when.option not in OPTIONS:
        fail(rules, name, table, f"when: no option '{when.option}' (options: {', '.join(sorted(OPTIONS))})")
    if when.from_date:
        rules.calendar.parse(when.from_date)
    for item in when.after:
        if ":" not in item:
            fail(rules, name, table, f"when: 'after' item '{item}' is not TABLE:CODE")
    if not (when.scenario or when.option or when.from_date or when.unless_flag or when.after):
        fail(rules, name, table, "when: names no condition")


def check_drm(rules, name: str, table: Table, drm: DRM) -> None:
    conditions = (drm.side, drm.time, drm.from_date, drm.until_date, drm.days_after, drm.state)
    logged = (drm.rg or None, drm.rg_strength, drm.won, drm.previous_weather or None, drm.count or None,
              drm.attacked)
    if drm.count and not drm.since:
        fail(rules, name, table, f"DRM '{drm.key}' counts {drm.count} but names no `since` CG Date")
    if drm.since:
        rules.calendar.parse(drm.since)
    if drm.kind == "automatic":
        if all(c is None for c in conditions + logged):
            fail(rules, name, table, f"automatic DRM '{drm.key}' has no condition")
        if drm.input != "flag":
            fail(rules, name, table, f"automatic DRM '{drm.key}' takes no player input")
        if drm.side and drm.side not in rules.system.sides:
            fail(rules, name, table, f"DRM '{drm.key}': unknown side '{drm.side}'")
        for date in (drm.from_date, drm.until_date):
            if date:
                rules.calendar.parse(date)
    elif any(c is not None for c in conditions):
        fail(rules, name, table, f"declared DRM '{drm.key}' has an automatic condition")
    for side in drm.sides:
        if side not in rules.system.sides:
            fail(rules, name, table, f"DRM '{drm.key}': unknown side '{side}'")
    check_magnitude(rules, name, table, drm)


def check_magnitude(rules, name: str, table: Table, drm: DRM) -> None:
    """The bounds of the module docstring (DRM_LIMIT). `rules`: the Rules being built (engine.py), read for what they hold so far (their
system, calendar, steps, charts)."""
    limit, per_unit = DRM_LIMIT[table.die]
    what = f"DRM '{drm.key}'"
    if drm.input == "value":
        for bound, n in (("min", drm.min), ("max", drm.max), ("default", drm.default)):
            if n is not None and abs(n) > limit:
                fail(rules, name, table, f"{what}: {bound} {n:+d} is beyond ±{limit}, the most a DRM may add "
                                        f"on a {table.die} roll")
    elif drm.input == "count" or drm.days_after is not None or drm.count:
        if abs(drm.value) > per_unit:
            fail(rules, name, table, f"{what}: {drm.value:+d} per unit is beyond ±{per_unit}, the most a counted "
                                    f"DRM may add per unit on a {table.die} roll")
    elif abs(drm.value) > limit:
        fail(rules, name, table, f"{what}: {drm.value:+d} is beyond ±{limit}, the most a DRM may add on a "
                                f"{table.die} roll")
    if drm.min is not None and drm.max is not None and drm.min > drm.max:
        fail(rules, name, table, f"{what}: min {drm.min} is above max {drm.max}")
    if drm.default is not None and ((drm.min is not None and drm.default < drm.min)
                                    or (drm.max is not None and drm.default > drm.max)):
        fail(rules, name, table, f"{what}: default {drm.default} is outside min..max")


def purchase_step(system: SystemFile, purchase: str) -> str | None:
    """The step in which RG (or Fortifications) are purchased."""
    return next((s.id for s in system.steps if s.purchase == purchase), None)


def final_bounds(calendar, table: Table) -> tuple[int | None, int | None]:
    """The lowest and highest Final roll the table can see; None where a DRM is unbounded."""
    die_low, die_high = dicemod.value_range(table.die)
    if table.reads != "total":
        _count, die_low, die_high = dicemod.FACES[table.die]
    low: int | None = die_low
    high: int | None = die_high
    if table.on == "original":
        return low, high
    for drm in table.drm:
        lo, hi = _drm_bounds(calendar, drm)
        low = None if low is None or lo is None else low + min(lo, 0)
        high = None if high is None or hi is None else high + max(hi, 0)
    return low, high


def _drm_bounds(calendar, drm: DRM) -> tuple[int | None, int | None]:
    if drm.input == "flag" and drm.days_after is None:
        return min(drm.value, 0), max(drm.value, 0)
    if drm.days_after is not None:
        days = [d.day - drm.days_after for d in calendar if d.day is not None]
        most = max([0, *days]) * drm.value
        return min(0, most), max(0, most)
    if drm.min is None or drm.max is None:
        return (None, None)
    values = [drm_value(drm, n) for n in (drm.min, drm.max)]
    return min(values), max(values)
