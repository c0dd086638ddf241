"""VASL dice reports: the lines VASL's dice bot writes into the chat, e.g.

    *** (Other DR) 4,2 ***   <Player1>      Allied SAN    [1 / 8   avg   6,62 (6,62)]    (01.51 - by random.org)
    *** (Other dr) 3 ***   <Player1>   [2 / 8   avg   3,50 (3,50)]   (01.51 - by random.org)

the category in parentheses, the dice (for a DR the COLORED die first, then the white), the player
in angle brackets, optional special text (Axis/Allied SAN, Booby Trap), running statistics (with
decimal commas in many locales) and a series label. Parsing is pure; nothing here touches the store.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .errors import BadInput

_START = re.compile(r"^\s*\*\*\*\s*\(")
_LINE = re.compile(
    r"^\s*\*\*\*\s*\((?P<category>[^()]*?)\s*(?P<kind>DR|dr)\)\s+(?P<dice>[^\s*]+)\s*\*\*\*"
    r"\s*<(?P<player>[^<>]+)>(?P<rest>.*)$"
)
_STATS = re.compile(r"\[(?P<stats>[^\]]*)\]")
_SERIES = re.compile(r"\((?P<series>[^()]*)\)\s*$")


@dataclass(frozen=True)
class Report:
    """One dice report of the VASL chat."""

    line: str  # the line as pasted, whitespace-trimmed: the evidence kept in the event
    die: str  # 'DR' or 'dr'
    faces: tuple[int, ...]  # in the ledger's order: (white, colored) for a DR
    category: str  # e.g. 'Other', 'TH', 'IFT'
    player: str
    special: str  # e.g. 'Allied SAN', 'Booby Trap'
    stats: str
    series: str

    @property
    def key(self) -> str:
        """Identifies the report: its text (running statistics and series make every line unique)."""
        return hashlib.sha256(" ".join(self.line.split()).encode()).hexdigest()[:32]


def is_report(line: str) -> bool:
    """Lines that begin like a dice report ('*** ('): anything else in a chat is ignored."""
    return bool(_START.match(line))


def parse(line: str) -> Report:
    """One dice report; a malformed one raises naming the problem."""
    text = line.strip()
    match = _LINE.match(text)
    if not match:
        raise BadInput(f"malformed VASL dice report: {text[:60]!r}")
    kind, dice = match["kind"], match["dice"]
    parts = dice.split(",")
    if (kind == "DR" and len(parts) != 2) or (kind == "dr" and len(parts) != 1) or not all(p.isdigit() for p in parts):
        raise BadInput(f"malformed VASL dice report: a {kind} shows {dice!r}")
    values = tuple(int(p) for p in parts)
    if not all(1 <= v <= 6 for v in values):
        raise BadInput(f"malformed VASL dice report: die value out of 1-6 in {dice!r}")
    faces = (values[1], values[0]) if kind == "DR" else values  # VASL prints colored first
    rest = match["rest"]
    stats = _STATS.search(rest)
    series = _SERIES.search(rest)
    special = rest[: stats.start()] if stats else (rest[: series.start()] if series else rest)
    return Report(
        line=text, die=kind, faces=faces, category=match["category"].strip(), player=match["player"].strip(),
        special=" ".join(special.split()), stats=" ".join(stats["stats"].split()) if stats else "",
        series=series["series"].strip() if series else "",
    )


def scan(lines: list[str]) -> tuple[list[tuple[int, Report]], list[tuple[int, str]]]:
    """(line number, report) for each dice report, and (line number, problem) for each malformed one."""
    reports, problems = [], []
    for number, line in enumerate(lines, 1):
        if not is_report(line):
            continue
        try:
            reports.append((number, parse(line)))
        except BadInput as e:
            problems.append((number, e.message))
    return reports, problems
