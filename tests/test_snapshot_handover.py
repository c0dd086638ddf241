"""A one-shot read reads the campaign's last snapshot once: the row its answer's key hashed
(ledger/reading.stored_head) is the one the campaign's load starts from (reading._hand_over). The load checks it as it
checks a row it reads itself: an edited snapshot is named, and a row a write has since outdone still gives the
campaign as it stands."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from test_answers import sample  # noqa: F401 (a copy of the shipped sample: 124 events, its snapshot at 100)

pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).parent.parent


def console(db: Path, *args: str, state: Path) -> subprocess.CompletedProcess:
    """The `cgledger` console script (cli/quick.py: a one-shot read) in its own process, on its own machine state."""
    return subprocess.run([sys.executable, "-m", "cgledger.cli.quick", "--db", str(db), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env={**os.environ, "XDG_STATE_HOME": str(state)})


def snapshots(db: Path) -> list[int]:
    with sqlite3.connect(db) as conn:
        found = [v for (v,) in conn.execute("SELECT originator_version FROM stored_snapshots ORDER BY 1")]
    conn.close()
    return found


def test_an_edited_snapshot_handed_over_is_named_and_not_used(sample, tmp_path):
    assert snapshots(sample) == [100]
    before = console(sample, "status", "--json", state=tmp_path / "a")
    assert before.returncode == 0 and "snapshot" not in before.stderr
    with sqlite3.connect(sample) as conn:  # another CPP total, its seal left as it was (a hex editor's edit)
        (state,), = conn.execute("SELECT state FROM stored_snapshots WHERE originator_version = 100").fetchall()
        snap = json.loads(state)
        snap["state"]["cpp"]["german"] = 717
        conn.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = 100", (json.dumps(snap).encode(),))
    conn.close()
    after = console(sample, "status", "--json", state=tmp_path / "a")  # this machine: its answer kept, its mark at 124
    assert after.returncode == 0, after.stderr
    assert "the snapshot at event 100 was edited" in after.stderr
    assert after.stdout == before.stdout and "717" not in after.stdout  # read from the log instead
    new = console(sample, "status", "--json", state=tmp_path / "b")  # a machine new to the log checks every event
    assert new.returncode == 0 and new.stdout == before.stdout


HANDED_THEN_OUTDONE = """
import sys
from cgledger.ledger.store import reading
from cgledger.ledger.application import open_ledger
from cgledger.ledger.trust.chain import campaign_id

db = sys.argv[1]
reading.one_shot()
head = reading.stored_head(db, None)  # the key of this read's answer: it reads (and hands over) snapshot 100
writer = open_ledger(db)
writer.store.take_snapshot(campaign_id(writer.resolve_name(None)))  # a write since: the log's last snapshot is now 124
writer.close()
handed = open_ledger(db)
first = handed.campaign(None)  # from the row handed over (snapshot 100), then the events after it
again = open_ledger(db).campaign(None)  # given once: read from the file (snapshot 124)
fields = lambda campaign: {k: v for k, v in vars(campaign).items() if k not in ("_pending_events",)}
print(head.version, first.version, again.version, fields(first) == fields(again), handed.notices)
"""


def test_a_handed_over_row_a_write_has_outdone_gives_the_campaign_as_it_stands(sample, tmp_path):
    done = subprocess.run([sys.executable, "-c", HANDED_THEN_OUTDONE, str(sample)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["124", "124", "124", "True", "[]"]
    assert snapshots(sample) == [100, 124]


def test_the_row_is_handed_only_to_its_own_database(sample, tmp_path):
    other = tmp_path / "other" / sample.name
    shutil.copytree(sample.parent, other.parent)
    with sqlite3.connect(sample) as conn:  # this database's snapshot edited: the other's is not
        (state,), = conn.execute("SELECT state FROM stored_snapshots WHERE originator_version = 100").fetchall()
        snap = json.loads(state)
        snap["state"]["cpp"]["german"] = 717
        conn.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = 100", (json.dumps(snap).encode(),))
    conn.close()
    script = ("import sys\nfrom cgledger.ledger.store import reading\nfrom cgledger.ledger.application import open_ledger\n"
              "reading.one_shot()\nreading.stored_head(sys.argv[1], None)\nledger = open_ledger(sys.argv[2])\n"
              "ledger.campaign(None)\nprint(ledger.notices)\n")
    done = subprocess.run([sys.executable, "-c", script, str(sample), str(other)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # the other database's own snapshot, which checks out


HANDED_THEN_EDITED = """
import json, sqlite3, sys
from cgledger.ledger.store import reading
from cgledger.ledger.application import open_ledger

db = sys.argv[1]
reading.one_shot()
reading.stored_head(db, None)  # the answer's key: snapshot 100 as it is now
with sqlite3.connect(db) as conn:  # edited after the key read it, before the load
    (state,), = conn.execute("SELECT state FROM stored_snapshots WHERE originator_version = 100").fetchall()
    snap = json.loads(state)
    snap["state"]["cpp"]["german"] = 717
    conn.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = 100", (json.dumps(snap).encode(),))
conn.close()
ledger = open_ledger(db)
print(ledger.campaign(None).cpp["german"], ledger.notices)
again = open_ledger(db)
print(again.campaign(None).cpp["german"], len(again.notices))
"""


def test_the_load_starts_from_the_very_row_the_key_read(sample, tmp_path):
    """The row the answer's key hashed is the one the campaign is read from (its bytes are not read again): an edit
    in between is not what this read shows, and the next load, which reads the row itself, names it."""
    state = tmp_path / "state"
    assert console(sample, "status", state=state).returncode == 0  # this machine's mark: its reads start from snapshots
    done = subprocess.run([sys.executable, "-c", HANDED_THEN_EDITED, str(sample)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "XDG_STATE_HOME": str(state)})
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.split(" ", 1)[1] == "[]" and first.split()[0] != "717"
    assert second.split() == [first.split()[0], "1"]  # the edit named, the campaign read from the log instead
