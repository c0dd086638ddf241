"""The group, its shared options, and the one mapping of domain errors to a one-line exit 1."""

from __future__ import annotations

import functools
import json
from typing import Any

import click

from ledger.errors import LedgerError


class LedgerContext:
    """Built once in the group callback; opens the ledger only when a command needs it."""

    def __init__(self, db: str | None, campaign: str | None, seed: str | None):
        self.db = db
        self.campaign = campaign
        self.seed = seed
        self._ledger = None

    def ledger(self, create: bool = False):
        from ledger.application import open_ledger
        from ledger.dice import SeededDice
        from ledger.store import resolve_db

        if self._ledger is None:
            dice = SeededDice(self.seed) if self.seed is not None else None
            self._ledger = open_ledger(resolve_db(self.db), create=create, dice=dice)
        return self._ledger


class LedgerGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LedgerError as e:
            raise click.ClickException(e.line()) from None


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar="CGLEDGER_DB", metavar="PATH", help="Campaign database (default ./campaign.db).")
@click.option("--campaign", envvar="CGLEDGER_CAMPAIGN", metavar="NAME", help="Campaign to use (default: the only one).")
@click.option("--seed", envvar="CGLEDGER_SEED", hidden=True, help="Seeded dice (tests, demos); recorded as source 'seeded'.")
@click.version_option(package_name="cgledger")
@click.pass_context
def main(ctx: click.Context, db: str | None, campaign: str | None, seed: str | None) -> None:
    """An event-sourced ledger for ASL campaign games: every roll, recorded and re-checkable."""
    ctx.obj = LedgerContext(db, campaign, seed)


def common(func):
    """--db and --campaign also accepted after the command name."""

    @click.option("--db", "db_", metavar="PATH", help="Campaign database (default ./campaign.db).")
    @click.option("--campaign", "campaign_", metavar="NAME", help="Campaign to use (default: the only one).")
    @functools.wraps(func)
    def wrapper(*args, db_: str | None = None, campaign_: str | None = None, **kwargs):
        obj: LedgerContext = click.get_current_context().find_object(LedgerContext)
        if db_:
            obj.db = db_
        if campaign_:
            obj.campaign = campaign_
        return func(obj, *args, **kwargs)

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
as_of_option = click.option("--as-of", "as_of", metavar="DATE", help="As at the end of that CG Date's RePh.")


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
