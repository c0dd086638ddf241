"""`log`: the click command; what it prints is cli/logtext.py's (the quick path's too)."""

from __future__ import annotations

import click

from .app import as_of_option, common, json_option, main


@main.command()
@as_of_option
@click.option("--last", type=click.IntRange(1), metavar="N", help="Only the last N events (each still marked as in "
              "force or not by the whole log).")
@json_option
@common
def log(obj, as_of: str | None, last: int | None, as_json: bool) -> None:
    """Print the campaign's event log in order (undone actions are marked, never removed)."""
    from . import logtext

    logtext.log(obj, as_of, last, as_json, lambda text: click.echo(text, nl=False))
