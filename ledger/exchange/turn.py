"""The email turn: one command each way. `send` writes what the other side has not yet received, with
no fingerprint typed; `receive` imports the other side's bundle, carries out what this side's ledger owes (answers
to the other side's fair rolls, its own Secret rolls whose answers came, its chit revealed) and tells the player
what happened since his last turn: the other side's acts, the results of his own rolls (Secret ones to him alone),
what his ledger did for him, and what is now due from him.

Which events the other side holds is read off the log itself: once sides hold keys every event names its author,
and email play is strict turn-taking (a bundle that forks the log is refused), so the other side had every event
up to the last one it authored. A bundle that repeats events the receiver holds imports only the new ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BadInput

RULE = "cgledger email turn"  # no ASL rule says how a campaign travels by email: docs/guide/email.md does


def other_side(sides, me: str) -> str:
    return next(s for s in sides if s != me)


def acknowledged(history: list, other: str):
    """The last event the other side authored (it had every event up to it), or None if it authored none."""
    return next((e for e in reversed(history) if getattr(e, "author", "") == other), None)


def since(history: list, other: str) -> str:
    """The fingerprint `export --since` takes for what the other side holds."""
    last = acknowledged(history, other)
    return f"{last.version}:{last.digest[:16]}" if last is not None else "0"


def outbox_name(folder: Path, campaign: str, cg_date: str, side: str, to: int) -> Path:
    """`<campaign>-<CG Date>-<side>-<last event>.cgl.json`: sorts in the order the turns were played."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{campaign}-{cg_date}-{side}").strip("-")
    return folder / f"{safe}-{to:06d}.cgl.json"


def inbox_files(folder: Path) -> list[Path]:
    """Every bundle in the inbox folder, oldest first (by the event number in the name, then by time)."""
    if not folder.is_dir():
        raise BadInput(f"no inbox folder {folder}", RULE)
    return sorted((p for p in folder.iterdir() if p.is_file() and p.name.endswith(".json")),
                  key=lambda p: (p.stat().st_mtime, p.name))


@dataclass
class Received:
    """What one `receive` brought and did, for the player who received it."""

    campaign: str
    me: str
    imported: list = field(default_factory=list)  # the other side's events new here (Logged)
    duties: list = field(default_factory=list)  # what this side's ledger recorded for it afterwards (Logged)
    results: list = field(default_factory=list)  # (version, DiceRolled) of this side's own rolls made now
    head: str = ""
    files: list = field(default_factory=list)  # the bundles read (an inbox may hold several)


def own_results(events: list, opened: dict, me: str) -> list:
    """This side's rolls among these events: its open fair rolls made by the other side's answer, and its Secret
    rolls made by its own ledger (opened with its key)."""
    from ..domain.events import DiceRolled, SecretRollMade

    out = []
    for event in events:
        fact = event.fact
        if isinstance(fact, DiceRolled) and fact.side == me:
            out.append((event.version, fact))
        elif isinstance(fact, SecretRollMade) and fact.side == me \
                and isinstance(opened.get(event.version), DiceRolled):  # not one made void: no dice to show
            out.append((event.version, opened[event.version]))
    return out


# ---- whose turn it is on this machine -------------------------------------------------------------------------
# Strict turn-taking, kept by this machine beside the heads it has seen (ledger/trust/seen.py): a side that mailed its
# turn records nothing more until it has read the other side's reply, since the other side's ledger extends the log
# it was sent (its answers, its acts) and anything recorded here meanwhile would fork it. The record is this
# machine's own, never the log's: a copied file carries no turn, and nothing in it is trusted beyond this guard.
def _turns_file() -> Path:
    from ..trust import machine

    return machine.state_dir() / "turns.json"


def _turns() -> dict:
    from ..trust import machine

    return machine.read_json(_turns_file())


def _keep(key: str, entry: dict) -> None:
    from ..trust import machine

    data = _turns()
    data[key] = entry
    machine.write_json(_turns_file(), data)


def mailed(where: str, key: str) -> int | None:
    """The last event of the turn this machine mailed and whose reply it has not read yet, or None."""
    entry = _turns().get(f"{where}#{key}")
    if isinstance(entry, dict) and isinstance(entry.get("mailed"), int):
        return entry["mailed"]
    return None


def reply_owed(where: str, key: str) -> bool:
    """This machine has read the other side's turn since it last mailed one: the turn is its to mail back."""
    entry = _turns().get(f"{where}#{key}")
    return isinstance(entry, dict) and entry.get("read") is True


def turn_mailed(where: str, key: str, version: int) -> None:
    if where:
        _keep(f"{where}#{key}", {"mailed": version})


def turn_read(where: str, key: str) -> None:
    if where:
        _keep(f"{where}#{key}", {"read": True})


def waiting_text(version: int) -> str:
    return (f"you mailed your turn (up to event {version}) and have not read the other side's reply: his ledger "
            "extends the log you sent, so nothing more is recorded here until you `cgledger receive` his bundle "
            "(if he has nothing to do, his `cgledger send` mails the turn back)")
