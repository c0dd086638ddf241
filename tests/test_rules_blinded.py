"""A Secret fair roll's blinding value, one decision at a time (tests/given.py): committed to by its declaration
(SHA-256, 64 hex digits) and by a Secret roll's alone (an open roll's dice are known once answered), then published
at its reveal and checked against that commitment (ledger/trust/fairdice.py `blind`)."""

from __future__ import annotations

from cgledger.ledger.decide.fair import RULE
from cgledger.ledger.domain.commands import DeclareRoll, DeclareSealed, RollCommand
from cgledger.ledger.domain.events import CampaignStarted, CGDateChanged, RollDeclared, StepOpened
from cgledger.ledger.trust import fairdice

from given import given
from test_rules_veiled import bought_in_secret, keyed

BLIND = "5a" * 32
BLINDED = fairdice.blinded(BLIND)
KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM")


def at_8_616(step: str = "8.616"):
    """KGP CG I on 19 PM at 8.616 (a Secret DR for each side), both sides' keys and fair dice."""
    return given(KGP, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date="19 PM"),
                 StepOpened(action=2, step=step), *keyed("german", 3), *keyed("us", 4))


def secret_roll(**more) -> DeclareRoll:
    return DeclareRoll(roll=RollCommand(table="8.616", side="german", faces=(), source="fair"), **more)


def test_a_secret_fair_roll_commits_to_its_blinding_value():
    (declared,) = at_8_616().when(secret_roll(blinded=BLINDED)).decided()
    assert (declared.secret, declared.value, declared.blinded) == (True, "", BLINDED)


def test_an_open_fair_roll_is_not_blinded():
    campaign = at_8_616("8.610")  # Wounded Leaders: an open dr
    open_roll = DeclareRoll(roll=RollCommand(table="8.610", side="us", faces=(), source="fair", purpose="A"),
                            blinded=BLINDED)
    campaign.when(open_roll).refused(RULE, "only a Secret fair roll is blinded")


def test_a_blinding_commitment_is_64_hex_digits():
    at_8_616().when(secret_roll(blinded="xyz")).refused(RULE, "64 hex digits")


def test_a_veiled_follow_up_commits_to_its_blinding_value_too():
    campaign = bought_in_secret()
    campaign.when(DeclareSealed(side="german", rg=9, commitment="ef" * 32, sealed="y", blinded=BLINDED)).then(
        RollDeclared(action=7, table="", side="german", n=1, rg=9, secret=True, commitment="ef" * 32, sealed="y",
                     blinded=BLINDED))
    campaign.when(DeclareSealed(side="german", rg=9, commitment="ef" * 32, sealed="y", blinded="00")).refused(
        RULE, "64 hex digits")
