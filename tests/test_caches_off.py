"""Every cache of the fast paths off (`CGLEDGER_CACHES=off`, ledger/caching.py) gives the same answers: each read of
each shipped sample campaign, run as a player runs it (its own process, the console script's quick path first), shows
the same bytes the first time (the caches filled), the second (the caches used) and with every cache off; with the
caches off nothing is kept on the machine but the heads it saw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).resolve().parent.parent
SIDES = {"kgp": ("german", "us"), "rr": ("german", "canadian"), "cgs": ("german", "russian")}
SAMPLES = {"kgp": "kgp-cg1-sample.cgl", "rr": "rr-sample.cgl", "cgs": "cgs-sample.cgl"}


def reads(system: str) -> list[list[str]]:
    found = [["status"], ["status", "--json"], ["date", "--json"], ["history", "--json"], ["dice-stats", "--json"],
             ["final", "--json"], ["log", "--json"], ["audit", "--json"], ["head"], ["report", "--html", "{out}"]]
    for side in SIDES[system]:
        found += [["roster", "--side", side, "--json"], ["rg-record", "--side", side, "--json"]]
    if system == "kgp":
        found += [["areas", "--group", "St", "--json"], ["map", "--group", "St", "--svg", "{out}"],
                  ["status", "--as-of", "19 PM", "--json"], ["roster", "--side", "us", "--as-of", "20 AM"]]
    return found


def run(db: Path, read: list[str], state: Path, out: Path, caches: bool) -> tuple:
    """The read in its own process, as a player runs it: (exit, stdout, stderr, the file it wrote)."""
    env = {**os.environ, "XDG_STATE_HOME": str(state), "XDG_CACHE_HOME": str(state / "cache")}
    env.pop("CGLEDGER_CACHES", None)
    if not caches:
        env["CGLEDGER_CACHES"] = "off"
    out.unlink(missing_ok=True)
    args = [a.replace("{out}", str(out)) for a in read]
    done = subprocess.run([sys.executable, "-m", "cgledger.cli.quick", "--db", str(db), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=180, env=env)
    return done.returncode, done.stdout, done.stderr, out.read_bytes() if out.exists() else None


@pytest.fixture(params=sorted(SAMPLES))
def sample(request, played) -> tuple[str, Path]:
    return request.param, played(SAMPLES[request.param])


def test_every_read_is_the_same_with_every_cache_off(sample, tmp_path):
    system, db = sample
    on, off = tmp_path / "on", tmp_path / "off"
    for read in reads(system):
        filled = run(db, read, on, tmp_path / "out", caches=True)
        used = run(db, read, on, tmp_path / "out", caches=True)
        without = run(db, read, off, tmp_path / "out", caches=False)
        assert filled[0] == 0, (read, filled)
        assert filled == used == without, read
    kept = {p.name for p in (on / "cgledger").iterdir()}
    assert {"answers", "machine.key"} <= kept  # the caches were on, and used
    assert {p.name for p in (off / "cgledger").iterdir()} == {"heads.json"}, list((off / "cgledger").iterdir())
    assert not (off / "cache").exists() or not any((off / "cache").rglob("*.msgpack"))  # no rules cache either


def test_with_every_cache_off_an_edited_snapshot_changes_nothing(played, tmp_path):
    """Off, a read starts from no snapshot: a snapshot edited in place is never read (on, it is named and read
    around, ledger/store/loading.py)."""
    import sqlite3

    db = played(SAMPLES["kgp"])
    before = run(db, ["status", "--json"], tmp_path / "off", tmp_path / "out", caches=False)
    run(db, ["status", "--json"], tmp_path / "on", tmp_path / "out", caches=True)  # on: this machine's mark set
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM stored_snapshots").fetchone()[0] > 0
        conn.execute("UPDATE stored_snapshots SET state = X'00'")
    after = run(db, ["status", "--json"], tmp_path / "off", tmp_path / "out", caches=False)
    named = run(db, ["status", "--json"], tmp_path / "on", tmp_path / "out", caches=True)
    assert after == before
    assert named[1] == before[1] and "snapshot" in named[2]  # on: the same answer, the damaged snapshot named
