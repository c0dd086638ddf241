"""The one fold: state + fact -> state. The aggregate applies it on load, the audit and the projections
on replay; nothing else changes a CampaignState. Which actions are in force is known here only through
`voided_by` (ledger/domain/inforce.py), the same function the log readers use."""

from __future__ import annotations

from typing import Any

import copy

import msgspec

from .events import (
    CampaignStarted, CGDateChanged, DiceRolled, Fact, FairDiceCommitted, RGPurchaseRevealed, RollDeclarationRevealed,
    SecretRollMade,
    SecretRollRevealed, SideKeyRegistered, StepOpened, RulesProposed, TablesOverridden, TakeBackProposed,
    DiceWitnessed, ProposalDeclined, ChitRevealed, ChitSealed, DiceChainRenewed, DiceCommitted, RollAnswered, RollLapsed,
    RollValuePublished, TurnReturned, InitiativeChosen,
)
from .events import AnyFact
from .apply import CLAIMED, SCENARIO, apply, claim
from .authorship import PACKED, authorship, owner  # noqa: F401 - authorship: read with the state's fields
from .inforce import voided_by

INITIAL_SCENARIO = "Initial Scenario"
# a side's key and its fair-dice commitments (`keys init`, `fair-dice commit`): no game act, so no proposal lapses on them;
# an undo takes them back only as the last action in force, as a sealed chit. Read so from envelope form SETUP_FORM
# on: an event written before keeps the reading it was written with (there they were a player's act)
SETUP = (SideKeyRegistered, DiceCommitted, FairDiceCommitted)
SETUP_FORM = 3
OWN_UNDO = ("ChitSealed", *(kind.__name__ for kind in SETUP))  # ledger records `undo` takes back themselves


class CampaignState:
    """What the ledger knows of a campaign at one point of its log. Plain JSON-native attributes, replaced
    (never mutated in place) so that undo can put old values back and a snapshot of the aggregate encodes
    them as they are. Attributes added later have class-level defaults, so older snapshots still load."""

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
    fpp: dict[str, float]  # FPP each side may still spend this CG Date (8.621; forfeit with the date)
    fortified: dict[str, int]  # 'side:Setup Area' -> Fortifications counted under 8.621 footnote S
    keys: dict[str, dict[str, str]]  # side -> {salt, check} of its key for Secret rolls
    sealed: dict[str, dict[str, str]]  # SecretRollMade version -> {side, effect} while not revealed
    fair: dict[str, int]  # side -> fair rolls made (fair dice committed: the key is there from the commitment)
    next_action: int
    live: list[list[int]]  # ranges [first, last] of actions in force, oldest first
    reverts: dict[str, dict[str, Any]]  # action -> state values it replaced, for undo
    head: str  # digest of the latest event
    # RGPurchased version -> {side, rg, group_type, pending: [tables due], rolled: {table: n}, strength: code}
    rgs: dict[str, dict[str, Any]] = {}
    consumed: dict[str, list[int]] = {}  # due item (ledger/decide/rolls.py) -> [event, action] that rolled it
    weather: dict[str, str] = {}  # CG Date -> weather result code of its 8.6171 roll (random weather)
    scenarios: list[list[str]] = []  # [CG Date, winner] of each CG-Scenario End in force
    started: int = 1  # CampaignStarted events seen (a second one is refused)
    edition: int = 0  # the reading of the rules the campaign was started under (CampaignStarted.edition)
    reph_ends: dict[str, list[int]] = {}  # CG Date -> [version, action] of the event that ended its RePh
    san: dict[str, int] = {}  # side -> its SAN after its last SAN dr (8.6122, RR 2.5122)
    today: dict[str, int] = {}  # 'table:code:side' of the results rolled this CG Date -> the first action (`after`)
    # who recorded each action: ranges [first action, last action, author side, shared (1) or own act (0)] of the
    # latest actions (at most ACT_RANGES, none before the open CG Date); the actions before them one character each
    # in `acts_closed` (action n at index n - 1): '0' none recorded, else chr(48 + 2 * (1 + index of its author in
    # `acts_sides`) + shared). Ranges of two authors taking turns cost ~20 bytes an action, in every snapshot after
    # it
    acts: list[list[Any]] = []
    acts_closed: str = ""
    acts_sides: list[str] = []
    proposal: dict[str, Any] = {}  # the open TakeBackProposed: version, action, author, kind, voided, cg_date, ...
    commands: list[list[Any]] = []  # [command id, first event, its author] of the latest commands (a retry acts once)
    # fair dice: the mode, each side's commitment {roll_head, answer_head, length, version}, the
    # declarations not settled yet ('side:n' -> {version, action, table, side, n, secret, value, answer, answered,
    # made, drms, purpose, rg, item}); never taken back by an undo, since what was published stays known: the last
    # value published of each chain ('side:roll' -> [k, value]) and each side's fair-roll count (a voided
    # declaration's n is never used again)
    dice_mode: str = "fair"
    chains: dict[str, dict[str, Any]] = {}
    # the chains each side's ledger committed after its first ('side:roll' / 'side:answer' -> [{first, head, length,
    # sealed, version}], oldest first): kept whatever is undone, like the values published from them
    renewed: dict[str, list[dict[str, Any]]] = {}
    declared: dict[str, dict[str, Any]] = {}
    published: dict[str, list[Any]] = {}
    fair_n: dict[str, int] = {}
    sealed_chits: dict[str, dict[str, Any]] = {}  # side -> {version, commitment, sealed, chit} (8.6232)
    # CGS 7.4.4: fortifications set up hidden and not revealed yet: placement event -> {side, item, sealed}
    hidden: dict[str, dict[str, Any]] = {}
    # 8.619: RG bought in secret and not revealed yet: RGPurchaseSealed event -> {side, cg_date}
    secret_rgs: dict[str, dict[str, Any]] = {}
    # once both sides hold keys each side walks the RePh itself (8.6): side -> its own step while ahead of the
    # open step `step` (which waits for the other side), and 'step|effect:side' needs met there (`done` once open)
    ahead: dict[str, str] = {}
    ahead_done: list[str] = []
    # 8.605: each Strategic Location as Control last recorded it: Location -> [side, kind] (kept through changes of
    # Control unless the players clear it)
    strategic: dict[str, list[str]] = {}
    # 8.605: the side each Location's Control was last recorded for -> [side, action] (campaigns of edition 2 on,
    # ledger/decide/steps.py EDITION): the same Control recorded again is no change. An undo takes the Location out
    # (its earlier holder is not kept), so after an undo a record is never refused for want of it
    controlled: dict[str, list[Any]] = {}
    # take-backs by email (ledger/decide/rights.py): the live actions players took, newest last (at most FRAMES),
    # each {action, first, last (its event versions), after: the ledger's own records that followed it, each
    # [action, version, event it completes or 0, the fact]}; [] when not known (an older snapshot): undo then
    # takes the last action in force
    frames: list[dict[str, Any]] = []
    lapsed: dict[str, Any] = {}  # the last proposal that lapsed, with the event that made it lapse and why
    last_by: dict[str, int] = {}  # side -> the last action of an event it authored (undo included)
    irregular: list[Any] = []  # [action, voided actions] of a take-back out of order, which no ledger writes
    # RR 2.521: CG Date -> the sides Attacked in its CG scenario (the other side's chit was Attack; none in the
    # Initial Scenario, for which no side selects an Attack Chit, 2.5221)
    attacked: dict[str, list[str]] = {}
    # witnessed dice (ledger/decide/witness.py): roll event -> [claimant, roller, table, dice, source, action] for dice
    # not rolled fairly once both sides hold keys, until the other side witnesses them (an undo takes the claim out
    # with its roll; a witness takes it out for good, so the state does not grow with the log); roll event ->
    # [disputing side, its DiceWitnessed event, the reason] while disputed (a statement on record: never taken back)
    claims: dict[str, list[Any]] = {}
    disputes: dict[str, list[Any]] = {}

    RECENT_COMMANDS = 64
    ACT_RANGES = 64  # `acts` ranges kept before the older ones are packed into `acts_closed`
    FRAMES = 32

    def begin_action(self) -> int:
        """The number the next act gets (each recorded act is one action)."""
        return self.next_action

    def start(self, fact: CampaignStarted, digest: str, first_step: str, command: str = "") -> None:
        self.name, self.system, self.cg, self.cg_date = fact.name, fact.system, fact.cg, fact.cg_date
        self.options = {"random_weather": fact.random_weather}
        self.edition = fact.edition
        self.step, self.initial, self.scenario, self.done = first_step, first_step != SCENARIO, INITIAL_SCENARIO, []
        self.flags, self.overrides = [], []
        self.cpp = dict(fact.start_cpp)
        self.lvp, self.chits, self.bought, self.bought_today = {}, {}, {}, {}
        self.fpp, self.fortified = {}, {}
        self.keys, self.sealed, self.fair = {}, {}, {}
        self.rgs, self.consumed, self.weather, self.scenarios = {}, {}, {}, []
        self.started, self.today, self.reph_ends, self.san = 1, {}, {}, {}
        self.next_action = 1
        self.live, self.reverts = [], {}
        self.acts, self.proposal, self.commands = [], {}, [[command, 1]] if command else []
        self.head = digest

    # ---- evolve: state + event -> state -----------------------------------------------------
    def evolve(self, fact: Fact, digest: str, version: int, author: str = "", command: str = "",
               form: int = 1) -> None:
        """`form`: the event's envelope form (ledger/trust/chain.py), which decides how some facts are read."""
        self.head = digest
        if command and (not self.commands or self.commands[-1][0] != command):
            self.commands = (self.commands + [[command, version, author]])[-self.RECENT_COMMANDS:]
        if isinstance(fact, CampaignStarted):
            self.started += 1  # a second one changes nothing else: the audit names it
            return
        if author:
            self.last_by = {**self.last_by, author: fact.action}  # type: ignore[attr-defined]
        voided = voided_by(fact)
        if isinstance(fact, (DiceWitnessed, ProposalDeclined, TakeBackProposed, RulesProposed, TurnReturned)):
            self._said(fact, version, author)
        elif voided is not None:
            if self.proposal and self.proposal["version"] != getattr(fact, "proposal", 0):
                self._lapse(version, "takeback")
            self.proposal = {}
            self._take_back(fact, voided)
        else:
            self._acted(fact, version, author, form)
        self.next_action = max(self.next_action, fact.action + 1)  # type: ignore[attr-defined]

    def _said(self, fact: DiceWitnessed | ProposalDeclined | TakeBackProposed | RulesProposed, version: int,
              author: str) -> None:
        """A statement on record: dice witnessed or disputed, a proposal made or declined. No action in force, and
        no proposal lapses on it; a proposal stands until accepted, declined, or a player's act is recorded."""
        if isinstance(fact, TurnReturned):
            return  # a receipt: its author holds the log up to it (`last_by`), nothing else changes
        if isinstance(fact, DiceWitnessed):
            named = {str(r) for r in fact.rolls}
            if fact.disputed:
                self.disputes = {**self.disputes, **{r: [fact.side, version, fact.disputed] for r in named}}
            else:
                self.claims = {k: v for k, v in self.claims.items() if k not in named}
                if named & set(self.disputes):
                    self.disputes = {k: v for k, v in self.disputes.items() if k not in named}
        elif isinstance(fact, ProposalDeclined):  # said once: the proposal is over
            if self.proposal and self.proposal["version"] == fact.proposal:
                self._lapse(version, "declined")
        elif isinstance(fact, TakeBackProposed):
            self.proposal = {"version": version, "action": fact.action, "author": author, "kind": fact.kind,
                             "voided": list(fact.voided), "cg_date": fact.cg_date, "to_version": fact.to_version,
                             "reason": fact.reason}
            self.lapsed = {}
        else:
            self.proposal = {"version": version, "action": fact.action, "author": author, "kind": "rules",
                             "source": fact.source, "text": fact.text, "tables": list(fact.tables), "reason": ""}
            self.lapsed = {}

    def _acted(self, fact: Fact, version: int, author: str, form: int) -> None:
        """A fact in force: a player's act, or a record the ledger's protocols make (`_automatic`)."""
        setup = form >= SETUP_FORM and isinstance(fact, SETUP)
        automatic, completes = (True, 0) if setup else self._automatic(fact)
        self._mark_live(fact.action)  # type: ignore[attr-defined]
        self._authored(fact.action, author, owner(fact) != author)  # type: ignore[attr-defined]
        apply(self, fact, version)
        if isinstance(fact, DiceRolled) and fact.source in CLAIMED and self.both_keyed():
            self._add_key(fact.action, "claims", str(version), claim(author or fact.side, fact))
        self._track(fact, version, automatic, completes)
        player = not setup and (not automatic or not self.frames
                                or self.frames[-1]["action"] == fact.action)  # type: ignore[attr-defined]
        if player and self.lapsed and author == self.lapsed["author"] and version > self.lapsed["lapsed_by"]:
            self.lapsed = {}  # its proposer has acted since
        if self.proposal and isinstance(fact, TablesOverridden) and fact.proposal == self.proposal["version"]:
            self.proposal = {}  # accepted: carried out, neither open nor lapsed
        elif self.proposal:
            if player:
                self._lapse(version, "act")
            elif self.proposal["kind"] == "undo" and \
                    self.undo_target(self.proposal["version"])[0] != self.proposal["voided"][0]:
                self._lapse(version, "completes")

    # ---- take-backs by email: which records are the ledger's own, and undo past them ---------------------
    def _automatic(self, fact: Fact) -> tuple[bool, int]:
        """Whether a fact is one of the records the protocols make, not a player's act (a fair roll's answer and
        its dice, a Secret roll made for its declaration, a reveal, a roll value published, a chit sealed or
        revealed), and the event it completes (0: none). Decided before the fact is applied."""
        if isinstance(fact, (RollAnswered, RollLapsed)):
            return True, fact.declared
        if isinstance(fact, DiceChainRenewed):  # the ledger's own, made when a chain nears its end
            return True, 0
        if isinstance(fact, DiceRolled) and fact.source == "fair":
            return True, self.declared.get(f"{fact.side}:{fact.fair}", {}).get("version", 0)
        if isinstance(fact, (SecretRollMade, RollValuePublished)):
            key = f"{fact.side}:{fact.fair if isinstance(fact, SecretRollMade) else fact.n}"
            if key in self.declared:
                return True, self.declared[key]["version"]
            return isinstance(fact, RollValuePublished), 0
        if isinstance(fact, SecretRollRevealed):
            return True, fact.roll
        if isinstance(fact, RGPurchaseRevealed):
            return True, fact.purchase
        if isinstance(fact, RollDeclarationRevealed):
            return True, fact.declared
        if isinstance(fact, ChitRevealed):
            return True, self.sealed_chits.get(fact.side, {}).get("version", 0)
        if isinstance(fact, InitiativeChosen) and self.edition >= 4 and len(self.sealed_chits) >= 2 \
                and all(c.get("chit") for c in self.sealed_chits.values()):
            return True, 0  # the matrix resolved by the ledger as the last sealed chit is revealed (8.6232)
        if isinstance(fact, ChitSealed):  # sealed in the step the last act opened: it completes that move
            top = self.frames[-1] if self.frames else None
            return True, top["first"] if top is not None and top.get("step") else 0
        return False, 0

    def _track(self, fact: Fact, version: int, automatic: bool, completes: int) -> None:
        """Keeps `frames`: a player's act opens a frame; the ledger's own records after it are kept with it, so that
        an undo of that act can void it and apply them again (`_take_back`)."""
        a = fact.action  # type: ignore[attr-defined]
        frames = self.frames
        top = frames[-1] if frames else None
        moves = isinstance(fact, (StepOpened, CGDateChanged))  # a step: a chit sealed in it completes it
        if top is not None and top["action"] == a:  # one more fact of the act
            self.frames = frames[:-1] + [{**top, "last": version, **({"step": True} if moves else {})}]
        elif automatic:
            if top is not None:
                entry = [a, version, completes, msgspec.to_builtins(fact)]
                self.frames = frames[:-1] + [{**top, "after": top["after"] + [entry]}]
        else:
            first = version
            if top is not None and any(e[0] == a for e in top["after"]):  # a record of the ledger's, then an act
                first = min(e[1] for e in top["after"] if e[0] == a)
                frames = frames[:-1] + [{**top, "after": [e for e in top["after"] if e[0] != a]}]
            frame = {"action": a, "first": first, "last": version, "after": [], **({"step": True} if moves else {})}
            self.frames = (frames + [frame])[-self.FRAMES:]

    def undo_target(self, proposed_at: int = 0) -> tuple[int | None, str]:
        """(the action an undo takes back, why none): the last action in force a player took. The ledger's own
        records after it stay in force (an undo never takes back a fair roll's answer), unless one of them
        completes that act (its roll's answer, its Secret roll made or revealed, its purchase or chit revealed):
        then there is none. A sealed Initiative chit that is the last action in force is taken back itself (its
        side may choose again until it is revealed), and so is a key or fair-dice commitment (`SETUP`); for the
        acceptance of a proposal made at event `proposed_at`, only where it was recorded before the proposal (a
        proposal made before it stays open, for the act it named). Without frames (an older snapshot), the last
        action in force."""
        last = self.last_live_action()
        if last is None:
            return None, "nothing to undo: no action of this campaign is still in force"
        top = self.frames[-1] if self.frames else None
        if top is None or top["action"] == last:
            return last, ""
        if all(e[3]["type"] in OWN_UNDO and (not proposed_at or e[1] < proposed_at)
               for e in top["after"] if e[0] == last):
            return last, ""
        if self.live_actions_after(top["action"]) != sorted({e[0] for e in top["after"]}):
            return last, ""  # not what the frames say (a take-back the audit names): the last action in force
        mine = range(top["first"], top["last"] + 1)
        done = next((e for e in top["after"] if e[2] in mine), None)
        if done is None:
            return top["action"], ""
        kind = done[3]["type"]
        if kind in ("RollAnswered", "DiceRolled"):
            why = (f"the fair roll declared at event {done[2]} was answered at event {done[1]}, and an undo never "
                   "takes back a fair roll's dice")
        elif kind == "SecretRollMade":
            why = f"the Secret roll declared at event {done[2]} was made at event {done[1]}"
        elif kind == "ChitSealed":
            why = f"an Initiative chit was sealed at event {done[1]} in the step it opened"
        else:
            why = f"event {done[2]} was revealed at event {done[1]}, and what was published stays known"
        return None, (f"cannot undo the last action a player took (event {top['first']}): {why} (`cgledger rewind "
                      "DATE` goes back to a CG Date's RePh end)")

    def command_group(self, action: int) -> tuple[int, ...]:
        """The acts the command that made `action` (the last act a player took, nothing of the ledger's after it)
        recorded just before it, by the same author and in force: one undo takes a command made of parts back whole
        (`buy --follow-ups` walks, buys and declares each follow-up as an act of its own, the parts' ids '#n' after
        the command's). The ids of the latest commands are kept (`commands`). A command of acts that are each a whole
        (a VASL import's files) is taken back one act at a time."""
        frames = self.frames
        if not frames or frames[-1]["action"] != action or frames[-1]["after"]:
            return ()

        def command(frame) -> str:  # the id in force at its first event: ids are kept as they change
            return next((c[0] for c in reversed(self.commands) if c[1] <= frame["first"]), "")

        last = command(frames[-1])
        mine, author = last.partition("#")[0] if "#" in last else "", self.act(action)
        group: list[int] = []
        for frame in reversed(frames[:-1]):
            if not mine or frame["after"] or frame["action"] != (group[0] if group else action) - 1 \
                    or command(frame).partition("#")[0] != mine or self.act(frame["action"]) != author:
                break
            group.insert(0, frame["action"])
        return tuple(group)

    def _take_back(self, fact: Fact, voided: tuple[int, ...]) -> None:
        """Voids the actions. An undo of the last act a player took that the ledger's own records followed voids it
        and applies those records again, as if it had never been (the state the log without it folds to)."""
        frames = self.frames
        top = frames[-1] if frames else None
        last = self.last_live_action()
        if (len(voided) == 1 and top is not None and top["action"] == voided[0] != last and top["after"]
                and self.live_actions_after(voided[0]) == sorted({e[0] for e in top["after"]})):
            after = sorted({e[0] for e in top["after"]}, reverse=True)
            for action in after:
                self._revert(action)
            self._void(voided[0])
            for entry in top["after"]:
                apply(self, msgspec.convert(entry[3], AnyFact), entry[1])
            frames = frames[:-1]
            if frames:
                self.frames = frames[:-1] + [{**frames[-1], "after": frames[-1]["after"] + top["after"]}]
            else:
                self.frames = []
            return
        suffix = set(voided) >= set(self.live_actions_after(min(voided) - 1))
        for action in sorted(voided, reverse=True):
            self._void(action)
        if not suffix:
            self.frames = []  # not a take-back the ledger makes (the audit names it): the frames are not known
            # its values are put back as they stood before the voided action, later actions' changes with them, so
            # the state's totals can differ from the projections' (which replay what is in force): said on every read
            self.irregular = [self.next_action, sorted(voided)]
            return
        frames = [f for f in frames if f["action"] not in voided]
        if frames:
            frames = frames[:-1] + [{**frames[-1], "after": [e for e in frames[-1]["after"] if e[0] not in voided]}]
        self.frames = frames

    def _lapse(self, version: int, cause: str) -> None:
        """The open proposal lapses at event `version`: 'act' (a player's act recorded after it), 'completes' (a
        record completes the act it takes back), 'takeback' (another undo or rewind)."""
        kept = {k: v for k, v in self.proposal.items() if k != "text"}
        self.lapsed = {**kept, "lapsed_by": version, "cause": cause}
        self.proposal = {}

    def both_keyed(self) -> bool:
        """Both sides hold signing keys: dice the ledger did not see made fairly are then a claim."""
        return sum(1 for key in self.keys.values() if key.get("public")) >= 2

    def fair_in_force(self, sides) -> bool:
        """Fair dice are the rule: both sides hold keys and the campaign chose no other mode. A side that holds a
        key and never committed its chains does not switch them off: the ledger's own dice stay refused, its fair
        rolls wait for the commitment, and the audit names it (a cheating copy could otherwise choose every die)."""
        return self.dice_mode == "fair" and all(s in self.keys for s in sides)

    def _add_cpp(self, action: int, side: str, amount: int) -> None:
        self._set(action, "cpp", {**self.cpp, side: self.cpp.get(side, 0) + amount})

    def _set(self, action: int, attribute: str, value: Any) -> None:
        """Every change goes through here: the first old value per action is kept for undo."""
        self.reverts.setdefault(str(action), {}).setdefault(attribute, getattr(self, attribute))
        setattr(self, attribute, value)

    def _add_key(self, action: int, attribute: str, key: str, value: Any) -> None:
        """Adds one key to a dict that only grows, the value naming the action (last item): undo takes out the
        keys of the action it voids, so no copy is kept per action (a copy per action made snapshots and loads
        grow with the square of the log)."""
        self._own(attribute)
        getattr(self, attribute)[key] = value  # the dict is this state's own (copied on load and by snapshot())

    def _own(self, attribute: str) -> None:
        if attribute not in self.__dict__:  # a state from an older snapshot: its own dict, not the class default
            setattr(self, attribute, dict(getattr(self, attribute)))

    def _authored(self, action: int, author: str, shared: bool) -> None:
        """Who recorded the action; an action with any shared fact (or one not the author's own) is shared. Kept
        as ranges: consecutive actions of one author and kind share one."""
        if "acts" not in self.__dict__:
            self.acts = [list(r) for r in self.acts]
        acts = self.acts
        if acts and acts[-1][1] == action:
            if acts[-1][2] != author or (shared and not acts[-1][3]):
                acts[-1][1] = action - 1
                if acts[-1][1] < acts[-1][0]:
                    acts.pop()
                acts.append([action, action, author, 1])
            return
        if acts and acts[-1][1] == action - 1 and acts[-1][2] == author and acts[-1][3] == int(shared):
            acts[-1][1] = action
        else:
            acts.append([action, action, author, int(shared)])
            if len(acts) > self.ACT_RANGES:
                self._pack_acts(action)

    def act(self, action: int) -> tuple[str, bool]:
        """(author, shared) of an action."""
        from bisect import bisect_right

        if 0 < action <= len(self.acts_closed):
            code = ord(self.acts_closed[action - 1]) - PACKED
            return (self.acts_sides[code // 2 - 1], bool(code % 2)) if code else ("", True)
        index = bisect_right([r[0] for r in self.acts], action) - 1
        if index >= 0 and self.acts[index][0] <= action <= self.acts[index][1]:
            return self.acts[index][2], bool(self.acts[index][3])
        return "", True

    def _close_date(self, action: int) -> None:
        """A CG Date closes (CGDateChanged, `action`): what it no longer needs leaves the state, so that the state
        (and each snapshot, which holds it whole) does not grow with the log.
        - Its used-up due items (`consumed`): every due item names its CG Date or an RG of it (ledger/decide/rolls.py),
          so none is due again on a later date. They are not kept for undo either: an undo of this CG Date change
          (or a rewind across it) opens the date again without them, so a roll already made there is not refused
          again: the audit, which reads the whole log, names it (ledger/audit/tally.py `UsedUp`). Kept, they were one entry
          per roll of every past CG Date in the state. What an undo needs to decide anything as before (`today`, which
          automatic DRMs and 'after' tables read, the RG follow-ups, the FPP, the chits) stays in its revert.
        - Who recorded each action before it (`acts`): packed, one character an action (`act` reads both).
        A state from an older snapshot held the used-up items of each past CG Date in that date change's revert:
        they leave it here too."""
        self.consumed = {}
        if any("consumed" in entry for entry in self.reverts.values()):
            self.reverts = {k: {n: v for n, v in entry.items() if n != "consumed"} if "consumed" in entry else entry
                            for k, entry in self.reverts.items()}
        self._pack_acts(action)

    def _pack_acts(self, action: int) -> None:
        """The authors of the actions before `action` into `acts_closed`; the ranges from `action` on stay."""
        sides, packed, kept = list(self.acts_sides), [self.acts_closed], []
        length = len(self.acts_closed)
        for first, last, author, shared in self.acts:
            if first >= action:
                kept.append([first, last, author, shared])
                continue
            if author not in sides:
                sides.append(author)
            code = PACKED + 2 * (1 + sides.index(author)) + (1 if shared else 0)
            if code >= ord("\\") or first <= length:  # more authors than plain characters, or not after the packed
                return
            upto = min(last, action - 1)
            packed.append(chr(PACKED) * (first - 1 - length) + chr(code) * (upto - first + 1))
            length = upto
            if last >= action:
                kept.append([action, last, author, shared])
        if length < action - 1:
            packed.append(chr(PACKED) * (action - 1 - length))
        self.acts_closed, self.acts_sides, self.acts = "".join(packed), sides, kept

    def recorded(self, command: str) -> int | None:
        """The first event of a recent command, if it is recorded."""
        return next((entry[1] for entry in self.commands if entry[0] == command), None)

    def recorded_by(self, command: str) -> str | None:
        """The side whose key signed a recent command's first event ('' unsigned; None if not recorded or kept
        before authors were)."""
        return next(((entry[2] if len(entry) > 2 else None) for entry in self.commands if entry[0] == command), None)

    def _mark_live(self, action: int) -> None:
        if self.live and self.live[-1][1] >= action:
            return
        if self.live and self.live[-1][1] == action - 1:
            self.live[-1] = [self.live[-1][0], action]
        else:
            self.live.append([action, action])

    def _void(self, action: int) -> None:
        self._unlive(action)
        self._revert(action)

    def _unlive(self, action: int) -> None:
        ranges = []
        for first, last in self.live:
            if first <= action <= last:
                ranges += [r for r in ([first, action - 1], [action + 1, last]) if r[0] <= r[1]]
            else:
                ranges.append([first, last])
        self.live = ranges

    def _revert(self, action: int) -> None:
        """Puts back what the action changed (it stays in force: `_unlive` takes it out)."""
        for attribute in ("consumed", "today", "claims", "controlled"):
            added = getattr(self, attribute)
            gone = [k for k, v in added.items() if (v[-1] if isinstance(v, list) else v) == action]
            if gone:
                self._own(attribute)
                for key in gone:
                    getattr(self, attribute).pop(key)
        for attribute, value in self.reverts.pop(str(action), {}).items():
            setattr(self, attribute, value)

    # ---- questions ---------------------------------------------------------------------------
    def last_live_action(self) -> int | None:
        return self.live[-1][1] if self.live else None

    def live_actions_after(self, action: int) -> list[int]:
        return [a for first, last in self.live for a in range(max(first, action + 1), last + 1)]

    def override_sources(self) -> tuple[tuple[str, str], ...]:
        return tuple((source, text) for source, text in self.overrides)

    def bought_today_by(self, side: str, rg: str) -> bool:
        return any(k.startswith(f"{side}:{rg}:") and n for k, n in self.bought_today.items())

    def attacked_before(self, side: str) -> bool | None:
        """RR 2.521: whether the side was Attacked in the CG scenario before this CG Date's (None: none was played)."""
        before = [date for date, _winner in self.scenarios if date != self.cg_date]
        return side in self.attacked.get(before[-1], []) if before else None

    def winner_on(self, cg_date: str) -> str | None:
        """The winner of that CG Date's scenario, once its CG-Scenario End is recorded."""
        return next((w for d, w in reversed(self.scenarios) if d == cg_date), None)


def first_step(system: str) -> str:
    """A new campaign opens on the first † step (the only steps before an Initial Scenario, 8.6)."""
    from .. import rules

    steps = rules.load(system).system.steps
    return next((s.id for s in steps if "†" in s.markers), SCENARIO)


def begin(fact: CampaignStarted, digest: str, command: str = "") -> CampaignState:
    state = CampaignState()
    state.start(fact, digest, first_step(fact.system), command)
    return state


def fold(logged) -> CampaignState | None:
    """The state after the given events (as read back from the store)."""
    state = None
    for event in logged:
        if event.fact is None:
            continue
        if state is None:
            if isinstance(event.fact, CampaignStarted):
                state = begin(event.fact, event.digest, event.command)
        else:
            state.evolve(event.fact, event.digest, event.version, event.author, event.command, event.form)
    return state


def snapshot(state: CampaignState) -> CampaignState:
    """A copy that later folds cannot reach (attributes are replaced, never changed, except `live`, the
    dicts keys are added to and taken from in place (`_add_key`, `_revert`) and the undo record)."""
    copied = copy.copy(state)
    copied.live = [list(r) for r in state.live]
    copied.reverts = dict(state.reverts)
    copied.consumed, copied.today = dict(state.consumed), dict(state.today)
    copied.claims, copied.controlled = dict(state.claims), dict(state.controlled)
    copied.acts = [list(r) for r in state.acts]
    return copied
