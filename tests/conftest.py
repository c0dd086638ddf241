from __future__ import annotations

import json
import shutil
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
            if status["step"] == step and (date is None or status["cg_date"] == date):
                return status
            self.satisfy(status, attack=status["cg_date"] == date or status["cg_date"] in attack_on)
            self.ok("step", "next")
        raise AssertionError(f"never reached {step} {date}")

    def satisfy(self, status: dict, attack: bool = False) -> None:
        for need in status["needs"]:
            effect, side = need["effect"], need["side"]
            if effect == "scenario_end":
                winner = ["--winner", "german"] if status["scenario"] == "Initial Scenario" else []
                self.ok("scenario-end", "--lvp", "german=0", "--lvp", "us=0", *winner)
            elif effect == "initiative":
                self.ok("initiative", "--german", "attack" if attack else "idle", "--us", "idle")
            elif effect == "rg_followups":
                die = self.json("tables", need["table"])["die"]
                self.ok("roll", need["table"], "--side", self.rg_side(need["rg"]), "--rg", str(need["rg"]),
                        "--dice", "3,3" if die == "DR" else "3")
            elif effect == "ammo_shortage":
                self.ok("roll", need["table"], "--side", side, "--dice", "1,1")
            else:
                die = self.json("tables", need["table"])["die"]
                self.ok("roll", need["table"], "--side", side or "us", "--dice", "6,6" if die == "DR" else "6")

    def rg_side(self, version: int) -> str:
        return next(r["side"] for r in self.json("log") if r["version"] == version)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "campaign.db")


@pytest.fixture
def kgp(cli: Cli) -> Cli:
    """A fresh KGP CG I campaign at 19 AM, before its Initial Scenario (step 8.618)."""
    cli.ok("new", "CG I", "--system", "kgp", "--cg", "I")
    return cli


_TEMPLATES: dict[tuple, Path] = {}


@pytest.fixture
def at(tmp_path: Path, tmp_path_factory):
    """at(step, date=None, cg='I') -> a Cli on a copy of a campaign driven to that step (cached per run)."""

    def make(step: str, date: str | None = None, cg: str = "I") -> Cli:
        key = (step, date, cg)
        if key not in _TEMPLATES:
            folder = tmp_path_factory.mktemp("template")
            template = Cli(folder / "campaign.db")
            template.ok("new", f"CG {cg}", "--cg", cg)
            template.to(step, date)
            _TEMPLATES[key] = folder
        target = tmp_path / f"at-{step}-{date}-{cg}".replace(" ", "_")
        shutil.copytree(_TEMPLATES[key], target)
        return Cli(target / "campaign.db")

    return make


@pytest.fixture
def sample_lines() -> list[str]:
    return (Path(__file__).parent.parent / "fixtures" / "kgp-cg1-sample.cgl").read_text().splitlines()
