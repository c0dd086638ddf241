"""Reads without the event-sourcing library: a plain SQLite
ledger is read with sqlite3 and folded into ledger/store/folded.py's `Folded`, step for step the library's aggregate; a
command that records makes the campaign it read the aggregate in place (`recording`) and writes through the
library."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import conftest
from conftest import sql

from cgledger.cli import main
from cgledger.cli.app import forget
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import Campaign
from cgledger.ledger.trust.chain import campaign_id
from cgledger.ledger.store.eventstore import replay
from cgledger.ledger.domain.events import DiceRolled
from cgledger.ledger.store.folded import Folded, recording

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "fixtures" / "kgp-cg1-sample.cgl"
@pytest.fixture
def sample(played) -> str:
    """The shipped KGP sample (124 events: a snapshot at 100), replayed by `script FILE --quiet` (conftest's
    `played`: a copy per test)."""
    return str(played())


def attributes(campaign) -> dict:
    return {k: v for k, v in vars(campaign).items() if k != "_pending_events"}


def test_the_fold_is_the_libraries_aggregate_at_every_version(sample):
    """From the snapshot at 100 or from the first event, at any version: the same attributes, in the same order, with
    the same values as the library's repository gives (its mapper, its Campaign events)."""
    ledger = open_ledger(sample)
    cid = campaign_id("KGP CG I sample")
    library = ledger.store.app  # built here only to compare: reads never build it
    for version in (1, 2, 50, 99, 100, 101, 124, None):
        ours = ledger.store.loader.campaign(cid, version)
        theirs = library.repository.get(cid, version=version)
        assert type(ours) is Folded and type(theirs) is Campaign
        assert list(attributes(ours)) == list(attributes(theirs)) and attributes(ours) == attributes(theirs), version
        assert (ours.id, ours.version, ours.created_on, ours.modified_on) == \
            (theirs.id, theirs.version, theirs.created_on, theirs.modified_on)
    whole = ledger.store.loader._replay(cid, None, None)  # every event folded, no snapshot
    assert attributes(whole) == attributes(replay(None, library.events.get(cid)))


def test_a_read_builds_no_library_and_a_write_does(sample):
    ledger = open_ledger(sample)
    campaign = ledger.campaign(None)
    assert ledger.store._app is None and type(campaign) is Folded and campaign.version == 124
    before = attributes(campaign)
    made = recording(campaign)
    assert made is campaign and type(campaign) is Campaign and attributes(campaign) == before  # only the class
    campaign.record(DiceRolled(action=campaign.begin_action(), table="KGP3", rule="KGP3", side="german", die="DR",
                               dice=(2, 3), original=5, final=5, result="no change", source="entered"), "german")
    ledger.store.save_campaign(campaign)
    assert ledger.store._app is not None
    again = open_ledger(sample).campaign(None)
    assert type(again) is Folded and again.version == 125 and again.head == campaign.head


@pytest.mark.parametrize("read", [["status"], ["log"], ["log", "--last", "5"], ["history"], ["audit"],
                                  ["audit", "--fast"], ["areas", "--group", "St"], ["report", "--html", "r.html"]])
def test_reads_import_neither_the_event_sourcing_library_nor_psycopg(sample, tmp_path, read):
    code = ("import sys\nfrom cgledger.cli import main\n"
            f"try:\n    main({['--db', sample, *read]!r}, prog_name='cgledger')\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print('LOADED', ' '.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "fresh")})  # no answer kept
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.rsplit("LOADED ", 1)[1].split())
    assert "cgledger.ledger.application" in loaded  # it read the campaign in full
    assert not {m for m in loaded if m.split(".")[0] in ("eventsourcing", "psycopg")}  # SQLite: sqlite3; PostgreSQL: libpq
    assert "cgledger.ledger.store.campaign" not in loaded


def test_a_gap_in_the_log_is_one_line_in_the_games_words(sample):
    """A stored event missing (a row deleted behind the ledger's back): every read and write refuses with one line
    naming it, without the library's class names; nothing is written."""
    forget(sample)
    stored = sample if conftest.BACKEND == "postgres" else Path(sample)  # conftest.sql: a URL, or a file's Path
    sql(stored, "DELETE FROM {events} WHERE originator_version = 110")
    done = CliRunner().invoke(main, ["--db", sample, "status"])
    assert done.exit_code == 1
    line = done.output.strip().splitlines()[-1]
    assert "event 111 follows event 109: 110 is missing" in line and "Error" not in line.split(":", 1)[1]
    count = len(sql(stored, "SELECT originator_version FROM {events}"))
    done = CliRunner().invoke(main, ["--db", sample, "roll", "KGP3", "--side", "german", "--dice", "2,3"])
    assert done.exit_code == 1 and "110 is missing" in done.output
    assert len(sql(stored, "SELECT originator_version FROM {events}")) == count
    done = CliRunner().invoke(main, ["--db", sample, "audit", "--fast"])  # past this machine's mark: one line too
    assert done.exit_code == 1 and done.output.strip().splitlines() == [
        "Error: the campaign log is damaged (event 111 follows event 109: 110 is missing): run `cgledger audit`"]


def test_an_unreadable_campaign_start_is_one_line(sample):
    """A campaign's first stored row that is not an event as stored here (damaged, or written with a compressor
    set): every command says so in one line, exit 1, and writes nothing."""
    forget(sample)
    stored = sample if conftest.BACKEND == "postgres" else Path(sample)
    sql(stored, "UPDATE {events} SET state = ? WHERE originator_version = 1", (b"x\x9c\x00 not json",))
    count = len(sql(stored, "SELECT originator_version FROM {events}"))
    for args in (["status"], ["roll", "KGP3", "--side", "german", "--dice", "2,3"]):
        done = CliRunner().invoke(main, ["--db", sample, *args])
        assert done.exit_code == 1 and "Traceback" not in done.output, done.output
        lines = done.output.strip().splitlines()
        assert len(lines) == 1 and "the stored start of a campaign (its event 1) cannot be read" in lines[0]
    assert len(sql(stored, "SELECT originator_version FROM {events}")) == count


def test_a_packed_row_is_cut_by_its_lengths_or_refused():
    """reading._cut: a PostgreSQL row packed by the server (its version, its topic's length and bytes, its state) is
    taken apart by the lengths it holds; one whose lengths do not add up is refused, never read askew."""
    from cgledger.ledger.store.reading import _cut

    def packed(version: int, topic: bytes, state: bytes, size: int | None = None) -> bytes:
        return version.to_bytes(8, "big", signed=True) + (len(topic) if size is None else size).to_bytes(4, "big") + \
            topic + state

    assert _cut(packed(5, b"DiceRolled", b'{"fact":1}')) == (5, "DiceRolled", b'{"fact":1}')
    assert _cut(packed(2**62, "Übergabe".encode(), b"")) == (2**62, "Übergabe", b"")
    assert _cut(packed(-1, b"", b"x")) == (-1, "", b"x")
    for wrong in (packed(1, b"abc", b"", size=4), packed(1, b"abc", b"", size=2**32 - 1), b"\x00" * 11, None):
        assert _cut(wrong) is None
