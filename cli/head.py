from __future__ import annotations

import click

from .app import as_of_option, common, emit_json, json_option, main


@main.command()
@as_of_option
@json_option
@common
def head(obj, as_of: str | None, as_json: bool) -> None:
    """Print a short fingerprint of the whole log: equal fingerprints, same history."""
    from cgledger.ledger.reading import postgres_head, sqlite_head
    from cgledger.ledger.store import resolve_db

    db = resolve_db(obj.db)
    fingerprint = ((sqlite_head(db, obj.campaign) or postgres_head(db, obj.campaign)) if as_of is None else None) \
        or obj.ledger().head(obj.campaign, as_of)
    if as_json:
        version, short = fingerprint.split(":")
        emit_json({"fingerprint": fingerprint, "events": int(version), "digest": short})
        return
    click.echo(fingerprint)
