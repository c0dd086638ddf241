"""PBEM exchange: `export --since FINGERPRINT FILE` writes the events the opponent does not have yet;
`import FILE` appends them after checking they continue the local log's hash chain. A bundle that forks
history, skips events, was reordered or edited, or holds a roll the tables do not bear out, is refused
whole: nothing is imported. `import` runs the audit, which re-decides every event, over the bundle first."""


from datetime import datetime
from pathlib import Path

import msgspec
from eventsourcing.utils import get_topic

from . import chain
from .audit import DISPUTES, audit
from .campaign import Campaign, campaign_id
from .errors import BadInput
from .events import TAGS, AnyFact, CampaignStarted

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


def export_bundle(history: list, name: str, system: str, since: str, path: Path) -> Bundle:
    """Writes the events the opponent does not have yet (after the fingerprint it gave)."""
    version, digest = parse_fingerprint(since)
    if version:
        mine = next((e for e in history if e.version == version), None)
        if mine is None:
            raise BadInput(f"the fingerprint {since} is ahead of this log (it ends at event {history[-1].version}): "
                           "import your opponent's bundle first")
        if not mine.digest.startswith(digest):
            raise BadInput(f"the fingerprint {since} does not match event {version} here: the two logs have forked "
                           "(compare `cgledger log` on both sides)")
    events = [BundleEvent(e.version, e.timestamp, e.prev, e.digest, e.fact, e.author, e.signature, e.command, e.form)
              for e in history if e.version > version]
    if not events:
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
            out.write((b"," if start else b"") + b",".join(encoder.encode(e) for e in bundle.events[start:start + chunk]))
        out.write(b"]}")


def domain_event(cid, event: BundleEvent):
    """The stored form of a bundle's event, exactly as the sender recorded it."""
    attributes = {"originator_id": cid, "originator_version": event.version, "timestamp": event.timestamp,
                  "fact": event.fact, "prev": event.prev, "digest": event.digest, "author": event.author,
                  "signature": event.signature, "command": event.command, "form": event.form}
    cls = Campaign.Started if isinstance(event.fact, CampaignStarted) and event.version == 1 else Campaign.Recorded
    if cls is Campaign.Started:
        attributes["originator_topic"] = get_topic(Campaign)
    stored = object.__new__(cls)
    object.__setattr__(stored, "__dict__", attributes)
    return stored


def read_bundle(path: Path) -> Bundle:
    try:
        bundle = msgspec.json.decode(path.read_bytes(), type=Bundle)
    except (msgspec.ValidationError, msgspec.DecodeError, OSError) as e:
        raise BadInput(f"{path.name} is not a cgledger bundle: {e}") from None
    if bundle.format != FORMAT:
        raise BadInput(f"{path.name} is a bundle of an unknown format {bundle.format!r}")
    return bundle


def plan_import(bundle: Bundle, local: list) -> list[BundleEvent]:
    """The bundle's events that continue `local` (the events of this campaign here, maybe none), checked:
    no fork, no gap, no reordering, no edit, and every roll borne out by the tables. Pure; raises."""
    head = local[-1] if local else None
    if head is None and bundle.since:
        raise BadInput(f"this database does not hold campaign '{bundle.campaign}' from its start: ask for a bundle "
                       "since 0")
    have = head.version if head else 0
    if bundle.since > have:
        raise BadInput(f"the bundle skips events {have + 1}-{bundle.since}: ask your opponent for a bundle since "
                       f"{chain.fingerprint(have, head.digest) if head else '0'}")
    by_version = {e.version: e for e in local}
    new = []
    for expected, event in enumerate(bundle.events, bundle.since + 1):
        if event.version != expected:
            raise BadInput(f"the bundle's events are out of order or missing at event {expected}: refused")
        if event.version <= have:
            if by_version[event.version].digest != event.digest:
                raise BadInput(f"the bundle forks history at event {event.version}: both sides recorded different "
                               "events there (compare `cgledger log` on both sides)")
            continue
        new.append(event)
    if not new:
        return []  # this log holds every event of the bundle already (a retried import whose commit landed)
    cid = campaign_id(bundle.campaign)
    previous = head.digest if head else chain.GENESIS
    for event in new:
        if event.prev != previous:
            raise BadInput(f"event {event.version} of the bundle does not follow event {event.version - 1}: the "
                           "bundle forks history, or was reordered")
        if chain.event_digest(cid, event) != event.digest:
            raise BadInput(f"event {event.version} of the bundle was edited after it was recorded: refused")
        previous = event.digest
    if not local and not isinstance(new[0].fact, CampaignStarted):
        raise BadInput("the bundle does not start with the campaign's CampaignStarted event")
    from .logged import Logged

    logged = list(local) + [Logged(e.version, e.timestamp, e.prev, e.digest, e.topic, e.fact, "", e.author,
                                   e.signature, e.command, e.form) for e in new]
    # forgery (a wrong author or signature, an event the ledger refuses) is refused whole; a dispute (a re-roll
    # after an undo, which the sender's ledger recorded) is imported and stays flagged in both audits
    problems = [f for f in audit(cid, logged).findings if f.version >= new[0].version and f.kind not in DISPUTES]
    if problems:
        raise BadInput(f"the bundle holds {len(problems)} event(s) that are forged or that the rules do not bear out, e.g. "
                       f"{problems[0].line()}")
    return new
