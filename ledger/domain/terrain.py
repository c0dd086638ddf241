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
    grid = rules.grid(geometry)
    opened = opened or {}
    levels = {str(parse_location(h).hex): n for b in geometry.buildings for h, n in b.levels.items()}
    sewers = {str(parse_location(h).hex) for h in geometry.sewers}
    hexes: dict[str, dict[str, Any]] = {}
    for h in grid.hexes:
        name = str(h)
        kind = geometry.terrain.get(name, geometry.default_terrain)
        hexes[name] = {"hex": name, "terrain": kind, "levels": levels.get(name, 0), "rubble": kind == "rubble",
                       "interior_walls": kind == "factory", "wrecks": 0, "sewer": name in sewers,
                       "fortifications": [], "mouseholes": [], "changes": []}
    result: dict[str, Any] = {"map": map_id, "hexes": hexes, "viewer": viewer, "hidden": [], "mouseholes": [],
                              "removed": [], "sewer": {},
                              "grid": {"columns": geometry.columns, "rows": geometry.rows,
                                       "shifted": geometry.shifted}}
    shown: dict[int, dict[str, Any]] = {}  # placement event -> its entry in a hex's fortifications
    date = ""
    for event in live(logged):
        fact = event.fact
        if isinstance(fact, (CampaignStarted, CGDateChanged)):
            date = fact.cg_date
        elif isinstance(fact, FortificationPlaced) or isinstance(fact, HiddenFortificationPlaced):
            placed = opened.get(event.version, fact)
            if isinstance(placed, HiddenFortificationPlaced) or (placed.hidden and placed.side != viewer):
                result["hidden"].append({"event": event.version, "side": fact.side, "item": fact.item})
            elif placed.hex in hexes:
                _show(hexes, shown, event.version, placed, date)
        elif isinstance(fact, HiddenFortificationRevealed):
            result["hidden"] = [h for h in result["hidden"] if h["event"] != fact.placed]
            entry = shown.get(fact.placed)
            if entry is None and fact.fact.hex in hexes:
                entry = _show(hexes, shown, fact.placed, fact.fact, date)
            if entry is not None:
                entry["revealed"] = {"firefight": date, "cause": fact.cause or "its side", "event": event.version}
        elif isinstance(fact, FortificationRemoved):
            entry = shown.pop(fact.placed, None)
            if entry is None or fact.hex not in hexes:
                continue
            cell = hexes[fact.hex]
            cell["fortifications"] = [f for f in cell["fortifications"] if f is not entry]
            name = rules.placements[fact.item].name if fact.item in rules.placements else fact.item
            change = f"{name} {REMOVED_BY.get(fact.by, 'removed: ' + fact.by)} ({fact.rule})"
            cell["changes"].append({"firefight": date, "change": change})
            result["removed"].append({**entry, "firefight_removed": date, "by": fact.by, "rule": fact.rule})
        elif isinstance(fact, MouseholeMade):
            a, b = fact.hexes
            if a in hexes and b in hexes:
                hole = {"hexes": [a, b], "side": fact.side, "firefight": date, "rule": fact.rule,
                        "event": event.version}
                result["mouseholes"].append(hole)
                hexes[a]["mouseholes"].append(b)
                hexes[b]["mouseholes"].append(a)
        elif isinstance(fact, RubblePlaced):
            for name in fact.hexes:
                if name in hexes:
                    _rubble(hexes[name], date, f'"00": Rubble instead of Fire ({fact.rule})')
        elif isinstance(fact, FirefightEnded) and fact.map == map_id:
            for name in fact.fires:
                _rubble(hexes[name], fact.firefight, "Fire: Rubble at ground level")
            for name in fact.burning_wrecks:
                hexes[name]["wrecks"] += 1  # 6.8.2.1: Burning Wrecks are flipped to the Wreck side
                hexes[name]["changes"].append({"firefight": fact.firefight, "change": "Burning Wreck -> Wreck"})
            result["sewer"][fact.firefight] = sewer_units(fact, geometry)
    return result


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
