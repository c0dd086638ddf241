"""The map: Control of Locations (8.605, A26.11-.12), the HQ Location (8.6052), and CGS firefight ends and
fortification placement (6.7.2, 6.8.2.1, 6.16.3, 7.1-7.6). Pure decisions; placing reads the terrain the
log has made so far."""

from __future__ import annotations

from ..errors import BadInput
from ..events import CGDateChanged, FirefightEnded, FortificationPlaced, HQRecorded, LocationControlled, RGPurchased
from ..evolve import SCENARIO, CampaignState
from ..hexmap import parse_location
from ..inforce import live
from ..mapping import KINDS, check_location
from ..rules import Rules
from .steps import title


def control(state: CampaignState, rules: Rules, location: str, side: str, strategic: str = "") -> LocationControlled:
    side = rules.side(side)
    open_steps = [s.id for s in rules.system.steps if s.control]
    if state.step != SCENARIO and state.step not in open_steps:
        upto = f" and up to {rules.steps[open_steps[-1]].title}" if open_steps else ""
        raise BadInput(f"Control is recorded during a CG scenario{upto}; the campaign is at "
                       f"{title(rules, state.step)}", open_steps[-1] if open_steps else None)
    where = check_location(rules, location)
    kind = strategic.upper()
    if kind and kind not in KINDS:
        raise BadInput(f"unknown Strategic Location kind '{strategic}': "
                       + ", ".join(f"{k} {v}" for k, v in KINDS.items()), open_steps[-1] if open_steps else None)
    return LocationControlled(action=state.next_action, location=str(where), side=side, strategic=kind)


def hq(state: CampaignState, rules: Rules, side: str, location: str) -> HQRecorded:
    side = rules.side(side)
    where = check_location(rules, location)
    if where.level:
        raise BadInput("the HQ is a ground-level building Location", rules.cite("hq"))
    return HQRecorded(action=state.next_action, side=side, location=str(where))


def firefight_end(state: CampaignState, rules: Rules, map_id: str, fires: tuple[str, ...] = (),
                  burning_wrecks: tuple[str, ...] = (), in_sewer: tuple[str, ...] = (),
                  redeployed: tuple[str, ...] = ()) -> list:
    """CGS: what a Campaign Firefight's end changes on the map, then the next firefight."""
    if rules.system.steps:
        raise BadInput(f"{rules.system.id.upper()} scenarios end in its Refit Phase (`cgledger step`), not with "
                       "firefight-end")
    if state.step != SCENARIO:
        raise BadInput("no firefight is being played")
    geometry = rules.map_of(map_id)
    grid = rules.grid(geometry)
    hexes = []
    for text in (*fires, *burning_wrecks):
        where = parse_location(text, rules.cite("hex"))
        if where.hex.group != map_id or not grid.contains(where.hex):
            raise BadInput(f"{text} is not on the {map_id} map", "6.7.2")
        hexes.append(str(where.hex))
    unknown = [u for u in redeployed if u not in in_sewer]
    if unknown:
        raise BadInput(f"'{unknown[0]}' Re-Deployed but was not In Sewer: name it with --sewer too", "6.16.3")
    current = rules.calendar.parse(state.cg_date)
    following = rules.calendar.next(current)
    last = rules.calendar.parse(next(c.last for c in rules.system.cg if c.id == state.cg))
    action = state.next_action
    facts: list = [FirefightEnded(action=action, map=map_id, firefight=current.text,
                                  fires=tuple(hexes[: len(fires)]), burning_wrecks=tuple(hexes[len(fires):]),
                                  in_sewer=tuple(in_sewer), redeployed=tuple(redeployed))]
    if following is not None and following <= last:
        facts.append(CGDateChanged(action=action, previous=current.text, cg_date=following.text))
    return facts


def place(state: CampaignState, rules: Rules, item: str, hex_text: str, side: str, hidden: bool,
          log: list) -> FortificationPlaced:
    """CGS: a fortification the side bought as an RG, placed where its placement rules allow (7.1-7.6);
    `log` is the events before (the terrain the firefights left, what was placed)."""
    from ..terrain import terrain

    side = rules.side(side)
    placement = rules.placements.get(item.lower())
    if placement is None:
        raise BadInput(f"no fortification '{item}' (use {', '.join(rules.placements) or 'none'})")
    where = parse_location(hex_text, rules.cite("hex"))
    if where.level:
        raise BadInput("fortifications are placed in a hex, not a level", placement.rule)
    in_force = live(log)
    bought = [e.version for e in in_force if isinstance(e.fact, RGPurchased) and e.fact.side == side
              and rules.rgs.get((side, e.fact.rg)) is not None
              and rules.rgs[(side, e.fact.rg)].fortification == placement.id]
    placed = {e.fact.rg for e in in_force if isinstance(e.fact, FortificationPlaced)}
    free = [v for v in bought if v not in placed]
    if not free:
        raise BadInput(f"the {rules.system.sides[side]} side has no {placement.name} bought and not yet placed: "
                       "buy the RG first", placement.rule)
    cell = terrain(log, rules, where.hex.group)["hexes"].get(str(where.hex))
    if cell is None:
        raise BadInput(f"{where.hex} is not on the {where.hex.group} map", placement.rule)
    kind = "rubble" if cell["rubble"] else cell["terrain"]
    for forbidden in placement.forbid:
        if forbidden.terrain in (kind, cell["terrain"]) and (hidden or not forbidden.hidden_only):
            what = f"{'hidden ' if hidden else ''}{placement.name}"
            raise BadInput(f"no {what} in {forbidden.terrain.replace('_', ' ')} ({where.hex})", forbidden.rule)
    if placement.only and kind not in placement.only and cell["terrain"] not in placement.only:
        raise BadInput(f"a {placement.name} goes only in a {' or '.join(t.replace('_', ' ') for t in placement.only)} "
                       f"hex; {where.hex} is {kind.replace('_', ' ')}", placement.only_rule or placement.rule)
    return FortificationPlaced(action=state.next_action, side=side, item=placement.id, hex=str(where.hex),
                               rg=free[0], hidden=hidden)
