"""one name, `cgledger`, in site-packages. The top-level folders stay where the card puts them
and are installed under the `cgledger` package (pyproject.toml's package-dir); `.ci/test` builds the wheel,
installs it into a fresh venv and runs the demo there."""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path

from click.testing import CliRunner

import cgledger
from cgledger.cli import main
from cgledger.ledger.application import open_ledger

ROOT = Path(__file__).parent.parent


def test_every_folder_of_ours_with_an_init_is_a_package_of_the_wheel():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = {folder: package for package, folder in config["package-dir"].items()}
    found = {"cgledger", "cgledger.fixtures"}  # fixtures/: data only, no __init__.py
    for top, package in mapped.items():
        if top == "fixtures":
            continue
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((package, *parts)))
    assert found == listed, "list every folder with an __init__.py in pyproject.toml [tool.setuptools] packages"
    assert config["package-dir"] == {"cgledger.ledger": "ledger", "cgledger.projections": "projections",
                                     "cgledger.cli": "cli", "cgledger.fixtures": "fixtures"}


def test_the_command_and_the_version_come_from_the_one_package():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"cgledger": "cgledger.cli.quick:main"}  # its reads (COMMANDS) without click; the rest: the group
    done = CliRunner().invoke(main, ["--version"], prog_name="cgledger")
    assert done.exit_code == 0 and done.output.startswith("cgledger, version ")
    assert Path(cgledger.__file__).parent.name == "cgledger"


def test_a_snapshot_stored_before_the_rename_still_loads_without_a_warning(tmp_path):
    """Snapshots name the aggregate by its Python path; older ones said `ledger.campaign:Campaign`
    (stored events name their fact by a stable tag and never change)."""
    db = str(tmp_path / "c.db")
    done = CliRunner().invoke(main, ["--db", db, "script", str(ROOT / "fixtures" / "kgp-cg1-sample.cgl")])
    assert done.exit_code == 0, done.output
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT originator_version, state FROM stored_snapshots").fetchall()
        assert rows, "the sample is long enough to be snapshotted"
        for version, state in rows:
            state = bytes(state)
            assert b'"topic":"cgledger.ledger.store.campaign:Campaign"' in state
            con.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                        (state.replace(b"cgledger.ledger.store.campaign:Campaign", b"ledger.campaign:Campaign"), version))
    ledger = open_ledger(db)
    campaign = ledger.campaign(None)
    assert campaign.version == len(ledger.history(None))
    assert ledger.notices == []  # read from the old snapshot, not from the log after a warning
    assert ledger.verification.audit(None).clean


def test_no_file_of_ours_keeps_merge_conflict_markers():
    import subprocess

    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    if not files:  # not a git checkout (an unpacked sdist): nothing to check
        return
    marked = []
    for name in files:
        path = ROOT / name
        if path.suffix in (".py", ".md", ".toml", ".html", ".js", ".css", ".cgl", ".txt") or name.startswith(".ci/"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in text.splitlines()):
                marked.append(name)
    assert marked == []
