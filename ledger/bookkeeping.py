"""The campaign's Refit Phase verbs: steps, CG-Scenario End, initiative, RG purchases, rewind,
status. A mixin of the application service: each verb decides (raising before anything is
recorded), then records one action."""

from __future__ import annotations

import math
import re

from .campaign import INITIAL_SCENARIO, SCENARIO, Campaign
from .errors import BadInput
from .events import (
    CGDateChanged, FortificationsPurchased, InitiativeChosen, Rewound, RGPurchased, ScenarioEnded, StepOpened,
)
from .mapping import map_lvp
from .reph import next_step, plan, title, unmet
from .timeline import live, reph_ends

_HEX = re.compile(r"^([A-Z][a-z])([A-Z]{1,2})(\d{1,2})$")


class Bookkeeping:
    # ---- steps -------------------------------------------------------------------------------
    def step(self, name: str | None, target: str | None = None):
        """`step next` / `step STEP`: forward in order, skipping only what may be skipped."""
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        move = plan(rules, campaign, target.lower() if target and target.lower() == SCENARIO else target)
        action = campaign.begin_action()
        if move.new_date:
            campaign.record(CGDateChanged(action=action, previous=campaign.cg_date, cg_date=move.new_date))
        campaign.record(StepOpened(action=action, step=move.target, skipped=move.skipped))
        self._save(campaign)
        return move

    def status(self, name: str | None, as_of: str | None = None) -> dict:
        state, rules = self.state_as_of(name, as_of)
        nxt = next_step(rules, state)
        return {
            "campaign": state.name, "system": state.system, "sides": dict(rules.system.sides), "cg": state.cg,
            "cg_date": state.cg_date,
            "step": state.step, "step_title": title(rules, state.step),
            "scenario": state.scenario or None, "initial": state.initial,
            "needs": unmet(rules, state, state.step),
            "reminders": reminders(rules, state),
            "next": nxt, "next_title": title(rules, nxt),
            "cpp": state.cpp, "fpp": {s: v for s, v in state.fpp.items() if v}, "lvp": state.lvp,
            "attack_chits": state.chits, "flags": state.flags,
            "random_weather": state.options.get("random_weather", False),
        }

    # ---- 8.603 CG-Scenario End -------------------------------------------------------------------
    def scenario_end(self, name: str | None, lvp_items: tuple[str, ...], winner: str | None = None) -> ScenarioEnded:
        from .application import side_numbers

        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        base = need_step(rules, campaign, "scenario_end")  # KGP 8.603, RR 2.503
        if "scenario_end:" in campaign.done:
            raise BadInput(f"CG-Scenario End of {campaign.cg_date} is already recorded: undo it to change it", f"{base}2")
        lvp = side_numbers(rules, lvp_items, "--lvp", f"{base}2")
        if not lvp_items:  # read off the map: the LVP Locations each side Controls (8.6032)
            lvp = map_lvp(self.history(campaign.name), rules) or {}
            if not lvp:
                raise BadInput("no map is loaded to read the Current-LVP from: give "
                               + " ".join(f"--lvp {s}=N" for s in rules.system.sides), f"{base}2")
        missing = [s for s in rules.system.sides if s not in lvp]
        if missing:
            raise BadInput(f"give every side's Current-LVP: --lvp {missing[0]}=N", f"{base}2")
        total = sum(g.lvp for g in rules.system.map_groups)
        if any(v < 0 for v in lvp.values()) or (total and sum(lvp.values()) > total):
            raise BadInput(f"Current-LVP {lvp} cannot be negative or exceed the {total} LVP of all Map Groups", f"{base}3")
        if not rules.system.scenario_victory:  # RR 2.5231: no CG scenario is won or lost, only the CG
            if winner is not None:
                raise BadInput(f"{rules.system.id.upper()} CG scenarios have no winner", "2.5231")
            fact = ScenarioEnded(action=campaign.begin_action(), scenario=campaign.scenario, lvp=lvp, winner="")
            campaign.record(fact)
            self._save(campaign)
            return fact
        computed = decide_winner(rules, campaign.scenario, campaign.lvp, lvp)
        if winner is not None:
            winner = rules.side(winner)
        if computed is None and winner is None:
            raise BadInput(f"the {campaign.scenario or 'scenario'}'s Victory Conditions are not in the rules seeds "
                           "(8.51-.53): name the winner with --winner SIDE", "8.6234")
        fact = ScenarioEnded(action=campaign.begin_action(), scenario=campaign.scenario, lvp=lvp,
                             winner=winner or computed, declared=winner is not None and winner != computed)
        campaign.record(fact)
        self._save(campaign)
        return fact

    # ---- 8.623 Initiative --------------------------------------------------------------------------
    def initiative(self, name: str | None, chits: dict[str, str], us_has_no_units: bool = False) -> InitiativeChosen:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        base = need_step(rules, campaign, "initiative")  # KGP 8.623, RR 2.522
        if "initiative:" in campaign.done:
            raise BadInput(f"Initiative for {campaign.cg_date} is already determined: undo it to change it", f"{base}2")
        chits = {rules.side(side): chit.lower() for side, chit in chits.items()}
        if set(chits) != set(rules.system.sides) or not set(chits.values()) <= {"attack", "idle"}:
            raise BadInput("give each side's chit: attack or idle (" + ", ".join(f"--chit {s}=…" for s in rules.system.sides)
                           + ")", f"{base}2")
        if us_has_no_units and chits.get("german") == "attack":
            raise BadInput("the German may not select the Attack Chit while the U.S. has no on-map Retained units", "8.6232")
        if us_has_no_units and "german" not in chits:
            raise BadInput("--us-has-no-units is a KGP rule (8.6232)")
        limits = next(c.attack_chits for c in rules.system.cg if c.id == campaign.cg)
        for side, chit in chits.items():
            if chit == "attack" and side in limits and campaign.chits.get(side, 0) >= limits[side]:
                raise BadInput(f"the {rules.system.sides[side]} side has used its {limits[side]} Attack Chits "
                               f"of CG {campaign.cg}", f"{base}1")
        key = "/".join(f"{side}:{chits[side]}" for side in rules.system.sides)
        fact = InitiativeChosen(action=campaign.begin_action(), chits=chits, scenario=rules.system.initiative[key])
        campaign.record(fact)
        self._save(campaign)
        return fact

    # ---- 8.619 RG purchase -------------------------------------------------------------------------
    def buy(self, name: str | None, rg_id: str, side: str, map_group: str = "", objective: str = "",
            given: bool = False, on_map: bool = False, pre_registered: int = 0) -> RGPurchased:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        step = purchase_step(rules, "rg") if rules.system.steps else ""
        if step and campaign.step != step:
            raise BadInput(f"RG are purchased in step {step}; the campaign is at {title(rules, campaign.step)}", step)
        rg = rules.rgs.get((side, rg_id.upper()))
        who = rules.system.sides[side]
        if rg is None:
            known = ", ".join(sorted(i for s, i in rules.rgs if s == side)) or "none"
            raise BadInput(f"no RG '{rg_id}' on the {who} RG chart (known: {known}); load your chart with "
                           "`cgledger rules load FILE`", f"{step}1")
        groups = {g.id: g for g in rules.system.map_groups}
        if groups and rules.system.rg_date_max == "map_group":  # KGP: bought for a Map Group, an Objective Hex there
            cg_groups = next(c.map_groups for c in rules.system.cg if c.id == campaign.cg) or list(groups)
            if map_group not in cg_groups:
                raise BadInput(f"unknown Map Group '{map_group}' for CG {campaign.cg}: use --map-group "
                               f"{'|'.join(cg_groups)}", "8.6195")
            if (rg.id[:1] == "I" or rg.id.startswith("HW")) and not objective:
                raise BadInput(f"an '{rg.id[:2] if rg.id.startswith('HW') else 'I'}'-type RG needs its Objective Hex: "
                               "--objective HEX", "8.6198")
            if objective and not _HEX.match(objective):
                raise BadInput(f"malformed hex '{objective}': Map Group then coordinate, e.g. StJ19 or LgN25", "KGP1")
        elif map_group:
            raise BadInput(f"{rules.system.id.upper()} RG are not bought for a Map Group: leave out --map-group")
        if given and not campaign.initial:
            raise BadInput("only an Initial-Scenario OB gives RG (--given); later RG are bought", f"{step}6")
        if rg.from_date and rules.calendar.parse(campaign.cg_date) < rules.calendar.parse(rg.from_date):
            raise BadInput(f"{who} RG {rg.id} ({rg.group_type}) is available only from {rg.from_date} "
                           f"(CG Date is {campaign.cg_date})", step)
        extra = 0
        if on_map:
            if rg.on_map == "never":
                raise BadInput(f"{who} RG {rg.id} ({rg.group_type}) may not set up on board", f"{step}4")
            if rg.on_map == "extra":
                if rg.on_map_cost is None:
                    raise BadInput(f"{who} RG {rg.id} has no on-map setup cost in the RG chart", f"{step}4")
                extra += rg.on_map_cost
        if pre_registered:
            if pre_registered > rg.pre_registered_max:
                raise BadInput(f"{who} RG {rg.id} may have at most {rg.pre_registered_max} Pre-Registered hexes", step)
            extra += pre_registered * rg.pre_registered_cost
        cost = 0
        if not given:
            missing = [what for what, value in (("CPP cost", rg.cost), ("CG Date max", rg.date_max),
                                                (f"CG {campaign.cg} maximum", rg.cg_max.get(campaign.cg))) if value is None]
            if missing:
                raise BadInput(f"the {' and '.join(missing)} of {who} RG {rg.id} ({rg.group_type}) are not printed in the "
                               "rules seeds: add them to your RG chart file and `cgledger rules load` it", f"{step}4")
            cost = rg.cost + extra
            bought = campaign.bought.get(f"{side}:{rg.id}", 0)
            if bought >= rg.cg_max[campaign.cg]:
                raise BadInput(f"the {who} side may buy at most {rg.cg_max[campaign.cg]} {rg.group_type} ({rg.id}) "
                               f"in CG {campaign.cg} and has bought {bought}", f"{step}6")
            if rg.shared and rg.shared_max is not None:
                group = [other.id for (s, _i), other in rules.rgs.items() if s == side and other.shared == rg.shared]
                together = sum(campaign.bought.get(f"{side}:{i}", 0) for i in group)
                if together >= rg.shared_max:
                    raise BadInput(f"the {who} side may buy at most {rg.shared_max} of {rg.shared} together in the CG "
                                   f"and has bought {together}", f"{step}6")
            today = campaign.bought_today.get(f"{side}:{rg.id}:{map_group}", 0)
            if today >= rg.date_max:
                per = " per Map Group" if rules.system.rg_date_max == "map_group" else ""
                place = f" for {map_group}" if map_group else ""
                raise BadInput(f"at most {rg.date_max} {rg.group_type} ({rg.id}) per CG Date{per}; "
                               f"{today} already bought{place} on {campaign.cg_date}", f"{step}5")
            available = campaign.cpp.get(side, 0) + (self.secret_cpp(campaign, side) if cost else 0)
            if cost > available:
                raise BadInput(f"{rg.id} ({rg.group_type}) costs {cost} CPP; the {who} side has "
                               f"{available} CPP left", f"{step}4")
        fact = RGPurchased(action=campaign.begin_action(), side=side, rg=rg.id, group_type=rg.group_type, cpp=cost,
                           map_group=map_group, objective=objective, given=given, rolls=tuple(rg.rolls), fpp=rg.fpp)
        campaign.record(fact)
        self._save(campaign)
        return fact

    # ---- 8.621 Fortifications -------------------------------------------------------------------------
    def fortify(self, name: str | None, item: str, side: str, setup_area: str, count: int = 1, size: str = "",
                squads: int | None = None, front_line: bool = False, isolated: bool = False) -> FortificationsPurchased:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        step = purchase_step(rules, "fortifications")
        if campaign.step != step:
            raise BadInput(f"Fortifications are purchased in step {step}; the campaign is at "
                           f"{title(rules, campaign.step)}", step)
        fort = rules.fortifications.get(item.lower())
        if fort is None:
            raise BadInput(f"no Fortification '{item}' on the {step} table (use {', '.join(rules.fortifications)})", step)
        if fort.initial_only and not campaign.initial:
            raise BadInput(f"{fort.name} is only for the Initial Scenario", fort.rule)
        if count < 1:
            raise BadInput("buy at least one", fort.rule)
        if fort.by_size and size not in fort.by_size:
            raise BadInput(f"{fort.name} needs --size {'|'.join(fort.by_size)}", fort.rule)
        if not setup_area.strip():
            raise BadInput("name the Setup Area the Fortifications are added to: --setup-area ID", fort.rule)
        unit = fort.by_size.get(size) if fort.by_size else fort.by_side.get(side, fort.cost)
        if unit is None:
            raise BadInput(f"{fort.name} has no FPP cost for the {rules.system.sides[side]} side", fort.rule)
        fpp = unit * count
        left = campaign.fpp.get(side, 0)
        if fpp > left:
            raise BadInput(f"{count} {fort.name} cost {fpp:g} FPP; the {rules.system.sides[side]} side has {left:g} FPP "
                           "(FPP are bought in step 8.619)", fort.rule)
        if front_line and not fort.front_line:
            raise BadInput(f"only 'F' items may be set up in a Front-Line Hex, and {fort.name} is not one", fort.rule)
        if isolated and not fort.isolated:
            raise BadInput(f"only 'i' items may be added to an Isolated Location, and {fort.name} is not one", fort.rule)
        s_units = 0
        if fort.squads:
            s_units = count * int(size) if fort.s_by_size else math.ceil(count / fort.s_per)
            already = campaign.fortified.get(f"{side}:{setup_area}", 0)
            if not squads or already + s_units > squads:
                raise BadInput(f"'S': Setup Area {setup_area} may get as many Fortifications as it has Retained "
                               f"squad-equivalents (--squads {squads or 0}); it already has {already}, these count "
                               f"{s_units}", fort.rule)
        fact = FortificationsPurchased(action=campaign.begin_action(), side=side, item=fort.id, name=fort.name, size=size,
                                       count=count, fpp=fpp, setup_area=setup_area, s_units=s_units,
                                       front_line=front_line, isolated=isolated)
        campaign.record(fact)
        self._save(campaign)
        return fact

    def rg_reference(self, campaign: Campaign, ref: str, side: str, table) -> int:
        """`--rg 12` (the purchase's event) or `--rg I2#1` (the side's first I2) -> event version."""
        if not table.effect.startswith("rg_"):
            raise BadInput(f"table {table.id} is not an RG follow-up roll: --rg does not apply", table.rule)
        purchases = [e for e in live(self.history(campaign.name)) if isinstance(e.fact, RGPurchased)
                     and e.fact.side == side]
        match = re.match(r"^([A-Za-z]+\d*)#(\d+)$", ref)
        if match:
            same = [e for e in purchases if e.fact.rg == match.group(1).upper()]
            index = int(match.group(2))
            if not 1 <= index <= len(same):
                raise BadInput(f"no RG {ref} for this side ({len(same)} {match.group(1).upper()} bought or given)", "8.6198")
            return same[index - 1].version
        if ref.isdigit() and any(e.version == int(ref) for e in purchases):
            return int(ref)
        raise BadInput(f"no RG '{ref}' of this side in force: use the event number `status` shows, or ID#N "
                       "(e.g. I2#1)", "8.6198")

    # ---- rewind --------------------------------------------------------------------------------------
    def rewind(self, name: str | None, date: str, reason: str = "") -> Rewound:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        canonical = rules.calendar.parse(date).text
        history = self.history(campaign.name)
        ends = reph_ends(history)
        if canonical not in ends:
            raise BadInput(f"the RePh of CG Date {canonical} has not ended (ended: {', '.join(ends) or 'none yet'})", "8.6")
        cut = next(e for e in history if e.version == ends[canonical])
        voided = campaign.live_actions_after(cut.fact.action)
        if not voided:
            raise BadInput(f"nothing was recorded after the end of {canonical}'s RePh: nothing to rewind")
        fact = Rewound(action=campaign.begin_action(), cg_date=canonical, to_version=cut.version,
                       voided=tuple(voided), reason=reason)
        campaign.record(fact)
        self._save(campaign)
        return fact


def reminders(rules, state) -> list[dict]:
    """The open step's reminders that apply on this CG Date (e.g. RR 2.51428 at night)."""
    if state.step not in rules.steps:
        return []
    time = rules.calendar.parse(state.cg_date).time
    return [{"rule": r.rule, "text": r.text} for r in rules.steps[state.step].reminders if r.time in (None, time)]


def need_step(rules, campaign, effect: str) -> str:
    """Refuses a record whose step is not the open one (8.6: steps in order); returns that step's id."""
    steps = [s for s in rules.system.steps if any(n.effect == effect for n in s.needs)]
    if steps and campaign.step not in {s.id for s in steps}:
        raise BadInput(f"this is recorded in step {title(rules, steps[0].id)}; the campaign is at "
                       f"{title(rules, campaign.step)}", steps[0].id)
    return steps[0].id if steps else ""


def decide_winner(rules, scenario: str, start: dict[str, int], end: dict[str, int]) -> str | None:
    """8.6234: Dual Attack, the side named by the system (KGP: the Americans) wins if its Current-LVP rose;
    an Assault, the assaulter wins if its Current-LVP rose by ≥ 20% (FRU), at least 1. Initial Scenario VC
    (8.51-.53) are not in the seeds."""
    sides = list(rules.system.sides)
    if scenario == "Dual Attack" and rules.system.dual_attack_winner:
        side = rules.system.dual_attack_winner
        return side if end[side] > start.get(side, 0) else next(s for s in sides if s != side)
    attackers = [key for key, value in rules.system.initiative.items() if value == scenario]
    assaulter = None
    if attackers:
        chits = dict(part.split(":") for part in attackers[0].split("/"))
        attacking = [s for s, chit in chits.items() if chit == "attack"]
        assaulter = attacking[0] if len(attacking) == 1 else None
    if assaulter is None:
        return None
    defender = next(s for s in sides if s != assaulter)
    before = start.get(assaulter, 0)
    return assaulter if end[assaulter] >= before + max(1, math.ceil(before * 0.2)) else defender


def purchase_step(rules, kind: str) -> str:
    """The RePh step in which RG or Fortifications are bought (KGP 8.619 / 8.621, RR 2.518 / 2.520)."""
    step = next((s.id for s in rules.system.steps if s.purchase == kind), None)
    if step is None:
        raise BadInput(f"{rules.system.id.upper()} has no step for purchasing {kind}")
    return step


__all__ = ["Bookkeeping", "INITIAL_SCENARIO"]
