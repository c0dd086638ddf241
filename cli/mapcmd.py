"""The map: `control`, `hq`, `areas`, `map` (8.605-8.6057)."""

from __future__ import annotations

from pathlib import Path

import click


from . import complete
from .app import as_of_option, common, emit_answer, emit_json, json_option, main


def _is_terrain_map(obj) -> bool:
    """A system that determines no Setup Areas (CGS) draws its map as the terrain the firefights left."""
    _state, rules = obj.ledger().state_as_of(obj.campaign)
    return not any(step.control for step in rules.system.steps)


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
    fact = ledger.control(obj.campaign, location, side, strategic)
    if as_json:
        emit_json({"location": fact.location, "side": fact.side, "strategic": fact.strategic or None,
                   "warnings": list(ledger.notices)})
        return
    kind = f" (Strategic Location, {fact.strategic})" if fact.strategic else ""
    click.echo(f"{fact.location}: Controlled by {obj.side_name(fact.side)}{kind}")


@main.command()
@click.argument("location", metavar="LOCATION")
@click.option("--side", shell_complete=complete.sides, default="german", show_default=True)
@common
def hq(obj, location: str, side: str) -> None:
    """8.6052 EXC: record the 'HQ' Location the German traces Isolation to on Lg (instead of LgN25)."""
    fact = obj.ledger().record_hq(obj.campaign, side, location)
    click.echo(f"{obj.side_name(fact.side)} HQ is now {fact.location}")


def _areas(obj, group: str, as_of: str | None):
    from cgledger.projections.areas import document

    result, rules, _state = obj.ledger().areas_of(obj.campaign, group, as_of)  # a kept view unless as_of (issue 24)
    return document(result, rules, group), rules


def _areas_answer(obj, group: str, as_of: str | None, command: str = "areas") -> dict:
    """The areas and what their text names, kept per log head (ledger/answers.py); for `map`, {"terrain": True} on
    a CGS map (drawn from objects, for the side of the key given: not kept as an answer)."""
    def compute(_ledger) -> dict:
        if command == "map" and _is_terrain_map(obj):
            return {"terrain": True}
        data, rules = _areas(obj, group, as_of)
        return {"areas": data, "sides": dict(rules.system.sides),
                "rule": [step.id for step in rules.system.steps if step.control][-1]}  # Setup Area Determination

    return obj.answer(command, (group,), compute, as_of)


@main.command()
@click.option("--group", required=True, metavar="GROUP", help="Map Group: St, Ch or Lg.")
@as_of_option
@json_option
@common
def areas(obj, group: str, as_of: str | None, as_json: bool) -> None:
    """Setup Areas, No Man's Land, Uncontrolled Territory and Isolated Locations of a Map Group (8.605)."""
    answer = _areas_answer(obj, group, as_of)
    data, sides = answer["areas"], answer["sides"]
    if as_json:
        emit_answer(data)
        return
    nml = sum(1 for e in data["hexes"] if e[next(iter(sides))] == "nml")
    click.echo(f"Map Group {group}: {len(data['hexes'])} hexes, {nml} No Man's Land")
    for side, name in sides.items():
        areas_text = ", ".join(f"{a} ({len(h)} hexes)" for a, h in data["setup_areas"][side].items()) or "none"
        isolated = ", ".join(data["isolated"][side]) or "none"
        click.echo(f"  {name}: Setup Areas {areas_text}; Isolated {isolated}; Current-LVP {data['lvp'][side]} "
                   f"of {data['lvp_total']}")
    for side in data["no_strategic_location"]:
        click.echo(f"  {sides[side]} Controls no non-Isolated Strategic Location on {group} ({answer['rule']})")


@main.command(name="map")
@click.option("--group", required=True, metavar="GROUP")
@click.option("--svg", "svg_file", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@as_of_option
@common
def map_command(obj, group: str, svg_file: Path, as_of: str | None) -> None:
    """Draw the Map Group as hexes: Strategic Locations outlined, No Man's Land yellow, Setup Areas, Isolated (a CGS
    map: its terrain, fortifications and Mouseholes, as `terrain --svg` draws it for the side of the key given)."""
    from cgledger.projections.mapsvg import map_svg

    answer = _areas_answer(obj, group, as_of, "map")
    result, rules = obj.ledger().terrain(obj.campaign, group, as_of) if answer.get("terrain") else (None, None)
    if result is not None:
        from cgledger.projections.terrainsvg import terrain_svg

        svg_file.write_text(terrain_svg(result, f"{group} map" + (f" as of {as_of}" if as_of else ""),
                                        rules.system.sides), encoding="utf-8")
        click.echo(f"map written to {svg_file}")
        return
    svg_file.write_text(map_svg(answer["areas"], f"{group} Map Group" + (f" as of {as_of}" if as_of else "")),
                        encoding="utf-8")
    click.echo(f"map written to {svg_file}")
