from __future__ import annotations

import click

from cgledger.ledger.rules.dice import DIE_NAMES

from cgledger.ledger import lazy

from . import complete
from .app import common, emit_json, json_option, main
from .logtext import describe

rolling = lazy.module("cgledger.ledger.verbs.rolling")


def roll_json(rolled, title: str) -> dict:
    fact = rolled.fact
    return {
        "id": rolled.version,
        "action": fact.action,
        "table": fact.table,
        "rule": fact.rule,
        "title": title,
        "side": fact.side,
        "cg_date": rolled.cg_date,
        "die": fact.die,
        "dice": list(fact.dice),
        "dice_named": dict(zip(DIE_NAMES[fact.die], fact.dice)),
        "source": fact.source,
        "original": fact.original,
        "drms": [{"key": d.key, "name": d.name, "value": d.value, "kind": d.kind, "input": d.input} for d in fact.drms],
        "final": fact.final,
        "result": fact.result,
        "code": fact.code or None,
        "value": fact.value,
        "sets": list(fact.sets),
        "notes": list(rolled.resolution.notes),
        "secret": fact.secret,
        "purpose": fact.purpose or None,
        "effect": fact.effect or None,
        "rg": fact.rg,
        "cpp": fact.cpp,
        "sealed": rolled.sealed,
        "player": fact.player or None,
        "series": fact.series or None,
        "hexes": list(fact.hexes),
        "map": [map_effect(f) for f in rolled.effects],
    }


def map_effect(fact) -> dict:
    """What a CGS roll did on the hexes it names: a hidden fortification revealed, removed, a Mousehole, Rubble."""
    import msgspec

    data = msgspec.to_builtins(fact)
    return {"type": data.pop("type"), **{k: v for k, v in data.items() if k not in ("action", "salt")}}


@main.command()
@click.argument("table_id", metavar="TABLE", shell_complete=complete.tables)
@click.option("--side", shell_complete=complete.sides, required=True, help="Rolling side (kgp: german|us).")
@click.option("--drm", "drms", multiple=True, metavar="KEY[=N]", help="Declared DRM (repeatable); `cgledger tables TABLE` lists them.")
@click.option("--dice", metavar="W,C|T,U|N", help="Dice as rolled at the table (white,colored for a DR; tens,units for a CGS d100, 00 for 100); default: the ledger rolls.")
@click.option("--secret", is_flag=True, help="Mark the roll Secret (tables the rules call Secret are always).")
@click.option("--for", "purpose", default="", metavar="TEXT", help="What the roll is for (e.g. 'LMG', 'StJ19 8-1').")
@click.option("--rg", "rg", metavar="REF", help="The RG a follow-up roll of step 8.620 belongs to: I2#1, or its event number.")
@click.option("--vasl", "vasl", metavar="LINE", help="The dice from a VASL dice report line (colored die first there).")
@click.option("--hex", "hexes", multiple=True, metavar="HEX",
              help="CGS: the hex the roll is made for (7.4.7 a mine hex), or a hexside DTW-P5/P6 (7.3.2); default: "
                   "the hexes --for names.")
@click.option("--if-strength", "if_result", default="", metavar="CODE",
              help="Fair dice: declare a follow-up roll before its RG's strength roll has its dice, made only if the "
                   "strength gives CODE (RR 2.5192, KGP 8.6204: D for Depleted), else it lapses.")
@json_option
@common
def roll(obj, table_id: str, side: str, drms, dice, secret: bool, purpose: str, rg: str | None, vasl: str | None,
         hexes, if_result: str, as_json: bool) -> None:
    """Roll on TABLE and record it (in the step the table belongs to)."""
    ledger = obj.ledger()
    rolled = rolling.roll(ledger, obj.campaign, table_id, side, tuple(drms), dice, secret, purpose, rg, vasl, tuple(hexes),
                         if_result)
    if not hasattr(rolled, "resolution"):
        declared_output(rolled, as_json)
        return
    table = rolled.resolution.table
    if as_json:
        emit_json(roll_json(rolled, table.title))
        return
    fact = rolled.fact
    names = DIE_NAMES[fact.die]  # one die ('dr 4', 'd10 4') as the log says it; two by name ('white 3, colored 4')
    faces = ", ".join(f"{n} {v}" for n, v in zip(names, fact.dice)) if len(names) > 1 else ",".join(map(str, fact.dice))
    click.echo(f"{table.id} {table.title} ({table.rule}): {rolled.side_name}, {rolled.cg_date}{' [secret]' if fact.secret else ''}")
    click.echo(f"  {fact.die} {faces} ({fact.source}): Original {fact.original}")
    for d in fact.drms:
        click.echo(f"  {d.value:+d} {d.name} ({d.kind}{'' if d.input is None else f', {d.key}={d.input}'})")
    click.echo(f"  Final {fact.final}: {fact.result}")
    for note in rolled.resolution.notes:
        click.echo(f"  note: {note}")
    for effect in rolled.effects:
        click.echo(f"  map: {describe({**map_effect(effect), 'type': type(effect).__name__}, obj.side_names())}")
    if table.map is not None and not fact.hexes:
        from cgledger.ledger.decide.fortify import row_of

        row = row_of(table, fact)
        if row is not None and (row.removes or row.rubble or row.mousehole):
            click.echo("  map: no hex named, so the map is left as it was: undo, then roll again with the same dice "
                       "and --hex")
    click.echo(f"  recorded as event {rolled.version}{' for ' + repr(fact.purpose) if fact.purpose else ''}"
               + (f" on {', '.join(fact.hexes)}" if fact.hexes else ""))
    if fact.secret and rolled.sealed:
        click.echo(f"  sealed: only the {rolled.side_name} side can read it until `cgledger reveal {rolled.version}`")


@main.command(name="follow-ups")
@click.option("--side", shell_complete=complete.sides, required=True, help="The side whose RGs roll.")
@click.option("--rg", "rg", metavar="REF", help="Only this RG's rolls: I2#1, or its event number.")
@json_option
@common
def follow_ups(obj, side: str, rg: str | None, as_json: bool) -> None:
    """Every follow-up roll due now for the side's RGs (8.620, RR 2.519), in step order, in one command: each
    as `roll TABLE --rg REF` makes it (declared, with fair dice)."""
    done = rolling.follow_ups(obj.ledger(), obj.campaign, side, rg)
    if as_json:
        emit_json(follow_ups_json(done))
        return
    for line in follow_up_lines(done):
        click.echo(line)


def follow_ups_json(done: list) -> list[dict]:
    return [roll_json(r, r.resolution.table.title) if hasattr(r, "resolution") else _declared_json(r) for r in done]


def follow_up_lines(done: list) -> list[str]:
    lines = []
    for r in done:
        if hasattr(r, "resolution"):
            fact = r.fact
            lines.append(f"{fact.table} for the RG of event {fact.rg}: {fact.die} {','.join(map(str, fact.dice))}, "
                         f"Final {fact.final}: {fact.result}  (event {r.version})")
        else:
            rg = f"RG {r.rg_name}" if r.rg_name else f"the RG of event {r.fact.rg}"
            lines.append(f"{r.fact.table} for {rg}: declared, waiting for its dice (the {r.answerer} side's ledger "
                         "answers it)"
                         + (f"; made only if its strength roll gives '{r.fact.if_result}'" if r.fact.if_result else ""))
    return lines


def _declared_json(declared) -> dict:
    fact = declared.fact
    return {"id": declared.version, "action": fact.action, "table": fact.table, "title": declared.table.title,
            "side": fact.side, "cg_date": declared.cg_date, "declared": True, "waiting": True, "n": fact.n,
            "secret": fact.secret, "purpose": fact.purpose or None, "rg": fact.rg, "source": "fair",
            "rule": declared.table.rule, "die": declared.table.die, "dice": None, "original": None, "final": None,
            "result": None, "drms": [{"key": k, "input": n} for k, n in fact.drms],
            "if_result": fact.if_result or None}


def declared_output(declared, as_json: bool) -> None:
    """A fair roll: declared and waiting for the other side's answer; no result yet."""
    fact = declared.fact
    if as_json:  # the public contract's keys, empty until the other side's answer gives the dice
        emit_json(_declared_json(declared))
        return
    table = declared.table
    click.echo(f"{table.id} {table.title} ({table.rule}): {declared.side_name}, {declared.cg_date}"
               f"{' [secret]' if fact.secret else ''}")
    click.echo(f"  declared as event {declared.version} (fair roll {fact.n} of the {declared.side_name} side): waiting "
               f"for its dice")
    if fact.if_result:
        click.echo(f"  made only if its RG's strength roll gives '{fact.if_result}'; else it lapses")
    click.echo(f"  the {declared.answerer} side's ledger answers it on its next command (or `cgledger answer`); "
               + ("your ledger then makes the Secret roll on your next command" if fact.secret else
                  "the result is recorded with that answer"))
