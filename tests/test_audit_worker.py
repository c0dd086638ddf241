"""The audit with its signatures verified on a worker thread and its log streamed from the stored rows:
the same findings, in the same order and words, as the audit verifying in line over the decoded log."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import msgspec
import pytest

from cgledger.ledger.application import open_ledger
from cgledger.ledger.audit.checks import sources_of
from cgledger.ledger.audit.replay import audit
from cgledger.ledger.trust.chain import campaign_id
from cgledger.ledger.store.reading import collector_paused
from conftest import Cli, sql
from test_cgs import fortified, fresh, keyed  # noqa: F401  (fixtures)

BENCH = Path(__file__).resolve().parent.parent / "bench"
SIZE = 3000


@pytest.fixture(scope="module")
def long_log(tmp_path_factory) -> Path:
    """The shipped KGP sample, both sides' keys, then signed rolls up to SIZE events (as bench_cli.py builds it)."""
    sys.path.insert(0, str(BENCH))
    try:
        import bench_cli
    finally:
        sys.path.remove(str(BENCH))
    folder = tmp_path_factory.mktemp("long")
    return bench_cli.build(folder, [SIZE])[SIZE]


def reports(db: Path):
    """The audit five ways: stored rows streamed, verified in a child process, on a thread and in line; the decoded
    log, verified in a child process and in line."""
    ledger = open_ledger(str(db))
    try:
        name = ledger.resolve_name(None)
        cid = campaign_id(name)
        snapshots = ledger.store.snapshots_of(name)
        with collector_paused():
            found = [audit(cid, ledger.store.loader.rows(cid, ledger.store.READ_PAGE), snapshots, worker=worker)
                     for worker in ("process", "thread", None)]
            logged = ledger.history(None)
            found += [audit(cid, logged, snapshots, worker=worker) for worker in ("process", None)]
        return found, logged
    finally:
        ledger.close()


def tampered(long_log: Path, tmp_path: Path, change) -> tuple[Path, list[int]]:
    """A copy of the long log with `change(data)` made to the stored JSON of a signed roll early in it, in the middle
    and at its end."""
    db = tmp_path / "tampered.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{long_log}{suffix}").exists():
            shutil.copy(f"{long_log}{suffix}", f"{db}{suffix}")
    stored = sql(db, "SELECT originator_version, state FROM {events} ORDER BY originator_version")
    signed = [(v, s) for v, s in stored if msgspec.json.decode(bytes(s)).get("signature")]
    chosen = [signed[5], signed[len(signed) // 2], signed[-1]]
    for version, state in chosen:
        data = msgspec.json.decode(bytes(state))
        change(data)
        sql(db, "UPDATE {events} SET state=? WHERE originator_version=?", (msgspec.json.encode(data), version))
    return db, [v for v, _s in chosen]


def flip(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def forged_signature(data: dict) -> None:
    data["signature"] = flip(data["signature"])


def broken_chain(data: dict) -> None:
    data["prev"] = flip(data["prev"])


def wrong_result(data: dict) -> None:
    data["fact"]["result"] = "a result no table gives"


@pytest.mark.parametrize("change, kind, words", [
    (forged_signature, "signature", "signature does not verify: forged, or altered after it was signed"),
    (broken_chain, "chain", "the log was reordered or rewritten"),
    (wrong_result, "result", "the table gives"),
])
def test_a_problem_early_in_the_middle_and_at_the_end_is_found_the_same_with_the_worker(long_log, tmp_path, change,
                                                                                       kind, words):
    db, versions = tampered(long_log, tmp_path, change)
    (streamed, *others), _logged = reports(db)
    assert all(other == streamed for other in others)  # every finding, in order, in the same words
    for version in versions:
        assert any(f.version == version and f.kind == kind and words in f.message for f in streamed.findings), \
            (version, streamed.findings)
    assert streamed.events == SIZE and streamed.head[0] == SIZE
    done = Cli(db)("audit")  # the command as players run it names each one
    assert done.exit_code == 1
    for finding in streamed.findings:
        assert finding.line() in done.stdout


def test_a_clean_long_log_reports_the_same_with_the_worker_and_without(long_log):
    (streamed, *others), logged = reports(long_log)
    assert streamed.clean and streamed.events == SIZE and streamed.rolls > SIZE // 2
    assert all(other == streamed for other in others)
    assert dict(streamed.sources) == sources_of(logged)  # counted as the audit goes: the whole-log definition's


def test_a_log_with_map_decisions_reads_the_same_past_streamed(fortified):  # noqa: F811
    """Placing reads the map (the log before it): streamed, that past is decoded again on each read, then kept
    decoded after a few (audit.Past); the report is the decoded log's."""
    fortified.ok("remove", "wire", "DTW-H20", "--by", "fire")
    (streamed, *others), _logged = reports(fortified.db)
    assert streamed.clean
    assert all(other == streamed for other in others)


def test_the_past_read_again_from_the_store_is_the_past_given(fortified):  # noqa: F811
    """The audit does not hold the log it has read when the store can give it again: each read of the past reads the
    store's first rows again, and from the DECODE_AFTER-th read on keeps them. Every read gives the events a kept
    past gives, in the same order, whole."""
    from cgledger.ledger.store.stream import Events, Past

    fortified.ok("remove", "wire", "DTW-H20", "--by", "fire")
    ledger = open_ledger(str(fortified.db))
    try:
        cid = campaign_id(ledger.resolve_name(None))
        rows = ledger.store.loader.rows(cid, 7)  # a page smaller than the log: the rows come in several SELECTs
        again, kept = Events(rows), Events(list(rows))
        reads = 0
        for n, (event, same) in enumerate(zip(again, kept), 1):
            assert event == same
            reads += 1  # every event: more reads than DECODE_AFTER
            assert list(again.past) == list(kept.past) and len(again.past) == n - 1, n
        assert reads > Past.DECODE_AFTER and next(iter(again), None) is None
    finally:
        ledger.close()


def test_a_row_changed_while_the_log_is_audited_stops_the_audit(fortified):  # noqa: F811
    """The past read again from the store is the past the audit read: a row changed in between (a shared database
    written to while it is audited) is named, never decided on."""
    from cgledger.ledger.store.stream import Events, LogChanged

    db = fortified.db
    ledger = open_ledger(str(db))
    try:
        cid = campaign_id(ledger.resolve_name(None))
        events = Events(ledger.store.loader.rows(cid, 7))
        read = [event for _n, event in zip(range(6), events)]
        assert len(list(events.past)) == 5
        version = read[2].version
        (data,) = sql(db, "SELECT state FROM {events} WHERE originator_version = ?", (version,))[0]
        sql(db, "UPDATE {events} SET state = ? WHERE originator_version = ?",
            (bytes(data).replace(b'"action":', b'"action": '), version))
        with pytest.raises(LogChanged, match=f"event {version} changed while the log was audited"):
            list(events.past)
    finally:
        ledger.close()


def test_each_worker_gives_the_in_line_outcome_of_odd_signature_texts():
    """The child takes only plain hex; texts `bytes.fromhex` reads otherwise (spaces, upper case) or refuses are
    checked in line: every outcome is `secrets.verify`'s."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from cgledger.ledger.trust.secrets import verify
    from cgledger.ledger.trust.signatures import Verifier

    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    digest = "ab" * 32
    good = key.sign(bytes.fromhex(digest)).hex()
    cases = [(public, digest, good), (public, digest, flip(good)), (public, digest, good[:64] + " " + good[64:]),
             (public, digest, "zz"), (public[:10], digest, good), (public, digest, good + "0"),
             (public.upper(), digest, good.upper()), (public, digest, "")] * 20  # more than a batch
    expected = [n for n, case in enumerate(cases) if not verify(*case)]
    for worker in ("process", "thread", None):
        verifier = Verifier(worker)
        assert worker != "process" or verifier.ready(30)  # the child's checks are the ones compared
        for n, case in enumerate(cases):
            verifier.add(*case, n)
        assert sorted(verifier.failed()) == expected, worker


def test_a_cryptography_beside_the_campaign_cannot_answer_for_the_child(long_log, tmp_path, monkeypatch):
    """The child that verifies signatures runs isolated (python -I): a `cryptography` package in the working folder
    or on PYTHONPATH (say, a file the other player sent, saved beside the campaign) that would call every signature
    valid is not imported; the forged signatures are still found."""
    db, versions = tampered(long_log, tmp_path, forged_signature)
    fake = tmp_path / "planted" / "cryptography"
    (fake / "hazmat" / "primitives" / "asymmetric").mkdir(parents=True)
    for folder in (fake, fake / "hazmat", fake / "hazmat" / "primitives", fake / "hazmat" / "primitives" / "asymmetric"):
        (folder / "__init__.py").write_text("")
    (fake / "exceptions.py").write_text("class InvalidSignature(Exception):\n    pass\n")
    (fake / "hazmat" / "primitives" / "asymmetric" / "ed25519.py").write_text(
        "class Ed25519PublicKey:\n"
        "    @classmethod\n"
        "    def from_public_bytes(cls, data):\n"
        "        return cls()\n"
        "    def verify(self, signature, data):\n"
        "        return None  # every signature 'valid'\n")
    monkeypatch.chdir(fake.parent)
    monkeypatch.setenv("PYTHONPATH", str(fake.parent))
    (streamed, *others), _logged = reports(db)
    assert all(other == streamed for other in others)
    for version in versions:
        assert any(f.version == version and f.kind == "signature" for f in streamed.findings), version


def signed_cases(count: int, forged: set[int]) -> list[tuple[str, str, str]]:
    """`count` (public, digest, signature) texts of one key, those numbered in `forged` with a signature flipped."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    cases = []
    for n in range(count):
        digest = f"{n:064x}"
        signature = key.sign(bytes.fromhex(digest)).hex()
        cases.append((public, digest, flip(signature) if n in forged else signature))
    return cases


def verifier_children() -> list[int]:
    """The verifying child processes of this process (Linux /proc): their pids."""
    found = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids = (task / "children").read_text().split()
        except OSError:  # a thread that ended while the tasks were listed (the child's reader, reaping it)
            continue
        for pid in pids:
            try:
                if b"Ed25519PublicKey" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def children_gone() -> bool:
    """No verifying child left, within 10 s: stopped, it is reaped by its reader thread, not waited for."""
    import time

    deadline = time.monotonic() + 10
    while verifier_children() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not verifier_children()


def test_forged_signatures_in_batches_taken_back_from_the_child_are_found():
    """At the end the caller checks itself the batches the child has not answered yet (the newest first) rather than
    wait: a forged signature there, in the first batch (the child's) and in a partial last batch is found the same."""
    from cgledger.ledger.trust.signatures import Verifier

    size = Verifier.BATCH * 40 + 5  # more batches than may wait for the child (a long backlog is checked here too)
    forged = {3, Verifier.BATCH * 10 + 1, size - 1}
    verifier = Verifier("process")
    assert verifier.ready(30)
    for n, case in enumerate(signed_cases(size, forged)):
        verifier.add(*case, n)
    assert sorted(verifier.failed()) == sorted(forged)
    assert verifier.taken_back >= 1
    assert children_gone()


def test_a_child_that_dies_midway_leaves_its_checks_to_the_caller():
    from cgledger.ledger.trust.signatures import Verifier

    cases = signed_cases(Verifier.BATCH * 12, forged := {2, Verifier.BATCH * 5, Verifier.BATCH * 11 + 7})
    verifier = Verifier("process")
    assert verifier.ready(30)
    for n, case in enumerate(cases[:Verifier.BATCH * 6]):
        verifier.add(*case, n)
    children = verifier_children()
    assert len(children) == 1
    os.kill(children[0], signal.SIGKILL)  # gone with batches sent and not answered
    for n, case in enumerate(cases[Verifier.BATCH * 6:], start=Verifier.BATCH * 6):
        verifier.add(*case, n)
    assert sorted(verifier.failed()) == sorted(forged)
    assert not verifier.ready()


def test_a_short_log_is_verified_in_line_and_a_long_one_shares_with_the_child(fresh, keyed):  # noqa: F811
    """Both sides' keys registered (their events signed), "auto" starts no child below CHILD_FROM events (it would
    barely be ready before the audit is done); the length comes from the store before the rows are read."""
    from cgledger.ledger.trust.signatures import Verifier, cpus

    ledger = open_ledger(str(fresh.db))
    try:
        rows = ledger.store.loader.rows(campaign_id(ledger.resolve_name(None)), ledger.store.READ_PAGE)
        assert 0 < rows.size == len(list(rows)) < Verifier.CHILD_FROM
    finally:
        ledger.close()
    assert Verifier("auto", Verifier.CHILD_FROM - 1).worker is None
    for size in (Verifier.CHILD_FROM, None):  # None: not known
        verifier = Verifier("auto", size)
        assert verifier.worker == ("process" if cpus() > 1 else None)
        verifier.close()
    (streamed, *others), _logged = reports(fresh.db)
    assert all(other == streamed for other in others)
    assert children_gone()
