"""The key of the player at this keyboard (passphrase or key file) and what it opens: its side's sealed Secret
rolls, the CPP of its Secret replenishments, its fair dice. Composed into the application service; the
decisions about keys are in ledger/decide/secrets.py, the cryptography in ledger/secrets.py."""

from __future__ import annotations

from .errors import BadInput
from .events import FairDiceCommitted, SecretRollMade
from .inforce import live
from .secrets import (
    check_strength, derive_key, fair_faces, fair_seed, key_check, new_salt, public_hex, seal, sign, signing_key, unseal,
)


class Keyring:
    def __init__(self, material: bytes | None = None):
        self.material = material
        self._derived: dict[str, bytes] = {}  # salt -> stretched key (scrypt is slow on purpose: once per salt)

    def _derive(self, salt: str) -> bytes:
        if salt not in self._derived:
            self._derived[salt] = derive_key(self.material, salt)
        return self._derived[salt]

    def key(self, state, rules, side: str, purpose: str = "seals its Secret rolls") -> bytes:
        """The side's key from the material given (CGLEDGER_PASSPHRASE or --key-file); checked."""
        registered = state.keys[side]
        who = rules.system.sides.get(side, side)
        if self.material is None:
            raise BadInput(f"the {who} side {purpose}: give its passphrase (CGLEDGER_PASSPHRASE) "
                           "or key file (--key-file)")
        key = self._derive(registered["salt"])
        if key_check(key) != registered["check"]:
            raise BadInput(f"that passphrase or key file is not the {who} side's")
        return key

    def opens(self, state) -> str | None:
        """The side whose key the material given opens, if any."""
        if self.material is None:
            return None
        return next((s for s, k in state.keys.items() if key_check(self._derive(k["salt"])) == k["check"]), None)

    def new_registration(self) -> tuple[str, str, str]:
        """(salt, check value, Ed25519 public key) of a new side key; a weak passphrase is refused."""
        if self.material is None:
            raise BadInput("give a passphrase (CGLEDGER_PASSPHRASE) or a key file (--key-file)")
        check_strength(self.material)
        salt = new_salt()
        key = self._derive(salt)
        return salt, key_check(key), public_hex(signing_key(key))

    def signer(self, state, rules, side: str, registration=None):
        """digest -> signature by the side's key (the one registered, or the one this registration sets up)."""
        if registration is not None:
            key = self._derive(registration.salt)
            if key_check(key) != registration.check:
                raise BadInput("that passphrase or key file is not the one being registered")
        else:
            key = self.key(state, rules, side, purpose="signs its events")
        private = signing_key(key)
        return lambda digest: sign(private, digest)

    def seal(self, state, rules, fact) -> tuple[str, str]:
        """(salt, sealed text) of a Secret roll, sealed with its side's key."""
        salt = new_salt()
        return salt, seal(self.key(state, rules, fact.side), fact, salt)

    def seed(self, state, rules, side: str) -> bytes:
        return fair_seed(self.key(state, rules, side, purpose="derives its fair dice"), state.name, side)

    def fair_dice(self, state, rules, side: str, die: str, logged) -> tuple[tuple[int, ...], int]:
        """The dice of this side's next fair roll, and its number."""
        missing = [name for s, name in rules.system.sides.items() if s not in state.fair]
        if missing:
            raise BadInput(f"fair dice: the {missing[0]} side has not committed its seed yet (`cgledger fair-dice "
                           "commit`)")
        n = state.fair.get(side, 0) + 1
        committed = next(e.fact for e in logged if isinstance(e.fact, FairDiceCommitted) and e.fact.side != side)
        if n > len(committed.shares):
            raise BadInput(f"fair dice: the other side's {len(committed.shares)} shares are used up")
        return fair_faces(self.seed(state, rules, side), committed.shares[n - 1], state.name, side, n, die), n

    def opened_rolls(self, state, rules, logged, side: str | None = None) -> dict[int, object]:
        """Secret rolls this player can read (own key given), by version: {version: DiceRolled}."""
        opened: dict[int, object] = {}
        if self.material is None:
            return opened
        for event in live(logged):
            fact = event.fact
            if isinstance(fact, SecretRollMade) and str(event.version) in state.sealed \
                    and (side is None or fact.side == side) and fact.side in state.keys:
                try:
                    opened[event.version] = unseal(self.key(state, rules, fact.side), fact.sealed).fact
                except BadInput:
                    continue  # the other side's roll (or not this player's passphrase): stays sealed
        return opened

    def unseal(self, state, rules, made: SecretRollMade):
        return unseal(self.key(state, rules, made.side), made.sealed)

    def sealed_cpp(self, state, rules, side: str, read) -> int:
        """CPP the side has in Secret replenishments not yet revealed (needs its key when there are any);
        `read(versions)` gives those stored SecretRollMade facts."""
        mine = [int(v) for v, s in state.sealed.items() if s["side"] == side and s["effect"] == "cpp_replenishment"]
        if not mine:
            return 0
        key = self.key(state, rules, side)
        return sum(unseal(key, made.sealed).fact.value or 0 for made in read(mine))
