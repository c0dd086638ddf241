"""Loading a campaign without taking the store on trust: the latest snapshot is used only if its seal and the
event it summarizes check out, and every event replayed after it has its chain, digest, author and signature
checked. What does not check out is kept in `notices` (the CLI prints them) and worked around: the log is
replayed instead of the snapshot. The audit (ledger/audit/) checks every event and snapshot, and re-decides."""

from __future__ import annotations

import sys

import msgspec

from .. import caching, lazy
from ..trust import chain
from . import folded
from ..errors import CampaignNotFound, DatabaseError
from ..domain.events import TAGS
from ..domain.evolve import CampaignState
from .folded import Folded
from ..trust.logged import Logged
from ..trust.envelope import read_logged, read_snapshot, snapshot_seal
from .reading import collector_paused


# events to check from which a read loads hashlib for their digests: its load (3-15 ms) is paid back by ~3.5 µs an
# event (a first read on a new machine, 2026-11-29)
LONG_STRETCH = 3000


class _MarkBroken(Exception):
    """The log no longer extends the mark: its event N is another, or gone."""


class Loader:
    """Folds a campaign from the rows of `store` (the application service: its `recorder`, `snapshot_recorder`
    and `mapper`, asked at each use, as they change when a command first records), without the event-sourcing
    library (ledger/store/folded.py)."""

    def __init__(self, store):
        self.store = store
        self.notices: list[str] = []
        self.checked: tuple[int, str] | None = None  # (version, head) the last load verified up to (with a mark)
        self.broken = False  # the last load found that the log no longer extends the mark
        self.problems: list[tuple[int, str, str]] = []  # what the last load found: (event, kind, message)

    @property
    def recorder(self):
        return self.store.recorder

    @property
    def mapper(self):
        return self.store.mapper

    def campaign(self, cid, version: int | None = None, mark: tuple[int, str] | None = None) -> Folded:
        """The aggregate from its latest snapshot (at or before `version`) if that snapshot checks out, then the
        events after it, each checked. `mark` (ledger/trust/mark.py): (N, digest of event N) this machine verified up to,
        (0, "") for none: then the snapshot is taken at or before N and only the events past N are checked, so
        without a mark every event is checked once; None: no marks are kept (the snapshot is trusted as before).
        `checked` is then (version, head) when every event is verified, else None. A row that cannot be read or is
        out of sequence is one line (DatabaseError) for every command that loads, `audit --fast` too."""
        self.checked, self.broken, self.problems = None, False, []
        try:
            if mark is not None:
                try:
                    return self._load(cid, version, mark)
                except _MarkBroken:  # the log does not extend what this machine verified: check it all again
                    self.broken, self.problems = True, []
                    return self._load(cid, version, (0, ""))
            return self._load(cid, version, None)
        except (folded.UnreadableRow, folded.OutOfSequence) as e:
            raise DatabaseError(f"the campaign log is damaged ({e}): run `cgledger audit`") from None

    def _load(self, cid, version: int | None, mark: tuple[int, str] | None) -> Folded:
        start = None
        upto = version if mark is None else mark[0] if version is None else min(version, mark[0])
        snapshots = self.store.snapshot_recorder if caching.on() else None  # off: every event folded and checked
        rows = snapshots.select_events(cid, desc=True, limit=1, lte=upto) \
            if snapshots is not None and (mark is None or upto > 0) else []
        if rows:
            snap, problem = self.snapshot_problem(cid, rows[0])
            if problem is None:
                start = folded.from_snapshot(rows[0], snap)
                if mark is not None and start.version == mark[0] and start.head != mark[1]:
                    raise _MarkBroken
            else:
                self.problems.append((rows[0].originator_version, "snapshot", problem))
                self.notices.append(f"{problem}: read from the log instead (`cgledger audit` names it)")
        trusted = (start.version if start else 0) if mark is None else mark[0]
        noticed = len(self.notices)
        with collector_paused():
            campaign = self._replay(cid, start, version, trusted, mark)
        if mark is not None and version is None and campaign.version >= mark[0] and len(self.notices) == noticed:
            self.checked = (campaign.version, campaign.head)
        return campaign

    def _replay(self, cid, start, version: int | None, trusted: int = 0, mark: tuple[int, str] | None = None
                ) -> Folded:
        """`trusted`: events up to it are not checked again (the snapshot's, or the machine's mark). The signatures
        of a long stretch to check (the first read on a new machine, a big bundle received) are verified by a child
        process on another CPU while this one folds (`signatures.Verifier`, as the audit's); what is found is the
        same, named in the events' order."""
        from ..progress import counted

        campaign = start
        decode, read = self.mapper.decode_state, folded.event
        rows = self.recorder.select_events(cid, gt=start.version if start else None, lte=version)
        verifier = _Signatures(sum(1 for r in rows if r.originator_version > trusted)
                               if isinstance(rows, list) else 0)  # not counted: in line
        text = str(cid)  # the campaign id as each digest writes it, once
        if verifier.size >= LONG_STRETCH:
            __import__("hashlib")  # loaded: the digests go to OpenSSL's SHA-256 (ledger/sha.py), ~3x sooner a byte
        found: list[tuple[int, str, str]] = []
        try:
            for stored in counted(rows, "reading the campaign"):
                event = read(stored, decode)
                number = event.originator_version
                at_mark = mark is not None and number == mark[0]
                if at_mark and event.digest != mark[1]:
                    raise _MarkBroken
                if campaign is not None and (number > trusted or at_mark):
                    problem = _checked(text, campaign, event, at_mark, verifier)
                    if problem:
                        found.append((number, *problem))
                campaign = event.mutate(campaign)
            found += [(number, *signed.finding()) for number, signed in verifier.failed()]
        finally:
            verifier.close()
        for number, kind, message in sorted(found, key=lambda f: f[0]):
            self.problems.append((number, kind, message))
            self.notices.append(f"event {number}: {message} (run `cgledger audit`)")
        if campaign is None:
            raise CampaignNotFound("the campaign has no events")
        if mark is not None and version is None and campaign.version < mark[0]:
            raise _MarkBroken  # events this machine verified are gone (ledger/trust/seen.py names them)
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
        snapshots = self.store.snapshot_recorder
        if snapshots is None:
            return found
        after, latest = 0, None
        while True:  # a few at a time: each holds the whole state, so all of them at 50k events are gigabytes
            rows = snapshots.select_events(cid, gt=after, limit=16)
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

    def rows(self, cid, page: int, after: int | None = None) -> "Rows":
        """Every stored event of the campaign in order (`after`: those after that version), a page of `page` rows
        per SELECT, each as its stored bytes (`stream.Raw`, decoded by the audit as it reads it) or, if even those
        cannot be read, as a damaged `Logged`. Iterated as a generator: what it has given is not held here."""
        return Rows(self, cid, page, after)

    def _rows(self, cid, page: int, after: int | None = None):
        from .stream import Raw

        while True:
            rows = self.recorder.select_events(cid, gt=after, limit=page)
            for stored in rows:
                try:
                    data = self.mapper.decode_state(stored)
                except Exception as e:  # noqa: BLE001
                    yield Logged(stored.originator_version, None, "", "", stored.topic, None, str(e))
                    continue
                yield Raw(stored.originator_version, sys.intern(stored.topic), data)
            if len(rows) < page:
                return
            after = rows[-1].originator_version
            del rows

    def logged(self, stored) -> Logged:
        """One stored event as read back (a damaged row is a finding, not a crash)."""
        try:
            state = self.mapper.decode_state(stored)
        except Exception as e:  # noqa: BLE001
            return Logged(stored.originator_version, None, "", "", stored.topic, None, str(e))
        return read_logged(stored.originator_version, stored.topic, state)


signatures = lazy.module("cgledger.ledger.trust.signatures")  # loaded at the first event checked


def _checked(cid, campaign: CampaignState, event, at_mark: bool, verifier: "_Signatures") -> tuple[str, str] | None:
    """An event past what this machine checked: it follows the one before, its digest covers its content, its author
    is right, and its signature is handed to `verifier` (named by `verifier.failed()`). The marked event is checked
    again too (one event): an edit of its content that leaves its stored digest in place is named, as it was while it
    lay after the latest snapshot. Its chain and digest only: the digest is the one this machine verified the
    signature of (the mark holds it), and the signature covers that digest. (kind, message) as the audit names it."""
    if event.prev != campaign.head:
        return "chain", "it does not follow the event before it: the log was rewritten"
    logged = Logged(event.originator_version, event.timestamp, event.prev, event.digest, TAGS[type(event.fact)],
                    event.fact, "", event.author, event.signature, event.command, event.form, event.request)
    if chain.event_digest(cid, logged) != event.digest:
        return "tampered", "it was altered after it was recorded"
    if at_mark:
        return None
    found = signatures.author_check(campaign, event.fact, logged)
    if isinstance(found, signatures.Signed):
        verifier.add(event.originator_version, found)
        return None
    return found[0] if found else None


class _Signatures:
    """The Ed25519 checks of the events a read checks, handed to the audit's `signatures.Verifier`, made at the first
    signature (a campaign without keys loads no cryptography): in line for a short stretch, shared with a child
    process on another CPU for a long one (the first read on a new machine, a big bundle received), as the audit's."""

    def __init__(self, size: int):
        self.size, self.verifier = size, None

    def add(self, number: int, signed) -> None:
        if self.verifier is None:
            from ..trust.signatures import Verifier

            self.verifier = Verifier("auto", self.size)
        self.verifier.add(signed.public, signed.digest, signed.signature, (number, signed))

    def failed(self) -> list:
        return self.verifier.failed() if self.verifier is not None else []

    def close(self) -> None:
        if self.verifier is not None:
            self.verifier.close()


class Rows:
    """`Loader.rows`: the stored events in order when iterated; `size`, before that, the last stored version (one
    indexed query): how long the log is, for the audit to decide where it verifies signatures. Only a hint: a writer
    may add events in between, and the events read are the ones counted."""

    def __init__(self, loader: Loader, cid, page: int, after: int | None = None):
        self._loader, self._cid, self._page, self._after = loader, cid, page, after

    def __iter__(self):
        return self._loader._rows(self._cid, self._page, self._after)

    @property
    def size(self) -> int:
        last = self._loader.recorder.select_events(self._cid, desc=True, limit=1)
        return last[0].originator_version if last else 0
