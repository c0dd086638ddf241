"""The campaign aggregate and its pure state: one evolve function, used by the aggregate on
load and by the audit and projections when they replay the log."""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from . import chain
from .errors import LedgerError
from .events import (
    ActionUndone, CampaignStarted, CGDateChanged, DiceRolled, Fact, FortificationsPurchased, InitiativeChosen, Rewound,
    FairDiceCommitted, RGPurchased, SecretRollMade, SecretRollRevealed, SideKeyRegistered,
    ScenarioEnded, StepOpened, TablesOverridden,
)

SCENARIO = "scenario"  # the step value while a CG scenario is played
INITIAL_SCENARIO = "Initial Scenario"


def campaign_id(name: str) -> UUID:
    """One campaign per name in a database: the id is derived from the name."""
    return uuid5(NAMESPACE_URL, f"cgledger:campaign:{name}")


class CampaignState:
    """What the ledger knows of a campaign at one point of its log. Plain JSON-native
    attributes, replaced (never mutated in place) so that undo can put old values back and a
    snapshot of the aggregate encodes them as they are."""

    name: str
    system: str
    cg: str
    cg_date: str
    options: dict[str, bool]
    step: str  # the open RePh step ('8.616'), or 'scenario'
    initial: bool  # before the CG's Initial Scenario has begun (only † steps, 8.6)
    scenario: str  # the type of this CG Date's scenario (Initial Scenario, Dual Attack, …, Idle Day)
    done: list[str]  # 'effect:side' recorded since the open step was opened (its needs)
    flags: list[str]  # lasting conditions set by roll results, e.g. german_ammo_shortage (8.618)
    overrides: list[list[str]]  # [source, TOML text] of the player's rules files in force
    cpp: dict[str, int]  # CPP each side has now (8.6162)
    lvp: dict[str, int]  # each side's Current-LVP at the last CG-Scenario End (8.6032)
    chits: dict[str, int]  # Attack Chits each side has selected in the CG (8.6231)
    bought: dict[str, int]  # 'side:RG' -> number bought in the CG, OB-given ones excluded (8.6196)
    bought_today: dict[str, int]  # 'side:RG:MapGroup' -> number bought this CG Date (8.6195)
    rg_pending: dict[str, list[str]]  # RGPurchased version -> follow-up tables not yet rolled (8.620)
    fpp: dict[str, float]  # FPP each side may still spend this CG Date (8.621; forfeit with the date)
    fortified: dict[str, int]  # 'side:Setup Area' -> Fortifications counted under 8.621 footnote S
    keys: dict[str, dict[str, str]]  # side -> {salt, check} of its key for Secret rolls
    sealed: dict[str, dict[str, str]]  # SecretRollMade version -> {side, effect} while not revealed
    fair: dict[str, int]  # side -> fair rolls made (fair dice committed: the key is there from the commitment)
    next_action: int
    live: list[list[int]]  # ranges [first, last] of actions not undone, oldest first
    reverts: dict[str, dict[str, Any]]  # action -> state values it replaced, for undo
    head: str  # digest of the latest event

    def start(self, fact: CampaignStarted, digest: str, first_step: str) -> None:
        self.name, self.system, self.cg, self.cg_date = fact.name, fact.system, fact.cg, fact.cg_date
        self.options = {"random_weather": fact.random_weather}
        self.step, self.initial, self.scenario, self.done = first_step, first_step != SCENARIO, INITIAL_SCENARIO, []
        self.flags, self.overrides = [], []
        self.cpp = dict(fact.start_cpp)
        self.lvp, self.chits, self.bought, self.bought_today, self.rg_pending = {}, {}, {}, {}, {}
        self.fpp, self.fortified = {}, {}
        self.keys, self.sealed, self.fair = {}, {}, {}
        self.next_action = 1
        self.live, self.reverts = [], {}
        self.head = digest

    # ---- evolve: state + event -> state -----------------------------------------------------
    def evolve(self, fact: Fact, digest: str, version: int) -> None:
        self.head = digest
        if isinstance(fact, ActionUndone):
            self._void(fact.undone)
        elif isinstance(fact, Rewound):
            for action in sorted(fact.voided, reverse=True):
                self._void(action)
        else:
            self._mark_live(fact.action)  # type: ignore[attr-defined]
            self._apply(fact, version)
        self.next_action = max(self.next_action, fact.action + 1)  # type: ignore[attr-defined]

    def _apply(self, fact: Fact, version: int) -> None:
        a = fact.action  # type: ignore[attr-defined]
        if isinstance(fact, DiceRolled):
            new_flags = [f for f in fact.sets if f not in self.flags]
            if new_flags:
                self._set(a, "flags", self.flags + new_flags)
            if fact.effect:
                self._set(a, "done", self.done + [f"{fact.effect}:{fact.side}"])
            if fact.effect == "cpp_replenishment" and fact.value is not None:
                self._add_cpp(a, fact.side, fact.value)
            if fact.cpp:
                self._add_cpp(a, fact.side, -fact.cpp)
            pending = self.rg_pending.get(str(fact.rg))
            if pending and fact.table in pending:
                rest = list(pending)
                rest.remove(fact.table)
                self._set(a, "rg_pending", {**self.rg_pending, str(fact.rg): rest})
        elif isinstance(fact, CGDateChanged):
            self._set(a, "cg_date", fact.cg_date)
            self._set(a, "scenario", "")  # known again once 8.623 has been resolved
            self._set(a, "bought_today", {})
            self._set(a, "rg_pending", {})
            self._set(a, "fpp", {})  # 8.621: FPP unspent at the end of the step are forfeit
            self._set(a, "fortified", {})
        elif isinstance(fact, StepOpened):
            self._set(a, "step", fact.step)
            self._set(a, "done", [])
            if fact.step == SCENARIO:
                self._set(a, "initial", False)
        elif isinstance(fact, ScenarioEnded):
            self._set(a, "lvp", dict(fact.lvp))
            self._set(a, "done", self.done + ["scenario_end:"])
        elif isinstance(fact, InitiativeChosen):
            self._set(a, "scenario", fact.scenario)
            attacks = {s: self.chits.get(s, 0) + (chit == "attack") for s, chit in fact.chits.items()}
            self._set(a, "chits", attacks)
            self._set(a, "done", self.done + ["initiative:"])
        elif isinstance(fact, RGPurchased):
            self._add_cpp(a, fact.side, -fact.cpp)
            if not fact.given:
                key = f"{fact.side}:{fact.rg}"
                self._set(a, "bought", {**self.bought, key: self.bought.get(key, 0) + 1})
            key = f"{fact.side}:{fact.rg}:{fact.map_group}"
            self._set(a, "bought_today", {**self.bought_today, key: self.bought_today.get(key, 0) + 1})
            if fact.rolls:
                self._set(a, "rg_pending", {**self.rg_pending, str(version): list(fact.rolls)})
            if fact.fpp:
                self._set(a, "fpp", {**self.fpp, fact.side: self.fpp.get(fact.side, 0) + fact.fpp})
        elif isinstance(fact, FortificationsPurchased):
            self._set(a, "fpp", {**self.fpp, fact.side: self.fpp.get(fact.side, 0) - fact.fpp})
            key = f"{fact.side}:{fact.setup_area}"
            self._set(a, "fortified", {**self.fortified, key: self.fortified.get(key, 0) + fact.s_units})
        elif isinstance(fact, SideKeyRegistered):
            self._set(a, "keys", {**self.keys, fact.side: {"salt": fact.salt, "check": fact.check}})
        elif isinstance(fact, FairDiceCommitted):
            self._set(a, "fair", {**self.fair, fact.side: 0})
        elif isinstance(fact, SecretRollMade):
            self._set(a, "sealed", {**self.sealed, str(version): {"side": fact.side, "effect": fact.effect}})
            if fact.fair is not None:
                self._set(a, "fair", {**self.fair, fact.side: fact.fair})
            if fact.effect:
                self._set(a, "done", self.done + [f"{fact.effect}:{fact.side}"])
            pending = self.rg_pending.get(str(fact.rg))
            if pending and fact.table in pending:
                rest = list(pending)
                rest.remove(fact.table)
                self._set(a, "rg_pending", {**self.rg_pending, str(fact.rg): rest})
        elif isinstance(fact, SecretRollRevealed):
            self._set(a, "sealed", {k: v for k, v in self.sealed.items() if k != str(fact.roll)})
            rolled = fact.fact
            new_flags = [f for f in rolled.sets if f not in self.flags]
            if new_flags:
                self._set(a, "flags", self.flags + new_flags)
            if rolled.effect == "cpp_replenishment" and rolled.value is not None:
                self._add_cpp(a, rolled.side, rolled.value)
            if rolled.cpp:
                self._add_cpp(a, rolled.side, -rolled.cpp)
        elif isinstance(fact, TablesOverridden):
            self._set(a, "overrides", self.overrides + [[fact.source, fact.text]])

    def _add_cpp(self, action: int, side: str, amount: int) -> None:
        self._set(action, "cpp", {**self.cpp, side: self.cpp.get(side, 0) + amount})

    def _set(self, action: int, attribute: str, value: Any) -> None:
        """Every change goes through here: the first old value per action is kept for undo."""
        self.reverts.setdefault(str(action), {}).setdefault(attribute, getattr(self, attribute))
        setattr(self, attribute, value)

    def _mark_live(self, action: int) -> None:
        if self.live and self.live[-1][1] >= action:
            return
        if self.live and self.live[-1][1] == action - 1:
            self.live[-1] = [self.live[-1][0], action]
        else:
            self.live.append([action, action])

    def _void(self, action: int) -> None:
        ranges = []
        for first, last in self.live:
            if first <= action <= last:
                ranges += [r for r in ([first, action - 1], [action + 1, last]) if r[0] <= r[1]]
            else:
                ranges.append([first, last])
        self.live = ranges
        for attribute, value in self.reverts.pop(str(action), {}).items():
            setattr(self, attribute, value)

    # ---- questions ---------------------------------------------------------------------------
    def last_live_action(self) -> int | None:
        return self.live[-1][1] if self.live else None

    def live_actions_after(self, action: int) -> list[int]:
        return [a for first, last in self.live for a in range(max(first, action + 1), last + 1)]

    def override_sources(self) -> tuple[tuple[str, str], ...]:
        return tuple((source, text) for source, text in self.overrides)


def first_step(system: str) -> str:
    """A new campaign opens on the first † step (the only steps before an Initial Scenario, 8.6)."""
    from . import rules

    steps = rules.load(system).system.steps
    return next((s.id for s in steps if "†" in s.markers), SCENARIO)


def fold(logged) -> CampaignState | None:
    """The state after the given events (as read back from the store)."""
    state = None
    for event in logged:
        if event.fact is None:
            continue
        if isinstance(event.fact, CampaignStarted):
            state = CampaignState()
            state.start(event.fact, event.digest, first_step(event.fact.system))
        elif state is not None:
            state.evolve(event.fact, event.digest, event.version)
    return state


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

    def undo(self, action: int, reason: str) -> ActionUndone:
        target = self.last_live_action()
        if target is None:
            raise LedgerError("nothing to undo: no action of this campaign is still in force")
        fact = ActionUndone(action=action, undone=target, reason=reason)
        self.record(fact)
        return fact
