"""Dice reports as VASL's chat window shows them, copied with "Use images for dice rolls" off.

VASL's chat window (vasl-developers/vasl, src/VASL/build/module/ASLChatter.java) does not show the dice
bot's line: it re-renders it. Two renderings are read here, and both keep the colored die first:

- VASL 6.5 on (the HTML chat window, `makeMessageString()`), one line per report:
      *   IFT 3 5   ...  FredKors Cower if MMC w/o LDR [1 / 8 avg 6,62 (6,62)] (01.51 - by random.org)
  '*', the category, the colored and the white die (one die for a dr), '  ...  ', the player, the special
  notes VASL adds (`specialMessages`), then the statistics and series only with "Show dice stats after each
  dice rolls" on (and only then the ROF die). The Dust die is never shown in text.
- VASL 6.4 and before (a styled text pane, `ParseNewDiceRoll()`): '   IFT<TAB>3,5  ...  FredKors   notes'.

Between the player and the notes there is only a space, so the notes are read against VASL's own list of
them (per category, as ASLChatter adds them); a name given with --player is taken whole first.
"""

from __future__ import annotations

import re

from ..errors import BadInput
from .report import Report, squash

# The notes ASLChatter adds (ASLChatter.java parseNewDiceRoll, handleSpecialMessagesForOtherDice) and the
# environment levels it names (src/VASL/environment/DustLevel, LVLevel, FogLevel, HeatHazeLevel,
# SunBlindnessLevel .java).
SAN = ["Axis/Allied SAN", "Axis SAN", "Allied SAN"]
BOOBY_TRAP = ["Axis/Allied Booby Trap", "Axis Booby Trap", "Allied Booby Trap"]
DUST = ["Light Dust (F11.71)", "Moderate Dust (F11.72)", "Heavy Dust (F11.73)", "Very Heavy Dust (F11.731)",
        "Extremely Heavy Dust (F11.732)"]
ENVIRONMENT = DUST + [
    "+1 Night LV", "LV Shading Only", "+1 LV (E3.1)", "Mist (E3.32) +0/+1/...", "Rain (E3.51) +0/+1/...",
    "Heavy Rain (E3.51) +1/+2/...", "Falling Snow (E3.71) +0/+1/...", "Heavy Falling Snow(E3.71) +1/+2/...",
    "Light Fog (E3.311), L-1, +1", *(f"Light Fog (E3.311) L{n}, +1" for n in range(1, 5)), "Light Fog (E3.311) L0,+1",
    *(f"{kind} Fog (E3.311) L{n}, +2" for kind in ("Moderate",) for n in ("-1", "0", "1", "2", "3", "4")),
    *(f"Heavy Fog (E3.31) L{n}, +3" for n in ("-1", "0", "1", "2", "3", "4")),
    "Heat Haze (F11.62)", "Intense Heat Haze (F11.621)",
    "Early Morning Sun Blindness (F11.611) +2 => E", "Late Afternoon Sun Blindness (F11.612) +2 => W",
]
TOTAL = r"Total: -?\d+"
BY_CATEGORY = {
    "TH": ["Unlikely Hit (C3.6)", "Multiple Hits 15..40mm (C3.8)", "Turret", "Hull", *ENVIRONMENT],
    "TK": ["Dud (C7.35)"],
    "MC": ["Heat of Battle (A15.1)", "Casualty MC (A10.31)", *ENVIRONMENT],
    "Rally": ["Heat of Battle (A15.1) or Field Promotion (A18.11)", "Fate -> Casualty Reduction (A10.64)"],
    "IFT": ["Unlikely Kill vs * (A7.309)", "Cower if MMC w/o LDR", *ENVIRONMENT],
    "CC": ["Infiltration (A11.22), Field Promotion (A18.12), Unlikely Kill (A11.501)", "Infiltration (A11.22)"],
    "EP": ["Green and Conscript Units Panic", "2nd Line, Partisan, Green, and Conscript Units Panic",
           "1st Line, 2nd Line, Partisan, Green, and Conscript Units Panic", "Any Unit Panics"],  # SASL extension
    "SA": ["Eliminates SMC, Dummy stack, Sniper; Stuns & Recalls CE crew; breaks MMC & Inherent crew of certain "
           "vehicles; immobilizes unarmored vehicle (A14.3)",
           "Eliminates Dummy stack; Wounds SMC; Stuns CE crew; pins MMC, Inherent crew of certain vehicles, "
           "Sniper (A14.3)"],
}
CATEGORIES = ("IFT", "TH", "TK", "MC", "TC", "Rally", "CC", "Other", "SA", "RS", "EP")


def _phrase(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split())


def _notes(category: str) -> re.Pattern:
    phrases = sorted({*SAN, *BOOBY_TRAP, *BY_CATEGORY.get(category, [])}, key=len, reverse=True)
    dust = "|".join(_phrase(d) for d in DUST)
    one = "|".join([rf"(?:{dust})\s+-\s+if\s+interdicted,\s+MC\s+is\s+-?\d+", TOTAL, *map(_phrase, phrases)])
    return re.compile(rf"^(?P<player>.*?)(?:\s+(?P<notes>(?:{one})(?:\s*,\s*(?:{one}))*))?\s*,?\s*$")


_NOTES: dict[str, re.Pattern] = {}
# '*', then what VASL puts before '  ...  ' (category and dice), then the rest; a line with nothing before the
# dots is a player's chat message (or, with nothing after them either, a report VASL could not show).
_NEW = re.compile(r"^\*(?!\*)\s*(?P<pre>[^.]*?)\s*\.\.\.(?:\s+(?P<rest>.*?))?\s*$")
_NEW_PRE = re.compile(r"^(?P<category>\S+)\s+(?P<dice>\d+(?:\s+\d+)?)$")
_OLD = re.compile(r"^(?P<category>[^\s*<\-][^\t]*?)(?P<sep>\t+|\s+)(?P<dice>\d+(?:,\d+){0,2})\s+\.\.\.\s+(?P<rest>.+)$")
_STATS = re.compile(r"\[(?P<stats>[^\]]*)\]\s*\((?P<series>[^()]*)\)(?P<tail>.*)$")
_ROF = re.compile(r"ROF die:\s*(?P<rof>\d+)")
_KEPT = re.compile(r"\s+(?P<note>" + "|".join(_phrase(n) for n in [*SAN, *BOOBY_TRAP]) + r")\s*$")
_HIT = re.compile(r"<\s*(?P<hit>Turret|Hull)\b>?")


def parse_chat(text: str, players: tuple[str, ...] = ()) -> Report | None:
    """A report as the chat window shows it, None for any other line; BadInput for a line that is a dice report
    the chat window shows but that cannot be read."""
    line = text.strip("\r\n")
    if m := _NEW.match(line.strip()):
        pre, rest = m["pre"], m["rest"] or ""
        if not pre:
            if rest:
                return None  # '*   ...  FredKors  - hello': a player's chat message
            raise BadInput("a dice report the chat window shows without its dice or player (VASL does so for a "
                           "player with no name): only the game's .vlog holds it")
        parts = _NEW_PRE.match(pre)
        if not parts:
            return None
        dice = parts["dice"].split()
        return _report(line.strip(), parts["category"], dice, rest, players)
    if m := _OLD.match(line.lstrip(" ")):
        if "\t" not in m["sep"] and squash(m["category"]) not in CATEGORIES:
            return None
        return _report(line.strip(), m["category"], m["dice"].split(","), m["rest"], players)
    return None


def _report(line: str, category: str, dice: list[str], rest: str, players: tuple[str, ...]) -> Report:
    values = [int(d) for d in dice]
    if not all(1 <= v <= 6 for v in values):
        raise BadInput(f"malformed VASL dice report in the chat window: die value out of 1-6 in {line[:60]!r}")
    category = squash(category)
    die = "dr" if len(values) == 1 else "DR"
    faces = tuple(values) if die == "dr" else (values[1], values[0])
    rest = squash(rest)
    found: dict = {}
    if m := _STATS.search(rest):
        found.update(stats=squash(m["stats"]), series=m["series"].strip())
        tail = m["tail"]
        if r := _ROF.search(tail):
            found["rof"] = int(r["rof"]) if 1 <= int(r["rof"]) <= 6 else None
            tail = tail[: r.start()] + tail[r.end():]
        if h := _HIT.search(tail):
            found["hit"] = h["hit"]
            tail = tail[: h.start()] + tail[h.end():]
        before = rest[: m.start()]
        if kept := _KEPT.search(before):  # a SAN VASL left before the statistics (TK, CC, Rally; TC's Booby Trap)
            found["kept"] = kept["note"]
            before = before[: kept.start()]
        rest = squash(before + " " + tail)
    player, notes = _split(rest, category, players)
    if found.get("kept"):
        notes = f"{notes}, {found['kept']}" if notes else found["kept"]
    if not player:
        raise BadInput(f"malformed VASL dice report in the chat window: no player in {line[:60]!r}")
    dust = next((d for d in DUST if d in notes), "")
    total = re.search(TOTAL, notes)
    return Report(line=line, die=die, faces=faces, category=category, player=player, special=notes,
                  stats=found.get("stats", ""), series=found.get("series", ""),
                  third=values[2] if len(values) == 3 else None, dust=dust,
                  total=int(total[0].split()[-1]) if total else None, rof=found.get("rof"), hit=found.get("hit", ""),
                  form="chat")


def _split(rest: str, category: str, players: tuple[str, ...]) -> tuple[str, str]:
    """(player, notes): a known player name is taken whole, else VASL's notes are read off the end."""
    for name in sorted((squash(p) for p in players if p and p.strip()), key=len, reverse=True):
        if rest == name or rest.startswith(name + " "):
            return name, squash(rest[len(name):].strip(" ,"))
    if category not in _NOTES:
        _NOTES[category] = _notes(category)
    m = _NOTES[category].match(rest)
    return squash(m["player"]), squash(m["notes"] or "")
