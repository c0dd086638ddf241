"""Guidance a new player can follow: `status` gives every need of the open step as command lines
to paste, and what players may do there; `step` says which steps it passed and what they were for. The tests
paste the lines `status` prints, as a player would, through a whole run of the RePh."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from conftest import Cli, keyed_players

# what only the players know: the LVP each side scored, the chit each picks
FILL = {"=N": "=3", "attack|idle": "idle", "--winner german|us": "--winner german"}


def paste(cli: Cli, line: str):
    for placeholder, value in FILL.items():
        line = line.replace(placeholder, value)
    words = shlex.split(line)
    assert words[0] == "cgledger", line
    return cli.ok(*words[1:])


def follow_status(cli: Cli, until: str | None, limit: int = 300) -> list[str]:
    """Plays the campaign by pasting what `status` says until CG Date `until` (None: until the campaign is over);
    returns the lines pasted."""
    pasted = []
    for _ in range(limit):
        status = cli.json("status")
        if status["cg_date"] == until or (until is None and status["over"]):
            return pasted
        if status["needs"]:
            line = status["needs"][0]["command"]
        else:
            line = next(m["command"] for m in status["may"] if m["command"] == "cgledger step next")
        paste(cli, line)
        pasted.append(line)
    pytest.fail(f"{until} not reached by pasting {len(pasted)} lines of `status`: {pasted[-5:]}")


def test_a_kgp_campaign_runs_on_the_lines_status_gives(kgp):
    pasted = follow_status(kgp, "20 AM")
    assert any(line.startswith("cgledger roll 8.616 --side german") for line in pasted)
    assert any(line.startswith("cgledger scenario-end --lvp german=N --lvp us=N") for line in pasted)
    assert any(line.startswith("cgledger initiative --chit german=attack|idle") for line in pasted)
    assert kgp.json("audit")["clean"]


def test_a_kgp_campaign_runs_to_its_end_on_the_lines_status_gives(kgp):
    """the guided play meets no refusal to the end of CG I, which status then says, and `final`
    gives its result."""
    pasted = follow_status(kgp, None, limit=600)
    assert len(pasted) > 100 and any("scenario-end" in line for line in pasted)
    status = kgp.json("status")
    assert status["cg_date"] == "21 PM" and status["over"] and status["next"] is None
    final = kgp.json("final")  # 8 CG Dates, 19 AM-21 PM, each adding 3 (an Initial Scenario, then Idle Days)
    assert {s: final["sides"][s]["cg_lvp"] for s in ("german", "us")} == {"german": 24, "us": 24}, final
    assert kgp("audit", "--final").exit_code == 0


def test_an_rr_campaign_runs_on_the_lines_status_gives(rr):
    follow_status(rr, "Interlude AM", limit=400)
    assert rr.json("audit")["clean"]
    follow_status(rr, None, limit=1200)  # on through the Interlude to the end of the CG
    status = rr.json("status")
    assert status["cg_date"] == "26 AM" and status["over"] and status["next"] is None
    final = rr.json("final")  # 13 CG Dates, each adding 3; only the Canadian keeps a CG-LVP Total (2.5033)
    assert final["cg_dates"] == 13
    assert {s: final["sides"][s]["cg_lvp"] for s in ("german", "canadian")} == {"german": None, "canadian": 39}
    assert rr("audit", "--final").exit_code == 0


def test_rg_follow_ups_are_lines_with_side_and_rg(at):
    kgp = at("8.619", "21 AM").with_rgs(("I2", "german"), ("I1", "us"))
    needs = kgp.json("status")["needs"]
    assert [n["command"] for n in needs] == ["cgledger roll 8.6201 --side german --rg I2#1",  # the RG as bought
                                             "cgledger roll 8.6202 --side us --rg I1#1",
                                             "cgledger roll 8.6206/us --side us --rg I1#1"]
    assert [n["rg"] for n in needs] == [needs[0]["rg"], needs[1]["rg"], needs[1]["rg"]]  # its purchase's event
    for _ in range(20):  # a Depleted RG's SW drs come due as its strength is rolled: pasted as they appear
        needs = kgp.json("status")["needs"]
        if not needs:
            break
        assert all(n["rg"] and f"--rg {n['rg_ref']}" in n["command"] for n in needs)
        paste(kgp, needs[0]["command"])
    assert kgp.json("status")["needs"] == []
    kgp.ok("step", "next")


def test_status_says_what_players_may_do_where_nothing_is_needed(at):
    kgp = at("8.619", "21 AM")
    may = {m["command"]: m for m in kgp.json("status")["may"]}
    assert "cgledger buy RG_ID --side german|us --map-group St|Ch|Lg --objective HEX" in may  # 'I', 'HW' (8.6198)
    assert "cgledger buy RG_ID --side us --map-group St|Ch|Lg" in may  # the others: the seeds' German chart has none
    assert "cgledger step next" in may
    text = kgp.ok("status").stdout
    assert "may:" in text and "cgledger buy RG_ID" in text
    kgp.ok("step", "8.622")
    may = [m["command"] for m in kgp.json("status")["may"]]
    assert "cgledger roll 8.622 --side german|us" in may  # Recon: bought if the players want it
    kgp.ok("step", "8.623")
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    kgp.ok("step", "scenario")
    may = [m["command"] for m in kgp.json("status")["may"]]
    assert "cgledger roll KGP3 --side german|us" in may and "cgledger vasl-import FILE" in may


def test_step_names_the_steps_it_passes_and_what_they_were_for(at):
    kgp = at("8.619", "21 AM")
    moved = kgp.ok("step", "8.622").stdout
    assert "skipped: 8.620, 8.621" in moved
    assert "passed 8.620 RG Strength, Quality, Weapons & Leaders: " in moved
    assert "passed 8.621 Purchasing Fortifications" in moved
    kgp.ok("undo")
    passed = kgp.json("step", "8.622")["passed"]
    assert [p["step"] for p in passed] == ["8.620", "8.621"] and passed[1]["title"] == "8.621 Purchasing Fortifications"


def complete(cli: Cli, line: str, tmp_path) -> list[str]:
    """What bash completion offers for the last word of `line`, run as the shell runs it (in the campaign's
    folder, its database the default)."""
    import os
    import subprocess
    import sys

    words = line.split() + ([""] if line.endswith(" ") else [])
    done = subprocess.run([sys.executable, "-c", "from cgledger.cli import main; main(prog_name='cgledger')"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "_CGLEDGER_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(words),
                               "COMP_CWORD": str(len(words) - 1), "CGLEDGER_DB": str(cli.db),
                               "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert done.returncode == 0, done.stderr
    return [row.split(",", 1)[1] for row in done.stdout.splitlines() if "," in row]


@pytest.mark.sqlite_only
def test_completion_offers_tables_sides_steps_and_campaigns(rr, tmp_path):
    assert "2.516" in complete(rr, "cgledger roll 2.51", tmp_path)
    assert "8.616" not in complete(rr, "cgledger roll 8.61", tmp_path)  # the campaign's own system's tables
    assert complete(rr, "cgledger roll 2.516 --side ", tmp_path) == ["canadian", "german"]
    assert complete(rr, "cgledger roster --side c", tmp_path) == ["canadian"]
    assert "2.518" in complete(rr, "cgledger step 2.51", tmp_path) and "next" in complete(rr, "cgledger step n", tmp_path)
    assert complete(rr, "cgledger --campaign ", tmp_path) == ["RR"]
    assert "8.616" in complete(rr, "cgledger --db nowhere.db tables 8.61", tmp_path)  # no campaign: every system


def test_every_step_says_what_it_is_for_and_a_new_cg_date_cites_its_own_system():
    from cgledger.ledger import rules as rulesmod

    for system in ("kgp", "rr"):
        steps = rulesmod.load(system).system.steps
        assert all(step.purpose for step in steps), [s.id for s in steps if not s.purpose]
        assert all(f"({step.id[:5]}" in step.purpose or step.id in step.purpose for step in steps), system


def test_status_and_step_show_what_the_step_is_for(at, rr):
    kgp = at("8.619", "21 AM")
    assert "(8.619" in kgp.json("status")["purpose"] and "Reinforcement Groups" in kgp.ok("status").stdout
    assert all(p["purpose"] for p in kgp.json("step", "8.622")["passed"])
    rr.to("2.511")
    moved = rr.ok("step", "next").stdout
    assert "New CG Date:" in moved and "(2.512)" in moved and "8.612" not in moved


def test_with_keys_status_offers_each_side_only_its_own_chit_and_nothing_once_sealed(at):
    """Found by email: `status` pasted `initiative --chit german=... --chit us=...`, refused once both sides hold
    keys, and kept offering it after the player's own chit was sealed."""
    from conftest import Player

    cli = at("8.623", "19 PM")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    mine = german.json("status")
    lines = [n["command"] for n in mine["needs"] if n["effect"] == "initiative"]
    assert lines == ["cgledger initiative --chit german=attack|idle"], mine["needs"]
    paste(german, lines[0])  # accepted as pasted
    assert not [n for n in german.json("status")["needs"] if n["effect"] == "initiative" and n["commands"]]
    assert german.json("status")["chits_sealed"] == ["german"]
    theirs = [n["command"] for n in us.json("status")["needs"] if n["effect"] == "initiative"]
    assert theirs == ["cgledger initiative --chit us=attack|idle"]
    paste(us, theirs[0])  # the second chit sealed: the U.S. ledger reveals its own at once
    shown = us.json("status")  # the German ledger's part is left: nothing waits for the U.S. player
    assert shown["progress"]["us"]["may"] is None and "Initiative" in shown["progress"]["german"]["may"], shown["progress"]
    assert "waits here for you" not in us.ok("status").stdout
    german.ok("status")  # his ledger reveals his chit: the matrix resolves
    assert german.json("status")["scenario"] == "Idle Day"


# ---- Initiative (8.623, RR 2.522): what each player pastes ------------------------------------------------------
def test_with_keys_each_player_is_offered_its_own_chit_and_the_line_is_accepted_as_pasted(at):
    from conftest import Player

    cli = at("8.623", "19 PM")
    german, us, anyone = Player(cli.db, "Peiper's own words"), Player(cli.db, "Harrison's own words"), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")

    def initiative(player):
        return next(n for n in player.json("status")["needs"] if n["effect"] == "initiative")

    assert initiative(anyone)["commands"] == ["cgledger initiative --chit german=attack|idle",
                                              "cgledger initiative --chit us=attack|idle"]
    mine = initiative(german)
    assert mine["commands"] == ["cgledger initiative --chit german=attack|idle"]
    paste(german, mine["command"])
    sealed = initiative(german)  # nothing more for the German to paste: it waits for the U.S. chit
    assert sealed["commands"] == [] and sealed["command"] is None
    assert "waits for" in sealed["text"] and "U.S." in sealed["text"]
    assert "waits for it" in german.ok("status").stdout and "cgledger initiative" not in german.ok("status").stdout
    assert initiative(anyone)["commands"] == ["cgledger initiative --chit us=attack|idle"]
    paste(us, initiative(us)["command"])
    german.ok("status")  # each ledger reveals its own chit; the matrix resolves
    us.ok("status")
    assert anyone.json("status")["scenario"] == "Idle Day" and anyone.json("audit", "--final")["clean"]


def test_a_side_whose_attack_chits_are_used_is_offered_idle_only(rr):
    from conftest import Player

    for _ in range(2):  # RR 2.5221: the Canadians are limited to 2 Attack Chits
        rr.to("2.522")
        assert rr.json("status")["attack_chits_left"]["canadian"] > 0
        rr.ok("initiative", "--chit", "german=idle", "--chit", "canadian=attack")
        rr.ok("step", "next")
    status = rr.to("2.522")
    assert status["attack_chits_left"] == {"german": 6, "canadian": 0} and status["attack_chits"] == {"german": 0,
                                                                                                    "canadian": 2}
    assert status["needs"][0]["command"] == "cgledger initiative --chit german=attack|idle --chit canadian=idle"
    assert "Attack Chits left: German 6, Canadian 0" in rr.ok("status").stdout
    german, canadian = Player(rr.db, "Peiper's own words"), Player(rr.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german")
    canadian.ok("keys", "init", "--side", "canadian")
    line = next(n for n in canadian.json("status")["needs"] if n["effect"] == "initiative")["command"]
    assert line == "cgledger initiative --chit canadian=idle"
    canadian.ok(*line.split()[1:])  # accepted as pasted


def test_status_says_ahead_what_a_dual_attack_will_need(at):
    kgp = at("8.623", "19 PM")
    ahead = kgp.json("status")["ahead"]
    assert [(a["if"], a["step"], a["text"]) for a in ahead] == [
        ("Dual Attack", "8.623", "a roll on 8.6233a --side us"), ("Dual Attack", "8.625", "a roll on 8.625")]
    text = kgp.ok("status").stdout
    assert "if the Initiative gives a Dual Attack, it will need: a roll on 8.6233a --side us" in text
    assert "a roll on 8.625 (step 8.625 Scenario Commencement)" in text
    assert not any("8.6233a" in m["command"] for m in kgp.json("status")["may"])  # not before a Dual Attack
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=attack")
    status = kgp.json("status")
    assert [n["command"] for n in status["needs"]] == ["cgledger roll 8.6233a --side us"]
    assert [(a["if"], a["step"]) for a in status["ahead"]] == [(None, "8.625")]
    assert "ahead: step 8.625 Scenario Commencement will need a roll on 8.625 (Dual Attack)" in kgp.ok("status").stdout
    kgp.ok("undo")
    kgp.ok("initiative", "--chit", "german=attack", "--chit", "us=idle")
    status = kgp.json("status")
    assert status["needs"] == [] and status["ahead"] == []
    # played: after its CG-Scenario End the next CG Date's steps wait for that date's own Initiative
    played = at("8.623", "19 PM")
    played.ok("initiative", "--chit", "german=attack", "--chit", "us=attack")
    played.ok("roll", "8.6233a", "--side", "us", "--dice", "3")
    played.ok("step", "8.625")
    played.ok("roll", "8.625", "--side", "us", "--dice", "3")
    played.ok("step", "scenario")
    played.ok("scenario-end", "--lvp", "german=0", "--lvp", "us=0")
    assert played.json("status")["ahead"] == [] and "ahead:" not in played.ok("status").stdout


@pytest.mark.parametrize("cg, start, last", [("II", "20 PM", "21 PM"), ("III", "19 PM", "23 PM")])
def test_kgp_cg_ii_and_iii_run_to_their_ends_on_the_lines_status_gives(cli, cg, start, last):
    """CG II and III pasted from `status` to their last CG Date (KGP system.toml: their start and last dates,
    read off the 8.6161 chart). Every scenario ends 3 LVP each, every chit is Idle, so after the Initial Scenario
    each CG Date is an Idle Day: 8.6033 and 8.6232 note 2 add each side's Current-LVP Total, 3, once per CG Date, so
    the CG-LVP Total is 3 x the CG Dates played, a hand computation `final` must equal."""
    cli.ok("new", f"CG {cg}", "--system", "kgp", "--cg", cg)
    assert cli.json("status")["cg_date"] == start
    pasted = follow_status(cli, None, limit=900)
    status = cli.json("status")
    assert status["cg_date"] == last and status["over"] and status["next"] is None
    assert any(line.startswith("cgledger roll 8.6113 --side german") for line in pasted)
    dates = {"II": ["20 PM", "20 N", "21 AM", "21 PM"],
             "III": ["19 PM", "19 N", "20 AM", "20 PM", "20 N", "21 AM", "21 PM", "21 N", "22 AM", "22 PM", "22 N",
                     "23 AM", "23 PM"]}[cg]
    final = cli.json("final")
    assert {s: final["sides"][s]["cg_lvp"] for s in ("german", "us")} == {"german": 3 * len(dates),
                                                                           "us": 3 * len(dates)}, final
    if cg == "III":  # 8.6161 '----175-' read as German '-', U.S. 75: only the U.S. replenishes on 23 AM and PM
        replenished = [line for line in pasted if line.startswith("cgledger roll 8.616 ")]
        assert replenished[-2:] == ["cgledger roll 8.616 --side us"] * 2, replenished[-4:]
    assert cli("audit", "--final").exit_code == 0


def test_a_lasting_condition_is_said_in_the_players_words(played):
    """8.618: a German Ammunition Shortage lasts the rest of the CG. `status`, `date` and the page say it as the
    table's result says it, with its rule; the JSON keeps the flag's name (`flags`) beside the words (`in_effect`)."""
    from cgledger.ledger import rules as rulesmod

    words = "German OB suffers from Ammunition Shortage for the duration of the CG (8.618)"
    assert rulesmod.load("kgp").flag_text("german_ammo_shortage") == words
    assert rulesmod.load("kgp").flag_text("some_condition") == "some condition"  # a flag no row sets: its words
    cli = Cli(played())  # the sample's 20 N: the shortage rolled on 8.618
    for command in (["status"], ["date"]):
        out = cli.ok(*command).stdout
        assert f"in effect: {words}" in out and "german_ammo_shortage" not in out, out
    data = cli.json("date")
    assert data["flags"] == ["german_ammo_shortage"] and data["in_effect"] == [words]


def test_an_act_ahead_on_the_next_cg_date_says_its_date(played):
    """The sample ends at 20 N on an Idle Day (8.623): nothing more is due that date, and the next act ahead is the
    next CG Date's 8.616 CPP Replenishment roll. Its line says that date, so it is not read as 20 N's 8.616 again
    (already rolled); an act ahead on the open date says none."""
    cli = Cli(played())
    status = cli.json("status")
    assert status["cg_date"] == "20 N" and status["next_acts"]
    assert {(a["step"], a["cg_date"]) for a in status["next_acts"]} == {("8.616", "21 AM")}
    text = cli.ok("status").stdout
    assert "(step 8.616 CPP Replenishment, on CG Date 21 AM)" in text
    cli.ok("step", "next")  # into 21 AM: its 8.616 is ahead on the open date
    status = cli.json("status")
    assert status["cg_date"] == "21 AM" and "8.616" in {a["step"] for a in status["next_acts"] + status["needs"]}, status
    assert "on CG Date" not in cli.ok("status").stdout


def test_a_roll_either_side_may_make_is_offered_to_each_player_as_his_own(at):
    """8.625: in a Dual Attack one dr decides who moves first, and either side may make it (the OCR cuts off who
    does). Once both sides hold keys a player records his own side's acts only: his status offers the line with his
    own side, never the other's (which the ledger refuses him), and that line is taken."""
    from conftest import Player

    cli = at("8.623", "19 PM")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    german.ok("initiative", "--chit", "german=attack")
    us.ok("initiative", "--chit", "us=attack")
    german.ok("status")  # his ledger reveals his chit: a Dual Attack
    us.ok("roll", "8.6233a", "--side", "us", "--dice", "3")
    # from 8.623 his next act is to go on to 8.625 (he stepped twice to find the dr): the dr itself is made once
    # both sides stand there, all setup complete (8.6233a), and a roll before is refused, nothing written
    nxt = german.json("status")["next_acts"]
    assert [(a["step"], a["commands"]) for a in nxt] == [("8.625", ["cgledger step 8.625"])], nxt
    before = german.events()
    german.refused("roll", "8.625", "--side", "german", "--dice", "3", contains="the campaign waits at 8.624")
    assert german.events() == before
    german.ok(*nxt[0]["command"].split()[1:])
    need = next(n for n in german.json("status")["needs"] if n["effect"] == "first_move")
    assert need["commands"] == [] and "once the other side stands here too" in need["text"]
    us.ok("step", "8.625")
    need = next(n for n in german.json("status")["needs"] if n["effect"] == "first_move")
    assert need["commands"] == ["cgledger roll 8.625 --side german"], need
    german.ok(*need["command"].split()[1:])


def test_the_next_act_brings_a_side_with_cpp_to_its_purchases_not_past_them(at):
    """8.619: a side buys RG with its CPP in the purchase step. Following "next for you" from 8.616 used to point at
    the Initiative chit (8.623) and walk the side past 8.619: it never bought. Where its CPP buy the cheapest RG of
    its chart, or its CPP Replenishment is declared and not made yet (a fair roll, keys given), the next act is
    `step 8.619`; in 8.619 its purchases are, until it bought (CPP carry over, 8.6162), and a side without a chart to buy
    from is not stopped."""
    from conftest import Player

    chart = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
    bare = at("8.616", "19 PM")
    for side in ("german", "us"):
        bare.ok("roll", "8.616", "--side", side, "--dice", "2,3")
    assert "8.619" not in [a["step"] for a in bare.json("status")["next_acts"]]  # no chart loaded: nothing to buy
    cli = at("8.616", "19 PM")
    cli.ok("rules", "load", str(chart))
    for side in ("german", "us"):
        cli.ok("roll", "8.616", "--side", side, "--dice", "2,3")
    nxt = cli.json("status")["next_acts"]
    assert [(a["step"], a["command"]) for a in nxt] == [("8.619", "cgledger step 8.619")], nxt
    assert "CPP to buy Reinforcement Groups with" in cli.ok("status").stdout
    cli.ok(*nxt[0]["command"].split()[1:])
    # in 8.619, nothing bought yet: the purchases are the next act, not the Initiative chit past them
    status = cli.json("status")
    assert status["step"] == "8.619" and [(a["step"], a["effect"]) for a in status["next_acts"]] == [("8.619", "rg")]
    assert "CPP buy Reinforcement Groups here" in cli.ok("status").stdout
    cli.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    assert "8.620" in [a["step"] for a in cli.json("status")["next_acts"]]  # bought: what comes after (CPP carry over)

    keyed = at("8.616", "19 PM")  # keys given: the replenishment is a fair Secret roll the other side answers
    keyed.ok("rules", "load", str(chart))
    german, us = Player(keyed.db, "Peiper's own words"), Player(keyed.db, "Harrison's own words")
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("roll", "8.616", "--side", "german")  # declared: its CPP are not known to anyone yet
    assert german.json("status")["cpp"]["german"] == 0
    nxt = german.json("status")["next_acts"]
    assert [(a["step"], a["command"]) for a in nxt] == [("8.619", "cgledger step 8.619")], nxt
    # in 8.619 the CPP it buys with are still to come with the U.S. answer: nothing beyond is offered (the walk past
    # it would end this CG Date's purchases before they are known), the purchase is, and the dice are waited for
    german.ok("step", "8.619")
    status = german.json("status")
    assert status["step"] == "8.619" or status["progress"]["german"]["step"] == "8.619"
    assert status["next_acts"] == [] and any(m["command"].startswith("cgledger buy ") for m in status["may"])
    assert any(w["side"] == "german" for w in status["waiting"]), status["waiting"]
    # a player who goes on all the same is told what he leaves: the CPP to come carry over (8.6162)
    said = german.ok("initiative", "--chit", "german=attack").stderr
    assert "are over this CG Date, before its CPP Replenishment came (those CPP carry over)" in said, said


def test_a_proposal_stands_while_the_other_sides_ledger_reveals_its_chit(at):
    """The U.S. seals his Initiative chit second and proposes a rules file; the German's ledger then reveals his chit
    and resolves the matrix (its own records, no player's act): the proposal still waits for his answer."""
    from conftest import keyed_players

    chart = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
    cli = at("8.623", "19 PM")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    german.ok("initiative", "--chit", "german=attack")
    us.ok("initiative", "--chit", "us=idle")
    us.ok("rules", "load", str(chart))
    status = german.json("status")  # his ledger reveals his chit: a German Assault
    assert status["scenario"] == "German Assault"
    assert status["proposal"]["open"] and status["proposal"]["yours"], status["proposal"]
    german.ok("accept")


def test_a_proposer_is_told_when_his_own_act_lets_his_proposal_lapse(at):
    """A rules file proposed, then another act of the proposer's: the proposal lapses (a player's act follows it),
    and the act says so at once, not the other side's `accept` ("no proposal is open") a turn later."""
    from conftest import keyed_players

    chart = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
    cli = at("8.616", "19 PM")
    german, us = keyed_players(cli.db, "Peiper's own words", "Harrison's own words")
    proposed = us.json("rules", "load", str(chart))
    said = us.ok("roll", "8.616", "--side", "us").stderr
    assert "your proposal of event" in said and "lapsed: this act was recorded after it" in said, (proposed, said)


def test_status_names_the_rules_files_the_seeds_leave_to_the_players(make_db):
    """The rules text prints no RG costs for KGP and CGS (RR's chart is in it) and no map Locations: a new campaign's
    status says so, with the command that loads one, until a file gives them."""
    from conftest import Cli

    fixtures = Path(__file__).parent.parent / "fixtures"
    for system, cg, wanted in (("kgp", "I", {"rg_chart", "map"}), ("cgs", "CGS", {"rg_chart", "map"}),
                               ("rr", "RR", set())):
        cli = Cli(make_db())
        cli.ok("new", "T", "--system", system, "--cg", cg)
        assert {f["what"] for f in cli.json("status")["files_wanted"]} == wanted, system
    cli = Cli(make_db())
    cli.ok("new", "T", "--system", "cgs", "--cg", "CGS")
    assert "rules files: no RG chart with costs is loaded" in cli.ok("status").stdout
    cli.ok("rules", "load", str(fixtures / "cgs-rg-chart-example.toml"))
    cli.ok("rules", "load", str(fixtures / "cgs-dtw-fixture-map.toml"))
    assert cli.json("status")["files_wanted"] == [] and "rules files" not in cli.ok("status").stdout
