"""The `cgledger` program: `status`, `step` (the open step: no TARGET), `date`, `head`, `final`, the books', dice's
and map's reads (`roster`, `rg-record`, `history`, `dice-stats`, `areas`, `map`, `report`) and the whole log's (`log`,
`export`) run here without click, whose import alone costs about what Python's own start-up does; every other command
line goes to the click group (cli/app.py).

Taken here, and only exactly these: `[--db PATH] [--campaign NAME] [--key-file FILE] [--command-id ID] COMMAND [--db
PATH] [--campaign NAME]` and the command's own options and flags as COMMANDS lists them (`roster --side SIDE [--as-of
DATE] [--json] [--csv]`; `--as-of` only where the click command has it: not `step` nor `final`), each option and flag
at most once in its place, an option as `--opt VALUE` or `--opt=VALUE`, no value empty or starting with `-`, a required
option given, `--last` digits alone and at least 1, no argument but `export`'s one FILE (anywhere after the command
name, not starting with `-`; `step next`, `step 8.616` move: click's), a file to write (FILE, `--svg`, `--html`) not
there yet or a plain readable file (a folder, anything else: click's); anything else (`--help`, `--seed`, a typo, a
second FILE) is click's, which says what is wrong. The environment is read as click reads it (CGLEDGER_DB,
CGLEDGER_CAMPAIGN, CGLEDGER_KEY_FILE, CGLEDGER_COMMAND_ID, CGLEDGER_SEED; an empty variable as unset).
Each command runs the very code its click command runs (LedgerContext.answer, `head_fingerprint`, cli/statustext.py,
cli/readtext.py, cli/logtext.py, answers.dumps for `--json`, which writes what msgspec writes; `log` written as it is
read), prints the same lines, and says what goes wrong as the click group does (context.refusal_line, lost_line,
file_line: `Error: ` and one line on stderr, exit 1; the notices after the answer on stderr). tests/test_quick.py runs
every form both ways and compares what each prints, and checks COMMANDS against the click commands' own options.

The process ends by `_end` (os._exit after the exit handlers) without freeing what it read (reading.one_shot), here and
for the click group's reads (app.ONE_SHOT): at 20,000 events that is 30-50 ms less of a cold `history`, `report`,
`log --json` or `export`."""

from __future__ import annotations

import os
import sys

GLOBAL = ("--db", "--campaign", "--key-file", "--command-id")  # the group's options taken here (not --seed: hidden)
LOCAL = ("--db", "--campaign")  # after every command name here (`common`)
COMMANDS = {  # command: (its own options that take a value, its flags, the options it requires)
    "status": (("--as-of",), ("--json",), ()),
    "step": ((), ("--json",), ()),  # the open step; with a TARGET it moves: click's
    "date": (("--as-of",), ("--json",), ()),
    "head": (("--as-of",), ("--json",), ()),
    "final": ((), ("--json",), ()),
    "roster": (("--side", "--as-of"), ("--json", "--csv"), ("side",)),
    "rg-record": (("--side", "--as-of"), ("--json", "--csv"), ("side",)),
    "history": (("--as-of",), ("--json",), ()),
    "dice-stats": (("--side", "--as-of"), ("--json",), ()),
    "areas": (("--group", "--as-of"), ("--json",), ("group",)),
    "map": (("--group", "--svg", "--as-of"), (), ("group", "svg")),
    "report": (("--html", "--as-of"), (), ("html",)),
    "log": (("--as-of", "--last"), ("--json",), ()),
    "export": (("--since",), ("--json",), ("since",)),
}
ARGUMENTS = {"export": "file"}  # a command's one positional argument (FILE), required
FILES = ("--svg", "--html", "file")  # files written (click.Path(dir_okay=False)): only one not there yet or a plain
# readable file is taken here; a folder or anything else is click's to take or refuse
WHOLE = ("--last",)  # click.IntRange(1): digits alone, at least 1, else click's


def parse(argv: list[str]) -> tuple[str, dict[str, str], frozenset[str]] | None:
    """(command, options given, flags given) of a command line taken here, or None: click's."""
    given: dict[str, str] = {}
    flags: set[str] = set()
    command, seen = None, set()
    args = iter(argv)
    for arg in args:
        own = COMMANDS[command] if command is not None else None
        if own is not None and arg in own[1] and arg[2:] not in flags:
            flags.add(arg[2:])
            continue
        name, equals, value = arg.partition("=")
        if name in (GLOBAL if own is None else LOCAL + own[0]):
            if not equals:
                value = next(args, "")
            place = (command is not None, name)
            if place in seen or not plain(name, value):
                return None
            seen.add(place)
            given[name[2:]] = value  # after the command name it wins, as `common` lets it
            continue
        if command is None and arg in COMMANDS:
            command = arg
            continue
        argument = ARGUMENTS.get(command)
        if argument is not None and argument not in given and plain(argument, arg):
            given[argument] = arg
            continue
        return None
    if command is None or any(name not in given for name in COMMANDS[command][2]) or (
            command in ARGUMENTS and ARGUMENTS[command] not in given):
        return None
    return command, given, frozenset(flags)


def plain(name: str, value: str) -> bool:
    """A value click takes as it is: not empty, not like an option, a file to write not there yet or a plain readable
    one (click.Path checks what is there), a count a whole number from 1 (click.IntRange(1))."""
    if not value or value.startswith("-"):
        return False
    if name in WHOLE:
        return value.isascii() and value.isdigit() and int(value) >= 1
    if name not in FILES:
        return True
    import stat

    try:
        mode = os.stat(value).st_mode
    except OSError:
        return True  # nothing there (or a name the system refuses): click.Path takes it, the write says what is wrong
    return stat.S_ISREG(mode) and os.access(value, os.R_OK)


def head_fingerprint(obj, as_of: str | None) -> str:
    """`head`: the fingerprint of the campaign's last stored event, read with sqlite3 or libpq alone (its digest
    recomputed); the application's where the store is not plain, or as of a CG Date."""
    from cgledger.ledger.store.reading import postgres_head, sqlite_head
    from cgledger.ledger.store.database import resolve_db

    db = resolve_db(obj.db)
    return ((sqlite_head(db, obj.campaign) or postgres_head(db, obj.campaign)) if as_of is None else None) \
        or obj.ledger().verification.head(obj.campaign, as_of)


def head_data(fingerprint: str) -> dict:
    version, short = fingerprint.split(":")
    return {"fingerprint": fingerprint, "events": int(version), "digest": short}


def run(command: str, given: dict[str, str], flags: frozenset[str] = frozenset()) -> int:
    """The command run as its click command runs it: its exit status, its lines printed."""
    from cgledger.ledger.errors import AlreadyRecorded, LedgerError
    from cgledger.ledger.store.reading import collector_paused

    from .context import LedgerContext, file_line, forget_said, lost_line, notice_lines, quiet_pipe, refusal_line

    def setting(name: str) -> str | None:  # the option given, else its variable, as click resolves them
        return given.get(name) or os.environ.get(f"CGLEDGER_{name.upper().replace('-', '_')}") or None

    from .progressbar import install

    install()  # as the click group does
    obj = LedgerContext(setting("db"), setting("campaign"), setting("seed"), setting("key-file"), setting("command-id"))
    try:
        with collector_paused():  # a command reads a log and exits, as the click group runs it
            out = answer(obj, command, given, flags)
    except AlreadyRecorded as e:  # a retried command: said once, not done twice
        _write(sys.stdout, e.line() + "\n")
        return 0
    except LedgerError as e:
        line = lost_line(obj, e)
        if line is None and obj._ledger is not None:
            forget_said(obj._ledger)  # a refusal is one line
        _write(sys.stderr, f"Error: {line or refusal_line(e)}\n")
        return 1
    except KeyboardInterrupt:
        _write(sys.stderr, "Aborted!\n")
        return 1
    except Exception as e:  # noqa: BLE001 - a lost connection or a file: one line; anything else, its traceback
        if isinstance(e, BrokenPipeError):
            quiet_pipe()
        line = lost_line(obj, e) or file_line(e)
        if line is None:
            raise
        _write(sys.stderr, f"Error: {line}\n")
        return 1
    _write(sys.stdout, out)
    for line in notice_lines(obj._ledger):
        _write(sys.stderr, line + "\n")
    return 0


def answer(obj, command: str, given: dict[str, str], flags: frozenset[str]) -> str:
    """What the command prints (a file's command: the line it says once the file is written), as its click command."""
    as_of, as_json = given.get("as-of"), "json" in flags
    if command in ("log", "export"):
        from . import logtext

        if command == "export":
            from pathlib import Path

            return logtext.export(obj, given["since"], Path(given["file"]), as_json)
        last = int(given["last"]) if "last" in given else None
        logtext.log(obj, as_of, last, as_json, lambda text: _write(sys.stdout, text))  # written as it comes
        return ""
    if command == "head":
        from cgledger.ledger.read.answers import dumps

        fingerprint = head_fingerprint(obj, as_of)
        return (dumps(head_data(fingerprint)) if as_json else fingerprint) + "\n"
    if command in ("status", "step", "date"):
        from . import statustext

        return (statustext.date if command == "date" else statustext.status)(obj, as_of, as_json)
    from . import readtext

    if command == "final":
        return readtext.final(obj, as_json)
    if command == "history":
        return readtext.history(obj, as_of, as_json)
    if command == "dice-stats":
        return readtext.dice_stats(obj, given.get("side"), as_of, as_json)
    if command == "areas":
        return readtext.areas(obj, given["group"], as_of, as_json)
    if command == "map":
        return readtext.map_file(obj, given["group"], given["svg"], as_of)
    if command == "report":
        return readtext.report(obj, given["html"], as_of)
    read = readtext.roster if command == "roster" else readtext.rg_record
    return read(obj, given["side"], as_of, as_json, "csv" in flags)


def _write(stream, text: str) -> None:
    """`text` as it is (its own line ends), as click.echo(text, nl=False) writes it."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:  # `cgledger status | head -1`: the reader has all it wanted
        from .context import quiet_pipe

        quiet_pipe()
    except UnicodeEncodeError:  # a stream whose encoding cannot say a name (PYTHONIOENCODING=ascii): as click says it
        import click

        click.echo(text, err=stream is sys.stderr, nl=False)


def lean_msgspec() -> None:
    """msgspec imported without `typing_extensions` (which brings `inspect`, `ast`, `dis` and `tokenize`: ~7 ms of a
    read's start). msgspec takes it only if it is there, for type hints that Python 3.11's own
    `typing` resolves alike (msgspec/_utils.py: `try: from typing_extensions import ...; except Exception: from typing
    import ...`). Nothing else is changed: a later import of typing_extensions (a write's libraries) finds it as
    ever."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment] - an import of it raises ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get("typing_extensions", "") is None:
            del sys.modules["typing_extensions"]


def _end(code: int) -> None:
    """The process ends as sys.exit ends it, less freeing what it read (reading.one_shot): stdout and stderr flushed,
    the exit handlers run (context._close_all closes the connections), then os._exit."""
    import atexit

    atexit._run_exitfuncs()  # noqa: SLF001 - what sys.exit would run, in its order
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main() -> None:
    """The `cgledger` console script."""
    parsed = parse(sys.argv[1:])
    if parsed is not None:
        lean_msgspec()
        from cgledger.ledger.store.reading import one_shot

        one_shot()
        _end(run(*parsed))
    from .app import CONSOLE, main as group

    try:
        group(obj=CONSOLE)
    except SystemExit as e:
        from cgledger.ledger.store.reading import is_one_shot

        if is_one_shot() and (e.code is None or isinstance(e.code, int)):
            _end(e.code or 0)
        raise


if __name__ == "__main__":
    main()
