"""8.619 (RR 2.518): the follow-up rolls of an RG bought in secret, veiled, one decision at a time
(tests/given.py). What the other side can decide before the RG is revealed: the buyer's own RG of this CG Date, not
revealed, the buyer in the step of its follow-ups (8.620, RR 2.519), fair dice in force for its n; and, revealed with
the RG, that each opened declaration is the one its commitment binds."""

from __future__ import annotations

import pytest

from cgledger.ledger.decide.veiled import reveal
from cgledger.ledger.domain.commands import DeclareSealed, RevealDeclaration
from cgledger.ledger.domain.events import (
    CampaignStarted, CGDateChanged, DiceCommitted, RGPurchaseSealed, RollDeclarationRevealed, RollDeclared,
    SideKeyRegistered, StepOpened,
)
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.trust import fairdice
from cgledger.ledger.trust.secrets import commitment

from given import given

KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM")
HEAD = "ab" * 32


def keyed(side: str, action: int) -> tuple:
    return (SideKeyRegistered(action=action, side=side, salt="s" * 16, check="c" * 16),
            DiceCommitted(action=action, side=side, roll_head=HEAD, answer_head=HEAD, length=fairdice.LENGTH,
                          sealed="x"))


def bought_in_secret(step: str = "8.620"):
    """KGP CG I on 19 PM, both sides' keys and fair dice, a German RG bought in secret (event 9), then `step`."""
    return given(KGP, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date="19 PM"),
                 StepOpened(action=2, step="8.619"), *keyed("german", 3), *keyed("us", 4),
                 RGPurchaseSealed(action=5, side="german", cg_date="19 PM", commitment="cd" * 32, sealed="x"),
                 StepOpened(action=6, step=step))


def test_8_619_a_veiled_follow_up_shows_its_side_n_and_rg_alone():
    campaign = bought_in_secret()
    assert campaign.state.secret_rgs == {"9": {"side": "german", "cg_date": "19 PM"}}
    campaign.when(DeclareSealed(side="german", rg=9, commitment="ef" * 32, sealed="y")).then(
        RollDeclared(action=7, table="", side="german", n=1, rg=9, secret=True, commitment="ef" * 32, sealed="y"))


def test_8_619_only_the_buyer_veils_a_roll_and_only_for_its_own_rg_still_secret():
    campaign = bought_in_secret()
    campaign.when(DeclareSealed(side="us", rg=9, commitment="ef" * 32, sealed="y")).refused(
        "8.619", "event 9 is no RG the U.S. side bought in secret")
    campaign.when(DeclareSealed(side="german", rg=8, commitment="ef" * 32, sealed="y")).refused(
        "8.619", "event 8 is no RG the German side bought in secret")


def test_8_620_a_veiled_follow_up_is_declared_in_the_follow_up_step_of_its_cg_date():
    bought_in_secret("8.621").when(DeclareSealed(side="german", rg=9, commitment="ef" * 32, sealed="y")).refused(
        "8.620", "follow-up rolls are made in step 8.620", "the German side is at 8.621")


def test_a_veiled_follow_up_names_its_commitment():
    bought_in_secret().when(DeclareSealed(side="german", rg=9, commitment="short", sealed="y")).refused(
        "cgledger fair dice", "names its commitment (64 hex digits)")


def test_8_619_a_veiled_declaration_opens_only_as_committed_and_only_while_its_rg_is_sealed():
    opened = RollDeclared(action=7, table="8.6201", side="german", n=1, rg=9, secret=True, item="8.6201|rg9|1")
    salt = "5a" * 16
    veiled = RollDeclared(action=7, table="", side="german", n=1, rg=9, secret=True,
                          commitment=commitment(opened, salt), sealed="y")
    campaign = bought_in_secret().and_then(veiled)
    state, rules = campaign.state, campaign.rules
    assert reveal(state, rules, 11, veiled, opened, salt) == RollDeclarationRevealed(action=8, declared=11,
                                                                                   fact=opened, salt=salt)
    other = RollDeclared(action=7, table="8.6206/armor", side="german", n=1, rg=9, secret=True)
    with pytest.raises(LedgerError, match=r"does not match its commitment"):
        reveal(state, rules, 11, veiled, other, salt)
    with pytest.raises(LedgerError, match=r"event 10 is no veiled roll declaration still sealed"):
        reveal(state, rules, 10, campaign.log[9].fact, opened, salt)
    # recorded alone, without its RG's reveal in the same action: refused (the RG and its follow-ups go together)
    campaign.when(RevealDeclaration(declared=11, fact=opened, salt=salt)).refused(
        "8.619", "follows up the RG bought in secret at event 9: it is revealed with that RG")


def test_a_veiled_roll_lapses_only_by_its_side_once_answered_and_never_once_made():
    from cgledger.ledger.domain.commands import LapseRoll
    from cgledger.ledger.domain.events import RollAnswered, RollLapsed, SecretRollMade

    veiled = RollDeclared(action=7, table="", side="german", n=1, rg=9, secret=True, commitment="ef" * 32, sealed="y")
    declared = bought_in_secret().and_then(veiled)
    declared.when(LapseRoll(declared=11), by="german").refused("cgledger fair dice", "once answered")
    answered = declared.and_then(RollAnswered(action=8, declared=11, side="us", n=1, value="00" * 32))
    answered.when(LapseRoll(declared=11), by="us").refused("cgledger fair dice", "by its own side's ledger")
    answered.when(LapseRoll(declared=11), by="german").then(RollLapsed(action=9, declared=11, side="german"))
    made = answered.and_then(SecretRollMade(action=9, table="", rule="", side="german", die="", rg=9, fair=1,
                                            commitment="12" * 32, sealed="z"))
    made.when(LapseRoll(declared=11), by="german").refused("cgledger fair dice", "a roll made never lapses")
