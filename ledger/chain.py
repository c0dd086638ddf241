"""The hash chain: every event carries its predecessor's digest and its own."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from uuid import UUID

import msgspec

from .events import Fact

GENESIS = "0" * 64
_encoder = msgspec.json.Encoder()


def plain_utc(moment: datetime) -> datetime:
    """A real `datetime` in UTC (freezegun's FakeDatetime is not encodable, and the digest must
    not depend on which datetime class made the timestamp)."""
    moment = moment.astimezone(timezone.utc)
    return datetime(
        moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
        moment.microsecond, tzinfo=timezone.utc,
    )


def digest(campaign_id: UUID, version: int, timestamp: datetime, prev: str, fact: Fact) -> str:
    payload = _encoder.encode((str(campaign_id), version, plain_utc(timestamp), prev, fact))
    return hashlib.sha256(payload).hexdigest()


def fingerprint(version: int, head: str) -> str:
    """What two players compare: the log's length and the first 16 hex digits of its head."""
    return f"{version}:{head[:16]}"
