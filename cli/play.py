"""Records of the CG scenario and the Initiative: `scenario-end` (8.603) and `initiative` (8.623)."""

from __future__ import annotations

import click

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")


@main.command(name="scenario-end")
@click.option("--lvp", "lvp", multiple=True, metavar="SIDE=N",
              help="Each side's Current-LVP (8.6032); without it, read off the loaded maps' LVP Locations.")
@click.option("--winner", metavar="SIDE", help="The winner where the rules seeds give no Victory Conditions (Initial Scenario).")
@json_option
@common
def scenario_end(obj, lvp, winner: str | None, as_json: bool) -> None:
    """CG-Scenario End (8.6032-8.6033): Current-LVP of each side, the winner, new CG-LVP totals."""
    ledger = obj.ledger()
    fact = acts.scenario_end(ledger, obj.campaign, tuple(lvp), winner)
    if as_json:
        emit_json({"scenario": fact.scenario, "lvp": fact.lvp, "winner": fact.winner, "declared": fact.declared})
        return
    sides = ledger.state_as_of(obj.campaign)[1].system.sides
    how = "named by the players" if fact.declared else "8.6234"
    winner = f"; winner {sides[fact.winner]} ({how})" if fact.winner else "; no winner (the CG is won, not its scenarios)"
    click.echo(f"{fact.scenario} ends: " + ", ".join(f"{sides[s]} {n} LVP" for s, n in fact.lvp.items()) + winner)


CHIT = click.Choice(["attack", "idle"], case_sensitive=False)


@main.command()
@click.option("--german", "german", type=CHIT, help="The German chit.")
@click.option("--us", "us", type=CHIT, help="The U.S. chit (KGP).")
@click.option("--chit", "chits", multiple=True, metavar="SIDE=attack|idle", help="A side's chit (any system).")
@click.option("--us-has-no-units", is_flag=True, help="The U.S. has no on-map Retained units (8.6232: no German Attack).")
@json_option
@common
def initiative(obj, german: str | None, us: str | None, chits, us_has_no_units: bool, as_json: bool) -> None:
    """Initiative Determination (8.6232, RR 2.5222): both chits, revealed together."""
    given = {side: chit for side, chit in (("german", german), ("us", us)) if chit}
    for item in chits:
        side, sep, chit = item.partition("=")
        if not sep or chit.lower() not in ("attack", "idle"):
            raise click.BadParameter(f"'{item}': use SIDE=attack or SIDE=idle", param_hint="--chit")
        given[side] = chit
    fact = acts.initiative(obj.ledger(), obj.campaign, given, us_has_no_units)
    if not hasattr(fact, "chits"):  # sealed: both sides hold keys
        if as_json:
            emit_json({"sealed": fact.side, "event": obj.ledger().campaign(obj.campaign).version})
            return
        click.echo(f"the {obj.side_name(fact.side)} chit is sealed; both chits are revealed by the sides' ledgers once both are "
                   "sealed, and the matrix resolves then")
        return
    if as_json:
        emit_json({"chits": fact.chits, "scenario": fact.scenario})
        return
    click.echo("Initiative: " + ", ".join(f"{side} {chit}" for side, chit in fact.chits.items()) + f" -> {fact.scenario}")
