"""Less effort by email (the email targets, pushed further): a roll, purchase or chit of a step ahead of the one its
side stands in walks the side there first, as `step STEP` would, so a turn needs no `step` line before each act.
It passes only steps that need nothing more of the side, never enters the scenario, and a refused act writes
nothing, its walk included."""

from __future__ import annotations

from pathlib import Path

from conftest import Player, count_events
from test_turn import GERMAN, desks, initial_scenario_played  # noqa: F401 (desks: two machines by email, both with keys)


def hardened(cli) -> None:
    """Both sides' 8.6113 DRs: 8.611 needs them before a walk passes it."""
    for side in ("german", "us"):
        cli.ok("roll", "8.6113", "--side", side, "--dice", "3,4")


def test_one_table_a_roll_ahead_walks_the_campaign_there(at):
    cli = at("8.610", "19 PM")
    hardened(cli)
    got = cli("roll", "8.616", "--side", "german", "--dice", "3,4")
    assert got.exit_code == 0, got.stderr
    assert "walked on to 8.616" in got.stderr
    assert cli.json("status")["step"] == "8.616"
    assert cli("audit").exit_code == 0


def test_a_refused_act_writes_nothing_its_walk_included(at):
    cli = at("8.610", "19 PM")
    hardened(cli)
    before = count_events(cli.db)
    cli.refused("roll", "8.616", "--side", "german", "--dice", "9,9", contains="die value 9 is out of range 1-6")  # the walk alone would pass
    assert count_events(cli.db) == before and cli.json("status")["step"] == "8.611"


def test_a_step_that_needs_something_is_not_passed(at):
    cli = at("8.616", "19 PM")  # both sides' 8.616 CPP rolls are still needed here
    before = count_events(cli.db)
    got = cli.refused("roll", "8.6201", "--side", "german", "--dice", "3",
                      contains="recorded in step 8.620 RG Strength, Quality, Weapons & Leaders, and the campaign cannot "
                               "walk on to it yet: step 8.616 CPP Replenishment still needs a roll on 8.616")
    assert "(8.616)" in got.stderr  # the rule of the step that holds it
    assert count_events(cli.db) == before and cli.json("status")["step"] == "8.616"


def test_by_email_each_side_walks_itself_on_to_its_act(desks, tmp_path):
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    got = g("roll", "8.616", "--side", "german")  # no `step 8.616` typed: declared, the U.S. ledger answers
    assert got.exit_code == 0 and "walked on to 8.616" in got.stderr, got.stderr
    got = g("initiative", "--chit", "german=attack")  # no `step 8.623` typed: sealed at once
    assert got.exit_code == 0, got.stderr
    assert "walked on to 8.623" in got.stderr
    # what the walk left behind is said: a side that walks past its purchase steps buys nothing more there
    assert ("the German side's RG purchases (8.619) and Fortification purchases (8.621) are over this CG Date"
            in got.stderr), got.stderr
    status = g.json("status")
    assert status["progress"]["german"]["step"] == "8.623" and status["chits_sealed"] == ["german"]
    assert g("audit").exit_code == 0


def test_status_shows_the_next_act_ahead_where_nothing_is_needed_here(desks, tmp_path):
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    status = g.json("status")  # the German at the door of 19 PM: nothing needed where he stands
    assert status["needs"] == [] and status["next_acts"], status
    act = status["next_acts"][0]
    assert (act["step"], act["side"]) == ("8.616", "german") and act["command"].startswith("cgledger roll 8.616")
    text = g.ok("status").stdout
    assert "next for you: " in text and "cgledger roll 8.616 --side german" in text
    words = act["command"].split()[1:]
    got = g(*words)  # pasted as shown: it walks him there itself
    assert got.exit_code == 0 and "walked on to 8.616" in got.stderr, got.stderr


def test_in_the_scenario_the_next_act_is_its_end_and_its_line_records_it(desks, tmp_path):
    """Found playing through the page: in the scenario a keyed side was told its next act was the 8.616 roll, and the
    CG-Scenario End (8.603) was offered nowhere. From the scenario, its end is the next act, and its line (with the
    LVP filled in) records it; before the scenario, the walk never offers it."""
    g, u = desks
    g.ok("step", "scenario")
    g.ok("send", str(tmp_path / "3.json"))
    u.ok("receive", str(tmp_path / "3.json"))
    u.ok("step", "scenario")
    status = u.json("status")
    assert [a["effect"] for a in status["next_acts"]] == ["scenario_end"], status["next_acts"]
    line = status["next_acts"][0]["command"]
    assert line.startswith("cgledger scenario-end --lvp german=N --lvp us=N")
    u.ok(*line.replace("german=N", "german=3").replace("us=N", "us=2").replace("german|us", "german").split()[1:])
    after = u.json("status")
    # recorded: its end is offered no more; his next act is his 8.6113 DR (8.611); the 8.616 roll lies past the door of
    # 19 PM, which both sides cross together, so it is not offered before the German has the end either (its line
    # would be refused)
    assert all(a["effect"] != "scenario_end" for a in after["next_acts"]), after["next_acts"]
    assert [(a["table"], a["side"]) for a in after["next_acts"]] == [("8.6113", "us")], after["next_acts"]
    assert any(m["command"] == "cgledger step next" for m in after["may"])
    assert "scenario_end" not in [a["effect"] for a in g.json("status")["next_acts"]]  # the German is before it


def test_an_act_the_side_cannot_walk_on_to_says_what_holds_it(tmp_path):
    """Found playing by email: the German sealed his chit with his RG's follow-up roll still owed in 8.620, and was told
    only that the chit is recorded in 8.623 and he stood in 8.620. The refusal now says why he cannot walk on: what his
    step still needs. Nothing is written, the walk included."""
    from conftest import Player

    from test_email_campaign import GERMAN, US

    g, u = Player(tmp_path / "german.db", GERMAN), Player(tmp_path / "us.db", US)
    g.ok("new", "Stoumont", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("keys", "init", "--side", "german")
    chart = tmp_path / "rg-charts.toml"
    chart.write_text((Path(__file__).parent / "data" / "kgp-rg-test-chart.toml").read_text())
    g.ok("rules", "load", str(chart))
    g.ok("send", str(tmp_path / "1.json"))
    u.ok("receive", str(tmp_path / "1.json"))
    u.ok("accept")
    u.ok("keys", "init", "--side", "us")
    u.ok("send", str(tmp_path / "2.json"))
    g.ok("receive", str(tmp_path / "2.json"))
    initial_scenario_played(g, u, tmp_path)
    g.ok("roll", "8.616", "--side", "german")
    g.ok("buy", "V1", "--side", "german", "--map-group", "St")
    g.ok("roll", "8.6201", "--side", "german", "--rg", "V1#1")  # its follow-up 8.6206/armor is still owed
    before = count_events(g.db)
    got = g.refused("initiative", "--chit", "german=attack",
                    contains="this is recorded in step 8.623 Initiative Determination, and the German side cannot "
                             "walk on to it yet: step 8.620")
    assert "8.6206" in got.stderr, got.stderr
    assert count_events(g.db) == before
    g.ok("roll", "8.6206/armor", "--side", "german", "--rg", "V1#1")
    assert "walked on to 8.623" in g.ok("initiative", "--chit", "german=attack").stderr


def test_before_both_keys_the_keyed_side_does_not_walk_the_other_past_its_purchases(rr, tmp_path):
    """RR by email: the German set up his key and stepped into the scenario before the Canadian had a key, and the
    Canadian could no longer buy for the Initial Scenario (2.518). Refused, naming what the Canadian may still do;
    once both hold keys each side walks itself."""
    german = Player(rr.db, GERMAN)
    german.ok("keys", "init", "--side", "german")
    german.refused("step", "scenario", contains="the Canadian side holds no key yet and may still buy Reinforcement")
    canadian = Player(rr.db, "Canadian's own words, nobody else's 5")
    canadian.ok("keys", "init", "--side", "canadian")
    german.ok("step", "scenario")  # now his own part only: the campaign waits for the Canadian's purchases
    assert german.json("status")["progress"]["canadian"]["step"] == "2.518"


def test_the_player_is_told_the_campaign_waits_for_him_as_you(desks):
    """'the campaign waits here for the German side, which may still act' was said to the German himself."""
    g, u = desks
    g.ok("step", "next")  # 8.619: each side goes on from there itself (no chart loaded: nothing to buy)
    text = g.ok("status").stdout
    assert "the campaign waits here for you to go on (your CPP buy no RG of your chart)" in text, text
    assert "the campaign waits here for the U.S. side to go on (its CPP buy no RG of its chart)" in text, text
    assert "the campaign waits here for the German side" not in text, text


def test_a_secret_roll_made_on_an_earlier_cg_date_meets_no_need_of_this_one(at):
    """8.616 'each side ... makes a Secret DR' every CG Date: a side's Secret 8.616 roll of 19 PM, made and still
    sealed (it stays declared until revealed), does not count as this CG Date's roll waiting for its dice, so the side
    cannot walk past 8.616 on 19 N without making it (the random two-player play met the German walking past it)."""
    from cgledger.ledger import rules as rulesmod
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide import walk

    cli = at("8.616", "19 N")
    state = open_ledger(str(cli.db)).campaign(None)
    rules = rulesmod.load(state.system)
    assert [n["side"] for n in walk.owed(rules, state, "german", "8.616")] == ["german"]
    earlier = {"version": 42, "action": 36, "table": "8.616", "side": "german", "n": 2, "secret": True, "answer": "",
               "answered": 46, "made": 49, "drms": [], "purpose": "", "rg": None, "item": "8.616|german|19 PM",
               "step": "8.616"}
    state.declared = {"german:2": earlier}  # made on 19 PM, not revealed yet
    assert [n["side"] for n in walk.owed(rules, state, "german", "8.616")] == ["german"]
    assert walk.owed(rules, state, "german", "8.616", form=2) == []  # a log written before keeps its reading
    state.declared = {"german:2": {**earlier, "made": 0, "item": "8.616|german|19 N"}}  # this CG Date's, its dice owed
    assert walk.owed(rules, state, "german", "8.616") == []
