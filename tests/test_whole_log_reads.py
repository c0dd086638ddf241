"""`log --json` and `export` read the whole log without a Logged per event: `log --json` of a plain SQLite
file with sqlite3 and msgspec alone, `export` with the campaign's load kept per log head as a read's answer. What they
write is byte for byte what the application's history gives, damaged rows included; an edited row is named as
before; a wrong input is one line and exit 1."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import msgspec
import pytest

from conftest import BACKEND, Cli, sql
from test_answers import apart
from test_log_json import reference_json, reference_rows
from cgledger.cli.app import forget
from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.commands import AnyCommand
from cgledger.ledger.exchange.bundle import FORMAT, Bundle, BundleEvent
from cgledger.ledger.trust.envelope import read_logged, with_command
from cgledger.projections.log import log_json

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
NAME = "KGP CG I sample"


@pytest.fixture
def sample(played) -> Cli:
    return Cli(played(), seed="7")


def history(db):
    forget(str(db))
    ledger = open_ledger(str(db))
    try:
        return ledger.history(None), ledger.store.entries(None)
    finally:
        ledger.close()


def old_bundle(db, since: int) -> bytes:
    """The bundle as export built it before: a BundleEvent of each Logged of `history`, the whole encoded."""
    logged = history(db)[0]
    events = [BundleEvent(e.version, e.timestamp, e.prev, e.digest, e.fact, e.author, e.signature, e.command, e.form,
                          e.request)
              for e in logged if e.version > since]
    return msgspec.json.encode(Bundle(FORMAT, NAME, "kgp", since, events))


def edit(db, version: int, change) -> None:
    (state,) = sql(db, "SELECT state FROM {events} WHERE originator_version = ?", (version,))[0]
    edited = change(bytes(state))
    assert edited != bytes(state)
    sql(db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (edited, version))


def unreadable(state: bytes) -> bytes:
    """The fact's action number made a string: the row no longer decodes."""
    return re.sub(rb'"action":(\d+)', rb'"action":"\1"', state, count=1)


def test_log_json_of_damaged_rows_is_the_whole_folds(sample):
    """A row that no longer decodes and one whose topic was edited are error rows, as `history` reads them."""
    edit(sample.db, 7, unreadable)
    sql(sample.db, "UPDATE {events} SET topic = 'DiceReported' WHERE originator_version = 9")
    logged, entries = history(sample.db)
    assert logged[6].fact is None and logged[8].fact is None and "edited" in logged[8].error
    shown = sample.ok("log", "--json").stdout
    assert shown == reference_json(reference_rows(logged))
    assert shown == b"".join(log_json(entries)).decode()  # the application's path (PostgreSQL, a cipher) the same


def test_log_json_reads_no_event_sourcing_library(sample):
    """SQLite through sqlite3, PostgreSQL through libpq (ledger/store/reading.py stored_entries)."""
    (code, out, err), modules = apart(sample.db, "log", "--json")
    assert code == 0 and not err and out == sample.ok("log", "--json").stdout
    assert not any(m == "eventsourcing" or m.startswith(("eventsourcing.", "cgledger.ledger.application",
                                                          "cgledger.ledger.store.campaign")) for m in modules)


def test_log_json_wrong_inputs_are_one_line(sample, tmp_path, make_db):
    sample.refused("log", "--json", "--campaign", "Nope", contains="no campaign 'Nope' in this database")
    sample.ok("new", "Second", "--system", "kgp", "--cg", "I")
    sample.refused("log", "--json", contains="this database holds several campaigns")
    assert sample.ok("log", "--json", "--campaign", NAME).stdout.startswith('[\n  {\n    "version": 1,')
    if BACKEND == "sqlite":
        Cli(tmp_path / "none.db").refused("log", "--json", contains="no campaign database at")
        foreign = tmp_path / "foreign.db"
        sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.close()
        Cli(foreign).refused("log", "--json", contains="not a campaign ledger")


def test_an_export_is_the_bundle_of_the_whole_history(sample, tmp_path):
    last = sample.events()
    for since in (0, 40, last - 1):
        fingerprint = "0" if not since else f"{since}:{history(sample.db)[0][since - 1].digest[:16]}"
        for attempt in range(2):  # the second: the campaign's load kept per log head
            path = tmp_path / f"b-{since}-{attempt}.json"
            sample.ok("export", "--since", fingerprint, str(path))
            assert path.read_bytes() == old_bundle(sample.db, since), (since, attempt)
    sample.refused("export", "--since", f"{last}:{history(sample.db)[0][-1].digest[:16]}", str(tmp_path / "n.json"),
                   contains="nothing to export")
    sample.refused("export", "--since", "7:zz", str(tmp_path / "n.json"), contains="malformed fingerprint")
    assert not (tmp_path / "n.json").exists()


def test_an_export_writes_a_damaged_row_as_before(sample, tmp_path):
    """An early row that no longer decodes (before the snapshot every load starts from): in the bundle as it was,
    and the import refuses the bundle."""
    edit(sample.db, 5, unreadable)
    path = tmp_path / "b.json"
    sample.ok("export", "--since", "0", str(path))
    assert path.read_bytes() == old_bundle(sample.db, 0) and b'"fact":null' in path.read_bytes()


@pytest.mark.sqlite_only
def test_a_repeated_export_loads_nothing_of_the_domain_and_an_edit_is_named_as_before(sample, tmp_path, make_db):
    first = sample.ok("export", "--since", "0", str(tmp_path / "a.json"))
    (code, out, err), modules = apart(sample.db, "export", "--since", "0", str(tmp_path / "b.json"))
    assert (code, out.replace("b.json", "a.json"), err) == (0, first.stdout, "")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert "cgledger.ledger.application" not in modules and "eventsourcing" not in modules and \
        "cgledger.ledger.audit.replay" not in modules
    last = sample.events()
    edit(sample.db, last, lambda s: s.replace(b"Idle Day", b"Idle Dax"))  # the last event, other bytes in place
    (code, out, err), modules = apart(sample.db, "export", "--since", "0", str(tmp_path / "c.json"))
    assert code == 0 and "cgledger.ledger.application" in modules and "run `cgledger audit`" in err
    Cli(make_db()).refused("import", str(tmp_path / "c.json"), contains=f"event {last} of the bundle was edited")
    sql(sample.db, "UPDATE {events} SET topic = 'DiceReported' WHERE originator_version = ?", (last,))
    (code, out, err), modules = apart(sample.db, "export", "--since", "0", str(tmp_path / "d.json"))
    assert code == 1 and "damaged" in err and len(err.strip().splitlines()) == 1 \
        and not (tmp_path / "d.json").exists()


def test_a_stored_command_is_decoded_only_where_it_is_read(sample):
    """History and the whole-log reads keep each action's command as its stored JSON, decoded where it is read.
    One that no longer reads as a command leaves the rest of its row read and `log --json` writes it as stored;
    the audit reads it as before (the row damaged, named as the whole envelope's decode names it)."""
    logged, entries = history(sample.db)
    kept = [e for e in logged if e.held_request is not None]
    assert kept and all(isinstance(e.held_request, msgspec.Raw) for e in kept)
    assert [e.request for e in kept] == [msgspec.json.decode(e.held_request, type=AnyCommand) for e in kept]
    assert [r.request for _v, _t, r in entries] == [e.request for e in logged]
    version = kept[-1].version
    for edited in (rb'"verb":"Nope"', rb'"verb":"Step","target":3', b"3", b"[]"):
        (state,) = sql(sample.db, "SELECT state FROM {events} WHERE originator_version = ?", (version,))[0]
        stored = msgspec.json.decode(bytes(state))
        request = edited if not edited.startswith(b'"verb"') else b"{" + edited + b"}"
        changed = msgspec.json.encode({**stored, "request": msgspec.Raw(request)})
        sql(sample.db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (changed, version))
        event = history(sample.db)[0][version - 1]
        assert event.fact is not None and bytes(event.held_request) == request
        with pytest.raises(msgspec.ValidationError):
            event.request
        assert with_command(event) == read_logged(version, event.topic, changed, typed=True)
        assert with_command(event).fact is None and "$.request" in with_command(event).error
        rows = sample.json("log")
        assert rows[version - 1]["request"] == msgspec.json.decode(request) and "error" not in rows[version - 1]
    found = msgspec.json.decode(sample("audit", "--json").stdout)["findings"]
    assert (version, "unreadable") in [(f["version"], f["kind"]) for f in found]
