"""The CGS map as the firefights left it, drawn as hexes (stdlib only): terrain, Rubble and Wrecks, fortifications in
their side's colour (a hidden one, seen by its own side only, dashed; a removed one struck through), Mouseholes on
their hexside, sewer hexes and the units In Sewer after the last firefight, the hexes a firefight changed outlined,
and a legend of all of it. A pure function of `ledger.terrain.terrain`'s result."""

from __future__ import annotations

from html import escape

from cgledger.ledger.rules.hexmap import column_index, parse_location

from .mapsvg import R, H, _hex_points, hex_center

COLORS = {"open": "#ffffff", "building": "#d8c3a0", "factory": "#b9ada0", "rubble": "#9e9e9e", "water": "#9cc8ea",
          "marsh": "#c6e0c0", "paved_road": "#d0d0d0", "road": "#efe0bc", "machine_parts": "url(#yard)",
          "woods": "#a9cf98"}
# Machine Parts / Lumber Yards: cross-hatched, so they are not taken for marsh or woods
PATTERNS = ('<pattern id="yard" width="6" height="6" patternUnits="userSpaceOnUse">'
            '<rect width="6" height="6" fill="#e4dcc0"/><path d="M0,0 L6,6 M6,0 L0,6" stroke="#7a6a3a" '
            'stroke-width="0.8"/></pattern>')
TERRAIN_NAMES = {"open": "Open ground", "building": "Building (Cellar if multi-hex, 6.6)",
                 "factory": "Factory (interior walls)", "rubble": "Rubble (6.7)", "water": "Water",
                 "marsh": "Marsh", "paved_road": "Paved road", "road": "Road (unpaved)",
                 "machine_parts": "Machine Parts / Lumber Yard (6.13)", "woods": "Woods (6.12.2)"}
CHANGED = "#c0282d"
SIDE_COLORS = {"german": "#1f4e9c", "russian": "#8d5524"}  # ASL counter colours: German blue-grey, Russian brown
OTHER_SIDES = ["#2e7d32", "#6a1b9a"]
LABELS = {"mines": "Mines", "wire": "Wire", "roadblock": "RdBlk", "trench": "Trench", "at_trench": "AT Tr",
          "dug_in": "Dug-In"}
NAMES = {"mines": "Mines (7.4)", "wire": "Wire (7.6)", "roadblock": "Roadblock (7.5)", "trench": "Trench (7.2)",
         "at_trench": "AT Trench (7.2.2)", "dug_in": "Dug-In (7.1)"}
BADGE_W, BADGE_H = 24.0, 9.0


def _side_color(side: str, sides: list[str]) -> str:
    if side in SIDE_COLORS:
        return SIDE_COLORS[side]
    return OTHER_SIDES[sides.index(side) % len(OTHER_SIDES)] if side in sides else "#555555"


def _badge(x: float, y: float, item: str, color: str, kind: str = "", tip: str = "") -> str:
    """A fortification badge centred on (x, y): solid in its side's colour; `hidden` dashed (its own side's view);
    `removed` grey and struck through."""
    label = LABELS.get(item, item[:6])
    if kind == "removed":
        fill, stroke, text, extra = "#eeeeee", "#777777", "#777777", ""
    elif kind == "hidden":
        fill, stroke, text, extra = "#ffffff", color, color, ' stroke-dasharray="2,1.5"'
    else:
        fill, stroke, text, extra = color, color, "#ffffff", ""
    out = (f'<g class="fortification {kind or "placed"}" data-item="{escape(item)}">'
           f'<title>{escape(tip)}</title>'
           f'<rect x="{x - BADGE_W / 2:.1f}" y="{y - BADGE_H / 2:.1f}" width="{BADGE_W}" height="{BADGE_H}" rx="2" '
           f'fill="{fill}" stroke="{stroke}" stroke-width="1"{extra}/>'
           f'<text x="{x:.1f}" y="{y + 2.4:.1f}" font-size="6" fill="{text}" text-anchor="middle" '
           f'font-weight="bold">{escape(label)}</text>')
    if kind == "removed":
        out += (f'<line x1="{x - BADGE_W / 2:.1f}" y1="{y + BADGE_H / 2:.1f}" x2="{x + BADGE_W / 2:.1f}" '
                f'y2="{y - BADGE_H / 2:.1f}" stroke="#444" stroke-width="1.2"/>')
    return out + "</g>"


def _mousehole(x: float, y: float, tip: str = "") -> str:
    return (f'<g class="mousehole"><title>{escape(tip)}</title>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.6" fill="#3b2a1a" stroke="#ffffff" stroke-width="1"/>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="1.9" fill="#ffffff"/></g>')


def _sewer(x: float, y: float) -> str:
    return f'<circle class="sewer" cx="{x:.1f}" cy="{y:.1f}" r="3.2" fill="#000000"/>'


def _in_sewer(x: float, y: float, count: int, tip: str) -> str:
    return (f'<g class="in-sewer"><title>{escape(tip)}</title>'
            f'<rect x="{x - 9:.1f}" y="{y - 5.5:.1f}" width="18" height="11" rx="5.5" fill="#000000"/>'
            f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="7.5" fill="#ffffff" text-anchor="middle" '
            f'font-weight="bold">IS{count if count > 1 else ""}</text></g>')


def terrain_svg(result: dict, title: str = "", sides: dict[str, str] | None = None) -> str:
    sides = dict(sides or {})
    side_keys = list(sides)
    grid = result["grid"]
    first, last = column_index(grid["columns"][0]), column_index(grid["columns"][1])
    rows = grid["rows"]
    x0, y0 = hex_center(first, rows[0], grid["shifted"])
    width = (last - first) * 1.5 * R + 2 * R + 40
    height = (rows[1] - rows[0] + 1) * H + H / 2 + 70
    legend_x = width + 10
    legend_w = 290
    ox, oy = 20 + R - x0, 50 + H / 2 - y0

    def centre(name: str) -> tuple[float, float]:
        where = parse_location(name).hex
        cx, cy = hex_center(where.column, where.row, grid["shifted"])
        return cx + ox, cy + oy

    hexes, marks = _cells(result, centre)
    marks += _fortifications(result, centre, sides, side_keys)
    marks += [_mousehole(*_between(centre, hole["hexes"]),
                         f'Mousehole {"/".join(hole["hexes"])} ({sides.get(hole["side"], hole["side"])}, '
                         f'{hole["firefight"]}, {hole["rule"]})') for hole in result.get("mouseholes", [])]
    marks += _in_sewer_marks(result.get("sewer", {}), centre)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="terrain" width="{width + legend_w:.0f}" '
           f'height="{max(height, 760):.0f}" viewBox="0 0 {width + legend_w:.0f} {max(height, 760):.0f}" '
           f'font-family="DejaVu Sans, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
           f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#000"/></marker>{PATTERNS}</defs>',
           f'<rect x="0" y="0" width="{width + legend_w:.0f}" height="{max(height, 760):.0f}" fill="#ffffff"/>',
           f'<text x="10" y="22" font-size="16" font-weight="bold">{escape(title or result["map"] + " terrain")}</text>',
           *hexes, *marks, _legend(result, legend_x, sides, side_keys), "</svg>"]
    return "\n".join(out)


def _between(centre, names: list[str]) -> tuple[float, float]:
    """The midpoint of two hexes' centres (a Mousehole's hexside)."""
    (ax, ay), (bx, by) = (centre(h) for h in names)
    return (ax + bx) / 2, (ay + by) / 2


def _cells(result: dict, centre) -> tuple[list[str], list[str]]:
    """Each hex filled by its terrain (rubble, changed this firefight outlined), its label and levels; the marks
    on it: wrecks and a sewer entrance."""
    hexes, marks = [], []
    for cell in result["hexes"].values():
        cx, cy = centre(cell["hex"])
        fill = COLORS["rubble"] if cell["rubble"] else COLORS.get(cell["terrain"], "#f4f4f4")
        stroke, widthp = (CHANGED, 2.5) if cell["changes"] else ("#9a9a9a", 0.8)
        changes = "; ".join(f'{c["firefight"]}: {c["change"]}' for c in cell["changes"])
        hexes.append(f'<polygon class="hex" data-hex="{escape(cell["hex"])}" data-terrain="{escape(cell["terrain"])}" '
                     f'data-rubble="{str(cell["rubble"]).lower()}" points="{_hex_points(cx, cy, 0.97)}" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{widthp}"><title>{escape(cell["hex"])} '
                     f'{escape(TERRAIN_NAMES.get(cell["terrain"], cell["terrain"]))}'
                     f'{" (rubble)" if cell["rubble"] else ""}{" – " + escape(changes) if changes else ""}</title></polygon>')
        label = cell["hex"].split("-")[-1]
        hexes.append(f'<text x="{cx:.1f}" y="{cy - H / 2 + 11.5:.1f}" font-size="7" text-anchor="middle" '
                     f'fill="{"#eeeeee" if cell["rubble"] else "#777777"}">{escape(label)}</text>')
        if cell["levels"]:
            hexes.append(f'<text x="{cx - 14:.1f}" y="{cy - 3:.1f}" font-size="9" text-anchor="middle">'
                         f'+{cell["levels"]}</text>')
        if cell["wrecks"]:
            marks.append(f'<rect class="wreck" x="{cx + 5:.1f}" y="{cy - 9:.1f}" width="13" height="8" fill="#222"/>'
                         f'<text x="{cx + 11.5:.1f}" y="{cy - 3:.1f}" font-size="6.5" fill="#fff" text-anchor="middle">'
                         f'W{cell["wrecks"]}</text>')
        if cell.get("sewer"):
            marks.append(_sewer(cx, cy + 14))
    return hexes, marks


def _fortifications(result: dict, centre, sides: dict[str, str], side_keys: list[str]) -> list[str]:
    """Fortifications on the map and the ones removed, two badges a row from the hex centre down."""
    removed: dict[str, list[dict]] = {}
    for entry in result.get("removed", []):
        removed.setdefault(entry["hex"], []).append(entry)
    marks = []
    for cell in result["hexes"].values():
        badges = [(f, "hidden" if f["hidden"] and "revealed" not in f else "") for f in cell["fortifications"]]
        badges += [(f, "removed") for f in removed.get(cell["hex"], [])]
        cx, cy = centre(cell["hex"])
        for i, (f, kind) in enumerate(badges[:4]):
            x = cx + (-12.5 if i % 2 == 0 else 12.5) if len(badges) > 1 else cx
            y = cy + 4 + (i // 2) * (BADGE_H + 1.5)
            marks.append(_badge(x, y, f["item"], _side_color(f["side"], side_keys), kind, _badge_tip(f, kind, sides)))
    return marks


def _badge_tip(f: dict, kind: str, sides: dict[str, str]) -> str:
    tip = f'{sides.get(f["side"], f["side"])} {f["item"]} (placed {f["firefight"]}'
    tip += ", hidden: only its side sees it" if kind == "hidden" else ""
    tip += f', revealed {f["revealed"]["firefight"]}' if f.get("revealed") else ""
    tip += f', removed {f["firefight_removed"]}: {f["by"]}, {f["rule"]}' if kind == "removed" else ""
    return tip + ")"


def _in_sewer_marks(sewer: dict, centre) -> list[str]:
    """The last firefight's units in the sewer where they are now, and each Re-Deployment as an arrow."""
    if not sewer:
        return []
    firefight, units = list(sewer.items())[-1]
    marks = []
    where: dict[str, list[dict]] = {}
    for unit in units:
        if unit["now"]:
            where.setdefault(unit["now"], []).append(unit)
        if unit["to"] and unit["hex"] and unit["to"] != unit["hex"]:
            (ax, ay), (bx, by) = centre(unit["hex"]), centre(unit["to"])
            marks.append(f'<line class="redeployed" x1="{ax + 12:.1f}" y1="{ay - 4:.1f}" x2="{bx + 3:.1f}" '
                         f'y2="{by - 4:.1f}" stroke="#000" stroke-width="1.2" stroke-dasharray="3,2" '
                         f'marker-end="url(#arrow)"/>')
    for name, here in where.items():
        cx, cy = centre(name)
        tip = f"In Sewer after {firefight}: " + ", ".join(
            u["unit"] + (" (Re-Deployed)" if u["redeployed"] else "") for u in here)
        sector = here[0]["sector_now"]
        marks.append(_in_sewer(cx + 12, cy - 4, len(here), tip + (f"; sector {sector}" if sector else "")))
    return marks


def _legend(result: dict, x: float, sides: dict[str, str], side_keys: list[str]) -> str:
    out = [f'<g id="legend"><text x="{x}" y="60" font-size="12" font-weight="bold">Legend</text>']
    y = 80.0
    present = {cell["terrain"] for cell in result["hexes"].values()}
    kinds = list(COLORS) + sorted(present - set(COLORS))
    for key in kinds:
        out.append(f'<rect x="{x}" y="{y - 10}" width="14" height="12" fill="{COLORS.get(key, "#f4f4f4")}" '
                   f'stroke="#777"/><text x="{x + 20}" y="{y}" font-size="11">'
                   f'{escape(TERRAIN_NAMES.get(key, key.replace("_", " ")))}</text>')
        y += 18
    y += 8
    out.append(f'<text x="{x}" y="{y}" font-size="11" font-weight="bold">Fortifications (7), in their side\'s colour'
               '</text>')
    y += 16
    for key in side_keys or ["german"]:
        out.append(_badge(x + 11, y - 4, "mines", _side_color(key, side_keys)))
        out.append(f'<text x="{x + 28}" y="{y}" font-size="11">{escape(sides.get(key, key))}</text>')
        y += 15
    for i, (item, name) in enumerate(NAMES.items()):
        col, row = i % 2, i // 2
        out.append(_badge(x + 11 + col * 135, y - 4 + row * 15, item, "#555555"))
        out.append(f'<text x="{x + 28 + col * 135}" y="{y + row * 15}" font-size="10">{escape(name)}</text>')
    y += 15 * ((len(NAMES) + 1) // 2) + 2
    out.append(_badge(x + 11, y - 4, "mines", _side_color(side_keys[0] if side_keys else "german", side_keys),
                      "hidden"))
    out.append(f'<text x="{x + 28}" y="{y}" font-size="11">Hidden (7.4.4): its own side\'s view only</text>')
    y += 15
    out.append(_badge(x + 11, y - 4, "wire", "#777", "removed"))
    out.append(f'<text x="{x + 28}" y="{y}" font-size="11">Removed (7.1.2, 7.4.7.2, 7.4.8, 7.5.3, 7.6.3)</text>')
    y += 17
    out.append(_mousehole(x + 11, y - 4))
    out.append(f'<text x="{x + 28}" y="{y}" font-size="11">Mousehole on its hexside (7.3)</text>')
    y += 17
    out.append(_sewer(x + 11, y - 4))
    out.append(f'<text x="{x + 28}" y="{y}" font-size="11">Sewer (6.16.1)</text>')
    y += 17
    out.append(_in_sewer(x + 11, y - 4, 1, ""))
    out.append(f'<text x="{x + 28}" y="{y}" font-size="11">In Sewer after the last firefight (6.16.3)</text>')
    y += 17
    out.append(f'<rect x="{x + 4}" y="{y - 10}" width="14" height="12" fill="none" stroke="{CHANGED}" '
               f'stroke-width="2.5"/><text x="{x + 28}" y="{y}" font-size="11">Changed during the campaign</text>')
    y += 17
    out.append(f'<rect x="{x + 4}" y="{y - 9}" width="14" height="9" fill="#222"/>'
               f'<text x="{x + 28}" y="{y}" font-size="11">Wrecks (count, 6.8.2.1)</text>')
    y += 17
    out.append(f'<text x="{x + 4}" y="{y}" font-size="11">+N</text>'
               f'<text x="{x + 28}" y="{y}" font-size="11">upper levels</text>')
    y += 24
    hidden: dict[tuple[str, str], int] = {}
    for h in result.get("hidden", []):
        hidden[(h["side"], h["item"])] = hidden.get((h["side"], h["item"]), 0) + 1
    if hidden:
        out.append(f'<text x="{x}" y="{y}" font-size="11" font-weight="bold">Hidden, hex not known (7.4.4)</text>')
        y += 15
        for (side, item), n in sorted(hidden.items()):
            out.append(f'<text x="{x}" y="{y}" font-size="11">{escape(sides.get(side, side))}: {n} '
                       f'{escape(LABELS.get(item, item))}</text>')
            y += 15
    out.append("</g>")
    return "\n".join(out)
