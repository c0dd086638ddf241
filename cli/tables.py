from __future__ import annotations

import re
from pathlib import Path

import click

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.rules.dice import DIE_NAMES
from cgledger.ledger.errors import DatabaseError
from cgledger.ledger.store.database import is_postgres, resolve_db

from . import complete
from .app import common, emit_json, json_option, main


def _rules(obj, system: str | None):
    """The campaign's tables (with its overrides) when a database is there; else shipped data. Which files those
    are (its rule system and the players' files in force) is kept per log head as a read's answer
    (ledger/read/answers.py): a repeated `tables` loads no campaign; the rules themselves come from the rules cache."""
    db = resolve_db(obj.db)
    if system is None and (is_postgres(db) or Path(db).exists()):
        try:
            sources = obj.answer("tables-sources", (), lambda ledger: _sources(ledger.campaign(obj.campaign)))
        except DatabaseError:
            if not is_postgres(db):
                raise
        else:  # a campaign's tables, with its overrides
            return rulesmod.load(sources["system"], tuple((name, text) for name, text in sources["overrides"]))
    return rulesmod.load((system or "kgp").lower())


def _sources(state) -> dict:
    return {"system": state.system, "overrides": [list(source) for source in state.override_sources()]}


def drm_json(drm) -> dict:
    return {
        "key": drm.key,
        "value": drm.value,
        "description": drm.text,
        "kind": drm.kind,
        "input": drm.input,
        **({"per": drm.per} if drm.per != 1 else {}),
        **({"offset": drm.offset} if drm.offset else {}),
        **({"min": drm.min} if drm.min is not None else {}),
        **({"max": drm.max} if drm.max is not None else {}),
        **({"required": True} if drm.required else {}),
        **({"sides": drm.sides} if drm.sides else {}),
        "conditions": {
            k: v
            for k, v in (("side", drm.side), ("time", drm.time), ("from_date", drm.from_date),
                         ("until_date", drm.until_date), ("days_after", drm.days_after), ("state", drm.state))
            if v is not None
        },
        "rule": drm.rule or None,
        "note": drm.note or None,
    }


def table_json(rules, table) -> dict:
    return {
        "id": table.id,
        "rule": table.rule,
        "title": table.title,
        "die": table.die,
        "reads": table.reads,
        "on": table.on,
        "secret": table.secret,
        "sides": table.sides or list(rules.system.sides),
        "from_date": table.from_date,
        "until_date": table.until_date,
        "rows": [{"range": r.label(), "min": r.min, "max": r.max, "result": r.result, "code": r.code or None,
                  "sets": r.sets, "note": r.note or None} for r in table.rows],
        "value": None if table.value is None else {"label": table.value.label, "base_chart": table.value.base_chart,
                                                   "floor": table.value.floor},
        "drms": [drm_json(d) for d in table.drm],
        "on_original": [{"original": n.original, "note": n.note} for n in table.on_original],
        "note": table.note or None,
        "source": rules.origin.get(table.id),
    }


def _key(table_id: str):
    """SSR tables first in number order (KGP3 before KGP13), then RePh rules as decimals
    (8.606 before 8.6061 before 8.61)."""
    ssr = re.match(r"^([A-Z]+)(\d+)(.*)$", table_id)
    return (0, ssr.group(1), int(ssr.group(2)), ssr.group(3)) if ssr else (1, table_id, 0, "")


@main.command()
@click.argument("table_id", metavar="[TABLE]", required=False, shell_complete=complete.tables)
@click.option("--system", default=None, help="Rule system when no campaign database is at hand (default kgp).")
@json_option
@common
def tables(obj, table_id: str | None, system: str | None, as_json: bool) -> None:
    """List every table with its rule number, or show one TABLE: die, rows and DRMs."""
    rules = _rules(obj, system)
    if table_id is None:
        _listing(rules, as_json)
        return
    table = rules.table(table_id)
    if as_json:
        emit_json(table_json(rules, table))
        return
    for line in _table_lines(rules, table):
        click.echo(line)


def _listing(rules, as_json: bool) -> None:
    """Every table with its rule number, and those the rules name but do not print."""
    listing = sorted(rules.tables.values(), key=lambda t: _key(t.id))
    if as_json:
        emit_json({
            "system": rules.system.id,
            "tables": [{"id": t.id, "rule": t.rule, "title": t.title, "die": t.die, "secret": t.secret} for t in listing],
            "missing": [{"id": m.id, "title": m.title, "named_in": m.named_in, "note": m.note or None}
                        for m in rules.missing.values()],
        })
        return
    for t in listing:
        click.echo(f"{t.id:<16} {t.rule:<9} {t.die:<4} {t.title}{'  [secret]' if t.secret else ''}")
    if rules.missing:
        click.echo("\nNamed in the rules but not printed (supply with `cgledger rules load FILE`):")
        for m in rules.missing.values():
            click.echo(f"  {m.id:<22} {m.title} (named in {m.named_in})")


def _table_lines(rules, table) -> list[str]:
    """One table as a player reads it: its die, who rolls it and when, its rows, its DRMs and its note."""
    reads = "" if table.reads == "total" else f", reads the {table.reads} die"
    on = ", rows read on the Original roll" if table.on == "original" else ""
    lines = [f"{table.id}  {table.title}  ({table.rule})",
             f"die: {table.die} ({', '.join(DIE_NAMES[table.die])}){reads}{on}{'; Secret roll' if table.secret else ''}"]
    if table.sides:
        lines.append(f"rolled by: {', '.join(rules.system.sides[s] for s in table.sides)}")
    if table.from_date or table.until_date:
        lines.append(f"CG Dates: {table.from_date or 'start'} to {table.until_date or 'end'}")
    if table.value:
        base = f"{table.value.base_chart} base # minus the Final roll" if table.value.base_chart else "the Final roll"
        lines.append(f"result: {table.value.label} = {base}")
    for row in table.rows:
        lines.append(f"  {row.label():>6}  {row.result}{'  (' + row.note + ')' if row.note else ''}")
    lines += [f"  Original {note.original}: {note.note}" for note in table.on_original]
    if table.drm:
        lines.append("DRMs:")
        lines += [_drm_line(drm) for drm in table.drm]
    if table.note:
        lines.append(f"note: {' '.join(table.note.split())}")
    return lines


def _drm_line(drm) -> str:
    if drm.input == "flag":
        usage = f"--drm {drm.key}" if drm.kind == "declared" else "automatic"
        amount = f"{drm.value:+d}" if drm.days_after is None else f"{drm.value:+d}/day after {drm.days_after}"
    elif drm.input == "count":
        each = "each" if drm.per == 1 else f"per {drm.per}"
        usage, amount = f"--drm {drm.key}=N", f"{drm.value:+d} {each}" + (f" over {drm.offset}" if drm.offset else "")
    else:
        usage, amount = f"--drm {drm.key}=N", "N"
    return f"  {amount:>14}  {drm.text}  [{usage}]"
