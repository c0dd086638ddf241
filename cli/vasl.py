from __future__ import annotations

from pathlib import Path

import click

from ledger.vaslimport import Attachment, read_map
from ledger.dice import DIE_NAMES
from ledger.errors import BadInput

from .app import common, emit_json, json_option, main


def _attachments(items: tuple[str, ...]) -> list[Attachment]:
    attached = []
    for item in items:
        line, sep, table = item.partition("=")
        if not sep or not line.strip().isdigit() or not table.strip():
            raise BadInput(f"malformed --attach '{item}': use LINE=TABLE, e.g. 12=KGP13")
        attached.append(Attachment(line=int(line), table=table.strip()))
    return attached


def _players(items: tuple[str, ...]) -> dict[str, str]:
    players = {}
    for item in items:
        name, sep, side = item.rpartition("=")
        if not sep or not name.strip():
            raise BadInput(f"malformed --player '{item}': use NAME=SIDE, e.g. Player1=german")
        players[name.strip()] = side.strip()
    return players


@main.command(name="vasl-import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--attach", "attach", multiple=True, metavar="LINE=TABLE", help="Attach the report on LINE to TABLE.")
@click.option("--player", "players", multiple=True, metavar="NAME=SIDE", help="Whose side a VASL player rolls for.")
@click.option("--map", "map_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML: [players] NAME = SIDE, and [[attach]] line/table/side/drm/for entries.")
@click.option("--dry-run", is_flag=True, help="List the dice reports and what would be recorded; write nothing.")
@json_option
@common
def vasl_import(obj, path: Path, attach, players, map_file: Path | None, dry_run: bool, as_json: bool) -> None:
    """Import the dice reports of a pasted VASL chat: attached ones roll on their tables, the rest are
    kept as plain dice events. Other chat lines are ignored; importing a report twice is refused."""
    mapping = read_map(map_file.read_text(encoding="utf-8"), map_file.name) if map_file else None
    attachments = (list(mapping.attach) if mapping else []) + _attachments(tuple(attach))
    sides = {**(mapping.players if mapping else {}), **_players(tuple(players))}
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    imported = obj.ledger().vasl_import(obj.campaign, lines, path.name, attachments, sides, dry_run)
    if as_json:
        emit_json({"dry_run": dry_run, "reports": [
            {"line": i.number, "die": i.report.die, "dice": list(i.report.faces),
             "dice_named": dict(zip(DIE_NAMES[i.report.die], i.report.faces)), "player": i.report.player,
             "side": i.side or None, "table": i.table, "result": i.result or None, "special": i.report.special or None,
             "series": i.report.series or None} for i in imported]})
        return
    for i in imported:
        faces = ", ".join(f"{n} {v}" for n, v in zip(DIE_NAMES[i.report.die], i.report.faces))
        target = f"{i.table}: {i.result}" if i.table else "kept as a dice report"
        click.echo(f"line {i.number:>5}  {i.report.die} {faces}  <{i.report.player}>{' ' + i.side if i.side else ''}  {target}")
    attached = sum(1 for i in imported if i.table)
    verb = "would record" if dry_run else "recorded"
    click.echo(f"{len(imported)} dice reports {verb}: {attached} on tables, {len(imported) - attached} kept as dice reports")
