"""DESIGN.md: a command is a type, and every fact names its command. Decisions are tested here
without any store (given facts, when a command, then facts or a refusal), and every fact kind either names the
command it records (`command_of`) or is one the audit checks apart, listed with why."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide import commands
from cgledger.ledger.decide.commands import Context, decide
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import (
    FACTS, ActionUndone, CampaignStarted, CGDateChanged, CPPGained, DiceReported, DiceRolled,
    HiddenFortificationPlaced, HiddenFortificationRevealed, LocationControlled, Rewound, RGPurchaseRevealed,
    RGPurchaseSealed, RubblePlaced, SecretRollMade, SecretRollRevealed, SideAdvanced, StepOpened, TablesOverridden,
    VaslLogImported,
)
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
    RGPurchaseSealed: "a purchase nobody else can read: admitted as one, decided again once revealed",
    HiddenFortificationPlaced: "a placement nobody else can read: admitted as one, decided again once revealed",
    SecretRollMade: "a roll nobody else can read: admitted (table, due item), decided again once revealed",
    SecretRollRevealed: "checked against its commitment, then decided as the roll it was",
    RGPurchaseRevealed: "checked against its commitment, then decided as the purchase it was",
    HiddenFortificationRevealed: "checked against its commitment, then decided as the placement it was",
    CPPGained: "written only with the step or firefight end that decides it",
    RubblePlaced: "written only with the roll whose result decides it",
    DiceReported: "a VASL report kept as pasted: its dice are read again from its line",
    VaslLogImported: "an import keeps its files' reports: each one's dice are read again from its line",
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
