"""Read views kept current: the roster, the RG record, the dice, the history's story and each Map
Group's Setup Areas, each kept per machine as the fold of the log up to an event, so that a read folds only the
events recorded since.

Where: beside this machine's secret, `$XDG_STATE_HOME/cgledger/views/` (ledger/trust/machine.py), one file per database
(as this machine names it), campaign (its id and first event), view, reader (the side whose key opened its sealed
rolls and purchases, or none) and rules in force (the system, the rules files in force, the shipped rules and the
projections' code). What: the version and digest of the last event folded and the view's state, sealed with this
machine's secret over all of these. A view whose seal fails, that cannot be read, or whose event is no longer the
log's is folded again from the log: it is never trusted, never an error. A database copied to another machine, or a
view planted by anyone without this machine's secret, carries nothing this machine shows. Where no secret can be
kept, no view is kept and reads fold the whole log, as before.

A view a side's key opened holds that side's secrets: it is stored encrypted with that key (Fernet, as its sealed
rolls are), so the view files never show them to a reader without it. The folds themselves are in
projections/kept.py."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from ..trust import machine
from ..sha import sha256

FORMAT = "cgledger-view-1"


def folder() -> Path:
    return machine.state_dir() / "views"


def available() -> bool:
    """Whether this machine can keep views (a secret to seal them with)."""
    return machine.secret() is not None


@cache
def code_digest(*modules: str) -> str:
    """The source of the modules that fold and finish the views, and the shipped rules files (by name, size and
    time): a view made by other code or other rules data is folded again."""
    import importlib

    from .. import rules as rulesmod

    digest = sha256(FORMAT.encode())
    for name in modules:
        module = importlib.import_module(name)
        with open(module.__file__, "rb") as file:
            digest.update(file.read())
    for path in sorted(Path(rulesmod.__file__).parent.rglob("*.toml")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def rules_key(system: str, overrides, code: str) -> str:
    digest = sha256(f"{system}\x00{code}".encode())
    for name, text in overrides:
        digest.update(b"\x00" + name.encode() + b"\x00" + text.encode())
    return digest.hexdigest()


def path_of(parts: tuple) -> Path:
    name = sha256("\x00".join(map(str, parts)).encode()).hexdigest()[:40]
    return folder() / f"{name}.view"


def load(parts: tuple) -> tuple[int, str, bytes] | None:
    """(version, digest of that event, the view's bytes) if its file is there and this machine sealed it for these
    parts; else None (to fold again)."""
    try:
        data = path_of(parts).read_bytes()
        seal, version, digest, body = data.split(b"\n", 3)
        version_number = int(version)
        seal_text, digest_text = seal.decode("ascii"), digest.decode("ascii")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not machine.sealed(seal_text, FORMAT, *parts, version_number, digest_text, body):
        return None
    return version_number, digest_text, body


# Checkpoints: a view as it stood some events back, kept beside it (sealed the same way), so that an undo, a rewind or a
# reveal folds the view again from before what it changes, not from the whole log (projections/kept.resumes).
CHECKPOINT_EVERY = 200  # events between checkpoints
CHECKPOINTS = 3  # kept per view: the oldest is written over


def keep_checkpoint(parts: tuple, version: int, digest: str, body: bytes) -> None:
    store((*parts, "checkpoint", version // CHECKPOINT_EVERY % CHECKPOINTS), version, digest, body)


def checkpoints(parts: tuple) -> list[tuple[int, str, bytes]]:
    """The view's checkpoints this machine sealed, the latest first."""
    found = (load((*parts, "checkpoint", slot)) for slot in range(CHECKPOINTS))
    return sorted((f for f in found if f is not None), key=lambda f: -f[0])


def store(parts: tuple, version: int, digest: str, body: bytes) -> None:
    """Writes the view whole or not at all (a temp file, then os.replace); a home that cannot be written keeps
    nothing."""
    seal = machine.seal(FORMAT, *parts, version, digest, body)
    if seal is None:
        return
    path = path_of(parts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f"{path.name}.{os.getpid()}")
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(b"\n".join((seal.encode(), str(version).encode(), digest.encode(), body)))
        os.replace(scratch, path)
    except OSError:
        pass
