"""Long work a player waits for, told as it goes: the first read of a campaign on a new machine (every event's
chain and signature checked), a whole audit, a big bundle imported. The ledger reports its count here and never
prints; the CLI shows a bar on a terminal once the work has taken more than a second (cli/app.py, click's bar)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, Callable

_shown: Callable[[str, int | None], Any] | None = None  # (label, total) -> a bar with update(n) and close()
_after = 1.0  # seconds of work before a bar is shown


def shown_by(bar: Callable[[str, int | None], Any] | None, after: float = 1.0) -> None:
    """Where the work is shown: `bar(label, total)` makes a bar (None: nowhere), once `after` seconds have passed."""
    global _shown, _after
    _shown, _after = bar, after


def counted(items: Iterable, label: str, total: int | None = None) -> Iterator:
    """The items, in order; their count shown as they are worked through (a bar appears only after `_after` seconds
    of work, so a quick command shows nothing)."""
    if _shown is None:
        yield from items
        return
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if not total:  # work of unknown size: not shown
        yield from items
        return
    every = max(1, min(128, total // 100))  # the bar moves about a hundred times at most
    started, done, bar = time.monotonic(), 0, None
    try:
        for item in items:
            yield item
            done += 1
            if done % every:
                continue
            if bar is None and time.monotonic() - started >= _after:
                bar = _shown(label, total)
                bar.update(done)
            elif bar is not None:
                bar.update(every)
    finally:
        if bar is not None:
            bar.update(done % every)
            bar.close()
