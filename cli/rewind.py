from __future__ import annotations

import click

from .app import common, emit_json, json_option, main


@main.command()
@click.argument("date", metavar="DATE")
@click.option("--reason", default="", metavar="TEXT")
@json_option
@common
def rewind(obj, date: str, reason: str, as_json: bool) -> None:
    """Resume play from the end of DATE's RePh: every later action is voided by one new event."""
    fact = obj.ledger().rewind(obj.campaign, date, reason)
    if as_json:
        emit_json({"cg_date": fact.cg_date, "to_version": fact.to_version, "voided": list(fact.voided)})
        return
    click.echo(f"rewound to the end of {fact.cg_date}'s RePh (event {fact.to_version}); "
               f"{len(fact.voided)} actions voided, kept in the log")
