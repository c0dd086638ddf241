"""Secrets: a side's key (once per side), fair-dice commitments and reveals, Secret rolls and their reveals,
and a player's own rules file. Pure decisions: the key material and the cryptography stay with the service
(ledger/trust/secrets.py); what is decided here is whether the record may be made."""

from __future__ import annotations

from .. import rules as rulesmod
from ..errors import BadInput
from ..domain.events import (
    DiceRolled, FairDiceCommitted, FairSeedRevealed, SecretRollMade, SecretRollRevealed, SideKeyRegistered,
    TablesOverridden,
)
from ..domain.evolve import CampaignState
from ..rules import Rules
from ..trust.secrets import commitment


def register_key(state: CampaignState, rules: Rules, side: str, salt: str, check: str,
                 public: str = "") -> SideKeyRegistered:
    side = rules.side(side)
    if side in state.keys:
        raise BadInput(f"the {rules.system.sides[side]} side has set up its key already (once per side)")
    if len(salt) < 16 or len(check) < 16:
        raise BadInput("a key registration needs its salt and check value")
    if public and (len(public) != 64 or any(c not in "0123456789abcdef" for c in public)):
        raise BadInput("a signing key registration needs an Ed25519 public key (64 hex digits)")
    return SideKeyRegistered(action=state.next_action, side=side, salt=salt, check=check, public=public)


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


def sealed_roll(state: CampaignState, rules: Rules, fact: DiceRolled, salt: str, sealed: str) -> SecretRollMade:
    """The public record of a Secret roll: what both sides may see, and the commitment to the rest."""
    if fact.side not in state.keys:
        raise BadInput(f"the {rules.system.sides[fact.side]} side has no key to seal its Secret rolls with")
    return SecretRollMade(action=fact.action, table=fact.table, rule=fact.rule, side=fact.side, die=fact.die,
                          purpose=fact.purpose, effect=fact.effect, rg=fact.rg, fair=fact.fair,
                          commitment=commitment(fact, salt), sealed=sealed, item=fact.item)


def reveal(state: CampaignState, made: SecretRollMade | None, version: int, opened: DiceRolled,
           salt: str) -> SecretRollRevealed:
    """A Secret roll published: it must be one not yet revealed, and the roll its commitment binds."""
    if made is None or str(version) not in state.sealed:
        raise BadInput(f"event {version} is no unrevealed Secret roll")
    if commitment(opened, salt) != made.commitment:
        raise BadInput(f"the roll revealed for the Secret roll of event {version} ({made.table}) does not match its "
                       "commitment: the dice or the result were changed")
    if (opened.table, opened.side, opened.purpose, opened.action, opened.rg, opened.item) != (
            made.table, made.side, made.purpose, made.action, made.rg, made.item):
        raise BadInput(f"the roll revealed for event {version} is not the one announced there")
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
