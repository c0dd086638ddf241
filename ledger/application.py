"""The application service: thin verbs (load the campaign, call one pure decision of ledger/decide/,
append what it decided at the expected version) and the event store. The audit and `import` run the same
decisions over stored events (ledger/audit.py)."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
from pathlib import Path

from eventsourcing.application import Application
from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import IntegrityError, MapperDeserialisationError, OperationalError

from . import rules as rulesmod
from .audit import Report, audit
from .campaign import Campaign, CampaignState, campaign_id, fold
from . import chain
from .chain import fingerprint
from .decide import map as mapd
from .decide import purchases, rolls, secrets, steps
from .decide.steps import next_step, title, unmet
from .dice import DiceSource, SystemDice, parse_entered
from .authorship import owner, recorder, signing_sides
from .decide import rights
from .errors import AlreadyRecorded, BadInput, CampaignMovedOn, CampaignNotFound, DatabaseError, LedgerError
from .events import DiceRolled, Fact, SideKeyRegistered
from .keyring import Keyring
from .logged import Logged
from .mapping import map_lvp
from .persistence import decode_envelope, read_snapshot, snapshot_event, snapshot_seal
from .rules import Resolution, parse_declared
from .store import check_postgres, check_sqlite, index_topics, is_postgres, postgres_env, redact
from .timeline import as_of as as_of_log
from .timeline import effective, summary
from .vasl import parse as parse_vasl


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


class CampaignLedger(Application):
    name = "cgledger"  # pinned: test subclasses must not get other table names
    snapshotting_intervals = {Campaign: 100}
    snapshotting_projectors = {Campaign: replay}
    env = {"MAPPER_TOPIC": "ledger.persistence:MsgspecMapper"}

    def __init__(self, env=None, dice: DiceSource | None = None):
        super().__init__(env)
        self.dice: DiceSource = dice or SystemDice()
        self.keyring = Keyring()
        self.command_id = ""  # chosen by the caller before its first attempt: a retry acts once
        self.notices: list[str] = []  # what a read found and worked around (a snapshot that does not check out)

    @property
    def key_material(self) -> bytes | None:
        return self.keyring.material

    @key_material.setter
    def key_material(self, material: bytes | None) -> None:
        self.keyring = Keyring(material)

    # ---- loading and appending ----------------------------------------------------------------
    def campaign(self, name: str | None) -> Campaign:
        try:
            return self._rebuild(campaign_id(self.resolve_name(name)))
        except (MapperDeserialisationError, OriginatorVersionError) as e:
            raise DatabaseError(f"the campaign log is damaged ({type(e).__name__}: {e}): run `cgledger audit`") from None

    def _rebuild(self, cid, version: int | None = None) -> Campaign:
        """The aggregate from its latest snapshot (at or before `version`) if that snapshot checks out, then the
        events after it. A snapshot that does not check out is reported (`notices`) and the log replayed whole."""
        start = None
        rows = self.snapshots.recorder.select_events(cid, desc=True, limit=1, lte=version) if self.snapshots else []
        if rows:
            snap, problem = self._snapshot_problem(cid, rows[0])
            if problem is None:
                start = snapshot_event(rows[0], snap).mutate(None)
            else:
                self.notices.append(f"{problem}: read from the log instead (`cgledger audit` names it)")
        campaign = start
        for event in self.events.get(cid, gt=start.version if start else None, lte=version):
            if campaign is not None:
                problem = envelope_problem(cid, campaign, event)
                if problem:
                    self.notices.append(f"event {event.originator_version}: {problem} (run `cgledger audit`)")
            campaign = event.mutate(campaign)
        if campaign is None:
            raise CampaignNotFound("the campaign has no events")
        return campaign

    def _snapshot_problem(self, cid, stored):
        """(the stored snapshot, why it is not to be trusted or None): its seal, or the digest of the event it
        summarizes. Its state is not parsed here."""
        version = stored.originator_version
        try:
            snap = read_snapshot(self.mapper.decode_state(stored))
        except Exception:  # noqa: BLE001
            return None, f"the snapshot at event {version} cannot be read"
        if snap.seal != snapshot_seal(snap.head, snap.state):
            return snap, f"the snapshot at event {version} was edited (its seal does not match its content)"
        event = self._logged(cid, version)
        if event is None or event.fact is None or snap.head != event.digest \
                or chain.event_digest(cid, event) != event.digest:
            return snap, f"the snapshot at event {version} does not summarize the stored event {version}"
        return snap, None

    def _logged(self, cid, version: int) -> Logged | None:
        rows = self.recorder.select_events(cid, gt=version - 1, lte=version)
        return self._as_logged(rows[0]) if rows else None

    def take_snapshot(self, aggregate_id, version: int | None = None, projector_func=None) -> None:
        """A snapshot built the way reads build the campaign: never on top of a snapshot that does not check out."""
        self.snapshots.put([Campaign.Snapshot.take(self._rebuild(aggregate_id, version))])

    def snapshots_of(self, name: str | None) -> dict[int, tuple[dict | None, str | None]]:
        """Every stored snapshot of the campaign: version -> (its state, parsed for the latest only, the one reads
        start from; why it does not check out). Each one's seal and event are checked; the latest is compared
        whole with the replay by the audit (an older edited one either shows in the next, built on it, or no
        longer matters)."""
        cid = campaign_id(self.resolve_name(name))
        stored_rows = self.snapshots.recorder.select_events(cid) if self.snapshots else []
        found: dict[int, tuple[dict | None, str | None]] = {}
        for index, stored in enumerate(stored_rows):
            snap, problem = self._snapshot_problem(cid, stored)
            state = msgspec.json.decode(snap.state) if snap is not None and index == len(stored_rows) - 1 else None
            found[stored.originator_version] = (state, problem)
        return found

    def rules_for(self, state: CampaignState) -> rulesmod.Rules:
        return rulesmod.load(state.system, state.override_sources())

    def _load(self, name: str | None) -> tuple[Campaign, rulesmod.Rules]:
        """The campaign and its rules, for a command that records: a retried command already recorded stops here."""
        campaign = self.campaign(name)
        done = campaign.recorded(self.command_id) if self.command_id else None
        if done is not None:
            raise AlreadyRecorded(done)
        return campaign, self.rules_for(campaign)

    def _append(self, campaign: Campaign, *facts: Fact) -> None:
        """Records what a decision returned, each fact by its author and signed once that side has a key, then
        saves at the version the decision saw. Refused (nothing written) when a signature is due and the key
        given is not that side's."""
        rules = self.rules_for(campaign)
        sides = list(rules.system.sides)
        keyed = signing_sides(campaign)
        opened: list[str | None] = []  # the side the key given opens: scrypt per side, so only when a shared act needs it
        records = []
        for fact in facts:
            mine = owner(fact)
            if mine is None and not opened:
                opened.append(self.keyring.opens(campaign) if keyed and self.keyring.material is not None else None)
            author = mine if mine is not None else recorder(campaign, sides, opened[0])
            if mine is None and not author and keyed:
                raise BadInput("every side signs its acts now: give your passphrase (CGLEDGER_PASSPHRASE) or key file "
                               "(--key-file)", rights.RULE)
            if isinstance(fact, SideKeyRegistered) and fact.public:
                sign = self.keyring.signer(campaign, rules, author, registration=fact)
            elif author in keyed:
                sign = self.keyring.signer(campaign, rules, author)
            else:
                sign = None
            records.append((fact, author, sign))
        for fact, author, sign in records:
            campaign.record(fact, author, sign, self.command_id)
        self._save(campaign)

    def recording_side(self, campaign: Campaign, rules) -> str:
        """The side recording now: the one whose key was given, else the only side without a key ('' if none)."""
        opened = self.keyring.opens(campaign) if signing_sides(campaign) and self.keyring.material else None
        return recorder(campaign, list(rules.system.sides), opened)

    def _sealed_cpp(self, campaign: Campaign, rules, side: str) -> int:
        return self.keyring.sealed_cpp(campaign, rules, side, lambda versions: self._facts(campaign, versions))

    def _facts(self, campaign: Campaign, versions: list[int]) -> list:
        wanted = set(versions)
        return [decode_envelope(self.mapper.decode_state(stored)).fact
                for stored in self.recorder.select_events(campaign.id, gt=min(versions) - 1, lte=max(versions))
                if stored.originator_version in wanted]

    # ---- campaigns ------------------------------------------------------------------------------
    def new_campaign(self, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                     random_weather: bool = False) -> Campaign:
        fact = steps.start(name, system, cg, start_cpp, random_weather)
        if fact.name in self.campaign_names():
            if self.command_id and self.campaign(fact.name).recorded(self.command_id) == 1:
                raise AlreadyRecorded(1)
            raise BadInput(f"a campaign named '{fact.name}' already exists in this database")
        campaign = Campaign.begin(fact, self.command_id)
        self._save(campaign)
        return campaign

    def campaign_names(self) -> list[str]:
        names = []
        for notification in self.recorder.select_notifications(None, 10_000, topics=["CampaignStarted"]):
            fact = decode_envelope(self.mapper.decode_state(notification)).fact
            # a campaign is its log's first event, under the id its name gives; a CampaignStarted inside
            # another campaign's log starts nothing (the audit names it)
            if notification.originator_version == 1 and notification.originator_id == campaign_id(fact.name) \
                    and fact.name not in names:
                names.append(fact.name)
        return names

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

    # ---- rolls ----------------------------------------------------------------------------------
    def roll(self, name: str | None, table_id: str, side: str, drms: tuple[str, ...] = (), dice: str | None = None,
             secret: bool = False, purpose: str = "", rg: str | None = None, vasl: str | None = None) -> Rolled:
        campaign, rules = self._load(name)
        if dice is not None and vasl is not None:
            raise BadInput("give the dice once: --dice or --vasl")
        report = parse_vasl(vasl) if vasl is not None else None
        if report is not None:
            self.check_new_reports(campaign.name, [report])
        table = rules.table(table_id)
        who = rules.side(side)
        rg_version = purchases.rg_reference(campaign, rules, rg, who) if rg is not None else None
        rolls.admit(campaign, rules, table_id, who, rg_version, purpose)  # before any dice are made
        fair = None
        if campaign.fair and (secret or table.secret) and who in campaign.keys and report is None:
            if dice is not None:
                raise BadInput("fair dice: the ledger derives a Secret roll's dice from both sides' seeds; no --dice",
                               table.rule)
            fair = self.keyring.fair_dice(campaign, rules, who, table.die, self.history(campaign.name))
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
        command = rolls.RollCommand(
            table=table.id, side=who, drms=tuple(parse_declared(drms).items()), faces=tuple(faces), source=source,
            secret=secret, purpose=purpose, rg=rg_version, fair=fair[1] if fair else None,
            vasl=report.line if report else "", player=report.player if report else "",
            series=report.series if report else "")
        sealed_cpp = self._sealed_cpp(campaign, rules, who) if campaign.sealed else 0
        fact, resolution = rolls.roll(campaign, rules, command, sealed_cpp)
        sealed = fact.secret and fact.side in campaign.keys and report is None
        if sealed:  # both sides see that it was made, not what
            salt, text = self.keyring.seal(campaign, rules, fact)
            self._append(campaign, secrets.sealed_roll(campaign, rules, fact, salt, text))
        else:
            self._append(campaign, fact)
        return Rolled(fact, resolution, campaign.cg_date, campaign.version, rules.system.sides[who], sealed)

    def undo(self, name: str | None, reason: str = ""):
        """Voids the last action still in force, or proposes it when it is the other side's or shared; returns the
        fact and the events of the action(s) concerned."""
        campaign, rules = self._load(name)
        fact = rights.undo(campaign, self.recording_side(campaign, rules), reason)
        self._append(campaign, fact)
        return fact, self._of_actions(campaign.name, voided_by_fact(fact))

    def rewind(self, name: str | None, date: str, reason: str = ""):
        campaign, rules = self._load(name)
        fact = rights.rewind(campaign, rules, self.recording_side(campaign, rules), date, reason)
        self._append(campaign, fact)
        return fact

    def accept(self, name: str | None):
        """The other side accepts the open take-back proposal."""
        campaign, rules = self._load(name)
        fact = rights.accept(campaign, rules, self.recording_side(campaign, rules))
        self._append(campaign, fact)
        return fact, self._of_actions(campaign.name, voided_by_fact(fact))

    def _of_actions(self, name: str, actions) -> list[Logged]:
        wanted = set(actions)
        return [e for e in self.history(name) if getattr(e.fact, "action", None) in wanted]

    def load_rules(self, name: str | None, path: str):
        campaign = self._load(name)[0]
        text = rulesmod.read_rules_file(path)  # a regular file, size-limited UTF-8 text without NUL
        fact = secrets.load_rules(campaign, Path(path).name, text)
        self._append(campaign, fact)
        return fact

    # ---- steps and scenarios ---------------------------------------------------------------------
    def step(self, name: str | None, target: str | None = None):
        campaign, rules = self._load(name)
        facts = steps.step(campaign, rules, target)
        self._append(campaign, *facts)
        return steps.Move(facts[-1].step, facts[-1].skipped, facts[0].cg_date if len(facts) > 1 else None)

    def scenario_end(self, name: str | None, lvp_items: tuple[str, ...], winner: str | None = None):
        campaign, rules = self._load(name)
        base = steps.need_step(rules, campaign, "scenario_end")
        lvp = steps.side_numbers(rules, lvp_items, "--lvp", f"{base}2" if base else None)
        from_map = not lvp_items
        if from_map:  # read off the map: the LVP Locations each side Controls (8.6032)
            lvp = map_lvp(self.history(campaign.name), rules) or {}
            if not lvp:
                raise BadInput("no map is loaded to read the Current-LVP from: give "
                               + " ".join(f"--lvp {s}=N" for s in rules.system.sides), f"{base}2" if base else None)
        fact = steps.scenario_end(campaign, rules, lvp, winner, from_map)
        self._append(campaign, fact)
        return fact

    def initiative(self, name: str | None, chits: dict[str, str], us_has_no_units: bool = False):
        campaign, rules = self._load(name)
        fact = steps.initiative(campaign, rules, chits, us_has_no_units)
        self._append(campaign, fact)
        return fact

    def status(self, name: str | None, as_of: str | None = None) -> dict:
        state, rules = self.state_as_of(name, as_of)
        nxt = next_step(rules, state)
        cpp = dict(state.cpp)
        own = self.keyring.opens(state) if as_of is None and state.sealed else None
        if own is not None:  # this player's own sealed replenishments count for its own CPP
            cpp[own] = cpp.get(own, 0) + self._sealed_cpp(state, rules, own)
        return {
            "campaign": state.name, "system": state.system, "sides": dict(rules.system.sides), "cg": state.cg,
            "cg_date": state.cg_date,
            "step": state.step, "step_title": title(rules, state.step),
            "scenario": state.scenario or None, "initial": state.initial,
            "needs": unmet(rules, state, state.step),
            "reminders": reminders(rules, state),
            "next": nxt, "next_title": title(rules, nxt),
            "cpp": cpp, "fpp": {s: v for s, v in state.fpp.items() if v}, "lvp": state.lvp,
            "attack_chits": state.chits, "flags": state.flags,
            "random_weather": state.options.get("random_weather", False),
        }

    # ---- purchases -------------------------------------------------------------------------------
    def buy(self, name: str | None, rg_id: str, side: str, map_group: str = "", objective: str = "",
            given: bool = False, on_map: bool = False, pre_registered: int = 0):
        campaign, rules = self._load(name)
        who = rules.side(side)
        sealed_cpp = self._sealed_cpp(campaign, rules, who) if campaign.sealed else 0
        fact = purchases.buy(campaign, rules, rg_id, who, map_group, objective, given, on_map, pre_registered,
                             sealed_cpp)
        self._append(campaign, fact)
        return fact

    def fortify(self, name: str | None, item: str, side: str, setup_area: str, count: int = 1, size: str = "",
                squads: int | None = None, front_line: bool = False, isolated: bool = False):
        campaign, rules = self._load(name)
        fact = purchases.fortify(campaign, rules, item, side, setup_area, count, size, squads, front_line, isolated)
        self._append(campaign, fact)
        return fact

    # ---- the map -------------------------------------------------------------------------------------
    def control(self, name: str | None, location: str, side: str, strategic: str = ""):
        campaign, rules = self._load(name)
        fact = mapd.control(campaign, rules, location, side, strategic)
        self._append(campaign, fact)
        return fact

    def record_hq(self, name: str | None, side: str, location: str):
        campaign, rules = self._load(name)
        fact = mapd.hq(campaign, rules, side, location)
        self._append(campaign, fact)
        return fact

    def firefight_end(self, name: str | None, map_id: str, fires: tuple[str, ...] = (),
                      burning_wrecks: tuple[str, ...] = (), in_sewer: tuple[str, ...] = (),
                      redeployed: tuple[str, ...] = ()):
        campaign, rules = self._load(name)
        facts = mapd.firefight_end(campaign, rules, map_id, fires, burning_wrecks, in_sewer, redeployed)
        self._append(campaign, *facts)
        return facts[0]

    def place(self, name: str | None, item: str, hex_text: str, side: str, hidden: bool = False):
        campaign, rules = self._load(name)
        fact = mapd.place(campaign, rules, item, hex_text, side, hidden, self.history(campaign.name))
        self._append(campaign, fact)
        return fact

    # ---- keys, Secret rolls, fair dice --------------------------------------------------------------
    def register_key(self, name: str | None, side: str, material: bytes):
        campaign, rules = self._load(name)
        keyring = Keyring(material)
        salt, check, public = keyring.new_registration()
        fact = secrets.register_key(campaign, rules, side, salt, check, public)
        self.keyring, previous = keyring, self.keyring  # the new key signs its own registration
        try:
            self._append(campaign, fact)
        finally:
            self.keyring = previous
        return fact

    def fair_commit(self, name: str | None, side: str):
        """Commit to this side's seed and publish its shares of the other side's fair rolls."""
        from .secrets import SHARES, seed_commitment, share

        campaign, rules = self._load(name)
        who = rules.side(side)
        if who not in campaign.keys:
            raise BadInput(f"the {rules.system.sides[who]} side sets up its key first (`cgledger keys init`)")
        seed = self.keyring.seed(campaign, rules, who)
        other = next(s for s in rules.system.sides if s != who)
        fact = secrets.fair_commit(campaign, rules, who, seed_commitment(seed),
                                   tuple(share(seed, campaign.name, other, n) for n in range(1, SHARES + 1)))
        self._append(campaign, fact)
        return fact

    def fair_reveal(self, name: str | None, side: str):
        campaign, rules = self._load(name)
        who = rules.side(side)
        if who not in campaign.fair:
            raise BadInput(f"the {rules.system.sides[who]} side has committed no fair-dice seed")
        fact = secrets.fair_reveal(campaign, rules, who, self.keyring.seed(campaign, rules, who).hex())
        self._append(campaign, fact)
        return fact

    def reveal(self, name: str | None, side: str | None, roll: int | None = None) -> list:
        """Publishes a Secret roll, or all of a side's; the side defaults to the roll's, or to the side whose
        key the passphrase given opens."""
        campaign, rules = self._load(name)
        if side is None and roll is not None and str(roll) in campaign.sealed:
            side = campaign.sealed[str(roll)]["side"]
        if side is None:
            side = self.keyring.opens(campaign)
            if side is None:
                raise BadInput("whose Secret rolls? give --side SIDE, and that side's passphrase or key file")
        side = rules.side(side)
        mine = sorted(int(v) for v, s in campaign.sealed.items() if s["side"] == side)
        if roll is not None:
            if roll not in mine:
                raise BadInput(f"event {roll} is no unrevealed Secret roll of the {rules.system.sides[side]} side")
            mine = [roll]
        if not mine:
            raise BadInput(f"the {rules.system.sides[side]} side has no unrevealed Secret roll")
        self.keyring.key(campaign, rules, side)
        made = dict(zip(mine, self._facts(campaign, mine)))
        facts = []
        for version in mine:
            opened = self.keyring.unseal(campaign, rules, made[version])
            facts.append(secrets.reveal(campaign, made[version], version, opened.fact, opened.salt))
        self._append(campaign, *facts)
        return facts

    def keys(self, name: str | None) -> list[dict]:
        """Each side's registered keys: the public signing key (and its short fingerprint, to compare with the other
        player by phone or chat: a key registered in a side's name by the other player shows here) and the event."""
        from .events import SideKeyRegistered

        rows = []
        for event in self.history(name):
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

        check_new_reports(self.history(name), reports)

    def vasl_import(self, name: str | None, files: list[tuple[str, bytes]], attach: list, players: dict[str, str],
                    dry_run: bool = False) -> list:
        """Each file (name, bytes) in order, one action each; nothing is written if any is refused."""
        from .vaslimport import decide_import, read_source

        campaign, rules = self._load(name)
        sources = [read_source(data, file, tuple(players)) for file, data in files]
        imported, facts = decide_import(campaign, rules, self.history(campaign.name), sources, attach, players)
        if facts and not dry_run:
            self._append(campaign, *facts)
        return imported

    def export_bundle(self, name: str | None, since: str, path: Path):
        from .exchange import export_bundle

        name = self.resolve_name(name)
        return export_bundle(self.history(name), name, self.campaign(name).system, since, path)

    def import_bundle(self, path: Path) -> tuple[str, int]:
        """Appends the bundle's new events, each re-decided first; returns (campaign, number imported)."""
        from .exchange import domain_event, plan_import, read_bundle

        bundle = read_bundle(path)
        local = self.history(bundle.campaign) if bundle.campaign in self.campaign_names() else []
        new = plan_import(bundle, local)
        cid = campaign_id(bundle.campaign)
        self._save_events([domain_event(cid, e) for e in new])
        return bundle.campaign, len(new)

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
        return [self._as_logged(stored) for stored in self.recorder.select_events(campaign_id(name))]

    def _as_logged(self, stored) -> Logged:
        try:
            envelope = decode_envelope(self.mapper.decode_state(stored))
        except Exception as e:  # noqa: BLE001 - a damaged row is a finding, not a crash
            return Logged(stored.originator_version, None, "", "", stored.topic, None, str(e))
        return Logged(stored.originator_version, envelope.timestamp, envelope.prev, envelope.digest, stored.topic,
                      envelope.fact, "", envelope.author, envelope.signature, envelope.command, envelope.form)

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
            logged = effective(logged, self.keyring.opened_rolls(state, rules, logged) if state.sealed else None)
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
        return audit(campaign_id(name), logged, self.snapshots_of(name))

    def head(self, name: str | None, as_of: str | None = None) -> str:
        """The fingerprint of the whole stored log: its length and its last event's digest,
        which chains every event before it (`audit` checks that chain)."""
        cid = campaign_id(self.resolve_name(name))
        if as_of is not None:
            last = self.read(name, as_of, raw=True)[0][-1]
        else:
            last = self._as_logged(self.recorder.select_events(cid, desc=True, limit=1)[0])
        # recomputed, never taken on trust: an edit that was not re-chained shows here, not only in `audit`
        if last.fact is None or chain.event_digest(cid, last) != last.digest:
            raise DatabaseError(f"event {last.version} was altered after it was recorded (its content no longer "
                                "matches its digest): run `cgledger audit`")
        return fingerprint(last.version, last.digest)



def envelope_problem(cid, state: CampaignState, event) -> str | None:
    """What every load checks of each event it replays after the snapshot (the audit checks all, and re-decides
    them): it follows the one before, its digest covers its content, its author and signature are right."""
    from .audit import check_author
    from .events import TAGS

    logged = Logged(event.originator_version, event.timestamp, event.prev, event.digest, TAGS[type(event.fact)],
                    event.fact, "", event.author, event.signature, event.command, event.form)
    if event.prev != state.head:
        return "it does not follow the event before it: the log was rewritten"
    if chain.event_digest(cid, logged) != event.digest:
        return "it was altered after it was recorded"
    found = check_author(state, event.fact, logged)
    return found[0][1] if found else None


def voided_by_fact(fact) -> tuple[int, ...]:
    """The actions an undo, rewind or proposal concerns."""
    from .events import TakeBackProposed
    from .inforce import voided_by

    if isinstance(fact, TakeBackProposed):
        return tuple(fact.voided)
    return voided_by(fact) or ()


def reminders(rules, state) -> list[dict]:
    """The open step's reminders that apply on this CG Date (e.g. RR 2.51428 at night)."""
    if state.step not in rules.steps:
        return []
    time = rules.calendar.parse(state.cg_date).time
    return [{"rule": r.rule, "text": r.text} for r in rules.steps[state.step].reminders if r.time in (None, time)]


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
