"""Rolls the rules make only under a condition the log decides (a table's `when`, as data in the rules files, read
as a step's needs are): KGP 8.6233a and 8.625 only in a Dual Attack, RR 2.5223a and 2.525 likewise, KGP 8.6171 only
in a campaign that chose random weather. A roll whose condition is false is refused by the command, named by the
audit and refused by `import`; `status` offers it only when its condition holds."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, count_events, named_and_refused
from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.events import DiceRolled


def offered(cli: Cli) -> list[str]:
    status = cli.json("status")
    return [c for n in status["needs"] for c in n["commands"]] + [m["command"] for m in status["may"]]


def test_the_dual_attack_setup_dr_is_refused_after_a_german_assault(at):
    kgp = at("8.623", "19 PM")
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    assert not any("8.6233a" in line for line in offered(kgp))
    kgp.refused("roll", "8.6233a", "--side", "us", "--dice", "3",
                contains="is rolled only in a Dual Attack: this CG Date's scenario is a German Assault (8.6233a)")
    assert kgp.json("audit")["clean"]


def test_the_dual_attack_table_is_refused_on_an_assault(at):
    kgp = at("8.623", "19 PM")
    kgp.ok("initiative", "--chit", "german=idle", "--chit", "us=attack")
    kgp.ok("step", "8.625")
    assert not any("8.625 " in line for line in offered(kgp))
    kgp.refused("roll", "8.625", "--side", "us", "--dice", "3", contains="is rolled only in a Dual Attack")
    kgp.refused("roll", "8.625", "--side", "german", "--dice", "3", contains="U.S. Assault (8.625)")


def test_both_dual_attack_rolls_are_made_in_a_dual_attack(at):
    kgp = at("8.623", "19 PM")
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=attack")
    assert "cgledger roll 8.6233a --side us" in offered(kgp)
    kgp.ok("roll", "8.6233a", "--side", "us", "--dice", "3")
    kgp.ok("step", "8.625")
    assert kgp.json("status")["needs"][0]["commands"] == ["cgledger roll 8.625 --side german",
                                                          "cgledger roll 8.625 --side us"]
    kgp.ok("roll", "8.625", "--side", "us", "--dice", "5")
    assert kgp.json("audit")["clean"]


def test_rr_begin_play_and_setup_drs_are_refused_on_a_german_assault(rr):
    rr.to("2.522")
    rr.ok("initiative", "--chit", "german=attack", "--chit", "canadian=idle")
    rr.refused("roll", "2.5223a", "--side", "canadian", "--dice", "2",
               contains="is rolled only in a Dual Attack: this CG Date's scenario is a German Assault (2.5223)")
    rr.ok("step", "2.525")
    assert not any("2.525 " in line for line in offered(rr))
    rr.refused("roll", "2.525", "--side", "canadian", "--dice", "5", contains="German Assault (2.525)")


def test_random_weather_is_refused_in_a_campaign_that_did_not_choose_it(at, make_db):
    historical = at("8.617")
    assert not any("8.6171" in line for line in offered(historical))
    historical.refused("roll", "8.6171", "--side", "us", "--dice", "3,3",
                       contains="is rolled only with random weather (chosen at `cgledger new`): the campaign did not "
                                "choose random weather (`cgledger new ... --random-weather`) (8.617)")
    random = Cli(make_db())  # a SQLite file or a PostgreSQL database, as the suite runs
    random.ok("new", "CG I", "--cg", "I", "--random-weather")
    random.to("8.617")
    assert random.json("status")["needs"][0]["command"] == "cgledger roll 8.6171 --side us"
    random.ok("roll", "8.6171", "--side", "us", "--dice", "3,3")
    assert random.json("audit")["clean"]


def test_a_forged_dual_attack_dr_on_an_assault_is_named_by_the_audit_and_refused_by_import(at, make_db, tmp_path):
    kgp = at("8.623", "19 PM")
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    ledger = open_ledger(str(kgp.db))
    campaign = ledger.campaign(None)
    campaign.record(DiceRolled(action=campaign.begin_action(), table="8.6233a", rule="8.6233", side="us", die="dr",
                               dice=(3,), source="entered", original=3, final=3, result="U.S. sets up first",
                               code="us", effect="dual_attack_setup", item="8.6233a|us|19 PM"))
    ledger.store.save(campaign)
    named_and_refused(kgp, Cli(make_db()), tmp_path, "due", "is rolled only in a Dual Attack")


def test_a_when_the_log_cannot_decide_is_refused_when_rules_are_loaded(kgp, tmp_path):
    table = tmp_path / "mine.toml"
    base = Path(__file__).parent.parent / "ledger" / "rules" / "kgp" / "reph.toml"
    text = base.read_text()
    start = text.index('[[table]]\nid = "8.625"')
    block = text[start:text.index("[[", start + 5)]
    table.write_text(block.replace('scenario = "Dual Attack"', 'scenario = "Dual Atack"'))
    kgp.refused("rules", "load", str(table), contains="when: scenario 'Dual Atack' is none the Initiative matrix gives")
    table.write_text(block.replace('when = { scenario = "Dual Attack"', 'when = { option = "random_wether"'))
    kgp.refused("rules", "load", str(table), contains="when: no option 'random_wether'")


def test_each_side_makes_its_battle_hardening_dr_before_8611_is_left(at):
    """8.6113: "Each side also makes one Secret DR to determine the number of Retained non-crew MMC eligible for
    Battle Hardening": a need of both sides, not an offer. 8.6114's leader DR stays an offer (8.6115: a 7-0 instead).
    A campaign started before this reading keeps its own (tests/test_forms.py: the form 1 sample steps past it)."""
    kgp = at("8.611")
    status = kgp.json("status")
    needed = [c for n in status["needs"] for c in n["commands"]]
    assert needed == ["cgledger roll 8.6113 --side german", "cgledger roll 8.6113 --side us"]
    assert not any("8.6114" in line for line in needed)
    before = count_events(kgp.db)
    kgp.refused("step", "8.612", contains="8.6113")
    kgp.ok("roll", "8.6113", "--side", "german", "--dice", "3,4")
    kgp.refused("step", "next", contains="8.6113 --side us")
    assert count_events(kgp.db) == before + 1  # the refusals wrote nothing
    kgp.ok("roll", "8.6113", "--side", "us", "--dice", "6,6")
    kgp.refused("roll", "8.6113", "--side", "us", "--dice", "2,2", contains="8.6113")  # one DR per side and CG Date
    kgp.ok("step", "8.612")
    assert kgp.json("audit")["clean"]
