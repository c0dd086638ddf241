"""Which campaign a database holds, and `head` read from a SQLite file with sqlite3 and msgspec alone, or from
PostgreSQL through libpq (ledger/libpq.py): the event-sourcing library, psycopg and the rules are not loaded for a
command that reads one row. The application uses the same name rules (ledger/application.py); a store with a
cipher or compressor is read there."""

from __future__ import annotations

import gc
import hashlib
import os
import re
import sqlite3
from contextlib import contextmanager
from typing import Iterable
from uuid import UUID

from .chain import campaign_id, checked_fingerprint
from .envelope import decode_envelope, read_logged
from .errors import CampaignNotFound, DatabaseError, LedgerError
from .store import FORMAT, META_TABLE, check_sqlite, is_postgres


def started_names(started: Iterable[tuple[object, int, bytes]]) -> list[str]:
    """The campaigns of a database, from its CampaignStarted events (originator id, version, stored state) in
    order: a campaign is its log's first event, under the id its name gives; a CampaignStarted inside another
    campaign's log starts nothing (the audit names it)."""
    names = []
    for originator_id, version, state in started:
        fact = decode_envelope(state).fact
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


def sqlite_head(db: str, name: str | None) -> str | None:
    """The campaign's fingerprint (as CampaignLedger.head gives it, its last event's digest recomputed), or None
    when the database is not a plain SQLite file: then the application reads it."""
    if is_postgres(db) or not _plain_store():
        return None
    check_sqlite(db, create=False)
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            cid = campaign_id(name) if name is not None else None
            if cid is None or not conn.execute("SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1",
                                               (cid.hex,)).fetchone():
                cid = campaign_id(pick_name(name, started_names(conn.execute(
                    "SELECT originator_id, originator_version, state FROM stored_events "
                    "WHERE topic = 'CampaignStarted' ORDER BY rowid LIMIT 10000"))))
            row = conn.execute("SELECT originator_version, topic, state FROM stored_events WHERE originator_id = ? "
                               "ORDER BY originator_version DESC LIMIT 1", (cid.hex,)).fetchone()
        conn.close()
    except sqlite3.Error:
        return None  # e.g. a database that has no events table yet: the application says what it is
    return checked_fingerprint(cid, read_logged(*row))


@contextmanager
def _postgres(db: str, libraries: Iterable[str] | None):
    """query(sql, params) -> rows on the database `db`, through libpq (ledger/libpq.py) or, when no libpq loads,
    psycopg; $1, $2, ... are the parameters. A server error is a QueryError; an unreachable server a one-line
    DatabaseError, as the store gives it."""
    from . import libpq

    conn = libpq.connect(db, libraries)
    if conn is not None:
        with conn:
            yield conn.query
        return
    import psycopg

    from .store import postgres_env, redact

    env = postgres_env(db)
    try:
        pg = psycopg.connect(host=env["POSTGRES_HOST"], port=int(env["POSTGRES_PORT"]), dbname=env["POSTGRES_DBNAME"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], connect_timeout=10)
    except psycopg.Error as e:
        raise DatabaseError(f"cannot reach {redact(db)}: {str(e).strip().splitlines()[0]}") from None

    def query(sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return pg.execute(re.sub(r"\$\d+", "%s", sql), params).fetchall()
        except psycopg.Error as e:
            raise libpq.QueryError(str(e).strip().splitlines()[0], e.sqlstate or "") from None

    with pg:
        yield query


def _postgres_last(query, name: str | None) -> tuple[UUID, tuple[int, str, bytes]] | None:
    """The campaign's id and last stored row (version, topic, state) in a marked ledger; None when the database is
    not marked as one of this format (the application says what it is)."""
    if query(f"SELECT value FROM {META_TABLE} WHERE key = 'format'") != [(FORMAT,)]:
        return None
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
    as ledger/libpq.py `load` takes them), without the event-sourcing library. None when a cipher or compressor is
    set, or the database is not a marked ledger with its tables: then the application reads it and says what it is.
    An unreachable server is its one-line error. Trusts nothing more than the application's head does: the last
    event's digest is recomputed."""
    if not is_postgres(db) or not _plain_store():
        return None
    from .libpq import QueryError

    try:
        with _postgres(db, libraries) as query:
            last = _postgres_last(query, name)
    except QueryError:
        return None  # e.g. no events table yet
    return checked_fingerprint(last[0], read_logged(*last[1])) if last else None


def postgres_head_row(db: str, name: str | None, libraries: Iterable[str] | None = None) \
        -> tuple[UUID, int, str] | None:
    """The head of the campaign named (or the only one) in a PostgreSQL database, for the per-machine answer cache:
    (campaign id, version of its last event, SHA-256 hex of that event's stored state bytes). None where anything is
    unusual (not PostgreSQL, a cipher or compressor set, unreachable, not a marked ledger, no such campaign, no
    single campaign): the caller then takes the full path, which names the problem.

    Trusts the row as stored: it says whether the log changed since an answer was kept (a new event, or the last one
    rewritten, changes the triple), not whether the log is sound; that is the full path's check, which the cached
    answer must already have passed on this machine."""
    if not is_postgres(db) or not _plain_store():
        return None
    try:
        with _postgres(db, libraries) as query:
            last = _postgres_last(query, name)
    except LedgerError:  # a QueryError, an unreachable server, no such campaign
        return None
    if last is None:
        return None
    cid, (version, _topic, state) = last
    return cid, version, hashlib.sha256(state).hexdigest()


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
        if enabled:
            gc.enable()
