"""One Map Group marked as KGP 8.605 "MARKING THE MAP" asks players to mark a photocopied map, as ONE
self-contained, printable SVG document: Strategic Locations outlined in the Controlling side's colour
(red U.S., blue German) with their kind letter in a small square, No Man's Land yellow, each side's
Setup Areas lightly shaded in its colour with the area ID written once, hexes in both sides' Setup
Areas striped with both, Isolated hexes cross-hatched and marked "I", Uncontrolled Territory white,
Entry Areas' map-edge hexsides barred in the side colour, LVP Locations with their value, hex labels
and a legend.

A pure function of the JSON of `cgledger areas --json` plus a "map" and a "sides" key (see map_svg);
stdlib only, no I/O, no network. The hex grid's geometry and the SVG pieces are in mapdraw.py, the legend in
maplegend.py."""

from __future__ import annotations

import math
from typing import Any

from cgledger.ledger.domain.wording import counted

from .mapdraw import (
    H, HEX_STROKE, NML_COLOR, R, TINT, _UNIT, _e, _f, _hex_path, _hex_points, _tint, column_index, column_label,
    hex_center, is_shifted, neighbour, parse_hex, parse_location,
)
from .maplegend import KINDS, _legend, _legend_svg

__all__ = ["SIDE_COLORS", "PALETTE", "NML_COLOR", "HEX_STROKE", "LABEL_COLOR", "TINT", "KINDS", "R", "H", "MARGIN",
           "HEADER", "LEGEND_W", "column_index", "column_label", "parse_hex", "parse_location", "is_shifted",
           "hex_center", "neighbour", "map_svg"]

SIDE_COLORS = {"german": "#1f4e9c", "us": "#c0282d"}
PALETTE = ["#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"]
LABEL_COLOR = "#8a8a8a"
MARGIN = 34.0  # room around the map for the Entry Area labels
HEADER = 44.0
LEGEND_W = 270.0


# ---------------------------------------------------------------- helpers

def _color(side: str, sides: list[str]) -> str:
    return SIDE_COLORS.get(side) or PALETTE[sides.index(side) % len(PALETTE)] if side in sides else "#555555"


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
