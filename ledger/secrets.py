"""Secret rolls (the rules' Secret DR/dr): what both sides see is the table, the side, the purpose, the
time and a commitment (SHA-256 of the roll with a random salt); the roll itself is sealed with the
rolling side's key, so only that side can read it until it is revealed. Keys come from a passphrase
or a key file, stretched with scrypt (a salt per side, stored in the log with a check value, never
the key). Uses the `cryptography` package's Fernet (AES-128-CBC with HMAC-SHA256)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import msgspec
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from .errors import BadInput
from .events import DiceRolled

_CHECK = b"cgledger side key check"


class Sealed(msgspec.Struct, frozen=True):
    fact: DiceRolled
    salt: str


def new_salt() -> str:
    return secrets.token_hex(16)


def derive_key(material: bytes, salt: str) -> bytes:
    """A Fernet key from a passphrase or key file's bytes (scrypt, n=2**14, r=8, p=1)."""
    raw = Scrypt(salt=bytes.fromhex(salt), length=32, n=2**14, r=8, p=1).derive(material)
    return base64.urlsafe_b64encode(raw)


def key_check(key: bytes) -> str:
    return hmac.new(key, _CHECK, hashlib.sha256).hexdigest()


def commitment(fact: DiceRolled, salt: str) -> str:
    """What both sides see now and check later: the hash of the whole roll and a salt."""
    return hashlib.sha256(msgspec.json.encode(fact) + salt.encode()).hexdigest()


def seal(key: bytes, fact: DiceRolled, salt: str) -> str:
    return Fernet(key).encrypt(msgspec.json.encode(Sealed(fact, salt))).decode()


def unseal(key: bytes, token: str) -> Sealed:
    try:
        return msgspec.json.decode(Fernet(key).decrypt(token.encode()), type=Sealed)
    except InvalidToken:
        raise BadInput("this key does not open the sealed roll: it was sealed with the other side's key") from None


# ---- fair dice ------------------------------------------------------------------------------------
SHARES = 1000  # fair rolls the other side can make before a side publishes more shares


def fair_seed(material: bytes, campaign: str, side: str) -> bytes:
    """A side's seed, derived from its passphrase or key file (nothing to keep but the passphrase)."""
    return hmac.new(material, f"cgledger fair seed:{campaign}:{side}".encode(), hashlib.sha256).digest()


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def share(seed: bytes, campaign: str, side: str, n: int) -> str:
    """The part of `side`'s n-th fair roll that the *other* side's seed contributes (published in advance)."""
    return hmac.new(seed, f"share:{campaign}:{side}:{n}".encode(), hashlib.sha256).hexdigest()[:32]


def fair_faces(seed: bytes, other_share: str, campaign: str, side: str, n: int, die: str) -> tuple[int, ...]:
    """The dice of `side`'s n-th fair roll: its own seed and the other side's published share, hashed
    together; each die by rejection sampling from the bytes (unbiased)."""
    from .dice import FACES

    count, low, high = FACES[die]
    span = high - low + 1
    stream = b""
    counter = 0
    faces: list[int] = []
    while len(faces) < count:
        if not stream:
            counter += 1
            stream = hmac.new(seed, f"roll:{campaign}:{side}:{n}:{other_share}:{counter}".encode(),
                              hashlib.sha256).digest()
        byte, stream = stream[0], stream[1:]
        if byte < 256 - 256 % span:
            faces.append(low + byte % span)
    return tuple(faces)
