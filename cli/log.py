from __future__ import annotations

import click

from projections.log import log_rows

from .app import common, emit_json, json_option, main


def describe(row: dict) -> str:
    """One line for one event row of the log projection."""
    kind = row["type"]
    if "error" in row:
        return f"unreadable stored event ({row['error']})"
    if kind == "CampaignStarted":
        return f"campaign '{row['name']}' started: {row['system'].upper()} CG {row['cg']}"
    if kind == "DiceRolled":
        drms = "".join(f" {d['value']:+d} {d['key']}" + (f"={d['input']}" if d["input"] is not None else "") for d in row["drms"])
        tags = (" [secret]" if row["secret"] else "") + (f" for '{row['purpose']}'" if row["purpose"] else "")
        return (
            f"{row['table']} {row['side']} {row['die']} {','.join(map(str, row['dice']))} ({row['source']}) "
            f"Original {row['original']}{drms} Final {row['final']}: {row['result']}{tags}"
        )
    if kind == "ActionUndone":
        return f"undo of action {row['undone']}" + (f": {row['reason']}" if row["reason"] else "")
    if kind == "CGDateChanged":
        return f"new CG Date {row['cg_date']} (was {row['previous']})"
    if kind == "TablesOverridden":
        return f"rules file {row['source']} loaded: {', '.join(row['tables'])}"
    return kind


def render(row: dict) -> str:
    voided = "  (undone)" if row.get("voided") else ""
    action = f"#{row['action']}" if "action" in row else ""
    return f"{row['version']:>5} {action:>5} {row.get('cg_date') or '':>6}  {describe(row)}{voided}"


@main.command()
@json_option
@common
def log(obj, as_json: bool) -> None:
    """Print the campaign's event log in order (undone actions are marked, never removed)."""
    rows = log_rows(obj.ledger().history(obj.campaign))
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        click.echo(render(row))
