"""The read views kept current (issue 24 item 6; stored and sealed by ledger/views.py): the roster, the RG record,
the dice and the history's story, each an explicit fold of the log as the projections read it (`effective`):
`build` folds a whole log, `advance` folds only events recorded after it, and each projection's `finish` gives what
the command prints. Pure: the views are JSON-native data.

An event `advance` cannot fold (it changes what earlier events mean) makes the view be built again from the whole
log: an undo, a rewind or an accepted take-back (they void earlier actions), the reveal of a Secret roll or of a
secret RG purchase (it opens an earlier event), rules files (they change the rules every row was read with), a key
registration, an event that cannot be read, any kind of event not named in PLAIN below; and for the story, the end
of a CG Date's RePh (a new map of that date: the maps are folded at each RePh end), or the end of a firefight.
The dice view counts a roll for good once its label is known (projections/dice_stats.py): it relies on key
registrations and reveals (which make claims of earlier rolls) being folded again, and folds witnesses forward."""

from __future__ import annotations

from typing import Any

import msgspec

from cgledger.ledger.evolve import SCENARIO
from cgledger.ledger.events import (
    CGDateChanged, ChitRevealed, ChitSealed, CPPGained, DiceChainRenewed, DiceCommitted, DiceModeChosen, DiceReported,
    DiceRolled, DiceWitnessed, FairDiceCommitted, FairSeedRevealed, FortificationPlaced, FortificationRemoved,
    FortificationsPurchased, HiddenFortificationPlaced, HQRecorded, InitiativeChosen, LocationControlled,
    MouseholeMade, RGPurchased, RGPurchaseSealed, RollAnswered, RollDeclared, RollValuePublished, RubblePlaced,
    ScenarioEnded, SecretRollMade, SideAdvanced, StepOpened, TakeBackProposed, VaslLogImported,
)
from cgledger.ledger.inforce import live, voided_actions
from cgledger.ledger.timeline import IDLE_DAY

from . import dice_stats, history, rg_record, roster

NAMES = ("roster", "rg", "dice", "story")
MODULES = ("cgledger.projections.kept", "cgledger.projections.roster", "cgledger.projections.rg_record",
           "cgledger.projections.dice_stats", "cgledger.projections.history", "cgledger.projections.areas",
           "cgledger.projections.terrain", "cgledger.ledger.terrain", "cgledger.ledger.views",
           "cgledger.ledger.timeline", "cgledger.ledger.inforce")  # the code a view depends on (ledger/views.py)

# Events that only add to what the views show (each folded by `advance`): anything else is folded from the log.
PLAIN = (DiceRolled, DiceReported, SecretRollMade, RGPurchased, RGPurchaseSealed, FortificationsPurchased, CPPGained,
         CGDateChanged, StepOpened, SideAdvanced, ScenarioEnded, InitiativeChosen, LocationControlled, HQRecorded,
         FortificationPlaced, FortificationRemoved, MouseholeMade, RubblePlaced, HiddenFortificationPlaced,
         DiceCommitted, DiceChainRenewed, DiceModeChosen, RollDeclared, RollAnswered, RollValuePublished, ChitSealed,
         ChitRevealed, FairDiceCommitted, FairSeedRevealed, DiceWitnessed, VaslLogImported, TakeBackProposed)


def disturbs(name: str, fact) -> bool:
    """Whether this event (as stored, before reveals are applied) changes what earlier events mean to the view."""
    if fact is None or not isinstance(fact, PLAIN):
        return True
    if name == "story":  # a new RePh end: the maps of that CG Date (timeline.reph_ends)
        return (isinstance(fact, StepOpened) and fact.step == SCENARIO) or (
            isinstance(fact, InitiativeChosen) and fact.scenario == IDLE_DAY)
    return False


def build(name: str, logged, rules) -> dict[str, Any]:
    """The view folded from the whole log (as the projections read it)."""
    if name == "dice":
        return dice_stats.fold(logged)
    if name == "story":
        return history.fold(logged, rules)
    module = _LIVE[name]
    view = module.init(rules)
    for event in live(logged):
        module.step(view, event.fact, event.version, rules)
    return {"voided": sorted(voided_actions(logged)), "view": view}


def advance(name: str, view: dict[str, Any], logged, rules) -> dict[str, Any]:
    """The view with these later events folded in (none of them `disturbs` it), in place."""
    if name == "dice":
        for event in logged:
            dice_stats.step(view, event.fact, event.version)
        return view
    if name == "story":
        for event in logged:
            history.step(view, event.fact, event.version, rules)
        return view
    voided = set(view["voided"])
    for event in logged:
        if getattr(event.fact, "action", None) not in voided:
            _LIVE[name].step(view["view"], event.fact, event.version, rules)
    return view


def encode(view: dict[str, Any]) -> bytes:
    return msgspec.json.encode(view)


def decode(data: bytes) -> dict[str, Any]:
    return msgspec.json.decode(data)


def finish_roster(view, rules) -> dict[str, list[dict[str, Any]]]:
    return roster.finish(view["view"], rules)


def finish_rg(view, rules) -> dict[str, list[dict[str, Any]]]:
    return rg_record.finish(view["view"], rules)


_LIVE = {"roster": roster, "rg": rg_record}
