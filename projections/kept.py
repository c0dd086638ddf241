"""The read views kept current (issue 24 item 6; stored and sealed by ledger/views.py): the roster, the RG record,
the dice and the history's story, each an explicit fold of the log as the projections read it (`effective`):
`build` folds a whole log, `advance` folds only events recorded after it, and each projection's `finish` gives what
the command prints. Pure: the views are JSON-native data.

An event `advance` cannot fold (it changes what earlier events mean) makes the view be built again from the whole
log: an undo, a rewind or an accepted take-back (they void earlier actions), the reveal of a Secret roll or of a
secret RG purchase (it opens an earlier event), rules files (they change the rules every row was read with), a key
registration, an event that cannot be read, any kind of event not named in PLAIN below; and for the story, the end
of a CG Date's RePh (a new map of that date: the maps are folded at each RePh end), or the end of a firefight.
The Setup Areas of a Map Group (`areas`, `map`, the web's map page: one view per Map Group, "areas:St") keep each
Location's Control and each side's HQ as last recorded, the CG Date, the dates whose RePh has ended and the Setup
Areas determined at the last of those ends (8.605-8.6057: their IDs carry over to the next CG Date); a new RePh end
is a step (the map of that date determined once, as projections/areas.areas_by_date does), and `finish_areas`
determines the map as it stands now.
The dice view counts a roll for good once its label is known (projections/dice_stats.py): it relies on key
registrations and reveals (which make claims of earlier rolls) being folded again, and folds witnesses forward."""

from __future__ import annotations

from typing import Any

import msgspec

from cgledger.ledger.events import (
    CampaignStarted, CGDateChanged, ChitRevealed, ChitSealed, CPPGained, DiceChainRenewed, DiceCommitted,
    DiceModeChosen, DiceReported, DiceRolled, DiceWitnessed, FairDiceCommitted, FairSeedRevealed, FortificationPlaced,
    FortificationRemoved, FortificationsPurchased, HiddenFortificationPlaced, HQRecorded, InitiativeChosen, LocationControlled,
    MouseholeMade, RGPurchased, RGPurchaseSealed, RollAnswered, RollDeclared, RollValuePublished, RubblePlaced,
    ScenarioEnded, SecretRollMade, SideAdvanced, StepOpened, TakeBackProposed, VaslLogImported,
)
from cgledger.ledger.inforce import live, voided_actions
from cgledger.ledger.mapping import control_of
from cgledger.ledger.timeline import ends_reph, reph_ends

from . import areas, dice_stats, history, rg_record, roster

NAMES = ("roster", "rg", "dice", "story")
MODULES = ("cgledger.projections.kept", "cgledger.projections.roster", "cgledger.projections.rg_record",
           "cgledger.projections.dice_stats", "cgledger.projections.history", "cgledger.projections.areas",
           "cgledger.projections.terrain", "cgledger.ledger.terrain", "cgledger.ledger.views",
           "cgledger.ledger.timeline", "cgledger.ledger.inforce", "cgledger.ledger.mapping",
           "cgledger.ledger.hexmap")  # the code a view depends on (ledger/views.py)

# Events that only add to what the views show (each folded by `advance`): anything else is folded from the log.
PLAIN = (DiceRolled, DiceReported, SecretRollMade, RGPurchased, RGPurchaseSealed, FortificationsPurchased, CPPGained,
         CGDateChanged, StepOpened, SideAdvanced, ScenarioEnded, InitiativeChosen, LocationControlled, HQRecorded,
         FortificationPlaced, FortificationRemoved, MouseholeMade, RubblePlaced, HiddenFortificationPlaced,
         DiceCommitted, DiceChainRenewed, DiceModeChosen, RollDeclared, RollAnswered, RollValuePublished, ChitSealed,
         ChitRevealed, FairDiceCommitted, FairSeedRevealed, DiceWitnessed, VaslLogImported, TakeBackProposed)


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


def build(name: str, logged, rules) -> dict[str, Any]:
    """The view folded from the whole log (as the projections read it)."""
    if name == "dice":
        return dice_stats.fold(logged)
    if name == "story":
        return history.fold(logged, rules)
    if name.startswith(AREAS):
        return _build_areas(logged, rules, name[len(AREAS):])
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
        if getattr(event.fact, "action", None) in voided:
            continue
        if name.startswith(AREAS):
            _step_areas(view, event.fact, rules, name[len(AREAS):])
        else:
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


def _build_areas(logged, rules, group: str) -> dict[str, Any]:
    """The Setup Areas' view folded from the whole log, by the projection's own functions (areas_as_of)."""
    areas.check_determined(rules, group)
    rules.map_of(group)  # an unknown Map Group, or one whose grid is not loaded: said, nothing kept
    dates = areas.areas_by_date(logged, rules, group)
    control, hq = control_of(logged, group)
    date = None
    for event in live(logged):  # the CG Date as reph_ends reads it
        if isinstance(event.fact, (CampaignStarted, CGDateChanged)):
            date = event.fact.cg_date
    return {"voided": sorted(voided_actions(logged)), "date": date, "ended": list(reph_ends(logged)),
            "control": {str(where): [side, kind] for where, (side, kind) in control.items()}, "hq": hq,
            "previous": areas.areas_out(dates[-1][1]["areas"]) if dates else None}


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
