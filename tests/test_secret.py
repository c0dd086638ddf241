"""Secret rolls kept secret: sealed with the rolling side's key, a commitment both sides see, reveal and
audit."""

from __future__ import annotations

import json

import msgspec
import pytest

from conftest import Player
from cgledger.ledger.application import open_ledger
from cgledger.ledger.errors import BadInput
from cgledger.ledger.trust.secrets import derive_key, unseal

GERMAN, US = "Peiper's own words", "Harrison's own words"


@pytest.fixture
def players(at):
    table = at("8.616", "19 PM")
    german, us, anyone = Player(table.db, GERMAN), Player(table.db, US), Player(table.db, None)
    anyone.ok("fair-dice", "mode", "immediate")  # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    us.ok("keys", "init", "--side", "us", "--dice", "immediate")  # the key set up last agrees to them
    return german, us, anyone


def test_a_secret_roll_is_sealed_and_committed(players):
    german, us, anyone = players
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert rolled["value"] == 29 and rolled["sealed"] is True  # the roller sees the result at once
    row = anyone.json("log")[-1]
    assert row["type"] == "SecretRollMade" and row["table"] == "8.616" and row["side"] == "german"
    assert "dice" not in row and "result" not in row and len(row["commitment"]) == 64
    assert "German Secret roll on 8.616" in anyone.ok("log").stdout
    # the other side's key cannot open it
    ledger = open_ledger(str(german.db))
    state = ledger.campaign(None)
    with pytest.raises(BadInput, match="does not open"):
        unseal(derive_key(US.encode(), state.keys["us"]["salt"]), row["sealed"])
    assert unseal(derive_key(GERMAN.encode(), state.keys["german"]["salt"]), row["sealed"]).fact.dice == (3, 3)
    # the roster shows the replenishment to the German only
    assert us.json("roster", "--side", "german")[-1]["repl"] is None
    assert german.json("roster", "--side", "german")[-1]["repl"] == 29
    audit = anyone.json("audit")
    assert audit["clean"] and audit["unrevealed"] == [{"version": rolled["id"], "table": "8.616", "side": "german"}]


def test_a_sealed_roll_needs_its_sides_passphrase(players):
    german, us, anyone = players
    before = anyone.events()
    anyone.refused("roll", "8.616", "--side", "german", contains="give its passphrase")
    us.refused("roll", "8.616", "--side", "german", contains="not the German side's")
    assert anyone.events() == before
    german.refused("keys", "init", "--side", "german", contains="set up its key already")
    Player(german.db, "short").refused("keys", "init", "--side", "us", contains="too weak")


def test_reveal_and_audit(players):
    german, us, anyone = players
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "6,5")
    us.refused("reveal", "--all", "--side", "german", contains="not the German side's")
    revealed = german.json("reveal", str(rolled["id"]))
    assert revealed == [{"roll": rolled["id"], "table": "8.616", "dice": [6, 5], "final": 11, "result": "CPP Replenished: 24"}]
    audit = anyone.json("audit")
    assert audit["clean"] and audit["unrevealed"] == [] and audit["rolls"] == 3  # and the 8.6113 DRs of 19 AM
    assert anyone.json("roster", "--side", "german")[-1]["repl"] == 24  # public now
    german.refused("reveal", "--all", "--side", "german", contains="no unrevealed Secret roll")


def test_a_revealed_roll_whose_dice_were_changed_fails_audit(players):
    german, _us, anyone = players
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "6,6")
    german.ok("reveal", str(rolled["id"]), "--side", "german")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    honest = ledger.history(None)[-1].fact
    better = msgspec.structs.replace(honest.fact, dice=(1, 1), original=2, final=2, result="CPP Replenished: 33", value=33)
    campaign.record(msgspec.structs.replace(honest, action=campaign.begin_action(), fact=better))
    ledger.store.save(campaign)
    kinds = [f["kind"] for f in json.loads(anyone("audit", "--json").stdout)["findings"]]
    assert "secret" in kinds


def test_secret_cpp_count_for_purchases(players, tmp_path):
    from pathlib import Path

    german, us, anyone = players
    german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")
    us.ok("roll", "8.616", "--side", "us", "--dice", "6,6")
    german.ok("rules", "load", str(Path(__file__).parent.parent / "fixtures" / "kgp-rg-chart-example.toml"))
    us.ok("accept")  # both sides hold keys: a rules file is proposed and accepted
    german.to("8.619", "19 PM")
    anyone.refused("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19",
                   contains="give its passphrase")
    german.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    assert german.json("roster", "--side", "german")[-1]["left"] == 29 - 8


def test_status_shows_a_side_its_own_cpp_with_its_sealed_replenishment(players):
    german, us, anyone = players
    before = anyone.json("status")["cpp"]
    german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")  # 35 - 6 = 29, sealed
    assert anyone.json("status")["cpp"] == before  # the opponent sees no number
    assert us.json("status")["cpp"] == before
    assert german.json("status")["cpp"]["german"] == before["german"] + 29


def test_a_second_sealed_roll_for_one_item_is_refused_and_a_forged_one_named(players):
    german, us, anyone = players
    german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")
    german.refused("roll", "8.616", "--side", "german", "--dice", "1,1", contains="rolled already")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    made = ledger.history(None)[-1].fact
    campaign.record(msgspec.structs.replace(made, action=campaign.next_action))
    ledger.store.save(campaign)
    report = json.loads(anyone("audit", "--json").stdout)
    # written without the German key: unsigned, and a second roll for one item
    assert [f["kind"] for f in report["findings"]] == ["signature", "decision"]
    assert "rolled already" in report["findings"][1]["message"]


def test_a_reveal_keeps_its_command_and_a_doctored_one_is_named_from_it(players):
    """The reveal is stored with its command (the roll as opened, its salt): the audit decides that command again on
    the log before it, so a doctored roll shown with a real salt is named, whoever signed it."""
    from cgledger.ledger.decide import commands
    from cgledger.ledger.player.keyring import Keyring
    from cgledger.ledger.rules import load

    german, _us, anyone = players
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    ledger = open_ledger(str(german.db))
    sealed = ledger.history(None)[-1]
    assert sealed.request == commands.SealRoll(table="8.616", side="german", commitment=sealed.fact.commitment,
                                               sealed=sealed.fact.sealed)
    campaign = ledger.campaign(None)
    rules = load(campaign.system, campaign.override_sources())
    keyring = Keyring(GERMAN.encode())
    opened = keyring.unseal(campaign, rules, sealed.fact)
    doctored = msgspec.structs.replace(opened.fact, dice=(6, 5), original=11, final=11 + opened.fact.final
                                       - opened.fact.original)
    request = commands.Reveal(acts=(commands.RevealRoll(roll=rolled["id"], fact=doctored, salt=opened.salt),))
    forged = commands.SecretRollRevealed(action=campaign.next_action, roll=rolled["id"], fact=doctored,
                                         salt=opened.salt)
    campaign.record(forged, "german", keyring.signer(campaign, rules, "german"), "", request)
    ledger.store.save(campaign)
    found = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert [f["kind"] for f in found] == ["secret"] and "does not match its commitment" in found[0]["message"]


def test_the_honest_reveal_is_stored_with_its_command(players):
    from cgledger.ledger.decide import commands

    german, _us, anyone = players
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    german.ok("reveal", str(rolled["id"]))
    event = open_ledger(str(german.db)).history(None)[-1]
    assert isinstance(event.request, commands.Reveal) and event.form == 3
    assert [a.roll for a in event.request.acts] == [rolled["id"]] and event.fact.fact == event.request.acts[0].fact
    assert anyone.json("audit")["clean"]


# ---- a sealed text's length tells nothing of what it holds ---------------------------------------------------------
def strength_roll(result: str, code: str, adds: tuple[str, ...] = (), value: int | None = None):
    from cgledger.ledger.domain.events import DiceRolled

    return DiceRolled(action=40, table="8.6201", rule="8.6201", side="german", die="DR", dice=(3, 4), source="fair",
                      original=7, final=7, result=result, code=code, adds=adds, value=value, secret=True,
                      effect="rg_strength", rg=31, fair=5, item="8.6201:31")


def test_sealed_texts_of_one_kind_are_one_length_whatever_they_hold():
    """Fernet keeps a plaintext's length to 16 bytes: unpadded, a Depleted strength roll (its SW dr's added, 8.6204)
    sealed 44 bytes longer than a Full one, and a CPP roll's number showed in its digits. Padded, they look alike."""
    from cgledger.ledger.domain.events import RGPurchased
    from cgledger.ledger.trust.secrets import (
        SEALED_SIZE, new_salt, padded, seal, seal_bytes, seal_purchase, unseal_bytes, unseal_purchase)

    key = derive_key(b"Peiper's own words", "00" * 16)
    full, depleted = strength_roll("Full strength", "F"), strength_roll("Depleted", "D", ("8.6204",) * 3)
    few, many = strength_roll("2 CPP", "", value=2), strength_roll("12 CPP", "", value=12)
    rolls = [seal(key, fact, new_salt()) for fact in (full, depleted, few, many)]
    assert len({len(text) for text in rolls}) == 1
    assert unseal(key, rolls[1]).fact == depleted  # the padding is JSON whitespace: it reads back whole
    bought = [RGPurchased(action=30, side="german", rg=rg, group_type=kind, cpp=cpp, map_group="St", objective=hexes,
                          rolls=rolls) for rg, kind, cpp, hexes, rolls in (
        ("I2", "SS Inf Pltn", 2, "StJ19", ("8.6201", "8.6205")), ("V10", "Kingtiger Pltn", 14, "", ()))]
    assert len({len(seal_purchase(key, fact, new_salt())) for fact in bought}) == 1
    assert unseal_purchase(key, seal_purchase(key, bought[1], "ab")).fact == bought[1]
    chits = [seal_bytes(key, padded(msgspec.json.encode([chit, new_salt()]))) for chit in ("attack", "idle")]
    assert len({len(text) for text in chits}) == 1
    assert msgspec.json.decode(unseal_bytes(key, chits[1]))[0] == "idle"
    long = strength_roll("Full strength", "F")
    long = msgspec.structs.replace(long, purpose="x" * SEALED_SIZE)  # a record longer than the size: the next one
    assert len(padded(msgspec.json.encode(long))) == 2 * SEALED_SIZE and unseal(key, seal(key, long, "ab")).fact == long


def test_a_roll_sealed_before_the_padding_still_opens():
    from cryptography.fernet import Fernet

    from cgledger.ledger.trust.secrets import Sealed

    key = derive_key(b"Peiper's own words", "00" * 16)
    fact = strength_roll("Depleted", "D", ("8.6204",) * 3)
    older = Fernet(key).encrypt(msgspec.json.encode(Sealed(fact, "ab"))).decode()  # as logs before it hold them
    assert unseal(key, older) == Sealed(fact, "ab")


def test_with_fair_dice_a_refit_phase_secret_roll_takes_them_not_dice_typed(at):
    """A cheater's way round fair dice: with both keys, type the dice of his own Secret 8.616 DR (1,1: the most CPP).
    Sealed, the other side could witness them only once revealed, perhaps at the campaign's end, after the CPP were
    spent. Once fair dice are in force a Refit Phase Secret roll takes them; the dice of play (a Secret Bog DR during
    the scenario, KGP8) are still typed, for the other side to witness once revealed."""
    table = at("8.616", "19 PM")
    german, us, anyone = Player(table.db, GERMAN), Player(table.db, US), Player(table.db, None)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    before = anyone.events()
    german.refused("roll", "8.616", "--side", "german", "--dice", "1,1", contains="takes fair dice")
    assert anyone.events() == before
    declared = german.json("roll", "8.616", "--side", "german")  # leaving --dice out: declared, the U.S. answers
    assert declared["declared"] and anyone.events() > before
    play = at("scenario", "19 PM")
    german, us = Player(play.db, GERMAN), Player(play.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    assert german.json("roll", "KGP8", "--side", "german", "--dice", "3,4")["sealed"]
    assert "German Secret roll on KGP8, not a fair roll" in us.ok("log").stdout.splitlines()[-1]
