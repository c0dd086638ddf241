"""Who records what. Each event names its author side; a side's own acts (its rolls, purchases, keys,
reveals) can only be authored by that side, shared acts (steps, scenario end, control, initiative, undo)
by whichever side records them. Used by the fold (who recorded each action), the rights decisions
(ledger/decide/rights.py) and the audit's envelope check."""

from __future__ import annotations

from typing import Any

from .events import (
    DiceRolled, FairDiceCommitted, FairSeedRevealed, Fact, FortificationPlaced, FortificationsPurchased,
    HiddenFortificationPlaced, HiddenFortificationRevealed, HQRecorded, MouseholeMade, RGPurchased,
    RGPurchaseRevealed, RGPurchaseSealed, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered,
)
from .events import (
    ChitRevealed, ChitSealed, DiceChainRenewed, DiceCommitted, DiceWitnessed, ProposalDeclined, RollAnswered, TurnReturned,
    RollDeclarationRevealed, RollDeclared, RollLapsed, RollValuePublished,
)

# the facts that are one side's own act: the side named in the fact is its only possible author (a removal by a
# roll's result, Rubble, a firefight's end and the CPP a chart gives are shared)
_OWN = (DiceRolled, SecretRollMade, RGPurchased, FortificationsPurchased, HQRecorded, FortificationPlaced,
        SideKeyRegistered, FairDiceCommitted, FairSeedRevealed, DiceCommitted, RollDeclared, RollAnswered,
        RollValuePublished, ChitSealed, ChitRevealed, HiddenFortificationPlaced, MouseholeMade, RGPurchaseSealed, SideAdvanced,
        DiceWitnessed, DiceChainRenewed, ProposalDeclined, TurnReturned)


# the records a side's ledger makes by itself for the protocols, no player choosing them: its answers, its Secret fair
# rolls made or lapsed, roll values published, its chit revealed, its next chain
LEDGER_RECORDS = (RollAnswered, RollLapsed, RollValuePublished, ChitRevealed, DiceChainRenewed)


def ledger_records(facts) -> bool:
    """Whether each action these facts belong to is one a side's ledger made by itself (its first fact one of
    `LEDGER_RECORDS`, or a Secret fair roll made for its declaration)."""
    first: dict[int, Fact] = {}
    for fact in facts:
        first.setdefault(fact.action, fact)  # type: ignore[attr-defined]
    return bool(first) and all(isinstance(f, LEDGER_RECORDS) or (isinstance(f, SecretRollMade) and f.fair is not None)
                               for f in first.values())


def owner(fact: Fact) -> str | None:
    """The side whose own act this fact is, or None for a shared act. A roll taken from a VASL dice report is
    shared: either player may import the report, which is its evidence. So is a fair roll: the answering side's
    ledger records it, and its content is fixed by the declaration and the two chain values (the audit checks).
    (RollAnswered, the answer itself, is the answering side's own act.)"""
    if isinstance(fact, (SecretRollRevealed, HiddenFortificationRevealed, RGPurchaseRevealed, RollDeclarationRevealed)):
        return fact.fact.side
    if isinstance(fact, DiceRolled) and fact.source in ("vasl", "fair"):
        return None
    if isinstance(fact, _OWN):
        return fact.side  # type: ignore[attr-defined]
    return None


def signing_sides(state) -> dict[str, str]:
    """side -> its Ed25519 public key (hex), for the sides that have one."""
    return {side: key["public"] for side, key in state.keys.items() if key.get("public")}


def recorder(state, sides, opened: str | None) -> str:
    """The author of a shared act recorded now: the side whose key the player gave; with no key given, the one
    side without a signing key (two players at one table: ''); '' when every side has one (refused later)."""
    if opened:
        return opened
    keyless = [s for s in sides if s not in signing_sides(state)]
    if len(keyless) == 1 and len(keyless) < len(sides):
        return keyless[0]
    return ""


PACKED = ord("0")  # `acts_closed`: the character of an action no author is recorded for


def authorship(closed: str, sides: list[str], ranges: list[list[Any]]) -> list[list[Any]]:
    """Who recorded each action as runs [first, last, author, shared] of equal (author, shared), from the packed
    actions and the ranges after them: one answer however a state keeps them (the audit compares it)."""
    runs: list[list[Any]] = []

    def add(first: int, last: int, author: str, shared: int) -> None:
        if runs and runs[-1][1] == first - 1 and runs[-1][2:] == [author, shared]:
            runs[-1][1] = last
        else:
            runs.append([first, last, author, shared])

    for n, char in enumerate(closed, 1):
        code = ord(char) - PACKED
        if code:
            add(n, n, sides[code // 2 - 1], code % 2)
    for first, last, author, shared in ranges:
        add(first, last, author, int(shared))
    return runs
