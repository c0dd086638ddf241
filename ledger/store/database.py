"""Opening a campaign database: the SQLite default, checked before eventsourcing touches it."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from ..errors import DatabaseError
from .pgurl import is_postgres, postgres_env, redact  # noqa: F401 - the store's names, kept here too

DEFAULT_DB = "campaign.db"
META_TABLE = "cgledger_meta"
FORMAT = "1"
SNAPSHOT_INTERVAL = 100  # a snapshot of the campaign every 100 events (ledger/store/eventstore.py; `import` too)
PG_LIBRARY = "eventsourcing.postgres"  # the library's PostgreSQL persistence module
PG_READER = "cgledger.ledger.store.pgstore"  # ours: reads through libpq until the first write (ledger/store/pgstore.py)


def postgres_persistence(create: bool) -> str:
    """The persistence module for a PostgreSQL ledger: ledger/store/pgstore.py when libpq loads, unless tables are to be
    created (a write from the start); the library's otherwise. Chosen without importing either, and by default
    without loading libpq here (pgstore loads it when it first reads): should it not load, pgstore hands over to the
    library at once. CGLEDGER_LIBPQ set names the libpq to load: loaded here."""
    if create:
        return PG_LIBRARY
    if "CGLEDGER_LIBPQ" not in os.environ:
        return PG_READER
    from .libpq import load

    return PG_READER if load() is not None else PG_LIBRARY


_SQLITE_HEADER = b"SQLite format 3\x00"


def resolve_db(db: str | None) -> str:
    return db or os.environ.get("CGLEDGER_DB") or DEFAULT_DB


def local_name(db: str) -> str:
    """The database as this machine names it: the key of the heads it saw, its mark, views and answers (a file's
    real path; a PostgreSQL URL without its password)."""
    return redact(db) if is_postgres(db) else os.path.realpath(db)


def check_postgres(url: str, create: bool) -> None:
    """The PostgreSQL counterpart of check_sqlite: reachable, and a ledger (marked) unless creating one. Only
    reading (not creating), it reads through libpq (psycopg when no libpq loads: ledger/store/libpq.py `session`)."""
    if not create:
        _check_marked(url)
        return
    import psycopg

    env = postgres_env(url)
    try:
        with psycopg.connect(host=env["POSTGRES_HOST"], port=int(env["POSTGRES_PORT"]), dbname=env["POSTGRES_DBNAME"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], connect_timeout=10) as conn:
            marked = conn.execute("SELECT to_regclass(%s)", (META_TABLE,)).fetchone()[0]
            if marked is None:
                if not create:
                    raise DatabaseError(f"{redact(url)} holds no campaign ledger: start one with `cgledger new NAME "
                                        "--system kgp --cg I`")
                others = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                                      "'public'").fetchone()[0]
                if others:
                    raise DatabaseError(f"{redact(url)} holds other tables but no campaign ledger: refusing to touch it")
                conn.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                conn.execute(f"INSERT INTO {META_TABLE} VALUES ('format', %s) ON CONFLICT DO NOTHING", (FORMAT,))
                return
            row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = 'format'").fetchone()
            if not row or row[0] != FORMAT:
                raise DatabaseError(f"{redact(url)} is a campaign ledger of an unknown format {row and row[0]!r}")
    except psycopg.Error as e:
        raise DatabaseError(f"cannot reach {redact(url)}: {str(e).strip().splitlines()[0]}") from None


def _check_marked(url: str) -> None:
    from .libpq import ConnectionLost, QueryError, session

    with session(url, None) as query:  # an unreachable server: its one line, "cannot reach ..."
        try:
            marked = query("SELECT to_regclass($1)::text", (META_TABLE,))[0][0]
            row = query(f"SELECT value FROM {META_TABLE} WHERE key = 'format'") if marked else None
        except (QueryError, ConnectionLost) as e:
            raise DatabaseError(f"cannot reach {redact(url)}: {e.line()}") from None
    if marked is None:
        raise DatabaseError(f"{redact(url)} holds no campaign ledger: start one with `cgledger new NAME "
                            "--system kgp --cg I`")
    if not row or row[0][0] != FORMAT:
        raise DatabaseError(f"{redact(url)} is a campaign ledger of an unknown format {row and row[0][0]!r}")


def holds_ledger(db: str) -> bool:
    """Whether the database is there and marked as a ledger (nothing is created to find out)."""
    if not is_postgres(db):
        return Path(db).exists() and Path(db).stat().st_size > 0
    try:
        check_postgres(db, create=False)
    except DatabaseError:
        return False
    return True


def check_sqlite(path: str, create: bool) -> None:
    """Refuses a missing (unless creating), corrupt or foreign file before anything is written."""
    file = Path(path)
    if not file.exists() or file.stat().st_size == 0:
        if not create:
            raise DatabaseError(
                f"no campaign database at {path}: start one with `cgledger new NAME --system kgp --cg I`"
                " (or pass --db PATH, or set CGLEDGER_DB)"
            )
        if not file.parent.exists():
            raise DatabaseError(f"cannot create {path}: folder {file.parent} does not exist")
        _mark(path)
        return
    if file.is_dir():
        raise DatabaseError(f"{path} is a folder, not a campaign database")
    with open(file, "rb") as handle:
        if handle.read(16) != _SQLITE_HEADER:
            raise DatabaseError(f"{path} is not a SQLite database (corrupt, or not a campaign ledger)")
    try:
        with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as conn:
            row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key='format'").fetchone()
    except sqlite3.DatabaseError as e:
        if "no such table" in str(e):
            raise DatabaseError(f"{path} is a SQLite database but not a campaign ledger: refusing to touch it") from None
        raise DatabaseError(f"{path} cannot be read as a campaign ledger: {e}") from None
    if not row or row[0] != FORMAT:
        raise DatabaseError(f"{path} is a campaign ledger of an unknown format {row and row[0]!r}")


def _mark(path: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(f"INSERT OR IGNORE INTO {META_TABLE} VALUES ('format', ?)", (FORMAT,))
    conn.close()


def index_topics(db: str) -> None:
    """Listing a database's campaigns filters on the event topic: index it (measured: a full
    scan cost 3 ms per command at 20,000 events). Only an index; the events are untouched."""
    if is_postgres(db):
        import psycopg

        env = postgres_env(db)
        with psycopg.connect(host=env["POSTGRES_HOST"], port=int(env["POSTGRES_PORT"]), dbname=env["POSTGRES_DBNAME"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"]) as conn:
            conn.execute("CREATE INDEX IF NOT EXISTS cgledger_topic ON cgledger_events (topic)")
        return
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE INDEX IF NOT EXISTS cgledger_topic ON stored_events (topic)")
    conn.close()


def lost_connection(exc: BaseException) -> str | None:
    """The problem, in one line, if `exc` is a lost or unusable PostgreSQL connection (closed or terminated by
    the server, unreachable, the pool timed out waiting for one), whether psycopg raised it or eventsourcing
    wrapped it; None for anything else. Whether a write in flight was committed is then unknown."""
    psycopg, libpq = sys.modules.get("psycopg"), sys.modules.get(f"{__package__}.libpq")  # loaded if opened
    if psycopg is None and libpq is None:
        return None
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        text = (str(error).strip().splitlines() or [type(error).__name__])[0].strip()
        if libpq is not None and isinstance(error, libpq.ConnectionLost):  # ledger/store/pgstore.py's reads
            return text
        if psycopg is not None and isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
            return text
        if psycopg is not None and isinstance(error, psycopg.Error) and "connection" in text and any(
                word in text for word in ("closed", "lost", "terminat", "broken")):
            return text
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return None
