"""The audit's checks over a whole state or log: what the protocols still owe, the dice never witnessed, the rolls
in force per source, a stored snapshot against the replay, fair dice against both seeds, a VASL roll against its
report."""

from __future__ import annotations

from .. import rules as rulesmod
from ..domain.events import DiceRolled, FairDiceCommitted, FairSeedRevealed, SecretRollRevealed
from ..domain.wording import item_name
from ..domain.evolve import CampaignState, authorship
from ..errors import LedgerError
from ..trust.secrets import fair_faces, seed_commitment, share


def unwitnessed_of(state: CampaignState) -> list[tuple[int, str]]:
    """The claims the other side never witnessed (ledger/decide/witness.py), in words."""
    from ..decide import witness

    try:
        rules = rulesmod.for_campaign(state)
    except LedgerError:
        return [(int(v), f"the dice of event {v} were not witnessed") for v, _c in witness.open_claims(state)]
    sides = dict(rules.system.sides)
    return [(c["event"], f"not witnessed: {witness.describe(c, sides)}") for c in witness.view(state, rules)]


def pending_of(state: CampaignState) -> list[tuple[int, str]]:
    """What the fair-dice and sealed-chit protocols still owe (the unrevealed Secret rolls are listed apart)."""
    out, name = [], side_names(state)
    for entry in sorted(state.declared.values(), key=lambda e: e["version"]):
        what = f"the {name(entry['side'])} side's {'Secret ' if entry['secret'] else ''}fair roll " + (
            f"on {entry['table']}" if entry["table"] else "for its RG bought in secret")
        if not entry["answered"]:
            out.append((entry["version"], f"{what} was never answered by the other side"))
        elif not entry["made"]:
            out.append((entry["answered"], f"{what} was answered but never made by its side"))
    for version, entry in sorted(state.secret_rgs.items(), key=lambda item: int(item[0])):
        out.append((int(version), f"the {name(entry['side'])} side's RG bought in secret on {entry['cg_date']} was never "
                                  "revealed"))
    for version, entry in sorted(state.hidden.items(), key=lambda item: int(item[0])):
        if entry["sealed"]:  # CGS 7.4.4: set up hidden under its side's key
            out.append((int(version), f"the {name(entry['side'])} side's hidden {item_name(entry['item'])} was never "
                                      "revealed"))
    if state.dice_mode == "fair":  # a key set up while the dice were not fair: its chains owed since they are
        out += [(0, f"the {name(side)} side's key was set up before fair dice: it never committed its chains "
                    "(`cgledger fair-dice commit`)") for side, key in sorted(state.keys.items())
                if key.get("dice") and side not in state.chains]
    for side, chit in sorted(state.sealed_chits.items()):
        if not chit["chit"]:
            out.append((chit["version"], f"the {name(side)} side's sealed Initiative chit was never revealed"))
    return out


def side_names(state: CampaignState):
    """A side's name in the campaign's system ('us' -> 'U.S.'), for the audit's words."""
    try:
        sides = rulesmod.load(state.system).system.sides
    except LedgerError:
        sides = {}
    return lambda side: sides.get(side, side)


def sources_of(logged) -> dict[str, int]:
    """Rolls in force per source: fair dice apart from dice entered, from VASL or rolled by one side's ledger. The
    definition over a whole log; the audit counts the same as it goes (`Kept.sources`)."""
    from ..domain.inforce import live

    counts: dict[str, int] = {}
    for event in live(logged):
        fact = event.fact.fact if isinstance(event.fact, SecretRollRevealed) else event.fact
        if isinstance(fact, DiceRolled):
            counts[fact.source] = counts.get(fact.source, 0) + 1
    return counts


def check_snapshot(state: CampaignState, version: int, stored: dict | None, problem: str | None) -> list[str]:
    """A stored snapshot must be the replay's state at its event, attribute by attribute: reads start from it."""
    if problem:
        return [problem]
    if stored is None:  # an older snapshot: its seal and event were checked, the latest is compared whole
        return []
    replayed = comparable({k: v for k, v in vars(state).items() if not k.startswith("_")})
    stored = comparable(stored)
    differing = []
    for key in sorted(set(replayed) | {k for k in stored if not k.startswith("_")}):
        mine = _json(replayed[key] if key in replayed else getattr(CampaignState, key, None))
        theirs = _json(stored[key] if key in stored else getattr(CampaignState, key, None))
        if mine != theirs:
            differing.append(key)
    if differing:
        return [f"the snapshot at event {version} does not match the log's replay ({', '.join(differing)} "
                "differ): it was edited, and reads that start from it would show numbers the log does not hold"]
    return []


def comparable(attributes: dict) -> dict:
    """A state's attributes as a snapshot and the replay are compared: who recorded each action as its runs however
    it is kept (ranges, or packed once its CG Date closed), and the undo record without the used-up due items of
    past CG Dates, which an older snapshot kept there (ledger/domain/evolve.py `_close_date`)."""
    found = dict(attributes)
    found["acts"] = authorship(found.pop("acts_closed", CampaignState.acts_closed),
                               found.pop("acts_sides", CampaignState.acts_sides), found.get("acts", CampaignState.acts))
    reverts = found.get("reverts") or {}
    if any("consumed" in entry for entry in reverts.values()):
        found["reverts"] = {k: {n: v for n, v in e.items() if n != "consumed"} for k, e in reverts.items()}
    return found


def _json(value):
    import msgspec

    return msgspec.json.decode(msgspec.json.encode(value))


def roll_key(state: CampaignState, fact: DiceRolled) -> str:
    """The item a roll was for, the same key the decision uses (a unit 'x' and 'x ' are one unit)."""
    from ..decide.rolls import reroll_key, unit_name

    try:
        table = rulesmod.for_campaign(state).table(fact.table)
    except LedgerError:
        return f"{fact.table}|{fact.side}|{state.cg_date}|{unit_name(fact.purpose)}"
    return reroll_key(table, fact.side, state.cg_date, fact.purpose, fact.item)


def check_fair(campaign_id, logged, name: str) -> list[tuple[int, str]]:
    """Fair dice, once both seeds are revealed: each seed matches its commitment, each published share
    comes from its seed, and every revealed fair roll's dice are the ones the two seeds give."""
    committed = {e.fact.side: (e.version, e.fact) for e in logged if isinstance(e.fact, FairDiceCommitted)}
    seeds = {e.fact.side: (e.version, bytes.fromhex(e.fact.seed)) for e in logged if isinstance(e.fact, FairSeedRevealed)}
    problems = []
    for side, (version, seed) in seeds.items():
        if side not in committed or seed_commitment(seed) != committed[side][1].commitment:
            problems.append((version, f"the {side} seed revealed does not match its commitment"))
    if len(seeds) < 2 or problems or len(committed) < 2:
        return problems
    for side, (version, fact) in committed.items():
        other = next(s for s in committed if s != side)
        seed = seeds[side][1]
        if any(share(seed, name, other, n) != value for n, value in enumerate(fact.shares, 1)):
            problems.append((version, f"the {side} side's published shares do not come from its seed"))
    for event in logged:
        fact = event.fact
        if isinstance(fact, SecretRollRevealed) and getattr(fact.fact, "fair", None) is not None:
            rolled = fact.fact
            other = next(s for s in committed if s != rolled.side)
            expected = fair_faces(seeds[rolled.side][1], committed[other][1].shares[rolled.fair - 1], name,
                                  rolled.side, rolled.fair, rolled.die)
            if tuple(expected) != tuple(rolled.dice):
                problems.append((event.version, f"fair roll {rolled.fair} of the {rolled.side} side shows "
                                                f"{list(rolled.dice)}; the seeds give {list(expected)}"))
    return problems


def check_vasl(fact, seen: dict, version: int) -> list[str]:
    """A VASL roll's dice must be the report's (colored die first there), and a report is used once. An import
    (VaslLogImported) keeps all its reports: each is read again from its line and compared (ledger/vasl/bot.py)."""
    from ..vasl.bot import audit_fact

    return audit_fact(fact, seen, version)
