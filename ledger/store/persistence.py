"""A msgspec mapper for eventsourcing 9.5 (which ships none).

Stored topic = the fact's stable tag (e.g. 'DiceRolled'), never a Python path, so renaming a
class cannot break stored history. Stored state = msgspec JSON of {timestamp, prev, digest, fact}.
Snapshots (topic 'eventsourcing.domain:Snapshot') hold the aggregate's JSON-native attributes.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

import msgspec
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import Mapper, MapperDeserialisationError, StoredEvent
from eventsourcing.utils import get_topic, register_topic

from ..trust.chain import iso_utc
from ..trust.envelope import (
    Envelope, SnapshotState, _envelope, _snapshot, decode_envelope, read_snapshot, snapshot_seal,
)
from ..domain.events import FACTS, TAGS, CampaignStarted


def snapshot_event(stored: StoredEvent, snap: SnapshotState) -> Snapshot:
    """The eventsourcing Snapshot of a stored one (its state parsed once, here)."""
    _campaign_classes()  # the aggregate's old topic is known before the snapshot names it
    state = msgspec.json.decode(snap.state)
    for key in _DATETIME_KEYS:
        if isinstance(state.get(key), str):
            state[key] = datetime.fromisoformat(state[key])
    event = object.__new__(Snapshot)
    object.__setattr__(event, "__dict__", {"timestamp": snap.timestamp, "topic": snap.topic, "state": state,
                                           "originator_id": stored.originator_id,
                                           "originator_version": stored.originator_version})
    return event


SNAPSHOT_TOPIC = get_topic(Snapshot)
FACT_TAGS = frozenset(TAGS.values())
_DATETIME_KEYS = ("_created_on", "_modified_on")


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, datetime):  # freezegun's FakeDatetime (tests): msgspec encodes only real ones
        return iso_utc(obj)
    raise NotImplementedError(f"cannot encode {type(obj)}")


_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)


@cache
def _campaign_classes() -> tuple[type, type, str]:
    from .campaign import Campaign  # imported late: campaign.py imports this module's peers

    # snapshots stored before the package was named cgledger name the aggregate by its old path
    register_topic("ledger.campaign:Campaign", Campaign)
    return Campaign.Started, Campaign.Recorded, get_topic(Campaign)


class MsgspecMapper(Mapper):
    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        if isinstance(domain_event, Snapshot):
            topic = SNAPSHOT_TOPIC
            state = _encoder.encode(domain_event.state)
            head = domain_event.state.get("head", "")
            data = _encoder.encode(SnapshotState(domain_event.timestamp, domain_event.topic, msgspec.Raw(state),
                                                 snapshot_seal(head, state), head))
        else:
            topic = TAGS[type(domain_event.fact)]
            data = _encoder.encode(
                Envelope(domain_event.timestamp, domain_event.prev, domain_event.digest, domain_event.fact,
                         domain_event.author, domain_event.signature, domain_event.command, domain_event.form,
                         getattr(domain_event, "request", None))
            )
        if self.compressor:
            data = self.compressor.compress(data)
        if self.cipher:
            data = self.cipher.encrypt(data)
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=topic,
            state=data,
        )

    def decode_state(self, stored: StoredEvent) -> bytes:
        data = stored.state
        if self.cipher:
            data = self.cipher.decrypt(data)
        if self.compressor:
            data = self.compressor.decompress(data)
        return data

    def to_domain_event(self, stored: StoredEvent) -> Any:
        try:
            data = self.decode_state(stored)
            if stored.topic == SNAPSHOT_TOPIC:
                return snapshot_event(stored, _snapshot.decode(data))
            if stored.topic in FACT_TAGS:
                envelope = _envelope.decode(data)
                if TAGS[type(envelope.fact)] != stored.topic:
                    raise ValueError(f"its stored topic is not its event's type {TAGS[type(envelope.fact)]}")
                attributes = {
                    "timestamp": envelope.timestamp,
                    "fact": envelope.fact,
                    "prev": envelope.prev,
                    "digest": envelope.digest,
                    "author": envelope.author,
                    "signature": envelope.signature,
                    "command": envelope.command,
                    "form": envelope.form,
                    "request": envelope.request,
                }
                started, recorded, aggregate_topic = _campaign_classes()
                cls: type
                if isinstance(envelope.fact, CampaignStarted) and stored.originator_version == 1:
                    cls = started
                    attributes["originator_topic"] = aggregate_topic
                else:
                    cls = recorded
            else:
                raise ValueError(f"unknown topic {stored.topic!r}")
        except Exception as e:
            raise MapperDeserialisationError(
                f"stored event {stored.originator_version} ({stored.topic}) cannot be read: {e}"
            ) from e
        attributes["originator_id"] = stored.originator_id
        attributes["originator_version"] = stored.originator_version
        event = object.__new__(cls)
        object.__setattr__(event, "__dict__", attributes)
        return event


__all__ = ["MsgspecMapper", "Envelope", "SnapshotState", "decode_envelope", "read_snapshot", "snapshot_seal", "FACTS"]
