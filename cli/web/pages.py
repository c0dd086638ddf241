"""The pages: each reads the public JSON of the CLI's own read commands (status, roster, rg-record, rg-chart, history,
dice-stats, audit, log, tables) through the runner and lays it out; forms post command lines to /do."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from . import forms

# records a side's ledger makes by itself (answers, Secret rolls made, values published, chits revealed, chains
# renewed): the other side's news, not this side's acts (ledger/domain/evolve.py `_automatic` says which a take-back skips)
LEDGER_RECORDS = frozenset({"RollAnswered", "DiceChainRenewed", "SecretRollMade", "RollValuePublished", "ChitRevealed",
                            "RollLapsed"})
FORTIFICATIONS = ("trench", "foxhole", "ap_mines", "at_mines", "roadblock", "dummy", "hip")  # 8.621 (cli/buy.py)


def words_of(form) -> list[str]:
    """The command a form posts: `line` (an offered command line) with each hole's `value`, or `words` (JSON), with
    the form's `extra` options (`--drm KEY`, `--dice W,C`, ...) each a field named `opt:--flag`."""
    if form.get("command"):  # the page's free command line, as the CLI would split it
        from cgledger.cli.script import words as split_words

        words = split_words(str(form["command"]).removeprefix("cgledger "))
    elif form.get("line"):
        words = forms.fill(forms.template(str(form["line"])), [str(v) for v in form.getlist("value")])
    elif form.get("words"):
        try:
            words = [str(w) for w in json.loads(str(form["words"]))]
        except (ValueError, TypeError):
            raise ValueError("the form's command is not readable: reload the page") from None
    else:
        raise ValueError("the form gave no command")
    words += [str(v).strip() for v in form.getlist("arg") if str(v).strip()]  # positional values (an item, a name)
    for key in form.keys():
        if not key.startswith("opt:"):
            continue
        flag = key[4:]
        if not re.fullmatch(r"--[a-z][a-z-]*", flag):
            raise ValueError(f"unknown option {flag}")
        for value in form.getlist(key):
            value = str(value).strip()
            if value == "on":  # a checkbox: the flag alone
                words.append(flag)
            elif value:
                words += [flag, value]
    return words


def handler(page, view):
    async def route(request: Request) -> Response:
        context = await asyncio.to_thread(view, page, request)
        if isinstance(context, Response):
            return context
        name = context.pop("template")
        return page.render(request, name, **context)

    return route


# ---- the views: (page, request) -> template context, run in a worker thread ---------------------------------------
def _basics(page) -> dict:
    """What every page shows in its header: the campaign's status (None before there is one) and its sides."""
    status = page.runner.data("status")
    error = page.runner.last_error
    sides = status["sides"] if status else {}
    return {"status": status, "sides": sides, "load_error": error, "you": _you(page, status),
            "has_key": page.runner.material is not None}


def _you(page, status) -> str | None:
    if not status:
        return None
    if status.get("you"):
        return status["you"]
    return page.runner.side_of_key()


def campaign(page, request) -> dict:
    base = _basics(page)
    if base["status"] is None:
        return {"template": "start.html", **base, "inbox": page.inbox}
    rows = page.runner.data("log", "--last", "40") or []  # what the page shows at most
    recent = _recent(rows, base["you"], base["sides"])
    keys = page.runner.data("keys", "show") or []
    from cgledger.cli.statustext import waiting_texts

    return {"template": "campaign.html", **base, "recent": recent, "keys": keys, "waiting": waiting_texts(base["status"]),
            "answered": page.watcher.latest_answers() if page.watcher else []}


def _recent(rows: list[dict], you: str | None, sides: dict[str, str]) -> list[dict]:
    """The other side's acts since this side's last one (at one table: the last twelve events), in words. A record
    this side's ledger made for the other side (its roll's result, resolved by this side's answer) is the other
    side's news, and shown."""
    from cgledger.cli.logtext import describe

    def mine(row: dict) -> bool:  # an act of this side's player, not a record its ledger made for the protocol
        return row.get("author") == you and row.get("side") in (None, you) and row["type"] not in LEDGER_RECORDS \
            and not (row["type"] == "DiceRolled" and row.get("source") == "fair")

    start = max(0, len(rows) - 12)
    if you:
        own = [i for i, r in enumerate(rows) if mine(r)]
        start = own[-1] + 1 if own else 0
    return [{"event": r["version"], "side": r.get("side") or r.get("author"), "text": describe(r, sides),
             "in_force": r.get("in_force", True)} for r in rows[start:] if not you or not mine(r)]


def roll(page, request) -> dict:
    base = _basics(page)
    tables = (page.runner.data("tables") or {}).get("tables", [])
    chosen = request.query_params.get("table", "")
    table = page.runner.data("tables", chosen) if chosen else None
    return {"template": "roll.html", **base, "tables": tables, "table": table, "chosen": chosen,
            "side": request.query_params.get("side") or base["you"] or "",
            "rg": request.query_params.get("rg", "")}


def buy(page, request) -> dict:
    base = _basics(page)
    side = request.query_params.get("side") or base["you"] or next(iter(base["sides"]), "")
    chart = page.runner.data("rg-chart", "--side", side) if side else None
    return {"template": "buy.html", **base, "side": side, "chart": chart, "chart_error": page.runner.last_error,
            "fortifications": FORTIFICATIONS}


def map_view(page, request) -> dict:
    base = _basics(page)
    groups = page.runner.map_groups()
    group = request.query_params.get("group") or (groups[0] if groups else "")
    svg, error = "", None
    areas = page.runner.data("areas", "--group", group) if group else None
    if areas is not None:  # drawn from the same document `map --svg` draws (projections/mapsvg.py): areas once
        from cgledger.projections.mapsvg import map_svg

        svg = map_svg(areas, f"{group} Map Group")
    elif group:  # a map with no Setup Areas (CGS): the terrain the firefights left, as `map --svg` draws it
        path = Path(tempfile.mkdtemp(dir=page.work)) / "map.svg"
        outcome = page.runner.run(["map", "--group", group, "--svg", str(path)])
        svg, error = (path.read_text(encoding="utf-8"), None) if outcome.ok else ("", outcome.error)
    return {"template": "map.html", **base, "groups": groups, "group": group, "svg": svg, "map_error": error,
            "areas": areas, "hex": request.query_params.get("hex", "")}


def roster(page, request) -> dict:
    base = _basics(page)
    books = {side: {"roster": page.runner.data("roster", "--side", side) or [],
                    "record": page.runner.data("rg-record", "--side", side) or []} for side in base["sides"]}
    return {"template": "roster.html", **base, "books": books}


def history(page, request) -> dict:
    base = _basics(page)
    story = page.runner.data("history") or {"dates": []}
    from cgledger.cli.logtext import describe

    rows = page.runner.data("log", "--last", "120") or []
    actions = [{"event": r["version"], "action": r.get("action"), "text": describe(r, base["sides"]),
                "in_force": r.get("in_force"),
                "side": r.get("author"), "date": r.get("cg_date")} for r in rows if r.get("action")]
    from cgledger.projections.report import lvp_chart_svg

    chart = lvp_chart_svg(story["dates"], base["sides"]) if story["dates"] else ""
    return {"template": "history.html", **base, "story": story, "actions": actions[-30:][::-1], "chart": chart}


def dice(page, request) -> dict:
    from cgledger.projections.report import dice_bars_svg

    base = _basics(page)
    stats = page.runner.data("dice-stats") or {"groups": [], "undone": [], "vasl": {"scenarios": []}}
    charts = []
    for group in stats["groups"]:
        for die in ("DR", "dr"):
            if group.get(die):
                color = "#444" if group["side"] == next(iter(base["sides"]), "") else "#556b2f"
                label = f"{base['sides'].get(group['side'], group['side'])}, {group['source']}, {die}"
                charts.append({"label": label, "svg": dice_bars_svg(group[die], color, label), "stats": group[die]})
    return {"template": "dice.html", **base, "stats": stats, "charts": charts}


def audit(page, request) -> dict:
    """The audit of the log as it stands: run again only when the log moved (its head), else the last report; run on
    from where this server last audited the log whole (`audit --kept`), so a move costs the events it stored."""
    base = _basics(page)
    final = request.query_params.get("final") == "1"
    head = (page.runner.run(["head"]).out or "").strip()
    key = (head, final)
    if key not in page.audits:
        outcome = page.runner.run(["audit", "--json", "--kept", *(["--final"] if final else [])])
        page.audits = {k: v for k, v in page.audits.items() if k[0] == head}
        page.audits[key] = (outcome.json() if outcome.out.strip() else None, outcome.error)
    report, error = page.audits[key]
    return {"template": "audit.html", **base, "report": report, "final": final, "audit_error": error, "head": head}


LOG_ROWS = 200  # the log page's newest rows (`cgledger log` prints them all)


def log(page, request) -> dict:
    from cgledger.cli.logtext import describe

    base = _basics(page)
    rows = page.runner.data("log", "--last", str(LOG_ROWS)) or []
    return {"template": "log.html", **base, "shown": LOG_ROWS,
            "rows": [{"event": r["version"], "date": r.get("cg_date"), "side": r.get("author"),
                      "text": describe(r, base["sides"]),
                      "in_force": r.get("in_force", True), "signed": r.get("signed")} for r in rows][::-1]}


def report(page, request) -> Response:
    path = Path(tempfile.mkdtemp(dir=page.work)) / "report.html"
    outcome = page.runner.run(["report", "--html", str(path)])
    if not outcome.ok:
        from markupsafe import escape  # a campaign's name is the players' text, never markup (Jinja2's own escaper)

        return HTMLResponse(f"<p>{escape(outcome.error)}</p>", 400)
    return HTMLResponse(path.read_text(encoding="utf-8"))


def turn(page, request) -> dict:
    base = _basics(page)
    outcome = page.outcomes.get(request.query_params.get("said", ""))
    sent = outcome.json() if outcome and outcome.ok and outcome.words[:1] == ["send"] else None
    return {"template": "turn.html", **base, "sent": sent, "outbox": page.outbox, "inbox": page.inbox}


VIEWS = {"/": campaign, "/roll": roll, "/buy": buy, "/map": map_view, "/roster": roster, "/history": history,
         "/dice": dice, "/audit": audit, "/log": log, "/report": report, "/turn": turn}
