"""A command line that `status` offers (`cgledger scenario-end --lvp german=N --lvp us=N`) as a form: the words the
ledger chose stay fixed, what the player fills in (N, attack|idle, RG_ID, LOCATION, ...) becomes an input. The form
sends the line back with the values, and the very words are run (cli/web/runner.py): no rule is repeated here."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cgledger.cli.script import words as split_words

# Placeholders the guidance writes (projections/guidance.py), with what the input asks for.
LABELS = {"N": "number", "RG_ID": "RG", "ITEM": "fortification", "ID": "Setup Area", "LOCATION": "Location (hex)",
          "UNIT": "unit", "FILE": "file", "HEX": "hex", "W,C": "white,colored", "LINE": "VASL line", "TEXT": "text",
          "DATE": "CG Date", "EVENT": "event", "REASON": "reason", "SIDE": "side", "STEP": "step", "GROUP": "Map Group",
          "KEY": "DRM"}
_HOLE = re.compile(r"^(?P<prefix>[^=|]*=)?(?P<hole>[A-Z][A-Z_,]*|[\w./-]+(?:\|[\w./-]+)+)$")


@dataclass(frozen=True)
class Part:
    word: str  # the word as written: fixed, or a placeholder
    prefix: str = ""  # `german=` of `--chit german=attack|idle`
    label: str = ""  # set for an input
    options: tuple[str, ...] = ()  # a choice (`attack|idle`)
    optional: bool = False  # inside [ ] in the guidance: left out when empty
    number: bool = False

    @property
    def hole(self) -> bool:
        return bool(self.label)


def template(line: str) -> list[Part]:
    """The parts of an offered command line (without its leading `cgledger`); alternatives in parentheses, which
    the line only mentions, are left out."""
    line = re.sub(r"\s*\(or [^)]*\)", "", line).strip()
    parts: list[Part] = []
    optional = False
    for word in split_words(line):
        if word.startswith("["):
            optional, word = True, word[1:]
        closing = word.endswith("]")
        word = word.rstrip("]")
        match = _HOLE.match(word)
        hole = match and (match["hole"] in LABELS or "|" in match["hole"]) and not word.startswith("-")
        if hole:
            name = match["hole"]
            options = tuple(name.split("|")) if "|" in name else ()
            parts.append(Part(word, match["prefix"] or "", LABELS.get(name, "choice"), options, optional, name == "N"))
        elif word:
            parts.append(Part(word, optional=optional))
        optional = optional and not closing
    if parts and parts[0].word == "cgledger":
        parts = parts[1:]
    return parts


def fill(parts: list[Part], values: list[str]) -> list[str]:
    """The words to run: each input's value in its place (a choice must be one of its options); an optional
    option left empty goes with its flag."""
    out: list[str] = []
    holes = iter(values)
    for part in parts:
        if not part.hole:
            out.append(part.word)
            continue
        value = next(holes, "").strip()
        if not value:
            if part.optional:
                if out and out[-1].startswith("--") and parts[parts.index(part) - 1].optional:
                    out.pop()  # `[--count N]` left empty: neither word
                continue
            raise ValueError(f"fill in the {part.label}")
        if part.options and value not in part.options:
            raise ValueError(f"'{value}' is not one of {', '.join(part.options)}")
        out.append(part.prefix + value)
    return out


def fixed(parts: list[Part]) -> bool:
    """A line with nothing to fill in: the page offers it as one button."""
    return not any(p.hole for p in parts)


def label(parts: list[Part], sides: dict[str, str]) -> str:
    """A button's words for a line with nothing to fill in: a roll says its table and side, anything else its
    command."""
    words = [p.word for p in parts]
    if words[:1] == ["roll"] and len(words) > 1:
        side = words[words.index("--side") + 1] if "--side" in words[:-1] else ""
        rg = f", RG {words[words.index('--rg') + 1]}" if "--rg" in words[:-1] else ""
        return f"Roll {words[1]}" + (f" for the {sides.get(side, side)} side" if side else "") + rg
    return " ".join(words)
