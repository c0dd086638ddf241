"""Proposals by email are reported once and truly (found playing as two new players): an accepted rules file was
shown as 'lapsed ... propose it again' on both sides, and a second `rules load` let the first lapse unseen."""

from __future__ import annotations

import pytest

from two_players import CGS_CHART, CGS_MAP, GAMES, start


@pytest.fixture
def cgs(tmp_path, make_db, monkeypatch):
    """A CGS campaign by email whose first player proposes nothing at the set-up (both files come later)."""
    system, cg, cpp, _first, _second = GAMES["cgs"]
    monkeypatch.setitem(GAMES, "cgs", (system, cg, cpp, [], []))
    return start("cgs", [make_db(), make_db()], tmp_path)


def map_proposed(cgs):
    """The turn back with the German, who proposes the DTW map: (German desk, Russian desk, the post)."""
    desks, post = cgs
    g, r = desks["german"], desks["russian"]
    post.send(r)
    post.receive(g)
    g.ok("rules", "load", str(CGS_MAP))
    return g, r, post


def test_an_accepted_rules_file_is_neither_open_nor_lapsed(cgs):
    g, r, post = map_proposed(cgs)
    assert g.status()["proposal"]["open"] is True
    post.send(g)
    post.receive(r)
    r.ok("accept")
    assert r.status()["proposal"] is None
    post.send(r)
    got = post.receive(g)[0]
    assert got["proposal"] is None and g.status()["proposal"] is None
    assert "lapsed" not in g.ok("status").stdout and "lapsed" not in r.ok("status").stdout
    assert g.ok("head").stdout == r.ok("head").stdout


def test_a_second_rules_file_waits_for_the_first_to_be_accepted(cgs):
    g, r, post = map_proposed(cgs)
    g.player.refused("rules", "load", str(CGS_CHART), contains="still waits for the other side's acceptance")
    post.send(g)
    post.receive(r)
    r.ok("accept")
    post.send(r)
    post.receive(g)
    g.ok("rules", "load", str(CGS_CHART))  # now it may
    assert g.status()["proposal"]["open"] is True


def test_a_proposal_is_declined_once_and_said_so(cgs):
    """There was Accept but no Decline: the other side's only way to refuse was to act and let it lapse. Declined, it
    is over on both sides, said once; the proposer declines nothing, and a second decline finds nothing open."""
    g, r, post = map_proposed(cgs)
    g.player.refused("decline", contains="only the other side can decline it")
    post.send(g)
    post.receive(r)
    r.ok("decline", "--reason", "not this map")
    shown = r.status()["proposal"]
    assert shown["open"] is False and shown["lapsed"]["why"] == "the other side declined it", shown
    r.player.refused("decline", contains="no proposal is open")
    post.send(r)
    post.receive(g)
    assert g.status()["proposal"]["lapsed"]["why"] == "the other side declined it"
    assert "declines the proposal of event" in g.ok("log").stdout
    for desk in (g, r):
        assert desk.run("audit").exit_code == 0
