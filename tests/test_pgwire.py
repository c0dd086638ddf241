"""ledger/pgwire.py, the PostgreSQL reads' own client (the wire protocol over a loopback socket, no libpq loaded:
issue 24, "PostgreSQL reads within 1.3x SQLite's"). Against a real PostgreSQL (--backend postgres --pg-url URL,
.ci/postgres, whose pg_hba.conf has a role per password method), and against a fake server in a thread for what a
real one cannot be made to do (a SCRAM server that cannot prove it knows the password). tests/test_libpq.py runs
its row, type and error tests through both clients."""

from __future__ import annotations

import socket
import base64
import json
import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import conftest
from conftest import sql

from cgledger.ledger import libpq, pgwire
from cgledger.ledger.pgurl import postgres_env

ROOT = Path(__file__).resolve().parent.parent
METHODS = ("password", "md5", "scram-sha-256")  # .ci/postgres: host all cgledger_<method> 127.0.0.1/32 <method>


@pytest.fixture(autouse=True)
def needs_postgres():
    if conftest.BACKEND != "postgres":
        pytest.skip("PostgreSQL: run with --backend postgres")


def role_url(db: str, method: str, password: str) -> str:
    role = "cgledger_" + method.split("-")[0]
    return db.replace("//cgledger:cgledger@", f"//{role}:{password}@")


@pytest.fixture
def password_roles(make_db):
    """A database, and a role for each password method pg_hba.conf names (skipped where it names none), its password
    stored as the method needs it (MD5's as an MD5 hash)."""
    db = make_db()
    rules = {row[0][0] for row in sql(db, "SELECT user_name FROM pg_hba_file_rules WHERE user_name IS NOT NULL")}
    if not all("cgledger_" + m.split("-")[0] in rules for m in METHODS):
        pytest.skip("this server's pg_hba.conf has no password roles (.ci/postgres adds them)")
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        for method in METHODS:
            role = "cgledger_" + method.split("-")[0]
            conn.execute(f"SET password_encryption = '{'md5' if method == 'md5' else 'scram-sha-256'}'")
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchall():
                conn.execute(f"CREATE ROLE {role} LOGIN")
            conn.execute(f"ALTER ROLE {role} PASSWORD 'Peiper''s 1st SS'")
    return db


def test_each_password_method_logs_in_and_a_wrong_password_is_libpqs_to_say(password_roles):
    db = password_roles
    for method in METHODS:
        url = role_url(db, method, "Peiper%27s%201st%20SS")  # the URL's password percent-encoded
        with pgwire.Connection(url, postgres_env(url)) as conn:
            assert conn.query("SELECT current_user, $1::text", ("ok",)) == [("cgledger_" + method.split("-")[0], "ok")]
        wrong = role_url(db, method, "not-it")
        with pytest.raises(pgwire.Unsupported):
            pgwire.Connection(wrong, postgres_env(wrong))
        with pytest.raises(libpq.DatabaseError) as refused:  # the default path: pgwire refused, libpq says why
            libpq.connect(wrong)
        assert "password authentication failed" in refused.value.line() and "not-it" not in refused.value.line()


def test_a_password_asked_and_none_given_is_left_to_libpq(password_roles):
    url = role_url(password_roles, "scram-sha-256", "").replace(":@", "@")
    with pytest.raises(pgwire.Unsupported, match="none given"):
        pgwire.Connection(url, postgres_env(url))


def test_it_is_used_only_where_it_acts_as_libpq(kgp, monkeypatch):
    env = postgres_env(kgp.db)
    assert pgwire.suits(env) and type(libpq.connect(kgp.db)) is pgwire.Connection
    assert not pgwire.suits({**env, "POSTGRES_HOST": "db.example.org"})  # TLS may matter off this machine
    monkeypatch.setenv("PGSSLMODE", "disable")  # libpq reads PG* variables: then libpq reads
    assert not pgwire.suits(env) and type(libpq.connect(kgp.db)) is libpq.Connection
    monkeypatch.delenv("PGSSLMODE")
    monkeypatch.setenv("CGLEDGER_LIBPQ", "libpq.so.5")  # libpq asked for by name
    assert type(libpq.connect(kgp.db)) is libpq.Connection


def test_results_larger_than_a_read_arrive_whole(make_db):
    with libpq.connect(make_db()) as conn:
        assert type(conn) is pgwire.Connection
        many = conn.blobs("SELECT int8send(g) FROM generate_series(1, 60000) AS g")
        assert many == [g.to_bytes(8, "big") for g in range(1, 60001)]
        (big,) = conn.blobs("SELECT convert_to(repeat('Kampfgruppe ', 400000), 'UTF8')")
        assert big == b"Kampfgruppe " * 400000
        rows = conn.query("SELECT g, repeat('x', g % 700), NULL::int FROM generate_series(1, 3000) AS g")
        assert rows == [(g, "x" * (g % 700), None) for g in range(1, 3001)]
        assert conn.query("SELECT 1 WHERE false") == []


def test_a_failed_statement_leaves_the_session_usable(make_db):
    with libpq.connect(make_db()) as conn:
        with pytest.raises(libpq.QueryError) as refused:
            conn.query("SELECT 1 / $1::int", (0,))
        assert refused.value.sqlstate == "22012" and refused.value.line() == "division by zero"
        assert conn.query("SELECT $1::int + 1", (41,)) == [(42,)]


def shown_apart(db: str, state: Path, *args: str, **env: str) -> tuple[str, set[str]]:
    """A read in its own process, as a player runs it: its output and the modules it loaded."""
    code = ("import atexit, sys\nfrom cgledger.cli.quick import main\n"
            "atexit.register(lambda: print('LOADED', ' '.join(sorted(sys.modules))))\n"  # quick.main ends in os._exit
            f"sys.argv = {['cgledger', '--db', db, *args]!r}\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "XDG_STATE_HOME": str(state), **env}).stdout
    shown, modules = out.rsplit("LOADED ", 1)
    return shown, set(modules.split())


def test_a_players_reads_load_no_libpq_and_read_as_libpqs(kgp, tmp_path):
    """Reads as a player runs them (their own process): through pgwire, without ctypes, libpq or psycopg; the same
    output as through libpq (CGLEDGER_LIBPQ names it), the answers kept or not."""
    kgp.ok("step", "next")
    libpq_only = os.pathsep.join([*libpq.bundled(), *libpq.LIBRARIES])
    for args in (["status", "--json"], ["history", "--json"], ["log", "--json"], ["head"]):
        ours, loaded = shown_apart(kgp.db, tmp_path / "a", *args)
        assert "cgledger.ledger.pgwire" in loaded and not {"ctypes", "psycopg", "eventsourcing"} & loaded, args
        theirs, loaded = shown_apart(kgp.db, tmp_path / "b", *args, CGLEDGER_LIBPQ=libpq_only)
        assert "ctypes" in loaded and "cgledger.ledger.pgwire" not in loaded
        assert ours == theirs
        if args[-1] == "--json":
            json.loads(ours)


# ---- a fake server, for what a real one cannot be made to do ---------------------------------------------------
def fake_server(script) -> tuple[int, threading.Thread]:
    """A one-connection server on loopback running `script(read, send)`: read() -> (type, body) of the client's
    next message (the startup message's type is None), send(type, body)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(10)

    def run():
        conn, _ = listener.accept()
        buf = bytearray()

        def need(n):
            while len(buf) < n:
                chunk = conn.recv(65536)
                if not chunk:
                    raise EOFError
                buf.extend(chunk)

        def read(startup=False):
            if startup:
                need(4)
                size = struct.unpack("!i", buf[:4])[0]
                need(size)
                body = bytes(buf[4:size])
                del buf[:size]
                return None, body
            need(5)
            size = struct.unpack("!i", buf[1:5])[0]
            need(1 + size)
            kind, body = bytes(buf[:1]), bytes(buf[5:1 + size])
            del buf[:1 + size]
            return kind, body

        def send(kind: bytes, body: bytes):
            conn.sendall(kind + struct.pack("!i", len(body) + 4) + body)

        try:
            script(read, send)
        except (EOFError, OSError):
            pass
        finally:
            conn.close()
            listener.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return listener.getsockname()[1], thread


def env_for(port: int, password: str = "secret") -> dict[str, str]:
    return postgres_env(f"postgresql://peiper:{password}@127.0.0.1:{port}/kgp")


def scram_server(final):
    """A SCRAM server whose last word is final(client nonce) (it never knew the password)."""
    def script(read, send):
        _, startup = read(startup=True)
        assert b"user\0peiper\0" in startup and b"database\0kgp\0" in startup
        send(b"R", struct.pack("!i", 10) + b"SCRAM-SHA-256\0\0")
        _, first = read()
        assert first.startswith(b"SCRAM-SHA-256\0")
        nonce = first.split(b"r=", 1)[1]
        salt = base64.b64encode(b"0123456789abcdef")
        send(b"R", struct.pack("!i", 11) + b"r=" + nonce + b"server,s=" + salt + b",i=4096")
        _, proof = read()
        assert proof.startswith(b"c=biws,r=" + nonce + b"server,p=")
        send(b"R", struct.pack("!i", 12) + final(nonce))
        send(b"R", struct.pack("!i", 0))
        send(b"Z", b"I")
        read()
    return script


def test_a_scram_server_that_cannot_prove_the_password_is_refused():
    for final in (lambda nonce: b"v=" + base64.b64encode(b"x" * 32), lambda nonce: b"e=other-error"):
        port, thread = fake_server(scram_server(final))
        with pytest.raises(pgwire.Unsupported, match="did not prove"):
            pgwire.Connection("postgresql://fake", env_for(port))
        thread.join(5)


def test_a_server_skipping_the_proof_or_changing_the_nonce_is_refused():
    def skips(read, send):  # SASL started, then "logged in" without the final message
        read(startup=True)
        send(b"R", struct.pack("!i", 10) + b"SCRAM-SHA-256\0\0")
        read()
        send(b"R", struct.pack("!i", 0))
        send(b"Z", b"I")
        read()

    def other_nonce(read, send):
        read(startup=True)
        send(b"R", struct.pack("!i", 10) + b"SCRAM-SHA-256\0\0")
        read()
        send(b"R", struct.pack("!i", 11) + b"r=not-the-clients,s=c2FsdA==,i=4096")
        read()

    def unknown_method(read, send):
        read(startup=True)
        send(b"R", struct.pack("!i", 7))  # GSSAPI
        read()

    for script, problem in ((skips, "did not prove"), (other_nonce, "does not follow"),
                            (unknown_method, "does not speak")):
        port, thread = fake_server(script)
        with pytest.raises(pgwire.Unsupported, match=problem):
            pgwire.Connection("postgresql://fake", env_for(port))
        thread.join(5)


def test_a_server_gone_mid_query_is_a_lost_connection_said_in_one_line():
    def script(read, send):
        read(startup=True)
        send(b"R", struct.pack("!i", 0))
        send(b"Z", b"I")
        read()  # Parse ...
        send(b"E", b"SFATAL\0C57P01\0Mterminating connection due to administrator command\nmore\0\0")

    port, thread = fake_server(script)
    conn = pgwire.Connection("postgresql://fake", env_for(port))
    with pytest.raises(libpq.ConnectionLost) as lost:
        conn.query("SELECT 1")
    assert str(lost.value) == "terminating connection due to administrator command" and conn.conn is None
    thread.join(5)
