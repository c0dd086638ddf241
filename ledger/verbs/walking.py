"""The walk a command makes first: a roll, purchase or chit of a step ahead of its side's walks the side there,
recorded in the command's own action (8.6: steps in order)."""

from __future__ import annotations

from .. import lazy
from ..decide import steps, walk
from ..decide.steps import next_step, title
from ..domain.evolve import SCENARIO
from ..errors import BadInput, LedgerError
from cgledger.projections import guidance

cmd = lazy.module("cgledger.ledger.decide.commands")


def walk_to(ledger, campaign, rules, side: str, targets: tuple[str, ...]) -> None:
    """A roll, purchase or chit of a step ahead of the one its side stands in walks the side there first, as
    `step STEP` would (8.6: steps in order; only past steps that need nothing more of it, and never into the
    scenario, which both sides enter together). If the walk is refused and the act cannot be recorded where the
    side stands, the refusal names the step the act belongs to and why the side cannot walk on to it (what its
    step still needs, the dice it waits for); else the act's own refusal says what is wrong."""
    order = [s.id for s in rules.system.steps]
    by = ledger.recording_side(campaign, rules)
    walking = walk.walking(campaign, rules)
    if walking and by != side:
        return  # each side walks itself: a roll recorded for the other side (VASL) moves nobody
    here = walk.position(campaign, side) if walking else campaign.step
    if here in targets or (here not in order and here != SCENARIO) or steps.campaign_over(rules, campaign):
        return
    ahead, at = [], here
    for _ in range(len(order) + 1):  # the steps that follow in order (an Idle Day repeats from 8.612, 8.6232)
        at = next_step(rules, campaign, at)
        if at == SCENARIO:
            break
        if at in targets:
            ahead = [at]
            break
    if not ahead:
        return
    try:
        facts = ledger.record(campaign, rules, cmd.Step(target=ahead[0]), save=False)
    except LedgerError as e:
        if campaign.step in targets or steps.acting_step(rules, campaign, side if walking else None) in targets:
            return  # may be recorded where it stands or in the open step (a side at a door): the act decides
        who = f"the {rules.system.sides.get(side, side)} side" if walking else "the campaign"
        raise BadInput(f"this is recorded in step {title(rules, ahead[0])}, and {who} cannot walk on to it yet: "
                       f"{e.message}", e.rule or ahead[0]) from None
    # saved with the act itself (`save=False`): a refused act writes nothing
    ledger.said.append(_walked(ledger, campaign, rules, facts, here, ahead[0], side if walking else None))


def _walked(ledger, campaign, rules, facts: list, here: str, to: str, side: str | None) -> str:
    """What the walk says: the steps it passed, the CG Date it entered, the purchases it ended (`side`: the side
    walking itself, else None)."""
    move = steps.moved(rules, campaign, facts, guidance.passed)
    ids = [p["step"] for p in move.passed]
    passed = f" (passed {ids[0]}-{ids[-1]})" if len(ids) > 2 else f" (passed {', '.join(ids)})" if ids else ""
    if move.new_date:
        return f"walked on to {title(rules, to)} first{passed}; the campaign is now on CG Date {move.new_date}"
    # its own FPP (8.619: an RG bought in secret), its books opened only where a Fortification step is left
    own_fpp = (lambda: ledger.books.own_view(campaign, rules, side).fpp) if side else (lambda: campaign.fpp)
    return f"walked on to {title(rules, to)} first{passed}{_purchases_over(rules, campaign, [here, *ids], side, own_fpp)}"


def _purchases_over(rules, campaign, left: list[str], side: str | None, own_fpp) -> str:
    """The purchase steps a walk left behind on this CG Date (KGP 8.619, 8.621): nothing more is bought there; and,
    where the RG step is among them, a CPP Replenishment still to come (its CPP carry over, 8.6162)."""
    kinds = {s: rules.steps[s].purchase for s in left if s in rules.steps and rules.steps[s].purchase}
    # Fortifications are over for a side that leaves the RG step too (where it could buy FPP), or holds FPP (its own
    # books, `own_fpp()`, read only then)
    held = "rg" in kinds.values() or ("fortifications" in kinds.values() and any(
        v > 0 for s, v in own_fpp().items() if side is None or s == side))
    bought = [f"{'RG' if kind == 'rg' else 'Fortification'} purchases ({s})" for s, kind in kinds.items()
              if kind == "rg" or held]
    whose = f"the {rules.system.sides.get(side, side)} side's " if side else ""
    coming = "rg" in kinds.values() and guidance.replenishment_coming(rules, campaign, side)
    return (f"; {whose}{' and '.join(bought)} are over this CG Date"
            + (", before its CPP Replenishment came (those CPP carry over)" if coming else "")) if bought else ""
