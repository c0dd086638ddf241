"""`status`, `step` (the open step) and `date` as a player reads them, from their answers (the JSON-encodable data
LedgerContext.answer gives), without click: the click commands (cli/step.py, cli/date.py) and the quick path
(cli/quick.py) print the same text and the same JSON."""

from __future__ import annotations

from cgledger.ledger import lazy
from cgledger.ledger.domain.wording import describe_claim, proposal_lines, weather_words

reads = lazy.module("cgledger.ledger.read.player")


def status(obj, as_of: str | None = None, as_json: bool = False) -> str:
    """`status`, and `step` without a TARGET (as_of None): the open RePh step and what it still needs."""
    from cgledger.ledger.read.answers import dumps

    data = obj.answer("status", (), lambda ledger: reads.status(ledger, obj.campaign, as_of), as_of)
    return (dumps(data) if as_json else render_status(data)) + "\n"


def date(obj, as_of: str | None = None, as_json: bool = False) -> str:
    """`date`: the campaign's CG and current CG Date, and the flags in effect."""
    from cgledger.ledger.read.answers import dumps

    def compute(ledger) -> dict:
        state, rules = ledger.state_as_of(obj.campaign, as_of)
        return {"campaign": state.name, "system": state.system, "cg": state.cg, "cg_date": state.cg_date,
                "flags": state.flags, "in_effect": [rules.flag_text(flag) for flag in state.flags]}

    data = obj.answer("date", (), compute, as_of)
    if as_json:
        return dumps(data) + "\n"
    flags = f"; in effect: {'; '.join(data.get('in_effect') or data['flags'])}" if data["flags"] else ""
    return f"{data['campaign']}: {data['system'].upper()} CG {data['cg']}, CG Date {data['cg_date']}{flags}\n"


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
    if status.get("weather") or status.get("conditions"):
        lines.append(f"  weather: {weather_words(status.get('weather'), status.get('conditions') or {})}")
    if status.get("dice") not in (None, "fair", "fair-pending"):  # fair-pending: fair once both sides have keys
        lines.append(f"  dice: {status['dice']} (each side's ledger rolls its own dice at once, not proven fair)")
    lines += _acts_lines(status) + _waits_lines(status)
    lines += [f"  remember {r['rule']}: {r['text']}" for r in status.get("reminders", [])]
    lines += [f"  rules files: {f['text']}" + (f" ({f['command']})" if f["command"] else "")
              for f in status.get("files_wanted", [])]
    lines += witness_lines(status.get("unwitnessed", []), status["sides"],
                           status.get("you") or status.get("own_secrets") or status.get("key_side"))
    lines += proposal_lines(status.get("proposal"), status["sides"])
    if status.get("over"):
        lines.append(f"the campaign is over: {status['over']}. `cgledger final` gives the result, `cgledger audit "
                     "--final` checks the whole log one last time")
    else:
        lines.append(f"next: {status['next_title']}")
    return "\n".join(lines + _books_lines(status))


def act_where(status: dict, act: dict) -> str:
    """Where an act ahead falls: its step, and its CG Date where that is not the open one (past an Idle Day or a
    CG-Scenario End the next act may be the next date's)."""
    date = act.get("cg_date")
    where = act["title"] if act.get("step") == "scenario" else f"step {act['title']}"  # 'CG scenario', no step number
    return where + (f", on CG Date {date}" if date and date != status.get("cg_date") else "")


def _acts_lines(status: dict) -> list[str]:
    """What the side needs, what the scenario Initiative makes later steps need, its next act ahead, what it may."""
    lines = []
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
        if act["effect"] == "proposal":  # the reader's own proposal to mail: no step of its own
            lines.append(f"  next for you: {act['text']}")
            continue
        lines.append(f"  next for {'you' if status.get('you') else 'the campaign'}: {act['text']} ({act_where(status, act)})")
        if act.get("command"):
            lines.append(f"      {act['command']}")
    if status.get("may"):
        lines.append("  may:")
        lines += [f"      {m['command']:<60}  # {m['text']}" + (f" ({m['rule']})" if m["rule"] else "")
                  for m in status["may"]]
    return lines


def _waits_lines(status: dict) -> list[str]:
    """What holds the campaign: the turn mailed, the step's refusal, where each side stands, fair rolls waiting."""
    lines = []
    if (status.get("turn") or {}).get("mailed") is not None:
        lines.append(f"  by email: {status['turn']['text']}")
    if status.get("held"):  # `step next` is not offered: why, in the step decision's own words
        held = status["held"]
        lines.append(f"  not yet on to the next step: {held['text']}" + (f" ({held['rule']})" if held["rule"] else ""))
    for side, where in status.get("progress", {}).items():
        name = status["sides"].get(side, side)
        if where["ahead"]:
            lines.append(f"  the {name} side is done up to here and stands in {where['step_title']}")
        elif where["step"] == status["step"] and where["may"]:
            whom = "you, who may" if side == status.get("you") else f"the {name} side, which may"
            lines.append(f"  the campaign waits here for {whom} still act: {where['may']}")
        elif where["step"] == status["step"] and where.get("goes_on"):  # nothing it may do here: its walk on
            you = side == status.get("you")
            why = where["goes_on"].replace("its ", "your ") if you else where["goes_on"]
            lines.append(f"  the campaign waits here for {'you' if you else f'the {name} side'} to go on ({why})")
    lines += [f"  waiting: {text}" for text in waiting_texts(status)]
    return lines


def waiting_texts(status: dict) -> list[str]:
    """The fair rolls waiting for their answer, in words: the same roll waiting several times (an RG's follow-ups
    declared together) said once, with how many."""
    said: dict[tuple, int] = {}
    for w in status.get("waiting", []):
        what = (w["side"], w["secret"], w["table"] or "", _for_rg(status, w), w["waiting_for"], w.get("if_result") or "")
        said[what] = said.get(what, 0) + 1
    texts = []
    for (side, secret, table, rg, waiting_for, if_result), count in said.items():
        name, kind = status["sides"].get(side, side), "Secret fair roll" if secret else "fair roll"
        on = f" on {table}" if table else ""
        if count == 1:
            text = f"the {name} side's {kind}{on}{rg} waits for {waiting_for}"
        else:
            waiting_for = waiting_for.replace("make the Secret roll", "make the Secret rolls")
            text = f"{count} {kind}s of the {name} side{on}{rg} wait for {waiting_for}"
        if if_result:
            text += f"; made only if {'its' if count == 1 else 'their'} RG's strength roll gives '{if_result}'"
        texts.append(text)
    return texts


def _for_rg(status: dict, waiting: dict) -> str:
    """' for RG I3#1', ' for an RG bought in secret': the RG a waiting follow-up roll is for, as this player knows it."""
    if waiting.get("rg") is None:
        return ""
    return f" for RG {rg_ref(status, waiting['rg'])}" if rg_ref(status, waiting["rg"]) else " for an RG bought in secret"


def rg_ref(status: dict, rg: int | None) -> str:
    """The RG of a purchase's event as this player names it (I3#1), '' where he does not know it (bought in secret by
    the other side) or none is named."""
    ref = str(status.get("rg_refs", {}).get(str(rg), "")) if rg is not None else ""
    return "" if ref.isdigit() else ref


def _books_lines(status: dict) -> list[str]:
    """CPP, LVP and the FPP still to spend, the Attack Chits left, the secret purchases, what is in effect."""
    lines: list[str] = []
    names = status["sides"]
    hidden = status.get("cpp_before_secret") or {}  # its Secret CPP Replenishments unseen: its CPP shown before them
    lines.append("CPP: " + ", ".join(f"{names.get(side, side)} {n}" + (
        f" + its Secret CPP Replenishment{'s' if hidden[side] > 1 else ''}" if side in hidden else "")
        for side, n in status["cpp"].items())
                 + ("; LVP: " + ", ".join(f"{names.get(side, side)} {n}" for side, n in status["lvp"].items())
                    if status["lvp"] else "")
                 + ("; FPP to spend this CG Date: " + ", ".join(f"{names.get(side, side)} {n:g}"
                                                              for side, n in status["fpp"].items())
                    if status.get("fpp") else ""))
    if status.get("attack_chits_left"):
        left = status["attack_chits_left"]
        lines.append("Attack Chits left: " + ", ".join(f"{names.get(side, side)} {n}" for side, n in left.items()))
    rule = f" ({status['secret_purchase_rule']})" if status.get("secret_purchase_rule") else ""
    for side, count in status.get("secret_purchases", {}).items():
        if side == status.get("own_secrets"):  # the buyer, its key given: its CPP above counts what it bought
            lines.append(f"secret: you bought {count} RG in secret{rule}: your CPP above counts them; the other side "
                         "sees your CPP before them")
        else:
            lines.append(f"secret: the {names.get(side, side)} side bought {count} RG in secret{rule}: its CPP "
                         "above is before them")
    if status["flags"]:
        lines.append(f"in effect: {'; '.join(status.get('in_effect') or status['flags'])}")
    return lines
