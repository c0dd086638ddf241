"""What players can do next, as command lines to paste: each open need of the RePh step (with the side that
rolls, and the RG a follow-up roll is for), and what the rules let players do in the open step even when nothing
is needed (the step's own optional rolls, its purchases, Control changes, the scenario's SSR rolls). Read from
the step and table data of the campaign's own system; no step is named in code."""

from __future__ import annotations

import msgspec

from cgledger.ledger.decide import chits
from cgledger.ledger.decide.purchases import by_map_group, needs_objective
from cgledger.ledger.decide.rolls import admit, per, setup_unsettled
from cgledger.ledger.decide.steps import (applies, crosses_together, decide_winner, describe, need_applies, next_step,
                                          title, unmet)
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.evolve import SCENARIO

PROG = "cgledger"


def need_commands(rules, state, need: dict, own: str | None = None, secret=()) -> list[str]:
    """The command lines that meet one need (`steps.unmet`): one per side that may roll it when the rules name no
    side. What the players choose stays open: LVP as N, chits as attack|idle (idle only once a side's Attack Chits
    are used up, 8.6231), a winner the rules do not decide (the Initial Scenario's Victory Conditions, 8.6234) as
    one of the sides. `own`: the side of the key given (once both sides hold keys, a player seals its own chit
    only, and of a roll either side may make, is offered his own). `secret`: the RGs bought in secret (8.619), by
    event, where `state` is a side's own view."""
    sides = list(rules.system.sides)
    if need["effect"] == "scenario_end":
        lvp = " ".join(f"--lvp {s}=N" for s in sides)
        undecided = rules.system.scenario_victory and decide_winner(
            rules, state.scenario, state.lvp, {s: 0 for s in sides}) is None
        return [f"{PROG} scenario-end {lvp}" + (f" --winner {'|'.join(sides)}" if undecided else "")]
    if need["effect"] == "initiative":
        if not chits.sealed_play(state, rules):
            return [f"{PROG} initiative " + " ".join(f"--chit {s}={chits.choices(state, rules, s)}" for s in sides)]
        return [f"{PROG} initiative --chit {s}={chits.choices(state, rules, s)}" for s in sides
                if s not in state.sealed_chits and own in (None, s)]
    if need["rg"] is not None:  # this roll, or every roll due now for the RG in one command
        ref = need.get("rg_ref") or need["rg"]  # I2#1 where the RG is known
        lines = [f"{PROG} roll {need['table']} --side {need['side']} --rg {ref}"
                 + required_drms(rules.tables.get(need["table"]), state, need["side"]),
                 f"{PROG} follow-ups --side {need['side']} --rg {ref}"]
        # an RG bought in secret: all at once, as many as any RG of the chart may declare (8.619: the count tells)
        return lines[::-1] if str(need["rg"]) in {*state.secret_rgs, *secret} else lines
    tables = [t for t in rules.tables.values() if t.effect == need["effect"] and not waits_for_both(state, t)
              and setup_unsettled(rules, state, t) is None]
    return [f"{PROG} roll {t.id} --side {side}{required_drms(t, state, side)}" for t in sorted(tables, key=lambda t: t.id)
            for side in ([need["side"]] if need["side"] else [s for s in (t.sides or sides) if own in (None, s)])]


def waits_for_both(state, table) -> bool:
    """A roll made once both sides stand in its step (`together`: 8.6233a, after all setup), one of them not yet."""
    return bool(table.together) and state.edition >= 4 and state.step != table.step


def required_drms(table, state, side: str | None) -> str:
    """The declared DRMs a table cannot be rolled without (`required`), as options: the value the ledger knows
    (a side's SAN after its last SAN dr) where it knows it, else N for the player to give."""
    out = ""
    for drm in (table.drm if table is not None else ()):
        if drm.kind == "declared" and drm.required:
            known = state.san.get(side) if drm.known == "san" and side else None
            out += f" --drm {drm.key}={known if known is not None else 'N'}"
    return out


def with_commands(rules, state, needs: list[dict], own: str | None = None, secret=()) -> list[dict]:
    """The needs, each with `command` (the first line to paste) and `commands` (every way to meet it); `own`: the
    side of the key given."""
    out = []
    for need in needs:
        lines = need_commands(rules, state, need, own, secret)
        if need["effect"] == "initiative" and own is not None and chits.sealed_play(state, rules):
            need = {**need, "text": _own_chit_text(rules, state, own)}
        table = rules.tables.get(need.get("table") or "")
        if table is not None and waits_for_both(state, table):
            need = {**need, "text": f"{need['text']}, made once the other side stands here too, all setup complete "
                                    f"({table.together})"}
        elif table is not None and (waiting := setup_unsettled(rules, state, table)) is not None:
            need = {**need, "text": f"{need['text']}, made once the roll on {waiting['table']} has its dice, all setup "
                                    f"complete ({table.together})"}
        out.append({**need, "command": lines[0] if lines else None, "commands": lines})
    return out


def _own_chit_text(rules, state, own: str) -> str:
    """Initiative as the player of `own` sees it once both sides hold keys: its chit to seal, or what it waits for."""
    names = rules.system.sides
    others = [s for s in rules.system.sides if s != own]
    mine = state.sealed_chits.get(own)
    if mine is None:
        return f"your {names[own]} Initiative chit, sealed with your key (the other side seals its own)"
    waiting = [s for s in others if s not in state.sealed_chits]
    if waiting:
        return (f"the {' and '.join(names[s] for s in waiting)} side's chit: your {names[own]} chit is sealed (event "
                f"{mine['version']}) and waits for it")
    return (f"the {' and '.join(names[s] for s in others)} chit revealed: both chits are sealed, and the "
            f"{' and '.join(names[s] for s in others)} side's ledger reveals its own on its next command")


def ahead(rules, state) -> list[dict]:
    """What the scenario Initiative gives makes the rest of this RePh need (step needs with a `scenario` condition,
    as data): while the chits are still to be resolved, each scenario's rolls as {if, step, text}; once resolved,
    those of the later steps the scenario calls for ({if: None, ...}; the open step's own are in `needs`)."""
    if state.step == SCENARIO:
        return []
    order = [s.id for s in rules.system.steps]
    open_step = rules.steps[state.step]
    choosing = not state.scenario and any(n.effect == "initiative" for n in open_step.needs)
    left = chits.left(state, rules)
    possible = {scenario for key, scenario in rules.system.initiative.items()  # with the Attack Chits left (8.6231)
                if all(chit == "idle" or left.get(side) != 0 for side, chit in (p.split(":") for p in key.split("/")))}
    out = []
    for step in rules.system.steps[order.index(state.step):]:
        if step.new_cg_date and step.id != state.step:
            break  # the next CG Date's steps: its scenario is chosen there, not this one's (played already)
        if not applies(step, state):
            continue
        for need in step.needs:
            if not need.scenario:
                continue
            if choosing:
                if need.scenario not in possible or not need_applies(rules, state,
                                                                     msgspec.structs.replace(need, scenario=None)):
                    continue
            elif step.id == state.step or not need_applies(rules, state, need):
                continue
            for side in need.sides or [None]:
                what = describe(rules, need.effect, side, state)["text"]
                out.append({"if": need.scenario if choosing else None, "step": step.id, "title": title(rules, step.id),
                            "rule": step.id, "text": what})
    return out


def options(rules, state, needs: list[dict], step: str | None = None, only: str | None = None,
            go_on: bool = True, fpp: dict | None = None, placeable: dict | None = None) -> list[dict]:
    """What players may do in the open step besides its needs: {text, command, rule}. SIDE, UNIT, ... are for the
    player to fill in. `step`, `only`: what one side may do in the step it stands in (each side walks the RePh).
    `go_on`: whether the step decision would take `step next` now. `fpp`: each side's FPP as the reader knows them
    (his own secret purchases counted; default the campaign's). `placeable`: CGS, per side, the fortifications it
    may place now (ledger/decide/fortify.py `placeable`)."""
    step = step or state.step
    have = state.fpp if fpp is None else fpp
    out = _acts_of_step(rules, step, only, needs, have) + _rolls_of_step(rules, state, step, only, needs)
    if step == SCENARIO and not rules.system.steps:
        out += _bought_and_placed(rules, only, placeable or {})
    if not needs and go_on and rules.system.steps:  # CGS has no steps: its firefight ends by firefight-end
        out.append({"text": "go on to the next step", "rule": None, "command": f"{PROG} step next"})
    return out


def _acts_of_step(rules, step: str, only: str | None, needs: list[dict], fpp: dict) -> list[dict]:
    """The step's purchases and Control changes; during play, Control, the VASL log, a firefight's end.
    Fortifications only to a side with FPP to spend (8.621: they are bought with this CG Date's FPP)."""
    sides = only or "|".join(rules.system.sides)
    out: list[dict] = []
    if step != SCENARIO:
        data = rules.steps[step]
        if data.purchase == "rg":
            out += _purchases(rules, step, only, data.secret)
        buyers = [s for s in rules.system.sides if only in (None, s) and _fpp_to_spend(rules, fpp, s, step)]
        if buyers:
            out.append({"text": "buy Fortifications with this CG Date's FPP (`rg-chart --side SIDE` lists them and "
                                "their FPP)", "rule": step,
                        "command": f"{PROG} fortify ITEM --side {'|'.join(buyers)} --setup-area ID [--count N]"})
        if data.control and _maps_known(rules):
            out.append({"text": "record a change of Control", "rule": step,
                        "command": f"{PROG} control LOCATION --side {sides}"})
        return out
    if _maps_known(rules):
        out.append({"text": "record a change of Control during play", "rule": None,
                    "command": f"{PROG} control LOCATION --side {sides}"})
    out.append({"text": "import the game's VASL log or chat (its dice reports)", "rule": None,
                "command": f"{PROG} vasl-import FILE"})
    if not rules.system.steps and rules.maps and not needs:  # CGS: no Refit Phase; a firefight ends on its map
        out.append({"text": "end the Campaign Firefight: what it leaves on the map, then the next one",
                    "rule": None, "command": f"{PROG} firefight-end --map {'|'.join(sorted(rules.maps))}"})
    return out


def _rolls_of_step(rules, state, step: str, only: str | None, needs: list[dict]) -> list[dict]:
    """The rolls the step offers besides its needs, to each side the ledger would take them from now."""
    out: list[dict] = []
    needed = {n["table"] for n in needs}
    for table in sorted(rules.tables.values(), key=lambda t: t.id):
        if step not in (table.step, *table.steps) or table.id in needed or per(table) == "rg":
            continue
        may = [s for s in (table.sides or rules.system.sides) if (only is None or s == only)
               and _admitted(rules, state, table, s) and _known_in_range(table, state, s)]
        if not may:
            continue  # not on this CG Date, or rolled already
        who = "|".join(may)
        unit = " --for UNIT" if per(table) == "unit" else ""
        if table.map is not None:  # CGS: the hex it is made for (7.4.7), or the hexside (7.3.2)
            unit += " --hex HEX/HEX" if table.map.hexside else " --hex HEX"
        played = ""  # during a scenario the players are at the table: the dice of play first, never a fair roll's wait
        if step == SCENARIO and state.fair_in_force(rules.system.sides):
            played = " --dice " + {"DR": "W,C", "d100": "T,U"}.get(table.die, "N") + ' (or --vasl "LINE")'
        drms = required_drms(table, state, may[0] if len(may) == 1 else None)
        out.append({"text": table.title, "rule": table.rule,
                    "command": f"{PROG} roll {table.id} --side {who}{unit}{drms}{played}"})
    return out


def _purchases(rules, step: str, only: str | None, secret: bool) -> list[dict]:
    """8.619 (RR 2.518): buying RG. KGP buys each for a Map Group (8.6195), and an 'I'- or 'HW'-type RG with its
    Objective Hex (8.6198), which `buy` refuses to leave out: those RG are offered on a line of their own with
    `--objective HEX` required, the others on one without it. Each line names the sides whose chart has such RG."""
    sides = [only] if only else list(rules.system.sides)
    kept = " (kept secret once the side has a key: --open to show it)" if secret else ""
    if not by_map_group(rules):
        return [{"text": f"buy Reinforcement Groups from the side's RG chart{kept}", "rule": step,
                 "command": f"{PROG} buy RG_ID --side {'|'.join(sides)}"}]
    where = f" --map-group {'|'.join(g.id for g in rules.system.map_groups)}"
    charted = [(side, needs_objective(rules, rg_id)) for side, rg_id in rules.rgs if side in sides]
    out = []
    for objective, text, rule, tail in (
            (True, "buy an 'I'- or 'HW'-type Reinforcement Group with its Objective Hex", rules.cite("objective"),
             " --objective HEX"),
            (False, "buy any other Reinforcement Group from the side's RG chart", step, "")):
        who = [s for s in sides if (s, objective) in charted]
        if who:
            out.append({"text": text + kept, "rule": rule or step,
                        "command": f"{PROG} buy RG_ID --side {'|'.join(who)}{where}{tail}"})
    return out


def _bought_and_placed(rules, only: str | None, placeable: dict) -> list[dict]:
    """CGS has no purchase step: RG, its fortifications among them (7.2.3, 7.4.2, 7.5.1), are bought from the side's
    chart as the campaign goes, and a fortification bought is placed on the map: offered to the sides whose chart
    has RG, and to each side with fortifications to place (those it may set up hidden on a line of their own)."""
    sides = [s for s in rules.system.sides if only in (None, s)]
    charted = [s for s in sides if any(side == s for side, _rg in rules.rgs)]
    out = [{"text": "buy a Reinforcement Group from the side's RG chart (fortifications are bought as RG)",
            "rule": None, "command": f"{PROG} buy RG_ID --side {'|'.join(charted)}"}] if charted else []
    for side in sides:
        items = placeable.get(side, [])
        if items:
            out.append({"text": "place a fortification the side bought", "rule": items[0].rule,
                        "command": f"{PROG} place {'|'.join(p.id for p in items)} HEX --side {side}"})
        hidden = [p for p in items if p.hidden]
        if hidden:
            out.append({"text": "set up a fortification the side bought hidden", "rule": hidden[0].hidden_rule
                        or hidden[0].rule, "command": f"{PROG} place {'|'.join(p.id for p in hidden)} HEX "
                                                      f"--side {side} --hidden"})
    return out


def _maps_known(rules) -> bool:
    """Control can be recorded: a map file gave a Map Group its grid (8.605; no map is in the rules seeds)."""
    return bool(rules.maps)


def _known_in_range(table, state, side: str) -> bool:
    """A required declared DRM the log knows (a side's SAN) is within the table's bounds: else the roll offered with
    it would be refused (RR 2.5122 at SAN 4: no dr below SAN 5)."""
    for drm in table.drm:
        if drm.kind == "declared" and drm.required and drm.known == "san":
            known = state.san.get(side)
            if known is not None and ((drm.min is not None and known < drm.min)
                                      or (drm.max is not None and known > drm.max)):
                return False
    return True


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


def _fpp_to_spend(rules, fpp: dict, side: str | None, step: str) -> bool:
    """`step` is where Fortifications are bought (8.621, RR 2.520) and the side (at one table, any side) holds FPP
    of this CG Date: FPP not spent there are forfeit."""
    if step == SCENARIO or rules.steps[step].purchase != "fortifications":
        return False
    return any(fpp.get(s, 0) > 0 for s in ([side] if side else rules.system.sides))


def _to_buy(rules, state, cpp: dict, side: str | None, step: str) -> str:
    """What the side (at one table, any side) may still buy in `step` this CG Date and gives up by going on past
    it, in words; '' for nothing. FPP to spend on Fortifications (8.621, RR 2.520); RG (8.619, RR 2.518) where its
    CPP buy the cheapest RG of its chart, or its CPP Replenishment (8.616, RR 2.516) is declared and not made yet."""
    if _fpp_to_spend(rules, state.fpp, side, step):
        return f"FPP to spend on Fortifications (those not spent are forfeit once the side goes on past {step})"
    if step == SCENARIO or rules.steps[step].purchase != "rg":
        return ""
    for s in [side] if side else list(rules.system.sides):
        cheapest = cheapest_rg(rules, s)
        if cheapest is not None and (cheapest <= cpp.get(s, 0) or replenishment_coming(rules, state, s)):
            return (f"CPP to buy Reinforcement Groups with (none are bought this CG Date once the side goes on "
                    f"past {step}; its CPP carry over)")
    return ""


def cheapest_rg(rules, side: str) -> int | None:
    """The cost of the cheapest RG of the side's chart (None: the chart prices none)."""
    return min((rg.cost for (owner, _id), rg in rules.rgs.items() if owner == side and rg.cost is not None),
               default=None)


def may_buy(rules, state, side: str) -> bool:
    """Whether the side may still buy an RG, as the public books know it: its chart prices an RG and its CPP buy the
    cheapest, or it holds CPP the books do not show (a CPP Replenishment sealed or still to be made: 8.616, RR 2.516)."""
    cheapest = cheapest_rg(rules, side)
    return cheapest is not None and (state.cpp.get(side, 0) >= cheapest
                                     or any(r["side"] == side for r in unseen_replenishments(rules, state)))


def _waits_to_buy(rules, state, side: str | None, here: str) -> bool:
    """In the RG purchase step, a side that has bought nothing this CG Date while its CPP Replenishment is still to
    come: going on would end its purchases before it knows what it buys with (8.616 comes before 8.619). A side that
    bought with the CPP it held is offered what comes next, told that it ends its purchases (`_ends_purchases`)."""
    return here != SCENARIO and rules.steps[here].purchase == "rg" and replenishment_coming(rules, state, side) \
        and _bought_nothing(rules, state, side)


def _ends_purchases(rules, state, cpp: dict, side: str | None, here: str, acts: list[dict]) -> list[dict]:
    """Next acts from the RG purchase step while the side may still buy: each says that it ends this CG Date's
    purchases, before its CPP Replenishment comes with the other side's answer, or with CPP left that buy an RG
    (they carry over, 8.6162)."""
    if not acts or here == SCENARIO or rules.steps[here].purchase != "rg":
        return acts
    if replenishment_coming(rules, state, side):
        said = (f"; it ends this CG Date's purchases ({here}) before your CPP Replenishment comes with the other "
                "side's answer (those CPP carry over)")
    elif side and _to_buy(rules, state, cpp, side, here):
        said = f"; it ends this CG Date's purchases ({here}): your {cpp.get(side, 0)} CPP left carry over"
    else:
        return acts
    return [{**act, "text": act["text"] + said} for act in acts]


def _bought_nothing(rules, state, side: str | None) -> bool:
    """The side (at one table, every side) has bought no RG this CG Date, in the open or in secret."""
    sides = [side] if side else list(rules.system.sides)
    return not any(k.split(":")[0] in sides and n for k, n in state.bought_today.items()) \
        and not any(e["side"] in sides and e.get("cg_date") == state.cg_date for e in state.secret_rgs.values())


def _buy_here(rules, state, cpp: dict, side: str | None, here: str) -> list[dict]:
    """In the RG purchase step, a side that has bought nothing this CG Date and holds CPP for an RG of its chart: its
    purchases are the next act (8.619, RR 2.518), not a walk past them; going on is its choice (CPP carry over)."""
    if here == SCENARIO or rules.steps[here].purchase != "rg" or not _bought_nothing(rules, state, side) \
            or not _to_buy(rules, state, cpp, side, here):
        return []
    held = f"your {cpp.get(side, 0)} CPP" if side else "CPP"
    chart = f"`{PROG} rg-chart --side {side}`" if side else "`cgledger rg-chart`"
    return [said_act(rules, side, here, state.cg_date, "rg",  # the buy lines are under `may`
                     f"{held} buy Reinforcement Groups here ({chart} lists them; the buy lines are below); going on "
                     f"past {here} ends this CG Date's purchases, the CPP carry over")]


def unseen_replenishments(rules, state) -> list[dict]:
    """The CPP Replenishment rolls (8.616, RR 2.516) whose CPP the public books do not show: made and sealed, not
    revealed yet ('made': True), or declared and their dice not made yet ('made': False); each with its 'side'."""
    return [{"side": v["side"], "made": True} for v in state.sealed.values()
            if v.get("effect") == "cpp_replenishment"] + [
        {"side": d["side"], "made": False} for d in state.declared.values() if not d["made"]
        and rules.tables.get(d["table"]) is not None and rules.tables[d["table"]].effect == "cpp_replenishment"]


def replenishment_coming(rules, state, side: str | None) -> bool:
    """The side's CPP Replenishment (8.616, RR 2.516) is declared and its dice not made yet (any side's: None)."""
    return any((side is None or r["side"] == side) and not r["made"] for r in unseen_replenishments(rules, state))


def purpose(rules, step: str) -> str | None:
    """What the open step is for (None for the CG scenario)."""
    return rules.steps[step].purpose or None if step != SCENARIO else None


def next_acts(rules, state, here: str, side: str | None, walking: bool, secret=(), cpp: dict | None = None
              ) -> list[dict]:
    """Where nothing more is needed here: the first step ahead (up to the scenario) that needs something of this
    side (`side`; at one table, of anyone), with the command lines, which walk the side there themselves
    (ledger/verbs/walking.py). A purchase step ahead where the side may buy stops the walk there: the side is
    brought to its purchases, not past them. In the step where FPP are spent nothing beyond is offered (those not
    spent are forfeit); CPP carry over (8.6162), so from the RG step the next act is offered, unless the side bought
    nothing yet and its CPP Replenishment is still to come with the other side's answer. `cpp`: each side's
    CPP as the reader knows them (default the campaign's). Guidance only: each act is decided when it is made."""
    cpp = state.cpp if cpp is None else cpp
    if _fpp_to_spend(rules, state.fpp, side, here):
        return []  # nothing beyond: its FPP spent here or forfeit by going on (what it may do says both)
    if _waits_to_buy(rules, state, side, here):
        return []  # nothing beyond: the CPP it buys with come with the other side's answer (its dice are waited for)
    buying = _buy_here(rules, state, cpp, side, here)
    if buying:
        return buying  # nothing beyond: its purchases first
    return _ends_purchases(rules, state, cpp, side, here, _ahead(rules, state, here, side, walking, secret, cpp))


def _ahead(rules, state, here: str, side: str | None, walking: bool, secret, cpp: dict) -> list[dict]:
    """The first step ahead that needs something of the side, as next acts (`next_acts`)."""
    from cgledger.ledger.decide import walk as walkmod

    at = here
    path: list[str] = []
    # the optional rolls the side could still make on the way: in the step it leaves, and in each step passed
    optional = _in_step(here, _optional_rolls(rules, state, side, here)) if here in rules.steps else []
    # from the scenario, its end (8.603) is the next act; before it, the walk never enters the scenario
    skipped = ("first_move",) if here == SCENARIO else ("scenario_end",)
    for _ in range(len(rules.system.steps) + 1):
        at = next_step(rules, state, at)
        if at == SCENARIO and walking and side:
            return _passing(_to_the_door(rules, state, side, [*path, at]), optional, [here, *path, at])
        if at == SCENARIO or at in path or at == here:
            return []  # never into the scenario, nor round the RePh a second time (an Idle Day repeats it)
        path.append(at)
        try:
            date = walkmod.date_on(rules, state, path)  # past a new CG Date's step: that date, its scenario undecided
        except LedgerError:
            return []  # the CG has no CG Date after this one: nothing ahead
        buying = _to_buy(rules, state, cpp, side, at) if date == state.cg_date else ""
        owed = [n for n in (walkmod.owed(rules, state, side, at, date) if walking and side
                            else unmet(rules, state, at, done=[], date=date)) if n["effect"] not in skipped]
        if buying or owed:
            return _passing(_stop_at(rules, state, side, walking, path, date, buying, owed, secret), optional,
                            [here, *path])
        # a step of the CG Date ahead too (its SAN dr, RR 2.5122), as the rolls stand now: guidance only
        optional += _in_step(at, _optional_rolls(rules, state, side, at))
    return []


def _stop_at(rules, state, side: str | None, walking: bool, path: list[str], date: str, buying: str, owed: list[dict],
             secret) -> list[dict]:
    """The next acts in the step ahead where the walk stops (`path[-1]`), the side having something to do there: its
    acts, or the walk up to a door it stops at first; nothing where the step decision refuses the walk there."""
    from cgledger.ledger.decide import walk as walkmod

    at = path[-1]
    setup = walkmod.setup_order_unknown(rules, state, at) if walking and side else None
    if setup is not None:  # entered once all setup is complete: the setup order first (8.6233a)
        return [said_act(rules, side, at, date, "step",
                         f"the setup order is not known yet (the roll on {setup} has no result: a fair roll's comes "
                         f"with the other side's answer); once it is and your setup is done, go on to {at}")]
    if not walking and walkmod.signing_sides(state) and walkmod.lands(rules, state, "", at) is None:
        return []  # one side keyed: the step decision refuses the walk there (the other side's key first)
    if walking and side and walkmod.lands(rules, state, side, at) != at:
        # the walk there stops short at a door both sides cross together (its walk there is the next act), or is
        # refused: not yet
        return _to_the_door(rules, state, side, path)
    return _acts_at(rules, state, side, at, date, buying, owed, secret)


def _optional_rolls(rules, state, side: str | None, at: str) -> list[str]:
    """The rolls the side may still make in a step ahead that needs nothing of it (Wounded Leaders, Shift, Escape, a
    Recon dr bought with CPP; a SAN dr the log does not know to be needed, RR 2.5122), by title: a walk past it gives
    them up. A roll the step needs of the side is owed, not optional."""
    needed = {n["effect"] for n in unmet(rules, state, at, done=[]) if side is None or n["side"] in (None, side)}
    found = []
    for table in sorted(rules.tables.values(), key=lambda t: t.id):
        if at not in (table.step, *table.steps) or per(table) == "rg" or table.effect in needed:
            continue
        for s in [side] if side else list(table.sides or rules.system.sides):
            try:
                admit(state, rules, table.id, s, None, "UNIT", at=at)
            except LedgerError:
                continue
            found.append(table.title)
            break
    return found


def _in_step(step: str, titles: list[str]) -> list[tuple[str, str]]:
    """A step's optional rolls in one phrase, with the step: "8.611's Leader Battle Hardening Table", "8.614's A, B"."""
    return [(step, f"{step}'s {', '.join(titles)}")] if titles else []


def _passing(acts: list[dict], optional: list[tuple[str, str]], order: list[str]) -> list[dict]:
    """The next acts, each saying the optional rolls its walk passes (the player's to make first, or give up): those
    of the steps before the act's own on the way (`order`: the step left, then each step ahead)."""
    out = []
    for act in acts:
        upto = order.index(act["step"]) if act.get("step") in order else len(order)
        passed = [text for step, text in optional if step in order[:upto]]
        said = f" (passing {'; '.join(passed)}: optional, given up once passed)" if passed else ""
        out.append({**act, "text": act["text"] + said})
    return out


def _acts_at(rules, state, side: str | None, at: str, date: str, buying: str, owed: list[dict], secret) -> list[dict]:
    """The next acts in the step ahead where the side has something to do: its purchases (a walk past them would
    give them up), the walk there for a roll both sides stand there for, or what it owes there."""
    if buying:
        return [_walk_to(rules, side, at, date, rules.steps[at].purchase, buying)]
    if all(n.get("table") and waits_for_both(state, rules.tables[n["table"]]) for n in owed):
        table = rules.tables[owed[0]["table"]]
        return [_walk_to(rules, side, at, date, "step", f"your setup done, go on to {at}: its roll is made once both "
                                                         f"sides stand there ({table.together})")]
    return [{**need, "step": at, "title": title(rules, at), "cg_date": date}
            for need in with_commands(rules, state, owed, side, secret)]


def _to_the_door(rules, state, side: str, path: list[str]) -> list[dict]:
    """Nothing more of the side's up to a door both sides cross together (a new CG Date, the scenario): the walk up to
    it in one command (`step DOOR`), where the side does not stand at it already and the walk is accepted."""
    from cgledger.ledger.decide import walk as walkmod

    door = next((s for s in path if crosses_together(rules, s)), None)
    if door is None or walkmod.position(state, side) == door or walkmod.lands(rules, state, side, door) is None:
        return []
    try:
        into = "the scenario" if door == SCENARIO else \
            f"CG Date {walkmod.date_on(rules, state, path[:path.index(door) + 1])}"
    except LedgerError:
        return []  # the CG has no CG Date after this one
    return [_walk_to(rules, side, door, state.cg_date, "step",
                     f"nothing more of yours up to {into}, which both sides enter together: walk up to its door")]


def said_act(rules, side: str | None, at: str, date: str, effect: str, text: str) -> dict:
    """A next act that is said, with no line to run (its lines are offered elsewhere, or nothing is to be run yet)."""
    return {**_walk_to(rules, side, at, date, effect, text), "command": None, "commands": []}


def _walk_to(rules, side: str | None, at: str, date: str, effect: str, text: str) -> dict:
    """A next act that is the walk to a step (its purchases, a roll both sides stand there for)."""
    return {"effect": effect, "side": side, "table": None, "rg": None, "text": text, "step": at,
            "title": title(rules, at), "cg_date": date, "command": f"{PROG} step {at}", "commands": [f"{PROG} step {at}"]}
