from __future__ import annotations

import click

from cgledger.ledger.wording import describe_claim, proposal_lines

from . import complete
from .app import as_of_option, common, emit_answer, emit_json, json_option, main


def witness_lines(claims: list[dict], sides: dict, you: str | None) -> list[str]:
    """The dice not witnessed yet, and the command that witnesses them for the side that may."""
    if not claims:
        return []
    lines = [f"  not witnessed: {describe_claim(c, sides)}" for c in claims]
    mine = [c for c in claims if c["witness"] == you and not c["disputed"]]
    if mine:
        lines.append("      cgledger witness --all    # or: cgledger witness EVENT --dispute REASON")
    return lines


def render_status(status: dict) -> str:
    lines = [f"{status['campaign']}: {status['system'].upper()} CG {status['cg']}, CG Date {status['cg_date']}"
             + (f" ({status['scenario']})" if status["scenario"] else ""),
             f"open: {status['step_title']}" + ("  [before the Initial Scenario]" if status["initial"] else "")]
    if status.get("purpose"):
        lines.append(f"  ({status['purpose']})")
    for need in status["needs"]:
        lines.append(f"  needs {need['text']}")
        lines += [f"      {command}" for command in need.get("commands", [])]
    choosing = [a for a in status.get("ahead", []) if a["if"]]
    for scenario in dict.fromkeys(a["if"] for a in choosing):  # while the chits are to be chosen
        lines.append(f"  if the Initiative gives a {scenario}, it will need: "
                     + "; ".join(f"{a['text']} (step {a['title']})" for a in choosing if a["if"] == scenario))
    lines += [f"  ahead: step {a['title']} will need {a['text']} ({status['scenario']})"
              for a in status.get("ahead", []) if not a["if"]]
    for act in status.get("next_acts", [])[:3]:  # the next act ahead: its line walks the side there itself
        lines.append(f"  next for {'you' if status.get('you') else 'the campaign'}: {act['text']} (step {act['title']})")
        if act.get("command"):
            lines.append(f"      {act['command']}")
    if status.get("may"):
        lines.append("  may:")
        lines += [f"      {m['command']:<60}  # {m['text']}" + (f" ({m['rule']})" if m["rule"] else "")
                  for m in status["may"]]
    for side, where in status.get("progress", {}).items():
        name = status["sides"].get(side, side)
        if where["ahead"]:
            lines.append(f"  the {name} side is done up to here and stands in {where['step_title']}")
        elif where["step"] == status["step"] and where["may"]:
            lines.append(f"  the campaign waits here for the {name} side, which may still act: {where['may']}")
    lines += [f"  waiting: the {status['sides'].get(w['side'], w['side'])} side's {'Secret ' if w['secret'] else ''}fair roll on {w['table']} (event "
              f"{w['event']}) waits for {w['waiting_for']}" for w in status.get("waiting", [])]
    lines += [f"  remember {r['rule']}: {r['text']}" for r in status.get("reminders", [])]
    lines += witness_lines(status.get("unwitnessed", []), status["sides"], status.get("you"))
    lines += proposal_lines(status.get("proposal"), status["sides"])
    if status.get("over"):
        lines.append(f"the campaign is over: {status['over']}. `cgledger final` gives the result, `cgledger audit "
                     "--final` checks the whole log one last time")
    else:
        lines.append(f"next: {status['next_title']}")
    names = status["sides"]
    lines.append("CPP: " + ", ".join(f"{names.get(side, side)} {n}" for side, n in status["cpp"].items())
                 + ("; LVP: " + ", ".join(f"{names.get(side, side)} {n}" for side, n in status["lvp"].items())
                    if status["lvp"] else ""))
    if status.get("attack_chits_left"):
        left = status["attack_chits_left"]
        lines.append("Attack Chits left: " + ", ".join(f"{names.get(side, side)} {n}" for side, n in left.items()))
    for side, count in status.get("secret_purchases", {}).items():
        lines.append(f"secret: the {names.get(side, side)} side bought {count} RG in secret (8.619): its CPP above "
                     "is before them")
    if status["flags"]:
        lines.append(f"in effect: {', '.join(status['flags'])}")
    return "\n".join(lines)


@main.command()
@as_of_option
@json_option
@common
def status(obj, as_of: str | None, as_json: bool) -> None:
    """CG, CG Date, the open RePh step and what it still needs."""
    show_status(obj.answer("status", (), lambda ledger: ledger.status(obj.campaign, as_of), as_of), as_json)


def show_status(data: dict, as_json: bool) -> None:
    if as_json:
        emit_answer(data)
        return
    click.echo(render_status(data))


@main.command()
@click.argument("target", metavar="[next|STEP|scenario]", required=False, shell_complete=complete.steps)
@json_option
@common
def step(obj, target: str | None, as_json: bool) -> None:
    """Show the open step, or move forward: `step next`, `step 8.616`, `step scenario` (8.6).

    Steps go forward in order; a step may be skipped only if it needs nothing; going back is an undo."""
    if target is None:  # the open step: `status`'s answer
        show_status(obj.answer("status", (), lambda ledger: ledger.status(obj.campaign)), as_json)
        return
    ledger = obj.ledger()
    move = ledger.step(obj.campaign, None if target.lower() == "next" else target)
    data = ledger.status(obj.campaign)
    if as_json:
        emit_json({"step": move.target, "skipped": list(move.skipped), "new_cg_date": move.new_date,
                   "passed": list(move.passed), "campaign_step": move.campaign_step, "ahead": bool(move.side),
                   "status": data})
        return
    if move.new_date:
        click.echo(f"New CG Date: {move.new_date} ({move.new_date_rule})" if move.new_date_rule
                   else f"New CG Date: {move.new_date}")
    if move.side:  # this side walked on ahead: the campaign waits for the other side where it may still act
        click.echo(f"your side is done up to {move.target}; the campaign's open step stays {move.campaign_step} "
                   "until the other side is done there")
    if move.skipped:  # each step passed, and what it was for
        click.echo(f"done with: {', '.join(move.skipped)}" if move.side
                   else f"skipped: {', '.join(move.skipped)} (nothing needed there now)")
        for passed in move.passed:
            click.echo(f"  passed {passed['title']}" + (f": {passed['note']}" if passed["note"] else ""))
    click.echo(render_status(data))
