"""The verbs that prepare one command from a player's words and record it: steps, scenario ends, Initiative chits
(sealed once both sides hold keys), purchases (sealed when secret), Control, witnesses, placements, VASL imports.
A command a player's words give whole is recorded by the service alone (`CampaignLedger.execute`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from .. import lazy
from . import retried
from ..decide import chits, steps
from ..decide import witness as witnessing
from ..errors import AlreadyRecorded, BadInput, LedgerError
from ..player import fairplay
from ..trust.logged import Logged
from ..trust.secrets import commitment
from .rolling import follow_ups
from .walking import walk_to
from cgledger.projections import guidance

cmd = lazy.module("cgledger.ledger.decide.commands")
mapd = lazy.module("cgledger.ledger.decide.map")
purchases = lazy.module("cgledger.ledger.decide.purchases")
hiddenmod = lazy.module("cgledger.ledger.player.hidden")

if TYPE_CHECKING:
    from ..store.campaign import Campaign


def new_campaign(ledger, name: str, system: str, cg: str, start_cpp: tuple[str, ...] = (),
                 random_weather: bool = False) -> Campaign:
    fact = steps.start(name, system, cg, start_cpp, random_weather)
    if fact.name in ledger.store.campaign_names():
        if ledger.command_id and ledger.store.campaign(fact.name).recorded(ledger.command_id) == 1:
            raise AlreadyRecorded(1)
        raise BadInput(f"a campaign named '{fact.name}' already exists in this database")
    from ..store.campaign import Campaign

    campaign = Campaign.begin(fact, ledger.command_id)
    ledger.store.save_campaign(campaign)
    return campaign


@retried
def decline(ledger, name: str | None, reason: str = ""):
    """The other side declines the open proposal: it is over, and both sides' `status` say so once."""
    campaign, rules = ledger.load(name)
    fact, = ledger.record(campaign, rules, cmd.Decline(side=ledger.recording_side(campaign, rules), reason=reason))
    return fact


def concerned(ledger, name: str | None, fact) -> list[Logged]:
    """The events of the actions an undo, a rewind or a proposal concerns."""
    wanted = set(voided_by_fact(fact))
    return [e for e in ledger.store.history(name) if getattr(e.fact, "action", None) in wanted]


def rest_of_command(ledger, name: str | None, fact) -> list[int]:
    """After an undo of one action, the first events of the other actions the same command made that are still in
    force (`buy --follow-ups` records the purchase, the walk and each declaration as actions of their own, their
    command ids one id with '#n'): each is taken back by an `undo` of its own."""
    from ..domain.inforce import live

    undone = getattr(fact, "undone", None)
    history = ledger.store.history(name)
    ids = {e.command.partition("#")[0] for e in history if getattr(e.fact, "action", None) == undone and e.command}
    if undone is None or not ids - {""}:
        return []
    firsts: dict[int, int] = {}
    for event in live(history):
        action = getattr(event.fact, "action", None)
        if action is not None and action != undone and event.command.partition("#")[0] in ids:
            firsts.setdefault(action, event.version)
    return sorted(firsts.values())


@retried
def step(ledger, name: str | None, target: str | None = None):
    campaign, rules = ledger.load(name)
    facts = ledger.record(campaign, rules, cmd.Step(target=target))  # on its own books: its own RG's follow-ups
    return steps.moved(rules, campaign, facts, guidance.passed)


@retried
def scenario_end(ledger, name: str | None, lvp_items: tuple[str, ...], winner: str | None = None):
    campaign, rules = ledger.load(name)
    base = next(iter(steps.steps_of(rules, "scenario_end")), "")
    lvp = steps.side_numbers(rules, lvp_items, "--lvp", f"{base}2" if base else None)
    from_map = not lvp_items  # read off the map: the LVP Locations each side Controls (8.6032)
    fact, = ledger.record(campaign, rules, cmd.EndScenario(lvp=lvp, winner=winner, from_map=from_map))
    return fact


@retried
def initiative(ledger, name: str | None, given: dict[str, str], us_has_no_units: bool = False):
    """Both chits at one table; once both sides hold keys, this side's chit sealed (the other's comes sealed
    too; both are revealed by the sides' ledgers, and the matrix resolves then)."""
    import secrets as random

    campaign, rules = ledger.load(name)
    if chits.sealed_play(campaign, rules):
        if len(given) != 1 or us_has_no_units:
            raise BadInput("both sides hold keys: give only your own side's chit (--chit SIDE=attack|idle), with "
                           "your key; it is sealed until the other side's is sealed too",
                           steps.need_step(rules, campaign, "initiative") + "2")
        (side, chit), = given.items()
        side = rules.side(side)
        walk_to(ledger, campaign, rules, side, steps.steps_of(rules, "initiative"))
        chits.check_chit(campaign, rules, side, chit)
        salt = random.token_hex(16)
        text = ledger.keyring.seal_text(campaign, rules, side, msgspec.json.encode([chit.lower(), salt]).decode())
        request = cmd.SealChit(side=side, commitment=chits.commitment(side, chit.lower(), salt), sealed=text)
        fact, = ledger.record(campaign, rules, request, save=False)
        revealed = fairplay.chit_revealed(campaign, rules, ledger.keyring, side)  # the second chit sealed: at once
        if revealed is not None:
            request, facts = revealed
            ledger.put(campaign, *facts, request=request)
        ledger.store.save_campaign(campaign)
        return fact
    fact, = ledger.record(campaign, rules, cmd.Initiative(chits=given, us_has_no_units=us_has_no_units))
    return fact


@retried
def buy(ledger, name: str | None, rg_id: str, side: str, map_group: str = "", objective: str = "",
        given: bool = False, on_map: bool = False, pre_registered: int = 0, secret: bool | None = None,
        early: bool = False):
    """8.619: an RG bought against the buyer's own books (its secret purchases and Secret replenishments opened
    with its key). Kept secret by default once the buyer has a key (`secret`: None), sealed like a Secret roll:
    the other side sees that one RG was bought and a commitment. Returns (the purchase, whether sealed)."""
    campaign, rules = ledger.load(name)
    who = rules.side(side)
    request = cmd.Buy(rg=rg_id, side=who, map_group=map_group, objective=objective, given=given, on_map=on_map,
                      pre_registered=pre_registered, early=early)
    fact, = ledger.decided(campaign, rules, request)
    if secret is None:
        secret = purchases.secret_step(rules) is not None and who in campaign.keys
    if secret:
        salt, text = ledger.keyring.seal_purchase(campaign, rules, fact)
        ledger.record(campaign, rules, cmd.SealPurchase(side=fact.side, commitment=commitment(fact, salt), sealed=text))
    else:
        ledger.append(campaign, fact, request=request)
    _placed_next_firefight(ledger, campaign, rules, fact)
    return fact, secret


def _placed_next_firefight(ledger, campaign, rules, fact) -> None:
    """CGS: a fortification placed only at the start of a firefight (a Roadblock, 7.5.1; Wire, 7.6.1) bought while
    one is under way goes in at the next: said at once, not first at `place`."""
    rg = rules.rgs.get((fact.side, fact.rg))
    placement = rules.placements.get(rg.fortification) if rg is not None and rg.fortification else None
    if placement is None or not placement.at_start:
        return
    from ..decide.fortify import play_begun

    begun = play_begun(ledger.store.log_at(campaign))
    if begun is not None:
        ledger.said.append(f"a {placement.name} is placed at the start of a firefight ({placement.at_start}): this one "
                           f"is under way (since event {begun}), so it goes in at the next")


def buy_then_follow_ups(ledger, name: str | None, rg_id: str, side: str, *args) -> tuple:
    """The side's last purchase this CG Date, then every follow-up roll due for its RGs (`follow_ups`): the
    purchase, whether sealed, the rolls. A retry whose purchase is recorded already records nothing. The purchase
    stands on its own: follow-ups the ledger refuses now are said, not made (`follow-ups` makes them later)."""
    fact, secret = buy(ledger, name, rg_id, side, *args)
    try:
        return fact, secret, follow_ups(ledger, name, side)
    except AlreadyRecorded:
        raise
    except LedgerError as e:
        ledger.notices.append(f"bought; no follow-up roll made now: {e.line()}")
        return fact, secret, []


@retried
def control(ledger, name: str | None, location: str, side: str, strategic: str = ""):
    campaign, rules = ledger.load(name)
    request = cmd.Control(location=location, side=side, strategic=strategic)
    fact, = ledger.decided(campaign, rules, request)
    before = mapd.strategic_holders(campaign, fact.location)
    ledger.append(campaign, fact, request=request)
    ledger.store.notices.extend(mapd.strategic_left(campaign, rules, fact.location, before))  # said when it is made
    return fact


@retried
def witness(ledger, name: str | None, rolls: tuple[int, ...] = (), every: bool = False, disputed: str = ""):
    """The side whose key is given witnesses (or disputes) the other side's typed or VASL dice: the rolls named,
    or `every` one still open for it."""
    campaign, rules = ledger.load(name)
    side = ledger.keyring.opens(campaign) if ledger.keyring.material else None
    if not side:
        raise BadInput("witnessing needs your side's passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file)",
                       witnessing.RULE)
    if every:
        rolls = tuple(sorted(set(witnessing.to_witness(campaign, side)) | set(rolls)))
        if not rolls:
            disputed = [str(v) for v, c in witnessing.open_claims(campaign) if c[0] != side]
            raise BadInput("no dice of the other side wait for your witness" + (
                f" (event {', '.join(disputed)} disputed: name them to witness them after all)" if disputed
                else ""), witnessing.RULE)
    fact, = ledger.record(campaign, rules, cmd.Witness(side=side, rolls=tuple(rolls), disputed=disputed))
    return fact, claimed(ledger, campaign.name, fact.rolls)


def claimed(ledger, name: str, versions) -> list[Logged]:
    wanted = set(versions)
    return [e for e in ledger.store.history(name) if e.version in wanted]


@retried
def place(ledger, name: str | None, item: str, hex_text: str, side: str, hidden: bool = False):
    """A fortification placed; a hidden one (7.4.4) of a side with a key is sealed with it (its hex)."""
    campaign, rules = ledger.load(name)
    request = cmd.Place(item=item, hex=hex_text, side=side, hidden=hidden)
    fact, = ledger.decided(campaign, rules, request)
    if fact.hidden and fact.side in campaign.keys:
        salt, text = hiddenmod.seal(ledger.keyring, campaign, rules, fact)
        ledger.record(campaign, rules, cmd.HidePlacement(side=fact.side, item=fact.item,
                                                       commitment=commitment(fact, salt), sealed=text))
    else:
        ledger.append(campaign, fact, request=request)
    return fact, campaign.version


@retried
def vasl_import(ledger, name: str | None, files: list[tuple[str, bytes]], attach: list, players: dict[str, str],
                dry_run: bool = False, own_copy: bool = False) -> list:
    """Each file (name, bytes) in order, one action each; nothing is written if any is refused. `own_copy`: the
    player says his own VASL wrote the files as he watched the game live, so they witness the other side's VASL
    dice whose very reports stand in them (a file the other side mailed would be that side's word)."""
    from ..decide.vasl import commands_of, decide_import, read_source

    campaign, rules = ledger.load(name)
    sources = [read_source(data, file, tuple(players)) for file, data in files]
    history = ledger.store.log_at(campaign)
    imported, facts = decide_import(campaign, rules, history, sources, attach, players)
    if facts and not dry_run:  # each file one action, kept with its command and decided from it
        for request in commands_of(sources, attach, players, imported):
            ledger.record(campaign, rules, request, save=False)
        ledger.store.save_campaign(campaign)
    me = ledger.keyring.opens(campaign) if ledger.keyring.material and not dry_run else None
    if me:  # the witness's own copy of the VASL log: the other side's VASL rolls in it are witnessed
        from ..decide.vasl import names_of, witnessed_in

        claims = {v: campaign.claims[str(v)] for v in witnessing.to_witness(campaign, me)}
        log = ledger.store.log_at(campaign)
        named = names_of(log, me, {n: rules.side(s) for n, s in players.items()})
        if not own_copy or me not in named.values():
            found = sorted({v for _digest, rolls in witnessed_in(log, imported, claims, named) for v in rolls})
            if found and not own_copy:
                ledger.said.append(f"this file holds the reports of the other side's VASL dice of event "
                                   f"{', '.join(map(str, found))}: if your own VASL wrote it while you watched the game "
                                   "live, `--own-copy` witnesses them (a file he mailed you is his word, not yours)")
            elif found:  # a report of his own the other side claimed would be witnessed as the other's
                ledger.said.append(f"your copy of the VASL log holds the reports of the other side's VASL dice of "
                                   f"event {', '.join(map(str, found))}: name your own VASL player to witness them "
                                   f"from it (--player NAME={me}), so that no report of yours is taken for his")
            return imported
        for digest, rolls in witnessed_in(log, imported, claims, named):
            ledger.record(campaign, rules, cmd.Witness(side=me, rolls=rolls, log_digest=digest))
            ledger.said.append(f"witnessed the other side's VASL dice of event {', '.join(map(str, rolls))}: your "
                                "own copy of the VASL log holds the same reports")
    return imported


def voided_by_fact(fact) -> tuple[int, ...]:
    """The actions an undo, rewind or proposal concerns."""
    from ..domain.events import TakeBackProposed
    from ..domain.inforce import voided_by

    if isinstance(fact, TakeBackProposed):
        return tuple(fact.voided)
    return voided_by(fact) or ()

