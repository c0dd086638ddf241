"""Every wrong input: one line naming the problem (and the rule), a non-zero exit, no event written."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import Cli


@pytest.mark.parametrize(
    "args, contains",
    [
        (("roll", "9.999", "--side", "german"), "unknown table '9.999'"),
        (("roll", "H1.42", "--side", "us"), "named in KGP17 but not printed"),
        (("roll", "8.610", "--side", "russian"), "unknown side 'russian'"),
        (("roll", "8.610", "--side", "german", "--drm", "drunk"), "no DRM 'drunk' on table 8.610"),
        (("roll", "8.610", "--side", "german", "--drm", "german"), "DRM 'german' is automatic"),
        (("roll", "8.610", "--side", "german", "--drm", "isolated=3"), "DRM 'isolated' is a flag"),
        (("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes"), "needs a number"),
        (("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes=x"), "malformed DRM"),
        (("roll", "8.610", "--side", "german", "--drm", "isolated", "--drm", "isolated"), "given twice"),
        (("roll", "8.610", "--side", "german", "--dice", "7"), "out of range 1-6"),
        (("roll", "8.610", "--side", "german", "--dice", "3,4"), "a dr takes 1 die"),
        (("roll", "8.606/infantry", "--side", "german", "--dice", "3"), "a DR takes 2 dice"),
        (("roll", "8.606/infantry", "--side", "german", "--dice", "3;4"), "malformed dice"),
        (("roll", "8.6201", "--side", "us"), "rolled by the German side only"),
        (("roll", "8.618", "--side", "german"), "not rolled before 20 AM"),
        (("roll", "8.6122", "--side", "us"), "needs --drm san=N"),
        (("roll", "8.6122", "--side", "us", "--drm", "san=3"), "out of range 4"),
        (("roll", "8.6206/armor", "--side", "us", "--drm", "depleted"), "NA to the U.S. side"),
        (("roll", "8.6114", "--side", "us", "--drm", "won=-3"), "out of range -2..0"),
        (("advance", "--to", "19 XM"), "malformed CG Date '19 XM'"),
        (("advance", "--to", "32 AM"), "no CG Date '32 AM'"),
        (("advance", "--to", "22 AM"), "CG I ends on 21 PM"),
        (("--campaign", "nope", "roll", "8.610", "--side", "german"), "no campaign 'nope'"),
    ],
)
def test_refused_with_one_line_and_nothing_written(kgp, args, contains):
    result = kgp.refused(*args, contains=contains)
    assert result.stderr.startswith("Error: ")


def test_rule_number_is_named(kgp):
    assert "(8.6122)" in kgp.refused("roll", "8.6122", "--side", "us", contains="san").stderr
    assert "(8.6121)" in kgp.refused("advance", "--to", "tomorrow", contains="malformed CG Date").stderr
    assert "(8.6201)" in kgp.refused("roll", "8.6201", "--side", "us", contains="German side only").stderr


def test_going_back_is_an_undo(kgp):
    kgp.ok("advance")
    kgp.refused("advance", "--to", "19 AM", contains="going back is an undo")


def test_nothing_to_undo(kgp):
    kgp.refused("undo", contains="nothing to undo")


def test_missing_database(cli):
    result = cli.refused("roll", "8.610", "--side", "german", contains="no campaign database at")
    assert not cli.db.exists()  # a read or roll never creates the file


def test_foreign_sqlite_database_is_not_touched(cli):
    with sqlite3.connect(cli.db) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    before = cli.db.read_bytes()
    cli.refused("log", contains="not a campaign ledger")
    cli.refused("new", "X", "--cg", "I", contains="not a campaign ledger")
    assert cli.db.read_bytes() == before


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
    kgp.refused("roll", "8.610", "--side", "german", contains="several campaigns")
    kgp.ok("--campaign", "second", "roll", "8.610", "--side", "german", "--dice", "2")
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "2", "--campaign", "CG I")


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
