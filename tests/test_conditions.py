"""Rolls only when their condition holds (issue 25 item 1, issue 21's "offers 8.6233a outside a Dual Attack"): a
table the system's step needs call for only in a Dual Attack, or only under the random weather option, is refused
when the log says the condition does not hold, by the command, the audit and `import` alike (the same decision)."""

from __future__ import annotations

import json

from conftest import Cli
from ledger.application import open_ledger
from ledger.events import DiceRolled


def test_the_dual_attack_rolls_are_refused_after_an_assault(at):
    cli = at("8.623", "19 PM")
    cli.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    assert cli.json("status")["scenario"] == "German Assault"
    cli.refused("roll", "8.6233a", "--side", "us", "--dice", "2", contains="only in a Dual Attack")
    assert not [m for m in cli.json("status")["may"] if "8.6233a" in m["command"]]  # not offered either
    cli.ok("step", "8.625")
    cli.refused("roll", "8.625", "--side", "us", "--dice", "2", contains="only in a Dual Attack")


def test_the_dual_attack_rolls_are_made_in_a_dual_attack(at):
    cli = at("8.623", "19 PM")
    cli.ok("initiative", "--chit", "german=attack", "--chit", "us=attack")
    cli.ok("roll", "8.6233a", "--side", "us", "--dice", "2")
    cli.ok("step", "8.625")
    cli.ok("roll", "8.625", "--side", "us", "--dice", "2")


def test_rr_begin_play_is_rolled_only_in_a_dual_attack(rr):
    for _ in range(200):
        status = rr.json("status")
        if status["step"] == "2.522" and not status["initial"]:
            break
        rr.satisfy(status)
        rr.ok("step", "next")
    rr.ok("initiative", "--chit", "german=attack", "--chit", "canadian=idle")
    rr.ok("step", "2.525")
    rr.refused("roll", "2.525", "--side", "german", "--dice", "2", contains="only in a Dual Attack")


def test_random_weather_is_refused_under_the_historical_weather_chart(at):
    cli = at("8.617", "19 PM")
    cli.refused("roll", "8.6171", "--side", "us", "--dice", "3,3", contains="random weather")


def test_a_forged_dual_attack_roll_on_an_assault_is_named_and_refused_on_import(at, make_db, tmp_path):
    cli = at("8.623", "19 PM")
    cli.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    campaign.record(DiceRolled(action=campaign.next_action, table="8.6233a", rule="8.6233", side="us", die="dr",
                               dice=(2,), source="entered", original=2, drms=(), final=2, result="U.S. sets up first",
                               code="us", effect="dual_attack_setup", item=f"8.6233a:us:{campaign.cg_date}"))
    ledger.save(campaign)
    findings = json.loads(cli("audit", "--json").stdout)["findings"]
    assert findings and "only in a Dual Attack" in findings[0]["message"], findings
    bundle = tmp_path / "b.json"
    cli.ok("export", "--since", "0", str(bundle))
    Cli(make_db()).refused("import", str(bundle), contains="only in a Dual Attack")
