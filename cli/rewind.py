from __future__ import annotations

import click

from cgledger.ledger.domain.events import TakeBackProposed

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main
from .undo import show_take_back

cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.command()
@click.argument("date", metavar="DATE")
@click.option("--reason", default="", metavar="TEXT")
@json_option
@common
def rewind(obj, date: str, reason: str, as_json: bool) -> None:
    """Resume play from the end of DATE's RePh: every later action is voided by one new event. Once sides have
    keys, voiding the other side's or shared actions is a proposal the other side accepts (`accept`)."""
    fact, = obj.ledger().execute(obj.campaign, cmd.Rewind(cg_date=date, reason=reason))
    if isinstance(fact, TakeBackProposed):
        show_take_back(fact, [], reason, as_json)
        return
    if as_json:
        emit_json({"cg_date": fact.cg_date, "to_version": fact.to_version, "voided": list(fact.voided)})
        return
    click.echo(f"rewound to the end of {fact.cg_date}'s RePh (event {fact.to_version}); "
               f"{len(fact.voided)} actions voided, kept in the log")
