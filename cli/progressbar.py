"""The bar a player sees on his terminal while long work goes on (ledger/progress.py): click's progress bar on
stderr, made only once the work has taken more than a second (`CGLEDGER_PROGRESS_AFTER`), so that click is imported
then and not before (cli/quick.py runs its reads without it). Never on output that is not a terminal."""

from __future__ import annotations

import os
import sys


def install() -> None:
    """Long work shown as it goes, on a player's terminal only."""
    if not _terminal():
        return
    from cgledger.ledger import progress

    progress.shown_by(Bar, float(os.environ.get("CGLEDGER_PROGRESS_AFTER") or "1"))


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


class Bar:
    """click's progress bar on stderr, for work whose size is known."""

    def __init__(self, label: str, total: int | None):
        import click

        self.bar = click.progressbar(length=max(total or 0, 1), label=label, file=sys.stderr, show_pos=True)
        self.bar.__enter__()

    def update(self, n: int) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.__exit__(None, None, None)
