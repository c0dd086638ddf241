"""The group, its shared options, and the one mapping of domain errors to a one-line exit 1."""

from __future__ import annotations

import functools
from typing import Any

import click

from . import complete
from .context import (_OPENED, LedgerContext, file_line, forget, forget_said, lost_line, notice_lines,  # noqa: F401
                      opened, quiet_pipe, refusal_line)

from cgledger.ledger.errors import LedgerError


CONSOLE = object()  # the group's obj from the console script (cli/quick.py): this process runs one command line
# read commands that end their process freeing nothing they read (reading.one_shot) when the console script runs them;
# no command made to write (`import`: its memory is not held to the end; a keyed `status` that settles a fair roll
# has committed before the end), never `serve`, `script` or `demo` (many commands in one process), nor a key agent
ONE_SHOT = frozenset({"log", "export", "audit", "final", "tables", "status", "head", "roster", "rg-record", "history",
                      "dice-stats", "areas", "map", "report"})


class ConnectionLost(click.ClickException):
    """The database connection was lost mid-command: one line, exit 1, with the id to run the command again with."""


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
        from cgledger.ledger.store.reading import collector_paused

        try:
            with collector_paused():  # a command reads a log and exits: the cyclic collector only slows it
                result = super().invoke(ctx)
        except AlreadyRecorded as e:  # a retried command: said once, not done twice
            click.echo(e.line())
            return None
        except LedgerError as e:
            from cgledger.ledger.store.database import lost_connection

            if lost_connection(e) is not None:  # libpq's reads (ledger/store/reading.py): said as any lost connection
                lost(ctx, e)
            show_notices(ctx, echo=False)  # a refusal is one line
            raise click.ClickException(refusal_line(e)) from None  # one line
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
    if command_id:
        from cgledger.ledger.trust.chain import COMMAND_ID_MOST, command_id_ok

        if not command_id_ok(command_id):
            raise click.BadParameter(f"letters, digits and -._:# up to {COMMAND_ID_MOST}", param_hint="--command-id")
    given = ctx.obj if isinstance(ctx.obj, LedgerContext) else None  # `serve` runs commands in-process (cli/web)
    if given is not None:
        ctx.obj = LedgerContext(db or given.db, campaign or given.campaign, seed or given.seed, key_file,
                                command_id or given.command_id, given.material)
        return
    if ctx.obj is CONSOLE and ctx.invoked_subcommand in ONE_SHOT:
        from cgledger.ledger.store.reading import one_shot

        one_shot()
    from .progressbar import install

    install()  # long work shown as it goes (ledger/progress.py), on a player's terminal only
    ctx.obj = LedgerContext(db, campaign, seed, key_file, command_id)


def lost(ctx: click.Context, e: Exception) -> None:
    """A lost database connection, anywhere in any command: one line with the command id to run it again with (the
    next command in this process opens a fresh pool); anything else returns."""
    line = lost_line(ctx.find_object(LedgerContext), e)
    if line is not None:
        raise ConnectionLost(line) from None


def one_line(e: Exception) -> None:
    """A file that cannot be written or read (a missing folder, a name too long) or is not UTF-8: one line."""
    line = file_line(e)
    if line is not None:
        raise click.ClickException(line) from None


def show_notices(ctx: click.Context, echo: bool = True) -> None:
    """What the command said besides its answer (context.notice_lines), once, on stderr after its own output; a
    refusal (echo=False) is one line: they are forgotten unsaid."""
    ledger = getattr(ctx.obj, "_ledger", None)
    for line in notice_lines(ledger) if echo else ():
        click.echo(line, err=True)
    if ledger is not None and not echo:
        forget_said(ledger)


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


from . import COMMANDS  # noqa: E402 - the package's list, defined before this module loads

main.lazy = COMMANDS
