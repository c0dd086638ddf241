"""Purchases: RG against the chart in force and its limits, Fortifications with the FPP of the CG Date.
Pure decisions; the rule cited is the campaign's own system's purchase step."""

from __future__ import annotations

import math
import re

from ..errors import BadInput
from ..domain.events import FortificationsPurchased, RGPurchased, RGPurchaseRevealed, RGPurchaseSealed
from ..domain.evolve import CampaignState
from ..rules import Rules
from ..rules.schema import rg_matches
from ..trust.secrets import commitment
from .rolls import held_cpp
from .steps import acting_step, title

_HEX = re.compile(r"^([A-Z][a-z])([A-Z]{1,2})(\d{1,2})$")


def purchase_step(rules: Rules, kind: str) -> str:
    """The RePh step in which RG or Fortifications are bought (KGP 8.619 / 8.621, RR 2.518 / 2.520)."""
    step = rules.purchase_step(kind)
    if step is None:
        raise BadInput(f"{rules.system.id.upper()} has no step for purchasing {kind}")
    return step


def by_map_group(rules: Rules) -> bool:
    """KGP 8.6195: an RG is bought for a Map Group (its CG Date max counted per Map Group), with an Objective Hex
    there for the types that have one (8.6198); RR and CGS RG have neither."""
    return bool(rules.system.map_groups) and rules.system.rg_date_max == "map_group"


def needs_objective(rules: Rules, rg_id: str) -> bool:
    """8.6198: the RG Purchase Record's Objective Hex is recorded for each 'I'- and 'HW'-type RG when it is
    purchased (or given in the Initial-Scenario OB): `buy` refuses such an RG without one."""
    return by_map_group(rules) and (rg_id[:1] == "I" or rg_id.startswith("HW"))


def _at(step: str, n: str) -> str | None:
    """A sub-rule of the purchase step (8.6194 ...); none for a system without RePh steps."""
    return f"{step}{n}" if step else None


def rg_reference(campaign: CampaignState, rules: Rules, ref: str, side: str) -> int:
    """`--rg 12` (the purchase's event) or `--rg I2#1` (the side's first I2 in force) -> event version."""
    mine = sorted((int(v), rg) for v, rg in campaign.rgs.items() if rg["side"] == side)
    step = purchase_step(rules, "rg") if rules.system.steps else None
    match = re.match(r"^([A-Za-z]+\d*)#(\d+)$", ref.strip())
    if match:
        same = [v for v, rg in mine if rg["rg"] == match.group(1).upper()]
        index = int(match.group(2))
        if not 1 <= index <= len(same):
            raise BadInput(f"no RG {ref} for this side ({len(same)} {match.group(1).upper()} bought or given)", step)
        return same[index - 1]
    if ref.strip().isdigit() and any(v == int(ref) for v, _rg in mine):
        return int(ref)
    raise BadInput(f"no RG '{ref}' of this side in force: use the event number `status` shows, or ID#N "
                   "(e.g. I2#1)", step)


def buy(campaign: CampaignState, rules: Rules, rg_id: str, side: str, map_group: str = "", objective: str = "",
        given: bool = False, on_map: bool = False, pre_registered: int = 0, sealed_cpp=0,
        early: bool = False) -> RGPurchased:
    """8.619 (RR 2.518): one RG bought against the chart in force, the CPP, the per-CG-Date and per-CG maxima.
    `sealed_cpp`: the side's own Secret replenishments not yet revealed. `early`: KGP 8.6194b Early Entry."""
    side = rules.side(side)
    step = purchase_step(rules, "rg") if rules.system.steps else ""
    at = acting_step(rules, campaign, side)  # the step the buyer stands in (each side walks the RePh)
    if step and at != step:
        raise BadInput(f"RG are purchased in step {step}; {_whose(campaign, at)} at {title(rules, at)}", step)
    rg = rules.rgs.get((side, rg_id.upper()))
    who = rules.system.sides[side]
    if rg is None:
        known = ", ".join(sorted(i for s, i in rules.rgs if s == side)) or "none"
        raise BadInput(f"no RG '{rg_id}' on the {who} RG chart (known: {known}); load your chart with "
                       "`cgledger rules load FILE`", _at(step, "1"))
    _check_where(campaign, rules, rg, map_group, objective)
    if given and not campaign.initial:
        raise BadInput("only an Initial-Scenario OB gives RG (--given); later RG are bought", _at(step, "6"))
    if rg.from_date and rules.calendar.parse(campaign.cg_date) < rules.calendar.parse(rg.from_date):
        raise BadInput(f"{who} RG {rg.id} ({rg.group_type}) is available only from {rg.from_date} "
                       f"(CG Date is {campaign.cg_date})", step)
    extra = _extra_cost(rules, rg, side, step, on_map, early, given, pre_registered)
    cost = 0 if given else _cost_within_limits(campaign, rules, rg, side, step, map_group, extra, sealed_cpp)
    return RGPurchased(action=campaign.next_action, side=side, rg=rg.id, group_type=rg.group_type, cpp=cost,
                       map_group=map_group, objective=objective, given=given, rolls=tuple(rg.rolls), fpp=rg.fpp,
                       on_map=on_map, pre_registered=pre_registered, san=rg.san, early=early)


def _check_where(campaign: CampaignState, rules: Rules, rg, map_group: str, objective: str) -> None:
    """KGP: an RG is bought for a Map Group of the CG, an 'I' or 'HW' RG with its Objective Hex there (8.6198)."""
    groups = {g.id: g for g in rules.system.map_groups}
    if not (groups and by_map_group(rules)):
        if map_group:
            raise BadInput(f"{rules.system.id.upper()} RG are not bought for a Map Group: leave out --map-group")
        return
    cg_groups = next(c.map_groups for c in rules.system.cg if c.id == campaign.cg) or list(groups)
    if not map_group:
        raise BadInput(f"an RG is bought for a Map Group of CG {campaign.cg}: give --map-group {'|'.join(cg_groups)}",
                       rules.cite("map_group"))
    if map_group not in cg_groups:
        raise BadInput(f"unknown Map Group '{map_group}' for CG {campaign.cg}: use --map-group "
                       f"{'|'.join(cg_groups)}", rules.cite("map_group"))
    if needs_objective(rules, rg.id) and not objective:
        raise BadInput(f"an '{rg.id[:2] if rg.id.startswith('HW') else 'I'}'-type RG needs its Objective Hex: "
                       "--objective HEX", rules.cite("objective"))
    if objective and not _HEX.match(objective):
        raise BadInput(f"malformed hex '{objective}': Map Group then coordinate, e.g. StJ19 or LgN25", rules.cite("hex"))


def _extra_cost(rules: Rules, rg, side: str, step: str, on_map: bool, early: bool, given: bool,
                pre_registered: int) -> int:
    """What the RG costs beyond its listed cost: an on-map setup (RR 2.5184), Early Entry (KGP 8.6194b),
    Pre-Registered hexes (RR p)."""
    who = rules.system.sides[side]
    extra = 0
    if on_map:
        if rg.on_map == "never":
            raise BadInput(f"{who} RG {rg.id} ({rg.group_type}) may not set up on board", _at(step, "4"))
        if rg.on_map == "extra":
            if rg.on_map_cost is None:
                raise BadInput(f"{who} RG {rg.id} has no on-map setup cost in the RG chart", _at(step, "4"))
            extra += rg.on_map_cost
    if early:
        extra += _early_entry(rules, rg, side, on_map, given)
    if pre_registered < 0:
        raise BadInput(f"--pre-registered {pre_registered}: a number of hexes cannot be negative", step or None)
    if pre_registered:
        if pre_registered > rg.pre_registered_max:
            raise BadInput(f"{who} RG {rg.id} may have at most {rg.pre_registered_max} Pre-Registered hexes", step)
        extra += pre_registered * rg.pre_registered_cost
    return extra


def _cost_within_limits(campaign: CampaignState, rules: Rules, rg, side: str, step: str, map_group: str, extra: int,
                        sealed_cpp) -> int:
    """The CPP a bought RG costs, refused over the CG maximum, a shared maximum, the CG Date maximum (8.6195) or
    the CPP the side has."""
    who = rules.system.sides[side]
    missing = [what for what, value in (("CPP cost", rg.cost), ("CG Date max", rg.date_max),
                                        (f"CG {campaign.cg} maximum", rg.cg_max.get(campaign.cg))) if value is None]
    if missing:
        raise BadInput(f"the {' and '.join(missing)} of {who} RG {rg.id} ({rg.group_type}) are not printed in the "
                       "rules seeds: add them to your RG chart file and `cgledger rules load` it", _at(step, "4"))
    cost = rg.cost + extra
    bought = campaign.bought.get(f"{side}:{rg.id}", 0)
    if bought >= rg.cg_max[campaign.cg]:
        raise BadInput(f"the {who} side may buy at most {rg.cg_max[campaign.cg]} {rg.group_type} ({rg.id}) "
                       f"in CG {campaign.cg} and has bought {bought}", _at(step, "6"))
    if rg.shared and rg.shared_max is not None:
        group = [other.id for (s, _i), other in rules.rgs.items() if s == side and other.shared == rg.shared]
        together = sum(campaign.bought.get(f"{side}:{i}", 0) for i in group)
        if together >= rg.shared_max:
            raise BadInput(f"the {who} side may buy at most {rg.shared_max} of {rg.shared} together in the CG "
                           f"and has bought {together}", _at(step, "6"))
    today = campaign.bought_today.get(f"{side}:{rg.id}:{map_group}", 0)
    if today >= rg.date_max:
        per = " per Map Group" if rules.system.rg_date_max == "map_group" else ""
        place = f" for {map_group}" if map_group else ""
        raise BadInput(f"at most {rg.date_max} {rg.group_type} ({rg.id}) per CG Date{per}; "
                       f"{today} already bought{place} on {campaign.cg_date}", _at(step, "5"))
    available = campaign.cpp.get(side, 0)
    if cost > available:  # the side's own sealed replenishments count too (known to its ledger only)
        available += held_cpp(sealed_cpp)
    if cost > available:
        raise BadInput(f"{rg.id} ({rg.group_type}) costs {cost} CPP; the {who} side has "
                       f"{available} CPP left", _at(step, "4"))
    return cost


def _early_entry(rules: Rules, rg, side: str, on_map: bool, given: bool) -> int:
    """The CPP an RG bought for Early Entry costs beyond its listed cost (KGP 8.6194b: +50%, FRD)."""
    entry = rules.system.early_entry
    if entry is None:
        raise BadInput(f"{rules.system.id.upper()} has no Early Entry: leave out --early")
    if side not in entry.sides or not rg_matches(rg.id, entry.rg):
        sides = " or ".join(rules.system.sides[s] for s in entry.sides)
        kinds = ", ".join(f"'{p.rstrip('*')}'" for p in entry.rg)
        raise BadInput(f"Early Entry is for a {sides} RG whose ID begins with {kinds}; {rg.id} is not one", entry.rule)
    if on_map or given:
        raise BadInput("an RG set up on-map or given in the Initial-Scenario OB does not enter: leave out --early",
                       entry.rule)
    return (rg.cost or 0) * entry.percent // 100


# ---- 8.619 / 8.6192 (RR 2.518): purchases kept secret ----------------------------------------------------------
def secret_step(rules: Rules) -> str | None:
    """The purchase step when the system lets RG purchases be kept secret (KGP 8.619, RR 2.518), else None."""
    step = next((s for s in rules.system.steps if s.purchase == "rg"), None)
    return step.id if step is not None and step.secret else None


def admit_sealed(state: CampaignState, rules: Rules, side: str, sealed_with: str, sealed: str) -> RGPurchaseSealed:
    """What the other side can decide of a secret purchase before it is revealed: a side with a key bought one RG
    in the purchase step of this CG Date. Which RG, and every limit, are decided again when it is revealed."""
    side = rules.side(side)
    step = secret_step(rules)
    if step is None:
        raise BadInput(f"{rules.system.id.upper()} RG purchases are not kept secret: buy with --open")
    at = acting_step(rules, state, side)
    if at != step:
        raise BadInput(f"RG are purchased in step {step}; {_whose(state, at)} at {title(rules, at)}", step)
    if side not in state.keys:
        raise BadInput(f"the {rules.system.sides[side]} side has no key to seal its purchase with "
                       "(`cgledger keys init`); buy with --open", step)
    return RGPurchaseSealed(action=state.next_action, side=side, cg_date=state.cg_date, commitment=sealed_with,
                            sealed=sealed)


def reveal(state: CampaignState, rules: Rules, version: int, made: RGPurchaseSealed | None, opened: RGPurchased,
           salt: str) -> RGPurchaseRevealed:
    """A secret purchase published: one still sealed, and the purchase its commitment binds."""
    step = secret_step(rules)
    if made is None or str(version) not in state.secret_rgs:
        raise BadInput(f"event {version} is no secret RG purchase still sealed", step)
    if commitment(opened, salt) != made.commitment:
        raise BadInput(f"the purchase revealed for event {version} does not match its commitment: the RG, its CPP or "
                       "its Objective Hex were changed", step)
    if (opened.side, opened.action) != (made.side, made.action):
        raise BadInput(f"the purchase revealed for event {version} is not the one made there", step)
    return RGPurchaseRevealed(action=state.next_action, purchase=version, fact=opened, salt=salt)


def price(fort, side: str, size: str | None = None):
    """A Fortification's FPP for the side, per item (or factor): of its size where it is priced by size (`size`
    None: every size's, {size: FPP}); None where the table gives the side no price."""
    if fort.by_size:
        return dict(fort.by_size) if size is None else fort.by_size.get(size)
    return fort.by_side.get(side, fort.cost)


def fortify(campaign: CampaignState, rules: Rules, item: str, side: str, setup_area: str, count: int = 1,
            size: str = "", squads: int | None = None, front_line: bool = False,
            isolated: bool = False, sealed_fpp: float = 0) -> FortificationsPurchased:
    """8.621 (RR 2.520): Fortifications bought with the FPP of this CG Date for one Setup Area. `sealed_fpp`: FPP
    of the side's secret RG purchases of this CG Date, not revealed (the other side cannot bound them)."""
    side = rules.side(side)
    step = purchase_step(rules, "fortifications")
    at = acting_step(rules, campaign, side)
    if at != step:
        raise BadInput(f"Fortifications are purchased in step {step}; {_whose(campaign, at)} at "
                       f"{title(rules, at)}", step)
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
    unit = price(fort, side, size)
    if unit is None:
        raise BadInput(f"{fort.name} has no FPP cost for the {rules.system.sides[side]} side", fort.rule)
    fpp = unit * count
    left = campaign.fpp.get(side, 0) + sealed_fpp
    if fpp > left:
        raise BadInput(f"{count} {fort.name} cost {fpp:g} FPP; the {rules.system.sides[side]} side has {left:g} FPP "
                       f"(FPP come with RG bought in step {purchase_step(rules, 'rg')})", fort.rule)
    if front_line and not fort.front_line:
        raise BadInput(f"only 'F' items may be set up in a Front-Line Hex, and {fort.name} is not one", fort.rule)
    if isolated and not fort.isolated:
        raise BadInput(f"only 'i' items may be added to an Isolated Location, and {fort.name} is not one", fort.rule)
    s_units = 0
    if fort.squads:
        s_units = count * int(size) if fort.s_by_size else math.ceil(count / fort.s_per)
        already = campaign.fortified.get(f"{side}:{setup_area}", 0)
        if not squads:
            raise BadInput(f"{fort.name} is an 'S' item: a Setup Area gets as many as it has Retained squad-"
                           f"equivalents; give Setup Area {setup_area}'s number with --squads N", fort.rule)
        if already + s_units > squads:
            raise BadInput(f"Setup Area {setup_area} has {squads} Retained squad-equivalents (--squads), as many 'S' "
                           f"items as it may get: it has {already} already, these count {s_units}", fort.rule)
    return FortificationsPurchased(action=campaign.next_action, side=side, item=fort.id, name=fort.name, size=size,
                                   count=count, fpp=fpp, setup_area=setup_area, s_units=s_units,
                                   front_line=front_line, isolated=isolated, squads=squads or 0)



def _whose(state: CampaignState, at: str) -> str:
    return "the campaign is" if at == state.step else "the buying side is"
