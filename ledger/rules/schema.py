"""Typed records that the rules data files decode into (unknown fields are refused)."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import Struct

DieType = Literal["DR", "dr", "d10", "d100"]
Time = Literal["AM", "PM", "N"]


class Row(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One result range: `min`..`max` inclusive; a missing bound is open ('≤ max', '≥ min')."""

    min: int | None = None
    max: int | None = None
    result: str
    code: str = ""  # short stable machine key for later projections (e.g. 'full', 'depleted')
    sets: list[str] = []  # campaign state flags that this result sets for the rest of the CG
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
    per: int = 1
    offset: int = 0
    min: int | None = None  # bounds of the player's N
    max: int | None = None
    default: int | None = None  # N when a 'value' DRM is named without one
    required: bool = False  # the roll is refused unless the player names it (e.g. 8.6122 SAN)
    sides: list[str] = []  # declared DRM allowed for these sides only (e.g. 'NA to U.S.')
    # automatic conditions (all that are given must hold)
    side: str | None = None
    time: Time | None = None
    from_date: str | None = None
    until_date: str | None = None
    days_after: int | None = None  # adds value × (day - days_after) when positive
    state: str | None = None
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
    rows: list[Row] = []
    value: ValueResult | None = None
    drm: list[DRM] = []
    on_original: list[OriginalNote] = []
    note: str = ""  # the reading chosen where the OCR is ambiguous, and why


class ChartEntry(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    cg: str
    date: str
    values: dict[str, int]


class Chart(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A lookup chart (not a dice table), e.g. the 8.6161 CPP Base # chart."""

    id: str
    rule: str
    title: str
    entries: list[ChartEntry] = []
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
    note: str = ""


class SystemFile(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    id: str
    title: str
    sides: dict[str, str]  # key -> display name
    calendar: list[str]
    cg: list[CG] = []
    source: str = ""
    note: str = ""


class TablesFile(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A file of tables: shipped under ledger/rules/<system>/, or a user's override file."""

    source: str = ""
    table: list[Table] = []
    chart: list[Chart] = []
    missing: list[Missing] = []


def decode_toml(data: bytes | str, kind: type, name: str):
    from ..errors import RulesDataError

    try:
        return msgspec.toml.decode(data, type=kind)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise RulesDataError(f"rules file {name}: {e}") from None
