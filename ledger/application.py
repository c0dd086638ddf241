"""The application service: verbs that take and return plain values, and the event store."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from eventsourcing.application import Application
from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import IntegrityError, MapperDeserialisationError, OperationalError

from . import rules as rulesmod
from .audit import Report, audit
from .campaign import Campaign, CampaignState, campaign_id, fold
from .timeline import as_of as as_of_log
from .timeline import effective, summary
from .chain import fingerprint
from .dice import DiceSource, SystemDice, parse_entered
from .errors import BadInput, CampaignMovedOn, CampaignNotFound, DatabaseError, LedgerError
from .events import AppliedDRM, CampaignStarted, DiceRolled, Fact, TablesOverridden
from .persistence import decode_envelope
from .rules import Resolution, Situation, parse_declared
from .store import check_postgres, check_sqlite, index_topics, is_postgres, postgres_env, redact
from .dicebot import DiceBot
from .exchange import Exchange
from .firefights import Firefights
from .secrecy import Secrecy
from .mapping import Mapping
from .vasl import parse as parse_vasl
from .bookkeeping import Bookkeeping
from .reph import check_roll_step


@dataclass(frozen=True)
class Logged:
    """One stored event as read back for log and audit (fact is None if it cannot be read)."""

    version: int
    timestamp: datetime | None
    prev: str
    digest: str
    topic: str
    fact: Fact | None
    error: str = ""


@dataclass(frozen=True)
class Rolled:
    fact: DiceRolled
    resolution: Resolution
    cg_date: str
    version: int
    side_name: str
    sealed: bool = False  # recorded as a SecretRollMade: only its side can read it


def replay(campaign: Campaign | None, events) -> Campaign | None:
    """A plain projector: the library's default checks a typing Protocol per event (measured:
    2-3x slower on a 200-event replay; bench/)."""
    for event in events:
        campaign = event.mutate(campaign)
    return campaign


class CampaignLedger(Bookkeeping, DiceBot, Mapping, Exchange, Secrecy, Firefights, Application):
    name = "cgledger"  # pinned: test subclasses must not get other table names
    snapshotting_intervals = {Campaign: 100}
    snapshotting_projectors = {Campaign: replay}
    env = {"MAPPER_TOPIC": "ledger.persistence:MsgspecMapper"}

    def __init__(self, env=None, dice: DiceSource | None = None):
        super().__init__(env)
        self.dice: DiceSource = dice or SystemDice()

    # ---- campaigns ------------------------------------------------------------------------------
    def new_campaign(self, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                     random_weather: bool = False) -> Campaign:
        fact = decide_start(name, system, cg, start_cpp, random_weather)
        if fact.name in self.campaign_names():
            raise BadInput(f"a campaign named '{fact.name}' already exists in this database")
        campaign = Campaign.begin(fact)
        self._save(campaign)
        return campaign

    def campaign_names(self) -> list[str]:
        names = []
        for notification in self.recorder.select_notifications(None, 10_000, topics=["CampaignStarted"]):
            fact = decode_envelope(self.mapper.decode_state(notification)).fact
            names.append(fact.name)
        return names

    def campaign(self, name: str | None) -> Campaign:
        try:
            return self.repository.get(campaign_id(self.resolve_name(name)), projector_func=replay)
        except (MapperDeserialisationError, OriginatorVersionError) as e:
            raise DatabaseError(f"the campaign log is damaged ({type(e).__name__}: {e}): run `cgledger audit`") from None

    def resolve_name(self, name: str | None) -> str:
        """The campaign's name: the one given, or the only one in the database."""
        if name is not None and self.recorder.select_events(campaign_id(name), limit=1):
            return name  # a primary-key lookup: the id is derived from the name
        names = self.campaign_names()
        if name is None:
            if not names:
                raise CampaignNotFound("this database holds no campaign: `cgledger new NAME --system kgp --cg I`")
            if len(names) > 1:
                raise CampaignNotFound(f"this database holds several campaigns ({', '.join(names)}): pick one with --campaign")
            name = names[0]
        if name not in names:
            raise CampaignNotFound(f"no campaign '{name}' in this database (campaigns: {', '.join(names) or 'none'})")
        return name

    def rules_for(self, state: CampaignState) -> rulesmod.Rules:
        return rulesmod.load(state.system, state.override_sources())

    def situation(self, state: CampaignState, side: str, rules: rulesmod.Rules) -> Situation:
        return Situation(side=side, cg=state.cg, cg_date=rules.calendar.parse(state.cg_date), flags=frozenset(state.flags))

    # ---- writes ---------------------------------------------------------------------------------
    def roll(
        self,
        name: str | None,
        table_id: str,
        side: str,
        drms: tuple[str, ...] = (),
        dice: str | None = None,
        secret: bool = False,
        purpose: str = "",
        rg: str | None = None,
        vasl: str | None = None,
    ) -> Rolled:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        if dice is not None and vasl is not None:
            raise BadInput("give the dice once: --dice or --vasl")
        report = parse_vasl(vasl) if vasl is not None else None
        if report is not None:
            self.check_new_reports(campaign.name, [report])
        fair = None
        table = rules.table(table_id)
        who = rules.side(side)
        if campaign.fair and (secret or table.secret) and who in campaign.keys and report is None:
            if dice is not None:
                raise BadInput("fair dice: the ledger derives a Secret roll's dice from both sides' seeds; no --dice",
                               table.rule)
            fair = self.fair_dice(campaign, who, table.die)
        rolled = self.decide_roll(campaign, rules, table_id, side, drms, dice, secret, purpose, rg, report, fair)
        sealed = rolled.fact.secret and rolled.fact.side in campaign.keys and report is None
        if sealed:
            campaign.record(self.sealed_secret(campaign, rolled))  # both sides see that it was made, not what
        else:
            campaign.record(rolled.fact)
        self._save(campaign)
        return replace(rolled, version=campaign.version, sealed=sealed)

    def decide_roll(self, campaign: Campaign, rules: rulesmod.Rules, table_id: str, side: str,
                    drms: tuple[str, ...] = (), dice: str | None = None, secret: bool = False, purpose: str = "",
                    rg: str | None = None, report=None, fair: tuple | None = None) -> Rolled:
        """Every check of a roll, then its fact (not yet recorded)."""
        table = rules.table(table_id)
        side = rules.side(side)
        declared = parse_declared(drms)
        situation = self.situation(campaign, side, rules)
        rules.check_available(table, situation)
        check_roll_step(rules, campaign, table)
        rg_version = self.rg_reference(campaign, rg, side, table) if rg is not None else None
        if fair is not None:
            faces, source = fair[0], "fair"
        elif report is not None:
            if report.die != table.die:
                raise BadInput(f"table {table.id} takes a {table.die}; the VASL report is a {report.die}", table.rule)
            faces, source = report.faces, "vasl"
        elif dice is not None:
            faces, source = parse_entered(table.die, dice), "entered"
        else:
            faces, source = self.dice.roll(table.die), self.dice.name
        resolution = rules.resolve(table, faces, declared, situation)
        cpp = rules.cpp_cost(table, resolution.drms)
        if cpp and cpp > campaign.cpp.get(side, 0) + self.secret_cpp(campaign, side):
            raise BadInput(f"table {table.id} costs {cpp} CPP; the {rules.system.sides[side]} side has "
                           f"{campaign.cpp.get(side, 0) + self.secret_cpp(campaign, side)}", table.rule)
        fact = DiceRolled(
            action=campaign.begin_action(),
            table=table.id,
            rule=table.rule,
            side=side,
            die=table.die,
            dice=faces,
            source=source,
            original=resolution.original,
            drms=tuple(AppliedDRM(key=d.key, name=d.name, value=d.value, kind=d.kind, input=d.input) for d in resolution.drms),
            final=resolution.final,
            result=resolution.result,
            code=resolution.code,
            value=resolution.value,
            sets=resolution.sets,
            secret=secret or table.secret,
            purpose=purpose,
            effect=table.effect,
            rg=rg_version,
            cpp=cpp,
            fair=fair[1] if fair else None,
            vasl=report.line if report else "",
            player=report.player if report else "",
            series=report.series if report else "",
        )
        return Rolled(fact, resolution, situation.cg_date.text, 0, rules.system.sides[side])

    def undo(self, name: str | None, reason: str = "") -> tuple[int, list[Logged]]:
        """Voids the last action still in force; returns it and the events it had written."""
        campaign = self.campaign(name)
        fact = campaign.undo(campaign.begin_action(), reason)
        self._save(campaign)
        voided = [e for e in self.history(campaign.name) if getattr(e.fact, "action", None) == fact.undone]
        return fact.undone, voided

    def load_rules(self, name: str | None, path: str) -> TablesOverridden:
        campaign = self.campaign(name)
        file = Path(path)
        text = rulesmod.read_rules_file(path)  # a regular file, size-limited UTF-8 text without NUL
        decoded = rulesmod.decode_tables(text, file.name)
        rulesmod.load(campaign.system, campaign.override_sources() + ((file.name, text),))  # validates
        changed = ([c.id for c in decoded.chart] + [t.id for t in decoded.table] + [f"RG {r.side} {r.id}" for r in decoded.rg]
                   + [f"fortification {f.id}" for f in decoded.fortification] + [f"map {m.group}" for m in decoded.map])
        if not changed:
            raise BadInput(f"rules file {file.name} defines no table, chart, RG, fortification or map")
        fact = TablesOverridden(action=campaign.begin_action(), source=file.name, text=text, tables=tuple(changed))
        campaign.record(fact)
        self._save(campaign)
        return fact

    def _save(self, campaign: Campaign) -> None:
        """Saves the pending events; if another writer recorded first, nothing of ours is stored and
        the one line says what the other side recorded."""
        base = campaign.version - len(campaign._pending_events)
        try:
            self.save(campaign)
        except IntegrityError:
            raise CampaignMovedOn(f"the campaign moved on: {self._since(campaign, base)}; run the command again") from None
        except OperationalError as e:  # SQLite: the other writer still holds the lock
            if "locked" not in str(e):
                raise
            raise CampaignMovedOn("the campaign moved on: another player is recording right now; run the command again"
                                  ) from None

    def _save_events(self, events: list) -> None:
        """Stores events made elsewhere (an imported bundle), exactly as they are."""
        try:
            self.save(*events)
        except IntegrityError:
            raise CampaignMovedOn("the campaign moved on while importing: run the import again") from None

    def _since(self, campaign: Campaign, base: int) -> str:
        sides = rulesmod.load(campaign.system).system.sides
        theirs = []
        for stored in self.recorder.select_events(campaign.id, gt=base):
            try:
                theirs.append(summary(decode_envelope(self.mapper.decode_state(stored)).fact, sides))
            except Exception:  # noqa: BLE001
                theirs.append(stored.topic)
        shown = ", ".join(theirs[:3]) + (f" and {len(theirs) - 3} more" if len(theirs) > 3 else "")
        return f"the other side recorded {shown or 'first'} (event {base + len(theirs)})"

    # ---- reads ----------------------------------------------------------------------------------
    def history(self, name: str | None) -> list[Logged]:
        """Every stored event of the campaign, read raw (so a corrupt one is reported, not fatal)."""
        name = self.resolve_name(name)
        logged = []
        for stored in self.recorder.select_events(campaign_id(name)):
            try:
                envelope = decode_envelope(self.mapper.decode_state(stored))
            except Exception as e:  # noqa: BLE001 - a damaged row is a finding, not a crash
                logged.append(Logged(stored.originator_version, None, "", "", stored.topic, None, str(e)))
                continue
            logged.append(
                Logged(stored.originator_version, envelope.timestamp, envelope.prev, envelope.digest, stored.topic, envelope.fact)
            )
        return logged

    def read(self, name: str | None, as_of: str | None = None, raw: bool = False):
        """(events, rules, state) of the campaign, as of the end of a CG Date's RePh if given. The events
        are those the projections read (revealed Secret rolls, and this player's own, stand as rolls)
        unless `raw`."""
        logged = self.history(name)
        state = fold(logged)
        if state is None:
            raise DatabaseError("the campaign log has no readable CampaignStarted event: run `cgledger audit`")
        rules = self.rules_for(state)
        if as_of is not None:
            logged = as_of_log(logged, as_of, rules.calendar)
            state = fold(logged)
            rules = self.rules_for(state)
        if not raw:
            logged = effective(logged, self.opened_rolls(state, logged) if state.sealed else None)
        return logged, rules, state

    def state_as_of(self, name: str | None, as_of: str | None = None):
        """The campaign state now (from the aggregate and its snapshot) or as of a CG Date's RePh end."""
        if as_of is None:
            campaign = self.campaign(name)
            return campaign, self.rules_for(campaign)
        _logged, rules, state = self.read(name, as_of)
        return state, rules

    def audit(self, name: str | None, as_of: str | None = None) -> Report:
        """Reads the stored events only (never the aggregate or its snapshots), so a damaged
        log is reported, not fatal."""
        name = self.resolve_name(name)
        logged = self.history(name) if as_of is None else self.read(name, as_of, raw=True)[0]
        return audit(campaign_id(name), logged)

    def head(self, name: str | None, as_of: str | None = None) -> str:
        """The fingerprint of the whole stored log: its length and its last event's digest,
        which chains every event before it (`audit` checks that chain)."""
        if as_of is not None:
            last_event = self.read(name, as_of, raw=True)[0][-1]
            return fingerprint(last_event.version, last_event.digest)
        last = self.recorder.select_events(campaign_id(self.resolve_name(name)), desc=True, limit=1)[0]
        return fingerprint(last.originator_version, decode_envelope(self.mapper.decode_state(last)).digest)


def decide_start(name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                 random_weather: bool = False) -> CampaignStarted:
    """The checks of `new` that need no database: name, rule system, CG and its start date."""
    name = name.strip()
    if not name:
        raise BadInput("a campaign needs a name")
    rules = rulesmod.load(system)
    cgs = {c.id: c for c in rules.system.cg}
    cg = cg.upper()
    if cg not in cgs:
        raise BadInput(f"unknown CG '{cg}' for {system.upper()}: choose {'|'.join(cgs)}", "8.5")
    start = rules.calendar.parse(cgs[cg].start)
    cpp = {side: 0 for side in rules.system.sides}
    for side, amount in side_numbers(rules, start_cpp, "--start-cpp", "8.6162").items():
        if amount < 0:
            raise BadInput(f"--start-cpp {side}={amount}: CPP cannot be negative", "8.6162")
        cpp[side] = amount
    return CampaignStarted(name=name, system=system, cg=cg, cg_date=start.text, start_cpp=cpp,
                           random_weather=random_weather)


def side_numbers(rules: rulesmod.Rules, items: tuple[str, ...], option: str, rule: str) -> dict[str, int]:
    """'german=12' items -> {'german': 12}; each side at most once."""
    numbers: dict[str, int] = {}
    for item in items:
        side, sep, number = item.partition("=")
        if not sep:
            raise BadInput(f"malformed {option} '{item}': use SIDE=N", rule)
        side = rules.side(side)
        if side in numbers:
            raise BadInput(f"{option} gives the {rules.system.sides[side]} side twice", rule)
        try:
            numbers[side] = int(number)
        except ValueError:
            raise BadInput(f"malformed {option} '{item}': N must be a whole number", rule) from None
    return numbers


def start_campaign(db: str, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                   random_weather: bool = False) -> Campaign:
    """`new`: checks first, so a refused campaign creates no database file either."""
    decide_start(name, system, cg, start_cpp, random_weather)
    return open_ledger(db, create=True).new_campaign(name, system, cg, start_cpp, random_weather)


def open_ledger(db: str, create: bool = False, dice: DiceSource | None = None) -> CampaignLedger:
    """The SQLite file (the default) or, for a postgresql:// URL, the shared PostgreSQL database."""
    if is_postgres(db):
        check_postgres(db, create)
        # tables are created once, by `new`: concurrent first starts must not race to create them
        env = {**postgres_env(db), "CREATE_TABLE": "yes" if create else "no", "POSTGRES_POOL_SIZE": "2",
               "POSTGRES_MAX_OVERFLOW": "2"}
    else:
        check_sqlite(db, create)
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db}
    try:
        ledger = CampaignLedger(env=env, dice=dice)
    except Exception as e:  # noqa: BLE001
        raise LedgerError(f"cannot open {redact(db)}: {e}") from None
    if create:
        index_topics(db)
    return ledger


__all__ = ["CampaignLedger", "open_ledger", "Logged", "Rolled", "MapperDeserialisationError"]
