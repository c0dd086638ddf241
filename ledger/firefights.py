"""CGS Campaign Firefights: `firefight-end` records what changes the map and moves the campaign to the
next firefight. A mixin of the application service."""

from __future__ import annotations

from .campaign import SCENARIO
from .errors import BadInput
from .events import CGDateChanged, FirefightEnded
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
