"""The README's walkthrough is a test: its command block, run as written against a fresh database,
every line accepted and the audit clean at the end. Only the RG chart file is the shipped example's."""

from __future__ import annotations

import re
from pathlib import Path

from cgledger.cli.script import words as script_words
from conftest import Cli

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
    cli = Cli(cli.db, seed="readme")  # the ledger's dice, seeded: a Depleted RG (8.6201 D) would need more rolls
    for args in commands:
        cli.ok(*args)
    assert (tmp_path / "story.html").exists()
    assert cli("audit").exit_code == 0


def email_walkthrough() -> list[tuple[str, str, list[list[str]]]]:
    """The bash blocks of the guide's 'Playing by email, step by step': (player, passphrase, commands) in order; each block's
    first line names the machine, an `export CGLEDGER_PASSPHRASE=...` line gives that player's passphrase."""
    text = (ROOT / "docs" / "guide" / "email.md").read_text(encoding="utf-8")
    section = text[text.index("# Playing by email, step by step"):text.index("## Two players at random")]
    blocks = []
    passphrases: dict[str, str] = {}
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        lines = block.splitlines()
        player = lines[0].lstrip("# ").split(":")[0]
        commands = []
        for line in lines[1:]:
            if line.startswith("export CGLEDGER_PASSPHRASE="):
                given = script_words(line.split("=", 1)[1])[0]  # the guide prints no phrase to copy: '…'
                passphrases[player] = given if given != "…" else f"{player} player's own words, guessed by nobody 4"
                continue
            words = script_words(line)
            if words:
                assert words[0] == "cgledger", line
                commands.append(words[1:])
        blocks.append((player, passphrases[player], commands))
    return blocks


def test_the_email_walkthrough_runs_as_written(tmp_path, monkeypatch):
    """Two machines (two folders, two campaign.db files), the mail a shared folder: every line accepted, both final
    audits clean, both heads equal."""
    from conftest import Player

    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "rg-charts.toml").write_text((ROOT / "tests" / "data" / "kgp-rg-test-chart.toml").read_text())
    (mail / "stoumont-map.toml").write_text((ROOT / "fixtures" / "kgp-st-fixture-map.toml").read_text())
    monkeypatch.chdir(mail)  # the files sent and received, as the players name them
    blocks = email_walkthrough()
    assert [p for p, _, _ in blocks[:2]] == ["German", "U.S."] and len(blocks) >= 8
    heads = {}
    for player, passphrase, commands in blocks:
        desk = Player(tmp_path / f"{player}.db", passphrase)
        for args in commands:
            result = desk.ok(*args)
            if args == ["head"]:
                heads[player] = result.stdout
        heads.setdefault(player, None)
    for player in ("German", "U.S."):
        desk = Player(tmp_path / f"{player}.db", dict((p, k) for p, k, _ in blocks)[player])
        assert desk("audit", "--final").exit_code == 0
        heads[player] = desk.ok("head").stdout
    assert heads["German"] == heads["U.S."]
