"""Reading the map off the log: Locations checked against a Map Group's grid, Control and HQ as last
recorded, each side's Current-LVP (8.605, 8.6032)."""

from __future__ import annotations

from ..errors import BadInput
from .events import HQRecorded, LocationControlled
from ..rules.hexmap import Location, parse_location
from .inforce import live

KINDS = {"B": "building Location", "E": "Entrenchment", "F": "Fortification", "G": "functioning Gun",
         "V": "manned Immobile vehicle with functioning MA >= 20mm (or FT)"}


def check_location(rules, text: str):
    if not rules.system.map_groups:
        rules.map_of(text)  # refused, saying the rules print no Map Groups (RR)
    location = parse_location(text, rules.cite("hex"))
    geometry = rules.map_of(location.hex.group)
    grid = rules.grid(geometry)
    if not grid.contains(location.hex):
        raise BadInput(f"{location.hex} is not on the {location.hex.group} Map Group "
                       f"(columns {geometry.columns[0]}-{geometry.columns[1]}, rows {geometry.rows[0]}-{geometry.rows[1]})",
                       rules.cite("hex"))
    if location.level:
        levels = max((b.levels.get(str(location.hex), 0) for b in geometry.buildings), default=0)
        if location.level > levels or location.level < 0:
            raise BadInput(f"{location.hex} has no level {location.level} (its building has {levels} upper levels)",
                           rules.cite("levels"))
    return location


def control_of(logged, group: str) -> tuple[dict[Location, tuple[str, str]], dict[str, str]]:
    """Location -> (side, Strategic kind) as last recorded, and side -> HQ Location, on one Map Group."""
    control: dict[Location, tuple[str, str]] = {}
    hq: dict[str, str] = {}
    for event in live(logged):
        fact = event.fact
        if isinstance(fact, LocationControlled):
            where = parse_location(fact.location)
            if where.hex.group == group:
                control[where] = (fact.side, fact.strategic)
        elif isinstance(fact, HQRecorded) and fact.location.startswith(group):
            hq[fact.side] = fact.location
    return control, hq


def controls_at(logged, group: str, versions: list[int]) -> list[tuple[dict[Location, tuple[str, str]],
                                                                      dict[str, str]]]:
    """control_of(the events up to each version) for every version given (ascending), in one pass over the log: each
    Location's and side's records are kept with their actions, and an undo or rewind seen so far voids them."""
    from .inforce import voided_by

    records: dict[tuple, list[tuple[int, object, tuple[str, str] | str]]] = {}  # key -> [(position, action, value)]
    voided: set = set()
    out = []
    events = iter(enumerate(logged))
    pending = None
    for version in versions:
        while True:
            position, event = pending if pending is not None else next(events, (None, None))
            pending = None
            if event is None:
                break
            if event.version > version:
                pending = (position, event)
                break
            fact = event.fact
            if fact is None:
                continue
            undone = voided_by(fact)
            if undone is not None:
                voided.update(undone)
            elif isinstance(fact, LocationControlled):
                where = parse_location(fact.location)
                if where.hex.group == group:
                    records.setdefault(("control", where), []).append(
                        (position, getattr(fact, "action", None), (fact.side, fact.strategic)))
            elif isinstance(fact, HQRecorded) and fact.location.startswith(group):
                records.setdefault(("hq", fact.side), []).append(
                    (position, getattr(fact, "action", None), fact.location))
        firsts, values = {}, {}
        for key, entries in records.items():
            kept = [(position, value) for position, action, value in entries if action not in voided]
            if kept:
                firsts[key], values[key] = kept[0][0], kept[-1][1]
        order = sorted(firsts, key=firsts.get)  # as control_of fills its dicts: by first record in force
        out.append(({k[1]: values[k] for k in order if k[0] == "control"},
                    {k[1]: values[k] for k in order if k[0] == "hq"}))
    return out


def map_lvp(logged, rules) -> dict[str, int] | None:
    """Each side's Current-LVP from the LVP Locations it Controls on every Map Group whose map is loaded
    (8.6032); None when no map is loaded."""
    if not rules.maps:
        return None
    control = {}
    for group in rules.maps:
        control.update({str(where): side for where, (side, _kind) in control_of(logged, group)[0].items()})
    return lvp_held(rules, control)


def lvp_held(rules, control: dict[str, str]) -> dict[str, int]:
    """Each side's Current-LVP: the LVP Locations of the loaded maps it Controls (8.6032), from Control as last
    recorded (Location text -> side)."""
    lvp = {side: 0 for side in rules.system.sides}
    for geometry in rules.maps.values():
        for place in geometry.lvp_locations:
            owner = control.get(str(parse_location(place.location)), "")
            if owner in lvp:
                lvp[owner] += place.lvp
    return lvp
