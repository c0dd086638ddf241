"""The PBEM bundle: its format (`cgledger-bundle/1`, a JSON document of the events the opponent does not have yet),
writing it (`export`) and reading it back. With msgspec and the events alone: `export` of a log whose load this
machine has checked at this head loads neither the event-sourcing library nor the audit (cli/exchange.py). Checking
a bundle before it is imported: ledger/exchange/pbem.py."""

from datetime import datetime
from pathlib import Path

import msgspec

from ..errors import BadInput
from ..domain.commands import AnyCommand
from ..domain.events import TAGS, AnyFact

FORMAT = "cgledger-bundle/1"


class BundleEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    version: int
    timestamp: datetime
    prev: str
    digest: str
    fact: AnyFact
    author: str = ""
    signature: str = ""
    command: str = ""
    form: int = 1
    request: AnyCommand | None = None

    @property
    def topic(self) -> str:
        return TAGS[type(self.fact)]


class Bundle(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    format: str
    campaign: str
    system: str
    since: int
    events: list[BundleEvent]


def parse_fingerprint(text: str) -> tuple[int, str]:
    text = text.strip()
    if text in ("", "0"):
        return 0, ""
    version, sep, digest = text.partition(":")
    if not sep or not version.isdigit() or not digest or any(c not in "0123456789abcdef" for c in digest):
        raise BadInput(f"malformed fingerprint '{text}': it looks like 25:6d3a7b371269e277 (`cgledger head`), or 0")
    return int(version), digest


def export_bundle(entries: list, name: str, system: str, since: str, path: Path, empty: bool = False) -> Bundle:
    """Writes the events the opponent does not have yet (after the fingerprint it gave). `entries`: the log as
    (version, topic, record), ledger/envelope.read_entries (a Logged as record does as well). `empty`: a bundle of
    no events may be written (the email turn mailed back: only the head it was read at)."""
    version, digest = parse_fingerprint(since)
    if version:
        mine = next((record for v, _topic, record in entries if v == version), None)
        if mine is None:
            raise BadInput(f"the fingerprint {since} is ahead of this log (it ends at event {entries[-1][0]}): "
                           "import your opponent's bundle first")
        if not mine.digest.startswith(digest):
            raise BadInput(f"the fingerprint {since} does not match event {version} here: the two logs have forked "
                           "(compare `cgledger log` on both sides)")
    # each request as stored (its JSON written as read, not decoded): the bundle is read back typed
    events = [BundleEvent(v, r.timestamp, r.prev, r.digest, r.fact, r.author, r.signature, r.command, r.form,
                          r.held_request)
              for v, _topic, r in entries if v > version]
    if not events and not empty:
        raise BadInput(f"nothing to export: your opponent already has all {version} events")
    bundle = Bundle(FORMAT, name, system, version, events)
    write_bundle(bundle, path)
    return bundle


def write_bundle(bundle: Bundle, path: Path, chunk: int = 1000) -> None:
    """The bundle's JSON, exactly as msgspec.json.encode(bundle) gives it, written `chunk` events at a time."""
    encoder = msgspec.json.Encoder()
    head = encoder.encode(msgspec.structs.replace(bundle, events=[]))
    assert head.endswith(b"[]}")
    with path.open("wb") as out:
        out.write(head[:-2])
        for start in range(0, len(bundle.events), chunk):
            out.write((b"," if start else b"") + encoder.encode(bundle.events[start:start + chunk])[1:-1])  # one call
        out.write(b"]}")


def read_bundle(path: Path) -> Bundle:
    try:
        bundle = msgspec.json.decode(path.read_bytes(), type=Bundle)
    except (msgspec.ValidationError, msgspec.DecodeError, OSError) as e:
        raise BadInput(f"{path.name} is not a cgledger bundle: {e}") from None
    if bundle.format != FORMAT:
        raise BadInput(f"{path.name} is a bundle of an unknown format {bundle.format!r}")
    return bundle
