"""The envelope's author and signature, as every load checks each event it has not verified before
(ledger/loading.py) and the audit checks every event (ledger/audit.py): a side's own act is authored by that side,
and from a side's key registration on its events carry its signature.

The Ed25519 check itself is the audit's largest single cost (~100 µs an event), so `Verifier` can make the checks
in a child process (or on a worker thread), fed in order and in batches, while the caller goes on with the next
events (issue 24): `author_check` says what is to be verified, `Verifier` verifies it. What the child answers is
trusted as the check made here would be: it is this package's own program on the same `cryptography`, given only
the key, digest and signature texts; whatever it does not answer is checked here."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass

from . import rules as rulesmod
from .authorship import owner, signing_sides
from .errors import LedgerError
from .events import SideKeyRegistered
from .timeline import kind_words


@dataclass(frozen=True)
class Signed:
    """A signature still to verify: the key, what it signs, and who signed what (for the finding if it fails)."""
    public: str
    digest: str
    signature: str
    signer: str
    topic: str

    def finding(self) -> tuple[str, str]:
        return ("signature", f"{_name(self)}: the {self.signer} side's signature does not verify: forged, or altered "
                             "after it was signed")


def check_author(state, fact, event) -> list[tuple[str, str]]:
    """The envelope's author and signature: a side's own act is authored by that side; from a side's key
    registration on, its events carry its signature of their digest; once every side has a key, nothing is
    unsigned."""
    found = author_check(state, fact, event)
    if isinstance(found, Signed):
        from .secrets import verify  # cryptography: loaded only where a signature is checked

        return [] if verify(found.public, found.digest, found.signature) else [found.finding()]
    return found


def author_check(state, fact, event) -> list[tuple[str, str]] | Signed:
    """`check_author` but the Ed25519 check: the finding(s), or the signature to verify (`Signed`)."""
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

    `worker` (worth it on more than one CPU: `cpus()`): "process" sends the checks, in batches of BATCH, to a child
    Python process (`_Child`: the same `cryptography` call as `secrets.verify`, on the bytes `bytes.fromhex` gives),
    which verifies them on another CPU while the caller goes on; until the child says it is ready, and for any check
    whose text is not plain hex, the check is made here. "thread" runs them on a worker thread instead: `cryptography`
    releases the GIL while it verifies, but each check must take the GIL back, so the caller is interrupted once per
    check (the switch interval is shortened to SWITCH while it runs, else the worker waits 5 ms each time). Measured
    on 2 free cores, 5,000 events (bench/README.md): the audit 128 µs an event with the child, 173-208 with the
    thread, 197-207 in line; the decode + verify floor 108. None: each check is made in `add`, as `check_author`
    makes it. An outcome never depends on where the check ran, only when it is known;
    if the child fails, what it did not answer is checked here."""

    BATCH = 64
    SWITCH = 0.0001  # s: a worker thread waits at most this for the GIL after a check

    def __init__(self, worker: str | None):
        from .secrets import verify  # cryptography: loaded only where a signature is checked

        self._verify = verify
        self._pool = None
        self._failed: list = []  # tags of the checks that failed (in line), or of the batches collected
        self._futures: list = []
        self._batch: list[tuple] = []
        self._interval = None
        if worker == "process":
            self._pool = _Child.start()
        if worker == "thread" or worker == "process" and self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cgledger-verify")
            self._interval = _shorten(self.SWITCH)

    def add(self, public: str, digest: str, signature: str, tag) -> None:
        waiting = isinstance(self._pool, _Child) and not self._pool.ready()  # a child not started yet, or gone
        if self._pool is None or waiting or not _plain_hex(public, digest, signature):
            if not self._verify(public, digest, signature):
                self._failed.append(tag)
            return
        self._batch.append((public, digest, signature, tag))
        if len(self._batch) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._futures.append(self._pool.submit(_verify_batch, self._verify, self._batch))
            self._batch = []
        while self._futures and self._futures[0].done():  # collected as they finish: their tags are let go
            self._failed += self._futures.pop(0).result()

    def failed(self) -> list:
        """The tags of every check that failed (waits for the worker)."""
        if self._pool is not None:
            self._flush()
            self._pool.shutdown(wait=True)  # every batch checked (what a child did not answer, here)
            self._pool = None
            for future in self._futures:
                self._failed += future.result()
            self._futures = []
        self.close()
        return self._failed

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._interval is not None:
            _restore()
            self._interval = None


_HEX = frozenset("0123456789abcdefABCDEF")


def _plain_hex(*texts: str) -> bool:
    return all(isinstance(t, str) and t and _HEX.issuperset(t) for t in texts)


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


class _Child:
    """A child Python process verifying batches (`Verifier`'s "process" worker), with the executor's few methods the
    verifier uses. A reader thread takes its answers (blocked in a read, it leaves the GIL to the caller)."""

    def __init__(self, proc):
        self._proc = proc
        self._sent: list = []  # (future, batch) sent and not answered yet, in order
        self._dead = False
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, name="cgledger-verify-reader", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls):
        import subprocess

        try:
            # -I: isolated, so no module in the working folder or PYTHONPATH can stand in for `cryptography` and
            # answer "valid" (a file the other player sent, saved beside the campaign, must not be imported)
            proc = subprocess.Popen([sys.executable, "-I", "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
        except (OSError, ValueError):
            return None
        return cls(proc)

    def ready(self) -> bool:
        return self._ready.is_set() and not self._dead

    def _read(self) -> None:
        try:
            for line in self._proc.stdout:
                if not self._ready.is_set():
                    self._ready.set()
                    continue
                future, batch = self._sent.pop(0)
                future.set_result([batch[int(n)][3] for n in line.split()])
        except (OSError, ValueError, IndexError):
            pass
        self._dead = True

    def submit(self, _fn, verify, batch):
        from concurrent.futures import Future

        future = Future()
        line = " ".join(f"{p},{d},{s}" for p, d, s, _tag in batch) + "\n"
        self._sent.append((future, batch))
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
        except (OSError, ValueError):
            pass
        future.verify = verify
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        try:
            self._proc.stdin.close()
        except (OSError, ValueError):
            pass
        self._reader.join()
        self._proc.wait()
        for future, batch in self._sent:  # what the child did not answer: checked here
            future.set_result(_verify_batch(future.verify, batch))
        self._sent = []


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
