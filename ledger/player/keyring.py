"""The key of the player at this keyboard (passphrase or key file) and what it opens: its side's sealed Secret
rolls, the CPP of its Secret replenishments, its fair dice. Composed into the application service; the
decisions about keys are in ledger/decide/secrets.py, the cryptography in ledger/trust/secrets.py."""

from __future__ import annotations

from ..errors import BadInput
from ..domain.events import RGPurchaseSealed, RollDeclared, SecretRollMade
from ..domain.inforce import live
from ..trust.secrets import (
    check_strength, derive_key, fair_seed, key_check, new_salt, public_hex, seal, seal_declaration, seal_purchase, sign,
    signing_key, unseal, unseal_declaration, unseal_purchase,
)

PURCHASES = "keeps its RG purchases secret"


class Keyring:
    stretches = 0  # scrypt runs in this process, all keyrings together (what the key agent saves is seen here)

    def __init__(self, material: bytes | None = None, agent=None):
        self.material = material
        self.agent = agent  # a key agent (ledger/keyagent.Client) to ask before stretching, or None: stretch
        self._derived: dict[str, bytes] = {}  # salt -> stretched key (scrypt is slow on purpose: once per salt)
        self._recalled: set[str] = set()  # salts whose key came from the agent

    def _derive(self, salt: str) -> bytes:
        if salt not in self._derived:
            key = self.agent.recall(self.material, salt) if self.agent is not None else None
            if key is not None:
                self._recalled.add(salt)
            else:
                key = derive_key(self.material, salt)
                Keyring.stretches += 1
                if self.agent is not None:
                    self.agent.keep(self.material, salt, key)  # kept only by an agent this material unlocked
            self._derived[salt] = key
        return self._derived[salt]

    def _checked(self, salt: str, check: str) -> bytes | None:
        """The key of `salt` if it is the one whose check value is `check`, else None. A key the agent gave that
        does not check out is stretched again here (never taken on the agent's word)."""
        key = self._derive(salt)
        if key_check(key) != check and salt in self._recalled:
            self._recalled.discard(salt)
            key = self._derived[salt] = derive_key(self.material, salt)
            Keyring.stretches += 1
        if key_check(key) != check:
            return None
        if salt not in self._opened_here():
            remember_opened(salt)
            self._opened.append(salt)
        return key

    _opened: list[str] | None = None

    def _opened_here(self) -> list[str]:
        """The salts whose key a key given on this machine opened (read once per keyring)."""
        if self._opened is None:
            self._opened = opened_before()
        return self._opened

    def key(self, state, rules, side: str, purpose: str = "seals its Secret rolls") -> bytes:
        """The side's key from the material given (CGLEDGER_PASSPHRASE or --key-file); checked."""
        registered = state.keys[side]
        who = rules.system.sides.get(side, side)
        if self.material is None:
            raise BadInput(f"the {who} side {purpose}: give its passphrase (CGLEDGER_PASSPHRASE) "
                           "or key file (--key-file)")
        key = self._checked(registered["salt"], registered["check"])
        if key is None:
            raise BadInput(f"that passphrase or key file is not the {who} side's")
        return key

    def opened_keys(self, state) -> dict[str, tuple[str, bytes]]:
        """{side: (salt, key)} of every side whose key the material given opens (`keys unlock` hands them over)."""
        if self.material is None:
            return {}
        found = {s: (k["salt"], self._checked(k["salt"], k["check"])) for s, k in state.keys.items()}
        return {s: (salt, key) for s, (salt, key) in found.items() if key is not None}

    def stretched(self) -> dict[str, bytes]:
        """{salt: key} of every salt stretched (or recalled) with the material given, in this keyring."""
        return dict(self._derived)

    def opens(self, state) -> str | None:
        """The side whose key the material given opens, if any. The side whose key a key given on this machine
        opened before is tried first: each try stretches the material with that side's salt (scrypt, ~40 ms), so
        the second side of a campaign paid for the first side's salt in every command of its player."""
        if self.material is None:
            return None
        before = self._opened_here()
        known = [side for side, key in state.keys.items() if key["salt"] in before]
        # a machine that plays one side tries it first; one where both sides' keys were given (a shared table)
        # tries them in their order, as before
        tried = [*known, *(side for side in state.keys if side not in known)] if len(known) == 1 else list(state.keys)
        return next((s for s in tried if self._checked(state.keys[s]["salt"], state.keys[s]["check"]) is not None),
                    None)

    def new_registration(self, user_inputs: tuple[str, ...] = ()) -> tuple[str, str, str]:
        """(salt, check value, Ed25519 public key) of a new side key; a weak passphrase is refused (`user_inputs`:
        the campaign's own words, which count as guessable)."""
        if self.material is None:
            raise BadInput("give a passphrase (CGLEDGER_PASSPHRASE) or a key file (--key-file)")
        check_strength(self.material, user_inputs)
        salt = new_salt()
        key = self._derive(salt)
        return salt, key_check(key), public_hex(signing_key(key))

    def signer(self, state, rules, side: str, registration=None):
        """digest -> signature by the side's key (the one registered, or the one this registration sets up)."""
        if registration is not None:
            key = self._checked(registration.salt, registration.check)
            if key is None:
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

    # ---- fair dice ----------------------------------------------------------------------
    def _sealing(self, salt: str, check: str | None) -> bytes:
        """The key to seal a new seed with: checked against the registered check value when there is one."""
        key = self._derive(salt) if check is None else self._checked(salt, check)
        if key is None:
            raise BadInput("that passphrase or key file is not the side's")
        return key

    def new_chains(self, salt: str, check: str | None = None) -> tuple[str, str, int, str]:
        """(roll head, answer head, length, sealed seed) of a new commitment: the seed from the OS, sealed with the
        side's key (the one of `salt`: registered, or being registered)."""
        from ..trust import fairdice
        from ..trust.secrets import seal_bytes

        seed = fairdice.new_seed()
        return (fairdice.head(seed, "roll"), fairdice.head(seed, "answer"), fairdice.LENGTH,
                seal_bytes(self._sealing(salt, check), seed))

    def new_chain(self, salt: str, chain: str, check: str | None = None) -> tuple[str, int, str]:
        """(head, length, sealed seed) of the side's next chain of one kind: a new seed from the OS."""
        from ..trust import fairdice
        from ..trust.secrets import seal_bytes

        seed = fairdice.new_seed()
        return fairdice.head(seed, chain), fairdice.LENGTH, seal_bytes(self._sealing(salt, check), seed)

    def chain_value(self, state, rules, side: str, chain: str, k: int) -> str:
        """The value of fair roll k from the side's chain that holds it, from its sealed seed (its key needed)."""
        from ..trust import fairdice

        seed, committed = self._seed(state, rules, side, chain, k)
        return fairdice.value(seed, chain, k - committed["first"] + 1, committed["length"])

    def blind(self, state, rules, side: str, n: int) -> str:
        """The blinding value of the side's Secret fair roll n (from the seed of the roll chain holding it)."""
        from ..trust import fairdice

        return fairdice.blind(self._seed(state, rules, side, "roll", n)[0], n)

    def _seed(self, state, rules, side: str, chain: str, k: int) -> tuple[bytes, dict]:
        from ..decide.fair import chain_for
        from ..trust.secrets import unseal_bytes

        committed = chain_for(state, side, chain, k)
        if committed is None:
            raise BadInput(f"no {chain} chain of the {rules.system.sides.get(side, side)} side on record holds value {k}")
        key = self.key(state, rules, side, purpose="answers and makes its fair rolls")
        cache = self.__dict__.setdefault("_seeds", {})
        if committed["sealed"] not in cache:
            cache[committed["sealed"]] = unseal_bytes(key, committed["sealed"], "sealed fair-dice seed")
        return cache[committed["sealed"]], committed

    def seal_text(self, state, rules, side: str, text: str) -> str:
        """A JSON text (an Initiative chit and its salt) sealed, padded to the size of every sealed record."""
        from ..trust.secrets import padded, seal_bytes

        return seal_bytes(self.key(state, rules, side), padded(text.encode()))

    def unseal_text(self, state, rules, side: str, token: str, what: str) -> str:
        from ..trust.secrets import unseal_bytes

        return unseal_bytes(self.key(state, rules, side), token, what).decode()

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

    def opened_purchases(self, state, rules, logged, side: str | None = None) -> dict[int, object]:
        """Secret RG purchases this player can read (own key given), by version: {version: RGPurchased}; and the
        veiled declarations of their follow-up rolls: {version: RollDeclared}."""
        opened: dict[int, object] = {}
        if self.material is None:
            return opened
        for event in live(logged):
            fact = event.fact
            if isinstance(fact, RGPurchaseSealed) and str(event.version) in state.secret_rgs:
                unsealing = unseal_purchase
            elif isinstance(fact, RollDeclared) and fact.commitment and str(fact.rg) in state.secret_rgs:
                unsealing = unseal_declaration
            else:
                continue
            if (side is None or fact.side == side) and fact.side in state.keys:
                try:
                    opened[event.version] = unsealing(self.key(state, rules, fact.side, PURCHASES), fact.sealed).fact
                except BadInput:
                    continue  # the other side's purchase: stays sealed
        return opened

    def opened(self, state, rules, logged, side: str | None = None) -> dict[int, object]:
        """Everything this player's key opens: its Secret rolls and secret purchases, by version."""
        found = self.opened_rolls(state, rules, logged, side) if state.sealed else {}
        if state.secret_rgs:
            found.update(self.opened_purchases(state, rules, logged, side))
        return found

    def seal_purchase(self, state, rules, fact) -> tuple[str, str]:
        """(salt, sealed text) of a secret RG purchase, sealed with its side's key."""
        salt = new_salt()
        return salt, seal_purchase(self.key(state, rules, fact.side, PURCHASES), fact, salt)

    def seal_declaration(self, state, rules, fact) -> tuple[str, str]:
        """(salt, sealed text) of a veiled roll declaration (a follow-up of an RG bought in secret), its side's key."""
        salt = new_salt()
        return salt, seal_declaration(self.key(state, rules, fact.side, PURCHASES), fact, salt)

    def unseal_declaration(self, state, rules, made):
        return unseal_declaration(self.key(state, rules, made.side, PURCHASES), made.sealed)

    def unseal_purchase(self, state, rules, made: RGPurchaseSealed):
        return unseal_purchase(self.key(state, rules, made.side, PURCHASES), made.sealed)

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


OPENED_KEPT = 64  # salts remembered (a few per campaign played on this machine)


def _opened_file():
    from ..trust.machine import state_dir

    return state_dir() / "opened-salts.json"


def opened_before() -> list[str]:
    """The salts (public: each side's registration holds its own) whose key a key given on this machine opened,
    latest last. What they tell: which side this machine plays. Nothing derived from a passphrase is kept."""
    from ..trust.machine import read_json

    found = read_json(_opened_file()).get("salts", [])
    return [salt for salt in found if isinstance(salt, str)] if isinstance(found, list) else []


def remember_opened(salt: str) -> None:
    """Kept once a key given here opens the side of `salt` (a write only the first time)."""
    from ..trust.machine import write_json

    salts = [s for s in opened_before() if s != salt] + [salt]
    write_json(_opened_file(), {"salts": salts[-OPENED_KEPT:]})
