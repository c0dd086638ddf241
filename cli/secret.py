"""Secret rolls kept secret: `keys init` and `reveal`."""

from __future__ import annotations

import click

from cgledger.ledger.errors import LedgerError
from cgledger.ledger.events import HiddenFortificationRevealed, SecretRollRevealed

from . import complete
from .app import common, emit_json, json_option, main


@main.group()
def keys() -> None:
    """Your side's key: signs its events and seals its Secret rolls (set up once per side)."""


@keys.command(name="init")
@click.option("--side", shell_complete=complete.sides, required=True)
@common
def keys_init(obj, side: str) -> None:
    """Set up SIDE's key from your passphrase (CGLEDGER_PASSPHRASE, or asked) or key file (--key-file): at least
    12 characters and about 50 bits. From then on that side's events are signed (Ed25519) and its Secret rolls
    sealed: the other side sees only that they were made."""
    material = obj.key_material()
    if material is None:
        if not click.get_text_stream("stdin").isatty():
            raise LedgerError("give a passphrase (CGLEDGER_PASSPHRASE) or a key file (--key-file)")
        material = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True).encode()
    fact = obj.ledger().register_key(obj.campaign, side, material)
    from cgledger.ledger.chain import key_fingerprint

    click.echo(f"the {fact.side} side's key is set up: its events are signed and its Secret rolls sealed from now on; "
               f"its fingerprint is {key_fingerprint(fact.public)} (read it out to your opponent)")


@keys.command(name="show")
@json_option
@common
def keys_show(obj, as_json: bool) -> None:
    """Each side's signing key and its fingerprint. Read yours out to your opponent (phone, chat) and check theirs:
    a key the other player set up in your side's name shows here."""
    rows = obj.ledger().keys(obj.campaign)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("no side has a key yet: events are unsigned (`cgledger keys init --side SIDE`)")
    for row in rows:
        click.echo(f"{row['side']}: " + (f"signing key {row['fingerprint']}" if row["signs"] else
                                         "Secret-roll key only (no signing key)") + f" (event {row['event']})")


@main.command()
@click.argument("roll", type=int, required=False, metavar="[EVENT]")
@click.option("--side", shell_complete=complete.sides, default=None, help="Whose (default: the event's side, or the side of the passphrase given).")
@click.option("--all", "reveal_all", is_flag=True, help="Every unrevealed Secret roll and hidden fortification of the side.")
@click.option("--entered", is_flag=True, help="A hidden fortification: an enemy unit entered its hex (CGS 7.4.4).")
@click.option("--searched", type=int, default=0, metavar="ROLL",
              help="A hidden fortification found by the enemy's search: its 7.4.5 roll (CGS 7.4.4-7.4.5).")
@json_option
@common
def reveal(obj, roll: int | None, side: str | None, reveal_all: bool, entered: bool, searched: int,
           as_json: bool) -> None:
    """Publish a Secret roll (its event number) or a hidden fortification (its placement event), or --all of a
    side's: the roll or the hex, and the salt; `audit` then checks each against its commitment and re-decides it."""
    if (roll is None) == (not reveal_all):
        raise click.UsageError("give EVENT or --all")
    if entered and searched:
        raise click.UsageError("--entered or --searched, not both")
    cause = "entry" if entered else "search" if searched else ""
    facts = obj.ledger().reveal(obj.campaign, side, roll, cause, searched)
    rolls = [f for f in facts if isinstance(f, SecretRollRevealed)]
    places = [f for f in facts if isinstance(f, HiddenFortificationRevealed)]
    if as_json:
        emit_json([{"roll": f.roll, "table": f.fact.table, "dice": list(f.fact.dice), "final": f.fact.final,
                    "result": f.fact.result} for f in rolls]
                  + [{"placed": f.placed, "item": f.fact.item, "side": f.fact.side, "hex": f.fact.hex,
                      "cause": f.cause or None} for f in places])
        return
    for f in rolls:
        click.echo(f"event {f.roll}: {f.fact.table} {f.fact.die} {','.join(map(str, f.fact.dice))} "
                   f"Final {f.fact.final}: {f.fact.result}")
    for f in places:
        why = {"entry": ": an enemy unit entered", "search": f": found by the search of event {f.search}"}
        click.echo(f"event {f.placed}: {f.fact.side} {f.fact.item} in {f.fact.hex}{why.get(f.cause, '')}")


@main.group(name="fair-dice")
def fair_dice() -> None:
    """Dice nobody can choose or foresee: each side's chains, committed with its key (see README)."""


@fair_dice.command(name="commit")
@click.option("--side", shell_complete=complete.sides, required=True)
@common
def fair_commit(obj, side: str) -> None:
    """Commit to SIDE's fair-dice chains (done by `keys init`; for a side whose key is older)."""
    fact = obj.ledger().fair_commit(obj.campaign, side)
    click.echo(f"the {fact.side} side committed to its fair-dice chains (roll {fact.roll_head[:16]}…, answer "
               f"{fact.answer_head[:16]}…, {fact.length} values each)")


@fair_dice.command(name="mode")
@click.argument("mode", type=click.Choice(["fair", "immediate"], case_sensitive=False))
@common
def fair_mode(obj, mode: str) -> None:
    """Choose the campaign's dice before any key is set up: fair (the default once both sides hold keys) or
    immediate (the rolling side's ledger rolls at once)."""
    fact = obj.ledger().dice_mode(obj.campaign, mode)
    click.echo(f"the campaign's dice are {fact.mode} from now on")


@fair_dice.command(name="reveal")
@click.option("--side", shell_complete=complete.sides, required=True)
@common
def fair_reveal(obj, side: str) -> None:
    """(Logs of the first fair-dice protocol) publish SIDE's seed, so that `audit` proves its fair rolls."""
    fact = obj.ledger().fair_reveal(obj.campaign, side)
    click.echo(f"the {fact.side} side's seed is revealed")


@main.command()
@json_option
@common
def answer(obj, as_json: bool) -> None:
    """Answer the other side's fair rolls waiting for your side's value, and make your own answered Secret rolls
    (any command run with your key does this first)."""
    from cgledger.ledger.events import DiceRolled, RollAnswered, SecretRollMade

    facts = obj.ledger().answer(obj.campaign)
    rows = []
    for fact in facts:
        if isinstance(fact, RollAnswered):
            rows.append({"answered": fact.declared, "n": fact.n})
        elif isinstance(fact, DiceRolled):
            rows[-1].update({"table": fact.table, "side": fact.side, "dice": list(fact.dice), "final": fact.final,
                             "result": fact.result})
        elif isinstance(fact, SecretRollMade):
            rows.append({"made": fact.table, "side": fact.side, "n": fact.fair})
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("nothing waits for your side")
    for row in rows:
        if "made" in row:
            click.echo(f"made the {row['side']} side's Secret fair roll {row['n']} on {row['made']} (sealed)")
        elif "table" in row:
            click.echo(f"answered event {row['answered']}: {row['table']} {row['side']} "
                       f"{','.join(map(str, row['dice']))} Final {row['final']}: {row['result']}")
        else:
            click.echo(f"answered the Secret fair roll of event {row['answered']}")
