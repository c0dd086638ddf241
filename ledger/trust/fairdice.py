"""Fair dice: the arithmetic of the protocol (docs/guide/fair-dice.md). Each side draws a random
seed from the OS and commits to the heads of two reversed hash chains made from it: h_0 = HMAC(seed, label),
h_{i+1} = SHA-256(h_i), head = h_N; value k (k = 1, 2, ...) is h_{N-k}, and SHA-256(value_k) = value_{k-1}
(value_0 = the head). Side A's n-th fair roll takes A's roll-chain value n and B's answer-chain value n: both
fixed at set-up (nobody chooses), neither known to the other side before it is published (nobody foresees).
Pure functions; the seed is sealed with the side's key by the keyring."""

from __future__ import annotations

import os

from ..sha import hmac_sha256, sha256

LENGTH = 10_000  # values per chain: fair rolls a side can make (and answer) before its ledger commits the next one
CHAINS = ("roll", "answer")


def new_seed() -> bytes:
    """A new chain seed from the OS. CGLEDGER_FAIR_SEED (tests and replayable plays only) derives it from that text
    instead, the same for every chain drawn with it (a side that renews a chain needs a new text): anyone who knows
    the text can compute this side's chains, so a player never sets it; the other side's stay as unknown as ever."""
    given = os.environ.get("CGLEDGER_FAIR_SEED")
    if given:
        return hmac_sha256(given.encode(), b"cgledger fair seed")
    return os.urandom(32)  # secrets.token_bytes, without importing secrets (and random) in every read


def _start(seed: bytes, chain: str) -> bytes:
    return hmac_sha256(seed, f"cgledger fair chain:{chain}".encode())


def _hash(value: bytes, times: int) -> bytes:
    for _ in range(times):
        value = sha256(value).digest()
    return value


def head(seed: bytes, chain: str, length: int = LENGTH) -> str:
    return _hash(_start(seed, chain), length).hex()


def value(seed: bytes, chain: str, k: int, length: int = LENGTH) -> str:
    """Value k of a chain (1 <= k <= length): h_{N-k}."""
    if not 1 <= k <= length:
        raise ValueError(f"value {k} is outside the chain of {length}")
    return _hash(_start(seed, chain), length - k).hex()


def consistent(k: int, text: str, j: int, known: str) -> bool:
    """Whether value k (hex) and value j (hex; value 0 is the head) belong to one chain: the later one hashed
    |k - j| times is the earlier one."""
    try:
        mine, theirs = bytes.fromhex(text), bytes.fromhex(known)
    except ValueError:
        return False
    if len(mine) != 32:
        return False
    if k >= j:
        return _hash(mine, k - j) == theirs
    return _hash(theirs, j - k) == mine


def blind(seed: bytes, n: int) -> str:
    """The blinding value of the side's n-th fair roll, should it be Secret: from the seed of the roll chain holding
    it, so that a copied database blinds the same; its SHA-256 is published with the declaration."""
    return hmac_sha256(seed, f"cgledger secret roll blind:{n}".encode()).hex()


def blinded(value: str) -> str:
    """The commitment to a blinding value (hex), as a declaration publishes it."""
    return sha256(bytes.fromhex(value)).hexdigest()


def reaches(text: str, target: str, times: int) -> bool:
    """Whether `target` is `text` hashed 0 to `times` times: one of the values of text's chain from it to its head."""
    try:
        value, goal = bytes.fromhex(text), bytes.fromhex(target)
    except ValueError:
        return False
    for _ in range(times + 1):
        if value == goal:
            return True
        value = sha256(value).digest()
    return False


def faces(roll_value: str, answer_value: str, campaign: str, side: str, n: int, die: str,
          blind: str = "") -> tuple[int, ...]:
    """The dice of `side`'s n-th fair roll: HMAC keyed with both values, and a Secret roll's blinding value (its
    roll value alone would not keep it secret: a later value of its chain, published by an open roll, hashes to it)."""
    key = bytes.fromhex(roll_value) + bytes.fromhex(answer_value) + bytes.fromhex(blind)
    return sample(key, f"cgledger fair roll:{campaign}:{side}:{n}", die)


def sample(key: bytes, label: str, die: str) -> tuple[int, ...]:
    """Dice from HMAC(key, label:counter), each die by rejection sampling from its bytes (unbiased: a byte is used
    only below the largest multiple of the die's span)."""
    from ..rules.dice import FACES

    count, low, high = FACES[die]
    span = high - low + 1
    stream, counter, out = b"", 0, []
    while len(out) < count:
        if not stream:
            counter += 1
            stream = hmac_sha256(key, f"{label}:{counter}".encode())
        byte, stream = stream[0], stream[1:]
        if byte < 256 - 256 % span:
            out.append(low + byte % span)
    return tuple(out)
