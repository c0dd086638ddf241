"""The RG Purchase Record (8.6198) of each side: one row per RG bought or OB-given, with what
its follow-up rolls in step 8.620 decided. A pure fold over the events in force."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.events import CampaignStarted, CGDateChanged, DiceRolled, RGPurchased, RGPurchaseSealed
from cgledger.ledger.timeline import live


def rg_records(logged, rules) -> dict[str, list[dict[str, Any]]]:
    records: dict[str, list[dict[str, Any]]] = {side: [] for side in rules.system.sides}
    by_version: dict[int, dict[str, Any]] = {}
    date, cg = "", ""
    for event in live(logged):
        fact = event.fact
        if isinstance(fact, (CampaignStarted, CGDateChanged)):
            date = fact.cg_date
            cg = getattr(fact, "cg", cg)
        elif isinstance(fact, RGPurchased):
            chart = rules.rgs.get((fact.side, fact.rg))
            mine = [r for r in records[fact.side] if r["id"] == fact.rg]
            bought = sum(1 for r in mine if not r["given"]) + (not fact.given)
            maximum = chart.cg_max.get(cg) if chart else None
            row = {
                "date": date, "id": fact.rg, "group_type": fact.group_type,
                "p": None if fact.given else bought,
                "r": None if fact.given or maximum is None else maximum - bought,
                "str": None, "units": None, "sw": None, "leaders": None, "objective": fact.objective or None,
                "ref": f"{fact.rg}#{len(mine) + 1}", "event": event.version, "cpp": fact.cpp,
                "map_group": fact.map_group, "given": fact.given, "quality": None, "sw_rolls": [],
                "_chart": chart,
            }
            records[fact.side].append(row)
            by_version[event.version] = row
        elif isinstance(fact, RGPurchaseSealed):  # 8.6192: ID and Group Type are the buyer's secret
            records[fact.side].append({
                "date": date, "id": None, "group_type": "(bought in secret)", "p": None, "r": None, "str": None,
                "units": None, "sw": None, "leaders": None, "objective": None, "ref": str(event.version),
                "event": event.version, "cpp": None, "map_group": None, "secret": True})
        elif isinstance(fact, DiceRolled) and fact.rg in by_version:
            row = by_version[fact.rg]
            if fact.effect == "rg_strength":
                row["str"] = fact.code
            elif fact.effect == "rg_quality":
                row["quality"] = fact.result
            elif fact.effect == "rg_tanks":
                row["units"] = fact.result
            elif fact.effect in ("rg_sw", "rg_equipment"):
                row["sw_rolls"].append((fact.purpose or "SW", fact.code == "received"))
            elif fact.effect == "rg_leader":
                row["leaders"] = ", ".join(x for x in (row["leaders"], fact.result) if x)
    for side_rows in records.values():
        for row in side_rows:
            if not row.get("secret"):
                _finish(row)
    return records


def _finish(row: dict[str, Any]) -> None:
    """# Units and SW from the chart line and the follow-up rolls (8.6201, 8.6202, 8.6204)."""
    chart = row.pop("_chart")
    received = [name for name, got in row.pop("sw_rolls") if got]
    if chart is not None and row["units"] is None:
        count = chart.units_depleted if row["str"] == "D" else chart.units_full
        kind = row.pop("quality") or chart.unit_type
        row["units"] = " ".join(str(x) for x in (count, kind) if x) or None
    else:
        row.pop("quality")
    if row["str"] == "D":
        row["sw"] = ", ".join(received) or "none"
        if row["id"].startswith("HW") and len(received) < 2:  # 8.6205 EXC: a HW Pltn gets ≥ two pieces
            row["sw"] += " (a HW Pltn always receives ≥ two Equipment pieces, 8.6205: add from the Full list)"
    elif chart is not None and chart.sw:
        row["sw"] = chart.sw
    row.pop("given")
