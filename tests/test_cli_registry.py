"""The command line loads a command's module only when that command runs: `cli.COMMANDS` lists every command with
its module and short help, and `--help` and shell completion read it. It must say what the commands say."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from cgledger import cli
from cgledger.cli import COMMANDS, main

ROOT = Path(__file__).parent.parent


def all_commands() -> dict[str, click.Command]:
    """Every command, found by importing every module of cli/ (not through the registry)."""
    from cgledger.cli import web

    for package, prefix in ((cli, "cgledger.cli."), (web, "cgledger.cli.web.")):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(prefix + module.name)
    return dict(main.commands)


def test_every_command_is_registered_with_its_module_and_its_own_short_help():
    commands = all_commands()
    assert sorted(COMMANDS) == sorted(commands)
    for name, command in commands.items():
        module, short_help = COMMANDS[name]
        assert command.callback.__module__ == f"cgledger.cli.{module}", name
        assert short_help == command.get_short_help_str(limit=10**6), f"{name}: update cli/__init__.py COMMANDS"


def test_help_lists_every_command_without_importing_any_command_module():
    code = ("import sys; from cgledger.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "loaded = sorted(m for m in sys.modules if m.startswith(('cgledger.cli.', 'cgledger.ledger.', 'cgledger.projections.', 'eventsourcing')) "
            "and m not in ('cgledger.cli.app', 'cgledger.cli.context', 'cgledger.cli.complete', 'cgledger.ledger.errors'))\n"
            "print('LOADED', loaded)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "COLUMNS": "80"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout
    listed = done.stdout.split("Commands:")[1]
    for name in COMMANDS:
        assert f"\n  {name} " in listed


def test_help_lists_the_whole_first_sentence_of_each_command_at_any_width():
    """Never cut off with '...' (click's own listing cuts at the terminal's width): wrapped under the command."""
    for width in (60, 80, 200):
        ctx = click.Context(main, terminal_width=width, max_content_width=width)
        ours = ctx.make_formatter()
        main.format_commands(ctx, ours)
        listing = ours.getvalue()
        assert "..." not in listing
        flat = " ".join(listing.split()).replace("- ", "-")  # textwrap may break after a hyphen
        for name, (_module, short_help) in COMMANDS.items():
            assert f"{name} {short_help}" in flat, (width, name)
            assert short_help.endswith((".", ")")) and not short_help.endswith("e.g."), name


def test_shell_completion_offers_the_commands_with_their_help():
    done = subprocess.run([sys.executable, "-c", "from cgledger.cli import main; main(prog_name='cgledger')"],
                          capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "_CGLEDGER_COMPLETE": "zsh_complete", "COMP_WORDS": "cgledger ro",
                                         "COMP_CWORD": "1"}, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[:2] == ["plain", "roll"] and lines[2].startswith("Roll on TABLE")
    assert lines[3:5] == ["plain", "roster"] and lines[5].startswith("The side's CG Roster")


def test_head_of_a_sqlite_file_is_read_without_the_event_sourcing_library(tmp_path):
    """`head` (the PBEM check) reads one row with sqlite3: same fingerprint, and an edit still shows (test_trust)."""
    db = str(tmp_path / "c.db")
    made = CliRunner().invoke(main, ["--db", db, "new", "Quick", "--system", "kgp", "--cg", "I"])
    assert made.exit_code == 0, made.output
    from cgledger.ledger.application import open_ledger

    expected = open_ledger(db).verification.head(None)
    code = ("import sys; from cgledger.cli import main\n"
            f"main(['--db', {db!r}, 'head'], standalone_mode=False)\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith(('eventsourcing', 'cgledger.ledger.rules'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [expected, "LOADED []"]


def test_head_reads_one_row_without_the_event_sourcing_library_on_either_backend(make_db):
    """On PostgreSQL too (its reads within 1.3x SQLite's): one query with psycopg, same fingerprint."""
    db = str(make_db())
    made = CliRunner().invoke(main, ["--db", db, "new", "Quick", "--system", "kgp", "--cg", "I"])
    assert made.exit_code == 0, made.output
    from cgledger.ledger.application import open_ledger

    expected = open_ledger(db).verification.head(None)
    code = ("import sys; from cgledger.cli import main\n"
            f"main(['--db', {db!r}, 'head'], standalone_mode=False)\n"
            f"main(['--db', {db!r}, '--campaign', 'Quick', 'head'], standalone_mode=False)\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith(('eventsourcing', 'cgledger.ledger.rules'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [expected, expected, "LOADED []"]
    wrong = CliRunner().invoke(main, ["--db", db, "--campaign", "Slow", "head"])
    assert wrong.exit_code == 1 and "no campaign 'Slow' in this database" in wrong.output
