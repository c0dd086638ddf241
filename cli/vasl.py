from __future__ import annotations

from pathlib import Path

import click

from cgledger.ledger.rules.dice import DIE_NAMES
from cgledger.ledger.errors import BadInput
from cgledger.ledger.decide.vasl import Attachment, read_map

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")

FORMS = {"vlog": "VASSAL log", "vsav": "VASSAL save", "chat": "chat window text", "raw": "dice-bot lines"}


def _attachments(items: tuple[str, ...]) -> list[Attachment]:
    attached = []
    for item in items:
        where, sep, table = item.rpartition("=")
        file, _colon, line = where.rpartition(":")
        if not sep or not line.strip().isdigit() or not table.strip():
            raise BadInput(f"malformed --attach '{item}': use LINE=TABLE, e.g. 12=KGP13 (FILE:LINE=TABLE with "
                           "several files)")
        attached.append(Attachment(line=int(line), table=table.strip(), file=file.strip()))
    return attached


def _players(items: tuple[str, ...]) -> dict[str, str]:
    players = {}
    for item in items:
        name, sep, side = item.rpartition("=")
        if not sep or not name.strip():
            raise BadInput(f"malformed --player '{item}': use NAME=SIDE, e.g. Player1=german")
        players[name.strip()] = side.strip()
    return players


def _row(file, item) -> dict:
    r = item.report
    return {"file": file.source.name, "line": item.position, "die": r.die, "dice": list(r.faces),
            "dice_named": dict(zip(DIE_NAMES.get(r.die, ()), r.faces)), "player": r.player, "side": item.side or None,
            "category": r.category or None, "table": item.table, "result": item.result or None,
            "special": r.special or None, "stats": r.stats or None, "series": r.series or None,
            "random_org": r.random_org, "third": r.third, "dust": r.dust or None, "total": r.total, "rof": r.rof,
            "hit": r.hit or None, "form": r.form,
            "status": "new" if item.duplicate_of is None and item.repeats is None else "duplicate",
            "duplicate_of": item.duplicate_of, "repeats": item.repeats}


def _describe(file, item) -> str:
    r = item.report
    faces = ", ".join(f"{n} {v}" for n, v in zip(DIE_NAMES.get(r.die, ("die",) * 3), r.faces))
    extra = "".join(f", {name} {value}" for name, value in (("third", r.third), ("ROF", r.rof)) if value is not None)
    if item.duplicate_of is not None:
        what = f"already in the log (event {item.duplicate_of})"
    elif item.repeats is not None:
        what = f"repeats {file.source.unit} {item.repeats}"
    else:
        what = f"{item.table}: {item.result}" if item.table else "kept"
    who = f"<{r.player}>" + (f" {item.side}" if item.side else "")
    return f"  {file.source.unit} {item.position:>5}  {(r.category + ' ') if r.category else ''}{r.die} {faces}{extra}  " \
           f"{who}  {what}"


@main.command(name="vasl-import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--attach", "attach", multiple=True, metavar="[FILE:]LINE=TABLE",
              help="Attach the report at LINE (a .vlog's message number) to TABLE; name the FILE with several.")
@click.option("--player", "players", multiple=True, metavar="NAME=SIDE", help="Whose side a VASL player rolls for.")
@click.option("--map", "map_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML: [players] NAME = SIDE, and [[attach]] file/line/table/side/drm/for entries.")
@click.option("--dry-run", is_flag=True, help="List every report, duplicate and unreadable line; write nothing.")
@click.option("--own-copy", is_flag=True,
              help="Your own VASL wrote these files while you watched the game live: the other side's VASL dice whose "
                   "very reports stand in them are witnessed (a file he mailed you is his word, not a witness).")
@json_option
@common
def vasl_import(obj, paths: tuple[Path, ...], attach, players, map_file: Path | None, dry_run: bool, own_copy: bool,
                as_json: bool) -> None:
    """Import the VASL dice reports of each FILE, in order: a VASSAL log or save (.vlog, .vsav), the chat
    window's text (copied with dice images off) or dice-bot lines. Each file is one action (undo takes it back
    whole); a report already in the log is listed, not recorded again; an unreadable one is listed and skipped."""
    mapping = read_map(map_file.read_text(encoding="utf-8"), map_file.name) if map_file else None
    attachments = (list(mapping.attach) if mapping else []) + _attachments(tuple(attach))
    sides = {**(mapping.players if mapping else {}), **_players(tuple(players))}
    files = [(path.name, path.read_bytes()) for path in paths]
    imported = acts.vasl_import(obj.ledger(), obj.campaign, files, attachments, sides, dry_run, own_copy)
    if as_json:
        emit_json(_imported_json(imported, dry_run))
        return
    for line in _imported_lines(imported, dry_run):
        click.echo(line)


def _imported_json(imported: list, dry_run: bool) -> dict:
    return {"dry_run": dry_run, "files": [
        {"file": f.source.name, "form": f.source.form, "module": f.source.module or None,
         "module_version": f.source.module_version or None, "vassal_version": f.source.vassal_version or None,
         "action": f.action, "recorded": sum(1 for i in f.items if i.duplicate_of is None and i.repeats is None),
         "duplicates": sum(1 for i in f.items if i.duplicate_of is not None or i.repeats is not None),
         "skipped": [{"line": p.position, "text": p.text, "problem": p.problem} for p in f.problems]}
        for f in imported],
        "reports": [_row(f, i) for f in imported for i in f.items]}


def _imported_lines(imported: list, dry_run: bool) -> list[str]:
    """Each file's reports (all on a dry run, else those on tables), what was skipped, and what was recorded."""
    lines = []
    recorded = 0
    for file in imported:
        new = [i for i in file.items if i.duplicate_of is None and i.repeats is None]
        recorded += len(new) if file.action is not None or dry_run else 0
        module = f", {file.source.module} {file.source.module_version}".rstrip() if file.source.module else ""
        lines.append(f"{file.source.name} ({FORMS[file.source.form]}{module}): {len(new)} new dice reports, "
                     f"{len(file.items) - len(new)} already recorded, {len(file.problems)} unreadable")
        shown = [(i.position, _describe(file, i)) for i in file.items if dry_run or i.table]
        shown += [(p.position, f"  {file.source.unit} {p.position:>5}  skipped: {p.problem}") for p in file.problems]
        lines += [line for _position, line in sorted(shown, key=lambda row: row[0])]
    attached = sum(1 for f in imported for i in f.items if i.table)
    actions = sum(1 for f in imported if f.action is not None)
    if dry_run:
        lines.append(f"dry run: would record {recorded} dice reports ({attached} on tables); nothing written")
    elif not actions:
        lines.append("nothing new: every dice report is already in the log")
    else:
        lines.append(f"recorded {recorded} dice reports ({attached} on tables) in {actions} "
                     f"action{'s' if actions > 1 else ''}; undo takes back one file's import")
    return lines
