from __future__ import annotations

import click

from .app import common, emit_json, json_option, main


@main.command(name="date")
@json_option
@common
def show_date(obj, as_json: bool) -> None:
    """Show the campaign's CG and current CG Date."""
    campaign = obj.ledger().campaign(obj.campaign)
    data = {"campaign": campaign.name, "system": campaign.system, "cg": campaign.cg, "cg_date": campaign.cg_date,
            "flags": campaign.flags}
    if as_json:
        emit_json(data)
        return
    flags = f" ({', '.join(campaign.flags)})" if campaign.flags else ""
    click.echo(f"{campaign.name}: {campaign.system.upper()} CG {campaign.cg}, CG Date {campaign.cg_date}{flags}")


@main.command()
@click.option("--to", "to", metavar="DATE", help="A later CG Date (default: the next one).")
@json_option
@common
def advance(obj, to: str | None, as_json: bool) -> None:
    """8.6121 New CG Date: move the campaign to the next CG Date."""
    fact = obj.ledger().advance(obj.campaign, to)
    if as_json:
        emit_json({"previous": fact.previous, "cg_date": fact.cg_date, "action": fact.action})
        return
    click.echo(f"CG Date {fact.previous} -> {fact.cg_date}")
