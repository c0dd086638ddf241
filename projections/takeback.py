"""A take-back proposal as `status` shows it to both sides: who proposed what, what it takes back in
plain words, the command the other side runs, and, once it lapsed, why. The rights themselves are decided in
ledger/decide/rights.py; this only words them."""

from __future__ import annotations

from cgledger.ledger.decide.rights import CAUSES
from cgledger.ledger.domain.wording import proposal_lines as lines  # noqa: F401 - status's text, here before
from cgledger.ledger.domain.events import (
    ActionUndone, ChitRevealed, ChitSealed, CGDateChanged, CPPGained, DiceChainRenewed, DiceCommitted,
    DiceModeChosen, DiceRolled, FairDiceCommitted, FairSeedRevealed, FirefightEnded, FortificationPlaced,
    FortificationRemoved, FortificationsPurchased, HiddenFortificationPlaced, HiddenFortificationRevealed,
    HQRecorded, InitiativeChosen, LocationControlled, MouseholeMade, ProposalDeclined, Rewound, RGPurchased,
    RGPurchaseRevealed, RGPurchaseSealed, RollAnswered, RollDeclared, RollValuePublished, RubblePlaced,
    ScenarioEnded, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered, StepOpened, TablesOverridden,
)

ACCEPT = "cgledger accept"
DECLINE = "cgledger decline"


def words(fact, sides: dict[str, str]) -> str:
    """What one recorded fact is, in a few plain words."""
    def side(name: str) -> str:
        return f"the {sides.get(name, name)} side"

    if isinstance(fact, LocationControlled):
        kind = f" (Strategic Location, {fact.strategic})" if fact.strategic else ""
        return f"Control of {fact.location} by {side(fact.side)}{kind}"
    if isinstance(fact, HQRecorded):
        return f"{side(fact.side)}'s HQ in {fact.location}"
    if isinstance(fact, CGDateChanged):
        return f"the new CG Date {fact.cg_date}"
    if isinstance(fact, StepOpened):
        return "the move to the CG scenario" if fact.step == "scenario" else f"the move to step {fact.step}"
    if isinstance(fact, SideAdvanced):
        return (f"{side(fact.side)}'s walk to the CG scenario" if fact.step == "scenario"
                else f"{side(fact.side)}'s walk on to step {fact.step}")
    if isinstance(fact, ScenarioEnded):
        lvp = ", ".join(f"{sides.get(s, s)} {n}" for s, n in fact.lvp.items())
        return f"the CG-Scenario End (Current-LVP {lvp})"
    if isinstance(fact, InitiativeChosen):
        return f"Initiative ({fact.scenario})"
    if isinstance(fact, DiceRolled):
        return f"{side(fact.side)}'s roll on {fact.table} ({fact.die} {','.join(map(str, fact.dice))}: {fact.result})"
    if isinstance(fact, RollDeclared):
        return f"{side(fact.side)}'s {'Secret ' if fact.secret else ''}fair roll on {fact.table}"
    if isinstance(fact, RollAnswered):
        return f"{side(fact.side)}'s answer to the fair roll of event {fact.declared}"
    if isinstance(fact, SecretRollMade):
        return f"{side(fact.side)}'s Secret roll on {fact.table}"
    if isinstance(fact, SecretRollRevealed):
        return f"the reveal of the Secret roll of event {fact.roll}"
    if isinstance(fact, RollValuePublished):
        return f"{side(fact.side)}'s fair roll value {fact.n} published"
    if isinstance(fact, RGPurchased):
        return f"{side(fact.side)}'s purchase of RG {fact.rg}"
    if isinstance(fact, RGPurchaseSealed):
        return f"an RG bought in secret by {side(fact.side)}"
    if isinstance(fact, RGPurchaseRevealed):
        return f"the reveal of the secret RG purchase of event {fact.purchase}"
    if isinstance(fact, FortificationsPurchased):
        return f"{side(fact.side)}'s purchase of {fact.count} {fact.item}"
    if isinstance(fact, (FortificationPlaced, HiddenFortificationPlaced)):
        where = f" in {fact.hex}" if isinstance(fact, FortificationPlaced) else " (hidden)"
        return f"{side(fact.side)}'s {fact.item} placed{where}"
    if isinstance(fact, HiddenFortificationRevealed):
        return f"the reveal of the hidden fortification of event {fact.placed}"
    if isinstance(fact, FortificationRemoved):
        return f"the removal of {side(fact.side)}'s {fact.item} in {fact.hex}"
    if isinstance(fact, MouseholeMade):
        return f"a Mousehole between {' and '.join(fact.hexes)}"
    if isinstance(fact, RubblePlaced):
        return f"Rubble in {', '.join(fact.hexes)}"
    if isinstance(fact, FirefightEnded):
        return f"the end of {fact.firefight}"
    if isinstance(fact, CPPGained):
        return f"{fact.cpp} CPP for {side(fact.side)}"
    if isinstance(fact, TablesOverridden):
        return f"the rules file {fact.source}"
    if isinstance(fact, (SideKeyRegistered, DiceCommitted, FairDiceCommitted)):
        return f"{side(fact.side)}'s key"
    if isinstance(fact, DiceChainRenewed):
        return f"{side(fact.side)}'s next fair-dice {fact.chain} chain"
    if isinstance(fact, FairSeedRevealed):
        return f"{side(fact.side)}'s fair-dice seed revealed"
    if isinstance(fact, DiceModeChosen):
        return f"the dice mode {fact.mode}"
    if isinstance(fact, ChitSealed):
        return f"{side(fact.side)}'s sealed Initiative chit"
    if isinstance(fact, ChitRevealed):
        return f"{side(fact.side)}'s Initiative chit revealed"
    if isinstance(fact, ActionUndone):
        return "a take-back"
    if isinstance(fact, ProposalDeclined):
        return f"{side(fact.side)}'s no to the proposal of event {fact.proposal}"
    if isinstance(fact, Rewound):
        return f"the rewind to the end of {fact.cg_date}'s RePh"
    if type(fact).__name__ == "VaslLogImported":
        return f"the VASL import of {fact.file}"
    return "a record"


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
