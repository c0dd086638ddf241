"""The event log as rows: each event with the CG Date it was made on and whether a later
undo voided it. A pure fold over the events as read back from the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import msgspec

from cgledger.ledger.domain.events import TAGS, ActionUndone, CampaignStarted, CGDateChanged, Rewound, TakeBackProposed
from cgledger.ledger.domain.inforce import voided_actions, voided_by
from cgledger.ledger.trust.chain import iso_text

if TYPE_CHECKING:
    from cgledger.ledger.store.campaign import CampaignState

ROW_KEYS = {"version", "type", "timestamp", "cg_date", "error", "in_force", "digest", "author", "signed", "request"}


def log_rows(logged: list) -> list[dict[str, Any]]:
    return list(iter_log_rows(logged))


def iter_log_rows(logged: list, state: CampaignState | None = None,
                  events_of: Callable[[int, int], list] | None = None) -> Iterator[dict[str, Any]]:
    """The rows one at a time (`log` writes them as they come). `state`: the campaign just before the first of
    `logged` when it is the log's tail (`log --last N`): an undo or a rewind voids only actions before it, so
    whether a row is in force is told by the events from it on; `events_of(action, before)` reads an action before
    the tail that an undo there takes back (CampaignStore.events_of_action), so its row names it as the whole log's
    does."""
    named = _Named(state, events_of)
    for event, cg_date, in_force in _walk(logged, state):
        row = _row(event, cg_date, in_force)
        named.see(event.fact, row)
        yield row


class _Named:
    """Each action by its first fact, in plain words (projections/takeback.py): an undo's row and a take-back
    proposal's say what they take back (`takes_back`), not the action's number."""

    def __init__(self, state: CampaignState | None, events_of: Callable[[int, int], list] | None = None):
        self.first: dict[int, Any] = {}
        self.rgs: dict[int, str] = {}  # a purchase's event -> the RG in words ('RG I3', 'an RG bought in secret ...')
        self.rolls: dict[int, tuple[str, str, str]] = {}  # a fair roll's declaration -> its side, table and RG
        if state is not None:  # the tail of a log: what the campaign before it holds
            for version, bought in state.rgs.items():
                secret = state.secret_rgs.get(version)
                if bought["rg"] or secret:
                    self.rgs[int(version)] = f"RG {bought['rg']}" if bought["rg"] else \
                        f"an RG bought in secret on {secret['cg_date']}"
            self.rolls.update((e["version"], (e["side"], e["table"], self.rgs.get(e["rg"], "")))
                              for e in state.declared.values())
        self.events_of = events_of
        self.sides: dict[str, str] | None = None
        self.system = state.system if state is not None else None

    def see(self, fact, row: dict) -> None:
        if fact is None:
            return
        if isinstance(fact, CampaignStarted):
            self.system = fact.system
        self._name(fact, row)
        action = getattr(fact, "action", None)
        if action is not None:
            self.first.setdefault(action, fact)
        voided = voided_by(fact) if isinstance(fact, ActionUndone) else \
            tuple(fact.voided) if isinstance(fact, TakeBackProposed) and fact.kind == "undo" else ()
        for earlier in [a for a in voided if a not in self.first and self.events_of is not None]:
            found = self.events_of(earlier, row["version"])  # before the rows read: read back from the store
            if found and found[0].fact is not None:
                self.first[earlier] = found[0].fact
        if voided and all(a in self.first for a in voided):
            from . import takeback

            row["takes_back"] = " and ".join(takeback.words(self.first[a], self._sides()) for a in voided)

    def _name(self, fact, row: dict) -> None:
        """An RG and a fair roll named in words where a later row refers to them by their event (`rg_named`,
        `roll_named`): the RG as its purchase shows it (bought in secret: when), the roll by its side and table."""
        kind = type(fact).__name__
        if kind == "RGPurchased":
            self.rgs[row["version"]] = f"RG {fact.rg}"
        elif kind == "RGPurchaseSealed":
            self.rgs[row["version"]] = f"an RG bought in secret on {fact.cg_date}"
        elif kind == "RGPurchaseRevealed":
            self.rgs[fact.purchase] = f"RG {fact.fact.rg}"
        rg = row.get("rg")
        if rg is not None and rg in self.rgs:
            row["rg_named"] = self.rgs[rg]
        if kind == "RollDeclared":
            self.rolls[row["version"]] = (fact.side, fact.table, row.get("rg_named", ""))
        elif kind == "RollDeclarationRevealed" and fact.declared in self.rolls:
            self.rolls[fact.declared] = (*self.rolls[fact.declared][:1], fact.fact.table, self.rolls[fact.declared][2])
        declared = row.get("declared") if kind in ("RollAnswered", "RollLapsed") else None
        if declared in self.rolls:
            side, table, named = self.rolls[declared]
            row["roll_named"] = f"the {self._sides().get(side, side)} side's " + (
                f"fair roll on {table}" if table else "Secret fair roll") + (f" for {named}" if named else "")

    def _sides(self) -> dict[str, str]:
        if self.sides is None:
            from cgledger.ledger import rules

            self.sides = dict(rules.load(self.system).system.sides) if self.system else {}
        return self.sides


def iter_log_json(logged: list, state: CampaignState | None = None) -> Iterator[bytes]:
    """Each row of `iter_log_rows` as its compact JSON (msgspec's encoding of the row)."""
    encode = msgspec.json.encode
    return (encode(row) for row in _json_rows([(event.version, event.topic, event) for event in logged], state))


def log_json(entries: list, state: CampaignState | None = None, chunk: int = 500) -> Iterator[bytes]:
    """The whole JSON list `log --json` writes (json_list of iter_log_json's rows), `chunk` rows encoded and indented
    at a time. `entries`: (version, topic, record) as ledger/envelope.read_entries gives them, the record a decoded
    envelope or a Logged (a damaged one: its error row)."""
    encode, format_ = msgspec.json.encode, msgspec.json.format
    return _listed(format_(encode(page), indent=2)[1:-2] for page in _pages(_json_rows(entries, state), chunk))


def json_list(rows: Iterator[bytes], chunk: int = 500) -> Iterator[bytes]:
    """The rows as one JSON list indented by two spaces (as the CLI's emit_json writes a list), `chunk` rows at a
    time, then a newline: the log never stands in memory as one string."""
    return _listed(_inside(page) for page in _pages(rows, chunk))


def _pages(rows: Iterator, chunk: int) -> Iterator[list]:
    page = []
    for row in rows:
        page.append(row)
        if len(page) == chunk:
            yield page
            page = []
    if page:
        yield page


def _listed(insides: Iterator[bytes]) -> Iterator[bytes]:
    """`[`, each page's `\\n  row,\\n  row` after a comma, `\\n]\\n` (`[]\\n` for none)."""
    first = True
    for inside in insides:
        yield (b"[" if first else b",") + inside
        first = False
    yield b"[]\n" if first else b"\n]\n"


def _inside(page: list[bytes]) -> bytes:
    """`\\n  row,\\n  row` of a page: msgspec's indented list without its brackets."""
    return msgspec.json.format(b"[" + b",".join(page) + b"]", indent=2)[1:-2]


def _json_rows(entries: list, state: CampaignState | None) -> Iterator[Any]:
    """Each row as msgspec encodes it like `_row`'s dict: a struct of the fact's own row class (`_ROWS`: the row's
    keys around the fact's fields, in `_row`'s order) built from the fact's fields, or `_row`'s dict for a damaged
    row and for a fact the row class cannot stand for. Walks the dates as `_walk` does."""
    voided = voided_actions(record for _version, _topic, record in entries)
    dates = _Dates(state)
    rows, astuple, movers = _ROWS, msgspec.structs.astuple, _MOVERS
    for version, topic, record in entries:
        fact = record.fact
        kind = type(fact)
        if kind in movers:  # a start, an undo, a rewind, a new CG Date: what moves the date column
            if fact is None:
                yield _row(_Event(version, topic, record), None, True)
                continue
            if isinstance(fact, CampaignStarted):
                dates = _Dates(None, fact.cg_date)
                date = dates.date
            else:
                date = dates.date
                dates.evolve(fact)
        else:
            date = dates.date
        make = rows.get(kind)
        in_force = getattr(fact, "action", None) not in voided
        if make is None:
            yield _row(_Event(version, topic, record), date, in_force)
            continue
        timestamp = record.timestamp
        yield make(version, topic, iso_text(timestamp) if timestamp else None, date, *astuple(fact), in_force,
                   record.digest, record.author or None, bool(record.signature), record.held_request)


class _Event:
    """A row's event as `_row` reads it, from an entry's version, topic and record."""

    __slots__ = ("version", "topic", "timestamp", "fact", "error", "digest", "author", "signature", "held_request")

    def __init__(self, version: int, topic: str, record):
        self.version, self.topic, self.fact = version, topic, record.fact
        self.timestamp, self.digest = record.timestamp, record.digest
        self.error, self.author = getattr(record, "error", ""), record.author
        self.signature, self.held_request = record.signature, record.held_request


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
        "timestamp": iso_text(event.timestamp) if event.timestamp else None,
    }
    if fact is None:
        row["error"] = event.error
        row["request"] = None
        return row
    row["cg_date"] = cg_date
    data = _complete(fact) if fact.__struct_config__.omit_defaults else msgspec.to_builtins(fact)
    data.pop("type", None)
    row.update(data)
    row["in_force"] = in_force
    row["digest"] = event.digest
    row["author"] = getattr(event, "author", "") or None  # the side that recorded it (None: unattributed)
    row["signed"] = bool(getattr(event, "signature", ""))
    row["request"] = request_of(event)
    return row


def request_of(event) -> dict[str, Any] | None:
    """The command the event's action was recorded with, as stored with its first event (envelope form 3; its tag
    `verb` first, fields at their default left out, ledger/domain/commands.py), else None: an event after the
    first of its action, an act that keeps none (a Secret roll, a sealed purchase, ...), a log written before.
    Read back, its stored JSON as it is (a `log --json` row writes those bytes), not decoded as a command."""
    request = getattr(event, "held_request", None)
    if request is None:
        return None
    return msgspec.json.decode(request) if request.__class__ is msgspec.Raw else msgspec.to_builtins(request)


def _complete(value: Any) -> Any:
    """A fact stored without its default fields (omit_defaults), shown with all of them."""
    if isinstance(value, msgspec.Struct):
        return {f.encode_name: _complete(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_complete(v) for v in value]
    return msgspec.to_builtins(value)


def _row_class(cls) -> type | None:
    """The struct whose JSON is `_row`'s dict for a fact of `cls` (the row's keys, the fact's fields between them, as
    they encode), or None: a fact stored without its defaults (shown with them: `_complete`), not tagged as its stored
    topic, or with a field named as a row key goes through the dict."""
    config = cls.__struct_config__
    fields = msgspec.structs.fields(cls)
    names = {f.encode_name for f in fields} | {f.name for f in fields}
    if config.omit_defaults or config.array_like or config.tag_field != "type" or config.tag != TAGS[cls] \
            or names & (ROW_KEYS | {"type"}):
        return None
    head, tail = ["version", "type", "timestamp", "cg_date"], ["in_force", "digest", "author", "signed", "request"]
    return msgspec.defstruct(f"{cls.__name__}Row", [*head, *(f.name for f in fields), *tail],
                             rename={f.name: f.encode_name for f in fields})


_ROWS = {cls: _row_class(cls) for cls in TAGS}
_ROWS = {cls: row for cls, row in _ROWS.items() if row is not None}
_MOVERS = frozenset({type(None), *(cls for cls in TAGS if issubclass(cls, (CampaignStarted, CGDateChanged, ActionUndone,
                                                                             Rewound)))})
