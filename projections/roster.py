"""The CG Roster of each side (8.6162, 8.619, 8.622, 8.6032-8.6033, 8.617): one row per side and
CG Date. A pure fold over the events in force, with the rules data for the weather chart."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.domain.events import (
    CampaignStarted, CGDateChanged, CPPGained, DiceRolled, FortificationsPurchased, InitiativeChosen,
    LocationControlled, RGPurchased, RGPurchaseSealed, ScenarioEnded,
)
from cgledger.ledger.domain.mapping import lvp_held
from cgledger.ledger.rules.hexmap import parse_location
from cgledger.ledger.domain.timeline import IDLE_DAY, live


def _row(date: str, start: int | None) -> dict[str, Any]:
    return {"date": date, "start": start, "repl": None, "total": None, "spent": 0, "left": None, "rg": [],
            "lvp": None, "cg_lvp": None, "win": None, "weather": None, "recon": None, "recon_cpp": 0, "scenario": None,
            "fpp": 0, "fortifications": []}


def rosters(logged, rules) -> dict[str, list[dict[str, Any]]]:
    view = init(rules)
    for event in live(logged):
        step(view, event.fact, event.version, rules)
    return finish(view, rules)


# The roster as a kept view (projections/kept.py): init -> step per event in force -> finish. The view state is
# JSON-native; `finish` gives what `rosters` always gave.
def init(rules) -> dict[str, Any]:
    # control: Location -> side as last recorded; from_map: the last CG-Scenario End read its Current-LVP off the map
    return {"rows": {side: [] for side in rules.system.sides}, "random_weather": False, "cg": "", "density": {},
            "control": {}, "from_map": False}


def step(view: dict[str, Any], fact, version: int, rules) -> dict[str, Any]:
    """One event in force (live) folded into the view, in place."""
    if type(fact) is DiceRolled and not fact.effect:
        return view  # most events of a campaign: a roll the books do not use
    folded = _STEPS.get(type(fact))
    if folded is not None:
        folded(view, fact, rules)
    return view


def _started(view: dict[str, Any], fact: CampaignStarted, rules) -> None:
    view["cg"], view["random_weather"] = fact.cg, fact.random_weather
    for side, rows in view["rows"].items():
        rows.append(_row(fact.cg_date, fact.start_cpp.get(side, 0)))
        rows[-1]["scenario"] = "Initial Scenario"


def _new_date(view: dict[str, Any], fact: CGDateChanged, rules) -> None:
    for rows in view["rows"].values():
        before = rows[-1]
        row = _row(fact.cg_date, _left(before) - before["recon_cpp"])  # 8.622: Start = Left - Recon
        if before["scenario"] == IDLE_DAY and before["recon"]:
            # 8.622: an Idle CG Date's Recon is cumulative with the next dates' until a scenario
            row["recon_carried"] = row["recon"] = before["recon"]
        rows.append(row)


def _rolled(view: dict[str, Any], fact: DiceRolled, rules) -> None:
    rows = view["rows"]
    row = rows[fact.side][-1]
    if fact.effect == "cpp_replenishment":
        row["repl"] = fact.value
    elif fact.effect == "recon":
        row["recon"] = (fact.value or 0) + row.get("recon_carried", 0)
        row["recon_cpp"] += fact.cpp
    elif fact.effect == "weather":
        for side in rows:
            rows[side][-1]["weather"] = fact.result
    elif fact.effect == "mist_density":
        view["density"][row["date"]] = fact.result


def _cpp_gained(view: dict[str, Any], fact: CPPGained, rules) -> None:
    """The CPP chart's gain as the CG Date starts (CGS: the players' chart)."""
    row = view["rows"][fact.side][-1]
    row["repl"] = (row["repl"] or 0) + fact.cpp


def _purchased(view: dict[str, Any], fact: RGPurchased, rules) -> None:
    row = view["rows"][fact.side][-1]
    row["spent"] += fact.cpp
    row["rg"] = row["rg"] + [{"id": fact.rg, "cpp": fact.cpp}]
    row["fpp"] += fact.fpp


def _purchase_sealed(view: dict[str, Any], fact: RGPurchaseSealed, rules) -> None:
    """8.619: what was bought and spent is the buyer's secret."""
    row = view["rows"][fact.side][-1]
    row["rg"] = row["rg"] + [{"id": None, "cpp": None, "text": "RG bought in secret"}]
    row["secret"] = True


def _fortified(view: dict[str, Any], fact: FortificationsPurchased, rules) -> None:
    row = view["rows"][fact.side][-1]
    size = f" {fact.size}" if fact.size else ""
    row["fortifications"] = row["fortifications"] + [
        {"item": fact.item, "count": fact.count, "size": fact.size or None, "fpp": fact.fpp,
         "setup_area": fact.setup_area, "text": f"{fact.count} {fact.name}{size} ({fact.setup_area})"}]


def _controlled(view: dict[str, Any], fact: LocationControlled, rules) -> None:
    view.setdefault("control", {})[str(parse_location(fact.location))] = fact.side


def _scenario_ended(view: dict[str, Any], fact: ScenarioEnded, rules) -> None:
    view["from_map"] = fact.from_map
    for side, rows in view["rows"].items():
        _lvp(rows, fact.lvp.get(side, 0))
        rows[-1]["win"] = fact.winner or None


def _initiative(view: dict[str, Any], fact: InitiativeChosen, rules) -> None:
    rows = view["rows"]
    for side in rows:
        rows[side][-1]["scenario"] = fact.scenario
    if fact.scenario == IDLE_DAY:  # 8.6232 note 2: each side calculates its Current-LVP, and CG-LVP grows by it
        held = lvp_held(rules, view.get("control", {})) if view.get("from_map") and rules.maps else None
        for side in rows:
            _lvp(rows[side], held[side] if held is not None else _last_lvp(rows[side][:-1]))


_STEPS = {
    CampaignStarted: _started, CGDateChanged: _new_date, DiceRolled: _rolled, CPPGained: _cpp_gained,
    RGPurchased: _purchased, RGPurchaseSealed: _purchase_sealed, FortificationsPurchased: _fortified,
    LocationControlled: _controlled, ScenarioEnded: _scenario_ended, InitiativeChosen: _initiative,
}


def finish(view: dict[str, Any], rules) -> dict[str, list[dict[str, Any]]]:
    """The rows as `rosters` gives them (the view's own rows are changed: give it a copy to keep it)."""
    rows, random_weather, cg, density = view["rows"], view["random_weather"], view["cg"], view["density"]
    for side in rows:
        unknown = False  # 8.619: once a side buys in secret, its Spent and Left (and what follows) are its own
        for row in rows[side]:
            row["total"], row["left"] = row["start"] + (row["repl"] or 0), _left(row)
            if unknown:
                row["start"] = row["total"] = row["left"] = None
            if row.get("secret"):
                unknown = True
                row["spent"] = row["left"] = None
            if not random_weather:
                row["weather"] = historical(rules, cg, row["date"]).get("weather")
            elif row["date"] in density and row["weather"] and "Mist" in row["weather"]:
                row["weather"] = row["weather"].replace("Mist", density[row["date"]])
            row["conditions"] = conditions(rules, cg, row["date"], random_weather)
            row.pop("recon_carried", None)
            if rules.system.cg_lvp_sides and side not in rules.system.cg_lvp_sides:
                row["cg_lvp"] = None  # RR 2.5033: only the Canadian keeps a CG-LVP total
    return rows


def historical(rules, cg: str, date: str) -> dict[str, str]:
    """The weather chart's line for a CG Date (8.617, RR 2.517): its texts by key, {} where the chart has none."""
    chart = rules.system.weather_chart
    if chart not in rules.charts:
        return {}
    entry = rules.chart_entry(chart, cg, rules.calendar.parse(date))
    return dict(entry.text) if entry else {}


def conditions(rules, cg: str, date: str, random_weather: bool = False) -> dict[str, str]:
    """What the weather chart gives beside the weather on a CG Date, by the chart's own names (8.617: Moon Phase and
    Cloud Cover if night; RR 2.517: EC, Moon Phase/Cloud Cover); with the random weather only what it keeps."""
    chart = rules.charts.get(rules.system.weather_chart)
    if chart is None:
        return {}
    text = historical(rules, cg, date)
    return {name: text[key] for key, name in chart.columns.items()
            if key in text and (not random_weather or key in chart.random_keeps)}


def _left(row) -> int:
    """8.6162/8.619: Total = Start + Repl; Left = Total - Spent."""
    return row["start"] + (row["repl"] or 0) - row["spent"]


def _last_lvp(rows) -> int:
    return next((r["lvp"] for r in reversed(rows) if r["lvp"] is not None), 0)


def _lvp(rows, lvp: int) -> None:
    """8.6033: the new CG-LVP Total is the Current-LVP plus the preceding CG Date's CG-LVP."""
    previous = next((r["cg_lvp"] for r in reversed(rows[:-1]) if r["cg_lvp"] is not None), 0)
    rows[-1]["lvp"], rows[-1]["cg_lvp"] = lvp, previous + lvp


PUBLIC = ("date", "start", "repl", "total", "spent", "left", "rg", "lvp", "cg_lvp", "win", "weather", "recon")


def public(row: dict[str, Any]) -> dict[str, Any]:
    """The roster columns of the public contract, plus the CPP spent on Recon, the scenario type, the FPP
    bought and the Fortifications bought with them (the roster's FORTIFICATIONS area, 8.621)."""
    return {**{k: row[k] for k in PUBLIC}, "recon_cpp": row["recon_cpp"], "scenario": row["scenario"],
            "fpp": row["fpp"], "fortifications": row["fortifications"], "secret": bool(row.get("secret")),
            "conditions": row.get("conditions") or {}}
