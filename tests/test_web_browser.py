"""two players, two `cgledger serve` servers, two SQLite files and two browsers play KGP CG I from
the set-up through 19 PM (the Initial Scenario, then a German Assault with secret purchases, Secret rolls, sealed
chits, witnessed dice and a take-back) through the pages only, sending and receiving turns, and end with equal heads
and a clean `audit --final` on both sides. Each step fails on the page's one-line refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from web_play import Player, Server, chrome, needs_browser

GERMAN, US = "Peiper's own words", "Harrison's own words"
CHART = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
MAP = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"

pytestmark = [needs_browser]


@pytest.fixture
def desks(tmp_path):
    mail_g, mail_u = tmp_path / "german-out", tmp_path / "us-out"
    mail_g.mkdir()
    mail_u.mkdir()
    servers = [Server(tmp_path / "german.db", GERMAN, outbox=mail_g, inbox=mail_u),
               Server(tmp_path / "us.db", US, outbox=mail_u, inbox=mail_g)]
    drivers = []
    try:
        drivers = [chrome(), chrome()]
        yield Player(servers[0], drivers[0], "German"), Player(servers[1], drivers[1], "U.S."), mail_g
    finally:
        for driver in drivers:
            driver.quit()
        for server in servers:
            server.stop()


@pytest.mark.sqlite_only
def test_two_players_play_a_kgp_cg_date_through_the_pages(desks):
    g, u, mail_g = desks
    # ---- set-up: the German starts the campaign on his page, his key, the RG charts ------------------------------
    g.open("/")
    form = g.form("form input[name=words][value='[\"new\"]']").find_element("xpath", "..")
    g.fill(form, {"arg": "CG I", "opt:--system": "kgp", "opt:--cg": "I"})
    cpp = form.find_elements("css selector", "[name='opt:--start-cpp']")
    cpp[0].send_keys("german=20")
    cpp[1].send_keys("us=12")
    g._submit(form)
    g.line("cgledger keys init --side german|us", "german")
    g.upload("rules", CHART, "/buy")
    g.send()

    # ---- the U.S. uploads the German's first bundle: a new ledger, checked event by event --------------------------
    first = sorted(mail_g.iterdir())[0]
    u.upload("receive", first)
    u.line("cgledger accept")
    u.line("cgledger keys init --side us")  # the German side keyed already: not offered
    u.upload("rules", MAP, "/buy")
    u.send()

    g.receive()
    g.line("cgledger accept")
    g.line("cgledger step scenario")  # 19 AM: he waits at the Initial Scenario's door
    g.send()

    # ---- 19 AM: the Initial Scenario, played in VASL; its end and the walk to the new CG Date --------------------
    u.receive()
    u.line("cgledger step scenario")
    u.roll("KGP3", "us", dice="3,4")  # the dice of play, typed: the German witnesses them
    u.line("cgledger scenario-end --lvp german=N --lvp us=N --winner german|us", "10", "8", "german")
    u.line("cgledger roll 8.6113 --side us")  # 8.611: his Secret Battle Hardening DR, offered as his next act
    u.words('["step"]', "/", {"arg": "8.616"})
    u.send()

    # ---- the German's 8.6113 DR: both sides' fair dice are made before 19 PM is entered (a round trip) -----------
    g.receive()
    assert "Dice not witnessed" in g.text()
    g.line("cgledger witness --all")
    g.line("cgledger roll 8.6113 --side german")
    g.send()
    u.receive()
    u.send()

    # ---- 19 PM: the German's Secret CPP roll, a sealed purchase, its follow-ups, his chit ------------------------
    g.receive()
    g.line("cgledger roll 8.616 --side german")  # offered as due: Secret, declared, the U.S. ledger answers
    g.words('["buy", "V1", "--side", "german"]', "/buy", {"opt:--map-group": "St", "opt:--objective": "StJ19"})
    # the sealed RG's follow-ups, all at once (8.619: one at a time, their number would tell the RG): its strength,
    # its 8.6206 leader roll (made after it: the strength gives its Depleted DRM), two more that keep the count
    follow_ups = [line for line in g.offered() if line.startswith("cgledger follow-ups")]
    assert follow_ups == ["cgledger follow-ups --side german --rg V1#1"], g.offered()
    g.line(follow_ups[0])
    assert g.cli("status", "--json")["secret_purchases"] == {"german": 1}
    assert [r["type"] for r in g.cli("log", "--json")[-4:]] == ["RollDeclared"] * 4
    g.line("cgledger initiative --chit german=attack|idle", "attack")
    g.send()

    u.receive()
    page = u.text()
    assert "V1" not in u.cli("rg-record", "--side", "german"), "the German purchase is sealed"
    assert "bought" in page or "RG" in page
    u.line("cgledger roll 8.616 --side us")
    u.words('["buy", "I1", "--side", "us"]', "/buy", {"opt:--map-group": "St", "opt:--objective": "StK17"})
    follow_ups = list(dict.fromkeys(line for line in u.offered() if line.startswith("cgledger follow-ups")))
    assert follow_ups == ["cgledger follow-ups --side us --rg I1#1"], u.offered()  # (each of its two needs offers it)
    u.line(follow_ups[0])  # its 8.6202 quality dr and its 8.6206 leader DR: as many as any U.S. RG of the chart
    u.line("cgledger initiative --chit us=attack|idle", "idle")  # the second chit sealed is revealed at once
    u.send()

    g.receive()
    assert g.cli("status", "--json")["scenario"] == "German Assault"
    g.line("cgledger step scenario")
    g.send()

    # ---- the Assault: a Control typo clicked on the map, taken back on the history page ---------------------------
    u.receive()
    u.line("cgledger step scenario")
    u.click_hex("St", "StJ19", "us")
    u.words('["undo"]', "/history", {"opt:--reason": "typo: StJ19 is still German", "confirm": "on"})
    assert "taken back: Control of StJ19" in u.text()
    u.words('["control"]', "/map?group=St", {"arg": "StK17", "opt:--side": "us"})
    u.line("cgledger scenario-end --lvp german=N --lvp us=N", "12", "8")
    u.line("cgledger reveal --all --side us", path="/audit")
    u.send()

    # ---- the end: both reveal, the final audit is clean on both pages, the heads are equal -------------------------
    g.receive()
    g.line("cgledger reveal --all --side german", path="/audit")
    g.send()
    u.receive()
    heads = []
    for player in (g, u):
        player.open("/audit?final=1")
        text = player.done()
        assert "Clean" in text, (player.name, text)
        heads.append(player.driver.find_element("css selector", "code.head").text)
    assert heads[0] == heads[1] and heads[0]
    for player in (g, u):
        assert player.cli("audit", "--final", "--json")["clean"]
    print({p.name: p.clicks for p in (g, u)})


def test_live_on_one_postgresql_a_fair_roll_shows_its_result_in_both_pages_unclicked(tmp_path):
    """two servers on one shared PostgreSQL, each with its own player's key. A fair roll declared in
    the German browser is answered by the U.S. server the moment its LISTEN hears the German's record, and both pages
    show the result by themselves: nobody clicks anything on the U.S. side after its page first loaded."""
    import conftest
    from selenium.webdriver.support.ui import WebDriverWait

    from conftest import Player as Desk

    if conftest.BACKEND != "postgres":
        pytest.skip("live play is on a shared PostgreSQL (pytest --backend postgres)")
    db = conftest.pg_create()
    g, u = Desk(db, GERMAN), Desk(db, US)
    g.ok("new", "Live", "--cg", "I")
    g.ok("keys", "init", "--side", "german")
    u.ok("keys", "init", "--side", "us")
    g.ok("step", "scenario")
    u.ok("step", "scenario")  # the Initial Scenario, both at the table
    servers = [Server(db, GERMAN), Server(db, US)]
    drivers = []
    try:
        drivers = [chrome(), chrome()]
        german, us = Player(servers[0], drivers[0], "German"), Player(servers[1], drivers[1], "U.S.")
        us.open("/")
        assert "KGP3 German DR" not in us.text()
        footer = us.driver.find_element("tag name", "footer").text
        assert "the shared database says when the other side records" in footer, footer  # LISTEN, not polling
        marker = us.driver.find_element("tag name", "html")
        german.roll("KGP3", "german")  # no dice given: fair, declared; the U.S. server answers it
        assert "waiting for its dice" in german.text() or "declared" in german.text()
        german.open("/")

        def shows_result(player):  # read as the page reloads itself
            return lambda _d: "KGP3 German DR" in player.text()

        WebDriverWait(us.driver, 30, poll_frequency=0.2).until(shows_result(us))
        WebDriverWait(german.driver, 30, poll_frequency=0.2).until(shows_result(german))
        rolled = [r for r in g.json("log") if r["type"] == "DiceRolled" and r["table"] == "KGP3"]
        assert rolled and rolled[-1]["source"] == "fair" and rolled[-1]["final"] is not None
        line = next(x for x in us.text().splitlines() if "KGP3 German DR" in x)
        assert f"Final {rolled[-1]['final']}" in line and "(fair)" in line
        from selenium.common.exceptions import WebDriverException

        with pytest.raises(WebDriverException):  # stale
            marker.tag_name  # the U.S. page reloaded itself: the element of its first load is gone
    finally:
        for driver in drivers:
            driver.quit()
        for server in servers:
            server.stop()
        conftest.pg_drop([db])
