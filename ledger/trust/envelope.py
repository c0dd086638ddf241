"""The stored form of an event (its envelope) and of a snapshot, read with msgspec alone: `head` reads a SQLite log
with this and sqlite3, without loading the event-sourcing library (ledger/store/reading.py)."""


from datetime import datetime

import msgspec

from ..domain.commands import AnyCommand
from ..domain.events import TAGS, AnyFact
from .logged import Logged
from ..sha import sha256


class Envelope(msgspec.Struct, frozen=True):
    timestamp: datetime
    prev: str
    digest: str
    fact: AnyFact
    author: str = ""
    signature: str = ""
    command: str = ""
    form: int = 1
    request: AnyCommand | None = None  # form 3: the typed command of the action this event opens


class SnapshotState(msgspec.Struct, frozen=True):
    timestamp: datetime
    topic: str
    state: msgspec.Raw  # the aggregate's attributes, as JSON: the seal covers these exact bytes (parsed only when used)
    seal: str = ""  # ledger/persistence.snapshot_seal of head and state; empty in older snapshots
    head: str = ""  # the digest of the event it summarizes


def snapshot_seal(head: str, state: bytes) -> str:
    """What a snapshot must hash to: an edit that does not recompute it is caught on load."""
    return sha256(b"cgledger snapshot:" + head.encode() + b":" + bytes(state)).hexdigest()


def read_snapshot(data: bytes) -> SnapshotState:
    """A stored snapshot with its state left unparsed (checking its seal needs only the bytes)."""
    return _snapshot.decode(data)


_envelope = msgspec.json.Decoder(Envelope)
_snapshot = msgspec.json.Decoder(SnapshotState)


def decode_envelope(state: bytes) -> Envelope:
    return _envelope.decode(state)


def read_logged(version: int, topic: str, state: bytes) -> Logged:
    """One stored event as read back (a damaged row is a finding, not a crash)."""
    try:
        envelope = _envelope.decode(state)
    except Exception as e:  # noqa: BLE001
        return Logged(version, None, "", "", topic, None, str(e))
    held = TAGS.get(type(envelope.fact))
    if held is not None and topic != held:  # its row's topic was edited: read as damaged, never as the other kind
        return Logged(version, None, "", "", topic, None,
                      f"its stored topic '{topic}' is not what it holds ('{held}'): the row was edited")
    return Logged(version, envelope.timestamp, envelope.prev, envelope.digest, topic, envelope.fact, "",
                  envelope.author, envelope.signature, envelope.command, envelope.form, envelope.request)


def read_entries(rows) -> list[tuple[int, str, Envelope | Logged]]:
    """Stored rows (version, topic, stored bytes) as (version, topic, record): the decoded envelope itself where it
    reads and holds what its row's topic says, else the damaged `Logged` read_logged gives (its `error` named as
    there). Both records answer timestamp, fact, digest, author and signature: a whole-log read (`log --json`,
    `export`) builds no Logged per event. Every row is decoded and checked as read_logged checks it."""
    decode, tags, entries = _envelope.decode, TAGS, []
    append = entries.append
    for version, topic, state in rows:
        try:
            envelope = decode(state)
        except Exception:  # noqa: BLE001 - read_logged names it
            append((version, topic, read_logged(version, topic, state)))
            continue
        if tags.get(type(envelope.fact), topic) != topic:
            append((version, topic, read_logged(version, topic, state)))
            continue
        append((version, topic, envelope))
    return entries
