"""The one switch for every cache of the fast paths: `CGLEDGER_CACHES=off` reads every answer the long way, so
that a player (or CI) can check that the caches change no answer. Off, a read keeps and uses no answer
(ledger/read/answers.py), no read view (ledger/read/views.py) and no "verified up to" mark (ledger/trust/mark.py): this
machine's secret, which seals them all, is not read; it starts from no snapshot (every event is folded and checked
again, ledger/store/loading.py); the rules are parsed from their TOML (no rules/cachefile.py); the page's audit is
the whole audit each time (no kept replay, ledger/audit/replay.py `Continued`). What a machine saw (the heads of
ledger/trust/seen.py) is not a cache: it stays, so a log cut short is still named."""

from __future__ import annotations

import os

SWITCH = "CGLEDGER_CACHES"


def on() -> bool:
    return os.environ.get(SWITCH, "on").strip().lower() != "off"
