"""SHA-256, HMAC-SHA-256 and UUID5 without loading OpenSSL's libcrypto (`hashlib`: ~3 ms of every start):
what a read hashes before its first row (the log's head, an answer's or a view's key,
this machine's seals, a campaign's id) uses CPython's own SHA-256 and SHA-1. An input over 512 KB (a large snapshot),
or any once the process has loaded hashlib, goes to hashlib, whose OpenSSL is several times faster per byte where
the CPU has SHA instructions: the audit, `import` and a read that checks a long stretch of the log (the first read on
a new machine, ledger/store/loading.py LONG_STRETCH) load it first, for the chain's digest of every event. The
digests are the same either way (tests/test_sha.py)."""

from __future__ import annotations

import sys

try:
    from _sha2 import sha256 as _own  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _own  # CPython 3.11
    except ImportError:  # a Python without its own SHA-256: hashlib's
        _own = None

from _operator import _compare_digest  # what hmac.compare_digest is without OpenSSL: constant-time
from uuid import UUID

LONG = 1 << 19  # bytes: from about here on, OpenSSL's speed (~6x with the CPU's SHA instructions) pays for loading it
_BLOCK = 64
_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


def sha256(data: bytes | bytearray | memoryview = b""):
    """A SHA-256 hash object of `data` (`update`, `digest`, `hexdigest`), as hashlib.sha256 gives one: hashlib's once
    this process has loaded it anyway."""
    if _own is not None and len(data) < LONG and "hashlib" not in sys.modules:
        return _own(data)
    import hashlib

    return hashlib.sha256(data)


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA-256 (RFC 2104), as hmac.new(key, message, hashlib.sha256).digest() gives it."""
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\x00")
    inner = sha256(key.translate(_INNER) + message).digest()
    return sha256(key.translate(_OUTER) + inner).digest()


def same(a: str | bytes, b: str | bytes) -> bool:
    """Whether two digests are equal, in time that does not depend on where they differ (hmac.compare_digest)."""
    return _compare_digest(a, b)


def uuid5(namespace: UUID, name: str) -> UUID:
    """uuid.uuid5 (a campaign's id, ledger/chain.campaign_id), whose SHA-1 comes from hashlib's OpenSSL: CPython's own."""
    try:
        from _sha1 import sha1
    except ImportError:
        from hashlib import sha1
    return UUID(bytes=sha1(namespace.bytes + name.encode("utf-8")).digest()[:16], version=5)


def is_digest(text: str) -> bool:
    """Whether `text` is 64 lowercase hex digits, as the log writes a SHA-256 or an Ed25519 public key."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)
