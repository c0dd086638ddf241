"""What the application service gives back for a roll (made or declared) and for `audit --fast`. msgspec Structs (a
frozen dataclass costs ~0.5 ms to define in every process), in a module whose annotations stay real
(tests/test_start.py)."""

import msgspec

from .events import DiceRolled
from ..rules import Resolution


class Rolled(msgspec.Struct, frozen=True):
    fact: DiceRolled
    resolution: Resolution
    cg_date: str
    version: int
    side_name: str
    sealed: bool = False  # recorded as a SecretRollMade: only its side can read it
    effects: tuple = ()  # CGS: what it did on the hexes it names (and the hidden ones it revealed there first)


class Declared(msgspec.Struct, frozen=True):
    """A fair roll declared: its dice come once the other side's ledger answers."""

    fact: object  # RollDeclared
    table: object
    cg_date: str
    version: int
    side_name: str
    answerer: str
    rg_name: str = ""  # the RG a follow-up roll is for, as its side knows it ('I3')


class Verified(msgspec.Struct, frozen=True):
    """What `audit --fast` found: the log's length, the event up to which this machine had verified it before (0:
    none, or the log no longer extends its mark: `broken`), and the problems of the events checked now."""
    events: int
    trusted: int
    broken: bool
    findings: tuple

    @property
    def clean(self) -> bool:
        return not self.findings
