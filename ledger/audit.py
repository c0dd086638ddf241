"""Audit: replay a campaign's whole log and re-check it.

Pure: takes the events as read back from the store and returns findings. It re-checks the
hash chain (a changed, removed or reordered stored event breaks it), then re-decides every
stored fact with the same decision the command path uses (ledger/decide/), on the state
before it: a roll not due, a DRM the log contradicts, a purchase over a limit, a step past
an open need, a second CampaignStarted ... each is one finding. It flags a roll made again
for the same item after the first was undone.
"""

from __future__ import annotations

import hashlib  # noqa: F401 - loaded: every event's digest through OpenSSL (ledger/sha.py)
import sys
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple
from uuid import UUID

from .trust import chain
from . import rules as rulesmod
from .errors import LedgerError
from .trust.envelope import read_logged, with_command
from .domain.events import (
    CampaignStarted, CGDateChanged, DiceRolled, FairDiceCommitted, FairSeedRevealed, RGPurchaseRevealed,
    RollDeclared, RollLapsed, SecretRollMade, SecretRollRevealed,
)
from .trust.signatures import Signed, Verifier, author_check
from .domain.events import TAGS
from .domain.evolve import authorship, CampaignState, begin, snapshot
from .domain.inforce import voided_by
from .trust.logged import Logged
from .domain.timeline import kind_words
from .trust.secrets import fair_faces, seed_commitment, share

KINDS = ("pending", "unreadable", "missing", "tampered", "chain", "author", "signature", "rights", "table", "step", "due",
         "decision", "original", "drm", "automatic_drm", "final", "result", "reroll", "vasl", "secret", "fair",
         "snapshot")
# what a player may dispute without either side having forged anything: the sender's ledger recorded it (a re-roll
# after an undo); `import` takes it and both audits keep naming it. Every other kind is refused by `import`.
DISPUTES = frozenset({"reroll"})


@dataclass(frozen=True)
class Finding:
    version: int
    kind: str
    message: str

    def line(self) -> str:
        return f"event {self.version}: {self.message}"


@dataclass(frozen=True)
class Report:
    events: int
    rolls: int
    findings: tuple[Finding, ...]
    unrevealed: tuple[tuple[int, str, str], ...] = ()  # Secret rolls not revealed yet: (event, table, side)
    pending: tuple[tuple[int, str], ...] = ()  # what the protocol still owes: (event, what), e.g. an unanswered roll
    sources: tuple[tuple[str, int], ...] = ()  # rolls in force per source (fair, entered, vasl, rng, seeded)
    unwitnessed: tuple[tuple[int, str], ...] = ()  # dice the other side has not witnessed: (event, in words)
    head: tuple[int, str] = (0, "")  # the last event audited: (its version, its digest)

    @property
    def clean(self) -> bool:
        return not self.findings


def audit(campaign_id: UUID, logged, snapshots: dict | None = None, final: bool = False,
          worker: str | None = "auto") -> Report:
    """Findings over the stored events; `snapshots` (version -> (state, problem)) are compared with the replay.
    `final` (the campaign is over): whatever is still pending (an unrevealed Secret roll, purchase or chit, an
    unanswered fair roll) is a finding.

    `logged`: the events in order, read back (`Logged`), or stored rows still to decode (`Raw`, as
    `Loader.rows` reads them a page at a time): those are decoded one at a time and kept undecoded for the
    decisions that read the log before an event (`Past`), so the whole decoded log is never held.
    `worker`: where the signatures are verified while the events are decided (`signatures.Verifier`): "process" (a
    child process), "thread", None (in line); "auto": a child process when this process may run on more than one
    CPU and the log is long enough to gain from it (`Verifier.CHILD_FROM`), else in line. The findings are the same,
    in the same order, wherever they are verified."""
    # first: a child verifying signatures starts while the re-decisions load; its worth depends on the log's length
    size = len(logged) if hasattr(logged, "__len__") else getattr(logged, "size", None)
    verifier = Verifier(worker, size)
    replay = Replay(campaign_id, Events(logged), snapshots, verifier)
    read_on(replay, verifier, size)
    return replay.report(final)


def read_on(replay: "Replay", verifier: Verifier, size: int | None = None) -> None:
    """The replay reads the events it has not read yet, its signatures checked by `verifier` (closed after);
    `size`: how many, for the player to see the audit go (ledger/progress.py)."""
    from .progress import counted

    replay.verifier = verifier
    try:
        for event in counted(replay.events, "auditing the campaign", size):
            replay.read(event)
        for at, version, signed in verifier.failed():
            replay.findings[at] = Finding(version, *signed.finding())
    finally:
        verifier.close()


class Continued:
    """An audit kept between runs in a long-lived process (the page's server): the replay of a log it audited whole,
    which re-decides only the events stored since (each whole action, its chain, author and signature) and reports
    as the whole audit would. Trusted like `audit --fast`'s mark: what this process audited stays audited while the
    log still holds the event it stopped at with the same digest; the full audit from scratch stays one command
    away. `KEPT` holds a few, per database and campaign."""

    KEPT: dict = {}
    LIMIT = 4

    def __init__(self, campaign_id: UUID, logged, snapshots: dict | None):
        verifier = Verifier("auto", len(logged) if hasattr(logged, "__len__") else getattr(logged, "size", None))
        self.replay = Replay(campaign_id, Events(logged), dict(snapshots or {}), verifier)
        self.since = 0  # the last event audited before the last run: 0 for a run from the first event
        self._run(verifier)

    @classmethod
    def of(cls, key, campaign_id: UUID, rows, snapshots: dict | None, stored_digest) -> "Continued":
        """The kept audit of the log under `key`, carried on to its end (`rows(after)`: the stored rows after that
        version; `stored_digest(version)`: the digest stored at that version, None if there is none), or a new one
        from the first event where none is kept or the log no longer holds the event it stopped at."""
        kept = cls.KEPT.get(key)
        if kept is not None:
            version, digest = kept.replay.kept.head
            if version and stored_digest(version) == digest:
                kept.more(rows(version), snapshots)
                return kept
        kept = cls(campaign_id, rows(None), snapshots)
        cls.KEPT = {k: v for k, v in list(cls.KEPT.items())[-(cls.LIMIT - 1):] if k != key}
        cls.KEPT[key] = kept
        return kept

    def more(self, logged, snapshots: dict | None) -> None:
        """The events stored since, read on. A snapshot written since at an event already read summarizes a state the
        replay has passed: it is counted as held, not compared (the snapshots are this machine's own copies)."""
        replay = self.replay
        self.since = replay.kept.head[0]
        snapshots = dict(snapshots or {})
        replay.kept.snapshots.update(v for v in snapshots if v <= self.since and v not in replay.snapshots)
        replay.snapshots = snapshots
        replay.events.more(logged)
        self._run(Verifier(None))

    def _run(self, verifier: Verifier) -> None:
        read_on(self.replay, verifier)

    def report(self, final: bool) -> Report:
        return self.replay.report(final)


class Replay:
    """The audit's one pass over the stored events. For each: its envelope (its place, digest and chain), its
    action's number, its author and signature, then its whole action decided again on the state before it (from
    the command stored with it; an older log's from its facts), the re-rolls and VASL reports met on the way; then the
    state evolves by it. `report` adds what only the whole log shows."""

    def __init__(self, campaign_id: UUID, events: "Events", snapshots: dict | None, verifier: Verifier):
        from .decide import redecide  # here, not at the top: a read never decides

        self.redecide = redecide
        self.campaign_id, self.events, self.snapshots, self.verifier = campaign_id, events, snapshots, verifier
        self.findings: list[Finding | None] = []  # None: a signature being verified (`verifier`), its finding if it fails
        self.state: CampaignState | None = None
        self.expected_prev: str | None = chain.GENESIS
        self.expected_version = 1
        self.last_action: int | None = None  # the action of the event before: a later fact of it shares its number
        # action -> its rolls: (event, dice, Original, result, key, source)
        self.rolls_by_action: dict[int, list[tuple[int, tuple, int, str, str, str]]] = {}
        self.undone_items: dict[str, tuple] = {}
        self.roll_count = 0
        self.vasl_seen: dict[str, int] = {}  # VASL report key -> event that used it (in force)
        self.vasl_action: dict[int, int] = {}  # event checked against a VASL report -> its action
        self.made_states: dict[int, tuple] = {}  # SecretRollMade version -> (fact, state when it was made)
        self.decided_with: set[int] = set()  # events re-decided together with the one before (a step's new CG Date)
        self.used_up = UsedUp()
        self.kept = Kept()  # what the checks after the replay read of the whole log

    def find(self, version: int, kind: str, message: str) -> None:
        self.findings.append(Finding(version, kind, message))

    def read(self, event) -> None:
        version = event.version
        named_before = len(self.findings)  # what is found for this event is appended from here
        self.kept.add(event)
        if self.snapshots and version in self.snapshots:
            self.kept.snapshots.add(version)  # the log holds the event a snapshot summarizes
        if not self.envelope(event):
            return
        fact = event.fact
        if self.state is None:
            self.start(event)
            return
        action = getattr(fact, "action", None)
        last_before = self.numbered(event, action)
        self.authored(event)
        self.counted(event)
        self.decided(event, action, last_before, named_before)
        if isinstance(fact, DiceRolled):
            self.rerolled(event)
        self.rolled_twice(event)
        self.voids(fact)
        self.state.evolve(fact, event.digest, version, event.author, event.command, event.form)
        if self.snapshots and version in self.snapshots:
            for message in check_snapshot(self.state, version, *self.snapshots[version]):
                self.find(version, "snapshot", message)

    def envelope(self, event) -> bool:
        """The event's place in the log, its readability, topic, digest and chain; False where it cannot be read."""
        version = event.version
        if version != self.expected_version:
            missing = f"{self.expected_version}" if version == self.expected_version + 1 \
                else f"{self.expected_version}-{version - 1}"
            self.find(version, "missing", f"event(s) {missing} missing from the log: stored events were removed")
            self.expected_prev = None  # the predecessor is gone: the chain cannot be checked here
        self.expected_version = version + 1
        fact = event.fact
        if fact is None:
            edited = "the row was edited" in (event.error or "")  # its topic changed: read as damaged (envelope.py)
            self.find(version, "tampered" if edited else "unreadable",
                      f"stored event cannot be read ({event.error}): it was altered or corrupted")
            self.expected_prev = None
            return False
        if event.topic != TAGS[type(fact)]:
            self.find(version, "tampered", f"stored topic {event.topic!r} is not its event's type {TAGS[type(fact)]}: "
                                           "the row was edited")
        if chain.event_digest(self.campaign_id, event) != event.digest:
            self.find(version, "tampered", f"event {version} ({kind_words(event.topic)}) was altered after it was "
                                           "recorded: its content no longer matches its digest")
        if self.expected_prev is not None and event.prev != self.expected_prev:
            self.find(version, "chain", f"event {version} ({kind_words(event.topic)}) does not follow event "
                                        f"{version - 1}: the log was reordered or rewritten")
        self.expected_prev = event.digest
        return True

    def start(self, event) -> None:
        if isinstance(event.fact, CampaignStarted):
            self.state = begin(event.fact, event.digest, event.command)
            return
        self.find(event.version, "missing", "the log does not begin with CampaignStarted")
        self.kept.unreplayed(event.fact)

    def numbered(self, event, action: int | None) -> int | None:
        """Action numbers are taken in order, a later fact of one action sharing its number; the action before."""
        assert self.state is not None
        if action is not None and action < self.state.next_action and action != self.last_action:
            self.find(event.version, "decision", f"event {event.version} ({kind_words(event.topic)}) is recorded under "
                                                 "an earlier action's number: a new act takes a new number (a reused "
                                                 "one counts where the record shows it undone)")
        elif action is not None and action > self.state.next_action:
            self.find(event.version, "decision", f"event {event.version} ({kind_words(event.topic)}) is recorded under "
                                                 f"action {action}, the next is {self.state.next_action}: numbers are "
                                                 "taken in order")
        before, self.last_action = self.last_action, action if action is not None else self.last_action
        return before

    def authored(self, event) -> None:
        """Its author may record it, and its signature (verified in order, maybe on the worker: its place kept)."""
        found = author_check(self.state, event.fact, event)
        if isinstance(found, Signed):
            self.verifier.add(found.public, found.digest, found.signature, (len(self.findings), event.version, found))
            self.findings.append(None)
        else:
            for kind, message in found:
                self.find(event.version, kind, message)

    def counted(self, event) -> None:
        """Its VASL report (each used once while in force), the rolls re-checked, a Secret roll's state when made."""
        fact, version = event.fact, event.version
        if getattr(fact, "vasl", ""):
            if hasattr(fact, "action") and voided_by(fact) is None:
                self.vasl_action[version] = fact.action
            for finding in check_vasl(fact, self.vasl_seen, version):
                self.find(version, "vasl", finding)
        if isinstance(fact, (DiceRolled, SecretRollRevealed)):
            self.roll_count += 1
        if isinstance(fact, SecretRollMade):
            self.made_states[version] = (fact, snapshot(self.state))

    def decided(self, event, action: int | None, last_before: int | None, named_before: int) -> None:
        """The whole action decided again from the command stored with its first event (form 3), or from its facts
        (older forms); the events decided with it are not decided again."""
        fact, version, request = event.fact, event.version, getattr(event, "request", None)
        if request is not None and action == last_before:
            self.find(version, "decision", f"event {version} ({kind_words(event.topic)}) carries a command inside "
                                           "an action: a command is stored with the first event of its action only")
        if version in self.decided_with:
            self.decided_with.discard(version)
            return
        together = [fact]
        for later in self.events.ahead():
            if later.fact is None or getattr(later.fact, "action", None) != action \
                    or (request is None and not self.redecide.decided_together(fact, later.fact)):
                break
            together.append(later.fact)
            self.decided_with.add(later.version)
        try:
            if request is not None:
                decided = self.redecide.redecide_request(self.state, request, together, self.events.past,
                                                         event.author, self.made_states)
            else:
                decided = self.redecide.redecide(self.state, together, self.events.past, self.made_states,
                                                 event.author, event.form)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):  # a forged fact the rules cannot read
            what = "command" if request is not None else "fact"
            decided = [("decision", f"the stored {what} holds values the ledger never writes: it cannot be decided "
                                    "again (forged or corrupted)")]
        if request is None and not decided and event.form >= 3 and action is not None and action != last_before \
                and not any(f is not None for f in self.findings[named_before:]):
            # a log written today keeps each act's command: one without it was not written by the ledger (named once:
            # an act already named for what it holds is not named again for this)
            decided = [("decision", f"{self.redecide._cap(kind_words(event.topic))} is recorded without the command "
                                    "that made it: the ledger keeps each act's command with its first event")]
        for kind, message in decided:
            self.find(version, kind, message)

    def rerolled(self, event) -> None:
        """Same dice re-entered after an undo is a correction (of a DRM, a table); new dice are a re-roll."""
        fact, version, state = event.fact, event.version, self.state
        key = roll_key(state, fact)
        if key in self.undone_items and self.undone_items[key][1] != tuple(fact.dice):
            # the first roll after the undo is the re-roll; the table's later rolls are rolls of their own
            first_version, _dice, original, result, *_rest = self.undone_items.pop(key)
            purpose = f" for '{fact.purpose}'" if fact.purpose else ""
            self.find(version, "reroll",
                      f"re-rolled after undo: {fact.table} ({fact.side}, {state.cg_date}{purpose}) was rolled at "
                      f"event {first_version} (Original {original}: {result}), undone, and rolled again "
                      f"(Original {fact.original}: {fact.result})")
        self.rolls_by_action.setdefault(fact.action, []).append(  # shared values: a long log's rolls repeat them
            (version, _SHARED.setdefault(tuple(fact.dice), tuple(fact.dice)), fact.original,
             sys.intern(fact.result), key, sys.intern(fact.source)))

    def rolled_twice(self, event) -> None:
        fact = event.fact
        earlier = self.used_up.record(fact, event.version)
        if earlier is not None and fact.item not in self.state.consumed:  # else the decision names it (kind 'due')
            self.find(event.version, "reroll",
                      f"rolled twice: {fact.table} ({fact.side}, {self.state.cg_date}) for the due item "
                      f"'{fact.item}' was rolled at event {earlier}, still in force; an undo of the CG Date change "
                      "opened its date again, and a closed date's rolls are not refused")

    def voids(self, fact) -> None:
        """An undo or rewind: its actions' due items, VASL reports and rolls are free again (a roll of their items
        with new dice is a re-roll)."""
        voided = voided_by(fact)
        if not voided:
            return
        self.used_up.void(voided)
        for action in voided:
            for key, first in list(self.vasl_seen.items()):
                if isinstance(first, int) and self.vasl_action.get(first) == action:
                    del self.vasl_seen[key]  # an undone VASL report may be entered again
            for roll in self.rolls_by_action.get(action, []):
                self.undone_items.setdefault(roll[4], roll)

    def whole_log(self, state: CampaignState, findings: list[Finding]) -> None:
        """The fair-dice commitments, a key without chains, the secrets decided again once revealed."""
        findings += [Finding(version, "fair", message)
                     for version, message in check_fair(self.campaign_id, self.kept.fair, state.name)]
        if state.dice_mode == "fair":  # a key without chains would switch fair dice off for both sides
            names = rulesmod.load(state.system, state.override_sources()).system.sides if state.keys else {}
            findings += [Finding(self.expected_version - 1, "fair",
                                 f"the {names.get(side, side)} side holds a key but never committed its fair-dice "
                                 "chains: its ledger's keys init commits them with the key; fair dice cannot be made "
                                 "for or against it until it does")
                         for side in names if side in state.keys and side not in state.chains]
        findings += [Finding(version, "fair", message)
                     for version, message in self.kept.conditions.findings(self.kept.voided)]
        named = {f.version for f in findings}
        # 8.619: secrets decided again once revealed (only if a purchase or a replenishment was: it reads the log)
        findings += [Finding(version, kind, message) for version, kind, message in
                     (self.redecide.revealed(list(self.events.past)) if self.kept.revealing else ())
                     if version not in named]

    def report(self, final: bool) -> Report:
        """The findings in log order, with what only the whole log shows: snapshots of events it does not hold, the
        fair-dice commitments, a key without chains, the secrets decided again once revealed; at campaign end
        (`final`), what is still pending."""
        findings = [finding for finding in self.findings if finding is not None]
        state, kept = self.state, self.kept

        def find(version: int, kind: str, message: str) -> None:
            findings.append(Finding(version, kind, message))

        for version in sorted(set(self.snapshots or ()) - kept.snapshots):
            find(version, "snapshot", f"a snapshot at event {version} summarizes an event the log does not hold")
        if state is not None:
            self.whole_log(state, findings)
        unrevealed = tuple((v, made.table, made.side) for v, (made, _s) in self.made_states.items()
                           if v not in kept.revealed and state is not None and str(v) in state.sealed)
        pending = tuple(pending_of(state)) if state is not None else ()
        unwitnessed = tuple(unwitnessed_of(state)) if state is not None else ()
        if final:
            findings += [Finding(v, "unwitnessed", f"at campaign end: {what}") for v, what in unwitnessed]
            findings += [Finding(v, "pending", f"at campaign end: {what}") for v, what in pending]
            findings += [Finding(v, "pending", f"at campaign end: the Secret roll on {table} by {side} was never "
                                               "revealed") for v, table, side in unrevealed]
        return Report(events=kept.count, rolls=self.roll_count, findings=tuple(findings), unrevealed=unrevealed,
                      pending=pending, sources=tuple(sorted(kept.sources(self.rolls_by_action).items())),
                      unwitnessed=unwitnessed, head=kept.head)


class Conditions:
    """Rolls declared for one result of their RG's strength roll (RR 2.5192, KGP 8.6204), as the log goes by: each
    must lapse if the strength gave another result and be made if it gave that one. An open strength is decided with
    them; a Secret one (its roller's ledger alone knew it) is checked here once revealed."""

    def __init__(self):
        self.declared: dict[tuple[str, int], tuple[int, int, int, str, str]] = {}  # (side, n) -> version, action ...
        self.lapsed: list[tuple[int, int, int]] = []  # (version, action, declaration)
        self.made: list[tuple[int, int, str, int]] = []  # (version, action, side, n)
        self.strength: list[tuple[int, int, str]] = []  # (action, rg, code)

    def add(self, version: int, fact) -> None:
        if isinstance(fact, RollDeclared) and fact.if_result:
            self.declared[(fact.side, fact.n)] = (version, fact.action, fact.rg, fact.if_result, fact.table)
        elif isinstance(fact, RollLapsed):
            self.lapsed.append((version, fact.action, fact.declared))
        rolled = fact.fact if isinstance(fact, SecretRollRevealed) else fact
        if isinstance(rolled, DiceRolled) and self.declared:
            if rolled.effect == "rg_strength" and rolled.rg is not None:
                self.strength.append((fact.action, rolled.rg, rolled.code))
            if rolled.source == "fair" and (rolled.side, rolled.fair) in self.declared:
                self.made.append((version, fact.action, rolled.side, rolled.fair))

    def findings(self, voided: set[int]) -> list[tuple[int, str]]:
        if not self.declared:
            return []
        strength = {rg: code for action, rg, code in self.strength if action not in voided}
        by_version = {d[0]: (side, n, *d[1:]) for (side, n), d in self.declared.items() if d[1] not in voided}
        out = []
        for version, action, declared in self.lapsed:
            side, _n, _a, rg, code, table = by_version.get(declared, ("", 0, 0, None, "", ""))
            if action not in voided and rg in strength and strength[rg] == code:
                out.append((version, f"the {side} side's roll on {table}, made only if its RG's strength roll gave "
                                     f"'{code}', lapsed: that roll gave '{code}'"))
        for version, action, side, n in self.made:
            _v, _a, rg, code, table = self.declared[(side, n)]
            if action not in voided and rg in strength and strength[rg] != code:
                out.append((version, f"the {side} side's roll on {table}, made only if its RG's strength roll gave "
                                     f"'{code}', was made: that roll gave '{strength[rg]}'"))
        return out


_SHARED: dict = {}  # the dice rolled, one tuple per distinct roll (a few dozen)


class Kept:
    """What the checks made after the replay read of the whole log, gathered as it goes by: the fair-dice events
    (`check_fair` reads those alone), the Secret rolls revealed, the undos (for the rolls in force per source:
    `sources`), whether a secret purchase or replenishment was revealed (then the log is decided again as its side
    knew it: `redecide.revealed`), the snapshots' events met, how many events and the last one."""

    def __init__(self):
        self.count = 0
        self.snapshots: set[int] = set()
        self.head: tuple[int, str] = (0, "")
        self.fair: list = []
        self.revealed: set[int] = set()
        self.revealing = False
        self.reveals: list[tuple[int, str]] = []  # Secret rolls revealed: (the reveal's action, the roll's source)
        self.voided: set[int] = set()
        self.conditions = Conditions()

    def add(self, event) -> None:
        self.count += 1
        self.head = (event.version, event.digest)
        fact = event.fact
        if fact is None:
            return
        if isinstance(fact, (FairDiceCommitted, FairSeedRevealed)) or (
                isinstance(fact, SecretRollRevealed) and fact.fact.fair is not None):
            self.fair.append(event)
        if isinstance(fact, SecretRollRevealed):
            self.revealed.add(fact.roll)
            self.revealing = self.revealing or fact.fact.effect == "cpp_replenishment"
            if isinstance(fact.fact, DiceRolled):
                self.reveals.append((fact.action, fact.fact.source))
        elif isinstance(fact, RGPurchaseRevealed):
            self.revealing = True
        self.voided.update(voided_by(fact) or ())
        self.conditions.add(event.version, fact)

    def unreplayed(self, fact) -> None:
        """A fact before any CampaignStarted, not replayed: a roll still counts in `sources`."""
        if isinstance(fact, DiceRolled):
            self.reveals.append((fact.action, fact.source))

    def sources(self, rolls_by_action: dict) -> dict[str, int]:
        """Rolls in force per source, as `sources_of` counts them over the whole log: the rolls (`rolls_by_action`)
        and Secret rolls revealed of the actions no undo or rewind voided."""
        counts: dict[str, int] = {}
        for action, rolls in rolls_by_action.items():
            if action not in self.voided:
                for roll in rolls:
                    counts[roll[5]] = counts.get(roll[5], 0) + 1
        for action, source in self.reveals:
            if action not in self.voided:
                counts[source] = counts.get(source, 0) + 1
        return counts


class UsedUp:
    """The due items rolled and in force, as the state kept them before a closed CG Date's items
    are kept with its change, and back if an undo or rewind takes that change back. The state no longer keeps them
    (they grew with the log, in every snapshot): a roll made again on a CG Date opened again is not refused, and the
    audit, which reads the whole log anyway, names it here."""

    def __init__(self):
        self.items: dict[str, tuple[int, int]] = {}  # item -> (event, action)
        self.closed: dict[int, dict[str, tuple[int, int]]] = {}  # the date change's action -> the items before it

    def record(self, fact, version: int) -> int | None:
        """Keeps the fact's item; the event that used it up already, if it is in force (a fair roll's item is used up
        by its declaration, which the roll resolves)."""
        if isinstance(fact, CGDateChanged):
            self.closed[fact.action] = self.items
            self.items = {}
        elif isinstance(fact, RollDeclared) and fact.item:
            self.items.setdefault(fact.item, (version, fact.action))
        elif isinstance(fact, (DiceRolled, SecretRollMade)) and fact.item and fact.fair is None:
            if fact.item in self.items:
                return self.items[fact.item][0]
            self.items[fact.item] = (version, fact.action)
        return None

    def void(self, actions) -> None:
        for action in sorted(actions, reverse=True):
            self.items = {k: v for k, v in self.items.items() if v[1] != action}
            if action in self.closed:
                self.items = self.closed.pop(action)


def unwitnessed_of(state: CampaignState) -> list[tuple[int, str]]:
    """The claims the other side never witnessed (ledger/decide/witness.py), in words."""
    from .decide import witness

    try:
        rules = rulesmod.load(state.system, state.override_sources())
    except LedgerError:
        return [(int(v), f"the dice of event {v} were not witnessed") for v, _c in witness.open_claims(state)]
    sides = dict(rules.system.sides)
    return [(c["event"], f"not witnessed: {witness.describe(c, sides)}") for c in witness.view(state, rules)]


def pending_of(state: CampaignState) -> list[tuple[int, str]]:
    """What the fair-dice and sealed-chit protocols still owe (the unrevealed Secret rolls are listed apart)."""
    out = []
    for entry in sorted(state.declared.values(), key=lambda e: e["version"]):
        what = f"the {entry['side']} side's {'Secret ' if entry['secret'] else ''}fair roll on {entry['table']}"
        if not entry["answered"]:
            out.append((entry["version"], f"{what} was never answered by the other side"))
        elif not entry["made"]:
            out.append((entry["answered"], f"{what} was answered but never made by its side"))
    for version, entry in sorted(state.secret_rgs.items(), key=lambda item: int(item[0])):
        out.append((int(version), f"the {entry['side']} side's RG bought in secret on {entry['cg_date']} was never "
                                  "revealed"))
    for version, entry in sorted(state.hidden.items(), key=lambda item: int(item[0])):
        if entry["sealed"]:  # CGS 7.4.4: set up hidden under its side's key
            out.append((int(version), f"the {entry['side']} side's hidden {entry['item']} was never revealed"))
    for side, chit in sorted(state.sealed_chits.items()):
        if not chit["chit"]:
            out.append((chit["version"], f"the {side} side's sealed Initiative chit was never revealed"))
    return out


def sources_of(logged) -> dict[str, int]:
    """Rolls in force per source: fair dice apart from dice entered, from VASL or rolled by one side's ledger. The
    definition over a whole log; the audit counts the same as it goes (`Kept.sources`)."""
    from .domain.inforce import live

    counts: dict[str, int] = {}
    for event in live(logged):
        fact = event.fact.fact if isinstance(event.fact, SecretRollRevealed) else event.fact
        if isinstance(fact, DiceRolled):
            counts[fact.source] = counts.get(fact.source, 0) + 1
    return counts


def check_snapshot(state: CampaignState, version: int, stored: dict | None, problem: str | None) -> list[str]:
    """A stored snapshot must be the replay's state at its event, attribute by attribute: reads start from it."""
    if problem:
        return [problem]
    if stored is None:  # an older snapshot: its seal and event were checked, the latest is compared whole
        return []
    replayed = comparable({k: v for k, v in vars(state).items() if not k.startswith("_")})
    stored = comparable(stored)
    differing = []
    for key in sorted(set(replayed) | {k for k in stored if not k.startswith("_")}):
        mine = _json(replayed[key] if key in replayed else getattr(CampaignState, key, None))
        theirs = _json(stored[key] if key in stored else getattr(CampaignState, key, None))
        if mine != theirs:
            differing.append(key)
    if differing:
        return [f"the snapshot at event {version} does not match the log's replay ({', '.join(differing)} "
                "differ): it was edited, and reads that start from it would show numbers the log does not hold"]
    return []


def comparable(attributes: dict) -> dict:
    """A state's attributes as a snapshot and the replay are compared: who recorded each action as its runs however
    it is kept (ranges, or packed once its CG Date closed), and the undo record without the used-up due items of
    past CG Dates, which an older snapshot kept there (ledger/domain/evolve.py `_close_date`)."""
    found = dict(attributes)
    found["acts"] = authorship(found.pop("acts_closed", CampaignState.acts_closed),
                               found.pop("acts_sides", CampaignState.acts_sides), found.get("acts", CampaignState.acts))
    reverts = found.get("reverts") or {}
    if any("consumed" in entry for entry in reverts.values()):
        found["reverts"] = {k: {n: v for n, v in e.items() if n != "consumed"} for k, e in reverts.items()}
    return found


def _json(value):
    import msgspec

    return msgspec.json.decode(msgspec.json.encode(value))


class Events:
    """The events the audit reads, in order, decoded one at a time (`Raw` rows: `Loader.rows`), with a look ahead
    (`ahead`: the facts one decision writes together) and what came before (`past`)."""

    def __init__(self, logged):
        self._source = iter(logged)
        self._ahead: deque = deque()  # (as given, decoded)
        self.past = Past()

    def more(self, logged) -> None:
        """Events stored after the last one read: iterated next (`Continued`)."""
        self._source = iter(logged)

    def __iter__(self):
        while True:
            if self._ahead:
                given, event = self._ahead.popleft()
            else:
                given = next(self._source, None)
                if given is None:
                    return
                event = _decoded(given)
            yield event
            self.past.append(given)  # after its own checks: the decisions read the events before it

    def ahead(self):
        """The events after the current one, as far as the caller reads."""
        for given, event in self._ahead:
            yield event
        while True:
            given = next(self._source, None)
            if given is None:
                return
            event = _decoded(given)
            self._ahead.append((given, event))
            yield event


def _decoded(given) -> Logged:
    """`given` read with its request decoded: a stored one that is not a command makes the row damaged."""
    if isinstance(given, Raw):
        return read_logged(given.version, given.topic, given.data, typed=True)
    return with_command(given)


class Raw(NamedTuple):
    """A stored event not decoded yet: its version, stored topic and bytes (as the mapper gives them back)."""
    version: int
    topic: str
    data: bytes


class Past:
    """The events before the one audited, read only by the decisions that need them (placing and revealing read the
    map, a purchase revealed its sealed record): a list of what was given, a `Raw` row decoded again each time it is
    read, so the audit of a long log does not hold every decoded event (~2 KB each against ~1 KB of stored bytes).
    Decoding again costs ~7 µs an event per read: after DECODE_AFTER reads (a log with many map decisions) the past
    is kept decoded, as before the audit streamed, so the audit never costs more than DECODE_AFTER extra decodes
    of the log. Either way the decisions read the same events."""

    DECODE_AFTER = 4

    def __init__(self):
        self._given: list = []
        self._reads = 0

    def append(self, given) -> None:
        if self._reads >= self.DECODE_AFTER:
            given = _decoded(given)
        self._given.append(given)

    def __iter__(self):
        self._reads += 1
        if self._reads == self.DECODE_AFTER:
            self._given = [_decoded(g) for g in self._given]
        return map(_decoded, self._given)

    def __len__(self) -> int:
        return len(self._given)


def roll_key(state: CampaignState, fact: DiceRolled) -> str:
    """The item a roll was for, the same key the decision uses (a unit 'x' and 'x ' are one unit)."""
    from .decide.rolls import reroll_key, unit_name

    try:
        table = rulesmod.load(state.system, state.override_sources()).table(fact.table)
    except LedgerError:
        return f"{fact.table}|{fact.side}|{state.cg_date}|{unit_name(fact.purpose)}"
    return reroll_key(table, fact.side, state.cg_date, fact.purpose, fact.item)


def check_fair(campaign_id, logged, name: str) -> list[tuple[int, str]]:
    """Fair dice, once both seeds are revealed: each seed matches its commitment, each published share
    comes from its seed, and every revealed fair roll's dice are the ones the two seeds give."""
    committed = {e.fact.side: (e.version, e.fact) for e in logged if isinstance(e.fact, FairDiceCommitted)}
    seeds = {e.fact.side: (e.version, bytes.fromhex(e.fact.seed)) for e in logged if isinstance(e.fact, FairSeedRevealed)}
    problems = []
    for side, (version, seed) in seeds.items():
        if side not in committed or seed_commitment(seed) != committed[side][1].commitment:
            problems.append((version, f"the {side} seed revealed does not match its commitment"))
    if len(seeds) < 2 or problems or len(committed) < 2:
        return problems
    for side, (version, fact) in committed.items():
        other = next(s for s in committed if s != side)
        seed = seeds[side][1]
        if any(share(seed, name, other, n) != value for n, value in enumerate(fact.shares, 1)):
            problems.append((version, f"the {side} side's published shares do not come from its seed"))
    for event in logged:
        fact = event.fact
        if isinstance(fact, SecretRollRevealed) and fact.fact.fair is not None:
            rolled = fact.fact
            other = next(s for s in committed if s != rolled.side)
            expected = fair_faces(seeds[rolled.side][1], committed[other][1].shares[rolled.fair - 1], name,
                                  rolled.side, rolled.fair, rolled.die)
            if tuple(expected) != tuple(rolled.dice):
                problems.append((event.version, f"fair roll {rolled.fair} of the {rolled.side} side shows "
                                                f"{list(rolled.dice)}; the seeds give {list(expected)}"))
    return problems


def check_vasl(fact, seen: dict, version: int) -> list[str]:
    """A VASL roll's dice must be the report's (colored die first there), and a report is used once. An import
    (VaslLogImported) keeps all its reports: each is read again from its line and compared (ledger/vasl/bot.py)."""
    from .vasl.bot import audit_fact

    return audit_fact(fact, seen, version)
