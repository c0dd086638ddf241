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


def digest(campaign_id: UUID, version: int, timestamp: datetime, prev: str, fact: Fact) -> str:
    payload = _encoder.encode((str(campaign_id), version, iso_utc(timestamp), prev, fact))
    return hashlib.sha256(payload).hexdigest()


def fingerprint(version: int, head: str) -> str:
    """What two players compare: the log's length and the first 16 hex digits of its head."""
    return f"{version}:{head[:16]}"
