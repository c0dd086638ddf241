"""The end of a CG: each side's final CG-LVP and the campaign's totals, from the CG Rosters. The CG Victory
Conditions (KGP 8.51-8.53; RR 2.5231 points to them: the level of victory by the final CG-LVP) are not in the rules
text the ledger ships, so the ledger does not decide the CG's winner unless a player's rules file gives them; it gives
what the players compare. Pure."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.domain.wording import final_lines  # noqa: F401 - the result in words, here before

from .roster import rosters

def vc_note(rules) -> str:
    """Where the CG Victory Conditions are not in the rules text shipped: the system's own rule that names them."""
    rule = rules.cite("cg_victory")
    return (f"The CG Victory Conditions{f' ({rules.system.id.upper()} {rule})' if rule else ''} are not in the rules "
            "text this ledger ships: compare the final CG-LVP with your CG's Victory Conditions.")


def final_result(logged, rules, state, over: str, books=None) -> dict[str, Any]:
    """`over`: why the campaign is over ('' while it goes on: the result so far). `books`: the finished rosters
    (the kept view's), else folded from `logged`."""
    sides = dict(rules.system.sides)
    books = rosters(logged, rules) if books is None else books
    per_side = {}
    for side, rows in books.items():
        cg_lvp = next((r["cg_lvp"] for r in reversed(rows) if r["cg_lvp"] is not None), None)
        secret = any(r.get("secret") for r in rows)  # 8.619: its spending is its own until revealed
        per_side[side] = {
            "cg_lvp": cg_lvp,
            # RR 2.5231: no CG scenario has a winner (None: nothing to count)
            "scenarios_won": sum(1 for r in rows if r["win"] == side) if rules.system.scenario_victory else None,
            "cpp_start": rows[0]["start"] if rows else None,
            "cpp_replenished": sum(r["repl"] or 0 for r in rows),
            # 8.622: Recon's CPP are spent too (deducted from the next CG Date's Start; the last date's from Left)
            "cpp_spent": None if secret else sum(r["spent"] + r.get("recon_cpp", 0) for r in rows),
            "cpp_left": rows[-1]["left"] - rows[-1].get("recon_cpp", 0) if rows and rows[-1]["left"] is not None
            else None,
            "rg_bought": sum(len(r["rg"]) for r in rows),
        }
    victory, note = None, vc_note(rules)
    if rules.victory.get(state.cg):  # a player's rules file supplies the CG's Victory Conditions
        level = rules.victory_of(state.cg, {s: v["cg_lvp"] for s, v in per_side.items()})
        if level is not None:
            victory = {"result": level.result, "side": level.side, "cg_lvp": per_side[level.side]["cg_lvp"],
                       "at_least": level.at_least, "at_most": level.at_most, "rule": level.rule or None}
        so_far = "" if over else " (so far: the CG is not over)"
        note = (f"By the CG Victory Conditions of the rules file in force{so_far}: "
                + (victory["result"] if victory else "no level of them is met"))
    return {"campaign": state.name, "system": state.system, "cg": state.cg, "cg_date": state.cg_date,
            "over": over or None, "cg_dates": len(books[next(iter(sides))]) if sides else 0,
            "scenarios": len(state.scenarios), "sides": per_side, "victory": victory, "victory_note": note}
