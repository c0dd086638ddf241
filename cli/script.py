from __future__ import annotations

import shlex
from pathlib import Path

import click

from .app import LedgerContext, common, main

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "kgp-cg1-sample.cgl"


def run_script(obj: LedgerContext, path: Path, echo: bool = True) -> int:
    """Runs each line of a `.cgl` file as a cgledger command against the same database.
    Stops at the first refused line, naming it."""
    prefix = (["--db", obj.db] if obj.db else []) + (["--campaign", obj.campaign] if obj.campaign else [])
    prefix += ["--seed", obj.seed] if obj.seed is not None else []
    count = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        args = shlex.split(line, comments=True)
        if not args:
            continue
        if echo:
            click.echo(f"$ cgledger {' '.join(shlex.quote(a) for a in args)}")
        try:
            main.main(args=prefix + args, prog_name="cgledger", standalone_mode=False)
        except click.ClickException as e:
            raise click.ClickException(f"{path.name} line {number}: {e.format_message()}") from None
        count += 1
    return count


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--quiet", is_flag=True, help="Do not echo each command.")
@common
def script(obj, path: Path, quiet: bool) -> None:
    """Run a file of cgledger commands (one per line, # comments): enter a session from notes."""
    count = run_script(obj, path, echo=not quiet)
    click.echo(f"{count} commands from {path.name} recorded")


@main.command()
@click.option("--sample", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=SAMPLE,
              show_default=True, help="Script of the sample campaign.")
@common
def demo(obj, sample: Path) -> None:
    """Build the shipped sample campaign (once), then show its log, audit and fingerprint."""
    from ledger.store import resolve_db

    db = resolve_db(obj.db)
    obj.db = db
    exists = Path(db).exists() and obj.ledger().campaign_names()
    if exists:
        click.echo(f"sample campaign already in {db}; showing it")
    else:
        obj._ledger = None
        run_script(obj, sample, echo=False)
        click.echo(f"sample campaign built in {db} from {sample.name}")
    for command in (["log"], ["audit"], ["head"]):
        click.echo(f"\n$ cgledger --db {db} {command[0]}")
        main.main(args=["--db", db, *command], prog_name="cgledger", standalone_mode=False)
