"""The roll verbs: a roll admitted before any dice are made, then declared (fair dice) or made with the dice given
(typed, a VASL report) or the ledger's own, and sealed where it is Secret and its side holds a key; an RG's follow-up
rolls, those a strength result may call for declared with it. Each records through the service
(ledger/application.py), which also carries out the protocol's answers (`answer`)."""

from __future__ import annotations

from .. import lazy
from . import retried
from ..decide import fair, purchases, rolls, steps, veiled, walk
from ..domain.outcomes import Declared, Rolled
from ..errors import AlreadyRecorded, BadInput
from ..rules import parse_declared
from ..rules.dice import parse_entered
from ..trust import fairdice
from ..trust.secrets import commitment
from .walking import walk_to

cmd = lazy.module("cgledger.ledger.decide.commands")
fortify = lazy.module("cgledger.ledger.decide.fortify")
purchases = lazy.module("cgledger.ledger.decide.purchases")
hiddenmod = lazy.module("cgledger.ledger.player.hidden")


def follow_ups(ledger, name: str | None, side: str, rg: str | None = None) -> list:
    """Every follow-up roll due now for the side's RGs (or one RG), in step order, each the act `roll --rg`
    makes (declared with fair dice): an RG's strength first, then what its result does not decide (a leader
    roll whose DRM reads the strength comes right after the strength's declaration, and is made after it).
    The rolls a strength's result adds are due once it is known. An RG bought in secret then declares as many as
    any RG of its side's chart may (`keep_count`). A retry with the command id given skips what was recorded (each
    roll takes the id and its place: ID#1, ID#2, ...)."""
    base, rolled, tried = ledger.command_id, [], set()
    rules_of = ledger.rules_for(ledger.store.campaign(name))
    step = steps.steps_of(rules_of, "rg_followups")
    if not step:
        raise BadInput(f"{rules_of.system.id.upper()} has no RG follow-up rolls")
    try:
        for index in range(1, 200):
            campaign = ledger.store.campaign(name)
            rules = ledger.rules_for(campaign)
            who = rules.side(side)
            view = ledger.books.own_view(campaign, rules, who)
            only = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
            due = [n for n in walk.owed(rules, view, who, step[0]) if n["effect"] == "rg_followups"
                   and n["side"] == who and (only is None or n["rg"] == only)]
            if not due or (due[0]["table"], due[0]["rg"], len(due)) in tried:
                break
            ledger.command_id = f"{base}#{index}" if base else ""
            try:
                rolled.append(roll(ledger, name, due[0]["table"], who, rg=str(due[0]["rg"]), alone=False))
            except AlreadyRecorded:
                continue  # recorded by the try this one repeats
            tried.add((due[0]["table"], due[0]["rg"], len(due)))
        for index, (table, rg_version, code) in enumerate(if_results(ledger, name, side, rg), start=index + 1):
            ledger.command_id = f"{base}#{index}" if base else ""
            try:
                rolled.append(roll(ledger, name, table, side, rg=str(rg_version), if_result=code, alone=False))
            except AlreadyRecorded:
                continue
        kept = keep_count(ledger, name, side, base, index + 1)
    finally:
        ledger.command_id = base
    if not rolled and not kept:
        raise BadInput(f"no follow-up roll is due now for the {rules_of.system.sides[rules_of.side(side)]} side's "
                       "RGs" + (f" ({rg})" if rg else "") + ": `cgledger status` says what is", step[0])
    return rolled


def keep_count(ledger, name: str | None, side: str, base: str, first: int) -> int:
    """The side's RGs bought in secret declare as many veiled follow-ups as any RG of its chart may (8.619): the ones
    an RG does not call for keep the count, each made void (`veiled.followups_kept`), so that their number tells the
    other side neither the RG nor its strength."""
    campaign = ledger.store.campaign(name)
    rules = ledger.rules_for(campaign)
    if not (campaign.dice_mode == "fair" and all(s in campaign.keys for s in rules.system.sides)):
        return 0
    kept = veiled.to_keep_count(campaign, rules, rules.side(side))
    for index, rg in enumerate(kept, start=first):
        ledger.command_id = f"{base}#{index}" if base else ""
        try:
            declare_kept(ledger, name, rules.side(side), rg)
        except AlreadyRecorded:
            continue
    if kept:
        ledger.said.append(f"{len(kept)} more sealed declaration(s) keep the count of your secret RGs' follow-ups "
                           f"alike, whatever the RG and its strength ({purchases.secret_step(rules)}): each is made "
                           "void")
    return len(kept)


@retried
def declare_kept(ledger, name: str | None, who: str, rg: int) -> None:
    campaign, rules = ledger.load(name)
    blinded = fairdice.blinded(ledger.keyring.blind(campaign, rules, who, campaign.fair_n.get(who, 0) + 1))
    fact = veiled.count_kept(campaign, rules, who, rg, blinded)
    salt, text = ledger.keyring.seal_declaration(campaign, rules, fact)
    ledger.record(campaign, rules, cmd.DeclareSealed(side=who, rg=rg, commitment=commitment(fact, salt), sealed=text,
                                                     blinded=blinded))


def if_results(ledger, name: str | None, side: str, rg: str | None) -> list[tuple[str, int, str]]:
    """The rolls a strength result would make due for the side's RGs whose strength roll waits for its dice (a
    Depleted RG's SW drs): declared now, each for its result, so that their dice come with the strength's and
    the one the strength calls for is made without another exchange (the others lapse)."""
    campaign = ledger.store.campaign(name)
    rules = ledger.rules_for(campaign)
    if not (campaign.dice_mode == "fair" and all(s in campaign.keys for s in rules.system.sides)):
        return []
    who = rules.side(side)
    view = ledger.books.own_view(campaign, rules, who)
    only = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
    return rolls.if_result_rolls(view, rules, who, only)


@retried
def roll(ledger, name: str | None, table_id: str, side: str, drms: tuple[str, ...] = (), dice: str | None = None,
         secret: bool = False, purpose: str = "", rg: str | None = None, vasl: str | None = None,
         hexes: tuple[str, ...] = (), if_result: str = "", alone: bool = True) -> Rolled:
    """One roll: admitted before any dice are made; declared (fair dice), or made with the dice given (typed, a
    VASL report) or the ledger's own; sealed where it is Secret and its side holds a key. `if_result`: declared
    for that result of its RG's strength roll, made only if it gives it. `alone`: not one of `follow_ups`."""
    campaign, rules = ledger.load(name)
    report = vasl_report(ledger, campaign, dice, vasl)
    table = rules.table(table_id)
    who = rules.side(side)
    walk_to(ledger, campaign, rules, who, tuple(t for t in (table.step, *table.steps) if t))
    view = ledger.books.own_view(campaign, rules, who)
    rg_version = purchases.rg_reference(view, rules, rg, who) if rg is not None else None
    if rg_version is not None and str(rg_version) in campaign.secret_rgs:
        secret = True  # an RG bought in secret: its follow-ups are Secret too (8.619)
    rolls.admit(view, rules, table_id, who, rg_version, purpose, if_result=if_result)  # before any dice are made
    named = fortify.roll_hexes(rules, table, hexes, purpose)
    if report is None and dice is None and campaign.dice_mode == "fair" \
            and all(s in campaign.keys for s in rules.system.sides):
        if named:  # a declared roll cannot carry its map effects yet: the dice of play are entered
            raise BadInput("with fair dice, a roll that changes the map takes the dice rolled in play: give "
                           "--dice or --vasl", table.rule)
        declared = declare(ledger, campaign, rules, table, who, drms, secret, purpose, rg_version, view, if_result)
        if alone and veiled.followed_secretly(campaign, rg_version):
            ledger.said.append(f"declared alone, the follow-ups of an RG bought in secret show their number, and with "
                               f"it the RG's kind: `cgledger follow-ups --side {who}` declares them all and keeps the "
                               f"count ({veiled.rule(rules)})")
        return declared
    faces, source = dice_of(ledger, table, dice, report)
    command = rolls.RollCommand(
        table=table.id, side=who, drms=tuple(parse_declared(drms).items()), faces=tuple(faces), source=source,
        secret=secret, purpose=purpose, rg=rg_version,
        vasl=report.line if report else "", player=report.player if report else "",
        series=report.series if report else "", hexes=named, if_result=if_result)  # refused: dice not fair
    fact, resolution = rolls.roll(view, rules, command, sealed_cpp(ledger, view, rules, who))
    if named:
        return roll_on_map(ledger, campaign, rules, command, fact, resolution, table)
    if fact.secret and fact.side in campaign.keys and report is None:  # both sides see that it was made, not what
        salt, text = ledger.keyring.seal(campaign, rules, fact)
        shown = not veiled.followed_secretly(campaign, fact.rg)  # an RG bought in secret: its table sealed too
        ledger.record(campaign, rules, cmd.SealRoll(table=fact.table if shown else "", side=fact.side,
                                                  purpose=fact.purpose if shown else "", rg=fact.rg,
                                                  commitment=commitment(fact, salt), sealed=text))
        return Rolled(fact, resolution, campaign.cg_date, campaign.version, rules.system.sides[who], True)
    ledger.append(campaign, fact, request=command)
    return Rolled(fact, resolution, campaign.cg_date, campaign.version, rules.system.sides[who], False)


def sealed_cpp(ledger, view, rules, who: str):
    """The CPP of the side's sealed replenishments, its books opened only if a cost asks for them (rolls.held_cpp)."""
    return (lambda: ledger.books.sealed_cpp(view, rules, who)) if view.sealed else 0


def declare(ledger, campaign, rules, table, who: str, drms, secret: bool, purpose: str, rg: int | None, view,
            if_result: str = "") -> Declared:
    """A fair roll: declared now (its roll value published unless Secret), its dice once the other side's ledger
    answers."""
    command = rolls.RollCommand(table=table.id, side=who, drms=tuple(parse_declared(drms).items()), faces=(),
                                source="fair", secret=secret, purpose=purpose, rg=rg, if_result=if_result)
    secret = secret or table.secret or bool(if_result and (rolls.strength_waiting(campaign, rules, rg) or {}).get(
        "secret"))  # as Secret as the strength it waits for (fair.declare)
    n = campaign.fair_n.get(who, 0) + 1
    if all(s in campaign.chains for s in rules.system.sides) and not secret \
            and fair.chain_for(campaign, who, "roll", n) is not None:
        value = ledger.keyring.chain_value(campaign, rules, who, "roll", n)
    else:
        value = ""  # refused by the decision when a commitment is missing
    # a Secret roll's dice also take a blinding value: its roll value alone would be known once a later one is
    # published (the chain is reversed: each value hashes to the one before it)
    blinded = fairdice.blinded(ledger.keyring.blind(campaign, rules, who, n)) \
        if secret and fair.chain_for(campaign, who, "roll", n) is not None else ""
    fact = fair.declare(view, rules, command, value, sealed_cpp(ledger, view, rules, who), blinded)
    if veiled.followed_secretly(campaign, rg):  # an RG bought in secret: what the roll is for sealed too (8.619)
        salt, text = ledger.keyring.seal_declaration(campaign, rules, fact)
        ledger.record(campaign, rules, cmd.DeclareSealed(side=who, rg=rg, commitment=commitment(fact, salt),
                                                         sealed=text, blinded=blinded))
    else:
        ledger.append(campaign, fact, request=cmd.DeclareRoll(roll=command, value=value, blinded=blinded))
    bought = view.rgs.get(str(rg)) if rg is not None else None
    return Declared(fact, table, campaign.cg_date, campaign.version, rules.system.sides[who],
                    rules.system.sides[fair.other(rules, who)], (bought or {}).get("rg", ""))


def vasl_report(ledger, campaign, dice: str | None, vasl: str | None):
    """The VASL report a roll's dice are given as (`--vasl`), checked against the reports this log holds."""
    if vasl is None:
        return None
    if dice is not None:
        raise BadInput("give the dice once: --dice or --vasl")
    from ..vasl.bot import parse as parse_vasl  # here: only a roll given as a VASL report reads one
    from ..decide.vasl import check_new_reports

    report = parse_vasl(vasl)
    check_new_reports(ledger.store.log_at(campaign), [report])
    return report


def dice_of(ledger, table, dice: str | None, report) -> tuple[tuple[int, ...], str]:
    """The dice of a roll made now: the VASL report's, the ones typed, or the ledger's own; with their source."""
    if report is not None:
        if report.die != table.die:
            raise BadInput(f"table {table.id} takes a {table.die}; the VASL report is a {report.die}", table.rule)
        return tuple(report.faces), "vasl"
    if dice is not None:
        return tuple(parse_entered(table.die, dice)), "entered"
    return tuple(ledger.dice.roll(table.die)), ledger.dice.name


def roll_on_map(ledger, campaign, rules, command, fact, resolution, table) -> Rolled:
    """CGS: what the result does to the hexes named, the hidden ones there revealed first (7.4.4)."""
    before = ledger.store.log_at(campaign)
    acts = reveal_on_entry(ledger, campaign, rules, command.side, table, command.hexes, before)
    revealing = cmd.RollRevealing(reveals=acts, roll=command)
    reveals, log = cmd.revealed_first(campaign, rules, revealing, cmd.Context(log=before))
    version = campaign.version + len(reveals) + 1
    effects = fortify.roll_effects(campaign, rules, fact, log)
    ledger.append(campaign, *reveals, fact, *effects, request=revealing if acts else command)
    return Rolled(fact, resolution, campaign.cg_date, version, rules.system.sides[command.side], False,
                  (*reveals, *effects))




def reveal_on_entry(ledger, campaign, rules, side: str, table, named: tuple[str, ...], log) -> list:
    if table.map is None or not table.map.holds:
        return []
    found = hiddenmod.on_entry(ledger.keyring, campaign, rules, log, side, table.map.holds, named)
    return tuple(cmd.RevealPlacement(placed=version, fact=opened, salt=salt, cause="entry")
                 for version, _made, opened, salt in found)

