"""A whole VASL game into the ledger: its .vlog as VASSAL writes it, and its chat window copied with dice images
off, both read to the same rolls; the same report never recorded twice, whatever file it comes from; several
files one action each; the campaign's dice per scenario, player and category."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vasl_game import Command, chat, chat_copy, every_format, write_vlog

PLAYERS = ("--player", "Fred Kors=german", "--player", "Player2=us")


@pytest.fixture(scope="module")
def game() -> list:
    return every_format(400)


def rolls_of(game) -> list[tuple]:
    return [(r.die, list(r.faces), r.player, r.category, r.third, r.rof) for _c, r in game if r]


def imported(cli) -> list[dict]:
    return [r for row in cli.json("log") if row["type"] == "VaslLogImported" and row["in_force"]
            for r in row["reports"]]


def write_chat(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_vlog_of_every_format_imports_every_die_player_and_category(at, tmp_path, game):
    cli = at("scenario")
    vlog = write_vlog(tmp_path / "stoumont.vlog", [c for c, _r in game])
    before = cli.events()
    result = cli.json("vasl-import", str(vlog), *PLAYERS)
    file = result["files"][0]
    assert (file["form"], file["module"], file["module_version"], file["vassal_version"]) == (
        "vlog", "VASL", "6.6.7", "3.7.5")
    assert file["recorded"] == 400 and file["skipped"] == [] and cli.events() == before + 1
    kept = imported(cli)
    assert [(r["die"], r["dice"], r["player"], r["category"], r.get("third"), r.get("rof")) for r in kept] == \
        rolls_of(game)
    assert {r["side"] for r in kept} == {"german", "us", ""}  # the nameless player's side is not known
    rolled = [r for _c, r in game if r]
    assert [r["special"] for r in kept] == [r.special for r in rolled]  # SAN and Booby Trap
    dust = [r for r in kept if r.get("third") is not None]
    assert dust and all(r["dust"] in ("Light Dust (F11.71)", "Moderate Dust (F11.72)") and r["total"] for r in dust)
    assert all(r["series"].endswith("by random.org") == (r["player"] == "Fred Kors") for r in kept)
    assert [r["position"] for r in kept] == sorted(r["position"] for r in kept) and kept[0]["step"] >= 1
    assert cli("audit").exit_code == 0
    # importing the same log again adds nothing
    again = cli("vasl-import", str(vlog))
    assert again.exit_code == 0 and "nothing new" in again.stdout and cli.events() == before + 1
    stats = cli.json("dice-stats")["vasl"]
    assert len(stats["scenarios"]) == 1 and stats["scenarios"][0]["file"] == "stoumont.vlog"
    for player in ("Fred Kors", "Player2", ""):
        mine = [r for r in rolled if r.player == player]
        counts = stats["players"][player]
        assert counts["DR"]["count"] == sum(r.die == "DR" for r in mine)
        assert counts["dr"]["count"] == sum(r.die == "dr" for r in mine)
    for category, counts in stats["categories"].items():
        assert sum((counts[d] or {"count": 0})["count"] for d in ("DR", "dr")) == sum(
            r.category == category for r in rolled)
    assert stats["dust_die"]["count"] == len(dust) and stats["rof_die"]["count"] == sum(r.rof is not None for r in rolled)


@pytest.mark.parametrize("stats, collapse", [(False, False), (True, False), (False, True)],
                         ids=["plain", "dice stats on", "spaces collapsed"])
def test_the_chat_window_of_the_same_game_yields_the_same_rolls(at, tmp_path, game, stats, collapse):
    cli = at("scenario")
    lines = chat_copy(game, stats=stats, collapse=collapse)
    path = write_chat(tmp_path / "chat.txt", lines)
    result = cli.json("vasl-import", str(path), *PLAYERS)
    named = [r for r in rolls_of(game) if r[2]]  # a nameless player's report shows empty in VASL 6.6's window
    kept = imported(cli)
    assert [(r["die"], r["dice"], r["player"], r["category"]) for r in kept] == [r[:4] for r in named]
    blank = [n for n, line in enumerate(lines, 1) if line.strip() == "*     ..." or line.strip() == "* ..."]
    assert [s["line"] for s in result["files"][0]["skipped"]] == blank and len(blank) == 80
    assert result["files"][0]["form"] == "chat"
    assert cli("audit").exit_code == 0
    again = cli.json("vasl-import", str(path))
    assert again["files"][0]["recorded"] == 0


def test_the_same_report_is_never_recorded_twice_across_log_and_chat(at, tmp_path, game):
    vlog = write_vlog(tmp_path / "game.vlog", [c for c, _r in game])
    lines = chat_copy(game)
    copy = write_chat(tmp_path / "chat.txt", lines)
    # the log first, then the chat window of the same game: nothing new
    cli = at("scenario")
    cli.ok("vasl-import", str(vlog))
    before = cli.events()
    result = cli.json("vasl-import", str(copy))
    assert result["files"][0]["recorded"] == 0 and cli.events() == before
    assert {r["duplicate_of"] for r in result["reports"]} == {before}  # the log's import event


def test_after_the_chat_window_the_log_adds_only_what_it_could_not_show(at, tmp_path, game):
    """The nameless player's reports, which VASL 6.6's chat window shows empty."""
    vlog = write_vlog(tmp_path / "game.vlog", [c for c, _r in game])
    copy = write_chat(tmp_path / "chat.txt", chat_copy(game))
    other = at("scenario")
    other.ok("vasl-import", str(copy))
    result = other.json("vasl-import", str(vlog))
    new = [r for r in result["reports"] if r["status"] == "new"]
    assert len(new) == 80 and {r["player"] for r in new} == {""}
    assert sorted((d, tuple(f), p, c) for d, f, p, c, *_x in rolls_of(game)) == sorted(
        (r["die"], tuple(r["dice"]), r["player"], r["category"]) for r in imported(other))
    assert other("audit").exit_code == 0


def test_overlapping_chat_copies_record_each_report_once(at, tmp_path, game):
    """Copied at half time and again at the end (the window scrolled past the start): the overlap is known."""
    lines = chat_copy(game)
    first = write_chat(tmp_path / "half-time.txt", lines[: len(lines) * 6 // 10])
    second = write_chat(tmp_path / "end.txt", lines[len(lines) * 4 // 10:])
    cli = at("scenario")
    cli.ok("vasl-import", str(first), str(second))
    named = [r[:4] for r in rolls_of(game) if r[2]]
    assert [(r["die"], r["dice"], r["player"], r["category"]) for r in imported(cli)] == named


def test_several_files_each_one_action_undo_takes_back_one(at, tmp_path, game):
    half = len(game) // 2
    first = write_vlog(tmp_path / "19PM-part1.vlog", [c for c, _r in game[:half]])
    second = write_vlog(tmp_path / "19PM-part2.vlog", [c for c, _r in game[half:]], key=0xA7)
    extra = write_chat(tmp_path / "20AM.txt", ["*** (Other DR) 6,6 ***   <Player2>      [1 / 1   avg   12.00 (12.00)]"
                                               "    (07.11)"])
    cli = at("scenario")
    before = cli.events()
    text = cli.ok("vasl-import", str(first), str(second), str(extra), *PLAYERS).stdout
    assert "in 3 actions" in text
    log = cli.json("log")[before:]
    assert [(r["type"], r["file"]) for r in log] == [
        ("VaslLogImported", "19PM-part1.vlog"), ("VaslLogImported", "19PM-part2.vlog"), ("VaslLogImported", "20AM.txt")]
    assert len({r["action"] for r in log}) == 3
    stats = cli.json("dice-stats")["vasl"]
    assert [s["file"] for s in stats["scenarios"]] == ["19PM-part1.vlog", "19PM-part2.vlog", "20AM.txt"]
    assert sum(s["reports"] for s in stats["scenarios"]) == 401
    cli.ok("undo")
    assert [r["in_force"] for r in cli.json("log")[before:] if r["type"] == "VaslLogImported"] == [True, True, False]
    assert [s["file"] for s in cli.json("dice-stats")["vasl"]["scenarios"]] == ["19PM-part1.vlog", "19PM-part2.vlog"]
    assert cli("audit").exit_code == 0


def test_attach_a_logged_report_by_its_message_number(at, tmp_path, game):
    vlog = write_vlog(tmp_path / "game.vlog", [c for c, _r in game[:40]])
    cli = at("scenario")
    listing = cli.json("vasl-import", str(vlog), "--dry-run")
    target = next(r for r in listing["reports"] if r["die"] == "DR" and r["player"] == "Player2"
                  and r["category"] == "Other")  # KGP3 is rolled with VASL's generic dice
    result = cli.json("vasl-import", str(vlog), "--attach", f"game.vlog:{target['line']}=KGP3", *PLAYERS)
    roll = next(r for r in result["reports"] if r["table"])
    assert (roll["line"], roll["side"], roll["dice"]) == (target["line"], "us", target["dice"])
    log = cli.json("log")
    assert [r["type"] for r in log[-2:]] == ["VaslLogImported", "DiceRolled"]
    assert log[-1]["vasl"] == next(r["line"] for r in log[-2]["reports"] if r["table"] == "KGP3")
    assert cli("audit").exit_code == 0


def test_a_save_or_another_modules_log_is_refused(at, tmp_path):
    cli = at("scenario")
    save = write_vlog(tmp_path / "setup.vsav", [])
    cli.refused("vasl-import", str(save), contains="a save keeps no chat: import the .vlog")
    other = write_vlog(tmp_path / "pog.vlog", [chat("<Ann> - hello")], module="Paths of Glory")
    cli.refused("vasl-import", str(other), contains="of 'Paths of Glory', not of VASL")
    broken = tmp_path / "broken.vlog"
    broken.write_bytes(write_vlog(tmp_path / "x.vlog", [chat("<Ann> - hi")]).read_bytes()[:200])
    cli.refused("vasl-import", str(broken), contains="not a VASSAL save or log")
    # a VASSAL save whose game state carries a chat message with a report is read like a log
    carried = write_vlog(tmp_path / "carried.vsav", [], state=Command("begin_save", [
        chat("*** (IFT DR) 3,5 ***   <Fred>      [1 / 1   avg   8,00 (8,00)]    (01.27)"), Command("end_save")]))
    result = cli.json("vasl-import", str(carried))
    assert result["files"][0]["form"] == "vsav" and result["reports"][0]["line"] == 1


def test_dice_stats_per_scenario_player_and_category_and_the_report(at, tmp_path, game):
    cli = at("scenario")
    cli.ok("vasl-import", str(write_vlog(tmp_path / "a.vlog", [c for c, _r in game[:200]])),
           str(write_vlog(tmp_path / "b.vlog", [c for c, _r in game[200:]])), *PLAYERS)
    stats = cli.json("dice-stats")["vasl"]
    by_file = {s["file"]: s for s in stats["scenarios"]}
    assert set(by_file) == {"a.vlog", "b.vlog"}
    assert by_file["a.vlog"]["cg_date"] == "19 AM" and by_file["a.vlog"]["form"] == "vlog"
    rolled = [r for _c, r in game if r]
    count_a = sum(1 for _c, r in game[:200] if r)
    assert by_file["a.vlog"]["reports"] == count_a and by_file["b.vlog"]["reports"] == len(rolled) - count_a
    fred = by_file["a.vlog"]["players"]["Fred Kors"]["DR"]
    assert fred["count"] == sum(1 for _c, r in game[:200] if r and r.player == "Fred Kors" and r.die == "DR")
    text = cli.ok("dice-stats").stdout
    assert "VASL dice per scenario" in text and "a.vlog" in text and "<Fred Kors> (German)" in text
    assert "VASL dice per category" in text and "  IFT: DR" in text and "Dust die:" in text
    page = tmp_path / "report.html"
    cli.ok("report", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    for table in ("vasl-scenarios", "vasl-players", "vasl-categories"):
        assert f'id="{table}"' in html
    assert "a.vlog" in html and "b.vlog" in html and "&lt;Fred Kors&gt;" in html and "<td>EP</td>" in html
    assert json.loads(cli("audit", "--json").stdout)["findings"] == []
