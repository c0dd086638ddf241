"""The hash chain: every event carries its predecessor's digest and its own."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from uuid import UUID

import msgspec

from .events import Fact

GENESIS = "0" * 64
_encoder = msgspec.json.Encoder()


def canonical(fact: Fact) -> Fact:
    """The fact exactly as it will read back from the store (an int in a float field comes back a
    float, a list a tuple): digests are computed over this, so re-checking them never differs."""
    from .events import AnyFact

    return msgspec.json.decode(_encoder.encode(fact), type=AnyFact)


def iso_utc(moment: datetime) -> str:
    """The canonical text of a timestamp (UTC, microseconds). Built by hand so that freezegun's
    FakeDatetime and a real datetime of the same instant give the same text and digest."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


FORM = 2  # the envelope form new events are written in


def digest(campaign_id: UUID, version: int, timestamp: datetime, prev: str, fact: Fact, topic: str = "",
           author: str = "", command: str = "", form: int = 1) -> str:
    """The event's digest. Form 2 (every event written now) covers its whole stored form: the stored
    topic, the author side and the command id as well as the fact; form 1 (older logs) the fact only."""
    if form == 1:
        payload = _encoder.encode((str(campaign_id), version, iso_utc(timestamp), prev, fact))
    else:
        payload = _encoder.encode((f"cgledger/{form}", str(campaign_id), version, iso_utc(timestamp), prev, topic,
                                   author, command, fact))
    return hashlib.sha256(payload).hexdigest()


def event_digest(campaign_id: UUID, event) -> str:
    """The digest recomputed from what an event read back holds (a Logged or a bundle event)."""
    return digest(campaign_id, event.version, event.timestamp, event.prev, event.fact, event.topic, event.author,
                  event.command, event.form)


def fingerprint(version: int, head: str) -> str:
    """What two players compare: the log's length and the first 16 hex digits of its head."""
    return f"{version}:{head[:16]}"


def key_fingerprint(public: str) -> str:
    """A public key short enough to read out: the first 16 hex digits of its SHA-256, in groups of four."""
    short = hashlib.sha256(bytes.fromhex(public)).hexdigest()[:16]
    return " ".join(short[i:i + 4] for i in range(0, 16, 4))
