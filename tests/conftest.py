from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main


def count_events(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM stored_events").fetchone()[0]


def what_is_stored(db: Path):
    """The event count of a ledger file; the bytes of any other file (foreign, corrupt)."""
    if not db.exists():
        return None
    try:
        return count_events(db)
    except sqlite3.DatabaseError:
        return db.read_bytes()


class Cli:
    """The real CLI through click's CliRunner, against a real SQLite file in tmp_path."""

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
        assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    def json(self, *args: str):
        import json

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


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "campaign.db")


@pytest.fixture
def kgp(cli: Cli) -> Cli:
    """A fresh KGP CG I campaign at 19 AM."""
    cli.ok("new", "CG I", "--system", "kgp", "--cg", "I")
    return cli


@pytest.fixture
def sample_lines() -> list[str]:
    return (Path(__file__).parent.parent / "fixtures" / "kgp-cg1-sample.cgl").read_text().splitlines()
