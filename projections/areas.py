"""Setup Area Determination (8.605-8.6057) on one Map Group, from the Control recorded in the log:
each hex's classification per side, Setup Areas with stable IDs, No Man's Land, Uncontrolled Territory,
surrounded hexes, Isolated Locations (incl. upper levels) and each side's Current-LVP. Pure."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import HQRecorded, LocationControlled
from cgledger.ledger.rules.hexmap import Hex, Location, parse_location
from cgledger.ledger.domain.mapping import control_of, controls_at
from cgledger.ledger.domain.timeline import reph_ends

SETUP, ENEMY, NML, UNCONTROLLED = "setup", "enemy", "nml", "uncontrolled"
LETTERS = [chr(ord("A") + i) for i in range(26)]
LETTERS += [a + b for a in LETTERS for b in LETTERS]  # past Z: AA, AB, …


def _components(hexes: set[Hex], grid) -> list[set[Hex]]:
    seen: set[Hex] = set()
    parts = []
    adjacent = grid.adjacent
    for start in sorted(hexes):
        if start in seen:
            continue
        part, stack = {start}, [start]
        seen.add(start)
        while stack:
            for n in adjacent[stack.pop()]:
                if n in hexes and n not in seen:
                    seen.add(n)
                    part.add(n)
                    stack.append(n)
        parts.append(part)
    return parts


def determine(rules, geometry, control: dict[Location, tuple[str, str]], hq: dict[str, str],
              previous: dict[str, dict[str, set[Hex]]] | None = None) -> dict[str, Any]:
    grid = rules.grid(geometry)
    sides = list(rules.system.sides)
    cls = _classified(grid, sides, control)
    _enclosed(grid, sides, cls)
    areas = {s: _named(grid, cls, s, (previous or {}).get(s, {})) for s in sides}
    isolated_hexes = {s: _isolated_hexes(rules, geometry, grid, cls, control, hq, s) for s in sides}
    isolated = {s: sorted({str(loc) for loc, (side, _k) in control.items()
                           if side == s and loc.level == 0 and loc.hex in isolated_hexes[s]}
                          | upper_isolated(geometry, grid, control, s, isolated_hexes[s])) for s in sides}
    lvp = {s: sum(p.lvp for p in geometry.lvp_locations if control.get(parse_location(p.location), ("", ""))[0] == s)
           for s in sides}
    no_strategic = [s for s in sides if not any(
        side == s and kind and str(loc) not in isolated[s] for loc, (side, kind) in control.items())]
    return {"cls": cls, "areas": areas, "isolated": isolated, "isolated_hexes": isolated_hexes, "lvp": lvp,
            "no_strategic": no_strategic, "control": control, "grid": grid}


def _classified(grid, sides: list[str], control: dict[Location, tuple[str, str]]) -> dict[Hex, dict[str, str]]:
    """8.605-8.6051: each hex per side, from the Strategic Locations within two hexes: a side's Setup Area, the
    enemy's, No Man's Land where both reach (never a Strategic Location itself), else Uncontrolled Territory."""
    strategic = {s: {loc.hex for loc, (side, kind) in control.items() if side == s and kind} for s in sides}
    near = {s: grid.within(strategic[s], 2) for s in sides}  # 8.605: within two hexes
    cls: dict[Hex, dict[str, str]] = {}
    kinds: dict[tuple, dict[str, str]] = {}  # one classification dict per kind, shared by its hexes (never changed)
    for h in grid.hexes:
        own = tuple(s for s in sides if h in strategic[s])
        key = (True, own) if own else (False, tuple(s for s in sides if h in near[s]))
        kind = kinds.get(key)
        if kind is None:
            strategic_here, close = key
            if len(close) > 1 and not strategic_here:  # a Strategic Location is never No Man's Land (8.6051)
                kind = {s: NML for s in sides}
            elif close:
                kind = {s: SETUP if s in close else ENEMY for s in sides}
            else:
                kind = {s: UNCONTROLLED for s in sides}
            kinds[key] = kind
        cls[h] = kind
    return cls


def _enclosed(grid, sides: list[str], cls: dict[Hex, dict[str, str]]) -> None:
    """8.6054: Uncontrolled Territory completely enclosed within one side's Setup Area joins it."""
    adjacent = grid.adjacent
    uncontrolled = {h for h, c in cls.items() if c[sides[0]] == UNCONTROLLED}
    for part in _components(uncontrolled, grid):
        border = {n for h in part for n in adjacent[h]} - part
        edge = any(len(adjacent[h]) < 6 for h in part)
        owners = {next((s for s in sides if cls[n][s] == SETUP), None) if cls[n][sides[0]] != NML else NML
                  for n in border}
        if not edge and len(owners) == 1 and None not in owners and NML not in owners:
            owner = owners.pop()
            for h in part:
                cls[h] = {s: SETUP if s == owner else ENEMY for s in sides}


def _named(grid, cls: dict[Hex, dict[str, str]], side: str, old: dict[str, set[Hex]]) -> dict[str, set[Hex]]:
    """A side's Setup Areas: connected hexes of its Setup Area, each keeping the ID of the previous CG Date's area
    it overlaps most, the new ones the next free letters."""
    parts = _components({h for h, c in cls.items() if c[side] == SETUP}, grid)
    named: dict[str, set[Hex]] = {}
    for part in sorted(parts, key=lambda p: (-len(p), min(p))):
        match = max(((len(part & hexes), area_id) for area_id, hexes in old.items() if area_id not in named
                     and part & hexes), default=None)
        if match:
            named[match[1]] = part
    for part in sorted((p for p in parts if p not in named.values()), key=min):
        named[next(letter for letter in LETTERS if letter not in named and letter not in old)] = part
    return named


def _isolated_hexes(rules, geometry, grid, cls: dict[Hex, dict[str, str]], control: dict[Location, tuple[str, str]],
                    hq: dict[str, str], side: str) -> set[Hex]:
    """8.6052: a side's Setup Area hexes no path of Uncontrolled / friendly-Setup-Area hexes links to an Eligible
    Entry Area (the German on Lg: Peiper's HQ instead)."""
    adjacent = grid.adjacent
    group_hq = next((g.hq for g in rules.system.map_groups if g.id == geometry.group), {})
    passable = {h for h, c in cls.items() if c[side] in (SETUP, UNCONTROLLED)}
    hq_text = hq.get(side) or group_hq.get(side)
    if hq_text:
        hq_loc = parse_location(hq_text)
        targets = {hq_loc.hex} if control.get(hq_loc, (side, ""))[0] == side else set()
    else:
        targets = {parse_location(x).hex for a in geometry.entry_areas if side in a.sides for x in a.hexes}
    frontier = [h for h in targets if h in passable]
    seen = set(frontier)
    while frontier:
        for n in adjacent[frontier.pop()]:
            if n in passable and n not in seen:
                seen.add(n)
                frontier.append(n)
    return {h for h, c in cls.items() if c[side] == SETUP and h not in seen}


def upper_isolated(geometry, grid, control, side: str, isolated_hexes: set[Hex]) -> set[str]:
    """8.6057: an upper-level Location is not Isolated if friendly-Controlled building Locations lead to a
    friendly-Controlled, non-Isolated ground-level building Location."""
    levels: dict[Hex, tuple[str, int]] = {}
    for building in geometry.buildings:
        for text, upper in building.levels.items():
            levels[parse_location(text).hex] = (building.id, upper)

    def mine(loc: Location) -> bool:
        return control.get(loc, ("", ""))[0] == side

    def steps(loc: Location):
        building, upper = levels[loc.hex]
        for level in (loc.level - 1, loc.level + 1):
            if 0 <= level <= upper:
                yield Location(loc.hex, level)
        for n in grid.neighbours(loc.hex):
            if n in levels and levels[n][0] == building and loc.level <= levels[n][1]:
                yield Location(n, loc.level)

    frontier = [Location(h, 0) for h in levels if mine(Location(h, 0)) and h not in isolated_hexes]
    seen = set(frontier)
    while frontier:
        for nxt in steps(frontier.pop()):
            if nxt not in seen and mine(nxt):
                seen.add(nxt)
                frontier.append(nxt)
    return {str(loc) for loc, (s, _k) in control.items() if s == side and loc.level > 0 and loc not in seen
            and loc.hex in levels}


def check_determined(rules, group: str) -> None:
    """A system that determines no Setup Areas (CGS) has none to show: its map is the terrain."""
    if not any(step.control for step in rules.system.steps):
        raise LedgerError(f"{rules.system.id.upper()} determines no Setup Areas: its map is `cgledger terrain --map "
                          f"{group}`")


def areas_by_date(logged, rules, group: str) -> list[tuple[str, dict[str, Any]]]:
    """The map at the end of each CG Date's RePh in the log, in order; Setup Area IDs carry over from
    one CG Date to the next while an area stays the same."""
    geometry = rules.map_of(group)
    previous = None
    out = []
    ends = sorted(reph_ends(logged).items(), key=lambda kv: kv[1])
    for (date, _version), (control, hq) in zip(ends, controls_at(logged, group, [v for _d, v in ends])):
        result = determine(rules, geometry, control, hq, previous)
        previous = result["areas"]
        out.append((date, result))
    return out


# The Setup Areas stepped event by event (the kept `areas:GROUP` views and the history's story, projections/kept.py):
# `held` is one Map Group's Control and HQs as last recorded by the events in force so far (mapping.control_of) and
# the Setup Areas determined at the last RePh end (their IDs carry over, 8.605), JSON-native.
def held_init() -> dict[str, Any]:
    return {"control": {}, "hq": {}, "previous": None}


def track(held: dict[str, Any], fact, group: str) -> None:
    """One event in force, as control_of reads it."""
    if isinstance(fact, LocationControlled):
        where = parse_location(fact.location)
        if where.hex.group == group:
            held["control"][str(where)] = [fact.side, fact.strategic]
    elif isinstance(fact, HQRecorded) and fact.location.startswith(group):
        held["hq"][fact.side] = fact.location


def determine_held(rules, group: str, held: dict[str, Any]) -> dict[str, Any]:
    """The map as determined from what `held` holds (what areas_as_of gives for the same events)."""
    control = {parse_location(where): (side, kind) for where, (side, kind) in held["control"].items()}
    previous = held["previous"]
    if previous is not None:
        previous = {side: {area: {parse_location(h).hex for h in hexes} for area, hexes in named.items()}
                    for side, named in previous.items()}
    return determine(rules, rules.map_of(group), control, dict(held["hq"]), previous)


def reph_ended(held: dict[str, Any], rules, group: str) -> dict[str, Any]:
    """A CG Date's RePh ended: its map determined, and its Setup Areas kept as the ones the next date's IDs follow."""
    result = determine_held(rules, group, held)
    held["previous"] = areas_out(result["areas"])
    return result


def areas_out(named: dict[str, dict[str, set]]) -> dict[str, dict[str, list[str]]]:
    return {side: {area: sorted(str(h) for h in hexes) for area, hexes in by_id.items()}
            for side, by_id in named.items()}


def areas_as_of(logged, rules, group: str) -> dict[str, Any]:
    """The map as determined at the end of the log given (IDs carried from the earlier CG Dates)."""
    dates = areas_by_date(logged, rules, group)
    control, hq = control_of(logged, group)
    return determine(rules, rules.map_of(group), control, hq, dates[-1][1]["areas"] if dates else None)


def document(result: dict[str, Any], rules, group: str) -> dict[str, Any]:
    """`areas --json`: the classification plus the map's grid facts and the side names (what the SVG needs)."""
    data = as_json(result, rules)
    geometry = rules.map_of(group)
    data["map"] = {"group": geometry.group, "columns": geometry.columns, "rows": geometry.rows,
                   "shifted": geometry.shifted,
                   "entry_areas": [{"id": a.id, "sides": a.sides, "hexes": a.hexes} for a in geometry.entry_areas],
                   "lvp_locations": [{"location": p.location, "lvp": p.lvp} for p in geometry.lvp_locations]}
    data["sides"] = dict(rules.system.sides)
    data["lvp_total"] = next(g.lvp for g in rules.system.map_groups if g.id == group)
    return data


def as_json(result: dict[str, Any], rules) -> dict[str, Any]:
    sides = list(rules.system.sides)
    area_of = {s: {h: area_id for area_id, hexes in result["areas"][s].items() for h in hexes} for s in sides}
    strategic: dict[Hex, list[str]] = {}
    for loc, (side, kind) in result["control"].items():
        if kind:
            strategic.setdefault(loc.hex, []).append(f"{loc} {side} {kind}")
    hexes = []
    for h in sorted(result["cls"]):
        entry = {"hex": str(h), **{s: result["cls"][h][s] for s in sides},
                 "area": {s: area_of[s].get(h) for s in sides if area_of[s].get(h)},
                 "isolated": [s for s in sides if h in result["isolated_hexes"][s]]}
        if h in strategic:
            entry["strategic"] = sorted(strategic[h])
        hexes.append(entry)
    return {
        "hexes": hexes,
        "setup_areas": {s: {a: sorted(str(h) for h in hx) for a, hx in sorted(result["areas"][s].items())} for s in sides},
        "isolated": result["isolated"],
        "no_strategic_location": result["no_strategic"],
        "lvp": result["lvp"],
    }

