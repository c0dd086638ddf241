"""The one generic table engine: reads rules data and resolves a roll on any table.

Every file is validated first (ledger/rules/validate.py), shipped or a player's own (`rules load`, whose text the opponent's
ledger then uses too): besides consistency (rows contiguous, every reachable Final covered), nothing a
player could use to tilt the dice passes.

* An id is given once per file: a table, an RG line (side + id), a chart, a fortification, a
  placement, a Map Group's map. (Across files a later file replaces an earlier one by id.)
* A replacement table keeps the die of the table it replaces: DR and dr are printed in the rule itself
  (never an OCR reading), and another die changes every result's odds. Give a new id instead.
* DRM magnitudes, per die type (validate.DRM_LIMIT), for every value the DRM can add:

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

import msgspec

from . import dice as dicemod
from .cgdate import Calendar, CGDate
from ..errors import BadInput, RulesDataError, UnknownTable
from .schema import (
    DRM, RG, Chart, Fortification, MapGeometry, Missing, Placement, Step, SystemFile, Table, TablesFile, Victory,
    drm_value, rg_matches,
)

from . import validate  # the checks every file passes first: the bounds above are validate.DRM_LIMIT


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
            validate.check_unique(self, name, tables_file)
        changed = self._add_charts(name, tables_file, replace, checked)
        changed += self._add_tables(name, tables_file, replace, checked)
        changed += self._add_rgs(name, tables_file, replace)
        changed += self._add_fortifications(name, tables_file)
        for placement in tables_file.placement:
            self.placements[placement.id] = placement
            changed.append(f"placement {placement.id}")
        for geometry in tables_file.map:
            if not checked:
                validate.check_map(self, name, geometry)
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
                validate.check_chart(self, name, chart)
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
                validate.fail(self, name, table, f"is rolled with a {before.die} ({self.origin.get(table.id, 'shipped')}); a "
                                        f"replacement keeps its die, not a {table.die} (give a new id instead)")
            if before is not None and before.effect != table.effect:
                validate.fail(self, name, table, f"does '{before.effect or 'nothing'}' for the books, which the steps' needs count "
                                        "on: a replacement keeps its effect (give a new id instead)")
            if not checked:
                validate.check_table(self, name, table)
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
                                     self.purchase_step("fortifications"))
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

    # ---- steps and maps ---------------------------------------------------------------
    def purchase_step(self, purchase: str) -> str | None:
        return validate.purchase_step(self.system, purchase)

    def grid(self, geometry: MapGeometry):
        from .hexmap import map_grid

        return map_grid(geometry)

    def map_of(self, group: str) -> MapGeometry:
        if not self.system.map_groups:
            raise BadInput(f"the {self.system.id.upper()} rules the ledger reads print no Map Groups (its CG map is not "
                           "among them): no Location or hex of its map can be recorded yet", self.cite("hex"))
        if group not in {g.id for g in self.system.map_groups}:
            raise BadInput(f"unknown Map Group '{group}': use {'|'.join(g.id for g in self.system.map_groups)}", self.cite("hex"))
        if group not in self.maps:
            raise BadInput(f"the {group} Map Group's grid is not in the rules seeds (no terrain is): load your map "
                           "file with `cgledger rules load FILE` (format: fixtures/kgp-st-fixture-map.toml)", self.cite("hex"))
        return self.maps[group]
    # ---- lookup ---------------------------------------------------------------------------
    def flag_text(self, flag: str) -> str:
        """A lasting condition in the players' words: the result of the table row that sets it, with the table's rule
        ('German OB suffers from Ammunition Shortage for the duration of the CG (8.618)')."""
        for table in self.tables.values():
            row = next((r for r in table.rows if flag in r.sets), None)
            if row is not None:
                return f"{row.result} ({table.rule})"
        return flag.replace("_", " ")

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
        return Applied(key, drm.text, drm_value(drm, n), "declared", n)

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
