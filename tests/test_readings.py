"""The guide's table of readings agrees with the data. A DRM the table names as typed (`--drm KEY`)
is a declared DRM in the rules files, one it calls automatic (`automatic ... (`KEY`)`) is derived from the log."""

from __future__ import annotations

import re
from pathlib import Path

from cgledger.ledger import rules as rulesmod

README = Path(__file__).parent.parent / "docs" / "guide" / "rules.md"


def readings() -> list[str]:
    text = README.read_text(encoding="utf-8")
    table = text.split("## Readings chosen where the OCR is ambiguous", 1)[1].split("\n\n", 2)[2]
    return [line for line in table.split("\n\n", 1)[0].splitlines() if line.startswith("| ") and "---" not in line]


def kinds() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for system in ("kgp", "rr", "cgs"):
        for table in rulesmod.load(system).tables.values():
            for drm in table.drm:
                out.setdefault(drm.key, set()).add(drm.kind)
    return out


def test_the_readings_table_agrees_with_the_data():
    known = kinds()
    rows = readings()
    assert len(rows) > 10, rows
    typed = [key for row in rows for key in re.findall(r"`--drm (\w+)", row.split(" | ")[-1])]
    derived = [key for row in rows for key in re.findall(r"\| automatic[^|]*?\(`(\w+)`\)", row)]
    assert "scenarios_after_20am" in derived and "attacked" in derived and "san" in typed
    for key in typed:
        assert "declared" in known.get(key, set()), f"the guide reads --drm {key} as typed; the data says {known.get(key)}"
    for key in derived:
        assert known.get(key) == {"automatic"}, f"the guide reads {key} as automatic; the data says {known.get(key)}"
