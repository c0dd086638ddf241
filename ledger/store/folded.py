"""A campaign folded from its stored rows without the event-sourcing library ("read commands import only
what they use"; the library and its aggregate class cost ~20 ms of every full read). Reads fold every campaign this
way; a command that records makes the folded campaign the library's aggregate in place (application.py
`recording`), so the same object goes on, its attributes untouched.

The fold is the aggregate's, step for step (eventsourcing.domain's Created, Event and Snapshot `mutate`, with
ledger/store/campaign.py's `__init__` and `apply`): the same attributes, in the same order, with the same values; a row out
of sequence or that cannot be read is refused as the library refuses it."""

from datetime import datetime
from uuid import UUID

import msgspec

from ..trust.envelope import SnapshotState, decode_envelope
from ..domain.events import TAGS, CampaignStarted
from ..domain.evolve import CampaignState, first_step

_DATETIME_KEYS = ("_created_on", "_modified_on")  # what a snapshot stores as text (ledger/store/persistence.py)


class UnreadableRow(Exception):
    """A stored event that cannot be read as one (its bytes, its topic)."""


class OutOfSequence(Exception):
    """A stored event that is not the next of its campaign."""


class Folded(CampaignState):
    """The campaign as a read folds it: CampaignState with the aggregate's id, version and times, under the same
    attribute names as eventsourcing's Aggregate (`_id`, `_version`, `_created_on`, `_modified_on`,
    `_pending_events`)."""

    @property
    def id(self) -> UUID:
        return self._id

    @property
    def version(self) -> int:
        return self._version

    @property
    def created_on(self) -> datetime:
        return self._created_on

    @property
    def modified_on(self) -> datetime:
        return self._modified_on

    @property
    def pending_events(self) -> list:
        return self._pending_events

    def record(self, *args, **kwargs) -> None:
        """ledger/store/campaign.py `Campaign.record`, on this campaign made the aggregate (`recording`)."""
        recording(self).record(*args, **kwargs)

    def __eq__(self, other: object) -> bool:  # as the aggregate compares
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]


class Event:
    """One stored event as the fold reads it: the attributes of the library's domain event (ledger/store/campaign.py
    Started and Recorded), and `mutate`."""

    __slots__ = ("originator_id", "originator_version", "timestamp", "fact", "prev", "digest", "author",
                 "signature", "command", "form", "request")

    def __init__(self, originator_id: UUID, originator_version: int, envelope):
        self.originator_id, self.originator_version = originator_id, originator_version
        self.timestamp, self.fact, self.prev, self.digest = (envelope.timestamp, envelope.fact, envelope.prev,
                                                             envelope.digest)
        self.author, self.signature, self.command, self.form = (envelope.author, envelope.signature,
                                                                envelope.command, envelope.form)
        self.request = envelope.request

    def mutate(self, campaign: Folded | None) -> Folded:
        if campaign is None:  # the library's Created.mutate: base attributes, then Campaign.__init__
            if self.originator_version != 1 or not isinstance(self.fact, CampaignStarted):
                raise OutOfSequence(f"the campaign's first stored event is {self.originator_version}, not its start")
            campaign = Folded.__new__(Folded)
            campaign._id, campaign._version = self.originator_id, self.originator_version
            campaign._created_on = campaign._modified_on = self.timestamp
            campaign._pending_events = []
            campaign.start(self.fact, self.digest, first_step(self.fact.system), self.command)
            return campaign
        if self.originator_id != campaign.id:
            raise OutOfSequence(f"event {self.originator_version} is another campaign's")
        if self.originator_version != campaign.version + 1:
            raise OutOfSequence(f"event {self.originator_version} follows event {campaign.version}: "
                                f"{campaign.version + 1} is missing")
        campaign.evolve(self.fact, self.digest, self.originator_version, self.author, self.command, self.form)
        campaign._version = self.originator_version
        campaign._modified_on = self.timestamp
        return campaign


def event(stored, decode) -> Event:
    """A stored event row (originator_id, originator_version, topic, state), its state read by `decode` (the
    mapper's `decode_state`: a cipher, a compressor)."""
    try:
        envelope = decode_envelope(decode(stored))
        if TAGS[type(envelope.fact)] != stored.topic:
            raise ValueError(f"its stored topic is not its event's type {TAGS[type(envelope.fact)]}")
    except Exception as e:  # noqa: BLE001 - named as the library's mapper named it
        raise UnreadableRow(f"stored event {stored.originator_version} ({stored.topic}) cannot be read: {e}") from None
    return Event(stored.originator_id, stored.originator_version, envelope)


def from_snapshot(stored, snap: SnapshotState) -> Folded:
    """The campaign a checked snapshot holds (the library's Snapshot.mutate, its state parsed once, here)."""
    state = msgspec.json.decode(snap.state)
    for key in _DATETIME_KEYS:
        if isinstance(state.get(key), str):
            state[key] = datetime.fromisoformat(state[key])
    state["_id"] = stored.originator_id
    state["_version"] = stored.originator_version
    state["_pending_events"] = []
    campaign = object.__new__(Folded)
    object.__setattr__(campaign, "__dict__", state)
    return campaign


def recording(campaign: Folded):
    """The campaign a read folded, made the library's aggregate (ledger/store/campaign.py `Campaign`) in place to record
    on: the same object, so every caller holding it sees what is recorded; its attributes are the aggregate's
    already (the fold is the aggregate's). The event-sourcing library is imported here, by a command that records."""
    from .campaign import Campaign

    if type(campaign) is Folded:
        campaign.__class__ = Campaign  # same attributes, same layout: only the class, with its events, changes
    return campaign
