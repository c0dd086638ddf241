from __future__ import annotations

import click

from cgledger.ledger import lazy

from . import complete, statustext
from .app import as_of_option, common, emit_json, json_option, main
from .statustext import render_status

acts = lazy.module("cgledger.ledger.verbs.acts")
reads = lazy.module("cgledger.ledger.read.player")


@main.command()
@as_of_option
@json_option
@common
def status(obj, as_of: str | None, as_json: bool) -> None:
    """CG, CG Date, the open RePh step and what it still needs."""
    click.echo(statustext.status(obj, as_of, as_json), nl=False)  # as the quick path prints it (cli/quick.py)


@main.command()
@click.argument("target", metavar="[next|STEP|scenario]", required=False, shell_complete=complete.steps)
@json_option
@common
def step(obj, target: str | None, as_json: bool) -> None:
    """Show the open step, or move forward: `step next`, `step 8.616`, `step scenario` (8.6).

    Steps go forward in order; a step may be skipped only if it needs nothing; going back is an undo."""
    if target is None:  # the open step: `status`'s answer, as the quick path prints it (cli/quick.py)
        click.echo(statustext.status(obj, None, as_json), nl=False)
        return
    ledger = obj.ledger()
    move = acts.step(ledger, obj.campaign, None if target.lower() == "next" else target)
    data = reads.status(ledger, obj.campaign)
    if as_json:
        emit_json({"step": move.target, "skipped": list(move.skipped), "new_cg_date": move.new_date,
                   "passed": list(move.passed), "campaign_step": move.campaign_step, "ahead": bool(move.side),
                   "status": data})
        return
    if move.new_date:
        click.echo(f"New CG Date: {move.new_date} ({move.new_date_rule})" if move.new_date_rule
                   else f"New CG Date: {move.new_date}")
    if move.side:  # this side walked on ahead: the campaign waits for the other side where it may still act
        click.echo(f"your side is done up to {move.target}; the campaign's open step stays {move.campaign_step} "
                   "until the other side is done there")
    if move.skipped:  # each step passed, and what it was for
        click.echo(f"done with: {', '.join(move.skipped)}" if move.side
                   else f"skipped: {', '.join(move.skipped)} (nothing needed there now)")
        for passed in move.passed:
            click.echo(f"  passed {passed['title']}" + (f": {passed['note']}" if passed["note"] else ""))
    click.echo(render_status(data))
