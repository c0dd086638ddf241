"""A side's RG chart as it stands now (8.6191-8.6197, RR 2.518): each RG with its cost and what its maxima leave
this CG Date and this CG. A pure function of the state (the buyer's own view, its secret purchases opened) and the
chart in force; `buy` decides each purchase (ledger/decide/purchases.py), this only shows the numbers."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.decide.purchases import by_map_group, needs_objective, price


def rg_chart(state, rules, side: str, cpp: int | None = None) -> dict[str, Any]:
    """`cpp`: the side's CPP as its own ledger knows them (its sealed replenishments counted), else the state's.
    With it the Fortification Purchase Table as the side buys from it (8.621, RR 2.520) and its FPP of this CG
    Date."""
    side = rules.side(side)
    by_group = by_map_group(rules)  # KGP 8.6195: per Map Group
    groups: list[str] = []
    if by_group:
        groups = next((c.map_groups for c in rules.system.cg if c.id == state.cg), None) \
            or [g.id for g in rules.system.map_groups]
    date = rules.calendar.parse(state.cg_date) if getattr(rules, "calendar", None) else None
    rows = []
    for (owner, rg_id), rg in sorted(rules.rgs.items(), key=lambda item: item[0][1]):
        if owner != side:
            continue
        cg_max = rg.cg_max.get(state.cg)
        bought = state.bought.get(f"{side}:{rg.id}", 0)
        today = {g: state.bought_today.get(f"{side}:{rg.id}:{g}", 0) for g in (groups or [""])}
        available = not (rg.from_date and date is not None and date < rules.calendar.parse(rg.from_date))
        rows.append({
            "id": rg.id, "group_type": rg.group_type, "unit_type": rg.unit_type or None, "sw": rg.sw or None,
            "cost": rg.cost, "date_max": rg.date_max, "cg_max": cg_max, "bought": bought,
            "bought_today": today if by_group else today[""],
            "cg_left": None if cg_max is None else max(cg_max - bought, 0),
            "date_left": ({g: max(rg.date_max - n, 0) for g, n in today.items()} if by_group else
                          max(rg.date_max - today[""], 0)) if rg.date_max is not None else None,
            "from_date": rg.from_date, "available": available, "objective": needs_objective(rules, rg.id),
            "on_map": rg.on_map, "on_map_cost": rg.on_map_cost, "fpp": rg.fpp or None, "note": rg.note or None,
            "priced": None not in (rg.cost, rg.date_max, cg_max),
        })
    return {"side": side, "side_name": rules.system.sides[side], "cg": state.cg, "cg_date": state.cg_date, "cpp": state.cpp.get(side, 0) if cpp is None else cpp,
            "map_groups": groups, "objective_needed": by_group, "rgs": rows,
            "fpp": max(state.fpp.get(side, 0), 0), "fortifications": fortifications(state, rules, side)}


def fortifications(state, rules, side: str) -> list[dict[str, Any]]:
    """The lines of the Fortification Purchase Table the side has a price on (8.621, RR 2.520), as `fortify` prices
    them: FPP per item or factor (by size where the table prices sizes), and the footnotes F, i, S."""
    return [{"id": f.id, "name": f.name, "fpp": price(f, side), "front_line": f.front_line, "isolated": f.isolated,
             "squads": f.squads, "initial_only": f.initial_only, "rule": f.rule, "note": f.note or None}
            for f in rules.fortifications.values()
            if price(f, side) is not None and not (f.initial_only and not state.initial)]
