"""Which actions are in force: the one notion used by the state fold, the audit and the projections.
An undo voids one command's acts, a rewind every action after a CG Date's RePh end; both are facts themselves."""

from __future__ import annotations

from .events import ActionUndone, Rewound


def voided_by(fact) -> tuple[int, ...] | None:
    """The actions this fact voids, or None when it is no undo or rewind."""
    if isinstance(fact, ActionUndone):
        return (fact.undone, *fact.also)
    if isinstance(fact, Rewound):
        return tuple(fact.voided)
    return None


_VOIDING = (ActionUndone, Rewound)


def voided_actions(logged) -> set[int]:
    """Actions voided by an undo or a rewind anywhere in the given events."""
    voided: set[int] = set()
    for event in logged:
        fact = event.fact
        if isinstance(fact, _VOIDING):
            voided.update(voided_by(fact))
    return voided


def in_force(fact, voided: set[int]) -> bool:
    """Whether an event is in force: readable, no undo or rewind itself, of an action none of `voided`."""
    return fact is not None and not isinstance(fact, _VOIDING) and (
        not voided or getattr(fact, "action", None) not in voided)


def live(logged) -> list:
    """The events of actions still in force (undo and rewind events themselves excluded)."""
    voided = voided_actions(logged)
    return [e for e in logged if in_force(e.fact, voided)]
