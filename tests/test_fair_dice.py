"""Dice nobody can choose or foresee: each side commits to two reversed hash chains at `keys init`; a
roll is declared by its side (its roll-chain value published) and answered by the other side's ledger (its
answer-chain value); the dice come from both. A copied database rolls the same dice, nothing derived from a chain
is published before both commitments, the roller cannot know its dice before the answer, and the audit re-decides
every step. Each test fails if the check it names is removed."""

from __future__ import annotations

import json
from hashlib import sha256

import msgspec
import pytest

from conftest import Cli, Player, count_events, named_and_refused
from cgledger.ledger.trust import fairdice
from cgledger.ledger.application import open_ledger
from cgledger.ledger.decide import fair
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import ActionUndone, RollAnswered, RollDeclared, RollValuePublished
from cgledger.ledger.player.keyring import Keyring
from cgledger.ledger.trust.secrets import derive_key, unseal_bytes

GERMAN, US = "Peiper's own words", "Harrison's own words"


def keyed(cli):
    german, us, anyone = Player(cli.db, GERMAN), Player(cli.db, US), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    return german, us, anyone


@pytest.fixture
def table(at):
    """At 8.610 (Battle Hardening, a dr per unit): both sides have keys, and so have committed their chains."""
    return keyed(at("8.610"))


def rows(cli, kind=None):
    log = cli.json("log")
    return [r for r in log if kind is None or r["type"] == kind]


def audit(cli, *extra):
    result = cli("audit", "--json", *extra)
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report


def forge(db, fact_of, signer: str | None) -> None:
    """Writes straight into the store what a cheating player could: `fact_of(campaign)` signed with `signer`'s key."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    keyring = Keyring(signer.encode()) if signer else None
    side = keyring.opens(campaign) if keyring else ""
    campaign.record(fact_of(campaign), side, keyring.signer(campaign, rules, side) if keyring else None)
    ledger.store.save(campaign)


def test_keys_init_commits_two_chains_from_a_random_seed_sealed_with_the_sides_key(table, tmp_path):
    german, us, anyone = table
    commits = rows(anyone, "DiceCommitted")
    assert [(r["side"], r["author"], r["signed"]) for r in commits] == [("german", "german", True), ("us", "us", True)]
    ledger = open_ledger(str(anyone.db))
    state = ledger.campaign(None)
    seed = unseal_bytes(derive_key(GERMAN.encode(), state.keys["german"]["salt"]), state.chains["german"]["sealed"])
    assert len(seed) == 32 and fairdice.head(seed, "roll") == state.chains["german"]["roll_head"]
    with pytest.raises(Exception, match="does not open"):
        unseal_bytes(derive_key(US.encode(), state.keys["us"]["salt"]), state.chains["german"]["sealed"])
    # never derived from the passphrase: the same passphrase in another campaign commits to other chains
    other = Cli(tmp_path / "other.db")
    other.ok("new", "CG I", "--cg", "I")
    Player(other.db, GERMAN).ok("keys", "init", "--side", "german")
    heads = [r["roll_head"] for r in rows(other, "DiceCommitted")]
    assert heads and heads[0] != state.chains["german"]["roll_head"]
    assert anyone.json("status")["dice"] == "fair"


def test_an_open_roll_is_declared_and_the_other_sides_next_command_gives_its_dice(table):
    german, us, anyone = table
    declared = german.json("roll", "8.610", "--side", "german", "--for", "A")
    assert declared["declared"] and declared["waiting"] and declared["n"] == 1 and declared["dice"] is None and declared["result"] is None
    text = german("roll", "8.610", "--side", "german", "--for", "B").stdout
    assert "waiting for its dice" in text and "Final" not in text
    # the roller's ledger cannot make the roll: no dice anywhere, `answer` has nothing for it, status shows it waiting
    assert not rows(anyone, "DiceRolled")
    assert german.ok("answer").stdout.strip() == "nothing waits for your side"
    waiting = german.json("status")["waiting"]
    assert [(w["event"], w["side"], w["n"]) for w in waiting] == [(declared["id"], "german", 1),
                                                                  (declared["id"] + 1, "german", 2)]
    assert "waiting: 2 fair rolls of the German side on 8.610 wait for the U.S. side's answer" in german.ok("status").stdout
    german.refused("roll", "8.610", "--side", "german", "--for", "A", contains="rolled already")
    # each side walks the RePh (8.6): the German is done with its part of 8.610 and walks on alone; the campaign
    # stays in 8.610, where the U.S. side may still roll
    moved = german.json("step", "next")
    assert (moved["step"], moved["campaign_step"], moved["ahead"]) == ("8.611", "8.610", True)
    progress = anyone.json("status")["progress"]
    assert progress["german"]["ahead"] and progress["us"]["step"] == "8.610" and progress["us"]["may"]
    # any command with the U.S. key answers first
    assert us.json("status")["waiting"] == []
    answered = rows(anyone, "RollAnswered")
    rolled = rows(anyone, "DiceRolled")
    assert [(r["declared"], r["side"], r["n"], r["author"]) for r in answered] == [
        (declared["id"], "us", 1, "us"), (declared["id"] + 1, "us", 2, "us")]
    assert [(r["source"], r["fair"], r["author"], r["purpose"]) for r in rolled] == [
        ("fair", 1, "us", "A"), ("fair", 2, "us", "B")]
    first = rows(anyone, "RollDeclared")[0]
    assert tuple(rolled[0]["dice"]) == fairdice.faces(first["value"], answered[0]["value"], "CG I", "german", 1, "dr")
    report = audit(anyone)
    assert report["clean"] and report["sources"] == {"fair": 2} and report["pending"] == []
    stats = anyone.json("dice-stats")
    assert {(g["side"], g["source"]) for g in stats["groups"]} == {("german", "fair")}
    us.ok("step", "next")  # the need met: the step goes on


def copy_file(source, target) -> None:
    """What a player does to a SQLite file: a copy of it, taken whole (the WAL included)."""
    import sqlite3

    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


@pytest.mark.sqlite_only
def test_a_copied_database_rolls_the_same_dice(table, tmp_path):
    german, us, anyone = table
    copy = tmp_path / "copy.db"
    copy_file(german.db, copy)
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    us.ok("answer")
    dice = rows(anyone, "DiceRolled")[0]["dice"]
    for attempt in range(3):  # restoring the copy and rolling again gives the same dice, every time
        again = tmp_path / f"again{attempt}.db"
        copy_file(copy, again)
        Player(again, GERMAN).ok("roll", "8.610", "--side", "german", "--for", "A")
        Player(again, US).ok("answer")
        assert rows(Cli(again), "DiceRolled")[0]["dice"] == dice
    # an undone declaration's number is never used again: declaring anew is another roll, not the same one re-made
    german.ok("roll", "8.610", "--side", "german", "--for", "C")
    german.ok("undo")
    assert german.json("roll", "8.610", "--side", "german", "--for", "C")["n"] == 3


def test_nothing_derived_from_a_chain_is_published_before_both_commitments(at):
    cli = at("8.610")
    german, anyone = Player(cli.db, GERMAN), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german")
    # the U.S. has no key: its dice are immediate; a German declaration published now is named by the audit
    value = open_ledger(str(cli.db))
    state = value.campaign(None)
    early = Keyring(GERMAN.encode()).chain_value(state, value.rules_for(state), "german", "roll", 1)
    forge(cli.db, lambda c: RollDeclared(action=c.next_action, table="8.610", side="german", n=1, value=early,
                                         purpose="A", item="8.610|german|19 PM|a"), GERMAN)
    findings = audit(anyone)["findings"]
    assert [f["kind"] for f in findings] == ["decision"]
    assert "U.S. side has not committed its chains yet" in findings[0]["message"]


def test_an_answer_that_is_not_the_committed_value_and_chosen_dice_are_named(table, make_db, tmp_path):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    base = count_events(anyone.db)
    # the U.S. answers with a value of its choosing: the audit names it, and `import` refuses it
    forge(anyone.db, lambda c: RollAnswered(action=c.next_action, declared=base, side="us", n=1, value="ab" * 32), US)
    named_and_refused(anyone, Cli(make_db()), tmp_path, "decision", "does not hash to its head")


def test_fair_dice_of_its_choosing_are_named(table):
    """The answering side records the roll (a shared act): if it records other dice than the two values give, the
    audit names it."""
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    us.ok("answer")
    ledger = open_ledger(str(anyone.db))
    answered, honest = [e.fact for e in ledger.history(None)[-2:]]
    better = 6 if honest.dice[0] != 6 else 5
    forged = msgspec.structs.replace(honest, dice=(better,), original=better,
                                     final=better + sum(d.value for d in honest.drms))
    campaign = ledger.campaign(None)
    sign = Keyring(US.encode()).signer(campaign, ledger.rules_for(campaign), "us")
    # an undo never takes back a fair roll's answer: the U.S. side voids its own in the store, and answers again
    campaign.record(ActionUndone(action=campaign.next_action, undone=answered.action), "us", sign)
    action = campaign.next_action
    campaign.record(msgspec.structs.replace(answered, action=action), "us", sign)
    campaign.record(msgspec.structs.replace(forged, action=action), "us", sign)
    ledger.store.save(campaign)
    findings = audit(anyone)["findings"]
    assert any(f["kind"] == "fair" and "the two chain values give" in f["message"] for f in findings), findings


def test_a_secret_fair_roll_is_answered_made_sealed_and_proven_on_reveal(at):
    german, us, anyone = keyed(at("8.616", "19 PM"))
    declared = german.json("roll", "8.616", "--side", "german")
    assert declared["secret"] and declared["waiting"]
    assert rows(anyone, "RollDeclared")[0]["value"] == ""  # a Secret roll publishes its value only when revealed
    us.ok("status")  # answers
    assert [r["type"] for r in rows(anyone)[-2:]] == ["RollDeclared", "RollAnswered"]
    assert not rows(anyone, "SecretRollMade")
    waiting = anyone.json("status")["waiting"]
    assert [w["waiting_for"] for w in waiting] == ["the German side's ledger to make the Secret roll"]
    german.ok("status")  # the roller's ledger makes it, sealed
    made = rows(anyone, "SecretRollMade")
    assert [(m["side"], m["fair"]) for m in made] == [("german", 1)] and "dice" not in made[0]
    assert us.json("roster", "--side", "german")[-1]["repl"] is None
    repl = german.json("roster", "--side", "german")[-1]["repl"]
    assert repl is not None
    report = audit(anyone)
    assert report["clean"] and [u["version"] for u in report["unrevealed"]] == [made[0]["version"]]
    final = audit(anyone, "--final")
    assert [f["kind"] for f in final["findings"]] == ["pending"]
    us.refused("reveal", "--all", "--side", "german", contains="not the German side's")
    german.ok("reveal", "--all")
    assert [r["type"] for r in rows(anyone)[-2:]] == ["RollValuePublished", "SecretRollRevealed"]
    report = audit(anyone, "--final")
    assert report["clean"], report["findings"]
    assert anyone.json("roster", "--side", "german")[-1]["repl"] == repl


def test_pending_rolls_are_listed_and_a_problem_at_campaign_end(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    plain = anyone("audit")
    assert plain.exit_code == 0 and "pending: the German side's fair roll on 8.610 was never answered" in plain.stdout
    final = anyone("audit", "--final")
    assert final.exit_code == 1 and "at campaign end" in final.stdout


def test_dice_entered_stay_allowed_and_are_counted_apart(table):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--for", "A", "--dice", "3")
    german.ok("roll", "8.610", "--side", "german", "--for", "B")
    us.ok("answer")
    assert audit(anyone)["sources"] == {"entered": 1, "fair": 1}
    stats = anyone.json("dice-stats")
    assert sorted(g["source"] for g in stats["groups"]) == ["entered, not witnessed", "fair"]
    us.ok("witness", "--all")
    assert sorted(g["source"] for g in anyone.json("dice-stats")["groups"]) == ["entered", "fair"]


def test_pbem_the_declaration_travels_in_one_bundle_and_the_dice_in_the_next(at, make_db, tmp_path):
    cli = at("8.610")
    mine = tmp_path / "mine.json"
    cli.ok("export", "--since", "0", str(mine))
    theirs_db = make_db()
    Cli(theirs_db).ok("import", str(mine))
    german, us = Player(cli.db, GERMAN), Player(theirs_db, US)
    german.ok("keys", "init", "--side", "german")
    head = us.ok("head").stdout.strip()
    german.ok("export", "--since", head, str(mine))
    us.ok("import", str(mine))
    us.ok("keys", "init", "--side", "us")
    head = german.ok("head").stdout.strip()
    us.ok("export", "--since", head, str(mine))
    german.ok("import", str(mine))
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    head = us.ok("head").stdout.strip()
    german.ok("export", "--since", head, str(mine))
    us.ok("import", str(mine))
    assert [w["side"] for w in Cli(theirs_db).json("status")["waiting"]] == ["german"]
    us.ok("answer")
    head = german.ok("head").stdout.strip()
    us.ok("export", "--since", head, str(mine))
    german.ok("import", str(mine))
    assert rows(german, "DiceRolled")[0]["source"] == "fair"
    assert audit(german)["clean"] and german.ok("head").stdout == us.ok("head").stdout


def test_immediate_mode_is_chosen_before_the_keys(at):
    cli = at("8.610")
    anyone = Player(cli.db, None)
    anyone.refused("fair-dice", "mode", "chance", contains="is not one of", code=2)
    anyone.ok("fair-dice", "mode", "immediate")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.refused("keys", "init", "--side", "german", contains="--dice immediate")  # each key agrees by name
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    german.refused("fair-dice", "mode", "immediate", contains="only fair dice may be chosen now")
    # the key set up last fixes the dice: its side agrees to dice the other chose alone by name, or no key is set up
    before = len(rows(anyone, None))
    us.refused("keys", "init", "--side", "us", contains="--dice immediate")
    assert len(rows(anyone, None)) == before
    assert [m["command"] for m in us.json("status")["may"]][-2:] == ["cgledger keys init --side us --dice immediate",
                                                                     "cgledger fair-dice mode fair"]
    us.refused("keys", "init", "--side", "us", "--dice", "fair", contains="the campaign's dice are immediate")
    us.ok("keys", "init", "--side", "us", "--dice", "immediate")
    assert not rows(anyone, "DiceCommitted")
    rolled = german.json("roll", "8.610", "--side", "german", "--for", "A")
    assert rolled["source"] == "rng" and rolled["dice"]
    assert anyone.json("status")["dice"] == "immediate"
    us.refused("fair-dice", "mode", "fair", contains="fixed once both sides have keys")
    assert ": clean" in anyone.ok("audit").stdout


def test_dice_one_side_chose_alone_are_refused_by_the_other(at, tmp_path, make_db):
    """The creator chooses immediate dice before any key and sets up his own, agreeing to them; the other side takes
    fair dice back before his key. Each side's chains are then committed and every roll is fair (the trust model)."""
    cli = at("8.610")
    anyone = Player(cli.db, None)
    anyone.ok("fair-dice", "mode", "immediate")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    assert not rows(anyone, "DiceCommitted")
    us.ok("fair-dice", "mode", "fair")
    us.ok("keys", "init", "--side", "us")
    assert anyone.json("status")["dice"] == "fair"
    # by email the German's ledger takes it in: his chains are owed, no forgery (`audit --final` names them until made)
    bundle, copy = tmp_path / "b.json", Cli(make_db())
    anyone.ok("export", "--since", "0", str(bundle))
    copy.ok("import", str(bundle))
    assert any("never committed its chains" in p["what"] for p in audit(copy)["pending"])
    assert "cgledger fair-dice commit --side german" in [m["command"] for m in german.json("status")["may"]]
    german.ok("fair-dice", "commit", "--side", "german")  # its chains: it set up its key while the dice were not fair
    assert german.json("roll", "8.610", "--side", "german", "--for", "A")["source"] != "rng"
    assert {r["side"] for r in rows(anyone, "DiceCommitted")} == {"german", "us"}
    assert ": clean" in anyone.ok("audit").stdout


def test_a_weak_passphrase_is_refused(at):
    cli = at("8.610")
    Player(cli.db, "summer2024").refused("keys", "init", "--side", "german", contains="too weak")
    assert not rows(cli, "DiceCommitted")


# ---- 8.6232: Initiative chits chosen at the same time ---------------------------------------------------------
@pytest.fixture
def chits(at):
    return keyed(at("8.623", "19 PM"))


def test_each_side_seals_its_chit_and_the_matrix_resolves_once_both_are_revealed(chits):
    german, us, anyone = chits
    german.refused("initiative", "--chit", "german=attack", "--chit", "us=idle", contains="give only your own side's chit")
    anyone.refused("initiative", "--chit", "german=attack", contains="give its passphrase")
    us.refused("initiative", "--chit", "german=attack", contains="not the German side's")
    german.ok("initiative", "--chit", "german=attack")
    sealed = rows(anyone, "ChitSealed")
    assert [(r["side"], len(r["commitment"])) for r in sealed] == [("german", 64)] and "chit" not in sealed[0]
    assert "attack" not in json.dumps(sealed)
    german.refused("initiative", "--chit", "german=idle", contains="a sealed chit cannot be changed")
    german.ok("status")  # nothing to reveal before the U.S. chit is sealed
    assert not rows(anyone, "ChitRevealed")
    us.ok("initiative", "--chit", "us=idle")
    us.ok("status")  # the U.S. ledger reveals its chit
    assert [r["side"] for r in rows(anyone, "ChitRevealed")] == ["us"] and not rows(anyone, "InitiativeChosen")
    final = anyone("audit", "--final")
    assert final.exit_code == 1 and "sealed Initiative chit was never revealed" in final.stdout
    german.ok("status")  # the German ledger reveals its chit; the matrix resolves in the same action
    chosen = rows(anyone, "InitiativeChosen")
    assert [(r["chits"], r["scenario"]) for r in chosen] == [({"german": "attack", "us": "idle"}, "German Assault")]
    report = audit(anyone, "--final")
    assert report["clean"], report["findings"]


def test_a_chit_cannot_be_changed_after_the_other_is_revealed(chits, tmp_path, make_db):
    german, us, anyone = chits
    german.ok("initiative", "--chit", "german=idle")
    us.ok("initiative", "--chit", "us=attack")
    us.ok("status")  # the U.S. chit is revealed: the German now knows it
    # a German reveal of another chit than the one sealed: the audit names it, and `import` refuses it
    from cgledger.ledger.domain.events import ChitRevealed

    copy = make_db()
    bundle = tmp_path / "b.json"
    anyone.ok("export", "--since", "0", str(bundle))
    Cli(copy).ok("import", str(bundle))
    forge(copy, lambda c: ChitRevealed(action=c.next_action, side="german", chit="attack", salt="00" * 16), GERMAN)
    findings = audit(Cli(copy))["findings"]
    assert [f["kind"] for f in findings] == ["decision"] and "is not the one sealed" in findings[0]["message"]
    # sealing again is refused (the German ledger reveals the sealed chit first, and the matrix resolves)
    german.refused("initiative", "--chit", "german=attack", contains="already determined")
    german.ok("status")
    assert rows(anyone, "InitiativeChosen")[0]["chits"] == {"german": "idle", "us": "attack"}
    # the reveal and the matrix are the German ledger's own records (edition 4 on), no act of his: an undo passes over
    # them to his last act, the chit sealed in the step, which the reveal completed; nothing is taken back
    before = len(rows(anyone))
    german.refused("undo", contains="an Initiative chit was sealed")
    assert len(rows(anyone)) == before
    assert [r["chits"] for r in rows(anyone, "InitiativeChosen")] == [{"german": "idle", "us": "attack"}]
    assert audit(anyone)["clean"]


@pytest.mark.parametrize("length", [1, 9_999, 10_001])
def test_a_fair_dice_chain_has_the_one_length_the_ledger_fixes(at, make_db, tmp_path, length):
    """a chain of length 1 was accepted; its owner could then never answer again, and every later
    roll of the other side waited for ever. A commitment to any other length is refused, by the audit and import."""
    from cgledger.ledger.domain.events import DiceCommitted

    cli = at("8.610")
    german = Player(cli.db, GERMAN)
    german.ok("keys", "init", "--side", "german")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    honest = next(e.fact for e in ledger.history(None) if isinstance(e.fact, DiceCommitted))
    us_key = Keyring(US.encode())
    salt, check, public = us_key.new_registration()
    from cgledger.ledger.domain.events import SideKeyRegistered

    rules = ledger.rules_for(campaign)
    registered = SideKeyRegistered(action=campaign.next_action, side="us", salt=salt, check=check, public=public)
    campaign.record(registered, "us", us_key.signer(campaign, rules, "us", registration=registered))
    short = msgspec.structs.replace(honest, action=campaign.next_action, side="us", length=length)
    campaign.record(short, "us", us_key.signer(campaign, rules, "us", registration=registered))
    ledger.store.save(campaign)
    findings = json.loads(cli("audit", "--json").stdout)["findings"]
    assert any(f"not {length}" in f["message"] for f in findings), findings


def test_a_key_without_chains_does_not_switch_fair_dice_off(kgp):
    """A cheater's own copy of the ledger registers his key without committing fair-dice chains. Fair dice stay in
    force all the same once both sides hold keys: his ledger's own dice (which he would choose) are refused, and the
    audit names the missing commitment (before, fair dice were 'pending' for good: he chose every die, audit clean)."""
    from cgledger.ledger.decide import commands

    german = Player(kgp.db, GERMAN)
    german.ok("keys", "init", "--side", "german")
    ledger = open_ledger(str(kgp.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    keyring = Keyring(US.encode())
    salt, check, public = keyring.new_registration(())
    ledger.keyring = keyring  # the new key signs its own registration, as `keys init` does; no chains committed
    request = commands.RegisterKey(side="us", salt=salt, check=check, public=public)
    ledger.append(campaign, *commands.decide(campaign, rules, request), request=request)
    from cgledger.ledger.decide.rolls import check_source
    from cgledger.ledger.errors import LedgerError

    state = open_ledger(str(kgp.db)).campaign(None)
    for source in ("seeded", "rng"):  # what his ledger would label the dice it chose
        with pytest.raises(LedgerError, match=f"dice labelled '{source}'"):
            check_source(state, rules, source)
    assert json.loads(german.ok("status", "--json").stdout)["dice"] == "fair"
    report = audit(kgp)
    assert [f["kind"] for f in report["findings"]] == ["fair"], report["findings"]
    assert "U.S. side holds a key but never committed its fair-dice chains" in report["findings"][0]["message"]


def test_a_secret_fair_roll_stays_secret_after_its_side_publishes_later_values(at):
    """The roll chain is reversed: a later value hashed once is the one before it. A Secret roll publishes its roll
    value only when revealed, but its side's next open roll publishes the value after it, and the other side holds
    its own answer: those two alone gave the Secret roll's dice away (here the German's CPP Replenishment, 8.616).
    Its dice also take a blinding value now: committed to by its declaration (SHA-256), published at its reveal."""
    german, us, anyone = keyed(at("8.616", "20 AM"))
    german.ok("roll", "8.616", "--side", "german")
    us.ok("roll", "8.616", "--side", "us")
    german.ok("status")  # answers the U.S. roll, makes its own
    us.ok("status")
    german.ok("status")
    german.ok("roll", "8.618", "--side", "german")  # open: publishes the German's roll value 2
    declared = {(r["side"], r["n"]): r for r in rows(anyone, "RollDeclared")}
    secret, later = declared[("german", 1)], declared[("german", 2)]
    assert secret["value"] == "" and len(secret["blinded"]) == 64 and later["value"] and not later["blinded"]
    answer = next(r["value"] for r in rows(anyone, "RollAnswered") if r["declared"] == secret["version"])
    derived = sha256(bytes.fromhex(later["value"])).hexdigest()  # the Secret roll's own roll value, from public data
    before = json.dumps(rows(anyone))
    german.ok("reveal", "--all")
    published = next(r for r in rows(anyone, "RollValuePublished") if r["side"] == "german" and r["n"] == 1)
    assert published["value"] == derived and published["blind"] not in before  # known value, unknown blind
    assert fairdice.blinded(published["blind"]) == secret["blinded"]
    assert "the German side publishes the value and the blinding value of its Secret fair roll 1" in us.ok("log").stdout
    revealed = next(r["fact"] for r in rows(anyone, "SecretRollRevealed") if r["fact"]["side"] == "german")
    assert tuple(revealed["dice"]) == fairdice.faces(derived, answer, "CG I", "german", 1, "DR", published["blind"])
    report = audit(anyone)
    assert report["clean"], report["findings"]


def test_a_wrong_blinding_value_is_refused_at_reveal(at):
    german, us, anyone = keyed(at("8.616", "19 PM"))
    german.ok("roll", "8.616", "--side", "german")
    us.ok("status")
    german.ok("status")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    entry = campaign.declared["german:1"]
    value = Keyring(GERMAN.encode()).chain_value(campaign, rules, "german", "roll", 1)
    with pytest.raises(LedgerError, match="blinding value"):
        fair.publish(campaign, rules, "german", 1, value, "00" * 32)
    assert entry["blinded"] and not entry.get("blind")


def test_a_secret_roll_revealed_with_another_blinding_value_is_named_and_refused(at, make_db, tmp_path):
    """A doctored reveal publishing a blinding value other than the one the declaration committed to (dice of its
    choosing): the audit names it, and `import` refuses the whole bundle."""
    german, us, anyone = keyed(at("8.616", "19 PM"))
    german.ok("roll", "8.616", "--side", "german")
    us.ok("status")
    german.ok("status")  # made, sealed
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    value = Keyring(GERMAN.encode()).chain_value(campaign, ledger.rules_for(campaign), "german", "roll", 1)
    forge(anyone.db, lambda c: RollValuePublished(action=c.next_action, side="german", n=1, value=value,
                                                  blind="00" * 32), GERMAN)
    named_and_refused(anyone, Cli(make_db()), tmp_path, "secret", "is not the one its declaration committed to")
