"""The stored form of an event (its envelope) and of a snapshot, read with msgspec alone: `head` reads a SQLite log
with this and sqlite3, without loading the event-sourcing library (ledger/store/reading.py)."""


from datetime import datetime

import msgspec

from ..domain.commands import AnyCommand
from ..domain.events import TAGS, AnyFact
from .logged import NULL, Logged, typed_request
from ..sha import sha256


class _Stored(msgspec.Struct, frozen=True):
    timestamp: datetime
    prev: str
    digest: str
    fact: AnyFact
    author: str = ""
    signature: str = ""
    command: str = ""
    form: int = 1


class Envelope(_Stored, frozen=True):
    """As written, and read where every part is checked (the audit, a load's replay)."""

    request: AnyCommand | None = None  # form 3: the typed command of the action this event opens


class Read(_Stored, frozen=True):
    """As the whole-log reads take it: the request kept as its stored JSON, decoded only when `request` is read
    (a roster or a history never reads it)."""

    held_request: msgspec.Raw = msgspec.field(name="request", default=NULL)

    @property
    def request(self):
        return typed_request(self.held_request)


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
_read = msgspec.json.Decoder(Read)
_snapshot = msgspec.json.Decoder(SnapshotState)


def decode_envelope(state: bytes) -> Envelope:
    return _envelope.decode(state)


def read_logged(version: int, topic: str, state: bytes, typed: bool = False) -> Logged:
    """One stored event as read back (a damaged row is a finding, not a crash). Its request is held as stored and
    decoded when read (`Logged.request`); `typed`: decoded now, a request that is not a command makes the row damaged
    (the audit's reading)."""
    try:
        envelope = (_envelope if typed else _read).decode(state)
    except Exception as e:  # noqa: BLE001
        return Logged(version, None, "", "", topic, None, str(e))
    held = TAGS.get(type(envelope.fact))
    if held is not None and topic != held:  # its row's topic was edited: read as damaged, never as the other kind
        return Logged(version, None, "", "", topic, None,
                      f"its stored topic '{topic}' is not what it holds ('{held}'): the row was edited")
    return Logged(version, envelope.timestamp, envelope.prev, envelope.digest, topic, envelope.fact, "",
                  envelope.author, envelope.signature, envelope.command, envelope.form,
                  envelope.request if typed else stored_request(envelope))


def with_command(logged: Logged) -> Logged:
    """`logged` as read_logged reads it `typed`: its request decoded, the row damaged when that is not a command."""
    if logged.held_request.__class__ is not msgspec.Raw:
        return logged
    try:
        request = typed_request(logged.held_request)
    except msgspec.ValidationError as e:  # named as the whole envelope's decode names it
        message = str(e)
        message = message.replace(" - at `$", " - at `$.request", 1) if " - at `$" in message \
            else f"{message} - at `$.request`"
        return Logged(logged.version, None, "", "", logged.topic, None, message)
    return msgspec.structs.replace(logged, held_request=request)


def stored_request(envelope: Read):
    """A read envelope's request as stored, a copy of its own bytes (None for none)."""
    request = envelope.held_request
    return None if request == NULL else request.copy()


def read_entries(rows) -> list[tuple[int, str, Read | Logged]]:
    """Stored rows (version, topic, stored bytes) as (version, topic, record): the decoded envelope itself where it
    reads and holds what its row's topic says, else the damaged `Logged` read_logged gives (its `error` named as
    there). Both records answer timestamp, fact, digest, author, signature, request and held_request (the request's
    stored JSON): a whole-log read (`log --json`, `export`) builds no Logged per event. Every row is decoded and
    checked as read_logged checks it."""
    decode, tags, replace, entries = _read.decode, TAGS, msgspec.structs.replace, []
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
        request = envelope.held_request
        if request is not NULL:  # its own bytes kept, not the whole row's (a Raw holds the buffer it was read from)
            envelope = replace(envelope, held_request=NULL if request == NULL else request.copy())
        append((version, topic, envelope))
    return entries
