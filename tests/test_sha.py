"""ledger/sha.py: the digests a read makes without loading OpenSSL are hashlib's, hmac's and uuid's own.
A seal, an answer's key or a campaign's id that differed would make every view, answer and mark kept before
it unusable, and a campaign unfindable."""

from __future__ import annotations

import hashlib
import hmac
import os
import subprocess
import sys
import uuid

import pytest

from cgledger.ledger import sha

LENGTHS = (0, 1, 55, 56, 63, 64, 65, 1000, sha.LONG - 1, sha.LONG, sha.LONG + 1)


@pytest.mark.parametrize("length", LENGTHS)
def test_sha256_is_hashlibs(length):
    data = os.urandom(length)
    assert sha.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    if sha._own is not None:  # CPython's own, as a process that has not loaded hashlib uses it
        assert sha._own(data).digest() == hashlib.sha256(data).digest()
    grown = sha.sha256()
    grown.update(data[:length // 2])
    grown.update(data[length // 2:])
    assert grown.hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("key_length", (0, 1, 32, 63, 64, 65, 200))
def test_hmac_sha256_is_hmacs(key_length):
    key = os.urandom(key_length)
    for message in (b"", b"cgledger side key check", os.urandom(1000)):
        assert sha.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()


def test_same_compares_digests():
    assert sha.same("ab" * 32, "ab" * 32) and not sha.same("ab" * 32, "ab" * 31 + "ac")
    assert not sha.same("ab", "abc") and sha.same(b"x", b"x")


@pytest.mark.parametrize("name", ["", "KGP CG I sample", "Stoumont — ä ü 19 AM", "x" * 500])
def test_uuid5_is_uuids(name):
    assert sha.uuid5(uuid.NAMESPACE_URL, f"cgledger:campaign:{name}") == \
        uuid.uuid5(uuid.NAMESPACE_URL, f"cgledger:campaign:{name}")


def test_a_process_without_hashlib_gives_the_same_digests():
    """In a fresh process nothing has loaded hashlib: CPython's own SHA-256 answers, and leaves hashlib unloaded."""
    code = ("import sys; from cgledger.ledger import sha\n"
            "data = bytes(range(256)) * 40\n"
            "print(sha.sha256(data).hexdigest(), sha.hmac_sha256(b'key', data).hex(), 'hashlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    data = bytes(range(256)) * 40
    assert done.stdout.split() == [hashlib.sha256(data).hexdigest(), hmac.new(b"key", data, hashlib.sha256).hexdigest(),
                                   "False"]
