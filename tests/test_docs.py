"""The docs a newcomer reads: a short README that starts with the two set-up commands, reference pages that are
what the code says today, and no issue numbers where a reader of the code or the docs meets them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250
    block = lines[lines.index("```bash") + 1:lines.index("```")]
    assert len(block) == 2 and "cgledger --db sample-campaign.db demo" in block[0] and block[1] == "bash .ci/test"


def test_the_reference_pages_are_current():
    """Regenerated from click and the event Structs, they are byte for byte what docs/reference holds."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "reference.py"), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_every_page_the_site_shows_is_in_its_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert pages and all(page in nav for page in pages), pages - set(re.findall(r"[\w/.-]+\.md", nav))


def test_no_issue_numbers_in_code_or_docs():
    """An issue number means nothing to a reader of the code: comments, docstrings and docs cite rules instead."""
    found = []
    for top in ("ledger", "projections", "cli", "docs", "tools", "bench", "tests"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".md", ".toml", ".html", ".js") and "__pycache__" not in path.parts:
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    if re.search(r"\bissues? \d+\b|\(#\d+\)", line, re.I) and path.name != "test_docs.py":
                        found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    for name in ("README.md", "CONTRIBUTING.md", "pyproject.toml"):
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissues? \d+\b", line, re.I):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
