"""The key agent: `keys unlock` keeps a side's stretched key in a small process for
a time limit, so that a signed command does not run scrypt again; it serves it only to the passphrase that made it,
forgets it at `keys lock` or when the time is up, is never required, and is not used where another user could reach
it. Each test has its own agent folder (conftest: XDG_STATE_HOME per test, XDG_RUNTIME_DIR unset); no agent outlives
its test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Player, keyed_players
from cgledger.cli.app import forget
from cgledger.ledger.player import keyagent
from cgledger.ledger.application import open_ledger
from cgledger.ledger.player.keyring import Keyring
from cgledger.ledger.trust.secrets import derive_key, key_check

GERMAN, US = "Peiper's own words", "Harrison's own words"
CGLEDGER = [sys.executable, "-c", "from cgledger.cli import main; main(prog_name='cgledger')"]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


def agent_state() -> dict | None:
    try:
        return keyagent.request({"op": "status"}, timeout=1.0)
    except (OSError, ValueError, keyagent.Unsafe):
        return None


@pytest.fixture(autouse=True)
def no_agent_left():
    """Whatever a test started is gone after it: locked, and killed if it did not stop."""
    started: list[int] = []
    yield started
    state = agent_state()
    if state:
        started.append(state["pid"])
        try:
            keyagent.request({"op": "lock"}, timeout=1.0)
        except (OSError, ValueError, keyagent.Unsafe):
            pass
    for pid in started:
        deadline = time.monotonic() + 3
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the key agent {pid} outlived its test")


@pytest.fixture
def players(at):
    db = at("8.616", "19 PM").db
    Player(db, None).ok("fair-dice", "mode", "immediate")  # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    return keyed_players(db, GERMAN, US)


def registered(db, side: str) -> dict:
    ledger = open_ledger(str(db))
    try:
        return dict(ledger.campaign(None).keys[side])
    finally:
        ledger.close()


def unlocked(player, no_agent_left, *more: str) -> dict:
    result = player.ok("keys", "unlock", *more)
    assert "the key agent keeps the German side's key until" in result.stdout, result.stdout
    state = agent_state()
    no_agent_left.append(state["pid"])
    return state


def run(player, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command as its own process, as a player runs it."""
    env = {**os.environ, "CGLEDGER_DB": str(player.db)}
    env.pop("CGLEDGER_PASSPHRASE", None)
    if player.passphrase:
        env["CGLEDGER_PASSPHRASE"] = player.passphrase
    return subprocess.run([*CGLEDGER, *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_the_agent_serves_a_key_only_to_the_passphrase_that_unlocked_it(players, no_agent_left):
    german, us = players
    unlocked(german, no_agent_left)
    mine, theirs = registered(german.db, "german"), registered(german.db, "us")
    got = keyagent.request({"op": "get", "lookup": keyagent.lookup(GERMAN.encode(), mine["salt"])})
    assert key_check(got["key"].encode()) == mine["check"]
    for material, salt in ((US, mine["salt"]), (US, theirs["salt"]), ("", mine["salt"]), ("", theirs["salt"])):
        assert keyagent.request({"op": "get", "lookup": keyagent.lookup(material.encode(), salt)}) == {"key": None}
    # the German passphrase stretched with the U.S. salt is kept too (a command finds its side without scrypt), and
    # opens nothing of the U.S. side's
    got = keyagent.request({"op": "get", "lookup": keyagent.lookup(GERMAN.encode(), theirs["salt"])})
    assert got["key"].encode() == derive_key(GERMAN.encode(), theirs["salt"])
    assert key_check(got["key"].encode()) != theirs["check"]
    # another player's command at the same desk leaves nothing in this agent: only the unlocking material's keys
    key = derive_key(US.encode(), theirs["salt"])
    assert keyagent.request({"op": "keep", "owner": keyagent.owner(US.encode()),
                             "lookup": keyagent.lookup(US.encode(), theirs["salt"]), "key": key.decode()}) == \
        {"kept": False}
    assert run(us, "roll", "8.616", "--side", "us", "--dice", "3,3").returncode == 0
    state = agent_state()
    assert state["keys"] == 2 and state["kept"] == 0 and state["served"] == 2  # only the lookups above
    # a malformed request is answered, and the agent goes on
    assert keyagent.request({"op": "get", "lookup": ["not", "hashable"]}) == {"error": "bad request"}
    assert keyagent.request({"op": "keep", "owner": {}, "key": 3}) == {"error": "bad request"}
    assert keyagent.request({"op": "keep", "owner": "x" * 64, "key": 3}) == {"kept": False}
    # the passphrase is nowhere in the agent's environment or command line
    pid = state["pid"]
    for name in ("environ", "cmdline"):
        try:
            assert GERMAN.encode() not in Path(f"/proc/{pid}/{name}").read_bytes()
        except PermissionError:  # not dumpable: only root may read them
            pass
    # the socket and its folder are the user's alone
    path = keyagent.socket_path()
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)


def test_a_signed_command_with_the_agent_on_runs_no_scrypt(players, no_agent_left):
    german, us = players
    unlocked(german, no_agent_left)
    us.ok("status")  # another key in between: the German's next command starts from a keyring of its own
    before = Keyring.stretches
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert rolled["sealed"] is True and Keyring.stretches == before  # signed and sealed, never stretched
    assert agent_state()["served"] == 1
    # as its own process: the agent served it, nothing was handed back (no miss)
    assert run(german, "undo").returncode == 0
    state = agent_state()
    assert state["served"] == 2 and state["kept"] == 0
    german.ok("keys", "lock")
    us.ok("status")
    before = Keyring.stretches
    german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert Keyring.stretches == before + 1  # locked: stretched as without an agent


def test_the_time_limit_ends_the_agent(players, no_agent_left):
    german, us = players
    state = unlocked(german, no_agent_left, "--for", "1s")
    time.sleep(1.2)
    salt = registered(german.db, "german")["salt"]
    try:
        answer = keyagent.request({"op": "get", "lookup": keyagent.lookup(GERMAN.encode(), salt)})
    except OSError:
        answer = {"key": None}  # already gone
    assert answer == {"key": None}
    deadline = time.monotonic() + 3
    while alive(state["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(state["pid"]) and not keyagent.socket_path().exists()
    assert "no key agent runs" in german.ok("keys", "agent").stdout
    us.ok("status")
    before = Keyring.stretches
    german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert Keyring.stretches == before + 1


def test_lock_forgets_every_key_and_stops_the_agent(players, no_agent_left):
    german, _us = players
    state = unlocked(german, no_agent_left, "--for", "2h")
    shown = german.ok("keys", "agent").stdout
    assert "the key agent keeps 2 keys until" in shown and ("1h59m left" in shown or "2h00m left" in shown)
    assert german.ok("keys", "lock").stdout.strip() == "the key agent forgot every key and stopped"
    deadline = time.monotonic() + 3
    while alive(state["pid"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(state["pid"]) and not keyagent.socket_path().exists()
    assert german.ok("keys", "lock").stdout.startswith("no key agent runs")
    assert german.json("keys", "agent")["running"] is False


def test_a_stale_or_hung_socket_falls_back_at_once(players, no_agent_left):
    german, us = players
    path = keyagent.socket_path()
    keyagent.check_folder(path.parent, make=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # an agent killed with SIGKILL leaves this: a socket file nobody listens on
    t0 = time.monotonic()
    done = run(german, "roll", "8.616", "--side", "german", "--dice", "3,3")
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "agent" not in done.stderr
    assert "no key agent runs" in german.ok("keys", "agent").stdout
    assert german.ok("keys", "lock").stdout.startswith("no key agent runs") and not path.exists()  # removed
    # an agent that listens and never answers (stopped): the command waits a quarter of a second, then stretches
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hung.bind(str(path))
    hung.listen(1)
    try:
        us.ok("status")
        before = Keyring.stretches
        t0 = time.monotonic()
        german.ok("undo")
        assert time.monotonic() - t0 < 5 and Keyring.stretches == before + 1
    finally:
        hung.close()
    # unlock replaces a stale socket with a live agent
    unlocked(german, no_agent_left)
    assert time.monotonic() - t0 < 30


def test_a_folder_another_user_could_reach_is_refused(players, no_agent_left, tmp_path):
    german, us = players
    path = keyagent.socket_path()
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o755)
    os.chmod(path.parent, 0o755)
    german.refused("keys", "unlock", contains="is open to other users (mode 0755, 0700 needed)")
    assert not path.exists() and agent_state() is None
    assert "is open to other users" in german.ok("keys", "agent").stdout
    # a link in its place (to a private folder) is refused too
    os.rmdir(path.parent)
    private = tmp_path / "elsewhere"
    private.mkdir(mode=0o700)
    path.parent.symlink_to(private)
    german.refused("keys", "unlock", contains="is not a folder (a link or a file)")
    path.parent.unlink()
    # a folder opened to others after `unlock`: commands stop using the agent
    unlocked(german, no_agent_left)
    os.chmod(path.parent, 0o777)
    try:
        us.ok("status")
        before = Keyring.stretches
        german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")
        assert Keyring.stretches == before + 1
    finally:
        os.chmod(path.parent, 0o700)
    assert agent_state()["served"] == 0


def test_a_key_the_agent_gives_is_checked_never_taken_on_its_word(players, no_agent_left):
    german, us = players
    unlocked(german, no_agent_left)
    salt = registered(german.db, "german")["salt"]
    wrong = derive_key(b"not the German's words at all", salt).decode()
    answer = keyagent.request({"op": "keep", "owner": keyagent.owner(GERMAN.encode()),
                               "lookup": keyagent.lookup(GERMAN.encode(), salt), "key": wrong})
    assert answer == {"kept": True}
    us.ok("status")
    before = Keyring.stretches
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert rolled["sealed"] is True and Keyring.stretches == before + 1  # stretched again, signed with the right key
    assert german.json("audit")["clean"]


def test_without_an_agent_everything_is_as_before(players):
    german, us = players
    assert run(german, "roll", "8.616", "--side", "german", "--dice", "3,3").returncode == 0
    us.ok("status")
    before = Keyring.stretches
    german.ok("undo")
    assert Keyring.stretches == before + 1
    assert not keyagent.socket_path().parent.exists()  # no command but `keys unlock` makes the agent's folder
    assert german.json("audit")["clean"]


def test_unlock_refuses_bad_input_in_one_line(players, no_agent_left):
    german, _us = players
    german.refused("keys", "unlock", "--for", "forever", contains="give a time such as 30m, 4h", code=2)
    german.refused("keys", "unlock", "--for", "8d", contains="between 1s and 7d", code=2)
    Player(german.db, "someone else's words").refused("keys", "unlock", contains="not the key of any side")
    Player(german.db, None).refused("keys", "unlock", contains="give a passphrase")
    assert agent_state() is None and not keyagent.socket_path().exists()


def test_unlock_needs_a_side_with_a_key(kgp, no_agent_left):
    Player(kgp.db, GERMAN).refused("keys", "unlock", contains="no side has a key yet")
    assert agent_state() is None


def test_a_machine_that_plays_one_side_stretches_the_key_once(make_db, tmp_path, monkeypatch):
    """Without an agent, a command that asks whose key was given stretches it with each side's salt in turn until
    one opens (scrypt each time): the U.S. player paid for the German salt too, in every command (2 before this
    test's change). His machine now tries the side it opened before first; a machine where both sides' keys were
    given tries them in order."""
    db = make_db()
    german, us = Player(db, GERMAN), Player(db, US)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "german-machine"))
    german.ok("new", "CG I", "--system", "kgp", "--cg", "I")
    german.ok("keys", "init", "--side", "german")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "us-machine"))
    us.ok("keys", "init", "--side", "us")

    def stretches_of_a_status() -> int:
        forget(str(db))  # the next command opens the ledger, and a keyring, afresh (as a new process does)
        before = Keyring.stretches
        us.ok("status")
        return Keyring.stretches - before

    assert stretches_of_a_status() == 1  # his key opened his side here when he set it up (it signed that)
    assert stretches_of_a_status() == 1
    german.ok("status")  # the German key given on the U.S. machine too: a shared table
    assert stretches_of_a_status() == 2  # both sides' keys opened here: tried in their order, as before
