"""The page's audit after every move: kept in the server's process and carried on from where it last audited the log
whole (`audit --kept`, ledger/audit/replay.py `Continued`), it reports exactly what the whole audit from the first event
reports, after each command of a campaign played on, a forged event included; a log replaced under it (another
head at the event it stopped at) is audited from the first event again."""

from __future__ import annotations

from cgledger.ledger.application import open_ledger
from cgledger.ledger.audit.replay import Continued

from test_audit import record
from test_guidance import paste


def _same(db) -> dict:
    ledger = open_ledger(str(db))
    whole, kept = ledger.verification.audit(None), ledger.verification.audit(None, kept=True)
    assert kept == whole, (kept, whole)
    return {"events": whole.events, "clean": whole.clean}


def test_the_kept_audit_reports_what_the_whole_audit_reports_after_every_command(kgp):
    Continued.KEPT.clear()
    seen = []
    for _ in range(60):  # the campaign played on the lines `status` gives, audited after each
        status = kgp.json("status")
        line = status["needs"][0]["command"] if status["needs"] else "cgledger step next"
        paste(kgp, line)
        seen.append(_same(kgp.db))
    assert seen[-1]["events"] > seen[0]["events"] and all(s["clean"] for s in seen)
    key = next(iter(Continued.KEPT))
    assert Continued.KEPT[key].since > 0  # carried on, not started again


def test_a_forged_event_is_named_by_the_kept_audit_as_by_the_whole(kgp):
    Continued.KEPT.clear()
    kgp.to("8.610", "19 PM")
    assert _same(kgp.db)["clean"]
    record(kgp.db, final=9)  # a roll whose Final its dice and DRMs do not make, as a forger would write it
    assert not _same(kgp.db)["clean"]


def test_a_log_that_no_longer_holds_where_the_kept_audit_stopped_is_audited_from_the_first_event(kgp):
    """The kept audit carries on only while the stored log still holds the event it stopped at, with its digest."""
    from cgledger.ledger.trust.chain import campaign_id

    Continued.KEPT.clear()
    kgp.to("8.611", "19 PM")
    ledger = open_ledger(str(kgp.db))
    store = ledger.store
    cid = campaign_id(store.resolve_name(None))

    def kept(digest_at):
        return Continued.of(("test", str(cid)), cid, lambda after: store.loader.rows(cid, 100, after),
                            store.snapshots_of(None), digest_at)

    first = kept(lambda v: None)
    assert first.since == 0
    same = kept(lambda v: first.replay.kept.head[1])  # the log still holds it: carried on
    assert same is first and same.since == first.replay.kept.head[0]
    other = kept(lambda v: "another log's digest")  # rewritten or replaced: from the first event again
    assert other is not first and other.since == 0 and other.report(False) == ledger.verification.audit(None)
