"""Who may take back what. Before any side has a signing key (two players at one table) anyone may undo or
rewind anything. From then on a side voids alone only its own actions (its rolls, purchases, keys); the other
side's actions and shared ones (steps, scenario end, control) are taken back by a proposal that the other
side accepts, both signed and both kept. Pure decisions, re-run by the audit with the stored author."""

from __future__ import annotations

from ..authorship import signing_sides
from ..errors import BadInput
from ..events import ActionUndone, RulesProposed, Rewound, TablesOverridden, TakeBackProposed
from ..evolve import CampaignState
from ..rules import Rules
from . import secrets, steps

RULE = "cgledger trust model"  # no ASL rule governs who may take a record back: the README's trust model does


def may_void(state: CampaignState, by: str, actions) -> bool:
    """Whether `by` may void these actions alone: every one its own act, or nobody has an identity yet."""
    if not signing_sides(state):
        return True
    return bool(by) and all(state.act(a) == (by, False) for a in actions)


def undo(state: CampaignState, by: str, reason: str = "") -> ActionUndone | TakeBackProposed:
    done = steps.undo(state, reason)
    if may_void(state, by, [done.undone]):
        return done
    return TakeBackProposed(action=done.action, kind="undo", voided=(done.undone,), reason=reason)


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


def accept(state: CampaignState, rules: Rules, by: str) -> ActionUndone | Rewound | TablesOverridden:
    """The other side accepts the open proposal: the undo or rewind it asked for, naming it."""
    proposal = state.proposal
    if not proposal:
        raise BadInput("no take-back proposal is open (one lapses when anything else is recorded after it)", RULE)
    proposer = proposal["author"]
    if not by or by == proposer:
        who = rules.system.sides.get(proposer, "proposing")
        raise BadInput(f"the {who} side proposed this take-back: only the other side can accept it (with its key)",
                       RULE)
    if proposal["kind"] == "rules":
        done = secrets.load_rules(state, proposal["source"], proposal["text"])
        return TablesOverridden(action=done.action, source=done.source, text=done.text, tables=done.tables,
                                proposal=proposal["version"])
    if proposal["kind"] == "undo":
        done = steps.undo(state, proposal["reason"])
        if [done.undone] != proposal["voided"]:
            raise BadInput(f"the proposal to undo action {proposal['voided'][0]} has lapsed: it is no longer the "
                           "last action in force", RULE)
        return ActionUndone(action=done.action, undone=done.undone, reason=proposal["reason"],
                            proposal=proposal["version"])
    done = steps.rewind(state, rules, proposal["cg_date"], proposal["reason"])
    if list(done.voided) != proposal["voided"]:
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
        raise BadInput(f"the {who} side voided action(s) {', '.join(map(str, decided.voided))} alone: they are the "
                       "other side's or shared, and need its acceptance", RULE)
    return decided
