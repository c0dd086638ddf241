"""Who records what. Each event names its author side; a side's own acts (its rolls, purchases, keys,
reveals) can only be authored by that side, shared acts (steps, scenario end, control, initiative, undo)
by whichever side records them. Used by the fold (who recorded each action), the rights decisions
(ledger/decide/rights.py) and the audit's envelope check."""

from __future__ import annotations

from . import rules as rulesmod
from .errors import LedgerError
from .events import (
    DiceRolled, FairDiceCommitted, FairSeedRevealed, Fact, FortificationPlaced, FortificationsPurchased,
    HiddenFortificationPlaced, HiddenFortificationRevealed, HQRecorded, MouseholeMade, RGPurchased, RGPurchaseRevealed,
    RGPurchaseSealed, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered,
)
from .events import (
    ChitRevealed, ChitSealed, DiceChainRenewed, DiceCommitted, DiceWitnessed, RollAnswered, RollDeclared,
    RollValuePublished,
)

# the facts that are one side's own act: the side named in the fact is its only possible author (a removal by a
# roll's result, Rubble, a firefight's end and the CPP a chart gives are shared)
_OWN = (DiceRolled, SecretRollMade, RGPurchased, FortificationsPurchased, HQRecorded, FortificationPlaced,
        SideKeyRegistered, FairDiceCommitted, FairSeedRevealed, DiceCommitted, RollDeclared, RollAnswered,
        RollValuePublished, ChitSealed, ChitRevealed, HiddenFortificationPlaced, MouseholeMade, RGPurchaseSealed, SideAdvanced,
        DiceWitnessed, DiceChainRenewed)


def owner(fact: Fact) -> str | None:
    """The side whose own act this fact is, or None for a shared act. A roll taken from a VASL dice report is
    shared: either player may import the report, which is its evidence. So is a fair roll: the answering side's
    ledger records it, and its content is fixed by the declaration and the two chain values (the audit checks).
    (RollAnswered, the answer itself, is the answering side's own act.)"""
    if isinstance(fact, (SecretRollRevealed, HiddenFortificationRevealed, RGPurchaseRevealed)):
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


def author_of(state, sides, fact: Fact, opened: str | None) -> str:
    """The author a new event of this fact has: its owner, else the recorder."""
    mine = owner(fact)
    return mine if mine is not None else recorder(state, sides, opened)


def check_author(state, fact, event) -> list[tuple[str, str]]:
    """The envelope's author and signature: a side's own act is authored by that side; from a side's key
    registration on, its events carry its signature of their digest; once every side has a key, nothing is
    unsigned."""
    sides = sides_of(state)
    keyed = signing_sides(state)
    author, mine = event.author, owner(fact)
    from .secrets import verify  # cryptography: loaded only where a signature is checked
    from .timeline import kind_words

    name = kind_words(event.topic)
    name = name[:1].upper() + name[1:]
    if mine is not None and author and author != mine:
        return [("author", f"{name} is the {mine} side's own act, recorded in the name of the {author} side")]
    if author and author not in sides:
        return [("author", f"{name} names an author '{author}' that is no side of this campaign")]
    signer = author or mine or ""  # an own act recorded without an author stands for its side, unsigned
    public = fact.public if isinstance(fact, SideKeyRegistered) and fact.public else keyed.get(signer)
    if public:
        if not event.signature:
            return [("signature", f"{name} of the {signer} side is unsigned, though that side signs its events since "
                                  "its key registration")]
        if not verify(public, event.digest, event.signature):
            return [("signature", f"{name}: the {signer} side's signature does not verify: forged, or altered "
                                  "after it was signed")]
        return []
    if event.signature:
        return [("signature", f"{name} carries a signature, but the {signer or 'unnamed'} side has no signing key")]
    if keyed and not signer:
        return [("signature", f"{name} is unsigned and names no side, though {', '.join(sorted(keyed))} sign(s) "
                              "their events")]
    return []


def sides_of(state) -> tuple[str, ...]:
    try:
        return tuple(rulesmod.load(state.system).system.sides)
    except LedgerError:
        return ()
