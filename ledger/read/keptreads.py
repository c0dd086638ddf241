"""The read views kept current: roster, RG record, dice statistics, the history's story and each
Map Group's Setup Areas read
from views this machine keeps (ledger/read/views.py stores and seals them, projections/kept.py folds them), caught up
with the events recorded since; writes and imports advance the views that were current. Composed into the
application service; `--as-of` reads, and a machine that can keep no views, read the whole log (`read`)."""

from __future__ import annotations

from .. import rules as rulesmod
from ..errors import DatabaseError, LedgerError
from ..store.reading import collector_paused
from ..decide import steps
from ..domain import timeline
from ..domain.evolve import fold
from ..domain.timeline import effective


def read(store, keyring, name: str | None, as_of: str | None = None, raw: bool = False):
    """(events, rules, state) of the campaign, as of the end of a CG Date's RePh if given, read from the whole log.
    The events are those the projections read (revealed Secret rolls, and those the key given opens, stand as
    rolls) unless `raw`."""
    logged = store.history(name)
    try:  # its latest snapshot and the events after it: no replay of the whole log (the audit compares both)
        state = store.campaign(name) if as_of is None else fold(logged)
    except LedgerError:  # a damaged log: what can be read of it
        state = fold(logged)
    if state is None:
        raise DatabaseError("the campaign log has no readable CampaignStarted event: run `cgledger audit`")
    rules = rulesmod.for_campaign(state)
    if as_of is not None:
        logged = timeline.as_of(logged, as_of, rules.calendar)
        state = fold(logged)
        rules = rulesmod.for_campaign(state)
    if not raw:
        logged = effective(logged, keyring.opened(state, rules, logged) if state.sealed or state.secret_rgs else None)
    return logged, rules, state


class KeptReads:
    """The kept reads of one database's campaigns (`store`) as the key given (`books.keyring`) opens them."""

    def __init__(self, store, books):
        self.store = store
        self.books = books

    def read(self, name: str | None, as_of: str | None = None):
        return read(self.store, self.books.keyring, name, as_of)

    def rosters(self, name: str | None, as_of: str | None = None):
        """(each side's CG Roster rows, rules, state), from the kept view unless `as_of`."""
        from cgledger.projections import kept
        from cgledger.projections.roster import rosters

        return self._one(name, as_of, "roster", rosters, kept.finish_roster)

    def rg_records(self, name: str | None, as_of: str | None = None):
        """(each side's RG Purchase Record, rules, state), from the kept view unless `as_of`."""
        from cgledger.projections import kept
        from cgledger.projections.rg_record import rg_records

        return self._one(name, as_of, "rg", rg_records, kept.finish_rg)

    def areas(self, name: str | None, group: str, as_of: str | None = None):
        """(the Map Group's Setup Areas as determined now, rules, state): `areas`, `map` and the web's map page, from
        the kept view unless `as_of`."""
        from cgledger.projections import kept
        from cgledger.projections.areas import areas_as_of, check_determined

        def whole(logged, rules):
            check_determined(rules, group)
            return areas_as_of(logged, rules, group)

        return self._one(name, as_of, kept.AREAS + group, whole,
                         lambda view, rules: kept.finish_areas(view, rules, group))

    def _one(self, name, as_of, view: str, whole, finish):
        """(a view finished, rules, state): from the kept view, or from the whole log by `whole` (`as_of`, or no view
        can be kept)."""
        found = self._kept(name, (view,)) if as_of is None else None
        if found is None:
            logged, rules, state = self.read(name, as_of)
            return whole(logged, rules), rules, state
        views, rules, state = found
        return finish(views[view], rules), rules, state

    def dice_stats(self, name: str | None, side: str | None = None, as_of: str | None = None):
        """(the dice statistics, of one side if given, rules, state), from the kept view unless `as_of`."""
        from cgledger.projections import dice_stats

        found = self._kept(name, ("dice",)) if as_of is None else None
        if found is None:
            logged, rules, state = self.read(name, as_of)
            view = dice_stats.fold(logged)
        else:
            views, rules, state = found
            view = views["dice"]
        from ..decide.witness import unwitnessed_events

        return dice_stats.finish(view, rules.side(side) if side else None, unwitnessed_events(state)), rules, state

    def history(self, name: str | None, as_of: str | None = None):
        """(the campaign's story, rules, state): `history` and `report`, from the kept views unless `as_of`."""
        from cgledger.projections import history, kept

        found = self._kept(name, ("roster", "rg", "dice", "story")) if as_of is None else None
        if found is None:
            logged, rules, state = self.read(name, as_of)
            return history.history(logged, rules, state), rules, state
        views, rules, state = found
        return history.compose(kept.finish_roster(views["roster"], rules), kept.finish_rg(views["rg"], rules),
                               views["dice"], views["story"], rules, state), rules, state

    def final(self, name: str | None):
        """(the CG's end or the result so far, rules): the rosters from the kept view."""
        from cgledger.projections.final import final_result

        books, rules, state = self.rosters(name)
        return final_result(None, rules, state, steps.campaign_over(rules, state), books=books), rules

    def _reader(self, campaign, rules, derive: bool = True) -> tuple[str, bytes | None]:
        """Whose sealed rolls and purchases a read opens: (the side whose key was given, its key) while there are
        sealed ones to open, else ('', None): the view every reader without a key gets. `derive`: False uses only
        keys this process has already stretched (a write must not pay scrypt for its views)."""
        from ..trust.secrets import key_check

        if not (campaign.sealed or campaign.secret_rgs) or self.books.keyring.material is None or not campaign.keys:
            return "", None
        if derive:
            side = self.books.keyring.opens(campaign)
        else:
            known = self.books.keyring.stretched()
            side = next((s for s, k in campaign.keys.items()
                         if k["salt"] in known and key_check(known[k["salt"]]) == k["check"]), None)
        return (side, self.books.keyring.key(campaign, rules, side)) if side else ("", None)

    def _view_parts(self, campaign, reader: str) -> tuple:
        from cgledger.projections import kept

        from . import views

        return (self.store.where, self.store.seen_key(campaign.id), reader,
                views.rules_key(campaign.system, campaign.override_sources(), views.code_digest(*kept.MODULES)))

    def _effective(self, campaign, rules, logged) -> list:
        """The events as the projections read them (as `read` gives them)."""
        return effective(logged, self.books.keyring.opened(campaign, rules, logged)
                         if campaign.sealed or campaign.secret_rgs else None)

    def _view_tail(self, cid, version: int, digest: str) -> list | None:
        """The stored events after `version` if event `version` is still the one of that digest, else None."""
        with collector_paused():
            rows = [self.store.loader.logged(stored) for stored in self.store.recorder.select_events(cid, gt=version - 1)]
        if not rows or rows[0].version != version or rows[0].digest != digest:
            return None
        return rows[1:]

    def _kept(self, name: str | None, wanted: tuple[str, ...]):
        """({view: its state}, rules, state) from the views kept on this machine, each caught up with the events
        recorded since: folded in, or, where one of them changes what earlier events mean (an undo, a rewind, a
        reveal), folded from a checkpoint kept before what it changes, else from the whole log; then kept. None where
        no view can be kept (no machine secret, no database path, a campaign that cannot be loaded): the caller reads
        the whole log."""
        from cgledger.projections import kept

        from . import views

        if not self.store.where or not views.available():
            return None
        try:
            campaign = self.store.campaign(name)
        except LedgerError:
            return None
        rules = rulesmod.for_campaign(campaign)
        reader, key = self._reader(campaign, rules)
        base = self._view_parts(campaign, reader)
        out: dict = {}
        tails: dict = {}
        whole = None
        for view in wanted:
            parts = (*base, view)
            state, at, before = None, None, None
            found = views.load(parts)
            data = self._opened(found, key)
            if data is not None:
                version, digest = found[0], found[1]
                tail = self._tail(tails, campaign.id, version, digest)
                if tail is not None and not tail:
                    out[view] = data
                    continue
                if tail and not any(kept.disturbs(view, e.fact, rules) for e in tail):
                    before = (found, {"checkpointed": data.get("checkpointed", 0)})
                    state = kept.advance(view, data, self._effective(campaign, rules, tail), rules)
                    at = (tail[-1].version, tail[-1].digest)
            if state is None:
                state, at = self._from_checkpoint(campaign, rules, parts, key, tails)
            if state is None:
                if whole is None:
                    raw = self.store.history(campaign.name)
                    whole = kept.Whole(self._effective(campaign, rules, raw), rules), (raw[-1].version, raw[-1].digest)
                logged = whole[0].logged
                keep = len(logged) - views.CHECKPOINT_EVERY if len(logged) > 2 * views.CHECKPOINT_EVERY else 0
                state, checkpoint = kept.build(view, logged, rules, keep, whole[0])
                at = whole[1]
                if checkpoint is not None:
                    mark = logged[keep - 1]
                    views.keep_checkpoint(parts, mark.version, mark.digest, self._sealed(checkpoint, key))
                    state["checkpointed"] = mark.version
            self._store(parts, at, state, key, before)
            out[view] = state
        return out, rules, campaign

    def _from_checkpoint(self, campaign, rules, parts: tuple, key, tails: dict):
        """(the view, (version, digest) of the log's head) folded from the latest checkpoint that every event since
        allows (kept.resumes), or (None, None)."""
        from cgledger.projections import kept

        from . import views

        for version, digest, body in views.checkpoints(parts):
            data = self._opened((version, digest, body), key)
            tail = self._tail(tails, campaign.id, version, digest) if data is not None else None
            if tail and all(kept.resumes(parts[-1], data, version, e, rules) for e in tail):
                state = kept.advance(parts[-1], data, self._effective(campaign, rules, tail), rules)
                return state, (tail[-1].version, tail[-1].digest)
        return None, None

    def _store(self, parts: tuple, at: tuple, state: dict, key, before=None) -> None:
        """The view kept as of event `at`; `before` (the stored view it was advanced from, and its state) is kept as
        a checkpoint, one every so many events."""
        from cgledger.projections import kept

        from . import views

        if before is not None:
            (version, digest, body), old = before
            if version - old.get("checkpointed", 0) >= views.CHECKPOINT_EVERY:
                views.keep_checkpoint(parts, version, digest, body)
                state["checkpointed"] = version
        views.store(parts, *at, self._sealed(kept.encode(state), key))

    @staticmethod
    def _opened(found, key):
        """A stored view's state, opened with the reader's key where it was sealed with it; None if it cannot be."""
        from cgledger.projections import kept

        from ..trust.secrets import unseal_bytes

        if found is None:
            return None
        body = found[2]
        try:
            return kept.decode(body if key is None else unseal_bytes(key, body.decode("ascii")))
        except Exception:  # noqa: BLE001 - never trusted, never an error: folded again
            return None

    @staticmethod
    def _sealed(body: bytes, key) -> bytes:
        from ..trust.secrets import seal_bytes

        return body if key is None else seal_bytes(key, body).encode("ascii")

    def _tail(self, tails: dict, cid, version: int, digest: str) -> list | None:
        if (version, digest) not in tails:
            tails[version, digest] = self._view_tail(cid, version, digest)
        return tails[version, digest]

    def advance(self, campaign, new: list, cid=None, first: int = 0) -> None:
        """After a save or an import: each kept view that was current just before these events has them folded in
        (cheap); a view that was not, or that one of them disturbs, is left for the next read to bring up to date
        (a write never pays a fold of the whole log). Never fails the write."""
        from cgledger.projections import kept

        from . import views

        try:
            if not self.store.where or not views.folder().is_dir() or not views.available():
                return
            if campaign is None:  # an import: its events as stored, and the campaign after them
                with collector_paused():
                    new = [self.store.loader.logged(s) for s in self.store.recorder.select_events(cid, gt=first - 1)]
                campaign = self.store.rebuild(cid)
            if not new:
                return
            rules = rulesmod.for_campaign(campaign)
            side, key = self._reader(campaign, rules, derive=False)
            readers = [("", None)] + ([(side, key)] if side else [])
            for reader, key in readers:
                base = self._view_parts(campaign, reader)
                opened = None
                for view in kept.names(rules):
                    parts = (*base, view)
                    found = views.load(parts)
                    if found is None or found[0] != new[0].version - 1 or found[1] != new[0].prev \
                            or any(kept.disturbs(view, e.fact, rules) for e in new):
                        continue
                    data = self._opened(found, key)
                    if data is None:
                        continue
                    if opened is None:
                        opened = self._effective(campaign, rules, new) if reader else effective(new)
                    before = (found, {"checkpointed": data.get("checkpointed", 0)})
                    state = kept.advance(view, data, opened, rules)
                    self._store(parts, (new[-1].version, new[-1].digest), state, key, before)
        except Exception:  # noqa: BLE001 - a view is only ever a shortcut: the next read folds it again
            return
