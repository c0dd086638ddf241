"""PBEM exchange: `export --since FINGERPRINT FILE` writes the events the opponent does not have yet (the bundle's
format and its writing: ledger/exchange/bundle.py); `import FILE` appends them after checking they continue the local log's hash chain. A bundle that forks
history, skips events, was reordered or edited, or holds a roll the tables do not bear out, is refused
whole: nothing is imported. `import` runs the audit, which re-decides every event, over the bundle first."""


from eventsourcing.utils import get_topic

from ..trust import chain
from ..audit.replay import DISPUTES, audit
from .bundle import FORMAT, Bundle, BundleEvent, export_bundle, parse_fingerprint, read_bundle, write_bundle  # noqa: F401
from ..store.campaign import Campaign, campaign_id
from ..errors import BadInput
from ..domain.events import CampaignStarted


def domain_event(cid, event: BundleEvent):
    """The stored form of a bundle's event, exactly as the sender recorded it."""
    attributes = {"originator_id": cid, "originator_version": event.version, "timestamp": event.timestamp,
                  "fact": event.fact, "prev": event.prev, "digest": event.digest, "author": event.author,
                  "signature": event.signature, "command": event.command, "form": event.form,
                  "request": event.request}
    cls = Campaign.Started if isinstance(event.fact, CampaignStarted) and event.version == 1 else Campaign.Recorded
    if cls is Campaign.Started:
        attributes["originator_topic"] = get_topic(Campaign)
    stored = object.__new__(cls)
    object.__setattr__(stored, "__dict__", attributes)
    return stored


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
        if not chain.command_id_ok(event.command):
            raise BadInput(f"event {event.version} of the bundle carries a command id no ledger writes (letters, "
                           f"digits and -._:# up to {chain.COMMAND_ID_MOST}): refused")
        if event.prev != previous:
            raise BadInput(f"event {event.version} of the bundle does not follow event {event.version - 1}: the "
                           "bundle forks history, or was reordered")
        if chain.event_digest(cid, event) != event.digest:
            raise BadInput(f"event {event.version} of the bundle was edited after it was recorded: refused")
        previous = event.digest
    if not local and not isinstance(new[0].fact, CampaignStarted):
        raise BadInput("the bundle does not start with the campaign's CampaignStarted event")
    from ..trust.logged import Logged

    logged = list(local) + [Logged(e.version, e.timestamp, e.prev, e.digest, e.topic, e.fact, "", e.author,
                                   e.signature, e.command, e.form, e.request) for e in new]
    # forgery (a wrong author or signature, an event the ledger refuses) is refused whole; a dispute (a re-roll
    # after an undo, which the sender's ledger recorded) is imported and stays flagged in both audits
    problems = [f for f in audit(cid, logged).findings if f.version >= new[0].version and f.kind not in DISPUTES]
    if problems:
        raise BadInput(f"the bundle holds {len(problems)} event(s) that are forged or that the rules do not bear out, e.g. "
                       f"{problems[0].line()}")
    return new
