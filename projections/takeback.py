"""A take-back proposal as `status` shows it to both sides: who proposed what, what it takes back in
plain words, the command the other side runs, and, once it lapsed, why. The rights themselves are decided in
ledger/decide/rights.py; this only words them."""

from __future__ import annotations

from cgledger.ledger.decide.rights import CAUSES
from cgledger.ledger.domain.wording import item_name, proposal_lines as lines  # noqa: F401 - status's text, here before
from cgledger.ledger.domain.events import (
    ActionUndone, ChitRevealed, ChitSealed, CGDateChanged, CPPGained, DiceChainRenewed, DiceCommitted,
    DiceModeChosen, DiceRolled, FairDiceCommitted, FairSeedRevealed, FirefightEnded, FortificationPlaced,
    FortificationRemoved, FortificationsPurchased, HiddenFortificationPlaced, HiddenFortificationRevealed,
    HQRecorded, InitiativeChosen, LocationControlled, MouseholeMade, ProposalDeclined, TurnReturned, Rewound, RGPurchased,
    RGPurchaseRevealed, RGPurchaseSealed, RollAnswered, RollDeclarationRevealed, RollDeclared, RollLapsed,
    RollValuePublished, RubblePlaced, ScenarioEnded, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered, StepOpened, TablesOverridden,
)

ACCEPT = "cgledger accept"
DECLINE = "cgledger decline"


def words(fact, sides: dict[str, str]) -> str:
    """What one recorded fact is, in a few plain words."""
    worded = _WORDS.get(type(fact)) or _WORDS.get(type(fact).__name__)  # the VASL import's fact: by its name
    return worded(fact, _Side(sides)) if worded is not None else "a record"


class _Side:
    """'the U.S. side': a side's name as the words say it."""

    def __init__(self, sides: dict[str, str]):
        self.sides = sides

    def __call__(self, name: str) -> str:
        return f"the {self.sides.get(name, name)} side"


def _location_controlled(fact, side: _Side) -> str:
    kind = f" (Strategic Location, {fact.strategic})" if fact.strategic else ""
    return f"Control of {fact.location} by {side(fact.side)}{kind}"


def _hq_recorded(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s HQ in {fact.location}"


def _cg_date_changed(fact, side: _Side) -> str:
    return f"the new CG Date {fact.cg_date}"


def _step_opened(fact, side: _Side) -> str:
    return "the move to the CG scenario" if fact.step == "scenario" else f"the move to step {fact.step}"


def _side_advanced(fact, side: _Side) -> str:
    return (f"{side(fact.side)}'s walk to the CG scenario" if fact.step == "scenario"
            else f"{side(fact.side)}'s walk on to step {fact.step}")


def _scenario_ended(fact, side: _Side) -> str:
    lvp = ", ".join(f"{side.sides.get(s, s)} {n}" for s, n in fact.lvp.items())
    return f"the CG-Scenario End (Current-LVP {lvp})"


def _initiative_chosen(fact, side: _Side) -> str:
    return f"Initiative ({fact.scenario})"


def _dice_rolled(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s roll on {fact.table} ({fact.die} {','.join(map(str, fact.dice))}: {fact.result})"


def _on(fact) -> str:
    return f"on {fact.table}" if fact.table else "for its RG bought in secret"  # veiled (8.619)


def _roll_declared(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s {'Secret ' if fact.secret else ''}fair roll {_on(fact)}"


def _roll_answered(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s answer to the fair roll of event {fact.declared}"


def _roll_lapsed(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s fair roll of event {fact.declared}, lapsed"


def _secret_roll_made(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s Secret roll {_on(fact)}"


def _secret_roll_revealed(fact, side: _Side) -> str:
    return f"the reveal of the Secret roll of event {fact.roll}"


def _roll_value_published(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s fair roll value {fact.n} published"


def _rg_purchased(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s purchase of RG {fact.rg}"


def _rg_purchase_sealed(fact, side: _Side) -> str:
    return f"an RG bought in secret by {side(fact.side)}"


def _rg_purchase_revealed(fact, side: _Side) -> str:
    return f"the reveal of the secret RG purchase of event {fact.purchase}"


def _declaration_revealed(fact, side: _Side) -> str:
    return f"the reveal of the sealed roll declaration of event {fact.declared}"


def _fortifications_purchased(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s purchase of {fact.count} {item_name(fact.item)}"


def _fortification_placed(fact, side: _Side) -> str:
    where = f" in {fact.hex}" if isinstance(fact, FortificationPlaced) else " (hidden)"
    return f"{side(fact.side)}'s {item_name(fact.item)} placed{where}"


def _hidden_fortification_revealed(fact, side: _Side) -> str:
    return f"the reveal of the hidden fortification of event {fact.placed}"


def _fortification_removed(fact, side: _Side) -> str:
    return f"the removal of {side(fact.side)}'s {item_name(fact.item)} in {fact.hex}"


def _mousehole_made(fact, side: _Side) -> str:
    return f"a Mousehole between {' and '.join(fact.hexes)}"


def _rubble_placed(fact, side: _Side) -> str:
    return f"Rubble in {', '.join(fact.hexes)}"


def _firefight_ended(fact, side: _Side) -> str:
    return f"the end of {fact.firefight}"


def _cpp_gained(fact, side: _Side) -> str:
    return f"{fact.cpp} CPP for {side(fact.side)}"


def _tables_overridden(fact, side: _Side) -> str:
    return f"the rules file {fact.source}"


def _side_key_registered(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s key"


def _dice_chain_renewed(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s next fair-dice {fact.chain} chain"


def _fair_seed_revealed(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s fair-dice seed revealed"


def _dice_mode_chosen(fact, side: _Side) -> str:
    return f"the dice mode {fact.mode}"


def _chit_sealed(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s sealed Initiative chit"


def _chit_revealed(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s Initiative chit revealed"


def _action_undone(fact, side: _Side) -> str:
    return "a take-back"


def _proposal_declined(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s no to the proposal of event {fact.proposal}"


def _turn_returned(fact, side: _Side) -> str:
    return f"{side(fact.side)}'s turn mailed back"


def _rewound(fact, side: _Side) -> str:
    return f"the rewind to the end of {fact.cg_date}'s RePh"


def _vasl_log_imported(fact, side: _Side) -> str:
    return f"the VASL import of {fact.file}"


_WORDS: dict = {
    LocationControlled: _location_controlled,
    HQRecorded: _hq_recorded,
    CGDateChanged: _cg_date_changed,
    StepOpened: _step_opened,
    SideAdvanced: _side_advanced,
    ScenarioEnded: _scenario_ended,
    InitiativeChosen: _initiative_chosen,
    DiceRolled: _dice_rolled,
    RollDeclared: _roll_declared,
    RollAnswered: _roll_answered,
    RollLapsed: _roll_lapsed,
    SecretRollMade: _secret_roll_made,
    SecretRollRevealed: _secret_roll_revealed,
    RollValuePublished: _roll_value_published,
    RGPurchased: _rg_purchased,
    RGPurchaseSealed: _rg_purchase_sealed,
    RGPurchaseRevealed: _rg_purchase_revealed,
    RollDeclarationRevealed: _declaration_revealed,
    FortificationsPurchased: _fortifications_purchased,
    FortificationPlaced: _fortification_placed,
    HiddenFortificationPlaced: _fortification_placed,
    HiddenFortificationRevealed: _hidden_fortification_revealed,
    FortificationRemoved: _fortification_removed,
    MouseholeMade: _mousehole_made,
    RubblePlaced: _rubble_placed,
    FirefightEnded: _firefight_ended,
    CPPGained: _cpp_gained,
    TablesOverridden: _tables_overridden,
    SideKeyRegistered: _side_key_registered,
    DiceCommitted: _side_key_registered,
    FairDiceCommitted: _side_key_registered,
    DiceChainRenewed: _dice_chain_renewed,
    FairSeedRevealed: _fair_seed_revealed,
    DiceModeChosen: _dice_mode_chosen,
    ChitSealed: _chit_sealed,
    ChitRevealed: _chit_revealed,
    ActionUndone: _action_undone,
    ProposalDeclined: _proposal_declined, TurnReturned: _turn_returned,
    Rewound: _rewound,
    "VaslLogImported": _vasl_log_imported,
}


def action_words(events, sides: dict[str, str]) -> str:
    """An action's events (Logged, in order) in plain words: 'Control of StJ19 by the U.S. side (event 57)'."""
    if not events:
        return "an action no longer in the log"
    said = []
    for event in events:
        text = words(event.fact, sides)
        if text not in said and not isinstance(event.fact, (CPPGained, DiceCommitted)):
            said.append(text)
    first, last = events[0].version, events[-1].version
    where = f"event {first}" if first == last else f"events {first}-{last}"
    return f"{' and '.join(said)} ({where})"


def view(state, rules, viewer: str | None, events_of) -> dict | None:
    """`status`'s `proposal`: the open take-back proposal (or the last one that lapsed, until its proposer acts
    again). `viewer`: the side recording here (its key's, else the one side without a key: with or without its key,
    the side that answers is told so, `yours`, and its proposer that it waits); `events_of(action, before_version)`:
    the events of an action."""
    sides = dict(rules.system.sides)
    proposal, lapsed = state.proposal, state.lapsed
    shown = proposal or lapsed
    if not shown:
        return None
    proposer = shown.get("author", "")
    other = next((s for s in sides if s != proposer), "")
    if shown["kind"] == "rules":
        what = f"the rules file {shown['source']} ({', '.join(shown.get('tables', []))}) for both sides"
    elif shown["kind"] == "rewind":
        what = (f"every action after the end of {shown['cg_date']}'s RePh (event {shown['to_version']}): "
                f"{len(shown['voided'])} action(s)")
    else:
        what = action_words(events_of(shown["voided"][0], shown["version"]), sides)
    data = {"event": shown["version"], "open": bool(proposal), "by": proposer or None, "kind": shown["kind"],
            "takes_back": what, "actions": list(shown.get("voided", [])), "reason": shown.get("reason") or None,
            "accept": ACCEPT, "accepted_by": other or None}
    if shown["kind"] == "rules" and proposal:  # what the file changes, read before it is accepted
        from cgledger.ledger.rules.changes import described

        data["changes"] = described(state.system, state.override_sources(), shown["source"], shown["text"])
    if proposal:
        if viewer is not None and viewer == proposer:
            data["waiting_for"] = (f"the {sides.get(other, other)} side to accept it (`{ACCEPT}` on its ledger, "
                                   "once it has your bundle)")
        elif viewer is not None and viewer == other:
            data["waiting_for"] = f"you to accept it: `{ACCEPT}` (or `{DECLINE}`)"
            data["decline"] = DECLINE
            data["yours"] = True
        else:
            data["waiting_for"] = f"the {sides.get(other, other)} side to accept it: `{ACCEPT}`"
        data["lapses_when"] = ("a player's act is recorded first (the ledger's own answers and reveals, and a key set "
                               "up, do not count)")
    else:
        data["lapsed"] = {"at": lapsed["lapsed_by"], "why": CAUSES.get(lapsed["cause"], lapsed["cause"])}
    return data
