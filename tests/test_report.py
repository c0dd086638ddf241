"""projections.report: the printable campaign page. Pure checks on a hand-built history, then the
page as headless Chromium really renders it (screenshot decoded, rendered DOM inspected)."""

from __future__ import annotations

import copy
import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from cgledger.projections.report import SIDE_COLORS, lvp_chart_svg, render_html

SIDES = {"german": "German", "us": "U.S."}


def side_pair(german, us):
    return {"german": german, "us": us}


def date(d, scenario, winner, lvp, cg_lvp, cpp, rg, weather, notable=(), undos=()):
    return {"date": d, "scenario": scenario, "winner": winner, "lvp": lvp, "cg_lvp": cg_lvp, "cpp_spent": cpp,
            "rg": rg, "weather": weather, "notable": list(notable), "undos": list(undos)}


def roster_row(d, start, repl, total, spent, rg, lvp, cg_lvp, win, weather, recon):
    left = None if total is None or spent is None else total - spent
    return {"date": d, "start": start, "repl": repl, "total": total, "spent": spent, "left": left, "rg": rg,
            "lvp": lvp, "cg_lvp": cg_lvp, "win": win, "weather": weather, "recon": recon}


def rg_record(d, rid, group, p, r, strength, units, sw, leaders, objective):
    return {"date": d, "id": rid, "group_type": group, "p": p, "r": r, "str": strength, "units": units,
            "sw": sw, "leaders": leaders, "objective": objective, "ref": f"{rid}#{d}"}


@pytest.fixture
def history() -> dict:
    """Six CG Dates of KGP CG I: the Initial Scenario, a Dual Attack, an Idle Day (with an undo), two
    assaults, and 20 N in progress (scenario chosen, no LVP yet)."""
    none2 = side_pair(None, None)
    return {
        "campaign": {"name": "KGP CG I sample", "system": "kgp", "cg": "I", "cg_date": "20 N", "step": "8.616",
                     "sides": dict(SIDES)},
        "dates": [
            date("19 AM", "Initial Scenario", "german", side_pair(12, 10), side_pair(12, 10), side_pair(0, 0),
                 side_pair([], []), "Extremely Heavy Mist", ["8.613 German Recon 3"]),
            date("19 PM", "Dual Attack", "us", side_pair(14, 19), side_pair(26, 29), side_pair(20, 15),
                 side_pair([{"id": "I2", "cpp": 10}], [{"id": "A1", "cpp": 8}]), "Heavy Mist",
                 ["8.616 German Original 2", "8.606 U.S. Infantry Final 11"]),
            date("19 N", "Idle Day", None, side_pair(0, 0), side_pair(26, 29), side_pair(0, 4),
                 side_pair([], []), "Moderate Mist", [], ["undo of action 7: wrong DRM"]),
            date("20 AM", "German Assault", "german", side_pair(21, 8), side_pair(47, 37), side_pair(24, 11),
                 side_pair([{"id": "G3", "cpp": 14}, {"id": "I5", "cpp": 9}], []), "Light Mist",
                 ["8.616 German Original 6 (Secret DR)"]),
            date("20 PM", "U.S. Assault", "us", side_pair(9, 17), side_pair(56, 54), side_pair(6, 22),
                 side_pair([], [{"id": "K7", "cpp": 12}]), "Overcast", [],
                 ["rewind to action 31: wrong CG Date", "undo of action 33: dice entered twice"]),
            date("20 N", "Dual Attack", None, None, none2, side_pair(10, 10), side_pair([], []), None),
        ],
        "rosters": {
            "german": [
                roster_row("19 AM", 0, None, 0, 0, [], 12, 12, "german", "Extremely Heavy Mist", 3),
                roster_row("19 PM", 0, 27, 27, 20, [{"id": "I2", "cpp": 10}], 14, 26, "us", "Heavy Mist", None),
                roster_row("19 N", 7, 8, 15, 0, [], 0, 26, None, "Moderate Mist", None),
                roster_row("20 AM", 15, 31, 46, 24, [{"id": "G3", "cpp": 14}], 21, 47, "german", "Light Mist", 2),
                roster_row("20 PM", 22, 11, 33, 6, [], 9, 56, "us", "Overcast", None),
                roster_row("20 N", 27, 4, 31, 10, [], None, None, None, None, None),
            ],
            "us": [
                roster_row("19 AM", 0, None, 0, 0, [], 10, 10, "german", "Extremely Heavy Mist", 1),
                roster_row("19 PM", 0, 18, 18, 15, [{"id": "A1", "cpp": 8}], 19, 29, "us", "Heavy Mist", None),
                roster_row("19 N", 3, 9, 12, 4, [], 0, 29, None, "Moderate Mist", None),
                roster_row("20 AM", 8, 14, 22, 11, [], 8, 37, "german", "Light Mist", None),
                roster_row("20 PM", 11, 19, 30, 22, [{"id": "K7", "cpp": 12}], 17, 54, "us", "Overcast", 2),
                roster_row("20 N", 8, 13, 21, 10, [], None, None, None, None, None),
            ],
        },
        "rg_records": {
            "german": [
                rg_record("19 PM", "I2", "SS Inf Pltn", 1, 5, "F", "3 6-5-8", "2 LMG, 1 PSK", "8-1", "StJ19"),
                rg_record("20 AM", "G3", "SS Pz Pltn", 1, 4, "F", "3 PzVG", "", "", "LgR22"),
                rg_record("20 AM", "I5", "Fallschirmjäger Pltn", 2, 4, "F", "3 4-4-7", "1 LMG", "7-0", "ChK8"),
            ],
            "us": [
                rg_record("19 PM", "A1", "Inf Pltn", 1, 3, "F", "3 6-6-6", "1 BAR", "8-0", "StF11"),
                rg_record("20 PM", "K7", "TD Pltn", 1, 2, "D", "2 M10 GMC", "", "", "St<R&D>"),
            ],
        },
    }


def text_of(page: str) -> str:
    return re.sub(r"<[^>]+>", " ", page)


class Dom(HTMLParser):
    """Counts what a test needs: rows per table id, and the class/data-series of elements inside <svg>."""

    def __init__(self, page: str):
        super().__init__()
        self.table: str | None = None
        self.svg: str | None = None
        self.rows: dict[str, int] = {}
        self.series: list[str] = []
        self.circles = 0
        self.ids: set[str] = set()
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "table":
            self.table = a.get("id")
            self.rows[self.table] = 0
        elif tag == "tr" and self.table:
            self.rows[self.table] += 1
        elif tag == "svg":
            self.svg = a.get("id")
        elif self.svg == "lvp-chart" and "series" in (a.get("class") or "").split():
            self.series.append(a.get("data-series"))
        elif self.svg == "lvp-chart" and tag == "circle":
            self.circles += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "svg":
            self.svg = None


ALL_SERIES = ["german-lvp", "german-cg_lvp", "us-lvp", "us-cg_lvp"]


# ---------------------------------------------------------------- pure tests


def test_every_section_is_there(history):
    page = render_html(history)
    dom = Dom(page)
    assert page.startswith("<!DOCTYPE html>")
    assert {"history", "roster-german", "roster-us", "rg-german", "rg-us", "lvp-chart"} <= dom.ids
    assert "<title>KGP CG I sample — KGP CG I</title>" in page
    # two header rows + 6 dates; one header + 6 roster dates; one header + the RG records
    assert dom.rows == {"history": 8, "roster-german": 7, "roster-us": 7, "rg-german": 4, "rg-us": 3}
    assert sorted(dom.series) == sorted(ALL_SERIES)


def test_self_contained(history):
    page = render_html(history)
    assert "<script" not in page and "<link" not in page and "@import" not in page and "url(" not in page
    assert not re.search(r'(src|href)\s*=\s*"', page)


def test_values_appear(history):
    page = render_html(history)
    text = text_of(page)
    for word in ("Initial Scenario", "Dual Attack", "Idle Day", "German Assault", "U.S. Assault",
                 "Extremely Heavy Mist", "8.616 German Original 2", "undo of action 7: wrong DRM",
                 "rewind to action 31: wrong CG Date", "I2 (10 CPP)", "G3 (14 CPP), I5 (9 CPP)",
                 "SS Inf Pltn", "3 6-5-8", "2 LMG, 1 PSK", "StJ19", "Fallschirmjäger Pltn", "TD Pltn"):
        assert word in text, word
    history_table = page.split('id="history"')[1].split("</table>")[0]
    row = history_table.split("<tr")[4]  # 19 PM: header, header, 19 AM, 19 PM
    assert re.findall(r"<td[^>]*>([^<]*)</td>", row)[:9] == ["19 PM", "Dual Attack", "U.S.", "14", "19", "26", "29",
                                                             "20", "15"]
    assert 'class="idle"' in history_table.split("Idle Day")[0].rsplit("<tr", 1)[1]
    # side keys shown as side names, never raw
    assert ">german<" not in page and ">us<" not in page


def test_roster_rows_and_shading(history):
    """Laid out as the paper CG Roster: the RG Purchased with their CPP, the CG-LVP Total below the Current-LVP, the
    FORTIFICATIONS bought with their FPP, and the CG's totals (8.6162, 8.619, 8.6033, 8.621)."""
    history["rosters"]["german"][3] = {**history["rosters"]["german"][3], "fpp": 6.0, "fortifications": [
        {"item": "at_mines", "count": 4, "size": None, "fpp": 4.0, "setup_area": "A", "text": "4 A-T Mines (A)"},
        {"item": "trench", "count": 1, "size": None, "fpp": 2.0, "setup_area": "B", "text": "1 Trench (B)"}]}
    page = render_html(history)
    roster = page.split('id="roster-german"')[1].split("</table>")[0]
    header = re.findall(r"<th>([^<]*)</th>", roster)
    assert header == ["CG Date", "Start", "Repl", "Total", "RG Purchased (CPP)", "Spent", "Left", "LVP / CG-LVP",
                      "Win", "Weather", "Recon", "Fortifications (FPP)"]
    first, second, _third, fourth = roster.split("<tbody>")[1].split("</tr>")[:4]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", first)
    assert cells == ["19 AM", "0", "", "0", "", "0", "0", "12<br><b>12</b>", "German", "Extremely Heavy Mist", "3", ""]
    assert '<td class="shaded"></td>' in first  # 8.6162: the first date's Repl is shaded
    assert 'class="shaded"' not in second
    assert re.findall(r"<td[^>]*>(.*?)</td>", second)[4] == "I2 (10 CPP)"
    assert re.findall(r"<td[^>]*>(.*?)</td>", fourth)[11] == "6 FPP: 4 A-T Mines (A); 1 Trench (B)"
    assert "Fortifications in the CG (total # of factors or items): A-T Mine Factors: 4, Trench: 1" in roster
    last = roster.split("<tbody>")[1].split("</tr>")[5]
    assert re.findall(r"<td[^>]*>(.*?)</td>", last) == ["20 N", "27", "4", "31", "", "10", "21"] + [""] * 5
    rg = page.split('id="rg-us"')[1].split("</table>")[0]
    assert re.findall(r"<th>([^<]*)</th>", rg) == ["CG Date", "RG ID", "Group Type", "#P", "#R", "Str", "# Units",
                                                  "SW", "Leaders", "Objective Hex"]


def test_strings_are_escaped(history):
    history["campaign"]["name"] = "<script>alert('x')</script> & Co"
    history["dates"][1]["notable"].append('<img src=x onerror="boom">')
    history["campaign"]["sides"]["us"] = "U.S. <Army>"
    page = render_html(history)
    assert "<script>" not in page and "<img" not in page and "<Army>" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; Co" in page
    assert "&lt;img src=x onerror=&quot;boom&quot;&gt;" in page
    assert "St&lt;R&amp;D&gt;" in page  # an RG record's objective
    assert "U.S. &lt;Army&gt;" in page


def test_chart_skips_none_points(history):
    svg = lvp_chart_svg(history["dates"], SIDES)
    paths = dict(re.findall(r'data-series="([^"]+)" d="([^"]*)"', svg))
    assert set(paths) == set(ALL_SERIES)
    for key in ALL_SERIES:  # 20 N has no LVP yet: five points, one unbroken line
        assert len(re.findall(r"[ML]", paths[key])) == 5 and paths[key].count("M") == 1, key
    assert len(re.findall(r"<circle", svg)) == 20
    assert "German CG-LVP, 20 PM: 56" in svg and "U.S. LVP, 19 N: 0" in svg
    # a gap in the middle starts a new sub-path rather than drawing across it
    history["dates"][2]["cg_lvp"] = None
    gapped = dict(re.findall(r'data-series="([^"]+)" d="([^"]*)"', lvp_chart_svg(history["dates"], SIDES)))
    assert gapped["german-cg_lvp"].count("M") == 2 and len(re.findall(r"[ML]", gapped["german-cg_lvp"])) == 4
    assert gapped["german-lvp"].count("M") == 1


def test_chart_style_legend_axes(history):
    svg = lvp_chart_svg(history["dates"], SIDES)
    for key in ALL_SERIES:
        tag = re.search(rf'<path class="series" data-series="{key}"[^>]*>', svg).group(0)
        assert SIDE_COLORS[key.split("-")[0]] in tag
        assert ("stroke-dasharray" in tag) == key.endswith("-lvp")  # LVP dashed, CG-LVP solid
    assert SIDE_COLORS["german"].lower() != SIDE_COLORS["us"].lower()
    legend = re.findall(r'<g class="legend">.*?<text[^>]*>([^<]*)</text></g>', svg)
    assert legend == ["German LVP", "German CG-LVP", "U.S. LVP", "U.S. CG-LVP"]
    assert ">CG Date</text>" in svg and ">LVP</text>" in svg
    for d in ("19 AM", "19 PM", "19 N", "20 AM", "20 PM", "20 N"):
        assert f">{d}</text>" in svg
    ticks = [int(t) for t in re.findall(r'text-anchor="end">(\d+)</text>', svg)]
    assert ticks[0] == 0 and ticks[-1] >= 56 and ticks == sorted(ticks) and 3 <= len(ticks) <= 9


def test_one_date_campaign(history):
    one = copy.deepcopy(history)
    one["dates"] = one["dates"][:1]
    one["rosters"] = {s: r[:1] for s, r in one["rosters"].items()}
    one["rg_records"] = {"german": [], "us": []}
    page = render_html(one)
    dom = Dom(page)
    assert dom.rows == {"history": 3, "roster-german": 2, "roster-us": 2, "rg-german": 2, "rg-us": 2}
    assert "none yet" in page  # empty RG records say so
    assert sorted(dom.series) == sorted(ALL_SERIES) and dom.circles == 4
    cx = set(re.findall(r'<circle cx="([\d.]+)"', page))
    assert len(cx) == 1 and 58 < float(cx.pop()) < 960 - 20  # the lone date sits inside the plot


def test_nothing_known_yet():
    fresh = {"campaign": {"name": "New", "system": "kgp", "cg": "I", "cg_date": "19 AM", "step": None,
                          "sides": dict(SIDES)},
             "dates": [date("19 AM", None, None, None, None, None, None, None)],
             "rosters": {"german": [], "us": []}, "rg_records": {"german": [], "us": []}}
    page = render_html(fresh)
    assert "No LVP recorded yet" in page and "<circle" not in page
    assert sorted(Dom(page).series) == sorted(ALL_SERIES)
    assert "Step" not in text_of(page)  # unknown values are left out, never printed as 'None'
    assert "None" not in text_of(page)
    empty = render_html({**fresh, "dates": []})
    assert 'id="lvp-chart"' in empty and "None" not in text_of(empty)


def test_fifteen_dates_tilt_labels():
    days = [f"{d} {t}" for d in range(19, 24) for t in ("AM", "PM", "N")]
    dates = [date(d, "Dual Attack", "us", side_pair(i, 2 * i), side_pair(i * i, 3 * i), side_pair(1, 1),
                  side_pair([], []), "Clear") for i, d in enumerate(days)]
    svg = lvp_chart_svg(dates, SIDES)
    assert len(re.findall(r"<circle", svg)) == 60
    ticks = [float(x) for x in re.findall(r'<line x1="([\d.]+)" x2="\1" y1="282" y2="286"', svg)]
    assert len(ticks) == 15 and min(b - a for a, b in zip(ticks, ticks[1:])) > 56  # room for '21 PM' level
    assert "rotate(-35" not in svg
    crowded = lvp_chart_svg(dates * 2, SIDES)  # more dates than fit level: the labels tilt
    assert crowded.count('transform="rotate(-35') == 30
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    assert min(xs) > 58 and max(xs) < 940
    ys = [float(y) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)]
    assert min(ys) >= 46 - 0.01 and max(ys) <= 340 - 58 + 0.01  # 196 (14*14) is inside the y range


# ---------------------------------------------------------------- headless Chromium


def chromium_or_skip() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail("CI is set but chromium is not installed: run .ci/chromium first (the report test may not skip)")
    pytest.skip("chromium not installed (run `bash .ci/chromium`); with CI set this test fails instead")


def chromium(binary: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, (cmd, done.stderr[-2000:])
    return done


def png_pixels(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """A real (if small) PNG decoder: chunks, IHDR, zlib, the five scanline filters. 8-bit RGB(A) only."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytes(width * bpp)
    for r in range(height):
        f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        if f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f in (1, 3, 4):
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = bytes(line)
        rows.append(prev)
    return width, height, bpp, rows


def test_chromium_renders_the_page(history, tmp_path):
    binary = chromium_or_skip()
    page = tmp_path / "report.html"
    page.write_text(render_html(history), encoding="utf-8")
    shot = tmp_path / "report.png"
    chromium(binary, tmp_path, f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri())
    assert shot.exists() and shot.stat().st_size > 20_000, shot.stat().st_size if shot.exists() else None
    width, height, bpp, rows = png_pixels(shot.read_bytes())
    assert (width, height) == (1200, 2000)
    colours = {row[i:i + 3] for row in rows[::4] for i in range(0, len(row), bpp * 2)}
    assert len(colours) > 50  # text, grid, shading, both sides' lines: not a flat page
    wanted = {side: bytes.fromhex(SIDE_COLORS[side][1:]) for side in ("german", "us")}
    for side, rgb in wanted.items():  # each side's chart colour is really painted
        hits = sum(row[i:i + 3] == rgb for row in rows[:700] for i in range(0, len(row), bpp))
        assert hits > 100, (side, hits)

    dumped = chromium(binary, tmp_path, "--dump-dom", page.as_uri()).stdout
    dom = Dom(dumped)
    assert "lvp-chart" in dom.ids and sorted(dom.series) == sorted(ALL_SERIES) and dom.circles == 20
    assert dom.rows == {"history": 8, "roster-german": 7, "roster-us": 7, "rg-german": 4, "rg-us": 3}
    assert "Dual Attack" in dumped and "Fallschirmjäger Pltn" in dumped


def test_chromium_renders_the_sample_campaigns_report(played, tmp_path):
    """The real page: the sample campaign replayed through the CLI, `report --html`, rendered."""
    from conftest import Cli

    binary = chromium_or_skip()
    cli = Cli(played())
    page = tmp_path / "sample.html"
    cli.ok("report", "--html", str(page))
    dumped = chromium(binary, tmp_path, "--dump-dom", page.as_uri()).stdout
    dom = Dom(dumped)
    assert "lvp-chart" in dom.ids and sorted(dom.series) == sorted(ALL_SERIES)
    # six CG Dates: history (two header rows + 6), each roster (header + 6), RG records (header + 2); the dice
    # page's VASL tables (header +): the one imported chat, its two players, its seven categories
    assert dom.rows == {"history": 8, "roster-german": 7, "roster-us": 7, "rg-german": 3, "rg-us": 3,
                        "vasl-scenarios": 2, "vasl-players": 3, "vasl-categories": 8}
    assert dom.circles == 4 * 6  # every date has LVP and CG-LVP for both sides (Idle Days carry them)
    assert "U.S. Assault" in dumped and "rewind to the end of 20 PM" in dumped


def test_the_sample_report_prints_to_pdf_page_by_page(played, tmp_path):
    """The report as players print it: headless Chromium prints the sample campaign's page to PDF (A4 landscape,
    the page's print stylesheet), and each page is read back with poppler's pdftotext."""
    from conftest import Cli

    binary = chromium_or_skip()
    if not shutil.which("pdftotext"):
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("CI is set but pdftotext is missing: run .ci/chromium first")
        pytest.skip("pdftotext not installed (run `bash .ci/chromium`)")
    cli = Cli(played())
    page, pdf = tmp_path / "sample.html", tmp_path / "sample.pdf"
    cli.ok("report", "--html", str(page))
    chromium(binary, tmp_path, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    count = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert width > height and round(width) in range(840, 844)  # A4 landscape (@page)
    pages = [subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), "-layout", str(pdf), "-"], capture_output=True,
                            text=True, check=True).stdout for n in range(1, count + 1)]
    first_lines = [next((line.strip() for line in p.splitlines() if line.strip()), "") for p in pages]
    assert all(first_lines), first_lines  # no blank page
    assert first_lines[0].startswith("KGP CG I sample")
    for section in ("CG Rosters", "Maps", "Dice"):  # each starts a page of its own
        assert first_lines.count(section) == 1, (section, first_lines)
    maps = [p for p in pages if "Legend (KGP 8.605" in p]
    titles = [re.search(r"St Map Group, ([^\n]+)", p).group(1).strip() for p in maps]
    # one map per CG Date whose scenario was set up, as it stood then; none for 19 AM (nothing recorded before the
    # Initial Scenario: its setup is the card's) nor for the Idle Days 19 N and 20 N
    assert titles == ["19 PM: German Assault", "20 AM: Dual Attack", "20 PM: U.S. Assault"]
    for text in maps:  # a map is never cut across pages: its top and bottom rows and its legend on one page
        assert "C14" in text and "P28" in text and "Hex label" in text
    dice = pages[first_lines.index("Dice")]
    assert "DR total" in dice and "rolls" in dice  # the bars' axes


def test_dice_bars_have_axes_and_counts():
    from cgledger.projections.report import dice_bars_svg

    stats = {"distribution": {str(t): n for t, n in zip(range(2, 13), (0, 1, 1, 1, 2, 3, 2, 1, 2, 1, 1))},
             "expected": {str(t): round(15 * w / 36, 2) for t, w in zip(range(2, 13), (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1))}}
    svg = dice_bars_svg(stats, "#1f4e9c", "German DR")
    counts = re.findall(r'<text class="count"[^>]*>(\d+)</text>', svg)
    assert counts == ["0", "1", "1", "1", "2", "3", "2", "1", "2", "1", "1"]  # each bar's count above it
    ticks = re.findall(r'<line class="tick"[^/]*/><text[^>]*>(\d+)</text>', svg)
    assert ticks == ["0", "1", "2", "3"]  # the y axis: rolls, whole numbers up to the tallest bar or mark
    assert ">rolls</text>" in svg and ">DR total</text>" in svg
