"""Fair dice: commitments first, a roll declared by its side and answered by the other, its dice from
both sides' chain values (ledger/trust/fairdice.py). Pure decisions, re-run by the audit: nothing derived from a chain is
published before both sides' commitments are on record, each value is the next one of its chain, a roll's dice
are the ones its two values give, and the roll is the one declared. A chain nearing its end is followed by the next
one its side's ledger commits (`renew`), on record before any roll needs it."""

from __future__ import annotations

import msgspec

from ..trust import fairdice
from ..rules.dice import FACES
from ..errors import BadInput
from ..sha import is_digest
from ..domain.events import (
    DiceChainRenewed, DiceCommitted, DiceModeChosen, DiceRolled, RollAnswered, RollDeclared, RollLapsed, RollValuePublished,
)
from ..domain.evolve import CampaignState
from ..rules import Rules
from . import rolls

RULE = "cgledger fair dice"  # no ASL rule says how dice are made fair: the protocol of docs/guide/fair-dice.md does
MODES = ("fair", "immediate")
# a side's ledger commits its next chain once fewer values than this are left in the last one: before the other
# side can declare a roll that needs it (one side's turn by email holds tens to a few hundred rolls), so none waits
RENEW = fairdice.LENGTH // 10


def other(rules: Rules, side: str) -> str:
    return next(s for s in rules.system.sides if s != side)


def choose_mode(state: CampaignState, rules: Rules, mode: str) -> DiceModeChosen:
    mode = mode.strip().lower()
    if mode not in MODES:
        raise BadInput(f"unknown dice mode '{mode}': choose {' or '.join(MODES)}", RULE)
    if all(s in state.keys for s in rules.system.sides):
        raise BadInput("the dice mode is fixed once both sides have keys (the key set up last agrees to it)", RULE)
    if state.keys and mode != "fair":  # fair dice stay the choice of either side until both keys are set up
        raise BadInput("the dice mode is chosen before any side sets up its key (both players agree to it at the "
                       "start); only fair dice may be chosen now", RULE)
    if mode == state.dice_mode:
        raise BadInput(f"the campaign's dice are {mode} already", RULE)
    return DiceModeChosen(action=state.next_action, mode=mode)


def commit(state: CampaignState, rules: Rules, side: str, roll_head: str, answer_head: str, length: int,
           sealed: str, keyed: bool = False) -> DiceCommitted:
    """A side commits to its two chains once (`keyed`: its key is being registered in the same action)."""
    side = rules.side(side)
    who = rules.system.sides[side]
    if side not in state.keys and not keyed:
        raise BadInput(f"the {who} side sets up its key first (`cgledger keys init --side {side}`)", RULE)
    if side in state.chains:
        raise BadInput(f"the {who} side has committed its fair-dice chains already (event "
                       f"{state.chains[side]['version']})", RULE)
    for text in (roll_head, answer_head):
        _well_formed(text, length, sealed)
    return DiceCommitted(action=state.next_action, side=side, roll_head=roll_head, answer_head=answer_head,
                         length=length, sealed=sealed)


def _well_formed(head: str, length: int, sealed: str) -> None:
    if not is_digest(head):
        raise BadInput("a fair-dice commitment names its chain heads (64 hex digits each)", RULE)
    if length != fairdice.LENGTH:  # a short chain would leave its owner unable to answer: every roll would wait
        raise BadInput(f"a fair-dice commitment is to chains of {fairdice.LENGTH} values, not {length}", RULE)
    if not sealed:
        raise BadInput("a fair-dice commitment needs its sealed seed", RULE)


# ---- the chains in turn ------------------------------------------------------------------------
def chains_of(state: CampaignState, side: str, chain: str) -> list[dict]:
    """The side's chains of one kind on record, oldest first: {first, head, length, sealed, version}."""
    committed = state.chains.get(side)
    if committed is None:
        return []
    return [{"first": 1, "head": committed[f"{chain}_head"], "length": committed["length"],
             "sealed": committed["sealed"], "version": committed["version"]}, *state.renewed.get(f"{side}:{chain}", [])]


def chain_for(state: CampaignState, side: str, chain: str, n: int) -> dict | None:
    """The side's chain of this kind that holds the value of fair roll n (None: not on record)."""
    return next((c for c in chains_of(state, side, chain) if c["first"] <= n < c["first"] + c["length"]), None)


def left(state: CampaignState, rules: Rules, side: str, chain: str) -> int:
    """Values left in the side's last chain of this kind after the last fair roll declared that takes one (its own
    rolls take its roll chain's, the other side's its answer chain's)."""
    last = chains_of(state, side, chain)[-1]
    used = state.fair_n.get(side if chain == "roll" else other(rules, side), 0)
    return last["first"] + last["length"] - 1 - used


def to_renew(state: CampaignState, rules: Rules, side: str) -> list[str]:
    """The side's chains its ledger commits anew now (fewer than RENEW values left); none before its first."""
    if side not in state.chains:
        return []
    return [chain for chain in fairdice.CHAINS if left(state, rules, side, chain) < RENEW]


def renew(state: CampaignState, rules: Rules, side: str, chain: str, head: str, length: int,
          sealed: str) -> DiceChainRenewed:
    """A side's next chain of one kind, by its ledger: only once the last one nears its end (every chain is kept in
    the state: none is committed before play needs it), the same length, values no chain on record holds, serving
    the rolls right after the last one's (it never replaces a chain: roll n takes its value from the one holding n)."""
    side = rules.side(side)
    who = rules.system.sides[side]
    if chain not in fairdice.CHAINS:
        raise BadInput(f"a fair-dice chain is a roll or an answer chain, not '{chain}'", RULE)
    if side not in state.chains:
        raise BadInput(f"the {who} side commits its first fair-dice chains with its key first", RULE)
    _well_formed(head, length, sealed)
    remaining = left(state, rules, side, chain)
    if remaining >= RENEW:
        raise BadInput(f"the {who} side's {chain} chain has {remaining} values left: its ledger commits the next one "
                       f"once fewer than {RENEW} are", RULE)
    _fresh(state, rules, head)
    last = chains_of(state, side, chain)[-1]
    return DiceChainRenewed(action=state.next_action, side=side, chain=chain, first=last["first"] + last["length"],
                            head=head, length=length, sealed=sealed)


def _fresh(state: CampaignState, rules: Rules, head: str) -> None:
    """A new chain shares no value with the chains on record: its head is none of their heads nor a value published
    from them (a seed used again, or a chain continued, gives values the other side knows in advance)."""
    for side in rules.system.sides:
        for chain in fairdice.CHAINS:
            committed = chains_of(state, side, chain)
            if any(c["head"] == head for c in committed):
                raise BadInput("a new fair-dice chain's head is the head of a chain on record: its values are not "
                               "new", RULE)
            j, known = state.published.get(f"{side}:{chain}", [0, ""])
            holding = chain_for(state, side, chain, j) if j else None
            if holding is not None and fairdice.reaches(known, head, j - holding["first"] + 1):
                raise BadInput(f"a new fair-dice chain's head is a value published from the "
                               f"{rules.system.sides[side]} side's {chain} chain: its values are not new", RULE)


def check_ready(state: CampaignState, rules: Rules) -> None:
    """Nothing derived from a chain is published before both commitments are on record."""
    missing = [s for s in rules.system.sides if s not in state.chains]
    if missing:
        raise BadInput(f"fair dice: the {rules.system.sides[missing[0]]} side has not committed its chains yet "
                       f"(`cgledger fair-dice commit --side {missing[0]}`): nothing derived from a chain is published "
                       "before both commitments are on record", RULE)


def check_value(state: CampaignState, rules: Rules, side: str, chain: str, k: int, value: str) -> None:
    """Value k of the side's chains follows the head of the chain that holds it and the values published from that
    chain before (never a value of another chain: a replaced or earlier one)."""
    holding = chain_for(state, side, chain, k)
    if holding is None:
        raise BadInput(f"no {chain} chain of the {rules.system.sides[side]} side on record holds value {k}: its "
                       "ledger commits the next chain before a roll needs it", RULE)
    j, known = state.published.get(f"{side}:{chain}", [0, ""])
    if not holding["first"] <= j < holding["first"] + holding["length"]:
        j, known = holding["first"] - 1, holding["head"]  # nothing published from it yet: its head
    if not fairdice.consistent(k, value, j, known):
        where = "head" if j == holding["first"] - 1 else f"value {j}"
        raise BadInput(f"value {k} of the {rules.system.sides[side]} side's {chain} chain does not hash to its "
                       f"{where}: it is not the value committed to", RULE)


def check_covered(state: CampaignState, rules: Rules, side: str, n: int) -> None:
    """Fair roll n of `side` is declared only once both chains that hold its values are on record (the other side's
    answer chain before the roll value it answers is published, or it could choose its answer)."""
    answerer = other(rules, side)
    for who, chain in ((side, "roll"), (answerer, "answer")):
        if chain_for(state, who, chain, n) is None:
            raise BadInput(f"fair roll {n} of the {rules.system.sides[side]} side needs the "
                           f"{rules.system.sides[who]} side's next {chain} chain, which its ledger commits on that "
                           "side's next command: nothing derived from a chain is published before it is on record",
                           RULE)


def declare(state: CampaignState, rules: Rules, cmd: rolls.RollCommand, value: str,
            sealed_cpp=0, blinded: str = "") -> RollDeclared:
    """A fair roll asked for: the command is checked as fully as it can be without dice (table, step, due, each
    declared DRM, the CPP it costs), its item consumed, and its roll value published unless it is Secret (a Secret
    one commits to its blinding value instead: `blinded`)."""
    check_ready(state, rules)
    side = rules.side(cmd.side)
    n = state.fair_n.get(side, 0) + 1
    table = rules.table(cmd.table)
    # a roll made for a strength result is as Secret as that strength: made or lapsed by the one ledger that knows it
    secret = cmd.secret or table.secret or bool(
        cmd.if_result and (rolls.strength_waiting(state, rules, cmd.rg) or {}).get("secret"))
    fact, _resolution = rolls.roll(state, rules, msgspec.structs.replace(cmd, faces=placeholder(table.die),
                                                                         source="fair", fair=n),
                                   sealed_cpp)
    if secret and value:
        raise BadInput("a Secret fair roll publishes its roll value only when it is revealed", RULE)
    check_blinded(blinded, secret)
    check_covered(state, rules, side, n)
    if not secret:
        check_value(state, rules, side, "roll", n, value)
    return RollDeclared(action=state.next_action, table=fact.table, side=side, n=n, value=value,
                        drms=tuple(cmd.drms), purpose=cmd.purpose, rg=cmd.rg, item=fact.item, secret=secret,
                        if_result=cmd.if_result, blinded=blinded)


def check_blinded(blinded: str, secret: bool) -> None:
    """A blinding value is committed to by a Secret fair roll only, as 64 hex digits (its SHA-256)."""
    if blinded and not secret:
        raise BadInput("only a Secret fair roll is blinded: an open roll's dice are known once answered", RULE)
    if blinded and not is_digest(blinded):
        raise BadInput("a Secret fair roll commits to its blinding value with 64 hex digits (its SHA-256)", RULE)


def placeholder(die: str) -> tuple[int, ...]:
    """A die's lowest faces: every check of a roll but its dice is made with them before the dice exist."""
    count, lowest, _highest = FACES[die]
    return (lowest,) * count


def waiting(state: CampaignState, version: int) -> dict:
    entry = next((e for e in state.declared.values() if e["version"] == version), None)
    if entry is None:
        raise BadInput(f"event {version} is no fair roll waiting for its dice", RULE)
    return entry


def answer(state: CampaignState, rules: Rules, by: str, version: int, value: str) -> RollAnswered:
    """The other side answers a declared roll with its answer-chain value n."""
    check_ready(state, rules)
    entry = waiting(state, version)
    if entry["answered"]:
        raise BadInput(f"the fair roll of event {version} was answered already (event {entry['answered']})", RULE)
    answerer = other(rules, entry["side"])
    if by != answerer:
        raise BadInput(f"the {rules.system.sides[entry['side']]} side's fair roll of event {version} is answered by "
                       f"the {rules.system.sides[answerer]} side, with its key", RULE)
    check_value(state, rules, answerer, "answer", entry["n"], value)
    return RollAnswered(action=state.next_action, declared=version, side=answerer, n=entry["n"], value=value)


def command(entry: dict, faces: tuple[int, ...]) -> rolls.RollCommand:
    """The declared command with its dice."""
    return rolls.RollCommand(table=entry["table"], side=entry["side"], drms=tuple(tuple(d) for d in entry["drms"]),
                             faces=faces, source="fair", secret=entry["secret"], purpose=entry["purpose"],
                             rg=entry["rg"], fair=entry["n"], declared=entry["version"])


def dice(state: CampaignState, entry: dict, roll_value: str, die: str, blind: str = "") -> tuple[int, ...]:
    """The dice of a declared roll from its two chain values, and a Secret one's blinding value where its
    declaration committed to one (`blind`, or the one published with its roll value)."""
    blind = blind or entry.get("blind", "")
    try:
        if not blind_kept(entry, blind):
            raise ValueError
        return fairdice.faces(roll_value, entry["answer"], state.name, entry["side"], entry["n"], die, blind)
    except ValueError:  # a value no chain holds (the audit names the event that published it)
        raise BadInput(f"fair roll {entry['n']} of the {entry['side']} side: its roll, answer or blinding value is not "
                       "the one committed to", RULE) from None


def answered(state: CampaignState, rules: Rules, by: str, version: int, value: str, sealed_cpp=0) -> list:
    """The whole action of an answer: the answer, and for an open roll the roll it makes (the declared command with
    the dice the two chain values give, in the same action), or its lapse where it was declared for a strength result
    its RG's roll did not give; a Secret roll is made by its own side's ledger."""
    fact = answer(state, rules, by, version, value)
    entry = waiting(state, version)
    if entry["secret"]:
        return [fact]
    if entry.get("if_result") and lapses(state, rules, entry):
        return [fact, RollLapsed(action=fact.action, declared=version, side=entry["side"])]
    made = {**entry, "answered": version, "answer": value}  # as the answer leaves it
    faces = dice(state, made, entry["value"], rules.table(entry["table"]).die)
    rolled, _resolution = rolls.roll(state, rules, command(made, faces), sealed_cpp)
    return [fact, msgspec.structs.replace(rolled, action=fact.action)]


def lapses(state: CampaignState, rules: Rules, entry: dict) -> bool:
    """Whether a roll declared for one result of its RG's strength roll lapses: that roll was made and gave another
    result. Refused while it waits for its dice (the rolls are made in the order declared); False where the strength
    is sealed (an RG bought in secret, or a Secret roll: known to its side's ledger only, decided again once
    revealed)."""
    bought = state.rgs.get(str(entry["rg"])) or {}
    strength = bought.get("strength", "")
    if not strength:
        raise BadInput(f"the {rules.system.sides[entry['side']]} side's fair roll of event {entry['version']} is made "
                       f"only if its RG's strength roll gives '{entry['if_result']}': that roll is made first",
                       entry["table"])
    return strength != "sealed" and strength != entry["if_result"]


def lapse(state: CampaignState, rules: Rules, by: str, version: int) -> RollLapsed:
    """A Secret roll declared for one result of its RG's strength lapses, by its roller's ledger once answered: its
    strength gave another result (what the roller's own books say; the other side's state has it sealed). Its
    ledger seals the lapse as a roll made is (made void: the strength is Secret, 8.6201), decided again at its
    reveal (`check_void`); older logs hold it in the open."""
    entry = waiting(state, version)
    if entry["made"]:
        raise BadInput(f"the fair roll of event {version} was made (event {entry['made']}): a roll made never lapses",
                       RULE)
    if entry.get("commitment"):  # veiled (an RG bought in secret): its condition is decided once revealed
        if by != entry["side"] or not entry["answered"]:
            raise BadInput(f"the fair roll of event {version} lapses only by its own side's ledger, once answered",
                           RULE)
        return RollLapsed(action=state.next_action, declared=version, side=entry["side"])
    if not entry["table"] and entry["secret"] and by == entry["side"] and entry["answered"]:
        return RollLapsed(action=state.next_action, declared=version, side=entry["side"])  # it kept the count (8.619)
    if not entry.get("if_result"):
        raise BadInput(f"the fair roll of event {version} was declared without condition: it is made, never lapsed",
                       RULE)
    if by != entry["side"] or not entry["secret"] or not entry["answered"]:
        raise BadInput(f"the fair roll of event {version} lapses only by its own side's ledger, once answered "
                       "(an open roll lapses with its answer)", RULE)
    if not lapses(state, rules, entry) and (state.rgs.get(str(entry["rg"])) or {}).get("strength") != "sealed":
        raise BadInput(f"the fair roll of event {version} is made: its RG's strength roll gave "
                       f"'{entry['if_result']}'", entry["table"])
    return RollLapsed(action=state.next_action, declared=version, side=entry["side"])


def check_void(state: CampaignState, rules: Rules, entry: dict, revealed=()) -> None:
    """A Secret roll made void, once revealed: declared for one result of its RG's strength roll, which gave another
    (the strength as the campaign knows it, or as revealed before it in the same action: `revealed`)."""
    who, table = rules.system.sides[entry["side"]], entry["table"]
    if not table:
        return  # a veiled declaration that kept the count of its RG's follow-ups (8.619): no roll, always void
    if not entry.get("if_result"):
        raise BadInput(f"the {who} side's roll on {table} was declared without condition, yet made void: it is made, "
                       "never void", RULE)
    strength = (state.rgs.get(str(entry["rg"])) or {}).get("strength", "")
    if strength in ("", "sealed"):
        strength = next((r.code for r in revealed if isinstance(r, DiceRolled) and r.rg == entry["rg"]
                         and r.effect == "rg_strength"), "")
    if not strength:
        raise BadInput(f"the {who} side's roll on {table} made void is revealed with its RG's strength roll, or after "
                       "it", RULE)
    if strength == entry["if_result"]:
        raise BadInput(f"the {who} side's roll on {table} was made void, though its RG's strength roll gave "
                       f"'{strength}'", table)


def resolve(state: CampaignState, rules: Rules, key: str, roll_value: str, sealed_cpp=0,
            blind: str = "") -> DiceRolled:
    """The roll an answered declaration makes: the declared command with the dice its two values give."""
    entry = state.declared.get(key)
    if entry is None or not entry["answered"]:
        raise BadInput(f"fair roll {key} has no answer yet", RULE)
    if entry["secret"] and entry["made"]:
        raise BadInput(f"the Secret fair roll of event {entry['version']} was made already (event {entry['made']})",
                       RULE)
    if roll_value != entry["value"] and entry["value"]:
        raise BadInput(f"fair roll {key}: roll value differs from the one declared", RULE)
    table = rules.table(entry["table"])
    faces = dice(state, entry, roll_value, table.die, blind)
    fact, _resolution = rolls.roll(state, rules, command(entry, faces), sealed_cpp)
    return fact


def publish(state: CampaignState, rules: Rules, side: str, n: int, value: str, blind: str = "") -> RollValuePublished:
    """A Secret fair roll's roll value, published when it is revealed (with its blinding value, where its declaration
    committed to one)."""
    key = f"{side}:{n}"
    entry = state.declared.get(key)
    if entry is None or not entry["secret"] or not entry["made"]:
        raise BadInput(f"the {rules.system.sides.get(side, side)} side has no made Secret fair roll {n} to reveal",
                       RULE)
    check_value(state, rules, side, "roll", n, value)
    if not blind_kept(entry, blind):
        raise BadInput(f"the blinding value published for the {rules.system.sides.get(side, side)} side's Secret "
                       f"fair roll {n} is not the one its declaration committed to", RULE)
    return RollValuePublished(action=state.next_action, side=side, n=n, value=value, blind=blind)


def blind_kept(entry: dict, blind: str) -> bool:
    """Whether `blind` is the blinding value a declaration committed to (none given where it committed to none)."""
    if not entry.get("blinded"):
        return not blind
    try:
        return fairdice.blinded(blind) == entry["blinded"]
    except ValueError:  # not hex
        return False


def check_rolled(state: CampaignState, rules: Rules, fact: DiceRolled, value: str = "",
                 entry: dict | None = None, blind: str = "") -> None:
    """A stored fair roll (DiceRolled, or the roll a SecretRollRevealed shows) resolves an answered declaration
    with the dice its two values give (`value`: its roll value, published in the same action; `entry`: the
    declaration as opened, for a veiled one)."""
    key = f"{fact.side}:{fact.fair}"
    entry = entry or state.declared.get(key)
    if entry is None or not entry["answered"]:
        raise BadInput(f"fair roll {fact.fair} of the {fact.side} side resolves no answered declaration", RULE)
    value = value or entry["value"]
    if not value:
        raise BadInput(f"fair roll {fact.fair} of the {fact.side} side: its roll value is not published", RULE)
    expected = dice(state, entry, value, fact.die, blind)
    if tuple(expected) != tuple(fact.dice):
        raise BadInput(f"fair roll {fact.fair} of the {fact.side} side shows {list(fact.dice)}; the two chain values "
                       f"give {list(expected)}", RULE)
    declared = command(entry, tuple(fact.dice))
    recorded = rolls.command_of(fact, entry["version"])
    for field in ("table", "side", "drms", "purpose", "rg"):
        if msgspec.to_builtins(getattr(declared, field)) != msgspec.to_builtins(getattr(recorded, field)):
            raise BadInput(f"fair roll {fact.fair} of the {fact.side} side: its {field} is not the one declared at "
                           f"event {entry['version']}", RULE)


def owed_by(state: CampaignState, rules: Rules, side: str) -> bool:
    """Whether the side's ledger owes the protocol something now: an answer to the other side's declared roll, or
    its own answered Secret roll made (what `cgledger answer`, or any command of that side, records)."""
    return any((e["side"] != side and not e["answered"]) or (e["side"] == side and e["secret"] and e["answered"]
                                                             and not e["made"]) for e in state.declared.values())


def pending(state: CampaignState) -> list[dict]:
    """The fair rolls waiting for something, oldest first: an answer, the roller's sealed roll, or its reveal."""
    return sorted(state.declared.values(), key=lambda e: e["version"])
