"""What a player reads names each side as its system does (German, U.S., Canadian), never by the id a command takes
(`--side us`): the log's lines, the authors they name, `status` and what a command says it recorded. The JSON keeps
the ids (players' scripts read them)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Cli, Player

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GERMAN, US = "Peiper's own words", "Harrison's own words"
# a side's id where English expects its name: "the us side", "by us", "[by german", "us declares", "Controlled by us"
IDS = re.compile(r"\bthe (german|us|canadian) side\b|\bby (german|us|canadian)\b|\[by (german|us|canadian)\b"
                 r"|^\S* *#?\d* +\S* +(german|us|canadian) |: (german|us|canadian) \d|\b(german|us|canadian) (RG|HQ|gains)\b")


def test_the_sample_log_and_status_name_the_sides(played):
    cli = Cli(played(), seed="7")
    log = cli.ok("log").stdout
    assert "Controlled by U.S." in log and "winner German" in log and "[by German]" in log
    assert not [line for line in log.splitlines() if IDS.search(line.split("  ", 1)[-1])]
    status = cli.ok("status").stdout
    assert "CPP: German " in status and ", U.S. " in status
    assert {row.get("author") for row in cli.json("log")} >= {"german", "us"}  # JSON: the ids


def test_keyed_sides_acts_and_their_authors_are_named(at):
    cli = at("scenario")
    cli.ok("rules", "load", str(FIXTURES / "kgp-st-fixture-map.toml"))
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    said = us.ok("keys", "init", "--side", "us").stdout
    assert "the U.S. side's key is set up" in said
    german.ok("roll", "KGP3", "--side", "german", "--dice", "2,3")
    assert "KGP3 German DR 2,3" in us.ok("witness", "--all").stdout
    assert "Controlled by U.S." in us.ok("control", "StM20", "--side", "us").stdout
    lines = cli.ok("log", "--last", "4").stdout.splitlines()
    assert "[by German, signed]" in lines[-3] and "the U.S. side witnesses the dice of event" in lines[-2]
    assert not [line for line in lines if IDS.search(line)]


def test_an_undo_names_the_side_of_what_it_took_back(at):
    cli = at("scenario")
    cli.ok("roll", "KGP3", "--side", "us", "--dice", "3,4")
    assert "the U.S. side's roll on KGP3 (DR 3,4: " in cli.ok("undo").stdout


def test_the_final_audit_names_the_sides_of_what_is_still_owed(at):
    """'the us side's RG bought in secret', 'the Secret roll on  by us': the audit's lines say each side's name."""
    cli = at("8.616", "19 PM")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("roll", "8.616", "--side", "german")  # a Secret fair roll: declared, never answered
    lines = cli("audit", "--final").stdout.splitlines()
    assert any("the German side's Secret fair roll on 8.616 was never answered" in line for line in lines), lines
    assert not [line for line in lines if IDS.search(line)]
