"""What the stored log proves, read from the store alone: `audit` (every event decided again, ledger/audit/),
`audit --fast` (digest, chain, author and signature past this machine's mark of what it verified,
ledger/trust/mark.py) and `head` (the log's fingerprint). A clean whole audit advances the mark."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .. import caching
from ..domain.outcomes import Verified
from ..store.reading import collector_paused
from ..trust import chain, mark, seen
from ..trust.chain import campaign_id

if TYPE_CHECKING:
    from .replay import Report
    from ..store.campaigns import CampaignStore

# what the whole audit finds wrong with an event's envelope: after a clean one, this machine marks the log verified
UNVERIFIED = frozenset({"missing", "unreadable", "tampered", "chain", "author", "signature"})


class Verification:
    """`store`: the campaigns' store; `read(name, as_of, raw=True)`: the log as of a CG Date's RePh end."""

    def __init__(self, store: "CampaignStore", read: Callable):
        self.store, self.read = store, read

    def audit(self, name: str | None, as_of: str | None = None, final: bool = False, kept: bool = False) -> "Report":
        """Reads the stored events only (never the aggregate or its snapshots), so a damaged log is reported, not
        fatal. `final`: what is still pending is a problem. `kept`: carry on the audit this process kept of the log
        (`audit.Continued`: a long-lived process, the page's server), re-deciding only the events stored since."""
        from .replay import Continued, Finding, audit  # here: the audit's re-decisions are loaded by the audit alone

        store = self.store
        name = store.resolve_name(name)
        cid = campaign_id(name)
        with collector_paused():  # the stored rows a page at a time, decoded as the audit reads them (memory)
            if kept and as_of is None and store.where and caching.on():
                report = Continued.of((store.where, str(cid)), cid,
                                      lambda after: store.loader.rows(cid, store.READ_PAGE, after),
                                      store.snapshots_of(name), lambda v: self._digest_at(cid, v)).report(final)
            else:
                logged = store.loader.rows(cid, store.READ_PAGE) if as_of is None \
                    else self.read(name, as_of, raw=True)[0]
                report = audit(cid, logged, store.snapshots_of(name), final)
        end, head = report.head
        lost = store.seen_problem(cid, end) if store.where and as_of is None else None
        if as_of is None and end and not lost and not any(f.kind in UNVERIFIED for f in report.findings):
            mark.advance(store.where, store.seen_key(cid), end, head)
        last = (seen.last_seen(store.where, store.seen_key(cid)) or (0, ""))[0] if lost else 0
        if lost and not any(f.version >= min(last, end) for f in report.findings):
            # what the chain cannot show: events deleted since this machine last read the log
            from dataclasses import replace  # here: the quick path of reads never loads `inspect`

            report = replace(report, findings=(*report.findings, Finding(end, "missing", lost)))
        return report

    def _digest_at(self, cid, version: int) -> str | None:
        """The digest stored with the event at `version` (None: no such event, or one that cannot be read)."""
        stored = self.store.recorder.select_events(cid, gt=version - 1, limit=1)
        if not stored or stored[0].originator_version != version:
            return None
        return self.store.loader.logged(stored[0]).digest

    def fast(self, name: str | None) -> Verified:
        """`audit --fast`: trusts this machine's mark of what it verified. Checks that the log still extends the
        mark (else every event is checked again), then the digest, chain, author and signature of each event past
        it, and that no event this machine saw is gone; decisions are not re-run (`audit` does)."""
        from .replay import Finding

        store = self.store
        cid = campaign_id(store.resolve_name(name))
        key = store.seen_key(cid)
        kept = mark.kept(store.where)
        before = mark.read(store.where, key) if kept else (0, "")
        campaign = store.loader.campaign(cid, None, before)
        trusted = 0 if store.loader.broken else before[0]
        findings = [Finding(version, kind, message) for version, kind, message in store.loader.problems]
        lost = store.seen_problem(cid, campaign.version, key) if store.where else None
        if lost:
            findings.append(Finding(campaign.version, "missing", lost))
        if kept and store.loader.checked is not None and not lost:
            mark.advance(store.where, key, *store.loader.checked)
        return Verified(campaign.version, trusted, store.loader.broken, tuple(findings))

    def head(self, name: str | None, as_of: str | None = None) -> str:
        """The fingerprint of the whole stored log: its length and its last event's digest, which chains every
        event before it (`audit` checks that chain)."""
        cid = campaign_id(self.store.resolve_name(name))
        if as_of is not None:
            last = self.read(name, as_of, raw=True)[0][-1]
        else:
            last = self.store.loader.logged(self.store.recorder.select_events(cid, desc=True, limit=1)[0])
        return chain.checked_fingerprint(cid, last)
