"""DESIGN.md: a command is a type, and every fact names its command. Decisions are tested here
without any store (given facts, when a command, then facts or a refusal), and every fact kind either names the
command it records (`command_of`) or is one the audit checks apart, listed with why."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import msgspec
import pytest

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide import commands
from cgledger.ledger.decide.commands import Context, decide
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import (
    FACTS, ActionUndone, CampaignStarted, CGDateChanged, ChitRevealed, ChitSealed, CPPGained, DiceReported, DiceRolled,
    InitiativeChosen, LocationControlled,
    Rewound, RGPurchaseSealed, RubblePlaced, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered,
    StepOpened, TablesOverridden, VaslLogImported,
)
from cgledger.ledger.trust.secrets import commitment
from cgledger.ledger.domain.evolve import fold
from cgledger.ledger.trust.logged import Logged

# checked by the audit without a command of their own, and why
CHECKED_APART = {
    CampaignStarted: "the first event: nothing before it to decide it on",
    DiceRolled: "a roll: its RollCommand (decide/rolls.py command_of), dice and VASL report checked together",
    CGDateChanged: "decided with the step that crosses into it (Step)",
    StepOpened: "the Step command, with the target the walk ended on",
    SideAdvanced: "the Step command of the side that walked",
    ActionUndone: "an undo or an accepted proposal: rights.taken_back, with its author",
    Rewound: "as ActionUndone",
    TablesOverridden: "a rules file loaded or accepted: rights.tables_overridden, with its author",
    CPPGained: "written only with the step or firefight end that decides it",
    RubblePlaced: "written only with the roll whose result decides it",
    DiceReported: "a VASL report kept as pasted: its dice are read again from its line",
    VaslLogImported: "in a log of forms 1 and 2: its reports' dice read again from their lines (today: ImportVasl)",
}


def test_every_fact_kind_names_its_command_or_why_it_is_checked_apart():
    for kind in FACTS:
        assert (kind in commands.COMMANDS) != (kind in CHECKED_APART), kind.__name__
    kinds = {c for c in vars(commands).values()
             if isinstance(c, type) and issubclass(c, commands.Command) and c is not commands.Command}
    assert set(commands.DECISIONS) == kinds | {commands.rolls.RollCommand}  # every command type has its decision


def given(*facts):
    """The state the given facts fold to (no store: the events as a log reads them)."""
    at = datetime(2026, 11, 24, tzinfo=timezone.utc)
    return fold([Logged(i + 1, at, "", f"d{i}", type(f).__name__, f) for i, f in enumerate(facts)])


START = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM")
RULES = rulesmod.load("kgp")


MAP = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"


def test_control_given_a_campaign_when_control_then_location_controlled():
    mapped = TablesOverridden(action=1, source=MAP.name, text=MAP.read_text(encoding="utf-8"), tables=("map St",))
    state = given(START, mapped, StepOpened(action=2, step="scenario"))
    rules = rulesmod.load("kgp", state.override_sources())
    facts = decide(state, rules, commands.Control(location="StJ19", side="us", strategic="B"))
    assert facts == [LocationControlled(action=3, location="StJ19", side="us", strategic="B")]
    with pytest.raises(LedgerError, match="8.605"):  # the same command before the scenario: refused, no fact
        decide(given(START, mapped), rules, commands.Control(location="StJ19", side="us", strategic="B"))


def test_a_refusal_cites_its_rule_and_gives_no_fact():
    state = given(START)
    with pytest.raises(LedgerError) as refused:
        decide(state, RULES, commands.Buy(rg="ZZ9", side="german"))
    assert refused.value.rule


def test_the_step_decision_knows_who_walks():
    state = given(START)
    facts = decide(state, RULES, commands.Step(target="scenario"), Context(by=""))
    assert isinstance(facts[-1], StepOpened) and facts[-1].step == "scenario"


# ---- the sealed acts: what both sides see is decided from the command; the rest once revealed ----------------------
KEY = SideKeyRegistered(action=1, side="german", salt="s" * 16, check="c" * 16)
AT_8616 = (CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="20 AM"), KEY, StepOpened(action=2, step="8.616"))


def _logged(*facts):
    at = datetime(2026, 11, 24, tzinfo=timezone.utc)
    return [Logged(i + 1, at, "", f"d{i}", type(f).__name__, f) for i, f in enumerate(facts)]


def test_a_secret_roll_given_a_key_when_sealed_then_its_public_record_and_its_reveal_binds_the_dice():
    state = given(*AT_8616)
    rolled, = decide(state, RULES, commands.RollCommand(table="8.616", side="german", faces=(6, 5), source="entered",
                                                       secret=True))
    salt = "f" * 32
    seal = commands.SealRoll(table="8.616", side="german", commitment=commitment(rolled, salt), sealed="sealed text")
    made, = decide(state, RULES, seal)
    assert made == SecretRollMade(action=3, table="8.616", rule="8.616", side="german", die="DR",
                                  effect="cpp_replenishment", commitment=seal.commitment, sealed="sealed text",
                                  item="8.616|german|20 AM")  # 8.616: the item it uses up, seen by both sides
    with pytest.raises(LedgerError, match="no key"):  # the U.S. side has no key to seal with
        decide(state, RULES, msgspec.structs.replace(seal, side="us"))
    with pytest.raises(LedgerError, match="8.616"):  # out of its step: refused like the open roll
        decide(given(*AT_8616[:2]), RULES, seal)
    log = _logged(*AT_8616, made)
    after = fold(log)
    shown = commands.RevealRoll(roll=4, fact=rolled, salt=salt)
    assert decide(after, RULES, shown, Context(log=log)) == [SecretRollRevealed(action=4, roll=4, fact=rolled,
                                                                                salt=salt)]
    doctored = msgspec.structs.replace(rolled, dice=(6, 6), original=12, final=12)
    with pytest.raises(LedgerError, match="does not match its commitment"):
        decide(after, RULES, msgspec.structs.replace(shown, fact=doctored), Context(log=log))
    with pytest.raises(LedgerError, match="no unrevealed Secret roll"):  # revealed once only
        decide(given(*AT_8616, made, SecretRollRevealed(action=4, roll=4, fact=rolled, salt=salt)), RULES, shown,
               Context(log=log))


def test_a_reveal_of_several_secrets_is_one_action_decided_on_the_campaign_before_it():
    state = given(*AT_8616)
    rolled, = decide(state, RULES, commands.RollCommand(table="8.616", side="german", faces=(2, 3), source="entered",
                                                       secret=True))
    made, = decide(state, RULES, commands.SealRoll(table="8.616", side="german",
                                                   commitment=commitment(rolled, "a" * 32), sealed="x"))
    log = _logged(*AT_8616, made)
    after = fold(log)
    both = commands.Reveal(acts=(commands.RevealRoll(roll=4, fact=rolled, salt="a" * 32),))
    revealed = decide(after, RULES, both, Context(log=log))
    assert [type(f) for f in revealed] == [SecretRollRevealed] and {f.action for f in revealed} == {4}
    with pytest.raises(LedgerError, match="is no unrevealed Secret roll"):  # an event that sealed nothing
        decide(after, RULES, commands.Reveal(acts=(commands.RevealRoll(roll=3, fact=rolled, salt="a" * 32),)),
               Context(log=log))


def test_a_secret_purchase_is_sealed_only_in_its_step_by_a_side_with_a_key():
    seal = commands.SealPurchase(side="german", commitment="ab" * 32, sealed="x")
    with pytest.raises(LedgerError, match="8.619"):  # the campaign is at 8.616
        decide(given(*AT_8616), RULES, seal)
    at_purchases = given(*AT_8616[:2], StepOpened(action=2, step="8.619"))
    made, = decide(at_purchases, RULES, seal)
    assert made == RGPurchaseSealed(action=3, side="german", cg_date="20 AM", commitment=seal.commitment, sealed="x")
    with pytest.raises(LedgerError, match="no key to seal its purchase"):
        decide(at_purchases, RULES, msgspec.structs.replace(seal, side="us"))


def test_the_second_chit_revealed_resolves_the_matrix_in_its_own_action():
    """8.6232: once both chits are shown the matrix gives the Initiative; the reveal that completes the pair decides
    both facts in one action, so that no side can stop between them."""
    from cgledger.ledger.decide import chits

    keys = [SideKeyRegistered(action=1, side=s, salt="s" * 16, check="c" * 16) for s in ("german", "us")]
    sealed = [ChitSealed(action=3 + i, side=s, cg_date="20 AM", commitment=chits.commitment(s, c, "b" * 32),
                         sealed="x") for i, (s, c) in enumerate((("german", "attack"), ("us", "idle")))]
    both = (CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="20 AM"), *keys,
            StepOpened(action=2, step="8.623"), *sealed)
    first = decide(given(*both), RULES, commands.RevealChit(side="german", chit="attack", salt="b" * 32))
    assert first == [ChitRevealed(action=5, side="german", chit="attack", salt="b" * 32)]
    second = decide(given(*both, *first), RULES, commands.RevealChit(side="us", chit="idle", salt="b" * 32))
    assert [type(f) for f in second] == [ChitRevealed, InitiativeChosen] and {f.action for f in second} == {6}
    assert second[1].chits == {"german": "attack", "us": "idle"}
    with pytest.raises(LedgerError, match="not the one sealed"):  # a chit changed after seeing the other's
        decide(given(*both, *first), RULES, commands.RevealChit(side="us", chit="attack", salt="b" * 32))
