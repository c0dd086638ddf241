"""The campaign's story per CG Date: scenario, winner, LVP, CPP spent, RG, weather, notable rolls,
undos and rewinds. The input of the HTML report (projections/report.py)."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.decide import witness
from cgledger.ledger.domain.events import ActionUndone, CampaignStarted, CGDateChanged, DiceRolled, Rewound
from cgledger.ledger.domain.timeline import IDLE_DAY, ends_reph, summary, voided_actions

from .areas import areas_by_date, document, held_init, reph_ended, track
from .rg_record import rg_records
from .roster import public, rosters


def notable(fact: DiceRolled) -> bool:
    """Rolls players talk about: a DR of Original 2 or 12, and a result that changes the CG."""
    return (fact.die == "DR" and fact.original in (2, 12)) or bool(fact.sets) or fact.code == "D"


def history(logged, rules, state) -> dict[str, Any]:
    """`state` is the campaign state at the same point (for the header)."""
    from . import dice_stats as dice_view

    return compose(rosters(logged, rules), rg_records(logged, rules), dice_view.fold(logged), fold(logged, rules),
                   rules, state)


def compose(roster, records, dice_view, story, rules, state) -> dict[str, Any]:
    """The history from its parts, each a kept view (projections/kept.py) or folded from the log: the finished
    rosters and RG records, the dice view, and the story's own view (`fold`). Pure."""
    from . import dice_stats as dice_of

    sides = list(rules.system.sides)
    dates: list[dict[str, Any]] = []
    for index, row in enumerate(roster[sides[0]]):
        dates.append({
            "date": row["date"], "scenario": row["scenario"], "winner": row["win"],
            "lvp": _per_side(roster, index, "lvp"), "cg_lvp": _per_side(roster, index, "cg_lvp"),
            "cpp_spent": _per_side(roster, index, "spent"),
            "rg": {side: roster[side][index]["rg"] for side in sides},
            "weather": row["weather"], "conditions": row.get("conditions") or {}, "notable": [], "undos": [],
        })
    by_date = {d["date"]: d for d in dates}
    unwitnessed = witness.unwitnessed_events(state)
    for date, kind, text, version in story["notes"]:
        entry = by_date.get(date)
        if entry is None:
            continue
        if kind == "notable":
            entry["notable"].append(text + (" (dice not witnessed)" if version in unwitnessed else ""))
        else:
            entry["undos"].append(text)
    dice = dice_of.finish(dice_view, unwitnessed=unwitnessed)
    scenario = {d["date"]: d["scenario"] for d in dates}
    return {
        "campaign": {"name": state.name, "system": state.system, "cg": state.cg, "cg_date": state.cg_date,
                     "step": state.step, "sides": dict(rules.system.sides),
                     "reph": bool(rules.system.steps)},  # a Refit Phase between CG scenarios (CGS has none)
        "dates": dates,
        "rosters": {side: [public(r) for r in roster[side]] for side in sides},
        "rg_records": records,
        "dice": dice["sides"],
        "dice_groups": dice["groups"],  # per side and source: the report keeps fair, entered and VASL dice apart
        "vasl_dice": dice["vasl"],
        "final": _final(roster, rules, state),  # the CG's end: final CG-LVP and totals, else None
        # dice typed or from VASL that the other side never witnessed, in words
        "unwitnessed": [witness.describe(c, dict(rules.system.sides)) for c in witness.view(state, rules)]
        if state is not None else [],
        "maps": [{"group": m["group"], "date": m["date"], "scenario": scenario.get(m["date"]),
                  "set_up": scenario.get(m["date"]) != IDLE_DAY and m["control"], "areas": m["areas"]}
                 for m in story["maps"]],
        "terrain": story["terrain"],
    }


# The story's own part as a kept view (projections/kept.py): notable rolls, undos and rewinds by CG Date, and
# the maps of each CG Date whose RePh ended (each Map Group's Control and HQs held as they stand, its map determined
# at each RePh end: what scenario_maps gives). An undo or a rewind is no step: the view is folded again (`fold`); a
# notable roll, a Control change and a RePh end are steps.
def fold(logged, rules) -> dict[str, Any]:
    return ended(resume(start(logged, rules), logged, rules), logged, rules)


def start(logged, rules, voided: list[int] | None = None) -> dict[str, Any]:
    """The view before any event, for folding this log (`voided`: its voided actions, sorted, if known)."""
    control = any(step.control for step in rules.system.steps)
    return {"voided": sorted(voided_actions(logged)) if voided is None else voided, "date": None, "notes": [], "maps": [], "ended": [],
            "groups": {group: held_init() for group in sorted(rules.maps)} if control else {}, "terrain": []}


def ended(view: dict[str, Any], logged, rules) -> dict[str, Any]:
    """A system without Setup Areas (CGS): the terrain as each firefight left it, from the whole log folded."""
    if not any(step.control for step in rules.system.steps):
        view["terrain"] = terrain_by_date(logged, rules)
    return view


def undone_records(logged, rules) -> dict[int, str]:
    """Each action an undo among these events voids -> what it recorded first, to say what the undo took back."""
    undone = {e.fact.undone for e in logged if isinstance(e.fact, ActionUndone)}
    what: dict[int, str] = {}
    if undone:
        for event in logged:
            action = getattr(event.fact, "action", None)
            if action in undone and action not in what and not isinstance(event.fact, (ActionUndone, Rewound)):
                what[action] = summary(event.fact, rules.system.sides)
    return what


def resume(view: dict[str, Any], logged, rules, what: dict[int, str] | None = None) -> dict[str, Any]:
    """These events folded into the view, in place; its `voided` already holds every action they void, and the
    first event of each action an undo among them voids is among them (or in `what`: undone_records)."""
    voided = set(view["voided"])
    what = undone_records(logged, rules) if what is None else what
    for event in logged:
        fact = event.fact
        if type(fact) is DiceRolled:  # most events of a campaign: a note only if notable (_step)
            if notable(fact) and fact.action not in voided:
                _step(view, fact, event.version, rules, voided)
        elif isinstance(fact, ActionUndone):
            view["notes"].append([view["date"], "undo", f"undo of {what.get(fact.undone, f'action {fact.undone}')}"
                                  + (f": {fact.reason}" if fact.reason else ""), event.version])
        elif isinstance(fact, Rewound):
            view["notes"].append([fact.cg_date, "undo", f"rewind to the end of {fact.cg_date}'s RePh "
                                  f"({len(fact.voided)} actions voided)" + (f": {fact.reason}" if fact.reason else ""),
                                  event.version])
        elif fact is not None:
            _step(view, fact, event.version, rules, voided)
    return view


def _step(view, fact, version: int, rules, voided) -> dict[str, Any]:
    if getattr(fact, "action", None) in voided:
        return view
    if isinstance(fact, (CampaignStarted, CGDateChanged)):
        view["date"] = fact.cg_date
    elif isinstance(fact, DiceRolled):
        if notable(fact):
            view["notes"].append([view["date"], "notable", f"{fact.table} {rules.system.sides[fact.side]}: Original "
                                  f"{fact.original}, Final {fact.final}: {fact.result}", version])
    elif view["groups"]:  # the Setup Areas of each Map Group, determined as each CG Date's RePh ends (scenario_maps)
        if not ends_reph(fact):
            for group, held in view["groups"].items():
                track(held, fact, group)
        elif view["date"] and view["date"] not in view["ended"]:
            view["ended"].append(view["date"])
            for group, held in view["groups"].items():
                result = reph_ended(held, rules, group)
                view["maps"].append({"group": group, "date": view["date"], "control": bool(result["control"]),
                                     "areas": document(result, rules, group)})
            view["maps"].sort(key=lambda m: m["group"])  # as scenario_maps lists them: by Map Group, then by date
    return view


def scenario_maps(logged, rules) -> list[dict[str, Any]]:
    """Each Map Group at the end of each CG Date's RePh: as it stood when that date's scenario was set up (8.605,
    8.624). `control`: whether the log gives any Control for it; the history's `set_up` is false for an Idle Day
    (no scenario) and before an Initial Scenario that the log gives no Control for (its setup is the scenario
    card's): the report draws only the maps set up."""
    return [{"group": group, "date": date, "control": bool(result["control"]), "areas": document(result, rules, group)}
            for group in sorted(rules.maps) for date, result in areas_by_date(logged, rules, group)]


def terrain_by_date(logged, rules) -> list[dict[str, Any]]:
    """A system without Setup Areas (CGS): each map as each firefight left it, as both sides see it (hidden
    fortifications only counted, 7.4.4)."""
    from cgledger.ledger.domain.terrain import terrain
    from cgledger.ledger.domain.timeline import reph_ends

    ends = sorted(reph_ends(logged).items(), key=lambda kv: kv[1])
    return [{"group": group, "date": date, "terrain": terrain([e for e in logged if e.version <= version], rules, group)}
            for group in sorted(rules.maps) for date, version in ends]


def _per_side(roster, index: int, key: str) -> dict[str, Any]:
    return {side: rows[index][key] for side, rows in roster.items()}


def _final(roster, rules, state) -> dict[str, Any] | None:
    from cgledger.ledger.decide.steps import campaign_over

    from .final import final_result

    over = campaign_over(rules, state) if state is not None else ""
    return final_result(None, rules, state, over, books=roster) if over else None
