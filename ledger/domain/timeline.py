"""Where each CG Date's RePh ended in the log: the point `--as-of DATE` reads to and
`rewind DATE` resumes from (the CG scenario about to begin, or an Idle Day's initiative)."""

from __future__ import annotations

import re

from .events import ActionUndone, CampaignStarted, CGDateChanged, InitiativeChosen, StepOpened
from .apply import IDLE_DAY, SCENARIO
from .inforce import live, voided_actions  # noqa: F401 - the one notion of "in force", re-exported



def reph_ends(logged) -> dict[str, int]:
    """CG Date -> version of the event that ended its RePh, among the actions in force. In a system without
    a Refit Phase (CGS: one firefight after another) a CG Date ends with its firefight: `--as-of Firefight 1`
    is the map Firefight 1 left."""
    from .events import FirefightEnded

    events = live(logged)
    no_reph = any(isinstance(e.fact, FirefightEnded) for e in events)
    ends: dict[str, int] = {}
    date = None
    for event in events:
        fact = event.fact
        if isinstance(fact, CampaignStarted):
            date = fact.cg_date
        elif isinstance(fact, CGDateChanged):
            date = fact.cg_date
        elif isinstance(fact, FirefightEnded) and no_reph:
            ends.setdefault(fact.firefight, event.version)
        elif date and ends_reph(fact):
            ends.setdefault(date, event.version)
    return ends


def ends_reph(fact) -> bool:
    """Whether this event ends its CG Date's RePh (the first such event of the date does): the CG scenario about to
    begin, or an Idle Day's initiative."""
    return (isinstance(fact, StepOpened) and fact.step == SCENARIO) or (
        isinstance(fact, InitiativeChosen) and fact.scenario == IDLE_DAY)


def as_of(logged, date: str | None, calendar) -> list:
    """The log as it stood at the end of `date`'s RePh (all of it when `date` is None)."""
    if date is None:
        return logged
    from ..errors import BadInput

    canonical = calendar.parse(date).text
    ends = reph_ends(logged)
    if canonical not in ends:
        raise BadInput(f"the RePh of CG Date {canonical} has not ended in this campaign's log "
                       f"(ended: {', '.join(ends) or 'none yet'})",
                       calendar.rule[:-3] if calendar.rule else None)
    return [e for e in logged if e.version <= ends[canonical]]


def summary(fact, sides: dict[str, str]) -> str:
    """A few words for what an event recorded (for undo notes and the 'moved on' message)."""
    from .events import DiceRolled, RGPurchased

    side = sides.get(getattr(fact, "side", ""), "")
    if isinstance(fact, DiceRolled):
        return f"{side} roll on {fact.table} ({fact.result})"
    if isinstance(fact, RGPurchased):
        return f"{side} RG {fact.rg} purchase"
    if isinstance(fact, StepOpened):
        return f"step {fact.step}"
    if isinstance(fact, CGDateChanged):
        return f"new CG Date {fact.cg_date}"
    if isinstance(fact, ActionUndone):
        return f"undo of action {fact.undone}"
    if type(fact).__name__ == "VaslLogImported":
        return f"VASL import of {fact.file}"
    if type(fact).__name__ in ("SecretRollMade", "RollDeclared") and not fact.table:  # veiled (8.619)
        return f"{side or 'a side'} Secret roll for an RG bought in secret" + (
            " declared" if type(fact).__name__ == "RollDeclared" else "")
    named = _WORDS.get(type(fact).__name__)
    if named is not None:
        return named.format(side=side or "a side", fact=fact)
    import re  # any other fact: its name in words, never the internal one

    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(fact).__name__).lower()


def kind_words(fact_or_name) -> str:
    """An event's kind in words for findings and refusals ('dice witnessed', 'RG purchase sealed'): never its
    internal name. Accepts a fact, its type or its stored topic."""
    name = fact_or_name if isinstance(fact_or_name, str) else (
        fact_or_name.__name__ if isinstance(fact_or_name, type) else type(fact_or_name).__name__)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name).split()
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)


_WORDS = {  # what players call each record (player-facing text never shows an event's internal name)
    "RGPurchaseSealed": "{side} RG bought in secret",
    "RGPurchaseRevealed": "reveal of a secret RG purchase",
    "SecretRollMade": "{side} Secret roll on {fact.table}",
    "RollDeclarationRevealed": "reveal of a veiled roll declaration",
    "SecretRollRevealed": "reveal of a Secret roll",
    "RollDeclared": "{side} fair roll on {fact.table} declared",
    "RollAnswered": "{side} answer to a fair roll",
    "RollLapsed": "{side} roll that lapsed: its RG's strength called for none",
    "LocationControlled": "Control of {fact.location} by {side}",
    "ScenarioEnded": "the end of the {fact.scenario}",
    "InitiativeChosen": "Initiative: {fact.scenario}",
    "FortificationsPurchased": "{side} Fortifications",
    "SideAdvanced": "{side} done up to {fact.step}",
    "DiceWitnessed": "{side} word on the other side's dice",
    "ChitSealed": "{side} Initiative chit sealed",
    "ChitRevealed": "{side} Initiative chit revealed",
    "TakeBackProposed": "a take-back proposal",
    "SideKeyRegistered": "{side} key set up",
    "DiceCommitted": "{side} fair-dice commitment",
    "DiceChainRenewed": "{side} next fair-dice {fact.chain} chain",
    "TablesOverridden": "a rules file",
    "RulesProposed": "a rules file proposed",
    "Rewound": "a rewind to {fact.cg_date}",
}


def effective(logged, opened: dict | None = None) -> list:
    """The log as the projections read it: a Secret roll, a secret RG purchase or a veiled roll declaration that was
    revealed (or that this player's own key opens) stands as the roll, purchase or declaration it was, at its own
    place; the reveal events themselves drop out."""
    from msgspec.structs import replace

    from .events import TAGS, RGPurchaseRevealed, RollDeclarationRevealed, SecretRollRevealed

    known = dict(opened or {})
    reveals = False
    for event in logged:
        kind = type(event.fact)
        if kind is SecretRollRevealed:
            known[event.fact.roll] = event.fact.fact
            reveals = True
        elif kind is RGPurchaseRevealed:
            known[event.fact.purchase] = event.fact.fact
            reveals = True
        elif kind is RollDeclarationRevealed:
            known[event.fact.declared] = event.fact.fact
            reveals = True
    if not known and not reveals:
        return list(logged)  # nothing sealed opens and no reveal drops out: the log as it is
    out = []
    for event in logged:
        if isinstance(event.fact, (SecretRollRevealed, RGPurchaseRevealed, RollDeclarationRevealed)):
            continue
        fact = known.get(event.version)
        out.append(replace(event, fact=fact, topic=TAGS[type(fact)]) if fact is not None else event)
    return out
