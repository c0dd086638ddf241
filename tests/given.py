"""Given facts, when a command, then facts or a refusal citing its rule: one decision tested alone, on the state the
given facts fold to, with the rules in force in that campaign (its system, the rules files it loaded). No store, no
CLI: the decision the command path, the audit and `import` all run (ledger/decide/commands.py `decide`).

    given(START, StepOpened(action=2, step="2.518")).when(Buy(rg="I1", side="german")).refused("2.5184", "costs 28")
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cgledger.ledger import rules as rulesmod
from cgledger.ledger.decide.commands import Context, decide
from cgledger.ledger.domain.evolve import fold
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.trust.logged import Logged

AT = datetime(2026, 11, 24, tzinfo=timezone.utc)


def logged(*facts) -> list[Logged]:
    """The facts as a log reads them: event n is the n-th fact."""
    return [Logged(i + 1, AT, "", f"d{i}", type(f).__name__, f) for i, f in enumerate(facts)]


class Given:
    """A campaign whose log holds these facts, in this order."""

    def __init__(self, *facts):
        self.facts = facts
        self.log = logged(*facts)
        self.state = fold(self.log)
        self.rules = rulesmod.for_campaign(self.state)

    def and_then(self, *more) -> "Given":
        return Given(*self.facts, *more)

    @property
    def next_action(self) -> int:
        return self.state.next_action

    def when(self, command, by: str = "", sealed_cpp=0, sealed_fpp: float = 0) -> "When":
        return When(self, command, Context(by=by, log=self.log, sealed_cpp=sealed_cpp, sealed_fpp=sealed_fpp))


class When:
    def __init__(self, given: Given, command, context: Context):
        self.given, self.command, self.context = given, command, context

    def decided(self) -> list:
        return decide(self.given.state, self.given.rules, self.command, self.context)

    def then(self, *facts) -> list:
        """The decision gives exactly these facts (whole structs, the action number included)."""
        decided = self.decided()
        assert decided == list(facts)
        return decided

    def refused(self, rule: str | None, *words: str) -> LedgerError:
        """The decision refuses, citing `rule` (the campaign's own system's), its one line holding every word given."""
        with pytest.raises(LedgerError) as refusal:
            self.decided()
        assert refusal.value.rule == rule, refusal.value.line()
        for word in words:
            assert word in refusal.value.line()
        assert "\n" not in refusal.value.line()
        return refusal.value


def given(*facts) -> Given:
    return Given(*facts)
