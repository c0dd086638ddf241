"""The application service: load the campaign, decide one command as its side stands (one pure decision of
ledger/decide/, the walk to its step included), append the whole action at the version it saw. The verbs that
prepare a command from a player's words (a roll's dice, a seal, a secret purchase) are in ledger/verbs/, the reads
as a player sees them in ledger/read/; the audit and `import` run the same decisions over stored events
(ledger/audit/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import rules as rulesmod
from . import lazy
from .decide.fair import RULE as FAIR_RULE
from .domain.evolve import CampaignState
from .errors import BadInput, LedgerError
from .player import fairplay
from .player.keyring import Keyring
from .player.secretbooks import SecretBooks
from .player.signing import recording_side, refuse_retry, signed
from .read import keptreads
from .read.keptreads import KeptReads
from .rules.dice import DiceSource, SystemDice
from .store import database as store
from .store.campaigns import CampaignStore
from .store.database import (
    check_postgres, check_sqlite, index_topics, is_postgres, local_name, lost_connection, postgres_env, redact,
)
from .store.folded import recording
from .store.reading import PostgresRows, SqliteRows, light_rows
from .trust.logged import Logged
from .verbs import retried
from .audit.verification import Verification

cmd = lazy.module("cgledger.ledger.decide.commands")  # the write verbs' decisions: a read never loads them
turn = lazy.module("cgledger.ledger.exchange.turn")
walking = lazy.module("cgledger.ledger.verbs.walking")

if TYPE_CHECKING:
    from .store.campaign import Campaign



class CampaignLedger:
    """The service: the campaigns of one database (`store`: reads fold its rows without the event-sourcing library,
    whose application it builds when a command first records, ledger/store/campaigns.py), the key given, the dice."""

    def __init__(self, env=None, dice: DiceSource | None = None, rows: SqliteRows | PostgresRows | None = None):
        self.store = CampaignStore(self, env, rows)  # the campaigns of this database: loads, saves, reads
        self.dice: DiceSource = dice or SystemDice()
        self.command_id = ""  # chosen by the caller before its first attempt: a retry acts once
        self.said: list[str] = []  # what this command did besides its act, said to the player (a walk on, a witness)
        self.books = SecretBooks(self.store, Keyring())  # the key given: a side's own books, the secrets it publishes
        self.kept = KeptReads(self.store, self.books)  # the read views kept current
        self.verification = Verification(self.store, self.read)  # audit, audit --fast and head: what the log proves
        self.store.saved = self.kept.advance

    def campaign(self, name: str | None, writing: bool = False) -> Campaign:
        return self.store.campaign(name, writing)

    def history(self, name: str | None) -> list[Logged]:
        return self.store.history(name)

    def resolve_name(self, name: str | None) -> str:
        return self.store.resolve_name(name)

    @property
    def notices(self) -> list[str]:
        """What a read found and worked around (a snapshot that does not check out, an event that does not verify)."""
        return self.store.notices

    @property
    def where(self) -> str:
        return self.store.where

    def close(self) -> None:
        self.store.close()

    @property
    def keyring(self) -> Keyring:
        return self.books.keyring

    @keyring.setter
    def keyring(self, keyring: Keyring) -> None:
        self.books.keyring = keyring

    @property
    def made_now(self) -> list:
        """(event, DiceRolled) of this player's Secret rolls its ledger made in this command."""
        return self.books.made_now

    @property
    def key_material(self) -> bytes | None:
        return self.keyring.material

    @key_material.setter
    def key_material(self, material: bytes | None) -> None:
        if material != self.keyring.material:  # the same key again (a server, a script): stretched once per process
            self.keyring = Keyring(material)

    def rules_for(self, state: CampaignState) -> rulesmod.Rules:
        return rulesmod.for_campaign(state)

    # ---- load, decide, append ---------------------------------------------------------------------
    def load(self, name: str | None) -> tuple[Campaign, rulesmod.Rules]:
        """The campaign and its rules, for a command that records: a retried command already recorded stops here,
        and so does any command while this machine's emailed turn waits for its reply."""
        campaign = self.store.campaign(name, writing=True)
        if self.command_id:
            refuse_retry(self.keyring, campaign, self.command_id)
        mailed = self.turn_mailed(campaign) if self.store.where else None
        if mailed is not None:  # strict turn-taking by email (ledger/exchange/turn.py)
            raise BadInput(turn.waiting_text(mailed), turn.RULE)
        rules = self.rules_for(campaign)
        self.settle(campaign, rules)  # saved with the command's own events (a refused command writes nothing)
        return campaign, rules

    @retried
    def execute(self, name: str | None, request) -> list:
        """One command: the campaign loaded, `request` decided as its side stands (`decided`), and its whole action
        recorded with it, so that the audit and `import` decide the very same command again."""
        campaign, rules = self.load(name)
        return self.record(campaign, rules, request)

    def record(self, campaign: Campaign, rules, request, save: bool = True) -> list:
        facts = self.decided(campaign, rules, request)
        if save:
            self.append(campaign, *facts, request=request)
        else:  # a walk the act makes first, saved with it: the command's id, so that one undo takes both back
            self.put(campaign, *facts, command=self.command_id, request=request)
        return facts

    def decided(self, campaign: Campaign, rules, request) -> list:
        """`request` decided as its side stands: walked first to the step it is recorded in (the walk recorded but
        not saved: a refused act writes nothing), then decided on what that side knows (`knowledge`)."""
        walks = cmd.WALKS.get(type(request))
        if walks is not None:
            side, targets = walks(rules, request)
            walking.walk_to(self, campaign, rules, self.recording_side(campaign, rules) if side is None else side,
                            targets)
        on, context = self.knowledge(campaign, rules, request)
        return cmd.decide(on, rules, request, context)

    def knowledge(self, campaign: Campaign, rules, request) -> tuple[CampaignState, cmd.Context]:
        """What the side recording knows as it decides, as the audit gives it for a stored action: who records it,
        the log before it (read only if the decision asks), and for an act bounded by its side's own books (8.619)
        the campaign as that side's ledger knows it, with its sealed replenishments' CPP."""
        by = self.recording_side(campaign, rules)
        log = cmd.LazyLog(lambda: self.log_now(campaign))
        if type(request) not in cmd.OWN_BOOKS:
            return campaign, cmd.Context(by=by, log=log)
        side = rules.side(request.side) if getattr(request, "side", "") else by
        view = self.books.own_view(campaign, rules, side)
        # its sealed books opened only if a cost is over what the side has in the open (decide/rolls.py held_cpp)
        sealed_cpp = (lambda: self.books.sealed_cpp(view, rules, side)) if view.sealed else 0
        return view, cmd.Context(by=by, log=log, sealed_cpp=sealed_cpp)

    def append(self, campaign: Campaign, *facts, request=None) -> None:
        """Records what a decision returned (`put`), then saves at the version the decision saw; says so where the act
        let the recorder's own open proposal lapse (it waits as the last act he mails)."""
        author = campaign.proposal.get("author")
        mine = campaign.proposal.get("version") if author and author == self.keyring.opens(campaign) else None
        self.put(campaign, *facts, command=self.command_id, request=request)
        self.store.save_campaign(campaign)
        if mine and campaign.lapsed.get("version") == mine and campaign.lapsed.get("cause") == "act":
            self.said.append(f"your proposal of event {mine} lapsed: this act was recorded after it (a proposal "
                             "waits for the other side's answer as the last act of the turn you mail)")

    def put(self, campaign: Campaign, *facts, command: str = "", request=None) -> None:
        """Records facts into the aggregate (not saved yet), each by its author and signed once that side has a key
        (ledger/player/signing.py): refused, nothing written, when a signature is due and the key given is not that
        side's. `request`: the command whose whole action `facts` are, kept with the first (envelope form 3)."""
        records = signed(self.keyring, campaign, self.rules_for(campaign), facts)
        recording(campaign)
        for index, (fact, author, sign) in enumerate(records):
            campaign.record(fact, author, sign, command, request if index == 0 else None)

    def settle(self, campaign: Campaign, rules) -> list:
        """Records what the fair-dice and sealed-chit protocols owe the side whose key is given (not saved here)."""
        facts: list = []
        for request, made in fairplay.owed(campaign, rules, self.books, self.notices):
            self.put(campaign, *made, request=request)
            facts += made
        return facts

    def recording_side(self, campaign: Campaign, rules) -> str:
        return recording_side(self.keyring, campaign, rules)

    def log_now(self, campaign: Campaign) -> list[Logged]:
        """The stored log and what this command has recorded but not saved yet (an answer, a Secret roll made)."""
        pending = getattr(campaign, "_pending_events", ())
        return self.store.log_at(campaign) + [
            Logged(e.originator_version, None, "", "", type(e.fact).__name__, e.fact) for e in pending]

    def answer(self, name: str | None) -> list:
        """Records what the fair-dice and sealed-chit protocols owe the side whose key is given, and nothing else."""
        campaign = self.store.campaign(name)
        if self.keyring.material is None:
            raise BadInput("answering needs your side's passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file)",
                           FAIR_RULE)
        facts = self.settle(campaign, self.rules_for(campaign))
        if facts:
            self.store.save_campaign(campaign)
        return facts

    def turn_mailed(self, campaign) -> int | None:
        """The last event of the turn this machine mailed and whose reply it has not read (ledger/exchange/turn.py)."""
        return turn.mailed(self.store.where, self.store.seen_key(campaign.id)) if self.store.where else None

    def read(self, name: str | None, as_of: str | None = None, raw: bool = False):
        """(events, rules, state) of the campaign from the whole log, as of the end of a CG Date's RePh if given."""
        return keptreads.read(self.store, self.keyring, name, as_of, raw)

    def state_as_of(self, name: str | None, as_of: str | None = None):
        """The campaign state now (from the aggregate and its snapshot) or as of a CG Date's RePh end."""
        if as_of is None:
            campaign = self.store.campaign(name)
            return campaign, self.rules_for(campaign)
        _logged, rules, state = self.read(name, as_of)
        return state, rules


def open_ledger(db: str, create: bool = False, dice: DiceSource | None = None) -> CampaignLedger:
    """The SQLite file (the default) or, for a postgresql:// URL, the shared PostgreSQL database."""
    if is_postgres(db):
        check_postgres(db, create)
        # tables are created once, by `new`: concurrent first starts must not race to create them
        env = {**postgres_env(db), "CREATE_TABLE": "yes" if create else "no", "POSTGRES_POOL_SIZE": "2",
               "POSTGRES_MAX_OVERFLOW": "2", "PERSISTENCE_MODULE": store.postgres_persistence(create)}
    else:
        check_sqlite(db, create)
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db}
    try:
        ledger = CampaignLedger(env=env, dice=dice, rows=None if create else light_rows(db))
        ledger.store.where = local_name(db)  # the key of the head it saw
    except Exception as e:  # noqa: BLE001
        if lost_connection(e):
            raise  # the CLI says so in its one line, with the command id to run again with
        raise LedgerError(f"cannot open {redact(db)}: {e}") from None
    if create:
        index_topics(db)
    return ledger

