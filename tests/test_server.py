"""Server play that survives the network: every command carries an id chosen before its first
attempt, so a retry after a lost connection answers 'already recorded as event N' instead of acting twice; a
lost connection is one line, never a traceback; an import of any size completes and leaves a snapshot.

The network faults are real: the ledger talks to PostgreSQL through a TCP proxy (`Cutter`) that cuts connections
at chosen points of the server's replies, or the server terminates the ledger's backends (pg_terminate_backend)."""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import msgspec
import pytest

import conftest
from conftest import Cli, sql


def needs_postgres() -> None:
    if conftest.BACKEND != "postgres":
        pytest.skip("PostgreSQL: run with --backend postgres")


# ---- a network that fails on cue -----------------------------------------------------------------------------
class Cutter:
    """A TCP proxy to PostgreSQL that forwards everything and, when armed, cuts connections (both sockets shut)
    at chosen points of the server's replies, which it reads as protocol messages (type byte, length):
      - cut=k: cut the connection carrying the k-th server message from now on, once;
      - outage=k: from the k-th server message on, cut every connection at its first message after its setup
        (startup and the pool's first statement): the server is there, but nothing gets through;
      - tag=(TAG, n): swallow the n-th reply that completes a TAG statement ('COMMIT', 'INSERT 0 1000') and cut
        (counting from the first reply to an `after` statement if given); for COMMIT the server has committed and
        the client never hears so; then an outage if `then_outage`."""

    def __init__(self, target: str):
        parts = urlparse(target)
        self.upstream = (parts.hostname, parts.port or 5432)
        self.lock = threading.Lock()
        self.links: set[socket.socket] = set()
        self.seen = 0
        self.cut_at: int | None = None
        self.outage_from: int | None = None
        self.tag: tuple[bytes, int] | None = None
        self.after: bytes | None = None
        self.then_outage = False
        self.events: Counter = Counter()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, target: str) -> str:
        parts = urlparse(target)
        return parts._replace(netloc=f"{parts.username}:{parts.password}@127.0.0.1:{self.port}").geturl()

    def arm(self, cut: int | None = None, outage: int | None = None, tag: tuple[str, int] | None = None,
            after: str | None = None, then_outage: bool = False) -> None:
        with self.lock:
            self.seen, self.cut_at, self.outage_from = 0, cut, outage
            self.tag, self.then_outage = (tag[0].encode(), tag[1]) if tag else None, then_outage
            self.after = after.encode() if after else None

    def heal(self) -> None:
        self.arm()

    def close(self) -> None:
        self.listener.close()
        with self.lock:
            for sock in list(self.links):
                self._shut(sock)

    def _shut(self, sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        self.links.discard(sock)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.links.update((client, server))
            threading.Thread(target=self._upstream, args=(client, server), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client), daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket) -> None:
        try:
            while data := client.recv(65536):
                server.sendall(data)
        except OSError:
            pass
        with self.lock:
            self._shut(client)
            self._shut(server)

    def _downstream(self, server: socket.socket, client: socket.socket) -> None:
        buffer, ready, framed = b"", 0, False  # ready: ReadyForQuery messages passed (1 = started, 2 = set up)
        try:
            while data := server.recv(65536):
                buffer += data
                out = b""
                while True:
                    if not framed and buffer[:1] == b"N":  # the one-byte answer to an SSL/GSS request
                        out, buffer = out + buffer[:1], buffer[1:]
                        continue
                    if len(buffer) < 5 or len(buffer) < 1 + int.from_bytes(buffer[1:5], "big"):
                        break
                    framed = True
                    size = 1 + int.from_bytes(buffer[1:5], "big")
                    message, buffer = buffer[:size], buffer[size:]
                    if self._cuts(message, ready):
                        if out:
                            client.sendall(out)
                        raise ConnectionAbortedError
                    ready += message[:1] == b"Z"
                    out += message
                if out:
                    client.sendall(out)
        except OSError:
            pass
        with self.lock:
            self._shut(client)
            self._shut(server)

    def _cuts(self, message: bytes, ready: int) -> bool:
        with self.lock:
            self.seen += 1
            if self.cut_at is not None and self.seen >= self.cut_at:
                self.cut_at = None
                self.events["cut"] += 1
                return True
            completes = message[:1] == b"C"  # CommandComplete: its tag follows the length
            if self.after is not None and completes and message[5:].startswith(self.after):
                self.after = None
                return False
            if self.tag is not None and self.after is None and completes and message[5:].startswith(self.tag[0]):
                if self.tag[1] > 1:
                    self.tag = (self.tag[0], self.tag[1] - 1)
                    return False
                self.events[f"lost {self.tag[0].decode()}"] += 1
                self.tag, self.outage_from = None, self.seen if self.then_outage else None
                return True
            if self.outage_from is not None and self.seen >= self.outage_from and ready >= 2:
                self.events["outage"] += 1
                return True
            return False


@pytest.fixture
def cutter():
    proxy = Cutter(conftest.PG_ADMIN)
    yield proxy
    proxy.close()


def terminate_backends(url: str) -> None:
    """The server ends every session of the ledger's database but this one (FATAL: administrator command)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                     "AND pid <> pg_backend_pid()")


def stored_commands(db) -> Counter:
    """How many stored events each command id wrote, read from the raw rows."""
    return Counter(json.loads(bytes(state))["command"] for (state,) in sql(db, "SELECT state FROM {events}"))


def one_error_line(result, command_id: str) -> str:
    """A failed attempt: exit 1 and exactly one `Error:` line on stderr, never a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


# ---- the command id: a retry acts once ------------------------------------------------------------------------
def test_a_retried_command_is_already_recorded_and_writes_nothing(at):
    cli = at("8.610")
    first = cli.ok("--command-id", "roll-1", "roll", "8.610", "--side", "us", "--dice", "3", "--for", "9-1")
    version = cli.events()
    assert f"recorded as event {version}" in first.stdout
    again = cli.ok("--command-id", "roll-1", "roll", "8.610", "--side", "us", "--dice", "5", "--for", "9-1")
    assert again.stdout.strip() == f"already recorded as event {version}: nothing done again"
    assert cli.events() == version
    # whatever the command: the id is what was recorded
    assert cli.ok("--command-id", "roll-1", "undo").stdout.strip().startswith(f"already recorded as event {version}")
    assert cli.events() == version and stored_commands(cli.db)["roll-1"] == 1


def test_a_retried_new_is_already_recorded(make_db):
    cli = Cli(make_db())
    cli.ok("--command-id", "start", "new", "CG I", "--cg", "I")
    assert cli.ok("--command-id", "start", "new", "CG I", "--cg", "I").stdout.strip() == \
        "already recorded as event 1: nothing done again"
    cli.refused("--command-id", "other", "new", "CG I", "--cg", "I", contains="already exists")
    assert cli.events() == 1


def test_each_line_of_a_script_has_its_own_id(at, tmp_path, monkeypatch):
    """A script's lines are commands of their own (ids SCRIPT-ID:LINE), even with CGLEDGER_COMMAND_ID set; run
    again with the same id, the lines already recorded are not recorded twice."""
    cli = at("8.610")
    script = tmp_path / "session.cgl"
    script.write_text("roll 8.610 --side us --dice 3 --for 9-1\n# a comment\nroll 8.610 --side german --for 8-1\n")
    monkeypatch.setenv("CGLEDGER_COMMAND_ID", "session-1")
    before = cli.events()
    cli.ok("script", str(script))
    assert cli.events() == before + 2
    assert {c: n for c, n in stored_commands(cli.db).items() if c.startswith("session-1")} == \
        {"session-1:1": 1, "session-1:3": 1}
    again = cli.ok("script", str(script))
    assert again.stdout.count("already recorded as event") == 2
    assert cli.events() == before + 2


# ---- PostgreSQL: the connection is lost -----------------------------------------------------------------------
def test_a_commit_the_client_never_heard_of_is_recorded_once(at, cutter):
    """The server committed the roll, the connection dropped before its reply: the command ends with one line
    naming its id; run again with that id, it answers 'already recorded as event N' and rolls nothing."""
    needs_postgres()
    target = at("scenario")  # SSR rolls: as many as the scenario needs
    cli = Cli(cutter.url(target.db))
    cli.ok("status")  # opened (its checks commit too)
    before = target.events()
    # the roll's COMMIT (after its INSERT: a read-only open hands over to the library's recorders at the first write,
    # whose set-up commits too); nothing gets through afterwards, not even the library's retries
    cutter.arm(tag=("COMMIT", 1), after="INSERT", then_outage=True)
    line = one_error_line(cli("--command-id", "lost-1", "roll", "KGP3", "--side", "us"), "lost-1")
    assert "connection to the database was lost" in line and "--command-id lost-1" in line
    assert cutter.events["lost COMMIT"] == 1
    cutter.heal()
    assert target.events() == before + 1  # it was committed
    again = cli.ok("--command-id", "lost-1", "roll", "KGP3", "--side", "us")
    assert again.stdout.strip() == f"already recorded as event {before + 1}: nothing done again"
    assert target.events() == before + 1 and stored_commands(target.db)["lost-1"] == 1


def test_a_lost_commit_reply_retried_by_the_library_is_not_the_other_side(at, cutter):
    """The reply to COMMIT is lost once; eventsourcing reconnects and writes again, which meets the roll already
    stored: that is this command's own roll (same digests), not 'the campaign moved on'."""
    needs_postgres()
    target = at("8.610")
    cli = Cli(cutter.url(target.db))
    cli.ok("status")
    before = target.events()
    cutter.arm(tag=("COMMIT", 1), after="INSERT")  # the roll's COMMIT
    result = cli.ok("--command-id", "lost-2", "roll", "8.610", "--side", "us", "--for", "9-1")
    assert cutter.events["lost COMMIT"] == 1
    assert f"recorded as event {before + 1}" in result.stdout
    assert target.events() == before + 1 and stored_commands(target.db)["lost-2"] == 1


def test_a_lost_connection_while_reading_is_one_line_and_the_next_command_reconnects(at, cutter):
    needs_postgres()
    from cgledger.cli import app

    target = at("8.610")
    cli = Cli(cutter.url(target.db))
    cli.ok("status")
    pooled = app._OPENED[cli.db]
    cutter.arm(outage=1)
    for args in (["status"], ["log"], ["roll", "8.610", "--side", "us", "--for", "9-1"]):
        line = one_error_line(cli("--command-id", "read-1", *args), "read-1")
        assert "connection to the database was lost" in line or "cannot reach" in line, line
        assert app._OPENED.get(cli.db) is not pooled  # the broken pool is not kept for the next command
    cutter.heal()
    assert cli.json("status")["step"] == "8.610"
    assert target.events() == Cli(target.db).events()


def test_a_script_cut_off_names_its_line_and_the_line_s_id(at, cutter, tmp_path):
    needs_postgres()
    target = at("scenario")
    cli = Cli(cutter.url(target.db))
    cli.ok("status")
    script = tmp_path / "session.cgl"
    script.write_text("roll KGP3 --side us\nroll KGP3 --side german\n")
    before = target.events()
    cutter.arm(tag=("COMMIT", 2), after="INSERT", then_outage=True)  # the second roll's commit is never heard of
    line = one_error_line(cli("--command-id", "night", "script", str(script)), "night")
    assert line.startswith("Error: session.cgl line 2: the connection to the database was lost") and \
        "--command-id night:2" in line, line
    cutter.heal()
    assert target.events() == before + 2
    again = cli.ok("--command-id", "night", "script", str(script))
    assert again.stdout.count("already recorded as event") == 2 and target.events() == before + 2


# how the first attempts fail: (kind, how many of the commands); where, the seeded random decides
FAULTS = [("none", 4), ("cut", 8), ("terminate", 6), ("outage", 6), ("lost commit", 6), ("lost commit, outage", 12)]


def test_random_lost_connections_double_nothing_and_show_no_traceback(at, cutter):
    """Many commands, each failing at a random point of its first attempt (and sometimes of a retry), each run
    again with the same id until it answers: no event doubled or lost, every failure one `Error:` line, the
    audit clean."""
    needs_postgres()
    rng = random.Random(20261219)
    target = at("scenario")  # SSR rolls: a retry that acted again would roll again
    cli = Cli(cutter.url(target.db))
    cli.ok("status")
    before = target.events()
    deck = [kind for kind, count in FAULTS for _ in range(count)]
    rng.shuffle(deck)
    outcomes: Counter = Counter()
    writes: dict[str, int] = {}
    for n, first_fault in enumerate(deck):
        command_id = f"srv-{n}"
        if n % 6 == 5:
            args, writes_events = ["status"], 0
        else:
            args, writes_events = ["roll", rng.choice(["KGP3", "KGP8"]), "--side", rng.choice(["german", "us"])], 1
        if writes_events:
            writes[command_id] = writes_events
        for attempt in range(8):
            fault = first_fault if attempt == 0 else rng.choice(["none"] * 3 + ["cut", "outage"])
            killer = None
            if fault == "cut":
                cutter.arm(cut=rng.randint(1, 60))
            elif fault == "outage":
                cutter.arm(outage=rng.randint(1, 40))
            elif fault.startswith("lost commit"):
                cutter.arm(tag=("COMMIT", 1), then_outage=fault.endswith("outage"))
            elif fault == "terminate":
                killer = threading.Timer(rng.uniform(0, 0.12), terminate_backends, args=(target.db,))
                killer.start()
            result = cli("--command-id", command_id, *args)
            if killer is not None:
                killer.join()
            cutter.heal()
            if result.exit_code == 0:
                already = result.stdout.startswith("already recorded as event")
                outcomes["already recorded" if already else "done"] += 1
                outcomes[f"{fault}: answered"] += 1
                break
            line = one_error_line(result, command_id)
            assert "moved on" not in line, line  # one writer: a conflict could only be our own lost commit
            assert f"--command-id {command_id}" in line or "cannot reach" in line, line
            outcomes["failed attempts"] += 1
            outcomes[f"{fault}: failed"] += 1
        else:
            raise AssertionError(f"{command_id} never answered")
    print(dict(outcomes), dict(cutter.events))
    stored = stored_commands(target.db)
    assert {c: n for c, n in stored.items() if c.startswith("srv-")} == writes  # nothing doubled, nothing lost
    assert target.events() == before + sum(writes.values())
    audit = target("audit")
    assert audit.exit_code == 0, audit.stdout
    # the run did meet what it is about: commits never heard of, and failures that needed a retry
    assert outcomes["already recorded"] >= 5 and outcomes["failed attempts"] >= 10


# ---- PostgreSQL: an import of any size -------------------------------------------------------------------------
PLAN = [("8.6141b", "german", ("front_line", "armor_leader=-1")), ("8.6142", "us", ("vehicular",)),
        ("8.61421", "german", ()), ("8.6144", "us", ()), ("8.6146", "german", ())]


def big_bundle(folder: Path, rolls: int) -> Path:
    """A campaign of `rolls` rolls as a bundle, made the way bench/bench_ledger.py makes its log (each roll the
    ledger's own decision, seeded dice), but recorded in memory: only the first few events are stored."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.verbs import acts
    from cgledger.ledger.decide import rolls as decide
    from cgledger.ledger.rules.dice import SeededDice
    from cgledger.ledger.exchange.pbem import FORMAT, Bundle, BundleEvent
    from cgledger.ledger.rules import parse_declared

    bench = str(Path(__file__).resolve().parent.parent / "bench")
    sys.path.insert(0, bench)
    try:
        from bench_ledger import to_8614  # the Initial Scenario, both 8.6113 DRs, then on to 8.614
    finally:
        sys.path.remove(bench)

    ledger = open_ledger(str(folder / "big.db"), create=True, dice=SeededDice(1))
    acts.new_campaign(ledger, "Big", "kgp", "I")
    to_8614(ledger)
    stored = ledger.history(None)
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    for i in range(rolls):
        table_id, side, drms = PLAN[i % len(PLAN)]
        table = rules.table(table_id)
        command = decide.RollCommand(table=table.id, side=side, drms=tuple(parse_declared(drms).items()),
                                     faces=ledger.dice.roll(table.die), source=ledger.dice.name, purpose=f"item {i}")
        campaign.record(decide.roll(campaign, rules, command)[0], "", None, f"bulk-{i}", command)  # with its command
    events = [BundleEvent(e.version, e.timestamp, e.prev, e.digest, e.fact, e.author, e.signature, e.command, e.form,
                          e.request) for e in stored]
    events += [BundleEvent(e.originator_version, e.timestamp, e.prev, e.digest, e.fact, e.author, e.signature,
                           e.command, e.form, e.request) for e in campaign.collect_events()]
    ledger.close()
    path = folder / "big.json"
    path.write_bytes(msgspec.json.encode(Bundle(FORMAT, "Big", "kgp", 0, events)))
    return path


def test_a_50000_event_bundle_imports_into_postgres_and_leaves_a_snapshot(make_db, tmp_path):
    needs_postgres()
    t0 = time.perf_counter()
    bundle = big_bundle(tmp_path, 50_000)
    t1 = time.perf_counter()
    cli = Cli(make_db())
    imported = cli.json("import", str(bundle))
    t2 = time.perf_counter()
    assert imported["imported"] == cli.events() and cli.events() > 50_000
    last = cli.events()
    assert imported["head"].startswith(f"{last}:")
    snapshots = sql(cli.db, "SELECT originator_version FROM cgledger_snapshots")
    assert (last,) in snapshots  # the next command starts from here, not from event 1
    roll = cli.json("--command-id", "after-import", "roll", "8.6144", "--side", "us", "--for", "after import")
    assert roll["id"] == last + 1
    assert cli.ok("--command-id", "after-import", "roll", "8.6144", "--side", "us", "--for", "after import"
                  ).stdout.startswith(f"already recorded as event {last + 1}")
    print(f"bundle of {last} events built in {t1 - t0:.1f} s, imported in {t2 - t1:.1f} s")


def test_an_import_cut_off_midway_stores_nothing_and_runs_again(make_db, tmp_path, cutter):
    """The connection drops after 3 of the import's 5 batches: one line, nothing stored (one transaction); run
    again, the whole bundle is imported. A lost reply to its COMMIT: run again, nothing is imported twice."""
    needs_postgres()
    bundle = big_bundle(tmp_path, 4_991)  # and the set-up's events (bench_ledger.to_8614): about 5,000
    total = len(msgspec.json.decode(bundle.read_bytes())["events"])
    target = make_db()
    cli = Cli(cutter.url(target))
    cutter.arm(tag=("INSERT 0 1000", 3), then_outage=True)
    one_error_line(cli("--command-id", "import-1", "import", str(bundle)), "import-1")
    assert cutter.events["lost INSERT 0 1000"] == 1
    cutter.heal()
    assert conftest.count_events(target) == 0
    assert cli.json("--command-id", "import-1", "import", str(bundle))["imported"] == total
    assert Counter(c for c in stored_commands(target) if c.startswith("bulk-")) == \
        {f"bulk-{i}": 1 for i in range(4_991)}
    assert (total,) in sql(target, "SELECT originator_version FROM cgledger_snapshots")

    more = tmp_path / "more.json"
    Cli(cli.db).ok("roll", "8.6144", "--side", "us", "--for", "more")  # a bundle of one more event, sent back
    Cli(cli.db).ok("export", "--since", "0", str(more))
    other = Cli(make_db())
    other.ok("import", str(bundle))
    cutter_other = Cli(cutter.url(other.db))
    cutter_other.ok("head")
    cutter.arm(tag=("COMMIT", 1), after="INSERT", then_outage=True)  # the COMMIT of the import's transaction
    one_error_line(cutter_other("--command-id", "import-2", "import", str(more)), "import-2")
    cutter.heal()
    assert other.events() == total + 1  # committed, unheard of
    retried = cutter_other("--command-id", "import-2", "import", str(more))  # its commit landed: nothing to do
    assert retried.exit_code == 0 and "nothing new in the bundle" in retried.stdout and other.events() == total + 1
    assert other.ok("head").stdout == cli.ok("head").stdout
