"""The fair-dice and sealed-chit protocols as the ledger of the side whose key is given plays them:
a fair roll declared, what that side owes before its command (its answers to the other side's declared rolls, its
own answered Secret rolls made and sealed, its Initiative chit revealed once both are sealed), and the rolls still
waiting. Composed into the application service (`CampaignLedger.fair`); the decisions are in ledger/decide/fair.py
and ledger/decide/chits.py."""

import msgspec

from ..domain import commands as cmds
from ..domain.evolve import CampaignState
from ..decide import fair, rolls, steps
from .. import lazy
from ..trust.secrets import commitment

decisions = lazy.module("cgledger.ledger.decide.commands")  # loaded when a decision is made
from ..errors import LedgerError
from ..rules import parse_declared


class Declared(msgspec.Struct, frozen=True):
    """A fair roll declared: its dice come once the other side's ledger answers."""

    fact: object  # RollDeclared
    table: object
    cg_date: str
    version: int
    side_name: str
    answerer: str
    rg_name: str = ""  # the RG a follow-up roll is for, as its side knows it ('I3')


def lapsing(campaign: CampaignState, rules, entry: dict) -> bool:
    """An open roll declared for a strength result its RG's roll did not give: answered, it lapses."""
    try:
        return bool(entry.get("if_result")) and fair.lapses(campaign, rules, entry)
    except LedgerError:
        return False  # its strength roll is not made yet: refused as the roll would be


class FairPlay:
    def __init__(self, app):
        self.app = app

    @property
    def keyring(self):
        return self.app.keyring

    def declare(self, campaign: CampaignState, rules, table, who: str, drms, secret: bool, purpose: str,
                rg: int | None, view=None, if_result: str = "") -> "Declared":
        """A fair roll: declared now (its roll value published unless Secret), its dice once the other side's
        ledger answers."""
        command = rolls.RollCommand(table=table.id, side=who, drms=tuple(parse_declared(drms).items()), faces=(),
                                    source="fair", secret=secret, purpose=purpose, rg=rg, if_result=if_result)
        secret = secret or table.secret or bool(if_result and (rolls.strength_waiting(campaign, rules, rg) or {}).get(
            "secret"))  # as Secret as the strength it waits for (fair.declare)
        n = campaign.fair_n.get(who, 0) + 1
        if all(s in campaign.chains for s in rules.system.sides) and not secret \
                and fair.chain_for(campaign, who, "roll", n) is not None:
            value = self.keyring.chain_value(campaign, rules, who, "roll", n)
        else:
            value = ""  # refused by the decision when a commitment is missing
        view = campaign if view is None else view
        sealed_cpp = self.app.books.sealed_cpp(view, rules, who) if view.sealed else 0
        request = cmds.DeclareRoll(roll=command, value=value)
        fact = fair.declare(view, rules, command, value, sealed_cpp)
        self.app.append(campaign, fact, request=request)
        bought = view.rgs.get(str(rg)) if rg is not None else None
        return Declared(fact, table, campaign.cg_date, campaign.version, rules.system.sides[who],
                        rules.system.sides[fair.other(rules, who)], (bought or {}).get("rg", ""))

    def settle(self, campaign: CampaignState, rules) -> list:
        """What the protocol owes the side whose key was given, recorded before its command (not saved here): its
        answers to the other side's declared rolls (an open roll's dice in the same action), its own answered
        Secret rolls made and sealed, its sealed Initiative chit revealed once both are sealed, its next chain committed
        where one nears its end (before anything else: the other side's next roll may need it)."""
        if self.keyring.material is None:
            return []
        renewing = any(fair.to_renew(campaign, rules, s) for s in rules.system.sides)  # cheap: no key opened yet
        if not (campaign.declared or campaign.sealed_chits or renewing):
            return []
        me = self.keyring.opens(campaign)
        if me is None:
            return []
        from ..decide.redecide import sealed_cpp

        facts: list = self.renew(campaign, rules, me) if renewing else []
        for entry in fair.pending(campaign):
            key = f"{entry['side']}:{entry['n']}"
            if entry["side"] != me and not entry["answered"]:
                if not entry["secret"] and not lapsing(campaign, rules, entry):  # else it lapses with its answer
                    try:  # what the campaign became since the declaration may refuse the roll (its CPP spent)
                        rolls.roll(campaign, rules, fair.command(entry, fair.placeholder(rules.table(entry["table"]).die)),
                                   sealed_cpp(campaign, entry["side"]))
                    except LedgerError as e:
                        self.app.notices.append(f"the fair roll of event {entry['version']} cannot be made now "
                                            f"({e.line()}): its side can undo it")
                        continue
                value = self.keyring.chain_value(campaign, rules, me, "answer", entry["n"])
                request = cmds.AnswerRoll(declared=entry["version"], value=value)  # the answer, and an open roll made
                made = fair.answered(campaign, rules, me, entry["version"], value, sealed_cpp(campaign, entry["side"]))
                self.app.put(campaign, *made, request=request)
                facts += made
            elif entry["side"] == me and entry["secret"] and entry["answered"] and not entry["made"]:
                view = self.app.books.own_view(campaign, rules, me)
                if entry.get("if_result") and self.strength(campaign, rules, view, entry) != entry["if_result"]:
                    request = cmds.LapseRoll(declared=entry["version"])  # its RG's strength gave another result
                    lapsed = decisions.decide(view, rules, request, decisions.Context(by=me))
                    self.app.put(campaign, *lapsed, request=request)
                    facts += lapsed
                    continue
                value = self.keyring.chain_value(campaign, rules, me, "roll", entry["n"])
                own = self.app.books.sealed_cpp(view, rules, me) if view.sealed else 0
                rolled = msgspec.structs.replace(fair.resolve(view, rules, key, value, own),
                                                 action=campaign.next_action)
                salt, text = self.keyring.seal(campaign, rules, rolled)
                request = cmds.SealRoll(table=rolled.table, side=me, purpose=rolled.purpose, rg=rolled.rg,
                                        fair=rolled.fair, commitment=commitment(rolled, salt), sealed=text)
                made, = decisions.decide(campaign, rules, request)
                self.app.put(campaign, made, request=request)
                facts.append(made)
                self.app.made_now.append((campaign.version, rolled))  # shown to its roller once saved
        facts += self.settle_chits(campaign, rules, me)
        return facts

    def strength(self, campaign: CampaignState, rules, view, entry: dict) -> str:
        """The result code of the strength roll of the RG a conditional roll of this side follows: in its own books, or
        its Secret roll opened with its key (made by this command, or stored)."""
        code = (view.rgs.get(str(entry["rg"])) or {}).get("strength", "")
        if code != "sealed":
            return code
        for _version, rolled in reversed(self.app.made_now):
            if rolled.rg == entry["rg"] and rules.tables[rolled.table].effect == "rg_strength":
                return rolled.code
        versions = [int(v) for v, s in campaign.sealed.items() if s["effect"] == "rg_strength"
                    and s["side"] == entry["side"]]
        for made in self.app.store.stored_facts(campaign, versions):
            if made.rg == entry["rg"]:
                return self.keyring.unseal(campaign, rules, made).fact.code
        return code

    def renew(self, campaign: CampaignState, rules, me: str) -> list:
        """this side's chains that near their end, each followed by the next one, committed now (a
        new random seed each, sealed with its key), so that no roll waits for a chain."""
        facts = []
        for chain in fair.to_renew(campaign, rules, me):
            head, length, sealed = self.keyring.new_chain(campaign.keys[me]["salt"], chain, campaign.keys[me]["check"])
            renewed = fair.renew(campaign, rules, me, chain, head, length, sealed)
            self.app.put(campaign, renewed, request=cmds.RenewChain(side=me, chain=chain, head=head, length=length,
                                                                    sealed=sealed))
            facts.append(renewed)
        return facts

    def settle_chits(self, campaign: CampaignState, rules, me: str) -> list:
        """Once both chits are sealed, this side's is revealed; once both are revealed, the matrix resolves (8.6232)
        in the same action."""
        mine = campaign.sealed_chits.get(me)
        if mine is None or mine["chit"] or not all(s in campaign.sealed_chits for s in rules.system.sides):
            return []
        try:  # revealed once the campaign stands in the Initiative step, where the matrix resolves (8.6232)
            steps.need_step(rules, campaign, "initiative")
        except LedgerError:
            return []
        chit, salt = msgspec.json.decode(self.keyring.unseal_text(campaign, rules, me, mine["sealed"],
                                                                  "sealed chit"))
        request = cmds.RevealChit(side=me, chit=chit, salt=salt)
        facts = decisions.decide(campaign, rules, request)
        self.app.put(campaign, *facts, request=request)
        return facts
