"""What the fair-dice and sealed-chit protocols owe the side whose key is given, before its command: its chains
renewed, its answers to the other side's declared rolls, its own answered Secret rolls made and sealed, its
Initiative chit revealed once both are sealed. Functions of the campaign, its rules and that side's books (its key,
ledger/player/secretbooks.py), each giving (command, facts) for the service to record (`CampaignLedger.settle`);
the decisions are in ledger/decide/fair.py and ledger/decide/chits.py. A fair roll is declared by the roll verb
(ledger/verbs/rolling.py)."""

from typing import Iterator

import msgspec

from ..domain import commands as cmds
from ..domain.evolve import CampaignState
from ..domain.events import DiceRolled
from ..decide import fair, rolls, steps
from .. import lazy
from ..trust.secrets import commitment

from ..errors import LedgerError

decisions = lazy.module("cgledger.ledger.decide.commands")  # loaded when a decision is made


def lapsing(campaign: CampaignState, rules, entry: dict) -> bool:
    """An open roll declared for a strength result its RG's roll did not give: answered, it lapses."""
    try:
        return bool(entry.get("if_result")) and fair.lapses(campaign, rules, entry)
    except LedgerError:
        return False  # its strength roll is not made yet: refused as the roll would be


def owed(campaign: CampaignState, rules, books, notices: list) -> Iterator[tuple[object, list]]:
    """What the protocol owes the side whose key was given (`books.keyring`), each (command, facts) for the service
    to record before the next is decided (nothing saved here): its next chain committed where one nears its end
    (before anything else: the other side's next roll may need it), its answers to the other side's declared rolls
    (an open roll's dice in the same action), its own answered Secret rolls made and sealed, its sealed Initiative
    chit revealed once both are sealed. What cannot be made now is said in `notices`."""
    keyring = books.keyring
    if keyring.material is None:
        return
    renewing = any(fair.to_renew(campaign, rules, s) for s in rules.system.sides)  # cheap: no key opened yet
    if not (campaign.declared or campaign.sealed_chits or renewing):
        return
    me = keyring.opens(campaign)
    if me is None:
        return
    from ..decide.redecide import sealed_cpp

    if renewing:
        yield from renewals(campaign, rules, keyring, me)
    for entry in fair.pending(campaign):
        key = f"{entry['side']}:{entry['n']}"
        if entry["side"] != me and not entry["answered"]:
            if not entry["secret"] and not lapsing(campaign, rules, entry):  # else it lapses with its answer
                try:  # what the campaign became since the declaration may refuse the roll (its CPP spent)
                    rolls.roll(campaign, rules, fair.command(entry, fair.placeholder(rules.table(entry["table"]).die)),
                               sealed_cpp(campaign, entry["side"]))
                except LedgerError as e:
                    notices.append(f"the fair roll of event {entry['version']} cannot be made now ({e.line()}): its "
                                   "side can undo it")
                    continue
            value = keyring.chain_value(campaign, rules, me, "answer", entry["n"])
            # the answer, and an open roll made
            yield (cmds.AnswerRoll(declared=entry["version"], value=value),
                   fair.answered(campaign, rules, me, entry["version"], value, sealed_cpp(campaign, entry["side"])))
        elif entry["side"] == me and entry["secret"] and entry["answered"] and not entry["made"]:
            request, facts, made = own_secret_roll(campaign, rules, books, me, entry)
            yield request, facts
            books.made_now.append((campaign.version, made))  # shown to its roller once saved
    revealed = chit_revealed(campaign, rules, keyring, me)
    if revealed is not None:
        yield revealed


def own_secret_roll(campaign: CampaignState, rules, books, me: str, entry: dict) -> tuple[object, list, object]:
    """This side's answered Secret roll, made on its own books and sealed with its key; or made void where its RG
    calls for no such roll, sealed as a roll made is (8.6201: the strength is Secret, and a lapse in the open would
    tell it; 8.619: a declaration that keeps the count of a secret RG's follow-ups). (command, facts, what it made)."""
    keyring, key = books.keyring, f"{entry['side']}:{entry['n']}"
    view = books.own_view(campaign, rules, me)
    mine = view.declared.get(key, entry)  # a veiled one (an RG bought in secret) as its key opens it
    if not mine["table"] or mine.get("if_result") and strength(campaign, rules, books, view, mine) != mine["if_result"]:
        made = fair.lapse(view, rules, me, entry["version"])
    else:
        value = keyring.chain_value(campaign, rules, me, "roll", entry["n"])
        blind = keyring.blind(campaign, rules, me, entry["n"]) if entry.get("blinded") else ""
        own = (lambda: books.sealed_cpp(view, rules, me)) if view.sealed else 0  # opened only if a cost needs it
        made = fair.resolve(view, rules, key, value, own, blind)
    made = msgspec.structs.replace(made, action=campaign.next_action)
    salt, text = keyring.seal(campaign, rules, made)
    shown = not entry.get("commitment")  # veiled: its table sealed too (8.619)
    request = cmds.SealRoll(table=entry["table"] if shown else "", side=me, purpose=entry["purpose"] if shown else "",
                            rg=entry["rg"], fair=entry["n"], commitment=commitment(made, salt), sealed=text)
    return request, decisions.decide(campaign, rules, request), made


def strength(campaign: CampaignState, rules, books, view, entry: dict) -> str:
    """The result code of the strength roll of the RG a conditional roll of this side follows: in its own books, or
    its Secret roll opened with its key (made by this command, or stored)."""
    code = (view.rgs.get(str(entry["rg"])) or {}).get("strength", "")
    if code != "sealed":
        return code
    for _version, rolled in reversed(books.made_now):
        if isinstance(rolled, DiceRolled) and rolled.rg == entry["rg"] \
                and rules.tables[rolled.table].effect == "rg_strength":
            return rolled.code
    versions = [int(v) for v, s in campaign.sealed.items() if s["effect"] == "rg_strength"
                and s["side"] == entry["side"]]
    for made in books.store.stored_facts(campaign, versions):
        if made.rg == entry["rg"]:
            return books.keyring.unseal(campaign, rules, made).fact.code
    return code


def renewals(campaign: CampaignState, rules, keyring, me: str) -> Iterator[tuple[object, list]]:
    """this side's chains that near their end, each followed by the next one, committed now (a
    new random seed each, sealed with its key), so that no roll waits for a chain."""
    for chain in fair.to_renew(campaign, rules, me):
        head, length, sealed = keyring.new_chain(campaign.keys[me]["salt"], chain, campaign.keys[me]["check"])
        yield (cmds.RenewChain(side=me, chain=chain, head=head, length=length, sealed=sealed),
               [fair.renew(campaign, rules, me, chain, head, length, sealed)])


def chit_revealed(campaign: CampaignState, rules, keyring, me: str) -> tuple[object, list] | None:
    """Once both chits are sealed, this side's is revealed; once both are revealed, the matrix resolves (8.6232)
    in the same action."""
    mine = campaign.sealed_chits.get(me)
    if mine is None or mine["chit"] or not all(s in campaign.sealed_chits for s in rules.system.sides):
        return None
    try:  # revealed once the campaign stands in the Initiative step, where the matrix resolves (8.6232)
        steps.need_step(rules, campaign, "initiative")
    except LedgerError:
        return None
    chit, salt = msgspec.json.decode(keyring.unseal_text(campaign, rules, me, mine["sealed"], "sealed chit"))
    request = cmds.RevealChit(side=me, chit=chit, salt=salt)
    return request, decisions.decide(campaign, rules, request)
