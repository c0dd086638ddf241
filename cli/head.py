from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main
from .quick import head_data, head_fingerprint


@main.command()
@as_of_option
@json_option
@common
def head(obj, as_of: str | None, as_json: bool) -> None:
    """Print a short fingerprint of the whole log: equal fingerprints, same history."""
    fingerprint = head_fingerprint(obj, as_of)
    if as_json:
        emit_json(head_data(fingerprint))
        return
    click.echo(fingerprint)
