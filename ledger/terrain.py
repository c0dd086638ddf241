"""CGS terrain as the Campaign Firefights leave it (6.7.2, 6.8.2.1), for any CG Date: each hex's terrain,
upper levels, Rubble, Wrecks, and the changes with the firefight that made them. Pure."""

from __future__ import annotations

from typing import Any

from .events import FirefightEnded, FortificationPlaced
from .hexmap import parse_location
from .timeline import live

BUILDINGS = ("building", "factory")


def terrain(logged, rules, map_id: str) -> dict[str, Any]:
    geometry = rules.map_of(map_id)
    grid = rules.grid(geometry)
    levels = {str(parse_location(h).hex): n for b in geometry.buildings for h, n in b.levels.items()}
    hexes: dict[str, dict[str, Any]] = {}
    for h in grid.hexes:
        name = str(h)
        kind = geometry.terrain.get(name, geometry.default_terrain)
        hexes[name] = {"hex": name, "terrain": kind, "levels": levels.get(name, 0), "rubble": kind == "rubble",
                       "interior_walls": kind == "factory", "wrecks": 0, "fortifications": [], "changes": []}
    for event in live(logged):
        fact = event.fact
        if isinstance(fact, FortificationPlaced) and fact.hex in hexes:
            hexes[fact.hex]["fortifications"].append({"item": fact.item, "side": fact.side, "hidden": fact.hidden})
            continue
        if not isinstance(fact, FirefightEnded) or fact.map != map_id:
            continue
        for name in fact.fires:
            cell = hexes[name]
            if cell["terrain"] not in BUILDINGS or cell["rubble"]:
                continue  # 6.7.2: only a building burns into rubble; rubble in rubble adds nothing
            cell["rubble"] = True
            lost = cell["levels"]
            cell["levels"] = 0  # all levels above ground are eliminated ...
            # ... except Factory interior walls, which remain (cell["interior_walls"] stays as it was)
            cell["changes"].append({"firefight": fact.firefight, "change": "Fire: Rubble at ground level"
                                    + (f", {lost} upper level(s) gone" if lost else "")})
        for name in fact.burning_wrecks:
            hexes[name]["wrecks"] += 1  # 6.8.2.1: Burning Wrecks are flipped to the Wreck side
            hexes[name]["changes"].append({"firefight": fact.firefight, "change": "Burning Wreck -> Wreck"})
    return {"map": map_id, "hexes": hexes, "grid": {"columns": geometry.columns, "rows": geometry.rows,
                                                     "shifted": geometry.shifted}}


def changed(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in result["hexes"].values() if cell["changes"]]
