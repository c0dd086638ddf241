"""The verbs: a player's words made one command and recorded through the service (ledger/application.py), which
imports only `retried` and the walk (walking.py) from here; the verbs take the service as their first argument."""

from __future__ import annotations

import functools

from ..errors import CampaignMovedOn

RETRIES = 4


def retried(verb):
    """`verb(ledger, ...)` decided again on the log as it now stands when its save met only records the other side's
    ledger made by itself (live, its server answering this side's rolls, revealing its chit), while it has saved
    nothing; a move of the other player is said, never retried (he may want to choose again)."""

    @functools.wraps(verb)
    def again(ledger, *args, **kwargs):
        for attempt in range(RETRIES):
            saves, said, noticed, made = ledger.store.saves, len(ledger.said), len(ledger.notices), len(ledger.made_now)
            try:
                return verb(ledger, *args, **kwargs)
            except CampaignMovedOn as e:
                if not e.protocol_only or ledger.store.saves != saves or attempt == RETRIES - 1:
                    raise
                del ledger.said[said:], ledger.notices[noticed:], ledger.made_now[made:]
    return again
