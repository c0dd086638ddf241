"""Every wrong input: one line naming the problem (and the rule), a non-zero exit, no event written."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import Cli


@pytest.mark.parametrize(
    "step, args, contains",
    [
        ("8.610", ("roll", "9.999", "--side", "german"), "unknown table '9.999'"),
        ("8.610", ("roll", "H1.42", "--side", "us"), "named in KGP17 but not printed"),
        ("8.610", ("roll", "8.610", "--side", "russian"), "unknown side 'russian'"),
        ("8.610", ("roll", "8.610", "--side", "german", "--drm", "drunk"), "no DRM 'drunk' on table 8.610"),
        ("8.610", ("roll", "8.610", "--side", "german", "--drm", "german"), "DRM 'german' is automatic"),
        ("8.610", ("roll", "8.610", "--side", "german", "--drm", "isolated=3"), "DRM 'isolated' is a flag"),
        ("8.613", ("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes"), "needs a number"),
        ("8.613", ("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes=x"), "malformed DRM"),
        ("8.610", ("roll", "8.610", "--side", "german", "--drm", "isolated", "--drm", "isolated"), "given twice"),
        ("8.610", ("roll", "8.610", "--side", "german", "--dice", "7"), "out of range 1-6"),
        ("8.610", ("roll", "8.610", "--side", "german", "--dice", "3,4"), "a dr takes 1 die"),
        ("8.606", ("roll", "8.606/infantry", "--side", "german", "--dice", "3"), "a DR takes 2 dice"),
        ("8.606", ("roll", "8.606/infantry", "--side", "german", "--dice", "3;4"), "malformed dice"),
        ("8.620", ("roll", "8.6201", "--side", "us"), "rolled by the German side only"),
        ("8.618", ("roll", "8.618", "--side", "german"), "not rolled before 20 AM"),
        ("8.612", ("roll", "8.6122", "--side", "us"), "needs --drm san=N"),
        ("8.612", ("roll", "8.6122", "--side", "us", "--drm", "san=3"), "out of range 4"),
        ("8.620", ("roll", "8.6206/armor", "--side", "us", "--drm", "depleted"), "--rg"),
        ("8.611", ("roll", "8.6114", "--side", "us", "--drm", "won=-3"), "out of range -2..0"),
        ("8.616", ("roll", "8.610", "--side", "us"), "rolled in step 8.610"),  # behind: a step ahead walks on
        ("8.610", ("roll", "KGP3", "--side", "us"), "rolled during a CG scenario"),
        ("8.610", ("--campaign", "nope", "roll", "8.610", "--side", "german"), "no campaign 'nope'"),
        ("8.610", ("step", "9.999"), "no RePh step '9.999'"),
        ("8.610", ("step", "8.608"), "going back is an undo"),
        ("8.610", ("step", "8.617"), "cannot skip 8.611 Battle Hardening & Promotion"),  # 8.6113 DRs needed
        ("8.610", ("initiative", "--german", "attack", "--us", "idle"), "recorded in step 8.623"),
        ("8.610", ("scenario-end", "--lvp", "german=1", "--lvp", "us=1"), "recorded in step 8.603"),
        ("8.610", ("buy", "I2", "--side", "german", "--map-group", "St"), "recorded in step 8.619 Purchasing Reinforcement Groups, and the campaign cannot walk on"),
        ("8.610", ("rewind", "19 XM"), "malformed CG Date '19 XM'"),
        ("8.610", ("rewind", "32 AM"), "no CG Date '32 AM'"),
        ("8.610", ("rewind", "19 PM"), "RePh of CG Date 19 PM has not ended"),
        ("8.610", ("roster", "--side", "us", "--as-of", "20 AM"), "RePh of CG Date 20 AM has not ended"),
    ],
)
def test_refused_with_one_line_and_nothing_written(at, step, args, contains):
    cli = at(step)
    result = cli.refused(*args, contains=contains)
    assert result.stderr.startswith("Error: ")


def test_rule_number_is_named(at):
    cli = at("8.612")
    assert "(8.6122)" in cli.refused("roll", "8.6122", "--side", "us", contains="san").stderr
    assert "(8.6121)" in cli.refused("rewind", "tomorrow", contains="malformed CG Date").stderr
    assert "(8.616)" in cli.refused("step", "8.617", contains="cannot skip").stderr


def test_nothing_to_undo(kgp):
    kgp.refused("undo", contains="nothing to undo")


def test_cg_ends(at):
    cli = at("8.603", "21 PM")
    cli.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=2")
    cli.refused("step", "next", contains="CG I ends on 21 PM")  # nothing is played after the last scenario


@pytest.mark.sqlite_only
def test_missing_database(cli):
    cli.refused("roll", "8.610", "--side", "german", contains="no campaign database at")
    assert not cli.db.exists()  # a read or roll never creates the file


@pytest.mark.sqlite_only
def test_foreign_sqlite_database_is_not_touched(cli):
    with sqlite3.connect(cli.db) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    before = cli.db.read_bytes()
    cli.refused("log", contains="not a campaign ledger")
    cli.refused("new", "X", "--cg", "I", contains="not a campaign ledger")
    assert cli.db.read_bytes() == before


@pytest.mark.sqlite_only
def test_corrupt_file(cli):
    cli.db.write_bytes(b"this is not a database at all" * 10)
    cli.refused("log", contains="not a SQLite database")
    cli.refused("new", "X", "--cg", "I", contains="not a SQLite database")


def test_unknown_system_and_cg(cli):
    cli.refused("new", "X", "--system", "zz", "--cg", "I", contains="unknown rule system 'zz'")
    cli.refused("new", "X", "--system", "kgp", "--cg", "IV", contains="unknown CG 'IV'")


def test_duplicate_campaign(kgp):
    kgp.refused("new", "CG I", "--cg", "II", contains="already exists")


def test_several_campaigns_need_campaign_option(kgp):
    kgp.ok("new", "second", "--cg", "II")
    kgp.refused("step", "next", contains="several campaigns")
    # CG II starts on 20 PM: its Initial Scenario is preceded by the 8.618 Ammunition Shortage DR.
    kgp.refused("--campaign", "second", "step", "next", contains="needs a roll on 8.618 --side german")
    kgp.ok("--campaign", "second", "roll", "8.618", "--side", "german", "--dice", "1,2")
    kgp.ok("--campaign", "second", "step", "next")
    assert kgp.json("status", "--campaign", "second")["step"] == "8.619"
    assert kgp.json("status", "--campaign", "CG I")["step"] == "8.618"


@pytest.mark.parametrize(
    "text, contains",
    [
        ('[[table]]\nid = "8.610"\nrule = "8.610"\ntitle = "x"\ndie = "dr"\ncolour = 1\n', "unknown field `colour`"),
        ('[[table]]\nid = "8.610"\nrule = "8.610"\ntitle = "x"\ndie = "dr"\n'
         'rows = [ { max = 2, result = "a" }, { min = 4, result = "b" } ]\n', "gap or overlap"),
        ('[[table]]\nid = "8.610"\nrule = "8.610"\ntitle = "x"\ndie = "dr"\n'
         'rows = [ { min = 1, max = 5, result = "a" } ]\n', "has no row"),
        ('this is = = not toml', "rules file"),
        ('source = "nothing here"\n', "defines no table"),
    ],
)
def test_bad_override_file(kgp, tmp_path, text, contains):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    kgp.refused("rules", "load", str(path), contains=contains)


def test_override_file_missing(kgp, tmp_path):
    kgp.refused("rules", "load", str(tmp_path / "none.toml"), contains="no rules file")


def test_postgres_database_without_a_ledger(cli):
    import conftest

    if conftest.BACKEND != "postgres":
        pytest.skip("a PostgreSQL URL (the SQLite run has its file tests)")
    cli.refused("log", contains="holds no campaign ledger")
    conftest.sql(cli.db, "CREATE TABLE recipes (name TEXT)")
    cli.refused("new", "X", "--cg", "I", contains="holds other tables but no campaign ledger")
    bad = Cli(cli.db.rsplit("/", 1)[0] + "/no_such_database")
    bad.refused("log", contains="cannot reach")


@pytest.mark.parametrize("args, contains", [
    (("export", "--since", "0", "{missing}/bundle.json"), "No such file or directory"),
    (("report", "--html", "{missing}/report.html"), "No such file or directory"),
    (("script", "{latin1}"), "is not UTF-8 text"),
    (("vasl-import", "{latin1}"), "no VASL dice report"),
    (("import", "{latin1}"), "is not a cgledger bundle"),
    (("rules", "load", "{latin1}"), "is not UTF-8 text"),
    (("new", "X", "--cg", "I", "--system", "k" * 5000), "unknown rule system"),
    (("new", "X", "--cg", "I", "--system", "../kgp"), "unknown rule system"),
])
def test_files_and_names_that_cannot_be_used_give_one_line(kgp, tmp_path, args, contains):
    """Fuzzed input: a missing folder, a non-UTF-8 file, an over-long or path-like name: one `Error:` line,
    no traceback, nothing written."""
    latin1 = tmp_path / "notes.txt"
    latin1.write_bytes("Sp\xe4ter: 19 AM \xff".encode("latin-1"))
    filled = [a.format(missing=tmp_path / "no-such-folder", latin1=latin1) for a in args]
    kgp.refused(*filled, contains=contains)


@pytest.mark.sqlite_only
def test_an_over_long_database_path_gives_one_line(cli):
    cli.db = cli.db.parent / ("a" * 5000)
    result = cli("status")
    assert result.exit_code == 1 and result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert "characters): File name too long" in result.stderr


@pytest.mark.sqlite_only
@pytest.mark.parametrize("topic", ["StepOpened", "ScenarioEnded", "RGPurchased", "LocationControlled"])
def test_every_read_of_a_log_with_an_edited_topic_gives_lines_not_a_traceback(cli, tmp_path, topic):
    """`cgledger log` printed a traceback (KeyError 'drms') once a stored topic was edited."""
    import sqlite3

    cli.ok("demo")
    with sqlite3.connect(cli.db) as conn:
        version = conn.execute("SELECT originator_version FROM stored_events WHERE topic = 'DiceRolled' "
                               "LIMIT 1").fetchone()[0]
        conn.execute("UPDATE stored_events SET topic = ? WHERE originator_version = ?", (topic, version))
    for args in (["log"], ["log", "--json"], ["history"], ["status"], ["roster", "--side", "german"],
                 ["rg-record", "--side", "german"], ["dice-stats"], ["head"], ["areas", "--group", "St"],
                 ["report", "--html", str(tmp_path / "r.html")]):
        result = cli(*args)
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) <= 1, (args, result.stderr)
    assert "the row was edited" in cli("log").stdout
    audit = cli("audit")
    assert audit.exit_code == 1 and f"event {version}" in audit.stdout
