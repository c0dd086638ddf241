"""`dice-stats`: what it prints is cli/readtext.py's (the console script's quick path prints the same without
click)."""

from __future__ import annotations

import click

from . import complete, readtext
from .app import as_of_option, common, json_option, main


@main.command(name="dice-stats")
@click.option("--side", shell_complete=complete.sides, default=None)
@as_of_option
@json_option
@common
def dice_stats_command(obj, side: str | None, as_of: str | None, as_json: bool) -> None:
    """Each side's dice over the whole campaign, per source (ledger, entered, vasl); undone rolls apart; VASL
    rolls per scenario (each imported file), per player and per category."""
    click.echo(readtext.dice_stats(obj, side, as_of, as_json), nl=False)
