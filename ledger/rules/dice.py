"""Dice: DR (white + colored d6), dr (one d6), d10 and d100 (CGS percentile dice).

Dice are rolled by the service *before* an event is triggered and stored as faces, so
replaying the log never rolls again. `source` says where the faces came from.
"""

from __future__ import annotations

from typing import Literal, Protocol

from ..errors import BadInput

Die = Literal["DR", "dr", "d10", "d100"]

# Faces per die type: how many physical dice, and each die's face range.
# d10 faces are 0-9 as printed; a lone d10 reads "0" as 10. d100 is two d10
# (tens, units) and "00" reads as 100 (CGS; decision noted in ledger/rules/README.md).
FACES: dict[str, tuple[int, int, int]] = {
    "DR": (2, 1, 6),
    "dr": (1, 1, 6),
    "d10": (1, 0, 9),
    "d100": (2, 0, 9),
}
DIE_NAMES = {"DR": ("white", "colored"), "dr": ("die",), "d10": ("d10",), "d100": ("tens", "units")}


def total(die: str, faces: tuple[int, ...] | list[int]) -> int:
    """The roll's value as the rules read it."""
    if die == "d10":
        return faces[0] or 10
    if die == "d100":
        value = faces[0] * 10 + faces[1]
        return value or 100
    return sum(faces)


def value_range(die: str) -> tuple[int, int]:
    count, low, high = FACES[die]
    if die == "d10":
        return 1, 10
    if die == "d100":
        return 1, 100
    return count * low, count * high


def read(die: str, faces: tuple[int, ...] | list[int], reads: str) -> int:
    """What a table reads: the total, or one die of a DR (e.g. KGP8 reads the colored dr)."""
    if reads == "total":
        return total(die, faces)
    names = DIE_NAMES[die]
    if reads not in names:
        raise BadInput(f"a {die} has no {reads} die")
    return faces[names.index(reads)]


def check_faces(die: str, faces: tuple[int, ...]) -> tuple[int, ...]:
    count, low, high = FACES[die]
    if len(faces) != count:
        names = ",".join(n.upper() if die == "DR" else n for n in DIE_NAMES[die])
        raise BadInput(f"a {die} takes {count} {'die' if count == 1 else 'dice'} ({names}), got {len(faces)}")
    for face in faces:
        if not low <= face <= high:
            raise BadInput(f"die value {face} is out of range {low}-{high} for a {die}")
    return faces


def parse_entered(die: str, text: str) -> tuple[int, ...]:
    """Dice entered as rolled at the table: '3,4' (white,colored) for a DR, '5' for a dr,
    '7' for a d10, '0,7' or '07' or '00' for a d100."""
    text = text.strip()
    if die == "d100" and "," not in text and len(text) == 2:
        parts = list(text)
    else:
        parts = [p.strip() for p in text.split(",")]
    try:
        faces = tuple(int(p) for p in parts)
    except ValueError:
        raise BadInput(f"malformed dice '{text}': give whole numbers separated by commas, e.g. 3,4") from None
    return check_faces(die, faces)


class DiceSource(Protocol):
    name: str

    def roll(self, die: str) -> tuple[int, ...]: ...


class SystemDice:
    """Cryptographic RNG (the default)."""

    name = "rng"

    def roll(self, die: str) -> tuple[int, ...]:
        count, low, high = FACES[die]
        import secrets  # here: a read never rolls

        return tuple(low + secrets.randbelow(high - low + 1) for _ in range(count))


class SeededDice:
    """Deterministic dice from a seed, for tests and demos. Recorded as source 'seeded' so a
    seeded roll can never pass for a fair one."""

    name = "seeded"

    def __init__(self, seed: int | str):
        import random

        self._random = random.Random(seed)

    def roll(self, die: str) -> tuple[int, ...]:
        count, low, high = FACES[die]
        return tuple(self._random.randint(low, high) for _ in range(count))
