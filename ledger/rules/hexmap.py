"""The ASL hex grid of a Map Group (KGP1): lettered columns (A-Z, then AA-ZZ), numbered rows,
alternate columns offset half a hex. Hexes are named with their Map Group: 'StJ19', 'LgN25',
'StGG1'; a Location adds its level: 'StJ19/1', 'StJ19/2' (ground level has none)."""

from __future__ import annotations

import re
from functools import cache, cached_property, lru_cache
from typing import NamedTuple

from ..errors import BadInput

# 'StJ19' (KGP: a two-letter Map Group, then the column), 'DTW-P5' or 'DTW P5' (CGS maps: a separator)
_LOCATION = re.compile(r"^(?P<group>[A-Z][a-z]|[A-Z]{2,3}(?=[- ]))[- ]?(?P<column>[A-Z]{1,3})(?P<row>\d{1,3})"
                       r"(?:/(?P<level>-?\d))?$")


def column_index(label: str, rule: str | None = None) -> int:
    """A..Z are 0..25; AA..ZZ (a doubled letter, as on ASL boards) are 26..51; AAA.. 52.. and so on."""
    if label and label.isalpha() and label.isupper() and len(set(label)) == 1:
        return 26 * (len(label) - 1) + ord(label[0]) - ord("A")
    raise BadInput(f"malformed hex column '{label}': A-Z or a doubled letter AA-ZZ", rule)


def column_label(index: int) -> str:
    return chr(ord("A") + index % 26) * (1 + index // 26)


class Hex(NamedTuple):  # a tuple: hashed, compared and ordered in C (every Setup Area determination, 8.605)
    group: str
    column: int
    row: int

    def __str__(self) -> str:
        return _hex_name(self.group, self.column, self.row)


@cache
def _hex_name(group: str, column: int, row: int) -> str:
    """'StJ19', 'DTW-P5': worked out once per hex (every map's document names each hex again)."""
    separator = "" if len(group) == 2 and group[1].islower() else "-"
    return f"{group}{separator}{column_label(column)}{row}"


class Location(NamedTuple):
    hex: Hex
    level: int = 0

    def __str__(self) -> str:
        return f"{self.hex}" + (f"/{self.level}" if self.level else "")


@lru_cache(maxsize=8192)  # a map's Locations are read again at every CG Date's Setup Area determination (8.605)
def parse_location(text: str, rule: str | None = None) -> Location:
    """`rule`: the hex-grid rule of the campaign's own system (KGP1), cited when the text is no Location."""
    match = _LOCATION.match(text.strip())
    if not match:
        raise BadInput(f"malformed Location '{text}': map, column, row and optional level, e.g. StJ19, StJ19/1, "
                       "LgN25, DTW-P5", rule)
    hex_ = Hex(match["group"], column_index(match["column"], rule), int(match["row"]))
    return Location(hex_, int(match["level"] or 0))


class Grid:
    """One Map Group's hexes. `shifted` says which columns ('odd' or 'even', counting A as 0) sit half
    a hex lower; the rest follows from that."""

    def __init__(self, group: str, columns: tuple[int, int], rows: tuple[int, int], shifted: str):
        self.group = group
        self.columns = columns
        self.rows = rows
        self.shifted = shifted

    def is_shifted(self, column: int) -> bool:
        return (column % 2 == 1) == (self.shifted == "odd")

    def contains(self, hex_: Hex) -> bool:
        return (hex_.group == self.group and self.columns[0] <= hex_.column <= self.columns[1]
                and self.rows[0] <= hex_.row <= self.rows[1])

    @cached_property
    def hexes(self) -> list[Hex]:
        return [Hex(self.group, c, r) for c in range(self.columns[0], self.columns[1] + 1)
                for r in range(self.rows[0], self.rows[1] + 1)]

    def neighbours(self, hex_: Hex) -> tuple[Hex, ...]:
        found = self.adjacent.get(hex_)
        return found if found is not None else _neighbours(self.group, self.columns, self.rows, self.shifted, hex_)

    @cached_property
    def adjacent(self) -> dict[Hex, tuple[Hex, ...]]:
        """Each hex of the map -> the hexes adjacent to it (a Setup Area determination walks them all, 8.605)."""
        return {h: _neighbours(self.group, self.columns, self.rows, self.shifted, h) for h in self.hexes}

    def cube(self, hex_: Hex) -> tuple[int, int, int]:
        x = hex_.column
        # offset -> cube for flat-topped columns ("odd-q" / "even-q": which columns sit half a hex lower)
        z = hex_.row - (x - (x & 1)) // 2 if self.shifted == "odd" else hex_.row - (x + (x & 1)) // 2
        return x, -x - z, z

    def distance(self, a: Hex, b: Hex) -> int:
        ax, ay, az = self.cube(a)
        bx, by, bz = self.cube(b)
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def within(self, sources: set[Hex], reach: int) -> dict[Hex, int]:
        """Every hex within `reach` hexes of any source, with its distance (a breadth-first search)."""
        found = {h: 0 for h in sources}
        frontier = list(sources)
        neighbours = self.neighbours
        for step in range(1, reach + 1):
            nxt = []
            for h in frontier:
                for n in neighbours(h):
                    if n not in found:
                        found[n] = step
                        nxt.append(n)
            frontier = nxt
        return found


@cache
def grid(group: str, columns: tuple[int, int], rows: tuple[int, int], shifted: str) -> Grid:
    """The Grid of these bounds, made once per process (its hexes and their adjacency worked out once: every CG
    Date's Setup Areas walk them again)."""
    return Grid(group, columns, rows, shifted)


@cache
def _neighbours(group: str, columns: tuple[int, int], rows: tuple[int, int], shifted: str, hex_: Hex) -> tuple[Hex, ...]:
    """The hexes adjacent to one on its map (worked out once per hex and map: every CG Date's areas ask again)."""
    c, r = hex_.column, hex_.row
    side = (r, r + 1) if (c % 2 == 1) == (shifted == "odd") else (r - 1, r)
    candidates = [(c, r - 1), (c, r + 1), (c - 1, side[0]), (c - 1, side[1]), (c + 1, side[0]), (c + 1, side[1])]
    return tuple(Hex(group, cc, rr) for cc, rr in candidates
                 if columns[0] <= cc <= columns[1] and rows[0] <= rr <= rows[1])


def map_grid(geometry) -> "Grid":
    """The grid a Map Group's map file gives (its columns, rows and which columns are shifted)."""
    return grid(geometry.group, (column_index(geometry.columns[0]), column_index(geometry.columns[1])),
                (geometry.rows[0], geometry.rows[1]), geometry.shifted)
