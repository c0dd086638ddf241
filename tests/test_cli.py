"""The public CLI contract: command names, options and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from freezegun import freeze_time

from conftest import Cli


def test_new_and_date(cli):
    assert cli.json("new", "KGP", "--system", "kgp", "--cg", "II") == {"name": "KGP", "system": "kgp", "cg": "II", "cg_date": "20 PM"}
    assert cli.json("date")["cg_date"] == "20 PM"
    assert cli.json("advance") == {"previous": "20 PM", "cg_date": "20 N", "action": 1}


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


def test_roll_json_contract(kgp):
    roll = kgp.json("roll", "8.613", "--side", "german", "--drm", "uncontrolled_hexes=12", "--dice", "3,4", "--for", "B to A")
    assert {"id", "table", "side", "dice", "original", "drms", "final", "result"} <= set(roll)
    assert roll["dice"] == [3, 4] and roll["dice_named"] == {"white": 3, "colored": 4}
    assert roll["drms"] == [{"key": "uncontrolled_hexes", "name": roll["drms"][0]["name"], "value": 2,
                             "kind": "declared", "input": 12}]
    assert (roll["original"], roll["final"], roll["result"]) == (7, 9, "No Shift: may not attempt again until the next CG Date")
    assert roll["source"] == "entered" and roll["purpose"] == "B to A" and roll["id"] == 2


def test_roll_text_shows_dice_drms_and_result(kgp):
    out = kgp.ok("roll", "8.610", "--side", "german", "--dice", "4", "--drm", "isolated").stdout
    assert "dr die 4 (entered): Original 4" in out
    assert "-1 If German (automatic)" in out and "+1 If Isolated (declared)" in out
    assert "Final 4: Eliminated (evacuated)" in out


def test_ledger_rolls_when_no_dice_given(tmp_path):
    cli = Cli(tmp_path / "c.db", seed="42")
    cli.ok("new", "c", "--cg", "I")
    first = cli.json("roll", "8.606/infantry", "--side", "us")
    assert first["source"] == "seeded" and len(first["dice"]) == 2
    plain = Cli(tmp_path / "d.db")
    plain.ok("new", "c", "--cg", "I")
    assert plain.json("roll", "8.610", "--side", "us")["source"] == "rng"


def test_log_and_undo(kgp):
    kgp.ok("roll", "8.610", "--side", "german", "--dice", "3")
    kgp.ok("advance")
    undone = kgp.json("undo", "--reason", "too early")
    assert undone == {"undone": 2, "reason": "too early", "events": [3]}
    rows = kgp.json("log")
    assert [r["type"] for r in rows] == ["CampaignStarted", "DiceRolled", "CGDateChanged", "ActionUndone"]
    assert [r["voided"] for r in rows[1:]] == [False, True, False]
    assert kgp.json("date")["cg_date"] == "19 AM"
    assert "(undone)" in kgp.ok("log").stdout.splitlines()[2]


def test_head_is_reproducible_under_a_frozen_clock(tmp_path):
    heads = []
    for name in ("a.db", "b.db"):
        cli = Cli(tmp_path / name)
        with freeze_time("2026-12-19 08:00:00"):
            cli.ok("new", "c", "--cg", "I")
            cli.ok("roll", "8.610", "--side", "german", "--dice", "3")
            heads.append(cli.json("head"))
        assert cli("audit").exit_code == 0
    assert heads[0] == heads[1] and heads[0]["events"] == 2
    log = Cli(tmp_path / "a.db").json("log")
    assert log[1]["timestamp"] == "2026-12-19T08:00:00+00:00"


def test_rules_override_is_in_the_log_and_audited(kgp, tmp_path):
    path = tmp_path / "wounded.toml"
    path.write_text('[[table]]\nid = "8.610"\nrule = "8.610"\ntitle = "Wounded (house rule)"\ndie = "dr"\n'
                    'rows = [ { max = 5, result = "Retained" }, { min = 6, result = "Eliminated" } ]\n')
    kgp.ok("roll", "8.610", "--side", "us", "--dice", "4")
    assert kgp.json("rules", "load", str(path))["tables"] == ["8.610"]
    assert kgp.json("roll", "8.610", "--side", "us", "--dice", "4")["result"] == "Retained"
    assert kgp.json("tables", "8.610")["source"] == "wounded.toml"
    assert kgp("audit").exit_code == 0  # each roll checked against the tables in force when it was made
    kgp.ok("undo")
    kgp.ok("undo")  # the override itself
    assert kgp.json("roll", "8.610", "--side", "us", "--dice", "4")["result"] == "Eliminated (evacuated)"


def test_script_and_demo(tmp_path, sample_lines):
    cli = Cli(tmp_path / "sample.db")
    result = cli.ok("demo")
    assert "audit: " in result.stdout and ": clean" in result.stdout
    rolls = sum(1 for line in sample_lines if line.startswith("roll "))
    assert sum(1 for r in cli.json("log") if r["type"] == "DiceRolled") == rolls
    again = cli.ok("demo")  # idempotent: shows the campaign, adds nothing
    assert "already in" in again.stdout and cli.events() == len(cli.json("log"))


def test_script_names_the_refused_line(tmp_path):
    script = tmp_path / "s.cgl"
    script.write_text('new c --cg I\nroll 8.610 --side german --dice 3\nroll 8.610 --side martian\n')
    cli = Cli(tmp_path / "c.db")
    result = cli("script", str(script))
    assert result.exit_code == 1 and "s.cgl line 3: unknown side 'martian'" in result.stderr
    assert cli.events() == 2


def test_console_script_in_a_subprocess(tmp_path):
    exe = Path(sys.executable).with_name("cgledger")
    db = str(tmp_path / "p.db")
    run = lambda *a: subprocess.run([str(exe), "--db", db, *a], capture_output=True, text=True)  # noqa: E731
    assert run("new", "p", "--cg", "I").returncode == 0
    rolled = run("roll", "8.6202", "--side", "us", "--dice", "6", "--json")
    assert rolled.returncode == 0 and json.loads(rolled.stdout)["code"] == "green"
    bad = run("roll", "8.6202", "--side", "us", "--dice", "9")
    assert bad.returncode == 1 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert run("audit").returncode == 0
