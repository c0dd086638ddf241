"""The reference pages of the docs, generated from the code: every command with its options (from click, as
`cgledger COMMAND --help` prints it) and every event the log holds (from the msgspec Structs of
ledger/domain/events.py) and every command an action keeps (ledger/domain/commands.py). `python tools/reference.py` writes them; tests/test_docs.py checks they are current."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

DOCS = Path(__file__).resolve().parent.parent / "docs" / "reference"


def commands_page() -> str:
    from cgledger.cli import COMMANDS
    from cgledger.cli.app import main

    lines = ["# Commands", "",
             "Every command as `cgledger COMMAND --help` prints it. The names, options and `--json` keys of the commands",
             "listed in the [CLI contract](contract.md) are public: players' scripts depend on them.", ""]
    ctx = click.Context(main, info_name="cgledger", terminal_width=100, max_content_width=100)
    for name in sorted(COMMANDS):
        command = main.get_command(ctx, name)
        sub = click.Context(command, info_name=name, parent=ctx, terminal_width=100, max_content_width=100)
        lines += [f"## {name}", "", "```text", command.get_help(sub).rstrip(), "```", ""]
    return "\n".join(lines)


def _type_name(annotation) -> str:
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    return text.replace("typing.", "").replace("cgledger.ledger.domain.events.", "")


def events_page() -> str:
    from cgledger.ledger.domain import events

    lines = ["# Events", "",
             "Every fact the log holds: small frozen msgspec Structs named in the past tense, each stored under its tag",
             "(ledger/domain/events.py). A field added later always has a default, so older logs still read and their",
             "digests still check (docs/architecture.md, digest forms).", ""]
    for cls, tag in sorted(events.TAGS.items(), key=lambda item: item[1]):
        doc = " ".join((cls.__dict__.get("__doc__") or "").split())  # its own docstring, not Struct's
        lines += [f"## {cls.__name__}", "", f"Tag `{tag}`." + (f" {doc}" if doc else ""), "",
                  "| field | type | default |", "| --- | --- | --- |"]
        hints = msgspec.structs.fields(cls)
        for field in hints:
            default = "" if field.default is msgspec.NODEFAULT and field.default_factory is msgspec.NODEFAULT else (
                repr(field.default) if field.default is not msgspec.NODEFAULT else repr(field.default_factory()))
            kind = _type_name(field.type).replace("|", "\\|")
            lines.append(f"| `{field.name}` | `{kind}` | {f'`{default}`' if default else ''} |")
        lines.append("")
    return "\n".join(lines)


def _fields_table(cls) -> list[str]:
    lines = ["| field | type | default |", "| --- | --- | --- |"]
    for field in msgspec.structs.fields(cls):
        default = "" if field.default is msgspec.NODEFAULT and field.default_factory is msgspec.NODEFAULT else (
            repr(field.default) if field.default is not msgspec.NODEFAULT else repr(field.default_factory()))
        kind = _type_name(field.type).replace("cgledger.ledger.domain.commands.", "").replace("|", "\\|")
        lines.append(f"| `{field.name}` | `{kind}` | {f'`{default}`' if default else ''} |")
    return lines


def requests_page() -> str:
    from cgledger.ledger.domain import commands

    lines = ["# Stored commands", "",
             "The command that made an action, kept with its first event (envelope form 3) and covered by its digest",
             "and signature: one frozen msgspec Struct per verb, tagged `verb` (ledger/domain/commands.py). The audit",
             "and `import` decide it again on the state before the action and compare every fact the action holds",
             "(docs/architecture.md). Acts whose stored facts cannot show their command in the open (a Secret roll, a",
             "sealed purchase or placement, a reveal of the fair-dice protocol, a VASL import) store none yet: their",
             "facts are decided one by one from what each records.", ""]
    for cls in sorted(commands.VERBS, key=lambda c: c.__name__):
        doc = " ".join((cls.__dict__.get("__doc__") or "").split())
        table = _fields_table(cls) if cls.__struct_fields__ else ["No fields: the command is the verb itself."]
        lines += [f"## {cls.__name__}", "", f"Tag `{cls.__name__}`." + (f" {doc}" if doc else ""), "", *table, ""]
    return "\n".join(lines)


PAGES = {"commands.md": commands_page, "events.md": events_page, "requests.md": requests_page}


def main(check: bool = False) -> int:
    stale = []
    for name, make in PAGES.items():
        text = make() + "\n"
        path = DOCS / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            DOCS.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"docs/reference/{', '.join(stale)} not current: run python tools/reference.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv))
