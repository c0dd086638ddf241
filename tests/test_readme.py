"""The README's walkthrough is a test (issue 16): its command block, run as written against a fresh database,
every line accepted and the audit clean at the end. Only the RG chart file is the shipped example's."""

from __future__ import annotations

import re
from pathlib import Path

from cli.script import words as script_words

ROOT = Path(__file__).resolve().parent.parent


def walkthrough() -> list[list[str]]:
    """The first bash block of 'What it does', one command per line, comments dropped, `a && b` split."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## What it does"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = []
    for line in block.splitlines():
        for part in line.split("&&"):
            words = script_words(part)  # as `cgledger script` reads a line: `--rg I2#1` is no comment
            if words:
                assert words[0] == "cgledger", line
                commands.append(words[1:])
    return commands


def test_the_readme_walkthrough_runs_as_written(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `report --html story.html` and the chart file are relative to the player's folder
    (tmp_path / "my-rg-chart.toml").write_text((ROOT / "fixtures" / "kgp-rg-chart-example.toml").read_text())
    commands = walkthrough()
    assert len(commands) > 15 and ["audit"] in commands
    for args in commands:
        cli.ok(*args)
    assert (tmp_path / "story.html").exists()
    assert cli("audit").exit_code == 0
