from __future__ import annotations

import click

from cgledger.ledger.domain.events import TablesOverridden, TakeBackProposed
from cgledger.projections.log import log_rows

from cgledger.ledger import lazy

from .app import common, emit_json, json_option, main

acts = lazy.module("cgledger.ledger.verbs.acts")
cmd = lazy.module("cgledger.ledger.domain.commands")  # the commands a player's words give whole


@main.command()
@click.option("--reason", default="", metavar="TEXT", help="Why (kept in the log).")
@json_option
@common
def undo(obj, reason: str, as_json: bool) -> None:
    """Void the last action in force a player took by appending an undo event; nothing is deleted. Once sides have
    keys, the other side's action or a shared one it has received is only proposed: the other side takes it back
    with `accept`."""
    ledger = obj.ledger()
    fact, = ledger.execute(obj.campaign, cmd.Undo(reason=reason))
    concerned = acts.concerned(ledger, obj.campaign, fact)
    show_take_back(fact, concerned, reason, as_json, obj.side_names, acts.rest_of_command(ledger, obj.campaign, fact))


@main.command()
@json_option
@common
def accept(obj, as_json: bool) -> None:
    """Accept the other side's open proposal (an undo, a rewind or a rules file): it is carried out, both signed."""
    ledger = obj.ledger()
    fact, = ledger.execute(obj.campaign, cmd.Accept())
    concerned = acts.concerned(ledger, obj.campaign, fact)
    show_take_back(fact, concerned, getattr(fact, "reason", ""), as_json, obj.side_names)


@main.command()
@click.option("--reason", default="", metavar="TEXT", help="Why (kept in the log).")
@json_option
@common
def decline(obj, reason: str, as_json: bool) -> None:
    """Decline the other side's open proposal (an undo, a rewind or a rules file): it is over, both sides told."""
    fact = acts.decline(obj.ledger(), obj.campaign, reason)
    if as_json:
        emit_json({"declined": fact.proposal, "reason": fact.reason or None})
        return
    click.echo(f"declined the other side's proposal (event {fact.proposal})" + (f": {reason}" if reason else "")
               + "; it is over on both sides once he has your bundle")


def show_take_back(fact, concerned, reason: str, as_json: bool, side_names=dict, rest: list[int] | None = None) -> None:
    """What an undo, a rewind or an accepted proposal did; `side_names()`: each side's name, for the events listed;
    `rest`: the first events of the other actions of the undone action's command still in force."""
    if isinstance(fact, TablesOverridden):  # an accepted rules file
        if as_json:
            emit_json({"source": fact.source, "tables": list(fact.tables), "accepted": fact.proposal})
        else:
            click.echo(f"rules file {fact.source} accepted: {', '.join(fact.tables)} in force for both sides")
        return
    rows = [r for r in log_rows(concerned) if "error" not in r]
    proposed = isinstance(fact, TakeBackProposed)
    if as_json:
        data = {"reason": reason or None, "events": [r["version"] for r in rows]}
        if proposed:
            data.update(proposed=fact.kind, actions=list(fact.voided))
        elif hasattr(fact, "undone"):
            data.update(undone=fact.undone, **({"also": list(fact.also)} if fact.also else {}),
                        **({"accepted": fact.proposal} if fact.proposal else {}),
                        **({"same_command_left": rest} if rest is not None else {}))
        else:
            data.update(cg_date=fact.cg_date, to_version=fact.to_version, voided=list(fact.voided),
                        **({"accepted": fact.proposal} if fact.proposal else {}))
        emit_json(data)
        return
    from cgledger.projections.takeback import action_words

    sides = side_names() if rows else {}
    if proposed:
        what = f"to take back {action_words(concerned, sides)}" if fact.kind == "undo" else \
            f"to rewind to the end of {fact.cg_date}'s RePh ({len(fact.voided)} actions)"
        click.echo(f"proposed {what}. It is the other side's or shared, so the other side takes it back with "
                   "`cgledger accept` (both sides' `status` show the proposal until then)")
        return
    elif hasattr(fact, "undone"):
        click.echo(f"taken back: {action_words(concerned, sides)}"
                   + (" (the other side's proposal, accepted)" if fact.proposal else ""))
        if rest:
            click.echo(f"the same command recorded {len(rest)} more act(s) still in force (event "
                       f"{', '.join(map(str, rest))}): each `cgledger undo` takes back the last of them")
        return
    else:
        click.echo(f"rewound to the end of {fact.cg_date}'s RePh (event {fact.to_version}); {len(fact.voided)} "
                   "actions voided, kept in the log" + (" (accepted proposal)" if fact.proposal else ""))
        return
