from __future__ import annotations

import atexit
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cgledger.cli import main

import pgpool

# the parsed rules kept between processes (ledger/rules/cachefile.py): this run's own, not the user's ~/.cache
_RULES_CACHE = tempfile.mkdtemp(prefix="cgledger-test-cache-")
os.environ["XDG_CACHE_HOME"] = _RULES_CACHE
atexit.register(shutil.rmtree, _RULES_CACHE, True)


# ---- the backend the suite runs on: SQLite files (default) or a real PostgreSQL (--backend postgres)
def pytest_addoption(parser):
    parser.addoption("--backend", default="sqlite", choices=["sqlite", "postgres"], help="event store to test")
    parser.addoption("--pg-url", default=os.environ.get("CGLEDGER_TEST_PG", ""),
                     help="admin URL of the PostgreSQL server for --backend postgres (see .ci/postgres)")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: about SQLite files themselves (corrupt, foreign, the demo)")
    global BACKEND, PG_ADMIN
    BACKEND, PG_ADMIN = config.getoption("--backend"), config.getoption("--pg-url")
    if BACKEND == "postgres" and not PG_ADMIN:
        raise pytest.UsageError("--backend postgres needs --pg-url (or CGLEDGER_TEST_PG); `bash .ci/postgres` prints one")


# the longest tests (a minute or more each: random two-player play, the browser, the benches' smoke runs), started
# first so that the workers of `pytest -n` (pytest-xdist) finish together instead of one waiting for the last
LONGEST = ("test_random_play.py", "test_bench_runs.py", "test_web_browser.py", "test_view_checkpoints.py",
           "test_any_field.py", "test_audit_worker.py", "test_live_date.py", "test_kept_views.py")


# A test is on the backend under test when it takes a database from a fixture that makes one for that backend (in its
# fixtures' closure), or when its module picks the backend itself (names it: `conftest.BACKEND`, `pg_create`).
BACKEND_FIXTURES = {"make_db", "at", "played"}
_PICKS_BACKEND = ("BACKEND", "pg_create", "pg_url")


def on_backend(item) -> bool:
    if BACKEND_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    source = _SOURCES.get(item.path)
    if source is None:
        source = _SOURCES[item.path] = item.path.read_text(encoding="utf-8")
    return any(name in source for name in _PICKS_BACKEND)


_SOURCES: dict = {}


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name not in LONGEST)  # stable: the order within each group is kept
    if config.getoption("--backend") == "postgres":
        # the PostgreSQL run runs what touches the event store under test; the rest (rules, parsers, SQLite files,
        # two players' own SQLite ledgers by email) ran on the SQLite run already, the same
        about_files = pytest.mark.skip(reason="about SQLite files; the PostgreSQL run has its own")
        store_free = pytest.mark.skip(reason="touches no PostgreSQL database: run on SQLite only")
        for item in items:
            if "sqlite_only" in item.keywords:
                item.add_marker(about_files)
            elif not on_backend(item):
                item.add_marker(store_free)


BACKEND, PG_ADMIN = "sqlite", ""


def pg_admin():
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True)


def pg_url(name: str) -> str:
    from urllib.parse import urlparse

    return urlparse(PG_ADMIN)._replace(path=f"/{name}").geturl()


def pg_create(template: str | None = None, frozen: bool = False) -> str:
    """A new database (a copy of `template` if given; `frozen`: a fixture's, never written after it was made); its
    URL. Taken from those earlier tests emptied (tests/pgpool.py)."""
    with pg_admin() as admin:
        if template:
            _close_own([template])
        return pg_url(pgpool.create(admin, pg_url, template, frozen))


def pg_name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def pg_drop(urls: list[str]) -> None:
    if not urls:
        return
    names = [pg_name(url) for url in urls]
    _close_own(names)
    with pg_admin() as admin:
        pgpool.drop(admin, pg_url, names)


def _close_own(names: list[str]) -> None:
    """This process's own sessions on the databases `names` closed: its opened ledgers, the `sql` helper's (closing
    them by collecting this process's garbage cost 0.3-0.6 s a test)."""
    from cgledger.cli.context import forget

    for name in names:
        forget(pg_url(name))
        conn = _SQL.pop(pg_url(name), None)
        if conn is not None:
            conn.close()


def pytest_sessionfinish(session):
    if BACKEND == "postgres":
        templates = [pg_name(url) for url in (*_TEMPLATES.values(), *_PLAYED.values()) if isinstance(url, str)]
        _close_own(templates)
        with pg_admin() as admin:
            pgpool.close(admin)
            for name in templates:  # this worker's `at` and `played` templates: none is left on the cluster
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_SQL: dict = {}  # url -> the `sql` helper's open connection to it (one server session a test, not one a query)


def _sql_conn(url: str):
    import select

    import psycopg

    conn = _SQL.get(url)
    # a session the server ended has said so on its socket (or is closed): a new one
    if conn is not None and (conn.closed or select.select([conn.fileno()], [], [], 0)[0]):
        _SQL.pop(url).close()
        conn = None
    if conn is None:
        while len(_SQL) >= 4:
            _SQL.pop(next(iter(_SQL))).close()
        conn = _SQL[url] = psycopg.connect(url, autocommit=True)
    return conn


def sql(db, query: str, params: tuple = ()) -> list:
    """Raw SQL on the stored events, whatever the backend: {events} is the events table, ? a parameter."""
    if isinstance(db, str):
        import psycopg

        text = query.format(events="cgledger_events", snapshots="cgledger_snapshots").replace("?", "%s")
        try:
            cursor = _sql_conn(db).execute(text, params)
        except psycopg.OperationalError:
            if not _SQL[db].broken:
                raise
            cursor = _sql_conn(db).execute(text, params)  # its session ended as it was sent: a new one
        return cursor.fetchall() if cursor.description else []
    with sqlite3.connect(db) as conn:
        return conn.execute(query.format(events="stored_events", snapshots="stored_snapshots"), params).fetchall()


def named_and_refused(sender, receiver, tmp_path, kind: str, contains: str) -> None:
    """The sender's log holds one problem of `kind` the audit names (`contains`), and a fresh ledger refuses its
    whole bundle on import, naming it."""
    result = sender("audit", "--json")
    findings = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1 and [f["kind"] for f in findings] == [kind], findings
    assert contains in findings[0]["message"], findings
    bundle = tmp_path / "bundle.json"
    sender.ok("export", "--since", "0", str(bundle))
    receiver.refused("import", str(bundle), contains=contains)


def count_events(db) -> int:
    return sql(db, "SELECT COUNT(*) FROM {events}")[0][0]


def what_is_stored(db):
    """The event count of a ledger; the bytes of any other file (foreign, corrupt)."""
    if isinstance(db, str):
        try:
            return count_events(db)
        except Exception:  # noqa: BLE001 - no ledger tables (yet)
            return None
    if not db.exists():
        return None
    try:
        return count_events(db)
    except sqlite3.DatabaseError:
        return db.read_bytes()


class Cli:
    """The real CLI through click's CliRunner, against a real SQLite file in tmp_path (or PostgreSQL)."""

    def __init__(self, db: Path, seed: str | None = None):
        self.db = db
        self.seed = seed
        self.runner = CliRunner()

    def __call__(self, *args: str, db: bool = True):
        prefix = ["--db", str(self.db)] if db else []
        if self.seed is not None:
            prefix += ["--seed", self.seed]
        return self.runner.invoke(main, [*prefix, *args], catch_exceptions=False)

    def ok(self, *args: str):
        result = self(*args)
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        return result

    def json(self, *args: str):
        return json.loads(self.ok(*args, "--json").stdout)

    def events(self) -> int:
        return count_events(self.db)

    def refused(self, *args: str, contains: str, code: int = 1):
        """A refusal: the exit code, one line on stderr naming the problem, nothing written."""
        before = what_is_stored(self.db)
        result = self(*args)
        assert result.exit_code == code, (result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 if code == 1 else lines, result.stderr
        assert contains in result.stderr, result.stderr
        assert what_is_stored(self.db) == before
        return result

    # ---- driving a campaign forward with neutral records ------------------------------------
    def to(self, step: str, date: str | None = None, attack_on: tuple[str, ...] = ()):
        """Moves the campaign until `step` is open (on `date`): every need met with a plain record
        (Initial Scenario won by the German at 0-0 LVP, CPP rolls of 6,6, no Ammunition Shortage),
        Idle Days except on `date` and `attack_on` dates (German Assault) so that scenarios happen."""
        for _ in range(600):
            status = self.json("status")
            here = status["progress"][status["you"]]["step"] if status.get("you") else status["step"]
            if here == step and (date is None or status["cg_date"] == date):
                return status
            self.satisfy(status, attack=status["cg_date"] == date or status["cg_date"] in attack_on)
            if self.json("status")["needs"]:
                continue  # met needs open others (an RG's strength, then the follow-ups it decides)
            self.ok("step", "next")
        raise AssertionError(f"never reached {step} {date}")

    def satisfy(self, status: dict, attack: bool = False) -> None:
        for need in status["needs"]:
            effect, side = need["effect"], need["side"]
            sides = list(status["sides"])
            if effect == "scenario_end":
                winner = ["--winner", "german"] if status["scenario"] == "Initial Scenario" and status["system"] == "kgp" else []
                self.ok("scenario-end", *[x for s in sides for x in ("--lvp", f"{s}=0")], *winner)
            elif effect == "initiative":
                self.ok("initiative", *[x for s in sides for x in
                                        ("--chit", f"{s}={'attack' if attack and s == 'german' else 'idle'}")])
            elif effect == "rg_followups":
                die = self.json("tables", need["table"])["die"]
                self.ok("roll", need["table"], "--side", self.rg_side(need["rg"]), "--rg", str(need["rg"]),
                        "--dice", "3,3" if die == "DR" else "3")
            elif effect == "ammo_shortage":
                self.ok("roll", need["table"], "--side", side, "--dice", "1,1")
            else:
                die = self.json("tables", need["table"])["die"]
                self.ok("roll", need["table"], "--side", side or sides[-1], "--dice", "6,6" if die == "DR" else "6")

    def with_rgs(self, *rgs: tuple[str, str]) -> "Cli":
        """At step 8.619: loads the test RG chart, buys each (RG ID, side), and opens 8.620, where their
        follow-up rolls are due (link them with --rg ID#N)."""
        self.ok("rules", "load", str(Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"))
        for rg, side in rgs:
            self.ok("buy", rg, "--side", side, "--map-group", "St", "--objective", "StJ19")
        self.ok("step", "8.620")
        return self

    def rg_side(self, version: int) -> str:
        return next(r["side"] for r in self.json("log") if r["version"] == version)


@pytest.fixture(autouse=True)
def machine_state(tmp_path_factory, monkeypatch):
    """Each test is its own machine: the heads it has seen (ledger/trust/seen.py) are kept in a folder of its own, and so
    is its key agent's socket (ledger/player/keyagent.py: under XDG_STATE_HOME when XDG_RUNTIME_DIR is not set), so that a
    player's own agent is never asked."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)


@pytest.fixture
def make_db(tmp_path: Path):
    """make_db() -> a fresh, empty database target: a SQLite path, or a new PostgreSQL database URL."""
    made: list[str] = []
    count = iter(range(1000))

    def make():
        if BACKEND == "postgres":
            made.append(pg_create())
            return made[-1]
        return tmp_path / f"campaign{next(count) or ''}.db"

    yield make
    pg_drop([m for m in made if BACKEND == "postgres"])


@pytest.fixture
def cli(make_db) -> Cli:
    return Cli(make_db())


@pytest.fixture
def kgp(cli: Cli) -> Cli:
    """A fresh KGP CG I campaign at 19 AM, before its Initial Scenario (step 8.618)."""
    cli.ok("new", "CG I", "--system", "kgp", "--cg", "I")
    return cli


@pytest.fixture
def rr(cli: Cli) -> Cli:
    """A fresh RR campaign, both sides with 200 CPP."""
    cli.ok("new", "RR", "--system", "rr", "--cg", "RR", "--start-cpp", "german=200", "--start-cpp", "canadian=200")
    return cli


_TEMPLATES: dict[tuple, object] = {}


@pytest.fixture
def at(tmp_path: Path, tmp_path_factory):
    """at(step, date=None, cg='I') -> a Cli on a copy of a campaign driven to that step (cached per run:
    a copied folder for SQLite, a database made from a template database for PostgreSQL)."""
    made: list[str] = []

    def make(step: str, date: str | None = None, cg: str = "I") -> Cli:
        key = (BACKEND, step, date, cg)
        if key not in _TEMPLATES:
            if BACKEND == "postgres":
                target = pg_create()
            else:
                target = tmp_path_factory.mktemp("template") / "campaign.db"
            template = Cli(target)
            template.ok("new", f"CG {cg}", "--cg", cg)
            template.to(step, date)
            _TEMPLATES[key] = target
        if BACKEND == "postgres":
            made.append(pg_create(template=pg_name(_TEMPLATES[key]), frozen=True))
            return Cli(made[-1])
        folder = tmp_path / f"at-{step}-{date}-{cg}-{len(made)}".replace(" ", "_")  # a second copy: its own folder
        made.append(str(folder))
        shutil.copytree(_TEMPLATES[key].parent, folder)
        return Cli(folder / "campaign.db")

    yield make
    pg_drop([m for m in made if BACKEND == "postgres"])


_PLAYED: dict[tuple, object] = {}
FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def played(tmp_path: Path, tmp_path_factory):
    """played(name='kgp-cg1-sample.cgl') -> a copy of a shipped sample campaign, played by `script FILE --quiet` once
    per run (a copied folder for SQLite, a database made from a template database for PostgreSQL), audited once on
    this test's machine: every event checked and its mark kept, as on the machine that played it (no answer kept)."""
    from cgledger.cli.context import forget

    made: list[str] = []

    def make(name: str = "kgp-cg1-sample.cgl"):
        key = (BACKEND, name)
        if key not in _PLAYED:
            target = pg_create() if BACKEND == "postgres" else tmp_path_factory.mktemp("played") / "campaign.db"
            Cli(target).ok("script", str(FIXTURES / name), "--quiet")
            forget(str(target))  # closed: on SQLite its WAL folded into the file
            _PLAYED[key] = target
        if BACKEND == "postgres":
            copy = pg_create(template=pg_name(_PLAYED[key]), frozen=True)
        else:
            folder = tmp_path / f"played-{len(made)}"
            shutil.copytree(_PLAYED[key].parent, folder)
            copy = folder / "campaign.db"
        made.append(copy)
        Cli(copy).ok("audit")  # this machine has checked it all (its mark), as the machine that played it has
        forget(str(copy))
        return copy

    yield make
    pg_drop([m for m in made if BACKEND == "postgres"])


@pytest.fixture
def sample_lines() -> list[str]:
    return (Path(__file__).parent.parent / "fixtures" / "kgp-cg1-sample.cgl").read_text().splitlines()


class Player(Cli):
    """The CLI as one player runs it: with that player's passphrase in the environment."""

    def __init__(self, db, passphrase: str | None):
        super().__init__(db)
        self.passphrase = passphrase

    def __call__(self, *args: str, db: bool = True):
        import os

        old = os.environ.pop("CGLEDGER_PASSPHRASE", None)
        if self.passphrase:
            os.environ["CGLEDGER_PASSPHRASE"] = self.passphrase
        try:
            return super().__call__(*args, db=db)
        finally:
            os.environ.pop("CGLEDGER_PASSPHRASE", None)
            if old is not None:
                os.environ["CGLEDGER_PASSPHRASE"] = old


def keyed_players(db, german: str, us: str) -> tuple[Player, Player]:
    """Both sides' players, each having set up its side's key with its own passphrase, agreeing to the campaign's
    dice where they are not fair."""
    players = Player(db, german), Player(db, us)
    dice = players[0].json("status")["dice"]
    agreed = ("--dice", dice) if dice == "immediate" else ()
    players[0].ok("keys", "init", "--side", "german", *agreed)
    players[1].ok("keys", "init", "--side", "us", *agreed)
    return players


def kept_command(fact):
    """The command a ledger keeps with `fact` as the first event of its act (None where no command makes it alone):
    what a forger's doctored ledger writes along with the fact."""
    from cgledger.ledger.decide import commands, rolls
    from cgledger.ledger.domain.events import DiceRolled

    return rolls.command_of(fact) if isinstance(fact, DiceRolled) else commands.command_of(fact)
