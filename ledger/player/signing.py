"""Who authors each fact of an action and with which key it is signed: a side's own act by that side, a shared one
by the side recording it (the key given, else the only side without a key), signed once that side has a key; facts
after a key registration in the same action are signed with the key being registered."""

from __future__ import annotations

from ..decide import rights
from ..domain.authorship import owner, recorder, signing_sides
from ..domain.events import SideKeyRegistered
from ..errors import AlreadyRecorded, BadInput


def signed(keyring, campaign, rules, facts) -> list[tuple]:
    """(fact, author, signer or None) for each fact; refused when a shared act is due a signature and no key is
    given (scrypt per side: the key given is opened only when a shared act needs it)."""
    sides = list(rules.system.sides)
    keyed = signing_sides(campaign)
    opened: list[str | None] = []
    records, registering = [], None
    for fact in facts:
        mine = owner(fact)
        if mine is None and not opened:
            opened.append(keyring.opens(campaign) if keyed and keyring.material is not None else None)
        author = mine if mine is not None else recorder(campaign, sides, opened[0])
        if mine is None and not author and keyed:
            raise BadInput("every side signs its acts now: give your passphrase (CGLEDGER_PASSPHRASE) or key file "
                           "(--key-file)", rights.RULE)
        if isinstance(fact, SideKeyRegistered) and fact.public:
            registering = fact
            sign = keyring.signer(campaign, rules, author, registration=fact)
        elif registering is not None and author == registering.side:
            sign = keyring.signer(campaign, rules, author, registration=registering)
        elif author in keyed:
            sign = keyring.signer(campaign, rules, author)
        else:
            sign = None
        records.append((fact, author, sign))
    return records


def recording_side(keyring, campaign, rules) -> str:
    """The side recording now: the one whose key was given, else the only side without a key ('' if none)."""
    opened = keyring.opens(campaign) if signing_sides(campaign) and keyring.material else None
    return recorder(campaign, list(rules.system.sides), opened)


def refuse_retry(keyring, campaign, command_id: str) -> None:
    """A command whose id is recorded already is a retry and records nothing (AlreadyRecorded); where the other
    side's act holds that id (on a shared store he can read a script's next ids) it is refused, naming the event."""
    done = campaign.recorded(command_id)
    if done is None:
        return
    author = campaign.recorded_by(command_id)
    me = keyring.opens(campaign) if author and keyring.material is not None else None
    if author and me and author != me:
        raise BadInput(f"the command id {command_id!r} is recorded already, by the other side's act (event {done}): "
                       "no retry of yours; run the command again with a new id", "cgledger trust model")
    raise AlreadyRecorded(done)
