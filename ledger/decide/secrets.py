"""Secrets: a side's key (once per side), fair-dice commitments and reveals, Secret rolls and their reveals,
and a player's own rules file. Pure decisions: the key material and the cryptography stay with the service
(ledger/trust/secrets.py); what is decided here is whether the record may be made."""

from __future__ import annotations

from .. import rules as rulesmod
from ..errors import BadInput
from ..sha import is_digest
from ..domain.events import (
    DiceRolled, FairDiceCommitted, FairSeedRevealed, RollLapsed, SecretRollMade, SecretRollRevealed,
    SideKeyRegistered, TablesOverridden,
)
from ..domain.evolve import CampaignState
from ..rules import Rules
from ..trust.secrets import commitment
from . import fair, rolls, veiled


def register_key(state: CampaignState, rules: Rules, side: str, salt: str, check: str,
                 public: str = "", dice: str = "") -> SideKeyRegistered:
    """A side's key, once. A key set up while the campaign's dice are not fair agrees to them by name (`dice`), each
    side's: one side alone never chooses dice its own ledger rolls (campaigns of edition 4 on, steps.EDITION)."""
    side = rules.side(side)
    if side in state.keys:
        raise BadInput(f"the {rules.system.sides[side]} side has set up its key already (once per side)")
    if len(salt) < 16 or len(check) < 16:
        raise BadInput("a key registration needs its salt and check value")
    if public and not is_digest(public):
        raise BadInput("a signing key registration needs an Ed25519 public key (64 hex digits)")
    if dice or state.edition >= 4:
        dice_agreed(state, side, dice)
    return SideKeyRegistered(action=state.next_action, side=side, salt=salt, check=check, public=public, dice=dice)


def dice_agreed(state: CampaignState, side: str, dice: str) -> None:
    """The dice a side's key agrees to (`keys init --dice`): none where they are fair, else the campaign's by name."""
    if dice and dice != state.dice_mode:
        raise BadInput(f"--dice {dice}: the campaign's dice are {state.dice_mode}", fair.RULE)
    if state.dice_mode != "fair" and not dice:
        raise BadInput(f"the campaign's dice are {state.dice_mode}: each side's ledger rolls its own dice alone, not "
                       "proven fair, for the whole campaign once both keys are set up: agree to it with `cgledger keys "
                       f"init --side {side} --dice {state.dice_mode}`, or choose fair dice first (`cgledger fair-dice "
                       "mode fair`)", fair.RULE)


def fair_commit(state: CampaignState, rules: Rules, side: str, seed_commitment: str,
                shares: tuple[str, ...]) -> FairDiceCommitted:
    side = rules.side(side)
    who = rules.system.sides[side]
    if side not in state.keys:
        raise BadInput(f"the {who} side sets up its key first (`cgledger keys init`)")
    if side in state.fair:
        raise BadInput(f"the {who} side has committed its fair-dice seed already")
    return FairDiceCommitted(action=state.next_action, side=side, commitment=seed_commitment, shares=tuple(shares))


def fair_reveal(state: CampaignState, rules: Rules, side: str, seed: str) -> FairSeedRevealed:
    side = rules.side(side)
    if side not in state.fair:
        raise BadInput(f"the {rules.system.sides[side]} side has committed no fair-dice seed")
    return FairSeedRevealed(action=state.next_action, side=side, seed=seed)


def admit_sealed_roll(state: CampaignState, rules: Rules, table_id: str, side: str, purpose: str, rg: int | None,
                      n: int | None, sealed_with: str, sealed: str) -> SecretRollMade:
    """What both sides can decide of a Secret roll before it is revealed (8.6202): the table, the side, the step
    and that it is due, or (fair dice) the answered Secret declaration it makes; typed dice only where fair dice are
    not owed (`rolls.secret_takes_fair_dice`). Its dice are decided again when it is revealed."""
    side = rules.side(side)
    if side not in state.keys:
        raise BadInput(f"the {rules.system.sides[side]} side has no key to seal its Secret rolls with")
    declared = None
    entry = state.declared.get(f"{side}:{n}") if n is not None else None
    if n is not None:
        if entry is None or not entry["answered"] or entry["made"] or not entry["secret"]:
            raise BadInput(f"Secret fair roll {n} of the {rules.system.sides[side]} side: its declaration is not an "
                           "answered Secret roll waiting to be made", fair.RULE)
    if not table_id or veiled.veiled(entry):  # a follow-up of an RG bought in secret: its table sealed too (8.619)
        if table_id:
            raise BadInput(f"Secret fair roll {n} of the {rules.system.sides[side]} side was declared veiled: it is "
                           "made veiled", fair.RULE)
        veiled.admit_roll(state, rules, side, rg, purpose, n, sealed_with)
        return SecretRollMade(action=state.next_action, table="", rule="", side=side, die="", rg=rg, fair=n,
                              commitment=sealed_with, sealed=sealed)
    if n is not None:
        if (table_id, purpose, rg) != (entry["table"], entry["purpose"], entry["rg"]):
            raise BadInput(f"Secret fair roll {n} of the {rules.system.sides[side]} side is not the roll declared",
                           fair.RULE)
        declared = entry["version"]
    table, item = rolls.admit(state, rules, table_id, side, rg, purpose, declared)
    if n is None:  # no fair roll: its dice were typed
        rolls.secret_takes_fair_dice(state, rules, table, side)
    return SecretRollMade(action=state.next_action, table=table.id, rule=table.rule, side=side, die=table.die,
                          purpose=purpose, effect=rolls.effect_of(state, table), rg=rg, fair=n, commitment=sealed_with, sealed=sealed,
                          item=entry["item"] if entry is not None else item)


def reveal(state: CampaignState, made: SecretRollMade | None, version: int, opened: DiceRolled,
           salt: str) -> SecretRollRevealed:
    """A Secret roll published: it must be one not yet revealed, and the roll its commitment binds."""
    committed(state, made, version, opened, salt)
    shown = (opened.side, opened.action, opened.rg, opened.fair) if not made.table else (  # veiled: its side, RG
        opened.table, opened.side, opened.purpose, opened.action, opened.rg, opened.item)
    if shown != ((made.side, made.action, made.rg, made.fair) if not made.table else (
            made.table, made.side, made.purpose, made.action, made.rg, made.item)):
        raise BadInput(f"the roll revealed for event {version} is not the one announced there")
    return SecretRollRevealed(action=state.next_action, roll=version, fact=opened, salt=salt)


def committed(state: CampaignState, made: SecretRollMade | None, version: int, opened: DiceRolled | RollLapsed,
              salt: str) -> None:
    """`made` is a Secret roll not revealed yet, and `opened` (a roll, or a roll made void) what it committed to."""
    if made is None or str(version) not in state.sealed:
        raise BadInput(f"event {version} is no unrevealed Secret roll")
    if commitment(opened, salt) != made.commitment:
        table = f" ({made.table})" if made.table else ""
        raise BadInput(f"the roll revealed for the Secret roll of event {version}{table} does not match its "
                       "commitment: the dice or the result were changed, or made void")


def reveal_roll(state: CampaignState, rules: Rules, version: int, made: SecretRollMade | None,
                opened: DiceRolled | RollLapsed, salt: str, value: str = "", declarations: dict | None = None,
                blind: str = "", rolled=()) -> list:
    """A Secret roll published; a fair one with its roll value first, unless published already, and its dice the
    ones its declaration's two chain values give (a veiled declaration: as `declarations`, revealed in the same
    action, opens it). A roll made void: as `reveal_void` decides it (`rolled`: the rolls revealed before it in
    the same action)."""
    if isinstance(opened, RollLapsed):
        return [reveal_void(state, rules, version, made, opened, salt, value, declarations, rolled)]
    facts: list = []
    entry = _opened(state, rules, version, state.declared.get(f"{opened.side}:{opened.fair}")
                    if opened.source == "fair" else None, declarations)
    if value:
        facts.append(fair.publish(state, rules, opened.side, opened.fair, value, blind))
    elif entry is not None and not entry["value"]:
        raise BadInput(f"the Secret fair roll of event {version} is revealed with its roll value", fair.RULE)
    if entry is not None:
        fair.check_rolled(state, rules, opened, value, entry, blind)
    return facts + [reveal(state, made, version, opened, salt)]


def _opened(state: CampaignState, rules: Rules, version: int, entry: dict | None, declarations: dict | None):
    """A fair roll's declaration as its reveal reads it: a veiled one as `declarations`, revealed in the same
    action, opens it."""
    if not veiled.veiled(entry):
        return entry
    if entry["version"] not in (declarations or {}):
        raise BadInput(f"the Secret roll of event {version} was declared veiled at event {entry['version']}: both "
                       "are revealed with the RG bought in secret", veiled.rule(rules))
    return veiled.opened_entry(entry, declarations[entry["version"]])


def reveal_void(state: CampaignState, rules: Rules, version: int, made: SecretRollMade | None, opened: RollLapsed,
                salt: str, value: str = "", declarations: dict | None = None, rolled=()) -> SecretRollRevealed:
    """A Secret roll made void published (8.6201: its RG's strength, a Secret DR, gave another result than the one
    it was declared for; void in the open, it would have told the strength): the void its commitment binds, for the
    fair roll declared there, its condition decided now that the strength is known."""
    committed(state, made, version, opened, salt)
    entry = state.declared.get(f"{made.side}:{made.fair}") if made.fair is not None else None
    if entry is None or (opened.side, opened.action, opened.declared) != (made.side, made.action, entry["version"]):
        raise BadInput(f"the roll revealed for event {version} is not the one announced there")
    if value:
        raise BadInput(f"the Secret roll of event {version} was made void: it publishes no roll value", fair.RULE)
    fair.check_void(state, rules, _opened(state, rules, version, entry, declarations), rolled)
    return SecretRollRevealed(action=state.next_action, roll=version, fact=opened, salt=salt)


def load_rules(state: CampaignState, source: str, text: str) -> TablesOverridden:
    """A player's own rules file: decoded and validated with every file already in force."""
    rulesmod.check_rules_text(text, source)
    decoded = rulesmod.decode_tables(text, source, state.system)
    rulesmod.load(state.system, state.override_sources() + ((source, text),))  # validates
    changed = ([c.id for c in decoded.chart] + [t.id for t in decoded.table] + [f"RG {r.side} {r.id}" for r in decoded.rg]
               + [f"fortification {f.id}" for f in decoded.fortification] + [f"map {m.group}" for m in decoded.map]
               + [f"victory conditions of CG {cg}" for cg in dict.fromkeys(v.cg for v in decoded.victory)])
    if not changed:
        raise BadInput(f"rules file {source} defines no table, chart, RG, fortification, map or victory conditions")
    return TablesOverridden(action=state.next_action, source=source, text=text, tables=tuple(changed))
