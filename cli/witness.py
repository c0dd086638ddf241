"""`cgledger witness`: your word on the other side's typed or VASL dice."""

from __future__ import annotations

import click

from cgledger.ledger.domain.timeline import effective
from cgledger.projections.log import log_rows

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main
from .logtext import describe

acts = lazy.module("cgledger.ledger.verbs.acts")


@main.command()
@click.argument("events", nargs=-1, type=int)
@click.option("--all", "every", is_flag=True, help="Every roll of the other side still waiting for your witness.")
@click.option("--dispute", default="", metavar="REASON",
              help="Refuse the dice of the rolls named, saying why (kept on record for both sides).")
@json_option
@common
def witness(obj, events: tuple[int, ...], every: bool, dispute: str, as_json: bool) -> None:
    """Witness the dice the other side typed or took from VASL (their event numbers, or --all), once both sides
    hold keys; or dispute them with --dispute REASON. A witness is a statement on record: no undo takes it back."""
    if every and dispute:
        raise click.UsageError("dispute the rolls one by one (name their events): --all witnesses")
    fact, rolls = acts.witness(obj.ledger(), obj.campaign, events, every, dispute)
    rows = [r for r in log_rows(effective(rolls)) if "error" not in r]
    if as_json:
        emit_json({"side": fact.side, "rolls": list(fact.rolls), "disputed": fact.disputed or None})
        return
    verb = f"disputed ({fact.disputed})" if fact.disputed else "witnessed"
    click.echo(f"{verb}: the dice of {len(fact.rolls)} roll(s) of the other side")
    sides = obj.side_names()
    for row in rows:
        click.echo(f"  event {row['version']}: {describe(row, sides)}")
