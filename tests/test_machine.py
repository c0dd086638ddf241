"""ledger/trust/machine.py: the secret only this machine holds seals what it checked."""

from __future__ import annotations

import os
import stat

from cgledger.ledger.trust import machine


def test_the_secret_is_made_once_readable_by_its_user_only_and_seals(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    made = machine.seal("campaign", 12, "ab" * 32)
    path = tmp_path / "state" / "cgledger" / "machine.key"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and len(path.read_bytes()) == machine.SIZE
    assert machine.sealed(made, "campaign", 12, "ab" * 32)
    assert not machine.sealed(made, "campaign", 13, "ab" * 32)
    assert not machine.sealed(None, "campaign", 12, "ab" * 32) and not machine.sealed(made.upper(), "campaign", 12)


def test_another_machines_seal_does_not_check_out_here(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "theirs"))
    theirs = machine.seal("campaign", 12, "digest")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "mine"))
    assert not machine.sealed(theirs, "campaign", 12, "digest")
    assert machine.sealed(machine.seal("campaign", 12, "digest"), "campaign", 12, "digest")


def test_a_home_that_cannot_be_written_seals_nothing(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    assert machine.seal("anything") is None
    assert not machine.sealed(None, "anything")


def test_a_damaged_secret_is_never_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "cgledger").mkdir()
    (tmp_path / "cgledger" / "machine.key").write_bytes(b"short")
    assert machine.seal("anything") is None
