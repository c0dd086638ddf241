"""The parsed rules, kept between processes: parsing a rule system's TOML files anew costs every
command ~14 ms (msgspec reads TOML through the stdlib's pure-Python tomllib); decoding the same structs from
MessagePack costs ~0.2 ms.

One file per rule system and set of overrides, `$XDG_CACHE_HOME/cgledger/rules/<key>.msgpack` (default
`~/.cache/cgledger/rules`). The key is the SHA-256 of a manifest that names the SHA-256 of every source that went
into the parse: each shipped TOML file of the system and each override's text, in order, and of the code the parse
depends on (schema.py's, engine.py's and validate.py's own sources, msgspec's and Python's versions, this file's FORMAT). It is never trusted
across edits: one changed byte anywhere gives another key, and so a fresh parse. The key is also stored inside the
file and checked. A file that does not decode (truncated, corrupt, another format) is ignored and written again; a
cache folder that cannot be written to (read-only home, no home) changes nothing: the rules are parsed as without
the cache. Each file starts with the SHA-256 of the rest, so a byte changed in the file itself is caught too, even
where it would still decode. Only a parse that went through whole (every file decoded, the Rules built and checked) is stored, so
a refusal is always the parse's own. At most KEEP files are kept: the oldest go when a new one is written.
"""


import functools
import os
import sys
from pathlib import Path

import msgspec

from .schema import SystemFile, TablesFile
from ..sha import sha256

FORMAT = 1
KEEP = 64  # cache files kept (each ~75 KB for KGP): every new set of overrides adds one


class Parsed(msgspec.Struct, array_like=True):
    key: str
    system: SystemFile
    files: list[tuple[str, TablesFile]]  # the shipped tables files, in load order
    overrides: list[tuple[str, TablesFile]]  # the overrides, in order


def folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cgledger" / "rules"


@functools.cache
def _code() -> str:
    """What a parse's result depends on besides its sources: the schema it decodes into, the decoders, and the
    checks it passed (validate.py: a parse read back is not checked again, so a new check makes a new key)."""
    code = b"".join((Path(__file__).parent / name).read_bytes() for name in ("schema.py", "engine.py", "validate.py"))
    return f"{FORMAT}:{sha256(code).hexdigest()}:{msgspec.__version__}:{sys.version}"


def key(system: str, shipped: list[tuple[str, bytes]], overrides: tuple[tuple[str, str], ...]) -> str:
    manifest = msgspec.json.encode([_code(), system,
                                    [[name, sha256(data).hexdigest()] for name, data in shipped],
                                    [[name, sha256(text.encode("utf-8", "surrogatepass")).hexdigest()]
                                     for name, text in overrides]])
    return sha256(manifest).hexdigest()


_decoder = msgspec.msgpack.Decoder(Parsed)


def read(key: str) -> Parsed | None:
    """The parse stored under `key`, or None (none stored, unreadable, corrupt, or stored under another key)."""
    try:
        data = (folder() / f"{key}.msgpack").read_bytes()
    except (OSError, ValueError):
        return None
    if len(data) < 32 or sha256(memoryview(data)[32:]).digest() != data[:32]:
        return None  # truncated or altered (even where it would still decode): written again by the parse that follows
    try:
        parsed = _decoder.decode(memoryview(data)[32:])
    except (msgspec.DecodeError, ValueError, TypeError):
        return None
    return parsed if parsed.key == key else None


def write(parsed: Parsed) -> None:
    """Stores a parse (atomically: a reader sees the old file, none, or the whole new one); never fails."""
    where = folder()
    partial = where / f".{parsed.key}.{os.getpid()}.tmp"
    try:
        where.mkdir(parents=True, exist_ok=True)
        body = msgspec.msgpack.encode(parsed)
        partial.write_bytes(sha256(body).digest() + body)
        os.replace(partial, where / f"{parsed.key}.msgpack")
        _prune(where)
    except (OSError, ValueError):  # an unwritable or missing cache folder: parsed every time, as without it
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass


def _prune(where: Path) -> None:
    files = list(where.glob("*.msgpack"))
    if len(files) <= KEEP:
        return
    dated = []
    for path in files:
        try:
            dated.append((path.stat().st_mtime, str(path)))
        except OSError:
            pass
    for _mtime, path in sorted(dated)[: len(dated) - KEEP]:
        try:
            os.unlink(path)
        except OSError:
            pass
