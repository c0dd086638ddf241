from __future__ import annotations

import click

from projections.log import log_rows

from .app import common, emit_json, json_option, main
from .log import describe


@main.command()
@click.option("--reason", default="", metavar="TEXT", help="Why (kept in the log).")
@json_option
@common
def undo(obj, reason: str, as_json: bool) -> None:
    """Void the last action still in force by appending an undo event; nothing is deleted."""
    ledger = obj.ledger()
    action, voided = ledger.undo(obj.campaign, reason)
    rows = [r for r in log_rows(voided) if "error" not in r]
    if as_json:
        emit_json({"undone": action, "reason": reason or None, "events": [r["version"] for r in rows]})
        return
    click.echo(f"undone action #{action}:")
    for row in rows:
        click.echo(f"  event {row['version']}: {describe(row)}")
