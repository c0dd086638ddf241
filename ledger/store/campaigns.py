"""The campaigns of one database: loaded without taking the store on trust (ledger/store/loading.py), checked
against what this machine saw of them (ledger/trust/seen.py, mark.py), saved at the version a decision saw, and
read whole or in part. It holds the event-sourcing library's application (ledger/store/eventstore.py) by
composition, built when a command first records, or at once where its rows cannot be read plainly (a cipher or
compressor set; PostgreSQL without libpq): reads fold the stored rows (`rows`: sqlite3, or libpq) without the
library."""

from __future__ import annotations

import time
from itertools import starmap
from typing import TYPE_CHECKING, Callable

from .. import rules as rulesmod
from ..domain import timeline
from ..domain.authorship import ledger_records
from ..errors import CampaignMovedOn, DatabaseError, LedgerError
from ..trust import mark, seen
from ..trust.chain import campaign_id
from ..trust.envelope import decode_envelope
from ..trust.logged import Logged
from . import database as store
from .folded import recording
from .loading import Loader
from .reading import PostgresRows, SqliteRows, collector_paused, hold, pick_name, started_names

if TYPE_CHECKING:
    from ..domain.evolve import CampaignState
    from .campaign import Campaign


def as_stored(event) -> Logged:
    """A domain event as the store will give it back (the views kept current fold it)."""
    from ..domain.events import TAGS

    return Logged(event.originator_version, event.timestamp, event.prev, event.digest, TAGS[type(event.fact)],
                  event.fact, "", event.author, event.signature, event.command, event.form,
                  getattr(event, "request", None))


class CampaignStore:
    """The store of the application service `owner` (its snapshots are taken as it loads campaigns)."""

    def __init__(self, owner, env=None, rows: SqliteRows | PostgresRows | None = None):
        self.owner = owner
        self.env = dict(env or {})
        self._app = None
        self._rows = rows
        self.loader = Loader(self)
        # told of each save: (the campaign, its new events as stored), to keep the read views current
        self.saved: Callable = lambda campaign, new: None
        self.saves = 0  # how many times this process saved: a verb retried only while it has saved nothing
        if rows is None:
            self.app  # the library reads: built now, as before (a refused connection is `open_ledger`'s one line)

    @property
    def app(self):
        """The event-sourcing library's application, built at first use: the first write's."""
        if self._app is None:
            from .eventstore import EventStore

            self._app = EventStore(self, self.env)
        return self._app

    @property
    def recorder(self):
        return self._rows if self._app is None else self._app.recorder

    @property
    def snapshot_recorder(self):
        if self._app is None:
            return self._rows.snapshots
        return self._app.snapshots.recorder if self._app.snapshots is not None else None

    @property
    def mapper(self):
        return self._rows if self._app is None else self._app.mapper

    @property
    def snapshots(self):
        return self.app.snapshots

    @property
    def factory(self):
        return self.app.factory

    def save(self, *objects):
        return self.app.save(*objects)

    def close(self) -> None:
        if self._app is not None:
            self._app.close()
        if self._rows is not None:
            self._rows.close()

    @property
    def notices(self) -> list[str]:
        """What a read found and worked around (a snapshot that does not check out, an event that does not verify)."""
        return self.loader.notices

    def campaign(self, name: str | None, writing: bool = False) -> Campaign:
        cid = campaign_id(self.resolve_name(name))
        if not writing:
            again = self._read_again(cid)
            if again is not None:
                return again
        campaign = self.rebuild(cid)
        self._check_seen(campaign, writing)
        if campaign.irregular:  # a forged take-back (the audit names it): the books can disagree from here on
            action, voided = campaign.irregular
            first: dict = {}  # each act's first event, as the player knows them (read only for such a log)
            for logged in self.history(name):
                first.setdefault(getattr(logged.fact, "action", None), logged.version)
            events = ", ".join(str(first.get(a, "?")) for a in voided)
            self.notices.append(f"event {first.get(action, '?')} takes back the act{'s' if len(voided) > 1 else ''} "
                                f"of event{'s' if len(voided) > 1 else ''} {events} out of order, which no ledger does: "
                                "from there the totals `status` shows may differ from the roster's; run `cgledger audit`")
        if not writing and not self.notices:  # read without a warning: read once (`_read_again`)
            last = self.recorder.select_events(cid, desc=True, limit=1)
            self._last_read = (cid, last[0].originator_version, last[0].state, campaign) if last else None
        return campaign

    _last_read: tuple | None = None  # (campaign id, last stored version, its stored bytes, the campaign read)

    def forget_reads(self) -> None:
        """A new command reads the campaign afresh (the CLI calls this as each command opens the ledger)."""
        self._last_read = None

    def _read_again(self, cid) -> Campaign | None:
        """The campaign this command already read, if it read it without a warning and the log's last stored row
        is still byte for byte the one it read up to ("load the campaign once per command"; `map`
        read it twice). A campaign a verb has recorded on since (its version moved) is read again."""
        if self._last_read is None or self._last_read[0] != cid:
            return None
        _cid, version, state, campaign = self._last_read
        last = self.recorder.select_events(cid, desc=True, limit=1)
        if last and last[0].originator_version == version == campaign.version and last[0].state == state:
            return campaign
        self._last_read = None
        return None

    where = ""  # this database, as this machine names it (open_ledger): the key of the head it last saw

    def seen_problem(self, cid, version: int, key: str | None = None) -> str | None:
        def digest_at(v: int) -> str | None:
            rows = self.recorder.select_events(cid, gt=v - 1, lte=v)
            return self.loader.logged(rows[0]).digest if rows else None

        key = key or self.seen_key(cid)
        if seen.problem(self.where, key, version, digest_at) is None:
            return None
        stored = self.recorder.select_events(cid, desc=True, limit=1)  # the store now: another writer may be ahead
        return seen.problem(self.where, key, stored[0].originator_version if stored else 0, digest_at)

    def seen_key(self, cid) -> str:
        """The campaign as this machine knows it: its id and its first event (a campaign started anew under the same
        name, in a new file at the same place, is another campaign)."""
        first = self.recorder.select_events(cid, lte=1)
        return f"{cid}#{self.loader.logged(first[0]).digest[:16] if first else ''}"

    def _check_seen(self, campaign: Campaign, writing: bool) -> None:
        """The log still extends the last head this machine saw (ledger/trust/seen.py): else reads warn, writes refuse."""
        if not self.where:
            return
        key = self.seen_key(campaign.id)
        found = self.seen_problem(campaign.id, campaign.version, key)
        for pause in (0.05, 0.2):  # another process of this machine may be committing what it has just noted
            if found is None or not writing:
                break
            time.sleep(pause)
            found = self.seen_problem(campaign.id, campaign.version, key)
        if found is None:
            seen.remember(self.where, key, campaign.version, campaign.head)
        elif writing:
            raise DatabaseError(f"{found}; nothing is recorded on it: run `cgledger audit` ({seen.forget_hint()})")
        else:
            self.notices.append(found)

    def rebuild(self, cid, version: int | None = None) -> Campaign:
        """Loaded past this machine's mark of what it verified (ledger/trust/mark.py), which then moves up to what this
        load verified."""
        if not mark.kept(self.where):
            return self.loader.campaign(cid, version)
        key = self.seen_key(cid)
        campaign = self.loader.campaign(cid, version, mark.read(self.where, key))
        if self.loader.checked is not None:
            mark.advance(self.where, key, *self.loader.checked)
        return campaign

    def take_snapshot(self, aggregate_id, version: int | None = None) -> None:
        """A snapshot built the way reads build the campaign: never on top of a snapshot that does not check out."""
        campaign = recording(self.rebuild(aggregate_id, version))
        self.snapshots.put([type(campaign).Snapshot.take(campaign)])

    def snapshots_of(self, name: str | None) -> dict[int, tuple[dict | None, str | None]]:
        return self.loader.snapshots(campaign_id(self.resolve_name(name)))

    def stored_facts(self, campaign: Campaign, versions: list[int]) -> list:
        # recorded by this command, not saved yet (a view of the campaign holds none: it is rebuilt from the store)
        found = {e.originator_version: e.fact for e in getattr(campaign, "_pending_events", ())}
        found.update(getattr(campaign, "pending_facts", {}))
        wanted = sorted(set(versions) - set(found))
        cid = campaign_id(campaign.name) if wanted else None
        for first, last in _runs(wanted):  # each run of versions on its own: never the log between them
            found.update((stored.originator_version, decode_envelope(self.mapper.decode_state(stored)).fact)
                         for stored in self.recorder.select_events(cid, gt=first - 1, lte=last))
        return [found[v] for v in versions]

    def campaign_names(self) -> list[str]:
        if self._app is None:
            return started_names(self._rows.started())
        return started_names((n.originator_id, n.originator_version, self.mapper.decode_state(n))
                             for n in self.recorder.select_notifications(None, 10_000, topics=["CampaignStarted"]))

    def resolve_name(self, name: str | None) -> str:
        """The campaign's name: the one given, or the only one in the database."""
        if name is not None and self.recorder.select_events(campaign_id(name), limit=1):
            return name  # a primary-key lookup: the id is derived from the name
        return pick_name(name, self.campaign_names())

    def events_of_action(self, state: CampaignState, action: int, before: int) -> list[Logged]:
        """The events of one action recorded before event `before`, read backwards from there (a proposal follows
        the action it takes back; no read of the whole log)."""
        cid = campaign_id(state.name)
        found: list[Logged] = []
        upper = before - 1
        while upper >= 1:
            rows = self.recorder.select_events(cid, desc=True, lte=upper, limit=16)
            for stored in rows:
                event = self.loader.logged(stored)
                number = getattr(event.fact, "action", None)
                if number == action:
                    found.append(event)
                elif number is not None and number < action:
                    return found[::-1]
            if not rows:
                break
            upper = rows[-1].originator_version - 1
        return found[::-1]

    def save_campaign(self, campaign: Campaign) -> None:
        """Saves the pending events; if another writer recorded first, nothing of ours is stored and
        the one line says what the other side recorded."""
        from eventsourcing.persistence import IntegrityError, OperationalError

        recording(campaign)
        pending = [event.digest for event in campaign._pending_events]
        new = [as_stored(event) for event in campaign._pending_events]  # for the views kept current
        base = campaign.version - len(pending)
        based_on = campaign._pending_events[0].prev if pending else campaign.head  # the head the decision saw
        try:
            self.save(campaign)
            self.saves += 1
            if self.where:
                key = self.seen_key(campaign.id)
                seen.remember(self.where, key, campaign.version, campaign.head)
                if mark.read(self.where, key) == (base, based_on):  # our own events, decided here
                    mark.advance(self.where, key, campaign.version, campaign.head)
            self.saved(campaign, new)  # the kept read views that were current
        except IntegrityError:
            # PostgreSQL: the library retries a write whose connection was lost; if the lost one had committed,
            # the retry (of the events or of the snapshot after them) meets our own events: they are recorded
            if self._stored(campaign.id, base, pending):
                return
            theirs = self._facts_since(campaign, base)
            raise CampaignMovedOn(f"the campaign moved on: {self._since(campaign, base, theirs)}; run the command "
                                  "again", protocol_only=ledger_records(f for f in theirs if f is not None)) from None
        except OperationalError as e:  # SQLite: the other writer still holds the lock
            if "locked" not in str(e):
                raise
            raise CampaignMovedOn("the campaign moved on: another player is recording right now; run the command again"
                                  ) from None

    def _stored(self, cid, base: int, digests: list[str]) -> bool:
        """Whether the events after `base` are exactly these (by their digests, which cover the command id)."""
        stored = self.recorder.select_events(cid, gt=base, lte=base + len(digests))
        try:
            return [decode_envelope(self.mapper.decode_state(s)).digest for s in stored] == digests
        except Exception:  # noqa: BLE001 - an unreadable row is not ours
            return False

    def save_events(self, events: list) -> None:
        """Stores events made elsewhere (an imported bundle), exactly as they are, in one transaction."""
        from eventsourcing.persistence import IntegrityError

        try:
            if _on_postgres(self.app.recorder):  # the library's, which writes
                self._insert_batched([self.app.mapper.to_stored_event(e) for e in events])
            else:
                self.save(*events)  # SQLite: one transaction already (measured: 50,000 events in ~2 s)
        except IntegrityError:
            raise CampaignMovedOn("the campaign moved on while importing: run the import again") from None

    IMPORT_BATCH = 1000  # events per INSERT statement of an import into PostgreSQL

    READ_PAGE = 2000  # stored events per SELECT of a whole-log read

    def _insert_batched(self, stored: list) -> None:
        """PostgreSQL: the stored events in batches of plain INSERTs inside one transaction, all or nothing.
        The library's own insert sends everything as one statement in pipeline mode, and psycopg's pipeline
        can deadlock on large data (an import of 8,000-10,000 events hung: the client waiting on the pipeline
        sync, the server on the client). The table is locked as the library locks it, so notification ids are
        given in commit order."""
        from psycopg.sql import SQL, Identifier

        recorder = self.app.recorder  # the library's, which writes
        datastore = recorder.datastore
        table = SQL("{0}.{1}").format(Identifier(datastore.schema), Identifier(recorder.events_table_name))
        insert = SQL("INSERT INTO {table} (originator_id, originator_version, topic, state) "
                     "SELECT i, v, t, s FROM unnest(%s::{id_type}[], %s::bigint[], %s::text[], %s::bytea[]) "
                     "WITH ORDINALITY AS e(i, v, t, s, n) ORDER BY n").format(
            table=table, id_type=Identifier(datastore.originator_id_type))
        with datastore.get_connection() as conn, conn.transaction(), conn.cursor() as curs:
            for statement in recorder.lock_table_statements:
                curs.execute(statement)
            curs.execute(SQL("NOTIFY {0}").format(Identifier(recorder.channel_name)))
            for start in range(0, len(stored), self.IMPORT_BATCH):
                batch = stored[start:start + self.IMPORT_BATCH]
                curs.execute(insert, ([e.originator_id for e in batch], [e.originator_version for e in batch],
                                      [e.topic for e in batch], [e.state for e in batch]))

    def _facts_since(self, campaign: Campaign, base: int) -> list:
        """The facts another writer stored after `base` (None for one that does not read)."""
        facts = []
        for stored in self.recorder.select_events(campaign.id, gt=base):
            try:
                facts.append(decode_envelope(self.mapper.decode_state(stored)).fact)
            except Exception:  # noqa: BLE001 - named by its place alone
                facts.append(None)
        return facts

    def _since(self, campaign: Campaign, base: int, facts: list) -> str:
        sides = rulesmod.load(campaign.system).system.sides
        theirs = [timeline.summary(f, sides) if f is not None else "an event that does not read" for f in facts]
        shown = ", ".join(theirs[:3]) + (f" and {len(theirs) - 3} more" if len(theirs) > 3 else "")
        return f"the other side recorded {shown or 'first'} (event {base + len(theirs)})"

    def log_at(self, campaign: Campaign) -> list[Logged]:
        """The stored events a campaign loaded for a command was folded from: never one another writer (the other
        side's ledger, this side's server) stored since, which the command's own decision has not seen."""
        loaded = campaign.version - len(getattr(campaign, "_pending_events", ()))
        return self.history(campaign.name)[:loaded]

    def history(self, name: str | None) -> list[Logged]:
        """Every stored event of the campaign, read raw (so a corrupt one is reported, not fatal)."""
        from ..trust.envelope import read_logged

        cid = campaign_id(self.resolve_name(name))
        plain = not self.mapper.cipher and not self.mapper.compressor  # the stored bytes are the envelope itself
        logged: list[Logged] = []
        after = None
        with collector_paused():
            while True:  # a page of stored rows at a time: the whole log's rows and its decoded events are never all
                rows = self._page(cid, after, self.READ_PAGE, plain)  # held at once (memory)
                logged += list(starmap(read_logged, rows)) if plain else [self.loader.logged(s) for s in rows]
                if len(rows) < self.READ_PAGE:
                    return hold(logged)
                after = rows[-1][0] if plain else rows[-1].originator_version

    def entries(self, name: str | None) -> list:
        """`history` as ledger/envelope.read_entries gives it: (version, topic, the decoded envelope, or the damaged
        Logged `history` would hold), no Logged built per event (`log --json`, `export`)."""
        from ..trust.envelope import read_entries

        cid = campaign_id(self.resolve_name(name))
        plain = not self.mapper.cipher and not self.mapper.compressor
        entries: list = []
        after = None
        with collector_paused():
            while True:
                rows = self._page(cid, after, self.READ_PAGE, plain)
                entries += read_entries(rows) if plain else \
                    [(s.originator_version, s.topic, self.loader.logged(s)) for s in rows]
                if len(rows) < self.READ_PAGE:
                    return hold(entries)
                after = rows[-1][0] if plain else rows[-1].originator_version

    def _page(self, cid, after: int | None, limit: int, plain: bool = False) -> list:
        """The campaign's stored events after version `after`, `limit` of them: the recorder's select_events, or with
        `plain`, each as (version, topic, stored bytes). On SQLite the library's own statement, without its parse of
        every row's originator id into a UUID (a third of a whole-log read): the rows are the ones of
        `cid`, which the statement's WHERE asks for."""
        recorder = self.recorder
        if isinstance(recorder, (SqliteRows, PostgresRows)):
            return (recorder.plain_rows if plain else recorder.select_events)(cid, gt=after, limit=limit)
        from eventsourcing.persistence import StoredEvent
        from eventsourcing.sqlite import SQLiteAggregateRecorder

        if not isinstance(recorder, SQLiteAggregateRecorder):
            rows = recorder.select_events(cid, gt=after, limit=limit)
            return [(s.originator_version, s.topic, s.state) for s in rows] if plain else rows
        statement = recorder.select_events_statement + ("AND originator_version>? " if after is not None else "")
        params = [cid.hex, *([after] if after is not None else []), limit]
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement + "ORDER BY originator_version ASC LIMIT ?", params)
            if plain:
                return [(row["originator_version"], row["topic"], row["state"]) for row in cursor.fetchall()]
            return [StoredEvent(cid, row["originator_version"], row["topic"], row["state"]) for row in cursor.fetchall()]

    def log_tail(self, name: str | None, last: int) -> tuple[Campaign | None, list[Logged]]:
        """The last `last` stored events and the campaign just before them (its snapshot and the events up to
        there): `log --last N` without reading the whole log. A log whose earlier part cannot be loaded gives
        (None, the whole log), read raw as `history` reads it."""
        cid = campaign_id(self.resolve_name(name))
        rows = self.recorder.select_events(cid, desc=True, limit=1)
        start = max(0, (rows[0].originator_version if rows else 0) - last)
        if start:
            try:
                before = self.rebuild(cid, start)
            except LedgerError:
                return None, self.history(name)
        with collector_paused():
            tail = [self.loader.logged(stored) for stored in self.recorder.select_events(cid, gt=start)]
        return (before if start else None), tail


def _on_postgres(recorder) -> bool:
    return type(recorder).__module__ in (store.PG_LIBRARY, store.PG_READER)  # ledger/store/pgstore.py, or the library's


def _runs(versions: list[int]) -> list[tuple[int, int]]:
    """Sorted versions as (first, last) runs of consecutive ones: [3, 4, 9] -> [(3, 4), (9, 9)]."""
    runs: list[tuple[int, int]] = []
    for v in versions:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs
