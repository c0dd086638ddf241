"""What the books', the dice's and the map's read commands print: `roster`, `rg-record`,
`history`, `final`, `dice-stats` and `areas`, each answered (LedgerContext.answer: kept per log head) and written as text, CSV or
JSON, and the files `map` and `report` write, without click. The click commands (cli/books.py, cli/stats.py,
cli/mapcmd.py) and the console script's quick path (cli/quick.py) print these very strings."""

from cgledger.ledger import lazy

reads = lazy.module("cgledger.ledger.read.player")

ROSTER = [("date", "Date"), ("start", "Start"), ("repl", "Repl"), ("total", "Total"), ("spent", "Spent"),
          ("left", "Left"), ("rg", "RG"), ("lvp", "LVP"), ("cg_lvp", "CG-LVP"), ("win", "Win"),
          ("weather", "Weather"), ("recon", "Recon")]
RECORD = [("date", "CG Date"), ("id", "RG ID"), ("group_type", "Group Type"), ("p", "#P"), ("r", "#R"), ("str", "Str"),
          ("units", "# Units"), ("sw", "SW"), ("leaders", "Leaders"), ("objective", "Objective Hex"), ("ref", "Ref")]


def roster(obj, side: str, as_of: str | None = None, as_json: bool = False, as_csv: bool = False) -> str:
    """The side's CG Roster (8.6162)."""
    def compute(ledger) -> dict:
        from cgledger.ledger.decide import witness as witnessing
        from cgledger.projections.roster import public

        books, rules, state = ledger.kept.rosters(obj.campaign, as_of)
        return {"name": rules.system.sides[rules.side(side)], "rows": [public(r) for r in books[rules.side(side)]],
                "sides": dict(rules.system.sides),
                "unwitnessed": [c for c in witnessing.view(state, rules) if c["side"] == rules.side(side)]}

    answer = obj.answer("roster", (side,), compute, as_of)
    rows = answer["rows"]
    if as_json or as_csv:
        return _json(rows) if as_json else csv_text(rows)
    from cgledger.ledger.domain.wording import describe_claim

    names = answer["sides"]
    from cgledger.ledger.domain.wording import weather_words

    shown = [{**r, "win": names.get(r.get("win"), r.get("win")),  # a side by its name, not its id
              "weather": weather_words(r.get("weather"), r.get("conditions") or {})} for r in rows]
    return _lines([f"CG Roster: {answer['name']}", table(shown, ROSTER)]
                  + [f"  not witnessed: {describe_claim(claim, answer['sides'])}" for claim in answer["unwitnessed"]])


def rg_record(obj, side: str, as_of: str | None = None, as_json: bool = False, as_csv: bool = False) -> str:
    """The side's RG Purchase Record (8.6198)."""
    def compute(ledger) -> dict:
        records, rules, _state = ledger.kept.rg_records(obj.campaign, as_of)
        return {"name": rules.system.sides[rules.side(side)], "rows": records[rules.side(side)]}

    answer = obj.answer("rg-record", (side,), compute, as_of)
    rows = answer["rows"]
    if as_json or as_csv:
        return _json(rows) if as_json else csv_text(rows)
    return _lines([f"RG Purchase Record: {answer['name']}", table(rows, RECORD) if rows else "(no RG yet)"])


def history(obj, as_of: str | None = None, as_json: bool = False) -> str:
    """The campaign's story per CG Date."""
    story = obj.answer("history", (), lambda ledger: ledger.kept.history(obj.campaign, as_of)[0], as_of)
    if as_json:
        return _json(story)
    from cgledger.ledger.domain.wording import weather_words

    sides = story["campaign"]["sides"]
    lines = []
    for d in story["dates"]:
        winner = f", won by {sides.get(d['winner'], d['winner'])}" if d["winner"] else ""
        played = d["scenario"] or ("RePh" if story["campaign"].get("reph", True) else "firefight")
        lines.append(f"{d['date']}: {played}{winner}; "
                     f"weather {weather_words(d['weather'], d.get('conditions') or {}) or '-'}")
        for side, name in sides.items():
            rg = ", ".join(r.get("text") or f"{r['id']} ({r['cpp']})" for r in d["rg"][side]) or "no RG"
            lines.append(f"  {name}: LVP {_cell(d['lvp'][side]) or '-'}, CG-LVP {_cell(d['cg_lvp'][side]) or '-'}, "
                         f"CPP spent {_cell(d['cpp_spent'][side]) or '-'}, {rg}")
        lines += [f"  roll: {line}" for line in d["notable"]]
        lines += [f"  {line}" for line in d["undos"]]
    return _lines(lines)


def final(obj, as_json: bool = False) -> str:
    """The end of the CG: each side's final CG-LVP, scenarios won, CPP and RG totals (before the end: so far)."""
    def compute(ledger) -> dict:
        result, rules = ledger.kept.final(obj.campaign)
        return {"result": result, "sides": dict(rules.system.sides)}

    answer = obj.answer("final", (), compute)
    if as_json:
        return _json(answer["result"])
    from cgledger.ledger.domain.wording import final_lines

    return "\n".join(final_lines(answer["result"], answer["sides"])) + "\n"


def dice_stats(obj, side: str | None = None, as_of: str | None = None, as_json: bool = False) -> str:
    """Each side's dice over the whole campaign, per source; undone rolls apart; VASL rolls per scenario, player
    and category."""
    def compute(ledger) -> dict:
        stats, rules, _state = ledger.kept.dice_stats(obj.campaign, side, as_of)
        return {"stats": stats, "sides": dict(rules.system.sides)}

    answer = obj.answer("dice-stats", (side,), compute, as_of)
    stats = answer["stats"]
    if as_json:
        return _json(stats)
    names = {**answer["sides"], "unassigned": "unassigned"}
    lines = []
    for title, groups in (("in force", stats["groups"]), ("undone (voided by undo or rewind)", stats["undone"])):
        lines.append(f"Rolls {title}:")
        if not groups:
            lines.append("  none")
        for group in groups:
            lines += [f"  {names.get(group['side'], group['side'])}, {group['source']}:", _stat_line("DR", group["DR"]),
                      _stat_line("dr", group["dr"]),
                      "    per table: " + ", ".join(f"{t} {n}" for t, n in group["tables"].items())]
    return _lines(lines + _vasl_lines(stats["vasl"], names))


def areas_answer(obj, group: str, as_of: str | None, command: str = "areas") -> dict:
    """The Map Group's Setup Areas and what their text names, kept per log head (ledger/read/answers.py); for `map`,
    {"terrain": True} on a CGS map (drawn from objects, for the side of the key given: not kept as an answer)."""
    def compute(ledger) -> dict:
        from cgledger.projections.areas import document

        if command == "map":
            _state, rules = ledger.state_as_of(obj.campaign)
            if not any(step.control for step in rules.system.steps):  # CGS: its map is the terrain the firefights left
                return {"terrain": True}
        result, rules, _state = ledger.kept.areas(obj.campaign, group, as_of)  # a kept view unless as_of
        return {"areas": document(result, rules, group), "sides": dict(rules.system.sides),
                "rule": [step.id for step in rules.system.steps if step.control][-1]}  # Setup Area Determination

    return obj.answer(command, (group,), compute, as_of)


def areas(obj, group: str, as_of: str | None = None, as_json: bool = False) -> str:
    """Setup Areas, No Man's Land, Uncontrolled Territory and Isolated Locations of a Map Group (8.605)."""
    answer = areas_answer(obj, group, as_of)
    data, sides = answer["areas"], answer["sides"]
    if as_json:
        return _json(data)
    from cgledger.ledger.domain.wording import counted  # the standard library alone: no domain loaded

    nml = sum(1 for e in data["hexes"] if e[next(iter(sides))] == "nml")
    lines = [f"Map Group {group}: {counted(len(data['hexes']), 'hex', 'hexes')}, {nml} No Man's Land"]
    for side, name in sides.items():
        areas_text = ", ".join(f"{a} ({len(h)} hexes)" for a, h in data["setup_areas"][side].items()) or "none"
        isolated = ", ".join(data["isolated"][side]) or "none"
        lines.append(f"  {name}: Setup Areas {areas_text}; Isolated {isolated}; Current-LVP {data['lvp'][side]} "
                     f"of {data['lvp_total']}")
    lines += [f"  {sides[side]} Controls no non-Isolated Strategic Location on {group} ({answer['rule']})"
              for side in data["no_strategic_location"]]
    return _lines(lines)


def map_file(obj, group: str, svg_file, as_of: str | None = None) -> str:
    """The Map Group drawn into an SVG file (a CGS map: its terrain, as `terrain --svg` draws it); the line said."""
    from pathlib import Path

    svg_file = Path(svg_file)
    title = f" as of {as_of}" if as_of else ""
    answer = areas_answer(obj, group, as_of, "map")
    if answer.get("terrain"):
        from cgledger.projections.terrainsvg import terrain_svg

        result, rules = reads.terrain(obj.ledger(), obj.campaign, group, as_of)
        svg_file.write_text(terrain_svg(result, f"{group} map{title}", rules.system.sides), encoding="utf-8")
    else:
        from cgledger.projections.mapsvg import map_svg

        svg_file.write_text(map_svg(answer["areas"], f"{group} Map Group{title}"), encoding="utf-8")
    return _lines([f"map written to {svg_file}"])


def report(obj, html_file, as_of: str | None = None) -> str:
    """The campaign's story written as one self-contained HTML page; the line said."""
    from pathlib import Path

    def compute(ledger) -> dict:
        from cgledger.projections.report import render_html

        return {"html": render_html(ledger.kept.history(obj.campaign, as_of)[0])}

    html_file = Path(html_file)
    html_file.write_text(obj.answer("report", (), compute, as_of)["html"], encoding="utf-8")  # kept per log head
    return _lines([f"report written to {html_file}"])


def _stat_line(name: str, stats: dict | None) -> str:
    if not stats:
        return f"    {name}: none"
    dies = f" (white {stats['mean_white']}, colored {stats['mean_colored']} vs 3.5)" if "mean_white" in stats else ""
    streak = stats["longest_streaks"]
    caution = "" if stats["reliable"] else ", too few rolls for the test"
    return (f"    {name}: {stats['count']}, mean {stats['mean_total']} vs {stats['expected_mean']}{dies}; "
            f"chi-square {stats['chi_square']}, p = {stats['p_value']}{caution}; "
            f"longest streaks high {streak['high']}, low {streak['low']}, same {streak['same']}")


def _brief(stats: dict) -> str:
    parts = []
    for die in ("DR", "dr"):
        s = stats.get(die)
        if s:
            parts.append(f"{die} {s['count']}, mean {s['mean_total']}" + ("" if not s["reliable"] else
                                                                        f", p = {s['p_value']}"))
    return "; ".join(parts) or "none"


def _vasl_lines(vasl: dict, names: dict) -> list[str]:
    """The VASL rolls per scenario (each imported file), per player and per category."""
    if not vasl["scenarios"]:
        return []
    lines = ["VASL dice per scenario (each imported file):"]
    for scenario in vasl["scenarios"]:
        date = f"{scenario['cg_date']}  " if scenario["cg_date"] else ""
        lines.append(f"  {date}{scenario['file']}: {scenario['reports']} reports; {_brief(scenario)}")
        lines += [f"    <{player}>: {_brief(stats)}" for player, stats in scenario["players"].items()]
    lines.append("VASL dice per player (whole campaign):")
    for player, stats in vasl["players"].items():
        sides = ", ".join(names.get(s, s) for s in stats["sides"])
        lines += [f"  <{player}> ({sides}): {_brief(stats)}",
                  _stat_line("DR", stats["DR"]) if stats["DR"] else "    DR: none",
                  _stat_line("dr", stats["dr"]) if stats["dr"] else "    dr: none"]
    lines.append("VASL dice per category (whole campaign):")
    lines += [f"  {category or '(none)'}: {_brief(stats)}" for category, stats in vasl["categories"].items()]
    for key, title in (("dust_die", "Dust die"), ("rof_die", "ROF die")):
        if vasl[key]:
            lines.append(f"  {title}: {vasl[key]['count']}, mean {vasl[key]['mean_total']} vs 3.5")
    return lines


def csv_text(rows: list[dict]) -> str:
    import csv
    import io

    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _flat(v) for k, v in row.items()})
    return out.getvalue()


def table(rows: list[dict], columns: list[tuple[str, str]]) -> str:
    cells = [[title for _key, title in columns]] + [[_cell(r.get(key)) for key, _title in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def _flat(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(_item(v) for v in value)
    if isinstance(value, dict):  # a row's conditions: 'Moon Phase: No Moon; Cloud Cover: Overcast'
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def _item(value) -> str:
    if isinstance(value, dict):
        return value.get("text") or f"{value['id']}({value['cpp']})"
    return str(value)


def _cell(value) -> str:
    return "" if value is None else _flat(value)


def _json(data) -> str:
    """An answer as JSON, indented as `--json` writes it everywhere."""
    from cgledger.ledger.read.answers import dumps

    return dumps(data) + "\n"


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
