"""Read views kept current: the roster, the RG record, the dice and the history's story are kept
per machine and folded only over the events recorded since; what every read shows is what a fold of the whole log
shows, after any event (undo, rewind, reveal included), for every reader, and a view this machine did not seal is
never shown."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import msgspec
import pytest

from conftest import Cli, Player, keyed_players
from cgledger.cli.script import words
from cgledger.ledger.read import views
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import fold as fold_state
from cgledger.ledger.decide.witness import unwitnessed_events
from cgledger.ledger.domain.timeline import effective, ends_reph
from cgledger.projections import areas, dice_stats, history, kept, rg_record, roster

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _whole(value) -> bytes:
    return msgspec.json.encode(value)


def _finished(name: str, view, rules, state):
    view = kept.decode(kept.encode(view))  # as stored
    if name == "roster":
        return kept.finish_roster(view, rules)
    if name == "rg":
        return kept.finish_rg(view, rules)
    if name == "dice":
        return dice_stats.finish(view, None, unwitnessed_events(state))
    if name.startswith(kept.AREAS):
        group = name[len(kept.AREAS):]
        return areas.document(kept.finish_areas(view, rules, group), rules, group)
    return view


@pytest.mark.parametrize("sample", ["kgp-cg1-sample.cgl", "rr-sample.cgl", "cgs-sample.cgl"])
def test_after_each_event_the_kept_view_is_the_whole_fold(played, sample):
    """For every prefix of the sample's log: the view kept up to the event before, with this event folded in (or
    folded again when the event disturbs it), finishes to exactly what the projection of the whole prefix gives."""
    cli = Cli(played(sample), seed="7")
    ledger = open_ledger(str(cli.db))
    logged = ledger.history(None)
    rules = ledger.rules_for(ledger.campaign(None))
    kept_views = {name: kept.build(name, effective(logged[:1]), rules)[0] for name in kept.names(rules)}
    folded_again, steps, map_steps, groups = 0, 0, 0, set()
    for k in range(2, len(logged) + 1):
        prefix = effective(logged[:k])
        state = fold_state(logged[:k])
        rules = ledger.rules_for(state)
        for name in kept.names(rules):
            if name not in kept_views:  # a Map Group whose grid a rules file loaded since
                kept_views[name] = kept.build(name, prefix, rules)[0]
            elif kept.disturbs(name, logged[k - 1].fact, rules):
                kept_views[name] = kept.build(name, prefix, rules)[0]
                folded_again += 1
            else:
                kept_views[name] = kept.advance(name, kept.decode(kept.encode(kept_views[name])),
                                                effective(logged[k - 1:k]), rules)
                steps += name.startswith(kept.AREAS)
                map_steps += name == "story" and ends_reph(logged[k - 1].fact)
        expected = {"roster": roster.rosters(prefix, rules), "rg": rg_record.rg_records(prefix, rules),
                    "dice": dice_stats.dice_stats(prefix, None, unwitnessed_events(state))}
        for name in kept.names(rules)[len(kept.NAMES):]:  # each Map Group's Setup Areas, as `areas --json` gives them
            group = name[len(kept.AREAS):]
            expected[name] = areas.document(areas.areas_as_of(prefix, rules, group), rules, group)
            groups.add(group)
        # the folded counts are the statistics over every roll (the plain definition)
        assert _whole(expected["dice"]) == _whole(dice_stats.plain_stats(prefix, None, unwitnessed_events(state)))
        for name, value in expected.items():
            assert _whole(_finished(name, kept_views[name], rules, state)) == _whole(value), (sample, k, name)
        composed = history.compose(_finished("roster", kept_views["roster"], rules, state),
                                   _finished("rg", kept_views["rg"], rules, state),
                                   kept.decode(kept.encode(kept_views["dice"])),
                                   kept.decode(kept.encode(kept_views["story"])), rules, state)
        assert _whole(composed) == _whole(history.history(prefix, rules, state)), (sample, k)
        # the story's maps, stepped RePh end by RePh end, are each CG Date's map as the plain definition determines it
        maps = kept.decode(kept.encode(kept_views["story"]))["maps"]
        assert _whole(maps) == _whole(history.scenario_maps(prefix, rules) if kept.names(rules) != kept.NAMES else [])
    assert 0 < folded_again < len(logged) * len(kept_views) / 4  # folding again is the exception
    if sample == "kgp-cg1-sample.cgl":  # a Map Group loaded (RR's sample loads none; CGS determines no Setup Areas)
        assert groups == {"St"} and steps > len(logged) / 2
        assert map_steps >= 3  # the story's maps determined as each CG Date's RePh ended, not folded again


def _fresh(cli: Cli, tmp_path: Path, *args: str) -> str:
    """What a machine with no kept view reads."""
    before = os.environ["XDG_STATE_HOME"]
    os.environ["XDG_STATE_HOME"] = str(tmp_path / "fresh-machine")
    try:
        shutil.rmtree(tmp_path / "fresh-machine", ignore_errors=True)
        return cli.ok(*args).stdout
    finally:
        os.environ["XDG_STATE_HOME"] = before


def test_kept_reads_follow_the_sample_command_by_command(make_db, tmp_path):
    """The KGP sample (undos, a rewind, a VASL chat, an Idle Day) entered one command at a time, reading after
    each one: the kept views (advanced by each write, caught up by each read) show what a fresh machine shows."""
    cli = Cli(make_db())
    here = str(FIXTURES)
    lines = [words(line.replace("$HERE", here)) for line in (FIXTURES / "kgp-cg1-sample.cgl").read_text().splitlines()]
    commands = [args for args in lines if args]
    for number, args in enumerate(commands):
        cli.ok(*args)
        if number % 3 and number != len(commands) - 1:
            continue
        for read in (("history", "--json"), ("dice-stats", "--json"), ("rg-record", "--side", "german", "--json")):
            assert cli.ok(*read).stdout == _fresh(cli, tmp_path, *read), (number, args, read)
    assert os.listdir(views.folder())  # kept
    for read in (("roster", "--side", "us"), ("final",), ("history",)):
        assert cli.ok(*read).stdout == _fresh(cli, tmp_path, *read)


def _parts(db, name: str, reader: str = "") -> tuple:
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    return (*ledger.kept._view_parts(campaign, reader), name), campaign.version


def test_a_write_advances_the_views_that_were_current(kgp):
    kgp.ok("roster", "--side", "german")
    kgp.ok("history")
    parts, head = _parts(kgp.db, "roster")
    assert views.load(parts)[0] == head
    kgp.ok("step", "scenario")
    kgp.ok("roll", "KGP3", "--side", "us", "--dice", "5,6")
    parts, head = _parts(kgp.db, "roster")
    assert views.load(parts)[0] == head  # folded by the writes, before any read
    assert views.load((*parts[:-1], "story"))[0] == head  # a RePh end (the scenario step) is a step too
    kgp.ok("undo")  # voids an earlier action: left for the next read to fold again
    assert views.load(parts)[0] < _parts(kgp.db, "roster")[1]
    kgp.ok("roster", "--side", "german")
    assert views.load(parts)[0] == _parts(kgp.db, "roster")[1]


def test_a_view_this_machine_did_not_seal_is_never_shown(kgp, tmp_path):
    kgp.ok("step", "scenario")
    kgp.ok("scenario-end", "--lvp", "german=14", "--lvp", "us=10", "--winner", "german")
    shown = kgp.ok("roster", "--side", "german", "--json").stdout
    assert json.loads(shown)[0]["lvp"] == 14
    parts, _head = _parts(kgp.db, "roster")
    path = views.path_of(parts)
    planted = path.read_bytes().replace(b'"lvp":14', b'"lvp":99')
    assert planted != path.read_bytes()
    path.write_bytes(planted)  # edited in place: its seal no longer checks out
    assert kgp.ok("roster", "--side", "german", "--json").stdout == shown
    # another machine's views (its own secret) copied here: not this machine's seal
    other = tmp_path / "other-machine"
    os.environ["XDG_STATE_HOME"], mine = str(other), os.environ["XDG_STATE_HOME"]
    try:
        kgp.ok("roster", "--side", "german")
        theirs = {p.name: p.read_bytes().replace(b'"lvp":14', b'"lvp":99') for p in views.folder().iterdir()}
    finally:
        os.environ["XDG_STATE_HOME"] = mine
    for name, data in theirs.items():
        (views.folder() / name).write_bytes(data)
    assert kgp.ok("roster", "--side", "german", "--json").stdout == shown
    path.write_bytes(b"garbage")
    assert kgp.ok("roster", "--side", "german", "--json").stdout == shown


GERMAN, US = "Peiper's own words", "Harrison's own words"


def test_a_sides_opened_view_is_its_own(at):
    table = at("8.616", "19 PM")
    table.ok("fair-dice", "mode", "immediate")  # dice typed into its Secret rolls: no fair dice (with them a Refit Phase Secret roll takes fair dice)
    (german, us), anyone = keyed_players(table.db, GERMAN, US), Player(table.db, None)
    rolled = german.json("roll", "8.616", "--side", "german", "--dice", "3,3")
    assert german.json("roster", "--side", "german")[-1]["repl"] == 29
    assert us.json("roster", "--side", "german")[-1]["repl"] is None
    assert anyone.json("roster", "--side", "german")[-1]["repl"] is None
    assert german.json("roster", "--side", "german")[-1]["repl"] == 29  # each reader its own view, kept
    german_stats = german.json("dice-stats", "--side", "german")
    assert german_stats["groups"] and not anyone.json("dice-stats", "--side", "german")["groups"][-1:] == \
        german_stats["groups"][-1:]
    for path in views.folder().iterdir():  # the German's opened view is stored sealed with the German key
        assert b'"repl":29' not in path.read_bytes()
    us.ok("roll", "8.616", "--side", "us", "--dice", "2,2")  # a write: the views are advanced, each for its reader
    assert anyone.json("roster", "--side", "german")[-1]["repl"] is None
    assert german.json("roster", "--side", "german")[-1]["repl"] == 29
    german.ok("reveal", str(rolled["id"]))  # opens the earlier roll for everyone: folded again
    assert anyone.json("roster", "--side", "german")[-1]["repl"] == 29
    assert us.json("roster", "--side", "german")[-1]["repl"] == 29


CHAT = ["*** (Other DR) 4,2 ***   <Player1>      Allied SAN    [1 / 8   avg   6,62 (6,62)]    (01.51 - by random.org)",
        "*** (TH DR) 1,6 ***   <Player2>      [2 / 8   avg   7,00 (7,00)]    (01.52 - by random.org)",
        "*** (Other DR) 2,5 ***   <Player2>      [3 / 8   avg   7,00 (7,00)]    (01.53 - by random.org)",
        "*** (Other dr) 3 ***   <Player1>      [2 / 8   avg   3,50 (3,50)]    (01.54 - by random.org)"]


def test_the_kept_dice_wait_for_their_witness(at, tmp_path):
    """Typed and VASL dice before and after both sides hold keys, witnessed out of order, disputed, imported with a
    roll attached, undone: after every event the kept dice (counts per group, the rolls that may be claims not
    witnessed waiting in their group) finish to what the statistics over every roll give, for each side too."""
    cli = at("scenario")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    cli.ok("roll", "KGP3", "--side", "german", "--dice", "2,3")  # typed before the keys: no claim
    cli.ok("roll", "KGP3", "--side", "german", "--dice", "5,5")
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")

    def last() -> int:
        return cli.json("log")[-1]["version"]

    german.ok("roll", "KGP3", "--side", "german", "--dice", "6,6")
    a = last()
    german.ok("roll", "KGP3", "--side", "german", "--dice", "1,1")
    b = last()
    german.ok("roll", "KGP3", "--side", "german")  # fair dice or the ledger's: nobody's claim
    us.ok("roll", "KGP3", "--side", "us", "--dice", "5,6")
    c = last()
    us.ok("witness", str(b))  # the later German roll witnessed first
    german.ok("roll", "KGP3", "--side", "german", "--dice", "6,5")
    german.ok("witness", str(c), "--dispute", "not what I saw")
    path = tmp_path / "chat.txt"
    path.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    us.ok("vasl-import", str(path), "--attach", "3=KGP3", "--player", "Player2=us", "--player", "Player1=german")
    german.ok("roll", "KGP3", "--side", "german", "--dice", "3,3")
    german.ok("undo")
    german.ok("roll", "KGP3", "--side", "german", "--dice", "4,4")
    us.ok("witness", str(a))
    german.ok("witness", "--all")
    german.ok("roll", "KGP3", "--side", "german", "--dice", "2,2")

    ledger = open_ledger(str(cli.db))
    logged = ledger.history(None)
    rules = ledger.rules_for(ledger.campaign(None))
    view = kept.build("dice", effective(logged[:1]), rules)[0]
    labels, waited = set(), False
    for k in range(2, len(logged) + 1):
        prefix = effective(logged[:k])
        state = fold_state(logged[:k])
        if kept.disturbs("dice", logged[k - 1].fact, rules):
            view = kept.build("dice", prefix, rules)[0]
        else:
            view = kept.advance("dice", kept.decode(kept.encode(view)), effective(logged[k - 1:k]), rules)
        unwitnessed = unwitnessed_events(state)
        for side in (None, "german", "us"):
            plain = dice_stats.plain_stats(prefix, side, unwitnessed)
            finished = dice_stats.finish(kept.decode(kept.encode(view)), side, unwitnessed)
            assert _whole(finished) == _whole(plain), (k, side)
            assert _whole(dice_stats.dice_stats(prefix, side, unwitnessed)) == _whole(plain), (k, side)
            labels |= {(g["side"], g["source"]) for g in plain["groups"]}
            waited = waited or bool(view["pending"])
    assert {("german", "entered"), ("german", "entered, not witnessed"), ("us", "entered, not witnessed"),
            ("us", "vasl"), ("us", "vasl, not witnessed")} <= labels
    assert waited
    assert not view["pending"] or all(len(w["rolls"]) <= 3 for w in view["pending"].values())
    assert len(kept.encode(view)) < 20_000


def _unkept(cli: Cli, tmp_path: Path, *args: str):
    """What a machine that can keep no view reads (XDG_STATE_HOME names a file: no secret, so every read folds the
    whole log as before the views)."""
    before = os.environ["XDG_STATE_HOME"]
    (tmp_path / "not-a-folder").write_text("")
    os.environ["XDG_STATE_HOME"] = str(tmp_path / "not-a-folder")
    try:
        assert not views.available()
        return cli(*args)
    finally:
        os.environ["XDG_STATE_HOME"] = before


def test_areas_and_map_from_the_kept_view_are_what_the_whole_log_gives(make_db, tmp_path):
    """The KGP sample (Control changed, undone and rewound across CG Dates and their RePh ends) entered one command
    at a time: `areas` (text and JSON) and `map` read from the kept view of the Map Group, advanced by the writes,
    show exactly what a machine with no view shows, and a wrong Map Group is the same one-line error."""
    cli = Cli(make_db())
    here = str(FIXTURES)
    lines = [words(line.replace("$HERE", here)) for line in (FIXTURES / "kgp-cg1-sample.cgl").read_text().splitlines()]
    commands = [args for args in lines if args]
    read_after = advanced = 0
    for number, args in enumerate(commands):
        cli.ok(*args)
        if args[0] == "control" and read_after:
            parts, version = _parts(cli.db, kept.AREAS + "St")
            assert views.load(parts)[0] == version, args  # folded by the write, before any read
            advanced += 1
        if cli("areas", "--group", "St").exit_code:  # before the St grid is loaded
            continue
        read_after += 1
        for read in (("areas", "--group", "St", "--json"), ("areas", "--group", "St")):
            assert cli.ok(*read).stdout == _unkept(cli, tmp_path, *read).stdout, (number, args, read)
    assert read_after > len(commands) / 2
    parts, _head = _parts(cli.db, kept.AREAS + "St")
    assert views.load(parts) is not None  # the view was kept and read
    for svg, where in ((tmp_path / "kept.svg", None), (tmp_path / "unkept.svg", tmp_path)):
        args = ("map", "--group", "St", "--svg", str(svg))
        assert (cli(*args) if where is None else _unkept(cli, tmp_path, *args)).exit_code == 0
    assert (tmp_path / "kept.svg").read_bytes() == (tmp_path / "unkept.svg").read_bytes()
    head = cli.ok("head").stdout
    for group in ("Zz", "Ch"):  # an unknown Map Group; one whose grid is not loaded
        kept_out, unkept_out = cli("areas", "--group", group), _unkept(cli, tmp_path, "areas", "--group", group)
        assert kept_out.exit_code == unkept_out.exit_code != 0
        assert kept_out.output == unkept_out.output and len(kept_out.output.strip().splitlines()) == 1
    assert cli.ok("head").stdout == head  # nothing written
    assert advanced
