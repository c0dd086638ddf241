"""The CGS map's terrain as the firefights left it, drawn as hexes (stdlib only)."""

from __future__ import annotations

from html import escape

from ledger.hexmap import column_index, parse_location

from .mapsvg import R, H, _hex_points, hex_center

COLORS = {"open": "#ffffff", "building": "#d8c3a0", "factory": "#b9ada0", "rubble": "#9e9e9e", "water": "#9cc8ea",
          "marsh": "#c6e0c0", "paved_road": "#e6e6e6", "road": "#efe6d2", "machine_parts": "#cfd7c2", "woods": "#a9cf98"}
CHANGED = "#c0282d"


def terrain_svg(result: dict, title: str = "") -> str:
    grid = result["grid"]
    first, last = column_index(grid["columns"][0]), column_index(grid["columns"][1])
    rows = grid["rows"]
    x0, y0 = hex_center(first, rows[0], grid["shifted"])
    width = (last - first) * 1.5 * R + 2 * R + 40
    height = (rows[1] - rows[0] + 1) * H + H / 2 + 70
    legend_x = width + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="terrain" width="{width + 240:.0f}" height="{max(height, 300):.0f}" '
           f'viewBox="0 0 {width + 240:.0f} {max(height, 300):.0f}" font-family="DejaVu Sans, sans-serif">',
           f'<text x="10" y="22" font-size="16" font-weight="bold">{escape(title or result["map"] + " terrain")}</text>']
    ox, oy = 20 + R - x0, 50 + H / 2 - y0
    for cell in result["hexes"].values():
        where = parse_location(cell["hex"]).hex
        cx, cy = hex_center(where.column, where.row, grid["shifted"])
        cx, cy = cx + ox, cy + oy
        fill = COLORS["rubble"] if cell["rubble"] else COLORS.get(cell["terrain"], "#f4f4f4")
        stroke, widthp = (CHANGED, 2.5) if cell["changes"] else ("#9a9a9a", 0.8)
        changes = "; ".join(f'{c["firefight"]}: {c["change"]}' for c in cell["changes"])
        out.append(f'<polygon class="hex" data-hex="{escape(cell["hex"])}" data-terrain="{escape(cell["terrain"])}" '
                   f'data-rubble="{str(cell["rubble"]).lower()}" points="{_hex_points(cx, cy, 0.97)}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{widthp}"><title>{escape(cell["hex"])} {escape(cell["terrain"])}'
                   f'{" (rubble)" if cell["rubble"] else ""}{" – " + escape(changes) if changes else ""}</title></polygon>')
        label = cell["hex"].split("-")[-1]
        out.append(f'<text x="{cx:.1f}" y="{cy - H / 2 + 10:.1f}" font-size="7" fill="#888" text-anchor="middle">'
                   f'{escape(label)}</text>')
        if cell["levels"]:
            out.append(f'<text x="{cx:.1f}" y="{cy + 4:.1f}" font-size="10" text-anchor="middle">+{cell["levels"]}</text>')
        if cell["wrecks"]:
            out.append(f'<rect class="wreck" x="{cx - 7:.1f}" y="{cy + 5:.1f}" width="14" height="9" fill="#222"/>'
                       f'<text x="{cx:.1f}" y="{cy + 12.5:.1f}" font-size="7" fill="#fff" text-anchor="middle">'
                       f'W{cell["wrecks"]}</text>')
    legend = [("open", "Open ground"), ("building", "Building"), ("factory", "Factory (interior walls)"),
              ("rubble", "Rubble"), ("water", "Water"), ("paved_road", "Paved road")]
    out.append(f'<text x="{legend_x}" y="60" font-size="12" font-weight="bold">Legend</text>')
    for i, (key, text) in enumerate(legend):
        y = 78 + i * 20
        out.append(f'<rect x="{legend_x}" y="{y - 10}" width="14" height="12" fill="{COLORS[key]}" stroke="#777"/>'
                   f'<text x="{legend_x + 20}" y="{y}" font-size="11">{text}</text>')
    y = 78 + len(legend) * 20
    out.append(f'<rect x="{legend_x}" y="{y - 10}" width="14" height="12" fill="none" stroke="{CHANGED}" stroke-width="2.5"/>'
               f'<text x="{legend_x + 20}" y="{y}" font-size="11">Changed by a firefight</text>'
               f'<rect x="{legend_x}" y="{y + 10}" width="14" height="9" fill="#222"/>'
               f'<text x="{legend_x + 20}" y="{y + 19}" font-size="11">Wrecks (count)</text>'
               f'<text x="{legend_x}" y="{y + 40}" font-size="11">+N: upper levels</text>')
    out.append("</svg>")
    return "\n".join(out)
