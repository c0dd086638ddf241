"""The hash chain: every event carries its predecessor's digest and its own."""

from __future__ import annotations

import re

import functools
from datetime import datetime, timezone
from uuid import NAMESPACE_URL, UUID

import msgspec

from ..errors import DatabaseError
from ..domain.events import Fact
from ..sha import sha256, uuid5

GENESIS = "0" * 64
_encoder = msgspec.json.Encoder()


def canonical(fact: Fact) -> Fact:
    """The fact exactly as it will read back from the store (an int in a float field comes back a
    float, a list a tuple): digests are computed over this, so re-checking them never differs."""
    from ..domain.events import AnyFact

    return msgspec.json.decode(_encoder.encode(fact), type=AnyFact)


def iso_utc(moment: datetime) -> str:
    """The canonical text of a timestamp (UTC, microseconds). Built by hand so that freezegun's
    FakeDatetime and a real datetime of the same instant give the same text and digest. A stored one reads back
    in UTC already: its text is msgspec's (RFC 3339, "Z", six digits of microseconds where there are any: ~8x
    sooner than strftime), else isoformat's with "+00:00" written "Z"."""
    if moment.__class__ is datetime and moment.tzinfo is timezone.utc and moment.year >= 1000:
        if moment.microsecond:
            return _encoder.encode(moment)[1:-1].decode()
        return moment.isoformat(timespec="microseconds")[:-6] + "Z"  # strftime's %Y pads no year below 1000
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def iso_text(moment: datetime) -> str:
    """`moment.isoformat()`, ~5x sooner for a stored timestamp (UTC): msgspec's text with "Z" written "+00:00"."""
    if moment.__class__ is datetime and moment.tzinfo is timezone.utc and moment.year >= 1000:
        return _encoder.encode(moment)[1:-2].decode() + "+00:00"
    return moment.isoformat()


FORM = 3  # the envelope form new events are written in


def digest(campaign_id: UUID | str, version: int, timestamp: datetime, prev: str, fact: Fact, topic: str = "",
           author: str = "", command: str = "", form: int = 1, request=None) -> str:
    """The event's digest. Form 3 (every event written now) covers its whole stored form: the stored topic, the
    author side, the command id and the request (the typed command of the action it opens) as well as the fact;
    form 2 the same without a request; form 1 (older logs) the fact only."""
    if form == 1:
        payload = _encoder.encode((str(campaign_id), version, iso_utc(timestamp), prev, _as_written(fact)))
    elif form == 2:
        payload = _encoder.encode((f"cgledger/{form}", str(campaign_id), version, iso_utc(timestamp), prev, topic,
                                   author, command, _without_defaults(fact)))
    else:
        payload = _encoder.encode((f"cgledger/{form}", str(campaign_id), version, iso_utc(timestamp), prev, topic,
                                   author, command, _without_defaults(fact),
                                   None if request is None else _without_defaults(request)))
    return sha256(payload).hexdigest()


def _without_defaults(fact: Fact) -> dict:
    """The fact as form 2 digests it: fields at their default left out, so a field added later (always with a
    default) does not change the digest of an event stored before it."""
    left_out = _left_out(type(fact))
    data = left_out(fact) if left_out is not None else None
    if data is not None:
        return data
    data = msgspec.to_builtins(fact)
    for name, default in _defaults(type(fact)).items():
        if name in data and data[name] == default:
            del data[name]
    return data


_PLAIN = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({tuple, list, dict})


@functools.cache
def _left_out(cls):
    """A function giving what `_without_defaults` gives for a fact or command of type `cls`, from its fields as they
    are (no `to_builtins` of the whole: ~4x sooner, a first read recomputes every digest): the same keys in the same
    order, each value encoding as its builtins do, a field left out when its builtins equal its default's. It gives
    None (the long way) for a value whose test could differ from its builtins' (an enum, a set, a struct where the
    default is not None, UNSET). None: a type that always takes the long way (a field renamed, another default)."""
    fields, defaults, config = cls.__struct_fields__, cls.__struct_defaults__, cls.__struct_config__
    if cls.__struct_encode_fields__ != fields or config.array_like:
        return None
    lines = ["def left_out(o):", "    d = {}" if config.tag is None else "    d = {TAG_FIELD: TAG}"]
    built = _defaults(cls)
    for n, (name, default) in enumerate(zip(fields, (msgspec.NODEFAULT,) * (len(fields) - len(defaults)) + defaults)):
        lines.append(f"    v = o.{name}")
        if default is msgspec.NODEFAULT:  # kept
            lines += ["    if v is UNSET: return None", f"    d[{name!r}] = v"]
        elif default is None:  # left out when None
            lines += ["    if v is not None:", "        if v is UNSET: return None", f"        d[{name!r}] = v"]
        elif type(default) in _PLAIN and default == default:  # left out when equal to it (NaN is not)
            lines += ["    if v.__class__ not in PLAIN: return None", f"    if v != DEFAULTS[{n}]: d[{name!r}] = v"]
        elif built[name].__class__ in _CONTAINERS and not built[name]:  # when an empty one of its class: () is not []
            lines += [f"    if v.__class__ is not DEFAULTS[{n}].__class__:",
                      "        if v.__class__ not in CONTAINERS: return None", f"        d[{name!r}] = v",
                      f"    elif v: d[{name!r}] = v"]
        else:
            return None
    lines.append("    return d")
    namespace = {"TAG_FIELD": config.tag_field, "TAG": config.tag, "UNSET": msgspec.UNSET, "PLAIN": _PLAIN,
                 "CONTAINERS": _CONTAINERS, "DEFAULTS": [built.get(name) for name in fields]}
    exec("\n".join(lines), namespace)  # noqa: S102 - the code of names and positions of a type's own fields
    return namespace["left_out"]


@functools.cache
def _defaults(cls) -> dict:
    """{field: its default, as builtins} of a fact type."""
    fields = cls.__struct_fields__
    found = {}
    for name, default in zip(fields[len(fields) - len(cls.__struct_defaults__):], cls.__struct_defaults__):
        if default is msgspec.NODEFAULT:
            continue
        if type(default).__name__ == "Factory":
            default = default.factory()
        found[name] = msgspec.to_builtins(default)
    return found


# a command id as ledgers write it (a UUID, '#n' for each part of one command) or a player gives it: words no
# decision reads travel in no other field (`--command-id`, and each event of a bundle, are checked against it)
COMMAND_ID_MOST = 80
_COMMAND_ID = re.compile(r"[A-Za-z0-9._:#-]{0,%d}\Z" % COMMAND_ID_MOST)


def command_id_ok(text: str) -> bool:
    return bool(_COMMAND_ID.match(text))


# fields added after form 1 was replaced: a form-1 event was digested without them (a roll inside a reveal too)
_ADDED_SINCE_FORM_1 = {"ActionUndone": ("proposal", "also"), "Rewound": ("proposal",), "SideKeyRegistered": ("public",),
                       "TablesOverridden": ("proposal",), "RGPurchased": ("san", "early"), "DiceRolled": ("hexes",),
                       "CampaignStarted": ("edition",)}


def _as_written(fact: Fact):
    return _drop_added(msgspec.to_builtins(fact))


def _drop_added(data):
    if isinstance(data, dict):
        for name in _ADDED_SINCE_FORM_1.get(data.get("type"), ()):
            data.pop(name, None)
        for value in data.values():
            _drop_added(value)
    elif isinstance(data, list):
        for value in data:
            _drop_added(value)
    return data


def event_digest(campaign_id: UUID | str, event) -> str:
    """The digest recomputed from what an event read back holds (a Logged or a bundle event); "" (it matches none)
    when its stored request is not a command."""
    try:
        request = getattr(event, "request", None)
    except msgspec.ValidationError:
        return ""
    return digest(campaign_id, event.version, event.timestamp, event.prev, event.fact, event.topic, event.author,
                  event.command, event.form, request)


def campaign_id(name: str) -> UUID:
    """One campaign per name in a database: the id is derived from the name."""
    return uuid5(NAMESPACE_URL, f"cgledger:campaign:{name}")


def fingerprint(version: int, head: str) -> str:
    """What two players compare: the log's length and the first 16 hex digits of its head."""
    return f"{version}:{head[:16]}"


def checked_fingerprint(cid: UUID, last) -> str:
    """The fingerprint of a log ending with `last` (a Logged), its digest recomputed, never taken on trust: an edit
    that was not re-chained shows here, not only in `audit`."""
    if last.fact is None or event_digest(cid, last) != last.digest:
        raise DatabaseError(f"event {last.version} was altered after it was recorded (its content no longer "
                            "matches its digest): run `cgledger audit`")
    return fingerprint(last.version, last.digest)


def key_fingerprint(public: str) -> str:
    """A public key short enough to read out: the first 16 hex digits of its SHA-256, in groups of four."""
    short = sha256(bytes.fromhex(public)).hexdigest()[:16]
    return " ".join(short[i:i + 4] for i in range(0, 16, 4))
