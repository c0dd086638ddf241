"""The eventsourcing aggregate: events wrap one fact with the hash chain; applying one is the fold of
ledger/evolve.py."""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from . import chain
from .events import CampaignStarted, Fact
from .evolve import INITIAL_SCENARIO, SCENARIO, CampaignState, first_step, fold  # noqa: F401 - re-exported



def campaign_id(name: str) -> UUID:
    """One campaign per name in a database: the id is derived from the name."""
    return uuid5(NAMESPACE_URL, f"cgledger:campaign:{name}")


class Campaign(CampaignState, Aggregate):
    """The eventsourcing aggregate. Events wrap one fact with the hash chain."""

    class Started(Aggregate.Created):
        fact: CampaignStarted
        prev: str
        digest: str

    class Recorded(Aggregate.Event):
        fact: Fact
        prev: str
        digest: str

        def apply(self, aggregate: "Campaign") -> None:
            aggregate.evolve(self.fact, self.digest, self.originator_version)

    def __init__(self, fact: CampaignStarted, prev: str, digest: str):
        self.start(fact, digest, first_step(fact.system))

    @classmethod
    def begin(cls, fact: CampaignStarted) -> "Campaign":
        fact = chain.canonical(fact)
        timestamp = cls.Started.create_timestamp()
        id_ = campaign_id(fact.name)
        digest = chain.digest(id_, 1, timestamp, chain.GENESIS, fact)
        return cls._create(cls.Started, id=id_, timestamp=timestamp, fact=fact, prev=chain.GENESIS, digest=digest)

    def begin_action(self) -> int:
        return self.next_action

    def record(self, fact: Fact) -> None:
        """Append one fact; checks have all been made before this is called."""
        fact = chain.canonical(fact)
        timestamp = self.Recorded.create_timestamp()
        digest = chain.digest(self.id, self.version + 1, timestamp, self.head, fact)
        self.trigger_event(self.Recorded, timestamp=timestamp, fact=fact, prev=self.head, digest=digest)
