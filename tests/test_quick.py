"""The `cgledger` program's quick path (cli/quick.py "start instantly"): `status`, `step` (the open step), `date`,
`head`, `final`, `roster`, `rg-record`, `history`, `dice-stats`, `areas`, `map`, `report`, `log` and `export` run
without click, and print (and write) exactly what
the click commands print, refusals and warnings included; every other command line goes to click. Each form is run both
ways as a player runs it (a subprocess), each way on a machine of its own (its own state folder: its own marks, views
and answers kept), first and again (the second answered from what the first kept), and what each printed and its exit
status are compared."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import conftest
from conftest import Player, what_is_stored

from cgledger.cli import main
from cgledger.cli.app import forget
from cgledger.cli.quick import parse

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "fixtures" / "kgp-cg1-sample.cgl"
QUICK = "import sys; sys.argv[0] = 'cgledger'; from cgledger.cli.quick import main; main()"  # as the console script
CLICK = "from cgledger.cli.app import main; main(prog_name='cgledger')"


@pytest.fixture
def sample(played) -> str:
    return str(played())


def stored(db: str):
    """The event count of a database given as the commands take it (a PostgreSQL URL, or a SQLite file's path)."""
    return what_is_stored(Path(db) if conftest.BACKEND == "sqlite" else db)


def environment(state: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CGLEDGER_")}
    env.update(XDG_STATE_HOME=str(state), PYTHONDONTWRITEBYTECODE="1", **settings)
    return env


def both(tmp_path: Path, args: list[str], runs: int = 2, **settings: str) -> list[tuple]:
    """(exit status, stdout, stderr) of the quick path and of click, each on a fresh machine of its own, `runs` times;
    asserts each run printed the same both ways, and returns the quick path's."""
    states = {way: tmp_path / f"state-{way}-{abs(hash(tuple(args)))}" for way in ("quick", "click")}
    for state in states.values():
        shutil.rmtree(state, ignore_errors=True)
    seen = []
    for _ in range(runs):
        done = {way: subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                                    env=environment(states[way], **settings), cwd=tmp_path, timeout=120)
                for way, code in (("quick", QUICK), ("click", CLICK))}
        printed = {way: (d.returncode, d.stdout, d.stderr) for way, d in done.items()}
        assert printed["quick"] == printed["click"], args
        seen.append(printed["quick"])
    return seen


@pytest.mark.parametrize("args", [
    ["status"], ["status", "--json"], ["head"], ["head", "--json"],
    ["--campaign", "KGP CG I sample", "status", "--json"], ["status", "--campaign=KGP CG I sample"],
    ["status", "--as-of", "19 AM"], ["status", "--json", "--as-of=20 AM"], ["head", "--as-of", "19 PM", "--json"],
])
def test_status_and_head_print_what_click_prints(sample, tmp_path, args):
    (first_code, first, _), again = both(tmp_path, args, CGLEDGER_DB=sample)
    assert first_code == 0 and first.strip()
    assert again[:2] == (0, first)


@pytest.mark.parametrize("args", [
    ["step"], ["step", "--json"], ["--campaign", "KGP CG I sample", "step", "--json"], ["step", "--db", "SAMPLE"],
    ["date"], ["date", "--json"], ["date", "--as-of", "19 AM"], ["date", "--json", "--as-of=20 AM"],
    ["date", "--campaign=KGP CG I sample"], ["final"], ["final", "--json"], ["--db", "SAMPLE", "final", "--json"],
])
def test_the_open_step_the_date_and_the_result_print_what_click_prints(sample, tmp_path, args):
    """`step` without a TARGET (status's answer), `date` now or as of a CG Date, `final`: text and JSON."""
    db = str(tmp_path / "not-here.db") if "SAMPLE" in args else sample  # --db given: it wins over CGLEDGER_DB
    (first_code, first, _), again = both(tmp_path, [sample if a == "SAMPLE" else a for a in args], CGLEDGER_DB=db)
    assert first_code == 0 and first.strip()
    assert again[:2] == (0, first)


@pytest.mark.parametrize("args", [
    ["roster", "--side", "german"], ["roster", "--side=us", "--json"], ["roster", "--csv", "--side", "german"],
    ["roster", "--side", "us", "--as-of", "19 PM"], ["rg-record", "--side", "german"],
    ["rg-record", "--side", "us", "--csv", "--json"], ["rg-record", "--side", "german", "--as-of", "19 AM", "--csv"],
    ["history"], ["history", "--json"], ["history", "--as-of", "19 PM"], ["dice-stats"],
    ["dice-stats", "--side", "german", "--json"], ["dice-stats", "--as-of", "20 AM"],
    ["areas", "--group", "St"], ["areas", "--json", "--group=St", "--as-of", "19 PM"],
])
def test_the_books_and_dice_print_what_click_prints(sample, tmp_path, args):
    """8.6162 roster, 8.6198 RG Purchase Record, the story and the dice: text, CSV and JSON, as of a CG Date."""
    (first_code, first, _), again = both(tmp_path, args, CGLEDGER_DB=sample)
    assert first_code == 0 and first.strip()
    assert again[:2] == (0, first)


@pytest.mark.parametrize("args", [
    ["map", "--group", "St", "--svg", "out/st.svg"], ["map", "--svg=./out//st.svg", "--group", "St", "--as-of", "19 PM"],
    ["report", "--html", "out/report.html"], ["report", "--as-of", "19 PM", "--html=out/report.html"],
])
def test_the_map_and_the_report_write_what_click_writes(sample, tmp_path, args):
    """8.605's map as SVG and the story as HTML: the same file and the same line both ways."""
    (tmp_path / "out").mkdir()
    written = tmp_path / "out" / ("st.svg" if args[0] == "map" else "report.html")
    files = {}
    for way, code in (("quick", QUICK), ("click", CLICK)):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=environment(tmp_path / f"state-{way}", CGLEDGER_DB=sample), timeout=120)
        files[way] = (done.returncode, done.stdout, done.stderr, written.read_text(encoding="utf-8"))
        written.unlink()
    assert files["quick"] == files["click"]
    said = "map written to out/st.svg" if args[0] == "map" else "report written to out/report.html"
    assert files["quick"][:2] == (0, said + "\n") and files["quick"][3].strip()


@pytest.mark.parametrize("args", [
    ["log"], ["log", "--json"], ["log", "--last", "3"], ["log", "--json", "--last=3"], ["log", "--as-of", "19 AM"],
    ["log", "--json", "--as-of", "19 PM", "--last", "2"], ["--db", "SAMPLE", "log", "--last", "3"],
    ["log", "--db", "SAMPLE", "--json"], ["--campaign=KGP CG I sample", "log"],
    ["log", "--last", "4", "--campaign", "KGP CG I sample", "--json"],
])
def test_the_log_prints_what_click_prints(sample, tmp_path, args):
    """The whole log, its tail, as of a CG Date: text and JSON (streamed both ways)."""
    db = str(tmp_path / "not-here.db") if "SAMPLE" in args else sample  # --db given: it wins over CGLEDGER_DB
    (first_code, first, _), again = both(tmp_path, [sample if a == "SAMPLE" else a for a in args], CGLEDGER_DB=db)
    assert first_code == 0 and first.strip()
    assert again[:2] == (0, first)


def exported(tmp_path: Path, args: list[str], **settings: str) -> tuple:
    """(exit status, stdout, stderr, the file written or None) of `export`, the quick path's and click's alike."""
    written = tmp_path / "out" / "b.json"
    seen = {}
    for way, code in (("quick", QUICK), ("click", CLICK)):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=environment(tmp_path / f"state-{way}", **settings), timeout=120)
        seen[way] = (done.returncode, done.stdout, done.stderr, written.read_bytes() if written.exists() else None)
        written.unlink(missing_ok=True)
    assert seen["quick"] == seen["click"], args
    return seen["quick"]


def test_export_writes_what_click_writes(sample, tmp_path):
    """The whole campaign, or since the opponent's `head`: the same file, byte for byte, and the same line."""
    (tmp_path / "out").mkdir()
    earlier = subprocess.run([sys.executable, "-c", QUICK, "head", "--as-of", "19 PM"], capture_output=True, text=True,
                             env=environment(tmp_path / "state-head", CGLEDGER_DB=sample), timeout=120).stdout.strip()
    assert parse(["export", "--since", earlier, "out/b.json"]) is not None
    for args in (["export", "--since", "0", "out/b.json"], ["export", "out//b.json", "--since=" + earlier, "--json"],
                 ["--db", sample, "export", "--json", "--since", "0", "./out/b.json"],
                 ["export", "--since", earlier, "out/b.json", "--campaign", "KGP CG I sample", "--db", sample]):
        code, out, err, written = exported(tmp_path, args, CGLEDGER_DB=sample)
        assert code == 0 and out.strip() and written, (args, err)
        assert "out/b.json" in out or '"events"' in out


@pytest.mark.sqlite_only
def test_export_refuses_as_click_refuses(sample, tmp_path):
    """An unknown fingerprint, a missing database, an unknown campaign, a folder that does not exist: one line, exit
    1, nothing written, nothing stored."""
    (tmp_path / "out").mkdir()
    before = stored(sample)
    for args in (["export", "--since", "3:0123456789abcdef", "out/b.json"], ["export", "--since", "x", "out/b.json"],
                 ["--db", str(tmp_path / "none.db"), "export", "--since", "0", "out/b.json"],
                 ["export", "--since", "0", "out/b.json", "--campaign", "Nope"],
                 ["export", "--since", "0", "nowhere/b.json"]):
        assert parse(args) is not None, args
        code, out, err, written = exported(tmp_path, args, CGLEDGER_DB=sample)
        assert code == 1 and out == "" and err.startswith("Error: ") and len(err.splitlines()) == 1, (args, err)
        assert written is None and not (tmp_path / "nowhere").exists()
    assert stored(sample) == before and not (tmp_path / "none.db").exists()


def test_a_file_that_cannot_be_written_is_said_as_click_says_it(sample, tmp_path):
    """A folder that does not exist: one line, exit 1; a folder given as the file: click's own refusal."""
    (tmp_path / "a-folder.svg").mkdir()
    for args in (["map", "--group", "St", "--svg", "no-such-folder/st.svg"], ["report", "--html", "nowhere/r.html"],
                 ["map", "--group", "St", "--svg", "a-folder.svg"]):
        (code, out, err), = both(tmp_path, args, runs=1, CGLEDGER_DB=sample)
        assert code != 0 and out == "" and err.strip(), args
    assert parse(["map", "--group", "St", "--svg", str(tmp_path / "a-folder.svg")]) is None


@pytest.mark.parametrize("args, says", [
    (["roster", "--side", "british"], "british"), (["dice-stats", "--side", "allied"], "allied"),
    (["history", "--as-of", "32 AM"], "8.6121"), (["rg-record", "--side", "us", "--as-of", "Spring"], "8.6121"),
    (["areas", "--group", "Zz"], "Zz"), (["map", "--group", "Zz", "--svg", "zz.svg"], "Zz"),
    (["report", "--html", "r.html", "--as-of", "19 XM"], "8.6121"),
])
def test_the_books_refuse_as_click_refuses(sample, tmp_path, args, says):
    before = stored(sample)
    (code, out, err), = both(tmp_path, args, runs=1, CGLEDGER_DB=sample)
    assert code == 1 and out == "" and says in err and len(err.strip().splitlines()) == 1, err
    assert stored(sample) == before


def test_the_forms_taken_here_are_the_click_commands_own():
    """The options and flags the quick path takes are exactly the click command's, each of the same kind (a flag, or
    an option with a value, none read from the environment), and the options click requires are the ones the quick
    path requires; an argument is taken only where ARGUMENTS names it (`export FILE`: one, required, a file to write),
    else none may be required (`step TARGET`); `--last` is click's whole number from 1, a file a click.Path that is no
    folder."""
    import click

    from cgledger.cli.app import main as group
    from cgledger.cli.quick import ARGUMENTS, COMMANDS, FILES, LOCAL, WHOLE

    with click.Context(group) as ctx:
        for name, (values, flags, required) in COMMANDS.items():
            params = group.get_command(ctx, name).params
            options = {p.opts[0]: p for p in params if isinstance(p, click.Option)}
            assert set(options) == {*LOCAL, *values, *flags}, name
            for opt in LOCAL + values:
                assert not options[opt].is_flag and not options[opt].multiple, (name, opt)
            for opt in flags:
                assert options[opt].is_flag, (name, opt)
            assert {o[2:] for o, p in options.items() if p.required} == set(required), name
            assert not any(p.envvar for p in options.values()), name
            arguments = [p for p in params if isinstance(p, click.Argument)]
            if name in ARGUMENTS:
                (argument,) = arguments
                assert argument.required and argument.nargs == 1, name
            assert not any(p.required for p in arguments if name not in ARGUMENTS), name
            for param in [options[o] for o in FILES if o in options] + (arguments if name in ARGUMENTS else []):
                kind = param.type
                assert isinstance(kind, click.Path) and not kind.dir_okay and not kind.exists, (name, param.name)
                assert kind.readable and not kind.writable and not kind.allow_dash and not kind.resolve_path, name
            for opt in WHOLE:
                if opt in options:
                    kind = options[opt].type
                    assert isinstance(kind, click.IntRange) and (kind.min, kind.max, kind.min_open) == (1, None, False)


def test_the_database_is_found_as_click_finds_it(sample, tmp_path):
    """--db before or after the command name (after it wins), CGLEDGER_DB, an empty variable as none."""
    elsewhere = str(tmp_path / "not-here.db")
    for args, settings in ((["--db", sample, "status"], {}), (["status", "--db", sample], {"CGLEDGER_DB": elsewhere}),
                           (["--db", elsewhere, "head", "--db", sample], {}),
                           (["--db=" + sample, "head"], {"CGLEDGER_CAMPAIGN": ""})):
        (code, out, _), _again = both(tmp_path, args, **settings)
        assert code == 0 and out.strip(), args


@pytest.mark.parametrize("args, says", [
    (["--campaign", "Nope", "status"], "no campaign 'Nope'"),
    (["head", "--campaign", "Nope", "--json"], "no campaign 'Nope'"),
    (["status", "--as-of", "32 XX"], "8.6121"),
    (["head", "--as-of", "32 XX"], "8.6121"),
    (["step", "--campaign", "Nope"], "no campaign 'Nope'"), (["--campaign=Nope", "step", "--json"], "no campaign 'Nope'"),
    (["date", "--campaign", "Nope"], "no campaign 'Nope'"), (["date", "--as-of", "32 XX", "--json"], "8.6121"),
    (["final", "--campaign", "Nope"], "no campaign 'Nope'"), (["--campaign", "Nope", "final", "--json"], "no campaign"),
    (["log", "--campaign", "Nope"], "no campaign 'Nope'"), (["--campaign=Nope", "log", "--json"], "no campaign 'Nope'"),
    (["log", "--last", "2", "--campaign", "Nope"], "no campaign 'Nope'"), (["log", "--as-of", "32 XX"], "8.6121"),
])
def test_refusals_are_the_same_one_line(sample, tmp_path, args, says):
    before = stored(sample)
    for code, out, err in both(tmp_path, args, CGLEDGER_DB=sample):
        assert code == 1 and out == "" and err.startswith("Error: ") and says in err and len(err.splitlines()) == 1
    assert stored(sample) == before


@pytest.mark.sqlite_only
def test_missing_foreign_and_damaged_files_are_the_same_one_line(tmp_path):
    foreign = tmp_path / "notes.db"
    foreign.write_text("a shopping list, not a campaign\n" * 200)
    for args in (["--db", str(tmp_path / "none.db"), "status"], ["--db", str(tmp_path / "none.db"), "head", "--json"],
                 ["--db", str(foreign), "status"], ["head", "--db", str(foreign)],
                 ["--db", str(tmp_path / "no-such-folder" / "c.db"), "head"],
                 ["--db", str(tmp_path / "none.db"), "step"], ["date", "--db", str(tmp_path / "none.db"), "--json"],
                 ["--db", str(tmp_path / "none.db"), "final"], ["final", "--json", "--db", str(foreign)],
                 ["--db", str(foreign), "date", "--as-of", "19 AM"], ["step", "--json", "--db", str(foreign)]):
        for code, out, err in both(tmp_path, args, runs=1):
            assert code == 1 and out == "" and err.startswith("Error: ") and len(err.splitlines()) == 1, (args, err)
    assert foreign.read_text() == "a shopping list, not a campaign\n" * 200


@pytest.mark.sqlite_only
def test_a_warning_is_said_after_the_answer_as_click_says_it(sample, tmp_path):
    """A database replaced by an older copy of itself: each machine saw the longer log, and both say events are
    gone, on stderr after the status."""
    older = tmp_path / "older.db"
    shutil.copy(sample, older)
    Player(sample, None).ok("undo")  # one event more than the copy
    states = [tmp_path / "state-quick", tmp_path / "state-click"]
    for state in states:  # each machine reads the longer log, then the file is the older copy
        done = subprocess.run([sys.executable, "-c", QUICK, "status"], env=environment(state, CGLEDGER_DB=sample),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    forget(sample)
    for extra in ("-wal", "-shm"):  # the file replaced as a player restores a copy: no WAL of the newer one left
        Path(sample + extra).unlink(missing_ok=True)
    shutil.copy(older, sample)
    printed = []
    for state, code in zip(states, (QUICK, CLICK)):
        done = subprocess.run([sys.executable, "-c", code, "status"], env=environment(state, CGLEDGER_DB=sample),
                              capture_output=True, text=True, timeout=120)
        printed.append((done.returncode, done.stdout, done.stderr))
    assert printed[0] == printed[1]
    assert printed[0][1].strip() and printed[0][2].startswith("Warning: ") and "are gone" in printed[0][2]


@pytest.mark.sqlite_only
def test_a_keyed_status_answers_the_waiting_fair_roll_as_click_does(at, tmp_path):
    """With the U.S. key, `status` first gives the dice the German's declared roll waits for (it records): both ways
    record the same events and print the same lines."""
    from test_fair_dice import US, keyed, rows

    german, _us, anyone = keyed(at("8.610"))
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    forget(str(german.db))
    copies = {}
    for way in ("quick", "click"):
        folder = tmp_path / way
        shutil.copytree(Path(german.db).parent, folder)
        copies[way] = folder / Path(german.db).name
    printed, logged = {}, {}
    for way, code in (("quick", QUICK), ("click", CLICK)):
        done = subprocess.run([sys.executable, "-c", code, "status"], capture_output=True, text=True, timeout=120,
                              env=environment(tmp_path / f"state-{way}", CGLEDGER_DB=str(copies[way]),
                                              CGLEDGER_PASSPHRASE=US))
        printed[way] = (done.returncode, done.stdout, done.stderr)
        logged[way] = [(r["type"], r.get("author")) for r in rows(Player(copies[way], None))]
    assert printed["quick"] == printed["click"]
    assert printed["quick"][0] == 0 and "waiting" not in printed["quick"][1]
    assert logged["quick"] == logged["click"] and ("RollAnswered", "us") in logged["quick"]


def test_a_name_the_terminal_cannot_encode_is_written_as_click_writes_it(make_db, tmp_path):
    db = str(make_db())
    done = CliRunner().invoke(main, ["--db", db, "new", "Stoumont – Peiper’s", "--system", "kgp", "--cg", "I"])
    assert done.exit_code == 0, done.output
    forget(db)
    for args in (["status"], ["status", "--json"], ["--campaign", "Stoumont – Peiper’s", "head"]):
        (code, out, _err), = both(tmp_path, args, runs=1, CGLEDGER_DB=db, PYTHONIOENCODING="ascii")
        assert code == 0 and out.strip(), args


def test_other_command_lines_go_to_click(sample, tmp_path):
    for args in (["status", "--help"], ["--seed", "1", "status"], ["status", "now"], ["status", "--json", "--json"],
                 ["--db", "", "status"], ["status", "--db"], ["head", "--as-of", "--json"], ["--json", "head"],
                 ["step", "--help"], ["step", "--as-of", "19 AM"], ["date", "--help"], ["date", "--csv"],
                 ["date", "--as-of"], ["final", "--help"], ["final", "--as-of", "19 AM"], ["final", "--jsn"],
                 ["final", "now"], ["date", "19 AM"], ["log", "--last", "0"], ["log", "--last", "x"],
                 ["log", "--last", "+3"], ["log", "--last", "-1"], ["log", "--last"], ["log", "--help"], ["log", "now"],
                 ["export", "--since", "0"], ["export", "--since", "0", "a.json", "b.json"], ["export", "a.json"],
                 ["export", "--help"], ["export", "--since", "0", "a.json", "--help"], ["export", "--since", "0", "-"],
                 ["export", "--since", "0", "--", "a.json"], ["export", "--since", "0", ""]):
        assert parse(args) is None, args
        both(tmp_path, args, runs=1, CGLEDGER_DB=sample)
    assert "Usage: cgledger status" in both(tmp_path, ["status", "--help"], runs=1)[0][1]
    assert "Usage: cgledger step" in both(tmp_path, ["step", "--help"], runs=1)[0][1]
    assert "Usage: cgledger export" in both(tmp_path, ["export", "--help"], runs=1)[0][1]
    assert not (tmp_path / "b.json").exists()  # two FILEs: click's usage error (`-- a.json`: click's, written)


@pytest.mark.sqlite_only
@pytest.mark.parametrize("args", [["step", "next"], ["step", "--json", "next"], ["step", "8.616"],
                                  ["--campaign", "KGP CG I sample", "step", "next", "--json"]])
def test_a_step_that_moves_goes_to_click(sample, tmp_path, args):
    """`step TARGET` moves the campaign (a write): click's, as the console script runs it; each way on its own copy
    of the log, both print the same and store the same."""
    assert parse(args) is None
    printed, counts = {}, {}
    forget(sample)
    before = stored(sample)
    for way, code in (("quick", QUICK), ("click", CLICK)):
        db = tmp_path / f"{way}.db"
        shutil.copy(sample, db)
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                              env=environment(tmp_path / f"state-{way}", CGLEDGER_DB=str(db)), cwd=tmp_path)
        printed[way] = (done.returncode, done.stdout, done.stderr)
        counts[way] = stored(str(db))
    assert printed["quick"] == printed["click"]
    assert counts["quick"] == counts["click"] and counts["quick"] > before and printed["quick"][0] == 0  # it moved


def test_the_forms_taken_here():
    assert parse(["status"]) == ("status", {}, frozenset())
    assert parse(["--db", "a.db", "--campaign=CG I", "head", "--json", "--db", "b.db", "--as-of", "20 AM"]) == (
        "head", {"db": "b.db", "campaign": "CG I", "as-of": "20 AM"}, {"json"})
    assert parse(["--key-file", "k", "--command-id", "c1", "status"]) == (
        "status", {"key-file": "k", "command-id": "c1"}, frozenset())
    assert parse(["roster", "--csv", "--side=us", "--json"]) == ("roster", {"side": "us"}, {"csv", "json"})
    assert parse(["dice-stats"]) == ("dice-stats", {}, frozenset())
    assert parse(["roster"]) is None and parse(["rg-record", "--json"]) is None  # --side is required: click says so
    assert parse(["history", "--side", "us"]) is None and parse(["status", "--csv"]) is None  # not theirs
    assert parse(["--side", "us", "roster"]) is None and parse(["roster", "--side", "us", "--side", "german"]) is None
    assert parse(["--as-of", "20 AM", "status"]) is None  # a command's option before its name: click says so
    assert parse(["--db", "a.db", "--db", "b.db", "status"]) is None
    assert parse(["head", "status"]) is None and parse([]) is None and parse(["audit"]) is None
    assert parse(["log"]) == ("log", {}, frozenset()) and parse(["log", "--last", "0"]) is None
    assert parse(["log", "--json", "--last=12", "--as-of", "19 PM"]) == ("log", {"last": "12", "as-of": "19 PM"}, {"json"})
    assert parse(["export", "b.json", "--since", "0"]) == ("export", {"file": "b.json", "since": "0"}, frozenset())
    assert parse(["export", "--since", "0"]) is None and parse(["export", "b.json"]) is None  # both required
    assert parse(["export", "b.json", "--since", "0", "c.json"]) is None and parse(["b.json", "export"]) is None
    assert parse(["export", "--since", "0", "--file", "b.json"]) is None and parse(["status", "b.json"]) is None
    assert parse(["step", "--json"]) == ("step", {}, {"json"}) and parse(["step", "next"]) is None
    assert parse(["--db", "a.db", "date", "--as-of=19 PM"]) == ("date", {"db": "a.db", "as-of": "19 PM"}, frozenset())
    assert parse(["final", "--campaign", "CG I", "--json"]) == ("final", {"campaign": "CG I"}, {"json"})
    assert parse(["step", "--as-of", "19 PM"]) is None and parse(["final", "--as-of", "19 PM"]) is None  # not theirs


def test_the_quick_path_loads_neither_click_nor_the_event_sourcing_library(sample, tmp_path):
    """Nor OpenSSL's hashlib (ledger/sha.py) nor typing_extensions (`lean_msgspec`): each ~3-7 ms of a read's start."""
    probe = ("import atexit, sys; sys.argv = ['cgledger', '{}']\n"  # the process ends by os._exit: an exit handler
             "atexit.register(lambda: print(sorted(m for m in ('click', 'eventsourcing', 'psycopg', '_hashlib', "
             "'typing_extensions', 'inspect') if m in sys.modules)))\n"
             "from cgledger.cli.quick import main\nmain()")
    for command in ("head", "status", "status", "history", "dice-stats", "step", "date", "log", "final"):  # the second
        # status: what the first kept
        done = subprocess.run([sys.executable, "-c", probe.format(command)], capture_output=True, text=True,
                              timeout=120, env=environment(tmp_path / "state", CGLEDGER_DB=sample))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == "[]", (command, done.stdout)
    if conftest.BACKEND == "sqlite":
        assert "eventsourcing" not in done.stdout


def test_the_quick_path_ends_as_sys_exit_ends_but_frees_nothing(sample, tmp_path):
    """A quick read ends by os._exit (reading.one_shot: what it read is never freed, the collector stays off): its exit
    status, its lines, and the exit handlers run (context._close_all closes its connections) as sys.exit would."""
    probe = ("import atexit, gc, sys; sys.argv = ['cgledger'] + sys.argv[1:]\n"
             "from cgledger.ledger.store import reading\n"
             "atexit.register(lambda: print('held', len(reading._held), 'collector', gc.isenabled(), file=sys.stderr))\n"
             "from cgledger.cli.quick import main\nmain()")
    env = environment(tmp_path / "state", CGLEDGER_DB=sample)
    done = subprocess.run([sys.executable, "-c", probe, "history"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0 and done.stdout.startswith("19 AM: Initial Scenario") and done.stdout.endswith("CG\n")
    held = done.stderr.split()
    assert held[:2] == ["held", held[1]] and int(held[1]) >= 1 and held[2:] == ["collector", "False"]
    refused = subprocess.run([sys.executable, "-c", probe, "roster", "--side", "nobody"], capture_output=True,
                             text=True, timeout=120, env=env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("Error: ") and refused.stderr.splitlines()[1].startswith("held ")


def test_a_process_that_is_not_one_shot_holds_nothing():
    """`serve` and the tests never call one_shot: `hold` keeps nothing there (a server would grow with every read)."""
    from cgledger.ledger.store import reading

    value = object()
    assert reading.hold(value) is value and reading._held is None


def test_the_click_groups_reads_end_one_shot_and_its_writes_do_not(sample, tmp_path):
    """Run by the console script, a read the click group takes (app.ONE_SHOT: `log`, `export`, `audit`, ...) ends as
    the quick path ends (freeing nothing, its exit handlers run, its status kept); a write never does."""
    probe = ("import atexit, gc, sys; sys.argv = ['cgledger'] + sys.argv[1:]\n"
             "from cgledger.ledger.store import reading\n"
             "atexit.register(lambda: print('held', reading._held is not None, gc.isenabled(), file=sys.stderr))\n"
             "from cgledger.cli.quick import main\nmain()")
    env = environment(tmp_path / "state")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120,
                              env=env)

    done = run("--db", sample, "log", "--json")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("]")
    assert done.stderr.splitlines()[-1] == "held True False"
    refused = run("--db", sample, "log", "--json", "--last", "nothing")
    assert refused.returncode == 2 and "Error" in refused.stderr and refused.stderr.splitlines()[-1].startswith("held")
    written = run("--db", str(tmp_path / "new.db"), "new", "Fresh", "--system", "kgp", "--cg", "I")
    assert written.returncode == 0, written.stderr
    assert written.stderr.splitlines()[-1] == "held False True"
