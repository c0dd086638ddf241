"""Records of the CG scenario and the Initiative: `scenario-end` (8.603) and `initiative` (8.623)."""

from __future__ import annotations

import click

from .app import common, emit_json, json_option, main


@main.command(name="scenario-end")
@click.option("--lvp", "lvp", multiple=True, metavar="SIDE=N",
              help="Each side's Current-LVP (8.6032); without it, read off the loaded maps' LVP Locations.")
@click.option("--winner", metavar="SIDE", help="The winner where the rules seeds give no Victory Conditions (Initial Scenario).")
@json_option
@common
def scenario_end(obj, lvp, winner: str | None, as_json: bool) -> None:
    """CG-Scenario End (8.6032-8.6033): Current-LVP of each side, the winner, new CG-LVP totals."""
    ledger = obj.ledger()
    fact = ledger.scenario_end(obj.campaign, tuple(lvp), winner)
    if as_json:
        emit_json({"scenario": fact.scenario, "lvp": fact.lvp, "winner": fact.winner, "declared": fact.declared})
        return
    sides = ledger.state_as_of(obj.campaign)[1].system.sides
    how = "named by the players" if fact.declared else "8.6234"
    click.echo(f"{fact.scenario} ends: " + ", ".join(f"{sides[s]} {n} LVP" for s, n in fact.lvp.items())
               + f"; winner {sides[fact.winner]} ({how})")


@main.command()
@click.option("--german", "german", required=True, type=click.Choice(["attack", "idle"], case_sensitive=False))
@click.option("--us", "us", required=True, type=click.Choice(["attack", "idle"], case_sensitive=False))
@click.option("--us-has-no-units", is_flag=True, help="The U.S. has no on-map Retained units (8.6232: no German Attack).")
@json_option
@common
def initiative(obj, german: str, us: str, us_has_no_units: bool, as_json: bool) -> None:
    """Initiative Determination (8.6232): both chits, revealed together."""
    fact = obj.ledger().initiative(obj.campaign, {"german": german, "us": us}, us_has_no_units)
    if as_json:
        emit_json({"chits": fact.chits, "scenario": fact.scenario})
        return
    click.echo(f"Initiative: German {fact.chits['german']}, U.S. {fact.chits['us']} -> {fact.scenario}")
