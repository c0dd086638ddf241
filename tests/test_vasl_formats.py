"""Every form VASL shows a dice report in, read by ledger/vasl/bot.py and ledger/vasl/chat.py, and the VASSAL file
format read by ledger/vasl/vassal.py; the fixtures are checked to be exactly what VASL's format strings give."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgledger.ledger.errors import BadInput
from cgledger.ledger.vasl.bot import parse, read
from cgledger.ledger.vasl.chat import parse_chat
from cgledger.ledger.vasl.vassal import (
    ESC, commands, deobfuscate, encode, is_saved_game, obfuscate, read_game, read_saved_game, tokens,
)
from vasl_game import (FIXTURES, Command, chat, chat_window, dicebot_64, dicebot_66, fixture_body, play,
                       write_vlog)

VASL = Path(__file__).parent.parent / "fixtures" / "vasl"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_fixture_is_what_vasls_format_strings_write(name):
    path = VASL / name
    assert path.read_text(encoding="utf-8").startswith("# ")  # the header citing the source
    assert "Source: " in path.read_text(encoding="utf-8")
    assert fixture_body(path) == FIXTURES[name]()


def _fields(report):
    return (report.die, report.faces, report.category, report.player, report.third, report.rof)


def _rolled(rolled):
    return (rolled.die, rolled.faces, rolled.category, rolled.player, rolled.third, rolled.rof)


# (fixture line index in dicebot_66(), what the line shows) -- one per format of ASLDiceBot 6.6
FORMATS_66 = {
    "DR, random.org, decimal comma, ROF die": 0,
    "DR, decimal point, no random.org": 1,
    "TH DR with ROF die": 2,
    "TK DR, Axis/Allied Booby Trap": 4,
    "MC DR, Axis Booby Trap": 5,
    "Rally DR": 6,
    "CC DR": 7,
    "TC DR, Axis Booby Trap": 8,
    "TC DR, Axis/Allied Booby Trap": 9,
    "Other DR, Axis SAN": 10,
    "Other DR, Allied SAN": 11,
    "EP DR (SASL)": 13,
    "Other dr": 14,
    "SA dr": 15,
    "RS dr": 17,
    "DR, a player without a name": 18,
    "dr, a player without a name": 19,
    "Dust TH DR, three dice, ROF die": 20,
    "Dust IFT DR": 21,
    "Dust MC DR": 22,
    "Other DR under Dust (two dice)": 23,
    "Dust MC DR, Moderate Dust": 24,
}


@pytest.mark.parametrize("index", FORMATS_66.values(), ids=FORMATS_66.keys())
def test_dicebot_66_formats(index):
    rolled = dicebot_66()[index]
    report = parse(rolled.line)
    assert _fields(report) == _rolled(rolled) and report.form == "raw"
    assert report.special == rolled.special  # SAN / Booby Trap, without VASL's padding
    assert report.stats.count(" / ") == 1 and " avg " in report.stats
    assert report.random_org == ("by random.org" in rolled.line)
    assert report.series.split(" ")[0].count(".") == 1
    if report.third is not None:
        assert report.dust in ("Light Dust (F11.71)", "Moderate Dust (F11.72)") and report.total is not None


def test_the_dust_line_keeps_level_and_total():
    report = parse(dicebot_66()[20].line)  # TH 2,5,4 under Light Dust: 7 + 4 // 2
    assert (report.faces, report.third, report.dust, report.total, report.rof) == ((5, 2), 4, "Light Dust (F11.71)",
                                                                                  9, 3)
    moderate = parse(dicebot_66()[24].line)  # MC 2,4,3 under Moderate Dust: 6 + (3 // 2 + 3 % 2)
    assert (moderate.third, moderate.dust, moderate.total) == (3, "Moderate Dust (F11.72)", 8)


@pytest.mark.parametrize("index, hit", [(0, "Turret"), (1, "Hull"), (2, "Hull"), (3, "")])
def test_dicebot_64_turret_hull_suffix(index, hit):
    rolled = dicebot_64()[index]
    report = parse(rolled.line)
    assert _fields(report) == _rolled(rolled) and report.hit == hit
    assert report.series.endswith("by random.org") and report.stats  # the suffix does not swallow them


def test_dicebot_64_booby_trap_and_dr():
    trap, dr = parse(dicebot_64()[4].line), parse(dicebot_64()[6].line)
    assert (trap.category, trap.special, trap.faces) == ("TC", "Axis Booby Trap", (6, 5))
    assert (dr.die, dr.faces, dr.category) == ("dr", (2,), "SA")


def test_legacy_lines():
    lines = fixture_body(VASL / "dicebot-legacy.txt")
    reports = [read(line) for line in lines]
    assert [(r.die, r.faces, r.player, r.special, r.form) for r in reports] == [
        ("DR", (6, 1), "FredKors", "Axis/Allied SAN", "legacy"), ("DR", (3, 1), "FredKors", "Allied SAN", "legacy"),
        ("DR", (2, 5), "FredKors", "Axis SAN", "legacy"), ("dr", (2,), "FredKors", "", "legacy"),
        ("3d6", (4, 5, 6), "FredKors", "", "legacy")]


@pytest.mark.parametrize("name", ["chat-6.6.txt", "chat-6.6-stats.txt"])
def test_chat_66_reads_the_same_rolls_as_the_dice_bot(name):
    rolled = dicebot_66()
    found, problems = [], []
    for number, line in enumerate(fixture_body(VASL / name), 1):
        try:
            report = read(line)
        except BadInput as e:
            problems.append((number, e.message))
            continue
        if report:
            found.append(report)
    named = [r for r in rolled if r.player]  # VASL 6.6 shows a nameless player's report empty
    assert [(r.die, r.faces, r.category, r.player) for r in found] == [
        (r.die, r.faces, r.category, r.player) for r in named]
    assert [n for n, _p in problems] == [22, 23] and all("without its dice" in p for _n, p in problems)
    assert all(r.form == "chat" and r.third is None for r in found)  # the Dust die never shows in text
    if name == "chat-6.6-stats.txt":  # the statistics and series, and the ROF die after them
        raw = [parse(r.line) for r in named]
        assert [(r.stats, r.series, r.rof) for r in found] == [(r.stats, r.series, r.rof) for r in raw]
        assert [r.key for r in found] == [r.key for r in raw]  # the same report, known alike
    else:
        assert not any(r.stats or r.series or r.rof for r in found)


def test_chat_66_notes_are_not_the_players_name():
    lines = fixture_body(VASL / "chat-6.6.txt")
    by_line = {n: read(line) for n, line in enumerate(lines, 1) if not line.startswith("*     ...")}
    assert (by_line[3].player, by_line[3].special) == ("Player2", "Cower if MMC w/o LDR")
    assert (by_line[4].player, by_line[4].special) == ("Fred Kors", "Turret")
    assert by_line[9].special == "Heat of Battle (A15.1) or Field Promotion (A18.11)"
    assert by_line[12].special == "Axis/Allied Booby Trap" and by_line[13].special == "Axis SAN"
    assert by_line[18].special.startswith("Eliminates SMC") and by_line[18].die == "dr"
    dust = by_line[24]  # TH 2 5 under Light Dust
    assert (dust.player, dust.dust, dust.total) == ("Fred Kors", "Light Dust (F11.71)", 9)
    assert dust.special == "Turret, Light Dust (F11.71) , Total: 9"


def test_chat_line_forms_and_names():
    assert parse_chat("*     ...  Fred Kors   - ready") is None  # a player's chat message
    assert parse_chat("* Fred: 4-6-7 moves C4 -> C5 *") is None
    assert parse_chat("Turn 3 ... begins") is None
    collapsed = parse_chat("* IFT 3 5 ... Fred Kors Cower if MMC w/o LDR")  # a copy that collapsed the spaces
    assert (collapsed.faces, collapsed.player, collapsed.special) == ((5, 3), "Fred Kors", "Cower if MMC w/o LDR")
    hull = parse_chat("*   TH 5 2   ...  Hull Hull ")  # a player named Hull: the note is the last word
    assert (hull.player, hull.special) == ("Hull", "Hull")
    named = parse_chat("*   IFT 3 5   ...  Cower if MMC w/o LDR Cower if MMC w/o LDR", ("Cower if MMC w/o LDR",))
    assert named.player == "Cower if MMC w/o LDR"  # a name given with --player is taken whole first
    untabbed = parse_chat("   TH 2,5  ...  FredKors   Turret ")  # 6.4's line with its tab turned to spaces
    assert (untabbed.faces, untabbed.player) == ((5, 2), "FredKors")
    assert parse_chat("   Lunch 2,5  ...  later") is None  # no tab and no VASL category: not a report


@pytest.mark.parametrize("name", ["chat-6.4.txt", "chat-6.4-stats.txt"])
def test_chat_64_reads_the_same_rolls_as_the_dice_bot(name):
    rolled = dicebot_64()
    found = [r for r in map(read, fixture_body(VASL / name)) if r]
    assert [(r.die, r.faces, r.category, r.player) for r in found] == [
        (r.die, r.faces, r.category, r.player) for r in rolled]
    if name == "chat-6.4-stats.txt":
        assert [r.hit for r in found] == ["Turret", "Hull", "Hull", "", "", "", ""]  # '<Turret' after the series
        assert [r.key for r in found] == [parse(r.line).key for r in rolled]
    assert found[-1].special.startswith("Eliminates Dummy stack")


def test_malformed_lines_are_named_by_problem():
    problems = {}
    for number, line in enumerate(fixture_body(VASL / "malformed.txt"), 1):
        try:
            read(line)
        except BadInput as e:
            problems[number] = e.message
    assert sorted(problems) == [3, 4, 5, 6, 7, 8, 9]
    assert "out of 1-6 in '7,2'" in problems[3] and "a dr shows '3,4'" in problems[4]
    assert "malformed VASL dice report" in problems[5] and "shows '2;5'" in problems[6]
    assert "out of 1-6" in problems[8] and "without its dice" in problems[9]


# ---- VASSAL's file format --------------------------------------------------------------------------------------
# vassalengine/vassal vassal-app/src/test/java/VASSAL/tools/io/(De)ObfuscatingInputStreamTest.java: key 0x58
PANGRAM = b"All jackdaws love my great sphinx of quartz."
OBFUSCATED = (b"!VCSK581934347832393b333c392f2b7834372e3d783521783f2a3d392c782b283031362078373e78292d392a2c2276")


def test_vassals_own_obfuscation_vector():
    assert obfuscate(PANGRAM, 0x58) == OBFUSCATED
    assert deobfuscate(OBFUSCATED) == PANGRAM
    assert deobfuscate(OBFUSCATED.upper()) == PANGRAM  # upper-case hex digits read too
    assert deobfuscate(PANGRAM) == PANGRAM  # plain text passes through
    with pytest.raises(BadInput, match="cut short"):
        deobfuscate(OBFUSCATED[:-1])
    with pytest.raises(BadInput, match="not VASSAL's hex"):
        deobfuscate(b"!VCSK58zz")


PART = st.text(alphabet=st.sampled_from(["a", "'", "\\", ESC, "\t", "é", " "]), max_size=8).filter(
    lambda s: not s.endswith("\\"))  # VASSAL's SequenceEncoder itself misreads a backslash before its delimiter


@given(st.lists(PART, min_size=2, max_size=6))
def test_sequence_encoder_round_trip(parts):
    assert tokens(encode(parts)) == parts


def test_nested_commands_come_out_in_order_with_their_steps():
    inner = Command("M/1\tmove", [chat("* moved *"), Command("X", [chat("deep 'q'")])])
    root = Command("begin_save", [Command("+/1\tpi\\ece"), Command("end_save"),
                                  Command("LOG\t" + "CHAT*** (IFT DR) 3,5 ***   <Fred>"), Command("LOG\tM/2")])
    from vasl_game import encode_command, logged
    text = encode_command(Command(root.text, [*root.subs, logged(inner)]))
    assert list(commands(text)) == [(0, "begin_save"), (0, "+/1\tpi\\ece"), (0, "end_save"),
                                    (1, "CHAT*** (IFT DR) 3,5 ***   <Fred>"), (2, "M/2"), (3, "M/1\tmove"),
                                    (3, "CHAT* moved *"), (3, "X"), (3, "CHATdeep 'q'")]


def test_a_vlog_written_as_vassal_writes_it(tmp_path):
    _bot, steps = play(60, seed=3)
    path = write_vlog(tmp_path / "g.vlog", [c for c, _r in steps])
    game = read_game(path.read_bytes())
    assert (game.kind, game.module, game.module_version, game.vassal_version) == ("log", "VASL", "6.6.7", "3.7.5")
    assert game.steps == len(steps)
    rolled = [r.line for _c, r in steps if r]
    assert [m.text for m in game.messages if m.text.startswith("*** (")] == rolled
    assert [m.number for m in game.messages] == list(range(1, len(game.messages) + 1))
    plain = write_vlog(tmp_path / "plain.vlog", [c for c, _r in steps], plain=True)  # before VASSAL 3.2
    assert read_game(plain.read_bytes()).messages == game.messages
    with zipfile.ZipFile(path) as archive:  # the entry taken out of its zip, as `unzip -p game.vlog savedGame`
        entry = archive.read("savedGame")
    assert is_saved_game(entry) and read_saved_game(entry).messages == game.messages


def test_the_chat_window_of_a_player_chat_and_a_report():
    assert chat_window("<Fred> - hello") == "*     ...  Fred   - hello"
    assert chat_window("*** (IFT DR) 3,5 ***   <>      [1 / 1   avg   8,00 (8,00)]    (01.27)").strip() == "*     ..."


@pytest.mark.parametrize("line", [
    "*** (IFT DR) 3,4 *** <Peiper>" + " " * 10_000 + "x",  # spaces before a ROF die or a hit location that never come
    "*** (" + " " * 10_000 + "x",
    "*** (IFT DR) 3,4 *** - total with " + " " * 10_000 + "x",
    "*** (IFT DR) 3,4 *** <Peiper>" + " <" * 5_000 + "x",
])
def test_a_long_line_of_spaces_is_read_at_once(line):
    """A VASL line travels in a bundle the other side wrote: one 3 KB line of spaces took minutes to read (patterns
    searched from every position, each starting with a run of spaces: cubic), 10,000 spaces hours. Read or refused,
    it ends (a child process, killed after a minute if it does not: a bound a hundred times the time it takes)."""
    import subprocess
    import sys

    code = ("import sys\nfrom cgledger.ledger.vasl import bot as vasl\nfrom cgledger.ledger.errors import LedgerError\n"
            "try:\n    vasl.read(sys.stdin.read())\nexcept LedgerError:\n    pass\n")
    done = subprocess.run([sys.executable, "-c", code], input=line, text=True, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
