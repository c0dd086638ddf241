"""The public CLI contract: command names, options and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from freezegun import freeze_time

from conftest import Cli


def test_new_status_and_step(cli):
    assert cli.json("new", "KGP", "--system", "kgp", "--cg", "II", "--start-cpp", "german=20") == {
        "name": "KGP", "system": "kgp", "cg": "II", "cg_date": "20 PM", "step": "8.618", "cpp": {"german": 20, "us": 0}}
    status = cli.json("status")
    assert (status["step"], status["initial"], status["next"]) == ("8.618", True, "8.619")
    assert status["needs"] == [{"effect": "ammo_shortage", "side": "german", "table": "8.618", "rg": None,
                                "text": "a roll on 8.618 --side german", "command": "cgledger roll 8.618 --side german",
                                "commands": ["cgledger roll 8.618 --side german"]}]
    cli.ok("roll", "8.618", "--side", "german", "--dice", "2,3")
    moved = cli.json("step", "next")
    assert moved["step"] == "8.619" and moved["skipped"] == [] and moved["new_cg_date"] is None
    assert cli.json("step", "scenario")["skipped"] == ["8.620", "8.621"]
    assert cli.json("date")["cg_date"] == "20 PM"
    assert "open: CG scenario" in cli.ok("status").stdout


def test_tables_listing(cli):
    listing = cli.json("tables")  # no database needed
    ids = {t["id"]: t for t in listing["tables"]}
    assert ids["8.616"] == {"id": "8.616", "rule": "8.616", "title": "CPP Replenishment", "die": "DR", "secret": True}
    assert {"id", "title", "named_in"} <= set(listing["missing"][0])
    text = cli.ok("tables").stdout
    assert "8.6203/I" in text and "H1.42" in text


def test_tables_show_one(cli):
    table = cli.json("tables", "8.606/infantry")
    assert table["die"] == "DR" and table["rows"][0] == {
        "range": "≤ 8", "min": None, "max": 8, "result": "Escapes", "code": "escapes", "sets": [], "note": None}
    drms = {d["key"]: d for d in table["drms"]}
    assert {"key", "value", "description", "kind"} <= set(drms["isolated"])
    assert drms["isolated"]["value"] == 2 and drms["isolated"]["kind"] == "declared"
    assert drms["night"]["kind"] == "automatic" and drms["night"]["conditions"] == {"time": "N"}
    assert "--drm hs_equivalents=N" in cli.ok("tables", "8.606/infantry").stdout


def test_roll_json_contract(at):
    cli = at("8.613", "19 PM")
    roll = cli.json("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes=12", "--dice", "3,4", "--for", "B to A")
    assert {"id", "table", "side", "dice", "original", "drms", "final", "result"} <= set(roll)
    assert roll["dice"] == [3, 4] and roll["dice_named"] == {"white": 3, "colored": 4}
    assert roll["drms"] == [{"key": "uncontrolled_hexes", "name": roll["drms"][0]["name"], "value": 2,
                             "kind": "declared", "input": 12}]
    assert (roll["original"], roll["final"], roll["result"]) == (7, 9, "No Shift: may not attempt again until the next CG Date")
    assert roll["source"] == "entered" and roll["purpose"] == "B to A" and roll["id"] == cli.events()
    assert roll["cg_date"] == "19 PM" and roll["secret"] is True


def test_roll_text_shows_dice_drms_and_result(at):
    cli = at("8.610")
    out = cli.ok("roll", "8.610", "--side", "german", "--dice", "4", "--drm", "isolated").stdout
    assert "dr 4 (entered): Original 4" in out
    assert "-1 If German (automatic)" in out and "+1 If Isolated (declared)" in out
    assert "Final 4: Eliminated (evacuated)" in out


def test_ledger_rolls_when_no_dice_given(at):
    cli = at("8.606")
    seeded = Cli(cli.db, seed="42")
    first = seeded.json("roll", "8.606/infantry", "--side", "us", "--for", "4-4-7")
    assert first["source"] == "seeded" and len(first["dice"]) == 2
    assert cli.json("roll", "8.606/infantry", "--side", "us", "--for", "6-6-6")["source"] == "rng"


def test_log_and_undo(kgp):
    kgp.ok("step", "scenario")
    kgp.ok("roll", "KGP3", "--side", "us", "--dice", "3,3")
    kgp.ok("step", "next")
    undone = kgp.json("undo", "--reason", "too early")
    assert undone == {"undone": 3, "reason": "too early", "events": [4], "same_command_left": []}
    rows = kgp.json("log")
    assert [r["type"] for r in rows] == ["CampaignStarted", "StepOpened", "DiceRolled", "StepOpened", "ActionUndone"]
    assert [r["in_force"] for r in rows[1:]] == [True, True, False, True]
    assert kgp.json("status")["step"] == "scenario"
    lines = kgp.ok("log").stdout.splitlines()
    assert "(undone)" in lines[3]
    assert lines[4].endswith("took back the move to step 8.601: too early")  # the act named, not its number
    assert "took back the move to step 8.601" in kgp.ok("log", "--last", "2").stdout
    # the act it took back lies before the rows read: read back, named all the same
    assert kgp.ok("log", "--last", "1").stdout.endswith("took back the move to step 8.601: too early\n")


def test_head_is_reproducible_under_a_frozen_clock(make_db):
    # the same commands once before the clock is frozen: the rules files parsed, msgspec's decoders made (made under
    # freezegun they would expect its datetime class, and refuse every stored timestamp)
    warm = Cli(make_db())
    for args in (("new", "w", "--cg", "I"), ("step", "scenario"), ("roll", "KGP3", "--side", "us", "--dice", "3,3")):
        warm.ok(*args)
    warm.json("head"), warm.json("log"), warm("audit")
    heads = []
    dbs = [make_db(), make_db()]
    for db in dbs:
        cli = Cli(db)
        with freeze_time("2026-12-19 08:00:00"):  # command ids given: a default one is random, and in the digest
            cli.ok("--command-id", "c1", "new", "c", "--cg", "I")
            cli.ok("--command-id", "c2", "step", "scenario")
            cli.ok("--command-id", "c3", "roll", "KGP3", "--side", "us", "--dice", "3,3")
            heads.append(cli.json("head"))
        assert cli("audit").exit_code == 0
    assert heads[0] == heads[1] and heads[0]["events"] == 3
    log = Cli(dbs[0]).json("log")
    assert log[1]["timestamp"] == "2026-12-19T08:00:00+00:00"


def test_rules_override_is_in_the_log_and_audited(at, tmp_path):
    kgp = at("8.610")
    path = tmp_path / "wounded.toml"
    path.write_text('[[table]]\nid = "8.610"\nrule = "8.610"\ntitle = "Wounded (house rule)"\ndie = "dr"\n'
                    'rows = [ { max = 5, result = "Retained" }, { min = 6, result = "Eliminated" } ]\n')
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "4", "--for", "9-1")
    assert kgp.json("rules", "load", str(path))["tables"] == ["8.610"]
    assert kgp.json("roll", "8.610", "--side", "us", "--dice", "4", "--for", "8-1")["result"] == "Retained"
    assert kgp.json("tables", "8.610")["source"] == "wounded.toml"
    assert kgp("audit").exit_code == 0  # each roll checked against the tables in force when it was made
    kgp.ok("undo")
    kgp.ok("undo")  # the override itself
    assert kgp.json("roll", "8.610", "--side", "us", "--dice", "4", "--for", "7-0")["result"] == "Eliminated (evacuated)"


@pytest.mark.sqlite_only
def test_demo_replays_the_sample_into_a_fresh_ledger(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli = Cli(tmp_path / "sample.db")
    result = cli.ok("demo", "--report", str(tmp_path / "r.html"))
    assert "CG Roster: German" in result.stdout and "CG Roster: U.S." in result.stdout
    assert "audit: " in result.stdout and ": clean" in result.stdout
    assert (tmp_path / "r.html").read_text().count("<table") >= 5
    events = cli.events()
    assert cli.ok("demo", "--report", str(tmp_path / "r.html")).exit_code == 0  # fresh again, not appended to
    assert cli.events() == events


@pytest.mark.sqlite_only
def test_demo_never_replaces_another_ledger(kgp):
    kgp.refused("demo", contains="holds other campaigns")


def test_script_names_the_refused_line(make_db, tmp_path):
    script = tmp_path / "s.cgl"
    script.write_text('new c --cg I\nstep 8.620\nroll 8.6202 --side martian\n')
    cli = Cli(make_db())
    result = cli("script", str(script))
    assert result.exit_code == 1 and "s.cgl line 3: unknown side 'martian'" in result.stderr
    assert cli.events() == 2


def test_console_script_in_a_subprocess(make_db):
    exe = Path(sys.executable).with_name("cgledger")
    db = str(make_db())
    run = lambda *a: subprocess.run([str(exe), "--db", db, *a], capture_output=True, text=True)  # noqa: E731
    assert run("new", "p", "--cg", "I").returncode == 0
    assert run("step", "scenario").returncode == 0
    rolled = run("roll", "KGP3", "--side", "us", "--dice", "6,6", "--json")
    assert rolled.returncode == 0 and json.loads(rolled.stdout)["final"] == 12
    bad = run("roll", "KGP3", "--side", "us", "--dice", "9")
    assert bad.returncode == 1 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert run("audit").returncode == 0
