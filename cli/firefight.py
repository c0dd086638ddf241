"""CGS: `firefight-end` and `terrain`."""

from __future__ import annotations

from pathlib import Path

import click

from projections.terrain import changed, terrain
from projections.terrainsvg import terrain_svg

from .app import as_of_option, common, emit_json, json_option, main


@main.command(name="firefight-end")
@click.option("--map", "map_id", required=True, metavar="MAP", help="DTW or GE.")
@click.option("--fire", "fires", multiple=True, metavar="HEX", help="A hex with Fire at the firefight's end (6.7.2).")
@click.option("--burning-wreck", "wrecks", multiple=True, metavar="HEX", help="A Burning Wreck (one per wreck, 6.8.2.1).")
@click.option("--sewer", "in_sewer", multiple=True, metavar="UNIT", help="A unit In Sewer at the end (6.16.3).")
@click.option("--redeployed", multiple=True, metavar="UNIT", help="A unit In Sewer that Re-Deployed by Sewer Movement.")
@json_option
@common
def firefight_end(obj, map_id: str, fires, wrecks, in_sewer, redeployed, as_json: bool) -> None:
    """End the CGS Campaign Firefight: what it leaves on the map; the campaign moves to the next firefight."""
    fact = obj.ledger().firefight_end(obj.campaign, map_id, tuple(fires), tuple(wrecks), tuple(in_sewer),
                                      tuple(redeployed))
    if as_json:
        emit_json({"firefight": fact.firefight, "map": fact.map, "fires": list(fact.fires),
                   "burning_wrecks": list(fact.burning_wrecks), "in_sewer": list(fact.in_sewer),
                   "redeployed": list(fact.redeployed)})
        return
    stay = [u for u in fact.in_sewer if u not in fact.redeployed]
    click.echo(f"{fact.firefight} ended on {fact.map}: {len(fact.fires)} hexes with Fire, {len(fact.burning_wrecks)} "
               f"Burning Wrecks" + (f"; In Sewer, staying in their sector: {', '.join(stay)}" if stay else ""))


@main.command(name="terrain")
@click.option("--map", "map_id", required=True, metavar="MAP")
@as_of_option
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@json_option
@common
def terrain_command(obj, map_id: str, as_of: str | None, svg_file: Path | None, as_json: bool) -> None:
    """The terrain changes the Campaign Firefights made so far (6.7.2, 6.8.2.1), as JSON or drawn."""
    logged, rules, _state = obj.ledger().read(obj.campaign, as_of)
    result = terrain(logged, rules, map_id)
    if svg_file:
        svg_file.write_text(terrain_svg(result, f"{map_id} terrain" + (f" as of {as_of}" if as_of else "")),
                            encoding="utf-8")
        click.echo(f"terrain written to {svg_file}")
        return
    if as_json:
        emit_json({"map": map_id, "changed": changed(result), "hexes": list(result["hexes"].values())})
        return
    for cell in changed(result):
        for change in cell["changes"]:
            click.echo(f"{cell['hex']}: {change['firefight']}: {change['change']}")
    if not changed(result):
        click.echo(f"no terrain on {map_id} changed by a firefight yet")


@main.command()
@click.argument("item", metavar="ITEM")
@click.argument("hex_text", metavar="HEX")
@click.option("--side", required=True)
@click.option("--hidden", is_flag=True, help="Set up hidden (mines: not on a paved road, 7.4.4).")
@json_option
@common
def place(obj, item: str, hex_text: str, side: str, hidden: bool, as_json: bool) -> None:
    """Place a fortification bought as an RG (dug_in, trench, at_trench, mines, roadblock, wire) on the map."""
    fact = obj.ledger().place(obj.campaign, item, hex_text, side, hidden)
    if as_json:
        emit_json({"item": fact.item, "hex": fact.hex, "side": fact.side, "hidden": fact.hidden, "rg": fact.rg})
        return
    click.echo(f"{fact.side}: {fact.item} placed in {fact.hex}" + (" (hidden)" if fact.hidden else ""))
