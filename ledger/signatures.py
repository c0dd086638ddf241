"""The envelope's author and signature, as every load checks each event it has not verified before
(ledger/loading.py) and the audit checks every event (ledger/audit.py): a side's own act is authored by that side,
and from a side's key registration on its events carry its signature.

The Ed25519 check itself is the audit's largest single cost (~100 µs an event) and `cryptography` releases the GIL
while it runs, so `Verifier` can make the checks on a worker thread, fed in order and in batches, while the caller
goes on with the next events (issue 24): `author_check` says what is to be verified, `Verifier` verifies it."""

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
    """Ed25519 checks in the order they are given (`add`, each with a tag of the caller's); `failed()`: the tags of
    those that do not verify, in that order.

    With `threaded` (worth it on more than one CPU: `cpus()`), the checks run on one worker thread in batches of
    BATCH while the caller goes on; each check is the same `secrets.verify` call, so an outcome never differs from
    the one made in line, only when it is known; only the tags of failed checks are kept. The interpreter's switch
    interval is shortened while the worker runs (restored by `failed()` or `close()`): each check hands the GIL back,
    and the default 5 ms wait to take it again would leave the worker idle most of the time (measured: ~1 check
    per 5 ms). Without `threaded`, each check is made in `add`, as `check_author` makes it."""

    BATCH = 64
    SWITCH = 0.00005  # s: the worker waits at most this for the GIL after a check

    def __init__(self, threaded: bool):
        from .secrets import verify  # cryptography: loaded only where a signature is checked

        self._verify = verify
        self._pool = None
        self._failed: list = []  # tags of the checks that failed (in line), or of the batches collected
        self._futures: list = []
        self._batch: list[tuple] = []
        self._interval = None
        if threaded:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cgledger-verify")
            self._interval = _shorten(self.SWITCH)

    def add(self, public: str, digest: str, signature: str, tag) -> None:
        if self._pool is None:
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
        """The tags of every check that failed, in the order given (waits for the worker)."""
        if self._pool is not None:
            self._flush()
            try:
                for future in self._futures:
                    self._failed += future.result()
            finally:
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
