"""Verify once: a machine checks each event's digest, chain, author and signature once and keeps a
mark sealed with a secret of its own (ledger/trust/mark.py); commands check only past it; a log that does not extend the
mark is checked again from its first event; `audit` checks everything, `audit --fast` trusts the mark."""

from __future__ import annotations

import json
import shutil

import msgspec
import pytest

from conftest import Player, count_events, sql
from test_trust import GERMAN, US, forge, honest_roll, kinds, table  # noqa: F401 - the fixture
from cgledger.ledger.trust import mark
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import campaign_id


def the_mark(db) -> tuple[int, str]:
    ledger = open_ledger(str(db))
    return mark.read(ledger.where, ledger.store.seen_key(campaign_id(ledger.resolve_name(None))))


def a_forged_signature(db, version: int) -> None:
    """What a cheating player with write access could do to a stored row: another signature on event `version`."""
    (state,) = sql(db, "SELECT state FROM {events} WHERE originator_version = ?", (version,))[0]
    event = json.loads(bytes(state))
    assert event["signature"]
    event["signature"] = ("0" if event["signature"][0] != "0" else "1") + event["signature"][1:]
    sql(db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (json.dumps(event).encode(), version))


def test_every_command_moves_the_mark_to_the_head_it_verified(table):
    german, us, anyone = table
    events = count_events(german.db)
    assert the_mark(german.db)[0] == events
    german.ok("roll", "8.610", "--side", "german", "--dice", "3", "--for", "A")
    assert the_mark(german.db)[0] == events + 1
    assert anyone.json("audit", "--fast")["trusted"] == events + 1


def test_a_command_checks_only_past_the_mark_and_the_audit_still_checks_everything(table):
    """Below the mark this machine does not look again (that is the point); the full audit does."""
    german, us, anyone = table
    honest_roll(german)
    last = count_events(german.db)
    signed = [v for (v,) in sql(german.db, "SELECT originator_version FROM {events}") if v > 1][-2]
    a_forged_signature(german.db, signed)
    result = german("status")
    assert result.exit_code == 0 and "Warning" not in result.stderr  # trusted: this machine checked it already
    assert "signature" in kinds(anyone)  # the whole audit checks every event from scratch
    assert the_mark(german.db)[0] == last


def test_the_marked_event_is_checked_again_for_its_content_not_its_signature(table):
    """Every load checks the event at the mark again (tests/test_answers.py: an edit of its content is named), but
    its chain and digest only: the mark holds the digest whose signature this machine verified, and the signature
    covers that digest, so a read loads no cryptography. A signature changed alone shows nothing different; the
    audit names it."""
    german, us, anyone = table
    honest_roll(german)
    last = count_events(german.db)
    assert the_mark(german.db)[0] == last
    a_forged_signature(german.db, last)
    result = german("status")
    assert result.exit_code == 0 and "Warning" not in result.stderr
    assert "signature" in kinds(anyone)


def test_a_forged_event_past_the_mark_is_named_by_the_next_command_and_by_audit_fast(table):
    german, us, anyone = table
    roll = honest_roll(german)
    marked = the_mark(german.db)[0]
    forge(german.db, lambda c: msgspec.structs.replace(roll, action=c.next_action, purpose="B",
                                                       item=roll.item[:-1] + "b"), "german", US)
    result = german("status")
    assert result.exit_code == 0 and "signature does not verify" in result.stderr
    assert the_mark(german.db)[0] == marked  # not moved over what did not check out
    stored = count_events(german.db)
    fast = anyone("audit", "--fast", "--json")
    report = json.loads(fast.stdout)
    assert fast.exit_code == 1 and report["clean"] is False and report["trusted"] == marked
    assert [(f["version"], f["kind"]) for f in report["findings"]] == [(marked + 1, "signature")]
    assert count_events(german.db) == stored  # an audit writes nothing
    text = anyone("audit", "--fast")
    assert text.exit_code == 1 and f"event {marked + 1}:" in text.stdout and "1 problem(s)" in text.stdout


def test_a_log_that_no_longer_extends_the_mark_is_checked_again_from_its_first_event(table):
    german, us, anyone = table
    honest_roll(german)
    last = count_events(german.db)
    a_forged_signature(german.db, last - 1)  # below the mark: trusted ...
    assert "Warning" not in german("status").stderr
    (state,) = sql(german.db, "SELECT state FROM {events} WHERE originator_version = ?", (last,))[0]
    event = json.loads(bytes(state))
    event["digest"] = "0" * 64  # ... until the event the mark names is not the one this machine verified
    sql(german.db, "UPDATE {events} SET state = ? WHERE originator_version = ?", (json.dumps(event).encode(), last))
    report = json.loads(anyone("audit", "--fast", "--json").stdout)
    assert report["mark_broken"] is True and report["trusted"] == 0
    assert (last - 1, "signature") in [(f["version"], f["kind"]) for f in report["findings"]]


def test_a_mark_from_another_machine_or_edited_by_hand_is_not_trusted(table, tmp_path, monkeypatch):
    german, us, anyone = table
    honest_roll(german)
    ours = the_mark(german.db)
    assert ours[0] > 0
    data = json.loads(mark.mark_file().read_text())
    name = next(iter(data))
    data[name][0] += 5  # edited: the seal no longer matches
    mark.mark_file().write_text(json.dumps(data))
    assert the_mark(german.db) == (0, "")
    data[name][0] -= 5
    mark.mark_file().write_text(json.dumps(data))
    assert the_mark(german.db) == ours
    elsewhere = tmp_path / "another machine"
    (elsewhere / "cgledger").mkdir(parents=True)
    shutil.copy(mark.mark_file(), elsewhere / "cgledger" / "verified.json")  # the marks, without the secret
    monkeypatch.setenv("XDG_STATE_HOME", str(elsewhere))
    assert the_mark(german.db) == (0, "")
    report = anyone.json("audit", "--fast")
    assert report["trusted"] == 0 and report["checked"] == count_events(german.db) and report["clean"]


def test_without_a_secret_of_its_own_a_machine_checks_as_before(table, tmp_path, monkeypatch):
    german, us, anyone = table
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    roll = honest_roll(german)
    forge(german.db, lambda c: msgspec.structs.replace(roll, action=c.next_action, purpose="B",
                                                       item=roll.item[:-1] + "b"), "german", US)
    assert "signature does not verify" in german("status").stderr
    assert anyone("audit", "--fast", "--json").exit_code == 1


def test_audit_fast_is_refused_with_final_or_as_of(table):
    german, us, anyone = table
    stored = count_events(german.db)
    for extra in (["--final"], ["--as-of", "19 AM"]):
        result = anyone("audit", "--fast", *extra)
        assert result.exit_code == 2 and "--fast checks the log as it is now" in result.output
    assert count_events(german.db) == stored


def test_a_full_clean_audit_marks_the_whole_log(table):
    german, us, anyone = table
    honest_roll(german)
    data = json.loads(mark.mark_file().read_text())
    mark.mark_file().write_text(json.dumps({k: [1, v[1], v[2]] for k, v in data.items()}))  # no trusted mark now
    assert the_mark(german.db) == (0, "")
    assert kinds(anyone) == []
    assert the_mark(german.db)[0] == count_events(german.db)


@pytest.mark.parametrize("passphrase", [GERMAN])
def test_a_received_log_is_checked_once_then_trusted(table, make_db, tmp_path, passphrase):
    """`import` into a fresh database: the first command after it checks every event, the next only the new."""
    german, us, anyone = table
    honest_roll(german)
    bundle = tmp_path / "bundle.json"
    german.ok("export", "--since", "0", str(bundle))
    fresh = Player(make_db(), None)
    fresh.ok("import", str(bundle))
    report = fresh.json("audit", "--fast")
    assert report["clean"] and report["trusted"] == count_events(fresh.db) and report["checked"] == 0


def test_a_long_first_read_verifies_on_another_cpu_and_names_what_the_audit_names(table, monkeypatch, tmp_path):
    """The first read on a new machine checks every event; past a few hundred signatures it hands the Ed25519 checks
    to a child process (ledger/store/loading.py `_Signatures`, as the audit does). Two signatures forged, one early
    and one late: the read names both, in the log's order, as the audit does, and still answers."""
    from cgledger.ledger.verbs import rolling

    german, us, anyone = table
    ledger = open_ledger(str(german.db))
    ledger.key_material = GERMAN.encode()
    for i in range(320):
        rolling.roll(ledger, None, "8.610", "german", dice=str(i % 6 + 1), purpose=f"leader {i}")
    ledger.close()
    signed = [v for v, state in sql(german.db, "SELECT originator_version, state FROM {events}")
              if json.loads(bytes(state))["signature"]]
    early, late = signed[2], signed[-3]
    a_forged_signature(german.db, late)
    a_forged_signature(german.db, early)
    audited = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert [(f["version"], f["kind"]) for f in audited] == [(early, "signature"), (late, "signature")]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a-new-machine"))
    result = anyone("status")
    assert result.exit_code == 0
    named = [line for line in result.stderr.splitlines() if "signature" in line]
    assert [f"event {early}:" in named[0], f"event {late}:" in named[1]] == [True, True], result.stderr
    assert len(named) == 2
