"""The dice view's fold (projections/dice_stats.resume) counts the rolls nobody need witness in batches (the
dice fold was ~half of a cold `history`): whatever the log, and wherever it is cut into folds, the view is byte for
byte the one that folding each event by itself (`_step`, the definition) gives: the counts, the sums, the streaks, the
rolls waiting for a witness and the order of every key."""

from __future__ import annotations

import random
from typing import NamedTuple

import msgspec
import pytest

from cgledger.ledger.domain.events import CGDateChanged, DiceReported, DiceRolled, DiceWitnessed, SideKeyRegistered
from cgledger.projections import dice_stats


class Event(NamedTuple):
    version: int
    fact: object


def random_log(rng: random.Random, size: int) -> list[Event]:
    """Rolls of every die and source (claims among them once both sides register keys: `entered`, `vasl`), Secret
    ones, rolls of an earlier action, key registrations, witnesses (some disputed), VASL reports, CG Dates."""
    log: list[Event] = []
    rolled: list[int] = []
    for version in range(1, size + 1):
        draw = rng.random()
        if draw < 0.03:
            fact = SideKeyRegistered(action=version, side=rng.choice(["german", "us"]), salt="s", check="c",
                                     public=rng.choice(["", "ab"]))
        elif draw < 0.08 and rolled:
            fact = DiceWitnessed(action=version, side="us", rolls=tuple(rng.sample(rolled, min(len(rolled), 3))),
                                 disputed=rng.choice(["", "", "not what I saw"]))
        elif draw < 0.10:
            fact = CGDateChanged(action=version, previous="18 PM", cg_date=rng.choice(["19 AM", "19 PM", "20 AM"]))
        elif draw < 0.12:
            die = rng.choice(["DR", "dr"])
            fact = DiceReported(action=version, die=die, dice=tuple(rng.randint(1, 6) for _ in range(len(die))),
                                side=rng.choice(["", "us"]), player="Hans", vasl="Hans: DR")
        else:
            die = rng.choice(["DR", "DR", "dr", "3d6", "d10"])
            dice = tuple(rng.randint(1, 6) for _ in range({"DR": 2, "dr": 1, "3d6": 3, "d10": 1}[die]))
            source = rng.choice(["rng", "seeded", "fair", "entered", "entered", "vasl", "rng"])
            fact = DiceRolled(action=version if rng.random() > 0.05 else rng.randint(1, version),
                              table=rng.choice(["8.6146", "8.616", ""]), rule="8.6146",
                              side=rng.choice(["german", "us", ""]), die=die, dice=dice, source=source,
                              original=sum(dice), final=sum(dice), result="-", secret=rng.random() < 0.1,
                              vasl="Hans: DR" if source == "vasl" and rng.random() < 0.5 else "",
                              player="Hans" if source == "vasl" else "")
            rolled.append(version)
        log.append(Event(version, fact))
    return log


def one_by_one(view: dict, log: list[Event]) -> dict:
    voided = set(view["voided"])
    for event in log:
        dice_stats._step(view, event.fact, event.version, voided)
    return view


@pytest.mark.parametrize("seed", range(60))
def test_the_fold_is_each_event_folded_by_itself(seed):
    rng = random.Random(seed)
    log = random_log(rng, rng.randint(1, 300))
    voided = sorted(rng.sample(range(1, len(log) + 1), min(len(log), rng.randint(0, 5))))
    expected = one_by_one(dice_stats.start(log, voided), log)
    view = dice_stats.start(log, voided)
    at = 0
    for cut in sorted(rng.sample(range(len(log) + 1), min(3, len(log) + 1))) + [len(log)]:  # as `advance` folds
        dice_stats.resume(view, log[at:cut])
        at = cut
    assert msgspec.json.encode(view) == msgspec.json.encode(expected)
    assert dice_stats.finish(view) == dice_stats.finish(expected)


def test_the_logs_cover_what_the_batches_must_not_take():
    """The generator's logs do hold rolls waiting for a witness, claims and the dice of other kinds."""
    views = [dice_stats.fold(random_log(random.Random(seed), 300)) for seed in range(20)]
    assert sum(bool(v["pending"]) for v in views) >= 5 and sum(bool(v["claims"]) for v in views) >= 5
    assert any(g["source"] == "entered" for v in views for g in v["groups"].values())
    assert any(v["vasl"]["all"]["scenarios"] for v in views)
