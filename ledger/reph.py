"""The Refit Phase as a state machine (8.6): which step comes next, what a step still needs,
what may be skipped. Pure decisions over the campaign state and the system's step data."""

from __future__ import annotations

from dataclasses import dataclass

from .campaign import SCENARIO, CampaignState
from .errors import BadInput
from .rules import Rules
from .rules.schema import Need, Step

IDLE_DAY = "Idle Day"


@dataclass(frozen=True)
class Move:
    """What `step` will record: the steps passed over, a new CG Date if 8.612 is entered, the target."""

    target: str
    skipped: tuple[str, ...]
    new_date: str | None


def title(rules: Rules, step: str) -> str:
    return "CG scenario" if step == SCENARIO else f"{step} {rules.steps[step].title}"


def applies(step: Step, state: CampaignState) -> bool:
    if state.initial:
        return "†" in step.markers  # 8.6: the only steps before an Initial Scenario
    return True


def next_step(rules: Rules, state: CampaignState, current: str | None = None) -> str:
    current = current or state.step
    steps = rules.system.steps
    if not steps:  # a system without RePh steps (CGS): one firefight after another
        return SCENARIO
    if current == SCENARIO:
        return steps[0].id  # after a scenario: the § steps to CG-Scenario End, then the RePh
    if state.scenario == IDLE_DAY and any(n.effect == "initiative" for n in rules.steps[current].needs):
        return next(s.id for s in steps if "*" in s.markers)  # 8.6232 note 2: repeat from 8.612
    index = [s.id for s in steps].index(current)
    return next((s.id for s in steps[index + 1 :] if applies(s, state)), SCENARIO)


def need_applies(rules: Rules, state: CampaignState, need: Need, date: str | None = None) -> bool:
    if need.option and not state.options.get(need.option):
        return False
    if need.from_date and rules.calendar.parse(date or state.cg_date) < rules.calendar.parse(need.from_date):
        return False
    if need.unless_flag and need.unless_flag in state.flags:
        return False
    if need.scenario and state.scenario != need.scenario:
        return False
    return True


def unmet(rules: Rules, state: CampaignState, step: str, done: list[str] | None = None,
          date: str | None = None) -> list[dict]:
    """What the step still needs before it may be left (or skipped): {effect, side, table, rg, text}."""
    if step == SCENARIO:
        return []
    done = state.done if done is None else done
    missing = []
    for need in rules.steps[step].needs:
        if not need_applies(rules, state, need, date):
            continue
        if need.effect == "rg_followups":
            for version, tables in sorted(state.rg_pending.items()):
                missing += [{"effect": need.effect, "side": None, "table": t, "rg": int(version),
                             "text": f"roll {t} --rg {version} (the RG bought at event {version})"} for t in tables]
            continue
        sides = [s for s in need.sides if f"{need.effect}:{s}" not in done] if need.sides else (
            [] if any(d.startswith(f"{need.effect}:") for d in done) else [None])
        missing += [describe(rules, need.effect, side) for side in sides]
    return missing


def describe(rules: Rules, effect: str, side: str | None) -> dict:
    sides = list(rules.system.sides)
    if effect == "scenario_end":
        text = "the CG-Scenario End: cgledger scenario-end " + " ".join(f"--lvp {s}=N" for s in sides)
    elif effect == "initiative":
        text = "both Initiative chits: cgledger initiative " + " ".join(f"--chit {s}=attack|idle" for s in sides)
    else:
        tables = sorted(t.id for t in rules.tables.values() if t.effect == effect)
        text = f"a roll on {' or '.join(tables) or effect}" + (f" --side {side}" if side else "")
    tables = sorted(t.id for t in rules.tables.values() if t.effect == effect)
    return {"effect": effect, "side": side, "table": tables[0] if tables else None, "rg": None, "text": text}


def needs_text(needs: list[dict]) -> str:
    return "; ".join(n["text"] for n in needs)


def plan(rules: Rules, state: CampaignState, target: str | None) -> Move:
    """Checks a move forward and returns it; going back is an undo."""
    if not rules.system.steps:
        raise BadInput(f"{rules.system.id.upper()} has no Refit Phase steps in the rules seeds: a firefight ends with "
                       "`cgledger firefight-end`")
    if target is not None and target != SCENARIO and target not in rules.steps:
        raise BadInput(f"no RePh step '{target}' in {rules.system.id.upper()} (steps {rules.system.steps[0].id}-"
                       f"{rules.system.steps[-1].id}, or 'scenario')", "8.6")
    open_needs = unmet(rules, state, state.step)
    if open_needs:
        raise BadInput(f"step {title(rules, state.step)} still needs {needs_text(open_needs)}", state.step)
    goal = target or next_step(rules, state)
    order = [s.id for s in rules.system.steps]
    if goal != SCENARIO and state.step != SCENARIO and order.index(goal) <= order.index(state.step):
        following = next_step(rules, state)  # after an Idle Day: back to the first '*' step (8.6232)
        looping = following != SCENARIO and order.index(following) <= order.index(state.step)
        if not (looping and order.index(goal) >= order.index(following)):
            raise BadInput(f"step {goal} is not ahead of {title(rules, state.step)}: going back is an undo", "8.6")
    skipped: list[str] = []
    new_date = None
    current, date = state.step, state.cg_date
    for _ in range(len(rules.system.steps) + 2):
        current = next_step(rules, state, current)
        if current != SCENARIO and rules.steps[current].new_cg_date:
            date = new_cg_date(rules, state, date)
            new_date = date
        if current == goal:
            return Move(goal, tuple(skipped), new_date)
        needs = unmet(rules, state, current, done=[], date=date)
        if needs:
            raise BadInput(f"cannot skip {title(rules, current)} on the way to {title(rules, goal)}: "
                           f"it needs {needs_text(needs)}", current)
        skipped.append(current)
    raise BadInput(f"step {goal} is not ahead of {title(rules, state.step)}: going back is an undo", "8.6")


def new_cg_date(rules: Rules, state: CampaignState, date: str) -> str:
    current = rules.calendar.parse(date)
    last = rules.calendar.parse(next(c.last for c in rules.system.cg if c.id == state.cg))
    following = rules.calendar.next(current)
    if following is None or following > last:
        step = next((s.id for s in rules.system.steps if s.new_cg_date), "")
        raise BadInput(f"CG {state.cg} ends on {last}: there is no CG Date after {current}; the campaign is over",
                       f"{step}1" if step else None)
    return following.text


def check_roll_step(rules: Rules, state: CampaignState, table) -> None:
    """A roll belongs to its step (8.6: steps in order); SSR rolls to the scenario."""
    if table.step and table.step != state.step:
        where = "during a CG scenario" if table.step == SCENARIO else f"in step {title(rules, table.step)}"
        raise BadInput(f"table {table.id} is rolled {where}; the campaign is at {title(rules, state.step)}",
                       table.step if table.step != SCENARIO else table.rule)
