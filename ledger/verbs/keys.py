"""The key verbs: a side's key registered with its fair-dice commitment, chains committed and seeds revealed,
secrets published, and the keys listed."""

from __future__ import annotations

from .. import lazy
from . import retried
from ..decide import fair, secrets
from ..errors import BadInput
from ..player.keyring import Keyring
from ..domain.events import RollValuePublished
from ..trust import chain

cmd = lazy.module("cgledger.ledger.decide.commands")


def register_key(ledger, name: str | None, side: str, material: bytes, dice: str = ""):
    """The side's key, and in the same action its fair-dice commitment (a random seed, sealed with that key);
    `dice`: the campaign's dice mode, agreed to where this key completes the pair and they are not fair."""
    campaign, rules = ledger.load(name)
    if rules.side(side) not in campaign.keys:  # whatever reading the campaign began under (the decision: edition 4 on)
        secrets.dice_agreed(campaign, rules.side(side), dice.strip().lower())
    keyring = Keyring(material)
    words = (campaign.name, *campaign.name.split(), campaign.system, *rules.system.sides,
             *rules.system.sides.values(), "cgledger")
    salt, check, public = keyring.new_registration(words)
    who = rules.side(side)
    chains = None
    if campaign.dice_mode == "fair" and who not in campaign.chains:
        roll_head, answer_head, length, sealed = keyring.new_chains(salt)
        chains = cmd.CommitDice(side=who, roll_head=roll_head, answer_head=answer_head, length=length,
                                sealed=sealed)
    ledger.keyring, previous = keyring, ledger.keyring  # the new key signs its own registration
    try:
        request = cmd.RegisterKey(side=side, salt=salt, check=check, public=public, chains=chains,
                                  dice=dice.strip().lower())
        facts = cmd.decide(campaign, rules, request)  # as the audit decides it: no walk, the public state
        ledger.append(campaign, *facts, request=request)
    finally:
        ledger.keyring = previous
    return facts[0]


def fair_commit(ledger, name: str | None, side: str):
    """Commit to this side's fair-dice chains (a side whose key was set up before its ledger committed)."""
    campaign, rules = ledger.load(name)
    who = rules.side(side)
    if who not in campaign.keys:
        raise BadInput(f"the {rules.system.sides[who]} side sets up its key first (`cgledger keys init`)", fair.RULE)
    ledger.keyring.key(campaign, rules, who, purpose="commits its fair-dice chains")
    roll_head, answer_head, length, sealed = ledger.keyring.new_chains(campaign.keys[who]["salt"],
                                                                     campaign.keys[who]["check"])
    fact, = ledger.record(campaign, rules, cmd.CommitDice(side=who, roll_head=roll_head, answer_head=answer_head,
                                                        length=length, sealed=sealed))
    return fact


def fair_reveal(ledger, name: str | None, side: str):
    campaign, rules = ledger.load(name)
    who = rules.side(side)
    if who not in campaign.fair:
        raise BadInput(f"the {rules.system.sides[who]} side has committed no fair-dice seed")
    fact, = ledger.record(campaign, rules, cmd.RevealFairSeed(side=who,
                                                            seed=ledger.keyring.seed(campaign, rules, who).hex()))
    return fact


@retried
def reveal(ledger, name: str | None, side: str | None, roll: int | None = None, cause: str = "",
           search: int = 0) -> list:
    """Publishes a Secret roll, a secret RG purchase, or a hidden fortification (CGS 7.4.4: its placement event,
    on entry or search), or all of a side's; the side defaults to the event's, or to the side whose key the
    passphrase given opens."""
    campaign, rules = ledger.load(name)
    request = ledger.books.publish(campaign, rules, side, roll, cause, search)
    facts = ledger.record(campaign, rules, request)
    return [f for f in facts if not isinstance(f, RollValuePublished)]


def keys(ledger, name: str | None) -> list[dict]:
    """Each side's registered keys: the public signing key (and its short fingerprint, to compare with the other
    player by phone or chat: a key registered in a side's name by the other player shows here) and the event."""
    from ..domain.events import SideKeyRegistered

    rows = []
    for event in ledger.store.history(name):
        if isinstance(event.fact, SideKeyRegistered):
            public = event.fact.public
            rows.append({"side": event.fact.side, "event": event.version, "public": public or None,
                         "fingerprint": chain.key_fingerprint(public) if public else None,
                         "signs": bool(public)})
    return rows
