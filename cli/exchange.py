"""PBEM: `export` and `import` of the events the opponent does not have yet."""

from __future__ import annotations

from pathlib import Path

import click

from cgledger.ledger.domain.wording import counted

from .app import common, emit_json, json_option, main


@main.command()
@click.option("--since", "since", required=True, metavar="FINGERPRINT",
              help="Your opponent's `cgledger head` (0 for the whole campaign).")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@json_option
@common
def export(obj, since: str, path: Path, as_json: bool) -> None:
    """Write the events your opponent does not have yet to FILE (to send by email)."""
    from . import logtext

    click.echo(logtext.export(obj, since, path, as_json), nl=False)


@main.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE")
@json_option
@common
def import_command(obj, path: Path, as_json: bool) -> None:
    """Append your opponent's bundle, after checking it continues this log's hash chain."""
    from cgledger.ledger.exchange import mail
    from cgledger.ledger.exchange.pbem import plan_import, read_bundle
    from cgledger.ledger.store.database import holds_ledger, resolve_db

    checked = None
    if not holds_ledger(resolve_db(obj.db)):  # check the whole bundle before a new ledger is made for it (once)
        bundle = read_bundle(path)
        checked = (bundle, plan_import(bundle, []))
    campaign, count = mail.import_bundle(obj.ledger(create=True), path, checked)
    head = obj.ledger().verification.head(campaign)
    if as_json:
        emit_json({"campaign": campaign, "imported": count, "head": head})
        return
    if not count:
        click.echo(f"nothing new in the bundle: '{campaign}' here holds all its events already; head {head}")
        return
    click.echo(f"{counted(count, 'event')} imported into '{campaign}'; head {head}")
