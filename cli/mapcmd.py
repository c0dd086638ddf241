"""The map: `control`, `hq`, `areas`, `map` (8.605-8.6057). What `areas` and `map` print and write is
cli/readtext.py's."""

from __future__ import annotations

from pathlib import Path

import click


from cgledger.ledger import lazy

from . import complete, readtext
from .app import as_of_option, common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")
cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.command()
@click.argument("location", metavar="LOCATION")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--strategic", default="", metavar="KIND",
              help="A Strategic Location: B building, E Entrenchment, F Fortification, G Gun, V Immobile vehicle; "
                   "kept through later changes of Control unless given again, or `none` to clear it (8.605).")
@json_option
@common
def control(obj, location: str, side: str, strategic: str, as_json: bool) -> None:
    """Record that SIDE gained Control of LOCATION (a hex such as StJ19, or a level: StJ19/1)."""
    ledger = obj.ledger()
    fact = acts.control(ledger, obj.campaign, location, side, strategic)
    if as_json:
        emit_json({"location": fact.location, "side": fact.side, "strategic": fact.strategic or None,
                   "warnings": list(ledger.notices)})
        return
    kind = f" (Strategic Location, {fact.strategic})" if fact.strategic else ""
    click.echo(f"{fact.location}: Controlled by {obj.side_name(fact.side)}{kind}")


@main.command()
@click.argument("group", metavar="GROUP")
@json_option
@common
def vacated(obj, group: str, as_json: bool) -> None:
    """KGP 8.6131 EXC: every Retained on-map U.S. unit on Map Group GROUP (St, Ch, Lg) is Eliminated or has Escaped
    or Shifted to a Holding Box: the German gains Control of all its Strategic Locations. Recorded by the U.S. side."""
    facts = obj.ledger().execute(obj.campaign, cmd.Vacate(map_group=group))
    if as_json:
        emit_json([{"location": f.location, "side": f.side, "strategic": f.strategic or None} for f in facts])
        return
    for fact in facts:
        click.echo(f"{fact.location}: Controlled by {obj.side_name(fact.side)} (Strategic Location, {fact.strategic}; "
                   f"8.6131)")


@main.command()
@click.argument("location", metavar="LOCATION")
@click.option("--side", shell_complete=complete.sides, default="german", show_default=True)
@common
def hq(obj, location: str, side: str) -> None:
    """8.6052 EXC: record the 'HQ' Location the German traces Isolation to on Lg (instead of LgN25)."""
    fact, = obj.ledger().execute(obj.campaign, cmd.RecordHQ(side=side, location=location))
    click.echo(f"{obj.side_name(fact.side)} HQ is now {fact.location}")


@main.command()
@click.option("--group", required=True, metavar="GROUP", help="Map Group: St, Ch or Lg.")
@as_of_option
@json_option
@common
def areas(obj, group: str, as_of: str | None, as_json: bool) -> None:
    """Setup Areas, No Man's Land, Uncontrolled Territory and Isolated Locations of a Map Group (8.605)."""
    click.echo(readtext.areas(obj, group, as_of, as_json), nl=False)


@main.command(name="map")
@click.option("--group", required=True, metavar="GROUP")
@click.option("--svg", "svg_file", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@as_of_option
@common
def map_command(obj, group: str, svg_file: Path, as_of: str | None) -> None:
    """Draw the Map Group as hexes: Strategic Locations outlined, No Man's Land yellow, Setup Areas, Isolated (a CGS
    map: its terrain, fortifications and Mouseholes, as `terrain --svg` draws it for the side of the key given)."""
    click.echo(readtext.map_file(obj, group, svg_file, as_of), nl=False)
