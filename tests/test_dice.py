from __future__ import annotations

import pytest

from cgledger.ledger.rules import dice
from cgledger.ledger.errors import BadInput


def test_dr_keeps_white_and_colored():
    assert dice.parse_entered("DR", "3,4") == (3, 4)
    assert dice.read("DR", (3, 4), "white") == 3
    assert dice.read("DR", (3, 4), "colored") == 4
    assert dice.total("DR", (3, 4)) == 7


@pytest.mark.parametrize("die, text, value", [("dr", "5", 5), ("d10", "7", 7), ("d10", "0", 10),
                                              ("d100", "0,7", 7), ("d100", "07", 7), ("d100", "00", 100),
                                              ("d100", "9,9", 99)])
def test_entered_dice(die, text, value):
    assert dice.total(die, dice.parse_entered(die, text)) == value


@pytest.mark.parametrize("die, text", [("DR", "0,4"), ("DR", "7,1"), ("dr", "1,2"), ("d10", "10"), ("DR", "a,b"), ("d100", "1,2,3")])
def test_bad_entered_dice(die, text):
    with pytest.raises(BadInput):
        dice.parse_entered(die, text)


@pytest.mark.parametrize("die", ["DR", "dr", "d10", "d100"])
def test_sources_stay_in_range(die):
    count, low, high = dice.FACES[die]
    for source in (dice.SystemDice(), dice.SeededDice(7)):
        for _ in range(300):
            faces = source.roll(die)
            assert len(faces) == count and all(low <= f <= high for f in faces)


def test_seeded_dice_repeat_and_are_labelled():
    assert [dice.SeededDice(3).roll("DR") for _ in range(1)] == [dice.SeededDice(3).roll("DR")]
    assert dice.SeededDice(3).name == "seeded" and dice.SystemDice().name == "rng"


def test_every_dr_total_occurs():
    source = dice.SeededDice(11)
    assert {sum(source.roll("DR")) for _ in range(2000)} == set(range(2, 13))
