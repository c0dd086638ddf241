"""PBEM: export the events the opponent lacks, import them after checking the hash chain."""

from __future__ import annotations

import json

import pytest

from conftest import Cli


@pytest.fixture
def pair(at, make_db):
    """The German's ledger (a campaign at 8.610) and the U.S. player's, which got it all by email."""
    return at("8.610"), Cli(make_db())


def send(sender: Cli, tmp_path, name: str, since: str):
    path = tmp_path / name
    sender.ok("export", "--since", since, str(path))
    return path


def test_a_whole_campaign_by_email(pair, tmp_path):
    german, us = pair
    first = send(german, tmp_path, "all.json", since="0")
    imported = us.json("import", str(first))
    assert imported["imported"] == german.events() and imported["head"] == german.ok("head").stdout.strip()
    # the U.S. player rolls; the German asks for what he lacks, with his own head
    us.ok("roll", "8.610", "--side", "us", "--dice", "2")
    back = tmp_path / "back.json"
    us.ok("export", "--since", german.ok("head").stdout.strip(), str(back))
    german.ok("import", str(back))
    assert german.ok("head").stdout == us.ok("head").stdout
    assert german("audit").exit_code == 0 and us("audit").exit_code == 0
    before = us.events()
    again = us("import", str(back))  # the same bundle again (a retry): nothing written, nothing wrong
    assert again.exit_code == 0 and "nothing new in the bundle" in again.stdout and us.events() == before
    assert us.json("import", str(back))["imported"] == 0


def bundle_of(german, tmp_path, name="b.json", since="0"):
    path = tmp_path / name
    german.ok("export", "--since", since, str(path))
    return path, json.loads(path.read_text())


def write(path, data) -> None:
    path.write_text(json.dumps(data))


def test_a_tampered_bundle_is_refused(pair, tmp_path):
    german, us = pair
    path, data = bundle_of(german, tmp_path)
    roll = next(e for e in data["events"] if e["fact"]["type"] == "StepOpened")
    roll["fact"]["step"] = "8.611"
    write(path, data)
    us.refused("import", str(path), contains="was edited after it was recorded")
    assert us("log").exit_code == 1  # nothing imported: not even the campaign


def test_a_fact_with_a_field_no_decision_reads_is_refused(pair, tmp_path):
    """Words slipped into a fact beside its fields would travel signed and unread: the bundle is refused whole."""
    german, us = pair
    path, data = bundle_of(german, tmp_path)
    next(e for e in data["events"] if e["fact"]["type"] == "StepOpened")["fact"]["note"] = "meet me at StJ19"
    write(path, data)
    us.refused("import", str(path), contains="unknown field `note`")
    assert us("log").exit_code == 1


def test_a_command_id_is_no_channel_for_words(pair, tmp_path):
    """The command id travels signed in every event: a text no ledger writes in it is refused, given or received."""
    german, us = pair
    german.refused("--command-id", "meet me at StJ19, the Tiger is in the cellar", "step", "next", code=2,
                   contains="--command-id")
    path, data = bundle_of(german, tmp_path)
    data["events"][-1]["command"] = "x" * 81
    write(path, data)
    us.refused("import", str(path), contains="carries a command id no ledger writes")
    assert us("log").exit_code == 1
    # the audit names it as `import` refuses it: one decision of what a stored event may carry
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.domain.events import StepOpened

    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    campaign.record(StepOpened(action=campaign.next_action, step="8.611"), "", None, "words " * 20, None)
    ledger.store.save(campaign)
    assert "carries a command id no ledger writes" in german("audit").stdout


def test_a_reordered_bundle_is_refused(pair, tmp_path):
    german, us = pair
    path, data = bundle_of(german, tmp_path)
    data["events"][2], data["events"][3] = data["events"][3], data["events"][2]
    write(path, data)
    us.refused("import", str(path), contains="out of order")
    data["events"][2]["version"], data["events"][3]["version"] = data["events"][3]["version"], data["events"][2]["version"]
    write(path, data)
    us.refused("import", str(path), contains="does not follow event")


def test_a_forked_bundle_is_refused(pair, tmp_path):
    german, us = pair
    first, _data = bundle_of(german, tmp_path)
    us.ok("import", str(first))
    common = us.ok("head").stdout.strip()
    us.ok("roll", "8.610", "--side", "us", "--dice", "2")  # both record after the common head
    german.ok("roll", "8.610", "--side", "german", "--dice", "5")
    path = tmp_path / "fork.json"
    german.ok("export", "--since", common, str(path))
    before = us.events()
    us.refused("import", str(path), contains="forks history")
    assert us.events() == before
    german.refused("export", "--since", us.ok("head").stdout.strip(), str(tmp_path / "x.json"), contains="forked")


def test_a_bundle_that_skips_events_is_refused(pair, tmp_path):
    german, us = pair
    first, _data = bundle_of(german, tmp_path)
    us.ok("import", str(first))
    head = german.ok("head").stdout.strip()
    german.ok("roll", "8.610", "--side", "german", "--dice", "5", "--for", "9-1")
    german.ok("roll", "8.610", "--side", "german", "--dice", "4", "--for", "8-1")
    path, data = bundle_of(german, tmp_path, "skip.json", since=head)
    data["since"] += 1
    data["events"] = data["events"][1:]
    write(path, data)
    before = us.events()
    us.refused("import", str(path), contains="skips events")
    assert us.events() == before


def test_a_forged_roll_with_recomputed_digests_is_refused(pair, tmp_path):
    """A forger who edits a roll and recomputes the whole chain still fails the rules check."""
    from datetime import datetime

    import msgspec

    from cgledger.ledger.trust import chain
    from cgledger.ledger.store.campaign import campaign_id
    from cgledger.ledger.domain.commands import AnyCommand
    from cgledger.ledger.domain.events import AnyFact

    german, us = pair
    german.ok("roll", "8.610", "--side", "german", "--dice", "6")
    path, data = bundle_of(german, tmp_path)
    prev = chain.GENESIS
    cid = campaign_id(data["campaign"])
    for event in data["events"]:
        if event["fact"]["type"] == "DiceRolled" and event is data["events"][-1]:
            event["fact"]["result"], event["fact"]["code"] = "Retained unwounded", "unwounded"
        fact = msgspec.convert(event["fact"], AnyFact)
        event["prev"] = prev
        event["digest"] = chain.digest(cid, event["version"], datetime.fromisoformat(event["timestamp"]), prev, fact,
                                       fact.__struct_config__.tag, event["author"], event["command"], event["form"],
                                       msgspec.convert(event["request"], AnyCommand) if event.get("request") else None)
        prev = event["digest"]
    write(path, data)
    us.refused("import", str(path), contains="the rules do not bear out")


def test_malformed_bundles(pair, tmp_path):
    _german, us = pair
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    us.refused("import", str(bad), contains="is not a cgledger bundle")
    _german.refused("export", "--since", "x:y", str(tmp_path / "o.json"), contains="malformed fingerprint")
