"""The key agent: a small process, started by `cgledger keys unlock`, that keeps a
side's stretched keys in memory for a time limit, so that a signed command does not pay scrypt (~40 ms) again.
Without it every command stretches as before: the agent is never required.

Where: a Unix socket `agent.sock` in a folder only its user can enter, `$XDG_RUNTIME_DIR/cgledger/` (default
`$XDG_STATE_HOME/cgledger/agent/`): the folder must be the user's own, a real folder (no link), mode 0700, or it is
not used; the socket is 0600 and each end checks the other's user id (SO_PEERCRED).

What a command asks: the key of a salt, by a lookup only the passphrase (or key file) can compute, HMAC-SHA-256 of
the material over the salt: the material itself never leaves the command, and a process that does not know it gets
nothing. A key is kept only for the material that unlocked the agent (its owner token, another HMAC of it): another
player's command at the same desk leaves nothing in your agent. Nothing is written to disk but the socket.

The protocol: one JSON request per connection, one JSON line back. Requests: get (lookup), keep (owner, lookup,
key), unlock (owner, seconds, keys), status, lock. Run as `python -m cgledger.ledger.player.keyagent SOCKET` (by `unlock`):
it binds, forks (the child serves; the parent prints `ready PID` and exits, so the agent is nobody's zombie), and
exits when its last session's time is up, on `lock`, or when its socket is removed or replaced."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import stat
import struct
import sys
import time
from pathlib import Path

TIMEOUT = 0.25  # a command waits at most this for the agent, then stretches as without one
START_GRACE = 10.0  # an agent nobody unlocks within this exits
MAX_REQUEST = 1 << 16
_SOCKET_MAX = 107  # sun_path


# ---- where ---------------------------------------------------------------------------------------------
def folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return Path(runtime) / "cgledger"
    from ..trust.machine import state_dir

    return state_dir() / "agent"


def socket_path() -> Path:
    return folder() / "agent.sock"


class Unsafe(Exception):
    """The agent's folder or socket could be reached by another user: not used."""


def check_folder(path: Path, make: bool = False) -> None:
    """The folder is this user's own, a real folder, and nobody else may enter or write it (else Unsafe)."""
    if make:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no key agent's folder {path}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise Unsafe(f"the key agent's folder {path} is not a folder (a link or a file)")
    if info.st_uid != os.getuid():
        raise Unsafe(f"the key agent's folder {path} belongs to another user")
    if info.st_mode & 0o077:
        raise Unsafe(f"the key agent's folder {path} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}, "
                     "0700 needed)")


def _peer_uid(conn: socket.socket) -> int | None:
    if not hasattr(socket, "SO_PEERCRED"):
        return None  # not Linux: the folder's mode alone keeps others out
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return uid


# ---- what only the material can compute ---------------------------------------------------------------
def lookup(material: bytes, salt: str) -> str:
    return hmac.new(material, b"cgledger key agent lookup:" + salt.encode(), hashlib.sha256).hexdigest()


def owner(material: bytes) -> str:
    return hmac.new(material, b"cgledger key agent owner", hashlib.sha256).hexdigest()


# ---- the client: what a command does ------------------------------------------------------------------
def request(message: dict, timeout: float = TIMEOUT, path: Path | None = None) -> dict:
    """One request to the agent; its answer. OSError (no agent, a stale socket, a hung one), Unsafe, or ValueError
    (an answer that is not the agent's) when there is none to be had."""
    path = path or socket_path()
    check_folder(path.parent)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(str(path))
        if _peer_uid(conn) not in (None, os.getuid()):
            raise Unsafe(f"the key agent's socket {path} is another user's")
        conn.sendall(json.dumps(message).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while len(data) < MAX_REQUEST:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
    finally:
        conn.close()
    answer = json.loads(data or b"null")
    if not isinstance(answer, dict):
        raise ValueError("not the key agent's answer")
    return answer


class Client:
    """A command's way to the agent: asked once per salt (the Keyring keeps what it got); the first failure (no
    agent, a stale socket, a folder others could enter) ends its use for the process, at no further cost."""

    def __init__(self, path: Path | None = None):
        self.path = path or socket_path()
        self.off = False

    def _ask(self, message: dict) -> dict | None:
        if self.off:
            return None
        if not os.path.exists(self.path):  # the usual case without an agent: one stat
            self.off = True
            return None
        try:
            return request(message, path=self.path)
        except (OSError, Unsafe, ValueError):
            self.off = True
            return None

    def recall(self, material: bytes, salt: str) -> bytes | None:
        answer = self._ask({"op": "get", "lookup": lookup(material, salt)})
        key = (answer or {}).get("key")
        return key.encode() if isinstance(key, str) and len(key) == 44 else None

    def keep(self, material: bytes, salt: str, key: bytes) -> None:
        self._ask({"op": "keep", "owner": owner(material), "lookup": lookup(material, salt), "key": key.decode()})


# ---- the agent ----------------------------------------------------------------------------------------
def _clock() -> float:
    """Seconds that go on while the machine sleeps (a laptop's lid closed counts against the time limit)."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME") else time.monotonic()


def _harden() -> None:
    """No core dump, and (Linux) no other process of this user may read this one's memory (ptrace, /proc/PID/mem)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
        except (OSError, AttributeError):
            pass


class Agent:
    def __init__(self, path: Path):
        self.path = path
        self.sessions: dict[str, dict] = {}  # owner -> {"until": clock, "wall": time, "keys": {lookup: bytearray}}
        self.served = 0
        self.kept = 0
        self.started = _clock()
        self.done = False
        self.unlocked = False  # once its last session's time is up, it stops

    def live(self) -> None:
        now = _clock()
        for who in [w for w, s in self.sessions.items() if s["until"] <= now]:
            self.forget(who)

    def forget(self, who: str | None = None) -> None:
        for w in [who] if who else list(self.sessions):
            for key in self.sessions.pop(w)["keys"].values():
                key[:] = bytes(len(key))  # overwritten, not just dropped

    def answer(self, message: dict) -> dict:
        self.live()
        op = message.get("op")
        if op == "get":
            for session in self.sessions.values():
                key = session["keys"].get(message.get("lookup"))
                if key is not None:
                    self.served += 1
                    return {"key": bytes(key).decode()}
            return {"key": None}
        if op == "keep":
            session = self.sessions.get(message.get("owner"))
            key = message.get("key")
            if session is None or not isinstance(key, str) or len(key) != 44 or len(session["keys"]) >= 1000:
                return {"kept": False}
            session["keys"][str(message.get("lookup"))] = bytearray(key.encode())
            self.kept += 1
            return {"kept": True}
        if op == "unlock":
            who, seconds = message.get("owner"), message.get("seconds")
            if not isinstance(who, str) or not isinstance(seconds, (int, float)) or seconds <= 0:
                return {"error": "bad request"}
            if who in self.sessions:
                self.forget(who)
            self.unlocked = True
            self.sessions[who] = {"until": _clock() + seconds, "wall": time.time() + seconds,
                                  "keys": {str(k): bytearray(str(v).encode()) for k, v in message.get("keys", [])}}
            return {"until": self.sessions[who]["wall"]}
        if op == "status":
            return {"pid": os.getpid(), "sessions": len(self.sessions),
                    "until": max((s["wall"] for s in self.sessions.values()), default=None),
                    "keys": sum(len(s["keys"]) for s in self.sessions.values()), "served": self.served,
                    "kept": self.kept}
        if op == "lock":
            self.forget()
            self.done = True
            return {"locked": True}
        return {"error": "unknown request"}

    def finished(self) -> bool:
        self.live()
        if self.done or (not self.sessions and (self.unlocked or _clock() - self.started > START_GRACE)):
            return True
        try:
            return os.stat(self.path).st_ino != self.inode  # removed or replaced: another agent, or a lock by hand
        except OSError:
            return True

    def wait(self) -> float:
        until = min((s["until"] for s in self.sessions.values()), default=self.started + START_GRACE)
        return max(0.01, min(1.0, until - _clock()))

    def serve(self, server: socket.socket) -> None:
        self.inode = os.stat(self.path).st_ino
        while not self.finished():
            server.settimeout(self.wait())
            try:
                conn, _ = server.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            with conn:
                try:
                    conn.settimeout(1.0)
                    if _peer_uid(conn) not in (None, os.getuid()):
                        continue
                    data = b""
                    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                    message = json.loads(data or b"null")
                    try:
                        reply = self.answer(message) if isinstance(message, dict) else {"error": "bad request"}
                    except Exception:  # noqa: BLE001 - a malformed request is answered, never the agent's end
                        reply = {"error": "bad request"}
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except (OSError, ValueError):
                    continue
        self.forget()
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass


def bind(path: Path) -> socket.socket:
    """The agent's listening socket at `path` (0600 from its birth), put in place of any stale one."""
    if len(os.fsencode(path)) > _SOCKET_MAX:
        raise OSError(f"the path {path} is too long for a socket")
    check_folder(path.parent, make=True)
    temporary = path.with_name(f".agent-{os.getpid()}.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(str(temporary))
    finally:
        os.umask(old)
    os.chmod(temporary, 0o600)
    server.listen(16)
    os.replace(temporary, path)
    return server


def run(path: Path | str) -> None:
    path = Path(path)
    _harden()
    server = bind(path)
    pid = os.fork()
    if pid:  # the parent: says the agent is ready, and leaves it to init
        os.write(1, f"ready {pid}\n".encode())
        os._exit(0)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    Agent(path).serve(server)
    os._exit(0)


def start(path: Path) -> int:
    """Start an agent at `path` (`keys unlock`); its process id once it listens. OSError if it could not start."""
    import subprocess

    import cgledger

    top = os.path.dirname(os.path.dirname(os.path.abspath(cgledger.__file__)))
    code = f"import sys; sys.path.insert(0, {top!r}); from cgledger.ledger.player.keyagent import run; run(sys.argv[1])"
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CGLEDGER_")}  # no passphrase in its /proc
        done = subprocess.run([sys.executable, "-c", code, str(path)], stdin=subprocess.DEVNULL, env=env,
                              capture_output=True, cwd="/", timeout=20)
    except subprocess.TimeoutExpired:
        raise OSError("the key agent did not start within 20 s") from None
    words = done.stdout.decode(errors="replace").split()
    if done.returncode != 0 or words[:1] != ["ready"]:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no reason given"])[-1]
        raise OSError(f"the key agent did not start ({last})")
    return int(words[1])
