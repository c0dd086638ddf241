"""A side's own books and the secrets it publishes (8.619 purchases, Secret rolls, CGS 7.4.4 hidden
fortifications): the campaign as that side's ledger knows it, its secrets opened with its key, and the reveal of
what it sealed. Composed into the application service (`CampaignLedger.books`): it reads the store and gives commands
for the service to record; the decisions are in ledger/decide/, the cryptography in ledger/trust/secrets.py."""

from __future__ import annotations

from ..domain.evolve import CampaignState, fold
from .. import lazy
from ..decide import purchases
from . import hidden as hiddenmod
from ..errors import BadInput
from ..domain.timeline import effective

cmds = lazy.module("cgledger.ledger.decide.commands")  # the write verbs' decisions: loaded when one is used


class SecretBooks:
    """The key given (`keyring`: replaced whenever the key material given changes), the campaigns' store it opens
    secrets from, and the Secret rolls its ledger made in this command (`made_now`: (event, DiceRolled), shown to
    its roller once saved)."""

    def __init__(self, store, keyring):
        self.store = store
        self.keyring = keyring
        self.made_now: list = []

    def own_view(self, campaign: CampaignState, rules, side: str):
        """The campaign as the side's own ledger knows it (8.619): its secret RG purchases and Secret rolls opened
        with its key, each at its own place. The campaign itself when the side has bought nothing in secret."""
        if not any(s["side"] == side for s in campaign.secret_rgs.values()):
            return campaign
        from .keyring import PURCHASES

        self.keyring.key(campaign, rules, side, PURCHASES)  # its own secrets need its key
        log = self.store.log_at(campaign)
        view = fold(effective(log, self.keyring.opened(campaign, rules, log, side)))
        pending = list(getattr(campaign, "_pending_events", ()))  # recorded by this command, not saved yet (a walk
        made = dict(self.made_now)  # its own Secret rolls made by this command: opened, as its key opens them
        for event in pending:  # on before an act, the answers the ledger owes)
            fact = made.get(event.originator_version, event.fact)  # a strength gives the later follow-ups' DRMs
            view.evolve(fact, event.digest, event.originator_version, event.author, event.command, event.form)
        view.pending_facts = {e.originator_version: e.fact for e in pending}  # read by stored_facts
        view.next_action = campaign.next_action
        return view

    def sealed_cpp(self, campaign: CampaignState, rules, side: str) -> int:
        return self.keyring.sealed_cpp(campaign, rules, side, lambda versions: self.store.stored_facts(campaign, versions))

    def publish(self, campaign, rules, side: str | None, roll: int | None = None, cause: str = "",
                search: int = 0):
        """The command that publishes a Secret roll, a secret RG purchase or a hidden fortification (CGS 7.4.4: on
        entry or search), or all of a side's: each opened with its key (a fair roll with its roll value). The side
        defaults to the event's, or to the side whose key the passphrase given opens."""
        kept = self._kept_apart(campaign, rules, side, roll, cause, search)
        if kept is not None:
            return kept
        side = self._whose(campaign, rules, side, roll)
        mine = sorted(int(v) for v, s in campaign.sealed.items() if s["side"] == side and not s.get("veiled"))
        places = [] if roll is not None else sorted(int(v) for v, h in campaign.hidden.items() if h["side"] == side)
        if roll is not None:
            if roll not in mine:
                raise BadInput(f"event {roll} is no unrevealed Secret roll of the {rules.system.sides[side]} side")
            mine = [roll]
        bought = [] if roll is not None else [v for v, e in campaign.secret_rgs.items() if e["side"] == side]
        if not mine and not places and not bought:
            raise BadInput(f"the {rules.system.sides[side]} side has no unrevealed Secret roll")
        acts = self.purchases(campaign, rules, side, None) if bought else []
        acts += self.rolls(campaign, rules, side, mine) if mine else []
        if places:  # --all: its hidden fortifications too
            acts += self.placements(campaign, rules, side, None, "", 0)
        return cmds.Reveal(acts=tuple(acts))

    def _kept_apart(self, campaign, rules, side: str | None, roll: int | None, cause: str, search: int):
        """The reveal of one event that is no Secret roll: a hidden fortification (with its cause), a secret purchase
        (with its RG's veiled follow-ups); None for a Secret roll, or all of a side's secrets."""
        if roll is not None and str(roll) in campaign.hidden:
            return cmds.Reveal(acts=tuple(self.placements(campaign, rules, side, roll, cause, search)))
        if cause or search:
            raise BadInput(f"--entered and --searched reveal a hidden fortification; event {roll} is none still hidden",
                           rules.cite("hidden"))
        if roll is not None and str(roll) in campaign.secret_rgs:
            return cmds.Reveal(acts=tuple(self.purchases(campaign, rules, side, roll)))
        if roll is not None and campaign.sealed.get(str(roll), {}).get("veiled"):
            raise BadInput(f"event {roll} is a Secret roll for an RG bought in secret: it is revealed with that RG "
                           "(`cgledger reveal` naming the RG's purchase, or `--all`)", purchases.secret_step(rules))
        return None

    def _whose(self, campaign, rules, side: str | None, roll: int | None) -> str:
        """The side whose secrets are published: the one named, the event's, or the one whose key is given."""
        if side is None and roll is not None and str(roll) in campaign.sealed:
            side = campaign.sealed[str(roll)]["side"]
        if side is None:
            side = self.keyring.opens(campaign)
            if side is None:
                raise BadInput("whose Secret rolls? give --side SIDE, and that side's passphrase or key file")
        return rules.side(side)

    def rolls(self, campaign, rules, side: str, mine: list[int]) -> list:
        """A side's Secret rolls to publish, each opened with its key (a fair one with its roll value)."""
        self.keyring.key(campaign, rules, side)
        acts = []
        for version, made in zip(mine, self.store.stored_facts(campaign, mine)):
            opened = self.keyring.unseal(campaign, rules, made)
            rolled = opened.fact  # or a RollLapsed: made void, no dice to show (no roll value published)
            n = getattr(rolled, "fair", None)
            entry = campaign.declared.get(f"{side}:{n}") if n is not None else None
            value = self.keyring.chain_value(campaign, rules, side, "roll", n) if entry else ""
            blind = self.keyring.blind(campaign, rules, side, n) if entry and entry.get("blinded") else ""
            acts.append(cmds.RevealRoll(roll=version, fact=rolled, salt=opened.salt, value=value, blind=blind))
        return acts

    def purchases(self, campaign, rules, side: str | None, version: int | None) -> list:
        """A side's secret RG purchases to publish (one, or all of them), each opened with its key (8.619)."""
        side = rules.side(side) if side else campaign.secret_rgs[str(version)]["side"]
        mine = sorted(int(v) for v, e in campaign.secret_rgs.items() if e["side"] == side)
        if version is not None:
            if version not in mine:
                raise BadInput(f"event {version} is no secret RG purchase of the {rules.system.sides[side]} side",
                               purchases.secret_step(rules))
            mine = [version]
        acts = []
        for v, made in zip(mine, self.store.stored_facts(campaign, mine)):
            opened = self.keyring.unseal_purchase(campaign, rules, made)
            acts.append(cmds.RevealPurchase(purchase=v, fact=opened.fact, salt=opened.salt))
        return acts + self.followups(campaign, rules, side, set(mine))

    def followups(self, campaign, rules, side: str, bought: set[int]) -> list:
        """The veiled follow-ups of the side's RGs bought in secret (`bought`), published with them: each
        declaration opened with its key, then each roll (8.619)."""
        from ..domain.events import RollDeclared, SecretRollMade
        from ..domain.inforce import live

        declared, made = [], []
        for event in live(self.store.log_at(campaign)):
            fact = event.fact
            if isinstance(fact, RollDeclared) and fact.commitment and fact.rg in bought:
                opened = self.keyring.unseal_declaration(campaign, rules, fact)
                declared.append(cmds.RevealDeclaration(declared=event.version, fact=opened.fact, salt=opened.salt))
            elif isinstance(fact, SecretRollMade) and not fact.table and fact.rg in bought \
                    and str(event.version) in campaign.sealed:
                made.append(event.version)
        return declared + (self.rolls(campaign, rules, side, made) if made else [])

    def placements(self, campaign, rules, side: str | None, placed: int | None, cause: str,
                           search: int) -> list:
        log = self.store.log_at(campaign)
        side = rules.side(side) if side else campaign.hidden[str(placed)]["side"]
        mine = hiddenmod.hidden_placements(campaign, log, side)
        if placed is not None:
            if placed not in mine:
                raise BadInput(f"event {placed} is no hidden fortification of the {rules.system.sides[side]} side",
                               rules.cite("hidden"))
            mine = {placed: mine[placed]}
        acts = []
        for version, made in sorted(mine.items()):
            opened, salt = hiddenmod.open_placement(self.keyring, campaign, rules, made)
            acts.append(cmds.RevealPlacement(placed=version, fact=opened, salt=salt, cause=cause, search=search))
        return acts
