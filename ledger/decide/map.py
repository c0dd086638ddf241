"""The map: Control of Locations (8.605, A26.11-.12), the HQ Location (8.6052), and CGS firefight ends (6.7.2,
6.8.2.1, 6.16.3) and the CPP a chart gives as the next firefight starts. Pure decisions. Fortifications and
Mouseholes on the CGS map: ledger/decide/fortify.py."""

from __future__ import annotations

from ..errors import BadInput
from ..domain.events import CGDateChanged, CPPGained, FirefightEnded, HQRecorded, LocationControlled
from ..domain.evolve import SCENARIO, CampaignState
from ..rules.hexmap import parse_location
from ..domain.mapping import KINDS, check_location, control_of
from ..rules import Rules
from ..domain.terrain import parse_redeployed, parse_sewer
from .fortify import place  # noqa: F401 - placing was decided here before ledger/decide/fortify.py
from .steps import acting_step, title
from .walk import walking


def control(state: CampaignState, rules: Rules, location: str, side: str, strategic: str = "") -> LocationControlled:
    side = rules.side(side)
    open_steps = [s.id for s in rules.system.steps if s.control]
    if state.step != SCENARIO and state.step not in open_steps:
        upto = f" and up to {rules.steps[open_steps[-1]].title}" if open_steps else ""
        raise BadInput(f"Control is recorded during a CG scenario{upto}; the campaign is at "
                       f"{title(rules, state.step)}", open_steps[-1] if open_steps else None)
    where = check_location(rules, location)
    kind = strategic.upper()
    if kind == CLEAR:
        kind = ""  # the players say it is no Strategic Location (any more)
    elif not kind:  # a change of Control keeps the Location's Strategic kind (8.605)
        kind = state.strategic.get(str(where), ["", ""])[1]
    elif kind not in KINDS:
        raise BadInput(f"unknown Strategic Location kind '{strategic}': "
                       + ", ".join(f"{k} {v}" for k, v in KINDS.items()) + f", or {CLEAR.lower()} to clear it",
                       open_steps[-1] if open_steps else None)
    last = state.controlled.get(str(where))
    if state.edition >= 2 and last and last[0] == side and kind == state.strategic.get(str(where), ["", ""])[1]:
        raise BadInput(f"{where} is Controlled by the {rules.system.sides[side]} side already, as last recorded: a "
                       "change of Control is recorded when a side gains it", open_steps[-1] if open_steps else None)
    return LocationControlled(action=state.next_action, location=str(where), side=side, strategic=kind)


CLEAR = "NONE"  # `--strategic none`: the Location is no Strategic Location (any more)


def vacated(state: CampaignState, rules: Rules, group: str, by: str = "") -> list[LocationControlled]:
    """KGP 8.6131 EXC: every Retained on-map unit of the vacating side has left Map Group `group`, so the other side
    gains Control of all its Strategic Locations there at once (after 8.605, which the Setup Areas of the next CG
    scenario then read). Only the vacating side says its units are gone: once sides hold keys, the other side's word
    is refused."""
    rule = rules.system.vacated
    if rule is None:
        raise BadInput(f"the {rules.system.title} rules give no Control for a Map Group its units have left")
    gains, leaves = rules.system.sides[rule.side], rules.system.sides[rule.vacating]
    groups = {g.id.lower(): g.id for g in rules.system.map_groups}
    if group.strip().lower() not in groups:
        raise BadInput(f"unknown Map Group '{group}': choose {', '.join(groups.values())}", rule.rule)
    group = groups[group.strip().lower()]
    walks = walking(state, rules)
    if by and by != rule.vacating and walks:
        raise BadInput(f"the {leaves} side records that its own last units left the {group} Map Group: the "
                       f"{gains} side is told so (`cgledger vacated {group}` on the {leaves} ledger)", rule.rule)
    at = acting_step(rules, state, rule.vacating if walks else None)
    if at not in rule.steps:
        who = f"the {leaves} side stands" if walks else "the campaign is"
        raise BadInput(f"a Map Group the {leaves} units have left is recorded in the Refit Phase from "
                       f"{title(rules, rule.steps[0])} through {title(rules, rule.steps[-1])}; {who} at "
                       f"{title(rules, at)}", rule.rule)
    held = sorted(where for where, (side, kind) in state.strategic.items()
                  if kind and side != rule.side and parse_location(where).hex.group == group)
    if not held:
        raise BadInput(f"no Strategic Location on the {group} Map Group is Controlled by any side but the {gains}: "
                       "nothing to gain", rule.rule)
    return [LocationControlled(action=state.next_action, location=where, side=rule.side,
                               strategic=state.strategic[where][1]) for where in held]


def strategic_holders(state: CampaignState, location: str) -> set[str]:
    """The sides that Control a Strategic Location on `location`'s Map Group."""
    group = parse_location(location).hex.group
    return {side for where, (side, _kind) in state.strategic.items() if parse_location(where).hex.group == group}


def strategic_left(state: CampaignState, rules: Rules, location: str, before: set[str]) -> list[str]:
    """Warnings after a change of Control on `location`'s Map Group: each side that Controlled a Strategic Location
    there before it (`before`: strategic_holders then) and Controls none now, so has no Setup Area on it (8.605).
    Said once, by the change that took the last one; a side that never held one there is not warned again and
    again while the map is being entered."""
    group = parse_location(location).hex.group
    held = strategic_holders(state, location)
    return [f"the {rules.system.sides[s]} side Controls no Strategic Location on the {group} Map Group now, so it has "
            "no Setup Area there (8.605); if that is a typo, undo it" for s in rules.system.sides
            if s in before and s not in held]


def hq(state: CampaignState, rules: Rules, side: str, location: str, log=()) -> HQRecorded:
    """8.6052 EXC: on the Map Group whose side traces its path to an HQ (KGP: the German to LgN25 on Lg), once that
    HQ (or one designated since) is Controlled by the other side, it records another: a ground-level building
    Location of that Map Group."""
    side = rules.side(side)
    rule = rules.cite("hq")
    if rule is None:
        raise BadInput(f"{rules.system.id.upper()} has no HQ Location in its rules")
    where = check_location(rules, location)
    group = next((g for g in rules.system.map_groups if g.id == where.hex.group), None)
    first = group.hq.get(side) if group is not None else None
    if first is None:
        holders = [f"the {rules.system.sides[s]} side on {g.id}" for g in rules.system.map_groups for s in g.hq]
        raise BadInput(f"the {rules.system.sides[side]} side has no HQ on the {where.hex.group} Map Group: only "
                       + (", ".join(holders) or "no side") + " traces its path to one", rule)
    if where.level:
        raise BadInput("the HQ is a ground-level building Location", rule)
    geometry = rules.map_of(where.hex.group)
    marked = geometry.terrain or geometry.buildings  # a grid that marks its buildings: the HQ must stand in one
    building = geometry.terrain.get(str(where.hex), geometry.default_terrain) in ("building", "factory") \
        or any(str(where.hex) in b.levels for b in geometry.buildings)
    if marked and not building:
        raise BadInput(f"{where.hex} is no building on the loaded {where.hex.group} map: the HQ is a ground-level "
                       "building Location", rule)
    control, held = control_of(list(log), where.hex.group)
    current = held.get(side, first)
    owner = control.get(parse_location(current), ("", ""))[0]
    if not owner or owner == side:
        raise BadInput(f"the {rules.system.sides[side]} HQ {current} is not Controlled by the other side: another is "
                       "recorded only once it is lost", rule)
    if str(where) == current:
        raise BadInput(f"{current} is the HQ the other side Controls: record another Location", rule)
    return HQRecorded(action=state.next_action, side=side, location=str(where))


def firefight_end(state: CampaignState, rules: Rules, map_id: str, fires: tuple[str, ...] = (),
                  burning_wrecks: tuple[str, ...] = (), in_sewer: tuple[str, ...] = (),
                  redeployed: tuple[str, ...] = ()) -> list:
    """CGS: what a Campaign Firefight's end changes on the map, then the next firefight, and the CPP the chart in
    force gives each side for it."""
    if rules.system.steps:
        raise BadInput(f"{rules.system.id.upper()} scenarios end in its Refit Phase (`cgledger step`), not with "
                       "firefight-end")
    if state.step != SCENARIO:
        raise BadInput("no firefight is being played")
    geometry = rules.map_of(map_id)
    grid = rules.grid(geometry)
    hexes = []
    for text, rule in [(t, rules.cite("fire")) for t in fires] + [(t, rules.cite("wreck")) for t in burning_wrecks]:
        hexes.append(str(_on_map(rules, grid, map_id, text, rule)))
    _sewer(rules, geometry, grid, map_id, in_sewer, redeployed)
    current = rules.calendar.parse(state.cg_date)
    following = rules.calendar.next(current)
    last = rules.calendar.parse(next(c.last for c in rules.system.cg if c.id == state.cg))
    action = state.next_action
    facts: list = [FirefightEnded(action=action, map=map_id, firefight=current.text,
                                  fires=tuple(hexes[: len(fires)]), burning_wrecks=tuple(hexes[len(fires):]),
                                  in_sewer=tuple(in_sewer), redeployed=tuple(redeployed))]
    if following is not None and following <= last:
        facts.append(CGDateChanged(action=action, previous=current.text, cg_date=following.text))
        facts += gained(state, rules, action, following)
    return facts


def gained(state: CampaignState, rules: Rules, action: int, date) -> list[CPPGained]:
    """The CPP each side gains as CG Date `date` starts, as the system's CPP chart gives them (CGS prints none: the
    players' own chart, loaded with `rules load`); none without a chart or a line for that date."""
    chart_id = rules.system.cpp_chart
    if not chart_id or chart_id not in rules.charts:
        return []
    entry = rules.chart_entry(chart_id, state.cg, date)
    if entry is None:
        return []
    return [CPPGained(action=action, side=side, cpp=entry.values[side], cg_date=date.text, chart=chart_id,
                      rule=rules.charts[chart_id].rule)
            for side in rules.system.sides if entry.values.get(side)]


def _on_map(rules: Rules, grid, map_id: str, text: str, rule: str | None):
    where = parse_location(text, rules.cite("hex"))
    if where.hex.group != map_id or not grid.contains(where.hex):
        raise BadInput(f"{text} is not on the {map_id} map", rule)
    return where.hex


def _sewer(rules: Rules, geometry, grid, map_id: str, in_sewer: tuple[str, ...], redeployed: tuple[str, ...]) -> None:
    """6.16.3: each unit In Sewer is named with the hex it ended in ('4-4-7 in DTW-N32'), a sewer hex where the map
    file lists them (6.16.1); a unit that Re-Deployed by Sewer Movement went to a sewer hex within three hexes
    ('4-4-7 to DTW-P35'; naming the unit alone leaves its new hex unrecorded)."""
    rule, sewer_rule = rules.cite("sewer"), rules.cite("sewer_hex") or rules.cite("sewer")
    sewers = {str(parse_location(h).hex) for h in geometry.sewers}
    at: dict[str, object] = {}
    for text in in_sewer:
        unit, where = parse_sewer(text)
        if not where or not unit:
            raise BadInput(f"name the hex '{text}' is In Sewer in: --sewer 'UNIT in HEX', e.g. '4-4-7 in "
                           f"{map_id}-N32'", rule)
        if unit.casefold() in at:
            raise BadInput(f"'{unit}' is named In Sewer twice", rule)
        hex_ = _on_map(rules, grid, map_id, where, rule)
        if sewers and str(hex_) not in sewers:
            raise BadInput(f"{hex_} has no sewer: units In Sewer are in a sewer hex ({', '.join(sorted(sewers))})",
                           sewer_rule)
        at[unit.casefold()] = hex_
    seen = set()
    for text in redeployed:
        unit, to = parse_redeployed(text)
        key = unit.casefold()
        if key not in at:
            raise BadInput(f"'{unit}' Re-Deployed but was not In Sewer: name it with --sewer too", rule)
        if key in seen:
            raise BadInput(f"'{unit}' Re-Deployed twice", rule)
        seen.add(key)
        if to:
            dest = _on_map(rules, grid, map_id, to, rule)
            if grid.distance(at[key], dest) > 3:
                raise BadInput(f"'{unit}' Re-Deploys by Sewer Movement to a sewer hex within three hexes; {dest} is "
                               f"{grid.distance(at[key], dest)} hexes from {at[key]}", rule)
            if sewers and str(dest) not in sewers:
                raise BadInput(f"{dest} has no sewer: Sewer Movement ends in a sewer hex", sewer_rule)
