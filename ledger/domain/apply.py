"""What each kind of fact does to the campaign state: one function per event type, found by `apply` in `APPLIED`
(the fold's dispatch, ledger/domain/evolve.py). Every change goes through the state's `_set`/`_add_key`, which keep
what an undo puts back. Fair dice and sealed chits: what was published is kept whatever is later undone."""

from __future__ import annotations

from typing import Any, Callable

from .events import (
    CGDateChanged, ChitRevealed, ChitSealed, CPPGained, DiceChainRenewed, DiceCommitted, DiceModeChosen, DiceRolled,
    Fact, FairDiceCommitted, FirefightEnded, FortificationPlaced, FortificationsPurchased, HiddenFortificationPlaced,
    HiddenFortificationRevealed, InitiativeChosen, LocationControlled, RGPurchased, RGPurchaseRevealed,
    RGPurchaseSealed, RollAnswered, RollDeclarationRevealed, RollDeclared, RollLapsed, RollValuePublished,
    ScenarioEnded, SecretRollMade, SecretRollRevealed, SideAdvanced, SideKeyRegistered, StepOpened, TablesOverridden,
)

# the CampaignState (ledger/domain/evolve.py), which calls `apply` from its fold: named loosely here, so that the import
# runs one way only
CampaignState = Any

# dice a side claims once both hold keys (ledger/decide/witness.py): typed or from VASL. Fair dice are nobody's
# claim; the ledger's own (rng, seeded) are refused once fair dice are in force, and are what both players agreed to
# at the start when they chose immediate dice instead
CLAIMED = ("entered", "vasl")
SCENARIO = "scenario"  # the step value while a CG scenario is played
IDLE_DAY = "Idle Day"


def claim(claimant: str, fact: DiceRolled, action: int | None = None) -> list[Any]:
    """A claim as the state keeps it: who claims, whose roll, its table, dice and source, and the action it is
    part of (last: an undo of that action takes the claim out)."""
    return [claimant, fact.side, fact.table, list(fact.dice), fact.source, fact.action if action is None else action]


def apply(s: CampaignState, fact: Fact, version: int) -> None:
    """The fact's change to the state (a fact of a kind that changes nothing here: none)."""
    applied = APPLIED.get(type(fact))
    if applied is not None:
        applied(s, fact.action, fact, version)  # type: ignore[attr-defined]


# ---- rolls ---------------------------------------------------------------------------------------------------------
def _dice_rolled(s: CampaignState, a: int, fact: DiceRolled, version: int) -> None:
    rolled(s, a, fact, version)
    outcome(s, a, fact)
    if fact.source == "fair" and f"{fact.side}:{fact.fair}" in s.declared:
        settled(s, a, f"{fact.side}:{fact.fair}")


def _secret_roll_made(s: CampaignState, a: int, fact: SecretRollMade, version: int) -> None:
    veiled = {} if fact.table else {"veiled": 1}  # a follow-up of an RG bought in secret: its table sealed too
    s._set(a, "sealed", {**s.sealed, str(version): {"side": fact.side, "effect": fact.effect, **veiled}})
    key = f"{fact.side}:{fact.fair}"
    if key in s.declared:
        s._set(a, "declared", {**s.declared, key: {**s.declared[key], "made": version}})
    elif fact.fair is not None:
        s._set(a, "fair", {**s.fair, fact.side: fact.fair})
    rolled(s, a, fact, version)


def _secret_roll_revealed(s: CampaignState, a: int, fact: SecretRollRevealed, version: int) -> None:
    if isinstance(fact.fact, RollLapsed):
        void_revealed(s, a, fact)
        return
    if s.sealed.get(str(fact.roll), {}).get("veiled"):
        unveiled(s, a, fact.fact)
    s._set(a, "sealed", {k: v for k, v in s.sealed.items() if k != str(fact.roll)})
    outcome(s, a, fact.fact)
    if fact.fact.source in CLAIMED and s.both_keyed():  # typed dice, sealed until now: its side's claim
        s._add_key(a, "claims", str(fact.roll), claim(fact.fact.side, fact.fact, a))
    key = f"{fact.fact.side}:{fact.fact.fair}"
    if key in s.declared and s.declared[key]["made"] == fact.roll:
        settled(s, a, key)


# ---- the calendar and the steps ------------------------------------------------------------------------------------
def _cg_date_changed(s: CampaignState, a: int, fact: CGDateChanged, version: int) -> None:
    s._set(a, "cg_date", fact.cg_date)
    s._set(a, "scenario", "")  # known again once 8.623 has been resolved
    s._set(a, "bought_today", {})
    s._set(a, "today", {})
    s._close_date(a)
    s._set(a, "rgs", {v: {**rg, "pending": []} for v, rg in s.rgs.items()})  # 8.620 is over
    s._set(a, "fpp", {})  # 8.621: FPP unspent at the end of the step are forfeit
    s._set(a, "fortified", {})
    if s.ahead or s.ahead_done:  # nobody walks ahead into a new CG Date (ledger/decide/steps.py)
        s._set(a, "ahead", {})
        s._set(a, "ahead_done", [])
    if s.sealed_chits:
        s._set(a, "sealed_chits", {})


def _step_opened(s: CampaignState, a: int, fact: StepOpened, version: int) -> None:
    s._set(a, "step", fact.step)
    mark = f"{fact.step}|"
    s._set(a, "done", [e[len(mark):] for e in s.ahead_done if e.startswith(mark)])
    if s.ahead_done:
        s._set(a, "ahead_done", [e for e in s.ahead_done if not e.startswith(mark)])
    reached = {fact.step, *fact.skipped}
    if reached & set(s.ahead.values()):  # a side that was there is no longer ahead
        s._set(a, "ahead", {side: p for side, p in s.ahead.items() if p not in reached})
    if fact.step == SCENARIO:
        s._set(a, "initial", False)
        ended(s, a, s.cg_date, version)


def _side_advanced(s: CampaignState, a: int, fact: SideAdvanced, version: int) -> None:
    s._set(a, "ahead", {**s.ahead, fact.side: fact.step})


def _location_controlled(s: CampaignState, a: int, fact: LocationControlled, version: int) -> None:
    if s.edition >= 2:
        s._add_key(a, "controlled", fact.location, [fact.side, a])
    if fact.strategic or fact.location in s.strategic:
        kinds = {k: v for k, v in s.strategic.items() if k != fact.location}
        s._set(a, "strategic", {**kinds, fact.location: [fact.side, fact.strategic]} if fact.strategic else kinds)


def _scenario_ended(s: CampaignState, a: int, fact: ScenarioEnded, version: int) -> None:
    s._set(a, "lvp", dict(fact.lvp))
    s._set(a, "done", s.done + ["scenario_end:"])
    s._set(a, "scenarios", s.scenarios + [[s.cg_date, fact.winner]])


def _initiative_chosen(s: CampaignState, a: int, fact: InitiativeChosen, version: int) -> None:
    s._set(a, "sealed_chits", {})
    s._set(a, "scenario", fact.scenario)
    attacks = {side: s.chits.get(side, 0) + (chit == "attack") for side, chit in fact.chits.items()}
    hit = [side for side in fact.chits if any(c == "attack" for o, c in fact.chits.items() if o != side)]
    s._set(a, "attacked", {**s.attacked, s.cg_date: hit})
    s._set(a, "chits", attacks)
    s._set(a, "done", s.done + ["initiative:"])
    if fact.scenario == IDLE_DAY:
        ended(s, a, s.cg_date, version)


def _firefight_ended(s: CampaignState, a: int, fact: FirefightEnded, version: int) -> None:
    ended(s, a, fact.firefight, version)


# ---- purchases, CPP, fortifications --------------------------------------------------------------------------------
def _rg_purchased(s: CampaignState, a: int, fact: RGPurchased, version: int) -> None:
    purchased(s, a, fact, version, today=True)


def _rg_purchase_sealed(s: CampaignState, a: int, fact: RGPurchaseSealed, version: int) -> None:
    """8.619: one RG bought, which one known to its side only."""
    s._set(a, "secret_rgs", {**s.secret_rgs, str(version): {"side": fact.side, "cg_date": fact.cg_date}})
    s._set(a, "rgs", {**s.rgs, str(version): {"side": fact.side, "rg": "", "group_type": "", "pending": [],
                                             "rolled": {}, "strength": "", "sealed": True}})


def _rg_purchase_revealed(s: CampaignState, a: int, fact: RGPurchaseRevealed, version: int) -> None:
    if str(fact.purchase) not in s.secret_rgs:
        return
    bought_on = s.secret_rgs[str(fact.purchase)]["cg_date"]
    s._set(a, "secret_rgs", {k: v for k, v in s.secret_rgs.items() if k != str(fact.purchase)})
    purchased(s, a, fact.fact, fact.purchase, today=bought_on == s.cg_date)


def _fortifications_purchased(s: CampaignState, a: int, fact: FortificationsPurchased, version: int) -> None:
    s._set(a, "fpp", {**s.fpp, fact.side: s.fpp.get(fact.side, 0) - fact.fpp})
    key = f"{fact.side}:{fact.setup_area}"
    s._set(a, "fortified", {**s.fortified, key: s.fortified.get(key, 0) + fact.s_units})


def _cpp_gained(s: CampaignState, a: int, fact: CPPGained, version: int) -> None:
    s._add_cpp(a, fact.side, fact.cpp)


def _hidden_placed(s: CampaignState, a: int, fact: HiddenFortificationPlaced | FortificationPlaced,
                   version: int) -> None:
    if isinstance(fact, FortificationPlaced) and not fact.hidden:
        return
    hidden = {"side": fact.side, "item": fact.item, "sealed": isinstance(fact, HiddenFortificationPlaced)}
    s._set(a, "hidden", {**s.hidden, str(version): hidden})


def _hidden_revealed(s: CampaignState, a: int, fact: HiddenFortificationRevealed, version: int) -> None:
    s._set(a, "hidden", {k: v for k, v in s.hidden.items() if k != str(fact.placed)})


# ---- keys, rules, fair dice, sealed chits --------------------------------------------------------------------------
def _key_registered(s: CampaignState, a: int, fact: SideKeyRegistered, version: int) -> None:
    key = {"salt": fact.salt, "check": fact.check, **({"public": fact.public} if fact.public else {}),
           **({"dice": fact.dice} if fact.dice else {})}  # set up agreeing to dice not fair: its chains come later
    s._set(a, "keys", {**s.keys, fact.side: key})


def _tables_overridden(s: CampaignState, a: int, fact: TablesOverridden, version: int) -> None:
    s._set(a, "overrides", s.overrides + [[fact.source, fact.text]])


def _fair_dice_committed(s: CampaignState, a: int, fact: FairDiceCommitted, version: int) -> None:
    s._set(a, "fair", {**s.fair, fact.side: 0})


def _dice_mode_chosen(s: CampaignState, a: int, fact: DiceModeChosen, version: int) -> None:
    s._set(a, "dice_mode", fact.mode)


def _dice_committed(s: CampaignState, a: int, fact: DiceCommitted, version: int) -> None:
    s._set(a, "chains", {**s.chains, fact.side: {"roll_head": fact.roll_head, "answer_head": fact.answer_head,
                                                 "length": fact.length, "version": version, "sealed": fact.sealed}})


def _chain_renewed(s: CampaignState, a: int, fact: DiceChainRenewed, version: int) -> None:
    key, known = f"{fact.side}:{fact.chain}", s.renewed.get(f"{fact.side}:{fact.chain}", [])
    if all(c["first"] != fact.first for c in known):  # an undo applies the ledger's own records again
        s.renewed = {**s.renewed, key: known + [{"first": fact.first, "head": fact.head, "length": fact.length,
                                                 "sealed": fact.sealed, "version": version}]}


def _roll_declared(s: CampaignState, a: int, fact: RollDeclared, version: int) -> None:
    key = f"{fact.side}:{fact.n}"
    s._set(a, "declared", {**s.declared, key: {
        "version": version, "action": a, "table": fact.table, "side": fact.side, "n": fact.n,
        "secret": fact.secret, "value": fact.value, "answer": "", "answered": 0, "made": 0,
        "drms": [list(d) for d in fact.drms], "purpose": fact.purpose, "rg": fact.rg, "item": fact.item,
        "step": s.ahead.get(fact.side, s.step), "cg_date": s.cg_date, "if_result": fact.if_result,
        **({"commitment": fact.commitment} if fact.commitment else {}),  # veiled: opened with its RG
        **({"blinded": fact.blinded} if fact.blinded else {})}})
    if fact.item:
        s._add_key(a, "consumed", fact.item, [version, a])
    s.fair_n = {**s.fair_n, fact.side: max(s.fair_n.get(fact.side, 0), fact.n)}
    if fact.value:
        published(s, f"{fact.side}:roll", fact.n, fact.value)


def _declaration_revealed(s: CampaignState, a: int, fact: RollDeclarationRevealed, version: int) -> None:
    """A veiled declaration opened (published with its RG): what it is for, its due item used up."""
    entry = next((e for e in s.declared.values() if e["version"] == fact.declared), None)
    opened = fact.fact
    if entry is not None:
        s._set(a, "declared", {**s.declared, f"{entry['side']}:{entry['n']}": {
            **{k: v for k, v in entry.items() if k != "commitment"}, "table": opened.table,
            "drms": [list(d) for d in opened.drms], "purpose": opened.purpose, "item": opened.item,
            "if_result": opened.if_result}})
    if opened.item and opened.item not in s.consumed:
        s._add_key(a, "consumed", opened.item, [fact.declared, a])


def unveiled(s: CampaignState, a: int, rolled: DiceRolled) -> None:
    """A veiled roll revealed: counted for its RG under its table from now on, its due item used up."""
    rg = s.rgs.get(str(rolled.rg))
    if rg is not None and rg["rolled"].get(""):
        counts = {**rg["rolled"], "": rg["rolled"][""] - 1, rolled.table: rg["rolled"].get(rolled.table, 0) + 1}
        pending = list(rg["pending"])
        if rolled.table in pending:
            pending.remove(rolled.table)
        s._set(a, "rgs", {**s.rgs, str(rolled.rg): {**rg, "pending": pending,
                                                    "rolled": {k: n for k, n in counts.items() if n}}})
    if rolled.item and rolled.item not in s.consumed:
        s._add_key(a, "consumed", rolled.item, [rolled.action, a])


def void_revealed(s: CampaignState, a: int, fact: SecretRollRevealed) -> None:
    """A Secret roll made void, revealed: no longer counted as a roll of its RG; its declaration settled."""
    veiled = s.sealed.get(str(fact.roll), {}).get("veiled")
    s._set(a, "sealed", {k: v for k, v in s.sealed.items() if k != str(fact.roll)})
    key, entry = next(((k, e) for k, e in s.declared.items() if e["version"] == fact.fact.declared), (None, None))
    if entry is None:
        return
    rg, table = s.rgs.get(str(entry["rg"])), "" if veiled else entry["table"]
    if rg is not None and rg["rolled"].get(table):
        counts = {**rg["rolled"], table: rg["rolled"][table] - 1}
        s._set(a, "rgs", {**s.rgs, str(entry["rg"]): {**rg, "rolled": {k: n for k, n in counts.items() if n}}})
    settled(s, a, key)


def _roll_answered(s: CampaignState, a: int, fact: RollAnswered, version: int) -> None:
    entry = next((e for e in s.declared.values() if e["version"] == fact.declared), None)
    if entry is not None:
        key = f"{entry['side']}:{entry['n']}"
        s._set(a, "declared", {**s.declared, key: {**entry, "answer": fact.value, "answered": version}})
    published(s, f"{fact.side}:answer", fact.n, fact.value)


def _roll_lapsed(s: CampaignState, a: int, fact: RollLapsed, version: int) -> None:
    entry = next((e for e in s.declared.values() if e["version"] == fact.declared), None)
    if entry is not None:
        settled(s, a, f"{entry['side']}:{entry['n']}")


def _roll_value_published(s: CampaignState, a: int, fact: RollValuePublished, version: int) -> None:
    key = f"{fact.side}:{fact.n}"
    if key in s.declared:
        s._set(a, "declared", {**s.declared, key: {**s.declared[key], "value": fact.value,
                                                   **({"blind": fact.blind} if fact.blind else {})}})
    published(s, f"{fact.side}:roll", fact.n, fact.value)


def _chit_sealed(s: CampaignState, a: int, fact: ChitSealed, version: int) -> None:
    s._set(a, "sealed_chits", {**s.sealed_chits, fact.side: {
        "version": version, "commitment": fact.commitment, "sealed": fact.sealed, "chit": ""}})


def _chit_revealed(s: CampaignState, a: int, fact: ChitRevealed, version: int) -> None:
    if fact.side in s.sealed_chits:
        s._set(a, "sealed_chits", {**s.sealed_chits, fact.side: {**s.sealed_chits[fact.side], "chit": fact.chit}})


# ---- what the handlers share ---------------------------------------------------------------------------------------
def purchased(s: CampaignState, a: int, fact: RGPurchased, version: int, today: bool) -> None:
    """An RG's purchase on the books: its CPP, the 8.6195/8.6196 counts, its follow-ups, its FPP. A secret one
    counts from its reveal (its CG Date's count and FPP only when revealed on that date); the follow-ups it
    had rolled while sealed stay rolled."""
    s._add_cpp(a, fact.side, -fact.cpp)
    # RR M2 Sniper: the SAN the log knows, raised (2.5122 reads it). One revealed on a later CG Date is not: a
    # SAN dr since then declared the SAN with it (the audit allowed for it while it was secret)
    if fact.san and today and fact.side in s.san:
        s._set(a, "san", {**s.san, fact.side: s.san[fact.side] + fact.san})
    if not fact.given:
        key = f"{fact.side}:{fact.rg}"
        s._set(a, "bought", {**s.bought, key: s.bought.get(key, 0) + 1})
    if today:
        if not fact.given:  # 8.6195 counts what is bought this CG Date: an Initial-Scenario OB's RG is given
            key = f"{fact.side}:{fact.rg}:{fact.map_group}"
            s._set(a, "bought_today", {**s.bought_today, key: s.bought_today.get(key, 0) + 1})
        if fact.fpp:
            s._set(a, "fpp", {**s.fpp, fact.side: s.fpp.get(fact.side, 0) + fact.fpp})
    before = s.rgs.get(str(version), {})
    counts = dict(before.get("rolled", {}))
    pending = list(fact.rolls)
    for table, n in counts.items():
        for _ in range(n):
            if table in pending:
                pending.remove(table)
    rg = {"side": fact.side, "rg": fact.rg, "group_type": fact.group_type, "pending": pending,
          "rolled": counts, "strength": before.get("strength", "")}
    s._set(a, "rgs", {**s.rgs, str(version): rg})


def published(s: CampaignState, key: str, k: int, value: str) -> None:
    if k > s.published.get(key, [0, ""])[0]:
        s.published = {**s.published, key: [k, value]}


def settled(s: CampaignState, a: int, key: str) -> None:
    s._set(a, "declared", {k: v for k, v in s.declared.items() if k != key})


def rolled(s: CampaignState, a: int, fact: DiceRolled | SecretRollMade, version: int) -> None:
    """A roll was made (sealed or not): its due item is consumed, its step's need met."""
    if fact.item and fact.item not in s.consumed:  # a fair roll's item was consumed by its declaration
        s._add_key(a, "consumed", fact.item, [version, a])
    declared = s.declared.get(f"{fact.side}:{fact.fair}") if fact.fair is not None else None
    if fact.effect and (declared or {}).get("cg_date", s.cg_date) == s.cg_date:  # else: a past CG Date's
        where = (declared or {}).get("step") or s.ahead.get(fact.side, s.step)  # a fair roll: its step
        if where == s.step:
            s._set(a, "done", s.done + [f"{fact.effect}:{fact.side}"])
        else:  # met by a side ahead (or in a step the campaign has left)
            s._set(a, "ahead_done", s.ahead_done + [f"{where}|{fact.effect}:{fact.side}"])
    rg = s.rgs.get(str(fact.rg))
    if rg is not None and isinstance(fact, SecretRollMade) and (fact.effect == "rg_strength" or not fact.table):
        rg = {**rg, "strength": "sealed"}  # its follow-ups are known to its side only, until revealed
        s._set(a, "rgs", {**s.rgs, str(fact.rg): rg})
    if rg is not None and (fact.table in rg["pending"] or rg["strength"] == "sealed"):
        pending = list(rg["pending"])
        if fact.table in pending:
            pending.remove(fact.table)
        counts = {**rg["rolled"], fact.table: rg["rolled"].get(fact.table, 0) + 1}
        s._set(a, "rgs", {**s.rgs, str(fact.rg): {**rg, "pending": pending, "rolled": counts}})


# the effects whose result `outcome` writes into the books (CPP, SAN, weather), which later CG Dates read; an RG's
# (`rg_*`) change its follow-ups
BOOKED = frozenset({"cpp_replenishment", "san", "weather"})


def outcome(s: CampaignState, a: int, fact: DiceRolled) -> None:
    """What a roll's result does to the books (at once, or when a Secret roll is revealed)."""
    new_flags = [f for f in fact.sets if f not in s.flags]
    if new_flags:
        s._set(a, "flags", s.flags + new_flags)
    if fact.effect == "cpp_replenishment" and fact.value is not None:
        s._add_cpp(a, fact.side, fact.value)
    if fact.cpp:
        s._add_cpp(a, fact.side, -fact.cpp)
    if fact.code:
        key = f"{fact.table}:{fact.code}:{fact.side}"
        if key not in s.today:
            s._add_key(a, "today", key, a)
    if fact.effect == "san":  # 8.6122: the SAN given, lowered by two on a 'reduced' result
        given = next((d.input for d in fact.drms if d.key == "san" and d.input is not None), None)
        if given is not None:
            s._set(a, "san", {**s.san, fact.side: given - (2 if fact.code == "reduced" else 0)})
    if fact.effect == "weather" and fact.code:
        s._set(a, "weather", {**s.weather, s.cg_date: fact.code})
    rg = s.rgs.get(str(fact.rg))
    if rg is not None and fact.code and fact.effect == "rg_strength":
        s._set(a, "rgs", {**s.rgs, str(fact.rg): {**rg, "strength": fact.code,
                                                          "pending": rg["pending"] + list(fact.adds)}})
    elif rg is not None and fact.code:  # a follow-up's result kept (a round that fell short is rolled again)
        codes = rg.get("codes", {})
        s._set(a, "rgs", {**s.rgs, str(fact.rg): {
            **rg, "codes": {**codes, fact.table: codes.get(fact.table, []) + [fact.code]},
            "pending": rg["pending"] + list(fact.adds)}})


def ended(s: CampaignState, a: int, date: str, version: int) -> None:
    if date not in s.reph_ends:
        s._set(a, "reph_ends", {**s.reph_ends, date: [version, a]})


APPLIED: dict[type, Callable] = {
    DiceRolled: _dice_rolled, SecretRollMade: _secret_roll_made, SecretRollRevealed: _secret_roll_revealed,
    CGDateChanged: _cg_date_changed, StepOpened: _step_opened, SideAdvanced: _side_advanced,
    LocationControlled: _location_controlled, ScenarioEnded: _scenario_ended, InitiativeChosen: _initiative_chosen,
    FirefightEnded: _firefight_ended, RGPurchased: _rg_purchased, RGPurchaseSealed: _rg_purchase_sealed,
    RGPurchaseRevealed: _rg_purchase_revealed, FortificationsPurchased: _fortifications_purchased,
    CPPGained: _cpp_gained, HiddenFortificationPlaced: _hidden_placed, FortificationPlaced: _hidden_placed,
    HiddenFortificationRevealed: _hidden_revealed, SideKeyRegistered: _key_registered,
    TablesOverridden: _tables_overridden, FairDiceCommitted: _fair_dice_committed,
    DiceModeChosen: _dice_mode_chosen, DiceCommitted: _dice_committed, DiceChainRenewed: _chain_renewed,
    RollDeclared: _roll_declared, RollAnswered: _roll_answered, RollValuePublished: _roll_value_published,
    RollLapsed: _roll_lapsed, RollDeclarationRevealed: _declaration_revealed,
    ChitSealed: _chit_sealed, ChitRevealed: _chit_revealed,
}
