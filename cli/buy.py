from __future__ import annotations

import click

from cgledger.ledger import lazy

from . import complete
from .app import common, emit_json, json_option, main
from .roll import follow_up_lines, follow_ups_json

acts = lazy.module("cgledger.ledger.verbs.acts")
reads = lazy.module("cgledger.ledger.read.player")
cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.command()
@click.argument("rg_id", metavar="RG_ID")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--map-group", "map_group", default="", metavar="GROUP", help="Map Group it is bought for (KGP: St, Ch, Lg).")
@click.option("--objective", default="", metavar="HEX", help="Objective Hex of an 'I' or 'HW' RG (8.6198).")
@click.option("--given", is_flag=True, help="Given in the Initial-Scenario OB: no CPP, not counted (8.6196).")
@click.option("--on-map", is_flag=True, help="Standard on-map setup (RR 2.5184: at the chart's extra cost).")
@click.option("--pre-registered", default=0, type=int, metavar="N", help="Pre-Registered hexes bought with it (RR p).")
@click.option("--early", is_flag=True, help="U.S. Early Entry (KGP 8.6194b): an 'I', 'V' or 'G' RG enters one CG Date "
                                            "before its Entry Area's arrow, at its CPP cost +50% (FRD).")
@click.option("--secret/--open", "secret", default=None,
              help="Seal the purchase with the side's key (8.619: the default once the side has a key; the other "
                   "side sees only that one RG was bought) or record it in the open.")
@click.option("--follow-ups", "follow_ups", is_flag=True,
              help="The side's last purchase: then every follow-up roll due, as `cgledger follow-ups` makes them "
                   "(KGP 8.620, RR 2.519 come after the purchases: the side buys nothing more this CG Date).")
@json_option
@common
def buy(obj, rg_id: str, side: str, map_group: str, objective: str, given: bool, on_map: bool, pre_registered: int,
        early: bool, secret: bool | None, follow_ups: bool, as_json: bool) -> None:
    """Purchase an RG (KGP 8.619, RR 2.518) against the side's RG chart, CPP and limits."""
    ledger = obj.ledger()
    if follow_ups:
        fact, sealed, rolled = acts.buy_then_follow_ups(ledger, obj.campaign, rg_id, side, map_group, objective, given,
                                                          on_map, pre_registered, secret, early)
    else:
        (fact, sealed), rolled = acts.buy(ledger, obj.campaign, rg_id, side, map_group, objective, given, on_map,
                                            pre_registered, secret, early), None
    if as_json:
        emit_json({"rg": fact.rg, "side": fact.side, "group_type": fact.group_type, "cpp": fact.cpp,
                   "map_group": fact.map_group, "objective": fact.objective or None, "given": fact.given,
                   "follow_up": list(fact.rolls), "secret": sealed, "san": fact.san, "early": fact.early,
                   **({"follow_ups": follow_ups_json(rolled)} if rolled is not None else {})})
        return
    how = "given in the Initial-Scenario OB" if fact.given else f"{fact.cpp} CPP"
    how += ", Early Entry (8.6194b)" if fact.early else ""
    where = f" for {fact.map_group}" if fact.map_group else ""
    click.echo(f"{obj.side_name(fact.side)}: RG {fact.rg} {fact.group_type}{where} ({how})"
               + (f"; follow-up rolls: {', '.join(fact.rolls)}" if fact.rolls else "")
               + (f"; its SAN +{fact.san}" if fact.san else ""))
    if sealed:
        click.echo("kept secret: sealed with the side's key; the other side sees only that one RG was "
                   "bought. `cgledger reveal --all --side SIDE` publishes it.")
    for line in follow_up_lines(rolled or ()):
        click.echo(line)


@main.command()
@click.argument("item", metavar="ITEM")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--setup-area", "setup_area", required=True, metavar="ID", help="The Setup Area they are added to.")
@click.option("--count", default=1, show_default=True, type=int, help="How many (mine factors, '?', …).")
@click.option("--size", default="", metavar="SIZE", help="Foxhole capacity 3|2|1; HIP squad|hs|crew|smc.")
@click.option("--squads", type=int, metavar="N", help="Squad-equivalents Retained in that Setup Area (footnote S).")
@click.option("--front-line", is_flag=True, help="Set up in a Front-Line Hex (only 'F' items).")
@click.option("--isolated", is_flag=True, help="Added to an Isolated Location (only 'i' items).")
@json_option
@common
def fortify(obj, item: str, side: str, setup_area: str, count: int, size: str, squads, front_line: bool,
            isolated: bool, as_json: bool) -> None:
    """Purchase Fortifications with this CG Date's FPP (KGP 8.621, RR 2.520): `rg-chart --side SIDE` lists the items and their FPP."""
    fact, = obj.ledger().execute(obj.campaign, cmd.Fortify(item=item, side=side, setup_area=setup_area, count=count, size=size,
                                                          squads=squads, front_line=front_line, isolated=isolated))
    if as_json:
        emit_json({"item": fact.item, "name": fact.name, "size": fact.size or None, "count": fact.count,
                   "fpp": fact.fpp, "setup_area": fact.setup_area, "side": fact.side})
        return
    size_text = f" ({fact.size})" if fact.size else ""
    click.echo(f"{obj.side_name(fact.side)}: {fact.count} {fact.name}{size_text} for Setup Area {fact.setup_area}, {fact.fpp:g} FPP")


@main.command(name="rg-chart")
@click.option("--side", shell_complete=complete.sides, required=True)
@json_option
@common
def rg_chart(obj, side: str, as_json: bool) -> None:
    """The side's RG chart now: each RG's cost, and what the CG Date and CG maxima leave (8.6191-8.6197); the
    Fortifications it may buy with FPP (8.621, RR 2.520)."""
    chart = reads.rg_chart(obj.ledger(), obj.campaign, side)
    if as_json:
        emit_json(chart)
        return
    click.echo(f"RG chart, {chart['side_name']}: CG {chart['cg']}, CG Date {chart['cg_date']}, {chart['cpp']} CPP")
    for rg in chart["rgs"]:
        left = rg["date_left"]
        left = ", ".join(f"{g} {n}" for g, n in left.items()) if isinstance(left, dict) else left
        cost = "no cost in the chart" if rg["cost"] is None else f"{rg['cost']} CPP"
        click.echo(f"  {rg['id']:<6} {rg['group_type']:<32} {cost}; left this CG Date {left if left is not None else '-'}"
                   f", this CG {rg['cg_left'] if rg['cg_left'] is not None else '-'}"
                   + ("" if rg["available"] else f" (from {rg['from_date']})"))
    if chart["fortifications"]:
        rule = chart["fortifications"][0]["rule"]
        click.echo(f"Fortifications ({rule}), FPP each; {chart['fpp']:g} FPP to spend this CG Date:")
        for fort in chart["fortifications"]:
            fpp = fort["fpp"]
            cost = ", ".join(f"{n:g} (--size {size})" for size, n in fpp.items()) if isinstance(fpp, dict) else f"{fpp:g}"
            marks = "".join(m for m, on in (("F", fort["front_line"]), ("i", fort["isolated"]), ("S", fort["squads"]))
                            if on)
            click.echo(f"  {fort['id']:<18} {fort['name']:<28} {cost}" + (f"  ({marks})" if marks else ""))
