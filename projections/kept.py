"""The read views kept current (stored and sealed by ledger/read/views.py): the roster, the RG record,
the dice and the history's story, each an explicit fold of the log as the projections read it (`effective`):
`build` folds a whole log, `advance` folds only events recorded after it, and each projection's `finish` gives what
the command prints. Pure: the views are JSON-native data.

An event that changes what earlier events mean (`disturbs`) is folded from a checkpoint, the view as it stood
before the events it changes (`resumes`): an undo, a rewind or an accepted take-back (they void earlier actions), the
reveal of a Secret roll or of a secret RG purchase (it opens an earlier event). Else the view is built again from
the whole log: rules files (they change the rules every row was read with), a key registration, an event that cannot
be read, any kind of event not named in PLAIN below, no checkpoint early enough; and for the story of a system
without Setup Areas (CGS), the end of a firefight or of a RePh (its terrain is folded from the whole log). The
story's maps are determined at each RePh end, as the Setup Areas view determines its own.
The Setup Areas of a Map Group (`areas`, `map`, the web's map page: one view per Map Group, "areas:St") keep each
Location's Control and each side's HQ as last recorded, the CG Date, the dates whose RePh has ended and the Setup
Areas determined at the last of those ends (8.605-8.6057: their IDs carry over to the next CG Date); a new RePh end
is a step (the map of that date determined once, as projections/areas.areas_by_date does), and `finish_areas`
determines the map as it stands now.
The dice view counts a roll for good once its label is known (projections/dice_stats.py): it relies on key
registrations and reveals (which make claims of earlier rolls) being folded again, and folds witnesses forward."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

import msgspec

from cgledger.ledger.domain.events import (
    ActionUndone, CampaignStarted, CGDateChanged, ChitRevealed, ChitSealed, CPPGained, DiceChainRenewed,
    DiceCommitted, DiceModeChosen, DiceReported, DiceRolled, DiceWitnessed, FairDiceCommitted, FairSeedRevealed,
    FortificationPlaced, FortificationRemoved, FortificationsPurchased, HiddenFortificationPlaced, HQRecorded,
    InitiativeChosen, LocationControlled, MouseholeMade, RGPurchased, RGPurchaseSealed, RollAnswered, RollDeclared,
    RollLapsed, RollValuePublished, RubblePlaced, Rewound, RGPurchaseRevealed, ScenarioEnded, SecretRollMade, SecretRollRevealed,
    SideAdvanced, StepOpened, ProposalDeclined, TakeBackProposed, TurnReturned, VaslLogImported,
)
from cgledger.ledger.domain.inforce import in_force, voided_actions, voided_by
from cgledger.ledger.domain.timeline import ends_reph

from . import areas, dice_stats, history, rg_record, roster

NAMES = ("roster", "rg", "dice", "story")
MODULES = ("cgledger.projections.kept", "cgledger.projections.roster", "cgledger.projections.rg_record",
           "cgledger.projections.dice_stats", "cgledger.projections.dice_math", "cgledger.projections.history",
           "cgledger.projections.areas", "cgledger.projections.terrain", "cgledger.ledger.domain.terrain",
           "cgledger.ledger.read.views", "cgledger.ledger.domain.timeline", "cgledger.ledger.domain.inforce",
           "cgledger.ledger.domain.mapping", "cgledger.ledger.rules.hexmap")  # the code a view depends on (ledger/read/views.py)

# Events that only add to what the views show (each folded by `advance`): anything else is folded from the log.
PLAIN = (DiceRolled, DiceReported, SecretRollMade, RGPurchased, RGPurchaseSealed, FortificationsPurchased, CPPGained,
         CGDateChanged, StepOpened, SideAdvanced, ScenarioEnded, InitiativeChosen, LocationControlled, HQRecorded,
         FortificationPlaced, FortificationRemoved, MouseholeMade, RubblePlaced, HiddenFortificationPlaced,
         DiceCommitted, DiceChainRenewed, DiceModeChosen, RollDeclared, RollAnswered, RollLapsed, RollValuePublished, ChitSealed,
         ChitRevealed, FairDiceCommitted, FairSeedRevealed, DiceWitnessed, VaslLogImported, TakeBackProposed,
         ProposalDeclined, TurnReturned)


AREAS = "areas:"  # + a Map Group: the view of its Setup Areas


def names(rules) -> tuple[str, ...]:
    """Every view kept for a campaign with these rules: the four above, and the Setup Areas of each Map Group whose
    grid is loaded when the system determines them (8.605; CGS determines none)."""
    if not any(step.control for step in rules.system.steps):
        return NAMES
    return NAMES + tuple(AREAS + group for group in sorted(rules.maps))


def disturbs(name: str, fact, rules) -> bool:
    """Whether this event (as stored, before reveals are applied) changes what earlier events mean to the view."""
    if fact is None or not isinstance(fact, PLAIN):
        return True
    if name == "story" and not any(step.control for step in rules.system.steps):
        return ends_reph(fact)  # a new RePh end: the terrain as it stands (a system without Setup Areas: CGS)
    return False


class Whole:
    """A whole log as the views' builds read it, with what every build works out of it first (the actions voided,
    the events in force, the last action number, what each undo took back), worked out once for all the views one
    read builds (`history` builds four)."""

    def __init__(self, logged, rules):
        self.logged, self.rules = logged, rules
        self._voided: set[int] | None = None
        self._in_force: list | None = None
        self._what: dict[int, str] | None = None
        self._actions: dict[tuple[int, int], int] = {}

    @property
    def voided(self) -> set[int]:
        if self._voided is None:
            self._voided = voided_actions(self.logged)
        return self._voided

    @property
    def what(self) -> dict[int, str]:
        if self._what is None:
            self._what = history.undone_records(self.logged, self.rules)
        return self._what

    def in_force(self, start: int, stop: int) -> list:
        """The events in force (as `advance` folds them) among logged[start:stop]."""
        if self._in_force is None:
            voided = self.voided
            self._in_force = [i for i, event in enumerate(self.logged) if in_force(event.fact, voided)]
        logged, at = self.logged, self._in_force
        return [logged[i] for i in at[bisect_left(at, start):bisect_left(at, stop)]]

    def actions(self, start: int, stop: int) -> int:
        """The last action number among logged[start:stop] (0: none)."""
        if (start, stop) not in self._actions:
            self._actions[start, stop] = _last_action(self.logged[start:stop])
        return self._actions[start, stop]


def _last_action(logged) -> int:
    last = 0
    for event in logged:
        action = getattr(event.fact, "action", 0)
        if action > last:
            last = action
    return last


def build(name: str, logged, rules, keep: int = 0, whole: Whole | None = None) -> tuple[dict[str, Any], bytes | None]:
    """(the view folded from the whole log (as the projections read it), and with `keep`, the view as it stood after
    the first `keep` events, encoded: a checkpoint to fold again from (`resumes`)). `whole`: the same log as other
    views of this read fold it (what they work out of it is worked out once)."""
    whole = Whole(logged, rules) if whole is None else whole
    voided = sorted(whole.voided)
    if name == "dice":
        view = dice_stats.start(logged, voided)
    elif name == "story":
        view = history.start(logged, rules, voided)
    elif name.startswith(AREAS):
        group = name[len(AREAS):]
        areas.check_determined(rules, group)
        rules.map_of(group)  # an unknown Map Group, or one whose grid is not loaded: said, nothing kept
        view = {"voided": voided, "date": None, "ended": [], **areas.held_init()}
    else:
        view = {"voided": voided, "view": _LIVE[name].init(rules)}
    checkpoint = None
    what = whole.what if name == "story" else None  # what each undo took back
    if keep:
        _advance_whole(name, view, whole, 0, keep, what)
        view["seen"] = logged[-1].version  # its undos and reveals are those of the whole log
        checkpoint = encode(view)
    view = _advance_whole(name, view, whole, keep, len(logged), what)
    return (history.ended(view, logged, rules) if name == "story" else view), checkpoint


def _advance_whole(name: str, view: dict[str, Any], whole: Whole, start: int, stop: int, what) -> dict[str, Any]:
    """`advance` of logged[start:stop] of a whole log whose `voided` the view already holds."""
    logged = whole.logged[start:stop]
    if logged:
        view["actions"] = max(view.get("actions", 0), whole.actions(start, stop))
        view["seen"] = max(view.get("seen", 0), logged[-1].version)
    if name == "dice":
        return dice_stats.resume(view, logged)
    if name == "story":
        return history.resume(view, logged, whole.rules, what)
    return _fold_in_force(name, view, whole.in_force(start, stop), whole.rules)


def advance(name: str, view: dict[str, Any], logged, rules, what: dict[int, str] | None = None) -> dict[str, Any]:
    """The view with these later events folded in, in place: any event `disturbs` does not, and from a checkpoint
    those `resumes` allows. `actions`: the last action number folded so far; `seen`: the last event."""
    newly = voided_actions(logged)
    if newly:
        view["voided"] = sorted(set(view["voided"]) | newly)
    if logged:
        view["actions"] = max(view.get("actions", 0), _last_action(logged))
        view["seen"] = max(view.get("seen", 0), logged[-1].version)
    if name == "dice":
        return dice_stats.resume(view, logged)
    if name == "story":
        return history.resume(view, logged, rules, what)
    voided = set(view["voided"])
    return _fold_in_force(name, view, [e for e in logged if in_force(e.fact, voided)], rules)


def _fold_in_force(name: str, view: dict[str, Any], in_force: list, rules) -> dict[str, Any]:
    """The events in force (inforce.live) folded into the roster, the RG record or a Map Group's Setup Areas."""
    if not name.startswith(AREAS):
        step, state = _LIVE[name].step, view["view"]
        for event in in_force:
            step(state, event.fact, event.version, rules)
        return view
    group = name[len(AREAS):]
    for event in in_force:
        fact = event.fact
        if type(fact) is DiceRolled:
            continue  # no roll sets Control, an HQ, the CG Date or a RePh's end
        if isinstance(fact, CampaignStarted):  # the CG Date as reph_ends reads it
            view["date"] = fact.cg_date
        else:
            _step_areas(view, fact, rules, group)
    return view


def resumes(name: str, checkpoint: dict[str, Any], at: int, event, rules) -> bool:
    """Whether the view kept as it stood at event `at` may fold this later event, which may `disturb` the view: an
    undo or a rewind of actions all recorded after it (its `actions`: the last action number it folded), the reveal
    of a Secret roll or a secret RG purchase recorded after it; or such an event it has already seen (its `seen`:
    the log's last event when it was folded; not for the story, whose undo notes name what the undo took back). A
    key registration, a rules file, CGS's terrain, an unreadable event: never (folded again from the whole log)."""
    fact = event.fact
    if not disturbs(name, fact, rules):
        return True
    if name == "story" and not any(step.control for step in rules.system.steps):
        return False
    done, seen = checkpoint.get("actions"), checkpoint.get("seen", 0)
    if isinstance(fact, (ActionUndone, Rewound)):
        voided = voided_by(fact) or ()
        return (done is not None and min(voided, default=0) > done) or (name != "story" and event.version <= seen)
    if isinstance(fact, SecretRollRevealed):
        return fact.roll > at or event.version <= seen
    if isinstance(fact, RGPurchaseRevealed):
        return fact.purchase > at or event.version <= seen
    return False


def encode(view: dict[str, Any]) -> bytes:
    return msgspec.json.encode(view)


def decode(data: bytes) -> dict[str, Any]:
    return msgspec.json.decode(data)


def finish_roster(view, rules) -> dict[str, list[dict[str, Any]]]:
    return roster.finish(view["view"], rules)


def finish_rg(view, rules) -> dict[str, list[dict[str, Any]]]:
    return rg_record.finish(view["view"], rules)


def _step_areas(view: dict[str, Any], fact, rules, group: str) -> None:
    """One event in force, as control_of and reph_ends read it: a RePh end (the first of its CG Date) determines that
    date's map, whose Setup Area IDs the next determination keeps."""
    if isinstance(fact, CGDateChanged):
        view["date"] = fact.cg_date
    elif not ends_reph(fact):
        areas.track(view, fact, group)
    elif view["date"] and view["date"] not in view["ended"]:
        view["ended"].append(view["date"])
        areas.reph_ended(view, rules, group)


def finish_areas(view: dict[str, Any], rules, group: str) -> dict[str, Any]:
    """The map as determined now (what areas_as_of gives for the whole log)."""
    return areas.determine_held(rules, group, view)


_LIVE = {"roster": roster, "rg": rg_record}
