"""The envelope's author and signature, as every load checks each event it has not verified before
(ledger/store/loading.py) and the audit checks every event (ledger/audit/): a side's own act is authored by that side,
and from a side's key registration on its events carry its signature.

The Ed25519 check itself is the audit's largest single cost (~100 µs an event), so `Verifier` can make the checks
in a child process (or on a worker thread), fed in order and in batches, while the caller goes on with the next
events: `author_check` says what is to be verified, `Verifier` verifies it. What the child answers is
trusted as the check made here would be: it is this package's own program on the same `cryptography`, given only
the key, digest and signature texts; whatever it does not answer is checked here."""

from __future__ import annotations

import os
import re
import sys
import threading
from collections import deque
from typing import NamedTuple

from .. import rules as rulesmod
from ..domain.authorship import owner, signing_sides
from ..errors import LedgerError
from ..domain.events import SideKeyRegistered
from ..domain.timeline import kind_words


class Signed(NamedTuple):
    """A signature still to verify: the key, what it signs, and who signed what (for the finding if it fails). A
    NamedTuple: `dataclasses` brings `inspect` (~5 ms) into the first read on a machine, which checks the log."""
    public: str
    digest: str
    signature: str
    signer: str
    topic: str

    def finding(self) -> tuple[str, str]:
        return ("signature", f"{_name(self)}: the {self.signer} side's signature does not verify: forged, or altered "
                             "after it was signed")


def author_check(state, fact, event) -> list[tuple[str, str]] | Signed:
    """The envelope's author and signature: a side's own act is authored by that side; from a side's key
    registration on, its events carry its signature of their digest; once every side has a key, nothing is
    unsigned. The finding(s), or the signature to verify (`Signed`: a `Verifier` checks it)."""
    author, mine = event.author, owner(fact)
    if mine is not None and author and author != mine:
        return [("author", f"{_name(event)} is the {mine} side's own act, recorded in the name of the {author} side")]
    if author and author not in sides_of(state):
        return [("author", f"{_name(event)} names an author '{author}' that is no side of this campaign")]
    keyed = signing_sides(state)
    signer = author or mine or ""  # an own act recorded without an author stands for its side, unsigned
    public = fact.public if isinstance(fact, SideKeyRegistered) and fact.public else keyed.get(signer)
    if public:
        if not event.signature:
            return [("signature", f"{_name(event)} of the {signer} side is unsigned, though that side signs its "
                                  "events since its key registration")]
        return Signed(public, event.digest, event.signature, signer, event.topic)
    if event.signature:
        return [("signature", f"{_name(event)} carries a signature, but the {signer or 'unnamed'} side has no "
                              "signing key")]
    if keyed and not signer:
        return [("signature", f"{_name(event)} is unsigned and names no side, though {', '.join(sorted(keyed))} "
                              "sign(s) their events")]
    return []


def _name(event) -> str:
    name = kind_words(event.topic)  # only for a finding: most events have none
    return name[:1].upper() + name[1:]


def sides_of(state) -> tuple[str, ...]:
    try:
        return tuple(rulesmod.load(state.system).system.sides)
    except LedgerError:
        return ()


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Verifier:
    """Ed25519 checks (`add`, each with a tag of the caller's); `failed()`: the tags of those that do not verify.

    `worker` (worth it on more than one CPU: `cpus()`): "process" shares the checks, in batches of BATCH, with a child
    Python process (`_Child`: the same `cryptography` call as `secrets.verify`, on the bytes `bytes.fromhex` gives),
    which verifies them on another CPU while the caller goes on; at the end the caller checks itself what the child
    has not answered yet rather than wait for it, and any check whose text is not plain hex of a key's, digest's or
    signature's length. "thread" runs them on a worker thread instead: `cryptography` releases the GIL while it
    verifies, but each check must take the GIL back, so the caller is interrupted once per check (the switch interval
    is shortened to SWITCH while it runs, else the worker waits 5 ms each time). "auto": the child for a log of at
    least CHILD_FROM events (`size`; unknown: the child) on more than one CPU, else in line. Measured on 2 free cores
    (bench/README.md): the audit 101-109 µs an event with the child at 1,000 to 20,000 events, 173-208 with the
    thread (5,000), 181-207 in line; the decode + verify floor 98-113. None: each check is made in `add`. An
    outcome never depends on where the check ran, only when it is known; if the child fails, what it did not answer
    is checked here."""

    BATCH = 64
    SWITCH = 0.0001  # s: a worker thread waits at most this for the GIL after a check
    # Measured on 2 cores (bench/README.md, "The audit's checks shared with its child"): the child is ready ~25 ms
    # after its start (python -I -S + `cryptography`), which costs the caller 1-7 ms (its fork). The audit at 200,
    # 300, 400 events: in line 26, 46, 65 ms; with the child and a free core 27, 39, 51; with no free core (load 4)
    # 26, 51, 62. So: in line below 300 events, where the child gains little on a free core and loses without one.
    CHILD_FROM = 300

    def __init__(self, worker: str | None, size: int | None = None):
        if worker == "auto":
            worker = "process" if cpus() > 1 and (size is None or size >= self.CHILD_FROM) else None
        self.worker = worker
        self._child = _Child() if worker == "process" else None  # first: it starts while the rest loads
        from .secrets import verify  # cryptography: loaded only where a signature is checked

        self._verify = verify
        self._pool = None
        self._failed: list = []  # tags of the checks that failed (in line), or of the batches collected
        self._futures: list = []
        self._batch: list[tuple] = []
        self._interval = None
        self.taken_back = 0  # batches meant for the child checked here after all, once `failed()` is known
        if worker == "thread":
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cgledger-verify")
            self._interval = _shorten(self.SWITCH)

    def ready(self, timeout: float = 0) -> bool:
        """Whether a child takes checks now (waiting up to `timeout` s for it to start)."""
        return self._child is not None and self._child.started.wait(timeout) and not self._child.dead

    def add(self, public: str, digest: str, signature: str, tag) -> None:
        shared = self._child is not None and not self._child.dead or self._pool is not None
        if not shared or not _plain_hex(public, digest, signature):
            if not self._verify(public, digest, signature):
                self._failed.append(tag)
            return
        self._batch.append((public, digest, signature, tag))
        if len(self._batch) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._child is not None:
            if self._batch:
                self._failed += self._child.put(self._batch, self._verify)
                self._batch = []
            return
        if self._batch:
            self._futures.append(self._pool.submit(_verify_batch, self._verify, self._batch))
            self._batch = []
        while self._futures and self._futures[0].done():  # collected as they finish: their tags are let go
            self._failed += self._futures.pop(0).result()

    def failed(self) -> list:
        """The tags of every check that failed (with a child: what it has not answered is checked here)."""
        if self._child is not None:
            self._flush()
            self._failed += self._child.finish(self._verify)
            self.taken_back, self._child = self._child.taken_back, None
        if self._pool is not None:
            self._flush()
            self._pool.shutdown(wait=True)  # every batch checked
            self._pool = None
            for future in self._futures:
                self._failed += future.result()
            self._futures = []
        self.close()
        return self._failed

    def close(self) -> None:
        if self._child is not None:
            self._child.stop()
            self._child = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._interval is not None:
            _restore()
            self._interval = None


_HEX = re.compile("[0-9a-fA-F]*").fullmatch  # ~3x sooner than a set's issuperset on 256 characters


def _plain_hex(public: str, digest: str, signature: str) -> bool:
    """Plain hex no longer than a signature's: what the child is given (anything else fails or is checked here).
    The three texts' characters are tested at once (a first read hands every event's here)."""
    return (isinstance(public, str) and isinstance(digest, str) and isinstance(signature, str)
            and 0 < len(public) <= 128 and 0 < len(digest) <= 128 and 0 < len(signature) <= 128
            and _HEX(public + digest + signature) is not None)


# The child's program: one line of "public,digest,signature" items (plain hex) per batch in, one line of the failed
# items' positions out. Only `cryptography` is imported: the same check as `secrets.verify`.
_CHILD = r"""
import sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
keys = {}
sys.stdout.write("ready\n")
sys.stdout.flush()
for line in sys.stdin:
    bad = []
    for n, item in enumerate(line.split()):
        public, digest, signature = item.split(",")
        try:
            key = keys.get(public) or keys.setdefault(public, Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)))
            key.verify(bytes.fromhex(signature), bytes.fromhex(digest))
        except (InvalidSignature, ValueError):
            bad.append(str(n))
    sys.stdout.write(" ".join(bad) + "\n")
    sys.stdout.flush()
"""


class _Sent:
    """A batch written to the child; `done` once its outcome is counted (the child's answer or the caller's check,
    whichever comes first)."""
    __slots__ = ("batch", "done")

    def __init__(self, batch: list[tuple]):
        self.batch = batch
        self.done = False


class _Child:
    """A child Python process sharing the checks with the caller (`Verifier`'s "process" worker).

    Batches wait here (`put`) and are written to the child IN_FLIGHT at a time, by the caller or by a reader thread
    that takes the child's answers (blocked in a read, it leaves the GIL to the caller) and writes the next batch; so
    no write ever blocks (IN_FLIGHT lines are within a pipe's 64 KB) and a batch not written yet can be taken back.
    Past BACKLOG waiting batches the caller checks the newest itself (memory). At the end (`finish`) the caller
    checks the waiting batches from the newest back, while the child goes on from the oldest, then the batches the
    child was sent and has not answered, from the last back, one check at a time, until the child has answered the
    one it is at (it answers in order); then the child is stopped. A child that dies, or answers what it was not
    asked, is fed no more; whatever it did not answer is checked here. Trusted: a batch's answer from this child,
    which runs this package's own program (isolated, python -I) on the same `cryptography`: never an answer to a
    check it was not given (each answer is matched, in order, to a batch written to it)."""

    IN_FLIGHT = 3  # ~17 KB a batch of 64: within a pipe's 64 KB; two ahead of the child's current one cover the GIL
    # switch interval (5 ms) the reader may wait before it writes the next
    BACKLOG = 32

    def __init__(self):
        self._proc = None  # set by the reader thread, which starts the child (the caller goes on meanwhile)
        self._lock = threading.Lock()
        self._waiting: deque[list[tuple]] = deque()  # batches not written to the child yet, oldest first
        self._sent: deque[_Sent] = deque()  # written, answer not read yet, in order
        self._failed: list = []  # tags the child answered as failed
        self._ready = False
        self.started = threading.Event()  # set once the child said it is ready, or is gone
        self.dead = False
        self.taken_back = 0
        self._reader = threading.Thread(target=self._run, name="cgledger-verify-reader", daemon=True)
        self._reader.start()

    def _run(self) -> None:
        """The child started here, not by the caller: its fork and exec hold this thread 1-8 ms (measured), the
        caller 0.3 ms of CPU. Then its answers read until it ends."""
        import subprocess

        try:
            import site

            # -I: isolated, so no module in the working folder or PYTHONPATH can stand in for `cryptography` and
            # answer "valid" (a file the other player sent, saved beside the campaign, must not be imported). -S: the
            # site-packages folders -I would add, given as they are: their .pth files are not run (an editable
            # install's finder made the child ready ~6 ms later, measured); a `cryptography` not found there ends
            # the child before it is ready, and the checks are made here.
            program = f"import sys\nsys.path += {[*site.getsitepackages()]!r}\n" + _CHILD
            proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", program], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except (OSError, ValueError, AttributeError):  # AttributeError: a `site` without getsitepackages
            with self._lock:
                self.dead = True
            self.started.set()
            return
        with self._lock:
            self._proc = proc
            stopped = self.dead  # the caller was done before the child started
        if not stopped:
            self._read()
        with self._lock:
            self.dead = True
        self.started.set()
        proc.kill()  # gone already, unless stopped or it answered what it was not asked
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:  # what was left unwritten: the child is gone
                pass
        proc.wait()  # reaped here: the caller does not wait for it

    def _read(self) -> None:
        try:
            for line in self._proc.stdout:
                with self._lock:
                    if self._ready:
                        entry = self._sent[0]  # IndexError: an answer to nothing asked
                        bad = [entry.batch[int(n)][3] for n in line.split()]
                        self._sent.popleft()
                        if not entry.done:
                            entry.done = True
                            self._failed += bad
                    self._ready = True
                    self.started.set()
                    self._send()
        except (OSError, ValueError, IndexError):
            pass

    def _send(self) -> None:
        """Under the lock: the oldest waiting batches written to the child, up to IN_FLIGHT unanswered."""
        while self._ready and not self.dead and self._waiting and len(self._sent) < self.IN_FLIGHT:
            batch = self._waiting.popleft()
            self._sent.append(_Sent(batch))
            try:
                self._proc.stdin.write(" ".join(f"{p},{d},{s}" for p, d, s, _tag in batch) + "\n")
                self._proc.stdin.flush()
            except (OSError, ValueError):
                self.dead = True

    def put(self, batch: list[tuple], verify) -> list:
        """One batch to share; the failed tags of a batch checked here (the newest, past BACKLOG waiting)."""
        with self._lock:
            self._waiting.append(batch)
            self._send()
            over = self._waiting.pop() if len(self._waiting) > self.BACKLOG else None
        return self._here(over, verify) if over else []

    def _here(self, batch: list[tuple], verify) -> list:
        self.taken_back += 1
        return [tag for public, digest, signature, tag in batch if not verify(public, digest, signature)]

    def finish(self, verify) -> list:
        """The failed tags of every batch put: what the child has not answered is checked here, none waited for."""
        failed = []
        while True:
            with self._lock:
                batch = self._waiting.pop() if self._waiting else None
            if batch is None:
                break
            failed += self._here(batch, verify)
        with self._lock:
            unanswered = [entry for entry in self._sent if not entry.done]
        for entry in reversed(unanswered):
            bad = []
            for public, digest, signature, tag in entry.batch:
                if entry.done:  # answered meanwhile (the reader sets it): so is every one sent before it
                    break
                if not verify(public, digest, signature):
                    bad.append(tag)
            else:
                with self._lock:
                    if not entry.done:
                        entry.done = True
                        failed += bad
                self.taken_back += 1
                continue
            break
        self.stop()
        return failed + self._failed

    def stop(self) -> None:
        """The child killed (it may be busy with a batch checked here already, or not started yet); its reader reaps
        it, unwaited for."""
        with self._lock:
            self.dead = True  # nothing more written
            if self._proc is not None:
                try:
                    self._proc.kill()
                except OSError:
                    pass


_switch_lock = threading.Lock()
_switch = [0, 0.0]  # verifiers running (audits of several threads, as `serve` may run), the interval before them


def _shorten(interval: float) -> float:
    """The switch interval shortened while any verifier runs; the first one keeps the interval to restore."""
    with _switch_lock:
        if _switch[0] == 0:
            _switch[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch[1], interval))
        _switch[0] += 1
        return _switch[1]


def _restore() -> None:
    with _switch_lock:
        _switch[0] -= 1
        if _switch[0] == 0:
            sys.setswitchinterval(_switch[1])


def _verify_batch(verify, batch: list[tuple]) -> list:
    return [tag for public, digest, signature, tag in batch if not verify(public, digest, signature)]
