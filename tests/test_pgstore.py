"""ledger/store/pgstore.py, the persistence module that reads PostgreSQL through libpq and writes through the library's own
recorders ("PostgreSQL reads within 1.3x SQLite's"): the same answers as eventsourcing.postgres, the same
writes, no psycopg for a keyless read, one line when the server goes away. Run with --backend postgres --pg-url URL
(.ci/postgres). CGLEDGER_LIBPQ names a library that does not load to get the library's module, as without libpq."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from eventsourcing.persistence import Notification, ProgrammingError, StoredEvent
from freezegun import freeze_time

import conftest
from conftest import Cli, Player, pg_create, pg_drop, pg_name, sql
from test_server import Cutter, one_error_line

from cgledger.cli import app
from cgledger.ledger.application import open_ledger
from cgledger.ledger.trust.chain import campaign_id
from cgledger.ledger.store.reading import PostgresRows
from cgledger.ledger.errors import DatabaseError
from cgledger.ledger.store.database import check_postgres, lost_connection

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from bench_cli import READS  # noqa: E402 - the read commands the bench times

NOWHERE = "libpq-not-installed-here.so.5"  # CGLEDGER_LIBPQ: no libpq loads, the library's module is used
GERMAN, US = "Peiper's own words", "Harrison's own words"


@pytest.fixture(autouse=True)
def needs_postgres():
    if conftest.BACKEND != "postgres":
        pytest.skip("PostgreSQL: run with --backend postgres")


def module_of(db: str) -> str:
    """The persistence module the ledger this process has open on `db` uses."""
    return type(app._OPENED[db].store.app.recorder).__module__  # the library's application: it writes


def opened(db: str, monkeypatch, libpq: bool):
    """The ledger on `db` through this module (libpq) or the library's (libpq not loadable)."""
    if libpq:
        monkeypatch.delenv("CGLEDGER_LIBPQ", raising=False)
    else:
        monkeypatch.setenv("CGLEDGER_LIBPQ", NOWHERE)
    ledger = open_ledger(db)
    assert type(ledger.store.app.recorder).__module__ == ("cgledger.ledger.store.pgstore" if libpq else "eventsourcing.postgres")
    return ledger


# ---- the recorders' answers ----------------------------------------------------------------------------------
def test_the_recorders_answer_as_the_librarys(at, monkeypatch):
    db = at("8.610").db
    ours, theirs = opened(db, monkeypatch, True), opened(db, monkeypatch, False)
    theirs.store.take_snapshot(campaign_id("CG I"))  # a row in the snapshots table (the library writes it)
    cid, nobody = campaign_id("CG I"), uuid.uuid4()
    last = theirs.store.app.recorder.max_notification_id()
    assert last > 10 and ours.store.app.recorder.max_notification_id() == last
    for originator, kwargs in [(cid, {}), (cid, {"gt": 3}), (cid, {"lte": 5}), (cid, {"gt": 2, "lte": 9}),
                               (cid, {"desc": True}), (cid, {"desc": True, "limit": 1}), (cid, {"limit": 4}),
                               (cid, {"gt": 4, "lte": 8, "desc": True, "limit": 2}), (cid, {"gt": 10_000}),
                               (nobody, {}), (str(cid), {"lte": 2})]:
        answer = ours.store.app.recorder.select_events(originator, **kwargs)
        assert answer == theirs.store.app.recorder.select_events(originator, **kwargs), kwargs
        assert all(type(e) is StoredEvent and isinstance(e.originator_id, uuid.UUID) and type(e.state) is bytes
                   for e in answer)
    assert ours.store.snapshots.recorder.select_events(cid, desc=True, limit=1) == \
        theirs.store.snapshots.recorder.select_events(cid, desc=True, limit=1) != []
    for args, kwargs in [((None, 10), {}), ((1, 5), {}), ((3, 5), {"inclusive_of_start": False}),
                         ((1, 100), {"stop": 7}), ((None, 100), {"topics": ["CampaignStarted"]}),
                         ((2, 100), {"topics": ("StepOpened", "DiceRolled"), "stop": last - 1}),
                         ((last + 1, 10), {})]:
        answer = ours.store.app.recorder.select_notifications(*args, **kwargs)
        assert answer == theirs.store.app.recorder.select_notifications(*args, **kwargs), (args, kwargs)
        assert all(type(n) is Notification for n in answer)
    assert not sys.modules.get("psycopg") or ours.store.factory.library is None  # all of it read through libpq
    rows = PostgresRows(db)  # what reads use until a command records (ledger/store/reading.py): the same rows again
    for kwargs in ({}, {"gt": 3}, {"lte": 5}, {"gt": 2, "lte": 9}, {"desc": True}, {"desc": True, "limit": 1},
                   {"limit": 4}, {"gt": 4, "lte": 8, "desc": True, "limit": 2}, {"gt": 10_000}):
        for mine, library in ((rows, theirs.store.app.recorder), (rows.snapshots, theirs.store.snapshots.recorder)):
            answer = [tuple(e) for e in mine.select_events(cid, **kwargs)]
            assert answer == [(e.originator_id, e.originator_version, e.topic, e.state)
                              for e in library.select_events(cid, **kwargs)], kwargs
    assert rows.select_events(nobody) == []
    assert rows.started() == [(n.originator_id, n.originator_version, n.state)
                              for n in theirs.store.app.recorder.select_notifications(None, 100, topics=["CampaignStarted"])]


def test_a_missing_table_is_the_same_error(make_db, monkeypatch):
    db = make_db()
    sql(db, "CREATE TABLE cgledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    sql(db, "INSERT INTO cgledger_meta VALUES ('format', '1')")  # marked, but no events table
    errors = []
    for libpq in (True, False):
        ledger = opened(db, monkeypatch, libpq)  # held: a collected application closes its pool (eventsourcing)
        with pytest.raises(ProgrammingError) as refused:
            ledger.store.app.recorder.select_events(uuid.uuid4())
        errors.append((type(refused.value), str(refused.value).splitlines()[0]))
    assert errors[0] == errors[1] == (ProgrammingError, 'relation "public.cgledger_events" does not exist')


def test_check_postgres_reads_through_libpq_and_says_the_same(kgp, make_db, monkeypatch):
    foreign = make_db()
    sql(foreign, "CREATE TABLE cgledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    sql(foreign, "INSERT INTO cgledger_meta VALUES ('format', '7')")
    port = kgp.db.rsplit("/", 1)[0].rsplit(":", 1)[1]
    closed = kgp.db.replace(f":{port}/", ":1/")
    said: dict[str, list] = {}
    for db in (kgp.db, make_db(), foreign, closed):
        for libraries in ("libpq.so.5", NOWHERE):
            monkeypatch.setenv("CGLEDGER_LIBPQ", libraries)
            try:
                check_postgres(db, create=False)
                said.setdefault(db, []).append(None)
            except DatabaseError as e:
                said.setdefault(db, []).append(e.line())
    assert said[kgp.db] == [None, None]
    assert [len(set(lines)) for lines in said.values()][1:3] == [1, 1]  # the same line through libpq and psycopg
    assert "holds no campaign ledger" in list(said.values())[1][0] and "unknown format '7'" in said[foreign][0]
    assert all(line.startswith("cannot reach ") and "Connection refused" in line for line in said[closed])
    monkeypatch.delenv("CGLEDGER_LIBPQ")
    assert imported_by(f"from cgledger.ledger.store.database import check_postgres\ncheck_postgres({kgp.db!r}, False)") == []


def imported_by(code: str) -> list[str]:
    """The psycopg modules a fresh process running `code` imports."""
    code += "\nimport sys\nprint(' '.join(m for m in sys.modules if m.startswith('psycopg')))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.split()


# ---- every read command: the same output, and no psycopg -----------------------------------------------------
SEEN = ("import atexit, os, sys\n"
        "atexit.register(lambda: open(os.environ['SEEN_MODULES'], 'w').write(' '.join(sorted(\n"
        "    m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool', 'psycopg_binary')))))\n"
        "from cgledger.cli import main\nmain(prog_name='cgledger')\n")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The shipped KGP sample in a PostgreSQL database, then both sides' keys and a Secret roll (sealed events)."""
    if conftest.BACKEND != "postgres":
        pytest.skip("PostgreSQL: run with --backend postgres")
    db = pg_create()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
        Cli(db, seed="1").ok("script", str(ROOT / "fixtures" / "kgp-cg1-sample.cgl"), "--quiet")
        for passphrase, side in ((GERMAN, "german"), (US, "us")):
            Player(db, passphrase).ok("keys", "init", "--side", side)
        app.forget(db)
    yield db
    pg_drop([db])


def read_all(db: str, folder: Path, libpq: bool) -> list[tuple]:
    """Every read command, twice (no kept view on this machine, then current), each in a fresh process: exit code,
    stdout, stderr, the file it wrote, and the psycopg modules it imported."""
    env = {**os.environ, "XDG_STATE_HOME": str(folder / "state"), "SEEN_MODULES": str(folder / "seen")}
    env.pop("CGLEDGER_PASSPHRASE", None)
    if not libpq:
        env["CGLEDGER_LIBPQ"] = NOWHERE
    out = folder / "out"
    out.mkdir(parents=True)
    said = []
    for turn in ("cold", "current"):
        for label, argv in READS:
            argv = [a.replace("{tmp}", str(out)) for a in argv]
            done = subprocess.run([sys.executable, "-c", SEEN, "--db", db, *argv], cwd=ROOT, env=env,
                                  capture_output=True, text=True)
            written = {p.name: p.read_bytes() for p in out.iterdir()}
            for p in out.iterdir():
                p.unlink()
            shown = (text.replace(str(out), "{tmp}") for text in (done.stdout, done.stderr))
            said.append((turn, label, done.returncode, *shown, written,
                         (folder / "seen").read_text()))
    return said


def test_every_read_says_the_same_without_psycopg(sample, tmp_path):
    ours, theirs = read_all(sample, tmp_path / "libpq", True), read_all(sample, tmp_path / "library", False)
    for mine, library in zip(ours, theirs):
        assert mine[:6] == library[:6], mine[:2]
        assert mine[2] == 0, mine
        assert mine[6] == "", mine[:2]  # no psycopg module imported
    assert "psycopg" in theirs[0][6].split()  # the library's module does import it


# ---- writes: handed over to the library's recorders, as before -----------------------------------------------
def stored(db: str) -> list[tuple]:
    return sql(db, "SELECT notification_id, originator_id, originator_version, topic, state FROM {events} "
                   "ORDER BY notification_id")


def twins(template: str) -> tuple[str, str]:
    """Two copies of the database `template`."""
    return pg_create(template=pg_name(template)), pg_create(template=pg_name(template))


def test_a_keyed_status_that_settles_a_fair_roll_writes_as_before(at, monkeypatch):
    german = Player(at("8.610").db, GERMAN)
    german.ok("keys", "init", "--side", "german")
    Player(german.db, US).ok("keys", "init", "--side", "us")
    german.ok("--command-id", "d1", "roll", "8.610", "--side", "german", "--for", "A")  # waits for the U.S. answer
    app.forget(german.db)
    copies = twins(german.db)
    try:
        before = stored(german.db)
        for db, libpq in zip(copies, (True, False)):
            monkeypatch.setenv("CGLEDGER_LIBPQ", "libpq.so.5" if libpq else NOWHERE)
            us = Player(db, US)
            with freeze_time("2026-12-19 08:00:00"):
                assert json.loads(us.ok("--command-id", "s1", "status", "--json").stdout)["waiting"] == []
            assert module_of(db) == ("cgledger.ledger.store.pgstore" if libpq else "eventsourcing.postgres")
            if libpq:
                assert app._OPENED[db].store.factory.library is not None  # the write was the library's
        after = [stored(db) for db in copies]
        assert after[0] == after[1] and after[0][:len(before)] == before
        assert [row[3] for row in after[0][len(before):]] == ["RollAnswered", "DiceRolled"]
    finally:
        for db in copies:
            app.forget(db)
        pg_drop(list(copies))


def test_roll_and_import_leave_the_same_log(at, tmp_path, monkeypatch):
    sender = at("8.610")
    bundle = tmp_path / "bundle.json"
    since = sender.ok("head").stdout.strip()
    with freeze_time("2026-12-19 08:00:00"):
        sender.ok("--command-id", "r1", "roll", "8.610", "--side", "us", "--dice", "4", "--for", "9-1")
        sender.ok("--command-id", "r2", "roll", "8.610", "--side", "german", "--dice", "2", "--for", "8-1")
    sender.ok("export", "--since", since, str(bundle))
    copies = twins(at("8.610").db)
    try:
        for db, libpq in zip(copies, (True, False)):
            monkeypatch.setenv("CGLEDGER_LIBPQ", "libpq.so.5" if libpq else NOWHERE)
            cli = Cli(db)
            cli.ok("status")  # opened for a read first: the import then hands over from an open ledger
            assert module_of(db) == ("cgledger.ledger.store.pgstore" if libpq else "eventsourcing.postgres")
            assert cli.json("import", str(bundle))["imported"] == 2
            with freeze_time("2026-12-19 09:00:00"):
                cli.ok("--command-id", "r3", "roll", "8.610", "--side", "us", "--dice", "6", "--for", "7-0")
            assert cli("audit").exit_code == 0
        assert stored(copies[0]) == stored(copies[1])
        assert [row[3] for row in stored(copies[0])[-3:]] == ["DiceRolled", "DiceRolled", "DiceRolled"]
    finally:
        for db in copies:
            app.forget(db)
        pg_drop(list(copies))


# ---- the server goes away -------------------------------------------------------------------------------------
def test_a_server_stopped_between_two_queries_is_one_line(at, monkeypatch):
    target = at("8.610")
    proxy = Cutter(conftest.PG_ADMIN)
    try:
        db = proxy.url(target.db)
        ledger = opened(db, monkeypatch, True)
        cid = campaign_id("CG I")
        assert ledger.store.app.recorder.select_events(cid, limit=1)
        cli = Cli(db)
        cli.ok("status")
        assert module_of(db) == "cgledger.ledger.store.pgstore"
        proxy.listener.shutdown(socket.SHUT_RDWR)  # the server is gone: new connections refused (accept ends),
        proxy.close()  # and every open one cut
        with pytest.raises(Exception) as lost:
            ledger.store.app.recorder.select_events(cid, gt=1)
        assert "refused" in lost_connection(lost.value)
        line = one_error_line(cli("--command-id", "gone-1", "status"), "gone-1")
        assert line.startswith("Error: the connection to the database was lost (") and "--command-id gone-1" in line
    finally:
        proxy.close()
        app.forget(db)
