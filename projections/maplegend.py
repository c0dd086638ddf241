"""The legend of the Map Group drawing (mapsvg.py), as KGP 8.605 "MARKING THE MAP" asks the map be read: each
side's Setup Areas, both sides', No Man's Land and Uncontrolled Territory; the Strategic Locations by controller,
kind and level; the Isolated ones (8.6052); the Entry Areas; the LVP Locations and the LVP by Control (8.6032).
Built as (height, item) rows, long texts wrapped, then drawn as one SVG group."""

from __future__ import annotations

import textwrap
from typing import Any

from .mapdraw import HEX_STROKE, NML_COLOR, _e, _f, _hex_path, _tint

KINDS = (("B", "Building Location"), ("E", "Entrenchment"), ("F", "Fortification"), ("G", "functioning Gun"),
         ("V", "manned Immobile vehicle (MA \u2265 20mm)"))


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
