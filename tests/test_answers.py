"""Answers kept per log head (ledger/read/answers.py): a read of a log that has not changed since answers from what this
machine kept, without loading the event-sourcing library, msgspec or the rules, and shows exactly what the full read
shows; anything that changes the log, the database or the machine makes it read in full again."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cgledger.cli import main
from cgledger.ledger.read import player as reads
from cgledger.cli.app import forget
from cgledger.ledger.trust import machine

pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "fixtures" / "kgp-cg1-sample.cgl"
# what a kept answer is shown without: the application, the event-sourcing library, msgspec, the rules, the domain
NOT_ON_A_HIT = ("eventsourcing", "msgspec", "cgledger.ledger.application", "cgledger.ledger.rules",
                "cgledger.ledger.domain.events", "cgledger.ledger.decide", "cgledger.ledger.domain.evolve", "cgledger.projections.roster")
READS = [["status"], ["status", "--json"], ["step"], ["step", "--json"], ["date"], ["date", "--json"],
         ["roster", "--side", "german"], ["roster", "--side", "us", "--json"], ["roster", "--side", "german", "--csv"],
         ["rg-record", "--side", "us"], ["rg-record", "--side", "german", "--json"], ["history"], ["history", "--json"],
         ["dice-stats"], ["dice-stats", "--json"], ["dice-stats", "--side", "us"], ["final"], ["final", "--json"],
         ["areas", "--group", "St"], ["areas", "--group", "St", "--json"]]


@pytest.fixture
def sample(played) -> Path:
    """A copy of the shipped KGP sample, replayed once per run by `script FILE --quiet` (conftest's `played`)."""
    return played()


def here(db: Path, *args: str):
    """The command in this process (a miss, or a write): (exit, stdout, stderr)."""
    forget(str(db))  # opened afresh: the file may have been replaced
    done = CliRunner().invoke(main, ["--db", str(db), *args], catch_exceptions=False)
    forget(str(db))  # closed: its WAL folded into the file, which a test may copy or replace
    return done.exit_code, done.stdout, done.stderr


def apart(db: Path, *args: str, env: dict | None = None):
    """The command in its own process, as a player runs it: (exit, stdout, stderr), and the modules it loaded."""
    code = (f"import sys\nfrom cgledger.cli import main\ntry:\n    main({['--db', str(db), *args]!r}, prog_name='cgledger')"
            "\nexcept SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
            "print('LOADED', ' '.join(sorted(sys.modules)), file=sys.stderr)\nsys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, **(env or {})})
    stderr, modules = done.stderr.rsplit("LOADED ", 1)
    return (done.returncode, done.stdout, stderr), set(modules.split())


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m in NOT_ON_A_HIT or m.startswith(tuple(f"{n}." for n in NOT_ON_A_HIT))}


def full(db: Path, tmp_path: Path, *args: str):
    """What the full path shows now, with this machine's seen heads and mark but no answer kept."""
    state = Path(os.environ["XDG_STATE_HOME"])
    ref = tmp_path / f"ref-{len(list(tmp_path.glob('ref-*')))}"
    shutil.copytree(state, ref, ignore=shutil.ignore_patterns("answers"))
    shown, modules = apart(db, *args, env={"XDG_STATE_HOME": str(ref)})
    assert "cgledger.ledger.application" in modules
    return shown


def replace(db: Path, by: Path) -> None:
    """The database file replaced by another, as a player restores a copy (no WAL of the one it replaces left)."""
    for extra in (".db-wal", ".db-shm"):
        db.with_suffix(extra).unlink(missing_ok=True)
    shutil.copy(by, db)


def answers() -> list[Path]:
    return sorted((machine.state_dir() / "answers").rglob("*.answer"))


def hit_equals_miss(db: Path, reads=READS) -> None:
    for read in reads:
        miss = here(db, *read)
        assert miss[0] == 0 and not miss[2], (read, miss)
        hit, modules = apart(db, *read)
        assert hit == miss, read
        assert not heavy(modules), (read, heavy(modules))


def test_each_read_kept_shows_what_the_full_read_shows_and_loads_nothing_of_the_domain(sample, tmp_path):
    hit_equals_miss(sample)
    assert answers() and all(p.stat().st_mode & 0o777 == 0o600 for p in answers())
    here(sample, "step", "next")  # an event: the date moves on
    hit_equals_miss(sample, [["status"], ["date", "--json"], ["history", "--json"], ["areas", "--group", "St"]])
    assert "21 AM" in apart(sample, "date")[0][1]
    here(sample, "undo")  # and undone
    hit_equals_miss(sample, [["status"], ["date"], ["dice-stats", "--json"], ["roster", "--side", "us"]])
    assert "20 N" in apart(sample, "date")[0][1]
    for name in ("m1.svg", "m2.svg"):  # the map: drawn from the areas kept
        code, modules = apart(sample, "map", "--group", "St", "--svg", str(tmp_path / name))
        assert code[0] == 0
    assert not heavy(modules) and (tmp_path / "m1.svg").read_text() == (tmp_path / "m2.svg").read_text()
    code = here(sample, "report", "--html", str(tmp_path / "r0.html"))  # the full read, in this process
    for name in ("r1.html", "r2.html"):  # the report: its page kept whole
        shown, modules = apart(sample, "report", "--html", str(tmp_path / name))
        assert shown[0] == 0 and shown[1] == code[1].replace("r0.html", name)
    assert not heavy(modules) and "cgledger.projections.report" not in modules
    assert (tmp_path / "r0.html").read_text() == (tmp_path / "r1.html").read_text() == (tmp_path / "r2.html").read_text()


def kept(db: Path, *args: str):
    """The read run twice: its answer kept and used."""
    first = here(db, *args)
    assert first[0] == 0
    again, modules = apart(db, *args)
    assert again == first and not heavy(modules)
    return first


def test_a_new_event_an_undo_and_an_import_each_miss(sample, tmp_path):
    other = tmp_path / "other.db"  # the opponent's copy: it gets the new event by import
    shutil.copy(sample, other)
    before = kept(sample, "status", "--json")
    kept(other, "status", "--json")
    since = here(sample, "head")[1].strip()
    here(sample, "step", "next")
    moved = apart(sample, "status", "--json")[0]
    assert moved != before and json.loads(moved[1])["cg_date"] == "21 AM" and moved == full(sample, tmp_path, "status", "--json")
    bundle = tmp_path / "bundle.json"
    assert here(sample, "export", "--since", since, str(bundle))[0] == 0
    assert here(other, "import", str(bundle))[0] == 0
    assert apart(other, "status", "--json")[0] == moved
    here(sample, "undo")
    assert json.loads(apart(sample, "status", "--json")[0][1])["cg_date"] == "20 N"


def test_a_row_edited_in_place_misses(sample, tmp_path):
    kept(sample, "status")
    kept(sample, "date", "--json")
    with sqlite3.connect(sample) as conn:  # the last event, same version, other bytes
        rowid, state = conn.execute("SELECT rowid, state FROM stored_events ORDER BY rowid DESC LIMIT 1").fetchone()
        assert b"Idle Day" in state
        conn.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state.replace(b"Idle Day", b"Idle Dax"), rowid))
    conn.close()
    for read in (["status"], ["date", "--json"]):
        shown, modules = apart(sample, *read)
        assert shown == full(sample, tmp_path, *read) and "cgledger.ledger.application" in modules
    assert "(Idle Dax)" in shown_status(sample)  # the row as it is now, not the answer kept before the edit
    # the last verified event is checked again by every load (ledger/store/loading.py): the edit is named, not shown silently
    assert "run `cgledger audit`" in apart(sample, "status")[0][2]


def edit_last_snapshot(db: Path) -> None:
    """The campaign's last snapshot with another CPP total, its seal left as it was (as a player's hex editor would)."""
    with sqlite3.connect(db) as conn:
        version, state = conn.execute("SELECT originator_version, state FROM stored_snapshots "
                                      "ORDER BY originator_version DESC LIMIT 1").fetchone()
        snap = json.loads(state)
        snap["state"]["cpp"]["german"] = 717
        conn.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                     (json.dumps(snap).encode(), version))
    conn.close()


def test_a_snapshot_edited_after_the_answer_or_while_its_read_ran_misses(sample, played, tmp_path):
    """The answer's key holds the last snapshot as the read's key saw it before the read: one edited after the answer
    was kept, or edited while the read that keeps it ran (the read keeps it under the snapshot it started from, and
    does not read the snapshot again), is never shown: the next read runs in full and names the edit."""
    from cgledger.cli.context import LedgerContext

    kept(sample, "date", "--json")
    edit_last_snapshot(sample)
    shown, modules = apart(sample, "date", "--json")
    assert "cgledger.ledger.application" in modules and "snapshot at event 100 was edited" in shown[2]

    fresh = played()  # the sample again: edited mid-read

    def status_then_edited(ledger):
        data = reads.status(ledger, None, None)  # the read loaded the snapshot as it was
        edit_last_snapshot(fresh)
        return data

    reader = LedgerContext(str(fresh), None, None)
    reader.answer("status", (), status_then_edited)
    forget(str(fresh))
    shown, modules = apart(fresh, "status")
    assert "cgledger.ledger.application" in modules and "snapshot at event 100 was edited" in shown[2]
    assert shown == full(fresh, tmp_path, "status")


def shown_status(db: Path) -> str:
    return apart(db, "status")[0][1].splitlines()[0]


def test_a_database_replaced_by_another_or_by_its_older_copy_misses(sample, tmp_path):
    older = tmp_path / "older.db"
    shutil.copy(sample, older)
    kept(sample, "status")
    here(sample, "step", "next")
    kept(sample, "date")  # `status` not read since: its answer for the older head is still kept
    replace(sample, older)  # an older copy of the file: its answer was kept, but this machine has seen more
    shown, _modules = apart(sample, "status")
    assert shown == full(sample, tmp_path, "status") and "are gone" in shown[2]
    another = tmp_path / "another"  # another campaign of the same name in its place
    another.mkdir()
    assert here(another / "s.db", "new", "KGP CG I sample", "--system", "kgp", "--cg", "I")[0] == 0
    forget(str(another / "s.db"))
    replace(sample, another / "s.db")
    shown, _modules = apart(sample, "status")
    assert shown == full(sample, tmp_path, "status") and "CG Date 20 N" not in shown[1]


def test_a_copied_database_or_state_folder_carries_no_answer(sample, tmp_path):
    shown = kept(sample, "status")
    copy = tmp_path / "copy.db"  # the same log at another place: read in full there first
    shutil.copy(sample, copy)
    assert apart(copy, "status")[1] & {"cgledger.ledger.application"}
    other = tmp_path / "other-machine"  # this state folder on another machine: another secret
    shutil.copytree(machine.state_dir(), other / "cgledger")
    (other / "cgledger" / "machine.key").write_bytes(os.urandom(machine.SIZE))
    again, modules = apart(sample, "status", env={"XDG_STATE_HOME": str(other)})
    assert again == shown and "cgledger.ledger.application" in modules


def test_an_answer_edited_by_hand_is_never_shown(sample, tmp_path):
    shown = kept(sample, "date")
    path, = answers()
    seal, body = path.read_bytes().split(b"\n", 1)
    path.write_bytes(seal + b"\n" + body.replace(b"20 N", b"29 N"))
    again, modules = apart(sample, "date")
    assert again == shown and "cgledger.ledger.application" in modules


def test_where_nothing_can_be_kept_every_read_is_full(sample, tmp_path):
    (machine.state_dir()).mkdir(parents=True, exist_ok=True)
    (machine.state_dir() / "answers").write_text("not a folder")  # answers cannot be written
    for _ in range(2):
        shown, modules = apart(sample, "status")
        assert shown[0] == 0 and not shown[2] and "cgledger.ledger.application" in modules
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    for _ in range(2):  # no state folder at all (no machine secret)
        again, modules = apart(sample, "status", env={"XDG_STATE_HOME": str(blocked / "state")})
        assert again == shown and "cgledger.ledger.application" in modules


def test_a_read_with_a_key_neither_uses_nor_fills_the_answers(sample, tmp_path):
    key = tmp_path / "key"
    key.write_text("a key file nobody registered")
    for env in ({"CGLEDGER_PASSPHRASE": "correct horse battery"}, {"CGLEDGER_KEY_FILE": str(key)}):
        shown, modules = apart(sample, "status", env=env)
        assert shown[0] == 0 and "cgledger.ledger.application" in modules
    assert not answers()
    kept(sample, "status")
    _shown, modules = apart(sample, "status", env={"CGLEDGER_PASSPHRASE": "correct horse battery"})
    assert "cgledger.ledger.application" in modules


def test_an_as_of_read_is_not_kept(sample):
    for _ in range(2):
        shown, modules = apart(sample, "status", "--as-of", "20 AM")
        assert shown[0] == 0 and "cgledger.ledger.application" in modules
    assert not answers()


def test_a_refused_read_keeps_nothing(sample):
    for _ in range(2):
        shown, _modules = apart(sample, "roster", "--side", "russian")
        assert shown[0] == 1 and len(shown[2].strip().splitlines()) == 1
    assert not answers()


def test_a_campaign_started_beside_the_only_one_misses(sample):
    kept(sample, "status")
    assert here(sample, "new", "Another", "--system", "kgp", "--cg", "I")[0] == 0
    shown, _modules = apart(sample, "status")
    assert shown[0] == 1 and "several campaigns" in shown[2] and len(shown[2].strip().splitlines()) == 1
    named, modules = apart(sample, "--campaign", "KGP CG I sample", "status")
    assert named[0] == 0 and "CG Date 20 N" in named[1] and "cgledger.ledger.application" in modules


def test_old_answers_are_pruned(sample):
    kept(sample, "date")
    path, = answers()
    for i in range(40):  # answers kept long ago, of other reads of this database
        old = path.with_name(f"{i:040x}.answer")
        old.write_text("sealed long ago")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    assert here(sample, "status")[0] == 0
    left = answers()
    assert len(left) == 32 and path in left and all(path.with_name(f"{i:040x}.answer") not in left for i in range(10))


def test_tables_keep_which_rules_files_are_in_force_not_the_campaign(sample, tmp_path):
    """`tables` needs only the campaign's rule system and the players' files in force: kept per log head, a repeated
    `tables` loads neither the application nor the event-sourcing library (the rules come from their own cache)."""
    for read in (["tables"], ["tables", "8.616", "--json"]):
        miss = here(sample, *read)
        assert miss[0] == 0 and not miss[2], (read, miss)
        hit, modules = apart(sample, *read)
        assert hit == miss, read
        assert not {m for m in modules if m.startswith(("eventsourcing", "cgledger.ledger.application"))}, read
    from test_start import rules_file

    override = rules_file(tmp_path, "Mist Change DR (our copy)")
    before = apart(sample, "tables", "--json")[0][1]
    assert here(sample, "rules", "load", str(override))[0] == 0  # an event: the answer kept misses
    after, modules = apart(sample, "tables", "--json")
    assert after[0] == 0 and "our copy" in after[1] and "our copy" not in before
    assert "cgledger.ledger.application" in modules
