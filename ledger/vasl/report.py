"""One VASL dice report, whatever form it was read from (the dice bot's line, ledger/vasl/bot.py; the chat window,
ledger/vasl/chat.py), and the key that identifies it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Report:
    """One dice report, whatever form it was read from."""

    line: str  # the line as read, whitespace-trimmed: the evidence kept in the event
    die: str  # 'DR', 'dr' (or '3d6', an old VASSAL dice button)
    faces: tuple[int, ...]  # in the ledger's order: (white, colored) for a DR
    category: str = ""  # IFT, TH, TK, MC, TC, Rally, CC, SA, RS, Other, ...
    player: str = ""
    special: str = ""  # SAN / Booby Trap (and, read from the chat window, its other notes: Turret, Cower, ...)
    stats: str = ""  # the running statistics, e.g. '1 / 8 avg 6,62 (6,62)'
    series: str = ""  # e.g. '01.51 - by random.org'
    third: int | None = None  # the third die of a DR under Dust (F11.71-.73)
    dust: str = ""  # the Dust level VASL names, e.g. 'Light Dust (F11.71)'
    total: int | None = None  # the total VASL prints with the Dust die (or the chat window's 'Total: N')
    rof: int | None = None  # the ROF die VASL 6.6 adds to IFT/TH DRs (a preference)
    hit: str = ""  # VASL 6.4's hit location after a TH DR: 'Turret' or 'Hull'
    form: str = "raw"  # 'raw' (the dice bot's line), 'legacy' ('*** DR = ...'), 'chat' (the chat window)
    after: str = ""  # chat window without statistics: the key of the report before it in its file

    @property
    def random_org(self) -> bool:
        return self.series.endswith("by random.org")

    @property
    def key(self) -> str:
        return report_key(self.die, self.faces, self.category, self.player, self.stats, self.series, self.after)

    @property
    def roll(self) -> tuple:
        """The roll as every form shows it (what a chat copy and the log of the same game share)."""
        return self.die, self.faces, squash(self.category), squash(self.player)


def same_report(a: Report, b: Report) -> bool:
    """Whether two reports are the very same one: the same roll (dice, category, player) and the same identity,
    its running statistics and series where both show them, else its place (the report before it in its file).
    A report that only copies another's dice is not it."""
    if a.roll != b.roll:
        return False
    shared = False
    for field in ("stats", "series"):
        x, y = squash(getattr(a, field)), squash(getattr(b, field))
        if x and y:
            if x != y:
                return False
            shared = True
    return shared or a.key == b.key


def report_key(die: str, faces, category: str, player: str, stats: str, series: str, after: str) -> str:
    """What identifies a report. With its running statistics and series label (the dice bot's line, or the chat
    window with 'Show dice stats' on) a report is unique by itself; without them (the chat window's default, the
    old '*** DR =' lines) it is known by its place: `after`, the key of the report before it in the same file."""
    what = [die, list(faces), squash(category), squash(player)]
    basis = ["vasl", *what, squash(stats), squash(series)] if stats or series else ["chat", *what, after]
    return hashlib.sha256(json.dumps(basis).encode()).hexdigest()[:32]
