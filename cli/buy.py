from __future__ import annotations

import click

from .app import common, emit_json, json_option, main


@main.command()
@click.argument("rg_id", metavar="RG_ID")
@click.option("--side", required=True)
@click.option("--map-group", "map_group", required=True, metavar="GROUP", help="Map Group it is bought for (St, Ch, Lg).")
@click.option("--objective", default="", metavar="HEX", help="Objective Hex of an 'I' or 'HW' RG (8.6198).")
@click.option("--given", is_flag=True, help="Given in the Initial-Scenario OB: no CPP, not counted (8.6196).")
@json_option
@common
def buy(obj, rg_id: str, side: str, map_group: str, objective: str, given: bool, as_json: bool) -> None:
    """Purchase an RG in step 8.619 against the side's RG chart, CPP and limits."""
    fact = obj.ledger().buy(obj.campaign, rg_id, side, map_group, objective, given)
    if as_json:
        emit_json({"rg": fact.rg, "side": fact.side, "group_type": fact.group_type, "cpp": fact.cpp,
                   "map_group": fact.map_group, "objective": fact.objective or None, "given": fact.given,
                   "follow_up": list(fact.rolls)})
        return
    how = "given in the Initial-Scenario OB" if fact.given else f"{fact.cpp} CPP"
    click.echo(f"{fact.side}: RG {fact.rg} {fact.group_type} for {fact.map_group} ({how})"
               + (f"; step 8.620 rolls: {', '.join(fact.rolls)}" if fact.rolls else ""))
