"""Audit: replay a campaign's whole log and re-check it.

Pure: takes the events as read back from the store and returns findings. It re-checks the
hash chain (a changed, removed or reordered stored event breaks it), and every roll against
the tables in force at that point of the log: Final = Original + DRMs, the result is the
table's, the automatic DRMs are what the campaign state implied. It flags a roll made again
for the same purpose after the first was undone.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from uuid import UUID

from . import chain
from . import rules as rulesmod
from .dice import check_faces, read
from .campaign import CampaignState, first_step
from .errors import LedgerError
from .events import (
    ActionUndone, CampaignStarted, DiceRolled, FairDiceCommitted, FairSeedRevealed, Rewound, SecretRollMade,
    SecretRollRevealed,
)
from .secrets import commitment, fair_faces, seed_commitment, share
from .vasl import parse as parse_vasl

KINDS = ("unreadable", "missing", "tampered", "chain", "table", "step", "original", "drm", "automatic_drm", "final",
         "result", "reroll", "vasl", "secret", "fair")


@dataclass(frozen=True)
class Finding:
    version: int
    kind: str
    message: str

    def line(self) -> str:
        return f"event {self.version}: {self.message}"


@dataclass(frozen=True)
class Report:
    events: int
    rolls: int
    findings: tuple[Finding, ...]
    unrevealed: tuple[tuple[int, str, str], ...] = ()  # Secret rolls not revealed yet: (event, table, side)

    @property
    def clean(self) -> bool:
        return not self.findings


def audit(campaign_id: UUID, logged: list) -> Report:
    findings: list[Finding] = []
    state: CampaignState | None = None
    expected_prev: str | None = chain.GENESIS
    expected_version = 1
    rolls_by_action: dict[int, list[tuple[int, DiceRolled, str]]] = {}
    undone_purposes: dict[tuple, tuple[int, DiceRolled]] = {}
    roll_count = 0
    vasl_seen: dict[str, int] = {}  # VASL report key -> event that used it (in force)
    secrets_made: dict[int, tuple] = {}  # SecretRollMade version -> (fact, state when it was made)
    versions_of_action: dict[int, list[int]] = {}

    def find(version: int, kind: str, message: str) -> None:
        findings.append(Finding(version, kind, message))

    for event in logged:
        version = event.version
        if version != expected_version:
            missing = f"{expected_version}" if version == expected_version + 1 else f"{expected_version}-{version - 1}"
            find(version, "missing", f"event(s) {missing} missing from the log: stored events were removed")
            expected_prev = None  # the predecessor is gone: the chain cannot be checked here
        expected_version = version + 1
        fact = event.fact
        if fact is None:
            find(version, "unreadable", f"stored event cannot be read ({event.error}): it was altered or corrupted")
            expected_prev = None
            continue
        recomputed = chain.digest(campaign_id, version, event.timestamp, event.prev, fact)
        if recomputed != event.digest:
            find(version, "tampered", f"{event.topic} was altered after it was recorded: its content no longer matches its digest")
        if expected_prev is not None and event.prev != expected_prev:
            find(version, "chain", f"{event.topic} does not follow event {version - 1}: the log was reordered or rewritten")
        expected_prev = event.digest

        if isinstance(fact, CampaignStarted):
            state = CampaignState()
            state.start(fact, event.digest, first_step(fact.system))
            continue
        if state is None:
            find(version, "missing", "the log does not begin with CampaignStarted")
            state = CampaignState()
            continue
        if hasattr(fact, "action") and not isinstance(fact, (ActionUndone, Rewound)):
            versions_of_action.setdefault(fact.action, []).append(version)
        if getattr(fact, "vasl", ""):
            for finding in check_vasl(fact, vasl_seen, version):
                find(version, "vasl", finding)
        if isinstance(fact, SecretRollMade):
            secrets_made[version] = (fact, copy.copy(state))
            try:
                table = rulesmod.load(state.system, state.override_sources()).table(fact.table)
                if table.step and table.step != state.step:
                    find(version, "step", f"Secret roll on {fact.table} made at step {state.step}; the table belongs "
                                          f"to step {table.step}")
            except LedgerError as e:
                find(version, "table", f"Secret roll on {fact.table}: {e.line()}")
        elif isinstance(fact, SecretRollRevealed):
            roll_count += 1
            for finding in check_reveal(fact, secrets_made):
                find(version, *finding)
        if isinstance(fact, DiceRolled):
            roll_count += 1
            for finding in check_roll(state, fact):
                find(version, *finding)
            key = (fact.table, fact.side, state.cg_date, fact.purpose)
            # Same dice re-entered after an undo is a correction (of a DRM, a table); new dice are a re-roll.
            if key in undone_purposes and tuple(undone_purposes[key][1].dice) != tuple(fact.dice):
                first_version, first = undone_purposes[key]
                purpose = f" for '{fact.purpose}'" if fact.purpose else ""
                find(
                    version,
                    "reroll",
                    f"re-rolled after undo: {fact.table} ({fact.side}, {state.cg_date}{purpose}) was rolled at event "
                    f"{first_version} (Original {first.original}: {first.result}), undone, and rolled again "
                    f"(Original {fact.original}: {fact.result})",
                )
            rolls_by_action.setdefault(fact.action, []).append((version, fact, state.cg_date))
        elif isinstance(fact, (ActionUndone, Rewound)):
            for action in (fact.undone,) if isinstance(fact, ActionUndone) else fact.voided:
                for key, first in list(vasl_seen.items()):
                    if first in versions_of_action.get(action, ()):
                        del vasl_seen[key]  # an undone VASL report may be entered again
                for roll_version, roll, cg_date in rolls_by_action.get(action, []):
                    undone_purposes.setdefault((roll.table, roll.side, cg_date, roll.purpose), (roll_version, roll))
        state.evolve(fact, event.digest, version)
    if state is not None:
        for version, message in check_fair(campaign_id, logged, state.name if state else ""):
            find(version, "fair", message)
    revealed = {e.fact.roll for e in logged if isinstance(e.fact, SecretRollRevealed)}
    unrevealed = tuple((v, made.table, made.side) for v, (made, _s) in secrets_made.items() if v not in revealed)
    return Report(events=len(logged), rolls=roll_count, findings=tuple(findings), unrevealed=unrevealed)


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
        if isinstance(fact, SecretRollRevealed) and fact.fact.fair is not None:
            rolled = fact.fact
            other = next(s for s in committed if s != rolled.side)
            expected = fair_faces(seeds[rolled.side][1], committed[other][1].shares[rolled.fair - 1], name,
                                  rolled.side, rolled.fair, rolled.die)
            if tuple(expected) != tuple(rolled.dice):
                problems.append((event.version, f"fair roll {rolled.fair} of the {rolled.side} side shows "
                                                f"{list(rolled.dice)}; the seeds give {list(expected)}"))
    return problems


def check_reveal(fact: SecretRollRevealed, secrets_made: dict) -> list[tuple[str, str]]:
    """A revealed Secret roll must be the one committed to, and is then re-checked like any roll in the
    campaign state of the moment it was made."""
    if fact.roll not in secrets_made:
        return [("secret", f"reveals event {fact.roll}, which is no Secret roll")]
    made, state = secrets_made[fact.roll]
    rolled = fact.fact
    if commitment(rolled, fact.salt) != made.commitment:
        return [("secret", f"the roll revealed for the Secret roll of event {fact.roll} ({made.table}) does not match "
                           "its commitment: the dice or the result were changed")]
    if (rolled.table, rolled.side, rolled.purpose, rolled.action) != (made.table, made.side, made.purpose, made.action):
        return [("secret", f"the roll revealed for event {fact.roll} is not the one announced there")]
    return check_roll(state, rolled)


def check_roll(state: CampaignState, fact: DiceRolled) -> list[tuple[str, str]]:
    """Re-checks one roll against the tables and state in force when it was made."""
    problems: list[tuple[str, str]] = []
    try:
        rules = rulesmod.load(state.system, state.override_sources())
        table = rules.table(fact.table)
    except LedgerError as e:
        return [("table", f"roll on {fact.table} cannot be re-checked: {e.line()}")]
    where = f"{fact.table} ({fact.rule})"
    if table.step and table.step != state.step:
        problems.append(("step", f"roll on {where} made at step {state.step}; the table belongs to step {table.step}"))
    try:
        check_faces(table.die, tuple(fact.dice))
        original = read(table.die, fact.dice, table.reads)
    except LedgerError as e:
        return [("original", f"roll on {where}: dice {list(fact.dice)} are not a {table.die}: {e.line()}")]
    if original != fact.original:
        problems.append(("original", f"roll on {where}: dice {list(fact.dice)} make an Original {original}, recorded {fact.original}"))
    situation = rulesmod.Situation(
        side=fact.side, cg=state.cg, cg_date=rules.calendar.parse(state.cg_date), flags=frozenset(state.flags)
    )
    automatic = tuple(rules.automatic(table, situation))
    recorded_auto = {d.key: d.value for d in fact.drms if d.kind == "automatic"}
    expected_auto = {d.key: d.value for d in automatic}
    if recorded_auto != expected_auto:
        problems.append(
            (
                "automatic_drm",
                f"roll on {where}: automatic DRMs recorded {_drms(recorded_auto)} but the campaign state "
                f"({fact.side}, {state.cg_date}{', ' + ', '.join(state.flags) if state.flags else ''}) implies {_drms(expected_auto)}",
            )
        )
    declared = []
    for drm in fact.drms:
        if drm.kind != "declared":
            continue
        try:
            applied = rules.declared(table, drm.key, drm.input, fact.side)
        except LedgerError as e:
            problems.append(("drm", f"roll on {where}: declared DRM {drm.key} is not valid: {e.line()}"))
            continue
        if applied.value != drm.value:
            problems.append(("drm", f"roll on {where}: DRM {drm.key} is {applied.value:+d} by the table, recorded {drm.value:+d}"))
        declared.append(applied)
    final = fact.original + sum(d.value for d in fact.drms)
    if final != fact.final:
        problems.append(("final", f"roll on {where}: Original {fact.original} with DRMs {sum(d.value for d in fact.drms):+d} is a Final {final}, recorded {fact.final}"))
    expected_drms = tuple(declared) + automatic
    try:
        resolution = rules.evaluate(table, fact.dice, expected_drms, situation)
    except LedgerError as e:
        return problems + [("result", f"roll on {where}: {e.line()}")]
    if (resolution.result, resolution.value, tuple(resolution.sets)) != (fact.result, fact.value, tuple(fact.sets)):
        problems.append(("result", f"roll on {where}: the table gives '{resolution.result}' for a Final {resolution.final}, recorded '{fact.result}'"))
    cpp = rules.cpp_cost(table, expected_drms)
    if (table.effect, cpp) != (fact.effect, fact.cpp):
        problems.append(("result", f"roll on {where}: the table's effect is {table.effect or 'none'} costing {cpp} CPP, "
                                   f"recorded {fact.effect or 'none'} costing {fact.cpp}"))
    return problems


def check_vasl(fact, seen: dict[str, int], version: int) -> list[str]:
    """A VASL roll's dice must be the report's (colored die first there), and a report is used once."""
    try:
        report = parse_vasl(fact.vasl)
    except LedgerError as e:
        return [f"the stored VASL report cannot be read: {e.line()}"]
    problems = []
    if tuple(report.faces) != tuple(fact.dice) or report.die != fact.die:
        problems.append(f"dice {list(fact.dice)} are not the VASL report's {report.die} {list(report.faces)} "
                        "(white, colored)")
    if report.key in seen:
        problems.append(f"the VASL report of event {seen[report.key]} is used again")
    seen[report.key] = version
    return problems


def _drms(values: dict[str, int]) -> str:
    return "{" + ", ".join(f"{k} {v:+d}" for k, v in sorted(values.items())) + "}" if values else "none"
