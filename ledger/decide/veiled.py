"""The follow-up rolls of an RG bought in secret, veiled (8.619: "the RG(s) purchased may all be kept secret"; its
follow-ups, 8.620, would name it: 8.6201 is a German RG's strength, 8.6203/I a U.S. Med Tank Pltn's model). Such a
roll is declared and made with its table, DRMs, purpose, due item and condition sealed with its side's key under a
commitment; the other side sees only that the side rolled for that RG. Its side's own ledger opens them (its own
books decide them in full); all are published with the RG, in one action, and decided again then (redecide.py
`revealed`). Pure decisions: the sealing is the service's (ledger/trust/secrets.py)."""

from __future__ import annotations

from ..errors import BadInput
from ..sha import is_digest
from ..domain.events import RollDeclarationRevealed, RollDeclared
from ..domain.evolve import CampaignState
from ..rules import Rules
from ..trust.secrets import commitment
from . import fair, rolls
from .steps import acting_step, steps_of, title


def rule(rules: Rules) -> str | None:
    """The rule that keeps an RG purchase secret in the campaign's own system (KGP 8.619, RR 2.518)."""
    return next((s.id for s in rules.system.steps if s.purchase == "rg" and s.secret), None)


def veiled(entry: dict | None) -> bool:
    """Whether a declared roll (an entry of `state.declared`) is veiled: its declaration sealed, not yet opened."""
    return bool(entry and entry.get("commitment"))


def followed_secretly(state: CampaignState, rg: int | None) -> bool:
    """Whether a roll for RG event `rg` follows up an RG bought in secret and not revealed: veiled."""
    return rg is not None and str(rg) in state.secret_rgs


def _secret_rg(state: CampaignState, rules: Rules, side: str, rg: int | None) -> None:
    """The side's own RG bought in secret on this CG Date, not revealed, the side in the step of its follow-ups."""
    who = rules.system.sides[side]
    bought = state.secret_rgs.get(str(rg))
    if bought is None or bought["side"] != side:
        raise BadInput(f"event {rg} is no RG the {who} side bought in secret and has not revealed: a roll for any "
                       "other RG is made in the open", rule(rules))
    followups = steps_of(rules, "rg_followups")
    at = acting_step(rules, state, side)
    if bought["cg_date"] != state.cg_date or at not in followups:
        where = f"the {who} side is at {title(rules, at)}" + (
            f" of {state.cg_date}" if bought["cg_date"] != state.cg_date else "")
        raise BadInput(f"an RG's follow-up rolls are made in step {'/'.join(followups)} of the CG Date it was bought "
                       f"({bought['cg_date']}); {where}", followups[0] if followups else rule(rules))


def _well_sealed(sealed_with: str, sealed: str) -> None:
    if not is_digest(sealed_with) or not sealed:
        raise BadInput("a veiled roll names its commitment (64 hex digits) and its sealed text", fair.RULE)


def declare(state: CampaignState, rules: Rules, side: str, rg: int, sealed_with: str, sealed: str,
            blinded: str = "") -> RollDeclared:
    """A fair roll for an RG bought in secret, as both sides decide it before the RG is revealed: the side's own RG
    of this CG Date, the side in the step of its follow-ups, both chains on record for its n. What it is for is
    decided when it is revealed (redecide.py `revealed`), as the buyer's ledger decided it on its own books."""
    fair.check_ready(state, rules)
    side = rules.side(side)
    _secret_rg(state, rules, side, rg)
    _well_sealed(sealed_with, sealed)
    n = state.fair_n.get(side, 0) + 1
    fair.check_covered(state, rules, side, n)
    fair.check_blinded(blinded, True)
    return RollDeclared(action=state.next_action, table="", side=side, n=n, rg=rg, secret=True,
                        commitment=sealed_with, sealed=sealed, blinded=blinded)


def followups_kept(rules: Rules, side: str) -> int:
    """How many veiled follow-ups each RG a side buys in secret declares (8.619): the most any line of the side's
    chart can call for before its strength is known (its rolls, and its rolls for one strength result), so that their
    number tells neither the RG nor its strength. The ones its RG does not call for keep the count: made void."""
    return max((len(line.rolls) + max((len(more) for more in line.rolls_if.values()), default=0)
                for (s, _id), line in rules.rgs.items() if s == side), default=0)


def to_keep_count(state: CampaignState, rules: Rules, side: str) -> list[int]:
    """The side's RGs bought in secret on this CG Date that have veiled follow-ups declared, fewer than
    `followups_kept`: one entry per declaration still to make (each RG's event)."""
    kept = followups_kept(rules, side)
    out = []
    for version, bought in state.secret_rgs.items():
        declared = sum(1 for e in state.declared.values() if e["rg"] == int(version) and veiled(e))
        if bought["side"] == side and bought["cg_date"] == state.cg_date and declared:
            out += [int(version)] * (kept - declared)
    return out


def count_kept(state: CampaignState, rules: Rules, side: str, rg: int, blinded: str) -> RollDeclared:
    """A veiled declaration that keeps the count of an RG's follow-ups (`followups_kept`): no table, no roll (its
    roll is made void), sealed as the others are; published with them when the RG is revealed."""
    return RollDeclared(action=state.next_action, table="", side=side, n=state.fair_n.get(side, 0) + 1, rg=rg,
                        secret=True, blinded=blinded)


def admit_roll(state: CampaignState, rules: Rules, side: str, rg: int | None, purpose: str, n: int | None,
               sealed_with: str) -> dict | None:
    """A Secret roll made for an RG bought in secret, as both sides decide it: made for its veiled declaration (fair
    dice), or with dice of its own on the side's RG in the step of its follow-ups. The declaration it makes (None
    without fair dice)."""
    if purpose:
        raise BadInput("a roll for an RG bought in secret shows no purpose: it is sealed with the roll", rule(rules))
    _well_sealed(sealed_with, "sealed")
    if n is None:
        _secret_rg(state, rules, side, rg)
        rolls.secret_takes_fair_dice(state, rules, None, side)  # dice of its own: typed
        return None
    entry = state.declared.get(f"{side}:{n}")
    if not veiled(entry) or entry["rg"] != rg:
        raise BadInput(f"Secret fair roll {n} of the {rules.system.sides[side]} side is not the veiled roll declared "
                       f"for the RG bought in secret at event {rg}", fair.RULE)
    return entry


def opened_entry(entry: dict, fact: RollDeclared) -> dict:
    """A veiled declaration's entry as its opened declaration makes it (what the roll revealed with it is checked
    against)."""
    return {**entry, "table": fact.table, "drms": [list(d) for d in fact.drms], "purpose": fact.purpose,
            "item": fact.item, "if_result": fact.if_result, "commitment": ""}


def reveal(state: CampaignState, rules: Rules, version: int, made: RollDeclared | None, opened: RollDeclared,
           salt: str) -> RollDeclarationRevealed:
    """A veiled declaration published: one whose RG is still sealed (they are published together, once), and the
    declaration its commitment binds, the same roll (side, n, RG, action) as a Secret roll declared in the open."""
    if not isinstance(made, RollDeclared) or not made.commitment or not followed_secretly(state, made.rg):
        raise BadInput(f"event {version} is no veiled roll declaration still sealed", rule(rules))
    if commitment(opened, salt) != made.commitment:
        raise BadInput(f"the declaration revealed for event {version} does not match its commitment: its table, DRMs "
                       "or condition were changed", rule(rules))
    if (opened.side, opened.n, opened.rg, opened.action, opened.value, opened.secret, opened.commitment,
            opened.sealed, opened.blinded) != (made.side, made.n, made.rg, made.action, "", True, "", "", made.blinded):
        raise BadInput(f"the declaration revealed for event {version} is not the one made there", rule(rules))
    return RollDeclarationRevealed(action=state.next_action, declared=version, fact=opened, salt=salt)


def together(state: CampaignState, rules: Rules, acts, log) -> None:
    """A reveal publishes the veiled follow-ups of an RG bought in secret with the RG itself, every one still
    sealed (its declarations before its rolls): none alone, none left out (what it hid is decided once, whole)."""
    from ..domain.commands import RevealDeclaration, RevealPurchase, RevealRoll
    from ..domain.events import SecretRollMade
    from ..domain.inforce import live

    bought = {a.purchase for a in acts if isinstance(a, RevealPurchase)}
    named = {a.declared for a in acts if isinstance(a, RevealDeclaration)} | {
        a.roll for a in acts if isinstance(a, RevealRoll)}
    if not state.secret_rgs or (not bought and not named):
        return  # no RG still sealed: nothing veiled to publish with it
    for event in live(log):
        fact = event.fact
        hidden = (isinstance(fact, RollDeclared) and fact.commitment) or (
            isinstance(fact, SecretRollMade) and not fact.table and str(event.version) in state.sealed)
        if not hidden or not followed_secretly(state, fact.rg):
            continue
        if event.version in named and fact.rg not in bought:
            raise BadInput(f"event {event.version} follows up the RG bought in secret at event {fact.rg}: it is "
                           "revealed with that RG", rule(rules))
        if fact.rg in bought and event.version not in named:
            raise BadInput(f"the RG bought in secret at event {fact.rg} is revealed with every roll made for it, "
                           f"event {event.version} too", rule(rules))
