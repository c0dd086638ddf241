"""The campaign's story as ONE self-contained, printable HTML page: history, both CG Rosters
(8.6162), both RG Purchase Records and an SVG chart of LVP / CG-LVP (8.6033) per CG Date.
A pure function of a plain dict (see render_html); no I/O, no network, stdlib only."""

from __future__ import annotations

import math
from html import escape
from typing import Any

from cgledger.ledger.domain.wording import item_name, weather_words

# KGP map-marking colours: German blue, U.S. red. Other sides fall back to the palette.
SIDE_COLORS = {"german": "#1f4e9c", "us": "#c0282d"}
PALETTE = ["#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"]
METRICS = (("lvp", "LVP", "6 4"), ("cg_lvp", "CG-LVP", None))  # (key, label, dash: None = solid)

# the paper CG Roster's columns, in its order (8.6162, 8.619, 8.6033, 8.617, 8.622): the RG Purchased with their CPP,
# the Current-LVP with the CG-LVP Total below it, then the FORTIFICATIONS area (8.621)
ROSTER_COLS = (("date", "CG Date"), ("start", "Start"), ("repl", "Repl"), ("total", "Total"),
               ("rg", "RG Purchased (CPP)"), ("spent", "Spent"), ("left", "Left"), ("lvp", "LVP / CG-LVP"),
               ("win", "Win"), ("weather", "Weather"), ("recon", "Recon"), ("fortifications", "Fortifications (FPP)"))
RG_COLS = (("date", "CG Date"), ("id", "RG ID"), ("group_type", "Group Type"), ("p", "#P"), ("r", "#R"),
           ("str", "Str"), ("units", "# Units"), ("sw", "SW"), ("leaders", "Leaders"), ("objective", "Objective Hex"))

CSS = """
body{font:13px/1.4 "DejaVu Sans",Helvetica,Arial,sans-serif;color:#111;margin:24px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px;border-bottom:1px solid #999}
.meta{color:#444;margin:0 0 12px}
caption{text-align:left;font-weight:bold;padding:6px 0 3px}
table{border-collapse:collapse;width:100%;margin:0 0 8px;font-size:12px}
th,td{border:1px solid #999;padding:2px 5px;vertical-align:top;text-align:left}
th{background:#eee;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
td.shaded{background:#bbb}tr.idle td{color:#555;font-style:italic}
ul{margin:0;padding-left:14px}.empty{color:#777;font-style:italic}
.german{color:#1f4e9c}.us{color:#c0282d}
svg{display:block;max-width:100%;height:auto;margin:4px 0 8px}
.dice-row{display:flex;flex-wrap:wrap;gap:8px 40px}.dice-row h3{font-size:14px;margin:10px 0 2px}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
td.lvps b{font-weight:600;border-top:1px solid #bbb;display:inline-block;min-width:2em}tr.totals td{background:#f6f6f6}
@media print{body{margin:0;font-size:10px}table{font-size:9px}h2{break-after:avoid}h3{break-after:avoid}
 thead{display:table-header-group}tr,svg,.map,.dice-row>div,table{break-inside:avoid}
 section#maps,section#dice,h2.rosters{break-before:page}.map{break-inside:avoid;page-break-inside:avoid}
 section#maps>h2,section#maps>p,.map h3{break-after:avoid}.map svg{max-height:150mm;width:auto}
 a{color:inherit;text-decoration:none}}
@page{size:A4 landscape;margin:10mm}
"""


def _e(value: Any) -> str:
    """Escaped text of a value; None is an empty string."""
    return "" if value is None else escape(str(value))


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


def _color(side: str, sides: dict) -> str:
    return SIDE_COLORS.get(side) or PALETTE[list(sides).index(side) % len(PALETTE)]


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = max(span, 1) / ticks
    mag = 10 ** math.floor(math.log10(raw))
    return max(1, next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw))


def lvp_chart_svg(dates: list[dict], sides: dict[str, str]) -> str:
    """Line chart of each side's LVP (dashed) and CG-LVP (solid) over the CG Dates, as inline SVG."""
    width, height, left, right, top, bottom = 960, 340, 58, 20, 46, 58
    pw, ph, n = width - left - right, height - top - bottom, len(dates)
    series = [(s, key, f"{name} {label}", dash) for s, name in sides.items() for key, label, dash in METRICS]
    values = {(s, key): [_get(_get(d, key), s) for d in dates] for s, key, _, _ in series}
    found = [v for vs in values.values() for v in vs if _num(v)]
    lo, hi = min(found + [0]), max(found + [0])
    step = _nice_step(hi - lo)
    y0, y1 = math.floor(lo / step) * step, max(math.ceil(hi / step) * step, step)
    band = pw / max(n, 1)

    def x(i: int) -> float:
        return left + (i + 0.5) * band

    def y(v: float) -> float:
        return top + ph - (v - y0) / (y1 - y0) * ph

    out = [f'<svg id="lvp-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" font-family="DejaVu Sans,Helvetica,Arial,sans-serif" '
           'font-size="12"><title>LVP and CG-LVP per CG Date</title>']
    tick = y0
    while tick <= y1 + 1e-9:
        ty = y(tick)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end">{_fmt(tick)}</text>')
        tick += step
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#333"/>'
               f'<line x1="{left}" x2="{left + pw}" y1="{y(y0):.1f}" y2="{y(y0):.1f}" stroke="#333"/>')
    tilt = band < 56
    for i, d in enumerate(dates):
        tx, ty = x(i), top + ph + 16
        rot = f' transform="rotate(-35 {tx:.1f} {ty})" text-anchor="end"' if tilt else ' text-anchor="middle"'
        out.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{top + ph}" y2="{top + ph + 4}" stroke="#333"/>'
                   f'<text x="{tx:.1f}" y="{ty}"{rot}>{_e(_get(d, "date"))}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle" font-weight="bold">CG Date</text>'
               f'<text x="14" y="{top + ph / 2}" text-anchor="middle" font-weight="bold" '
               f'transform="rotate(-90 14 {top + ph / 2})">LVP</text>')
    if not found:
        out.append(f'<text x="{left + pw / 2}" y="{top + ph / 2}" text-anchor="middle" fill="#777">'
                   'No LVP recorded yet</text>')
    for k, (s, key, label, dash) in enumerate(series):
        color, dashed = _color(s, sides), f' stroke-dasharray="{dash}"' if dash else ""
        path, pen_up, dots = [], True, []
        for i, v in enumerate(values[(s, key)]):
            if not _num(v):
                pen_up = True
                continue
            path.append(f'{"M" if pen_up else "L"}{x(i):.1f},{y(v):.1f}')
            pen_up = False
            fill = color if dash is None else "#fff"
            dots.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="{4 if dash is None else 3.5}" fill="{fill}" '
                        f'stroke="{color}" stroke-width="1.5"><title>{_e(label)}, {_e(_get(dates[i], "date"))}: '
                        f'{_e(v)}</title></circle>')
        out.append(f'<path class="series" data-series="{_e(s)}-{key}" d="{" ".join(path)}" fill="none" '
                   f'stroke="{color}" stroke-width="2.2"{dashed}><title>{_e(label)}</title></path>')
        out.append(f'<g class="points" data-series="{_e(s)}-{key}">{"".join(dots)}</g>')
        lx = left + k * 190
        out.append(f'<g class="legend"><line x1="{lx}" x2="{lx + 30}" y1="16" y2="16" stroke="{color}" '
                   f'stroke-width="2.5"{dashed}/><text x="{lx + 36}" y="20">{_e(label)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _cell(value: Any, cls: str = "") -> str:
    if isinstance(value, list):
        value = "".join(f"<li>{_e(v)}</li>" for v in value)
        return f"<td{cls}>{f'<ul>{value}</ul>' if value else ''}</td>"
    cls = cls or (' class="n"' if _num(value) else "")
    return f"<td{cls}>{_e(value)}</td>"


def _rg_list(rgs: Any, with_cpp: bool = True) -> str:
    return ", ".join(f"{_get(rg, 'id') or _get(rg, 'text')}" + (f" ({_get(rg, 'cpp')} CPP)" if with_cpp and _get(rg, "cpp") is not None
                                            else "") for rg in rgs or [] if isinstance(rg, dict))


def _table(tid: str, head: str, rows: list[str], ncols: int, caption: str = "") -> str:
    body = "".join(rows) or f'<tr><td colspan="{ncols}" class="empty">none yet</td></tr>'
    return f'<table id="{tid}">{caption}<thead>{head}</thead><tbody>{body}</tbody></table>'


def _history(dates: list[dict], sides: dict[str, str]) -> str:
    names = "".join(f'<th class="{_e(s)}">{_e(n)}</th>' for s, n in sides.items())
    groups = "".join(f'<th colspan="{len(sides)}">{g}</th>' for g in ("LVP", "CG-LVP", "CPP spent"))
    single = lambda t: f'<th rowspan="2">{t}</th>'  # noqa: E731
    head = (f"<tr>{single('CG Date')}{single('Scenario')}{single('Winner')}{groups}{single('RG bought')}"
            f"{single('Weather')}{single('Notable rolls')}{single('Undos / rewinds')}</tr><tr>{names * 3}</tr>")
    rows = []
    for d in dates:
        cells = [_cell(_get(d, "date")), _cell(_get(d, "scenario")), _cell(sides.get(_get(d, "winner"), _get(d, "winner")))]
        for key in ("lvp", "cg_lvp", "cpp_spent"):
            cells += [_cell(_get(_get(d, key), s)) for s in sides]
        bought = [f"{n}: {_rg_list(_get(_get(d, 'rg'), s))}" for s, n in sides.items() if _get(_get(d, "rg"), s)]
        cells += [_cell(bought), _cell(weather_words(_get(d, "weather"), _get(d, "conditions") or {})),
                  _cell(list(_get(d, "notable") or [])),
                  _cell(list(_get(d, "undos") or []))]
        idle = ' class="idle"' if _get(d, "scenario") == "Idle Day" else ""
        rows.append(f"<tr{idle}>{''.join(cells)}</tr>")
    return _table("history", head, rows, 7 + 3 * len(sides))


def _roster(side: str, name: str, entries: list[dict], sides: dict[str, str]) -> str:
    """The side's CG Roster laid out as the paper form: one line per CG Date, then the Fortifications bought in the
    CG, totalled per kind (the form's 'Total # of Factors')."""
    head = "<tr>" + "".join(f"<th>{t}</th>" for _, t in ROSTER_COLS) + "</tr>"
    rows = []
    totals: dict[str, float] = {}
    for i, r in enumerate(entries):
        cells = []
        for key, _ in ROSTER_COLS:
            v = _get(r, key)
            if key == "rg":
                v = _rg_list(v)
            elif key == "win":
                v = sides.get(v, v)
            elif key == "lvp":
                cg = _get(r, "cg_lvp")
                cells.append(f'<td class="n lvps">{_e(v)}' + (f'<br><b>{_e(cg)}</b>' if cg is not None else "") + "</td>")
                continue
            elif key == "fortifications":
                bought = list(v or [])
                for f in bought:
                    totals[f.get("item", "")] = totals.get(f.get("item", ""), 0) + (f.get("count") or 0)
                fpp = _get(r, "fpp")
                v = "; ".join(str(f.get("text", "")) for f in bought if isinstance(f, dict))
                v = (f"{fpp:g} FPP: " + v if v else f"{fpp:g} FPP unspent") if fpp else v or None
            cells.append(_cell(v, ' class="shaded"' if key == "repl" and i == 0 else ""))
        rows.append(f"<tr>{''.join(cells)}</tr>")
    if totals:
        summed = ", ".join(f"{item_name(item)}: {n:g}" for item, n in sorted(totals.items()))
        rows.append(f'<tr class="totals"><td colspan="{len(ROSTER_COLS)}">Fortifications in the CG (total # of '
                    f'factors or items): {_e(summed)}</td></tr>')
    return _table(f"roster-{_e(side)}", head, rows, len(ROSTER_COLS), f"<caption>{_e(name)} CG Roster</caption>")


def _rg_record(side: str, name: str, records: list[dict]) -> str:
    head = "<tr>" + "".join(f"<th>{t}</th>" for _, t in RG_COLS) + "</tr>"
    rows = [f'<tr title="{_e(_get(r, "ref"))}">' + "".join(_cell(_get(r, k)) for k, _ in RG_COLS) + "</tr>"
            for r in records]
    return _table(f"rg-{_e(side)}", head, rows, len(RG_COLS), f"<caption>{_e(name)} RG Purchase Record</caption>")


def _ticks(top: float) -> list[int]:
    """Whole-number ticks from 0 up to `top` or just past it, 1, 2 or 5 times a power of ten apart, at most six."""
    step = 1
    while math.ceil(top / step) > 5:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2  # 1, 2, 5, 10, 20, 50, ...
    return list(range(0, math.ceil(top / step) * step + 1, step))


def dice_bars_svg(stats: dict, color: str, label: str) -> str:
    """Observed counts as bars, each with its count above it, beside the expected count of each total (a grey tick),
    for one side; the y axis counts rolls, the x axis the totals."""
    observed, expected = stats["distribution"], stats["expected"]
    keys = list(observed)
    ticks = _ticks(max([*map(float, observed.values()), *map(float, expected.values()), 1.0]))
    width, height, left, bottom, slot = 48 + 34 * len(keys), 190, 42, 38, 34
    scale = (height - bottom - 22) / ticks[-1]
    out = [f'<svg class="dice-bars" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(label)}">']
    base = height - bottom
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - 4}" y2="{base}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{base}" x2="{left}" y2="{base - ticks[-1] * scale:.1f}" stroke="#333"/>')
    for tick in ticks:
        y = base - tick * scale
        out.append(f'<line class="tick" x1="{left - 4}" x2="{left}" y1="{y:.1f}" y2="{y:.1f}" stroke="#333"/>'
                   f'<text x="{left - 7}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick}</text>')
    out.append(f'<text x="10" y="{base / 2:.1f}" font-size="10" text-anchor="middle" '
               f'transform="rotate(-90 10 {base / 2:.1f})">rolls</text>')
    for i, key in enumerate(keys):
        x = left + i * slot + 6
        h = float(observed[key]) * scale
        e = float(expected[key]) * scale
        out.append(f'<rect class="bar" x="{x}" y="{base - h:.1f}" width="{slot - 14}" height="{h:.1f}" fill="{color}">'
                   f'<title>{_e(label)} {key}: {observed[key]} rolled, {expected[key]} expected</title></rect>')
        out.append(f'<line class="expected" x1="{x - 3}" x2="{x + slot - 11}" y1="{base - e:.1f}" y2="{base - e:.1f}" '
                   f'stroke="#777" stroke-width="3"/>')
        out.append(f'<text class="count" x="{x + (slot - 14) / 2}" y="{base - max(h, e) - 5:.1f}" font-size="10" '
                   f'text-anchor="middle">{_e(observed[key])}</text>')
        out.append(f'<text x="{x + (slot - 14) / 2}" y="{base + 15}" font-size="11" text-anchor="middle">{_e(key)}</text>')
    out.append(f'<text x="{left + (width - left) / 2:.1f}" y="{height - 4}" font-size="10" text-anchor="middle">'
               f'{"DR total" if len(keys) > 6 else "dr"}</text>')
    out.append("</svg>")
    return "".join(out)


SOURCES = {  # where a roll's dice came from, in the players' words
    "fair": "fair dice (the ledger's, neither side could choose them)", "entered": "dice entered by the player",
    "vasl": "VASL dice", "rng": "the ledger's own dice", "seeded": "seeded dice (a demo or test)",
}


def _dice(dice: dict, sides: dict[str, str], vasl: dict | None = None, groups: list | None = None,
          unwitnessed: list | None = None) -> str:
    """The dice page: per side and per source of the dice (fair, entered, VASL kept apart, and the dice the other
    side never witnessed apart from those it did), the DR and dr distributions beside the expectation, with the
    means; then each roll not witnessed."""
    parts = ['<section id="dice"><h2>Dice</h2><p class="meta">Bars: rolls in force; grey marks: the expected '
             'count. Each source of dice is shown apart. Undone rolls are not counted here (see '
             '<code>cgledger dice-stats</code>).</p>']
    if unwitnessed:
        parts.append('<h3>Dice not witnessed by the other side</h3><ul class="unwitnessed">'
                     + "".join(f"<li>{_e(text)}</li>" for text in unwitnessed) + "</ul>")
    shown = groups if groups is not None else [{"side": s, "source": "", **(dice.get(s) or {})} for s in sides]
    for side, name in sides.items():
        for group in (g for g in shown if g["side"] == side):
            source = SOURCES.get(group["source"], group["source"])
            charts = []
            for die, title in (("DR", "DR totals"), ("dr", "dr")):
                stats = group.get(die)
                if not stats:
                    continue
                caution = "" if stats["reliable"] else " (too few rolls for the test)"
                label = f"{name}, {source}: {title}" if source else f"{name}: {title}"
                charts.append(f'<div><h3 class="{_e(side)}">{_e(label)}</h3><p class="meta">{stats["count"]} rolls, '
                              f'mean {stats["mean_total"]} (expected {stats["expected_mean"]}); chi-square '
                              f'{stats["chi_square"]}, p = {stats["p_value"]}{caution}</p>'
                              f'{dice_bars_svg(stats, _color(side, sides), f"{name} {die}")}</div>')
            if charts:
                parts.append(f'<div class="dice-row">{"".join(charts)}</div>')
    if vasl and vasl.get("scenarios"):
        parts.append(_vasl_dice(vasl))
    parts.append("</section>")
    return "\n".join(parts)


def _maps(intro: str, figures: list[tuple[str, str]]) -> str:
    """The Maps section: an introduction, then each map's title and SVG."""
    return "\n".join([f'<section id="maps"><h2>Maps</h2><p class="meta">{_e(intro)}</p>',
                      *(f'<div class="map"><h3>{_e(title)}</h3>{svg}</div>' for title, svg in figures), "</section>"])


def _dice_cells(stats: dict) -> str:
    cells = []
    for die in ("DR", "dr"):
        s = stats.get(die)
        cells += ([str(s["count"]), str(s["mean_total"]), f'{s["p_value"]}' + ("" if s["reliable"] else "*")] if s
                  else ["0", "", ""])
    return "".join(f"<td>{_e(c)}</td>" for c in cells)


def _vasl_dice(vasl: dict) -> str:
    """VASL rolls per scenario (each imported file), per player and per category: DR and dr counts, means and
    the chi-square p-value (marked * below 5 expected per cell)."""
    head = ("<tr><th>{}</th><th>DRs</th><th>mean</th><th>p</th><th>drs</th><th>mean</th><th>p</th></tr>")
    rows = [f"<tr><td>{_e((s['cg_date'] + ' ') if s['cg_date'] else '')}{_e(s['file'])}</td>{_dice_cells(s)}</tr>"
            for s in vasl["scenarios"]]
    out = ['<h3>VASL dice</h3><p class="meta">Each imported VASL file is a scenario; expected means 7.0 (DR) and '
           '3.5 (dr). p: the chi-square test of the counts; * fewer than 5 rolls expected per value, so the test '
           'says little.</p>',
           _table("vasl-scenarios", head.format("Scenario (file)"), rows, 7, "<caption>Per scenario</caption>")]
    rows = [f"<tr><td>&lt;{_e(p)}&gt;</td>{_dice_cells(s)}</tr>" for p, s in vasl["players"].items()]
    out.append(_table("vasl-players", head.format("Player"), rows, 7, "<caption>Per player</caption>"))
    rows = [f"<tr><td>{_e(c or '(none)')}</td>{_dice_cells(s)}</tr>" for c, s in vasl["categories"].items()]
    out.append(_table("vasl-categories", head.format("Category"), rows, 7, "<caption>Per category</caption>"))
    return "".join(out)


def render_html(history: dict) -> str:
    """The whole page. history: {"campaign", "dates", "rosters", "rg_records"} as documented in the brief:
    campaign.sides maps side key -> display name and fixes the side order everywhere."""
    camp = history.get("campaign") or {}
    sides: dict[str, str] = dict(camp.get("sides") or {"german": "German", "us": "U.S."})
    dates = list(history.get("dates") or [])
    title, meta = _heading(camp, len(dates))
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
             f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}</style></head><body>',
             f'<h1>{title}</h1><p class="meta">{meta}</p>',
             f"<h2>LVP and CG-LVP</h2>{lvp_chart_svg(dates, sides)}",
             f"<h2>Campaign history</h2>{_history(dates, sides)}", '<h2 class="rosters">CG Rosters</h2>']
    parts += [_roster(s, n, list((history.get("rosters") or {}).get(s) or []), sides) for s, n in sides.items()]
    parts.append("<h2>RG Purchase Records</h2>")
    parts += [_rg_record(s, n, list((history.get("rg_records") or {}).get(s) or [])) for s, n in sides.items()]
    parts += _pictures(history, sides) + _final(history, sides)
    if history.get("dice") is not None:
        parts.append(_dice(history["dice"], sides, history.get("vasl_dice"), history.get("dice_groups"),
                           history.get("unwitnessed")))
    parts.append("</body></html>")
    return "\n".join(parts)


def _heading(camp: dict, played: int) -> tuple[str, str]:
    """The page's title and its line of facts under it (escaped)."""
    system = (camp.get("system") or "").upper()
    title = " ".join(p for p in (_e(camp.get("name")) or "Campaign", "—", _e(system), "CG", _e(camp.get("cg"))) if p)
    meta = " · ".join(f"{k}: {_e(v)}" for k, v in (("Current CG Date", camp.get("cg_date")), ("Step", camp.get("step")),
                                                    ("CG Dates played", played)) if v is not None)
    return title, meta


def _pictures(history: dict, sides: dict[str, str]) -> list[str]:
    """Each Map Group as each scenario was set up on it, and each CGS map as each firefight left it."""
    parts = []
    if any(e.get("set_up", True) for e in history.get("maps") or ()):
        from .mapsvg import map_svg

        parts.append(_maps("Each Map Group as it stood when each CG Date's scenario was set up (the end of its RePh, "
                           "8.605): Setup Areas, No Man's Land, Isolated Locations. Idle Days set up no scenario.",
                           [(f'{e["group"]} Map Group, {e["date"]}' + (f': {e["scenario"]}' if e.get("scenario") else ""),
                             map_svg(e["areas"], "")) for e in history["maps"] if e.get("set_up", True)]))
    if history.get("terrain"):
        from .terrainsvg import terrain_svg

        parts.append(_maps("Each map as each firefight left it, as both sides see it (hidden fortifications are only "
                           "counted).", [(f'{e["group"]} map after {e["date"]}', terrain_svg(e["terrain"], "", sides))
                                         for e in history["terrain"]]))
    return parts


def _final(history: dict, sides: dict[str, str]) -> list[str]:
    """The last page: the CG's end, where it has ended."""
    if not history.get("final"):
        return []
    from .final import final_lines

    lines = final_lines(history["final"], sides)
    return [f'<section id="final"><h2>The end of the campaign</h2><p>{_e(lines[0])}</p><ul>'
            + "".join(f"<li>{_e(line.strip())}</li>" for line in lines[1:]) + "</ul></section>"]
