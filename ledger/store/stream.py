"""The stored events read one at a time, as the audit reads a long log: decoded as they are read (`Raw` rows), a
look ahead for the facts one decision writes together, and the events before (`Past`): read again from the store
where the rows come from one (`Loader.rows`), else kept undecoded."""

from __future__ import annotations

import hashlib
from collections import deque
from itertools import islice
from typing import NamedTuple

from ..errors import LedgerError
from ..trust.envelope import read_logged, with_command
from ..trust.logged import Logged


class LogChanged(LedgerError):
    """A row read again is not the row the audit read: the log was changed while it was audited."""


class Events:
    """The events the audit reads, in order, decoded one at a time (`Raw` rows: `Loader.rows`), with a look ahead
    (`ahead`: the facts one decision writes together) and what came before (`past`)."""

    def __init__(self, logged, keep: bool = False):
        """`keep`: the events read are held even where the store gives them again (an audit kept between runs: what
        it audited is what it decides on, whatever the store holds later)."""
        self._source = iter(logged)
        self._ahead: deque = deque()  # (as given, decoded)
        # rows the store gives again on each iteration (`Loader.rows`: its `size`) are not held: read again
        self.past = Past(logged if hasattr(type(logged), "size") and not keep else None)

    def more(self, logged) -> None:
        """Events stored after the last one read: iterated next (`Continued`)."""
        self._source = iter(logged)

    def __iter__(self):
        while True:
            if self._ahead:
                given, event = self._ahead.popleft()
            else:
                given = next(self._source, None)
                if given is None:
                    return
                event = _decoded(given)
            yield event
            self.past.append(given)  # after its own checks: the decisions read the events before it

    def ahead(self):
        """The events after the current one, as far as the caller reads."""
        for given, event in self._ahead:
            yield event
        while True:
            given = next(self._source, None)
            if given is None:
                return
            event = _decoded(given)
            self._ahead.append((given, event))
            yield event


def _decoded(given) -> Logged:
    """`given` read with its request decoded: a stored one that is not a command makes the row damaged."""
    if isinstance(given, Raw):
        return read_logged(given.version, given.topic, given.data, typed=True)
    return with_command(given)


class Raw(NamedTuple):
    """A stored event not decoded yet: its version, stored topic and bytes (as the mapper gives them back)."""
    version: int
    topic: str
    data: bytes


class Past:
    """The events before the one audited, read only by the decisions that need them (placing and revealing read the
    map, a purchase revealed its sealed record), so the audit of a long log does not hold them (~1 KB each stored,
    ~2 KB decoded). From a store (`rows`, iterated again from the first row: the log only grows, so its first n rows
    are the ones given) they are read again and decoded on each read: nothing is held but a 16-byte fingerprint of
    each row, and a row read again that is not the one read first stops the audit (`LogChanged`: changed while it
    was audited, e.g. on a shared database). Else what was given is kept,
    a `Raw` row decoded again on each read (~7 µs an event). After DECODE_AFTER reads (a log with many map decisions)
    the past is kept decoded, as before the audit streamed, so the audit never costs more than DECODE_AFTER extra
    reads of the log. Either way the decisions read the same events."""

    DECODE_AFTER = 4

    def __init__(self, rows=None):
        self._rows = rows
        self._given: list = []
        self._prints = bytearray()  # each row's fingerprint, in order (read again from `rows`)
        self._count = 0
        self._reads = 0

    def append(self, given) -> None:
        self._count += 1
        if self._rows is not None:
            self._prints += _fingerprint(given)
            return
        if self._reads >= self.DECODE_AFTER:
            given = _decoded(given)
        self._given.append(given)

    def __iter__(self):
        self._reads += 1
        if self._rows is not None:
            given = self._same(islice(self._rows, self._count))
            if self._reads < self.DECODE_AFTER:
                return map(_decoded, given)
            self._rows, self._given, self._prints = None, list(given), bytearray()  # read often: kept from here on
        if self._reads == self.DECODE_AFTER:
            self._given = [_decoded(g) for g in self._given]
        return map(_decoded, self._given)

    def __len__(self) -> int:
        return self._count

    def _same(self, rows):
        prints = self._prints
        for n, given in enumerate(rows):
            if _fingerprint(given) != prints[16 * n:16 * n + 16]:
                raise LogChanged(f"event {given.version} changed while the log was audited: run the audit again")
            yield given


def _fingerprint(given) -> bytes:
    """16 bytes that tell a row from any other: its stored bytes (a damaged row: what was read of it)."""
    data = given.data if isinstance(given, Raw) else repr(given).encode()
    return hashlib.blake2b(data, digest_size=16, person=str(given.version).encode()[:16]).digest()
