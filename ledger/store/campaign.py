"""The eventsourcing aggregate: events wrap one fact with the hash chain; applying one is the fold of
ledger/domain/evolve.py."""

from __future__ import annotations

from typing import Callable

from eventsourcing.domain import Aggregate

from ..trust import chain
from ..trust.chain import campaign_id  # noqa: F401 - re-exported: the id a campaign's name gives
from ..domain.events import TAGS, CampaignStarted, Fact
from ..domain.evolve import INITIAL_SCENARIO, SCENARIO, CampaignState, first_step, fold  # noqa: F401 - re-exported



class Campaign(CampaignState, Aggregate):
    """The eventsourcing aggregate. Events wrap one fact with the hash chain."""

    class Started(Aggregate.Created):
        fact: CampaignStarted
        prev: str
        digest: str
        author: str
        signature: str
        command: str
        form: int
        request: object

    class Recorded(Aggregate.Event):
        fact: Fact
        prev: str
        digest: str
        author: str
        signature: str
        command: str
        form: int
        request: object

        def apply(self, aggregate: "Campaign") -> None:
            aggregate.evolve(self.fact, self.digest, self.originator_version, self.__dict__.get("author", ""),
                             self.__dict__.get("command", ""), self.__dict__.get("form", 1))

    def __init__(self, fact: CampaignStarted, prev: str, digest: str, author: str = "", signature: str = "",
                 command: str = "", form: int = 1, request=None):
        self.start(fact, digest, first_step(fact.system), command)

    @classmethod
    def begin(cls, fact: CampaignStarted, command: str = "") -> "Campaign":
        fact = chain.canonical(fact)
        timestamp = cls.Started.create_timestamp()
        id_ = campaign_id(fact.name)
        digest = chain.digest(id_, 1, timestamp, chain.GENESIS, fact, TAGS[type(fact)], "", command, chain.FORM)
        return cls._create(cls.Started, id=id_, timestamp=timestamp, fact=fact, prev=chain.GENESIS, digest=digest,
                           author="", signature="", command=command, form=chain.FORM, request=None)

    def record(self, fact: Fact, author: str = "", sign: Callable[[str], str] | None = None,
               command: str = "", request=None) -> None:
        """Append one fact, by its author side, signed with `sign` (digest -> signature) once that side has a
        key; `request`: the typed command of the action this fact opens. Checks have all been made before."""
        fact = chain.canonical(fact)
        timestamp = self.Recorded.create_timestamp()
        digest = chain.digest(self.id, self.version + 1, timestamp, self.head, fact, TAGS[type(fact)], author,
                              command, chain.FORM, request)
        self.trigger_event(self.Recorded, timestamp=timestamp, fact=fact, prev=self.head, digest=digest,
                           author=author, signature=sign(digest) if sign else "", command=command, form=chain.FORM,
                           request=request)
