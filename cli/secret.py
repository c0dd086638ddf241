"""Secret rolls kept secret: `keys init` (and the key agent: `keys unlock`, `lock`, `agent`) and `reveal`."""

from __future__ import annotations

import os

import click

from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import HiddenFortificationRevealed, RollDeclarationRevealed, SecretRollRevealed
from cgledger.ledger.domain.wording import item_name

from cgledger.ledger import lazy

from . import complete
from .app import common, emit_json, json_option, main

rolling = lazy.module("cgledger.ledger.verbs.rolling")
keyverbs = lazy.module("cgledger.ledger.verbs.keys")
cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.group()
def keys() -> None:
    """Your side's key: signs its events and seals its Secret rolls (set up once per side). `keys unlock` keeps it
    for a session, so signed commands skip stretching your passphrase again."""


@keys.command(name="init")
@click.option("--side", shell_complete=complete.sides, required=True)
@click.option("--dice", default="", metavar="MODE",
              help="The campaign's dice mode, agreed to: needed where the dice are not fair (`fair-dice mode`).")
@common
def keys_init(obj, side: str, dice: str) -> None:
    """Set up SIDE's key from your passphrase (CGLEDGER_PASSPHRASE, or asked) or key file (--key-file): at least
    12 characters and about 50 bits. From then on that side's events are signed (Ed25519) and its Secret rolls
    sealed: the other side sees only that they were made. Where the campaign's dice are not fair (`fair-dice mode`),
    each side's key agrees to them with --dice."""
    material = obj.key_material()
    if material is None:
        if not click.get_text_stream("stdin").isatty():
            raise LedgerError("give a passphrase (CGLEDGER_PASSPHRASE) or a key file (--key-file)")
        material = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True).encode()
    fact = keyverbs.register_key(obj.ledger(), obj.campaign, side, material, dice)
    from cgledger.ledger.trust.chain import key_fingerprint

    click.echo(f"the {obj.side_name(fact.side)} side's key is set up: its events are signed and its Secret rolls sealed from now on; "
               f"its fingerprint is {key_fingerprint(fact.public)} (read it out to your opponent)")


@keys.command(name="show")
@json_option
@common
def keys_show(obj, as_json: bool) -> None:
    """Each side's signing key and its fingerprint. Read yours out to your opponent (phone, chat) and check theirs:
    a key the other player set up in your side's name shows here."""
    rows = keyverbs.keys(obj.ledger(), obj.campaign)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("no side has a key yet: events are unsigned (`cgledger keys init --side SIDE`)")
    for row in rows:
        click.echo(f"{row['side']}: " + (f"signing key {row['fingerprint']}" if row["signs"] else
                                         "Secret-roll key only (no signing key)") + f" (event {row['event']})")


# ---- the key agent: a side's stretched key kept for a session -------------------------------
MAX_SECONDS = 7 * 24 * 3600


def seconds_of(text: str) -> int:
    """'4h', '30m', '1h30m', '45s', '2d' -> seconds (UsageError otherwise)."""
    import re

    found = re.fullmatch(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text.strip().lower())
    if not text.strip() or found is None:
        raise click.UsageError(f"--for {text!r}: give a time such as 30m, 4h, 1h30m or 1d")
    days, hours, minutes, secs = (int(g or 0) for g in found.groups())
    seconds = ((days * 24 + hours) * 60 + minutes) * 60 + secs
    if not 0 < seconds <= MAX_SECONDS:
        raise click.UsageError(f"--for {text!r}: between 1s and 7d")
    return seconds


def _until(wall: float) -> str:
    import time

    left = max(0, int(wall - time.time() + 0.5))
    span = f"{left // 3600}h{left % 3600 // 60:02d}m" if left >= 3600 else f"{left // 60}m{left % 60:02d}s"
    when = time.localtime(wall)
    day = "" if time.localtime().tm_yday == when.tm_yday else time.strftime("%a ", when)
    return f"until {day}{time.strftime('%H:%M:%S', when)} ({span} left)"


def _agent_folder():
    """The agent's folder, made private if new; a folder another user could reach is refused (one line)."""
    from cgledger.ledger.player import keyagent

    path = keyagent.socket_path()
    try:
        keyagent.check_folder(path.parent, make=True)
    except keyagent.Unsafe as e:
        raise LedgerError(f"{e}: the key agent is not started there (make it yours, mode 0700, or set "
                          "XDG_RUNTIME_DIR to a private folder)") from None
    except OSError as e:
        raise LedgerError(f"cannot make the key agent's folder {path.parent}: {e.strerror}") from None
    return path


@keys.command(name="unlock")
@click.option("--for", "duration", default="4h", show_default=True, metavar="TIME",
              help="How long the key agent keeps your key: 30m, 4h, 1h30m, 1d (at most 7d).")
@common
def keys_unlock(obj, duration: str) -> None:
    """Keep your side's key for a session (ssh-agent style): a small process holds it in memory, so each signed
    command skips the slow stretching of your passphrase. It serves the key only to a command given the same
    passphrase or key file, forgets it after --for or at `cgledger keys lock`, and writes nothing secret to disk."""
    from cgledger.ledger.player import keyagent

    seconds = seconds_of(duration)
    if os.name != "posix":
        raise LedgerError("the key agent needs Unix sockets (Linux, macOS): here every command stretches the key")
    material = obj.key_material()
    if material is None:
        import sys

        if not sys.stdin.isatty():
            raise LedgerError("give a passphrase (CGLEDGER_PASSPHRASE) or a key file (--key-file)")
        material = click.prompt("Passphrase", hide_input=True).encode()
        obj.material = material
    ledger = obj.ledger()
    campaign = ledger.campaign(obj.campaign)
    sides = ledger.rules_for(campaign).system.sides
    if not campaign.keys:
        raise LedgerError("no side has a key yet: set yours up first (`cgledger keys init --side SIDE`)")
    opened = ledger.keyring.opened_keys(campaign)
    if not opened:
        raise LedgerError(f"that passphrase or key file is not the key of any side of {campaign.name}: nothing kept")
    path = _agent_folder()
    message = {"op": "unlock", "owner": keyagent.owner(material), "seconds": seconds,
               "keys": [[keyagent.lookup(material, salt), key.decode()]  # the other sides' salts too: a command
                        for salt, key in ledger.keyring.stretched().items()]}  # finds its side without stretching
    try:
        answer = keyagent.request(message, timeout=2.0, path=path)
    except (OSError, ValueError, keyagent.Unsafe):  # none runs (or a stale socket): start one
        try:
            keyagent.start(path)
            answer = keyagent.request(message, timeout=2.0, path=path)
        except (OSError, ValueError, keyagent.Unsafe) as e:
            raise LedgerError(f"the key agent could not start: {e}") from None
    if "until" not in answer:
        raise LedgerError(f"the key agent refused: {answer.get('error', 'no reason given')}")
    names = " and ".join(f"the {sides.get(side, side)} side's" for side in opened)
    plural = len(opened) > 1
    click.echo(f"the key agent keeps {names} key{'s' if plural else ''} {_until(answer['until'])}: your signed "
               f"commands no longer stretch your passphrase; `cgledger keys lock` forgets {'them' if plural else 'it'} "
               "now")


@keys.command(name="lock")
def keys_lock() -> None:
    """Stop the key agent: it forgets every key it kept (`keys unlock` starts it again)."""
    from cgledger.ledger.player import keyagent

    path = keyagent.socket_path()
    try:
        keyagent.request({"op": "lock"}, timeout=2.0, path=path)
    except keyagent.Unsafe as e:
        raise LedgerError(f"{e}: not used") from None
    except (OSError, ValueError):
        if path.exists() or path.is_symlink():  # a stale socket (its agent was killed): removed
            try:
                path.unlink()
            except OSError:
                pass
        click.echo("no key agent runs: every signed command stretches your passphrase")
        return
    click.echo("the key agent forgot every key and stopped")


@keys.command(name="agent")
@json_option
def keys_agent(as_json: bool) -> None:
    """Whether the key agent runs (`keys unlock`): until when, how many keys it keeps, how often it served one."""
    from cgledger.ledger.player import keyagent

    path = keyagent.socket_path()
    try:
        state = keyagent.request({"op": "status"}, timeout=2.0, path=path)
    except keyagent.Unsafe as e:
        state = {"running": False, "problem": str(e)}
    except (OSError, ValueError):
        state = {"running": False}
    else:
        state = {"running": True, **state}
    state["socket"] = str(path)
    if as_json:
        emit_json(state)
        return
    if state.get("problem"):
        click.echo(f"the key agent is not used: {state['problem']}")
    elif not state["running"]:
        click.echo("no key agent runs: every signed command stretches your passphrase (`cgledger keys unlock`)")
    elif not state.get("until"):
        click.echo(f"the key agent runs (process {state['pid']}) but keeps no key")
    else:
        click.echo(f"the key agent keeps {state['keys']} key{'s' if state['keys'] != 1 else ''} "
                   f"{_until(state['until'])}; it has served a key {state['served']} time"
                   f"{'s' if state['served'] != 1 else ''} (process {state['pid']}, {state['socket']})")


def _voids(facts: list) -> tuple[list[int], set[int]]:
    """The Secret rolls a reveal made void, and those of them that only kept the count of a secret RG's follow-ups
    alike (8.619: a veiled declaration with no table, never a roll)."""
    revealed = [f for f in facts if isinstance(f, SecretRollRevealed) and not hasattr(f.fact, "dice")]
    counting = {f.declared for f in facts if isinstance(f, RollDeclarationRevealed) and not f.fact.table}
    return [f.roll for f in revealed], {f.roll for f in revealed if f.fact.declared in counting}


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
    facts = keyverbs.reveal(obj.ledger(), obj.campaign, side, roll, cause, searched)
    rolls = [f for f in facts if isinstance(f, SecretRollRevealed) and hasattr(f.fact, "dice")]
    void, kept = _voids(facts)
    places = [f for f in facts if isinstance(f, HiddenFortificationRevealed)]
    if as_json:
        emit_json([{"roll": f.roll, "table": f.fact.table, "dice": list(f.fact.dice), "final": f.fact.final,
                    "result": f.fact.result} for f in rolls]
                  + [{"roll": roll, "table": None, "dice": [], "final": None, "result": "void", "void": True,
                      "kept_count": roll in kept} for roll in void]
                  + [{"placed": f.placed, "item": f.fact.item, "side": f.fact.side, "hex": f.fact.hex,
                      "cause": f.cause or None} for f in places])
        return
    for f in rolls:
        click.echo(f"event {f.roll}: {f.fact.table} {f.fact.die} {','.join(map(str, f.fact.dice))} "
                   f"Final {f.fact.final}: {f.fact.result}")
    for roll in void:
        click.echo(f"event {roll}: no roll: it kept the count of the RG's follow-ups alike (RG bought in secret)"
                   if roll in kept
                   else f"event {roll}: made void, as its RG's strength called for no such roll")
    for f in places:
        why = {"entry": ": an enemy unit entered", "search": f": found by the search of event {f.search}"}
        click.echo(f"event {f.placed}: {obj.side_name(f.fact.side)} {item_name(f.fact.item)} in {f.fact.hex}"
                   f"{why.get(f.cause, '')}")


@main.group(name="fair-dice")
def fair_dice() -> None:
    """Dice nobody can choose or foresee: each side's chains, committed with its key (see docs/guide/fair-dice.md)."""


@fair_dice.command(name="commit")
@click.option("--side", shell_complete=complete.sides, required=True)
@common
def fair_commit(obj, side: str) -> None:
    """Commit to SIDE's fair-dice chains (done by `keys init`; for a side whose key is older)."""
    fact = keyverbs.fair_commit(obj.ledger(), obj.campaign, side)
    click.echo(f"the {obj.side_name(fact.side)} side committed to its fair-dice chains (roll {fact.roll_head[:16]}…, answer "
               f"{fact.answer_head[:16]}…, {fact.length} values each)")


@fair_dice.command(name="mode")
@click.argument("mode", type=click.Choice(["fair", "immediate"], case_sensitive=False))
@common
def fair_mode(obj, mode: str) -> None:
    """Choose the campaign's dice before any key is set up: fair (the default once both sides hold keys) or
    immediate (the rolling side's ledger rolls at once)."""
    fact, = obj.ledger().execute(obj.campaign, cmd.ChooseDiceMode(mode=mode))
    click.echo(f"the campaign's dice are {fact.mode} from now on")


@fair_dice.command(name="reveal")
@click.option("--side", shell_complete=complete.sides, required=True)
@common
def fair_reveal(obj, side: str) -> None:
    """(Logs of the first fair-dice protocol) publish SIDE's seed, so that `audit` proves its fair rolls."""
    fact = keyverbs.fair_reveal(obj.ledger(), obj.campaign, side)
    click.echo(f"the {obj.side_name(fact.side)} side's seed is revealed")


@main.command()
@json_option
@common
def answer(obj, as_json: bool) -> None:
    """Answer the other side's fair rolls waiting for your side's value, and make your own answered Secret rolls
    (any command run with your key does this first)."""
    from cgledger.ledger.domain.events import DiceRolled, RollAnswered, RollLapsed, SecretRollMade

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
        elif isinstance(fact, RollLapsed):
            rows.append({"lapsed": fact.declared, "side": fact.side})
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("nothing waits for your side")
    for row in rows:
        if "lapsed" in row:
            click.echo(f"the {obj.side_name(row['side'])} side's fair roll of event {row['lapsed']} lapses: its RG's "
                       "strength roll gave another result")
        elif "made" in row:
            on = f"on {row['made']}" if row["made"] else "for its RG bought in secret"
            click.echo(f"made the {obj.side_name(row['side'])} side's Secret fair roll {row['n']} {on} (sealed)")
        elif "table" in row:
            click.echo(f"answered event {row['answered']}: {row['table']} {obj.side_name(row['side'])} "
                       f"{','.join(map(str, row['dice']))} Final {row['final']}: {row['result']}")
        else:
            click.echo(f"answered the Secret fair roll of event {row['answered']}")
