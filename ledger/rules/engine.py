"""The one generic table engine: validates rules data and resolves a roll on any table.

Every file is validated here, shipped or a player's own (`rules load`, whose text the opponent's
ledger then uses too): besides consistency (rows contiguous, every reachable Final covered), nothing a
player could use to tilt the dice passes.

* An id is given once per file: a table, an RG line (side + id), a chart, a fortification, a
  placement, a Map Group's map. (Across files a later file replaces an earlier one by id.)
* A replacement table keeps the die of the table it replaces: DR and dr are printed in the rule itself
  (never an OCR reading), and another die changes every result's odds. Give a new id instead.
* DRM magnitudes, per die type (DRM_LIMIT), for every value the DRM can add:

      die   flag or automatic |value|   per unit |value|   value DRM |min|, |max|
      DR            6                          2                    6
      dr            6                          2                    6
      d10          10                          3                   10
      d100         50                         10                   50

  A flag of 6 moves the average DR (7) past either end of 2..12 and turns any dr into any other;
  no KGP/RR table prints more than +-3 (leadership -3, 8.606), flags are +-1/+-2. dr takes the DR
  bound because ASL's DRMs apply alike to both. d10: one die's faces, as 6 is for a d6. d100: half
  its range, as 6 is about half a DR's 11 results. Per unit (count DRMs: value x ((N - offset) //
  per); `days_after` and `count` automatics: value x days or scenarios) about a third of that: every
  printed one is +-1 ('+1 per 5 hexes', '-1 per Assault Engineer', '+1 per day after'), and a count
  has no upper bound, so a large unit value lets the player's N (or the calendar) decide the roll.
  A value DRM adds the player's N itself: its min and max (where given) are bounded like a flag,
  min <= max, and a default lies between them.
* FPP (an RG's `fpp`, a Fortification's costs) are finite (the schema makes them >= 0 / > 0).
"""

import math
import re

import msgspec

from . import dice as dicemod
from .cgdate import Calendar, CGDate
from ..errors import BadInput, RulesDataError, UnknownTable
from .schema import (
    DRM, RG, Chart, Fortification, MapGeometry, Missing, Placement, Step, SystemFile, Table, TablesFile, Victory,
    rg_matches,
)

_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
OPTIONS = frozenset({"random_weather"})  # what `cgledger new` lets players choose (CampaignStarted, state.options)
DRM_LIMIT = {"DR": (6, 2), "dr": (6, 2), "d10": (10, 3), "d100": (50, 10)}  # die -> (per DRM, per unit); see above
MAP_SPAN = 200  # hexes a Map Group's columns or rows may span (a board is 10 x 33; the largest groups a few boards)


class Situation(msgspec.Struct, frozen=True):
    """The campaign state a roll is made in: what automatic DRMs are derived from."""

    side: str
    cg: str
    cg_date: CGDate
    flags: frozenset[str] = frozenset()
    rg: str | None = None  # the linked RG's ID (a follow-up roll of step 8.620)
    rg_strength: str | None = None  # that RG's strength result code ('depleted'), 'sealed' while Secret
    won: bool | None = None  # whether the rolling side won this CG Date's scenario (None: not ended yet)
    # whether the rolling side was Attacked in the previous CG scenario (its opponent's chit was Attack); None:
    # no CG scenario before this CG Date
    attacked: bool | None = None
    previous_weather: str | None = None  # the preceding CG Date's weather code
    scenario_dates: tuple[CGDate, ...] = ()  # CG Date of each CG scenario completed
    today: frozenset[str] = frozenset()  # 'table:code' of the results the side rolled this CG Date
    san: int | None = None  # the side's SAN as the log knows it (its last SAN dr, and the RG bought that raise it)
    san_unknown: int = 0  # what the side's RG bought in secret, not revealed, may add to it (RR M2: 1 each)


class Applied(msgspec.Struct, frozen=True):
    key: str
    name: str
    value: int
    kind: str
    input: int | None = None


class Resolution(msgspec.Struct, frozen=True):
    table: Table
    original: int
    drms: tuple[Applied, ...]
    final: int
    result: str
    code: str = ""
    value: int | None = None
    sets: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def parse_declared(items: list[str] | tuple[str, ...]) -> dict[str, int | None]:
    """'isolated' -> {'isolated': None}; 'uncontrolled_hexes=12' -> {'uncontrolled_hexes': 12}."""
    declared: dict[str, int | None] = {}
    for item in items:
        key, sep, number = item.partition("=")
        key = key.strip()
        if key in declared:
            raise BadInput(f"DRM '{key}' given twice")
        if not sep:
            declared[key] = None
            continue
        try:
            declared[key] = int(number)
        except ValueError:
            raise BadInput(f"malformed DRM '{item}': use KEY or KEY=N with N a whole number") from None
    return declared


class Rules:
    """The tables of one rule system, shipped data plus any overrides, validated."""

    def __init__(self, system: SystemFile, files: list[tuple[str, TablesFile]], checked: bool = False):
        """`checked`: the files passed every check of this code before (a parse read back from rules/cachefile.py,
        whose key names this file's source): they are not checked again (~10 ms a command)."""
        self.system = system
        new_date = next((s.id for s in system.steps if s.new_cg_date), None)
        self.calendar = Calendar(system.id, system.calendar, f"{new_date}1" if new_date else None)
        self.tables: dict[str, Table] = {}
        self.charts: dict[str, Chart] = {}
        self.missing: dict[str, Missing] = {}
        self.rgs: dict[tuple[str, str], RG] = {}  # (side, RG ID) -> RG chart line
        self.fortifications: dict[str, Fortification] = {}  # 8.621 Fortification Purchase Table
        self.maps: dict[str, MapGeometry] = {}  # Map Group -> its grid (players' map files)
        self.placements: dict[str, Placement] = {}  # fortification -> where it may be placed (CGS)
        self.victory: dict[str, list[Victory]] = {}  # CG -> its Victory Conditions' levels, in order (a rules file's)
        self.origin: dict[str, str] = {}  # table id -> file it came from
        self.steps: dict[str, Step] = {step.id: step for step in system.steps}
        # RG lines name follow-up tables of any file: read every file's tables before any RG line
        for name, tables_file in files:
            self.add(name, msgspec.structs.replace(tables_file, rg=[]), replace=False, checked=checked)
        for name, tables_file in files:
            self.add(name, TablesFile(rg=tables_file.rg), replace=False, checked=checked)

    def add(self, name: str, tables_file: TablesFile, replace: bool = True, checked: bool = False) -> list[str]:
        """Adds (or, for an override, replaces by id) tables and charts; validates each (`checked`: see __init__)."""
        if not checked:
            self._check_unique(name, tables_file)
        changed = self._add_charts(name, tables_file, replace, checked)
        changed += self._add_tables(name, tables_file, replace, checked)
        changed += self._add_rgs(name, tables_file, replace)
        changed += self._add_fortifications(name, tables_file)
        for placement in tables_file.placement:
            self.placements[placement.id] = placement
            changed.append(f"placement {placement.id}")
        for geometry in tables_file.map:
            if not checked:
                self._check_map(name, geometry)
            self.maps[geometry.group] = geometry
            changed.append(f"map {geometry.group}")
        for missing in tables_file.missing:
            if missing.id not in self.tables:
                self.missing[missing.id] = missing
        return changed + self._add_victory(name, tables_file)

    def _add_charts(self, name: str, tables_file: TablesFile, replace: bool, checked: bool) -> list[str]:
        changed = []
        for chart in tables_file.chart:
            if chart.id in self.charts and not replace:
                raise RulesDataError(f"{name}: chart {chart.id} defined twice")
            if not checked:
                self._check_chart(name, chart)
            self.charts[chart.id] = chart
            changed.append(chart.id)
        return changed

    def _add_tables(self, name: str, tables_file: TablesFile, replace: bool, checked: bool) -> list[str]:
        """A replacement keeps the die and the effect of the table it replaces (the steps' needs count on them)."""
        changed = []
        for table in tables_file.table:
            if table.id in self.tables and not replace:
                raise RulesDataError(f"{name}: table {table.id} defined twice")
            before = self.tables.get(table.id)
            if before is not None and before.die != table.die:
                self._fail(name, table, f"is rolled with a {before.die} ({self.origin.get(table.id, 'shipped')}); a "
                                        f"replacement keeps its die, not a {table.die} (give a new id instead)")
            if before is not None and before.effect != table.effect:
                self._fail(name, table, f"does '{before.effect or 'nothing'}' for the books, which the steps' needs count "
                                        "on: a replacement keeps its effect (give a new id instead)")
            if not checked:
                self._check_table(name, table)
            self.tables[table.id] = table
            self.origin[table.id] = name
            self.missing.pop(table.id, None)  # a user who supplies a missing table fills the gap
            changed.append(table.id)
        return changed

    def _add_rgs(self, name: str, tables_file: TablesFile, replace: bool) -> list[str]:
        changed = []
        for rg in tables_file.rg:
            if rg.side not in self.system.sides:
                raise RulesDataError(f"{name}: RG {rg.id}: unknown side '{rg.side}'")
            if (rg.side, rg.id) in self.rgs and not replace:
                raise RulesDataError(f"{name}: RG {rg.side} {rg.id} defined twice")
            if not math.isfinite(rg.fpp):
                raise RulesDataError(f"{name}: RG {rg.side} {rg.id}: fpp = {rg.fpp}: FPP are a finite number",
                                     self._purchase_step("fortifications"))
            for table_id in [*rg.rolls, *(t for more in rg.rolls_if.values() for t in more)]:
                if table_id not in self.tables:
                    raise RulesDataError(f"{name}: RG {rg.id}: follow-up table {table_id} is not defined")
            self.rgs[(rg.side, rg.id)] = rg
            changed.append(f"RG {rg.side} {rg.id}")
        return changed

    def _add_fortifications(self, name: str, tables_file: TablesFile) -> list[str]:
        changed = []
        for fort in tables_file.fortification:
            for side in fort.by_side:
                if side not in self.system.sides:
                    raise RulesDataError(f"{name}: fortification {fort.id}: unknown side '{side}'")
            if fort.cost is None and not fort.by_side and not fort.by_size:
                raise RulesDataError(f"{name}: fortification {fort.id} has no FPP cost")
            costs = [fort.cost or 0.0, *fort.by_side.values(), *fort.by_size.values()]
            if not all(math.isfinite(c) for c in costs):
                raise RulesDataError(f"{name}: fortification {fort.id}: an FPP cost is a finite number", fort.rule)
            self.fortifications[fort.id] = fort
            changed.append(f"fortification {fort.id}")
        return changed

    def _add_victory(self, name: str, tables_file: TablesFile) -> list[str]:
        """A file's levels of a CG replace any before them."""
        levels: dict[str, list[Victory]] = {}
        for level in tables_file.victory:
            if level.cg not in {c.id for c in self.system.cg}:
                raise RulesDataError(f"{name}: victory level '{level.result}': no CG '{level.cg}' in "
                                     f"{self.system.id.upper()}", level.rule or None)
            if level.side not in self.system.sides:
                raise RulesDataError(f"{name}: victory level '{level.result}': unknown side '{level.side}'",
                                     level.rule or None)
            if level.at_least is None and level.at_most is None:
                raise RulesDataError(f"{name}: victory level '{level.result}' gives no bound (at_least, at_most)",
                                     level.rule or None)
            levels.setdefault(level.cg, []).append(level)
        for cg, given in levels.items():
            self.victory[cg] = given
        return [f"victory conditions of CG {cg}" for cg in levels]

    def victory_of(self, cg: str, cg_lvp: dict[str, int | None]) -> Victory | None:
        """The first level of the CG's Victory Conditions the final CG-LVP totals meet (None: none given, or met)."""
        for level in self.victory.get(cg, []):
            total = cg_lvp.get(level.side)
            if total is None:
                continue
            if (level.at_least is None or total >= level.at_least) and (level.at_most is None or total <= level.at_most):
                return level
        return None

    # ---- validation -------------------------------------------------------------------
    def _purchase_step(self, purchase: str) -> str | None:
        return next((s.id for s in self.system.steps if s.purchase == purchase), None)

    def _check_unique(self, name: str, tables_file: TablesFile) -> None:
        """Each id once in one file: two lines with one id leave the reader (and the opponent) to guess
        which one the ledger uses."""
        kinds = [
            ("table", [(t.id, t.rule) for t in tables_file.table]),
            ("chart", [(c.id, c.rule) for c in tables_file.chart]),
            ("RG", [(f"{r.side} {r.id}", self._purchase_step("rg")) for r in tables_file.rg]),
            ("fortification", [(f.id, f.rule) for f in tables_file.fortification]),
            ("placement", [(p.id, p.rule) for p in tables_file.placement]),
            ("map of Map Group", [(m.group, None) for m in tables_file.map]),
        ]
        for kind, ids in kinds:
            seen = set()
            for key, rule in ids:
                if key in seen:
                    raise RulesDataError(f"{name}: {kind} {key} is given twice in this file", rule or None)
                seen.add(key)

    def _check_map(self, name: str, geometry: MapGeometry) -> None:
        from .hexmap import parse_location

        groups = {g.id for g in self.system.map_groups}
        if geometry.group not in groups:
            raise RulesDataError(f"{name}: map of unknown Map Group '{geometry.group}' (known: {', '.join(sorted(groups))})")
        if len(geometry.columns) != 2 or len(geometry.rows) != 2:
            raise RulesDataError(f"{name}: map {geometry.group}: columns and rows are [first, last]")
        from .hexmap import column_index

        first, last = (column_index(c) for c in geometry.columns)
        if not (0 <= last - first < MAP_SPAN and 0 <= geometry.rows[1] - geometry.rows[0] < MAP_SPAN):
            # a Map Group is a few boards: a grid of 2*10^9 rows (a file the other side proposed) is no map
            raise RulesDataError(f"{name}: map {geometry.group}: columns {geometry.columns[0]}-{geometry.columns[1]} and "
                                 f"rows {geometry.rows[0]}-{geometry.rows[1]} must run forward, at most {MAP_SPAN} each")
        grid = self.grid(geometry)
        places = [h for area in geometry.entry_areas for h in area.hexes] + [p.location for p in geometry.lvp_locations]
        places += [h for b in geometry.buildings for h in b.levels] + list(geometry.terrain) + list(geometry.sewers)
        places += [h for sector in geometry.sectors for h in sector.hexes]
        for text in places:
            where = parse_location(text)
            if not grid.contains(where.hex):
                raise RulesDataError(f"{name}: map {geometry.group}: {text} is not on its grid")
        total = next(g.lvp for g in self.system.map_groups if g.id == geometry.group)
        listed = sum(p.lvp for p in geometry.lvp_locations)
        if listed > total:
            raise RulesDataError(f"{name}: map {geometry.group}: its LVP Locations add up to {listed}, more than the "
                                 f"Map Group's {total} (8.6033)")
        for area in geometry.entry_areas:
            for side in area.sides:
                if side not in self.system.sides:
                    raise RulesDataError(f"{name}: entry area {area.id}: unknown side '{side}'")

    def grid(self, geometry: MapGeometry):
        from .hexmap import column_index, grid

        return grid(geometry.group, (column_index(geometry.columns[0]), column_index(geometry.columns[1])),
                    (geometry.rows[0], geometry.rows[1]), geometry.shifted)

    def map_of(self, group: str) -> MapGeometry:
        if group not in {g.id for g in self.system.map_groups}:
            raise BadInput(f"unknown Map Group '{group}': use {'|'.join(g.id for g in self.system.map_groups)}", self.cite("hex"))
        if group not in self.maps:
            raise BadInput(f"the {group} Map Group's grid is not in the rules seeds (no terrain is): load your map "
                           "file with `cgledger rules load FILE` (format: fixtures/kgp-st-fixture-map.toml)", self.cite("hex"))
        return self.maps[group]
    def _fail(self, name: str, table: Table | Chart, problem: str):
        raise RulesDataError(f"{name}: table {table.id} ({table.rule}): {problem}")

    def _check_chart(self, name: str, chart: Chart) -> None:
        seen = set()
        for entry in chart.entries:
            self.calendar.parse(entry.date)
            if entry.cg and entry.cg not in {cg.id for cg in self.system.cg}:
                self._fail(name, chart, f"unknown CG '{entry.cg}'")
            for side in entry.values:
                if side not in self.system.sides:
                    self._fail(name, chart, f"unknown side '{side}'")
            if (entry.cg, entry.date) in seen:
                self._fail(name, chart, f"CG {entry.cg} {entry.date} given twice")
            seen.add((entry.cg, entry.date))

    def _check_table(self, name: str, table: Table) -> None:
        """A table whose data the engine can read: what it names exists, its DRMs and map effects are well formed,
        its rows cover every final its dice and DRMs can give (or it is a value table)."""
        self._check_names(name, table)
        self._check_drms(name, table)
        self._check_map_rows(name, table)
        if table.value is not None:
            if table.value.base_chart and table.value.base_chart not in self.charts:
                self._fail(name, table, f"base chart {table.value.base_chart} is not defined")
            if table.rows:
                self._fail(name, table, "a value table has no rows")
            return
        self._check_rows(name, table)

    def _check_names(self, name: str, table: Table) -> None:
        """Its steps, sides, dates, the die it reads and its `after` and `when` name what the rules hold."""
        for step in (table.step, *table.steps):
            if step and step != "scenario" and step not in self.steps:
                self._fail(name, table, f"unknown RePh step '{step}'")
        for side in table.sides:
            if side not in self.system.sides:
                self._fail(name, table, f"unknown side '{side}'")
        for date in (table.from_date, table.until_date):
            if date:
                self.calendar.parse(date)
        if table.reads != "total" and table.reads not in dicemod.DIE_NAMES[table.die]:
            self._fail(name, table, f"a {table.die} has no {table.reads} die")
        for item in table.after:
            if ":" not in item:
                self._fail(name, table, f"'after' item '{item}' is not TABLE:CODE")
        if table.when is not None:
            self._check_when(name, table)

    def _check_drms(self, name: str, table: Table) -> None:
        """Unique lower_case keys, each DRM well formed, groups of two or more, none on an Original-roll table."""
        keys = set()
        groups: dict[str, int] = {}
        for drm in table.drm:
            if not _KEY.match(drm.key) or drm.key in keys:
                self._fail(name, table, f"DRM key '{drm.key}' is not a unique lower_case key")
            keys.add(drm.key)
            self._check_drm(name, table, drm)
            if drm.group:
                groups[drm.group] = groups.get(drm.group, 0) + 1
        lonely = [g for g, n in groups.items() if n < 2]
        if lonely:
            self._fail(name, table, f"DRM group '{lonely[0]}' has a single member: a group is of exclusive DRMs")
        if table.on == "original" and table.drm:
            self._fail(name, table, "a table read on the Original roll takes no DRM")

    def _check_map_rows(self, name: str, table: Table) -> None:
        """A row that changes the map needs the hexes the roll names; a Mousehole, a hexside of two hexes."""
        for row in table.rows:
            if (row.removes or row.rubble or row.mousehole) and table.map is None:
                self._fail(name, table, f"row {row.label()} changes the map, but the table names no hexes (`map`)")
            if row.mousehole and not (table.map and table.map.hexside):
                self._fail(name, table, f"row {row.label()} makes a Mousehole: the table's hexes are a hexside")
        if table.map and table.map.hexside and table.map.hexes != 2:
            self._fail(name, table, "a hexside is two hexes (`map.hexes = 2`)")

    def _check_rows(self, name: str, table: Table) -> None:
        """Rows in order, without gap or overlap, covering every final the dice and DRMs can give."""
        if not table.rows:
            self._fail(name, table, "no rows")
        low, high = self.final_bounds(table)
        rows = table.rows
        for before, after in zip(rows, rows[1:]):
            if before.max is None or after.min is None or after.min != before.max + 1:
                self._fail(name, table, f"rows {before.label()} and {after.label()} leave a gap or overlap")
        for row in rows:
            if row.min is not None and row.max is not None and row.min > row.max:
                self._fail(name, table, f"row {row.label()} is empty")
        first, last = rows[0], rows[-1]
        if first.min is not None and (low is None or low < first.min):
            self._fail(name, table, f"a final of {low if low is not None else 'below'} {first.min} has no row")
        if last.max is not None and (high is None or high > last.max):
            self._fail(name, table, f"a final of {high if high is not None else 'above'} {last.max} has no row")

    def _check_when(self, name: str, table: Table) -> None:
        """A table's `when` names what the log can decide: a scenario type the Initiative matrix gives, an option
        `new` offers, a CG Date, TABLE:CODE results."""
        when = table.when
        scenarios = {"Initial Scenario", *self.system.initiative.values()}
        if when.scenario and when.scenario not in scenarios:
            self._fail(name, table, f"when: scenario '{when.scenario}' is none the Initiative matrix gives "
                                    f"({', '.join(sorted(scenarios))})")
        if when.option and when.option not in OPTIONS:
            self._fail(name, table, f"when: no option '{when.option}' (options: {', '.join(sorted(OPTIONS))})")
        if when.from_date:
            self.calendar.parse(when.from_date)
        for item in when.after:
            if ":" not in item:
                self._fail(name, table, f"when: 'after' item '{item}' is not TABLE:CODE")
        if not (when.scenario or when.option or when.from_date or when.unless_flag or when.after):
            self._fail(name, table, "when: names no condition")

    def _check_drm(self, name: str, table: Table, drm: DRM) -> None:
        conditions = (drm.side, drm.time, drm.from_date, drm.until_date, drm.days_after, drm.state)
        logged = (drm.rg or None, drm.rg_strength, drm.won, drm.previous_weather or None, drm.count or None,
                  drm.attacked)
        if drm.count and not drm.since:
            self._fail(name, table, f"DRM '{drm.key}' counts {drm.count} but names no `since` CG Date")
        if drm.since:
            self.calendar.parse(drm.since)
        if drm.kind == "automatic":
            if all(c is None for c in conditions + logged):
                self._fail(name, table, f"automatic DRM '{drm.key}' has no condition")
            if drm.input != "flag":
                self._fail(name, table, f"automatic DRM '{drm.key}' takes no player input")
            if drm.side and drm.side not in self.system.sides:
                self._fail(name, table, f"DRM '{drm.key}': unknown side '{drm.side}'")
            for date in (drm.from_date, drm.until_date):
                if date:
                    self.calendar.parse(date)
        elif any(c is not None for c in conditions):
            self._fail(name, table, f"declared DRM '{drm.key}' has an automatic condition")
        for side in drm.sides:
            if side not in self.system.sides:
                self._fail(name, table, f"DRM '{drm.key}': unknown side '{side}'")
        self._check_magnitude(name, table, drm)

    def _check_magnitude(self, name: str, table: Table, drm: DRM) -> None:
        """The bounds of the module docstring (DRM_LIMIT)."""
        limit, per_unit = DRM_LIMIT[table.die]
        what = f"DRM '{drm.key}'"
        if drm.input == "value":
            for bound, n in (("min", drm.min), ("max", drm.max), ("default", drm.default)):
                if n is not None and abs(n) > limit:
                    self._fail(name, table, f"{what}: {bound} {n:+d} is beyond ±{limit}, the most a DRM may add "
                                            f"on a {table.die} roll")
        elif drm.input == "count" or drm.days_after is not None or drm.count:
            if abs(drm.value) > per_unit:
                self._fail(name, table, f"{what}: {drm.value:+d} per unit is beyond ±{per_unit}, the most a counted "
                                        f"DRM may add per unit on a {table.die} roll")
        elif abs(drm.value) > limit:
            self._fail(name, table, f"{what}: {drm.value:+d} is beyond ±{limit}, the most a DRM may add on a "
                                    f"{table.die} roll")
        if drm.min is not None and drm.max is not None and drm.min > drm.max:
            self._fail(name, table, f"{what}: min {drm.min} is above max {drm.max}")
        if drm.default is not None and ((drm.min is not None and drm.default < drm.min)
                                        or (drm.max is not None and drm.default > drm.max)):
            self._fail(name, table, f"{what}: default {drm.default} is outside min..max")

    def final_bounds(self, table: Table) -> tuple[int | None, int | None]:
        """The lowest and highest Final roll the table can see; None where a DRM is unbounded."""
        die_low, die_high = dicemod.value_range(table.die)
        if table.reads != "total":
            _count, die_low, die_high = dicemod.FACES[table.die]
        low: int | None = die_low
        high: int | None = die_high
        if table.on == "original":
            return low, high
        for drm in table.drm:
            lo, hi = self._drm_bounds(drm)
            low = None if low is None or lo is None else low + min(lo, 0)
            high = None if high is None or hi is None else high + max(hi, 0)
        return low, high

    def _drm_bounds(self, drm: DRM) -> tuple[int | None, int | None]:
        if drm.input == "flag" and drm.days_after is None:
            return min(drm.value, 0), max(drm.value, 0)
        if drm.days_after is not None:
            days = [d.day - drm.days_after for d in self.calendar if d.day is not None]
            most = max([0, *days]) * drm.value
            return min(0, most), max(0, most)
        if drm.min is None or drm.max is None:
            return (None, None)
        values = [self._declared_value(drm, n) for n in (drm.min, drm.max)]
        return min(values), max(values)

    # ---- lookup ---------------------------------------------------------------------------
    def table(self, table_id: str) -> Table:
        try:
            return self.tables[table_id]
        except KeyError:
            pass
        if table_id in self.missing:
            m = self.missing[table_id]
            raise UnknownTable(
                f"table {table_id} ({m.title}) is named in {m.named_in} but not printed in the rules; "
                "supply it with `cgledger rules load FILE`",
                m.id,
            )
        raise UnknownTable(f"unknown table '{table_id}': `cgledger tables` lists them")

    def side(self, side: str) -> str:
        key = side.lower().replace(".", "").replace("-", "")
        if key not in self.system.sides:
            choices = "|".join(self.system.sides)
            raise BadInput(f"unknown side '{side}' for {self.system.id.upper()}: use {choices}")
        return key

    def cite(self, concept: str) -> str | None:
        """The rule of the campaign's own system for a concept shared by the systems (the hex grid, the winner,
        the HQ ...); None where its seeds print none, rather than another system's number."""
        return self.system.cite.get(concept)

    def chart_entry(self, chart_id: str, cg: str, date: CGDate):
        for entry in self.charts[chart_id].entries:
            if entry.cg in ("", cg) and self.calendar.parse(entry.date) == date:
                return entry
        return None

    def chart_value(self, chart_id: str, situation: Situation) -> int:
        chart = self.charts[chart_id]
        for entry in chart.entries:
            if entry.cg in ("", situation.cg) and self.calendar.parse(entry.date) == situation.cg_date:
                if situation.side in entry.values:
                    return entry.values[situation.side]
        raise BadInput(
            f"the {chart.title} gives no value for the {self.system.sides[situation.side]} side in CG {situation.cg} "
            f"on {situation.cg_date}",
            chart.rule,
        )

    # ---- DRMs -----------------------------------------------------------------------------
    def _declared_value(self, drm: DRM, n: int | None) -> int:
        if drm.input == "flag":
            return drm.value
        if drm.input == "value":
            return n  # type: ignore[return-value]
        return drm.value * ((n - drm.offset) // drm.per)  # type: ignore[operator]

    def declared(self, table: Table, key: str, n: int | None, situation: Situation) -> Applied:
        drm = next((d for d in table.drm if d.key == key), None)
        if drm is None:
            keys = ", ".join(d.key for d in table.drm if d.kind == "declared") or "none"
            raise BadInput(f"no DRM '{key}' on table {table.id} (declared DRMs: {keys})", table.rule)
        where = drm.rule or table.rule
        if drm.kind == "automatic":
            raise BadInput(f"DRM '{key}' is automatic: the ledger derives it from campaign state", where)
        side = situation.side
        if drm.sides and side not in drm.sides:
            raise BadInput(f"DRM '{key}' is NA to the {self.system.sides[side]} side ({drm.text})", where)
        if drm.input == "flag" and n is not None:
            raise BadInput(f"DRM '{key}' is a flag: name it without '={n}'", where)
        if drm.input != "flag" and n is None:
            n = drm.default
            if n is None:
                raise BadInput(f"DRM '{key}' needs a number: --drm {key}=N ({drm.text})", where)
        if n is not None:
            self._check_number(drm, n, situation, where)
        contradiction = self._log_contradicts(drm, situation)
        if contradiction:
            raise BadInput(f"DRM '{key}' ({drm.text}) contradicts the record: {contradiction}", where)
        return Applied(key, drm.text, self._declared_value(drm, n), "declared", n)

    def _check_number(self, drm: DRM, n: int, situation: Situation, where: str) -> None:
        """The player's N for a declared DRM: the SAN the log knows (8.6122), within the DRM's bounds."""
        key = drm.key
        if drm.known == "san" and situation.san is not None \
                and not situation.san <= n <= situation.san + situation.san_unknown:
            more = f" (up to {situation.san + situation.san_unknown} by its RG bought in secret)" \
                if situation.san_unknown else ""
            raise BadInput(f"DRM '{key}={n}' contradicts the record: the {self.system.sides[situation.side]} side's "
                           f"SAN is {situation.san}{more} since its last SAN dr", where)
        if (drm.min is not None and n < drm.min) or (drm.max is not None and n > drm.max):
            bounds = f"{drm.min if drm.min is not None else '…'}..{drm.max if drm.max is not None else '…'}"
            raise BadInput(f"DRM '{key}={n}' is out of range {bounds} ({drm.text})", where)

    def cpp_cost(self, table: Table, drms: tuple[Applied, ...]) -> int:
        """CPP a roll costs: the table's own price plus what its declared DRMs cost (8.622)."""
        by_key = {d.key: d for d in table.drm}
        extra = 0
        for applied in drms:
            drm = by_key.get(applied.key)
            if drm is not None and drm.cpp:
                extra += drm.cpp * (applied.input if drm.input == "count" and applied.input is not None else 1)
        return table.cpp + extra

    def automatic(self, table: Table, situation: Situation) -> list[Applied]:
        applied = []
        for drm in table.drm:
            if drm.kind != "automatic":
                continue
            value = self._automatic_value(drm, situation)
            if value:
                applied.append(Applied(drm.key, drm.text, value, "automatic"))
        return applied

    def _log_contradicts(self, drm: DRM, s: Situation) -> str:
        """Why the log says a DRM's condition does not hold ('' when it holds or the DRM has none)."""
        if drm.rg:
            if s.rg is None:
                return "it needs the RG the roll is for (--rg)"
            if not rg_matches(s.rg, drm.rg):
                return f"the RG is {s.rg}, not {' or '.join(drm.rg)}"
        if drm.rg_strength is not None:
            if s.rg is None:
                return "it needs the RG the roll is for (--rg)"
            if s.rg_strength != drm.rg_strength:
                return f"the RG's strength roll gave {s.rg_strength or 'no result yet'}"
        if drm.won is not None:
            if s.won is None:
                return "this CG Date's CG-Scenario End is not recorded"
            if s.won != drm.won:
                return "the side " + ("did not win" if drm.won else "won") + " this CG Date's scenario"
        if drm.attacked is not None and bool(s.attacked) != drm.attacked:
            return ("the previous CG scenario was " + ("no attack on this side" if drm.attacked else "an attack on this "
                    "side") if s.attacked is not None else "no CG scenario was played before this CG Date")
        if drm.previous_weather and s.previous_weather not in drm.previous_weather:
            return f"the preceding CG Date's weather was {s.previous_weather or 'not recorded'}"
        return ""

    def _automatic_value(self, drm: DRM, s: Situation) -> int:
        if self._log_contradicts(drm, s):
            return 0
        value = self._calendar_value(drm, s)
        if drm.count == "scenarios_since":  # e.g. 8.618: +1 per CG scenario completed from 20 AM on
            since = self.calendar.parse(drm.since)  # type: ignore[arg-type]
            value *= sum(1 for d in s.scenario_dates if d >= since)
        return value

    def _calendar_value(self, drm: DRM, s: Situation) -> int:
        date = s.cg_date
        if drm.side and drm.side != s.side:
            return 0
        if drm.time and drm.time != date.time:
            return 0
        if drm.from_date and date < self.calendar.parse(drm.from_date):
            return 0
        if drm.until_date and date > self.calendar.parse(drm.until_date):
            return 0
        if drm.state and drm.state not in s.flags:
            return 0
        if drm.days_after is not None:
            return drm.value * max(0, (date.day or 0) - drm.days_after)
        return drm.value

    # ---- resolving a roll -------------------------------------------------------------------
    def check_available(self, table: Table, situation: Situation) -> None:
        if table.sides and situation.side not in table.sides:
            who = " or ".join(self.system.sides[s] for s in table.sides)
            raise BadInput(f"table {table.id} is rolled by the {who} side only", table.rule)
        date = situation.cg_date
        if table.from_date and date < self.calendar.parse(table.from_date):
            raise BadInput(f"table {table.id} is not rolled before {table.from_date} (CG Date is {date})", table.rule)
        if table.until_date and date > self.calendar.parse(table.until_date) \
                and not situation.today & set(table.until_unless):
            raise BadInput(f"table {table.id} is not rolled after {table.until_date} (CG Date is {date})", table.rule)
        if not self.charted(table, situation.side, situation.cg, date):
            chart = self.charts[table.value.base_chart]
            raise BadInput(f"the {chart.title} gives the {self.system.sides[situation.side]} side no value in CG "
                           f"{situation.cg} on {date} ('-'): table {table.id} is not rolled for it", chart.rule)

    def charted(self, table: Table, side: str, cg: str, date: CGDate) -> bool:
        """False where the table's base chart lists the CG Date for the CG but gives the side no value ('-': nothing
        to roll, as KGP 8.6161 CG III 23 AM and PM for the German); True otherwise (a CG Date the chart does not
        list at all is a gap in the data, which the roll names)."""
        if table.value is None or not table.value.base_chart or table.value.base_chart not in self.charts:
            return True
        entry = self.chart_entry(table.value.base_chart, cg, date)
        return entry is None or side in entry.values

    def resolve(
        self, table: Table, faces: tuple[int, ...], declared: dict[str, int | None], situation: Situation
    ) -> Resolution:
        self.check_available(table, situation)
        dicemod.check_faces(table.die, faces)
        drms = [self.declared(table, key, n, situation) for key, n in declared.items()]
        for drm in table.drm:
            if drm.required and drm.key not in declared:
                raise BadInput(f"table {table.id} needs --drm {drm.key}=N ({drm.text})", drm.rule or table.rule)
        drms += self.automatic(table, situation)
        self.check_exclusive(table, drms)
        return self.evaluate(table, faces, tuple(drms), situation)

    def check_exclusive(self, table: Table, drms) -> None:
        """DRMs of one group exclude each other (e.g. adjacent to / two hexes from a Setup Area)."""
        by_key = {d.key: d for d in table.drm}
        seen: dict[str, str] = {}
        for applied in drms:
            drm = by_key.get(applied.key)
            if drm is None or not drm.group:
                continue
            if drm.group in seen:
                raise BadInput(f"DRMs '{seen[drm.group]}' and '{drm.key}' exclude each other: give one",
                               drm.rule or table.rule)
            seen[drm.group] = drm.key

    def evaluate(self, table: Table, faces, drms: tuple[Applied, ...], situation: Situation) -> Resolution:
        """The table's answer for these faces and these DRMs (also used by audit)."""
        original = dicemod.read(table.die, faces, table.reads)
        final = original + sum(d.value for d in drms)
        notes = tuple(n.note for n in table.on_original if n.original == original)
        if table.value is not None:
            value = final
            if table.value.base_chart:
                value = self.chart_value(table.value.base_chart, situation) - final
            if table.value.floor is not None:
                value = max(table.value.floor, value)
            return Resolution(table, original, drms, final, f"{table.value.label}: {value}", "", value, (), notes)
        looked_up = original if table.on == "original" else final
        for row in table.rows:
            if row.covers(looked_up):
                return Resolution(table, original, drms, final, row.result, row.code, None, tuple(row.sets), notes)
        raise BadInput(f"table {table.id} has no row for a final of {looked_up}", table.rule)
