"""Typed records that the rules data files decode into (unknown fields are refused).

Numbers the rules never print negative are constrained here, so that a player's file with a negative
price, maximum or FPP (or a typo turning one negative) fails at decode, before any event is written:
CPP costs (RG `cost`, `on_map_cost`, `pre_registered_cost`, a table's and a DRM's `cpp`), maxima
(`date_max`, `cg_max`, `shared_max`, `pre_registered_max`) and an RG's `fpp` are >= 0; a Fortification's
FPP cost is > 0 (every line of the 8.621 table has a price); divisors (`per`, `s_per`) are >= 1.
The engine adds what a constraint cannot say (FPP finite, DRM magnitudes, ids given twice: engine.py).

A zero-cost RG is allowed: CGS prints no CPP chart at all (its RG are bought for 0 CPP, see
fixtures/cgs-rg-chart-example.toml), and the ledger already books an RG given in an Initial OB
(`buy --given`) at 0 CPP. The KGP and RR charts print no 0-CPP line, but no rule forbids one.
"""


import re
from collections.abc import Callable
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

DieType = Literal["DR", "dr", "d10", "d100"]
Time = Literal["AM", "PM", "N"]
NonNegative = Annotated[int, Meta(ge=0)]  # CPP costs and maxima
AtLeastOne = Annotated[int, Meta(ge=1)]  # divisors
FPP = Annotated[float, Meta(ge=0.0)]  # FPP an RG gives: none or some (the engine refuses inf)
FPPCost = Annotated[float, Meta(gt=0.0)]  # a Fortification's price in FPP (the engine refuses inf)


class Row(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One result range: `min`..`max` inclusive; a missing bound is open ('≤ max', '≥ min')."""

    min: int | None = None
    max: int | None = None
    result: str
    code: str = ""  # short stable machine key for later projections (e.g. 'full', 'depleted')
    sets: list[str] = []  # campaign state flags that this result sets for the rest of the CG
    # what this result does on the map when the roll names its hexes (the table's `map`), and the rule saying so
    removes: list[str] = []  # fortifications in the named hexes it eliminates (CGS 7.4.7.2: the mines)
    rubble: bool = False  # the named hexes become Rubble (CGS 7.3.2 "00")
    mousehole: bool = False  # a Mousehole is made across the named hexside (CGS 7.3.2)
    rule: str = ""
    note: str = ""

    def covers(self, n: int) -> bool:
        return (self.min is None or n >= self.min) and (self.max is None or n <= self.max)

    def label(self) -> str:
        if self.min is None and self.max is None:
            return "any"
        if self.min is None:
            return f"≤ {self.max}"
        if self.max is None:
            return f"≥ {self.min}"
        return str(self.min) if self.min == self.max else f"{self.min}-{self.max}"


class DRM(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A die-roll modifier. `declared` ones the player names (`--drm key`, `--drm key=N`);
    `automatic` ones the ledger derives from campaign state when all their conditions hold."""

    key: str
    text: str
    kind: Literal["declared", "automatic"]
    value: int = 0
    # declared: 'flag' adds `value`; 'count' adds value × ((N - offset) // per); 'value' adds N
    input: Literal["flag", "count", "value"] = "flag"
    per: AtLeastOne = 1
    offset: int = 0
    min: int | None = None  # bounds of the player's N
    max: int | None = None
    default: int | None = None  # N when a 'value' DRM is named without one
    required: bool = False  # the roll is refused unless the player names it (e.g. 8.6122 SAN)
    known: Literal["", "san"] = ""  # the player's N must equal what the log knows of it (the side's SAN)
    cpp: NonNegative = 0  # CPP this DRM costs (per unit of N for a count DRM), e.g. 8.622 'Spent 2 CPP'
    sides: list[str] = []  # declared DRM allowed for these sides only (e.g. 'NA to U.S.')
    # automatic conditions (all that are given must hold)
    side: str | None = None
    time: Time | None = None
    from_date: str | None = None
    until_date: str | None = None
    days_after: int | None = None  # adds value × (day - days_after) when positive
    state: str | None = None
    # conditions the log decides (automatic: applied when they hold; declared: refused unless they hold)
    rg: list[str] = []  # the linked RG's ID is one of these ('V*' matches every V-type RG)
    rg_strength: str | None = None  # the linked RG's strength roll gave this result code (e.g. 'depleted')
    won: bool | None = None  # the rolling side won (True) / did not win (False) this CG Date's scenario
    attacked: bool | None = None  # the other side chose Attack in the previous CG scenario's Initiative (RR 2.521)
    previous_weather: list[str] = []  # the preceding CG Date's weather code is one of these
    count: Literal["", "scenarios_since"] = ""  # automatic: value x this count
    since: str | None = None  # the CG Date from which `count` counts (CG scenarios completed from it on)
    group: str = ""  # mutually exclusive DRMs share a group: at most one of them applies
    rule: str = ""
    note: str = ""


class ValueResult(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A table whose result is a number: the final roll itself, or a chart's base minus it."""

    label: str
    base_chart: str | None = None
    floor: int | None = None


class OriginalNote(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """An extra effect of one Original roll (e.g. 8.606 note 1: Original 2 DR, Heat of Battle)."""

    original: int
    note: str


class OnMap(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """The hexes a roll is made for (CGS: a mine attack's hex, a mousehole's hexside), named with `--hex` or in
    `--for`; what each result does to them is on its row (`removes`, `rubble`, `mousehole`)."""

    hexes: Annotated[int, Meta(ge=1, le=2)]  # how many hexes the roll names
    hexside: bool = False  # the two hexes are adjacent: the roll is made across their hexside
    holds: str = ""  # the named hex holds this fortification, known to both sides (7.4.7: mines)
    wall: bool = False  # the hexside is one a Mousehole may be blown in (interior Factory wall, Cellars)
    rule: str


class Condition(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """When the log makes a step's need (`Need`) or a table's roll (`Table.when`) apply; every condition given must
    hold. One reading for both: ledger/decide/steps.py `condition_fails`."""

    from_date: str | None = None  # from this CG Date on
    unless_flag: str | None = None  # not while this lasting condition applies (e.g. german_ammo_shortage)
    option: str | None = None  # only when the campaign chose this option at `new` (e.g. random_weather)
    scenario: str | None = None  # only on a CG Date of this scenario type, as Initiative gave it (e.g. 'Dual Attack')
    after: list[str] = []  # 'table:code': only once such a result was rolled this CG Date (8.6171 mist density)
    edition: int = 0  # only in a campaign started under this reading or a later one (`CampaignStarted.edition`): a
    # campaign keeps the reading it was started under, so a log written before a need was read in stays clean


class When(Condition, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A table's condition as data (`when = { scenario = "Dual Attack", rule = "8.6233a", note = "..." }`): a roll
    made when it does not hold is refused by the command, the audit and `import`, and `status` does not offer it."""

    rule: str = ""  # the rule that sets the condition (cited when a roll is refused; else the table's rule)
    note: str = ""  # the reading of the rule text the condition stands for


def rg_matches(rg: str, patterns) -> bool:
    """An RG ID against a list of IDs and prefixes ('V*' matches every V-type RG)."""
    return any(rg == p or (p.endswith("*") and rg.startswith(p[:-1])) for p in patterns)


class AtLeast(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A minimum the rules guarantee over one round of an RG's follow-ups on a table (one roll per piece): a round
    that gives fewer than `count` results coded `code` is ignored and rolled again, one roll per piece, until a round
    gives them (KGP 8.6205 EXC, RR 2.5192 EXC: a HW platoon receives at least two)."""

    count: AtLeastOne
    code: str
    rg: list[str]  # the RG IDs it holds for ('HW*': every HW-type RG)
    rule: str


class Table(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    rule: str
    title: str
    die: DieType
    reads: Literal["total", "white", "colored"] = "total"
    on: Literal["final", "original"] = "final"  # what the rows are read against
    secret: bool = False  # the rules call this a Secret roll
    sides: list[str] = []  # who may roll; empty = either side
    from_date: str | None = None  # first CG Date the roll is made
    until_date: str | None = None
    step: str = ""  # the RePh step whose rolls these are, or 'scenario' (SSR rolls during play)
    effect: str = ""  # what the roll does for the books (e.g. 'cpp_replenishment'), read by projections
    effect_edition: int = 0  # the effect counts only in a campaign started under this reading or a later one
    cpp: NonNegative = 0  # CPP the roll itself costs (8.622 Recon: 1)
    rows: list[Row] = []
    value: ValueResult | None = None
    drm: list[DRM] = []
    on_original: list[OriginalNote] = []
    steps: list[str] = []  # further steps in which the rules call for this roll (RR 2.51428: Escape in 2.514)
    # what the roll is due for, and how often (refused when not due; the audit flags a re-roll):
    # 'side/date' once per side per CG Date; 'date' once per CG Date, by either side (one Dual Attack dr decides
    # for both: 8.625, RR 2.525); 'rg' once per listed follow-up of the linked RG (its chart
    # line's `rolls`, `rolls_if`); 'unit' once per unit or leader named with --for on a CG Date (unnamed:
    # once per side and date); 'any' as often as play calls for it (SSR and situational rolls)
    per: Literal["", "any", "side/date", "date", "rg", "unit"] = ""
    per_rule: str = ""  # the rule that says how often
    after: list[str] = []  # 'table:code': due only once such a result was rolled this CG Date (8.6171 mist)
    # 'table:code': also rolled past `until_date` once such a result was rolled this CG Date (KGP3 after a Mist)
    until_unless: list[str] = []
    paid_by_rg: str = ""  # an RG whose purchase this CG Date pays the roll's own CPP (RR M3 Recon, 2.521)
    at_least: AtLeast | None = None  # a round of an RG's follow-ups that falls short is rolled again
    when: When | None = None  # rolled only when the log says this holds (8.6233a: in a Dual Attack)
    # the rule that has it rolled once both sides stand in its step, not by a side walked there ahead (8.6233a: the
    # side moving first "is not determined until after all setup is complete"); campaigns of edition 4 on
    together: str = ""
    map: OnMap | None = None  # the hexes the roll is made for, and what its results do to them (CGS)
    note: str = ""  # the reading chosen where the OCR is ambiguous, and why
    # the VASL dice categories a report rolled on this table may carry (empty: the system's `vasl_categories`)
    vasl_categories: list[str] = []


class ChartEntry(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    cg: str = ""  # empty: the same for every CG
    date: str
    values: dict[str, int] = {}
    text: dict[str, str] = {}  # e.g. the Historical Weather Chart's weather, moon, cloud cover


class Chart(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A lookup chart (not a dice table), e.g. the 8.6161 CPP Base # chart."""

    id: str
    rule: str
    title: str
    entries: list[ChartEntry] = []
    # a weather chart's other columns, shown beside the weather: text key -> its name (8.617: Moon Phase, Cloud Cover)
    columns: dict[str, str] = {}
    random_keeps: list[str] = []  # the columns that still hold when the random weather replaces the chart's
    note: str = ""


class Missing(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A table the rules name but do not print: listed, never invented."""

    id: str
    title: str
    named_in: str
    note: str = ""


class CG(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    start: str
    last: str
    attack_chits: dict[str, int] = {}  # per side (8.6231); empty where the rules give none
    map_groups: list[str] = []
    note: str = ""


class Need(Condition, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """What must be recorded before a RePh step is left: an effect, by each side listed
    (none listed: by either side), when its conditions hold (`Condition`)."""

    effect: str
    sides: list[str] = []
    san_from: int | None = None  # only for a side whose SAN, as the log knows it, is at least this (8.6122: 4)


class Reminder(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """What a step asks of the players that is no roll or record (shown by `status` while it is open)."""

    rule: str
    text: str
    time: Time | None = None  # only on a CG Date of this time of day (e.g. N: night)


class Step(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One RePh step. Markers (8.6): '§' to reach CG-Scenario End, '†' the only steps before an
    Initial Scenario, '‡' only if a non-Initial scenario is played, '*' repeated until a scenario
    is generated."""

    id: str
    title: str
    purpose: str = ""  # what the step is for, in a line from its rule text (`status`, `step` show it)
    markers: str = ""
    new_cg_date: bool = False  # entering it starts a new CG Date (8.6121)
    purchase: Literal["", "rg", "fortifications"] = ""  # the step in which RG / Fortifications are bought
    secret: bool = False  # its purchases may be kept secret (8.619 "may all be kept secret", RR 2.518)
    control: bool = False  # Control of Locations still changes in this step (up to Setup Area Determination)
    needs: list[Need] = []
    reminders: list[Reminder] = []
    note: str = ""


class MapGroup(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    name: str
    lvp: int  # total LVP value of the Map Group (8.6033)
    hq: dict[str, str] = {}  # side -> the Location its Isolation path is traced to instead (8.6052: German LgN25)


class EntryArea(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    sides: list[str]  # whose Eligible Entry Area it is
    hexes: list[str]


class LVPLocation(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    location: str
    lvp: int
    name: str = ""


class Building(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A multi-level building: its hexes and how many upper levels each has (StJ19: 2, the steeple)."""

    id: str
    levels: dict[str, int]  # hex -> upper levels


class Sector(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A named part of a map (CGS 6.16.3: units In Sewer at a firefight's end stay in the sector they ended in)."""

    id: str
    hexes: list[str]


class MapGeometry(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A Map Group's grid, as far as the ledger needs it (the terrain is not in the rules seeds: players
    supply their map file; a fixture grid ships for tests)."""

    group: str
    columns: list[str]  # [first, last], e.g. ["A", "TT"]
    rows: list[int]  # [first, last]
    shifted: Literal["odd", "even"] = "odd"  # columns sitting half a hex lower (A counts as 0: even)
    entry_areas: list[EntryArea] = []
    lvp_locations: list[LVPLocation] = []
    buildings: list[Building] = []
    terrain: dict[str, str] = {}  # hex -> terrain (building, factory, rubble, paved_road, road, water, marsh, ...)
    default_terrain: str = "open"
    sewers: list[str] = []  # hexes with a sewer symbol (CGS 6.16.1: a black circle in a hex of another terrain)
    sectors: list[Sector] = []
    note: str = ""


class RG(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One line of a side's RG chart (8.6191-8.6197). None where the seeds do not print it."""

    side: str
    id: str
    group_type: str
    units_full: int | None = None
    units_depleted: int | None = None
    unit_type: str = ""
    cost: NonNegative | None = None
    date_max: NonNegative | None = None
    cg_max: dict[str, NonNegative] = {}
    footnotes: list[str] = []
    sw: str = ""  # a Full-Strength platoon's SW (8.6204 chart)
    rolls: list[str] = []  # follow-up tables to roll in step 8.620 (8.6201, 8.6202, 8.6203/I, 8.6206/…)
    # result code of a follow-up roll -> further follow-ups then due for this RG (a Depleted RG's SW drs)
    rolls_if: dict[str, list[str]] = {}
    fpp: FPP = 0.0  # FPP this purchase gives for step 8.621
    san: int = 0  # what its purchase adds to the side's SAN (RR M2 Sniper: 'SAN Increase +1')
    from_date: str | None = None  # not purchasable before this CG Date (RR M4: only after 19 PM)
    on_map: Literal["extra", "free", "never"] = "extra"  # Standard on-map setup: at a cost, free, or never
    on_map_cost: NonNegative | None = None  # CPP added for on-map setup (RR footnote o: +3, +8 for an 'I' company)
    pre_registered_max: NonNegative = 0  # Pre-Registered hexes it may buy (RR footnote p: at most two)
    pre_registered_cost: NonNegative = 1  # CPP per Pre-Registered hex
    fortification: str = ""  # the fortification this RG provides, placed with `place` (CGS: mines, wire, ...)
    shared: str = ""  # a group of RG sharing one CG maximum (RR footnote f: G2+G3)
    shared_max: NonNegative | None = None
    note: str = ""


class EarlyEntry(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """KGP 8.6194b U.S. Early Entry: an RG of these sides and IDs may enter one CG Date before its Entry Area's
    arrow, its listed CPP cost raised by `percent` (fractions rounded down)."""

    sides: list[str]
    rg: list[str]  # IDs and prefixes ('T*': every T-type RG)
    percent: AtLeastOne
    rule: str
    note: str = ""


class Vacated(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """KGP 8.6131 EXC: once every Retained on-map unit of `vacating` has left a Map Group (Eliminated, or Escaped or
    Shifted to a Holding Box), `side` gains Control of all its Strategic Locations at once. The vacating side records
    it (its own units), in one of `steps`."""

    rule: str
    side: str
    vacating: str
    steps: list[str]
    note: str = ""


class SystemFile(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    title: str
    sides: dict[str, str]  # key -> display name
    calendar: list[str]
    cg: list[CG] = []
    steps: list[Step] = []
    map_groups: list[MapGroup] = []
    initiative: dict[str, str] = {}  # 'german:attack/us:idle' -> scenario type (8.6232 matrix)
    scenario_victory: bool = True  # whether a CG scenario has a winner (RR 2.5231: no)
    dual_attack_winner: str = ""  # the side that wins a Dual Attack if its Current-LVP rose (KGP 8.6234a: us)
    cg_lvp_sides: list[str] = []  # sides that keep a CG-LVP total (empty: all; RR 2.5033: Canadian only)
    weather_chart: str = ""  # the chart of each CG Date's weather (KGP 8.617)
    rg_date_max: Literal["map_group", "cg_date"] = "map_group"  # what an RG's CG Date max counts per
    early_entry: EarlyEntry | None = None  # an RG bought to enter a CG Date early, at a higher cost (KGP 8.6194b)
    vacated: Vacated | None = None  # Control gained when the other side's units all leave a Map Group (KGP 8.6131 EXC)
    # the rule cited for a concept the systems share: hex, levels, hq, map_group, objective, winner, reph (KGP);
    # fire, wreck, sewer, mousehole, cellar, hidden, search (CGS)
    cite: dict[str, str] = {}
    cpp_chart: str = ""  # the chart (players' own where not printed) of the CPP each side gains as a CG Date starts
    # the VASL dice categories a report attached to one of this system's tables may carry (a table may name its own)
    vasl_categories: tuple[str, ...] = ("Other", "Secret")
    source: str = ""
    note: str = ""


class Fortification(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A line of the Fortification Purchase Table (8.621): FPP cost, and its F/i/S footnotes."""

    id: str
    name: str
    rule: str = "8.621"
    cost: FPPCost | None = None  # FPP per item (or per factor)
    by_side: dict[str, FPPCost] = {}  # FPP per item by side (footnote 2: U.S./German)
    by_size: dict[str, FPPCost] = {}  # FPP by size (footnote 1: 3-/2-/1-squad capacity; 3: Squad/HS/Crew/SMC)
    front_line: bool = False  # 'F': may be set up in a Front-Line Hex (and must go in a Setup Area)
    isolated: bool = False  # 'i': may be added to an Isolated Location
    squads: bool = False  # 'S': needs Retained squad-equivalents in the Setup Area, one per Fortification
    s_per: AtLeastOne = 1  # how many items count as one Fortification for 'S' (6 A-P / 2 A-T factors)
    s_by_size: bool = False  # 'S' counts the capacity (each 1S of a foxhole counts one)
    initial_only: bool = False  # only for the Initial Scenario (RR 2.520 footnote i)
    note: str = ""


class Forbidden(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    terrain: str
    rule: str
    hidden_only: bool = False  # only a hidden one may not go there (CGS 7.4.4: no hidden mines on paved roads)


class Removal(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A way the rules remove a placed fortification (by a roll's result: the table row's `removes`)."""

    by: Literal["clearance", "fire", "abandoned"]  # 7.4.8 Clearance; an FFT 'E' from HE/DC fire; its units left
    rule: str
    text: str = ""


class Placement(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """Where a fortification bought as an RG may be placed on the map (CGS 7.1-7.6, 6.13.1), whether it may be
    set up hidden, and what removes it."""

    id: str
    name: str
    rule: str
    forbid: list[Forbidden] = []
    only: list[str] = []  # terrain it must be placed in (a roadblock: a road hex)
    only_rule: str = ""
    hidden: bool = False  # may be set up hidden (CGS 7.4.4: mines)
    hidden_rule: str = ""
    remove: list[Removal] = []  # how it is removed; none: no rule removes it
    keep_rule: str = ""  # the rule cited when nothing removes it (7.2.3: Trenches)
    at_start: str = ""  # placed only at the start of a firefight, before its play: the rule (7.6.1 Wire, 7.5.1)
    note: str = ""


class Victory(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One level of a CG's Victory Conditions by the final CG-LVP (KGP 8.51-8.53, RR 2.5231's are not in the rules
    text shipped: a player's rules file supplies them). The levels of one CG are read in order: the first whose
    bounds hold is the CG's result."""

    cg: str
    side: str  # whose final CG-LVP total is compared
    result: str  # e.g. 'German Decisive Victory'
    at_least: int | None = None
    at_most: int | None = None
    rule: str = ""
    note: str = ""


class TablesFile(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A file of tables: shipped under ledger/rules/<system>/, or a user's override file."""

    source: str = ""
    table: list[Table] = []
    chart: list[Chart] = []
    rg: list[RG] = []
    fortification: list[Fortification] = []
    map: list[MapGeometry] = []
    placement: list[Placement] = []
    missing: list[Missing] = []
    victory: list[Victory] = []


_PATH = re.compile(r" - at `(\$[^`]*)`$")
_STEP = re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")


def decode_toml(data: bytes | str, kind: type, name: str, rule_for: Callable[[str], str] | None = None):
    """Decodes a rules file; a refusal names the record (e.g. 'RG german I2') and, where there is one,
    its rule: the record's own `rule`, else `rule_for('rg' | 'fortification')` (the purchase step)."""
    from ..errors import RulesDataError

    try:
        return msgspec.toml.decode(data, type=kind)
    except msgspec.ValidationError as e:  # (a subclass of DecodeError)
        message, rule = _locate(data, str(e), rule_for)
        raise RulesDataError(f"rules file {name}: {message}", rule or None) from None
    except msgspec.DecodeError as e:
        raise RulesDataError(f"rules file {name}: {e}") from None


def _locate(data: bytes | str, error: str, rule_for: Callable[[str], str] | None) -> tuple[str, str]:
    """msgspec's 'Expected `int` >= 0 - at `$.rg[0].cost`' -> ('RG german I2: cost = -3: Expected `int` >= 0',
    its rule). The raw TOML (already known to parse) supplies the record's identity and the value."""
    found = _PATH.search(error)
    if not found:
        return error, ""
    node = msgspec.toml.decode(data)
    names: list[str] = []
    rule = field = ""
    for key, index in _STEP.findall(found.group(1)):
        if key:
            field = key
            node = node.get(key) if isinstance(node, dict) else None
        elif index != "..." and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
            if isinstance(node, dict):  # a record: name it, take its rule
                names.append(_record(field, node, int(index)))
                rule = str(node.get("rule") or "") or rule
                if not rule and rule_for and field in ("rg", "fortification"):
                    rule = rule_for(field)
                field = ""
    if field == "fpp" and rule_for and names and names[0].startswith("RG "):
        rule = rule_for("fortification")  # an RG's FPP are spent in the Fortification step (8.621)
    problem = error[: found.start()]
    if field:
        problem = f"{field} = {node!r}: {problem}" if node is not None else f"{field}: {problem}"
    return ": ".join([*names, problem]), rule


def _record(collection: str, record: dict, index: int) -> str:
    if collection == "rg":
        return f"RG {record.get('side', '?')} {record.get('id', '?')}"
    if collection == "drm":
        return f"DRM '{record.get('key', '?')}'"
    if collection == "map":
        return f"map {record.get('group', '?')}"
    if "id" in record:
        return f"{collection} {record['id']}"
    return f"{collection} #{index + 1}"


def drm_value(drm: "DRM", n: int | None) -> int:
    """What a declared DRM adds for the player's N: a flag its value, a value DRM N itself, a count DRM its value per
    `per` units over `offset`."""
    if drm.input == "flag":
        return drm.value
    if drm.input == "value":
        return n  # type: ignore[return-value]
    return drm.value * ((n - drm.offset) // drm.per)  # type: ignore[operator]
