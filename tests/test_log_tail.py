"""`log --last N` reads the log's tail and the campaign just before it (its snapshot), not the whole log
(the campaign page runs it on every visit); its rows are the whole log's last N, field for field."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cgledger.cli import main
from cgledger.cli.script import SAMPLE


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The KGP sample: six CG Dates, undos and a rewind, a snapshot at event 100."""
    db = str(tmp_path_factory.mktemp("log") / "sample.db")
    done = CliRunner().invoke(main, ["--db", db, "script", "--quiet", str(SAMPLE)])
    assert done.exit_code == 0, done.output
    return db


def rows(db, *args) -> list[dict]:
    done = CliRunner().invoke(main, ["--db", db, "log", "--json", *args])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


def test_the_last_n_rows_are_the_whole_logs_last_n_at_every_n(sample):
    whole = rows(sample)
    assert any(not r["in_force"] for r in whole) and len({r["cg_date"] for r in whole}) > 3
    for last in (*range(1, len(whole) + 1), len(whole) + 7):  # every tail: across each undo, rewind, snapshot
        assert rows(sample, "--last", str(last)) == whole[-last:], last


def test_the_text_of_the_last_rows_is_the_whole_logs(sample):
    whole = CliRunner().invoke(main, ["--db", sample, "log"]).output.splitlines()
    undos = [len(whole) - i for i, line in enumerate(whole) if "took back" in line]
    assert undos  # the sample's undos, each naming what it took back
    for last in (3, 40, *undos):  # a tail that starts at an undo names the action before it that it took back
        tail = CliRunner().invoke(main, ["--db", sample, "log", "--last", str(last)]).output.splitlines()
        assert tail == whole[-last:], last
