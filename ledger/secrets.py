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
