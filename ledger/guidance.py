"""What players can do next, as command lines to paste: each open need of the RePh step (with the side that
rolls, and the RG a follow-up roll is for), and what the rules let players do in the open step even when nothing
is needed (the step's own optional rolls, its purchases, Control changes, the scenario's SSR rolls). Read from
the step and table data of the campaign's own system; no step is named in code."""

from __future__ import annotations

from .decide.rolls import admit, per
from .decide.steps import decide_winner, title
from .errors import LedgerError
from .evolve import SCENARIO

PROG = "cgledger"


def attack_chits_left(rules, state) -> dict[str, int | None]:
    """Each side's Attack Chits left in the CG (8.6231, RR 2.5221); None where the CG sets no limit."""
    limits = next((c.attack_chits for c in rules.system.cg if c.id == state.cg), {})
    return {s: (limits[s] - state.chits.get(s, 0) if s in limits else None) for s in rules.system.sides}


def chit_choices(rules, state, side: str) -> str:
    """attack|idle, or only idle once the side has used its Attack Chits."""
    return "idle" if attack_chits_left(rules, state).get(side) == 0 else "attack|idle"


def need_commands(rules, state, need: dict, me: str | None = None) -> list[str]:
    """The command lines that meet one need (`steps.unmet`): one per side that may roll it when the rules name no
    side. What the players choose stays open: LVP as N, chits as attack|idle, a winner the rules do not decide
    (the Initial Scenario's Victory Conditions, 8.6234) as one of the sides."""
    sides = list(rules.system.sides)
    if need["effect"] == "scenario_end":
        lvp = " ".join(f"--lvp {s}=N" for s in sides)
        undecided = rules.system.scenario_victory and decide_winner(
            rules, state.scenario, state.lvp, {s: 0 for s in sides}) is None
        return [f"{PROG} scenario-end {lvp}" + (f" --winner {'|'.join(sides)}" if undecided else "")]
    if need["effect"] == "initiative":
        if all(s in state.keys for s in sides):  # each side seals its own chit (8.6232): one line per side still to
            return [f"{PROG} initiative --chit {s}={chit_choices(rules, state, s)}"  # seal, the player's own
                    for s in sides if s not in state.sealed_chits and (me is None or s == me)]
        return [f"{PROG} initiative " + " ".join(f"--chit {s}={chit_choices(rules, state, s)}" for s in sides)]
    if need["rg"] is not None:
        return [f"{PROG} roll {need['table']} --side {need['side']} --rg {need['rg']}"]
    tables = [t for t in rules.tables.values() if t.effect == need["effect"]]
    return [f"{PROG} roll {t.id} --side {side}" for t in sorted(tables, key=lambda t: t.id)
            for side in ([need["side"]] if need["side"] else (t.sides or sides))]


def with_commands(rules, state, needs: list[dict], me: str | None = None) -> list[dict]:
    """The needs, each with `command` (the first line to paste) and `commands` (every way to meet it); `me`: the
    side whose key is given, offered only its own sealed chit."""
    out = []
    for need in needs:
        lines = need_commands(rules, state, need, me)
        if need["effect"] == "initiative" and not lines:
            continue  # this side's chit is sealed: it waits for the other side's (status `waiting_for_chit`)
        out.append({**need, "command": lines[0] if lines else None, "commands": lines})
    return out


def options(rules, state, needs: list[dict], step: str | None = None, only: str | None = None) -> list[dict]:
    """What players may do in the open step besides its needs: {text, command, rule}. SIDE, UNIT, ... are for the
    player to fill in. `step`, `only`: what one side may do in the step it stands in (each side walks the RePh)."""
    step = step or state.step
    sides = only or "|".join(rules.system.sides)
    out: list[dict] = []
    if step != SCENARIO:
        data = rules.steps[step]
        if data.purchase == "rg":
            where = (f" --map-group {'|'.join(g.id for g in rules.system.map_groups)} [--objective HEX]"
                     if rules.system.map_groups and rules.system.rg_date_max == "map_group" else "")
            secret = " (kept secret once the side has a key: --open to show it)" if data.secret else ""
            out.append({"text": f"buy Reinforcement Groups from the side's RG chart{secret}", "rule": step,
                        "command": f"{PROG} buy RG_ID --side {sides}{where}"})
        if data.purchase == "fortifications":
            out.append({"text": "buy Fortifications with this CG Date's FPP", "rule": step,
                        "command": f"{PROG} fortify ITEM --side {sides} --setup-area ID [--count N]"})
        if data.control:
            out.append({"text": "record a change of Control", "rule": step,
                        "command": f"{PROG} control LOCATION --side {sides}"})
    else:
        out.append({"text": "record a change of Control during play", "rule": None,
                    "command": f"{PROG} control LOCATION --side {sides}"})
        out.append({"text": "import the game's VASL log or chat (its dice reports)", "rule": None,
                    "command": f"{PROG} vasl-import FILE"})
    needed = {n["table"] for n in needs}
    for table in sorted(rules.tables.values(), key=lambda t: t.id):
        if step not in (table.step, *table.steps) or table.id in needed or per(table) == "rg":
            continue
        may = [s for s in (table.sides or rules.system.sides) if (only is None or s == only)
               and _admitted(rules, state, table, s)]
        if not may:
            continue  # not on this CG Date, or rolled already
        who = "|".join(may)
        unit = " --for UNIT" if per(table) == "unit" else ""
        played = ""  # during a scenario the players are at the table: the dice of play first, never a fair roll's wait
        if step == SCENARIO and state.fair_in_force(rules.system.sides):
            played = " --dice " + ("W,C" if table.die == "DR" else "N") + ' (or --vasl "LINE")'
        out.append({"text": table.title, "rule": table.rule,
                    "command": f"{PROG} roll {table.id} --side {who}{unit}{played}"})
    if not needs:
        out.append({"text": "go on to the next step", "rule": None, "command": f"{PROG} step next"})
    return out


def _admitted(rules, state, table, side: str) -> bool:
    try:
        admit(state, rules, table.id, side, None, "UNIT")
    except LedgerError:
        return False
    return True


def passed(rules, skipped: tuple[str, ...]) -> list[dict]:
    """The steps a move passed over, each with what it was for (its purpose, from its rule text, in the system's
    data; else its note)."""
    return [{"step": s, "title": title(rules, s), "purpose": rules.steps[s].purpose or None,
             "note": rules.steps[s].purpose or rules.steps[s].note or None} for s in skipped]


def purpose(rules, step: str) -> str | None:
    """What the open step is for (None for the CG scenario)."""
    return rules.steps[step].purpose or None if step != SCENARIO else None
