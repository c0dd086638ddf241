"""One Map Group marked as KGP 8.605 "MARKING THE MAP" asks players to mark a photocopied map, as ONE
self-contained, printable SVG document: Strategic Locations outlined in the Controlling side's colour
(red U.S., blue German) with their kind letter in a small square, No Man's Land yellow, each side's
Setup Areas lightly shaded in its colour with the area ID written once, hexes in both sides' Setup
Areas striped with both, Isolated hexes cross-hatched and marked "I", Uncontrolled Territory white,
Entry Areas' map-edge hexsides barred in the side colour, LVP Locations with their value, hex labels
and a legend.

A pure function of the JSON of `cgledger areas --json` plus a "map" and a "sides" key (see map_svg);
stdlib only, no I/O, no network.

Geometry (KGP1 / ASL): columns are lettered A..Z then AA..ZZ (index 26..51), rows numbered; hexes are
flat-topped and stacked vertically within a column; the columns whose index parity is the map's
"shifted" ("odd": B, D, F, ... counting A as 0) sit half a hex lower than the others."""

from __future__ import annotations

import math
import re
import textwrap
from functools import lru_cache
from html import escape
from typing import Any

from cgledger.ledger.domain.wording import counted

SIDE_COLORS = {"german": "#1f4e9c", "us": "#c0282d"}
PALETTE = ["#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"]
NML_COLOR = "#ffe94d"
HEX_STROKE = "#9a9a9a"
LABEL_COLOR = "#8a8a8a"
TINT = 0.24  # how much side colour goes into a Setup Area shade (the rest is white paper)
KINDS = (("B", "Building Location"), ("E", "Entrenchment"), ("F", "Fortification"), ("G", "functioning Gun"),
         ("V", "manned Immobile vehicle (MA \u2265 20mm)"))

R = 24.0  # hex circumradius: a flat-topped hex is 2R wide and sqrt(3)R (~41.6) high
H = math.sqrt(3) * R
MARGIN = 34.0  # room around the map for the Entry Area labels
HEADER = 44.0
LEGEND_W = 270.0

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


def _color(side: str, sides: list[str]) -> str:
    return SIDE_COLORS.get(side) or PALETTE[sides.index(side) % len(PALETTE)] if side in sides else "#555555"


def _tint(color: str, amount: float = TINT) -> str:
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - amount * (255 - c)):02x}" for c in rgb)


def _hex_points(cx: float, cy: float, scale: float = 1.0) -> str:
    r = R * scale
    return " ".join(f"{_f(cx + r * ux)},{_f(cy + r * uy)}" for ux, uy in _UNIT)


def _hex_path(cx: float, cy: float, scale: float = 1.0) -> str:
    r = R * scale
    return "M" + "L".join(f"{_f(cx + r * ux)},{_f(cy + r * uy)}" for ux, uy in _UNIT) + "Z"


def _lvp_text(lvp: Any, level: int) -> str:
    return f"{lvp} LVP" + (f"/{level}" if level else "")


# ---------------------------------------------------------------- the document

def map_svg(areas: dict, title: str = "") -> str:
    """The marked map of one Map Group as an SVG document (a string).

    `areas` is the JSON of `cgledger areas --json` ("hexes", "setup_areas", "isolated",
    "no_strategic_location", "lvp") plus "map" ({"group", "columns", "rows", "shifted", "entry_areas",
    "lvp_locations"}) and "sides" ({side id: display name}). Every text is escaped."""
    geo, shifted, hexes, sides, name_of, color, group = _read(areas)
    cell, center, map_w, map_h = _layout(hexes, shifted)
    isolated_locations = {s: [str(x) for x in (areas.get("isolated") or {}).get(s, [])] for s in sides}

    width = MARGIN * 2 + map_w + LEGEND_W
    legend_lines = _legend(areas, geo, sides, name_of, color, isolated_locations)
    legend_h = HEADER + MARGIN + sum(step for step, _ in legend_lines) + 20
    height = max(HEADER + MARGIN * 2 + map_h, legend_h)
    heading = title or f"Map Group {group}: Setup Areas (KGP 8.605)"
    out = _svg_open(width, height, heading, group) + _iso_patterns(sides, color)
    both = _BothPatterns(color)
    if len(sides) > 1:
        both(tuple(sides))  # both-0: the legend's swatch
    body = _body(areas, geo, hexes, sides, name_of, color, (cell, center, map_w, map_h), isolated_locations, both)
    out += both.defs + ["</defs>", f'<rect width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>',
                        f'<text x="{_f(MARGIN)}" y="22" font-size="16" font-weight="bold" fill="#111">{_e(heading)}'
                        "</text>",
                        f'<text x="{_f(MARGIN)}" y="37" font-size="10" fill="#555">'
                        f"{_e(_subtitle(geo, group, len(hexes)))}</text>",
                        '<g id="map">', *body, "</g>",
                        _legend_svg(legend_lines, MARGIN * 2 + map_w + 4, HEADER + MARGIN - 8), "</svg>"]
    return "\n".join(out) + "\n"


def _read(areas: dict) -> tuple:
    """(geo, shifted, hexes, sides, name_of, color, group) of the areas' JSON."""
    geo = areas.get("map") or {}
    hexes = [h for h in areas.get("hexes", []) if isinstance(h, dict) and "hex" in h]
    names = areas.get("sides") or {}
    sides = list(names) or sorted({k for h in hexes for k in h} - {"hex", "area", "isolated", "strategic"})
    name_of = {s: str(names.get(s, s)) for s in sides}
    color = {s: _color(s, sides) for s in sides}
    group = geo.get("group") or (parse_hex(hexes[0]["hex"])[0] if hexes else "")
    return geo, geo.get("shifted", "odd"), hexes, sides, name_of, color, group


def _body(areas: dict, geo: dict, hexes: list, sides: list, name_of: dict, color: dict, layout: tuple,
          isolated_locations: dict, both: "_BothPatterns") -> list[str]:
    """The map itself: hexes, Isolated hatching, Entry Areas, Strategic Locations, texts, Setup Area ids."""
    cell, center, map_w, map_h = layout
    shifted = geo.get("shifted", "odd")
    tags = _tags_of(hexes)
    isolated_set = {(loc, s) for s, locs in isolated_locations.items() for loc in locs}
    isolated_mark = _isolated_marks(hexes, sides, isolated_locations)
    lvp_at = _lvp_at(geo)
    busy = {n for n in cell if tags.get(n) or lvp_at.get(n) or isolated_mark.get(n)}
    labelled = _area_labels(areas.get("setup_areas") or {}, sides, center, busy)
    body = _hex_polygons(hexes, sides, center, color, both)
    body += [f'<path class="isolated" data-hex="{_e(name)}" data-side="{_e(s)}" '  # cross-hatched in the side colour
             f'd="{_hex_path(*center[name], .96)}" fill="url(#iso-{sides.index(s)})"/>'
             for name, marks in isolated_mark.items() for s in marks]
    occupied = set(cell.values())
    for area in geo.get("entry_areas") or []:  # the map-edge hexsides of their hexes barred in the side colour
        body.extend(_entry_area(area, cell, center, occupied, shifted, name_of, color,
                                (MARGIN, HEADER + MARGIN, MARGIN + map_w, HEADER + MARGIN + map_h)))
    body += _strategic_marks(tags, center, color, isolated_set)
    body += _texts(cell, center, tags, lvp_at, isolated_mark, color)
    body += _area_ids(labelled, center, busy, sides, color)
    return body


def _lvp_at(geo: dict) -> dict[str, list[str]]:
    """Each LVP Location's hex -> its LVP texts (a level shown with its value)."""
    lvp_at: dict[str, list[str]] = {}
    for item in geo.get("lvp_locations") or []:
        name, level = parse_location(str(item.get("location", "")))
        lvp_at.setdefault(name, []).append(_lvp_text(item.get("lvp"), level))
    return lvp_at


def _svg_open(width: float, height: float, heading: str, group: str) -> list[str]:
    """The document's opening, its title and style, up to its <defs>."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" height="{_f(height)}" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
        f'data-group="{_e(group)}">',
        f"<title>{_e(heading)}</title>",
        "<style>"
        f".hex{{stroke:{HEX_STROKE};stroke-width:.6}}"
        f".lbl{{font-size:6.5px;fill:{LABEL_COLOR};text-anchor:middle}}"
        ".halo{stroke:#fff;stroke-width:1.6px;paint-order:stroke}"
        ".area{font-weight:bold;text-anchor:middle;stroke:#fff;stroke-width:2.5px;paint-order:stroke;"
        "stroke-linejoin:round}"
        ".tag text{font-size:7.5px;font-weight:bold;text-anchor:middle}"
        ".iso{font-size:10px;font-weight:bold;text-anchor:middle;stroke:#fff;stroke-width:2px;paint-order:stroke}"
        ".lvp{font-size:6.5px;font-weight:bold;fill:#111;text-anchor:middle;stroke:#fff;stroke-width:2px;"
        "paint-order:stroke}"
        ".leg{font-size:10px;fill:#111}.legh{font-size:11px;font-weight:bold;fill:#111}"
        "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
        "</style>",
        "<defs>",
    ]


def _iso_patterns(sides: list[str], color: dict) -> list[str]:
    """Each side's cross-hatch for its Isolated hexes."""
    return [f'<pattern id="iso-{sides.index(s)}" width="7" height="7" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><path d="M0,3.5H7M3.5,0V7" stroke="{color[s]}" stroke-width="1" '
            f'stroke-opacity=".75"/></pattern>' for s in sides]


class _BothPatterns:
    """The stripes of hexes in several sides' Setup Areas: one pattern per set of owners, defined at first use."""

    def __init__(self, color: dict):
        self.color, self.ids, self.defs = color, {}, []

    def __call__(self, owners: tuple[str, ...]) -> str:
        if owners not in self.ids:
            pid = f"both-{len(self.ids)}"
            self.ids[owners] = pid
            stripe = 5.0
            tile = stripe * len(owners)
            rects = "".join(f'<rect x="{_f(i * stripe)}" y="0" width="{_f(stripe)}" height="{_f(tile)}" '
                            f'fill="{_tint(self.color[s], TINT + .08)}"/>' for i, s in enumerate(owners))
            self.defs.append(f'<pattern id="{pid}" width="{_f(tile)}" height="{_f(tile)}" '
                             f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">{rects}</pattern>')
        return self.ids[owners]


def _subtitle(geo: dict, group: str, count: int) -> str:
    cols, rows = geo.get("columns"), geo.get("rows")
    sub = [f"Map Group {group}"] if group else []
    if isinstance(cols, (list, tuple)) and len(cols) == 2 and isinstance(rows, (list, tuple)) and len(rows) == 2:
        sub.append(f"columns {cols[0]}\u2013{cols[1]}, rows {rows[0]}\u2013{rows[1]}")
    sub.append(counted(count, "hex", "hexes"))
    return " \u00b7 ".join(sub)


def _hex_polygons(hexes: list[dict], sides: list[str], center: dict, color: dict, both_pattern) -> list[str]:
    """The hexes: one polygon each, filled by classification (No Man's Land, both sides' Setup Areas striped)."""
    body = []
    for h in hexes:
        name = h["hex"]
        cx, cy = center[name]
        states = [h.get(s) for s in sides]
        owners = tuple(s for s in sides if h.get(s) == "setup")
        if "nml" in states:
            fill, kind = NML_COLOR, "nml"
        elif len(owners) > 1:
            fill, kind = f"url(#{both_pattern(owners)})", "both"
        elif owners:
            fill, kind = _tint(color[owners[0]]), f"setup-{owners[0]}"
        else:
            fill, kind = "#ffffff", "uncontrolled"
        body.append(f'<polygon class="hex" data-hex="{_e(name)}" data-kind="{_e(kind)}" '
                    f'points="{_hex_points(cx, cy)}" fill="{fill}"/>')
    return body


def _strategic_marks(tags: dict, center: dict, color: dict, isolated_set: set) -> list[str]:
    """Strategic Locations: hex outlined in the Controlling side's colour, kind letters in small squares."""
    body = []
    for name, found in tags.items():
        if name not in center:
            continue
        cx, cy = center[name]
        outline_sides = list(dict.fromkeys(side for _l, side, _k, _loc in found))
        for i, s in enumerate(outline_sides):
            body.append(f'<path class="outline" data-hex="{_e(name)}" data-side="{_e(s)}" '
                        f'd="{_hex_path(cx, cy, .88 - .12 * i)}" fill="none" stroke="{color.get(s, "#555")}" '
                        'stroke-width="2.4" stroke-linejoin="round"/>')
        body.extend(_tags(found, cx, cy, color, isolated_set))
    return body


def _texts(cell: dict, center: dict, tags: dict, lvp_at: dict, isolated_mark: dict, color: dict) -> list[str]:
    """Hex labels (with a white halo where a Strategic outline runs under them), LVP values, "I" on Isolated hexes."""
    body = []
    for name, (c, r) in cell.items():
        cx, cy = center[name]
        cls = "lbl halo" if name in tags else "lbl"
        body.append(f'<text class="{cls}" x="{_f(cx)}" y="{_f(cy - H / 2 + 7.8)}">{_e(column_label(c))}{r}</text>')
    for name, texts in lvp_at.items():
        if name in center:
            cx, cy = center[name]
            body.append(f'<text class="lvp" data-hex="{_e(name)}" x="{_f(cx)}" y="{_f(cy + 7)}">'
                        f'{_e(" ".join(texts))}</text>')
    for name, marks in isolated_mark.items():
        cx, cy = center[name]
        for i, s in enumerate(marks):
            x = cx + (i - (len(marks) - 1) / 2) * 9
            body.append(f'<text class="iso" data-hex="{_e(name)}" data-side="{_e(s)}" x="{_f(x)}" '
                        f'y="{_f(cy + H / 2 - 5)}" fill="{color[s]}">I</text>')
    return body


def _area_ids(labelled: dict, center: dict, busy: set, sides: list[str], color: dict) -> list[str]:
    """Setup Area IDs, once per area (a side slot of a crowded hex: left for the first side, right for the second)."""
    body = []
    for name, ids in labelled.items():
        cx, cy = center[name]
        crowded = name in busy or len(ids) > 1
        for i, (s, area_id) in enumerate(ids):
            if crowded:
                slot = sides.index(s) if len(ids) == 1 else i
                x, y, size = cx + (-.62 if slot % 2 == 0 else .62) * R, cy + 10, 11
            else:
                x, y, size = cx, cy + 5.5, 15
            body.append(f'<text class="area" data-side="{_e(s)}" data-area="{_e(area_id)}" x="{_f(x)}" '
                        f'y="{_f(y)}" font-size="{size}" fill="{color[s]}">{_e(area_id)}</text>')
    return body


def _layout(hexes: list[dict], shifted: str) -> tuple[dict, dict, float, float]:
    """Where each hex is: its column and row, its centre on the page; the map's width and height."""
    cell: dict[str, tuple[int, int]] = {}
    for h in hexes:
        _g, c, r = parse_hex(h["hex"])
        cell[h["hex"]] = (c, r)
    raw = {name: hex_center(c, r, shifted) for name, (c, r) in cell.items()}
    if raw:
        min_x = min(x for x, _ in raw.values()) - R
        min_y = min(y for _, y in raw.values()) - H / 2
        map_w = max(x for x, _ in raw.values()) + R - min_x
        map_h = max(y for _, y in raw.values()) + H / 2 - min_y
    else:
        min_x = min_y = 0.0
        map_w = map_h = 4 * R
    ox, oy = MARGIN - min_x, HEADER + MARGIN - min_y
    return cell, {name: (x + ox, y + oy) for name, (x, y) in raw.items()}, map_w, map_h


def _tags_of(hexes: list[dict]) -> dict[str, list[tuple[int, str, str, str]]]:
    """Each hex's Strategic Locations: [(level, side, kind, location)], in order."""
    tags: dict[str, list[tuple[int, str, str, str]]] = {}
    for h in hexes:
        for entry in h.get("strategic") or []:
            parts = str(entry).split()
            if not parts:
                continue
            _name, level = parse_location(parts[0])
            tags.setdefault(h["hex"], []).append(
                (level, parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else "?", parts[0]))
    for found in tags.values():
        found.sort()
    return tags


def _isolated_marks(hexes: list[dict], sides: list[str], isolated_locations: dict) -> dict[str, list[str]]:
    """The sides each hex is Isolated for: its own mark, or an Isolated Location in it."""
    isolated_mark = {h["hex"]: [s for s in sides if s in (h.get("isolated") or [])] for h in hexes}
    for s, locs in isolated_locations.items():
        for loc in locs:
            name = loc.partition("/")[0]
            if name in isolated_mark and s not in isolated_mark[name]:
                isolated_mark[name].append(s)
    return isolated_mark


def _area_labels(setup_areas: dict, sides: list[str], center: dict, busy: set) -> dict[str, list[tuple[str, str]]]:
    """One area ID per Setup Area, in the free hex nearest the area's centre (or a side slot of a busy one):
    hex -> [(side, area ID)]."""
    labelled: dict[str, list[tuple[str, str]]] = {}
    for s in sides:
        for area_id, members in (setup_areas.get(s) or {}).items():
            members = [m for m in members if m in center]
            if not members:
                continue
            mx = sum(center[m][0] for m in members) / len(members)
            my = sum(center[m][1] for m in members) / len(members)
            ranked = sorted(members, key=lambda m: ((center[m][0] - mx) ** 2 + (center[m][1] - my) ** 2, m))
            spot = next((m for m in ranked if m not in busy and m not in labelled), None)
            spot = spot or next((m for m in ranked if all(t[0] != s for t in labelled.get(m, []))), ranked[0])
            labelled.setdefault(spot, []).append((s, str(area_id)))
    return labelled


def _tags(found, cx: float, cy: float, color: dict, isolated_set: set) -> list[str]:
    """The kind letters of a hex's Strategic Locations, each in a small square in the side colour
    (a level > 0 as a small superscript; an Isolated Location's square dashed), in rows of three. Three or more
    Locations in one hex (a multi-level building) take smaller squares, so that a row stays inside the hex's upper
    half, clear of the LVP value, the Setup Area letter and the Isolated mark below."""
    out = []
    small = len(found) > 2
    size, gap, sup_w = (7.0, 1.0, 3.0) if small else (9.0, 1.5, 3.5)
    font = ' font-size="6px"' if small else ""
    rows = [found[i:i + 3] for i in range(0, len(found), 3)]
    for row_no, row in enumerate(rows):
        widths = [size + (sup_w if level else 0) for level, *_ in row]
        x = cx - (sum(widths) + gap * (len(row) - 1)) / 2
        y = cy - 11 + row_no * (size + 1.5)
        for (level, side, kind, loc), w in zip(row, widths):
            c = color.get(side, "#555555")
            dash = ' stroke-dasharray="2 1.2"' if (loc, side) in isolated_set else ""
            sup = f'<tspan dy="-2.2" font-size="{4.5 if small else 5.5}">{level}</tspan>' if level else ""
            out.append(f'<g class="tag" data-location="{_e(loc)}" data-side="{_e(side)}" data-kind="{_e(kind)}">'
                       f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(size)}" fill="#fff" '
                       f'stroke="{c}" stroke-width="1.2"{dash}/>'
                       f'<text x="{_f(x + w / 2 - (1.4 if level else 0))}" y="{_f(y + size * .8)}" fill="{c}"{font}>'
                       f'{_e(kind)}{sup}</text></g>')
            x += w + gap
    return out


def _entry_area(area, cell, center, occupied, shifted, name_of, color, bbox) -> list[str]:
    out = []
    area_sides = [s for s in area.get("sides") or [] if s in color] or ["?"]
    normals = []
    inside = [x for x in area.get("hexes") or [] if x in cell]
    for name in inside:
        c, r = cell[name]
        cx, cy = center[name]
        edges = [i for i in range(6) if neighbour(c, r, i, shifted) not in occupied]
        if not edges:  # not on the map edge: a dashed ring instead
            for k, s in enumerate(area_sides):
                out.append(f'<path class="entry" data-hex="{_e(name)}" data-side="{_e(s)}" '
                           f'd="{_hex_path(cx, cy, .55 - .1 * k)}" fill="none" stroke="{color.get(s, "#555")}" '
                           'stroke-width="3" stroke-dasharray="4 2"/>')
            continue
        for i in edges:
            (ax, ay), (bx, by) = _UNIT[i], _UNIT[(i + 1) % 6]
            nx, ny = math.cos(math.radians(60 * i + 30)), math.sin(math.radians(60 * i + 30))
            normals.append((nx, ny))
            for k, s in enumerate(area_sides):
                off = 3.0 + 5.5 * k
                d = (f"M{_f(cx + R * ax + off * nx)},{_f(cy + R * ay + off * ny)}"
                     f"L{_f(cx + R * bx + off * nx)},{_f(cy + R * by + off * ny)}")
                out.append(f'<path class="entry" data-hex="{_e(name)}" data-side="{_e(s)}" d="{d}" '
                           f'stroke="{color.get(s, "#555")}" stroke-width="5" stroke-linecap="round"/>')
    if inside and normals:  # the label in the margin beyond the map edge, level with the area's middle
        nx = sum(n[0] for n in normals) / len(normals)
        ny = sum(n[1] for n in normals) / len(normals)
        left, top, right, bottom = bbox
        reach = 10 + 5.5 * len(area_sides)
        mx = sum(center[x][0] for x in inside) / len(inside)
        my = sum(center[x][1] for x in inside) / len(inside)
        if abs(nx) > abs(ny):
            x, y, angle = (left - reach, my, -90) if nx < 0 else (right + reach, my, 90)
        else:
            x, y, angle = (mx, top - reach, 0) if ny < 0 else (mx, bottom + reach, 0)
        who = " / ".join(name_of.get(s, s) for s in area_sides)
        c = color.get(area_sides[0], "#555")
        out.append(f'<text class="entry-label" x="{_f(x)}" y="{_f(y + 3.5)}" font-size="10" font-weight="bold" '
                   f'text-anchor="middle" fill="{c}" transform="rotate({angle} {_f(x)} {_f(y)})">'
                   f'{_e(area.get("id", ""))} \u2013 {_e(who)} Entry Area</text>')
    return out


def _legend(areas, geo, sides, name_of, color, isolated_locations) -> list[tuple[float, Any]]:
    """The legend as (height, item) pairs; an item is (kind, payload...) rendered by _legend_svg."""
    items: list[tuple[float, Any]] = [(18, ("head", "Legend (KGP 8.605 Marking the Map)"))]
    items += _legend_areas(areas, sides, name_of, color)
    items += _legend_strategic(sides, name_of, color)
    items += _legend_isolated(areas, sides, name_of, color, isolated_locations)
    items += _legend_entry(geo, name_of, color)
    items += _legend_lvp(areas, geo, name_of)
    items.append((8, ("gap",)))
    items.append((14, ("text", "Hex label: column + row (grey)")))
    return _wrapped(items)


def _legend_areas(areas, sides, name_of, color) -> list[tuple[float, Any]]:
    """Each side's Setup Areas, both sides', No Man's Land and Uncontrolled Territory."""
    items: list[tuple[float, Any]] = []
    for s in sides:
        ids = sorted((areas.get("setup_areas") or {}).get(s, {}) or {})
        text = f"{name_of[s]} Setup Area" + (f"s {', '.join(ids)}" if ids else " (none)")
        items.append((17, ("swatch", _tint(color[s]), text, None)))
    if len(sides) > 1:
        items.append((17, ("swatch", "both", "In both sides' Setup Areas", None)))
    items.append((17, ("swatch", NML_COLOR, "No Man's Land", None)))
    items.append((17, ("swatch", "#ffffff", "Uncontrolled Territory", None)))
    return items


def _legend_strategic(sides, name_of, color) -> list[tuple[float, Any]]:
    """How a Strategic Location is drawn: its controller's outline, its kind's letter, its level."""
    items: list[tuple[float, Any]] = [(8, ("gap",)), (16, ("head", "Strategic Locations"))]
    items += [(17, ("outline", color[s], f"Controlled by {name_of[s]}")) for s in sides]
    items.append((14, ("text", "Letter in the square = kind; digit = level:")))
    items += [(13, ("text", f"  {letter}  {meaning}")) for letter, meaning in KINDS]
    items.append((14, ("text", "Dashed square = Isolated Location")))
    return items


def _legend_isolated(areas, sides, name_of, color, isolated_locations) -> list[tuple[float, Any]]:
    """8.6052: each side's Isolated Locations, and a side left with no non-Isolated Strategic Location."""
    items: list[tuple[float, Any]] = [(8, ("gap",)), (16, ("head", "Isolated (8.6052)"))]
    for s in sides:
        locs = isolated_locations.get(s) or []
        count = f"{len(locs)} Location" + ("" if len(locs) == 1 else "s")
        items.append((17, ("iso", sides.index(s), color[s], f"{name_of[s]}: {count}")))
        items += [(13, ("text", "  " + line)) for line in textwrap.wrap(", ".join(locs), 42)]
    for s in areas.get("no_strategic_location") or []:
        items.append((14, ("text", f"{name_of.get(s, s)}: no non-Isolated Strategic Location")))
    return items


def _legend_entry(geo, name_of, color) -> list[tuple[float, Any]]:
    """The map's Entry Areas and whose they are."""
    entry = geo.get("entry_areas") or []
    if not entry:
        return []
    items: list[tuple[float, Any]] = [(8, ("gap",)), (16, ("head", "Entry Areas"))]
    for a in entry:
        a_sides = [s for s in a.get("sides") or [] if s in color]
        who = " / ".join(name_of[s] for s in a_sides) or "?"
        items.append((16, ("bar", [color[s] for s in a_sides] or ["#555555"], f"{a.get('id', '')}: {who}")))
    return items


def _legend_lvp(areas, geo, name_of) -> list[tuple[float, Any]]:
    """The map's LVP Locations and the LVP each side's Control gives now (8.6032)."""
    lvp_locs = geo.get("lvp_locations") or []
    lvp = areas.get("lvp") or {}
    if not (lvp_locs or lvp):
        return []
    items: list[tuple[float, Any]] = [(8, ("gap",)), (16, ("head", "LVP"))]
    items += [(13, ("text", line)) for line in
              textwrap.wrap(", ".join(f"{p.get('location')} {p.get('lvp')}" for p in lvp_locs), 42)]
    if lvp:
        current = ", ".join(f"{name_of.get(s, s)} {v}" for s, v in lvp.items())
        items.append((14, ("text", f"LVP by Control on this map: {current}")))
        items.append((13, ("text", "(the Current-LVP that counts is the one recorded at CG-Scenario End, 8.6032)")))
    return items


def _wrapped(items: list[tuple[float, Any]]) -> list[tuple[float, Any]]:
    """Long text lines wrapped (a continuation is indented)."""
    wrapped: list[tuple[float, Any]] = []
    for step, item in items:
        if item[0] == "text" and len(item[1]) > 44:
            lines = textwrap.wrap(item[1], 44, subsequent_indent="    ", drop_whitespace=False)
            wrapped.extend((13, ("text", line)) for line in lines)
        else:
            wrapped.append((step, item))
    return wrapped


def _legend_svg(items, x0: float, y0: float) -> str:
    out = [f'<g id="legend" transform="translate({_f(x0)} {_f(y0)})">']
    y = 0.0
    for step, item in items:
        kind = item[0]
        if kind == "head":
            out.append(f'<text class="legh" x="0" y="{_f(y + 11)}">{_e(item[1])}</text>')
        elif kind == "text":
            out.append(f'<text class="leg" x="0" y="{_f(y + 10)}" xml:space="preserve">{_e(item[1])}</text>')
        elif kind == "swatch":
            fill = item[1]
            path = _hex_path(10, y + 6.5, .34)
            if fill == "both":
                out.append(f'<path d="{path}" fill="url(#both-0)" stroke="{HEX_STROKE}" stroke-width=".6"/>')
            else:
                out.append(f'<path d="{path}" fill="{fill}" stroke="{HEX_STROKE}" stroke-width=".6"/>')
            out.append(f'<text class="leg" x="24" y="{_f(y + 10)}">{_e(item[2])}</text>')
        elif kind == "outline":
            out.append(f'<path d="{_hex_path(10, y + 6.5, .34)}" fill="#fff" stroke="{item[1]}" stroke-width="2"/>')
            out.append(f'<text class="leg" x="24" y="{_f(y + 10)}">{_e(item[2])}</text>')
        elif kind == "iso":
            out.append(f'<path d="{_hex_path(10, y + 6.5, .34)}" fill="url(#iso-{item[1]})" '
                       f'stroke="{HEX_STROKE}" stroke-width=".6"/>')
            out.append(f'<text class="iso" x="10" y="{_f(y + 10.5)}" fill="{item[2]}">I</text>')
            out.append(f'<text class="leg" x="24" y="{_f(y + 10)}">{_e(item[3])}</text>')
        elif kind == "bar":
            width = 18.0 / len(item[1])
            for k, c in enumerate(item[1]):
                out.append(f'<path d="M{_f(1 + k * width)},{_f(y + 6.5)}h{_f(width)}" stroke="{c}" stroke-width="5"/>')
            out.append(f'<text class="leg" x="24" y="{_f(y + 10)}">{_e(item[2])}</text>')
        y += step
    out.append("</g>")
    return "\n".join(out)
