"""The event log as rows: each event with the CG Date it was made on and whether a later
undo voided it. A pure fold over the events as read back from the store."""


from typing import Any, Iterator

import msgspec

from cgledger.ledger.campaign import CampaignState
from cgledger.ledger.events import TAGS, CampaignStarted, CGDateChanged
from cgledger.ledger.inforce import voided_by
from cgledger.ledger.timeline import voided_actions

ROW_KEYS = {"version", "type", "timestamp", "cg_date", "error", "in_force", "digest", "author", "signed"}


def log_rows(logged: list) -> list[dict[str, Any]]:
    return list(iter_log_rows(logged))


def iter_log_rows(logged: list, state: CampaignState | None = None) -> Iterator[dict[str, Any]]:
    """The rows one at a time (`log` writes them as they come). `state`: the campaign just before the first of
    `logged` when it is the log's tail (`log --last N`): an undo or a rewind voids only actions before it, so
    whether a row is in force is told by the events from it on."""
    for event, cg_date, in_force in _walk(logged, state):
        yield _row(event, cg_date, in_force)


def iter_log_json(logged: list, state: CampaignState | None = None) -> Iterator[bytes]:
    """Each row of `iter_log_rows` as its compact JSON (msgspec's encoding of the row), made without the row's dict
    where it can be: the fact's own encoding, its tag taken out, between the row's keys (a fact stored without its
    defaults, or one with a field named as a row key, goes through the row's dict: `_SPLICED`)."""
    encode = msgspec.json.encode
    for event, cg_date, in_force in _walk(logged, state):
        fact = event.fact
        cut = _SPLICED.get(type(fact)) if fact is not None else None
        if cut is None:
            yield encode(_row(event, cg_date, in_force))
            continue
        body = encode(fact)[cut:-1]  # `,"field":value,...` (empty for a fact with no field)
        author = getattr(event, "author", "") or None
        yield b"".join((b'{"version":', str(event.version).encode(), b',"type":"', event.topic.encode(),
                        b'","timestamp":', encode(event.timestamp.isoformat() if event.timestamp else None),
                        b',"cg_date":', encode(cg_date), body, b',"in_force":', b"true" if in_force else b"false",
                        b',"digest":', encode(event.digest), b',"author":', encode(author), b',"signed":',
                        b"true" if getattr(event, "signature", "") else b"false", b"}"))


def json_list(rows: Iterator[bytes], chunk: int = 500) -> Iterator[bytes]:
    """The rows as one JSON list indented by two spaces (as the CLI's emit_json writes a list), `chunk` rows at a
    time, then a newline: the log never stands in memory as one string."""
    first, page = True, []
    for row in rows:
        page.append(row)
        if len(page) == chunk:
            yield (b"[" if first else b",") + _inside(page)
            first, page = False, []
    if first and not page:
        yield b"[]\n"
        return
    yield ((b"[" if first else b",") + _inside(page) if page else b"") + b"\n]\n"


def _inside(page: list[bytes]) -> bytes:
    """`\\n  row,\\n  row` of a page: msgspec's indented list without its brackets."""
    return msgspec.json.format(b"[" + b",".join(page) + b"]", indent=2)[1:-2]


def _walk(logged: list, state: CampaignState | None):
    """(event, the CG Date before it, whether it is in force) for each event."""
    voided = voided_actions(logged)
    dates = _Dates(state)
    for event in logged:
        fact = event.fact
        if fact is None:
            yield event, None, True
            continue
        if isinstance(fact, CampaignStarted):
            dates = _Dates(None, fact.cg_date)
        yield event, dates.date, getattr(fact, "action", None) not in voided
        if not isinstance(fact, CampaignStarted):
            dates.evolve(fact)


class _Dates:
    """The campaign's CG Date after each event, as CampaignState.evolve leaves its `cg_date` (without folding the
    whole state, the cost of every row): a CGDateChanged sets it, keeping the date it replaced for its action (the
    first one, as evolve's `_set` keeps it); an undo, a rewind or an accepted take-back puts back the date each
    voided action replaced, last action first (evolve's `_take_back`, regular or not). What this trusts: that no
    record the ledger makes on its own (evolve's `_automatic`: answers, reveals, chits, fair dice), which an undo can
    take back and apply again, changes the CG Date; a CGDateChanged is always a player's act. Only the log's date
    column reads it: nothing is decided by it (tests/test_log_json.py compares it with the whole fold)."""

    def __init__(self, state: CampaignState | None, date: str | None = None):
        self.date = state.cg_date if state is not None else date
        self.replaced = {int(action): values["cg_date"] for action, values in state.reverts.items()
                         if "cg_date" in values} if state is not None else {}
        self.known = state is not None or date is not None  # before any CampaignStarted: no date

    def evolve(self, fact) -> None:
        if not self.known:
            return
        voided = voided_by(fact)
        if voided is not None:
            for action in sorted(voided, reverse=True):
                if action in self.replaced:
                    self.date = self.replaced.pop(action)
        elif isinstance(fact, CGDateChanged):
            self.replaced.setdefault(fact.action, self.date)
            self.date = fact.cg_date


def _row(event, cg_date, in_force: bool) -> dict[str, Any]:
    fact = event.fact
    row: dict[str, Any] = {
        "version": event.version,
        "type": event.topic,
        "timestamp": event.timestamp.isoformat() if event.timestamp else None,
    }
    if fact is None:
        row["error"] = event.error
        return row
    row["cg_date"] = cg_date
    data = _complete(fact) if fact.__struct_config__.omit_defaults else msgspec.to_builtins(fact)
    data.pop("type", None)
    row.update(data)
    row["in_force"] = in_force
    row["digest"] = event.digest
    row["author"] = getattr(event, "author", "") or None  # the side that recorded it (None: unattributed)
    row["signed"] = bool(getattr(event, "signature", ""))
    return row


def _complete(value: Any) -> Any:
    """A fact stored without its default fields (omit_defaults), shown with all of them."""
    if isinstance(value, msgspec.Struct):
        return {f.encode_name: _complete(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_complete(v) for v in value]
    return msgspec.to_builtins(value)


def _splice_at(cls) -> int | None:
    """Where the fields begin in the fact's own JSON (after `{"type":"Tag"`), or None: encoded through its row."""
    config = cls.__struct_config__
    names = {f.encode_name for f in msgspec.structs.fields(cls)}
    if config.omit_defaults or config.tag_field != "type" or config.tag != TAGS[cls] or names & ROW_KEYS:
        return None
    return len(b'{"type":' + msgspec.json.encode(config.tag))


_SPLICED = {cls: _splice_at(cls) for cls in TAGS}
