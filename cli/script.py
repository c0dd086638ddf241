from __future__ import annotations

import shlex
from pathlib import Path

import click

from .app import LedgerContext, common, forget, main


def _fixtures() -> Path:
    """fixtures/, installed as cgledger.fixtures (the checkout's own folder under an editable install)."""
    import cgledger.fixtures

    return Path(next(iter(cgledger.fixtures.__path__)))


SAMPLE = _fixtures() / "kgp-cg1-sample.cgl"
SAMPLE_NAME = "KGP CG I sample"


def words(line: str) -> list[str]:
    """A command line's words; a word starting with '#' starts a comment (so `--rg I2#1` is kept)."""
    if line.lstrip().startswith("#"):
        return []
    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    tokens = []
    for token in iter(lexer.get_token, lexer.eof):  # read lazily: a comment's "19 AM's" is never parsed as a quote
        if token.startswith("#"):
            break
        tokens.append(token)
    return tokens


def run_script(obj: LedgerContext, path: Path, echo: bool = True) -> int:
    """Runs each line of a `.cgl` file as a cgledger command against the same database.
    Stops at the first refused line, naming it."""
    prefix = (["--db", obj.db] if obj.db else []) + (["--campaign", obj.campaign] if obj.campaign else [])
    prefix += ["--seed", obj.seed] if obj.seed is not None else []
    count = 0
    here = shlex.quote(str(path.resolve().parent))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise click.ClickException(f"{path.name} is not UTF-8 text: byte {e.object[e.start]:#04x} at offset "
                                   f"{e.start}") from None
    for number, line in enumerate(text.splitlines(), 1):
        args = words(line.replace("$HERE", here))
        if not args:
            continue
        if echo:
            click.echo(f"$ cgledger {' '.join(shlex.quote(a) for a in args)}")
        try:  # each line its own command id, derived from the script's: a re-run line is recorded at most once
            main.main(args=prefix + ["--command-id", f"{obj.command_id}:{number}"] + args, prog_name="cgledger",
                      standalone_mode=False)
        except click.ClickException as e:
            raise click.ClickException(f"{path.name} line {number}: {e.format_message()}") from None
        count += 1
    return count


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--quiet", is_flag=True, help="Do not echo each command.")
@common
def script(obj, path: Path, quiet: bool) -> None:
    """Run a file of cgledger commands (one per line, # comments): enter a session from notes."""
    count = run_script(obj, path, echo=not quiet)
    click.echo(f"{count} commands from {path.name} recorded")


@main.command()
@click.option("--sample", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=SAMPLE,
              show_default="the shipped KGP CG I sample, fixtures/kgp-cg1-sample.cgl",
              help="Script of the sample campaign.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("sample-report.html"), show_default=True, help="Where to write the HTML report.")
@common
def demo(obj, sample: Path, report_file: Path) -> None:
    """Replay the shipped sample campaign into a fresh ledger, print both rosters, write the report."""
    from cgledger.ledger.store.database import is_postgres, resolve_db

    if obj.db and is_postgres(obj.db):
        raise click.ClickException("demo builds its sample ledger in a SQLite file: pass --db FILE")
    db = Path(obj.db or "sample-campaign.db")
    if db.exists():
        names = obj.__class__(str(db), None, None).ledger().store.campaign_names()
        if names != [SAMPLE_NAME]:
            raise click.ClickException(f"{db} holds other campaigns ({', '.join(names) or 'none'}): demo replaces only "
                                       "its own sample ledger; pass --db NEW_FILE")
        forget(str(db))
        import gc

        gc.collect()  # the old ledger's connections close before its files go
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    obj.db, obj._ledger = str(db), None
    count = run_script(obj, sample, echo=False)
    click.echo(f"sample campaign replayed into {resolve_db(obj.db)}: {count} commands from {sample.name}")
    for command in (["roster", "--side", "german"], ["roster", "--side", "us"], ["rg-record", "--side", "german"],
                    ["history"], ["report", "--html", str(report_file)], ["audit"], ["head"]):
        click.echo(f"\n$ cgledger --db {db} {' '.join(command)}")
        main.main(args=["--db", str(db), *command], prog_name="cgledger", standalone_mode=False)
