"""The envelope's author and signature, as every load checks each event it has not verified before
(ledger/loading.py) and the audit checks every event (ledger/audit.py): a side's own act is authored by that side,
and from a side's key registration on its events carry its signature."""

from __future__ import annotations

from . import rules as rulesmod
from .authorship import owner, signing_sides
from .errors import LedgerError
from .events import SideKeyRegistered
from .timeline import kind_words


def check_author(state, fact, event) -> list[tuple[str, str]]:
    """The envelope's author and signature: a side's own act is authored by that side; from a side's key
    registration on, its events carry its signature of their digest; once every side has a key, nothing is
    unsigned."""
    sides = sides_of(state)
    keyed = signing_sides(state)
    author, mine = event.author, owner(fact)
    from .secrets import verify  # cryptography: loaded only where a signature is checked

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
