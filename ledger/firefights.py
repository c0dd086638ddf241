"""CGS Campaign Firefights: `firefight-end` records what changes the map and moves the campaign to the
next firefight. A mixin of the application service."""

from __future__ import annotations

from .campaign import SCENARIO
from .errors import BadInput
from .events import CGDateChanged, FirefightEnded, FortificationPlaced
from .hexmap import parse_location


class Firefights:
    def firefight_end(self, name: str | None, map_id: str, fires: tuple[str, ...] = (),
                      burning_wrecks: tuple[str, ...] = (), in_sewer: tuple[str, ...] = (),
                      redeployed: tuple[str, ...] = ()) -> FirefightEnded:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        if rules.system.steps:
            raise BadInput(f"{rules.system.id.upper()} scenarios end in its Refit Phase (`cgledger step`), not with "
                           "firefight-end")
        if campaign.step != SCENARIO:
            raise BadInput("no firefight is being played")
        geometry = rules.map_of(map_id)
        grid = rules.grid(geometry)
        hexes = []
        for text in (*fires, *burning_wrecks):
            where = parse_location(text)
            if where.hex.group != map_id or not grid.contains(where.hex):
                raise BadInput(f"{text} is not on the {map_id} map", "6.7.2")
            hexes.append(str(where.hex))
        unknown = [u for u in redeployed if u not in in_sewer]
        if unknown:
            raise BadInput(f"'{unknown[0]}' Re-Deployed but was not In Sewer: name it with --sewer too", "6.16.3")
        current = rules.calendar.parse(campaign.cg_date)
        following = rules.calendar.next(current)
        last = rules.calendar.parse(next(c.last for c in rules.system.cg if c.id == campaign.cg))
        action = campaign.begin_action()
        fact = FirefightEnded(action=action, map=map_id, firefight=current.text,
                              fires=tuple(hexes[: len(fires)]), burning_wrecks=tuple(hexes[len(fires):]),
                              in_sewer=tuple(in_sewer), redeployed=tuple(redeployed))
        campaign.record(fact)
        if following is not None and following <= last:
            campaign.record(CGDateChanged(action=action, previous=current.text, cg_date=following.text))
        self._save(campaign)
        return fact

    def place(self, name: str | None, item: str, hex_text: str, side: str, hidden: bool = False) -> FortificationPlaced:
        """Places a fortification the side bought as an RG, where its placement rules allow (CGS 7)."""
        from .events import RGPurchased
        from .terrain import terrain
        from .timeline import live

        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        placement = rules.placements.get(item.lower())
        if placement is None:
            raise BadInput(f"no fortification '{item}' (use {', '.join(rules.placements) or 'none'})")
        where = parse_location(hex_text)
        if where.level:
            raise BadInput("fortifications are placed in a hex, not a level", placement.rule)
        history = self.history(campaign.name)
        bought = [e.version for e in live(history) if isinstance(e.fact, RGPurchased) and e.fact.side == side
                  and (rules.rgs.get((side, e.fact.rg)) or None) is not None
                  and rules.rgs[(side, e.fact.rg)].fortification == placement.id]
        placed = {e.fact.rg for e in live(history) if isinstance(e.fact, FortificationPlaced)}
        free = [v for v in bought if v not in placed]
        if not free:
            raise BadInput(f"the {rules.system.sides[side]} side has no {placement.name} bought and not yet placed: "
                           "buy the RG first", placement.rule)
        cell = terrain(history, rules, where.hex.group)["hexes"].get(str(where.hex))
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
        fact = FortificationPlaced(action=campaign.begin_action(), side=side, item=placement.id, hex=str(where.hex),
                                   rg=free[0], hidden=hidden)
        campaign.record(fact)
        self._save(campaign)
        return fact
