"""only fair dice are the ledger's own once both sides hold keys, and the audit re-decides the
whole fact. A cheater's own ledger signs whatever it likes; each forgery below is named by the audit and refused
by `import` (the same decision)."""

from __future__ import annotations

import json

import msgspec
import pytest

from conftest import Player, named_and_refused
from cgledger.ledger.application import open_ledger
from cgledger.ledger.decide import rolls
from cgledger.ledger.domain.events import AppliedDRM
from cgledger.ledger.player.keyring import Keyring

GERMAN, US = "Peiper's own words", "Harrison's own words"


@pytest.fixture
def table(at):
    cli = at("scenario", "19 PM")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    return cli, german, us


def honest_then_forged(cli, passphrase: str, change) -> None:
    """An honest roll with the dice of play, then the same roll as the cheater's ledger re-writes it, signed."""
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    keyring = Keyring(passphrase.encode())
    side = keyring.opens(campaign)
    honest, _ = rolls.roll(campaign, rules, rolls.RollCommand(table="KGP3", side=side, faces=(3, 4), source="entered"))
    campaign.record(change(honest), side, keyring.signer(campaign, rules, side))
    ledger.store.save(campaign)


def test_a_roll_labelled_as_the_ledgers_own_is_refused_once_both_sides_hold_keys(table, make_db, tmp_path):
    cli, german, us = table
    honest_then_forged(cli, GERMAN, lambda f: msgspec.structs.replace(f, source="rng"))
    named_and_refused(cli, Player(make_db(), None), tmp_path, "drm", "labelled 'rng'")


def test_dice_of_an_unknown_source_are_named(table, make_db, tmp_path):
    cli, german, us = table
    honest_then_forged(cli, GERMAN, lambda f: msgspec.structs.replace(f, source="lucky"))
    named_and_refused(cli, Player(make_db(), None), tmp_path, "drm", "unknown source 'lucky'")


def test_a_secret_table_rolled_as_not_secret_is_named(at, make_db, tmp_path):
    """Found by a cheater's own ledger: a roll on a Secret table (8.616) stored with secret=False passed the audit,
    which compared chosen fields; the whole fact is compared now."""
    # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    cli, ledger, campaign, rules, keyring = _keyed_at_8616(at, "immediate")
    honest, _ = rolls.roll(campaign, rules, rolls.RollCommand(table="8.616", side="german", faces=(6, 6),
                                                              source="entered"))
    assert honest.secret
    campaign.record(msgspec.structs.replace(honest, secret=False), "german", keyring.signer(campaign, rules, "german"))
    ledger.store.save(campaign)
    named_and_refused(cli, Player(make_db(), None), tmp_path, "decision", "secret recorded False")


def test_an_invented_drm_of_an_unknown_kind_is_named(table, make_db, tmp_path):
    cli, german, us = table
    bonus = AppliedDRM(key="luck", name="Luck", value=2, kind="blessed")
    honest_then_forged(cli, GERMAN, lambda f: msgspec.structs.replace(f, drms=(*f.drms, bonus), final=f.final + 2))
    findings = json.loads(cli("audit", "--json").stdout)["findings"]
    assert {f["kind"] for f in findings} == {"decision"} and "drms recorded" in findings[0]["message"], findings
    bundle = tmp_path / "bundle.json"
    cli.ok("export", "--since", "0", str(bundle))
    Player(make_db(), None).refused("import", str(bundle), contains="drms recorded")


def test_a_secret_refit_phase_roll_sealed_with_typed_dice_is_named_before_its_reveal(at, make_db, tmp_path):
    """A cheater's own ledger seals dice he typed (1,1: the most CPP) into his 8.616 Secret roll, though fair dice
    are in force. Both sides see that the sealed roll is no fair roll (it names no fair declaration): the audit names
    it and `import` refuses it at once, before any reveal."""
    from cgledger.ledger.decide.commands import SealRoll
    from cgledger.ledger.domain.events import SecretRollMade
    from cgledger.ledger.trust.secrets import commitment

    cli, ledger, campaign, rules, keyring = _keyed_at_8616(at)
    edition = campaign.edition
    campaign.edition = 2  # the forger's ledger decides as an older reading would
    typed, _ = rolls.roll(campaign, rules, rolls.RollCommand(table="8.616", side="german", faces=(1, 1),
                                                             source="entered"))
    campaign.edition = edition
    salt, text = keyring.seal(campaign, rules, typed)
    made = SecretRollMade(action=campaign.next_action, table="8.616", rule=typed.rule, side="german", die=typed.die,
                          effect=typed.effect, commitment=commitment(typed, salt), sealed=text, item=typed.item)
    campaign.record(made, "german", keyring.signer(campaign, rules, "german"), "",
                    SealRoll(table="8.616", side="german", commitment=made.commitment, sealed=text))
    ledger.store.save(campaign)
    named_and_refused(cli, Player(make_db(), None), tmp_path, "decision", "takes fair dice")


def _keyed_at_8616(at, dice: str = ""):
    """A campaign at 8.616 on 19 PM, both sides keyed (`dice`: the mode chosen first): (cli, its ledger, the
    campaign, its rules, the German's keyring), for a forger's own ledger to write into."""
    cli = at("8.616", "19 PM")
    if dice:
        cli.ok("fair-dice", "mode", dice)
    Player(cli.db, GERMAN).ok("keys", "init", "--side", "german", *(("--dice", dice) if dice else ()))
    Player(cli.db, US).ok("keys", "init", "--side", "us", *(("--dice", dice) if dice else ()))
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    return cli, ledger, campaign, ledger.rules_for(campaign), Keyring(GERMAN.encode())
