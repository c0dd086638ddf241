"""Answers kept per log head: what a read command renders (the JSON-encodable data the
application service gave it), kept per machine, so that the same read of a log that has not changed since answers
without importing the event-sourcing library, msgspec or the rules engine.

Where: `$XDG_STATE_HOME/cgledger/answers/` (beside this machine's secret, ledger/trust/machine.py), one folder per
database as this machine names it (its real path, or its PostgreSQL URL without password, as views.py and
mark.py name it), one 0600 file per campaign selection, command and options, written whole (a scratch file, then
os.replace); at most KEEP files per database, the oldest pruned.

The key, sealed with this machine's secret over the answer's bytes: this database, the campaign selection
(`--campaign` or none), the command and its options, every CGLEDGER_* setting but the command id, the campaign's
last stored row (its version and the SHA-256 of its stored bytes: reading.stored_head), the SHA-256 of every
CampaignStarted row (which campaign "the only one" is), of the campaign's last snapshot (which a read starts from:
an edited one is named by the full read, so it misses), and the code that computes and renders answers and the
shipped rules files (names, sizes, times: `code_digest`). A campaign's own rules files are events: in its log.

Which reads: no key given (no --key-file, no CGLEDGER_PASSPHRASE, no key from `serve`: a key agent is asked only
for a key given), no --as-of, a SQLite file or PostgreSQL URL with no cipher or compressor set, and a machine
secret. An answer is kept only when the read that made it said nothing besides (no warning or notice) and left
this machine's seen head (ledger/trust/seen.py) and verified mark (ledger/trust/mark.py) both at the stored head; it is used
only while both still stand there. A read with a key may settle fair rolls or open sealed ones: never kept, never
used. A hit skips what the read did besides its answer: advancing the mark, the kept views and the seen head,
which all stood at this head already when it was kept.

What an answer trusts: the same as the mark, the log up to a head this machine checked. A row edited in place, an
event added, undone or imported, a campaign started or removed changes the key: the answer misses and the full path
runs (and refuses or warns as it does); so does an edited or replaced last snapshot. A database replaced by an older
copy of itself (an earlier head, whose answer may still be kept) misses too: the seen head stands past it, and the
full path warns that events are gone. An answer file edited by hand, one from another machine (a copied state
folder: another secret), or one kept for another database or campaign, does not check out under this machine's seal:
it is never shown, only computed again. Where no secret can be kept, or the state folder cannot be written, nothing
is kept: every read runs in full, as before."""

from __future__ import annotations

import json
import os
from functools import cache
from json.encoder import encode_basestring as _text  # C: escapes as msgspec does (not ASCII-only)
from pathlib import Path

from ..trust import machine
from ..sha import sha256

FORMAT = "cgledger-answer-1"
KEEP = 32  # answers kept per database (each command and options one file, replaced as the log grows)
ROOT = Path(__file__).resolve().parents[2]  # ledger/, projections/ and cli/ side by side (cgledger/__init__.py)


def folder() -> Path:
    return machine.state_dir() / "answers"


@cache
def code_digest() -> str:
    """The code that computes and renders answers, and the shipped rules files: every .py and .toml of ledger/,
    projections/ and cli/ by name, size and time (not read: cheap), and this Python."""
    import sys

    digest = sha256(f"{FORMAT}\x00{sys.version}".encode())
    for top in ("ledger", "projections", "cli"):
        for path, dirs, files in os.walk(ROOT / top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith((".py", ".toml"))):
                stat = os.stat(os.path.join(path, name))
                digest.update(f"{path}/{name}:{stat.st_size}:{stat.st_mtime_ns}\x00".encode())
    return digest.hexdigest()


def _settings() -> str:
    """Every CGLEDGER_* setting a read could see, but the command id (a new one each run: reads record nothing)."""
    return json.dumps(sorted((k, v) for k, v in os.environ.items()
                             if k.startswith("CGLEDGER_") and k != "CGLEDGER_COMMAND_ID"))


class Ticket:
    """One read's place in the answers kept: looked up before anything is loaded, kept after a miss."""

    def __init__(self, db: str, selection: str | None, command: str, options: tuple, head):
        from ..store.database import local_name

        self.where = local_name(db)
        self.db, self.selection, self.head = db, selection, head
        asked = json.dumps([selection, command, list(options), _settings()])
        self.parts = (FORMAT, self.where, asked, *head, code_digest())
        self.path = (folder() / sha256(self.where.encode()).hexdigest()[:32]
                     / f"{sha256(asked.encode()).hexdigest()[:40]}.answer")

    def lookup(self):
        """The data kept for exactly this key, or None (missing, another head, another machine's, edited, or the
        seen head or verified mark no longer at this head)."""
        try:
            seal, body = self.path.read_bytes().split(b"\n", 1)
            seal_text = seal.decode("ascii")
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not machine.sealed(seal_text, *self.parts, body):
            return None
        try:
            kept = json.loads(body)
            (seen_key, version, digest), data = kept["seen"], kept["data"]
        except (ValueError, KeyError, TypeError):
            return None
        return data if self._stands(seen_key, version, digest) else None

    def _stands(self, seen_key: str, version: int, digest: str) -> bool:
        """This machine's seen head and verified mark both at the stored head (an older copy of the file puts the
        seen head past it: the full path warns)."""
        from ..trust import mark, seen

        return (version == self.head.version and seen.last_seen(self.where, seen_key) == (version, digest)
                and mark.read(self.where, seen_key) == (version, digest))

    def keep(self, data, ledger) -> None:
        """After a miss: keeps the answer if the read said nothing besides it, the log's head did not move while
        it ran, and this machine's seen head and mark stand at it. Never fails the read."""
        from ..store.reading import stored_head

        # The head as the ticket read it, but for the snapshot (not read again: a large one costs 4-6 ms at 20,000
        # events). The key already holds the snapshot the ticket saw: one edited since misses next time, and one
        # edited before the read loaded it was named by the read (a notice: nothing kept).
        if getattr(ledger, "notices", None) or getattr(ledger, "said", None) or getattr(ledger, "made_now", None) \
                or ledger.where != self.where \
                or stored_head(self.db, self.selection, snapshot=False) != self.head._replace(snapshot=""):
            return
        seen_key = ledger.store.seen_key(self.head.cid)
        from ..trust import seen

        found = seen.last_seen(self.where, seen_key)
        if found is None or not self._stands(seen_key, *found):
            return
        body = json.dumps({"seen": [seen_key, *found], "data": data}, ensure_ascii=False).encode()
        seal = machine.seal(*self.parts, body)
        if seal is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_name(f"{self.path.name}.{os.getpid()}")
            fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(seal.encode() + b"\n" + body)
            os.replace(scratch, self.path)
            _prune(self.path.parent)
        except OSError:
            pass


def _prune(place: Path) -> None:
    """At most KEEP answers per database: the oldest go."""
    kept = [(entry.stat().st_mtime_ns, entry.path) for entry in os.scandir(place) if entry.name.endswith(".answer")]
    for _time, path in sorted(kept, reverse=True)[KEEP:]:
        try:
            os.unlink(path)
        except OSError:
            pass


def ticket(db: str, selection: str | None, command: str, options: tuple) -> Ticket | None:
    """Where this read's answer is kept, or None when it cannot be kept (no machine secret, or a store whose head
    cannot be read plainly). The caller has already left out reads with a key or --as-of."""
    if machine.secret() is None:
        return None
    from ..store.reading import stored_head

    head = stored_head(db, selection)
    return Ticket(db, selection, command, options, head) if head is not None else None


def plain(data):
    """The data as JSON gives it back (tuples as lists, anything else as its text, as `--json` writes it): what is
    kept, and what a miss renders too, so that a hit renders exactly what the miss did."""
    import msgspec

    return json.loads(msgspec.json.encode(data, enc_hook=str))


def _number(value: float) -> str:
    """A float as msgspec writes it (`--json` always did): 0.00001 not 1e-05, 1e16 not 1e+16."""
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    if int(exponent) == -5:
        sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{mantissa}e{int(exponent)}"


def dumps(data) -> str:
    """JSON indented by two spaces, as app.emit_json writes it (msgspec), with the standard library alone."""
    out: list[str] = []
    _write(data, "\n", out.append)
    return "".join(out)


def _write(value, newline: str, put) -> None:
    if value is None:
        put("null")
    elif value is True:
        put("true")
    elif value is False:
        put("false")
    elif isinstance(value, str):
        put(_text(value))
    elif isinstance(value, int):
        put(str(value))
    elif isinstance(value, float):
        put(_number(value))
    elif isinstance(value, dict):
        if not value:
            put("{}")
            return
        inner, first = newline + "  ", True
        for key, item in value.items():
            put(("{" if first else ",") + inner + _text(str(key)) + ": ")
            first = False
            _write(item, inner, put)
        put(newline + "}")
    else:  # a list
        if not value:
            put("[]")
            return
        inner, first = newline + "  ", True
        for item in value:
            put(("[" if first else ",") + inner)
            first = False
            _write(item, inner, put)
        put(newline + "]")
