"""VASL dice reports, as VASL's dice bot writes them into the chat (vasl-developers/vasl,
src/VASL/build/module/ASLDiceBot.java, `DR()` and `dr()`):

    *** (IFT DR) 3,5 ***   <FredKors>      Allied SAN    [1 / 8   avg   6,62 (6,62)]    (01.51 - by random.org)
    *** (TH DR) 2,5,4 *** - total with Light Dust (F11.71): 9     <FredKors>      [2 / 9 ...]    (01.52) ROF die: 3
    *** (SA dr) 3 ***   <FredKors>      [1 / 1   avg   3,00 (3,00)]    (01.84)

the category and DR/dr in parentheses, the dice (for a DR the COLORED die first, then the white; a third die
under Dust), the Dust level and the total it makes, the player in angle brackets (empty when VASSAL has no
player name), a special event (Axis/Allied SAN, Axis/Allied Booby Trap), the running statistics (decimal
commas in many locales), the series label (" - by random.org" when the dice came from random.org), and
after it the ROF die (VASL 6.6 preference) or VASL 6.4's " <Turret>"/"<Hull>" on a TH DR. Also the older
"*** DR = 4,2 *** <player> Axis SAN" lines ASLChatter still reads. Lines of the chat window as VASL renders
them are in ledger/vasl/chat.py. Parsing is pure; nothing here touches the store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import BadInput
from .chat import parse_chat
from .report import Report, report_key, squash  # noqa: F401 - re-exported: one dice report, whatever its form

_START = re.compile(r"^\s*\*\*\*\s*\(")
_LEGACY_START = re.compile(r"^\s*\*\*\*\s*(?:DR|dr|3d6)\s*=")
_RAW = re.compile(
    r"^\*\*\*\s*\((?P<category>[^()]*?)\b(?P<kind>DR|dr)\)\s+(?P<dice>[^\s*]+)\s*\*\*\*"
    r"(?:\s*-\s*total with\s(?P<dust>[^:]*):\s*(?P<total>-?\d+))?"
    r"\s*<(?P<player>[^<>]*)>(?P<rest>.*)$")
_LEGACY = re.compile(r"^\*\*\*\s*(?P<kind>DR|dr|3d6)\s*=\s*(?P<dice>[^\s*]+)\s*\*\*\*\s*"
                     r"(?:<(?P<player>[^<>]*)>)?(?P<rest>.*)$")
# searched from every position of a line a bundle may carry: each pattern starts with a literal, never with `\s*`
# (a run of spaces tried from each start is cubic: one 3 KB line took minutes); the spaces before are squashed
_ROF = re.compile(r"ROF die:\s*(?P<rof>\S*)\s*$")
_HIT = re.compile(r"(?:<\s*)?(?P<hit>Turret|Hull)>?\s*$")  # VASL 6.4: " <Turret>" / "<Hull>" after the series
_SERIES = re.compile(r"\((?P<series>[^()]*)\)\s*$")
_STATS = re.compile(r"\[(?P<stats>[^\]]*)\]\s*$")
DICE = {"DR": 2, "dr": 1, "3d6": 3}


def is_report(line: str) -> bool:
    """Lines that begin like a dice-bot report ('*** (' or '*** DR ='); anything else is not one."""
    return bool(_START.match(line) or _LEGACY_START.match(line))


def _faces(kind: str, dice: str) -> tuple[int, ...]:
    parts = dice.split(",")
    wanted = DICE[kind]
    if not all(p.isdigit() for p in parts) or not (len(parts) == wanted or (kind == "DR" and len(parts) == 3)):
        raise BadInput(f"malformed VASL dice report: a {kind} shows {dice!r}")
    values = tuple(int(p) for p in parts)
    if not all(1 <= v <= 6 for v in values):
        raise BadInput(f"malformed VASL dice report: die value out of 1-6 in {dice!r}")
    return values


def _tail(rest: str) -> tuple[str, dict]:
    """Splits what follows the player: special text, statistics, series, and the ROF die or hit location after."""
    found: dict = {}
    for _ in range(2):
        if (m := _ROF.search(rest)) and "rof" not in found:
            found["rof"] = int(m["rof"]) if m["rof"].isdigit() and 1 <= int(m["rof"]) <= 6 else None
            rest = rest[: m.start()]
        elif (m := _HIT.search(rest)) and "hit" not in found and _SERIES.search(rest[: m.start()]):
            found["hit"] = m["hit"]
            rest = rest[: m.start()]
    if m := _SERIES.search(rest):
        found["series"] = m["series"].strip()
        rest = rest[: m.start()]
    if m := _STATS.search(rest):
        found["stats"] = squash(m["stats"])
        rest = rest[: m.start()]
    return squash(rest), found


def _matched(pattern: re.Pattern, text: str) -> re.Match:
    match = pattern.match(text)
    if not match:
        raise BadInput(f"malformed VASL dice report: {text[:60]!r}")
    return match


def parse(line: str, player: str | None = None, after: str = "") -> Report:
    """One dice report in any form VASL shows it; a malformed one raises naming the problem. `player` is the
    name the report is known to carry (it splits a chat-window line whose name has spaces)."""
    text = line.strip()
    if _START.match(text):
        match = _matched(_RAW, text)
        kind = match["kind"]
        values = _faces(kind, match["dice"])
        special, found = _tail(match["rest"])
        faces = (values[1], values[0]) if kind == "DR" else values  # VASL prints the colored die first
        return Report(line=text, die=kind, faces=faces, category=squash(match["category"]),
                      player=match["player"].strip(), special=special, stats=found.get("stats", ""),
                      series=found.get("series", ""), third=values[2] if len(values) == 3 else None,
                      dust=squash(match["dust"] or ""), total=int(match["total"]) if match["total"] else None,
                      rof=found.get("rof"), hit=found.get("hit", ""), form="raw", after=after)
    if _LEGACY_START.match(text):
        match = _matched(_LEGACY, text)
        kind = match["kind"]
        values = _faces(kind, match["dice"])
        if kind != "dr" and len(values) != DICE[kind]:
            raise BadInput(f"malformed VASL dice report: a {kind} shows {match['dice']!r}")
        faces = (values[1], values[0], *values[2:]) if kind != "dr" else values
        return Report(line=text, die=kind, faces=faces, player=(match["player"] or "").strip(),
                      special=squash(match["rest"]), form="legacy", after=after)
    report = parse_chat(text, (player,) if player else ())
    if report is None:
        raise BadInput(f"not a VASL dice report: {text[:60]!r}")
    return replace(report, after=after)


def read(line: str, players: tuple[str, ...] = ()) -> Report | None:
    """The report on a line of a pasted chat or a log's chat message, None for any other line; a line that looks
    like a report but cannot be read raises BadInput."""
    if is_report(line):
        return parse(line)
    return parse_chat(line.strip(), players)


def entry_key(entry) -> str:
    """The key of a report as a VaslLogImported event keeps it."""
    return report_key(entry.die, entry.dice, entry.category, entry.player, entry.stats, entry.series, entry.after)


def _compare(report: Report, fact, fields: tuple[str, ...]) -> list[str]:
    problems = []
    if tuple(report.faces) != tuple(fact.dice) or report.die != fact.die:
        problems.append(f"dice {list(fact.dice)} are not the VASL report's {report.die} {list(report.faces)} "
                        "(white, colored)")
    for field in fields:
        kept, read_ = getattr(fact, field), getattr(report, field)
        if (squash(kept) if isinstance(kept, str) else kept) != (squash(read_) if isinstance(read_, str) else read_):
            problems.append(f"{field} {kept!r} is not the VASL report's {read_!r}")
    return problems


def _use(key: str, seen: dict, version: int, where: str = "") -> list[str]:
    if key in seen:
        return [f"{where}the VASL report of event {seen[key]} is used again"]
    seen[key] = version
    return []


def audit_fact(fact, seen: dict, version: int) -> list[str]:
    """The audit's VASL check of one stored fact: each report is read again from the line it keeps and must
    show the dice (colored die first in VASL), player, category and extra dice recorded; a report is used once
    (`seen`: report key -> event). An import's attached reports are used by the DiceRolled after it."""
    from ..domain.events import VaslLogImported

    if isinstance(fact, VaslLogImported):
        problems = []
        seen.setdefault(f"@{fact.action}\0", [])  # the action imports a file: each of its rolls uses a report attached
        for entry in fact.reports:
            where = f"report at {entry.position}: "
            try:
                report = parse(entry.line, entry.player or None, entry.after)
            except BadInput as e:
                problems.append(f"{where}the stored VASL report cannot be read: {e.line()}")
                continue
            fields = ("player", "category", "stats", "series", "third", "dust", "total", "rof", "hit", "form")
            problems += [where + p for p in _compare(report, entry, fields)]
            if entry.table:  # its DiceRolled, later in this action, uses it
                seen.setdefault(f"@{fact.action}\0{entry.line}", []).append(report.key)
            else:
                problems += _use(report.key, seen, version, where)
        return problems
    action = getattr(fact, "action", "")
    pending = seen.get(f"@{action}\0{fact.vasl}")
    if not pending and f"@{action}\0" in seen:
        return ["its VASL report is not one its import attached: a roll of an imported file is recorded from the "
                "report attached to it"]
    try:
        report = parse(fact.vasl, fact.player or None)
    except BadInput as e:
        return [f"the stored VASL report cannot be read: {e.line()}"]
    problems = _compare(report, fact, ("player", "category") if hasattr(fact, "category") else ("player",))
    return problems + _use(pending.pop(0) if pending else report.key, seen, version)
