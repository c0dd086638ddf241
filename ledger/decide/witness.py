"""Witnessed dice. Once both sides hold keys, dice the ledger did not see made fairly (typed with
--dice, taken from VASL with --vasl or vasl-import: `CLAIMED`) are a claim by the side that recorded them; the other side's
word settles it: witnessed (by hand, or by its own copy of the VASL log where the same reports stand), or
disputed with a reason. Both stay on record; nothing takes them back.

The claims themselves are kept by the fold (`CampaignState.claims`, `CampaignState.disputes`); this module
decides the witness's act, for the command, the audit and `import` alike."""

from __future__ import annotations

from ..errors import BadInput
from ..domain.events import DiceWitnessed
from ..domain.evolve import CampaignState
from ..domain.wording import describe_claim as describe  # noqa: F401 - one claim in words, here before

RULE = "cgledger witness"  # no ASL rule covers dice seen by email: the ledger's own rule, as the fair dice are


def open_claims(state: CampaignState, by: str | None = None) -> list[tuple[int, list]]:
    """(roll event, [claimant, roller, table, dice, source, action]) of the claims in force not yet witnessed (disputed ones
    included), oldest first; `by`: only those of that claimant."""
    return sorted((int(version), claim) for version, claim in state.claims.items() if by is None or claim[0] == by)


def unwitnessed_events(state: CampaignState | None) -> frozenset[int]:
    """The events of the rolls in force whose dice the other side has not witnessed (disputed ones included)."""
    return frozenset(v for v, _claim in open_claims(state)) if state is not None else frozenset()


def to_witness(state: CampaignState, side: str) -> list[int]:
    """The claims the given side may witness: the other side's, not disputed by it."""
    return [v for v, claim in open_claims(state) if claim[0] != side and str(v) not in state.disputes]


def witness(state: CampaignState, rules, side: str, rolls: tuple[int, ...], disputed: str = "",
            log_digest: str = "", log=()) -> DiceWitnessed:
    """The witness's act: each roll named is a claim in force by the other side, not witnessed yet (a disputed
    one may be witnessed later, when the players settle it; one is disputed once). A witness by the witness's own
    copy of the VASL log (`log_digest`, the file's SHA-256) binds each die to its roll: only VASL rolls the rolling
    side recorded itself (a roll recorded for the witness's own side is his to accept by hand), and never by a file
    the claimant imported himself (his own file is no evidence of his dice). `log`: the log before the act."""
    side = rules.side(side)
    name = rules.system.sides[side]
    if not state.keys.get(side, {}).get("public"):
        raise BadInput(f"the {name} side holds no key: dice are witnessed once both sides hold keys "
                       "(cgledger keys init)", RULE)
    if not rolls:
        raise BadInput("name the rolls to witness (their event numbers, as status and receive list them) or give "
                       "--all", RULE)
    if len(set(rolls)) != len(rolls):
        raise BadInput("a roll is named twice", RULE)
    if disputed and not disputed.strip():
        raise BadInput("say why you dispute the dice (--dispute REASON)", RULE)
    for version in rolls:
        key = str(version)
        claim = state.claims.get(key)
        word = state.disputes.get(key)
        if claim is None:
            if key in state.sealed:
                raise BadInput(f"event {version} is a Secret roll not revealed yet: its dice are witnessed once "
                               "revealed", RULE)
            raise BadInput(f"event {version} holds no dice waiting for a witness: witnessed already, taken back, or "
                           "dice nobody witnesses (fair dice, or recorded before both sides held keys)", RULE)
        if claim[0] == side:
            raise BadInput(f"the dice of event {version} were recorded by the {name} side itself: the other side "
                           "witnesses them", RULE)
        if word is not None and disputed:
            raise BadInput(f"the dice of event {version} are disputed already (event {word[1]}: {word[2]})", RULE)
        if log_digest:
            _by_log(state, rules, version, claim, log_digest, log)
    return DiceWitnessed(action=state.next_action, side=side, rolls=tuple(rolls), disputed=disputed.strip(),
                         log_digest=log_digest)


def claimants_files(log, claimant: str) -> set[str]:
    """The digests of the VASL files a side imported itself (imports in force)."""
    from ..domain.events import VaslLogImported
    from ..domain.inforce import live

    return {e.fact.digest for e in live(log) if isinstance(e.fact, VaslLogImported) and e.author == claimant}


def _by_log(state: CampaignState, rules, version: int, claim: list, digest: str, log) -> None:
    claimant, roller, _table, _dice, source = claim[:5]
    if source != "vasl":
        raise BadInput(f"the dice of event {version} were typed, not taken from VASL: no VASL log witnesses them; "
                       "the other side witnesses them by hand", RULE)
    if claimant != roller:
        raise BadInput(f"event {version} is a {rules.system.sides.get(roller, roller)} roll recorded by the "
                       f"{rules.system.sides.get(claimant, claimant)} side: the rolling side accepts it by hand "
                       f"(`cgledger witness {version}`), a VASL log does not", RULE)
    if digest in claimants_files(log, claimant):
        raise BadInput(f"the VASL file that would witness event {version} is one the "
                       f"{rules.system.sides.get(claimant, claimant)} side imported itself: the claimant's own file "
                       "is no evidence of his dice", RULE)


def view(state: CampaignState, rules) -> list[dict]:
    """The claims not witnessed, for `status`: whose dice, on which table, recorded by whom, disputed or not."""
    out = []
    for version, (claimant, roller, table, dice, source, _a) in open_claims(state):
        word = state.disputes.get(str(version))
        out.append({"event": version, "table": table, "side": roller, "dice": list(dice), "source": source,
                    "claimed_by": claimant, "witness": next((s for s in rules.system.sides if s != claimant), ""),
                    "disputed": word[2] if word else None, "disputed_at": word[1] if word else None})
    return out
