"""What a command runs with, without click: the ledger context (the database, campaign, key and command id a command
was given, the ledger opened once per process), and what is said besides a command's answer. The quick path
(cli/quick.py) runs its reads with these alone; the click group (cli/app.py) with the same."""

from __future__ import annotations

import atexit
import os
from typing import Any, Callable

from cgledger.ledger.errors import LedgerError


class LedgerContext:
    """Built once per command (the click group's callback, or cli/quick.py); opens the ledger only when the command
    needs it."""

    def __init__(self, db: str | None, campaign: str | None, seed: str | None, key_file: str | None = None,
                 command_id: str | None = None, material: bytes | None = None):
        import uuid

        self.material = material  # a key given in-process (`serve`'s page), never read from a file or the env again
        self.db = db
        self.campaign = campaign
        self.seed = seed
        self.key_file = key_file
        self.command_id = command_id or str(uuid.uuid4())  # chosen before the first attempt
        self._ledger = None

    def key_material(self) -> bytes | None:
        """This player's passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file / CGLEDGER_KEY_FILE)."""
        if self.material is not None:
            return self.material
        if self.key_file:
            from pathlib import Path

            try:
                return Path(self.key_file).read_bytes().strip()
            except OSError as e:
                raise LedgerError(f"cannot read key file {self.key_file}: {e.strerror}") from None
        passphrase = os.environ.get("CGLEDGER_PASSPHRASE")
        return passphrase.encode() if passphrase else None

    def answer(self, command: str, options: tuple, compute: Callable[[Any], Any], as_of: str | None = None):
        """What a read command renders, as JSON gives it back (ledger/read/answers.py): the answer this machine kept for
        this log's head when there is one (nothing else is loaded), else `compute(ledger)`, kept for the next time.
        A read with a key or --as-of neither uses nor fills the answers kept."""
        from cgledger.ledger.read import answers
        from cgledger.ledger.store.database import resolve_db

        keyed = self.material is not None or bool(self.key_file) or bool(os.environ.get("CGLEDGER_PASSPHRASE"))
        ticket = None if keyed or as_of is not None else answers.ticket(resolve_db(self.db), self.campaign, command,
                                                                         options)
        found = ticket.lookup() if ticket is not None else None
        if found is not None:
            return found
        data = answers.plain(compute(self.ledger()))
        if ticket is not None:
            ticket.keep(data, self._ledger)
        return data

    def side_names(self) -> dict[str, str]:
        """Each side's name in the campaign's system (`us` -> U.S.), for what a command prints; none if unknown."""
        try:
            ledger = self.ledger()
            return dict(ledger.rules_for(ledger.campaign(self.campaign)).system.sides)
        except LedgerError:
            return {}

    def side_name(self, side: str) -> str:
        return self.side_names().get(side, side)

    def ledger(self, create: bool = False):
        from cgledger.ledger.rules.dice import SeededDice, SystemDice
        from cgledger.ledger.store.database import resolve_db

        if self._ledger is None:
            self._ledger = opened(resolve_db(self.db), create)
            self._ledger.store.forget_reads()  # read once per command, afresh for each
            self._ledger.dice = SeededDice(self.seed) if self.seed is not None else SystemDice()
            self._ledger.key_material = material = self.key_material()
            if material is not None and self._ledger.keyring.agent is None:
                from cgledger.ledger.player.keyagent import Client

                self._ledger.keyring.agent = Client()  # `keys unlock`'s agent, if one runs: else stretched as before
            self._ledger.command_id = self.command_id
        return self._ledger


_OPENED: dict[str, Any] = {}  # db -> ledger: commands run in one process (script, demo, tests) share it


def opened(db: str, create: bool = False):
    """The ledger of a database, opened (and checked) once per process. The application keeps no
    campaign state between commands (each loads its aggregate), only its connections."""
    from cgledger.ledger.application import open_ledger

    if db not in _OPENED:
        if len(_OPENED) >= 8:
            forget(next(iter(_OPENED)))
        _OPENED[db] = open_ledger(db, create=create)
    elif create:
        from cgledger.ledger.store.database import check_postgres, is_postgres

        # a SQLite file open here was checked when it was opened, and is not checked again: reading its header with
        # open() and close() would drop every POSIX lock this process holds on it (SQLite's included), and another
        # process's last close would then delete the WAL this process still writes to (found by `serve`)
        if is_postgres(db):
            check_postgres(db, True)
    return _OPENED[db]


def forget(db: str) -> None:
    """Drop a database's open ledger (before its file is replaced, or after its connection was lost)."""
    ledger = _OPENED.pop(db, None)
    if ledger is not None:
        try:
            ledger.close()
        except Exception:  # noqa: BLE001 - a pool whose connections are already gone
            pass


@atexit.register
def _close_all() -> None:
    """Close connections while the interpreter can still do it cleanly."""
    for db in list(_OPENED):
        forget(db)


def quiet_pipe() -> None:
    """stdout's reader went away: end quietly, as `yes | head` does (exit 141, nothing on stderr)."""
    import sys

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
    except (OSError, ValueError):
        pass
    raise SystemExit(141)


def notice_lines(ledger) -> list[str]:
    """What a read or a write said besides its answer, for stderr after it (and then forgotten): what it did, what it
    worked around (a snapshot that does not check out, an event that does not verify), and the roller's own Secret
    roll, seen at once."""
    if ledger is None:
        return []
    lines = list(getattr(ledger, "said", ()))
    lines += [f"Warning: {notice}" for notice in dict.fromkeys(getattr(ledger, "notices", ()))]
    for version, rolled in getattr(ledger, "made_now", ()):
        if not hasattr(rolled, "dice"):  # made void: sealed as a roll made, so the other side cannot tell (8.6201)
            lines.append(f"your ledger made your Secret roll of event {version} void, as its RG calls for no such "
                         "roll: its strength gave another result, or it keeps the count of the RG's follow-ups "
                         "(only you see this)")
            continue
        drms = "".join(f" {d.value:+d} {d.name or d.key}" for d in rolled.drms)
        lines.append(f"your ledger made your Secret roll on {rolled.table} (event {version}): {rolled.die} "
                     f"{','.join(map(str, rolled.dice))}, Original {rolled.original}{drms}, Final {rolled.final}: "
                     f"{rolled.result} (only you see this)")
    forget_said(ledger)
    return lines


def forget_said(ledger) -> None:
    ledger.notices.clear()
    getattr(ledger, "made_now", []).clear()
    getattr(ledger, "said", []).clear()


def refusal_line(e: LedgerError) -> str:
    """A domain error as one line."""
    return " ".join(p.strip() for p in e.line().splitlines())


def lost_line(obj: LedgerContext, e: BaseException) -> str | None:
    """A lost database connection, anywhere in any command: the line to say, with the command id to run it again with
    (the database's ledger is dropped: the next command in this process opens a fresh pool); None for anything else."""
    from cgledger.ledger.store.database import lost_connection, resolve_db

    problem = lost_connection(e)
    if problem is None:
        return None
    forget(resolve_db(obj.db))
    return (f"the connection to the database was lost ({problem}): it is not known whether this command was recorded; "
            f"run it again with --command-id {obj.command_id}, which records it at most once")


def file_line(e: BaseException) -> str | None:
    """A file that cannot be written or read (a missing folder, a name too long) or is not UTF-8: its one line; None
    for anything else."""
    if isinstance(e, UnicodeDecodeError):
        return f"a file given is not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start})"
    if isinstance(e, OSError):
        name = str(e.filename or "")
        name = name if len(name) <= 80 else f"{name[:40]}…{name[-20:]} ({len(name)} characters)"
        return f"cannot use {name or 'a file given'}: {e.strerror or e}"
    return None
