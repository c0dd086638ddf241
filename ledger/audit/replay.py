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
from dataclasses import dataclass
from uuid import UUID

from .. import rules as rulesmod
from ..domain.events import TAGS, CampaignStarted, DiceRolled, SecretRollMade, SecretRollRevealed
from ..domain.evolve import CampaignState, begin, snapshot
from ..domain.inforce import voided_by
from ..domain.timeline import kind_words
from ..store.stream import Events
from ..trust import chain
from ..trust.signatures import Signed, Verifier, author_check
from .checks import check_fair, check_snapshot, check_vasl, pending_of, roll_key, side_names, unwitnessed_of
from .tally import Kept, UsedUp

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
    from ..progress import counted

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
        self.replay = Replay(campaign_id, Events(logged, keep=True), dict(snapshots or {}), verifier)
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


_SHARED: dict = {}  # the dice rolled, one tuple per distinct roll (a few dozen)


class Replay:
    """The audit's one pass over the stored events. For each: its envelope (its place, digest and chain), its
    action's number, its author and signature, then its whole action decided again on the state before it (from
    the command stored with it; an older log's from its facts), the re-rolls and VASL reports met on the way; then the
    state evolves by it. `report` adds what only the whole log shows."""

    def __init__(self, campaign_id: UUID, events: "Events", snapshots: dict | None, verifier: Verifier):
        from ..decide import redecide  # here, not at the top: a read never decides

        self.redecide = redecide
        self.campaign_id, self.events, self.snapshots, self.verifier = campaign_id, events, snapshots, verifier
        self.findings: list[Finding | None] = []  # None: a signature being verified (`verifier`), its finding if it fails
        self.state: CampaignState | None = None
        self.expected_prev: str | None = chain.GENESIS
        self.form_before = 1  # the newest envelope form written before: a log never goes back to an older one
        self.expected_version = 1
        self.last_action: int | None = None  # the action of the event before: a later fact of it shares its number
        # action -> its rolls: (event, dice, Original, result, key, source, "family|die|side|CG Date")
        self.rolls_by_action: dict[int, list[tuple[int, tuple, int, str, str, str, str]]] = {}
        self.undone_items: dict[str, tuple] = {}
        self.undone_tables: dict[str, tuple] = {}  # 'family|die|side|CG Date' -> its first roll undone (any unit)
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
        if isinstance(fact, DiceRolled) or isinstance(fact, SecretRollMade) and fact.fair is None and fact.table:
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
        if not chain.command_id_ok(getattr(event, "command", "")):  # as `import` refuses it (exchange/pbem.py)
            self.find(version, "tampered", f"event {version} carries a command id no ledger writes")
        if event.form < self.form_before:  # an older form's digest covers less (form 2 no command): never written after
            self.find(version, "tampered", f"event {version} ({kind_words(event.topic)}) is written in an older form "
                                           "than the events before it, one that leaves its command out: no ledger "
                                           "writes that")
        self.form_before = max(self.form_before, event.form)
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
        if isinstance(fact, DiceRolled) or isinstance(fact, SecretRollRevealed) and isinstance(fact.fact, DiceRolled):
            self.roll_count += 1  # a roll made void is none
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
        """Same dice re-entered after an undo is a correction (of a DRM, a table); new dice are a re-roll: the first
        roll after the undo of the same table (or one of its kind: 8.606/infantry and /vehicle, the same dice), side
        and CG Date, whatever unit it names. A Secret roll not made with fair dice, undone unrevealed, showed no dice:
        any roll of its kind after it is a re-roll. KGP3's Mist Change DR and its Air Support Recall dr are not of one
        kind: a dr never stands for a DR."""
        fact, version, state = event.fact, event.version, self.state
        sealed = isinstance(fact, SecretRollMade)
        key = f"{fact.table}|secret|{version}" if sealed else roll_key(state, fact)
        kind = f"{fact.table.split('/')[0]}|{fact.die}|{fact.side}|{state.cg_date}"
        undone = self.undone_items.pop(key, None)
        if undone is None and kind in self.undone_tables:  # named otherwise, or a table of its kind
            undone = self.undone_tables[kind]
            self.undone_items.pop(undone[4], None)
        if undone is not None:
            if self.undone_tables.get(kind, (None,))[0] == undone[0]:
                del self.undone_tables[kind]
            if undone[1] is None or sealed or undone[1] != tuple(fact.dice):
                self.find(version, "reroll", _rerolled(fact, state.cg_date, undone, side_names(state)(fact.side)))
        dice = None if sealed else _SHARED.setdefault(tuple(fact.dice), tuple(fact.dice))
        self.rolls_by_action.setdefault(fact.action, []).append(  # shared values: a long log's rolls repeat them
            (version, dice, None if sealed else fact.original, "" if sealed else sys.intern(fact.result), key,
             "sealed" if sealed else sys.intern(fact.source), sys.intern(kind)))

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
                self.undone_tables.setdefault(roll[6], roll)

    def whole_log(self, state: CampaignState, findings: list[Finding]) -> None:
        """The fair-dice commitments, a key without chains, the secrets decided again once revealed."""
        findings += [Finding(version, "fair", message)
                     for version, message in check_fair(self.campaign_id, self.kept.fair, state.name)]
        if state.dice_mode == "fair":  # a key without chains would switch fair dice off for both sides
            names = rulesmod.for_campaign(state).system.sides if state.keys else {}
            findings += [Finding(self.expected_version - 1, "fair",
                                 f"the {names.get(side, side)} side holds a key but never committed its fair-dice "
                                 "chains: its ledger's keys init commits them with the key; fair dice cannot be made "
                                 "for or against it until it does")
                         for side in names if side in state.keys and side not in state.chains
                         and not state.keys[side].get("dice")]  # set up before fair dice: it owes them (pending)
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
            name = side_names(state) if state is not None else str
            findings += [Finding(v, "pending", f"at campaign end: the {name(side)} side's Secret roll "
                                               + (f"on {table}" if table else "for an RG bought in secret")
                                               + " was never revealed") for v, table, side in unrevealed]
        return Report(events=kept.count, rolls=self.roll_count, findings=tuple(findings), unrevealed=unrevealed,
                      pending=pending, sources=tuple(sorted(kept.sources(self.rolls_by_action).items())),
                      unwitnessed=unwitnessed, head=kept.head)


def _rerolled(fact, cg_date: str, undone: tuple, side: str) -> str:
    """The re-roll in words: the roll undone (its table where another of its kind, its unit where another, its
    result or that it was sealed) and the roll after it."""
    first_version, dice, original, result, was, *_rest = undone
    table, _sep, rest = was.partition("|")
    unit = rest.rpartition("|")[2] if rest.startswith(f"{fact.side}|{cg_date}|") else ""
    named = " ".join(fact.purpose.split()).casefold()
    other = (f" on {table}" if table != fact.table else "") + (f" for '{unit}'" if unit and unit != named else "")
    was_made = "sealed: its dice never shown" if dice is None else f"Original {original}: {result}"
    now = "sealed" if isinstance(fact, SecretRollMade) else f"Original {fact.original}: {fact.result}"
    purpose = f" for '{fact.purpose}'" if fact.purpose else ""
    return (f"re-rolled after undo: {fact.table} ({side}, {cg_date}{purpose}) was rolled at event {first_version}"
            f"{other} ({was_made}), undone, and rolled again ({now})")
