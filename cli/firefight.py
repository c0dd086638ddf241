"""CGS: `firefight-end`, `terrain`, `place`, `remove`, `mousehole`."""

from __future__ import annotations

from pathlib import Path

import click

from cgledger.ledger.domain.events import CPPGained
from cgledger.ledger.domain.terrain import parse_redeployed, parse_sewer
from cgledger.ledger.domain.wording import counted, item_name
from cgledger.projections.terrain import changed, public
from cgledger.projections.terrainsvg import terrain_svg

from cgledger.ledger import lazy

from . import complete
from .app import as_of_option, common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")
reads = lazy.module("cgledger.ledger.read.player")
cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.command(name="firefight-end")
@click.option("--map", "map_id", required=True, metavar="MAP", help="DTW or GE.")
@click.option("--fire", "fires", multiple=True, metavar="HEX", help="A hex with Fire at the firefight's end (6.7.2).")
@click.option("--burning-wreck", "wrecks", multiple=True, metavar="HEX", help="A Burning Wreck (one per wreck, 6.8.2.1).")
@click.option("--sewer", "in_sewer", multiple=True, metavar="'UNIT in HEX'",
              help="A unit In Sewer at the end and its hex, e.g. '4-4-7 in DTW-N32' (6.16.3).")
@click.option("--redeployed", multiple=True, metavar="'UNIT to HEX'",
              help="A unit In Sewer that Re-Deployed by Sewer Movement, to a sewer hex within three hexes (6.16.3).")
@json_option
@common
def firefight_end(obj, map_id: str, fires, wrecks, in_sewer, redeployed, as_json: bool) -> None:
    """End the CGS Campaign Firefight: what it leaves on the map; the campaign moves to the next firefight."""
    facts = obj.ledger().execute(obj.campaign, cmd.EndFirefight(map=map_id, fires=tuple(fires), burning_wrecks=tuple(wrecks),
                                                                in_sewer=tuple(in_sewer), redeployed=tuple(redeployed)))
    fact = facts[0]
    gained = [f for f in facts if isinstance(f, CPPGained)]
    if as_json:
        emit_json({"firefight": fact.firefight, "map": fact.map, "fires": list(fact.fires),
                   "burning_wrecks": list(fact.burning_wrecks), "in_sewer": list(fact.in_sewer),
                   "redeployed": list(fact.redeployed),
                   "cpp_gained": {f.side: f.cpp for f in gained}})
        return
    moved = {parse_redeployed(t)[0].casefold() for t in fact.redeployed}
    stay = [t for t in fact.in_sewer if parse_sewer(t)[0].casefold() not in moved]
    click.echo(f"{fact.firefight} ended on {fact.map}: {counted(len(fact.fires), 'hex', 'hexes')} with Fire, "
               f"{counted(len(fact.burning_wrecks), 'Burning Wreck')}" + (f"; In Sewer, staying in their sector: {', '.join(stay)}" if stay else ""))
    for f in gained:
        click.echo(f"{obj.side_name(f.side)} gains {f.cpp} CPP for {f.cg_date} ({f.chart}{', ' + f.rule if f.rule else ''})")


@main.command(name="terrain")
@click.option("--map", "map_id", required=True, metavar="MAP")
@as_of_option
@click.option("--side", shell_complete=complete.sides, default=None, help="As that side sees it: its own hidden fortifications too (7.4.4; a side "
                                           "with a key needs its passphrase). Default: the side of the key given.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@json_option
@common
def terrain_command(obj, map_id: str, as_of: str | None, side: str | None, svg_file: Path | None,
                    as_json: bool) -> None:
    """The map as the Campaign Firefights left it (6.7.2, 6.8.2.1, 6.16.3, 7.1-7.6), as JSON or drawn."""
    result, rules = reads.terrain(obj.ledger(), obj.campaign, map_id, as_of, side)
    if svg_file:
        svg_file.write_text(terrain_svg(result, f"{map_id} terrain" + (f" as of {as_of}" if as_of else "") + (
            f", as the {rules.system.sides[result['viewer']]} side sees it" if result["viewer"] else ""),
            rules.system.sides), encoding="utf-8")
        click.echo(f"terrain written to {svg_file}")
        return
    if as_json:
        emit_json(public(result))
        return
    for cell in changed(result):
        for change in cell["changes"]:
            click.echo(f"{cell['hex']}: {change['firefight']}: {change['change']}")
    if not changed(result):
        click.echo(f"no terrain on {map_id} changed yet")
    for cell in result["hexes"].values():
        for f in cell["fortifications"]:
            hidden = " (hidden)" if f["hidden"] and "revealed" not in f else ""
            click.echo(f"{cell['hex']}: {obj.side_name(f['side'])} {item_name(f['item'])}{hidden}")
    for hole in result["mouseholes"]:
        click.echo(f"{'/'.join(hole['hexes'])}: Mousehole ({hole['side']}, {hole['firefight']})")
    for h in result["hidden"]:
        click.echo(f"hidden: a {obj.side_name(h['side'])} {item_name(h['item'])} (event {h['event']}), hex not known")
    last = list(result["sewer"].items())[-1:] if result["sewer"] else []
    for firefight, units in last:
        for u in units:
            where = u["now"] or "?"
            sector = f", sector {u['sector_now']}" if u["sector_now"] else ""
            how = f"Re-Deployed to {where}" if u["redeployed"] else f"stays in {where}"
            click.echo(f"In Sewer after {firefight}: {u['unit']} {how}{sector}")


@main.command()
@click.argument("item", metavar="ITEM")
@click.argument("hex_text", metavar="HEX")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--hidden", is_flag=True, help="Set up hidden (mines, 7.4.4): sealed with the side's key when it has one.")
@json_option
@common
def place(obj, item: str, hex_text: str, side: str, hidden: bool, as_json: bool) -> None:
    """Place a fortification bought as an RG (dug_in, trench, at_trench, mines, roadblock, wire) on the map."""
    fact, version = acts.place(obj.ledger(), obj.campaign, item, hex_text, side, hidden)
    if as_json:
        emit_json({"event": version, "item": fact.item, "hex": fact.hex, "side": fact.side, "hidden": fact.hidden,
                   "rg": fact.rg})
        return
    click.echo(f"{obj.side_name(fact.side)}: {item_name(fact.item)} placed in {fact.hex}" + (
        f" (hidden; event {version}: `cgledger reveal {version} --entered` when an enemy unit enters it)"
        if fact.hidden else ""))


@main.command()
@click.argument("item", metavar="ITEM")
@click.argument("hex_text", metavar="HEX")
@click.option("--by", "by", required=True, type=click.Choice(["clearance", "fire", "abandoned"]),
              help="clearance (7.4.8, 7.5.3, 7.6.3), fire: an FFT 'E' from HE/DC fire (7.5.3, 7.6.3), abandoned: "
                   "its units left (7.1.2 Dug-In). A \"00\" mine attack: `roll 7.4.7 --hex HEX`.")
@click.option("--side", shell_complete=complete.sides, default=None, help="Whose fortification, if both sides have one there.")
@json_option
@common
def remove(obj, item: str, hex_text: str, by: str, side: str | None, as_json: bool) -> None:
    """Remove a placed fortification by the rule that removes it."""
    fact, = obj.ledger().execute(obj.campaign, cmd.Remove(item=item, hex=hex_text, by=by, side=side))
    if as_json:
        emit_json({"item": fact.item, "hex": fact.hex, "side": fact.side, "placed": fact.placed, "by": fact.by,
                   "rule": fact.rule})
        return
    click.echo(f"{obj.side_name(fact.side)} {item_name(fact.item)} removed from {fact.hex} ({fact.by}, {fact.rule})")


@main.command()
@click.argument("hexes", nargs=-1, required=True, metavar="HEX/HEX")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--roll", "roll", type=int, default=0, metavar="EVENT", help="The 7.3.2 roll that made it (optional).")
@json_option
@common
def mousehole(obj, hexes, side: str, roll: int, as_json: bool) -> None:
    """Record a Mousehole a DC SW Team blew (7.3): an interior Factory wall or between Cellars (DTW-P5/P6)."""
    fact, = obj.ledger().execute(obj.campaign, cmd.Mousehole(hexes=tuple(hexes), side=side, roll=roll))
    if as_json:
        emit_json({"hexes": list(fact.hexes), "side": fact.side, "rule": fact.rule, "roll": fact.roll or None})
        return
    click.echo(f"{obj.side_name(fact.side)}: Mousehole across {'/'.join(fact.hexes)} ({fact.rule})")
