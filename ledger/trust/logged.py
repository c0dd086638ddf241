"""One stored event as read back from the store, for the log, the audit, import and the projections. A frozen
msgspec Struct, not a dataclass: made without the exec a dataclass costs at import (`head` loads little else)."""

from datetime import datetime

import msgspec

from ..domain.events import Fact


class Logged(msgspec.Struct, frozen=True):
    """One stored event as read back for log and audit (fact is None if it cannot be read)."""

    version: int
    timestamp: datetime | None
    prev: str
    digest: str
    topic: str
    fact: Fact | None
    error: str = ""
    author: str = ""  # the side that recorded it ("" before identities, or a shared act recorded unsigned)
    signature: str = ""  # Ed25519 over the digest, by the author side's key (once it has one)
    command: str = ""  # the id of the command that wrote it (a retry with the same id acts once)
    form: int = 1  # the envelope form (ledger/trust/chain.py): 2 covers topic, author and command, 3 the request
    # form 3: the typed command of the action this event opens (ledger/domain/commands.py), or, read back, its stored
    # JSON (msgspec.Raw), decoded when `request` is read: a read that never asks never decodes it
    held_request: object = None

    @property
    def request(self):
        return typed_request(self.held_request)


NULL = msgspec.Raw(b"null")
_requests = None  # the decoder of a stored request, made at its first use


def typed_request(held):
    """A request as held: the typed command or None, a stored one (msgspec.Raw) decoded now (msgspec.ValidationError
    when it does not read as a command)."""
    global _requests
    if held.__class__ is not msgspec.Raw:
        return held
    if _requests is None:
        from ..domain.commands import AnyCommand

        _requests = msgspec.json.Decoder(AnyCommand | None)
    return _requests.decode(held)
