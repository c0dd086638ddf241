"""The PostgreSQL store read through libpq, written through the event-sourcing library ("PostgreSQL reads
within 1.3x SQLite's"): `import psycopg` and its pool cost more than a whole read on SQLite, and a read needs neither.

eventsourcing loads this module by PERSISTENCE_MODULE (`open_ledger` chooses it when libpq loads and no tables are
to be created). Its recorders answer the reads the application makes, `select_events` (events and snapshots tables),
`select_notifications` and `max_notification_id`, with the selections of eventsourcing.postgres's recorders (rows
packed into one value by the server: `Factory.select`) on one libpq connection (ledger/store/libpq.py) whose session is
read-only: the same rows in the same order, as the same StoredEvent and Notification values, and the library's error classes (ProgrammingError for a missing table, OperationalError for
a lost server, retried as the library retries; ledger/store/database.py `lost_connection` names the latter).

It hands over on the first write: `insert_events`, or anything else a recorder or the factory is asked for (the
datastore, for a transaction or a table lock; a subscription; a tracking or process recorder; creating tables).
The factory then builds the library's own PostgresFactory and recorders (psycopg is imported then), closes the libpq
connection, and every recorder hands every call to its library twin from then on: writes, and the reads after them,
behave exactly as eventsourcing.postgres's (concurrency, IntegrityError on a conflicting version).

Trusts nothing the library's recorders do not: it returns the rows as stored, and every check above them (digests,
signatures, snapshots) runs unchanged. A session set read-only means no statement sent here can write."""

from __future__ import annotations

import threading
from struct import Struct
from typing import Any, Callable, Sequence
from uuid import UUID

from eventsourcing.persistence import (AggregateRecorder, ApplicationRecorder, DatabaseError, DataError,
                                       InfrastructureFactory, IntegrityError, InterfaceError, InternalError,
                                       Notification, NotSupportedError, OperationalError, ProgrammingError,
                                       StoredEvent)
from eventsourcing.utils import retry, strtobool

from . import libpq
from .database import PG_LIBRARY as LIBRARY, PG_READER as MODULE

assert MODULE == __name__  # the name open_ledger gives the library (ledger/store/database.py), without importing this module

# The library's error class for a server error, by SQLSTATE class, as psycopg maps them (and eventsourcing wraps)
_ERRORS = {"08": OperationalError, "0A": NotSupportedError, "22": DataError, "23": IntegrityError,
           **dict.fromkeys(("10", "20", "21", "26", "34", "3D", "3F", "42", "44", "P0"), ProgrammingError),
           **dict.fromkeys(("24", "25", "2B", "2D", "XX"), InternalError),
           **dict.fromkeys(("27", "28", "2F", "38", "39", "3B", "40", "53", "54", "55", "57", "58", "F0", "HV"),
                           OperationalError)}


def _int8(value: bytes) -> int:
    return int.from_bytes(value, "big", signed=True)


def _text(value: bytes) -> str:
    return value.decode("utf-8")


def _uuid(value: bytes) -> UUID:
    return UUID(bytes=value)


_SIZE = Struct(">i")


def _unpacked(blob: bytes | None, decoders: Sequence[Callable[[bytes], Any]]) -> list[tuple]:
    """The rows of a packed read (see Factory.select): each value its length (-1: NULL) and its bytes."""
    rows: list[tuple] = []
    at, end, size_at = 0, len(blob or b""), _SIZE.unpack_from
    while at < end:
        row = []
        for decode in decoders:
            (size,) = size_at(blob, at)
            at += 4
            if size < 0:
                row.append(None)
            else:
                row.append(decode(blob[at:at + size]))
                at += size
        rows.append(tuple(row))
    return rows


class Factory(InfrastructureFactory):
    """The library's PostgresFactory's settings; recorders that read through libpq until the first write."""

    def __init__(self, env: Any):
        super().__init__(env)
        get = self.env.get
        self.settings = {key: get(key) or default for key, default in (
            ("POSTGRES_DBNAME", ""), ("POSTGRES_HOST", ""), ("POSTGRES_PORT", "5432"), ("POSTGRES_USER", ""),
            ("POSTGRES_PASSWORD", ""), ("POSTGRES_CONNECT_TIMEOUT", "30"))}
        self.schema = (get("POSTGRES_SCHEMA") or "").strip() or "public"
        self.prefix = self.env.name.lower() or "stored"
        uuid_ids = (get("ORIGINATOR_ID_TYPE") or "uuid").lower() == "uuid"
        self.fields = {  # column -> (its value as bytea, the Python value psycopg gives for it)
            "notification_id": ("int8send(notification_id)", _int8),
            "originator_id": ("uuid_send(originator_id)", _uuid) if uuid_ids else
            ("convert_to(originator_id, 'UTF8')", _text),
            "originator_version": ("int8send(originator_version)", _int8),
            "topic": ("convert_to(topic, 'UTF8')", _text), "state": ("state", bytes)}
        self.lock = threading.RLock()  # one libpq connection, and `serve` runs commands in threads
        self.conn: libpq.Connection | None = None
        self.library: Any = None  # the library's factory, from the first write on
        self.twins: dict[str, Any] = {}  # purpose -> the library's recorder
        self.lib = libpq.load()
        if self.lib is None or strtobool(get("CREATE_TABLE") or "yes") or get("POSTGRES_GET_PASSWORD_TOPIC") or \
                strtobool(get("POSTGRES_ENABLE_DB_FUNCTIONS") or "no"):
            self.hand_over()  # no libpq, or writing (tables), or settings only the library's pool knows

    # ---- the library, from the first write on
    def hand_over(self) -> Any:
        with self.lock:
            if self.library is None:
                from eventsourcing.postgres import PostgresFactory

                self.library = PostgresFactory(self.env)
                self._close_reader()
            return self.library

    def twin(self, purpose: str) -> Any:
        """The library's recorder for the table of `purpose` ('events': the application recorder)."""
        with self.lock:
            if purpose not in self.twins:
                library = self.hand_over()
                self.twins[purpose] = library.application_recorder() if purpose == "events" else \
                    library.aggregate_recorder(purpose)
            return self.twins[purpose]

    def application_recorder(self) -> ApplicationRecorder:
        return Events(self, "events")

    def aggregate_recorder(self, purpose: str = "events") -> AggregateRecorder:
        return Stored(self, purpose)

    def tracking_recorder(self, tracking_recorder_class: Any = None) -> Any:
        return self.hand_over().tracking_recorder(tracking_recorder_class)

    def process_recorder(self) -> Any:
        return self.hand_over().process_recorder()

    # ---- reads through libpq, until then
    def table(self, purpose: str) -> str:
        return f"{_quoted(self.schema)}.{_quoted(f'{self.prefix}_{purpose}')}"

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's recorders retry
    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple] | None:
        """The rows of a read, or None once the library has taken over (the caller asks its twin)."""
        with self.lock:
            if self.library is not None:
                return None
            try:
                if self.conn is None:
                    where = f"postgresql://{self.settings['POSTGRES_HOST']}:{self.settings['POSTGRES_PORT']}/" \
                            f"{self.settings['POSTGRES_DBNAME']}"
                    self.conn = libpq.Connection(self.lib, where, self.settings)
                    self.conn.query("SET default_transaction_read_only = on")
                return self.conn.query(sql, params)
            except libpq.ConnectionLost as e:
                self._close_reader()
                raise OperationalError(e.line()) from e
            except libpq.QueryError as e:
                raise _ERRORS.get(e.sqlstate[:2], DatabaseError)(e.line()) from e

    def select(self, columns: Sequence[str], source: str, order: str, params: Sequence[Any]) -> list[tuple] | None:
        """The rows of `source` (a SELECT of `columns`), in `order`, or None once the library has taken over. The
        server packs them into one bytea (each value length-prefixed), which is split here: one value through
        ctypes instead of four calls per cell (measured: 5,000 events' rows 134 ms cell by cell, 45 ms packed;
        psycopg 33 ms). One read is then at most 1 GB, PostgreSQL's limit for a value."""
        fields = [self.fields[column] for column in columns]
        record = " || ".join(f"int4send(coalesce(octet_length({value}), -1)) || coalesce({value}, ''::bytea)"
                             for value, _decode in fields)
        rows = self.rows(f"SELECT string_agg({record}, ''::bytea ORDER BY {order}) FROM ({source}) AS s", params)
        return None if rows is None else _unpacked(rows[0][0], [decode for _value, decode in fields])

    def _close_reader(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def close(self) -> None:
        with self.lock:
            self._close_reader()
            if self.library is not None:
                self.library.close()

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)
        if self.library is not None:
            self.library.__exit__(*exc)
        self.close()


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


class Stored(AggregateRecorder):
    """A table of stored events (the snapshots'), read through the factory's libpq connection, written by the
    library's recorder of the same table; anything else it is asked for is its library twin's (a handover)."""

    def __init__(self, factory: Factory, purpose: str):
        self.factory, self.purpose, self.table = factory, purpose, factory.table(purpose)

    def __getattr__(self, name: str) -> Any:  # datastore, lock statements, table names...: the library's
        if name.startswith("__") or name in ("factory", "purpose", "table"):
            raise AttributeError(name)
        return getattr(self.factory.twin(self.purpose), name)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        return self.factory.twin(self.purpose).insert_events(stored_events, **kwargs)

    def select_events(self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        params: list[Any] = [originator_id]
        columns = ("originator_id", "originator_version", "topic", "state")
        sql = f"SELECT {', '.join(columns)} FROM {self.table} WHERE originator_id = $1"
        for value, condition in ((gt, "originator_version >"), (lte, "originator_version <=")):
            if value is not None:
                params.append(value)
                sql += f" AND {condition} ${len(params)}"
        order = f"originator_version {'DESC' if desc else 'ASC'}"
        sql += f" ORDER BY {order}"
        if limit is not None:
            params.append(limit)
            sql += f" LIMIT ${len(params)}"
        rows = self.factory.select(columns, sql, order, params)
        if rows is None:
            return self.factory.twin(self.purpose).select_events(originator_id, gt=gt, lte=lte, desc=desc,
                                                                 limit=limit)
        return [StoredEvent(originator_id=i, originator_version=v, topic=t, state=s) for i, v, t, s in rows]


class Events(Stored, ApplicationRecorder):
    """The application's events table: also its notifications, in notification id order."""

    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *, inclusive_of_start: bool = True) -> Sequence[Notification]:
        params: list[Any] = []
        where = []
        if start is not None:
            params.append(start)
            where.append(f"notification_id {'>=' if inclusive_of_start else '>'} $1")
        if stop is not None:
            params.append(stop)
            where.append(f"notification_id <= ${len(params)}")
        if topics:
            assert isinstance(topics, (tuple, list)) and all(isinstance(t, str) for t in topics), topics
            params.extend(topics)
            first = len(params) - len(topics) + 1
            where.append(f"topic IN ({', '.join(f'${n}' for n in range(first, len(params) + 1))})")  # = ANY(topics)
        params.append(limit)
        columns = ("notification_id", "originator_id", "originator_version", "topic", "state")
        sql = f"SELECT {', '.join(columns)} FROM {self.table}" + \
            (f" WHERE {' AND '.join(where)}" if where else "") + f" ORDER BY notification_id LIMIT ${len(params)}"
        rows = self.factory.select(columns, sql, "notification_id", params)
        if rows is None:
            return self.factory.twin(self.purpose).select_notifications(
                start, limit, stop, topics, inclusive_of_start=inclusive_of_start)
        return [Notification(id=n, originator_id=i, originator_version=v, topic=t, state=s) for n, i, v, t, s in rows]

    def max_notification_id(self) -> int | None:
        rows = self.factory.rows(f"SELECT MAX(notification_id) FROM {self.table}", ())
        return self.factory.twin(self.purpose).max_notification_id() if rows is None else rows[0][0]

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        return self.factory.twin(self.purpose).subscribe(gt, topics)
