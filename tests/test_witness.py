"""no die without a witness. Once both sides hold keys, dice the ledger did not see made fairly (typed
with --dice, taken from VASL) are the recording side's claim; the other side witnesses them, by hand or by importing
its own copy of the VASL log, or disputes them with a reason that stays on record. Unwitnessed dice are shown as such
in status, log, dice-stats and the final audit. Each test runs on SQLite and, with --backend postgres, on PostgreSQL."""

from __future__ import annotations

import json

import pytest

from conftest import Player, count_events
from cgledger.ledger.domain.events import DiceWitnessed
from test_trust import forge, kinds, table  # noqa: F401 (table: both sides with keys at 8.610, one database)
from test_turn import desks  # noqa: F401 (two machines by email, both with keys)

GERMAN, US = "Peiper's own words", "Harrison's own words"
LINE = "*** (Other DR) 1,1 *** <Peiper> [Allied SAN]  Other 12"  # a dice-bot line, stats and all


def typed(german) -> int:
    german.ok("roll", "8.610", "--side", "german", "--dice", "1", "--for", "A")
    return german.json("log")[-1]["version"]


def test_typed_dice_are_a_claim_until_the_other_side_witnesses_them(table):
    german, us, anyone = table
    event = typed(german)
    claims = anyone.json("status")["unwitnessed"]
    assert claims == [{"event": event, "table": "8.610", "side": "german", "dice": [1], "source": "entered",
                       "claimed_by": "german", "witness": "us", "disputed": None, "disputed_at": None}]
    text = us.ok("status").stdout
    assert f"not witnessed: event {event}: the German roll on 8.610, dice 1 typed by the German side" in text
    assert "cgledger witness --all" in text  # offered to the U.S., who may witness
    assert "cgledger witness --all" not in german.ok("status").stdout
    final = json.loads(anyone("audit", "--final", "--json").stdout)
    assert [(f["version"], f["kind"]) for f in final["findings"]] == [(event, "unwitnessed")]
    assert "not witnessed" in final["findings"][0]["message"] and "typed by the German side" in \
        final["findings"][0]["message"]
    assert kinds(anyone) == []  # a claim is no finding while the campaign goes on

    done = us.json("witness", "--all")
    assert done == {"side": "us", "rolls": [event], "disputed": None}
    assert anyone.json("status")["unwitnessed"] == []
    assert anyone("audit", "--final").exit_code == 0
    last = anyone.json("log")[-1]
    assert (last["author"], last["signed"]) == ("us", True)
    assert "the U.S. side witnesses the dice of event" in anyone.ok("log").stdout.splitlines()[-1]


def test_the_witness_is_the_other_side_and_wrong_ones_write_nothing(table):
    german, us, anyone = table
    event = typed(german)
    german.refused("witness", str(event), contains="the other side witnesses them")
    anyone.refused("witness", "--all", contains="needs your side's passphrase")
    us.refused("witness", "3", contains="holds no dice waiting for a witness")
    us.refused("witness", str(event), str(event), contains="named twice")
    us.refused("witness", contains="name the rolls")
    us.refused("witness", str(event), "--dispute", "  ", contains="say why")
    german.ok("roll", "8.610", "--side", "german", "--for", "B")  # a fair roll: declared, nothing to witness
    assert [c["event"] for c in anyone.json("status")["unwitnessed"]] == [event]
    us.ok("witness", str(event))
    us.refused("witness", str(event), contains="witnessed already, taken back")
    us.refused("witness", "--all", contains="no dice of the other side wait")
    us.refused("witness", str(event), "--dispute", "late", contains="witnessed already, taken back")


def test_a_dispute_stays_on_record_and_may_be_settled_later(table):
    german, us, anyone = table
    event = typed(german)
    us.ok("witness", str(event), "--dispute", "I saw 4 on the screen")
    claim = anyone.json("status")["unwitnessed"][0]
    assert claim["disputed"] == "I saw 4 on the screen" and claim["disputed_at"] == anyone.json("log")[-1]["version"]
    assert "disputed by the U.S. side: I saw 4 on the screen" in german.ok("status").stdout
    us.refused("witness", str(event), "--dispute", "again", contains="disputed already")
    us.refused("witness", "--all", contains="disputed: name them")  # --all never takes back a dispute
    assert us.ok("witness", str(event)).stdout.startswith("witnessed:")  # settled over the phone: witnessed after all
    assert anyone.json("status")["unwitnessed"] == []
    lines = anyone.ok("log").stdout.splitlines()
    assert any("disputes the dice of event" in line and "I saw 4 on the screen" in line for line in lines)


def test_no_undo_takes_a_witness_back_and_an_undone_roll_is_no_claim(table):
    german, us, anyone = table
    event = typed(german)
    us.ok("witness", str(event))
    before = count_events(anyone.db)
    german.ok("undo")  # takes back the roll itself, the last action in force: the witness stays on record
    assert count_events(anyone.db) == before + 1
    assert anyone.json("log")[-2]["type"] == "DiceWitnessed"
    again = typed(german)
    assert [c["event"] for c in anyone.json("status")["unwitnessed"]] == [again]
    german.ok("undo")
    assert anyone.json("status")["unwitnessed"] == []  # undone: nothing to witness
    us.refused("witness", str(again), contains="taken back")
    assert anyone("audit", "--final").exit_code == 0


def test_without_keys_nothing_changes(at):
    cli = at("8.610")
    cli.ok("roll", "8.610", "--side", "german", "--dice", "1", "--for", "A")
    assert cli.json("status")["unwitnessed"] == []
    assert cli("audit", "--final").exit_code == 0


@pytest.mark.parametrize("author, side, found", [
    ("german", "us", "author"),  # the German witnesses his own dice in the U.S.'s name, signed with his own key
    ("german", "german", "the other side witnesses them"),  # or in his own name: the decision the audit runs refuses
])
def test_a_forged_witness_is_named_and_refused_by_import(table, make_db, tmp_path, author, side, found):
    german, us, anyone = table
    event = typed(german)
    forge(anyone.db, lambda c: DiceWitnessed(action=c.next_action, side=side, rolls=(event,)), author, GERMAN)
    report = json.loads(anyone("audit", "--json").stdout)
    assert any(found in f["kind"] or found in f["message"] for f in report["findings"]), report["findings"]
    bundle = tmp_path / "bundle.json"
    anyone.ok("export", "--since", "0", str(bundle))
    fresh = Player(make_db(), None)
    fresh.refused("import", str(bundle), contains="forged or that the rules do not bear out")  # nothing written


def test_immediate_dice_both_players_chose_are_no_claim_but_typed_ones_are(at):
    cli = at("8.610")
    cli.ok("fair-dice", "mode", "immediate")  # chosen by both at the start: each side's ledger rolls at once
    german, us, anyone = Player(cli.db, GERMAN), Player(cli.db, US), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german", "--dice", "immediate")
    us.ok("keys", "init", "--side", "us", "--dice", "immediate")
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    assert anyone.json("status")["unwitnessed"] == []
    german.ok("roll", "8.610", "--side", "german", "--for", "B", "--dice", "2")
    assert [c["source"] for c in anyone.json("status")["unwitnessed"]] == ["entered"]


def test_dice_stats_keep_witnessed_and_unwitnessed_apart(table):
    german, us, anyone = table
    first = typed(german)
    german.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "B")
    us.ok("witness", str(first))
    groups = {(g["side"], g["source"]): g["dr"]["count"] for g in anyone.json("dice-stats")["groups"]
              if g.get("dr")}
    assert groups[("german", "entered")] == 1 and groups[("german", "entered, not witnessed")] == 1


CHAT = ["*** (Other dr) 2 ***   <Peiper>      [1 / 8   avg   2,00 (2,00)]    (01.54 - by random.org)",
        "*** (Other dr) 5 ***   <Harrison>      [1 / 8   avg   5,00 (5,00)]    (01.55 - by random.org)",
        "*** (Other dr) 6 ***   <Peiper>      [2 / 8   avg   4,00 (4,00)]    (01.56 - by random.org)"]


def test_the_witness_own_copy_of_the_vasl_log_witnesses_the_same_reports(table, tmp_path):
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--vasl", CHAT[0], "--for", "A")
    first = anyone.json("log")[-1]["version"]
    german.ok("roll", "8.610", "--side", "german", "--dice", "6", "--for", "B")  # typed: no report to match
    typed_one = anyone.json("log")[-1]["version"]
    assert [c["event"] for c in anyone.json("status")["unwitnessed"]] == [first, typed_one]
    own = tmp_path / "german-chat.txt"  # the German's own copy of the chat
    own.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    german("vasl-import", str(own))  # the claimant's own import witnesses nothing
    assert [c["event"] for c in anyone.json("status")["unwitnessed"]] == [first, typed_one]
    copy = tmp_path / "us-chat.txt"  # the U.S. player's own copy of the same game: other bytes, the same reports
    copy.write_text("\r\n".join(CHAT) + "\r\n", encoding="utf-8")
    before = count_events(anyone.db)  # a file is a witness only where his own VASL wrote it as he watched: he says so
    assert "`--own-copy` witnesses them" in us.ok("vasl-import", str(copy)).stderr
    # his VASL name not known yet: a report of his own could be taken for the other's
    assert "name your own VASL player to witness them" in us.ok("vasl-import", str(copy), "--own-copy").stderr
    assert count_events(anyone.db) == before
    result = us.ok("vasl-import", str(copy), "--player", "Harrison=us", "--own-copy")
    assert f"witnessed the other side's VASL dice of event {first}" in result.stderr
    witnessed = [r for r in anyone.json("log") if r["type"] == "DiceWitnessed"]
    assert [(r["side"], r["rolls"], bool(r["log_digest"])) for r in witnessed] == [("us", [first], True)]
    assert [c["event"] for c in anyone.json("status")["unwitnessed"]] == [typed_one]
    assert kinds(anyone) == []


def test_a_report_of_the_witness_claimed_by_the_other_side_is_not_witnessed(table, tmp_path):
    """The cheater attaches the U.S. player's own report to a German roll (naming the VASL players the other way
    round). The U.S. copy names him once (`--player`, or his own VASL rolls in the log): his reports witness no
    German roll, and the claim stays unwitnessed for `audit --final` to name."""
    german, us, anyone = table
    chat = tmp_path / "game.txt"
    chat.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    german.ok("vasl-import", str(chat), "--attach", "2=8.610", "--player", "Harrison=german", "--player", "Peiper=us")
    event = [r for r in anyone.json("log") if r["type"] == "DiceRolled"][-1]["version"]
    copy = tmp_path / "us-copy.txt"
    copy.write_text("\r\n".join(CHAT) + "\r\n", encoding="utf-8")
    result = us.ok("vasl-import", str(copy), "--player", "Harrison=us", "--own-copy")
    assert "witnessed" not in result.stderr and _unwitnessed(anyone) == [event]
    assert us.ok("vasl-import", str(copy), "--own-copy").stderr.count("witnessed the other side") == 0  # named before
    assert _unwitnessed(anyone) == [event]


def _unwitnessed(anyone) -> list[int]:
    return [c["event"] for c in anyone.json("status")["unwitnessed"]]


def test_the_claimants_own_file_is_no_evidence_of_his_dice(table, tmp_path):
    """A cheater mails his own (doctored) VASL file and imports it himself; the honest player imports it as PBEM
    asks. The very file the claimant imported witnesses nothing, and a witness naming it is refused."""
    german, us, anyone = table
    doctored = tmp_path / "peiper.txt"
    doctored.write_text(CHAT[0] + "\n", encoding="utf-8")
    german.ok("vasl-import", str(doctored), "--attach", "1=8.610", "--player", "Peiper=german")
    event = [r for r in anyone.json("log") if r["type"] == "DiceRolled"][-1]["version"]
    assert _unwitnessed(anyone) == [event]
    before = count_events(anyone.db)
    us.ok("vasl-import", str(doctored), "--player", "Harrison=us", "--own-copy")
    assert _unwitnessed(anyone) == [event] and count_events(anyone.db) == before
    from cgledger.ledger.decide import commands as cmd
    from cgledger.ledger.application import open_ledger
    import hashlib
    from cgledger.ledger.errors import LedgerError

    ledger = open_ledger(str(anyone.db))
    campaign, rules = ledger.load(None)
    digest = hashlib.sha256(doctored.read_bytes()).hexdigest()
    with pytest.raises(LedgerError, match="imported itself: the claimant's own file is no evidence"):
        cmd.decide(campaign, rules, cmd.Witness(side="us", rolls=(event,), log_digest=digest),
                   cmd.Context(by="us", log=ledger.history(None)))


def test_a_report_that_copies_another_ones_dice_is_not_witnessed_by_it(table, tmp_path):
    """One real DR counted twice: the cheater imports a file holding a real report and a made-up one with its dice,
    category and player (other statistics), and attaches the copy to a table. The witness's log holds the real
    report only: the copy stays a claim."""
    german, us, anyone = table
    fake = CHAT[0].replace("[1 / 8   avg   2,00 (2,00)]", "[7 / 8   avg   2,00 (2,00)]").replace("01.54", "03.12")
    mine = tmp_path / "peiper.txt"
    mine.write_text(CHAT[0] + "\n" + fake + "\n", encoding="utf-8")
    german.ok("vasl-import", str(mine), "--attach", "2=8.610", "--player", "Peiper=german")
    copied = anyone.json("log")[-1]["version"]
    log = tmp_path / "us-chat.txt"
    log.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    us.ok("vasl-import", str(log), "--player", "Harrison=us", "--own-copy")
    assert _unwitnessed(anyone) == [copied]
    assert [r for r in anyone.json("log") if r["type"] == "DiceWitnessed"] == []


def test_a_report_of_the_other_sides_player_witnesses_no_roll_of_this_one(table, tmp_path):
    """The German records his 8.610 dr from a real report the U.S. player (Harrison) rolled: the U.S. log holds that
    very report, but the U.S. player names Harrison as his own, so it witnesses no German roll."""
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--vasl", CHAT[1], "--for", "A")
    event = anyone.json("log")[-1]["version"]
    log = tmp_path / "us-chat.txt"
    log.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    us.ok("vasl-import", str(log), "--player", "Harrison=us", "--player", "Peiper=german", "--own-copy")
    assert _unwitnessed(anyone) == [event]


def test_a_roll_recorded_for_the_other_side_is_his_to_accept_not_his_logs(table, tmp_path):
    """The German records a U.S. roll from the U.S. player's worst real report: the U.S. player's own log holds
    that report, but it does not witness a roll he did not record; he accepts it by hand, or disputes it."""
    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "us", "--vasl", CHAT[1], "--for", "C")
    event = anyone.json("log")[-1]["version"]
    log = tmp_path / "us-chat.txt"
    log.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    us.ok("vasl-import", str(log), "--player", "Harrison=us", "--own-copy")
    assert _unwitnessed(anyone) == [event]
    us.ok("witness", "--dispute", "not the roll I made for that leader", str(event))
    assert anyone.json("status")["unwitnessed"][0]["disputed"] == "not the roll I made for that leader"


def test_by_email_receive_names_the_dice_to_witness_and_the_witness_travels_back(desks, tmp_path):
    g, u = desks
    g.ok("step", "scenario")
    g.ok("send", str(tmp_path / "2b.json"))
    u.ok("receive", str(tmp_path / "2b.json"))
    u.ok("step", "scenario")  # each side is done with the Initial Scenario's RePh: the campaign enters it
    u.ok("send", str(tmp_path / "3.json"))
    g.ok("receive", str(tmp_path / "3.json"))
    assert g.json("status")["step"] == "scenario"
    g.ok("roll", "KGP3", "--side", "german", "--dice", "2,1")  # in the scenario, the dice of play
    event = g.json("log")[-1]["version"]
    g.ok("send", str(tmp_path / "3.json"))
    got = u.ok("receive", str(tmp_path / "3.json"))
    assert f"not witnessed: event {event}: the German roll on KGP3, dice 2,1 typed by the German side" in got.stdout
    assert "cgledger witness --all" in got.stdout
    due = got.stdout.split("due from you:", 1)[1].split("now:", 1)[0]  # a duty of his, not only a list of claims
    assert "the other side's dice of 1 roll(s) wait for your witness" in due and "cgledger witness --all" in due, due
    assert json.loads(u.ok("receive", str(tmp_path / "3.json"), "--json").stdout)["unwitnessed"][0][
        "event"] == event
    u.ok("witness", "--all")
    u.ok("send", str(tmp_path / "4.json"))
    g.ok("receive", str(tmp_path / "4.json"))
    assert g.json("status")["unwitnessed"] == []
    assert g.ok("head").stdout == u.ok("head").stdout
    assert g("audit").exit_code == 0


def test_a_roll_of_an_import_is_witnessed_only_by_the_very_report_attached_to_it(table, tmp_path):
    """An import's roll whose own report line is not the one attached to it (a doctored 1 beside the genuine 2 the
    file holds): the witness's copy, which holds the genuine report, witnesses nothing of it, and the audit names it."""
    from types import SimpleNamespace

    import msgspec

    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide.vasl import claimed_reports
    from cgledger.ledger.domain.events import DiceRolled, VaslLogImported
    from cgledger.ledger.vasl.bot import audit_fact

    german, us, anyone = table
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    german.ok("vasl-import", str(chat), "--attach", "1=8.610", "--player", "Peiper=german")
    history = open_ledger(str(anyone.db)).history(None)
    imported, roll = history[-2], history[-1]
    assert isinstance(imported.fact, VaslLogImported) and isinstance(roll.fact, DiceRolled)
    assert roll.fact.vasl == CHAT[0] and roll.version in claimed_reports(history, {roll.version})
    doctored = CHAT[0].replace("(Other dr) 2", "(Other dr) 1")
    forged = SimpleNamespace(version=roll.version, fact=msgspec.structs.replace(roll.fact, vasl=doctored, dice=(1,)))
    assert claimed_reports([*history[:-1], forged], {roll.version}) == {}
    seen: dict = {}
    assert audit_fact(imported.fact, seen, imported.version) == []
    assert audit_fact(forged.fact, seen, roll.version) == [
        "its VASL report is not one its import attached: a roll of an imported file is recorded from the report "
        "attached to it"]


def test_a_system_without_a_refit_phase_walk_offers_the_witness_its_command(make_db):
    """CGS: both keyed, the Russian types his Search dr; the German's `status` names the roll not witnessed and
    gives him the line that witnesses it (it was said only in the email guide)."""
    from conftest import Cli

    cli = Cli(make_db())
    cli.ok("new", "T", "--system", "cgs", "--cg", "CGS")
    german, russian = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    russian.ok("keys", "init", "--side", "russian")
    russian.ok("roll", "7.4.5", "--side", "russian", "--dice", "4")
    shown = german.ok("status").stdout
    assert "not witnessed: event" in shown and "cgledger witness --all" in shown, shown
    assert "cgledger witness --all" not in russian.ok("status").stdout  # his own claim: nothing for him to witness
