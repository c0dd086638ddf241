"""Dice statistics over the whole campaign, per side and source (ledger, entered, vasl): counts, means
against 7.0 / 3.5, the distribution against the expected one with a chi-square p-value, the longest
streaks, rolls per table; undone rolls counted apart (they are what players dispute). The VASL rolls also per
scenario (each imported file), per player and per category. Pure.

`plain_stats` is the plain definition (every roll listed, the statistics computed over them: dice_plain.py);
`dice_stats` gives the same from a fold (`fold`/`step`, the view kept current by projections/kept.py) that keeps, per
group the output shows, only the counts per total, the sums and the streak runs, so `finish` costs the groups, not
the rolls. The fold and `finish` are here; what a roll counts as and one die's statistics are in dice_math.py."""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import msgspec

from cgledger.ledger.domain.events import (
    CampaignStarted, CGDateChanged, DiceReported, DiceRolled, DiceWitnessed, SideKeyRegistered, VaslLogImported,
)
from cgledger.ledger.domain.evolve import CLAIMED
from cgledger.ledger.domain.timeline import voided_actions

from .dice_math import EXPECTED, HIGH_LOW, MEAN, SOURCES, UNWITNESSED, _split, _stats, chi_square_sf
from .dice_plain import plain_stats, rolls_of, vasl_stats

__all__ = ["SOURCES", "EXPECTED", "MEAN", "HIGH_LOW", "UNWITNESSED", "chi_square_sf", "rolls_of", "vasl_stats",
           "plain_stats", "init", "fold", "start", "resume", "dice_stats", "finish"]

_TOTALS = {t: str(t) for t in range(0, 19)}  # a total as the JSON view keys its counts


# The dice as a kept view (projections/kept.py): per group the output shows (side and source, in force or undone;
# each side; each VASL scenario, player and category, of all sides and of each side; VASL's extra dice), the counts
# per total, the sums and the streak runs, folded roll by roll in log order. Which dice are not witnessed is the
# state's, known when read: a roll that may still be a claim not witnessed (typed or VASL dice once both sides hold
# keys, `CLAIMED`) waits in its (side, source) group's `pending` list, and every later roll of that group after
# it (streaks run in log order), until a witness settles it; `finish` labels the ones still waiting.
def init(rules=None) -> dict[str, Any]:
    return {"voided": [], "date": None, "imports": {}, "keyed": [], "keyed_all": False, "claims": {},
            "importing": None, "groups": {}, "pending": {}, "sides": {}, "vasl": {"all": _vasl_init(), "side": {}}}


def fold(logged) -> dict[str, Any]:
    return resume(start(logged), logged)


def start(logged, voided: list[int] | None = None) -> dict[str, Any]:
    """The view before any event, for folding this log (`voided`: its voided actions, sorted, if known)."""
    view = init()
    view["voided"] = sorted(voided_actions(logged)) if voided is None else voided
    # whether both sides register keys anywhere in this log: a Secret roll revealed later is a claim from then on
    view["keyed_all"] = len({e.fact.side for e in logged
                             if isinstance(e.fact, SideKeyRegistered) and e.fact.public}) >= 2
    return view


def resume(view: dict[str, Any], logged) -> dict[str, Any]:
    """These events (any: undone rolls are counted apart) folded into the view, in place; its `voided` already holds
    every action they void. A key registration is no step: it changes what rolls before it are (the view is folded
    again, `fold`)."""
    voided = set(view["voided"])
    waiting: dict[tuple, list] = {}  # rolls counted but not yet added to their counts (_flush): nearly every roll
    # (in force, side, source, die) -> (the side's waiting rolls or None, the group's, the group's tables): where a
    # roll of that kind goes until the next other event (which may flush, open a claim's wait or start an import)
    places: dict[tuple, tuple] = {}
    pending, sides, groups = view["pending"], view["sides"], view["groups"]
    importing = view["importing"]
    for event in logged:
        fact = event.fact
        if type(fact) is DiceRolled and importing is None and fact.source not in CLAIMED \
                and not fact.vasl and fact.die in EXPECTED:
            # a roll nobody need witness, counted at once (as _step and _count_unit count it): its totals wait in
            # `waiting`, per aggregate in order, and are added to the counts together (the streaks run in order)
            in_force = fact.action not in voided
            place = places.get((in_force, fact.side, fact.source, fact.die))
            if place is None:
                side, die = fact.side or "unassigned", fact.die
                source = SOURCES.get(fact.source, fact.source)
                key = _key(in_force, side, source)
                if key in pending:  # rolls of its group wait for a witness (only claims' groups do): after them
                    _flush(waiting)
                    places.clear()
                    _count_unit(view, side, die, list(fact.dice), source, fact.table, in_force, None)
                    continue
                group = _group(groups, key, in_force, side, source)
                place = places[in_force, fact.side, fact.source, die] = (
                    _wait(waiting, sides, side, die) if in_force else None, _wait(waiting, group, None, die),
                    group["tables"])
            own, grouped, tables = place
            if own is not None:
                own.append(fact.dice)
            grouped.append(fact.dice)
            name = fact.table or "(no table)"
            tables[name] = tables.get(name, 0) + 1
            continue
        if waiting:
            _flush(waiting)
            places.clear()
        _step(view, fact, event.version, voided)
        importing = view["importing"]
    if waiting:
        _flush(waiting)
    return view


def _wait(waiting: dict[tuple, list], holder: dict, side: str | None, die: str) -> list:
    """The list where rolls' dice for the aggregate of `die` in `holder` (a group, or with `side`, the sides' dict)
    wait until _flush adds them, in order."""
    entry = waiting.get((id(holder), side, die))
    if entry is None:
        if side is not None:
            both = holder.get(side)
            if both is None:
                both = holder[side] = {"DR": None, "dr": None}
        else:
            both = holder
        if both[die] is None:
            both[die] = _agg()
        entry = waiting[id(holder), side, die] = [both[die], die, []]
    return entry[2]


def _flush(waiting: dict[tuple, list]) -> None:
    """The rolls kept by _wait added to their aggregates (_add_rolls), and forgotten."""
    for agg, die, rolls in waiting.values():
        _add_rolls(agg, die, rolls)
    waiting.clear()


def _step(view: dict[str, Any], fact, version: int, voided: set[int]) -> dict[str, Any]:
    action = getattr(fact, "action", None)
    if view["importing"] is not None and action != view["importing"]:
        view["importing"] = None  # the import's attached rolls (its claims) are all in: its reports may settle
        _settle(view)
    kind = type(fact)
    if kind is DiceRolled or kind is DiceReported:  # nearly every event of a campaign: its own path
        _rolled(view, fact, version, action, action not in voided)
        return view
    folded = _OTHER.get(kind)
    if folded is not None:
        folded(view, fact, version, action not in voided)
    return view


def _rolled(view: dict[str, Any], fact, version: int, action, in_force: bool) -> None:
    """A roll (or a VASL report recorded alone) counted for its side, die, source and table; a claim kept."""
    kind = type(fact)
    ref = None
    if kind is DiceRolled and fact.source in CLAIMED and in_force and (
            len(view["keyed"]) >= 2 or (fact.secret and view["keyed_all"])):
        # may be a claim the other side has not witnessed
        view["claims"][str(version)] = [action, fact.table, list(fact.dice)]
        ref = version
    die = fact.die
    if die not in EXPECTED and die != "3d6":
        return
    if fact.vasl:  # a VASL roll: also counted per scenario, player and category
        if kind is DiceRolled and any(i["action"] == action for i in view["imports"].values()):
            return  # counted from its import
        _count(view, {"side": fact.side or "unassigned", "die": die, "dice": list(fact.dice),
                      "source": SOURCES.get(fact.source, fact.source), "table": getattr(fact, "table", None),
                      "in_force": in_force, "player": fact.player, "category": getattr(fact, "category", ""),
                      "scenario": f"action {action}", "third": None, "rof": None, "cg_date": view["date"],
                      "ref": ref})
        return
    side, source, table = fact.side or "unassigned", SOURCES.get(fact.source, fact.source), getattr(fact, "table", None)
    if die == "3d6":  # its DR and its dr (_split)
        white, colored, third = fact.dice
        _count_unit(view, side, "DR", [white, colored], source, table, in_force, ref)
        _count_unit(view, side, "dr", [third], source, table, in_force, ref)
    else:
        _count_unit(view, side, die, list(fact.dice), source, table, in_force, ref)


def _dated(view: dict[str, Any], fact, version: int, in_force: bool) -> None:
    if in_force:
        view["date"] = fact.cg_date


def _keyed(view: dict[str, Any], fact: SideKeyRegistered, version: int, in_force: bool) -> None:
    if fact.public and fact.side not in view["keyed"]:
        view["keyed"].append(fact.side)
        view["keyed_all"] = view["keyed_all"] or len(view["keyed"]) >= 2


def _witnessed(view: dict[str, Any], fact: DiceWitnessed, version: int, in_force: bool) -> None:
    if not fact.disputed:
        for roll in fact.rolls:
            view["claims"].pop(str(roll), None)
        _settle(view)


def _imported(view: dict[str, Any], fact: VaslLogImported, version: int, in_force: bool) -> None:
    view["imports"][str(version)] = {"action": fact.action, "file": fact.file, "form": fact.form}
    # its reports are claims through the rolls attached after it (same action)
    claims = len(view["keyed"]) >= 2 and in_force
    if claims:
        view["importing"] = fact.action
    date = view["date"]
    for entry in fact.reports:
        _count(view, {"side": entry.side or "unassigned", "die": entry.die, "dice": list(entry.dice),
                      "source": "vasl", "table": entry.table or None, "in_force": in_force,
                      "player": entry.player, "category": entry.category, "scenario": version,
                      "third": entry.third, "rof": entry.rof, "cg_date": date,
                      "ref": [fact.action, entry.table, list(entry.dice)] if claims else None})


_OTHER = {CampaignStarted: _dated, CGDateChanged: _dated, SideKeyRegistered: _keyed, DiceWitnessed: _witnessed,
          VaslLogImported: _imported}


def _agg() -> dict[str, Any]:
    return {"n": 0, "counts": {}, "sum": 0, "white": 0, "colored": 0, "run": [0, 0, 0], "prev": None,
            "best": [0, 0, 0]}


def _add(agg: dict[str, Any], die: str, dice: list[int]) -> None:
    """One roll into a die's counts (_add_rolls)."""
    _add_rolls(agg, die, (dice,))


def _add_rolls(agg: dict[str, Any], die: str, rolls) -> None:
    """Rolls, in order, into a die's counts: n, per total, sums, and the streak runs (as `_streaks` runs them)."""
    totals = [sum(dice) for dice in rolls]
    if die == "DR":
        agg["white"] += sum(dice[0] for dice in rolls)
        agg["colored"] += sum(dice[1] for dice in rolls)
    agg["n"] += len(totals)
    agg["sum"] += sum(totals)
    counts = agg["counts"]
    for total, times in (Counter(totals).items() if len(totals) > 8 else ((t, 1) for t in totals)):
        name = _TOTALS.get(total) or str(total)
        counts[name] = counts.get(name, 0) + times
    high, low = HIGH_LOW[die]
    (high_run, low_run, same_run), (high_best, low_best, same_best) = agg["run"], agg["best"]
    prev = agg["prev"]
    for total in totals:
        if total >= high:
            high_run += 1
            if high_run > high_best:
                high_best = high_run
        else:
            high_run = 0
        if total <= low:
            low_run += 1
            if low_run > low_best:
                low_best = low_run
        else:
            low_run = 0
        if total == prev:
            same_run += 1
            if same_run > same_best:
                same_best = same_run
        else:
            same_run = 1
            if same_best < 1:
                same_best = 1
            prev = total
    agg["run"][:] = high_run, low_run, same_run
    agg["best"][:] = high_best, low_best, same_best
    agg["prev"] = prev


def _add_both(both: dict[str, Any], die: str, dice: list[int]) -> None:
    if die in EXPECTED:
        if both[die] is None:
            both[die] = _agg()
        _add(both[die], die, dice)


def _both_out(both: dict[str, Any]) -> dict[str, Any]:
    return {"DR": _stats(both["DR"], "DR"), "dr": _stats(both["dr"], "dr")}


def _vasl_init() -> dict[str, Any]:
    return {"scenarios": {}, "players": {}, "categories": {}, "third": None, "rof": None}


def _count(view: dict[str, Any], roll: dict[str, Any]) -> None:
    """A roll (a 3d6 as its DR and dr) into every group it belongs to."""
    for unit in _split(roll):
        _count_unit(view, unit["side"], unit["die"], unit["dice"], unit["source"], unit["table"], unit["in_force"],
                    unit["ref"], unit if unit["player"] is not None else None)


def _count_unit(view: dict[str, Any], side: str, die: str, dice: list[int], source: str, table: str | None,
                in_force: bool, ref, vasl: dict[str, Any] | None = None) -> None:
    """One DR or dr into its side's counts (in force), its VASL groups (`vasl`: the unit, a VASL roll) and its
    (side, source) group, or that group's waiting list while a roll before it may be a claim not witnessed."""
    if in_force:
        both = view["sides"].get(side)
        if both is None:
            both = view["sides"][side] = {"DR": None, "dr": None}
        _add_both(both, die, dice)
        if vasl is not None:
            _count_vasl(view["vasl"]["all"], vasl)
            _count_vasl(view["vasl"]["side"].setdefault(side, _vasl_init()), vasl)
    key = _key(in_force, side, source)
    waiting = view["pending"].get(key)
    if waiting is None and ref is not None:
        waiting = view["pending"][key] = {"in_force": in_force, "side": side, "source": source, "rolls": []}
    if waiting is not None:
        waiting["rolls"].append([die, dice, table, ref])
    else:
        _group_add(view["groups"], in_force, side, source, die, dice, table, key)


def _count_vasl(vasl: dict[str, Any], unit: dict[str, Any]) -> None:
    die, dice = unit["die"], unit["dice"]
    player, category = unit["player"] or "", unit["category"] or ""
    scenario = vasl["scenarios"].get(str(unit["scenario"]))
    if scenario is None:
        scenario = vasl["scenarios"][str(unit["scenario"])] = {
            "scenario": unit["scenario"], "cg_date": unit["cg_date"], "reports": 0, "DR": None, "dr": None,
            "players": {}, "categories": {}}
    scenario["reports"] += 1
    _add_both(scenario, die, dice)
    _add_both(scenario["players"].setdefault(player, {"DR": None, "dr": None}), die, dice)
    _add_both(scenario["categories"].setdefault(category, {"DR": None, "dr": None}), die, dice)
    mine = vasl["players"].setdefault(player, {"sides": [], "DR": None, "dr": None, "categories": {}})
    if unit["side"] not in mine["sides"]:
        mine["sides"].append(unit["side"])
    _add_both(mine, die, dice)
    mine["categories"][category] = mine["categories"].get(category, 0) + 1
    _add_both(vasl["categories"].setdefault(category, {"DR": None, "dr": None}), die, dice)
    for name in ("third", "rof"):
        if unit[name] is not None:
            if vasl[name] is None:
                vasl[name] = _agg()
            _add(vasl[name], "dr", [unit[name]])


@cache
def _key(in_force: bool, side: str, source: str) -> str:
    return msgspec.json.encode([in_force, side, source]).decode()


def _group(groups: dict[str, Any], key: str, in_force: bool, side: str, source: str) -> dict[str, Any]:
    """The (side, source) group of rolls in force or undone, under its key (_key), made if new."""
    group = groups.get(key)
    if group is None:
        group = groups[key] = {"in_force": in_force, "side": side, "source": source, "DR": None, "dr": None,
                               "tables": {}}
    return group


def _group_add(groups: dict[str, Any], in_force: bool, side: str, source: str, die: str, dice: list[int],
               table: str | None, key: str | None = None) -> None:
    """`key`: the group's (`_key`), if the caller has it."""
    group = _group(groups, _key(in_force, side, source) if key is None else key, in_force, side, source)
    name = table or "(no table)"
    group["tables"][name] = group["tables"].get(name, 0) + 1
    _add_both(group, die, dice)


def _settled(view: dict[str, Any], ref) -> bool:
    """Whether a waiting roll's label is known for good: its claim witnessed (or no claim at all)."""
    if ref is None:
        return True
    if isinstance(ref, int):
        return str(ref) not in view["claims"]
    action, table, dice = ref
    return view["importing"] != action and not any(c[0] == action and c[1] == table and c[2] == dice
                                                   for c in view["claims"].values())


def _settle(view: dict[str, Any]) -> None:
    """The waiting rolls whose labels are known for good, from the head of each group's list, counted."""
    for key, waiting in list(view["pending"].items()):
        rolls = waiting["rolls"]
        done = 0
        while done < len(rolls) and _settled(view, rolls[done][3]):
            die, dice, table, _ref = rolls[done]
            _group_add(view["groups"], waiting["in_force"], waiting["side"], waiting["source"], die, dice, table)
            done += 1
        if done == len(rolls):
            del view["pending"][key]
        elif done:
            waiting["rolls"] = rolls[done:]


def dice_stats(logged, side: str | None = None, unwitnessed: frozenset[int] = frozenset()) -> dict[str, Any]:
    return finish(fold(logged), side, unwitnessed)


def finish(view: dict[str, Any], side: str | None = None, unwitnessed: frozenset[int] = frozenset()) -> dict[str, Any]:
    """What the dice statistics show, from the view (not changed): the rolls still waiting labelled by `unwitnessed`
    (the state's claims not witnessed) and counted on copies of their groups."""
    groups = dict(view["groups"])
    if view["pending"]:
        claimed = {(c[0], c[1], tuple(c[2])) for v, c in view["claims"].items() if int(v) in unwitnessed}
        for waiting in view["pending"].values():
            base = _key(waiting["in_force"], waiting["side"], waiting["source"])
            if base in groups:
                groups[base] = msgspec.json.decode(msgspec.json.encode(groups[base]))
            for die, dice, table, ref in waiting["rolls"]:
                source = waiting["source"]
                if ref is not None and (ref in unwitnessed if isinstance(ref, int)
                                        else (ref[0], ref[1], tuple(ref[2])) in claimed):
                    source += f", {UNWITNESSED}"
                _group_add(groups, waiting["in_force"], waiting["side"], source, die, dice, table)

    def out(in_force: bool) -> list[dict[str, Any]]:
        return [{"side": g["side"], "source": g["source"], "DR": _stats(g["DR"], "DR"), "dr": _stats(g["dr"], "dr"),
                 "tables": dict(sorted(g["tables"].items()))}
                for g in sorted(groups.values(), key=lambda g: (g["side"], g["source"]))
                if g["in_force"] == in_force and (side is None or g["side"] == side)]

    per_side = {s: _both_out(both) for s, both in sorted(view["sides"].items()) if side is None or s == side}
    vasl = view["vasl"]["all"] if side is None else view["vasl"]["side"].get(side, _vasl_init())
    return {"groups": out(True), "sides": per_side, "undone": out(False),
            "vasl": _vasl_out(vasl, {int(v): i for v, i in view["imports"].items()})}


def _vasl_out(vasl: dict[str, Any], imports: dict[int, dict]) -> dict[str, Any]:
    scenarios = []
    for mine in vasl["scenarios"].values():
        scenario = mine["scenario"]
        fact = imports.get(scenario)
        scenarios.append({"event": scenario if fact else None, "file": fact["file"] if fact else scenario,
                          "form": fact["form"] if fact else "", "cg_date": mine["cg_date"],
                          "reports": mine["reports"], **_both_out(mine),
                          "players": {p: _both_out(b) for p, b in sorted(mine["players"].items())},
                          "categories": {c: _both_out(b) for c, b in sorted(mine["categories"].items())}})
    players = {p: {"sides": sorted(mine["sides"]), **_both_out(mine),
                   "categories": dict(sorted(mine["categories"].items()))}
               for p, mine in sorted(vasl["players"].items())}
    return {"scenarios": scenarios, "players": players,
            "categories": {c: _both_out(b) for c, b in sorted(vasl["categories"].items())},
            "dust_die": _stats(vasl["third"], "dr"), "rof_die": _stats(vasl["rof"], "dr")}
