"""Loading a campaign without taking the store on trust: the latest snapshot is used only if its seal and the
event it summarizes check out, and every event replayed after it has its chain, digest, author and signature
checked. What does not check out is kept in `notices` (the CLI prints them) and worked around: the log is
replayed instead of the snapshot. The audit (ledger/audit.py) checks every event and snapshot, and re-decides."""

from __future__ import annotations

import msgspec

from . import chain
from .campaign import Campaign
from .errors import CampaignNotFound
from .events import TAGS
from .evolve import CampaignState
from .logged import Logged
from .envelope import read_logged, read_snapshot, snapshot_seal
from .persistence import snapshot_event
from .reading import collector_paused


class Loader:
    def __init__(self, events, snapshots, recorder, mapper):
        self.events, self.snapshot_store, self.recorder, self.mapper = events, snapshots, recorder, mapper
        self.notices: list[str] = []

    def campaign(self, cid, version: int | None = None) -> Campaign:
        """The aggregate from its latest snapshot (at or before `version`) if that snapshot checks out, then the
        events after it, each checked."""
        start = None
        rows = self.snapshot_store.recorder.select_events(cid, desc=True, limit=1, lte=version) \
            if self.snapshot_store else []
        if rows:
            snap, problem = self.snapshot_problem(cid, rows[0])
            if problem is None:
                start = snapshot_event(rows[0], snap).mutate(None)
            else:
                self.notices.append(f"{problem}: read from the log instead (`cgledger audit` names it)")
        with collector_paused():
            return self._replay(cid, start, version)

    def _replay(self, cid, start, version: int | None) -> Campaign:
        campaign = start
        for event in self.events.get(cid, gt=start.version if start else None, lte=version):
            if campaign is not None:
                problem = envelope_problem(cid, campaign, event)
                if problem:
                    self.notices.append(f"event {event.originator_version}: {problem} (run `cgledger audit`)")
            campaign = event.mutate(campaign)
        if campaign is None:
            raise CampaignNotFound("the campaign has no events")
        return campaign

    def snapshot_problem(self, cid, stored):
        """(the stored snapshot, why it is not to be trusted or None): its seal, or the digest of the event it
        summarizes. Its state is not parsed here."""
        version = stored.originator_version
        try:
            snap = read_snapshot(self.mapper.decode_state(stored))
        except Exception:  # noqa: BLE001
            return None, f"the snapshot at event {version} cannot be read"
        if snap.seal != snapshot_seal(snap.head, snap.state):
            return snap, f"the snapshot at event {version} was edited (its seal does not match its content)"
        rows = self.recorder.select_events(cid, gt=version - 1, lte=version)
        event = self.logged(rows[0]) if rows else None
        if event is None or event.fact is None or snap.head != event.digest \
                or chain.event_digest(cid, event) != event.digest:
            return snap, f"the snapshot at event {version} does not summarize the stored event {version}"
        return snap, None

    def snapshots(self, cid) -> dict[int, tuple[dict | None, str | None]]:
        """Every stored snapshot: version -> (its state, parsed for the latest only, the one reads start from; why
        it does not check out). Each one's seal and event are checked; the audit compares the latest whole with
        its replay (an older edited one either shows in the next, built on it, or no longer matters)."""
        found: dict[int, tuple[dict | None, str | None]] = {}
        if not self.snapshot_store:
            return found
        after, latest = 0, None
        while True:  # a few at a time: each holds the whole state, so all of them at 50k events are gigabytes
            rows = self.snapshot_store.recorder.select_events(cid, gt=after, limit=16)
            for stored in rows:
                snap, problem = self.snapshot_problem(cid, stored)
                found[stored.originator_version] = (None, problem)
                latest = (stored.originator_version, snap, problem)
            if len(rows) < 16:
                break
            after = rows[-1].originator_version
        if latest is not None and latest[1] is not None:
            found[latest[0]] = (msgspec.json.decode(latest[1].state), latest[2])
        return found

    def logged(self, stored) -> Logged:
        """One stored event as read back (a damaged row is a finding, not a crash)."""
        try:
            state = self.mapper.decode_state(stored)
        except Exception as e:  # noqa: BLE001
            return Logged(stored.originator_version, None, "", "", stored.topic, None, str(e))
        return read_logged(stored.originator_version, stored.topic, state)


def envelope_problem(cid, state: CampaignState, event) -> str | None:
    """What every load checks of each event it replays after the snapshot: it follows the one before, its digest
    covers its content, its author and signature are right."""
    from .audit import check_author

    logged = Logged(event.originator_version, event.timestamp, event.prev, event.digest, TAGS[type(event.fact)],
                    event.fact, "", event.author, event.signature, event.command, event.form)
    if event.prev != state.head:
        return "it does not follow the event before it: the log was rewritten"
    if chain.event_digest(cid, logged) != event.digest:
        return "it was altered after it was recorded"
    found = check_author(state, event.fact, logged)
    return found[0][1] if found else None
