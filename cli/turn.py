"""The email turn: `send` writes what your opponent has not yet received, `receive` reads his bundle and tells you
what happened since your last turn (ledger/exchange/turn.py)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main
from .logtext import drm_words
from .statustext import act_where, rg_ref

reads = lazy.module("cgledger.ledger.read.player")


def _dice(fact) -> str:
    return ",".join(map(str, fact.dice))


def _result_line(fact, status: dict) -> str:
    drms = "".join(f" {d.value:+d} {drm_words(d.key, d.input)}" for d in fact.drms)
    secret = "Secret " if fact.secret else ""
    purpose = f" for '{fact.purpose}'" if fact.purpose else ""
    ref = rg_ref(status, fact.rg)
    rg = f" for RG {ref}" if ref else ""
    return (f"your {secret}roll on {fact.table}{purpose}{rg}: {fact.die} {_dice(fact)}, Original "
            f"{fact.original}{drms}, Final {fact.final}: {fact.result}")


@main.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), metavar="[FILE]", required=False)
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path), envvar="CGLEDGER_OUTBOX",
              help="Write the bundle into this folder (a synced folder is a mailbox too); default the current one.")
@click.option("--side", metavar="SIDE", help="Your side, when you give no passphrase or key file.")
@json_option
@common
def send(obj, path: Path | None, outbox: Path | None, side: str | None, as_json: bool) -> None:
    """Write everything your opponent has not yet received to FILE, to mail him: no fingerprint to type."""
    from cgledger.ledger.exchange import mail
    from cgledger.projections.log import log_rows
    from .logtext import describe, sides_in

    ledger = obj.ledger()
    if outbox is not None:
        outbox.mkdir(parents=True, exist_ok=True)
    bundle, me, written = mail.send_turn(ledger, obj.campaign, side, path, outbox)
    if bundle is None:
        head = ledger.verification.head(obj.campaign)
        if as_json:
            emit_json({"file": None, "campaign": ledger.resolve_name(obj.campaign), "events": 0, "from": None,
                       "to": None, "head": head})
            return
        click.echo(f"nothing to send: your opponent has every event already (head {head})")
        return
    if [type(e.fact).__name__ for e in bundle.events] == ["TurnReturned"] and not as_json:  # the turn mailed back
        click.echo(f"nothing new to record, but your opponent waits for his turn back: {written} holds your signed "
                   f"receipt of his (up to event {bundle.since}); mail it to him")
        return
    if not bundle.events:  # his turn was only his receipt of yours: it goes back as it came, with the head
        head = ledger.verification.head(bundle.campaign)
        if as_json:
            emit_json({"file": str(written), "campaign": bundle.campaign, "events": 0, "from": None, "to": None,
                       "head": head})
            return
        click.echo(f"nothing new to send, but your opponent waits for his turn back: {written} says you read his "
                   f"(head {head}); mail it to him")
        return
    first, last = bundle.since + 1, bundle.events[-1].version
    if as_json:
        emit_json({"file": str(written), "campaign": bundle.campaign, "events": len(bundle.events), "from": first,
                   "to": last, "head": ledger.verification.head(bundle.campaign)})
        return
    count = f"1 event ({first})" if first == last else f"{len(bundle.events)} events ({first}-{last})"
    click.echo(f"{count} of '{bundle.campaign}' written to {written}: mail it to your opponent")
    rows = log_rows(ledger.history(bundle.campaign))
    sides = sides_in(rows)
    for row in rows[first - 1:]:
        click.echo(f"  {row['version']:>5}  {describe(row, sides)}")


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="[FILE]",
                required=False)
@click.option("--inbox", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=lambda: os.environ.get("CGLEDGER_INBOX"),
              help="Read every new bundle in this folder, oldest first (bundles held already add nothing).")
@json_option
@common
def receive(obj, path: Path | None, inbox: Path | None, as_json: bool) -> None:
    """Read your opponent's bundle (or your inbox), carry out what your ledger owes, and say what happened."""
    from cgledger.ledger.errors import BadInput
    from cgledger.ledger.exchange import mail
    from cgledger.ledger.exchange.pbem import plan_import, read_bundle
    from cgledger.ledger.store.database import holds_ledger, resolve_db
    from cgledger.ledger.exchange.turn import RULE, inbox_files
    from cgledger.projections.log import log_rows
    from .logtext import describe, sides_in

    if path is None and inbox is None:
        raise BadInput("give the bundle FILE your opponent mailed, or --inbox FOLDER", RULE)
    files = [path] if path is not None else inbox_files(inbox)
    received = None
    for file in files:
        checked = None
        if not holds_ledger(resolve_db(obj.db)):  # a new machine: the whole bundle checked before a ledger is made
            bundle = read_bundle(file)
            mail.joinable(bundle, file)
            checked = (bundle, plan_import(bundle, []))
        received = mail.receive_turn(obj.ledger(create=True), file, checked, received)
    if received is None:
        raise BadInput(f"no bundle in the inbox {inbox}", RULE)
    ledger = obj.ledger()
    ledger.made_now.clear()  # shown below with the other results
    status = reads.status(ledger, received.campaign)
    rows = {r["version"]: r for r in log_rows(ledger.history(received.campaign))}
    sides = sides_in(rows.values())
    acts = [{"event": e.version, "side": e.author or None, "text": describe(rows[e.version], sides)}
            for e in received.imported]
    duties = [{"event": e.version, "text": describe(rows[e.version], sides)} for e in received.duties]
    results = [{"event": v, "table": f.table, "side": f.side, "dice": list(f.dice), "final": f.final,
                "result": f.result, "secret": f.secret,
                "drms": [{"key": d.key, "name": d.name, "value": d.value, "kind": d.kind, "input": d.input}
                         for d in f.drms]} for v, f in received.results]
    if as_json:
        emit_json({"campaign": received.campaign, "imported": len(received.imported), "head": received.head,
                   "acts": acts, "results": results, "duties": duties, "due": status["needs"],
                   "waiting": status["waiting"], "proposal": status.get("proposal"), "files": received.files,
                   "unwitnessed": status.get("unwitnessed", [])})
        return
    if not received.imported:
        click.echo(f"nothing new: '{received.campaign}' here holds every event of {', '.join(received.files)}")
    else:
        count = len(received.imported)
        click.echo(f"{count} event{'' if count == 1 else 's'} received into '{received.campaign}'; head {received.head}")
    for line in _grouped(_acts_said(acts, status["sides"])):
        click.echo(line)
    if duties:
        click.echo("your ledger then recorded:")
        for line in _grouped([(duty["event"], duty["text"]) for duty in duties]):
            click.echo(line)
    for _version, fact in received.results:
        click.echo(_result_line(fact, status) + ("  (Secret: only you see this)" if fact.secret else ""))
    for line in due_lines(status):
        click.echo(line)
    from .statustext import render_status

    click.echo("now:")
    click.echo(render_status(status))


ON = ("cgledger answer", "cgledger step next")  # what `status` offers that moves the campaign on (projections/status.py)


def due_lines(status: dict) -> list[str]:
    """What is due from the player who just read his opponent's turn, before the whole status: the lines to run."""
    you = status.get("you")  # the other side's needs (its chit, its rolls) are its own: `now:` shows them
    owed = [(n["text"], n.get("command")) for n in status.get("needs", [])
            if not you or (n.get("command") and n.get("side") in (None, you))]
    proposal = status.get("proposal") or {}
    if proposal.get("open") and proposal.get("yours"):  # the other side's proposal waits for this player's answer
        sides = status.get("sides", {})  # (with or without his key): first
        what = proposal["takes_back"] if proposal.get("kind") == "rules" else f"to take back {proposal['takes_back']}"
        owed.insert(0, (f"the {sides.get(proposal['by'], proposal['by'])} side proposes {what}: accept or decline it",
                        f"{proposal['accept']}    # or: {proposal.get('decline')}"))
    owed += [(f"{a['text']} ({act_where(status, a)})", a.get("command")) for a in status.get("next_acts", [])]
    witness = you or status.get("own_secrets") or status.get("key_side")
    claims = [c for c in status.get("unwitnessed", []) if witness and c["witness"] == witness and not c["disputed"]]
    if claims:  # the other side's dice typed or from VASL: his claim until this player witnesses (or disputes) them
        owed.append((f"the other side's dice of {len(claims)} roll(s) wait for your witness: you saw them rolled, or "
                     "dispute them (`cgledger witness EVENT --dispute REASON`)", "cgledger witness --all"))
    if owed:
        return ["due from you:"] + [f"  {text}" + (f"\n      {command}" if command and command not in text else "")
                                    for text, command in owed]
    if status.get("over"):
        return []
    return _next_lines(status)


def _next_lines(status: dict) -> list[str]:
    """Nothing is due from the player: whether the turn is the other side's, or what he may do where he stands."""
    may = status.get("may") or []
    if not may:  # nothing due and nothing offered: the turn is the other side's
        if (status.get("turn") or {}).get("reply_owed"):
            return ["nothing is due from you: `cgledger send` mails the turn back"]
        return ["nothing is due from you now: `cgledger send` mails your turn to your opponent"]
    key = next((m for m in may if m["command"].startswith("cgledger keys init")), None)
    if key:  # the other side has a key and this one none: set up first (its acts signed, fair dice from then on)
        return [f"next for you: {key['text']}:", f"      {key['command']}"]
    mine = (status.get("progress") or {}).get(status.get("you")) or {}
    where = mine.get("step_title") or status["step_title"]
    on = next((m for m in may if m["command"] in ON), None)
    if on:  # the campaign goes on only as this side walks the RePh (each side walks it) or plays its fair-dice part
        return [f"next for you: in {where}, what you may do is below; then go on "
                "(`cgledger send` mails your turn when done):", f"      {on['command']:<24}  # {on['text']}"]
    held = status.get("held")
    why = f"; not yet on to the next step: {held['text']}" + (f" ({held['rule']})" if held.get("rule") else "") \
        if held else ""
    return [f"next for you: in {where}, what you may do is below{why} (`cgledger send` mails your turn when done)"]


def _acts_said(acts: list[dict], sides: dict) -> list[tuple[int, str]]:
    """(event, text) of each act received, its side named once (or 'unsigned')."""
    lines = []
    for act in acts:
        name = sides.get(act["side"], act["side"])
        who = f"the {name} side" if act["side"] else "unsigned"
        named = act["side"] and act["text"].startswith((who, f"{name} ")) \
            and not act["text"].startswith(f"{name} Assault")  # a CG scenario's name ('German Assault ended ...')
        lines.append((act["event"], act["text"] if named else f"{who}: {act['text']}"))
    return lines


def _grouped(lines: list[tuple[int, str]]) -> list[str]:
    """One line per event, and one for a run of events in a row that say the same (8 answers to 8 fair rolls)."""
    out: list[str] = []
    runs: list[list] = []
    for event, text in lines:
        if runs and runs[-1][2] == text and runs[-1][1] == event - 1:
            runs[-1][1] = event
        else:
            runs.append([event, event, text])
    for first, last, text in runs:
        out.append(f"  {first:>5}  {text}" if first == last else f"  {f'{first}-{last}':>5}  {text} ({last - first + 1} events)")
    return out
