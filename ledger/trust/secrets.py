"""Secret rolls (the rules' Secret DR/dr): what both sides see is the table, the side, the purpose, the
time and a commitment (SHA-256 of the roll with a random salt); the roll itself is sealed with the
rolling side's key, so only that side can read it until it is revealed. Keys come from a passphrase
or a key file, stretched with scrypt (a salt per side, stored in the log with a check value, never
the key). Uses the `cryptography` package's Fernet (AES-128-CBC with HMAC-SHA256)."""


import functools
import os
from base64 import urlsafe_b64decode, urlsafe_b64encode

import msgspec

from ..errors import BadInput
from ..domain.events import DiceRolled, FortificationPlaced, RGPurchased, RollDeclared, RollLapsed
from ..sha import hmac_sha256, sha256

_CHECK = b"cgledger side key check"


class Sealed(msgspec.Struct, frozen=True):
    fact: DiceRolled | RollLapsed  # RollLapsed: a Secret roll made void, as sealed as a roll made (8.6201)
    salt: str


class SealedPlacement(msgspec.Struct, frozen=True):
    """A hidden fortification's placement (CGS 7.4.4: its hex) and the salt of its commitment."""

    fact: FortificationPlaced
    salt: str


def new_salt() -> str:
    return os.urandom(16).hex()  # secrets.token_hex, without importing secrets (and random) in every read


def derive_key(material: bytes, salt: str) -> bytes:
    """A Fernet key from a passphrase or key file's bytes (scrypt, n=2**14, r=8, p=1)."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt  # here: reads that open no key never load it

    raw = Scrypt(salt=bytes.fromhex(salt), length=32, n=2**14, r=8, p=1).derive(material)
    return urlsafe_b64encode(raw)


# ---- signing: each side's Ed25519 key, from the same stretched key (never from the passphrase directly) ----
_SIGNING = b"cgledger signing key"
MIN_LENGTH = 12
MIN_BITS = 50


def strength_bits(material: bytes) -> float:
    """A plain estimate of a passphrase's strength: its character classes' pool, over its length capped at twice
    its distinct characters (so 'aaaaaaaaaaaa' or 'abcabcabcabc' count for little)."""
    import math

    text = material.decode("utf-8", "replace")
    pool = sum(size for test, size in ((str.islower, 26), (str.isupper, 26), (str.isdigit, 10))
               if any(test(c) for c in text)) + (33 if any(not c.isalnum() for c in text) else 0)
    return min(len(text), 2 * len(set(text))) * math.log2(max(pool, 2))


# passphrases an earlier guide printed as examples: zxcvbn scores a sentence high, but these are the first guesses
PUBLISHED = frozenset({"peiper kept his own counsel", "harrison held the chateau"})
MIN_SCORE = 4  # zxcvbn's "very unguessable" (10^10 guesses or more): the salt and check value travel in every bundle
KEY_FILE_BYTES = 32  # a key file of random bytes (not text) is judged by its length and spread alone


def check_strength(material: bytes, user_inputs: tuple[str, ...] = ()) -> None:
    """The floor for a side's passphrase or key file: at least 12 characters and a zxcvbn score of 4, the
    campaign's own words (its name, the sides, the system) counted as guessable; a key file of random bytes needs 32
    of them. The opponent holds the salt and check value, so a weak passphrase falls to an offline guess."""
    hint = "four random words, or a key file of 32 random bytes"
    try:
        text = material.decode("utf-8")
    except UnicodeDecodeError:
        if len(material) >= KEY_FILE_BYTES and strength_bits(material) >= MIN_BITS:
            return
        raise BadInput(f"that key file is too weak to sign a side's events: use {KEY_FILE_BYTES} random bytes") from None
    if len(material) < MIN_LENGTH or strength_bits(material) < MIN_BITS:
        raise BadInput(f"that passphrase is too weak to sign a side's events: use at least {MIN_LENGTH} characters "
                       f"({hint})")
    if " ".join(text.casefold().split()) in PUBLISHED:
        raise BadInput(f"that passphrase was printed in the ledger's own guide: an opponent tries it first; use {hint}")
    from zxcvbn import zxcvbn

    judged = zxcvbn(text[:100], user_inputs=[w for w in user_inputs if w])  # its cost grows with the length
    if judged["score"] < MIN_SCORE:
        why = (judged.get("feedback") or {}).get("warning") or "it is guessable"
        raise BadInput(f"that passphrase is too weak to sign a side's events ({why.rstrip('.').lower()}; strength "
                       f"{judged['score']} of 4, 4 needed): use {hint}")


def signing_key(key: bytes):
    """The side's Ed25519 private key, derived from its stretched key (ledger/secrets.derive_key)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = hmac_sha256(urlsafe_b64decode(key), _SIGNING)
    return Ed25519PrivateKey.from_private_bytes(seed)


def public_hex(private) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def sign(private, digest: str) -> str:
    return private.sign(bytes.fromhex(digest)).hex()


@functools.cache
def _public_key(public: str):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(public))


def verify(public: str, digest: str, signature: str) -> bool:
    """Whether `signature` is the key's signature of the event digest."""
    from cryptography.exceptions import InvalidSignature

    try:
        _public_key(public).verify(bytes.fromhex(signature), bytes.fromhex(digest))
    except (InvalidSignature, ValueError):
        return False
    return True


def key_check(key: bytes) -> str:
    return hmac_sha256(key, _CHECK).hex()


def commitment(fact: DiceRolled | RollLapsed | FortificationPlaced | RGPurchased | RollDeclared, salt: str) -> str:
    """What both sides see now and check later: the hash of the whole roll (or placement) and a salt."""
    return sha256(msgspec.json.encode(fact) + salt.encode()).hexdigest()


# A sealed text's length would tell what it holds (Fernet keeps the plaintext's length to 16 bytes): a strength
# roll's Depleted result adds its SW drs, a CPP roll's number its digits. Every sealed record is padded with JSON
# whitespace to one size (a larger record to the next power of two), so that sealed texts of a kind look alike.
SEALED_SIZE = 1024


def padded(text: bytes) -> bytes:
    """JSON text padded with spaces to SEALED_SIZE bytes, or to the next power of two above it (the JSON reads the
    same: whitespace after a value is no part of it)."""
    size = SEALED_SIZE
    while size < len(text):
        size *= 2
    return text + b" " * (size - len(text))


def _encrypt(key: bytes, record: msgspec.Struct) -> str:
    from cryptography.fernet import Fernet

    return Fernet(key).encrypt(padded(msgspec.json.encode(record))).decode()


def _decrypt(key: bytes, token: str, kind: type, what: str):
    from cryptography.fernet import Fernet, InvalidToken

    try:
        return msgspec.json.decode(Fernet(key).decrypt(token.encode()), type=kind)
    except InvalidToken:
        raise BadInput(f"this key does not open the {what}: it was sealed with the other side's key") from None


def seal(key: bytes, fact: DiceRolled | RollLapsed, salt: str) -> str:
    return _encrypt(key, Sealed(fact, salt))


def seal_bytes(key: bytes, data: bytes) -> str:
    """Anything only its side may read (a fair-dice seed, a kept answer), sealed with the side's key as it is (a JSON
    text goes through `padded` first: `seal_text`)."""
    from cryptography.fernet import Fernet

    return Fernet(key).encrypt(data).decode()


def unseal_bytes(key: bytes, token: str, what: str = "sealed record") -> bytes:
    from cryptography.fernet import Fernet, InvalidToken

    try:
        return Fernet(key).decrypt(token.encode())
    except InvalidToken:
        raise BadInput(f"this key does not open the {what}: it was sealed with the other side's key") from None


def unseal(key: bytes, token: str) -> Sealed:
    return _decrypt(key, token, Sealed, "sealed roll")


def seal_placement(key: bytes, fact: FortificationPlaced, salt: str) -> str:
    return _encrypt(key, SealedPlacement(fact, salt))


def unseal_placement(key: bytes, token: str) -> SealedPlacement:
    return _decrypt(key, token, SealedPlacement, "hidden placement")


class SealedPurchase(msgspec.Struct, frozen=True):
    """A secret RG purchase (8.619, 8.6192) and the salt of its commitment."""

    fact: RGPurchased
    salt: str


def seal_purchase(key: bytes, fact: RGPurchased, salt: str) -> str:
    return _encrypt(key, SealedPurchase(fact, salt))


def unseal_purchase(key: bytes, token: str) -> SealedPurchase:
    return _decrypt(key, token, SealedPurchase, "secret RG purchase")


class SealedDeclaration(msgspec.Struct, frozen=True):
    """A fair roll declared for an RG bought in secret (its table, DRMs, condition: 8.619) and its salt."""

    fact: RollDeclared
    salt: str


def seal_declaration(key: bytes, fact: RollDeclared, salt: str) -> str:
    return _encrypt(key, SealedDeclaration(fact, salt))


def unseal_declaration(key: bytes, token: str) -> SealedDeclaration:
    return _decrypt(key, token, SealedDeclaration, "veiled roll declaration")


# ---- fair dice ------------------------------------------------------------------------------------
SHARES = 1000  # fair rolls the other side can make before a side publishes more shares


def fair_seed(key: bytes, campaign: str, side: str) -> bytes:
    """A side's seed, derived from its stretched key (scrypt of its passphrase: never the passphrase itself, whose
    plain hash would let the other side guess it offline)."""
    return hmac_sha256(urlsafe_b64decode(key), f"cgledger fair seed:{campaign}:{side}".encode())


def seed_commitment(seed: bytes) -> str:
    return sha256(seed).hexdigest()


def share(seed: bytes, campaign: str, side: str, n: int) -> str:
    """The part of `side`'s n-th fair roll that the *other* side's seed contributes (published in advance)."""
    return hmac_sha256(seed, f"share:{campaign}:{side}:{n}".encode()).hex()[:32]


def fair_faces(seed: bytes, other_share: str, campaign: str, side: str, n: int, die: str) -> tuple[int, ...]:
    """The dice of `side`'s n-th fair roll of the first protocol (older logs; the audit still checks
    them): its own seed and the other side's published share."""
    from .fairdice import sample

    return sample(seed, f"roll:{campaign}:{side}:{n}:{other_share}", die)
