"""Who may take back what. Before any side has a signing key (two players at one table) anyone may undo or
rewind anything. From then on a side voids alone its own acts (its rolls, purchases, keys), and the shared acts it
recorded itself (a step, Control, a scenario end...) while the other side has not received them: no event the
other side authored follows them in the log (by email play is strict turn-taking, so the other side cannot have
built on an act without sending something back). Anything else (the other side's acts, shared acts it has
received) is taken back by a proposal that the other side accepts, both signed and both kept.

What an undo takes back: the last action in force that a player took. The ledger's own records after it stay in
force: a fair roll's answer and its dice (RollAnswered, the fair DiceRolled), a Secret roll the ledger made for its
declaration (SecretRollMade), a reveal (SecretRollRevealed, RGPurchaseRevealed, ChitRevealed, RollValuePublished), a
chit sealed (ChitSealed); the fold voids the act and applies them again (an import records nothing). An undo never
takes back a fair roll's answer: when one of those records completes the act itself (its roll's answer, its Secret
roll made or revealed, its purchase or chit revealed), there is nothing to undo (a rewind goes back further). One
exception: a sealed chit that is the last action in force is what `undo` takes back (its side may choose again
until it is revealed); an acceptance passes over it like the others. A side's key and fair-dice commitment
(SideKeyRegistered, DiceCommitted, FairDiceCommitted) are treated as the sealed chit, in events of envelope form 3 on
(before, a player's act: ledger/domain/evolve.py `SETUP`).

When a proposal lapses, i.e. what "depends on the action it takes back" means: a record recorded after the proposal
depends on that action when it is a player's act (anything but the ledger's own records above), or one of the
ledger's own records that completes that action. So a proposal stays open while every action recorded after it is
one of those records of the ledger's own and, for an undo, the action it takes back is still the one an undo would
take (the last a player took, no record completing it); for a rewind, the actions it voids are still in force (the
ledger's own records since are voided with them: a rewind takes everything after that point back). A player's act (a roll declared or made, a purchase, a step, Control, a scenario end, a rules
file accepted...) or another undo or rewind makes it lapse, and `status` says so and why (`CampaignState.lapsed`).
The fold (ledger/domain/evolve.py) and `accept` decide this with the same `CampaignState.undo_target`, and the audit
re-decides every take-back with these functions (`taken_back`). Pure decisions, re-run by the audit with the
stored author."""

from __future__ import annotations

from ..domain.authorship import signing_sides
from ..errors import BadInput
from ..domain.events import (
    ActionUndone, ProposalDeclined, RulesProposed, Rewound, TablesOverridden, TakeBackProposed, TurnReturned,
)
from ..domain.evolve import CampaignState
from ..rules import Rules
from . import secrets, steps

RULE = "cgledger trust model"  # no ASL rule governs who may take a record back: the trust model of docs/guide/trust.md does


def may_void(state: CampaignState, by: str, actions) -> bool:
    """Whether `by` may void these actions alone: nobody has an identity yet, or every one is its own act, or a
    shared act it recorded that the other side has not received (no event of the other side's follows it)."""
    if not signing_sides(state):
        return True
    return bool(by) and all(state.act(a) == (by, False) or (state.act(a)[0] == by and not received(state, by, a))
                            for a in actions)


def received(state: CampaignState, by: str, action: int) -> bool:
    """Whether another side than `by` authored an event at or after the action (so it had the action in its log)."""
    return any(last >= action for side, last in state.last_by.items() if side != by)


def undo(state: CampaignState, by: str, reason: str = "") -> ActionUndone | TakeBackProposed:
    done = steps.undo(state, reason)
    if may_void(state, by, [done.undone, *done.also]):
        return done
    return TakeBackProposed(action=done.action, kind="undo", voided=(done.undone, *done.also), reason=reason)


def rewind(state: CampaignState, rules: Rules, by: str, date: str, reason: str = "") -> Rewound | TakeBackProposed:
    done = steps.rewind(state, rules, date, reason)
    if may_void(state, by, done.voided):
        return done
    return TakeBackProposed(action=done.action, kind="rewind", voided=tuple(done.voided), cg_date=done.cg_date,
                            to_version=done.to_version, reason=reason)


def load_rules(state: CampaignState, by: str, source: str, text: str) -> TablesOverridden | RulesProposed:
    """A rules file changes the tables for both sides: once anyone has a key, it is a proposal the other side
    accepts, never one side's act alone."""
    done = secrets.load_rules(state, source, text)
    if not signing_sides(state):
        return done
    mine = state.proposal if state.proposal and state.proposal.get("author") == by else None
    if mine is not None:  # a second proposal would let the first lapse unseen: one open proposal at a time
        what = f"the rules file {mine['source']}" if mine["kind"] == "rules" else f"an {mine['kind']}"
        raise BadInput(f"your proposal of {what} (event {mine['version']}) still waits for the other side's "
                       f"acceptance: mail it, and load {source} once it is accepted", RULE)
    return RulesProposed(action=done.action, source=done.source, text=done.text, tables=done.tables)


def tables_overridden(state: CampaignState, rules: Rules, by: str, fact: TablesOverridden) -> TablesOverridden:
    """Re-decides a stored rules file (the audit): accepted from the other side's proposal, or loaded before keys."""
    if fact.proposal:
        if state.proposal.get("version") != fact.proposal:
            raise BadInput(f"it accepts event {fact.proposal}, which is no open proposal", RULE)
        return accept(state, rules, by)  # type: ignore[return-value]
    decided = load_rules(state, by, fact.source, fact.text)
    if isinstance(decided, RulesProposed):
        raise BadInput(f"the {rules.system.sides.get(by, by or 'unsigned')} side changed the tables alone: once sides "
                       "have keys a rules file needs the other side's acceptance", RULE)
    return decided


def _answerable(state: CampaignState, rules: Rules, by: str, verb: str) -> dict:
    """The open proposal, which only the side that did not make it answers (`verb`: accept, decline)."""
    proposal = state.proposal
    if not proposal:
        raise BadInput(f"no proposal is open{lapse_note(state)}", RULE)
    proposer = proposal["author"]
    if not by or by == proposer:
        who = rules.system.sides.get(proposer, "proposing")
        raise BadInput(f"the {who} side made this proposal: only the other side can {verb} it (with its key)", RULE)
    return proposal


def return_turn(state: CampaignState, rules: Rules, side: str) -> TurnReturned:
    """By email, the side read the other's turn and records nothing: its receipt, which mails the turn back. Being
    its side's event, it tells every decision that the side holds what came before it (`received`)."""
    return TurnReturned(action=state.next_action, side=rules.side(side))


def decline(state: CampaignState, rules: Rules, by: str, reason: str = "") -> ProposalDeclined:
    """The other side declines the open proposal: over, and said so on both sides."""
    proposal = _answerable(state, rules, by, "decline")
    return ProposalDeclined(action=state.next_action, side=by, proposal=proposal["version"], reason=reason)


def accept(state: CampaignState, rules: Rules, by: str) -> ActionUndone | Rewound | TablesOverridden:
    """The other side accepts the open proposal: the undo or rewind it asked for, naming it."""
    proposal = _answerable(state, rules, by, "accept")
    if proposal["kind"] == "rules":
        done = secrets.load_rules(state, proposal["source"], proposal["text"])
        return TablesOverridden(action=done.action, source=done.source, text=done.text, tables=done.tables,
                                proposal=proposal["version"])
    if proposal["kind"] == "undo":
        done = steps.undo(state, proposal["reason"], proposed_at=proposal["version"])
        if [done.undone, *done.also] != proposal["voided"]:
            raise BadInput(f"the proposal to undo action {proposal['voided'][0]} has lapsed: it is no longer the "
                           "last action in force", RULE)
        return ActionUndone(action=done.action, undone=done.undone, reason=proposal["reason"],
                            proposal=proposal["version"], also=done.also)
    done = steps.rewind(state, rules, proposal["cg_date"], proposal["reason"])
    later = [a for a in done.voided if a not in proposal["voided"]]  # the ledger's own records since: voided too
    if not set(proposal["voided"]) <= set(done.voided) or any(a < proposal["action"] for a in later):
        raise BadInput("the rewind proposal has lapsed: the actions it would void have changed", RULE)
    return Rewound(action=done.action, cg_date=done.cg_date, to_version=done.to_version, voided=done.voided,
                   reason=proposal["reason"], proposal=proposal["version"])


def taken_back(state: CampaignState, rules: Rules, by: str, fact: ActionUndone | Rewound):
    """Re-decides a stored undo or rewind (the audit): an acceptance, or one its author may make alone."""
    if fact.proposal:
        if state.proposal.get("version") != fact.proposal:
            raise BadInput(f"it accepts event {fact.proposal}, which is no open take-back proposal", RULE)
        return accept(state, rules, by)
    if isinstance(fact, ActionUndone):
        decided = undo(state, by, fact.reason)
    else:
        decided = rewind(state, rules, by, fact.cg_date, fact.reason)
    if isinstance(decided, TakeBackProposed):
        who = rules.system.sides.get(by, by or "an unsigned")
        acts = (f"{len(decided.voided)} acts alone: they are", "need") if len(decided.voided) > 1 else \
            ("an act alone: it is", "needs")
        raise BadInput(f"the {who} side took back {acts[0]} the other side's or shared, and {acts[1]} its acceptance",
                       RULE)
    return decided


CAUSES = {"act": "a player's act was recorded after it",
          "completes": "a record after it completes the action it takes back",
          "takeback": "another undo or rewind was recorded after it",
          "declined": "the other side declined it"}


def lapse_note(state: CampaignState) -> str:
    lapsed = state.lapsed
    if not lapsed:
        return " (a proposal lapses when a player's act is recorded after it)"
    again = {"rewind": "cgledger rewind DATE", "rules": "cgledger rules load FILE"}.get(lapsed["kind"], "cgledger undo")
    return (f": the one of event {lapsed['version']} lapsed at event {lapsed['lapsed_by']} "
            f"({CAUSES.get(lapsed['cause'], lapsed['cause'])}); propose it again (`{again}`)")
