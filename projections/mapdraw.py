"""The hex grid as the Map Group drawing (mapsvg.py) lays it out, and the SVG pieces it is drawn with. Geometry
(KGP1 / ASL): columns are lettered A..Z then AA..ZZ (index 26..51), rows numbered; hexes are flat-topped and stacked
vertically within a column; the columns whose index parity is the map's "shifted" ("odd": B, D, F, ... counting A
as 0) sit half a hex lower than the others. The pieces: the colours the map and its legend share, escaped text,
short numbers, hex outlines and tints. Stdlib only, pure."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from html import escape
from typing import Any

NML_COLOR = "#ffe94d"
HEX_STROKE = "#9a9a9a"
TINT = 0.24  # how much side colour goes into a Setup Area shade (the rest is white paper)

R = 24.0  # hex circumradius: a flat-topped hex is 2R wide and sqrt(3)R (~41.6) high
H = math.sqrt(3) * R

_HEX = re.compile(r"^([A-Z][a-z])([A-Z]{1,2})(\d+)$")
_UNIT = [(math.cos(math.radians(60 * i)), math.sin(math.radians(60 * i))) for i in range(6)]
# hexside i joins vertex i and i+1 and faces 60i+30 degrees (y down): lower-right, below, lower-left,
# upper-left, above, upper-right


# ---------------------------------------------------------------- geometry

def column_index(label: str) -> int:
    """A..Z are 0..25; AA..ZZ (a doubled letter, as on ASL boards) are 26..51."""
    if len(label) == 1 and "A" <= label <= "Z":
        return ord(label) - ord("A")
    if len(label) == 2 and label[0] == label[1] and "A" <= label[0] <= "Z":
        return 26 + ord(label[0]) - ord("A")
    raise ValueError(f"malformed hex column {label!r}: A-Z or a doubled letter AA-ZZ")


def column_label(index: int) -> str:
    letter = chr(ord("A") + index % 26)
    return letter if index < 26 else letter * 2


def parse_hex(name: str) -> tuple[str, int, int]:
    """'StJ19' -> ('St', 9, 19): Map Group, column index, row."""
    match = _HEX.match(name)
    if not match:
        raise ValueError(f"malformed hex {name!r}: Map Group, column, row, e.g. StJ19")
    return match[1], column_index(match[2]), int(match[3])


def parse_location(text: str) -> tuple[str, int]:
    """'StJ19/2' -> ('StJ19', 2); ground level is 0."""
    name, _, level = text.strip().partition("/")
    parse_hex(name)
    try:
        return name, int(level or 0)
    except ValueError:
        raise ValueError(f"malformed Location {text!r}: a hex and an optional level, e.g. StJ19/1") from None


def is_shifted(column: int, shifted: str) -> bool:
    """Does this column sit half a hex lower?"""
    return (column % 2 == 1) == (shifted == "odd")


def hex_center(column: int, row: int, shifted: str) -> tuple[float, float]:
    """The centre of a hex in map units, column A row 0 at the origin."""
    return column * 1.5 * R, row * H + (H / 2 if is_shifted(column, shifted) else 0.0)


def neighbour(column: int, row: int, side: int, shifted: str) -> tuple[int, int]:
    """The hex across hexside `side` (0 lower-right, 1 below, 2 lower-left, 3 upper-left, 4 above,
    5 upper-right)."""
    low = is_shifted(column, shifted)
    return [(column + 1, row + 1 if low else row), (column, row + 1), (column - 1, row + 1 if low else row),
            (column - 1, row if low else row - 1), (column, row - 1), (column + 1, row if low else row - 1)][side]


# ---------------------------------------------------------------- helpers

def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


@lru_cache(maxsize=8192)  # a map's coordinates repeat (a column's x, a row's y): each formatted once (~30% of a map)
def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if v % 1 else str(int(v))


def _tint(color: str, amount: float = TINT) -> str:
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - amount * (255 - c)):02x}" for c in rgb)


def _hex_points(cx: float, cy: float, scale: float = 1.0) -> str:
    r = R * scale
    return " ".join(f"{_f(cx + r * ux)},{_f(cy + r * uy)}" for ux, uy in _UNIT)


def _hex_path(cx: float, cy: float, scale: float = 1.0) -> str:
    r = R * scale
    return "M" + "L".join(f"{_f(cx + r * ux)},{_f(cy + r * uy)}" for ux, uy in _UNIT) + "Z"
