"""Take-backs that work by email: two players, each with his own database and key, exchanging
bundles. A proposal shows in both sides' `status`, survives the ledgers' own answers and reveals, lapses (and says
why) only on a player's act; a side takes back a shared act of its own alone while the other side has not received
it; a forged acceptance or a forged lone undo is named by the audit and refused by `import`."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from conftest import Cli, Player, named_and_refused
from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.events import (
    ActionUndone, CampaignStarted, DiceCommitted, DiceRolled, LocationControlled, RollAnswered, RollDeclared,
    SideKeyRegistered, TakeBackProposed,
)
from cgledger.ledger.domain.evolve import begin
from cgledger.ledger.player.keyring import Keyring

GERMAN, US = "Peiper's own words", "Harrison's own words"
FIXTURE = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"
_bundles = itertools.count()


def mail(sender: Cli, receiver: Cli, tmp_path) -> None:
    """The sender exports what the receiver lacks (since the receiver's head), the receiver imports it."""
    head = receiver("head")
    since = head.stdout.strip() if head.exit_code == 0 else "0"
    path = tmp_path / f"bundle{next(_bundles)}.json"
    sender.ok("export", "--since", since, str(path))
    receiver.ok("import", str(path))


@pytest.fixture
def german_keyed(at, make_db):
    """A CG scenario on 19 AM (the St map loaded before any key), played by email: the German's database, his key
    set up, and the U.S. player's database, empty."""
    cli = at("scenario")
    cli.ok("rules", "load", str(FIXTURE))
    german, us = Player(cli.db, GERMAN), Player(make_db(), US)
    german.ok("keys", "init", "--side", "german")
    return german, us


@pytest.fixture
def email(german_keyed, tmp_path):
    """`german_keyed`, then the U.S. player's key set up in his own: both ledgers holding the same log."""
    german, us = german_keyed
    mail(german, us, tmp_path)
    us.ok("keys", "init", "--side", "us")
    mail(us, german, tmp_path)
    assert german.json("status")["dice"] == "fair" == us.json("status")["dice"]
    return german, us


def strategic(player: Cli) -> list[str]:
    """The Strategic Locations the St map shows each side Controlling."""
    return sorted(s for h in player.json("areas", "--group", "St")["hexes"] for s in h.get("strategic", []))


def clean(player: Cli) -> bool:
    result = player("audit", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report["clean"]


def rows(player: Cli) -> list[dict]:
    return player.json("log")


def forge(db, fact_of, author: str, signer: str) -> None:
    """Writes straight into the store what a cheating player could: `fact_of(campaign)` in `author`'s name, signed
    with `signer`'s key."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    keyring = Keyring(signer.encode())
    campaign.record(fact_of(campaign), author, keyring.signer(campaign, ledger.rules_for(campaign),
                                                              keyring.opens(campaign)))
    ledger.store.save(campaign)


def typo_proposed(german, us, tmp_path, reason="we never took StJ19"):
    """The German records a U.S. Control of StJ19 (a typo) after declaring a Secret fair roll; the U.S. player, whose
    ledger answers that roll first, proposes to take the Control back. Returns (the Control's action, the
    proposal's event)."""
    declared = german.json("roll", "KGP8", "--side", "german", "--for", "Tiger in StK20")
    assert declared["secret"] and declared["waiting"]
    german.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    control = rows(german)[-1]
    mail(german, us, tmp_path)
    assert strategic(us) == ["StJ19 us B"]
    proposed = us.json("undo", "--reason", reason)
    log = rows(us)
    # the U.S. ledger answered the German roll first (an event after the Control): the undo still takes the Control
    assert [r["type"] for r in log[-2:]] == ["RollAnswered", "TakeBackProposed"]
    assert proposed["proposed"] == "undo" and proposed["actions"] == [control["action"]]
    return control, log[-1]["version"]


def test_a_control_typo_is_taken_back_by_email_across_the_ledgers_own_records(email, tmp_path):
    german, us = email
    control, proposal = typo_proposed(german, us, tmp_path)
    mine = us.json("status")["proposal"]
    assert mine == {
        "event": proposal, "open": True, "by": "us", "kind": "undo",
        "takes_back": f"Control of StJ19 by the U.S. side (Strategic Location, B) (event {control['version']})",
        "actions": [control["action"]], "reason": "we never took StJ19", "accept": "cgledger accept",
        "accepted_by": "german",
        "waiting_for": "the German side to accept it (`cgledger accept` on its ledger, once it has your bundle)",
        "lapses_when": "a player's act is recorded first (the ledger's own answers and reveals, and a key set up, do "
                       "not count)"}
    text = us.ok("status").stdout
    assert (f"proposal (event {proposal}): the U.S. side proposes to take back Control of StJ19 by the U.S. side "
            f"(Strategic Location, B) (event {control['version']}): we never took StJ19") in text
    assert "waits for the German side to accept it" in text
    mail(us, german, tmp_path)
    # the German ledger's next command makes its Secret roll, now answered: the proposal stays open
    theirs = german.json("status")["proposal"]
    assert rows(german)[-1]["type"] == "SecretRollMade" and rows(german)[-1]["author"] == "german"
    assert theirs["open"] and theirs["waiting_for"] == "you to accept it: `cgledger accept` (or `cgledger decline`)"
    assert "waits for you to accept it: `cgledger accept`" in german.ok("status").stdout
    assert Cli(german.db).json("status")["proposal"]["waiting_for"] == "the German side to accept it: `cgledger accept`"
    accepted = german.json("accept")
    assert accepted["undone"] == control["action"] and accepted["accepted"] == proposal
    assert strategic(german) == [] and german.json("status")["proposal"] is None
    mail(german, us, tmp_path)
    assert strategic(us) == [] and us.json("status")["proposal"] is None
    assert clean(german) and clean(us)
    assert german.ok("head").stdout == us.ok("head").stdout
    # the German's Secret roll stays in force: the undo took back the Control alone
    assert [r["in_force"] for r in rows(us) if r["type"] in ("RollAnswered", "SecretRollMade")] == [True, True]


def test_a_proposal_lapses_on_a_players_act_and_status_says_why(email, tmp_path):
    german, us = email
    control, proposal = typo_proposed(german, us, tmp_path)
    mail(us, german, tmp_path)
    german.ok("roll", "KGP3", "--side", "german")  # a Mist Change DR declared: a player's act, not an acceptance
    act = rows(german)[-1]["version"]
    lapsed = german.json("status")["proposal"]
    assert not lapsed["open"] and lapsed["lapsed"] == {"at": act, "why": "a player's act was recorded after it"}
    assert f"lapsed at event {act}: a player's act was recorded after it" in german.ok("status").stdout
    german.refused("accept",
                   contains=f"no proposal is open: the one of event {proposal} lapsed at event {act}")
    mail(german, us, tmp_path)
    assert us.json("status")["proposal"]["lapsed"]["at"] == act  # the proposer sees it too (its ledger answered)
    assert strategic(us) == ["StJ19 us B"]
    us.ok("roll", "KGP3", "--side", "us")  # once its proposer acts again, status no longer shows it
    assert us.json("status")["proposal"] is None
    assert clean(us)


def open_proposal(player: Cli, proposal: int) -> dict:
    """The proposal as the player's `status --json` shows it: open, not lapsed."""
    shown = player.json("status")["proposal"]
    assert shown["event"] == proposal and shown["open"] and "lapsed" not in shown, shown
    return shown


def keys_in_force(player: Cli, side: str) -> bool:
    """The side's key and fair-dice commitment are recorded and in force."""
    found = [r["in_force"] for r in rows(player) if r["type"] in ("SideKeyRegistered", "DiceCommitted")
             and r["side"] == side]
    return len(found) == 2 and all(found)


def test_a_proposal_stays_open_while_the_other_side_sets_up_its_key(german_keyed, tmp_path):
    """`keys init` is no game act (found playing by email): it lapsed the German's proposal to take back the U.S.
    player's Control, so that the U.S. player, who set up his key to answer it, could not accept it."""
    german, us = german_keyed
    mail(german, us, tmp_path)
    us.ok("control", "StJ19", "--side", "us", "--strategic", "B")  # the U.S. side's act, before its key
    control = rows(us)[-1]
    mail(us, german, tmp_path)
    assert german.json("undo")["proposed"] == "undo"
    proposal = rows(german)[-1]["version"]
    mail(german, us, tmp_path)
    us.ok("keys", "init", "--side", "us")
    assert open_proposal(us, proposal)["waiting_for"] == "you to accept it: `cgledger accept` (or `cgledger decline`)"
    accepted = us.json("accept")
    assert accepted["undone"] == control["action"] and accepted["accepted"] == proposal
    assert keys_in_force(us, "us") and us.json("status")["dice"] == "fair"  # the undo kept the key after it
    mail(us, german, tmp_path)
    assert strategic(german) == [] == strategic(us) and clean(german) and clean(us)


def test_a_proposal_stays_open_while_its_proposer_sets_up_its_key(german_keyed, tmp_path):
    """The same with the proposer's own `keys init`: the U.S. player proposes before his key, sets it up, and the
    German accepts."""
    german, us = german_keyed
    german.ok("control", "StJ19", "--side", "us", "--strategic", "B")  # a typo
    control = rows(german)[-1]
    mail(german, us, tmp_path)
    assert us.json("undo", "--reason", "we never took StJ19")["actions"] == [control["action"]]
    proposal = rows(us)[-1]["version"]
    us.ok("keys", "init", "--side", "us")
    open_proposal(us, proposal)
    mail(us, german, tmp_path)
    open_proposal(german, proposal)
    assert german.json("accept")["undone"] == control["action"]
    assert keys_in_force(german, "us") and strategic(german) == [] and clean(german)


def test_a_side_takes_back_its_own_shared_act_alone_before_the_other_side_has_it(email, tmp_path):
    german, us = email
    us.ok("control", "StJ19", "--side", "us", "--strategic", "B")  # the U.S. player's own typo, not sent yet
    done = us.json("undo", "--reason", "typo: StJ18")
    assert "undone" in done and "proposed" not in done
    us.ok("control", "StJ18", "--side", "us", "--strategic", "B")
    mail(us, german, tmp_path)
    assert strategic(german) == ["StJ18 us B"] == strategic(us)
    assert clean(german) and clean(us)


def test_once_the_other_side_recorded_after_it_the_same_undo_is_a_proposal(email, tmp_path):
    german, us = email
    us.ok("roll", "KGP3", "--side", "us")  # declared: the German ledger answers it on its next command
    us.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    mail(us, german, tmp_path)
    german.ok("status")  # answers: an event of the German's after the Control
    assert rows(german)[-1]["author"] == "german"
    mail(german, us, tmp_path)
    proposed = us.json("undo")
    assert proposed["proposed"] == "undo" and proposed["actions"] == [rows(us)[-4]["action"]]
    assert strategic(us) == ["StJ19 us B"]
    # the German's answer was not undone, and stays in force once the German accepts
    mail(us, german, tmp_path)
    german.ok("accept")
    assert strategic(german) == [] and rows(german)[-3]["type"] == "DiceRolled" and rows(german)[-3]["in_force"]
    assert clean(german)


def test_an_undo_never_takes_back_a_fair_rolls_answer(email, tmp_path):
    german, us = email
    german.ok("roll", "KGP3", "--side", "german")
    mail(german, us, tmp_path)
    us.ok("status")  # answers: the roll has its dice
    mail(us, german, tmp_path)
    german.refused("undo", contains="an undo never takes back a fair roll's dice")
    us.refused("undo", contains="an undo never takes back a fair roll's dice")


def test_a_forged_lone_undo_of_a_received_shared_act_is_named_and_refused(email, tmp_path, make_db):
    german, us = email
    us.ok("roll", "KGP3", "--side", "us")
    us.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    target = rows(us)[-1]["action"]
    mail(us, german, tmp_path)
    german.ok("status")  # the German has it: its answer follows the Control
    mail(german, us, tmp_path)
    forge(us.db, lambda c: ActionUndone(action=c.next_action, undone=target), "us", US)
    named_and_refused(us, Cli(make_db()), tmp_path, "rights", "took back an act alone: it is the other side's or shared")


def test_a_forged_acceptance_by_the_proposer_is_named_and_refused(email, tmp_path, make_db):
    german, us = email
    control, proposal = typo_proposed(german, us, tmp_path)
    forge(us.db, lambda c: ActionUndone(action=c.next_action, undone=control["action"], proposal=proposal), "us", US)
    named_and_refused(us, Cli(make_db()), tmp_path, "rights", "only the other side can accept it")


def test_the_fold_voids_an_act_and_applies_the_ledgers_records_after_it_again():
    """An undo of the last act a player took, with a fair roll's answer after it: the state is the one the log
    without that act folds to, even where the act and the answer touched the same things (here the same result on
    the same table, which a plain restore of what the act changed would drop)."""
    start = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM", start_cpp={"german": 0, "us": 0})

    def roll(action, **extra):
        return DiceRolled(action=action, table="8.610", rule="8.610", side="german", die="dr", dice=(3,),
                          original=3, final=2, result="Retained wounded", code="wounded", **extra)

    declared = RollDeclared(action=2, table="8.610", side="german", n=1, value="aa", purpose="A", item="a")
    act = roll(3, source="entered", purpose="B", item="b")
    answer = [RollAnswered(action=4, declared=2, side="us", n=1, value="bb"),
              roll(4, source="fair", fair=1, purpose="A", item="a")]
    undo = ActionUndone(action=5, undone=3)

    def fold(facts):
        state = begin(start, "0" * 64)
        for version, fact in facts:
            state.evolve(fact, "0" * 64, version, "german" if fact is not answer[0] else "us")
        return state

    undone = fold([(2, declared), (3, act), (4, answer[0]), (5, answer[1]), (6, undo)])
    without = fold([(2, declared), (4, answer[0]), (5, answer[1])])
    for attribute in ("today", "consumed", "declared", "done", "flags", "cpp", "published"):
        assert getattr(undone, attribute) == getattr(without, attribute), attribute
    assert undone.live == [[2, 2], [4, 4]] and undone.undo_target()[0] is None  # the roll has its dice now


def test_a_key_set_up_lapses_a_proposal_only_in_a_log_written_before_form_3():
    """A log folds as the ledger that wrote it read it (the audit decides it again): before envelope form 3 a key's
    registration and a fair-dice commitment were a player's act, and let the open proposal lapse."""
    start = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM", start_cpp={"german": 0, "us": 0})
    facts = [(2, SideKeyRegistered(action=2, side="german", salt="s", check="c", public="p"), "german"),
             (3, LocationControlled(action=3, location="StJ19", side="us"), "us"),
             (4, TakeBackProposed(action=4, kind="undo", voided=(3,)), "german"),
             (5, SideKeyRegistered(action=5, side="us", salt="s", check="c", public="q"), "us"),
             (6, DiceCommitted(action=5, side="us", roll_head="r", answer_head="a", length=9, sealed="x"), "us")]

    def fold(form: int):
        state = begin(start, "0" * 64)
        for version, fact, author in facts:
            state.evolve(fact, "0" * 64, version, author, "", form)
        return state

    today, older = fold(3), fold(2)
    assert today.proposal["version"] == 4 and today.lapsed == {} and today.undo_target(True)[0] == 3
    assert today.undo_target()[0] == 5  # a plain `undo` takes the key back itself, as before
    assert older.proposal == {} and (older.lapsed["lapsed_by"], older.lapsed["cause"]) == (5, "act")
    assert older.undo_target(True)[0] == older.undo_target()[0] == 5


def test_a_rewind_proposal_stays_open_through_the_answer_and_takes_it_back_too(at):
    """A rewind takes everything after a RePh end back: the other side's ledger answers a roll declared before the
    proposal on its `accept` command, the proposal stays open, and the answer is voided with the rest."""
    cli = at("8.610")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("roll", "8.610", "--side", "german", "--for", "A")  # declared: the U.S. ledger answers it
    proposed = german.json("rewind", "19 AM", "--reason", "we forgot the reinforcements")
    done = us.json("accept")
    log = rows(cli)
    answer = next(r for r in log if r["type"] == "RollAnswered")
    proposal = next(r for r in log if r["type"] == "TakeBackProposed")
    assert [r["type"] for r in log[-4:]] == ["TakeBackProposed", "RollAnswered", "DiceRolled", "Rewound"]
    assert answer["version"] > proposal["version"] and answer["action"] not in proposed["actions"]
    assert done["voided"] == proposed["actions"] + [answer["action"]] and done["accepted"]
    assert not answer["in_force"] and cli.json("status")["cg_date"] == "19 AM" and clean(cli)



def test_a_sealed_chit_is_chosen_again_by_an_undo_and_does_not_lapse_a_proposal(at):
    """A chit sealed is the ledger's bookkeeping for a proposal made before it (it stays open), but `undo` right
    after sealing takes the chit back itself (its side may choose again until it is revealed); a chit sealed in the
    step a proposal would take back completes that step, and the proposal lapses."""
    cli = at("scenario", "19 PM")
    cli.ok("rules", "load", str(FIXTURE))
    cli.ok("rules", "load", str(Path(__file__).parent / "data" / "kgp-lg-test-map.toml"))
    cli.ok("control", "LgN25", "--side", "us")  # Peiper's HQ lost: the German records another (8.6052 EXC)
    cli.to("8.623")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("initiative", "--chit", "german=attack")
    assert "undone" in german.json("undo") and rows(cli)[-2]["type"] == "ChitSealed"
    german.ok("hq", "LgM24", "--side", "german")  # the German's own act: the U.S. side proposes to take it back
    hq = rows(cli)[-1]
    assert us.json("undo")["actions"] == [hq["action"]]
    german.ok("initiative", "--chit", "german=idle")
    assert cli.json("status")["proposal"]["open"]
    assert german.json("accept")["undone"] == hq["action"]
    assert rows(cli)[-2]["type"] == "ChitSealed" and rows(cli)[-2]["in_force"] and clean(cli)
    # the move into 8.623, then a chit sealed in it: the proposal to take the move back lapses
    cli2 = at("8.622", "19 PM")
    german, us = Player(cli2.db, GERMAN), Player(cli2.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    us.ok("step", "next")  # each side walks the RePh: the campaign moves into 8.623 with the German's step
    german.ok("step", "next")
    assert us.json("undo")["proposed"] == "undo"
    german.ok("initiative", "--chit", "german=idle")
    assert cli2.json("status")["proposal"]["lapsed"]["why"] == "a record after it completes the action it takes back"
    german.ok("undo")  # the chit itself (the German's own, the last action in force)
    assert us.json("undo")["proposed"] == "undo"  # the move into 8.623 again
    german.ok("accept")
    assert cli2.json("status")["step"] == "8.622" and clean(cli2)


def test_the_other_side_proposes_to_take_back_a_chit_just_sealed_and_its_acceptance_does(at):
    """A chit sealed is the last action in force: the other side's `undo` names it, and the acceptance takes that
    very chit back (the chit was sealed before the proposal: nothing completes the act it names after it)."""
    cli = at("8.622", "19 PM")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    us.ok("step", "next")
    german.ok("step", "next")  # into 8.623 with the campaign
    german.ok("initiative", "--chit", "german=attack")
    chit = rows(cli)[-1]
    assert chit["type"] == "ChitSealed"
    proposed = us.json("undo", "--reason", "a slip")
    assert proposed["proposed"] == "undo" and proposed["actions"] == [chit["action"]]
    assert german.json("accept")["undone"] == chit["action"]
    assert not next(r for r in rows(cli) if r["version"] == chit["version"])["in_force"] and clean(cli)
    german.ok("initiative", "--chit", "german=idle")  # chosen again
