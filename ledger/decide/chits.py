"""Simultaneous Initiative chits (8.6232, RR 2.5222) between two players who do not trust each other: once both
sides hold keys, each seals its own chit (a commitment both see, the chit sealed with its key); a chit is revealed
only once both are sealed, against its commitment, and the matrix resolves when both are revealed. Neither side can
change its chit after seeing the other's. Pure decisions, re-run by the audit."""

from __future__ import annotations

import msgspec

from ..errors import BadInput
from ..domain.events import ChitRevealed, ChitSealed
from ..domain.evolve import CampaignState
from ..rules import Rules
from ..sha import sha256
from . import steps
from .steps import choices, left, limits, sealed_play  # noqa: F401 - the Attack Chits, with Initiative (steps.py)


def commitment(side: str, chit: str, salt: str) -> str:
    return sha256(f"cgledger chit:{side}:{chit}:{salt}".encode()).hexdigest()


def check_chit(state: CampaignState, rules: Rules, side: str, chit: str) -> str:
    """A side's own chit, checked as far as it alone decides it: a chit, and an Attack Chit it still has."""
    base = steps.need_step(rules, state, "initiative", side)
    chit = chit.lower()
    if chit not in ("attack", "idle"):
        raise BadInput(f"a chit is attack or idle, not '{chit}'", f"{base}2")
    if chit == "attack" and left(state, rules).get(side) == 0:
        raise BadInput(f"the {rules.system.sides[side]} side has used its {limits(state, rules)[side]} Attack "
                       f"Chits of CG {state.cg}", f"{base}1")
    return base


def seal(state: CampaignState, rules: Rules, side: str, digest: str, sealed: str) -> ChitSealed:
    side = rules.side(side)
    base = steps.need_step(rules, state, "initiative", side)
    if "initiative:" in state.done:
        raise BadInput(f"Initiative for {state.cg_date} is already determined: undo it to change it", f"{base}2")
    if side in state.sealed_chits:
        raise BadInput(f"the {rules.system.sides[side]} side sealed its chit for {state.cg_date} already (event "
                       f"{state.sealed_chits[side]['version']}): a sealed chit cannot be changed", f"{base}2")
    if len(digest) != 64 or not sealed:
        raise BadInput("a sealed chit needs its commitment and its sealed text", f"{base}2")
    return ChitSealed(action=state.next_action, side=side, cg_date=state.cg_date, commitment=digest, sealed=sealed)


def reveal(state: CampaignState, rules: Rules, side: str, chit: str, salt: str) -> ChitRevealed:
    """A sealed chit published: only once both are sealed, and the one its commitment binds; the matrix resolves
    when the campaign stands in the Initiative step (`ready`)."""
    base = steps.need_step(rules, state, "initiative", side)
    mine = state.sealed_chits.get(side)
    if mine is None or mine["chit"]:
        raise BadInput(f"the {rules.system.sides.get(side, side)} side has no sealed chit to reveal", f"{base}2")
    missing = [s for s in rules.system.sides if s not in state.sealed_chits]
    if missing:
        raise BadInput(f"a chit is revealed only once both are sealed: the {rules.system.sides[missing[0]]} side has "
                       "not sealed its chit yet", f"{base}2")
    if commitment(side, chit, salt) != mine["commitment"]:
        raise BadInput(f"the {rules.system.sides[side]} chit revealed is not the one sealed at event "
                       f"{mine['version']}", f"{base}2")
    check_chit(state, rules, side, chit)
    return ChitRevealed(action=state.next_action, side=side, chit=chit, salt=salt)


def reveal_chit(state: CampaignState, rules: Rules, side: str, chit: str, salt: str) -> list:
    """The whole action of a chit revealed: the chit, and once the other's is revealed too the matrix resolved
    (8.6232), in the same action."""
    shown = reveal(state, rules, side, chit, salt)
    both = {s: chit if s == side else state.sealed_chits[s]["chit"] for s in rules.system.sides}
    if not all(both.values()):
        return [shown]
    return [shown, msgspec.structs.replace(steps.initiative(state, rules, both), action=shown.action)]


def revealed(state: CampaignState, rules: Rules) -> dict[str, str] | None:
    """Both chits, once both are revealed."""
    chits = {s: state.sealed_chits.get(s, {}).get("chit", "") for s in rules.system.sides}
    return chits if all(chits.values()) else None


def check_matrix(state: CampaignState, rules: Rules, chits: dict[str, str]) -> None:
    """The matrix resolves the sealed chits as revealed; with keys on both sides it resolves nothing else."""
    if not sealed_play(state, rules):
        return
    base = steps.need_step(rules, state, "initiative")
    shown = revealed(state, rules)
    if shown is None:
        raise BadInput("both sides hold keys: each seals its own chit (`cgledger initiative --chit SIDE=attack|idle` "
                       "with its key), and the matrix resolves once both are revealed", f"{base}2")
    if shown != chits:
        raise BadInput(f"the chits resolved {chits} are not the ones revealed {shown}", f"{base}2")


def initiative(state: CampaignState, rules: Rules, chits: dict[str, str], us_has_no_units: bool = False):
    """The Initiative decision (ledger/decide/steps.py), and once both sides hold keys the chits must be the sealed
    ones as revealed (8.6232)."""
    fact = steps.initiative(state, rules, chits, us_has_no_units)
    check_matrix(state, rules, chits)
    return fact
