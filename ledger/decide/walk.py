"""Each side walks the RePh (8.6: the steps "are performed simultaneously by each side"). Once both sides hold keys
(by email or on a shared server) a side's `step` says it is done with its own part of the steps it leaves. The
campaign's open step (`state.step`) moves past a step only when the other side is done with it too (it is ahead,
`state.ahead`) or may do nothing there: neither side takes the other past a step where it may still act (a roll it
owes or may make, a purchase). A side may walk ahead of the open step, doing its own part of the steps there (its
rolls, purchases, its sealed chit), up to the door of a new CG Date or the scenario, which both sides enter
together, and never past a step whose shared need (CG-Scenario End, Initiative) is not met. Pure decisions, re-run
by the audit with the stored author."""

from __future__ import annotations

from ..domain.authorship import signing_sides
from ..errors import BadInput, LedgerError
from ..domain.events import CGDateChanged, SideAdvanced, StepOpened
from ..domain.evolve import SCENARIO, CampaignState
from ..rules import Rules
from . import rolls, steps
from .steps import crosses_together, needs_text, new_cg_date, next_step, reph_rule, title, unmet


# a Secret roll made stays declared until it is revealed: from envelope form MADE_FORM on, made, it counts in `done` of
# its own step and CG Date, not as a declaration still waiting for its dice (the CPP Replenishment of a CG Date before
# meets no need of this one, 8.616); a log written before keeps the reading it was written with
MADE_FORM = 3


def step(state: CampaignState, rules: Rules, target: str | None, by: str = "", form: int = MADE_FORM) -> list:
    """`step next` / `step STEP`: the side `by` walks its own part once both sides hold keys; else (one table) the
    campaign moves as one (steps.step)."""
    target = target.lower() if target and target.lower() == SCENARIO else target
    steps.check_not_over(rules, state)
    if by and walking(state, rules):
        return walk(state, rules, by, target, form)
    facts = steps.step(state, rules, target)
    keyed = signing_sides(state)
    if keyed:  # one side holds a key, the other none yet: the keyed side does not take it past its own part
        opened = next(f for f in facts if isinstance(f, StepOpened))
        for left in (state.step, *opened.skipped):
            for side in [s for s in rules.system.sides if s not in keyed]:
                reason = may_act(rules, state, side, left)
                if reason is not None:
                    who = rules.system.sides[side]
                    raise BadInput(f"the {who} side holds no key yet and may still {reason} in {title(rules, left)}: "
                                   f"it sets up its key first (`cgledger keys init --side {side}` on its ledger), "
                                   "then each side walks the Refit Phase itself", left)
    return facts


SHARED_EFFECTS = ("scenario_end", "initiative", "first_move")  # recorded for both sides at once


def walking(state: CampaignState, rules: Rules) -> bool:
    """Whether each side walks the RePh itself: both sides hold signing keys."""
    return bool(rules.system.steps) and all(s in signing_sides(state) for s in rules.system.sides)


def position(state: CampaignState, side: str) -> str:
    """The step a side stands in: the open step, or its own step ahead of it."""
    return state.ahead.get(side, state.step)


def done_at(state: CampaignState, step_id: str) -> list[str]:
    if step_id == state.step:
        return state.done
    mark = f"{step_id}|"
    return [e[len(mark):] for e in state.ahead_done if e.startswith(mark)]


def owed(rules: Rules, state: CampaignState, side: str, step_id: str, date: str | None = None,
         form: int = MADE_FORM) -> list[dict]:
    """What `side` still owes in a step before it may leave it: its needs and the shared ones, less the rolls
    declared and waiting for their dice (the other side's ledger answers them): its own, and either side's for a
    need both share (one dr per Dual Attack, 8.625)."""
    if step_id == SCENARIO:
        return []
    ahead = date is not None and date != state.cg_date  # a step of a CG Date ahead: nothing of it declared yet
    waiting = [] if ahead else [e for e in state.declared.values() if e["table"] in rules.tables
                                and (e["side"] == side or rules.tables[e["table"]].effect in SHARED_EFFECTS)
                                and not (e["made"] and form >= MADE_FORM)]
    out = []
    # a step of a CG Date ahead (past a new CG Date's step) has nothing done in it yet: what was done in the step of
    # that id belongs to this CG Date
    done = [] if ahead else done_at(state, step_id)
    for need in unmet(rules, state, step_id, done=done, date=date):
        if need["side"] != side and need["effect"] not in SHARED_EFFECTS:
            continue
        match = next((e for e in waiting if (e["table"] == need["table"] if need["rg"] is not None else
                                             rules.tables[e["table"]].effect == need["effect"]) and e["rg"] == need["rg"]),
                     None)
        if match is not None:
            waiting.remove(match)  # declared: its dice come with the other side's answer (one need per declaration)
            continue
        out.append(need)
    return out


def lands(rules: Rules, state: CampaignState, side: str, target: str) -> str | None:
    """The step whose acts `side` may record after `step TARGET` (steps.acting_step after the walk): where it
    stands then, or the campaign's open step while it waits at a door both sides cross together (its walk may stop
    there, short of the target); None where the step decision refuses it: the very decision the walk runs."""
    try:
        facts = step(state, rules, target, by=side)
    except LedgerError:
        return None
    end, campaign = position(state, side), state.step
    for fact in facts:
        if isinstance(fact, StepOpened):
            campaign = fact.step
            if side not in state.ahead:
                end = fact.step
        elif isinstance(fact, SideAdvanced) and fact.side == side:
            end = fact.step
    return campaign if end != campaign and crosses_together(rules, end) else end


def decides_later_needs(rules: Rules, state: CampaignState, entry: dict) -> bool:
    """A declared roll whose result adds what its step needs (an RG's strength adds follow-ups by its chart line's
    `rolls_if`, unless each is declared already for its result; a result another roll is due 'after'): its side
    waits in that step for its dice."""
    table_id = entry["table"]
    table = rules.tables.get(table_id)
    if table is None:
        return False
    if table.effect == "rg_strength":
        rg = state.rgs.get(str(entry.get("rg")), {})
        line = rules.rgs.get((entry["side"], rg.get("rg", "")))
        if line is None or not line.rolls_if:  # an RG still sealed: decided again once it is revealed
            return False
        return not all(declared_if(state, entry["rg"], t, code) >= tables.count(t)
                       for code, tables in line.rolls_if.items() for t in set(tables))
    return rolls.followed(rules, table_id)


def declared_if(state: CampaignState, rg: int | None, table_id: str, code: str) -> int:
    """How many rolls of the table are declared for the RG, each made only if its strength gives `code`."""
    return sum(1 for e in state.declared.values() if e["rg"] == rg and e["table"] == table_id
               and e.get("if_result") == code)


def may_act(rules: Rules, state: CampaignState, side: str, step_id: str, date: str | None = None) -> str | None:
    """What `side` may still do in the step it stands in (the reason the campaign waits for it there), or None."""
    if step_id == SCENARIO:
        return None
    owes = owed(rules, state, side, step_id, date)
    if owes:
        return owes[0]["text"].split(": cgledger", 1)[0]  # 'a roll on 8.616 --side us', 'the CG-Scenario End'
    if secret_followups(rules, state, side, step_id, date):
        return "go on past the follow-ups of the RG(s) bought in secret (only the buyer's own books know what they need)"

    data = rules.steps[step_id]
    if data.purchase == "rg":  # the campaign waits for the side here, whatever its CPP (status says what it may buy)
        return "buy Reinforcement Groups"
    if data.purchase == "fortifications" and (state.fpp.get(side, 0) > 0 or bought_in_secret(state, side, date)):
        return "buy Fortifications"  # FPP it holds; or an RG bought in secret, which may be FPP only its books know
    for table in sorted(rules.tables.values(), key=lambda t: t.id):
        if step_id not in (table.step, *table.steps) or side not in (table.sides or rules.system.sides):
            continue
        if rolls.per(table) == "rg":
            continue
        try:
            rolls.admit(state, rules, table.id, side, None, "UNIT", at=step_id)
        except LedgerError:
            continue
        return f"roll {table.id} ({table.title})"
    return None


def walk(state: CampaignState, rules: Rules, by: str, target: str | None, form: int = MADE_FORM) -> list:
    """`by` leaves the step it stands in for `target` (default: its next step): the facts it records. The campaign's
    open step moves with it while the other side is done with each step left; `by` walks on alone up to the door of
    what both cross together (a new CG Date, the scenario), where it waits."""
    if target is not None and target != SCENARIO and target not in rules.steps:
        raise BadInput(f"no RePh step '{target}' in {rules.system.id.upper()} (steps {rules.system.steps[0].id}-"
                       f"{rules.system.steps[-1].id}, or 'scenario')", reph_rule(rules))
    own = position(state, by)
    if by in state.ahead and crosses_together(rules, own):
        return _at_the_door(state, rules, by, own, form)
    _may_leave(state, rules, by, own, form)
    goal = target or next_step(rules, state, own)
    path = _path(rules, state, own, goal)
    reached = 0 if by in state.ahead else _with_the_campaign(state, rules, by, path)
    final = path[reached - 1] if reached else own
    if reached < len(path):  # `by` walks on alone, ahead of the campaign, up to the door of what both cross
        alone = path[reached:]
        door = next((i for i, s in enumerate(alone) if crosses_together(rules, s)), len(alone) - 1)
        final = alone[door]
    if final != own:
        _setup_first(state, rules, final)
    passed = path[:path.index(final)] if final in path else []
    for index, left in enumerate(passed):  # nothing `by` owes may be skipped on the way
        needs = owed(rules, state, by, left, date=date_on(rules, state, path[:index + 1]), form=form)
        if needs:
            raise BadInput(f"cannot skip {title(rules, left)} on the way to {title(rules, goal)}: "
                           f"it needs {needs_text(needs)}", left)
    facts: list = []
    if reached:
        new_date = next((date_on(rules, state, path[:i + 1]) for i, s in enumerate(path[:reached])
                         if s != SCENARIO and rules.steps[s].new_cg_date), None)
        if new_date:
            facts.append(CGDateChanged(action=state.next_action, previous=state.cg_date, cg_date=new_date))
        facts.append(StepOpened(action=state.next_action, step=path[reached - 1], skipped=tuple(path[:reached - 1])))
    if final != (path[reached - 1] if reached else state.step):
        facts.append(SideAdvanced(action=state.next_action, side=by, step=final, passed=tuple(passed)))
    return facts


def setup_order_unknown(rules: Rules, state: CampaignState, step_id: str) -> str | None:
    """A step whose roll is made once all setup is complete (a table's `together`: 8.625 after 8.6233a) is entered
    only once the setup order is known (campaigns of edition 5 on): the roll `together` names has its result this CG
    Date, where it applies. That roll's id where it has none yet, else None."""
    if state.edition < 5 or step_id == SCENARIO:
        return None
    for table in rules.tables.values():
        setup = rules.tables.get(table.together) if table.together and table.step == step_id else None
        if setup is None or table.when is not None and steps.condition_fails(rules, state, table.when):
            continue
        if setup.when is not None and steps.condition_fails(rules, state, setup.when):
            continue
        if not any(t == setup.id for t, _code, _side in rolls.today_results(state)):
            return setup.id
    return None


def _setup_first(state: CampaignState, rules: Rules, step_id: str) -> None:
    setup = setup_order_unknown(rules, state, step_id)
    if setup is not None:
        declared = any(e["table"] == setup and not e["made"] for e in state.declared.values())
        why = "declared, its result comes with the other side's answer" if declared else "not rolled yet"
        raise BadInput(f"{title(rules, step_id)} is entered once all setup is complete, and the setup order is not "
                       f"known yet: the roll on {setup} has no result ({why})", setup)


def _at_the_door(state: CampaignState, rules: Rules, by: str, door: str, form: int) -> list:
    """`by` waits at the door of what both sides cross together: with the other side there too, either takes the
    campaign in; else it waits for the other side."""
    other = next(s for s in rules.system.sides if s != by)
    if state.ahead.get(other) == door:
        return enter_together(state, rules, door, form)
    raise BadInput(_waits(rules, state, other, f"the {rules.system.sides[by]} side is done with its part and waits to "
                                               f"enter {title(rules, door)}, which both sides enter together"),
                   _rule_of(rules, state.step))


def _may_leave(state: CampaignState, rules: Rules, by: str, own: str, form: int) -> None:
    """`by` leaves its step once it owes nothing there and no roll of its own waits for dice that decide what the
    step needs."""
    owes = owed(rules, state, by, own, form=form)
    if owes:
        raise BadInput(f"step {title(rules, own)} still needs {needs_text(owes)}", own)
    dice = sorted(e["version"] for e in state.declared.values() if e["side"] == by and not e["answered"]
                  and e.get("step") == own and decides_later_needs(rules, state, e))
    if dice:
        raise BadInput(f"the {rules.system.sides[by]} side waits in {title(rules, own)} for the dice of its roll(s) "
                       f"declared at event(s) {', '.join(map(str, dice))}: their result decides what the step needs "
                       "(the other side's ledger answers on its next command)", own)


def secret_followups(rules: Rules, state: CampaignState, side: str, step_id: str, date: str | None = None) -> bool:
    """Whether `side` bought an RG in secret on this CG Date and `step_id` is where its follow-up rolls are made
    (8.619, RR 2.518): which it owes there only its own books say, so the other side never takes it past that
    step; it leaves it itself, once its books owe nothing there."""
    return step_id in steps.steps_of(rules, "rg_followups") and bought_in_secret(state, side, date)


def bought_in_secret(state: CampaignState, side: str, date: str | None = None) -> bool:
    """Whether `side` bought an RG in secret on this CG Date (8.619), not revealed yet."""
    return any(e["side"] == side and e["cg_date"] == (date or state.cg_date) for e in state.secret_rgs.values())


def _with_the_campaign(state: CampaignState, rules: Rules, by: str, path: list[str]) -> int:
    """How many steps of the path the campaign's open step moves with `by`: while the other side is done with each
    step left, up to a door the dice still owed hold."""
    other = next(s for s in rules.system.sides if s != by)
    there = state.ahead.get(other)
    unresolved = unmade(rules, state)
    reached = 0
    for index, nxt in enumerate(path):
        left = state.step if index == 0 else path[index - 1]
        if there is None and may_act(rules, state, other, left, date_on(rules, state, path[:index])) is not None:
            break
        if crosses_together(rules, nxt) and unresolved:
            break  # dice still owed are made on the CG Date and in the step they were declared for
        reached = index + 1
        if there == nxt:
            there = None  # the other side stands here now, with the campaign
    return reached


def unmade(rules: Rules, state: CampaignState) -> list[int]:
    """The declared rolls whose dice the campaign waits for at the door of a new CG Date or the scenario: all not
    yet made, but those decided as of their own CG Date (`rolls.made_on_its_date`), which may follow in a campaign
    started under that reading (`steps.EDITION`): an older one keeps the door it was played with."""
    dated = state.edition >= 1
    return sorted(e["version"] for e in state.declared.values()
                  if not e["made"] and not (dated and rolls.made_on_its_date(rules, e["table"])))


def enter_together(state: CampaignState, rules: Rules, door: str, form: int = MADE_FORM) -> list:
    """Both sides are done with their parts up to the door of a new CG Date or the scenario and wait there: the
    campaign enters it (its open step there), once the dice declared before it are made (they belong to their own
    CG Date and step)."""
    waiting = unmade(rules, state)
    if waiting:
        raise BadInput(f"both sides wait to enter {title(rules, door)}; the dice of the roll(s) declared at event(s) "
                       f"{', '.join(map(str, waiting))} are made first (each side's ledger makes its part on its "
                       "next command: `cgledger answer`)", _rule_of(rules, door))
    path = _path(rules, state, state.step, door)
    for index, left in enumerate([state.step, *path[:-1]]):
        date = date_on(rules, state, path[:index])
        for side in rules.system.sides:
            needs = owed(rules, state, side, left, date, form)
            if needs:
                raise BadInput(f"both sides wait to enter {title(rules, door)}, and {title(rules, left)} still needs "
                               f"{needs_text(needs)}", left)
    facts: list = []
    if any(s != SCENARIO and rules.steps[s].new_cg_date for s in path):
        facts.append(CGDateChanged(action=state.next_action, previous=state.cg_date,
                                   cg_date=date_on(rules, state, path)))
    facts.append(StepOpened(action=state.next_action, step=door, skipped=tuple(path[:-1])))
    return facts


def _path(rules: Rules, state: CampaignState, own: str, goal: str) -> list[str]:
    """The steps from `own` (not included) to `goal`, in order."""
    order = [s.id for s in rules.system.steps]
    following = next_step(rules, state, own)
    if goal != SCENARIO and own != SCENARIO and order.index(goal) <= order.index(own):
        looping = following != SCENARIO and order.index(following) <= order.index(own)
        if not (looping and order.index(goal) >= order.index(following)):
            raise BadInput(f"step {goal} is not ahead of {title(rules, own)}: going back is an undo", reph_rule(rules))
    path: list[str] = []
    current = own
    for _ in range(len(order) + 2):
        current = next_step(rules, state, current)
        path.append(current)
        if current == goal:
            return path
    raise BadInput(f"step {goal} is not ahead of {title(rules, own)}: going back is an undo", reph_rule(rules))


def _rule_of(rules: Rules, step_id: str) -> str | None:
    return step_id if step_id != SCENARIO else reph_rule(rules)


def _waits(rules: Rules, state: CampaignState, other: str, what: str) -> str:
    reason = may_act(rules, state, other, position(state, other)) if other not in state.ahead else None
    return (f"the campaign waits in {title(rules, state.step)} for the {rules.system.sides[other]} side"
            + (f" (it may still {reason})" if reason else "") + f": {what}")




def date_on(rules: Rules, state: CampaignState, path: list[str]) -> str:
    """The CG Date in force once these steps are entered (entering a new-CG-Date step starts the next one)."""
    date = state.cg_date
    for s in path:
        if s != SCENARIO and rules.steps[s].new_cg_date:
            date = new_cg_date(rules, state, date)
    return date
