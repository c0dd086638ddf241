"""The campaign aggregate and its pure state: one evolve function, used by the aggregate on
load and by the audit and projections when they replay the log."""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from . import chain
from .errors import LedgerError
from .events import ActionUndone, CampaignStarted, CGDateChanged, DiceRolled, Fact, TablesOverridden


def campaign_id(name: str) -> UUID:
    """One campaign per name in a database: the id is derived from the name."""
    return uuid5(NAMESPACE_URL, f"cgledger:campaign:{name}")


class CampaignState:
    """What the ledger knows of a campaign at one point of its log. Plain JSON-native
    attributes, so a snapshot of the aggregate encodes them as they are."""

    name: str
    system: str
    cg: str
    cg_date: str
    flags: list[str]  # lasting conditions set by roll results, e.g. german_ammo_shortage (8.618)
    overrides: list[list[str]]  # [source, TOML text] of the player's rules files in force
    next_action: int
    live: list[list[int]]  # ranges [first, last] of actions not undone, oldest first
    reverts: dict[str, dict[str, Any]]  # action -> state values it replaced, for undo
    head: str  # digest of the latest event

    def start(self, fact: CampaignStarted, digest: str) -> None:
        self.name, self.system, self.cg, self.cg_date = fact.name, fact.system, fact.cg, fact.cg_date
        self.flags, self.overrides = [], []
        self.next_action = 1
        self.live, self.reverts = [], {}
        self.head = digest

    # ---- evolve: state + event -> state -----------------------------------------------------
    def evolve(self, fact: Fact, digest: str) -> None:
        self.head = digest
        if isinstance(fact, ActionUndone):
            self._void(fact.undone)
            self.next_action = max(self.next_action, fact.action + 1)
            return
        action = fact.action  # type: ignore[attr-defined]
        self.next_action = max(self.next_action, action + 1)
        self._mark_live(action)
        if isinstance(fact, DiceRolled):
            new_flags = [f for f in fact.sets if f not in self.flags]
            if new_flags:
                self._remember(action, "flags")
                self.flags = self.flags + new_flags
        elif isinstance(fact, CGDateChanged):
            self._remember(action, "cg_date")
            self.cg_date = fact.cg_date
        elif isinstance(fact, TablesOverridden):
            self._remember(action, "overrides")
            self.overrides = self.overrides + [[fact.source, fact.text]]

    def _remember(self, action: int, attribute: str) -> None:
        self.reverts.setdefault(str(action), {}).setdefault(attribute, getattr(self, attribute))

    def _mark_live(self, action: int) -> None:
        if self.live and self.live[-1][1] >= action:
            return
        if self.live and self.live[-1][1] == action - 1:
            self.live[-1] = [self.live[-1][0], action]
        else:
            self.live.append([action, action])

    def _void(self, action: int) -> None:
        first, last = self.live[-1]
        self.live = self.live[:-1] + ([[first, last - 1]] if first < last else [])
        for attribute, value in self.reverts.pop(str(action), {}).items():
            setattr(self, attribute, value)

    # ---- questions ---------------------------------------------------------------------------
    def last_live_action(self) -> int | None:
        return self.live[-1][1] if self.live else None

    def is_live(self, action: int) -> bool:
        return any(first <= action <= last for first, last in self.live)

    def override_sources(self) -> tuple[tuple[str, str], ...]:
        return tuple((source, text) for source, text in self.overrides)


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
            aggregate.evolve(self.fact, self.digest)

    def __init__(self, fact: CampaignStarted, prev: str, digest: str):
        self.start(fact, digest)

    @classmethod
    def begin(cls, fact: CampaignStarted) -> "Campaign":
        timestamp = cls.Started.create_timestamp()
        id_ = campaign_id(fact.name)
        digest = chain.digest(id_, 1, timestamp, chain.GENESIS, fact)
        return cls._create(cls.Started, id=id_, timestamp=timestamp, fact=fact, prev=chain.GENESIS, digest=digest)

    def begin_action(self) -> int:
        return self.next_action

    def record(self, fact: Fact) -> None:
        """Append one fact; checks have all been made before this is called."""
        timestamp = self.Recorded.create_timestamp()
        digest = chain.digest(self.id, self.version + 1, timestamp, self.head, fact)
        self.trigger_event(self.Recorded, timestamp=timestamp, fact=fact, prev=self.head, digest=digest)

    def undo(self, action: int, reason: str) -> ActionUndone:
        target = self.last_live_action()
        if target is None:
            raise LedgerError("nothing to undo: no action of this campaign is still in force")
        fact = ActionUndone(action=action, undone=target, reason=reason)
        self.record(fact)
        return fact
