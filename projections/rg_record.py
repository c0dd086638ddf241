"""The RG Purchase Record (8.6198) of each side: one row per RG bought or OB-given, with what
its follow-up rolls in step 8.620 decided. A pure fold over the events in force."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, DiceRolled, RGPurchased, RGPurchaseSealed
from cgledger.ledger.domain.timeline import live


def rg_records(logged, rules) -> dict[str, list[dict[str, Any]]]:
    view = init(rules)
    for event in live(logged):
        step(view, event.fact, event.version, rules)
    return finish(view, rules)


# The record as a kept view (projections/kept.py): JSON-native state, `finish` gives what `rg_records` always gave.
def init(rules) -> dict[str, Any]:
    return {"records": {side: [] for side in rules.system.sides}, "by_version": {}, "date": "", "cg": ""}


def step(view: dict[str, Any], fact, version: int, rules) -> dict[str, Any]:
    """One event in force (live) folded into the view, in place."""
    if type(fact) is DiceRolled and fact.rg is None:
        return view  # most events of a campaign: a roll for no RG
    records, by_version = view["records"], view["by_version"]
    if isinstance(fact, (CampaignStarted, CGDateChanged)):
        view["date"] = fact.cg_date
        view["cg"] = getattr(fact, "cg", view["cg"])
    elif isinstance(fact, RGPurchased):
        chart = rules.rgs.get((fact.side, fact.rg))
        mine = [r for r in records[fact.side] if r["id"] == fact.rg]
        bought = sum(1 for r in mine if not r["given"]) + (not fact.given)
        maximum = chart.cg_max.get(view["cg"]) if chart else None
        row = {
            "date": view["date"], "id": fact.rg, "group_type": fact.group_type,
            "p": None if fact.given else bought,
            "r": None if fact.given or maximum is None else maximum - bought,
            "str": None, "units": None, "sw": None, "leaders": None, "objective": fact.objective or None,
            "ref": f"{fact.rg}#{len(mine) + 1}", "event": version, "cpp": fact.cpp,
            "map_group": fact.map_group, "given": fact.given, "quality": None, "sw_rolls": [],
            "early": fact.early,  # KGP 8.6194b Early Entry
        }
        by_version[str(version)] = [fact.side, len(records[fact.side])]
        records[fact.side].append(row)
    elif isinstance(fact, RGPurchaseSealed):  # 8.6192: ID and Group Type are the buyer's secret
        records[fact.side].append({
            "date": view["date"], "id": None, "group_type": "(bought in secret)", "p": None, "r": None, "str": None,
            "units": None, "sw": None, "leaders": None, "objective": None, "ref": str(version),
            "event": version, "cpp": None, "map_group": None, "secret": True})
    elif isinstance(fact, DiceRolled) and str(fact.rg) in by_version:
        side, index = by_version[str(fact.rg)]
        row = records[side][index]
        if fact.effect == "rg_strength":
            row["str"] = fact.code
        elif fact.effect == "rg_quality":
            row["quality"] = fact.result
        elif fact.effect == "rg_tanks":
            row["units"] = fact.result
        elif fact.effect in ("rg_sw", "rg_equipment"):
            row["sw_rolls"].append([fact.purpose or "SW", fact.code == "received"])
        elif fact.effect == "rg_leader":
            row["leaders"] = ", ".join(x for x in (row["leaders"], fact.result) if x)
    return view


def finish(view: dict[str, Any], rules) -> dict[str, list[dict[str, Any]]]:
    """The rows as `rg_records` gives them (the view's own rows are changed: give it a copy to keep it)."""
    records = view["records"]
    for side, side_rows in records.items():
        for row in side_rows:
            if not row.get("secret"):
                _finish(row, rules.rgs.get((side, row["id"])), _at_least(rules, row["id"]))
    return records


def _at_least(rules, rg_id: str):
    """The minimum of SW an RG's rounds of follow-ups guarantee (KGP 8.6205 EXC, RR 2.5192 EXC), if any."""
    from fnmatch import fnmatchcase

    return next((t.at_least for t in rules.tables.values()
                 if t.at_least and any(fnmatchcase(rg_id, pattern) for pattern in t.at_least.rg)), None)


def _finish(row: dict[str, Any], chart, at_least=None) -> None:
    """# Units and SW from the chart line and the follow-up rolls (8.6201, 8.6202, 8.6204)."""
    received = [name for name, got in row.pop("sw_rolls") if got]
    if chart is not None and row["units"] is None:
        count = chart.units_depleted if row["str"] == "D" else chart.units_full
        kind = row.pop("quality") or chart.unit_type
        row["units"] = " ".join(str(x) for x in (count, kind) if x) or None
    else:
        row.pop("quality")
    if row["str"] == "D":
        row["sw"] = ", ".join(received) or "none"
        if at_least is not None and len(received) < at_least.count:  # a round short of it is rolled again
            row["sw"] += (f" (at least {at_least.count} are received: a round of drs giving fewer is rolled again, "
                          f"{at_least.rule})")
    elif chart is not None and chart.sw:
        row["sw"] = chart.sw
    row.pop("given")
