"""The event contracts: small frozen facts, past-tense names, explicit stable tags.

Stored history depends on these tags and field names: add fields only with defaults;
a changed meaning is a new event type. Every fact but CampaignStarted carries the number
of the action (one CLI command) that wrote it, so that `undo` can void a whole action.
"""

from __future__ import annotations

from msgspec import Struct


class Fact(Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class CampaignStarted(Fact, tag="CampaignStarted", frozen=True, kw_only=True):
    name: str
    system: str
    cg: str
    cg_date: str


class AppliedDRM(Struct, frozen=True, kw_only=True):
    key: str
    name: str  # the modifier as the table words it
    value: int
    kind: str  # 'declared' or 'automatic'
    input: int | None = None  # the player's number for a count/value DRM (e.g. uncontrolled_hexes=12)


class DiceRolled(Fact, tag="DiceRolled", frozen=True, kw_only=True):
    action: int
    table: str
    rule: str
    side: str
    die: str  # DR, dr, d10, d100
    dice: tuple[int, ...]  # faces as rolled: (white, colored) for a DR
    source: str  # rng | entered | seeded
    original: int
    drms: tuple[AppliedDRM, ...] = ()
    final: int
    result: str
    code: str = ""
    value: int | None = None  # for tables whose result is a number (8.616 CPP, 8.622 Recon)
    sets: tuple[str, ...] = ()  # lasting campaign conditions this result starts (8.618 shortage)
    secret: bool = False
    purpose: str = ""  # --for TEXT


class ActionUndone(Fact, tag="ActionUndone", frozen=True, kw_only=True):
    action: int
    undone: int  # the action voided
    reason: str = ""


class CGDateChanged(Fact, tag="CGDateChanged", frozen=True, kw_only=True):
    action: int
    previous: str
    cg_date: str


class TablesOverridden(Fact, tag="TablesOverridden", frozen=True, kw_only=True):
    """A player's own rules file, stored in the log so every reader and the audit use it too."""

    action: int
    source: str  # the file name it was loaded from
    text: str  # the TOML itself
    tables: tuple[str, ...]  # the ids it replaces or adds


FACTS: tuple[type[Fact], ...] = (CampaignStarted, DiceRolled, ActionUndone, CGDateChanged, TablesOverridden)
AnyFact = CampaignStarted | DiceRolled | ActionUndone | CGDateChanged | TablesOverridden
TAGS: dict[type[Fact], str] = {cls: cls.__struct_config__.tag for cls in FACTS}
