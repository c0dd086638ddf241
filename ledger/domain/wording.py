"""Player-facing wording of what reads render, over plain data (dicts and lists as JSON gives them back): the
standard library alone, so that an answer kept per log head (ledger/read/answers.py) renders without the domain."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str = "") -> str:
    """'1 hex', '2 hexes': a count with its noun in the number it takes."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def proposal_lines(data: dict | None, sides: dict[str, str]) -> list[str]:
    """The proposal in `status`'s text."""
    if not data:
        return []
    who = f"the {sides.get(data['by'], data['by'])} side" if data["by"] else "a side"
    verb = "load" if data["kind"] == "rules" else "take back"
    head = f"proposal (event {data['event']}): {who} proposes to {verb} {data['takes_back']}"
    head += f": {data['reason']}" if data["reason"] else ""
    if data["open"]:
        return [head, *(f"  it changes {change}" for change in data.get("changes", ())),
                f"  waits for {data['waiting_for']}; it lapses if {data['lapses_when']}"]
    again = {"undo": "cgledger undo", "rewind": "cgledger rewind DATE", "rules": "cgledger rules load FILE"}
    if data["lapsed"]["why"] == "the other side declined it":
        return [head, f"  declined at event {data['lapsed']['at']}: it is over"]
    return [head, f"  lapsed at event {data['lapsed']['at']}: {data['lapsed']['why']}; propose it again "
                  f"(`{again.get(data['kind'], 'cgledger undo')}`) if it is still wanted"]


def describe_claim(claim: dict, sides: dict[str, str]) -> str:
    """One claim in words: 'event 57: the German 8.616 roll, dice 4,3 typed by the German side'."""
    how = "taken from VASL" if claim["source"] == "vasl" else "typed"
    text = (f"event {claim['event']}: the {sides.get(claim['side'], claim['side'])} roll on {claim['table']}, dice "
            f"{','.join(map(str, claim['dice']))} {how} by the {sides.get(claim['claimed_by'], claim['claimed_by'])} "
            "side")
    if claim["disputed"]:
        text += f", disputed by the {sides.get(claim['witness'], claim['witness'])} side: {claim['disputed']}"
    return text


def final_lines(result: dict, sides: dict[str, str]) -> list[str]:
    head = (f"{result['campaign']}: {result['system'].upper()} CG {result['cg']}, "
            + (f"over ({result['over']})" if result["over"] else f"not over yet: the result so far, at {result['cg_date']}"))
    lines = [head, f"  {result['cg_dates']} CG Dates, {result['scenarios']} CG scenarios ended"]
    for side, mine in result["sides"].items():
        final = "final CG-LVP" if result["over"] else "CG-LVP so far"
        cg_lvp = "no CG-LVP total" if mine["cg_lvp"] is None else f"{final} {mine['cg_lvp']}"
        spent = "CPP spent kept secret" if mine["cpp_spent"] is None else f"CPP spent {mine['cpp_spent']}"
        left = "" if mine["cpp_left"] is None else f", {mine['cpp_left']} left"
        won = "" if mine["scenarios_won"] is None else f"{mine['scenarios_won']} scenario(s) won; "
        lines.append(f"  {sides.get(side, side)}: {cg_lvp}; {won}CPP start "
                     f"{mine['cpp_start']}, replenished {mine['cpp_replenished']}, {spent}{left}; "
                     f"{mine['rg_bought']} RG bought")
    lines.append(f"  {result['victory_note']}")
    return lines


def weather_words(weather: str | None, beside: dict[str, str]) -> str | None:
    """The weather as a player reads it, with what the chart gives beside it: 'Moderate Mist (Moon Phase: No Moon,
    Cloud Cover: Overcast)'."""
    shown = ", ".join(f"{name}: {value}" for name, value in beside.items())
    if not shown:
        return weather
    return f"{weather} ({shown})" if weather else shown


def item_name(item: str) -> str:
    """A fortification as its rules name it ('dug_in' -> 'Dug-In'), read off the shipped rules files (the standard
    library's TOML reader); an id no file names reads with spaces."""
    return _item_names().get(item, item.replace("_", " "))


def _item_names() -> dict[str, str]:
    global _NAMES
    if _NAMES is None:
        import tomllib
        from pathlib import Path

        rules = Path(__file__).resolve().parent.parent / "rules"
        _NAMES = {}
        for path in sorted(rules.glob("*/*.toml")):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            for entry in (*data.get("fortification", ()), *data.get("placement", ())):
                if "id" in entry and "name" in entry:
                    _NAMES.setdefault(entry["id"], entry["name"])
    return _NAMES


_NAMES: dict[str, str] | None = None
