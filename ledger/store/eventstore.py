"""The event-sourcing library's application: the store a command records through. The application service
(ledger/application.py `CampaignLedger`) holds one, built when a command first records (or at once where its rows
cannot be read plainly: PostgreSQL, a cipher); reads fold the stored rows without it (ledger/store/folded.py)."""

from __future__ import annotations

from eventsourcing.application import Application

from .campaign import Campaign
from .database import SNAPSHOT_INTERVAL


def replay(campaign: Campaign | None, events) -> Campaign | None:
    """A plain projector: the library's default checks a typing Protocol per event (measured:
    2-3x slower on a 200-event replay; bench/)."""
    for event in events:
        campaign = event.mutate(campaign)
    return campaign


class EventStore(Application):
    name = "cgledger"  # pinned: the tables' names
    snapshotting_intervals = {Campaign: SNAPSHOT_INTERVAL}
    snapshotting_projectors = {Campaign: replay}
    env = {"MAPPER_TOPIC": "cgledger.ledger.store.persistence:MsgspecMapper"}

    def __init__(self, ledger, env=None):
        self.ledger = ledger
        super().__init__(env)

    def take_snapshot(self, aggregate_id, version: int | None = None, projector_func=None) -> None:
        """The ledger's: a snapshot built the way reads build the campaign."""
        self.ledger.take_snapshot(aggregate_id, version)
