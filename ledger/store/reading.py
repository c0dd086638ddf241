"""Which campaign a database holds, and `head` read from a SQLite file with sqlite3 and msgspec alone, or from
PostgreSQL through libpq (ledger/store/libpq.py): the event-sourcing library, psycopg and the rules are not loaded for a
command that reads one row. The application uses the same name rules (ledger/application.py); a store with a
cipher or compressor is read there. `stored_head` reads the campaign's last stored row without decoding any event
(SQLite: sqlite3 alone, not even msgspec): the key of the answers kept per log head (ledger/read/answers.py)."""

from __future__ import annotations

import gc
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from struct import Struct
from typing import Iterable, NamedTuple
from uuid import NAMESPACE_URL, UUID

from ..errors import CampaignNotFound, DatabaseError, LedgerError
from ..sha import sha256, uuid5
from .database import FORMAT, META_TABLE, check_sqlite, is_postgres


def started_names(started: Iterable[tuple[object, int, bytes]]) -> list[str]:
    """The campaigns of a database, from its CampaignStarted events (originator id, version, stored state) in
    order: a campaign is its log's first event, under the id its name gives; a CampaignStarted inside another
    campaign's log starts nothing (the audit names it)."""
    from ..trust.chain import campaign_id
    from ..trust.envelope import decode_envelope

    names = []
    for originator_id, version, state in started:
        try:
            fact = decode_envelope(state).fact
        except Exception as e:  # noqa: BLE001 - not an event as this ledger stores one: damaged, or stored enciphered
            raise DatabaseError(f"the stored start of a campaign (its event {version}) cannot be read ({e}): the "
                                "database is damaged, or was written with a cipher or compressor set") from None
        if version == 1 and str(originator_id).replace("-", "") == campaign_id(fact.name).hex and fact.name not in names:
            names.append(fact.name)
    return names


def pick_name(name: str | None, names: list[str]) -> str:
    """The campaign's name: the one given if the database holds it, or the only one in the database."""
    if name is None:
        if not names:
            raise CampaignNotFound("this database holds no campaign: `cgledger new NAME --system kgp --cg I`")
        if len(names) > 1:
            raise CampaignNotFound(f"this database holds several campaigns ({', '.join(names)}): pick one with --campaign")
        name = names[0]
    if name not in names:
        raise CampaignNotFound(f"no campaign '{name}' in this database (campaigns: {', '.join(names) or 'none'})")
    return name


def _plain_store() -> bool:
    """Whether events are stored as the mapper writes them (no cipher or compressor set in the environment)."""
    return not any(key.endswith(("CIPHER_TOPIC", "COMPRESSOR_TOPIC", "MAPPER_TOPIC", "PERSISTENCE_MODULE"))
                   for key in os.environ)


class StoredRow(NamedTuple):
    """A stored event or snapshot row, as the library's recorders give it (its StoredEvent's attributes)."""
    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes


class SqliteRows:
    """A plain SQLite ledger read with sqlite3 alone (ledger/application.py reads through it until a command records):
    `select_events` answers as the library's SQLite recorder does, on the events table or `snapshots`' table, with
    the same rows; `started` the CampaignStarted rows. One read-only connection per thread, opened at first use."""

    cipher = compressor = None  # the mapper's settings (`decode_state`): a plain store has neither

    def __init__(self, db: str, table: str = "stored_events"):
        from _thread import _local  # threading.local itself, without importing threading in every read

        self.db, self.table = db, table
        self._local = _local()
        self._opened: list[sqlite3.Connection] = []
        self.snapshots = self if table == "stored_snapshots" else SqliteRows(db, "stored_snapshots")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(f"{Path(self.db).absolute().as_uri()}?mode=ro", uri=True,
                                                      check_same_thread=False)
            self._opened.append(conn)
        return conn

    def _rows(self, sql: str, params: list) -> list:
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return []  # a ledger no command has recorded in yet
            raise LedgerError(f"cannot read {self.db}: {e}") from None
        except sqlite3.DatabaseError as e:
            raise LedgerError(f"cannot read {self.db}: {e}") from None

    def select_events(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> list[StoredRow]:
        if desc and limit == 1 and gt is None and self.table == "stored_snapshots":
            handed = _hand_over(self.db, originator_id, lte)
            if handed is not None:
                return [handed]
        return [StoredRow(originator_id, version, topic, state)
                for version, topic, state in self.plain_rows(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)]

    def plain_rows(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
                   limit: int | None = None) -> list[tuple[int, str, bytes]]:
        """`select_events`' rows as (version, topic, stored bytes): no StoredRow made per row (a whole-log read)."""
        sql = f"SELECT originator_version, topic, state FROM {self.table} WHERE originator_id = ? "
        params: list = [originator_id.hex]
        if gt is not None:
            sql += "AND originator_version > ? "
            params.append(gt)
        if lte is not None:
            sql += "AND originator_version <= ? "
            params.append(lte)
        sql += "ORDER BY originator_version DESC " if desc else "ORDER BY originator_version "
        if limit is not None:
            sql += "LIMIT ?"
            params.append(limit)
        return self._rows(sql, params)

    def started(self) -> list[tuple[UUID, int, bytes]]:
        """(campaign id, version, stored state) of every CampaignStarted row, in the order stored."""
        return [(UUID(cid), version, state) for cid, version, state in self._rows(
            "SELECT originator_id, originator_version, state FROM stored_events WHERE topic = 'CampaignStarted' "
            "ORDER BY rowid LIMIT 10000", [])]

    def decode_state(self, stored) -> bytes:
        return stored.state

    def close(self) -> None:
        for conn in self._opened:
            conn.close()
        self._opened.clear()
        self._local = type(self._local)()
        if self.snapshots is not self:
            self.snapshots.close()


# each stored row packed by the server into one value: its version (8 bytes), its topic's length (4) and bytes, then
# its state; `_cut` takes it apart by those lengths (no content can shift a cut)
_PACKED = "int8send(originator_version) || int4send(octet_length(topic)) || convert_to(topic, 'UTF8') || state"


_PACKED_HEAD = Struct(">qI")  # a `_PACKED` value's version and its topic's length


def _cut(value: bytes | None) -> tuple[int, str, bytes] | None:
    """(version, topic, state) of a `_PACKED` value, or None when it does not add up."""
    if value is None or len(value) < 12:
        return None
    version, size = _PACKED_HEAD.unpack_from(value)
    if len(value) < 12 + size:
        return None
    return version, value[12:12 + size].decode("utf-8"), value[12 + size:]


class PostgresRows:
    """`SqliteRows` of a PostgreSQL ledger: through libpq (ledger/store/libpq.py, this thread's shared connection), each
    row packed by the server into one value (its version, its topic's length and bytes, its state), cut apart here by
    those lengths, as `postgres_entries` reads them: the same rows as the library's recorders (eventsourcing.postgres,
    ledger/store/pgstore.py) give."""

    cipher = compressor = None

    def __init__(self, db: str, table: str = "cgledger_events"):
        self.db, self.table = db, table
        self.snapshots = self if table == "cgledger_snapshots" else PostgresRows(db, "cgledger_snapshots")

    def _read(self, read: str, sql: str, params: tuple) -> list:
        from .libpq import QueryError, session

        try:
            with session(self.db) as query:
                if read != "blobs":
                    return query(sql, params)
                blobs = getattr(query, "blobs", None)  # psycopg's session (no libpq loaded): a bytea's bytes
                return blobs(sql, params) if blobs is not None else [row[0] for row in query(sql, params)]
        except QueryError as e:
            if e.sqlstate == "42P01":  # no such table: a ledger no command has recorded in yet
                return []
            raise

    def select_events(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> list[StoredRow]:
        return [StoredRow(originator_id, *row)
                for row in self.plain_rows(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)]

    def plain_rows(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
                   limit: int | None = None) -> list[tuple[int, str, bytes]]:
        """`select_events`' rows as (version, topic, stored bytes)."""
        sql = f"SELECT {_PACKED} FROM {self.table} WHERE originator_id = $1 "
        params: list = [originator_id]
        for clause, value in (("AND originator_version > ${} ", gt), ("AND originator_version <= ${} ", lte)):
            if value is not None:
                params.append(value)
                sql += clause.format(len(params))
        sql += "ORDER BY originator_version DESC " if desc else "ORDER BY originator_version "
        if limit is not None:
            params.append(limit)
            sql += f"LIMIT ${len(params)}"
        rows = []
        for value in self._read("blobs", sql, tuple(params)):
            row = _cut(value)
            if row is None:
                raise LedgerError(f"a stored row of {self.table} cannot be read: its packed value does not add up")
            rows.append(row)
        return rows

    def started(self) -> list[tuple[UUID, int, bytes]]:
        return self._read("query", "SELECT originator_id, originator_version, state FROM cgledger_events "
                                   "WHERE topic = 'CampaignStarted' ORDER BY notification_id LIMIT 10000", ())

    def decode_state(self, stored) -> bytes:
        return stored.state

    def close(self) -> None:
        """Nothing of its own: the thread's shared connection is the process's (libpq.shared)."""


def light_rows(db: str) -> SqliteRows | PostgresRows | None:
    """The reader of a plain ledger (no cipher, compressor or other mapper, table schema or id type set), else None:
    the library then reads it. PostgreSQL needs libpq (without it: psycopg, through the library)."""
    if not _plain_store():
        return None
    if not is_postgres(db):
        return SqliteRows(db)
    from .libpq import light

    settings = ("POSTGRES_SCHEMA", "ORIGINATOR_ID_TYPE", "POSTGRES_GET_PASSWORD_TOPIC")
    return PostgresRows(db) if not any(os.environ.get(k) for k in settings) and light(db) else None


def sqlite_head(db: str, name: str | None) -> str | None:
    """The campaign's fingerprint (as `verification.head` gives it, its last event's digest recomputed), or None
    when the database is not a plain SQLite file: then the application reads it."""
    if is_postgres(db) or not _plain_store():
        return None
    from ..trust.chain import checked_fingerprint
    from ..trust.envelope import read_logged

    check_sqlite(db, create=False)
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            cid = _sqlite_campaign(conn, name)
            row = conn.execute("SELECT originator_version, topic, state FROM stored_events WHERE originator_id = ? "
                               "ORDER BY originator_version DESC LIMIT 1", (cid.hex,)).fetchone()
        conn.close()
    except sqlite3.Error:
        return None  # e.g. a database that has no events table yet: the application says what it is
    return checked_fingerprint(cid, read_logged(*row))


def _sqlite_campaign(conn: sqlite3.Connection, name: str | None) -> UUID:
    """The campaign's id as CampaignLedger.resolve_name finds it: the name given if its log has a row, else
    pick_name among the campaigns started (its one-line error when none or several fit)."""
    from ..trust.chain import campaign_id

    cid = campaign_id(name) if name is not None else None
    if cid is None or not conn.execute("SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1",
                                       (cid.hex,)).fetchone():
        cid = campaign_id(pick_name(name, started_names(conn.execute(
            "SELECT originator_id, originator_version, state FROM stored_events "
            "WHERE topic = 'CampaignStarted' ORDER BY rowid LIMIT 10000"))))
    return cid


def sqlite_entries(db: str, name: str | None, page: int = 2000) -> list | None:
    """Every stored event of the campaign as ledger/envelope.read_entries gives it, read from a plain SQLite file
    with sqlite3 and msgspec alone (`log --json` loads neither the event-sourcing library nor the campaign, issue
    24), `page` rows per SELECT; None when the application must read it (PostgreSQL, a cipher or compressor, a
    file without events table yet: it says what is wrong). Trusts nothing the application's `history` does not:
    the same rows (the campaign's, by version), each decoded and checked against its topic as read_logged does; a
    missing or foreign file gets the application's own one-line error (check_sqlite)."""
    if is_postgres(db) or not _plain_store():
        return None
    from ..trust.envelope import read_entries

    check_sqlite(db, create=False)
    entries: list = []
    select = "SELECT originator_version, topic, state FROM stored_events WHERE originator_id = ? "
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            with collector_paused():
                cid = _sqlite_campaign(conn, name).hex
                rows = conn.execute(select + "ORDER BY originator_version LIMIT ?", (cid, page)).fetchall()
                while True:  # a page at a time, as `history` reads (its first page with no lower bound, as there)
                    entries += read_entries(rows)
                    if len(rows) < page:
                        return hold(entries)
                    rows = conn.execute(select + "AND originator_version > ? ORDER BY originator_version LIMIT ?",
                                        (cid, rows[-1][0], page)).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def stored_entries(db: str, name: str | None) -> list | None:
    """`sqlite_entries` or `postgres_entries`, as the database is: None when the application must read it."""
    return postgres_entries(db, name) if is_postgres(db) else sqlite_entries(db, name)


def postgres_entries(db: str, name: str | None, libraries: Iterable[str] | None = None) -> list | None:
    """`sqlite_entries` of a PostgreSQL ledger: through libpq (this thread's shared connection), without the
    event-sourcing library (no libpq: None, and the application reads through psycopg). Each of the campaign's rows
    `_PACKED` by the server, `_cut` apart here and put in version order here (the server's sort of a whole log
    spills to disk: measured 14 ms of 36 at 5,000 events). A row that does not add up is the application's to read.
    None as `sqlite_entries` gives it."""
    if not is_postgres(db) or not _plain_store():
        return None
    from ..trust.envelope import read_entries
    from .libpq import QueryError, session

    try:
        with session(db, libraries) as query:
            if not getattr(query, "blobs", None):
                return None  # psycopg: the application reads
            last = _postgres_last(query, name)
            if last is None:
                return None
            packed = query.blobs(f"SELECT {_PACKED} FROM cgledger_events WHERE originator_id = $1", (last[0],))
    except QueryError:
        return None
    rows = []
    with collector_paused():
        for value in packed:
            row = _cut(value)
            if row is None:
                return None
            rows.append(row)
        rows.sort(key=_version)
        return hold(read_entries(rows))


def _version(row: tuple) -> int:
    return row[0]


def _postgres_last(query, name: str | None) -> tuple[UUID, tuple[int, str, bytes]] | None:
    """The campaign's id and last stored row (version, topic, state) in a marked ledger; None when the database is
    not marked as one of this format (the application says what it is)."""
    if query(f"SELECT value FROM {META_TABLE} WHERE key = 'format'") != [(FORMAT,)]:
        return None
    from ..trust.chain import campaign_id

    cid = campaign_id(name) if name is not None else None
    if cid is None or not query("SELECT 1 FROM cgledger_events WHERE originator_id = $1 LIMIT 1", (cid,)):
        cid = campaign_id(pick_name(name, started_names(query(
            "SELECT originator_id, originator_version, state FROM cgledger_events "
            "WHERE topic = 'CampaignStarted' ORDER BY notification_id LIMIT 10000"))))
    rows = query("SELECT originator_version, topic, state FROM cgledger_events WHERE originator_id = $1 "
                 "ORDER BY originator_version DESC LIMIT 1", (cid,))
    return (cid, rows[0]) if rows else None


def postgres_head(db: str, name: str | None, libraries: Iterable[str] | None = None) -> str | None:
    """`sqlite_head` for a PostgreSQL database: a few queries through libpq (psycopg when no libpq loads; `libraries`
    as ledger/store/libpq.py `load` takes them), without the event-sourcing library. None when a cipher or compressor is
    set, or the database is not a marked ledger with its tables: then the application reads it and says what it is.
    An unreachable server is its one-line error. Trusts nothing more than the application's head does: the last
    event's digest is recomputed."""
    if not is_postgres(db) or not _plain_store():
        return None
    from .libpq import QueryError, session

    try:
        with session(db, libraries) as query:
            last = _postgres_last(query, name)
    except QueryError:
        return None  # e.g. no events table yet
    from ..trust.chain import checked_fingerprint
    from ..trust.envelope import read_logged

    return checked_fingerprint(last[0], read_logged(*last[1])) if last else None


class StoredHead(NamedTuple):
    """The campaign's last stored row as stored: what an answer kept for this log is keyed by."""
    cid: UUID
    version: int
    row: str  # SHA-256 of that row's version, topic and stored bytes: any change to the row changes it
    campaigns: str  # SHA-256 of every CampaignStarted row (id, version, bytes): which campaign "the only one" is
    snapshot: str  # SHA-256 of the campaign's last snapshot row, which a read starts from ("" if none)


def stored_head(db: str, name: str | None, snapshot: bool = True) -> StoredHead | None:
    """The last stored row of the campaign named (or of the only campaign started), read with sqlite3 (PostgreSQL:
    `_postgres_rows`) without decoding any event; None where anything is unusual (no such file or campaign, several
    campaigns and none named, a cipher or compressor set): then no answer is kept or used. `snapshot` False: the
    last snapshot is not read (its digest is "")."""
    if not _plain_store():
        return None
    if is_postgres(db):
        return _postgres_rows(db, name, snapshot)
    if not os.path.isfile(db):
        return None
    try:
        conn = sqlite3.connect(f"{Path(db).absolute().as_uri()}?mode=ro", uri=True)

        def last_snapshot(cid):
            if not snapshot:
                return None
            try:
                row = conn.execute("SELECT originator_version, topic, state FROM stored_snapshots "
                                   "WHERE originator_id = ? ORDER BY originator_version DESC LIMIT 1",
                                   (cid.hex,)).fetchone()
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):
                    return None
                raise
            if row is None:
                return None
            if _held is not None:  # a one-shot read: the load that follows starts from this row (_hand_over)
                _handed[:] = [(os.path.abspath(db), cid, StoredRow(cid, *row))]
            return row[0], row[2]

        try:
            return _head_of(conn.execute("SELECT originator_id, originator_version, state FROM stored_events "
                                         "WHERE topic = 'CampaignStarted' ORDER BY rowid").fetchall(), name,
                            lambda cid: conn.execute("SELECT originator_version, topic, state FROM stored_events "
                                                     "WHERE originator_id = ? ORDER BY originator_version DESC LIMIT 1",
                                                     (cid.hex,)).fetchone(), last_snapshot)
        finally:
            conn.close()
    except (sqlite3.Error, ValueError):
        return None


def _postgres_rows(db: str, name: str | None, snapshot: bool = True) -> StoredHead | None:
    """`stored_head` of a PostgreSQL database: one connection through libpq (psycopg when no libpq loads), the same
    rows as SQLite's."""
    from .libpq import session

    try:
        with session(db, None) as query:
            if query(f"SELECT value FROM {META_TABLE} WHERE key = 'format'") != [(FORMAT,)]:
                return None  # not a marked ledger: the full path says what it is

            def one(sql: str, cid) -> tuple | None:
                found = query(sql, (cid,))
                return found[0] if found else None

            return _head_of(query("SELECT originator_id, originator_version, state FROM cgledger_events "
                                  "WHERE topic = 'CampaignStarted' ORDER BY notification_id"), name,
                            lambda cid: one("SELECT originator_version, topic, state FROM cgledger_events "
                                            "WHERE originator_id = $1 ORDER BY originator_version DESC LIMIT 1", cid),
                            lambda cid: one("SELECT originator_version, state FROM cgledger_snapshots WHERE "
                                            "originator_id = $1 ORDER BY originator_version DESC LIMIT 1", cid)
                            if snapshot else None)
    except (LedgerError, ValueError):  # a QueryError (no such table), an unreachable server
        return None


def _head_of(started: list, name: str | None, last_row, last_snapshot) -> StoredHead | None:
    campaigns = sha256()
    for originator_id, version, state in started:
        campaigns.update(f"{originator_id}\x00{version}\x00{sha256(bytes(state)).hexdigest()}\x00".encode())
    if name is not None:
        cid = uuid5(NAMESPACE_URL, f"cgledger:campaign:{name}")  # as chain.campaign_id (not imported: msgspec)
    else:
        firsts = {str(originator_id) for originator_id, version, _state in started if version == 1}
        if len(firsts) != 1:
            return None  # no campaign or several: the full path says which
        cid = UUID(firsts.pop())
    row = last_row(cid)
    if row is None:
        return None
    version, topic, state = row
    digest = sha256(f"{version}\x00{topic}\x00".encode() + bytes(state)).hexdigest()
    snap = last_snapshot(cid)
    snapshot = _snapshot_digest(int(snap[0]), bytes(snap[1])) if snap else ""
    return StoredHead(cid, int(version), digest, campaigns.hexdigest(), snapshot)


_last_snapshot: list = [(None, b"", "")]  # the last snapshot hashed: `serve` asks for it again read after read


def _snapshot_digest(version: int, state: bytes) -> str:
    """The digest of a stored snapshot row; the same bytes as last time are not hashed again (compared: a snapshot of
    a long CG Date is large)."""
    last = _last_snapshot[0]  # one tuple: threads (`serve`) each see a whole one
    if last[0] != version or last[1] != state:
        last = _last_snapshot[0] = version, state, sha256(f"{version}\x00".encode() + state).hexdigest()
    return last[2]


_held: list | None = None  # a one-shot command's whole-log reads, never freed: its process ends without freeing them
_handed: list = []  # [(database path, campaign id, its last snapshot row)] that stored_head read, once


def _hand_over(db: str, cid: UUID, lte: int | None) -> StoredRow | None:
    """The campaign's last snapshot row as stored_head just read it from a SQLite file (the answer's key holds its
    digest), for the campaign's load in the same one-shot read: a 0.9 MB snapshot is not read twice. Given once. A row a
    write has since outdone is still a snapshot of this log (events are never changed): the load checks its seal
    and the event it summarizes as it checks one it reads, and replays the events after it."""
    if not _handed:
        return None
    where, campaign, row = _handed.pop()
    if where != os.path.abspath(db) or campaign != cid or (lte is not None and row.originator_version > lte):
        return None
    return row


def one_shot() -> None:
    """This process runs one command and ends by os._exit (cli/quick.py), so it frees nothing it read:
    - what `hold` is given stays until then: freeing a read log costs ~1-1.5 ms per 1,000 events (every event's
      fact, one object at a time: 20-30 ms at 20,000);
    - the cyclic garbage collector stays off: switched back on after a read (collector_paused), its first collection
      walks every object the read made (~35 ms at 20,000 events).
    Never in a process that serves (`serve`) or runs more than one command."""
    global _held
    if _held is None:
        _held = []
    gc.disable()


def is_one_shot() -> bool:
    return _held is not None


def hold(value):
    """`value`, kept alive until a one-shot process ends (nothing kept in any other)."""
    if _held is not None:
        _held.append(value)
    return value


@contextmanager
def collector_paused():
    """The cyclic garbage collector switched off while a log is read: a replay keeps every object it makes, so
    each collection walks all of them again (measured: reads grew faster than linear past 10k events; with the
    collector off, flat per event). Plain reference counting still frees what is dropped; the collector's state
    before is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled and _held is None:  # a one-shot process keeps it off (one_shot)
            gc.enable()
