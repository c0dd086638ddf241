from __future__ import annotations

import click

from . import statustext
from .app import as_of_option, common, json_option, main


@main.command(name="date")
@as_of_option
@json_option
@common
def show_date(obj, as_of: str | None, as_json: bool) -> None:
    """Show the campaign's CG and current CG Date."""
    click.echo(statustext.date(obj, as_of, as_json), nl=False)  # as the quick path prints it (cli/quick.py)
