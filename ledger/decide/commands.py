"""What players ask for, as types (DESIGN.md): one frozen msgspec Struct per verb, one
`decide(state, rules, command, context)` that runs its decision, and `command_of(fact)`, the command a stored fact
records. The command path, the audit and `import` all run `decide`: the audit rebuilds each stored fact's command
and compares what `decide` gives with what was stored, every field (redecide.py).

A decision is looked up in a table by the command's type, and a command by the fact's type: no chain of `if`s."""


import dataclasses
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Callable


from ..domain.events import (
    DiceChainRenewed, DiceCommitted, DiceModeChosen, DiceWitnessed, FirefightEnded, FortificationPlaced,
    FortificationRemoved, FortificationsPurchased, HQRecorded, InitiativeChosen, LocationControlled, MouseholeMade,
    RGPurchased, RollAnswered, RollDeclared, RollValuePublished, RulesProposed, ScenarioEnded, SideKeyRegistered,
    TakeBackProposed, ChitRevealed, ChitSealed, FairDiceCommitted, FairSeedRevealed, ProposalDeclined, TurnReturned,
    HiddenFortificationPlaced, HiddenFortificationRevealed, RGPurchaseRevealed, RGPurchaseSealed, SecretRollMade,
    SecretRollRevealed, RollDeclarationRevealed, RollLapsed,
)
from ..domain.commands import *  # noqa: F401,F403 - the verbs, decided here
from ..domain.commands import (
    Accept, Buy, ChooseDiceMode, ReturnTurn, Command, CommitDice, CommitFairSeed, Control, Decline, DeclareRoll, EndFirefight,
    EndScenario, Fortify, Initiative, LoadRules, Mousehole, Place, PublishValue, RecordHQ, RegisterKey, Remove, RenewChain,
    RevealChit, RevealFairSeed, Rewind, RollCommand, SealChit, Step, Undo, Witness, AnswerRoll,
    HidePlacement, ImportVasl, LapseRoll, Reveal, RevealPlacement, RevealPurchase, RevealRoll, RollRevealing, SealPurchase,
    SealRoll, Vacate, DeclareSealed, RevealDeclaration,
)
from ..domain.evolve import CampaignState
from . import chits, fair, fortify, purchases, rights, rolls, secrets, steps, veiled, walk, witness
from . import map as mapd


@dataclass(frozen=True)
class Context:
    """What a decision needs besides the state: who records it (`by`), the log before it (the map's decisions read
    it), and what the deciding ledger knows of a side's own secrets (its sealed CPP and FPP; the audit, which cannot
    open them, passes an upper bound)."""

    by: str = ""
    log: Any = ()
    sealed_cpp: Any = 0  # an int, or a function of none that opens the side's books (rolls.held_cpp)
    sealed_fpp: float = 0
    extra: dict = dataclasses.field(default_factory=dict)  # (the verbs' `import *` brings msgspec's `field`)
    form: int = 3  # the envelope form the action was written in: a log written before keeps its own reading


class LazyLog(Sequence):
    """The log before the action, read when a decision first asks for it (most never do)."""

    def __init__(self, read: Callable[[], list]):
        self._read, self._events = read, None

    def _all(self) -> list:
        if self._events is None:
            self._events = self._read()
        return self._events

    def __getitem__(self, index):
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self):
        return iter(self._all())


def _list(fact) -> list:
    return [fact]


def _register(state: CampaignState, rules, c: RegisterKey) -> list:
    """A key, and with fair dice its first chains in the same action (their action number the key's)."""
    key = secrets.register_key(state, rules, c.side, c.salt, c.check, c.public, c.dice)
    if c.chains is None:
        return [key]
    chains = c.chains
    return [key, fair.commit(state, rules, key.side, chains.roll_head, chains.answer_head, chains.length,
                             chains.sealed, keyed=True)]


def made_at(log, version: int):
    """The fact stored at `version` in the log before the action (the sealed record a reveal opens), or None."""
    return next((event.fact for event in log if event.version == version), None)


def _reveal(state: CampaignState, rules, c: Reveal, x: Context) -> list:
    """Each act of a side's reveal, in order, decided on the campaign before the action (one action number); the
    veiled follow-ups of an RG bought in secret with it, their declarations before their rolls (veiled.py)."""
    veiled.together(state, rules, c.acts, x.log)
    facts: list = []
    for act in c.acts:
        opened = {f.declared: f.fact for f in facts if isinstance(f, RollDeclarationRevealed)}
        rolled = [f.fact for f in facts if isinstance(f, SecretRollRevealed)]  # a void roll reads its RG's strength
        facts += decide(state, rules, act, dataclasses.replace(x, extra={**x.extra, "revealing": True,
                                                                       "declarations": opened, "rolled": rolled}))
    return facts


def _alone(decision):
    """A reveal recorded as a command of its own (logs written before `Reveal`): the same rule holds, an RG bought in
    secret is published with its veiled follow-ups, never one without the other (veiled.py `together`)."""
    def decided(s, r, c, x: Context) -> list:
        if not x.extra.get("revealing"):
            veiled.together(s, r, (c,), x.log)
        return decision(s, r, c, x)
    return decided


def revealed_first(state: CampaignState, rules, c: RollRevealing, x: Context) -> tuple[list, list]:
    """The reveals a roll on hexes makes first, and the log its result is then decided on (CGS 7.4.4)."""
    from ..trust.logged import Logged

    reveals = [fact for act in c.reveals for fact in decide(state, rules, act, x)]
    at = max((e.version for e in x.log), default=0)
    return reveals, list(x.log) + [Logged(at + i + 1, None, "", "", type(f).__name__, f) for i, f in enumerate(reveals)]


def _roll_revealing(state: CampaignState, rules, c: RollRevealing, x: Context) -> list:
    reveals, log = revealed_first(state, rules, c, x)
    rolled, = decide(state, rules, c.roll, x)
    return [*reveals, rolled, *fortify.roll_effects(state, rules, rolled, log)]


def _import_vasl(state: CampaignState, rules, c: ImportVasl, x: Context) -> list:
    from .vasl import decide_file  # the VASL readers: loaded only when a file is imported

    return decide_file(state, rules, c, x.log)


DECISIONS: dict[type, Callable[[CampaignState, Any, Any, Context], list]] = {
    RollCommand: lambda s, r, c, x: [rolls.roll(s, r, c, x.sealed_cpp)[0]],  # the dice come with the command
    Step: lambda s, r, c, x: walk.step(s, r, c.target, x.by, x.form),
    EndScenario: lambda s, r, c, x: _list(steps.scenario_end(s, r, dict(c.lvp), c.winner, c.from_map,
                                                             list(x.log) if c.from_map else None)),
    Initiative: lambda s, r, c, x: _list(chits.initiative(s, r, dict(c.chits), c.us_has_no_units)),
    Buy: lambda s, r, c, x: _list(purchases.buy(s, r, c.rg, c.side, c.map_group, c.objective, c.given, c.on_map,
                                                c.pre_registered, x.sealed_cpp, c.early)),
    Fortify: lambda s, r, c, x: _list(purchases.fortify(s, r, c.item, c.side, c.setup_area, c.count, c.size,
                                                        c.squads, c.front_line, c.isolated, x.sealed_fpp)),
    Control: lambda s, r, c, x: _list(mapd.control(s, r, c.location, c.side, c.strategic)),
    RecordHQ: lambda s, r, c, x: _list(mapd.hq(s, r, c.side, c.location, x.log)),
    Vacate: lambda s, r, c, x: mapd.vacated(s, r, c.map_group, x.by),
    EndFirefight: lambda s, r, c, x: mapd.firefight_end(s, r, c.map, c.fires, c.burning_wrecks, c.in_sewer,
                                                        c.redeployed),
    Place: lambda s, r, c, x: _list(fortify.place(s, r, c.item, c.hex, c.side, c.hidden, x.log)),
    Remove: lambda s, r, c, x: _list(fortify.remove(s, r, c.item, c.hex, c.by, c.side, x.log)),
    Mousehole: lambda s, r, c, x: _list(fortify.mousehole(s, r, c.hexes, c.side, c.roll, x.log)),
    LoadRules: lambda s, r, c, x: _list(rights.load_rules(s, x.by, c.source, c.text)),
    Undo: lambda s, r, c, x: _list(rights.undo(s, x.by, c.reason)),
    Rewind: lambda s, r, c, x: _list(rights.rewind(s, r, x.by, c.cg_date, c.reason)),
    Accept: lambda s, r, c, x: _list(rights.accept(s, r, x.by)),
    Decline: lambda s, r, c, x: _list(rights.decline(s, r, c.side, c.reason)),
    ReturnTurn: lambda s, r, c, x: _list(rights.return_turn(s, r, c.side)),
    RegisterKey: lambda s, r, c, x: _register(s, r, c),
    CommitFairSeed: lambda s, r, c, x: _list(secrets.fair_commit(s, r, c.side, c.commitment, c.shares)),
    RevealFairSeed: lambda s, r, c, x: _list(secrets.fair_reveal(s, r, c.side, c.seed)),
    SealChit: lambda s, r, c, x: _list(chits.seal(s, r, c.side, c.commitment, c.sealed)),
    RevealChit: lambda s, r, c, x: chits.reveal_chit(s, r, c.side, c.chit, c.salt),
    ChooseDiceMode: lambda s, r, c, x: _list(fair.choose_mode(s, r, c.mode)),
    CommitDice: lambda s, r, c, x: _list(fair.commit(s, r, c.side, c.roll_head, c.answer_head, c.length, c.sealed)),
    RenewChain: lambda s, r, c, x: _list(fair.renew(s, r, c.side, c.chain, c.head, c.length, c.sealed)),
    DeclareRoll: lambda s, r, c, x: _list(fair.declare(s, r, c.roll, c.value, x.sealed_cpp, c.blinded)),
    AnswerRoll: lambda s, r, c, x: fair.answered(s, r, x.by, c.declared, c.value, x.sealed_cpp),
    LapseRoll: lambda s, r, c, x: _list(fair.lapse(s, r, x.by, c.declared)),
    PublishValue: lambda s, r, c, x: _list(fair.publish(s, r, c.side, c.n, c.value, c.blind)),
    Witness: lambda s, r, c, x: _list(witness.witness(s, r, c.side, c.rolls, c.disputed, c.log_digest, x.log)),
    SealRoll: lambda s, r, c, x: _list(secrets.admit_sealed_roll(s, r, c.table, c.side, c.purpose, c.rg, c.fair,
                                                                 c.commitment, c.sealed)),
    SealPurchase: lambda s, r, c, x: _list(purchases.admit_sealed(s, r, c.side, c.commitment, c.sealed)),
    HidePlacement: lambda s, r, c, x: _list(fortify.admit_hidden(s, r, c.side, c.item, c.commitment, c.sealed, x.log)),
    RevealRoll: _alone(lambda s, r, c, x: secrets.reveal_roll(s, r, c.roll, made_at(x.log, c.roll), c.fact, c.salt,
                                                              c.value, x.extra.get("declarations"), c.blind,
                                                              x.extra.get("rolled", ()))),
    DeclareSealed: lambda s, r, c, x: _list(veiled.declare(s, r, c.side, c.rg, c.commitment, c.sealed, c.blinded)),
    RevealDeclaration: _alone(lambda s, r, c, x: _list(veiled.reveal(s, r, c.declared, made_at(x.log, c.declared),
                                                                     c.fact, c.salt))),
    RevealPurchase: _alone(lambda s, r, c, x: _list(purchases.reveal(s, r, c.purchase, made_at(x.log, c.purchase),
                                                                     c.fact, c.salt))),
    RevealPlacement: lambda s, r, c, x: _list(fortify.reveal(s, r, c.placed, made_at(x.log, c.placed), c.fact, c.salt,
                                                             c.cause, c.search, x.log)),
    Reveal: _reveal,
    RollRevealing: _roll_revealing,
    ImportVasl: _import_vasl,
}


def decide(state: CampaignState, rules, command: Command, context: Context = Context()) -> list:
    """The facts the rules give for `command` on `state`, or a LedgerError citing the rule."""
    return DECISIONS[type(command)](state, rules, command, context)


# ---- where a command is recorded (8.6: steps in order) ---------------------------------------------------------------
# The side a command walks on first, and the steps it is recorded in: its side stands in one of them, or walks there
# as `step` would (None: the side recording it).
WALKS: dict[type, Callable[[Any, Any], tuple[str | None, tuple[str, ...]]]] = {
    Buy: lambda r, c: (r.side(c.side), steps.steps_of(r, purchase="rg")),
    Fortify: lambda r, c: (r.side(c.side), steps.steps_of(r, purchase="fortifications")),
    EndScenario: lambda r, c: (None, steps.steps_of(r, "scenario_end")),
    Initiative: lambda r, c: ("", steps.steps_of(r, "initiative")),
}
# decided on its side's own books (its secret purchases opened with its key, 8.619); the side recording a Step
OWN_BOOKS = frozenset({Step, Buy, Fortify, RollCommand})


# ---- the command a stored fact records -----------------------------------------------------------------------------
COMMANDS: dict[type, Callable[[Any], Command]] = {
    ScenarioEnded: lambda f: EndScenario(lvp=dict(f.lvp), winner=f.winner if f.declared else None,
                                         from_map=f.from_map),
    InitiativeChosen: lambda f: Initiative(chits=dict(f.chits), us_has_no_units=f.us_has_no_units),
    RGPurchased: lambda f: Buy(rg=f.rg, side=f.side, map_group=f.map_group, objective=f.objective, given=f.given,
                               on_map=f.on_map, pre_registered=f.pre_registered, early=f.early),
    FortificationsPurchased: lambda f: Fortify(item=f.item, side=f.side, setup_area=f.setup_area, count=f.count,
                                               size=f.size, squads=f.squads or None, front_line=f.front_line,
                                               isolated=f.isolated),
    LocationControlled: lambda f: Control(location=f.location, side=f.side, strategic=f.strategic or mapd.CLEAR),
    HQRecorded: lambda f: RecordHQ(side=f.side, location=f.location),
    FirefightEnded: lambda f: EndFirefight(map=f.map, fires=tuple(f.fires), burning_wrecks=tuple(f.burning_wrecks),
                                           in_sewer=tuple(f.in_sewer), redeployed=tuple(f.redeployed)),
    FortificationPlaced: lambda f: Place(item=f.item, hex=f.hex, side=f.side, hidden=f.hidden),
    FortificationRemoved: lambda f: Remove(item=f.item, hex=f.hex, by=f.by, side=f.side),
    MouseholeMade: lambda f: Mousehole(hexes=tuple(f.hexes), side=f.side, roll=f.roll),
    RulesProposed: lambda f: LoadRules(source=f.source, text=f.text),
    TakeBackProposed: lambda f: Undo(reason=f.reason) if f.kind == "undo" else Rewind(cg_date=f.cg_date,
                                                                                     reason=f.reason),
    SideKeyRegistered: lambda f: RegisterKey(side=f.side, salt=f.salt, check=f.check, public=f.public, dice=f.dice),
    FairDiceCommitted: lambda f: CommitFairSeed(side=f.side, commitment=f.commitment, shares=tuple(f.shares)),
    FairSeedRevealed: lambda f: RevealFairSeed(side=f.side, seed=f.seed),
    ChitSealed: lambda f: SealChit(side=f.side, commitment=f.commitment, sealed=f.sealed),
    ChitRevealed: lambda f: RevealChit(side=f.side, chit=f.chit, salt=f.salt),
    DiceModeChosen: lambda f: ChooseDiceMode(mode=f.mode),
    DiceCommitted: lambda f: CommitDice(side=f.side, roll_head=f.roll_head, answer_head=f.answer_head,
                                        length=f.length, sealed=f.sealed),
    DiceChainRenewed: lambda f: RenewChain(side=f.side, chain=f.chain, head=f.head, length=f.length,
                                           sealed=f.sealed),
    RollDeclarationRevealed: lambda f: RevealDeclaration(declared=f.declared, fact=f.fact, salt=f.salt),
    RollDeclared: lambda f: DeclareSealed(side=f.side, rg=f.rg, commitment=f.commitment, sealed=f.sealed,
                                          blinded=f.blinded)
    if f.commitment else DeclareRoll(roll=rolls.RollCommand(
        table=f.table, side=f.side, drms=tuple(tuple(d) for d in f.drms), faces=(), source="fair", secret=f.secret,
        purpose=f.purpose, rg=f.rg, if_result=f.if_result), value=f.value, blinded=f.blinded),
    RollAnswered: lambda f: AnswerRoll(declared=f.declared, value=f.value),
    RollLapsed: lambda f: LapseRoll(declared=f.declared),  # alone: its own side's lapse (with an answer: decided there)
    RollValuePublished: lambda f: PublishValue(side=f.side, n=f.n, value=f.value, blind=f.blind),
    DiceWitnessed: lambda f: Witness(side=f.side, rolls=tuple(f.rolls), disputed=f.disputed,
                                     log_digest=f.log_digest),
    ProposalDeclined: lambda f: Decline(side=f.side, reason=f.reason),
    TurnReturned: lambda f: ReturnTurn(side=f.side),
    SecretRollMade: lambda f: SealRoll(table=f.table, side=f.side, purpose=f.purpose, rg=f.rg, fair=f.fair,
                                       commitment=f.commitment, sealed=f.sealed),
    RGPurchaseSealed: lambda f: SealPurchase(side=f.side, commitment=f.commitment, sealed=f.sealed),
    HiddenFortificationPlaced: lambda f: HidePlacement(side=f.side, item=f.item, commitment=f.commitment,
                                                       sealed=f.sealed),
    SecretRollRevealed: lambda f: RevealRoll(roll=f.roll, fact=f.fact, salt=f.salt),  # its value published before
    RGPurchaseRevealed: lambda f: RevealPurchase(purchase=f.purchase, fact=f.fact, salt=f.salt),
    HiddenFortificationRevealed: lambda f: RevealPlacement(placed=f.placed, fact=f.fact, salt=f.salt, cause=f.cause,
                                                           search=f.search),
}


def command_of(fact) -> Command | None:
    """The command a stored fact records (None: a fact decided with another, or checked apart: rolls, reveals)."""
    made = COMMANDS.get(type(fact))
    return made(fact) if made is not None else None
