"""The dice statistics by their plain definition, what projections/dice_stats.py gives from a fold (tests check the
one against the other): every DR and dr of the log listed in order, with whether it is still in force and whether
the other side witnessed it (`rolls_of`), and the statistics computed over them per side and source, undone rolls
apart (`plain_stats`), the VASL rolls per scenario, player and category (`vasl_stats`). Pure."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, DiceReported, DiceRolled, VaslLogImported
from cgledger.ledger.domain.evolve import CLAIMED
from cgledger.ledger.domain.timeline import voided_actions

from .dice_math import EXPECTED, SOURCES, UNWITNESSED, _split, _summary


def rolls_of(logged, unwitnessed: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """Every DR and dr in the log, in order, with whether it is still in force. A VASL import's reports count
    from its VaslLogImported (an attached one is also the DiceRolled after it, counted once); each VASL roll
    carries its player, category, extra dice and the import (scenario) it came from. An old VASSAL 3d6 counts as
    the DR and the dr VASL reads in it. `unwitnessed`: the events of rolls whose dice the other side has not
    witnessed; their source is named apart ('entered, not witnessed')."""
    return _labelled(_roll_list(logged), unwitnessed)


def _roll_list(logged) -> dict[str, Any]:
    """Every roll as read from its event alone (whether it is in force by the actions voided); which dice were
    witnessed is applied by `_labelled`."""
    view: dict[str, Any] = {"rolls": [], "voided": sorted(voided_actions(logged)), "date": None, "imports": {},
                            "claims": []}
    voided = set(view["voided"])
    for event in logged:
        _roll_step(view, event.fact, event.version, voided)
    return view


def _roll_step(view: dict[str, Any], fact, version: int, voided: set[int]) -> dict[str, Any]:
    if isinstance(fact, (CampaignStarted, CGDateChanged)) and getattr(fact, "action", None) not in voided:
        view["date"] = fact.cg_date
    date = view["date"]
    if isinstance(fact, VaslLogImported):
        view["imports"][str(version)] = {"action": fact.action, "file": fact.file, "form": fact.form}
        for entry in fact.reports:
            view["rolls"].append({"version": version, "side": entry.side or "unassigned", "die": entry.die,
                                  "dice": list(entry.dice), "source": "vasl", "table": entry.table or None,
                                  "in_force": fact.action not in voided, "player": entry.player,
                                  "category": entry.category, "scenario": version, "third": entry.third,
                                  "rof": entry.rof, "cg_date": date,
                                  "_claim": [fact.action, entry.table, list(entry.dice)]})
    elif isinstance(fact, (DiceRolled, DiceReported)):
        if isinstance(fact, DiceRolled) and fact.source in CLAIMED:  # the dice a witness may not have seen yet
            view["claims"].append([version, fact.action, fact.table, list(fact.dice)])
        if fact.die in EXPECTED or fact.die == "3d6":
            vasl = bool(getattr(fact, "vasl", ""))
            view["rolls"].append({"version": version, "side": fact.side or "unassigned", "die": fact.die,
                                  "dice": list(fact.dice), "source": SOURCES.get(fact.source, fact.source),
                                  "table": getattr(fact, "table", None), "in_force": fact.action not in voided,
                                  "player": fact.player if vasl else None,
                                  "category": getattr(fact, "category", "") if vasl else None,
                                  "scenario": f"action {fact.action}" if vasl else None, "third": None,
                                  "rof": None, "cg_date": date,
                                  "_attached": fact.action if isinstance(fact, DiceRolled) and fact.vasl else None})
    return view


def _labelled(view: dict[str, Any], unwitnessed: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """The rolls as `rolls_of` gives them: an import's attached rolls counted from the import, the dice not
    witnessed named apart, a 3d6 split in its DR and dr."""
    imports = {i["action"] for i in view["imports"].values()}
    claimed = {(action, table, tuple(dice)) for version, action, table, dice in view["claims"]
               if version in unwitnessed} if unwitnessed else set()
    rolls = []
    for roll in view["rolls"]:
        roll = dict(roll)
        if "_claim" in roll:
            action, table, dice = roll.pop("_claim")
            if (action, table, tuple(dice)) in claimed:
                roll["source"] += f", {UNWITNESSED}"
        else:
            attached = roll.pop("_attached")
            if attached is not None and attached in imports:
                continue  # counted from its import
            if roll["version"] in unwitnessed:
                roll["source"] += f", {UNWITNESSED}"
        rolls += _split(roll)
    return rolls


def _both(rolls: list[dict]) -> dict[str, Any]:
    return {"DR": _summary(rolls, "DR"), "dr": _summary(rolls, "dr")}


def _by(rolls: list[dict], key: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rolls:
        out.setdefault(r[key] or "", []).append(r)
    return out


def vasl_stats(logged, rolls: list[dict], imports: dict | None = None) -> dict[str, Any]:
    """The VASL rolls in force: per scenario (each imported file, with its players and categories), per player
    and per category across the campaign, and VASL's extra dice (the Dust die, the ROF die) as drs."""
    vasl = [r for r in rolls if r["in_force"] and r["player"] is not None]
    if imports is None:
        imports = {e.version: {"file": e.fact.file, "form": e.fact.form} for e in logged
                   if isinstance(e.fact, VaslLogImported)}
    scenarios = []
    for scenario, mine in _by(vasl, "scenario").items():
        fact = imports.get(scenario)
        scenarios.append({"event": scenario if fact else None, "file": fact["file"] if fact else scenario,
                          "form": fact["form"] if fact else "", "cg_date": mine[0]["cg_date"], "reports": len(mine),
                          **_both(mine), "players": {p: _both(r) for p, r in sorted(_by(mine, "player").items())},
                          "categories": {c: _both(r) for c, r in sorted(_by(mine, "category").items())}})
    players = {}
    for player, mine in sorted(_by(vasl, "player").items()):
        players[player] = {"sides": sorted({r["side"] for r in mine}), **_both(mine),
                           "categories": {c: len(r) for c, r in sorted(_by(mine, "category").items())}}
    extra = {name: _summary([{"die": "dr", "dice": [r[name]]} for r in vasl if r[name] is not None], "dr")
             for name in ("third", "rof")}
    return {"scenarios": scenarios, "players": players,
            "categories": {c: _both(r) for c, r in sorted(_by(vasl, "category").items())},
            "dust_die": extra["third"], "rof_die": extra["rof"]}


def plain_stats(logged, side: str | None = None, unwitnessed: frozenset[int] = frozenset()) -> dict[str, Any]:
    """The statistics by their plain definition: over every roll of the log (`rolls_of`). What `dice_stats` gives
    from the folded counts (tests check the one against the other)."""
    rolls = [r for r in rolls_of(logged, unwitnessed) if side is None or r["side"] == side]

    def groups(selected: list[dict]) -> list[dict[str, Any]]:
        keys = sorted({(r["side"], r["source"]) for r in selected})
        out = []
        for group_side, source in keys:
            mine = [r for r in selected if (r["side"], r["source"]) == (group_side, source)]
            tables: dict[str, int] = {}
            for r in mine:
                tables[r["table"] or "(no table)"] = tables.get(r["table"] or "(no table)", 0) + 1
            out.append({"side": group_side, "source": source, "DR": _summary(mine, "DR"), "dr": _summary(mine, "dr"),
                        "tables": dict(sorted(tables.items()))})
        return out

    in_force = [r for r in rolls if r["in_force"]]
    per_side = {s: {"DR": _summary([r for r in in_force if r["side"] == s], "DR"),
                    "dr": _summary([r for r in in_force if r["side"] == s], "dr")}
                for s in sorted({r["side"] for r in in_force})}
    return {"groups": groups(in_force), "sides": per_side, "undone": groups([r for r in rolls if not r["in_force"]]),
            "vasl": vasl_stats(logged, rolls)}
