"""Long work shows a bar on the player's terminal (ledger/progress.py, click's bar on stderr): a whole audit, the first
read of a campaign on a new machine, a bundle received. Only on a terminal, and only once the work has taken more
than a second (`CGLEDGER_PROGRESS_AFTER`: that second, 0 here so that a short sample shows it); piped output never
carries it. The command runs in a real pseudo-terminal (Python's pty), as a player's shell runs it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Cli

CGLEDGER = str(Path(sys.executable).parent / "cgledger")
SAMPLE = Path(__file__).parent.parent / "fixtures" / "kgp-cg1-sample.cgl"


@pytest.fixture
def sample(tmp_path) -> Cli:
    cli = Cli(tmp_path / "sample.db", seed="7")
    cli.ok("script", str(SAMPLE), "--quiet")
    return cli


def on_terminal(db: Path, *args: str, after: str = "0", home: Path | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, what the terminal showed on stderr) of `cgledger ARGS` with stderr on a pseudo-terminal."""
    try:
        master, slave = pty.openpty()
    except OSError:  # a machine without pseudo-terminals
        pytest.skip("no pseudo-terminal on this machine")
    env = {**os.environ, "CGLEDGER_DB": str(db), "CGLEDGER_PROGRESS_AFTER": after}
    if home is not None:
        env["XDG_STATE_HOME"] = str(home)  # a new machine: nothing verified here yet
    done = subprocess.run([CGLEDGER, *args], stdout=subprocess.PIPE, stderr=slave, env=env, timeout=300)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end is closed: all of it read
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return done.returncode, done.stdout.decode(), shown.decode(errors="replace")


def test_a_whole_audit_shows_its_count_on_a_terminal(sample):
    code, out, shown = on_terminal(sample.db, "audit")
    assert code == 0 and "clean" in out
    assert "auditing the campaign" in shown and "124/124" in shown, shown[-300:]


def test_the_first_read_on_a_new_machine_shows_its_count(sample, tmp_path):
    code, out, shown = on_terminal(sample.db, "status", home=tmp_path / "new-machine")
    assert code == 0 and "CG Date" in out
    assert "reading the campaign" in shown, shown[-300:]


def test_quick_work_and_piped_output_show_no_bar(sample):
    code, _out, shown = on_terminal(sample.db, "audit", after="60")  # done long before a minute
    assert code == 0 and "auditing" not in shown
    piped = subprocess.run([CGLEDGER, "audit"], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "CGLEDGER_DB": str(sample.db), "CGLEDGER_PROGRESS_AFTER": "0"})
    assert piped.returncode == 0 and "auditing" not in piped.stderr
