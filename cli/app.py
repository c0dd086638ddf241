"""The group, its shared options, and the one mapping of domain errors to a one-line exit 1."""

from __future__ import annotations

import atexit
import functools
import os
from typing import Any, Callable

import click

from . import complete

from cgledger.ledger.errors import LedgerError


class LedgerContext:
    """Built once in the group callback; opens the ledger only when a command needs it."""

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
        """What a read command renders, as JSON gives it back (ledger/answers.py): the answer this machine kept for
        this log's head when there is one (nothing else is loaded), else `compute(ledger)`, kept for the next time.
        A read with a key or --as-of neither uses nor fills the answers kept."""
        from cgledger.ledger import answers
        from cgledger.ledger.store import resolve_db

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
        from cgledger.ledger.dice import SeededDice, SystemDice
        from cgledger.ledger.store import resolve_db

        if self._ledger is None:
            self._ledger = opened(resolve_db(self.db), create)
            self._ledger.forget_reads()  # read once per command, afresh for each
            self._ledger.dice = SeededDice(self.seed) if self.seed is not None else SystemDice()
            self._ledger.key_material = material = self.key_material()
            if material is not None and self._ledger.keyring.agent is None:
                from cgledger.ledger.keyagent import Client

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
        from cgledger.ledger.store import check_postgres, is_postgres

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


class ConnectionLost(click.ClickException):
    """The database connection was lost mid-command: one line, exit 1, with the id to run the command again with."""

    def __init__(self, problem: str, command_id: str):
        self.problem, self.command_id = problem, command_id
        super().__init__(f"the connection to the database was lost ({problem}): it is not known whether this command "
                         f"was recorded; run it again with --command-id {command_id}, which records it at most once")


@atexit.register
def _close_all() -> None:
    """Close connections while the interpreter can still do it cleanly."""
    for db in list(_OPENED):
        forget(db)


class LedgerGroup(click.Group):
    """Loads each command's module only when that command is asked for: `lazy` (cli.COMMANDS) maps a command's
    name to its module in cli/ and its short help, which `--help` lists without importing anything."""

    lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            import importlib

            importlib.import_module(f"{__package__}.{self.lazy[cmd_name][0]}")  # registers it on this group
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its whole first sentence, wrapped under it rather than cut off with '...' as click
        does at the terminal's width; a command not loaded yet takes it from `lazy`."""
        names = self.list_commands(ctx)
        shown = [name for name in names if name in self.lazy or not self.commands[name].hidden]
        if not shown:
            return
        rows = [(name, (self.commands[name] if name not in self.lazy else click.Command(name, help=self.lazy[name][1]))
                 .get_short_help_str(10**6)) for name in shown]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        from cgledger.ledger.errors import AlreadyRecorded
        from cgledger.ledger.reading import collector_paused

        try:
            with collector_paused():  # a command reads a log and exits: the cyclic collector only slows it
                result = super().invoke(ctx)
        except AlreadyRecorded as e:  # a retried command: said once, not done twice
            click.echo(e.line())
            return None
        except LedgerError as e:
            from cgledger.ledger.store import lost_connection

            if lost_connection(e) is not None:  # libpq's reads (ledger/reading.py): said as any lost connection
                lost(ctx, e)
            show_notices(ctx, echo=False)  # a refusal is one line
            raise click.ClickException(" ".join(p.strip() for p in e.line().splitlines())) from None  # one line
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as e:  # noqa: BLE001 - a lost connection, anywhere in any command: one line, not a traceback
            if isinstance(e, BrokenPipeError):  # `cgledger log | head -1`: the reader has all it wanted
                quiet_pipe()
            lost(ctx, e)
            one_line(e)
            raise
        show_notices(ctx)
        return result


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar="CGLEDGER_DB", metavar="PATH", help="Campaign database (default ./campaign.db).")
@click.option("--campaign", envvar="CGLEDGER_CAMPAIGN", metavar="NAME", shell_complete=complete.campaigns,
              help="Campaign to use (default: the only one).")
@click.option("--seed", envvar="CGLEDGER_SEED", hidden=True, help="Seeded dice (tests, demos); recorded as source 'seeded'.")
@click.option("--key-file", envvar="CGLEDGER_KEY_FILE", metavar="FILE",
              help="Your side's key file for Secret rolls (or set CGLEDGER_PASSPHRASE).")
@click.option("--command-id", envvar="CGLEDGER_COMMAND_ID", metavar="ID",
              help="This command's id, chosen before its first attempt: run again with the same id after a lost "
                   "connection, it answers 'already recorded as event N' instead of acting twice (default: a new id).")
@click.version_option(package_name="cgledger")
@click.pass_context
def main(ctx: click.Context, db: str | None, campaign: str | None, seed: str | None, key_file: str | None,
         command_id: str | None) -> None:
    """An event-sourced ledger for ASL campaign games: every roll, recorded and re-checkable."""
    given = ctx.obj if isinstance(ctx.obj, LedgerContext) else None  # `serve` runs commands in-process (cli/web)
    if given is not None:
        ctx.obj = LedgerContext(db or given.db, campaign or given.campaign, seed or given.seed, key_file,
                                command_id or given.command_id, given.material)
        return
    ctx.obj = LedgerContext(db, campaign, seed, key_file, command_id)


def lost(ctx: click.Context, e: Exception) -> None:
    """A lost database connection, anywhere in any command: one line with the command id to run it again with (the
    next command in this process opens a fresh pool); anything else returns."""
    from cgledger.ledger.store import lost_connection, resolve_db

    problem = lost_connection(e)
    if problem is None:
        return
    obj = ctx.find_object(LedgerContext)
    forget(resolve_db(obj.db))
    raise ConnectionLost(problem, obj.command_id) from None


def one_line(e: Exception) -> None:
    """A file that cannot be written or read (a missing folder, a name too long) or is not UTF-8: one line."""
    if isinstance(e, UnicodeDecodeError):
        raise click.ClickException(f"a file given is not UTF-8 text (byte {e.object[e.start]:#04x} at offset "
                                   f"{e.start})") from None
    if isinstance(e, OSError):
        name = str(e.filename or "")
        name = name if len(name) <= 80 else f"{name[:40]}…{name[-20:]} ({len(name)} characters)"
        raise click.ClickException(f"cannot use {name or 'a file given'}: {e.strerror or e}") from None


def quiet_pipe() -> None:
    """stdout's reader went away: end quietly, as `yes | head` does (exit 141, nothing on stderr)."""
    import sys

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
    except (OSError, ValueError):
        pass
    raise SystemExit(141)


def show_notices(ctx: click.Context, echo: bool = True) -> None:
    """What a read worked around (a snapshot that does not check out, an event that does not verify), once, on
    stderr after the command's own output."""
    obj = ctx.obj
    ledger = getattr(obj, "_ledger", None)
    for line in getattr(ledger, "said", ()) if echo else ():  # what the command did besides its act
        click.echo(line, err=True)
    for notice in dict.fromkeys(getattr(ledger, "notices", ())) if echo else ():
        click.echo(f"Warning: {notice}", err=True)
    for version, rolled in getattr(ledger, "made_now", ()) if echo else ():  # the roller sees his Secret roll at once
        drms = "".join(f" {d.value:+d} {d.name or d.key}" for d in rolled.drms)
        click.echo(f"your ledger made your Secret roll on {rolled.table} (event {version}): {rolled.die} "
                   f"{','.join(map(str, rolled.dice))}, Original {rolled.original}{drms}, Final {rolled.final}: "
                   f"{rolled.result} (only you see this)", err=True)
    if ledger is not None:
        ledger.notices.clear()
        getattr(ledger, "made_now", []).clear()
        getattr(ledger, "said", []).clear()


def common(func):
    """--db and --campaign also accepted after the command name."""

    @click.option("--db", "db_", metavar="PATH", help="Campaign database (default ./campaign.db).")
    @click.option("--campaign", "campaign_", metavar="NAME", shell_complete=complete.campaigns,
                  help="Campaign to use (default: the only one).")
    @functools.wraps(func)
    def wrapper(*args, db_: str | None = None, campaign_: str | None = None, **kwargs):
        obj: LedgerContext = click.get_current_context().find_object(LedgerContext)
        if db_:
            obj.db = db_
        if campaign_:
            obj.campaign = campaign_
        return func(obj, *args, **kwargs)

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
as_of_option = click.option("--as-of", "as_of", metavar="DATE", help="As at the end of that CG Date's RePh.")


def emit_answer(data: Any) -> None:
    """An answer (LedgerContext.answer) as JSON on stdout, as emit_json writes it, without msgspec."""
    from cgledger.ledger.answers import dumps

    click.echo(dumps(data))


def emit_json(data: Any) -> None:
    """JSON on stdout, indented by two spaces, through msgspec. A list (or any iterable of rows, e.g. a generator)
    is written a few hundred rows at a time, so a long log never stands in memory as one string."""
    import msgspec

    encoder = msgspec.json.Encoder(enc_hook=str)
    if not isinstance(data, (list, tuple)) and not hasattr(data, "__next__"):
        click.echo(msgspec.json.format(encoder.encode(data), indent=2).decode())
        return
    chunk: list[bytes] = []
    first = True
    for item in data:
        chunk.append(b"\n  " + msgspec.json.format(encoder.encode(item), indent=2).replace(b"\n", b"\n  "))
        if len(chunk) == 500:
            click.echo(("[" if first else ",") + b",".join(chunk).decode(), nl=False)
            chunk, first = [], False
    if first and not chunk:
        click.echo("[]")
        return
    if not chunk:  # a multiple of 500 rows: all written, only the bracket left (a comma here was invalid JSON)
        click.echo("\n]")
        return
    click.echo(("[" if first else ",") + b",".join(chunk).decode() + "\n]")
