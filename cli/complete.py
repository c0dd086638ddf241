"""Shell completion of what players type most: table ids, sides, RePh steps and campaign names, read from the
campaign the command line names (its --db and --campaign, or the environment), else from every shipped rule
system. Nothing heavy is imported until a completion is asked for; a database that cannot be read completes
from the shipped rules, never with an error.

    eval "$(_CGLEDGER_COMPLETE=bash_source cgledger)"     # bash: add to ~/.bashrc (zsh_source, fish_source too)
"""

from __future__ import annotations

import os

from click.shell_completion import CompletionItem


def _root_params(ctx) -> dict:
    while ctx.parent is not None:
        ctx = ctx.parent
    return ctx.params


def _db_and_campaign(ctx) -> tuple[str | None, str | None]:
    params = {**_root_params(ctx), **{k.rstrip("_"): v for k, v in ctx.params.items() if k in ("db_", "campaign_")
                                      and v}}
    return params.get("db") or os.environ.get("CGLEDGER_DB"), params.get("campaign") or os.environ.get(
        "CGLEDGER_CAMPAIGN")


def _rules(ctx) -> list:
    """The rules of the campaign named, or of every shipped system."""
    from cgledger.ledger import rules as rulesmod

    db, campaign = _db_and_campaign(ctx)
    try:
        from cgledger.ledger.application import open_ledger
        from cgledger.ledger.store.database import holds_ledger, resolve_db

        if holds_ledger(resolve_db(db)):
            ledger = open_ledger(resolve_db(db))
            return [ledger.rules_for(ledger.campaign(campaign))]
    except Exception:  # noqa: BLE001 - completion never fails: it falls back to the shipped rules
        pass
    return [rulesmod.load(system) for system in rulesmod.systems()]


def _items(values: dict[str, str], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(v, help=h) for v, h in sorted(values.items()) if v.lower().startswith(incomplete.lower())]


def tables(ctx, param, incomplete: str) -> list[CompletionItem]:
    return _items({t.id: t.title for r in _rules(ctx) for t in r.tables.values()}, incomplete)


def sides(ctx, param, incomplete: str) -> list[CompletionItem]:
    return _items({s: name for r in _rules(ctx) for s, name in r.system.sides.items()}, incomplete)


def steps(ctx, param, incomplete: str) -> list[CompletionItem]:
    found = {"next": "the next RePh step", "scenario": "the CG scenario"}
    found.update({s.id: s.title for r in _rules(ctx) for s in r.system.steps})
    return _items(found, incomplete)


def campaigns(ctx, param, incomplete: str) -> list[CompletionItem]:
    db, _campaign = _db_and_campaign(ctx)
    try:
        from cgledger.ledger.application import open_ledger
        from cgledger.ledger.store.database import holds_ledger, resolve_db

        names = open_ledger(resolve_db(db)).store.campaign_names() if holds_ledger(resolve_db(db)) else []
    except Exception:  # noqa: BLE001 - nothing to offer from a database that cannot be read
        names = []
    return _items({n: "campaign" for n in names}, incomplete)
