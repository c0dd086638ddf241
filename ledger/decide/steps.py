"""Steps and scenarios: the Refit Phase as a state machine (8.6) driven by the system's step data, the
CG-Scenario End and its winner, Initiative, a new campaign, undo and rewind. Pure decisions."""

import math

import msgspec

from .. import rules as rulesmod
from ..errors import BadInput
from ..domain.events import (
    ActionUndone, CampaignStarted, CGDateChanged, InitiativeChosen, Rewound, ScenarioEnded, SideAdvanced, StepOpened,
)
from ..domain.apply import IDLE_DAY
from ..domain.evolve import SCENARIO, CampaignState
from ..rules import Rules
from ..rules.schema import Condition, Need, Step


def moved(rules: Rules, state: CampaignState, facts: list, passed_of) -> "Move":
    """What a `step` recorded, for the player: where the campaign and the side now stand."""
    opened = next((f for f in facts if isinstance(f, StepOpened)), None)
    alone = next((f for f in facts if isinstance(f, SideAdvanced)), None)
    new_date = next((f.cg_date for f in facts if isinstance(f, CGDateChanged)), None)
    skipped = tuple(alone.passed if alone else opened.skipped)
    target = alone.step if alone else opened.step
    return Move(target, skipped, new_date, tuple(passed_of(rules, tuple(s for s in skipped if s != SCENARIO))),
                next((s.id for s in rules.system.steps if s.new_cg_date), ""),
                campaign_step=state.step, side=alone.side if alone else "")


class Move(msgspec.Struct, frozen=True):
    """What `step` will record: the steps passed over, a new CG Date if 8.612 is entered, the target."""

    target: str
    skipped: tuple[str, ...]
    new_date: str | None
    passed: tuple[dict, ...] = ()  # the steps passed over, with what each was for (projections/guidance.py)
    new_date_rule: str = ""  # the step that starts a new CG Date in the campaign's own system (KGP 8.612, RR 2.512)
    campaign_step: str = ""  # the campaign's open step after the move
    side: str = ""  # the side that walked on ahead of the campaign ('' if the campaign moved with it)


def reph_rule(rules: Rules) -> str | None:
    """The system's Refit Phase rule (KGP 8.6, RR 2.5), cited for the order of its steps."""
    return rules.system.steps[0].id[:-2] if rules.system.steps else None


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
    return not condition_fails(rules, state, need, date)


def condition_fails(rules: Rules, state: CampaignState, cond: Condition, date: str | None = None) -> str:
    """Why the log says a condition (a step's need, a table's `when`) does not hold now; '' when it holds."""
    if cond.option and not state.options.get(cond.option):
        return (f"the campaign did not choose {cond.option.replace('_', ' ')} (`cgledger new ... "
                f"--{cond.option.replace('_', '-')}`)")
    if cond.from_date and rules.calendar.parse(date or state.cg_date) < rules.calendar.parse(cond.from_date):
        return f"the CG Date is {date or state.cg_date}, before {cond.from_date}"
    if cond.unless_flag and cond.unless_flag in state.flags:
        return f"{cond.unless_flag} already applies"
    scenario = state.scenario if date is None or date == state.cg_date else ""  # a CG Date ahead: not decided yet
    if cond.scenario and scenario != cond.scenario:
        return (f"this CG Date's scenario is {article(scenario)}" if scenario
                else f"Initiative has not decided this CG Date's scenario yet ({_initiative_step(rules)})")
    if cond.edition > state.edition:
        return "this campaign was started before the ledger read the rule so, and keeps its reading"
    if cond.after and not any(entry.rsplit(":", 1)[0] in cond.after for entry in state.today):
        return f"no {' or '.join(cond.after)} result was rolled on {state.cg_date}"
    return ""


def article(scenario: str) -> str:
    if scenario.startswith("Initial"):
        return f"the {scenario}"
    return f"an {scenario}" if scenario[:1] in "AEIOU" else f"a {scenario}"


def steps_of(rules: Rules, effect: str = "", purchase: str = "") -> tuple[str, ...]:
    """The steps a record belongs to: those that need `effect` (scenario_end, initiative), or in which `purchase`
    (rg, fortifications) is made."""
    return tuple(s.id for s in rules.system.steps
                 if (effect and any(n.effect == effect for n in s.needs)) or (purchase and s.purchase == purchase))


def _initiative_step(rules: Rules) -> str:
    return next(iter(steps_of(rules, "initiative")), "")


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
            refs = rg_refs(state)
            for version, rg in sorted(state.rgs.items(), key=lambda item: int(item[0])):
                ref = refs[version]
                missing += [{"effect": need.effect, "side": rg["side"], "table": t, "rg": int(version), "rg_ref": ref,
                             "text": f"roll {t} --side {rg['side']} --rg {ref}" + (f" (RG {rg['rg']})" if rg["rg"]
                                                                                  else "")} for t in rg["pending"]
                            if strength_first(rules, state, rules.tables.get(t), int(version)) is None]
            continue
        sides = [s for s in need.sides if f"{need.effect}:{s}" not in done
                 and (need.san_from is None or state.san.get(s, -1) >= need.san_from)
                 and charted(rules, state, need.effect, s, date)] if need.sides else (
            [] if any(d.startswith(f"{need.effect}:") for d in done) else [None])
        missing += [describe(rules, need.effect, side, state) for side in sides]
    return missing


def rg_refs(state: CampaignState) -> dict[str, str]:
    """Each RG in force as `--rg` names it to its player: ID#N, the side's N-th of that RG in force (I2#1); an RG
    bought in secret, unknown here, by its purchase's event."""
    refs, seen = {}, {}
    for version, rg in sorted(state.rgs.items(), key=lambda item: int(item[0])):
        if not rg["rg"]:
            refs[version] = version
            continue
        key = (rg["side"], rg["rg"])
        seen[key] = seen.get(key, 0) + 1
        refs[version] = f"{rg['rg']}#{seen[key]}"
    return refs


def charted(rules: Rules, state: CampaignState, effect: str, side: str, date: str | None = None) -> bool:
    """Whether the side has a roll to make for the effect on the CG Date: not where the table's base chart gives
    it no value (`Rules.charted`)."""
    when = rules.calendar.parse(date or state.cg_date)
    return all(rules.charted(t, side, state.cg, when) for t in rules.tables.values() if t.effect == effect)


def strength_first(rules: Rules, state: CampaignState, table, rg: int | None) -> str | None:
    """The strength roll an RG follow-up waits for: where the table has an automatic DRM read off the RG's strength
    (RR 2.5193 '+2 if Depleted', KGP 8.6206), that strength must be rolled, or declared before it (its dice are
    made first, in step order), else the DRM would be decided before it is known. None where nothing is waited for."""
    if rg is None or table is None or not any(d.kind == "automatic" and d.rg_strength for d in table.drm):
        return None
    bought = state.rgs.get(str(rg))
    if bought is None or bought.get("strength"):
        return None
    strength = [t for t in rules.tables.values() if t.effect == "rg_strength"]
    if any(e["rg"] == rg and e["table"] in {t.id for t in strength} for e in state.declared.values()):
        return None
    return next((t for t in bought["pending"] if t in {s.id for s in strength}), None)


def describe(rules: Rules, effect: str, side: str | None, state: CampaignState | None = None) -> dict:
    sides = list(rules.system.sides)
    if effect == "scenario_end":
        text = "the CG-Scenario End: cgledger scenario-end " + " ".join(f"--lvp {s}=N" for s in sides)
    elif effect == "initiative":
        text = initiative_text(rules, state)
    else:
        tables = sorted(t.id for t in rules.tables.values() if t.effect == effect)
        text = f"a roll on {' or '.join(tables) or effect}" + (f" --side {side}" if side else "")
    tables = sorted(t.id for t in rules.tables.values() if t.effect == effect)
    return {"effect": effect, "side": side, "table": tables[0] if tables else None, "rg": None, "text": text}


# ---- Initiative chits (8.6231-.6232, RR 2.5221-.5222): who seals its own, how many Attack Chits are left ----
def sealed_play(state: CampaignState, rules: Rules) -> bool:
    """Chits are sealed once every side has a key (before that both are given in one command, at one table)."""
    return all(s in state.keys for s in rules.system.sides)


def limits(state: CampaignState, rules: Rules) -> dict[str, int]:
    """The Attack Chits each side may select in the CG (8.6231, RR 2.5221); a side the rules give no limit is left
    out."""
    return dict(next((c.attack_chits for c in rules.system.cg if c.id == state.cg), {}))


def left(state: CampaignState, rules: Rules) -> dict[str, int]:
    """The Attack Chits each side with a limit has left to select (the chits resolved so far count)."""
    return {side: max(0, limit - state.chits.get(side, 0)) for side, limit in limits(state, rules).items()}


def choices(state: CampaignState, rules: Rules, side: str) -> str:
    """What a side may still pick: 'attack|idle', or 'idle' once its Attack Chits are used up."""
    return "idle" if left(state, rules).get(side) == 0 else "attack|idle"


def initiative_text(rules: Rules, state: CampaignState | None) -> str:
    """What Initiative still needs (8.6232, RR 2.5222): both chits at one table; once both sides hold keys, each
    side's own chit sealed with its key (those not sealed yet), then revealed by each side's ledger. A side whose
    Attack Chits are used up (8.6231, RR 2.5221) is offered Idle only."""
    sides = list(rules.system.sides)
    if state is None:
        return "both Initiative chits: cgledger initiative " + " ".join(f"--chit {s}=attack|idle" for s in sides)
    if not sealed_play(state, rules):
        return "both Initiative chits: cgledger initiative " + " ".join(
            f"--chit {s}={choices(state, rules, s)}" for s in sides)
    unsealed = [s for s in sides if s not in state.sealed_chits]
    if not unsealed:
        return ("the sealed Initiative chits revealed: each side's ledger reveals its own on its next command with "
                "its key")
    names = " and ".join(rules.system.sides[s] for s in unsealed)
    return (f"the {names} Initiative chit{'s' if len(unsealed) > 1 else ''}, each sealed with its own side's key: "
            + "; ".join(f"cgledger initiative --chit {s}={choices(state, rules, s)}" for s in unsealed))


def needs_text(needs: list[dict]) -> str:
    return "; ".join(n["text"] for n in needs)


def plan(rules: Rules, state: CampaignState, target: str | None) -> Move:
    """Checks a move forward and returns it; going back is an undo."""
    if not rules.system.steps:
        raise BadInput(f"{rules.system.id.upper()} has no Refit Phase steps in the rules seeds: a firefight ends with "
                       "`cgledger firefight-end`")
    if target is not None and target != SCENARIO and target not in rules.steps:
        raise BadInput(f"no RePh step '{target}' in {rules.system.id.upper()} (steps {rules.system.steps[0].id}-"
                       f"{rules.system.steps[-1].id}, or 'scenario')", reph_rule(rules))
    open_needs = unmet(rules, state, state.step)
    if open_needs:
        raise BadInput(f"step {title(rules, state.step)} still needs {needs_text(open_needs)}", state.step)
    waiting = sorted(e["version"] for e in state.declared.values() if not e["made"])
    if waiting:
        raise BadInput(f"step {title(rules, state.step)} waits for the dice of the fair roll(s) declared at event(s) "
                       f"{', '.join(map(str, waiting))}: the other side's ledger answers on its next command "
                       "(`cgledger answer`)", state.step)
    goal = target or next_step(rules, state)
    order = [s.id for s in rules.system.steps]
    if goal != SCENARIO and state.step != SCENARIO and order.index(goal) <= order.index(state.step):
        following = next_step(rules, state)  # after an Idle Day: back to the first '*' step (8.6232)
        looping = following != SCENARIO and order.index(following) <= order.index(state.step)
        if not (looping and order.index(goal) >= order.index(following)):
            raise BadInput(f"step {goal} is not ahead of {title(rules, state.step)}: going back is an undo", reph_rule(rules))
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
    raise BadInput(f"step {goal} is not ahead of {title(rules, state.step)}: going back is an undo", reph_rule(rules))


def campaign_over(rules: Rules, state: CampaignState) -> str:
    """'' while the CG goes on; once it is over, why: its last CG Date's CG-Scenario End is recorded (8.603; RR
    2.503), or its last Idle Day passed, or (CGS) its last firefight ended. Nothing after that is played: the RePh
    that follows would only lead to a CG Date the CG does not have (8.6161 note: the CG ends)."""
    last = next((c.last for c in rules.system.cg if c.id == state.cg), None)
    if last is None or state.cg_date != last:
        return ""
    if not rules.system.steps:  # CGS: one firefight after another, the last one ended
        return f"CG {state.cg} ends with {last}, and it has ended" if last in state.reph_ends else ""
    if any(date == last for date, _winner in state.scenarios):
        return f"CG {state.cg} ends on {last}, and its CG-Scenario End is recorded"
    if state.scenario == IDLE_DAY and last in state.reph_ends:
        return f"CG {state.cg} ends on {last}, an Idle Day"
    return ""


def check_not_over(rules: Rules, state: CampaignState) -> None:
    """Nothing is played after the CG's end (its last CG Date's CG-Scenario End): no step leads anywhere."""
    over = campaign_over(rules, state)
    if over:
        step = next((s.id for s in rules.system.steps if s.new_cg_date), "")
        raise BadInput(f"the campaign is over ({over}): `cgledger final` gives the result", f"{step}1" if step else None)


def new_cg_date(rules: Rules, state: CampaignState, date: str) -> str:
    current = rules.calendar.parse(date)
    last = rules.calendar.parse(next(c.last for c in rules.system.cg if c.id == state.cg))
    following = rules.calendar.next(current)
    if following is None or following > last:
        step = next((s.id for s in rules.system.steps if s.new_cg_date), "")
        raise BadInput(f"CG {state.cg} ends on {last}: there is no CG Date after {current}; the campaign is over",
                       f"{step}1" if step else None)
    return following.text


def step(state: CampaignState, rules: Rules, target: str | None) -> list:
    """`step next` / `step STEP` at one table: forward in order, skipping only what may be skipped; entering the
    New CG Date step starts the next CG Date. Once both sides hold keys each walks its own part (walk.py)."""
    target = target.lower() if target and target.lower() == SCENARIO else target
    move = plan(rules, state, target)
    facts: list = []
    if move.new_date:
        facts.append(CGDateChanged(action=state.next_action, previous=state.cg_date, cg_date=move.new_date))
    facts.append(StepOpened(action=state.next_action, step=move.target, skipped=move.skipped))
    return facts


# the ledger's reading of the rules: a campaign started now records it, and a rule read in later (a `Condition` with
# `edition`) holds only in campaigns started under it. 1: 8.6113's Secret DR is needed in 8.611, and a roll decided
# as of its own CG Date does not hold the door of the next one (walk.unmade). 2: a Control recorded again for the side
# it was last recorded for, its Strategic kind unchanged, is refused: no side gained it (8.605, A26.11). 3: once fair
# dice are in force, a Secret roll of the Refit Phase takes them: dice typed for it, sealed, could be witnessed only once
# revealed (rolls._check_how). 4: dice other than fair are agreed to by the side whose key completes the pair
# (secrets.register_key); a Dual Attack's dr for the side moving first waits for both sides' setup (a table's
# `together`, 8.6233a); an undo takes back the last command whole (`CampaignState.command_group`); the matrix a
# ledger resolves as the last chit is revealed is its own record, no player's act (a proposal stands). 5: that dr
# also waits for the dice of every open roll declared in an earlier step (8.6233a's setup order: `rolls.setup_unsettled`),
# and a side enters its step only once the setup order has its result (`walk.setup_order_unknown`).
EDITION = 5


def start(name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
          random_weather: bool = False) -> CampaignStarted:
    """`new`: name, rule system, CG and its start date, each side's CPP before the Initial Scenario."""
    name = name.strip()
    if not name:
        raise BadInput("a campaign needs a name")
    rules = rulesmod.load(system)
    cgs = {c.id: c for c in rules.system.cg}
    cg = cg.upper()
    first = reph_rule(rules)
    if cg not in cgs:
        raise BadInput(f"unknown CG '{cg}' for {system.upper()}: choose {'|'.join(cgs)}", first)
    begin = rules.calendar.parse(cgs[cg].start)
    cpp = {side: 0 for side in rules.system.sides}
    cpp_rule = next((s.id for s in rules.system.steps if any(n.effect == "cpp_replenishment" for n in s.needs)), None)
    for side, amount in side_numbers(rules, start_cpp, "--start-cpp", cpp_rule).items():
        if amount < 0:
            raise BadInput(f"--start-cpp {side}={amount}: CPP cannot be negative", cpp_rule)
        cpp[side] = amount
    return CampaignStarted(name=name, system=system, cg=cg, cg_date=begin.text, start_cpp=cpp,
                           random_weather=random_weather, edition=EDITION)


def side_numbers(rules: Rules, items: tuple[str, ...], option: str, rule: str | None) -> dict[str, int]:
    """'german=12' items -> {'german': 12}; each side at most once."""
    numbers: dict[str, int] = {}
    for item in items:
        side, sep, number = item.partition("=")
        if not sep:
            raise BadInput(f"malformed {option} '{item}': use SIDE=N", rule)
        side = rules.side(side)
        if side in numbers:
            raise BadInput(f"{option} gives the {rules.system.sides[side]} side twice", rule)
        try:
            numbers[side] = int(number)
        except ValueError:
            raise BadInput(f"malformed {option} '{item}': N must be a whole number", rule) from None
    return numbers


def need_step(rules: Rules, state: CampaignState, effect: str, side: str | None = None) -> str:
    """Refuses a record whose step is not the open one (8.6: steps in order), or that the system's rules do not
    know (CGS: no Refit Phase, so no CG-Scenario End or Initiative); returns that step's id. `side`: a side's own
    record, judged by the step that side stands in (it may walk ahead of the campaign)."""
    if not rules.system.steps:
        what = {"scenario_end": "CG-Scenario End", "initiative": "Initiative"}.get(effect, effect)
        raise BadInput(f"{rules.system.id.upper()} records no {what}: its rules print no Refit Phase (a firefight ends "
                       "with `cgledger firefight-end`)")
    steps = steps_of(rules, effect)
    at = acting_step(rules, state, side)
    if steps and at not in steps:
        whose = "the campaign is" if at == state.step else f"the {rules.system.sides.get(side, side)} side is"
        raise BadInput(f"this is recorded in step {title(rules, steps[0])}; {whose} at {title(rules, at)}",
                       steps[0])
    return steps[0] if steps else ""


def scenario_end(state: CampaignState, rules: Rules, lvp: dict[str, int], winner: str | None = None,
                 from_map: bool = False, log=None) -> ScenarioEnded:
    """8.603 CG-Scenario End (RR 2.503): each side's Current-LVP and the winner. A winner the printed rule
    decides (8.6234a Dual Attack, 8.6234 Assaults) cannot be overridden; `winner` names it only where the
    rules seeds leave it to the players (the Initial Scenario's VC). `from_map`: the Current-LVP are read off the
    map (8.6032: the LVP Locations each side Controls, from `log`), not typed: any LVP given must be those."""
    base = need_step(rules, state, "scenario_end")
    if "scenario_end:" in state.done:
        raise BadInput(f"CG-Scenario End of {state.cg_date} is already recorded: undo it to change it", f"{base}2")
    start = state.lvp  # the Current-LVP at scenario start, as last recorded (8.6032)
    if from_map:
        lvp, start = _read_off_the_map(rules, lvp, log, base, start)
    missing = [s for s in rules.system.sides if s not in lvp]
    if missing:
        raise BadInput(f"give every side's Current-LVP: --lvp {missing[0]}=N", f"{base}2")
    total = sum(g.lvp for g in rules.system.map_groups)
    if any(v < 0 for v in lvp.values()) or (total and sum(lvp.values()) > total):
        raise BadInput(f"Current-LVP {_lvp_text(rules, lvp)} cannot be negative or exceed the {total} LVP of all Map "
                       "Groups", f"{base}3")
    if not rules.system.scenario_victory:  # RR 2.5231: no CG scenario is won or lost, only the CG
        if winner is not None:
            raise BadInput(f"{rules.system.id.upper()} CG scenarios have no winner", rules.cite("cg_victory") or base)
        return ScenarioEnded(action=state.next_action, scenario=state.scenario, lvp=lvp, winner="", from_map=from_map)
    computed, winner = _winner(state, rules, start, lvp, winner)
    return ScenarioEnded(action=state.next_action, scenario=state.scenario, lvp=lvp, winner=winner or computed,
                         declared=computed is None, from_map=from_map)


def _read_off_the_map(rules: Rules, lvp: dict[str, int], log, base: str,
                      start: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """8.6032: the Current-LVP the LVP Locations each side Controls give (any typed must be those), and those at
    scenario start (8.6234)."""
    from ..domain.mapping import map_lvp

    read = map_lvp(log or [], rules) if log is not None else None
    if not read:
        raise BadInput("no map is loaded to read the Current-LVP from: give "
                       + " ".join(f"--lvp {s}=N" for s in rules.system.sides), f"{base}2")
    if lvp and lvp != read:
        raise BadInput(f"Current-LVP {_lvp_text(rules, lvp)} are not the map's: its LVP Locations give "
                       f"{_lvp_text(rules, read)}", f"{base}2")
    return read, _lvp_at_scenario_start(log, rules) or start


def _winner(state: CampaignState, rules: Rules, start: dict[str, int], lvp: dict[str, int],
            winner: str | None) -> tuple[str | None, str | None]:
    """(the winner the printed rule decides, None where the players name it; the winner named). A winner the
    rules decide cannot be overridden, but for the assaulter where the LVP test fails (8.6234b is cut after
    "and/": the other way to win is the players')."""
    computed = decide_winner(rules, state.scenario, start, lvp)
    if winner is not None:
        winner = rules.side(winner)
    if computed is not None and winner is not None and winner != computed \
            and winner == _assaulter(rules, state.scenario):
        computed = None
    if computed is not None and winner is not None and winner != computed:
        raise BadInput(f"the {state.scenario} is won by the {rules.system.sides[computed]} side by its Current-LVP "
                       f"({_lvp_text(rules, start)} -> {_lvp_text(rules, lvp)}): the rules decide it, not "
                       "--winner", rules.cite("winner"))
    if computed is None and winner is None:
        raise BadInput(f"the {state.scenario or 'scenario'}'s Victory Conditions are not in the rules seeds "
                       "(8.51-.53): name the winner with --winner SIDE", rules.cite("winner"))
    return computed, winner


def _lvp_text(rules: Rules, lvp: dict[str, int]) -> str:
    return ", ".join(f"{rules.system.sides[s]} {lvp.get(s, 0)}" for s in rules.system.sides)


def _lvp_at_scenario_start(log, rules) -> dict[str, int] | None:
    """8.6234: each side's Current-LVP 'at scenario start', read off the map as Control stood when the campaign
    entered this scenario (a Control change in 8.605 after the last CG-Scenario End counts), where the players keep
    the map (the last CG-Scenario End was read off it too); None otherwise: the last one recorded stands."""
    from ..domain.inforce import live
    from ..domain.mapping import map_lvp

    entries = list(live(log or []))
    entered = next((i for i in range(len(entries) - 1, -1, -1)
                    if isinstance(entries[i].fact, StepOpened) and entries[i].fact.step == SCENARIO), None)
    if entered is None:
        return None
    ended = next((e.fact for e in reversed(entries[:entered]) if isinstance(e.fact, ScenarioEnded)), None)
    return map_lvp(entries[:entered + 1], rules) if ended is not None and ended.from_map else None


def _assaulter(rules: Rules, scenario: str) -> str | None:
    """The one side whose Attack chit made this scenario an Assault (8.6232 matrix), else None."""
    attackers = [key for key, value in rules.system.initiative.items() if value == scenario]
    if not attackers:
        return None
    chits = dict(part.split(":") for part in attackers[0].split("/"))
    attacking = [s for s, chit in chits.items() if chit == "attack"]
    return attacking[0] if len(attacking) == 1 else None


def decide_winner(rules: Rules, scenario: str, start: dict[str, int], end: dict[str, int]) -> str | None:
    """8.6234: Dual Attack, the side named by the system (KGP: the Americans) wins if its Current-LVP rose;
    an Assault, the assaulter wins if its Current-LVP rose by ≥ 20% (FRU), at least 1. Initial Scenario VC
    (8.51-.53) are not in the seeds."""
    sides = list(rules.system.sides)
    if scenario == "Dual Attack" and rules.system.dual_attack_winner:
        side = rules.system.dual_attack_winner
        return side if end[side] > start.get(side, 0) else next(s for s in sides if s != side)
    assaulter = _assaulter(rules, scenario)
    if assaulter is None:
        return None
    defender = next(s for s in sides if s != assaulter)
    before = start.get(assaulter, 0)
    return assaulter if end[assaulter] >= before + max(1, math.ceil(before * 0.2)) else defender


def initiative(state: CampaignState, rules: Rules, chits: dict[str, str], us_has_no_units: bool = False
               ) -> InitiativeChosen:
    """8.623 Initiative (RR 2.522): both chits and what the matrix makes of them."""
    base = need_step(rules, state, "initiative")
    if "initiative:" in state.done:
        raise BadInput(f"Initiative for {state.cg_date} is already determined: undo it to change it", f"{base}2")
    chits = {rules.side(side): chit.lower() for side, chit in chits.items()}
    if set(chits) != set(rules.system.sides) or not set(chits.values()) <= {"attack", "idle"}:
        raise BadInput("give each side's chit: attack or idle (" + ", ".join(f"--chit {s}=…" for s in rules.system.sides)
                       + ")", f"{base}2")
    if us_has_no_units and "german" not in chits:
        raise BadInput("--us-has-no-units is a KGP rule (8.6232), not one of " + rules.system.id.upper(), f"{base}2")
    if us_has_no_units and chits.get("german") == "attack":
        raise BadInput("the German may not select the Attack Chit while the U.S. has no on-map Retained units", "8.6232")
    limits = next(c.attack_chits for c in rules.system.cg if c.id == state.cg)
    for side, chit in chits.items():
        if chit == "attack" and side in limits and state.chits.get(side, 0) >= limits[side]:
            raise BadInput(f"the {rules.system.sides[side]} side has used its {limits[side]} Attack Chits "
                           f"of CG {state.cg}", f"{base}1")
    key = "/".join(f"{side}:{chits[side]}" for side in rules.system.sides)
    return InitiativeChosen(action=state.next_action, chits=chits, scenario=rules.system.initiative[key],
                            us_has_no_units=us_has_no_units)


def undo(state: CampaignState, reason: str = "", proposed_at: int = 0) -> ActionUndone:
    """The last action in force a player took; the ledger's own records after it (a fair roll's answer, a Secret roll
    made, a reveal, a chit sealed) stay in force (`CampaignState.undo_target`; `proposed_at`: the event of the
    proposal an acceptance carries out)."""
    target, why = state.undo_target(proposed_at)
    if target is None:
        raise BadInput(why)
    also = state.command_group(target) if state.edition >= 4 else ()  # one command's acts: one undo
    return ActionUndone(action=state.next_action, undone=target, reason=reason, also=also)


def rewind(state: CampaignState, rules: Rules, date: str, reason: str = "") -> Rewound:
    """Play resumes from the end of a CG Date's RePh: every later action in force is voided."""
    canonical = rules.calendar.parse(date).text
    ends = state.reph_ends
    if canonical not in ends:
        raise BadInput(f"the RePh of CG Date {canonical} has not ended (ended: {', '.join(ends) or 'none yet'})",
                       reph_rule(rules))
    version, action = ends[canonical]
    voided = state.live_actions_after(action)
    if not voided:
        raise BadInput(f"nothing was recorded after the end of {canonical}'s RePh: nothing to rewind")
    return Rewound(action=state.next_action, cg_date=canonical, to_version=version, voided=tuple(voided),
                   reason=reason)

def crosses_together(rules: Rules, step_id: str) -> bool:
    """A step the campaign enters with both sides: a new CG Date, or the scenario."""
    return step_id == SCENARIO or rules.steps[step_id].new_cg_date

def acting_step(rules: Rules, state: CampaignState, side: str | None) -> str:
    """The step a side's own records are judged by: where it stands, but not a step it waits at the door of."""
    at = state.ahead.get(side, state.step) if side else state.step
    if at != state.step and crosses_together(rules, at):
        return state.step
    return at
