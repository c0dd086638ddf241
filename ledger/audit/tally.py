"""What the audit's replay keeps as the log goes by, for the checks only the whole log allows: rolls declared for
one result of their RG's strength roll (`Conditions`), the fair-dice events, reveals and undos (`Kept`), and the due
items rolled and in force (`UsedUp`)."""

from __future__ import annotations

from ..domain.events import (
    CGDateChanged, DiceRolled, FairDiceCommitted, FairSeedRevealed, RGPurchaseRevealed, RollDeclarationRevealed,
    RollDeclared, RollLapsed,
    SecretRollMade, SecretRollRevealed,
)
from ..domain.inforce import voided_by


class Conditions:
    """Rolls declared for one result of their RG's strength roll (RR 2.5192, KGP 8.6204), as the log goes by: each
    must lapse if the strength gave another result and be made if it gave that one. An open strength is decided with
    them; a Secret one (its roller's ledger alone knew it) is checked here once revealed."""

    def __init__(self):
        self.declared: dict[tuple[str, int], tuple[int, int, int, str, str]] = {}  # (side, n) -> version, action ...
        self.lapsed: list[tuple[int, int, int]] = []  # (version, action, declaration)
        self.made: list[tuple[int, int, str, int]] = []  # (version, action, side, n)
        self.strength: list[tuple[int, int, str]] = []  # (action, rg, code)

    def add(self, version: int, fact) -> None:
        if isinstance(fact, RollDeclared) and fact.if_result:
            self.declared[(fact.side, fact.n)] = (version, fact.action, fact.rg, fact.if_result, fact.table)
        elif isinstance(fact, RollDeclarationRevealed):  # veiled (8.619): its condition, if any, known now
            opened = fact.fact
            self.declared[(opened.side, opened.n)] = (fact.declared, opened.action, opened.rg, opened.if_result,
                                                      opened.table)
        elif isinstance(fact, RollLapsed):
            self.lapsed.append((version, fact.action, fact.declared))
        rolled = fact.fact if isinstance(fact, SecretRollRevealed) else fact
        if isinstance(rolled, DiceRolled) and self.declared:
            if rolled.effect == "rg_strength" and rolled.rg is not None:
                self.strength.append((fact.action, rolled.rg, rolled.code))
            if rolled.source == "fair" and (rolled.side, rolled.fair) in self.declared:
                self.made.append((version, fact.action, rolled.side, rolled.fair))

    def findings(self, voided: set[int]) -> list[tuple[int, str]]:
        if not self.declared:
            return []
        strength = {rg: code for action, rg, code in self.strength if action not in voided}
        by_version = {d[0]: (side, n, *d[1:]) for (side, n), d in self.declared.items() if d[1] not in voided}
        out = []
        for version, action, declared in self.lapsed:
            side, _n, _a, rg, code, table = by_version.get(declared, ("", 0, 0, None, "", ""))
            if action not in voided and side and not code:  # a veiled one, opened: declared without condition
                out.append((version, f"the {side} side's roll on {table}, declared for its RG bought in secret "
                                     "without condition, lapsed: it is made, never lapsed"))
            elif action not in voided and rg in strength and strength[rg] == code:
                out.append((version, f"the {side} side's roll on {table}, made only if its RG's strength roll gave "
                                     f"'{code}', lapsed: that roll gave '{code}'"))
        for version, action, side, n in self.made:
            _v, _a, rg, code, table = self.declared[(side, n)]
            if action not in voided and code and rg in strength and strength[rg] != code:
                out.append((version, f"the {side} side's roll on {table}, made only if its RG's strength roll gave "
                                     f"'{code}', was made: that roll gave '{strength[rg]}'"))
        return out


class Kept:
    """What the checks made after the replay read of the whole log, gathered as it goes by: the fair-dice events
    (`check_fair` reads those alone), the Secret rolls revealed, the undos (for the rolls in force per source:
    `sources`), whether a secret purchase or replenishment was revealed (then the log is decided again as its side
    knew it: `redecide.revealed`), the snapshots' events met, how many events and the last one."""

    def __init__(self):
        self.count = 0
        self.snapshots: set[int] = set()
        self.head: tuple[int, str] = (0, "")
        self.fair: list = []
        self.revealed: set[int] = set()
        self.revealing = False
        self.reveals: list[tuple[int, str]] = []  # Secret rolls revealed: (the reveal's action, the roll's source)
        self.voided: set[int] = set()
        self.conditions = Conditions()

    def add(self, event) -> None:
        self.count += 1
        self.head = (event.version, event.digest)
        fact = event.fact
        if fact is None:
            return
        if isinstance(fact, (FairDiceCommitted, FairSeedRevealed)) or (
                isinstance(fact, SecretRollRevealed) and getattr(fact.fact, "fair", None) is not None):
            self.fair.append(event)
        if isinstance(fact, SecretRollRevealed):
            self.revealed.add(fact.roll)
            self.revealing = self.revealing or getattr(fact.fact, "effect", "") == "cpp_replenishment"
            if isinstance(fact.fact, DiceRolled):
                self.reveals.append((fact.action, fact.fact.source))
        elif isinstance(fact, RGPurchaseRevealed):
            self.revealing = True
        self.voided.update(voided_by(fact) or ())
        self.conditions.add(event.version, fact)

    def unreplayed(self, fact) -> None:
        """A fact before any CampaignStarted, not replayed: a roll still counts in `sources`."""
        if isinstance(fact, DiceRolled):
            self.reveals.append((fact.action, fact.source))

    def sources(self, rolls_by_action: dict) -> dict[str, int]:
        """Rolls in force per source, as `sources_of` counts them over the whole log: the rolls (`rolls_by_action`)
        and Secret rolls revealed of the actions no undo or rewind voided."""
        counts: dict[str, int] = {}
        for action, rolls in rolls_by_action.items():
            if action not in self.voided:
                for roll in rolls:
                    if roll[5] != "sealed":  # a Secret roll counts once revealed (`reveals`)
                        counts[roll[5]] = counts.get(roll[5], 0) + 1
        for action, source in self.reveals:
            if action not in self.voided:
                counts[source] = counts.get(source, 0) + 1
        return counts


class UsedUp:
    """The due items rolled and in force, as the state kept them before a closed CG Date's items
    are kept with its change, and back if an undo or rewind takes that change back. The state no longer keeps them
    (they grew with the log, in every snapshot): a roll made again on a CG Date opened again is not refused, and the
    audit, which reads the whole log anyway, names it here."""

    def __init__(self):
        self.items: dict[str, tuple[int, int]] = {}  # item -> (event, action)
        self.closed: dict[int, dict[str, tuple[int, int]]] = {}  # the date change's action -> the items before it

    def record(self, fact, version: int) -> int | None:
        """Keeps the fact's item; the event that used it up already, if it is in force (a fair roll's item is used up
        by its declaration, which the roll resolves)."""
        if isinstance(fact, CGDateChanged):
            self.closed[fact.action] = self.items
            self.items = {}
        elif isinstance(fact, RollDeclared) and fact.item:
            self.items.setdefault(fact.item, (version, fact.action))
        elif isinstance(fact, (DiceRolled, SecretRollMade)) and fact.item and fact.fair is None:
            if fact.item in self.items:
                return self.items[fact.item][0]
            self.items[fact.item] = (version, fact.action)
        return None

    def void(self, actions) -> None:
        for action in sorted(actions, reverse=True):
            self.items = {k: v for k, v in self.items.items() if v[1] != action}
            if action in self.closed:
                self.items = self.closed.pop(action)
