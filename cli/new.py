from __future__ import annotations

import click

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")


def _systems() -> str:
    """Each shipped rule system and its campaign games, from the rules data (e.g. 'kgp (CG I|II|III)')."""
    from cgledger.ledger.rules import _system_file, systems

    return ", ".join(f"{s} (CG {'|'.join(c.id for c in _system_file(s).cg)})" for s in systems())


@main.command()
@click.argument("name")
@click.option("--system", default="kgp", show_default=True, help=f"Rule system: {_systems()}.")
@click.option("--cg", required=True, help="Which campaign game of the system (see --system).")
@click.option("--start-cpp", multiple=True, metavar="SIDE=N", help="CPP a side has before the Initial Scenario (8.51-.53).")
@click.option("--random-weather", is_flag=True, help="Use the 8.6171 random weather instead of the historical chart.")
@json_option
@common
def new(obj, name: str, system: str, cg: str, start_cpp, random_weather: bool, as_json: bool) -> None:
    """Start a campaign NAME (8.5x): its CG and starting CG Date."""
    from cgledger.ledger.decide.steps import start

    start(name, system.lower(), cg, tuple(start_cpp), random_weather)  # a refused one creates no database
    campaign = acts.new_campaign(obj.ledger(create=True), name, system.lower(), cg, tuple(start_cpp), random_weather)
    if as_json:
        emit_json({"name": campaign.name, "system": campaign.system, "cg": campaign.cg, "cg_date": campaign.cg_date,
                   "step": campaign.step, "cpp": campaign.cpp})
        return
    click.echo(f"Campaign '{campaign.name}' started: {campaign.system.upper()} CG {campaign.cg}, CG Date {campaign.cg_date}, "
               f"step {campaign.step} (before the Initial Scenario)")
