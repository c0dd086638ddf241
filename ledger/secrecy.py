"""Secret rolls kept secret: a side's key, sealing its Secret rolls, revealing them. A mixin of the
application service; the cryptography is in ledger/secrets.py."""

from __future__ import annotations

from .errors import BadInput
from .events import FairDiceCommitted, FairSeedRevealed, SecretRollMade, SecretRollRevealed, SideKeyRegistered
from .secrets import (
    SHARES, commitment, derive_key, fair_faces, fair_seed, key_check, new_salt, seal, seed_commitment, share, unseal,
)
from .timeline import live


class Secrecy:
    key_material: bytes | None = None  # the passphrase or key file of the player at this keyboard

    def register_key(self, name: str | None, side: str, material: bytes) -> SideKeyRegistered:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        if len(material) < 8:
            raise BadInput("a passphrase or key file needs at least 8 characters")
        if side in campaign.keys:
            raise BadInput(f"the {rules.system.sides[side]} side has set up its key already (once per side)")
        salt = new_salt()
        fact = SideKeyRegistered(action=campaign.begin_action(), side=side, salt=salt,
                                 check=key_check(derive_key(material, salt)))
        campaign.record(fact)
        self._save(campaign)
        return fact

    def side_key(self, campaign, side: str) -> bytes:
        """The side's key from the material given (CGLEDGER_PASSPHRASE or --key-file); checked."""
        registered = campaign.keys[side]
        who = self.rules_for(campaign).system.sides.get(side, side)
        if self.key_material is None:
            raise BadInput(f"the {who} side's Secret rolls are sealed: give its passphrase (CGLEDGER_PASSPHRASE) "
                           "or key file (--key-file)")
        key = derive_key(self.key_material, registered["salt"])
        if key_check(key) != registered["check"]:
            raise BadInput(f"that passphrase or key file is not the {who} side's")
        return key

    # ---- fair dice ---------------------------------------------------------------------------------
    def fair_commit(self, name: str | None, side: str) -> FairDiceCommitted:
        """Commit to this side's seed (derived from its passphrase) and publish its shares of the other
        side's fair rolls."""
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        if side not in campaign.keys:
            raise BadInput(f"the {rules.system.sides[side]} side sets up its key first (`cgledger keys init`)")
        if side in campaign.fair:
            raise BadInput(f"the {rules.system.sides[side]} side has committed its fair-dice seed already")
        self.side_key(campaign, side)  # the passphrase is this side's
        seed = fair_seed(self.key_material, campaign.name, side)
        other = next(s for s in rules.system.sides if s != side)
        fact = FairDiceCommitted(action=campaign.begin_action(), side=side, commitment=seed_commitment(seed),
                                 shares=tuple(share(seed, campaign.name, other, n) for n in range(1, SHARES + 1)))
        campaign.record(fact)
        self._save(campaign)
        return fact

    def fair_reveal(self, name: str | None, side: str) -> FairSeedRevealed:
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        side = rules.side(side)
        if side not in campaign.fair:
            raise BadInput(f"the {rules.system.sides[side]} side has committed no fair-dice seed")
        self.side_key(campaign, side)
        fact = FairSeedRevealed(action=campaign.begin_action(), side=side,
                                seed=fair_seed(self.key_material, campaign.name, side).hex())
        campaign.record(fact)
        self._save(campaign)
        return fact

    def fair_dice(self, campaign, side: str, die: str) -> tuple[tuple[int, ...], int]:
        """The dice of this side's next fair roll, and its number."""
        sides = self.rules_for(campaign).system.sides
        missing = [name for s, name in sides.items() if s not in campaign.fair]
        if missing:
            raise BadInput(f"fair dice: the {missing[0]} side has not committed its seed yet (`cgledger fair-dice "
                           "commit`)")
        n = campaign.fair.get(side, 0) + 1
        committed = next(e.fact for e in self.history(campaign.name)
                         if isinstance(e.fact, FairDiceCommitted) and e.fact.side != side)
        if n > len(committed.shares):
            raise BadInput(f"fair dice: the other side's {len(committed.shares)} shares are used up")
        self.side_key(campaign, side)
        seed = fair_seed(self.key_material, campaign.name, side)
        return fair_faces(seed, committed.shares[n - 1], campaign.name, side, n, die), n

    def sealed_secret(self, campaign, rolled) -> SecretRollMade:
        """The public record of a Secret roll; the roll itself sealed with the rolling side's key."""
        fact = rolled.fact
        key = self.side_key(campaign, fact.side)
        salt = new_salt()
        return SecretRollMade(action=fact.action, table=fact.table, rule=fact.rule, side=fact.side, die=fact.die,
                              purpose=fact.purpose, effect=fact.effect, rg=fact.rg, fair=fact.fair,
                              commitment=commitment(fact, salt), sealed=seal(key, fact, salt))

    def opened_rolls(self, campaign, logged, side: str | None = None) -> dict[int, object]:
        """Secret rolls this player can read (own key given), by version: {version: DiceRolled}."""
        opened: dict[int, object] = {}
        if self.key_material is None:
            return opened
        for event in live(logged):
            fact = event.fact
            if isinstance(fact, SecretRollMade) and str(event.version) in campaign.sealed \
                    and (side is None or fact.side == side) and fact.side in campaign.keys:
                try:
                    opened[event.version] = unseal(self.side_key(campaign, fact.side), fact.sealed).fact
                except BadInput:
                    continue  # the other side's roll (or not this player's passphrase): stays sealed
        return opened

    def secret_cpp(self, campaign, side: str) -> int:
        """CPP the side has in Secret replenishments not yet revealed (needs its key when there are any)."""
        mine = [int(v) for v, s in campaign.sealed.items() if s["side"] == side and s["effect"] == "cpp_replenishment"]
        if not mine:
            return 0
        key = self.side_key(campaign, side)
        total = 0
        for stored in self.recorder.select_events(campaign.id, gt=min(mine) - 1, lte=max(mine)):
            if stored.originator_version in mine:
                from .persistence import decode_envelope

                fact = decode_envelope(self.mapper.decode_state(stored)).fact
                total += unseal(key, fact.sealed).fact.value or 0
        return total

    def reveal(self, name: str | None, side: str | None, roll: int | None = None) -> list[SecretRollRevealed]:
        """Publishes a Secret roll, or all of a side's; the side defaults to the roll's, or to the side whose
        key the passphrase given opens."""
        campaign = self.campaign(name)
        rules = self.rules_for(campaign)
        if side is None and roll is not None and str(roll) in campaign.sealed:
            side = campaign.sealed[str(roll)]["side"]
        if side is None:
            side = next((s for s, k in campaign.keys.items() if self.key_material is not None
                         and key_check(derive_key(self.key_material, k["salt"])) == k["check"]), None)
            if side is None:
                raise BadInput("whose Secret rolls? give --side SIDE, and that side's passphrase or key file")
        side = rules.side(side)
        mine = sorted(int(v) for v, s in campaign.sealed.items() if s["side"] == side)
        if roll is not None:
            if roll not in mine:
                raise BadInput(f"event {roll} is no unrevealed Secret roll of the {rules.system.sides[side]} side")
            mine = [roll]
        if not mine:
            raise BadInput(f"the {rules.system.sides[side]} side has no unrevealed Secret roll")
        key = self.side_key(campaign, side)
        action = campaign.begin_action()
        facts = []
        by_version = {e.version: e.fact for e in self.history(campaign.name) if e.version in mine}
        for version in mine:
            opened = unseal(key, by_version[version].sealed)
            fact = SecretRollRevealed(action=action, roll=version, fact=opened.fact, salt=opened.salt)
            campaign.record(fact)
            facts.append(fact)
        self._save(campaign)
        return facts
