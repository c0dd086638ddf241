"""nothing vanishes unnoticed. Deleting the last event (one's own file, or the opponent's last
roll on a shared PostgreSQL server) left `audit` clean and no warning: the chain cannot show a missing last event.
Each machine now keeps the last head it saw; a log that no longer extends it is named: reads warn, writes refuse,
the audit exits 1. On SQLite files and on PostgreSQL (the suite runs on both)."""

from __future__ import annotations

from conftest import Player, count_events, sql

GERMAN, US = "Peiper's own words", "Harrison's own words"


def test_a_deleted_last_event_is_named_by_reads_writes_and_the_audit(at):
    cli = at("8.610")
    german = Player(cli.db, GERMAN)
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    last = count_events(cli.db)
    cli.ok("status")  # this machine has seen event `last`
    sql(cli.db, "DELETE FROM {events} WHERE originator_version = ?", (last,))
    sql(cli.db, "DELETE FROM {snapshots}")
    read = cli("status")
    assert read.exit_code == 0 and read.stderr.count("Warning:") == 1 and f"event {last}" in read.stderr
    cli.refused("roll", "8.610", "--side", "us", "--dice", "2", "--for", "B", contains=f"event {last}")
    audit = cli("audit")
    assert audit.exit_code == 1 and f"event {last}" in audit.stdout and "gone" in audit.stdout


def test_a_changed_last_event_is_named(at, tmp_path, monkeypatch):
    """The opponent deletes this side's last roll on the shared server and records another in its place (from his
    own machine): this machine's next command names the change."""
    cli = at("8.610")
    cli.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    last = count_events(cli.db)
    sql(cli.db, "DELETE FROM {events} WHERE originator_version = ?", (last,))
    sql(cli.db, "DELETE FROM {snapshots}")
    import os

    mine = os.environ["XDG_STATE_HOME"]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "his-machine"))
    cli.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "A")  # the same event number, other dice
    assert count_events(cli.db) == last
    monkeypatch.setenv("XDG_STATE_HOME", mine)  # back on this machine
    cli.refused("roll", "8.610", "--side", "us", "--dice", "1", "--for", "B", contains=f"event {last} is not the one")
    assert cli("audit").exit_code == 1


def test_another_machine_a_new_campaign_or_a_fresh_file_is_not_misread(at, make_db, tmp_path, monkeypatch):
    """A copy on another machine (another state folder) has seen nothing: it reads without a warning; a campaign
    started anew under the same name in a new file is another campaign."""
    cli = at("8.610")
    cli.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    bundle = tmp_path / "b.json"
    cli.ok("export", "--since", "0", str(bundle))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "other-machine"))
    other = Player(make_db(), None)
    other.ok("import", str(bundle))
    assert "Warning" not in other("status").stderr
    assert other("audit").exit_code == 0
