"""ledger/store/libpq.py, the read-only libpq client the PostgreSQL reads use instead of psycopg ("PostgreSQL
reads within 1.3x SQLite's"), against a real PostgreSQL: run with --backend postgres --pg-url URL (.ci/postgres).
Its rows, types and errors are checked through libpq as `connect` loads it (psycopg_binary's copy, then Debian's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

import conftest
from conftest import Cli, sql

from cgledger.ledger.store import libpq
from cgledger.ledger.application import open_ledger
from cgledger.ledger.trust.chain import campaign_id
from cgledger.ledger.errors import CampaignNotFound, DatabaseError
from cgledger.ledger.store.reading import postgres_head, stored_head

NOWHERE = ["libpq-not-installed-here.so.5"]  # a candidate list under which no libpq loads: the psycopg fallback
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def needs_postgres():
    if conftest.BACKEND != "postgres":
        pytest.skip("PostgreSQL: run with --backend postgres")


@pytest.fixture
def connect():
    """connect(url) -> a read connection through libpq itself (psycopg_binary's copy, then Debian's)."""
    return lambda url: libpq.connect(url, [*libpq.bundled(), *libpq.LIBRARIES])


def app_head(db: str, name: str | None = None) -> str:
    """What the application reads (the event-sourcing recorder, psycopg)."""
    return open_ledger(db).verification.head(name)


def rolled(kgp: Cli) -> Cli:
    kgp.ok("step", "next")  # one more event
    return kgp


def test_rows_and_types_equal_psycopgs(make_db, connect):
    db = make_db()
    sql(db, "CREATE TABLE sample (id BIGINT, small SMALLINT, mid INTEGER, name TEXT, data BYTEA, flag BOOLEAN, "
            "ref UUID, label VARCHAR(20))")
    sql(db, "INSERT INTO sample VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?), "
            "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        (2**62, -7, 2**31 - 1, "Kampfgruppe Peiper — 19 AM", b"\x00\xff\x00binary", True, campaign_id("CG I"), "x",
         -2**63, 0, -1, "", b"", False, campaign_id("RR"), ""))
    queries = [("SELECT * FROM sample ORDER BY id NULLS LAST", ()),
               ("SELECT name, data FROM sample WHERE id = $1 AND name = $2", (2**62, "Kampfgruppe Peiper — 19 AM")),
               ("SELECT id FROM sample WHERE ref = $1", (campaign_id("RR"),)),
               ("SELECT count(*), 1, 'a' || $1 FROM sample WHERE name IS NOT DISTINCT FROM $2", ("b", None)),
               ("SELECT data FROM sample WHERE name = $1", ("'; DROP TABLE sample; --",))]
    with connect(db) as conn, psycopg.connect(db) as pg:
        for query, params in queries:
            ours = conn.query(query, params)
            theirs = pg.execute(query.replace("$1", "%s").replace("$2", "%s"), params).fetchall()
            assert ours == theirs and [list(map(type, r)) for r in ours] == [list(map(type, r)) for r in theirs]
    assert len(sql(db, "SELECT * FROM sample")) == 3  # a value is a parameter, never SQL


def test_head_equals_the_applications(kgp):
    db = rolled(kgp).db
    expected = app_head(db)
    assert postgres_head(db, None) == postgres_head(db, "CG I") == expected == kgp.ok("head").stdout.strip()
    assert postgres_head(db, None, libraries=NOWHERE) == expected  # psycopg's answer, the same
    version = int(expected.split(":")[0])
    row = (campaign_id("CG I"), version)
    assert stored_head(db, None)[:2] == stored_head(db, "CG I")[:2] == row  # the answers' key (ledger/read/answers.py)
    assert stored_head(db, None).row == stored_head(db, "CG I").row
    before = stored_head(db, None)
    rolled(kgp)
    assert stored_head(db, None)[1] == version + 1 and stored_head(db, None).row != before.row
    assert postgres_head(db, None) == app_head(db)


def test_psycopgs_own_libpq_is_loaded_first_and_debians_reads_the_same(kgp, monkeypatch):
    """The default loads psycopg_binary's copy (found without importing psycopg), the libpq the store's writes go
    through and the faster to load; Debian's libpq5 when it is not installed, or when named, reads the same."""
    copies = libpq.bundled()
    if not copies:
        pytest.skip("psycopg_binary is not installed")
    monkeypatch.delenv("CGLEDGER_LIBPQ", raising=False)
    assert libpq.load()._name == copies[0] and list(libpq._default())[-1] == "libpq.so.5"
    assert postgres_head(kgp.db, None, libraries=copies) == app_head(kgp.db)
    if libpq.load(libpq.LIBRARIES) is None:
        pytest.skip("Debian's libpq5 is not installed")
    assert postgres_head(kgp.db, None, libraries=libpq.LIBRARIES) == app_head(kgp.db)


def test_several_campaigns_need_a_name(kgp):
    kgp.ok("new", "RR", "--system", "rr", "--cg", "RR", "--start-cpp", "german=200", "--start-cpp", "canadian=200")
    with pytest.raises(CampaignNotFound, match="several campaigns"):
        postgres_head(kgp.db, None)
    assert postgres_head(kgp.db, "RR") == app_head(kgp.db, "RR")
    assert stored_head(kgp.db, None) is None and stored_head(kgp.db, "nobody") is None
    assert stored_head(kgp.db, "RR")[:2] == (campaign_id("RR"), 1)


def test_an_altered_head_is_refused_as_the_application_refuses_it(kgp):
    db = kgp.db
    (state,) = sql(db, "SELECT state FROM {events} ORDER BY notification_id DESC LIMIT 1")[0]
    before = stored_head(db, None)
    at = state.index(b"19 AM")
    sql(db, "UPDATE {events} SET state = ? WHERE notification_id = (SELECT max(notification_id) FROM {events})",
        (state[:at] + b"20 AM" + state[at + 5:],))
    with pytest.raises(DatabaseError, match="was altered after it was recorded"):
        postgres_head(db, None)
    kgp.refused("head", contains="was altered after it was recorded")
    assert stored_head(db, None)[:2] == before[:2] and stored_head(db, None).row != before.row


def test_unreachable_or_unknown_logins_give_one_line(kgp):
    """A closed port, a role or a database the server does not know: one line naming the server's problem, as the
    application gives it (the test cluster trusts every login, so a wrong password cannot be refused here: libpq's
    refusal takes the same path as the unknown role's)."""
    base = kgp.db.rsplit("/", 1)[0]
    port = base.rsplit(":", 1)[1]
    for url, problem in ((base.replace(f":{port}", ":1") + "/x", "Connection refused"),
                         (base.replace("//cgledger:", "//no_such_role:") + "/postgres", 'role "no_such_role" does not exist'),
                         (base + "/no_such_database", 'database "no_such_database" does not exist')):
        with pytest.raises(DatabaseError) as refused:
            libpq.connect(url)
        line = refused.value.line()
        assert problem in line and line.startswith("cannot reach ") and "\n" not in line
        assert ":cgledger@" not in line  # the password is not shown
        with pytest.raises(DatabaseError, match=problem):
            postgres_head(url, None)
        assert stored_head(url, None) is None
        Cli(url).refused("head", contains=problem)


def test_missing_tables_leave_it_to_the_application(make_db, connect):
    db = make_db()
    assert postgres_head(db, None) is None and stored_head(db, None) is None
    Cli(db).refused("head", contains="holds no campaign ledger")
    sql(db, "CREATE TABLE cgledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    sql(db, "INSERT INTO cgledger_meta VALUES ('format', '1')")  # marked, but its events table not made yet
    assert postgres_head(db, None) is None and stored_head(db, None) is None
    with connect(db) as conn, pytest.raises(libpq.QueryError) as refused:
        conn.query("SELECT state FROM cgledger_events")
    assert refused.value.line() == 'relation "cgledger_events" does not exist' and refused.value.sqlstate == "42P01"


def test_a_type_it_does_not_decode_is_one_line(make_db, connect):
    with connect(make_db()) as conn, pytest.raises(libpq.QueryError, match="does not decode"):
        conn.query("SELECT now()")


def test_blobs_are_a_bytea_columns_bytes_and_nothing_else(make_db, connect):
    db = make_db()
    sql(db, "CREATE TABLE sample (id BIGINT, data BYTEA)")
    sql(db, "INSERT INTO sample VALUES (?, ?), (?, ?), (?, NULL)", (1, b"\x00\xff", 2, b"", 3))
    with connect(db) as conn:
        assert conn.blobs("SELECT data FROM sample ORDER BY id") == [b"\x00\xff", b"", None]
        assert conn.blobs("SELECT int8send(id) || coalesce(data, '') FROM sample WHERE id = $1", (1,)) == \
            [(1).to_bytes(8, "big") + b"\x00\xff"]
        for wrong in ("SELECT id FROM sample", "SELECT data, data FROM sample"):
            with pytest.raises(libpq.QueryError, match="one bytea column"):
                conn.blobs(wrong)


def test_a_whole_log_through_libpq_is_the_applications(kgp):
    """`log --json` and `export` read the whole log through libpq (reading.postgres_entries): the same rows as the
    application's `entries`, in order."""
    from cgledger.ledger.store.reading import postgres_entries

    rolled(kgp)
    # the first event's row rewritten with the same bytes: stored last in the table now, read first all the same
    # (the rows come from the server in no order and are put in version order by the reader)
    sql(kgp.db, "UPDATE {events} SET state = state WHERE originator_version = 1")
    ours = postgres_entries(str(kgp.db), None)
    theirs = open_ledger(str(kgp.db)).store.entries(None)
    assert ours is not None and len(ours) == len(theirs) > 1
    assert [(v, t, r.digest, r.fact) for v, t, r in ours] == [(v, t, r.digest, r.fact) for v, t, r in theirs]
    assert postgres_entries(str(kgp.db), None, NOWHERE) is None  # no libpq: the application reads (psycopg)


def test_no_libpq_means_psycopg(kgp):
    assert libpq.load(NOWHERE) is None and libpq.connect(kgp.db, NOWHERE) is None
    assert imported(kgp.db, NOWHERE)["psycopg"]


def imported(db: str, libraries: list[str] | None) -> dict[str, object]:
    """Which heavy modules a fresh process imports to read the head (and the head row) of `db`."""
    code = ("import json, sys\n"
            "from cgledger.ledger.store.reading import postgres_head, stored_head\n"
            f"head = postgres_head({db!r}, None, libraries={libraries!r})\n"
            f"row = stored_head({db!r}, None) if {libraries!r} is None else (None, None)\n"
            "print(json.dumps({'head': head, 'version': row[1], 'psycopg': 'psycopg' in sys.modules,\n"
            "                  'eventsourcing': 'eventsourcing' in sys.modules}))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_the_libpq_path_imports_no_psycopg(kgp):
    seen = imported(kgp.db, None)
    assert seen == {"head": app_head(kgp.db), "version": 1, "psycopg": False, "eventsourcing": False}
    cli = subprocess.run([sys.executable, "-c", "import sys\nfrom cgledger.cli import main\n"
                          f"main(['--db', {kgp.db!r}, 'head'], standalone_mode=False)\n"
                          "print('psycopg' in sys.modules, 'eventsourcing' in sys.modules)"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert cli == [app_head(kgp.db), "False", "False"]


def shown_apart(db: str, *args: str) -> tuple[str, set[str]]:
    """A read in its own process, as a player runs it: its output and the modules it loaded."""
    code = ("import sys\nfrom cgledger.cli import main\n"
            f"try:\n    main({['--db', db, *args]!r}, prog_name='cgledger')\nexcept SystemExit as e:\n    assert not e.code\n"
            "print('LOADED', ' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    shown, modules = out.rsplit("LOADED ", 1)
    return shown, set(modules.split())


def test_a_kept_answer_on_postgresql_needs_neither_psycopg_nor_the_library(kgp):
    """The answers kept per log head (ledger/read/answers.py) on PostgreSQL: the head row read through libpq, the answer
    equal to the full read's; a new event reads in full again. The full read folds the rows it read through libpq
    (reading.PostgresRows): neither psycopg nor the event-sourcing library either."""
    for args in (["status", "--json"], ["roster", "--side", "german"]):
        first, loaded = shown_apart(kgp.db, *args)
        assert "cgledger.ledger.application" in loaded  # no answer kept yet: the full read
        assert not {"psycopg", "eventsourcing"} & loaded
        again, loaded = shown_apart(kgp.db, *args)
        assert again == first and not {"psycopg", "eventsourcing", "cgledger.ledger.application"} & loaded
    rolled(kgp)
    after, loaded = shown_apart(kgp.db, "status", "--json")
    assert "cgledger.ledger.application" in loaded and after != first
    assert json.loads(after) == json.loads(kgp.ok("status", "--json").stdout)


def test_reads_share_a_connection_and_open_a_dropped_one_again(make_db):
    """A command's reads of one database share this thread's connection (one server session, not one per read); one
    the server has dropped since is said in one line, once, and the next read opens a new one."""
    db = make_db()

    def backend() -> int:
        with libpq.session(db) as query:
            return query("SELECT pg_backend_pid()")[0][0]

    first = backend()
    assert backend() == first
    sql(db, "SELECT pg_terminate_backend(?)", (first,))
    with pytest.raises(libpq.ConnectionLost) as lost:
        backend()
    assert len(str(lost.value).splitlines()) == 1
    again = backend()
    assert again != first and backend() == again


def test_a_thread_keeps_a_few_connections_and_closes_the_oldest(make_db):
    dbs = [make_db() for _ in range(libpq.KEPT + 1)]
    opened = []
    for db in dbs:
        opened.append(libpq.shared(db))
        assert opened[-1].query("SELECT 1") == [(1,)]
    assert opened[0].conn is None and all(conn.conn for conn in opened[1:])  # closed: its server session ended
    assert libpq.shared(dbs[-1]) is opened[-1]  # kept
    again = libpq.shared(dbs[0])
    assert again is not opened[0] and again.query("SELECT 1") == [(1,)]  # the closed one opened anew
