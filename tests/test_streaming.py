"""Long outputs are written as they come: `log --json` row by row, `export` a chunk of events at
a time; what is written is exactly what encoding the whole at once gives."""

from __future__ import annotations

import json

import msgspec

from cgledger.cli.app import emit_json
from cgledger.ledger.exchange.pbem import Bundle, read_bundle, write_bundle


def test_a_long_list_is_written_in_chunks_as_one_json_document(capsys):
    rows = [{"version": n, "text": f"événement {n}", "drms": [], "fact": {}, "nested": {"a": [1, 2.5, None]}}
            for n in range(1203)]
    for given in (rows, iter(rows), [], iter([])):
        emit_json(given)
        out = capsys.readouterr().out
        assert json.loads(out) == (rows if given is rows or out != "[]\n" else [])
        assert out == json.dumps(rows if out != "[]\n" else [], ensure_ascii=False, indent=2) + "\n"


def test_an_exported_bundle_is_byte_for_byte_the_whole_bundle_encoded(at, tmp_path):
    german = at("8.610")
    path = tmp_path / "all.json"
    german.ok("export", "--since", "0", str(path))
    bundle = read_bundle(path)
    assert path.read_bytes() == msgspec.json.encode(bundle)
    for chunk in (1, 2, 7):  # a chunk boundary anywhere
        again = tmp_path / f"again-{chunk}.json"
        write_bundle(bundle, again, chunk)
        assert again.read_bytes() == msgspec.json.encode(bundle)
    assert isinstance(msgspec.json.decode(path.read_bytes(), type=Bundle), Bundle)


def test_log_json_is_the_rows_of_the_log(at):
    german = at("8.610")
    rows = german.json("log")
    assert [r["version"] for r in rows] == list(range(1, german.events() + 1))
    assert all({"type", "timestamp", "cg_date", "in_force", "digest", "author", "signed"} <= set(r) for r in rows)


def test_an_import_into_a_new_sqlite_file_leaves_a_snapshot_at_its_last_event(tmp_path):
    """The next command after an import starts from a snapshot, not from event 1 (PostgreSQL: test_server.py)."""
    from cgledger.cli.script import SAMPLE
    from conftest import Cli, sql

    german, us = Cli(tmp_path / "german.db"), Cli(tmp_path / "us.db")
    german.ok("script", str(SAMPLE), "--quiet")
    german.ok("export", "--since", "0", str(tmp_path / "all.json"))
    us.ok("import", str(tmp_path / "all.json"))
    last = german.events()
    assert last > 100 and sql(us.db, "SELECT originator_version FROM {snapshots}") == [(last,)]
    assert us.ok("status").stdout == german.ok("status").stdout
