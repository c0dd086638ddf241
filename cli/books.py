"""The campaign's books: `roster`, `rg-record`, `history`, `report`, `final`. What they print and write is
cli/readtext.py's (the console script's quick path prints the same without click)."""

from __future__ import annotations

from pathlib import Path

import click

from . import complete, readtext
from .app import as_of_option, common, json_option, main

csv_option = click.option("--csv", "as_csv", is_flag=True, help="CSV on stdout.")


@main.command()
@click.option("--side", shell_complete=complete.sides, required=True)
@as_of_option
@json_option
@csv_option
@common
def roster(obj, side: str, as_of: str | None, as_json: bool, as_csv: bool) -> None:
    """The side's CG Roster (8.6162): Start, Repl, Total, Spent, Left, RG, LVP, CG-LVP, Win, Weather, Recon."""
    click.echo(readtext.roster(obj, side, as_of, as_json, as_csv), nl=False)


@main.command(name="rg-record")
@click.option("--side", shell_complete=complete.sides, required=True)
@as_of_option
@json_option
@csv_option
@common
def rg_record(obj, side: str, as_of: str | None, as_json: bool, as_csv: bool) -> None:
    """The side's RG Purchase Record (8.6198)."""
    click.echo(readtext.rg_record(obj, side, as_of, as_json, as_csv), nl=False)


@main.command()
@as_of_option
@json_option
@common
def history(obj, as_of: str | None, as_json: bool) -> None:
    """The campaign's story per CG Date: scenario, winner, LVP, CPP, RG, weather, notable rolls, undos."""
    click.echo(readtext.history(obj, as_of, as_json), nl=False)


@main.command()
@click.option("--html", "html_file", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@as_of_option
@common
def report(obj, html_file: Path, as_of: str | None) -> None:
    """Write the campaign's story as one self-contained HTML page (history, rosters, RG records, LVP chart)."""
    click.echo(readtext.report(obj, html_file, as_of), nl=False)


@main.command()
@json_option
@common
def final(obj, as_json: bool) -> None:
    """The end of the CG: each side's final CG-LVP, scenarios won, CPP and RG totals (before the end: the result
    so far)."""
    click.echo(readtext.final(obj, as_json), nl=False)
