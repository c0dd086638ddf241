"""The application service: thin verbs (load the campaign, call one pure decision of ledger/decide/,
append what it decided at the expected version) and the event store. The audit and `import` run the same
decisions over stored events (ledger/audit.py)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import msgspec
from pathlib import Path

from . import rules as rulesmod
from .domain.evolve import SCENARIO, CampaignState, fold
from .store.folded import recording
from .trust import chain
from . import lazy
from .decide import chits, fair, rights, rolls, steps, walk
from .decide.steps import next_step, title
from .rules.dice import DiceSource, SystemDice, parse_entered
from .domain.authorship import owner, recorder, signing_sides
from .decide import witness as witnessing
# the write verbs' decisions a read never loads otherwise: each imported when first used (ledger/lazy.py)
fortify = lazy.module("cgledger.ledger.decide.fortify")
mapd = lazy.module("cgledger.ledger.decide.map")
purchases = lazy.module("cgledger.ledger.decide.purchases")
cmd = lazy.module("cgledger.ledger.decide.commands")
hiddenmod = lazy.module("cgledger.ledger.player.hidden")
from .errors import AlreadyRecorded, BadInput, CampaignMovedOn, DatabaseError, LedgerError
from .domain.events import Fact, RollValuePublished, SideKeyRegistered
from .player.keyring import Keyring
from .trust.logged import Logged
from .store.campaigns import CampaignStore
from .domain.outcomes import Rolled, Verified
from .player.fairplay import FairPlay
from cgledger.projections import guidance
from .trust.secrets import commitment
turn = lazy.module("cgledger.ledger.exchange.turn")
from .player.secretbooks import SecretBooks
from .read.keptreads import KeptReads
from .trust.verification import Verification
from .store.reading import PostgresRows, SqliteRows, light_rows
from .rules import parse_declared
from .domain import timeline
from .store import database as store
from .store.database import (
    check_postgres, check_sqlite, index_topics, is_postgres, local_name, lost_connection, postgres_env, redact,
)

if TYPE_CHECKING:
    from .audit import Report
    from .store.campaign import Campaign


RETRIES = 4


def retried(verb):
    """A verb whose save met only records the other side's ledger made by itself (live on a shared store, its server
    answering this side's rolls, making its own Secret rolls, revealing its chit) is decided again on the log as it now
    stands, as its player would by running it again; a move of the other player is said, never retried (he may want
    to choose again). Only while the verb has saved nothing."""

    @functools.wraps(verb)
    def again(self, *args, **kwargs):
        for attempt in range(RETRIES):
            saves, said, noticed, made = self.store.saves, len(self.said), len(self.notices), len(self.made_now)
            try:
                return verb(self, *args, **kwargs)
            except CampaignMovedOn as e:
                if not e.protocol_only or self.store.saves != saves or attempt == RETRIES - 1:
                    raise
                del self.said[said:], self.notices[noticed:], self.made_now[made:]
    return again


class CampaignLedger:
    """The application service. It holds the event-sourcing library's application (ledger/store/eventstore.py) by
    composition, built when a command first records, or at once where its rows cannot be read plainly (a cipher or
    compressor set; PostgreSQL without libpq): reads fold the stored rows (`rows`: sqlite3, or libpq) without the
    library."""

    def __init__(self, env=None, dice: DiceSource | None = None, rows: SqliteRows | PostgresRows | None = None):
        self.store = CampaignStore(self, env, rows)  # the campaigns of this database: loads, saves, reads
        self.dice: DiceSource = dice or SystemDice()
        self.keyring = Keyring()
        self.command_id = ""  # chosen by the caller before its first attempt: a retry acts once
        self.made_now: list = []  # (event, DiceRolled) of this player's Secret rolls its ledger made in this command
        self.said: list[str] = []  # what this command did besides its act, said to the player (a walk on, a witness)
        self.books = SecretBooks(self)  # a side's own books and the secrets it publishes
        self.fair = FairPlay(self)  # the fair-dice and sealed-chit protocols
        self.kept = KeptReads(self)  # the read views kept current
        self.verification = Verification(self.store, self.read)  # audit, audit --fast and head: what the log proves
        self.store.saved = self.kept.advance

    # ---- what the verbs and readers ask of the store most ------------------------------------
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
    def key_material(self) -> bytes | None:
        return self.keyring.material

    @key_material.setter
    def key_material(self, material: bytes | None) -> None:
        if material != self.keyring.material:  # the same key again (a server, a script): stretched once per process
            self.keyring = Keyring(material)

    # ---- loading and appending ----------------------------------------------------------------

    def rules_for(self, state: CampaignState) -> rulesmod.Rules:
        return rulesmod.load(state.system, state.override_sources())

    def _load(self, name: str | None) -> tuple[Campaign, rulesmod.Rules]:
        """The campaign and its rules, for a command that records: a retried command already recorded stops here."""
        campaign = self.store.campaign(name, writing=True)
        done = campaign.recorded(self.command_id) if self.command_id else None
        if done is not None:
            author = campaign.recorded_by(self.command_id)
            me = self.keyring.opens(campaign) if author and self.keyring.material is not None else None
            if author and me and author != me:  # on a shared store the other side can read a script's next ids
                raise BadInput(f"the command id {self.command_id!r} is recorded already, by the other side's act "
                               f"(event {done}): no retry of yours; run the command again with a new id",
                               "cgledger trust model")
            raise AlreadyRecorded(done)
        mailed = self.turn_mailed(campaign) if self.store.where else None
        if mailed is not None:  # strict turn-taking by email (ledger/exchange/turn.py): nothing recorded until the reply is read
            raise BadInput(turn.waiting_text(mailed), turn.RULE)
        rules = self.rules_for(campaign)
        self.fair.settle(campaign, rules)  # saved with the command's own events (a refused command writes nothing)
        return campaign, rules

    def append(self, campaign: Campaign, *facts: Fact, request=None) -> None:
        """Records what a decision returned, each fact by its author and signed once that side has a key, then
        saves at the version the decision saw. Refused (nothing written) when a signature is due and the key
        given is not that side's. `request`: the command whose whole action `facts` are (kept with the first)."""
        self.put(campaign, *facts, command=self.command_id, request=request)
        self.store.save_campaign(campaign)

    def execute(self, name: str | None, request, save: bool = True) -> list:
        """One verb: the campaign loaded, `request` decided as its side stands (`decided`), and its whole action
        recorded with it, so that the audit and `import` decide the very same command again."""
        campaign, rules = self._load(name)
        return self.record(campaign, rules, request, save)

    def record(self, campaign: Campaign, rules, request, save: bool = True) -> list:
        facts = self.decided(campaign, rules, request)
        (self.append if save else self.put)(campaign, *facts, request=request)
        return facts

    def decided(self, campaign: Campaign, rules, request) -> list:
        """`request` decided as its side stands: walked first to the step it is recorded in (the walk recorded but
        not saved: a refused act writes nothing), then decided on what that side knows (`knowledge`)."""
        walks = cmd.WALKS.get(type(request))
        if walks is not None:
            side, targets = walks(rules, request)
            self._walk_to(campaign, rules, self.recording_side(campaign, rules) if side is None else side, targets)
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
        sealed_cpp = self.books.sealed_cpp(view, rules, side) if view.sealed else 0
        return view, cmd.Context(by=by, log=log, sealed_cpp=sealed_cpp)

    def act(self, campaign: Campaign, rules, request, context=None, on=None, save: bool = True) -> list:
        """One action: `request` decided on `on` (the campaign, or its side's own view of it), its facts recorded
        with the request, so that the audit and `import` decide the very same command again."""
        facts = cmd.decide(campaign if on is None else on, rules, request, context or cmd.Context())
        if save:
            self.append(campaign, *facts, request=request)
        else:
            self.put(campaign, *facts, command=self.command_id, request=request)
        return facts

    def put(self, campaign: Campaign, *facts: Fact, command: str = "", request=None) -> None:
        """Records facts into the aggregate (not saved yet), each by its author, signed once that side has a key;
        facts after a key registration in the same call are signed with the key being registered. `request`:
        the command whose whole action `facts` are, kept with the first (envelope form 3)."""
        rules = self.rules_for(campaign)
        sides = list(rules.system.sides)
        keyed = signing_sides(campaign)
        opened: list[str | None] = []  # the side the key given opens: scrypt per side, so only when a shared act needs it
        records = []
        registering = None
        for fact in facts:
            mine = owner(fact)
            if mine is None and not opened:
                opened.append(self.keyring.opens(campaign) if keyed and self.keyring.material is not None else None)
            author = mine if mine is not None else recorder(campaign, sides, opened[0])
            if mine is None and not author and keyed:
                raise BadInput("every side signs its acts now: give your passphrase (CGLEDGER_PASSPHRASE) or key file "
                               "(--key-file)", rights.RULE)
            if isinstance(fact, SideKeyRegistered) and fact.public:
                registering = fact
                sign = self.keyring.signer(campaign, rules, author, registration=fact)
            elif registering is not None and author == registering.side:
                sign = self.keyring.signer(campaign, rules, author, registration=registering)
            elif author in keyed:
                sign = self.keyring.signer(campaign, rules, author)
            else:
                sign = None
            records.append((fact, author, sign))
        recording(campaign)
        for index, (fact, author, sign) in enumerate(records):
            campaign.record(fact, author, sign, command, request if index == 0 else None)

    def recording_side(self, campaign: Campaign, rules) -> str:
        """The side recording now: the one whose key was given, else the only side without a key ('' if none)."""
        opened = self.keyring.opens(campaign) if signing_sides(campaign) and self.keyring.material else None
        return recorder(campaign, list(rules.system.sides), opened)

    def log_now(self, campaign: Campaign) -> list[Logged]:
        """The stored log and what this command has recorded but not saved yet (an answer, a Secret roll made)."""
        pending = getattr(campaign, "_pending_events", ())
        return self.store.history(campaign.name) + [Logged(e.originator_version, None, "", "", type(e.fact).__name__, e.fact)
                                              for e in pending]

    # ---- campaigns ------------------------------------------------------------------------------
    def new_campaign(self, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                     random_weather: bool = False) -> Campaign:
        fact = steps.start(name, system, cg, start_cpp, random_weather)
        if fact.name in self.store.campaign_names():
            if self.command_id and self.store.campaign(fact.name).recorded(self.command_id) == 1:
                raise AlreadyRecorded(1)
            raise BadInput(f"a campaign named '{fact.name}' already exists in this database")
        from .store.campaign import Campaign

        campaign = Campaign.begin(fact, self.command_id)
        self.store.save_campaign(campaign)
        return campaign

    # ---- rolls ----------------------------------------------------------------------------------
    def follow_ups(self, name: str | None, side: str, rg: str | None = None) -> list:
        """Every follow-up roll due now for the side's RGs (or one RG), in step order, each the act `roll --rg`
        makes (declared with fair dice): an RG's strength first, then what its result does not decide (a leader
        roll whose DRM reads the strength comes right after the strength's declaration, and is made after it).
        The rolls a strength's result adds are due once it is known. A retry with the command id given skips what
        was recorded (each roll takes the id and its place: ID#1, ID#2, ...)."""
        base, rolled, tried = self.command_id, [], set()
        rules_of = self.rules_for(self.store.campaign(name))
        step = steps.steps_of(rules_of, "rg_followups")
        if not step:
            raise BadInput(f"{rules_of.system.id.upper()} has no RG follow-up rolls")
        try:
            for index in range(1, 200):
                campaign = self.store.campaign(name)
                rules = self.rules_for(campaign)
                who = rules.side(side)
                view = self.books.own_view(campaign, rules, who)
                only = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
                due = [n for n in walk.owed(rules, view, who, step[0]) if n["effect"] == "rg_followups"
                       and n["side"] == who and (only is None or n["rg"] == only)]
                if not due or (due[0]["table"], due[0]["rg"], len(due)) in tried:
                    break
                self.command_id = f"{base}#{index}" if base else ""
                try:
                    rolled.append(self.roll(name, due[0]["table"], who, rg=str(due[0]["rg"])))
                except AlreadyRecorded:
                    continue  # recorded by the try this one repeats
                tried.add((due[0]["table"], due[0]["rg"], len(due)))
            for index, (table, rg_version, code) in enumerate(self._if_results(name, side, rg), start=index + 1):
                self.command_id = f"{base}#{index}" if base else ""
                try:
                    rolled.append(self.roll(name, table, side, rg=str(rg_version), if_result=code))
                except AlreadyRecorded:
                    continue
        finally:
            self.command_id = base
        if not rolled:
            raise BadInput(f"no follow-up roll is due now for the {rules_of.system.sides[rules_of.side(side)]} side's "
                           "RGs" + (f" ({rg})" if rg else "") + ": `cgledger status` says what is", step[0])
        return rolled

    def _if_results(self, name: str | None, side: str, rg: str | None) -> list[tuple[str, int, str]]:
        """The rolls a strength result would make due for the side's RGs whose strength roll waits for its dice (a
        Depleted RG's SW drs): declared now, each for its result, so that their dice come with the strength's and
        the one the strength calls for is made without another exchange (the others lapse)."""
        campaign = self.store.campaign(name)
        rules = self.rules_for(campaign)
        if not (campaign.dice_mode == "fair" and all(s in campaign.keys for s in rules.system.sides)):
            return []
        who = rules.side(side)
        view = self.books.own_view(campaign, rules, who)
        only = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
        return rolls.if_result_rolls(view, rules, who, only)

    @retried
    def roll(self, name: str | None, table_id: str, side: str, drms: tuple[str, ...] = (), dice: str | None = None,
             secret: bool = False, purpose: str = "", rg: str | None = None, vasl: str | None = None,
             hexes: tuple[str, ...] = (), if_result: str = "") -> Rolled:
        """One roll: admitted before any dice are made; declared (fair dice), or made with the dice given (typed, a
        VASL report) or the ledger's own; sealed where it is Secret and its side holds a key. `if_result`: declared
        for that result of its RG's strength roll, made only if it gives it."""
        campaign, rules = self._load(name)
        report = self._vasl_report(campaign, dice, vasl)
        table = rules.table(table_id)
        who = rules.side(side)
        self._walk_to(campaign, rules, who, tuple(t for t in (table.step, *table.steps) if t))
        view = self.books.own_view(campaign, rules, who)
        rg_version = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
        if rg_version is not None and str(rg_version) in campaign.secret_rgs:
            secret = True  # an RG bought in secret: its follow-ups are Secret too (8.619)
        rolls.admit(view, rules, table_id, who, rg_version, purpose, if_result=if_result)  # before any dice are made
        named = fortify.roll_hexes(rules, table, hexes, purpose)
        if report is None and dice is None and campaign.dice_mode == "fair" \
                and all(s in campaign.keys for s in rules.system.sides):
            if named:  # a declared roll cannot carry its map effects yet: the dice of play are entered
                raise BadInput("with fair dice, a roll that changes the map takes the dice rolled in play: give "
                               "--dice or --vasl", table.rule)
            return self.fair.declare(campaign, rules, table, who, drms, secret, purpose, rg_version, view, if_result)
        faces, source = self._faces(table, dice, report)
        command = rolls.RollCommand(
            table=table.id, side=who, drms=tuple(parse_declared(drms).items()), faces=tuple(faces), source=source,
            secret=secret, purpose=purpose, rg=rg_version,
            vasl=report.line if report else "", player=report.player if report else "",
            series=report.series if report else "", hexes=named, if_result=if_result)  # refused: dice not fair
        sealed_cpp = self.books.sealed_cpp(view, rules, who) if view.sealed else 0
        fact, resolution = rolls.roll(view, rules, command, sealed_cpp)
        if named:
            return self._roll_on_map(campaign, rules, command, fact, resolution, table)
        if fact.secret and fact.side in campaign.keys and report is None:  # both sides see that it was made, not what
            salt, text = self.keyring.seal(campaign, rules, fact)
            self.record(campaign, rules, cmd.SealRoll(table=fact.table, side=fact.side, purpose=fact.purpose,
                                                      rg=fact.rg, commitment=commitment(fact, salt), sealed=text))
            return Rolled(fact, resolution, campaign.cg_date, campaign.version, rules.system.sides[who], True)
        self.append(campaign, fact, request=command)
        return Rolled(fact, resolution, campaign.cg_date, campaign.version, rules.system.sides[who], False)

    def _vasl_report(self, campaign, dice: str | None, vasl: str | None):
        """The VASL report a roll's dice are given as (`--vasl`), checked against the reports this log holds."""
        if vasl is None:
            return None
        if dice is not None:
            raise BadInput("give the dice once: --dice or --vasl")
        from .vasl.bot import parse as parse_vasl  # here: only a roll given as a VASL report reads one

        report = parse_vasl(vasl)
        self.check_new_reports(campaign.name, [report])
        return report

    def _faces(self, table, dice: str | None, report) -> tuple[tuple[int, ...], str]:
        """The dice of a roll made now: the VASL report's, the ones typed, or the ledger's own; with their source."""
        if report is not None:
            if report.die != table.die:
                raise BadInput(f"table {table.id} takes a {table.die}; the VASL report is a {report.die}", table.rule)
            return tuple(report.faces), "vasl"
        if dice is not None:
            return tuple(parse_entered(table.die, dice)), "entered"
        return tuple(self.dice.roll(table.die)), self.dice.name

    def _roll_on_map(self, campaign, rules, command, fact, resolution, table) -> Rolled:
        """CGS: what the result does to the hexes named, the hidden ones there revealed first (7.4.4)."""
        before = self.store.history(campaign.name)
        acts = self._reveal_on_entry(campaign, rules, command.side, table, command.hexes, before)
        revealing = cmd.RollRevealing(reveals=acts, roll=command)
        reveals, log = cmd.revealed_first(campaign, rules, revealing, cmd.Context(log=before))
        version = campaign.version + len(reveals) + 1
        effects = fortify.roll_effects(campaign, rules, fact, log)
        self.append(campaign, *reveals, fact, *effects, request=revealing if acts else command)
        return Rolled(fact, resolution, campaign.cg_date, version, rules.system.sides[command.side], False,
                      (*reveals, *effects))

    # ---- fair dice ----------------------------------------------------------------------------
    def answer(self, name: str | None) -> list:
        """Records what the protocol owes the side whose key is given (`_settle`), and nothing else."""
        campaign = self.store.campaign(name)
        if self.keyring.material is None:
            raise BadInput("answering needs your side's passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file)",
                           fair.RULE)
        rules = self.rules_for(campaign)
        facts = self.fair.settle(campaign, rules)
        if facts:
            self.store.save_campaign(campaign)
        return facts

    @retried
    def dice_mode(self, name: str | None, mode: str):
        fact, = self.execute(name, cmd.ChooseDiceMode(mode=mode))
        return fact

    @retried
    def undo(self, name: str | None, reason: str = ""):
        """Voids the last action still in force, or proposes it when it is the other side's or shared; returns the
        fact and the events of the action(s) concerned."""
        fact, = self.execute(name, cmd.Undo(reason=reason))
        return fact, self._of_actions(name, voided_by_fact(fact))

    @retried
    def rewind(self, name: str | None, date: str, reason: str = ""):
        fact, = self.execute(name, cmd.Rewind(cg_date=date, reason=reason))
        return fact

    @retried
    def accept(self, name: str | None):
        """The other side accepts the open proposal (an undo, a rewind, a rules file)."""
        fact, = self.execute(name, cmd.Accept())
        return fact, self._of_actions(name, voided_by_fact(fact))

    @retried
    def decline(self, name: str | None, reason: str = ""):
        """The other side declines the open proposal: it is over, and both sides' `status` say so once."""
        campaign, rules = self._load(name)
        fact, = self.record(campaign, rules, cmd.Decline(side=self.recording_side(campaign, rules), reason=reason))
        return fact

    def _of_actions(self, name: str, actions) -> list[Logged]:
        wanted = set(actions)
        return [e for e in self.store.history(name) if getattr(e.fact, "action", None) in wanted]

    @retried
    def load_rules(self, name: str | None, path: str):
        text = rulesmod.read_rules_file(path)  # a regular file, size-limited UTF-8 text without NUL
        fact, = self.execute(name, cmd.LoadRules(source=Path(path).name, text=text))
        return fact

    def _walk_to(self, campaign, rules, side: str, targets: tuple[str, ...]) -> None:
        """A roll, purchase or chit of a step ahead of the one its side stands in walks the side there first, as
        `step STEP` would (8.6: steps in order; only past steps that need nothing more of it, and never into the
        scenario, which both sides enter together). If the walk is refused and the act cannot be recorded where the
        side stands, the refusal names the step the act belongs to and why the side cannot walk on to it (what its
        step still needs, the dice it waits for); else the act's own refusal says what is wrong."""
        order = [s.id for s in rules.system.steps]
        by = self.recording_side(campaign, rules)
        walking = walk.walking(campaign, rules)
        if walking and by != side:
            return  # each side walks itself: a roll recorded for the other side (VASL) moves nobody
        here = walk.position(campaign, side) if walking else campaign.step
        if here in targets or (here not in order and here != SCENARIO) or steps.campaign_over(rules, campaign):
            return
        ahead, at = [], here
        for _ in range(len(order) + 1):  # the steps that follow in order (an Idle Day repeats from 8.612, 8.6232)
            at = next_step(rules, campaign, at)
            if at == SCENARIO:
                break
            if at in targets:
                ahead = [at]
                break
        if not ahead:
            return
        try:
            facts = self.record(campaign, rules, cmd.Step(target=ahead[0]), save=False)
        except LedgerError as e:
            if campaign.step in targets or steps.acting_step(rules, campaign, side if walking else None) in targets:
                return  # may be recorded where it stands or in the open step (a side at a door): the act decides
            who = f"the {rules.system.sides.get(side, side)} side" if walking else "the campaign"
            raise BadInput(f"this is recorded in step {title(rules, ahead[0])}, and {who} cannot walk on to it yet: "
                           f"{e.message}", e.rule or ahead[0]) from None
        # saved with the act itself (`save=False`): a refused act writes nothing
        move = steps.moved(rules, campaign, facts, guidance.passed)
        ids = [p["step"] for p in move.passed]
        passed = f" (passed {ids[0]}-{ids[-1]})" if len(ids) > 2 else f" (passed {', '.join(ids)})" if ids else ""
        into = f"; the campaign is now on CG Date {move.new_date}" if move.new_date else ""
        self.said.append(f"walked on to {title(rules, ahead[0])} first{passed}{into}")

    # ---- steps and scenarios ---------------------------------------------------------------------
    @retried
    def step(self, name: str | None, target: str | None = None):
        campaign, rules = self._load(name)
        facts = self.record(campaign, rules, cmd.Step(target=target))  # on its own books: its own RG's follow-ups
        return steps.moved(rules, campaign, facts, guidance.passed)

    @retried
    def scenario_end(self, name: str | None, lvp_items: tuple[str, ...], winner: str | None = None):
        campaign, rules = self._load(name)
        base = next(iter(steps.steps_of(rules, "scenario_end")), "")
        lvp = steps.side_numbers(rules, lvp_items, "--lvp", f"{base}2" if base else None)
        from_map = not lvp_items  # read off the map: the LVP Locations each side Controls (8.6032)
        fact, = self.record(campaign, rules, cmd.EndScenario(lvp=lvp, winner=winner, from_map=from_map))
        return fact

    @retried
    def initiative(self, name: str | None, given: dict[str, str], us_has_no_units: bool = False):
        """Both chits at one table; once both sides hold keys, this side's chit sealed (the other's comes sealed
        too; both are revealed by the sides' ledgers, and the matrix resolves then)."""
        import secrets as random

        campaign, rules = self._load(name)
        if chits.sealed_play(campaign, rules):
            if len(given) != 1 or us_has_no_units:
                raise BadInput("both sides hold keys: give only your own side's chit (--chit SIDE=attack|idle), with "
                               "your key; it is sealed until the other side's is sealed too",
                               steps.need_step(rules, campaign, "initiative") + "2")
            (side, chit), = given.items()
            side = rules.side(side)
            self._walk_to(campaign, rules, side, steps.steps_of(rules, "initiative"))
            chits.check_chit(campaign, rules, side, chit)
            salt = random.token_hex(16)
            text = self.keyring.seal_text(campaign, rules, side, msgspec.json.encode([chit.lower(), salt]).decode())
            request = cmd.SealChit(side=side, commitment=chits.commitment(side, chit.lower(), salt), sealed=text)
            fact, = self.record(campaign, rules, request, save=False)
            self.fair.settle_chits(campaign, rules, side)  # the second chit sealed is revealed at once
            self.store.save_campaign(campaign)
            return fact
        fact, = self.record(campaign, rules, cmd.Initiative(chits=given, us_has_no_units=us_has_no_units))
        return fact

    def status(self, name: str | None, as_of: str | None = None) -> dict:
        """projections/status.py, as the player whose key is given reads it; the protocol's duties of that key
        carried out first."""
        from functools import cache

        from cgledger.projections.status import Reader, status

        state, rules = self.state_as_of(name, as_of)  # loaded once (it was loaded twice with a key)
        if as_of is not None:
            return status(state, rules, Reader(as_of=as_of, by=lambda: self.recording_side(state, rules)))
        key_given = self.keyring.material is not None
        if key_given and self.fair.settle(state, rules):
            self.store.save_campaign(state)
        own = self.keyring.opens(state) if state.sealed or state.secret_rgs else None
        view = self.books.own_view(state, rules, own) if own is not None else None
        mailed = self.turn_mailed(state) if key_given else None
        turn_now = None
        if key_given and self.store.where:
            owed = mailed is None and turn.reply_owed(self.store.where, self.store.seen_key(state.id))
            turn_now = {"mailed": mailed, "reply_owed": owed,
                        "text": turn.waiting_text(mailed) if mailed is not None else None}
        return status(state, rules, Reader(
            key_given=key_given, side=cache(lambda: self.keyring.opens(state)),
            by=cache(lambda: self.recording_side(state, rules)), own=own, view=view,
            sealed_cpp=self.books.sealed_cpp(view, rules, own) if view is not None and view.sealed else 0,
            mailed=mailed, turn=turn_now, events_of=lambda action, before: self.store.events_of_action(state, action, before)))

    # ---- purchases -------------------------------------------------------------------------------
    @retried
    def buy(self, name: str | None, rg_id: str, side: str, map_group: str = "", objective: str = "",
            given: bool = False, on_map: bool = False, pre_registered: int = 0, secret: bool | None = None,
            early: bool = False):
        """8.619: an RG bought against the buyer's own books (its secret purchases and Secret replenishments opened
        with its key). Kept secret by default once the buyer has a key (`secret`: None), sealed like a Secret roll:
        the other side sees that one RG was bought and a commitment. Returns (the purchase, whether sealed)."""
        campaign, rules = self._load(name)
        who = rules.side(side)
        request = cmd.Buy(rg=rg_id, side=who, map_group=map_group, objective=objective, given=given, on_map=on_map,
                          pre_registered=pre_registered, early=early)
        fact, = self.decided(campaign, rules, request)
        if secret is None:
            secret = purchases.secret_step(rules) is not None and who in campaign.keys
        if secret:
            salt, text = self.keyring.seal_purchase(campaign, rules, fact)
            self.record(campaign, rules, cmd.SealPurchase(side=fact.side, commitment=commitment(fact, salt), sealed=text))
        else:
            self.append(campaign, fact, request=request)
        return fact, secret

    def buy_then_follow_ups(self, name: str | None, rg_id: str, side: str, *args) -> tuple:
        """The side's last purchase this CG Date, then every follow-up roll due for its RGs (`follow_ups`): the
        purchase, whether sealed, the rolls. A retry whose purchase is recorded already records nothing. The purchase
        stands on its own: follow-ups the ledger refuses now are said, not made (`follow-ups` makes them later)."""
        fact, secret = self.buy(name, rg_id, side, *args)
        try:
            return fact, secret, self.follow_ups(name, side)
        except AlreadyRecorded:
            raise
        except LedgerError as e:
            self.notices.append(f"bought; no follow-up roll made now: {e.line()}")
            return fact, secret, []

    def rg_chart(self, name: str | None, side: str) -> dict:
        """The side's RG chart with what its maxima leave (a read: the buyer's own view when its key is given)."""
        from cgledger.projections.rg_chart import rg_chart

        state, rules = self.state_as_of(name)
        who = rules.side(side)
        mine = self.keyring.material is not None and self.keyring.opens(state) == who
        view = self.books.own_view(state, rules, who) if mine else state
        cpp = view.cpp.get(who, 0) + (self.books.sealed_cpp(view, rules, who) if mine and view.sealed else 0)
        return rg_chart(view, rules, who, cpp)

    @retried
    def fortify(self, name: str | None, item: str, side: str, setup_area: str, count: int = 1, size: str = "",
                squads: int | None = None, front_line: bool = False, isolated: bool = False):
        # decided on its own books: the FPP of its secret purchases
        fact, = self.execute(name, cmd.Fortify(item=item, side=side, setup_area=setup_area, count=count, size=size,
                                               squads=squads, front_line=front_line, isolated=isolated))
        return fact

    # ---- the map -------------------------------------------------------------------------------------
    @retried
    def control(self, name: str | None, location: str, side: str, strategic: str = ""):
        campaign, rules = self._load(name)
        request = cmd.Control(location=location, side=side, strategic=strategic)
        fact, = self.decided(campaign, rules, request)
        before = mapd.strategic_holders(campaign, fact.location)
        self.append(campaign, fact, request=request)
        self.store.notices.extend(mapd.strategic_left(campaign, rules, fact.location, before))  # said when it is made
        return fact

    @retried
    def vacated(self, name: str | None, group: str) -> list:
        """KGP 8.6131 EXC: the vacating side's last on-map units left the Map Group; the other side gains its
        Strategic Locations."""
        return self.execute(name, cmd.Vacate(map_group=group))

    @retried
    def witness(self, name: str | None, rolls: tuple[int, ...] = (), every: bool = False, disputed: str = ""):
        """The side whose key is given witnesses (or disputes) the other side's typed or VASL dice: the rolls named,
        or `every` one still open for it."""
        campaign, rules = self._load(name)
        side = self.keyring.opens(campaign) if self.keyring.material else None
        if not side:
            raise BadInput("witnessing needs your side's passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file)",
                           witnessing.RULE)
        if every:
            rolls = tuple(sorted(set(witnessing.to_witness(campaign, side)) | set(rolls)))
            if not rolls:
                disputed = [str(v) for v, c in witnessing.open_claims(campaign) if c[0] != side]
                raise BadInput("no dice of the other side wait for your witness" + (
                    f" (event {', '.join(disputed)} disputed: name them to witness them after all)" if disputed
                    else ""), witnessing.RULE)
        fact, = self.record(campaign, rules, cmd.Witness(side=side, rolls=tuple(rolls), disputed=disputed))
        return fact, self._claimed(campaign.name, fact.rolls)

    def _claimed(self, name: str, versions) -> list[Logged]:
        wanted = set(versions)
        return [e for e in self.store.history(name) if e.version in wanted]

    @retried
    def record_hq(self, name: str | None, side: str, location: str):
        fact, = self.execute(name, cmd.RecordHQ(side=side, location=location))  # who Controls it now (8.6052 EXC)
        return fact

    @retried
    def firefight_end(self, name: str | None, map_id: str, fires: tuple[str, ...] = (),
                      burning_wrecks: tuple[str, ...] = (), in_sewer: tuple[str, ...] = (),
                      redeployed: tuple[str, ...] = ()):
        return self.execute(name, cmd.EndFirefight(map=map_id, fires=fires, burning_wrecks=burning_wrecks,
                                                   in_sewer=in_sewer, redeployed=redeployed))

    @retried
    def place(self, name: str | None, item: str, hex_text: str, side: str, hidden: bool = False):
        """A fortification placed; a hidden one (7.4.4) of a side with a key is sealed with it (its hex)."""
        campaign, rules = self._load(name)
        request = cmd.Place(item=item, hex=hex_text, side=side, hidden=hidden)
        fact, = self.decided(campaign, rules, request)
        if fact.hidden and fact.side in campaign.keys:
            salt, text = hiddenmod.seal(self.keyring, campaign, rules, fact)
            self.record(campaign, rules, cmd.HidePlacement(side=fact.side, item=fact.item,
                                                           commitment=commitment(fact, salt), sealed=text))
        else:
            self.append(campaign, fact, request=request)
        return fact, campaign.version

    @retried
    def remove(self, name: str | None, item: str, hex_text: str, by: str, side: str | None = None):
        fact, = self.execute(name, cmd.Remove(item=item, hex=hex_text, by=by, side=side))
        return fact

    @retried
    def mousehole(self, name: str | None, hexes: tuple[str, ...], side: str, roll: int = 0):
        fact, = self.execute(name, cmd.Mousehole(hexes=tuple(hexes), side=side, roll=roll))
        return fact

    def _reveal_on_entry(self, campaign, rules, side: str, table, named: tuple[str, ...], log) -> list:
        if table.map is None or not table.map.holds:
            return []
        found = hiddenmod.on_entry(self.keyring, campaign, rules, log, side, table.map.holds, named)
        return tuple(cmd.RevealPlacement(placed=version, fact=opened, salt=salt, cause="entry")
                     for version, _made, opened, salt in found)

    def terrain(self, name: str | None, map_id: str, as_of: str | None = None, side: str | None = None):
        """The CGS map as the firefights left it, as the viewer sees it (its own hidden fortifications, 7.4.4)."""
        from .domain.terrain import terrain

        logged, rules, state = self.read(name, as_of)
        seer = hiddenmod.viewer(self.keyring, state, rules, side)
        opened = hiddenmod.opened_for(self.keyring, state, rules, logged, seer) if seer else {}
        return terrain(logged, rules, map_id, seer, opened), rules

    # ---- keys, Secret rolls, fair dice --------------------------------------------------------------
    def register_key(self, name: str | None, side: str, material: bytes):
        """The side's key, and in the same action its fair-dice commitment (a random seed, sealed with that key)."""
        campaign, rules = self._load(name)
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
        self.keyring, previous = keyring, self.keyring  # the new key signs its own registration
        try:
            fact, *_chains = self.act(campaign, rules, cmd.RegisterKey(side=side, salt=salt, check=check,
                                                                       public=public, chains=chains))
        finally:
            self.keyring = previous
        return fact

    def fair_commit(self, name: str | None, side: str):
        """Commit to this side's fair-dice chains (a side whose key was set up before its ledger committed)."""
        campaign, rules = self._load(name)
        who = rules.side(side)
        if who not in campaign.keys:
            raise BadInput(f"the {rules.system.sides[who]} side sets up its key first (`cgledger keys init`)", fair.RULE)
        self.keyring.key(campaign, rules, who, purpose="commits its fair-dice chains")
        roll_head, answer_head, length, sealed = self.keyring.new_chains(campaign.keys[who]["salt"],
                                                                         campaign.keys[who]["check"])
        fact, = self.record(campaign, rules, cmd.CommitDice(side=who, roll_head=roll_head, answer_head=answer_head,
                                                            length=length, sealed=sealed))
        return fact

    def fair_reveal(self, name: str | None, side: str):
        campaign, rules = self._load(name)
        who = rules.side(side)
        if who not in campaign.fair:
            raise BadInput(f"the {rules.system.sides[who]} side has committed no fair-dice seed")
        fact, = self.record(campaign, rules, cmd.RevealFairSeed(side=who,
                                                                seed=self.keyring.seed(campaign, rules, who).hex()))
        return fact

    @retried
    def reveal(self, name: str | None, side: str | None, roll: int | None = None, cause: str = "",
               search: int = 0) -> list:
        """Publishes a Secret roll, a secret RG purchase, or a hidden fortification (CGS 7.4.4: its placement event,
        on entry or search), or all of a side's; the side defaults to the event's, or to the side whose key the
        passphrase given opens."""
        campaign, rules = self._load(name)
        request = self.books.publish(campaign, rules, side, roll, cause, search)
        facts = self.record(campaign, rules, request)
        return [f for f in facts if not isinstance(f, RollValuePublished)]

    def keys(self, name: str | None) -> list[dict]:
        """Each side's registered keys: the public signing key (and its short fingerprint, to compare with the other
        player by phone or chat: a key registered in a side's name by the other player shows here) and the event."""
        from .domain.events import SideKeyRegistered

        rows = []
        for event in self.store.history(name):
            if isinstance(event.fact, SideKeyRegistered):
                public = event.fact.public
                rows.append({"side": event.fact.side, "event": event.version, "public": public or None,
                             "fingerprint": chain.key_fingerprint(public) if public else None,
                             "signs": bool(public)})
        return rows

    def opened_rolls(self, state, logged, side: str | None = None) -> dict[int, object]:
        return self.keyring.opened_rolls(state, self.rules_for(state), logged, side)

    # ---- VASL and PBEM ------------------------------------------------------------------------------
    def check_new_reports(self, name: str, reports: list) -> None:
        from .vaslimport import check_new_reports

        check_new_reports(self.store.history(name), reports)

    @retried
    def vasl_import(self, name: str | None, files: list[tuple[str, bytes]], attach: list, players: dict[str, str],
                    dry_run: bool = False) -> list:
        """Each file (name, bytes) in order, one action each; nothing is written if any is refused."""
        from .vaslimport import commands_of, decide_import, read_source

        campaign, rules = self._load(name)
        sources = [read_source(data, file, tuple(players)) for file, data in files]
        history = self.store.history(campaign.name)
        imported, facts = decide_import(campaign, rules, history, sources, attach, players)
        if facts and not dry_run:  # each file one action, kept with its command and decided from it
            for request in commands_of(sources, attach, players, imported):
                self.record(campaign, rules, request, save=False)
            self.store.save_campaign(campaign)
        me = self.keyring.opens(campaign) if self.keyring.material and not dry_run else None
        if me:  # the witness's own copy of the VASL log: the other side's VASL rolls in it are witnessed
            from .vaslimport import witnessed_in

            claims = {v: campaign.claims[str(v)] for v in witnessing.to_witness(campaign, me)}
            log, named = self.store.history(campaign.name), {n: rules.side(s) for n, s in players.items()}
            for digest, rolls in witnessed_in(log, imported, claims, named):
                self.record(campaign, rules, cmd.Witness(side=me, rolls=rolls, log_digest=digest))
                self.said.append(f"witnessed the other side's VASL dice of event {', '.join(map(str, rolls))}: your "
                                    "own copy of the VASL log holds the same reports")
        return imported

    def export_source(self, name: str | None) -> tuple[str, str]:
        """(the campaign's name, its game system) for `export`, after loading the campaign as every command does:
        a damaged log is refused, what does not check out past this machine's mark is a notice (cli/exchange.py
        keeps this per log head, ledger/read/answers.py; the bundle is written from `entries`, ledger/exchange/bundle.py)."""
        name = self.store.resolve_name(name)
        return name, self.store.campaign(name).system

    # ---- the email turn (ledger/exchange/turn.py) -------------------------------------------------------------

    def turn_mailed(self, campaign) -> int | None:
        """The last event of the turn this machine mailed and whose reply it has not read (ledger/exchange/turn.py)."""
        return turn.mailed(self.store.where, self.store.seen_key(campaign.id)) if self.store.where else None

    # ---- reads ----------------------------------------------------------------------------------

    def read(self, name: str | None, as_of: str | None = None, raw: bool = False):
        """(events, rules, state) of the campaign, as of the end of a CG Date's RePh if given. The events
        are those the projections read (revealed Secret rolls, and this player's own, stand as rolls)
        unless `raw`."""
        logged = self.store.history(name)
        try:  # its latest snapshot and the events after it: no replay of the whole log (the audit compares both)
            state = self.store.campaign(name) if as_of is None else fold(logged)
        except LedgerError:  # a damaged log: what can be read of it
            state = fold(logged)
        if state is None:
            raise DatabaseError("the campaign log has no readable CampaignStarted event: run `cgledger audit`")
        rules = self.rules_for(state)
        if as_of is not None:
            logged = timeline.as_of(logged, as_of, rules.calendar)
            state = fold(logged)
            rules = self.rules_for(state)
        if not raw:
            logged = timeline.effective(logged, self.keyring.opened(state, rules, logged)
                               if state.sealed or state.secret_rgs else None)
        return logged, rules, state

    # ---- the read views kept current: ledger/read/keptreads.py --------------------------------
    def rosters_of(self, name: str | None, as_of: str | None = None):
        return self.kept.rosters(name, as_of)

    def rg_records_of(self, name: str | None, as_of: str | None = None):
        return self.kept.rg_records(name, as_of)

    def dice_stats_of(self, name: str | None, side: str | None = None, as_of: str | None = None):
        return self.kept.dice_stats(name, side, as_of)

    def history_of(self, name: str | None, as_of: str | None = None):
        return self.kept.history(name, as_of)

    def final_of(self, name: str | None):
        return self.kept.final(name)

    def areas_of(self, name: str | None, group: str, as_of: str | None = None):
        return self.kept.areas(name, group, as_of)

    def state_as_of(self, name: str | None, as_of: str | None = None):
        """The campaign state now (from the aggregate and its snapshot) or as of a CG Date's RePh end."""
        if as_of is None:
            campaign = self.store.campaign(name)
            return campaign, self.rules_for(campaign)
        _logged, rules, state = self.read(name, as_of)
        return state, rules

    # ---- what the stored log proves: ledger/trust/verification.py ------------------------------------------------
    def audit(self, name: str | None, as_of: str | None = None, final: bool = False, kept: bool = False) -> "Report":
        return self.verification.audit(name, as_of, final, kept)

    def audit_fast(self, name: str | None) -> "Verified":
        return self.verification.fast(name)

    def head(self, name: str | None, as_of: str | None = None) -> str:
        return self.verification.head(name, as_of)


def voided_by_fact(fact) -> tuple[int, ...]:
    """The actions an undo, rewind or proposal concerns."""
    from .domain.events import TakeBackProposed
    from .domain.inforce import voided_by

    if isinstance(fact, TakeBackProposed):
        return tuple(fact.voided)
    return voided_by(fact) or ()


decide_start = steps.start  # `new`'s checks that need no database
side_numbers = steps.side_numbers


def start_campaign(db: str, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                   random_weather: bool = False) -> Campaign:
    """`new`: checks first, so a refused campaign creates no database file either."""
    steps.start(name, system, cg, start_cpp, random_weather)
    return open_ledger(db, create=True).new_campaign(name, system, cg, start_cpp, random_weather)


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


__all__ = ["CampaignLedger", "open_ledger", "Logged", "Rolled", "recording"]
