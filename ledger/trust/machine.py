"""A secret only this machine holds. It seals what this machine checked or computed from a
log (the "verified up to event N" mark, the read views it keeps current), so that a copied or shared database, or
a copied state folder from another machine, carries nothing this machine trusts: another machine's seal does not
check out here. Kept beside seen.py's heads, `$XDG_STATE_HOME/cgledger/machine.key` (default
`~/.local/state/cgledger`), readable by its user only. A home that cannot be written keeps no secret: then nothing
is sealed and every check is made again, as before."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

from .. import caching
from ..sha import hmac_sha256, same

SIZE = 32


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "cgledger"


@cache
def _secret_at(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            found = file.read()
        return found if len(found) == SIZE else None  # a damaged secret seals nothing (never trusted)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        made = os.urandom(SIZE)  # what secrets.token_bytes gives, without importing it (and random) in every read
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(made)
        return made
    except FileExistsError:  # another process of this machine made it first
        _secret_at.cache_clear()
        return _secret_at(path)
    except OSError:
        return None


def secret() -> bytes | None:
    """This machine's secret (made on first use), or None where it cannot be kept or every cache is switched off
    (ledger/caching.py: then nothing is sealed, so nothing kept is trusted)."""
    if not caching.on():
        return None
    return _secret_at(str(state_dir() / "machine.key"))


def _message(parts) -> bytes:
    return b"\x00".join(part if isinstance(part, bytes) else str(part).encode() for part in parts)


def seal(*parts) -> str | None:
    """HMAC-SHA-256 of the parts under this machine's secret (None: no secret, so nothing is sealed)."""
    key = secret()
    return hmac_sha256(key, _message(parts)).hex() if key else None


def sealed(value, *parts) -> bool:
    """Whether `value` is this machine's seal of the parts."""
    expected = seal(*parts)
    return bool(expected) and isinstance(value, str) and same(value, expected)


def read_json(path: Path) -> dict:
    """A JSON object this machine keeps ({} if missing or unreadable: what it kept is then simply not known)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: dict) -> None:
    """Whole or not at all (a scratch file, then a rename); a home it cannot write to keeps nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f"{path.name}.{os.getpid()}")
        scratch.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(scratch, path)
    except OSError:
        pass
