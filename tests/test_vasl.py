"""VASL dice reports through the CLI (roll --vasl, vasl-import of text files), the audit's VASL check and the
campaign's dice statistics. Whole VASSAL logs and chat copies of a game: tests/test_vasl_game.py."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import msgspec
import pytest

from cgledger.ledger.errors import BadInput
from cgledger.ledger.vasl.bot import parse
from cgledger.projections.dice_stats import chi_square_sf

FIXTURES = Path(__file__).parent.parent / "fixtures"
DR_LINE = "*** (Other DR) 4,2 ***   <Player1>      Allied SAN    [1 / 8   avg   6,62 (6,62)]    (01.51 - by random.org)"
DR_LINE_2 = "*** (TH DR) 1,6 ***   <Player2>      [2 / 8   avg   7,00 (7,00)]    (01.52 - by random.org)"
DR_LINE_3 = "*** (Other DR) 2,5 ***   <Player2>      [3 / 8   avg   7,00 (7,00)]    (01.53 - by random.org)"
DR_SMALL = "*** (Other dr) 3 ***   <Player1>      [2 / 8   avg   3,50 (3,50)]    (01.54 - by random.org)"


def test_parse_a_dr_colored_die_first():
    report = parse(DR_LINE)
    assert report.die == "DR" and report.faces == (2, 4)  # ledger order: white 2, colored 4
    assert (report.category, report.player, report.special) == ("Other", "Player1", "Allied SAN")
    assert report.stats == "1 / 8 avg 6,62 (6,62)" and report.series == "01.51 - by random.org"
    assert parse(DR_LINE_2).faces == (6, 1)  # the other order: colored 1, white 6


def test_parse_a_dr_of_one_die():
    report = parse(DR_SMALL)
    assert (report.die, report.faces, report.special) == ("dr", (3,), "")


@pytest.mark.parametrize("line, problem", [
    ("*** (Other DR) 7,2 ***   <P1>   [1 / 1   avg   9,00 (9,00)]   (x)", "out of 1-6"),
    ("*** (Other DR) 4;2 ***   <P1>   [1 / 1]   (x)", "shows '4;2'"),
    ("*** (Other dr) 3,4 ***   <P1>   [1 / 1]   (x)", "shows '3,4'"),
    ("*** (Other DR) 4,2   <P1>   [1 / 1]   (x)", "malformed VASL dice report"),
    ("*** (Other DR) 4,2 ***   Player1   [1 / 1]   (x)", "malformed VASL dice report"),
])
def test_malformed_reports(line, problem):
    with pytest.raises(BadInput, match=problem.replace("(", r"\(")):
        parse(line)


def test_chi_square_p_values():
    assert chi_square_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_sf(18.307, 10) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_sf(2.0, 10) == pytest.approx(0.99634, abs=1e-4)
    assert chi_square_sf(0.0, 5) == 1.0


def test_roll_with_a_vasl_line(at):
    cli = at("scenario")
    roll = cli.json("roll", "KGP3", "--side", "us", "--vasl", DR_LINE)
    assert roll["dice_named"] == {"white": 2, "colored": 4} and roll["source"] == "vasl"
    assert (roll["player"], roll["series"]) == ("Player1", "01.51 - by random.org")
    cli.refused("roll", "KGP3", "--side", "us", "--vasl", DR_LINE, contains="already in the log")
    cli.refused("roll", "KGP3", "--side", "us", "--vasl", DR_SMALL, contains="takes a DR; the VASL report is a dr")
    cli.refused("roll", "KGP3", "--side", "us", "--vasl", "*** (Other DR) 4", contains="malformed VASL dice report")
    cli.refused("roll", "KGP3", "--side", "us", "--vasl", DR_LINE_2, "--dice", "3,4", contains="--dice or --vasl")
    # the chat window's line without statistics cannot say which report it is: two of them may be alike
    cli.refused("roll", "KGP3", "--side", "us", "--vasl", "*   Other 2 5   ...  Player2 ",
                contains="does not say which report it is")
    with_stats = "*   Other 5 2   ...  Player2 [3 / 8   avg   7,00 (7,00)]    (01.55 - by random.org)"
    assert cli.json("roll", "KGP3", "--side", "german", "--vasl", with_stats)["dice"] == [2, 5]
    assert cli("audit").exit_code == 0


def chat(tmp_path: Path, lines: list[str], name: str = "chat.txt") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def vasl_reports(cli) -> list[dict]:
    """The reports of the import events in force, in order."""
    return [r for row in cli.json("log") if row["type"] == "VaslLogImported" and row["in_force"]
            for r in row["reports"]]


def test_import_attaches_lists_and_keeps_the_rest(at, tmp_path):
    cli = at("scenario")
    mist = DR_LINE_2.replace("(TH DR)", "(Other DR)")  # KGP3 is rolled with VASL's generic dice
    path = chat(tmp_path, ["<Player1> - let's go", DR_LINE, mist, "<Player2> - ouch", DR_SMALL])
    before = cli.events()
    listing = cli.json("vasl-import", str(path), "--dry-run", "--attach", "3=KGP3", "--player", "Player2=german")
    assert [(r["line"], r["table"], r["side"]) for r in listing["reports"]] == [
        (2, None, None), (3, "KGP3", "german"), (5, None, None)]
    assert cli.events() == before  # a dry run writes nothing
    imported = cli.json("vasl-import", str(path), "--attach", "3=KGP3", "--player", "Player2=german",
                        "--player", "Player1=us")
    assert imported["reports"][1]["dice_named"] == {"white": 6, "colored": 1}
    assert imported["files"][0]["form"] == "raw" and imported["files"][0]["recorded"] == 3
    log = cli.json("log")[-2:]
    assert [r["type"] for r in log] == ["VaslLogImported", "DiceRolled"]
    assert log[1]["dice"] == [6, 1] and log[1]["source"] == "vasl" and log[1]["side"] == "german"
    assert [(r["position"], r["side"], r["table"], r["dice"]) for r in log[0]["reports"]] == [
        (2, "us", "", [2, 4]), (3, "german", "KGP3", [6, 1]), (5, "us", "", [3])]
    assert log[0]["file"] == "chat.txt" and len(log[0]["digest"]) == 64
    assert len({r["action"] for r in log}) == 1  # one action: undo takes the import back
    again = cli("vasl-import", str(path))  # importing again adds nothing
    assert again.exit_code == 0 and "nothing new" in again.stdout and cli.events() == before + 2
    assert cli("audit").exit_code == 0
    cli.ok("undo")
    cli.ok("vasl-import", str(path))  # an undone import may be entered again
    assert cli("audit").exit_code == 0


def test_import_refusals_write_nothing(at, tmp_path):
    cli = at("scenario")
    good = chat(tmp_path, [DR_LINE, "chatter", DR_SMALL])
    cli.refused("vasl-import", str(good), "--attach", "2=KGP3", contains="chat.txt line 2 is not a dice report")
    cli.refused("vasl-import", str(good), "--attach", "1=KGP3", contains="line 1: whose roll is it?")
    cli.refused("vasl-import", str(good), "--attach", "3=KGP3", "--player", "Player1=us",
                contains="line 3: table KGP3 takes a DR")
    cli.refused("vasl-import", str(good), "--attach", "1=8.616", "--player", "Player1=us",
                contains="line 1: table 8.616 is rolled in step 8.616")
    cli.refused("vasl-import", str(good), "--attach", "x=KGP3", contains="malformed --attach")
    # a TH DR of play is no Mist Change DR: the report was rolled for something else
    combat = chat(tmp_path, [DR_LINE_2], "th.txt")
    cli.refused("vasl-import", str(combat), "--attach", "1=KGP3", "--player", "Player2=german",
                contains="the VASL report is a TH DR; table KGP3 is rolled with VASL's Other or Secret dice")
    cli.refused("roll", "KGP3", "--side", "german", "--vasl", DR_LINE_2, contains="rolled for something else")
    cli.refused("vasl-import", str(good), "--attach", "1=KGP3", "--attach", "1=KGP3", "--player", "Player1=us",
                contains="attached twice")
    cli.refused("vasl-import", str(good), str(chat(tmp_path, [DR_LINE_3], "b.txt")), "--attach", "1=KGP3",
                contains="name the file too")
    cli.refused("vasl-import", str(good), "--attach", "other.txt:1=KGP3", contains="names other.txt")
    empty = chat(tmp_path, ["just chat", "<Player1> - no dice today"], "empty.txt")
    cli.refused("vasl-import", str(empty), contains="holds no VASL dice report")
    picture = tmp_path / "map.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    cli.refused("vasl-import", str(picture), contains="not a VASL file")
    module = tmp_path / "module.vmod"
    with zipfile.ZipFile(module, "w") as archive:
        archive.writestr("buildFile.xml", "<VASSAL.launch.BasicModule/>")
    cli.refused("vasl-import", str(module), contains="without a 'savedGame' entry")
    # several files are decided together: one refused, none written
    cli.refused("vasl-import", str(good), str(empty), contains="empty.txt")
    # a file already imported whose report is attached now: it is recorded, nothing to attach to
    cli.ok("vasl-import", str(good))
    cli.refused("vasl-import", str(good), "--attach", "1=KGP3", "--player", "Player1=us",
                contains="already recorded (event")


def test_unreadable_lines_are_listed_and_skipped(at):
    cli = at("scenario")
    path = FIXTURES / "vasl" / "malformed.txt"
    dry = cli.ok("vasl-import", str(path), "--dry-run").stdout
    skipped = [line.split()[1] for line in dry.splitlines() if "skipped:" in line]
    assert skipped == ["7", "8", "9", "10", "11", "12", "13"]  # every one, with its line (the header is 1-4)
    assert "2 new dice reports" in dry and "7 unreadable" in dry
    before = cli.events()
    result = cli.json("vasl-import", str(path))
    assert cli.events() == before + 1
    assert [r["line"] for r in result["reports"]] == [6, 14]
    assert [s["line"] for s in result["files"][0]["skipped"]] == [7, 8, 9, 10, 11, 12, 13]
    kept = cli.json("log")[-1]
    assert [s["position"] for s in kept["skipped"]] == [7, 8, 9, 10, 11, 12, 13]  # the event keeps what it skipped
    assert "out of 1-6 in '7,2'" in kept["skipped"][0]["problem"] and kept["skipped"][0]["text"].startswith("*** (IFT")
    assert cli("audit").exit_code == 0


def test_import_with_a_map_file(at):
    cli = at("scenario", "19 PM")
    result = cli.json("vasl-import", str(FIXTURES / "kgp-vasl-19pm.txt"), "--map", str(FIXTURES / "kgp-vasl-19pm-map.toml"))
    tables = [(r["line"], r["table"], r["side"]) for r in result["reports"]]
    assert tables[:2] == [(7, "KGP3", "german"), (9, "KGP3", "us")]
    assert len(tables) == 9 and all(side for _l, _t, side in tables)
    specials = {r["line"]: r["special"] for r in result["reports"]}
    assert specials[9] == "Axis SAN" and specials[14] == "Allied Booby Trap" and specials[15] is None


def test_a_vasl_roll_whose_dice_were_changed_fails_audit(at):
    from cgledger.ledger.application import open_ledger

    cli = at("scenario")
    rolled = cli.json("roll", "KGP3", "--side", "us", "--vasl", DR_LINE)
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    fact = [e.fact for e in ledger.history(None) if e.version == rolled["id"]][0]
    # DR_LINE_3 shows colored 2, white 5: recorded the other way round, (white 2, colored 5)
    swapped = msgspec.structs.replace(fact, action=campaign.begin_action(), dice=(2, 5), vasl=DR_LINE_3,
                                      player="Player2")
    campaign.record(swapped)
    ledger.store.save(campaign)
    found = json.loads(cli("audit", "--json").stdout)["findings"]
    vasl = [f for f in found if f["kind"] == "vasl"]
    assert len(vasl) == 1 and "(white, colored)" in vasl[0]["message"]


def test_a_forged_import_fails_audit(at, tmp_path):
    """An import event whose report was changed after reading, or a report recorded twice: the audit names it."""
    from cgledger.ledger.application import open_ledger

    cli = at("scenario")
    cli.ok("vasl-import", str(chat(tmp_path, [DR_LINE, DR_SMALL])))
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    imported = [e.fact for e in ledger.history(None) if type(e.fact).__name__ == "VaslLogImported"][0]
    first, second = imported.reports
    forged = msgspec.structs.replace(imported, action=campaign.begin_action(), reports=(
        msgspec.structs.replace(first, dice=(4, 2), player="Player9"),  # not what its line shows
        second))  # the same report once more
    campaign.record(forged)
    ledger.store.save(campaign)
    messages = [f["message"] for f in json.loads(cli("audit", "--json").stdout)["findings"] if f["kind"] == "vasl"]
    assert any("report at 1: dice [4, 2] are not the VASL report's DR [2, 4]" in m for m in messages)
    assert any("report at 1: player 'Player9' is not the VASL report's 'Player1'" in m for m in messages)
    assert any("report at 2: the VASL report of event" in m and "is used again" in m for m in messages)


def test_ten_thousand_line_chat(at, tmp_path):
    cli = at("scenario")
    dice = random.Random(4)
    lines = []
    for i in range(10_000):
        if i % 3 == 2:
            lines.append(f"<Player{i % 2 + 1}> - chat line {i}")
        elif i % 7 == 0:
            lines.append(f"*** (Other dr) {dice.randint(1, 6)} ***   <Player{i % 2 + 1}>      [{i} / 99   avg   3,5{i % 10} "
                         f"(3,50)]    (12.{i} - by random.org)")
        else:
            lines.append(f"*** (IFT DR) {dice.randint(1, 6)},{dice.randint(1, 6)} ***   <Player{i % 2 + 1}>      "
                         f"[{i} / 99   avg   7,0{i % 10} (7,00)]    (12.{i} - by random.org)")
    path = chat(tmp_path, lines)
    before = cli.events()
    result = cli.json("vasl-import", str(path), "--player", "Player1=german", "--player", "Player2=us")
    reports = [line for line in lines if line.startswith("***")]
    assert len(result["reports"]) == len(reports) and cli.events() == before + 1  # one event keeps them all
    again = cli.json("vasl-import", str(path))
    assert again["files"][0]["recorded"] == 0 and cli.events() == before + 1
    stats = cli.json("dice-stats")
    vasl = {g["side"]: g for g in stats["groups"] if g["source"] == "vasl"}
    assert vasl["german"]["DR"]["count"] + vasl["us"]["DR"]["count"] == sum("DR)" in line for line in reports)
    assert cli("audit").exit_code == 0


def test_dice_stats_match_the_log(played, tmp_path):
    """dice-stats --json on the sample campaign equals what this test computes from log --json."""
    from conftest import Cli

    cli = Cli(played())
    log = cli.json("log")
    stats = cli.json("dice-stats")
    sources = {"rng": "ledger", "entered": "entered", "vasl": "vasl", "seeded": "seeded"}
    imports = {r["action"] for r in log if r["type"] == "VaslLogImported"}
    rows = [r for r in log if r["type"] in ("DiceRolled", "DiceReported") and r["die"] in ("DR", "dr")
            and not (r["type"] == "DiceRolled" and r["vasl"] and r["action"] in imports)]
    rows += [{**entry, "in_force": r["in_force"], "source": "vasl", "table": entry["table"] or None}
             for r in log if r["type"] == "VaslLogImported" for entry in r["reports"]]
    assert any(r["source"] == "vasl" for r in rows) and imports
    for in_force, groups in ((True, stats["groups"]), (False, stats["undone"])):
        for group in groups:
            mine = [r for r in rows if r["in_force"] is in_force and (r["side"] or "unassigned") == group["side"]
                    and sources[r["source"]] == group["source"]]
            for die in ("DR", "dr"):
                rolled = [r for r in mine if r["die"] == die]
                summary = group[die]
                if not rolled:
                    assert summary is None
                    continue
                totals = [sum(r["dice"]) for r in rolled]
                assert summary["count"] == len(rolled)
                assert summary["mean_total"] == round(sum(totals) / len(totals), 3)
                assert summary["distribution"] == {str(t): totals.count(t) for t in map(int, summary["distribution"])}
                if die == "DR":
                    assert summary["mean_white"] == round(sum(r["dice"][0] for r in rolled) / len(rolled), 3)
                    assert summary["mean_colored"] == round(sum(r["dice"][1] for r in rolled) / len(rolled), 3)
            tables: dict[str, int] = {}
            for r in mine:
                tables[r.get("table") or "(no table)"] = tables.get(r.get("table") or "(no table)", 0) + 1
            assert group["tables"] == tables
    assert stats["undone"], "the sample's undone rolls are counted apart"
    page = tmp_path / "r.html"
    cli.ok("report", "--html", str(page))
    html = page.read_text()
    # DR and dr of both sides, each source of dice apart (fair, entered and VASL dice were mixed)
    charts = sum(1 for g in stats["groups"] for die in ("DR", "dr") if g[die])
    assert 'id="dice"' in html and html.count('class="dice-bars"') == charts > 4
    assert "VASL dice" in html and "dice entered by the player" in html
    import re

    vasl_table = html[html.index('id="vasl-scenarios"'):html.index("</table>", html.index('id="vasl-scenarios"'))]
    assert re.search(r"<td>\d\.\d+\*?</td>", vasl_table), "the VASL p-values it computes are printed"
    assert 'id="vasl-scenarios"' in html and "kgp-vasl-19pm.txt" in html and "&lt;Player1&gt;" in html


def test_two_alike_chat_reports_attached_are_two_rolls(at, tmp_path):
    """The chat window without statistics shows two alike reports alike; each is known by its place, and the
    audit hands each DiceRolled the key of its own report."""
    cli = at("scenario")
    same = "*   Other 2 5   ...  Player2 "
    path = chat(tmp_path, [same, "*     ...  Player1   - again?", same])
    result = cli.json("vasl-import", str(path), "--attach", "1=KGP3", "--attach", "3=KGP3", "--player", "Player2=german")
    assert [(r["line"], r["table"], r["status"]) for r in result["reports"]] == [(1, "KGP3", "new"), (3, "KGP3", "new")]
    assert [r["type"] for r in cli.json("log")[-3:]] == ["VaslLogImported", "DiceRolled", "DiceRolled"]
    assert cli("audit").exit_code == 0, cli("audit").stdout
    assert cli.json("vasl-import", str(path))["files"][0]["recorded"] == 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "cp1252"])
def test_a_chat_saved_by_any_editor(at, tmp_path, encoding):
    cli = at("scenario")
    path = tmp_path / "chat.txt"
    path.write_bytes("\r\n".join(["*   IFT 3 5   ...  José Cower if MMC w/o LDR ", "<José> - olé"]).encode(encoding))
    report = cli.json("vasl-import", str(path))["reports"][0]
    assert (report["player"], report["dice"], report["special"]) == ("José", [5, 3], "Cower if MMC w/o LDR")


def test_an_import_keeps_its_command_and_is_decided_again_from_it(at, tmp_path):
    """Each file imported is one action stored with its command (the report lines as read, the attachments, the
    player names given): the audit decides it again, so a roll whose table differs from its attachment is named."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide import commands

    cli = at("scenario")
    mist = DR_LINE_2.replace("(TH DR)", "(Other DR)")
    path = chat(tmp_path, ["<Player1> - let's go", DR_LINE, mist, "<Player2> - ouch", DR_SMALL])
    cli.ok("vasl-import", str(path), "--attach", "3=KGP3", "--player", "Player2=german", "--player", "Player1=us")
    log = open_ledger(str(cli.db)).history(None)
    opened = next(e for e in log if type(e.fact).__name__ == "VaslLogImported")
    request = opened.request
    assert isinstance(request, commands.ImportVasl) and (request.file, request.form) == ("chat.txt", "raw")
    assert [line[0] for line in request.lines] == [2, 3, 5] and request.digest == opened.fact.digest
    assert [(a.line, a.table) for a in request.attach] == [(3, "KGP3")]
    assert request.players == {"Player2": "german", "Player1": "us"}
    assert cli("audit").exit_code == 0
    # the same action forged: the command as it was, the roll moved to another table
    rolled = next(e.fact for e in log if e.version == opened.version + 1)
    cli.ok("undo")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    action = campaign.next_action
    campaign.record(msgspec.structs.replace(opened.fact, action=action), "", None, "", request)
    campaign.record(msgspec.structs.replace(rolled, action=action, table="8.6171", rule="8.6171"))
    ledger.store.save(campaign)
    found = json.loads(cli("audit", "--json").stdout)["findings"]
    assert any(f["kind"] == "decision" and "table recorded '8.6171'" in f["message"] for f in found), found
