"""a turn is one command each way. `send` knows what the opponent holds from the log itself (no
fingerprint typed), `receive` imports, carries out the ledger's duties and tells the player what happened: the
opponent's acts, his own rolls' results (Secret ones to him alone), what is due now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Player

GERMAN, US = "Peiper's own words", "Harrison's own words"
CHART = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"


def german_keyed(tmp_path) -> tuple[Player, Player]:
    """Two machines: the German starts the campaign and sets up his key; the U.S. player's holds nothing yet."""
    g, u = Player(tmp_path / "german.db", GERMAN), Player(tmp_path / "us.db", US)
    g.ok("new", "CG I", "--cg", "I")
    g.ok("keys", "init", "--side", "german")
    return g, u


@pytest.fixture
def desks(tmp_path):
    """`german_keyed`, then the U.S. receives it and sets up his key."""
    g, u = german_keyed(tmp_path)
    g.ok("send", str(tmp_path / "1.json"))
    u.ok("receive", str(tmp_path / "1.json"))
    u.ok("keys", "init", "--side", "us")
    sent = json.loads(u.ok("send", str(tmp_path / "2.json"), "--json").stdout)
    assert (sent["from"], sent["events"]) == (4, 2)  # only what the German has not seen: no fingerprint typed
    g.ok("receive", str(tmp_path / "2.json"))
    return g, u


def test_send_knows_what_the_opponent_holds_and_receive_of_the_same_file_adds_nothing(desks, tmp_path):
    g, u = desks
    again = json.loads(g.ok("receive", str(tmp_path / "2.json"), "--json").stdout)
    assert again["imported"] == 0 and again["head"] == u.ok("head").stdout.strip()
    # the U.S. cannot know the German received it until the German records something: it sends it again, harmlessly
    assert "nothing to send" not in u.ok("send", str(tmp_path / "4.json")).stdout
    assert json.loads(g.ok("receive", str(tmp_path / "4.json"), "--json").stdout)["imported"] == 0
    # the U.S. mailed its turn: nothing more is recorded on its side until it reads the German's reply
    assert u.json("status")["turn"]["mailed"] == 5 and u.json("status")["may"] == []
    u.refused("step", "next", contains="you mailed your turn (up to event 5)")
    # the German has nothing new: his `send` mails the turn back with his signed receipt of it (one event)
    assert g.json("status")["turn"]["reply_owed"] is True
    back = g.json("send", str(tmp_path / "3.json"))
    assert (back["events"], back["from"], back["file"]) == (1, 6, str(tmp_path / "3.json"))
    again = g.json("send", str(tmp_path / "5.json"))  # he cannot know it came: the same receipt again, no other
    assert (again["events"], again["from"]) == (1, 6) and g.events() == 6
    assert json.loads(u.ok("receive", str(tmp_path / "3.json"), "--json").stdout)["imported"] == 1
    assert u.json("log")[-1]["type"] == "TurnReturned" and u.json("status")["turn"]["mailed"] is None
    u.ok("step", "next")  # his turn again
    g.refused("step", "next", contains="you mailed your turn (up to event 6)")  # the German waits for it


def test_a_shared_act_read_by_the_other_side_is_taken_back_only_by_a_proposal(desks, tmp_path):
    """The German records the Initial Scenario's end (a shared act); the U.S. reads it and, with nothing to record,
    mails the turn back. Its signed receipt is the U.S. side's event after the act: the German's `undo` is now a
    proposal the U.S. accepts, never a take-back alone (before, an empty reply left no trace in the log)."""
    g, u = desks
    g.ok("step", "scenario")
    g.ok("send", str(tmp_path / "3.json"))
    u.ok("receive", str(tmp_path / "3.json"))
    u.ok("step", "scenario")
    u.ok("send", str(tmp_path / "4.json"))
    g.ok("receive", str(tmp_path / "4.json"))
    g.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    g.ok("send", str(tmp_path / "5.json"))
    u.ok("receive", str(tmp_path / "5.json"))
    assert "mails it back" not in u.ok("log", "--last", "1").stdout
    assert "receipt" in u.ok("send", str(tmp_path / "6.json")).stdout
    g.ok("receive", str(tmp_path / "6.json"))
    taken = g.json("undo", "--reason", "oops")
    assert taken["proposed"] == "undo", taken
    assert g.json("status")["proposal"]["open"]


def test_a_player_who_took_back_his_key_names_his_side_to_send(tmp_path):
    """His passphrase opens no key of the campaign now, and the ledger does not guess whose turn he mails: it says
    so, names the side without a key, and writes nothing; with --side his turn goes."""
    g, u = german_keyed(tmp_path)
    g.ok("send", str(tmp_path / "1.json"))
    u.ok("receive", str(tmp_path / "1.json"))
    u.ok("keys", "init", "--side", "us")
    u.ok("undo")  # his key registration, taken back before the German has it
    u.ok("step", "next")
    refused = u.refused("send", str(tmp_path / "2.json"), contains="the key given opens no side's key in this "
                        "campaign: give --side SIDE (us: a side without a key)")
    assert not (tmp_path / "2.json").exists() and "keys init" in refused.stderr
    sent = json.loads(u.ok("send", str(tmp_path / "2.json"), "--side", "us", "--json").stdout)
    assert sent["events"] > 0
    g.ok("receive", str(tmp_path / "2.json"))
    assert g.ok("head").stdout == u.ok("head").stdout


def test_an_older_bundle_read_again_does_not_give_the_turn_back(desks, tmp_path):
    g, u = desks
    g.ok("step", "next")
    g.ok("send", str(tmp_path / "3.json"))
    g.ok("receive", str(tmp_path / "2.json"))  # the U.S. bundle of before, read again: no reply to this turn
    g.refused("step", "next", contains="you mailed your turn")
    u.ok("receive", str(tmp_path / "3.json"))
    u.ok("step", "next")
    u.ok("send", str(tmp_path / "4.json"))
    g.ok("receive", str(tmp_path / "4.json"))
    g.ok("step", "next")


def initial_scenario_played(g, u, tmp_path) -> None:
    """Both enter the Initial Scenario; the U.S. records its end and waits at the door of 19 PM; the German has it.
    Each side's Secret 8.6113 DR (8.611) is made before either enters 19 PM: a round trip for their fair dice."""
    g.ok("step", "scenario")
    g.ok("send", str(tmp_path / "3.json"))
    u.ok("receive", str(tmp_path / "3.json"))
    u.ok("step", "scenario")
    u.ok("step", "8.603")
    u.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=2", "--winner", "german")
    u.ok("roll", "8.6113", "--side", "us")
    u.ok("step", "8.616")
    u.ok("send", str(tmp_path / "4.json"))
    g.ok("receive", str(tmp_path / "4.json"))
    g.ok("roll", "8.6113", "--side", "german")
    g.ok("send", str(tmp_path / "4-german.json"))
    u.ok("receive", str(tmp_path / "4-german.json"))  # his ledger answers the German DR and makes his own
    u.ok("send", str(tmp_path / "4-us.json"))
    g.ok("receive", str(tmp_path / "4-us.json"))


def test_a_secret_roll_result_is_shown_to_its_roller_alone(desks, tmp_path):
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    g.ok("step", "8.616")
    g.ok("roll", "8.616", "--side", "german")  # Secret, declared: the U.S. ledger answers
    g.ok("send", str(tmp_path / "5.json"))
    text = u.ok("receive", str(tmp_path / "5.json")).stdout
    assert "the German side: " in text and "your ledger then recorded" in text
    u.ok("send", str(tmp_path / "6.json"))
    got = g.ok("receive", str(tmp_path / "6.json"))
    assert "your Secret roll on 8.616" in got.stdout and "only you see this" in got.stdout
    g.ok("send", str(tmp_path / "8.json"))  # carries the German's Secret roll, made by his ledger: sealed
    shown = json.loads(u.ok("receive", str(tmp_path / "8.json"), "--json").stdout)
    assert shown["results"] == [] and all("8.616" not in a["text"] or "Secret" in a["text"] for a in shown["acts"])
    assert g.ok("head").stdout == u.ok("head").stdout
    assert u("audit").exit_code == 0 and g("audit").exit_code == 0


def test_outbox_and_inbox_folders(desks, tmp_path, monkeypatch):
    g, u = desks
    box = tmp_path / "synced"
    monkeypatch.setenv("CGLEDGER_OUTBOX", str(box))
    g.ok("step", "scenario")
    sent = json.loads(g.ok("send", "--json").stdout)
    assert sent["file"].startswith(str(box)) and sent["file"].endswith(".cgl.json")
    monkeypatch.delenv("CGLEDGER_OUTBOX")
    got = json.loads(u.ok("receive", "--inbox", str(box), "--json").stdout)
    assert got["imported"] == sent["events"] and got["head"] == g.ok("head").stdout.strip()
    again = json.loads(u.ok("receive", "--inbox", str(box), "--json").stdout)  # read twice: nothing new
    assert again["imported"] == 0


def test_a_tampered_bundle_is_refused_and_nothing_is_written(desks, tmp_path):
    g, u = desks
    g.ok("step", "scenario")
    path = tmp_path / "3.json"
    g.ok("send", str(path))
    data = json.loads(path.read_text())
    data["events"][-1]["fact"]["step"] = "8.625"
    path.write_text(json.dumps(data))
    u.refused("receive", str(path), contains="edited")
    u.refused("receive", contains="bundle FILE", code=1)


def test_any_command_that_makes_the_players_secret_roll_shows_him_its_result(desks, tmp_path):
    """a player who imports with `import` (not `receive`) sees his Secret roll's result with the
    next command his ledger makes it in, whatever that command is; the other side never does."""
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    g.ok("step", "8.616")
    g.ok("roll", "8.616", "--side", "german")
    g.ok("send", str(tmp_path / "5.json"))
    answered = u.ok("receive", str(tmp_path / "5.json"))
    assert "your ledger made" not in answered.stderr
    u.ok("send", str(tmp_path / "6.json"))
    g.ok("import", str(tmp_path / "6.json"))
    made = g.ok("step", "8.619")  # his ledger makes the Secret roll first, and says what it was to him
    assert "your ledger made your Secret roll on 8.616" in made.stderr and "only you see this" in made.stderr
    assert "your ledger made" not in g.ok("status").stderr  # said once


@pytest.mark.sqlite_only
def test_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "cgledger"
    db = tmp_path / "c.db"
    subprocess.run([exe, "--db", db, "demo"], check=True, capture_output=True, cwd=tmp_path)
    run = subprocess.run(f"'{exe}' --db '{db}' log | head -1", shell=True, capture_output=True, text=True)
    assert run.stdout.count("\n") == 1 and run.stderr == "", run.stderr


def test_a_declared_roll_is_no_longer_asked_for(desks, tmp_path):
    """Found by email: `status` kept printing a roll declared and answered as needed, and pasting it gave 'rolled
    already ... undo that roll to make it again', advice that leads to a flagged re-roll."""
    g, u = desks
    initial_scenario_played(g, u, tmp_path)
    g.ok("step", "8.616")
    assert [n["table"] for n in g.json("status")["needs"]] == ["8.616"]
    g.ok("roll", "8.616", "--side", "german")
    status = g.json("status")
    assert status["needs"] == [] and [w["table"] for w in status["waiting"]] == ["8.616"]
    g.ok("step", "8.619")  # and he walks on: its dice come with the U.S. answer


def test_receive_adds_no_second_campaign(desks, tmp_path):
    """A bundle of another campaign is not added quietly beside the one this database holds (a second campaign makes
    every command ask which one, and the page show none): refused, nothing written."""
    g, u = desks
    other = Player(tmp_path / "other.db", GERMAN)
    other.ok("new", "Another", "--cg", "I")
    other.ok("export", "--since", "0", str(tmp_path / "another.json"))
    u.refused("receive", str(tmp_path / "another.json"), contains="holds the campaign 'CG I'")


def test_receive_names_each_side_once(tmp_path):
    """'the German side: the German side set up its key' (found playing by email): an act that names its side is
    said with its own words."""
    g, u = german_keyed(tmp_path)
    g.ok("send", str(tmp_path / "1.json"))
    text = u.ok("receive", str(tmp_path / "1.json")).stdout
    assert "the German side set up its key" in text and "the German side: the German side" not in text, text


def test_receive_puts_the_other_sides_proposal_first_among_what_is_due(desks, tmp_path):
    """A rules file the other side proposed waits for this player's answer: `receive` says so first, with the line to
    run (before, it said 'nothing is due from you now' above the proposal), and counts '1 event' in words."""
    g, u = desks
    g.ok("rules", "load", str(CHART))
    g.ok("send", str(tmp_path / "3.json"))
    shown = u.ok("receive", str(tmp_path / "3.json")).stdout.splitlines()
    assert shown[0].startswith("1 event received into 'CG I'")
    due = shown.index("due from you:")
    assert shown[due + 1].startswith("  the German side proposes the rules file kgp-rg-test-chart.toml (")
    assert shown[due + 1].endswith(": accept or decline it")
    assert shown[due + 2] == "      cgledger accept    # or: cgledger decline"
    assert "nothing is due from you now" not in "\n".join(shown)


def due(shown: str) -> list[str]:
    """What `receive` says is due, up to the whole status."""
    lines = shown.splitlines()
    return lines[lines.index("due from you:"):lines.index("now:")]


def test_receive_puts_the_proposal_first_for_the_side_without_a_key(tmp_path):
    """Found by email: before the U.S. player set up his key, `receive` offered him `step next` while the German's
    rules file waited for his answer (it looked for his side in `status`'s `you`, known once both sides hold keys).
    The side that answers is the one that records here: its key's, else the one side without a key. His key set up,
    the proposal is still open (a key is no game act), and he declines it."""
    g, u = german_keyed(tmp_path)
    g.ok("rules", "load", str(CHART))
    g.ok("send", str(tmp_path / "1.json"))
    shown = u.ok("receive", str(tmp_path / "1.json")).stdout
    assert due(shown) == [
        "due from you:",
        "  the German side proposes the rules file kgp-rg-test-chart.toml (RG german I2, RG german V1, RG german HW1, "
        "RG us I1, RG us I6, RG us V3, RG german FPP, RG us FPP) for both sides: accept or decline it",
        "      cgledger accept    # or: cgledger decline"]
    assert "next for you" not in shown and "waits for you to accept it" in shown
    u.ok("keys", "init", "--side", "us")
    proposal = u.json("status")["proposal"]
    assert proposal["open"] and proposal["yours"] and "lapsed" not in proposal
    u.ok("decline", "--reason", "not this chart")
    u.ok("send", str(tmp_path / "2.json"))
    g.ok("receive", str(tmp_path / "2.json"))
    assert g.json("status")["proposal"]["lapsed"]["why"] == "the other side declined it"
    assert g.json("audit")["clean"] and u.json("audit")["clean"]


def test_receive_puts_the_proposal_first_for_a_side_whose_opponent_has_no_key(tmp_path):
    """The same the other way round: the U.S. player, without a key, proposes to take back the German's step; the
    German's `receive` puts it first, though `status` knows no 'you' before both sides hold keys."""
    g, u = german_keyed(tmp_path)
    g.ok("step", "next")  # 8.618 -> 8.619
    g.ok("send", str(tmp_path / "1.json"))
    u.ok("receive", str(tmp_path / "1.json"))
    assert u.json("undo", "--reason", "not yet")["proposed"] == "undo"
    u.ok("send", str(tmp_path / "2.json"), "--side", "us")
    shown = g.ok("receive", str(tmp_path / "2.json")).stdout
    assert g.json("status")["you"] is None
    assert due(shown) == ["due from you:",
                          "  the U.S. side proposes to take back the move to step 8.619 (event 4): accept or decline it",
                          "      cgledger accept    # or: cgledger decline"]
    g.ok("accept")
    assert g.json("status")["step"] == "8.618"


def test_receive_says_nothing_is_due_only_where_nothing_is_offered(desks, tmp_path):
    """Each side walks the Refit Phase (8.6): after `receive`, a side that stands in a step the campaign cannot
    leave until it walks on is told what is next, with the line to run, not 'nothing is due from you now' (it was
    said there, with `step next` offered below it). Where nothing is due and nothing is offered (its walk stopped at
    the door of the new CG Date, 8.612, which both sides enter together), it is told so, and how to mail the turn
    back."""
    g, u = desks
    g.ok("step", "next")  # 8.618 -> 8.619, where each side buys its RG and walks on when done
    g.ok("send", str(tmp_path / "3.json"))
    shown = u.ok("receive", str(tmp_path / "3.json")).stdout
    status = u.json("status")
    assert not status["needs"] and status["progress"]["us"]["step"] == "8.619"
    assert [a["command"] for a in status["next_acts"]] == ["cgledger step scenario"]  # nothing of his up to it
    assert "cgledger step next" in [m["command"] for m in status["may"]]
    assert "nothing is due" not in shown, shown
    lines = shown.splitlines()
    at = lines.index("due from you:")
    assert "nothing more of yours up to the scenario" in lines[at + 1], shown
    assert lines[at + 2].strip() == "cgledger step scenario"
    u.ok("step", "scenario")  # what it said is accepted; on to the scenario, both sides
    u.ok("send", str(tmp_path / "4.json"))
    g.ok("receive", str(tmp_path / "4.json"))
    g.ok("step", "scenario")
    g.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=2", "--winner", "german")
    g.ok("roll", "8.6113", "--side", "german")  # 8.611: his Secret DR, declared on his walk
    for _ in range(20):  # the German walks up to the door of the new CG Date, where he waits for the U.S.
        if "cgledger step next" not in [m["command"] for m in g.json("status")["may"]]:
            break
        g.ok("step", "next")
    g.ok("send", str(tmp_path / "5.json"))
    u.ok("receive", str(tmp_path / "5.json"))
    u.ok("step", "next")
    u.ok("send", str(tmp_path / "6.json"))
    shown = g.ok("receive", str(tmp_path / "6.json")).stdout
    status = g.json("status")
    assert (status["progress"]["german"]["step"], status["needs"], status["next_acts"], status["may"]) == \
        ("8.612", [], [], []), status
    assert "nothing is due from you: `cgledger send` mails the turn back" in shown.splitlines(), shown
    assert "next for you" not in shown


def test_the_first_thing_due_from_a_player_without_a_key_is_his_key(tmp_path):
    """The other side has a key and this player none yet: `receive` names setting it up first (his acts are signed
    and fair dice start from then on), not a step that would walk him on unsigned (the trust model)."""
    g, u = german_keyed(tmp_path)
    g.ok("send", str(tmp_path / "1.json"))
    said = u.ok("receive", str(tmp_path / "1.json")).stdout
    due = said[said.index("next for you"):].splitlines()
    assert "set up your key" in due[0] and due[1].strip() == "cgledger keys init --side us", said
    assert "step next" not in said[:said.index("now:")]


def test_receive_says_a_run_of_alike_events_once(tmp_path, make_db):
    """A purchase's follow-ups declared together are answered by the other side's ledger in a row: `receive` said
    "... answers the German side's Secret fair roll ..." once per roll, word for word. A run of events in a row that
    say the same is one line with its events (JSON keeps one entry per event)."""
    from two_players import start

    desks, post = start("kgp", [make_db(), make_db()], tmp_path)
    g, u = desks["german"], desks["us"]
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--follow-ups")
    post.send(g)
    path = u.inbox[0]
    said = u.ok("receive", str(path)).stdout
    answers = [line for line in said.splitlines() if "answers the German side's Secret fair roll" in line]
    assert len(answers) == 1 and answers[0].rstrip().endswith("(4 events)"), said


def test_a_campaign_started_under_an_older_reading_is_not_joined(tmp_path):
    """A ledger that starts its campaign under an older reading of the rules (typed dice for Secret rolls, dice one
    side chose alone) would hold the other player to it: his `receive` refuses to join it, writing nothing; `import`
    still reads it."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide.steps import EDITION
    from cgledger.ledger.domain.events import CampaignStarted
    from cgledger.ledger.store.campaign import Campaign

    ledger = open_ledger(str(tmp_path / "german.db"), create=True)
    ledger.store.save_campaign(Campaign.begin(CampaignStarted(
        name="CG I", system="kgp", cg="I", cg_date="19 AM", start_cpp={"german": 0, "us": 0}, edition=EDITION - 1)))
    g, u = Player(tmp_path / "german.db", GERMAN), Player(tmp_path / "us.db", US)
    g.ok("fair-dice", "mode", "immediate")
    g.ok("keys", "init", "--side", "german", "--dice", "immediate")
    g.ok("send", str(tmp_path / "1.json"))
    u.refused("receive", str(tmp_path / "1.json"), contains=f"older reading of the rules than this cgledger's "
                                                            f"(edition {EDITION - 1}, not {EDITION})")
    assert not (tmp_path / "us.db").exists() or "CG I" not in open_ledger(str(tmp_path / "us.db")).store.campaign_names()
    Player(tmp_path / "look.db", None).ok("import", str(tmp_path / "1.json"))


def test_a_proposed_rules_file_says_what_it_changes_against_the_tables_in_force(desks, tmp_path):
    """A file named for a typo in a chart replaces the shipped 8.6201 (Depleted on 14+, not 12+): the other side's
    `receive` and `status` say, row by row, what it changes before he accepts it."""
    g, u = desks
    table = (Path(__file__).parent.parent / "ledger" / "rules" / "kgp" / "reph.toml").read_text(encoding="utf-8")
    start = table.index('[[table]]\nid = "8.6201"')
    block = table[start:table.index("[[table]]", start + 1)]
    doctored = tmp_path / "charts-v2.toml"  # "a typo in I2's cost"
    doctored.write_text(block.replace("max = 11,", "max = 13,").replace("min = 12,", "min = 14,"), encoding="utf-8")
    g.ok("rules", "load", str(doctored))
    g.ok("send", str(tmp_path / "3.json"))
    shown = u.ok("receive", str(tmp_path / "3.json")).stdout
    change = ("table 8.6201 in force replaced: rows ≤11 Full Strength [F], ≥12 Depleted [D] become ≤13 Full Strength "
              "[F], ≥14 Depleted [D]")
    assert f"  it changes {change}" in shown
    assert u.json("status")["proposal"]["changes"] == [change]


def test_a_proposed_rules_file_shows_every_field_it_changes(desks, tmp_path):
    """A result's code swapped (Full Strength read as Depleted), a guard dropped (8.625's `together`) and a chart's
    figure cut: each is named, field by field; a table copied as it is says so."""
    g, u = desks
    shipped = (Path(__file__).parent.parent / "ledger" / "rules" / "kgp" / "reph.toml").read_text(encoding="utf-8")

    def block(table_id: str) -> str:
        start = shipped.index(f'[[table]]\nid = "{table_id}"')
        end = shipped.find("\n[[", start + 1)
        return shipped[start:end if end > 0 else len(shipped)] + "\n"

    doctored = tmp_path / "house.toml"
    doctored.write_text(block("8.6201").replace('code = "F"', 'code = "D"') + block("8.625").replace(
        'together = "8.6233a"\n', "") + block("8.6202"), encoding="utf-8")
    g.ok("rules", "load", str(doctored))
    changes = g.json("status")["proposal"]["changes"]
    assert changes[0] == ("table 8.6201 in force replaced: rows ≤11 Full Strength [F] become ≤11 Full Strength [D]")
    assert changes[1] == "table 8.625 in force replaced: together 8.6233a → not given"
    assert changes[2] == "table 8.6202: the same as in force"


def test_a_proposed_chart_names_the_one_entry_it_changes(desks, tmp_path):
    """The CPP Base # chart copied with one figure raised (German 20 N 50 -> 90): the entry is named, whole, however
    long the chart (a value cut short would read the same before and after)."""
    g, u = desks
    shipped = (Path(__file__).parent.parent / "ledger" / "rules" / "kgp" / "reph.toml").read_text(encoding="utf-8")
    start = shipped.index('[[chart]]\nid = "8.6161"')
    chart = shipped[start:shipped.find("\n[[", start + 1)] + "\n"
    raised = chart.replace('date = "20 N", values = { german = 50, us = 50 }', 'date = "20 N", values = { german = 90, us = 50 }', 1)
    assert raised != chart
    (tmp_path / "evil.toml").write_text(raised, encoding="utf-8")
    g.ok("rules", "load", str(tmp_path / "evil.toml"))
    change, = g.json("status")["proposal"]["changes"]
    assert change.startswith("chart 8.6161 in force replaced: entries ") and "german 50" in change \
        and "german 90" in change and change.count("20 N") == 2, change
