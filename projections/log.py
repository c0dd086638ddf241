"""The event log as rows: each event with the CG Date it was made on and whether a later
undo voided it. A pure fold over the events as read back from the store."""

from __future__ import annotations

from typing import Any, Iterator

import msgspec

from cgledger.ledger.campaign import CampaignState, first_step
from cgledger.ledger.events import CampaignStarted
from cgledger.ledger.timeline import voided_actions


def log_rows(logged: list) -> list[dict[str, Any]]:
    return list(iter_log_rows(logged))


def iter_log_rows(logged: list, state: CampaignState | None = None) -> Iterator[dict[str, Any]]:
    """The rows one at a time (`log --json` writes them as they come). `state`: the campaign just before the first
    of `logged` when it is the log's tail (`log --last N`): an undo or a rewind voids only actions before it, so
    whether a row is in force is told by the events from it on."""
    voided = voided_actions(logged)
    for event in logged:
        fact = event.fact
        row: dict[str, Any] = {
            "version": event.version,
            "type": event.topic,
            "timestamp": event.timestamp.isoformat() if event.timestamp else None,
        }
        if fact is None:
            row["error"] = event.error
            yield row
            continue
        if isinstance(fact, CampaignStarted):
            state = CampaignState()
            state.start(fact, event.digest, first_step(fact.system))
        row["cg_date"] = state.cg_date if state else None
        data = _complete(fact) if fact.__struct_config__.omit_defaults else msgspec.to_builtins(fact)
        data.pop("type", None)
        row.update(data)
        row["in_force"] = getattr(fact, "action", None) not in voided
        row["digest"] = event.digest
        row["author"] = getattr(event, "author", "") or None  # the side that recorded it (None: unattributed)
        row["signed"] = bool(getattr(event, "signature", ""))
        if state is not None and not isinstance(fact, CampaignStarted):
            state.evolve(fact, event.digest, event.version, getattr(event, "author", ""), getattr(event, "command", ""))
        yield row


def _complete(value: Any) -> Any:
    """A fact stored without its default fields (omit_defaults), shown with all of them."""
    if isinstance(value, msgspec.Struct):
        return {f.encode_name: _complete(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_complete(v) for v in value]
    return msgspec.to_builtins(value)
