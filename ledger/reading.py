"""Which campaign a database holds, and `head` read from a SQLite file with sqlite3 and msgspec alone: the event-
sourcing library and the rules are not loaded for a command that reads one row. The application uses the same
name rules (ledger/application.py); a PostgreSQL database, or a store with a cipher or compressor, is read there."""

from __future__ import annotations

import gc
import os
import sqlite3
from contextlib import contextmanager
from typing import Iterable

from .chain import campaign_id, checked_fingerprint
from .envelope import decode_envelope, read_logged
from .errors import CampaignNotFound
from .store import check_sqlite, is_postgres


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


def postgres_head(db: str, name: str | None) -> str | None:
    """`sqlite_head` for a PostgreSQL database: one query with psycopg, without the event-sourcing library (None when
    a cipher or compressor is set, or the tables are not there: then the application reads it)."""
    if not is_postgres(db) or not _plain_store():
        return None
    import psycopg

    from .store import check_postgres, postgres_env

    check_postgres(db, create=False)
    env = postgres_env(db)
    try:
        with psycopg.connect(host=env["POSTGRES_HOST"], port=int(env["POSTGRES_PORT"]), dbname=env["POSTGRES_DBNAME"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], connect_timeout=10) as conn:
            cid = campaign_id(name) if name is not None else None
            if cid is None or not conn.execute("SELECT 1 FROM cgledger_events WHERE originator_id = %s LIMIT 1",
                                               (cid,)).fetchone():
                cid = campaign_id(pick_name(name, started_names(conn.execute(
                    "SELECT originator_id, originator_version, state FROM cgledger_events "
                    "WHERE topic = 'CampaignStarted' ORDER BY notification_id LIMIT 10000"))))
            row = conn.execute("SELECT originator_version, topic, state FROM cgledger_events WHERE originator_id = %s "
                               "ORDER BY originator_version DESC LIMIT 1", (cid,)).fetchone()
    except psycopg.Error:
        return None
    return checked_fingerprint(cid, read_logged(*row)) if row else None


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
