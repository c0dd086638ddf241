from __future__ import annotations

from pathlib import Path

import click

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main

cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.group()
def rules() -> None:
    """A campaign's own rules files (overrides of shipped tables)."""


@rules.command()
@click.argument("path", type=click.Path())  # checked by read_rules_file: one line, exit 1
@json_option
@common
def load(obj, path: str, as_json: bool) -> None:
    """Load a rules file (same format as ledger/rules/<system>/*.toml) into the campaign's log.

    Tables and charts with a shipped id replace it from now on; the file is stored in the log,
    so every player and `audit` use the same tables. Once sides have keys the file is proposed, and
    the other side accepts it (`cgledger accept`)."""
    from cgledger.ledger.domain.events import RulesProposed
    from cgledger.ledger.rules import read_rules_file

    text = read_rules_file(path)  # a regular file, size-limited UTF-8 text without NUL
    fact, = obj.ledger().execute(obj.campaign, cmd.LoadRules(source=Path(path).name, text=text))
    proposed = isinstance(fact, RulesProposed)
    if as_json:
        emit_json({"source": fact.source, "tables": list(fact.tables), "action": fact.action,
                   **({"proposed": True} if proposed else {})})
        return
    if proposed:
        click.echo(f"rules file {fact.source} proposed ({', '.join(fact.tables)}): it changes the tables for both "
                   "sides, so the other side accepts it with `cgledger accept`")
        return
    click.echo(f"rules file {fact.source} loaded: {', '.join(fact.tables)}")
