"""The audit's side of the one decision path: rebuild the command a stored fact records and run the same
decision on the state before it. Anything the ledger would have refused, or would have decided otherwise,
is a finding: (kind, message)."""


import msgspec

from .. import rules as rulesmod
from ..errors import LedgerError
from ..domain.events import (
    ActionUndone, CampaignStarted, CGDateChanged, CPPGained, DiceRolled, FirefightEnded,
    FortificationRemoved, FortificationsPurchased, HiddenFortificationPlaced, HiddenFortificationRevealed,
    MouseholeMade, Rewound, RGPurchased, RGPurchaseRevealed, RGPurchaseSealed, RubblePlaced,
    RollDeclarationRevealed, RollDeclared, RollValuePublished, SecretRollRevealed, StepOpened, SideAdvanced,
    TablesOverridden, TakeBackProposed,
)
from ..domain.evolve import CampaignState, fold
from ..domain.timeline import kind_words
from . import commands, fair, fortify, purchases, rights, rolls, steps, walk

# what a roll's result does to the hexes it names, recorded in the roll's action right after it (CGS 7.4.7.2, 7.3.2)
CONSEQUENCES = (FortificationRemoved, MouseholeMade, RubblePlaced)


def decided_together(first, later) -> bool:
    """Whether `later`, the next fact of `first`'s action, was decided by the same decision: a new CG Date with its
    step or firefight end (and the CPP it gives), a roll with what its result does on the map."""
    if isinstance(first, (CGDateChanged, FirefightEnded)):
        return True
    if isinstance(first, StepOpened) and isinstance(later, SideAdvanced):  # the side walked on ahead of the campaign
        return True
    return isinstance(first, DiceRolled) and isinstance(later, CONSEQUENCES)

UNKNOWN_CPP = 10**9  # a side's sealed replenishments are its secret: the audit cannot bound what they allow


def sealed_cpp(state: CampaignState, side: str) -> int:
    return UNKNOWN_CPP if any(s["side"] == side and s["effect"] == "cpp_replenishment"
                              for s in state.sealed.values()) else 0


def sealed_fpp(state: CampaignState, side: str) -> int:
    """The FPP a side's secret RG purchases of this CG Date may give: unknown to the other side until revealed."""
    return UNKNOWN_CPP if any(e["side"] == side and e["cg_date"] == state.cg_date
                              for e in state.secret_rgs.values()) else 0


def redecide(state: CampaignState, facts: list, log_before: list, made_states: dict,
             author: str = "", form: int = 3) -> list[tuple[str, str]]:
    """Findings for one stored decision (`facts`: one fact, or the facts one decision writes together, recorded
    by `author`)."""
    fact = facts[0]
    if isinstance(fact, CampaignStarted):
        return [("decision", f"a second CampaignStarted ('{fact.name}') inside campaign '{state.name}': a log holds "
                             "one campaign")]
    try:
        rules = rulesmod.for_campaign(state)
    except LedgerError as e:
        return [("table", f"the rules in force cannot be read: {e.line()}")]
    try:
        if isinstance(fact, DiceRolled):
            return _roll(state, rules, fact, older=form < 3) + _roll_effects(state, rules, facts, log_before)
        expected = _decide(state, rules, facts, log_before, author, form)
    except LedgerError as e:
        return [(_kind(fact), f"{_cap(kind_words(fact))}: the ledger refuses it: {e.line()}")]
    if expected is None:
        return []
    return _compare(expected, facts) or _as_made(facts, log_before, made_states)


def redecide_request(state: CampaignState, request, facts: list, log_before: list,
                     author: str = "", made_states: dict | None = None) -> list[tuple[str, str]]:
    """Findings for one action stored with its command (envelope form 3): the very decision the command path ran,
    on the state before the action, must give every fact the action holds, whole (its action number included)."""
    fact = facts[0]
    try:
        rules = rulesmod.for_campaign(state)
    except LedgerError as e:
        return [("table", f"the rules in force cannot be read: {e.line()}")]
    if isinstance(request, commands.RollRevealing):  # its own hidden fortifications revealed first, then the roll
        try:
            reveals, log_before = commands.revealed_first(state, rules, request, commands.Context(log=log_before))
        except LedgerError as e:
            return [("secret", f"{_cap(kind_words(fact))}: the ledger refuses its command: {e.line()}")]
        problems = _compare(reveals, facts[:len(reveals)])
        if problems or len(facts) <= len(reveals):
            return problems or [("decision", "hidden fortifications revealed for a roll recorded without the roll")]
        request, facts, fact = request.roll, facts[len(reveals):], facts[len(reveals)]
    if isinstance(request, rolls.RollCommand):  # a roll: decided from its command, what differs named by its kind
        if not isinstance(fact, DiceRolled):
            return [("decision", f"{_cap(kind_words(fact))}: recorded for a roll's command")]
        return _roll(state, rules, fact, command=request) + _roll_effects(state, rules, facts, log_before)
    try:
        # the side whose books bound the act: an answer's roll is the declaring side's
        side = fair.waiting(state, request.declared)["side"] if isinstance(request, commands.AnswerRoll) \
            else getattr(fact, "side", "")
        context = commands.Context(by=author, log=log_before, sealed_cpp=sealed_cpp(state, side),
                                   sealed_fpp=sealed_fpp(state, side))
        expected = commands.decide(state, rules, request, context)
    except LedgerError as e:
        return [(_kind(fact), f"{_cap(kind_words(fact))}: the ledger refuses its command: {e.line()}")]
    problems = _compare(expected, facts)
    if not problems and [f.action for f in expected] != [f.action for f in facts[:len(expected)]]:
        problems = [(_kind(fact), f"{_cap(kind_words(fact))}: recorded under action {fact.action}, the ledger gives "
                                  f"it action {expected[0].action}")]
    if not problems and len(expected) > len(facts):
        missing = ", ".join(kind_words(f) for f in expected[len(facts):])
        problems = [(_kind(fact), f"{_cap(kind_words(fact))}: recorded without {missing}, which its command decides")]
    return problems or _as_made(facts, log_before, made_states or {})


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _kind(fact) -> str:
    if isinstance(fact, (ActionUndone, Rewound, TakeBackProposed)):
        return "rights"
    if isinstance(fact, (SecretRollRevealed, RGPurchaseRevealed, HiddenFortificationRevealed, RollValuePublished,
                         RollDeclarationRevealed)):
        return "secret"
    return "step" if isinstance(fact, (StepOpened, CGDateChanged, SideAdvanced)) else "decision"


def _decide(state: CampaignState, rules, facts: list, log_before: list, author: str, form: int) -> list | None:
    """The facts `decide` gives for the command the stored fact records (commands.py), on the state before it; None
    for a fact checked otherwise."""
    fact = facts[0]
    if isinstance(fact, (CGDateChanged, StepOpened, SideAdvanced)):  # the step's target: where the side ended
        moved = [f for f in facts if isinstance(f, (StepOpened, SideAdvanced))]
        command = commands.Step(target=moved[-1].step if moved else None)
    else:
        command = commands.command_of(fact)
    if isinstance(fact, FortificationRemoved) and fact.by == "roll" or isinstance(fact, (RubblePlaced, CPPGained)):
        raise LedgerError(f"{_cap(kind_words(fact))} is recorded only with what decides it (a roll's result, a "
                          "firefight's end), in its action")
    if command is not None:
        side = getattr(fact, "side", "")
        context = commands.Context(by=author, log=log_before, sealed_cpp=sealed_cpp(state, side),
                                   sealed_fpp=sealed_fpp(state, side), form=form)
        decided = commands.decide(state, rules, command, context)
        # a fact whose action did not keep its command is decided alone: what the decision adds after it (an open
        # fair roll made with its answer, the matrix resolved with the second chit) is a fact of its own here
        return decided[:len(facts)] if isinstance(command, (commands.AnswerRoll, commands.RevealChit)) else decided
    if isinstance(fact, TablesOverridden):
        return [rights.tables_overridden(state, rules, author, fact)]
    if isinstance(fact, (ActionUndone, Rewound)):
        return [rights.taken_back(state, rules, author, fact)]
    return None  # DiceReported: a VASL report kept as it was (its dice are checked against the report)


def _compare(expected: list, facts: list) -> list[tuple[str, str]]:
    recorded = list(facts[: len(expected)])
    problems = []
    if len(facts) > len(expected):
        extra = ", ".join(kind_words(f) for f in facts[len(expected):])
        return [(_kind(facts[0]), f"recorded {extra} beyond what the ledger decides")]
    if [type(f) for f in expected] != [type(f) for f in recorded]:
        return [(_kind(facts[0]), f"recorded {', '.join(kind_words(f) for f in recorded)}; the ledger decides "
                                  f"{', '.join(kind_words(f) for f in expected)}")]
    for want, got in zip(expected, recorded):
        want = msgspec.structs.replace(want, action=got.action)
        if want == got:  # the whole struct at once (the usual case); field by field only to name what differs
            continue
        for field in want.__struct_fields__:
            a, b = _plain(getattr(want, field)), _plain(getattr(got, field))
            if a != b:
                problems.append((_kind(got), f"{_cap(kind_words(got))}: {field} recorded {b!r}, the rules give {a!r}"))
    return problems


def _plain(value):
    return msgspec.to_builtins(value) if isinstance(value, (msgspec.Struct, tuple, list, dict)) else value


def _roll(state: CampaignState, rules, fact: DiceRolled, check_fair: bool = True,
          command=None, older: bool = False) -> list[tuple[str, str]]:
    """A roll decided again with its recorded dice and declared DRMs; differences by kind. A fair roll also: its
    dice are the ones its declaration's two chain values give, its command the one declared (`check_fair`: unless
    the caller checks that, as a reveal does with the roll value it publishes). `command`: the roll's command as
    stored with it (envelope form 3), decided instead of the one the fact records."""
    where = f"{fact.table} ({fact.rule})"
    entry = state.declared.get(f"{fact.side}:{fact.fair}") if fact.source == "fair" else None
    original = _original(state, rules, fact, where, entry, check_fair)
    if isinstance(original, list):
        return original
    problems = []
    if original != fact.original:
        problems.append(("original", f"roll on {where}: dice {list(fact.dice)} make an Original {original}, "
                                     f"recorded {fact.original}"))
    try:
        asked = command if command is not None else rolls.command_of(fact, entry["version"] if entry else None)
        expected, = commands.decide(state, rules, asked, commands.Context(sealed_cpp=sealed_cpp(state, fact.side)))
    except LedgerError as e:
        kind = "due" if isinstance(e, rolls.NotDue) else "drm"
        return problems + [(kind, f"roll on {where}: the ledger refuses it: {e.line()}")]
    if older and expected.item != fact.item and fact.item == f"{fact.table}|{fact.side}|{state.cg_date}" \
            and expected.item == f"{fact.table}|{state.cg_date}":
        # a roll read once per side per CG Date before its table was read once per CG Date (8.625): a log written
        # then (forms 1 and 2) keeps its item; a log written now is decided by today's reading
        expected = msgspec.structs.replace(expected, item=fact.item)
    if not problems and fact.final == fact.original + sum(d.value for d in fact.drms) \
            and msgspec.structs.replace(expected, action=fact.action) == fact:
        return []  # the whole fact as decided (the usual case): each comparison below compares what is equal here
    problems += _roll_differences(state, expected, fact, where)
    if not problems:  # the whole fact, every field: one nobody thought to compare is still compared
        problems = [("decision", f"roll on {where}: {message}") for _kind, message in _compare([expected], [fact])]
    return problems


def _original(state: CampaignState, rules, fact: DiceRolled, where: str, entry: dict | None,
              check_fair: bool) -> int | list[tuple[str, str]]:
    """The Original the recorded dice make, once the fair roll's dice, the table, the step and the faces are
    checked; else the finding that stops the re-decision."""
    if fact.source == "fair" and check_fair:
        try:
            fair.check_rolled(state, rules, fact)
        except LedgerError as e:
            return [("fair", f"roll on {where}: {e.line()}")]
    try:
        table = rules.table(fact.table)
    except LedgerError as e:
        return [("table", f"roll on {fact.table} cannot be re-checked: {e.line()}")]
    try:
        if entry is None:  # a fair roll's step was checked when it was declared
            rolls.check_step(rules, state, table, steps.acting_step(rules, state, fact.side))
    except LedgerError as e:
        return [("step", f"roll on {where}: {e.line()}")]
    try:
        from ..rules import dice as dicemod

        dicemod.check_faces(table.die, tuple(fact.dice))
        return dicemod.read(table.die, fact.dice, table.reads)
    except LedgerError as e:
        return [("original", f"roll on {where}: dice {list(fact.dice)} are not a {table.die}: {e.line()}")]


def _roll_differences(state: CampaignState, expected: DiceRolled, fact: DiceRolled,
                      where: str) -> list[tuple[str, str]]:
    """Where a stored roll differs from the one decided again, named by kind."""
    problems = []
    auto = lambda f: {d.key: d.value for d in f.drms if d.kind == "automatic"}  # noqa: E731
    decl = lambda f: {d.key: (d.value, d.input) for d in f.drms if d.kind == "declared"}  # noqa: E731
    if auto(expected) != auto(fact):
        problems.append(("automatic_drm", f"roll on {where}: automatic DRMs recorded {_drms(auto(fact))} but the "
                                          f"campaign state ({fact.side}, {state.cg_date}) implies "
                                          f"{_drms(auto(expected))}"))
    if decl(expected) != decl(fact):
        problems.append(("drm", f"roll on {where}: declared DRMs recorded {_drms(decl(fact))}, the table makes them "
                                f"{_drms(decl(expected))}"))
    final = fact.original + sum(d.value for d in fact.drms)
    if final != fact.final:
        problems.append(("final", f"roll on {where}: Original {fact.original} with DRMs "
                                  f"{sum(d.value for d in fact.drms):+d} is a Final {final}, recorded {fact.final}"))
    if (expected.result, expected.value, tuple(expected.sets), expected.code) != (
            fact.result, fact.value, tuple(fact.sets), fact.code):
        problems.append(("result", f"roll on {where}: the table gives '{expected.result}' for a Final {expected.final}, "
                                   f"recorded '{fact.result}'"))
    for field in ("effect", "cpp", "item", "adds", "rule", "die"):
        if getattr(expected, field) != getattr(fact, field):
            problems.append(("result", f"roll on {where}: {field} recorded {_plain(getattr(fact, field))!r}, the "
                                       f"rules give {_plain(getattr(expected, field))!r}"))
    return problems


def _roll_effects(state: CampaignState, rules, facts: list, log_before) -> list[tuple[str, str]]:
    """What a roll's result does to the hexes it names: the facts recorded after it in its action."""
    try:
        expected = fortify.roll_effects(state, rules, facts[0], log_before)
    except LedgerError as e:
        return [("decision", f"roll on {facts[0].table} for {', '.join(facts[0].hexes)}: the ledger refuses it: "
                             f"{e.line()}")]
    if not expected and len(facts) == 1:
        return []
    if not expected:
        return [("decision", f"roll on {facts[0].table}: recorded {', '.join(kind_words(f) for f in facts[1:])}; "
                             "its result changes nothing on the map")]
    if len(facts) == 1:
        return [("decision", f"roll on {facts[0].table} for {', '.join(facts[0].hexes)}: recorded without what its "
                             f"result does there; the ledger decides {', '.join(kind_words(f) for f in expected)}")]
    return _compare(expected, facts[1:])


def _as_made(facts: list, log_before, made_states: dict) -> list[tuple[str, str]]:
    """A sealed act, once revealed, decided again as the campaign stood when it was made: a Secret roll's dice
    and result, a hidden placement's hex (a secret purchase: `revealed`, with every purchase after it)."""
    problems: list[tuple[str, str]] = []
    for fact in facts:
        if isinstance(fact, SecretRollRevealed):
            problems += _roll_as_made(fact, made_states)
        elif isinstance(fact, HiddenFortificationRevealed):
            problems += _placement_as_made(fact, log_before)
    return problems


def _placement_as_made(fact: HiddenFortificationRevealed, log_before) -> list[tuple[str, str]]:
    before = list(log_before)
    if not isinstance(commands.made_at(before, fact.placed), HiddenFortificationPlaced):
        return []  # hidden at one table, in the open log: decided when it was placed
    then = [e for e in before if e.version < fact.placed]
    state_then = fold(then)
    try:
        rules_then = rulesmod.for_campaign(state_then)
        expected = fortify.place(state_then, rules_then, fact.fact.item, fact.fact.hex, fact.fact.side, True, then)
    except LedgerError as e:
        return [("decision", f"the hidden placement of event {fact.placed}, revealed: the ledger refuses it: "
                             f"{e.line()}")]
    return _compare([expected], [fact.fact])


def _roll_as_made(fact: SecretRollRevealed, made_states: dict) -> list[tuple[str, str]]:
    _made, state_then = made_states.get(fact.roll, (None, None))
    if not isinstance(fact.fact, DiceRolled):
        return []  # made void: decided at its reveal (fair.check_void)
    if state_then is None or str(fact.fact.rg) in state_then.secret_rgs:
        return []  # a follow-up of an RG bought in secret: decided again once the purchase is revealed (`revealed`)
    then_rules = rulesmod.for_campaign(state_then)
    return _roll(state_then, then_rules, fact.fact, check_fair=False)


def revealed(logged) -> list[tuple[int, str, str]]:
    """8.619: what a side kept secret, decided again once revealed, as its side knew the campaign: the log with
    every revealed secret purchase and Secret roll at its own place. Its purchases, Fortifications and the rolls
    that cost CPP or follow up an RG bought in secret: (event, kind, message) for each the ledger refuses or
    decides otherwise. Runs only when a purchase or a replenishment was revealed."""
    from ..domain.timeline import effective
    from ..domain.evolve import begin

    from ..trust.secrets import commitment

    made = {e.version: e.fact for e in logged if isinstance(e.fact, RGPurchaseSealed)}
    logged = [e for e in logged if not isinstance(e.fact, RGPurchaseRevealed) or (  # a false reveal: named apart
        e.fact.purchase in made and commitment(e.fact.fact, e.fact.salt) == made[e.fact.purchase].commitment)]
    bought = {e.fact.purchase for e in logged if isinstance(e.fact, RGPurchaseRevealed)}
    unveiled = {e.fact.declared for e in logged if isinstance(e.fact, RollDeclarationRevealed)}
    replenished = any(isinstance(e.fact, SecretRollRevealed)
                      and getattr(e.fact.fact, "effect", "") == "cpp_replenishment" for e in logged)
    if not bought and not replenished:
        return []
    findings: list[tuple[int, str, str]] = []
    state: CampaignState | None = None
    sealed_then = _sealed_then(made, logged)
    events = effective(logged)
    for index, event in enumerate(events):
        fact = event.fact
        if fact is None:
            continue
        if state is None:
            if isinstance(fact, CampaignStarted):
                state = begin(fact, event.digest, event.command)
            continue
        if _kept_secret(fact, event.version, bought, unveiled):
            findings += [(event.version, kind, f"once revealed: {message}")
                         for kind, message in _as_known(state, fact)]
        elif isinstance(fact, (CGDateChanged, StepOpened, SideAdvanced)) and bought:  # a step left, follow-ups unrolled
            findings += [(event.version, "step", f"once revealed: {message}")
                         for message in _step_as_known(state, fact, events[index + 1:index + 3], event.author,
                                                       event.form, sealed_then(event.version))]
        state.evolve(fact, event.digest, event.version, event.author, event.command, event.form)
    return findings


def _kept_secret(fact, version: int, bought: set[int], unveiled: set[int]) -> bool:
    """What a secret decided once revealed: a purchase, a Fortification purchase, a roll that cost CPP or followed up
    an RG bought in secret, a veiled declaration opened."""
    return isinstance(fact, (RGPurchased, FortificationsPurchased)) or (
        isinstance(fact, DiceRolled) and bool(fact.cpp or fact.rg in bought)) or version in unveiled


def _sealed_then(made: dict, logged):
    """event version -> the secret RG purchases still sealed then ({purchase: {side, cg_date}})."""
    opened_at = {e.fact.purchase: e.version for e in logged if isinstance(e.fact, RGPurchaseRevealed)}

    def then(version: int) -> dict:
        return {str(v): {"side": f.side, "cg_date": f.cg_date} for v, f in made.items()
                if v < version < opened_at.get(v, version + 1)}
    return then


def _step_as_known(state: CampaignState, fact, after: list, author: str = "", form: int = 3,
                   sealed_then: dict | None = None) -> list[str]:
    """A step (or a new CG Date and its step) the ledger refuses once the secret purchases are known. The purchases
    still sealed when it was made (`sealed_then`) count as sealed: no side takes their buyer past the step of their
    follow-ups (walk.secret_followups), however few it owed there."""
    if isinstance(fact, (StepOpened, SideAdvanced)) and state.next_action > fact.action:
        return []  # decided with the fact before it in its action
    saved = state.secret_rgs
    state.secret_rgs = {**saved, **(sealed_then or {})}
    try:
        return _step_decided_as_known(state, fact, after, author, form)
    finally:
        state.secret_rgs = saved


def _step_decided_as_known(state: CampaignState, fact, after: list, author: str, form: int) -> list[str]:
    group = [fact] + [e.fact for e in after if getattr(e.fact, "action", None) == fact.action
                      and isinstance(e.fact, (StepOpened, SideAdvanced))]
    moved = [f for f in group if isinstance(f, (StepOpened, SideAdvanced))]
    target = moved[-1].step if moved else None
    try:
        rules = rulesmod.for_campaign(state)
        decided = walk.step(state, rules, target, author, form)
        if decided and [type(f) for f in decided] != [type(f) for f in group] or _compare(decided, group):
            opened = next((f.step for f in decided if isinstance(f, StepOpened)), state.step)
            other = next((s for s in rules.system.sides if s != author), "")
            owed = walk.may_act(rules, state, other, opened) if other else None
            return [f"{_cap(kind_words(fact))}: the campaign could not move past {opened}"
                    + (f": the {rules.system.sides[other]} side still owed {owed} there" if owed else "")]
    except LedgerError as e:
        return [f"{_cap(kind_words(fact))}: the ledger refuses it: {e.line()}"]
    return []


def _as_known(state: CampaignState, fact) -> list[tuple[str, str]]:
    try:
        rules = rulesmod.for_campaign(state)
        if isinstance(fact, DiceRolled):
            return _roll(state, rules, fact, check_fair=False)
        if isinstance(fact, RollDeclared) and (not fact.table or fact.commitment):
            # one that kept the count of its RG's follow-ups (veiled.followups_kept): no roll to decide; one still
            # carrying a commitment is none its side declared: named at its reveal (veiled.reveal)
            return []
        if isinstance(fact, RollDeclared):  # a veiled declaration, opened: as its side's ledger declared it
            expected = fair.declare(state, rules, commands.command_of(fact).roll, "", sealed_cpp(state, fact.side),
                                    fact.blinded)
        elif isinstance(fact, RGPurchased):
            expected = purchases.buy(state, rules, fact.rg, fact.side, fact.map_group, fact.objective, fact.given,
                                     fact.on_map, fact.pre_registered, sealed_cpp(state, fact.side), fact.early)
        else:
            expected = purchases.fortify(state, rules, fact.item, fact.side, fact.setup_area, fact.count, fact.size,
                                         fact.squads or None, fact.front_line, fact.isolated,
                                         sealed_fpp(state, fact.side))
    except LedgerError as e:
        return [("decision", f"{_cap(kind_words(fact))}: the ledger refuses it: {e.line()}")]
    return _compare([expected], [fact])


def _drms(values: dict) -> str:
    def show(v):
        return f"{v[0]:+d}" + (f" ({v[1]})" if v[1] is not None else "") if isinstance(v, tuple) else f"{v:+d}"
    return "{" + ", ".join(f"{k} {show(v)}" for k, v in sorted(values.items())) + "}" if values else "none"
