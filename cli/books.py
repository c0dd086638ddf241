"""The campaign's books: `roster`, `rg-record`, `history`, `report`."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import click

from cgledger.ledger.wording import describe_claim, final_lines

from . import complete
from .app import as_of_option, common, emit_answer, json_option, main

csv_option = click.option("--csv", "as_csv", is_flag=True, help="CSV on stdout.")


def emit_csv(rows: list[dict]) -> None:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _flat(v) for k, v in row.items()})
    click.echo(out.getvalue(), nl=False)


def _flat(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(_item(v) for v in value)
    return str(value)


def _item(value) -> str:
    if isinstance(value, dict):
        return value.get("text") or f"{value['id']}({value['cpp']})"
    return str(value)


def _cell(value) -> str:
    return "" if value is None else _flat(value)


def table(rows: list[dict], columns: list[tuple[str, str]]) -> str:
    cells = [[title for _key, title in columns]] + [[_cell(r.get(key)) for key, _title in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


ROSTER = [("date", "Date"), ("start", "Start"), ("repl", "Repl"), ("total", "Total"), ("spent", "Spent"),
          ("left", "Left"), ("rg", "RG"), ("lvp", "LVP"), ("cg_lvp", "CG-LVP"), ("win", "Win"),
          ("weather", "Weather"), ("recon", "Recon")]
RECORD = [("date", "CG Date"), ("id", "RG ID"), ("group_type", "Group Type"), ("p", "#P"), ("r", "#R"), ("str", "Str"),
          ("units", "# Units"), ("sw", "SW"), ("leaders", "Leaders"), ("objective", "Objective Hex"), ("ref", "Ref")]


@main.command()
@click.option("--side", shell_complete=complete.sides, required=True)
@as_of_option
@json_option
@csv_option
@common
def roster(obj, side: str, as_of: str | None, as_json: bool, as_csv: bool) -> None:
    """The side's CG Roster (8.6162): Start, Repl, Total, Spent, Left, RG, LVP, CG-LVP, Win, Weather, Recon."""
    def compute(ledger) -> dict:
        from cgledger.ledger.decide import witness as witnessing
        from cgledger.projections.roster import public

        books, rules, state = ledger.rosters_of(obj.campaign, as_of)
        return {"name": rules.system.sides[rules.side(side)], "rows": [public(r) for r in books[rules.side(side)]],
                "sides": dict(rules.system.sides),
                "unwitnessed": [c for c in witnessing.view(state, rules) if c["side"] == rules.side(side)]}

    answer = obj.answer("roster", (side,), compute, as_of)
    rows = answer["rows"]
    if as_json:
        emit_answer(rows)
    elif as_csv:
        emit_csv(rows)
    else:
        click.echo(f"CG Roster: {answer['name']}")
        click.echo(table(rows, ROSTER))
        for claim in answer["unwitnessed"]:
            click.echo(f"  not witnessed: {describe_claim(claim, answer['sides'])}")


@main.command(name="rg-record")
@click.option("--side", shell_complete=complete.sides, required=True)
@as_of_option
@json_option
@csv_option
@common
def rg_record(obj, side: str, as_of: str | None, as_json: bool, as_csv: bool) -> None:
    """The side's RG Purchase Record (8.6198)."""
    def compute(ledger) -> dict:
        records, rules, _state = ledger.rg_records_of(obj.campaign, as_of)
        return {"name": rules.system.sides[rules.side(side)], "rows": records[rules.side(side)]}

    answer = obj.answer("rg-record", (side,), compute, as_of)
    rows = answer["rows"]
    if as_json:
        emit_answer(rows)
    elif as_csv:
        emit_csv(rows)
    else:
        click.echo(f"RG Purchase Record: {answer['name']}")
        click.echo(table(rows, RECORD) if rows else "(no RG yet)")


@main.command()
@as_of_option
@json_option
@common
def history(obj, as_of: str | None, as_json: bool) -> None:
    """The campaign's story per CG Date: scenario, winner, LVP, CPP, RG, weather, notable rolls, undos."""
    story = obj.answer("history", (), lambda ledger: ledger.history_of(obj.campaign, as_of)[0], as_of)
    if as_json:
        emit_answer(story)
        return
    sides = story["campaign"]["sides"]
    for d in story["dates"]:
        winner = f", won by {sides.get(d['winner'], d['winner'])}" if d["winner"] else ""
        click.echo(f"{d['date']}: {d['scenario'] or 'RePh'}{winner}; weather {d['weather'] or '-'}")
        for side, name in sides.items():
            rg = ", ".join(r.get("text") or f"{r['id']} ({r['cpp']})" for r in d["rg"][side]) or "no RG"
            click.echo(f"  {name}: LVP {_cell(d['lvp'][side]) or '-'}, CG-LVP {_cell(d['cg_lvp'][side]) or '-'}, "
                       f"CPP spent {_cell(d['cpp_spent'][side]) or '-'}, {rg}")
        for line in d["notable"]:
            click.echo(f"  roll: {line}")
        for line in d["undos"]:
            click.echo(f"  {line}")


@main.command()
@click.option("--html", "html_file", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@as_of_option
@common
def report(obj, html_file: Path, as_of: str | None) -> None:
    """Write the campaign's story as one self-contained HTML page (history, rosters, RG records, LVP chart)."""
    def compute(ledger) -> dict:
        from cgledger.projections.report import render_html

        return {"html": render_html(ledger.history_of(obj.campaign, as_of)[0])}

    html_file.write_text(obj.answer("report", (), compute, as_of)["html"], encoding="utf-8")  # kept per log head
    click.echo(f"report written to {html_file}")


@main.command()
@json_option
@common
def final(obj, as_json: bool) -> None:
    """The end of the CG: each side's final CG-LVP, scenarios won, CPP and RG totals (before the end: the result
    so far)."""
    def compute(ledger) -> dict:
        result, rules = ledger.final_of(obj.campaign)
        return {"result": result, "sides": dict(rules.system.sides)}

    answer = obj.answer("final", (), compute)
    if as_json:
        emit_answer(answer["result"])
        return
    click.echo("\n".join(final_lines(answer["result"], answer["sides"])))
