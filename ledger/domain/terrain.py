"""CGS terrain as the Campaign Firefights leave it (6.7.2, 6.8.2.1, 6.16.3, 7.1-7.6), for any CG Date: each hex's
terrain, upper levels, Rubble, Wrecks, fortifications, Mouseholes, the units In Sewer, and the changes with the
firefight that made them. Pure.

A hidden fortification (7.4.4) is shown only to the side that set it up (`viewer`) until it is revealed: sealed
ones the viewer's key opened come in `opened`; the others are counted, never placed. The decisions read the
public view (viewer None), the one both sides and the audit share."""

from __future__ import annotations

from typing import Any

from .events import (
    CampaignStarted, CGDateChanged, FirefightEnded, FortificationPlaced, FortificationRemoved,
    HiddenFortificationPlaced, HiddenFortificationRevealed, MouseholeMade, RubblePlaced,
)
from ..rules.hexmap import parse_location
from .timeline import live

BUILDINGS = ("building", "factory")
REMOVED_BY = {"roll": "eliminated by the roll's result", "clearance": "removed by Clearance",
              "fire": "removed by an 'E' result from HE/DC fire", "abandoned": "removed: its units left"}


def terrain(logged, rules, map_id: str, viewer: str | None = None,
            opened: dict[int, FortificationPlaced] | None = None) -> dict[str, Any]:
    geometry = rules.map_of(map_id)
    hexes = _start(rules, geometry)
    result: dict[str, Any] = {"map": map_id, "hexes": hexes, "viewer": viewer, "hidden": [], "mouseholes": [],
                              "removed": [], "sewer": {},
                              "grid": {"columns": geometry.columns, "rows": geometry.rows,
                                       "shifted": geometry.shifted}}
    fold = _Fold(rules, geometry, map_id, viewer, opened or {}, result)
    for event in live(logged):
        step = _STEPS.get(type(event.fact))
        if step is not None:
            step(fold, event.fact, event.version)
    return result


def _start(rules, geometry) -> dict[str, dict[str, Any]]:
    """Each hex as the map prints it: its terrain, upper levels, sewer."""
    levels = {str(parse_location(h).hex): n for b in geometry.buildings for h, n in b.levels.items()}
    sewers = {str(parse_location(h).hex) for h in geometry.sewers}
    hexes: dict[str, dict[str, Any]] = {}
    for h in rules.grid(geometry).hexes:
        name = str(h)
        kind = geometry.terrain.get(name, geometry.default_terrain)
        hexes[name] = {"hex": name, "terrain": kind, "levels": levels.get(name, 0), "rubble": kind == "rubble",
                       "interior_walls": kind == "factory", "wrecks": 0, "sewer": name in sewers,
                       "fortifications": [], "mouseholes": [], "changes": []}
    return hexes


class _Fold:
    """The terrain as the events leave it, one kind of event at a time (`_STEPS`)."""

    def __init__(self, rules, geometry, map_id: str, viewer: str | None, opened: dict, result: dict[str, Any]):
        self.rules, self.geometry, self.map_id, self.viewer, self.opened = rules, geometry, map_id, viewer, opened
        self.result, self.hexes = result, result["hexes"]
        self.shown: dict[int, dict[str, Any]] = {}  # placement event -> its entry in a hex's fortifications
        self.date = ""

    def dated(self, fact, version: int) -> None:
        self.date = fact.cg_date

    def placed(self, fact, version: int) -> None:
        placed = self.opened.get(version, fact)
        if isinstance(placed, HiddenFortificationPlaced) or (placed.hidden and placed.side != self.viewer):
            self.result["hidden"].append({"event": version, "side": fact.side, "item": fact.item})
        elif placed.hex in self.hexes:
            _show(self.hexes, self.shown, version, placed, self.date)

    def revealed(self, fact: HiddenFortificationRevealed, version: int) -> None:
        self.result["hidden"] = [h for h in self.result["hidden"] if h["event"] != fact.placed]
        entry = self.shown.get(fact.placed)
        if entry is None and fact.fact.hex in self.hexes:
            entry = _show(self.hexes, self.shown, fact.placed, fact.fact, self.date)
        if entry is not None:
            entry["revealed"] = {"firefight": self.date, "cause": fact.cause or "its side", "event": version}

    def removed(self, fact: FortificationRemoved, version: int) -> None:
        entry = self.shown.pop(fact.placed, None)
        if entry is None or fact.hex not in self.hexes:
            return
        cell = self.hexes[fact.hex]
        cell["fortifications"] = [f for f in cell["fortifications"] if f is not entry]
        placements = self.rules.placements
        name = placements[fact.item].name if fact.item in placements else fact.item
        change = f"{name} {REMOVED_BY.get(fact.by, 'removed: ' + fact.by)} ({fact.rule})"
        cell["changes"].append({"firefight": self.date, "change": change})
        self.result["removed"].append({**entry, "firefight_removed": self.date, "by": fact.by, "rule": fact.rule})

    def mousehole(self, fact: MouseholeMade, version: int) -> None:
        a, b = fact.hexes
        if a in self.hexes and b in self.hexes:
            self.result["mouseholes"].append({"hexes": [a, b], "side": fact.side, "firefight": self.date,
                                              "rule": fact.rule, "event": version})
            self.hexes[a]["mouseholes"].append(b)
            self.hexes[b]["mouseholes"].append(a)

    def rubble(self, fact: RubblePlaced, version: int) -> None:
        for name in fact.hexes:
            if name in self.hexes:
                _rubble(self.hexes[name], self.date, f'"00": Rubble instead of Fire ({fact.rule})')

    def firefight_ended(self, fact: FirefightEnded, version: int) -> None:
        if fact.map != self.map_id:
            return
        for name in fact.fires:
            _rubble(self.hexes[name], fact.firefight, "Fire: Rubble at ground level")
        for name in fact.burning_wrecks:
            self.hexes[name]["wrecks"] += 1  # 6.8.2.1: Burning Wrecks are flipped to the Wreck side
            self.hexes[name]["changes"].append({"firefight": fact.firefight, "change": "Burning Wreck -> Wreck"})
        self.result["sewer"][fact.firefight] = sewer_units(fact, self.geometry)


_STEPS = {
    CampaignStarted: _Fold.dated, CGDateChanged: _Fold.dated, FortificationPlaced: _Fold.placed,
    HiddenFortificationPlaced: _Fold.placed, HiddenFortificationRevealed: _Fold.revealed,
    FortificationRemoved: _Fold.removed, MouseholeMade: _Fold.mousehole, RubblePlaced: _Fold.rubble,
    FirefightEnded: _Fold.firefight_ended,
}


def _show(hexes, shown, version: int, fact: FortificationPlaced, date: str) -> dict[str, Any]:
    entry = {"item": fact.item, "side": fact.side, "hex": fact.hex, "hidden": fact.hidden, "event": version,
             "firefight": date}
    hexes[fact.hex]["fortifications"].append(entry)
    shown[version] = entry
    return entry


def _rubble(cell: dict[str, Any], firefight: str, how: str) -> None:
    """6.7.2: a building hex becomes Rubble at ground level, every level above it gone except Factory interior
    walls; rubble in a rubble hex adds nothing. 7.3.2's "00" rubble is read the same way."""
    if cell["terrain"] not in BUILDINGS or cell["rubble"]:
        return
    cell["rubble"] = True
    lost = cell["levels"]
    cell["levels"] = 0  # (cell["interior_walls"] stays as it was: Factory interior walls remain)
    cell["changes"].append({"firefight": firefight, "change": how + (f", {lost} upper level(s) gone" if lost else "")})


def parse_sewer(text: str) -> tuple[str, str]:
    """'4-4-7 in DTW-N32' -> ('4-4-7', 'DTW-N32'): a unit In Sewer and its hex (6.16.3); ('4-4-7', '') without one."""
    unit, sep, where = text.strip().rpartition(" in ")
    return (" ".join(unit.split()), where.strip()) if sep and unit.strip() else (" ".join(text.split()), "")


def parse_redeployed(text: str) -> tuple[str, str]:
    """'leader 8-1 to DTW-P35' -> ('leader 8-1', 'DTW-P35'); a unit named alone, or as `--sewer` named it, keeps
    no destination."""
    unit, sep, where = text.strip().rpartition(" to ")
    if sep and unit.strip():
        return " ".join(unit.split()), where.strip()
    return parse_sewer(text)[0], ""


def sector_of(geometry, hex_name: str) -> str | None:
    for sector in geometry.sectors:
        if any(str(parse_location(h).hex) == hex_name for h in sector.hexes):
            return sector.id
    return None


def sewer_units(fact: FirefightEnded, geometry) -> list[dict[str, Any]]:
    """6.16.3: units In Sewer at the firefight's end are in the sector they ended in, unless they Re-Deployed by
    Sewer Movement (to the sewer hex named, when it is)."""
    moved = dict(parse_redeployed(t) for t in fact.redeployed)
    moved = {unit.casefold(): to for unit, to in moved.items()}
    units = []
    for text in fact.in_sewer:
        unit, where = parse_sewer(text)
        key = unit.casefold()
        to = moved.get(key) or None
        if to:
            to = str(parse_location(to).hex)
        at = str(parse_location(where).hex) if where else None
        now = to or at
        units.append({"unit": unit, "hex": at, "sector": sector_of(geometry, at) if at else None,
                      "redeployed": key in moved, "to": to, "now": now,
                      "sector_now": sector_of(geometry, now) if now else None})
    return units


def changed(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in result["hexes"].values() if cell["changes"]]
