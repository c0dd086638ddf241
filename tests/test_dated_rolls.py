"""KGP 8.6113: "Each side also makes one Secret DR" on the MMC Battle Hardening Table in 8.611, with -2 if the
friendly side "won this CG Date's scenario". With fair dice by email each DR waits for the other side's answer; the
campaign enters the next CG Date (8.612) before those dice come, and each DR is decided as of the CG Date it was
declared on: its scenario's winner, its own due item. Rolls whose result decides anything later (an RG's strength,
a CPP replenishment, the SAN) still hold the door."""

from __future__ import annotations

from cgledger.ledger.application import open_ledger
from cgledger.ledger.decide import rolls, walk
from cgledger.ledger.rules import load

from test_email_campaign import CHART, Table


def _to_the_door(tmp_path):
    """19 AM's Initial Scenario played, German win; the U.S. declared his 8.6113 DR and waits at 19 PM's door."""
    t = Table(tmp_path)
    g, u = t.german, t.us
    t.keyed("CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("step", "scenario")
    g.send(u)
    u.receive()
    u.ok("step", "scenario")
    u.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    u.ok("roll", "8.6113", "--side", "us")
    u.ok("step", "8.616")
    u.send(g)
    g.receive()
    return t, g, u


def test_the_next_cg_date_begins_before_the_battle_hardening_dice_come(tmp_path):
    t, g, u = _to_the_door(tmp_path)
    declared = g.json("roll", "8.6113", "--side", "german", "--drm", "casualty_vp=30")
    assert declared["declared"] and declared["dice"] is None
    g.ok("roll", "8.616", "--side", "german")  # walks him through the door: 19 PM begins
    status = g.json("status")
    assert status["cg_date"] == "19 PM"
    g.send(u)

    got = u.receive()[0]  # his ledger makes his own 8.6113 (answered) and answers the German's
    mine = {r["table"]: r for r in got["results"]}
    assert "won" not in {d["key"] for d in mine["8.6113"]["drms"]}  # the U.S. lost 19 AM's scenario
    u.ok("roll", "8.616", "--side", "us")
    u.send(g)

    got = g.receive()[0]
    mine = {r["table"]: r for r in got["results"]}
    drms = {d["key"]: d["value"] for d in mine["8.6113"]["drms"]}
    # decided as of 19 AM, whose scenario the German won, though 19 PM's has no winner yet
    assert drms == {"won": -2, "casualty_vp": -1}, drms
    for desk in (g, u):
        result = desk("audit")
        assert result.exit_code == 0, result.stdout


def test_a_dr_made_after_its_cg_date_uses_up_that_cg_dates_item(tmp_path):
    """The German's DR made in 19 PM is 19 AM's: 19 PM's own is still due at its 8.611, and the need it met stays
    met in 19 AM alone."""
    t, g, u = _to_the_door(tmp_path)
    g.ok("roll", "8.6113", "--side", "german")
    g.ok("roll", "8.616", "--side", "german")
    g.send(u)
    u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.send(g)
    g.receive()  # both 8.6113 DRs made, in 19 PM
    campaign = open_ledger(str(g.db)).campaign(None)
    assert campaign.cg_date == "19 PM"
    items = {k for k in campaign.consumed if k.startswith("8.6113|")}
    assert items == {"8.6113|german|19 AM", "8.6113|us|19 AM"}, items
    assert not [e for e in (*campaign.done, *campaign.ahead_done) if "battle_hardening" in e]


def test_which_rolls_may_be_made_after_their_cg_date():
    kgp, rr = load("kgp"), load("rr")
    assert rolls.made_on_its_date(kgp, "8.6113")  # one per side and date, needed, nothing read from it
    for table in ("8.616", "8.6201", "8.6202", "8.6171", "8.6122"):  # CPP, an RG's strength, weather, SAN
        assert not rolls.made_on_its_date(kgp, table), table
    for table in ("2.516", "2.5122", "2.5191", "2.521"):  # CPP, SAN, an RG's strength, Recon (CPP, 'attacked')
        assert not rolls.made_on_its_date(rr, table), table


def test_the_last_purchase_and_its_follow_ups_in_one_command(tmp_path):
    """`buy --follow-ups`: the RG bought (sealed), then each follow-up roll its purchase made due, declared, as
    `follow-ups` makes them; a purchase the chart refuses writes nothing, its follow-ups included."""
    t, g, u = _to_the_door(tmp_path)
    g.ok("roll", "8.6113", "--side", "german")
    g.ok("roll", "8.616", "--side", "german")
    before = g.ok("head").stdout
    refused = g("buy", "V99", "--side", "german", "--map-group", "St", "--follow-ups")
    assert refused.exit_code != 0 and g.ok("head").stdout == before
    g.ok("rules", "load", str(CHART))  # the German RG chart the email campaign uses
    g.send(u)
    u.receive()
    u.ok("accept")
    u.send(g)
    g.receive()
    bought = g.json("buy", "V1", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--follow-ups")
    assert bought["secret"] and [r["table"] for r in bought["follow_ups"]] == ["8.6201", "8.6206/armor"]
    assert all(r["declared"] and r["secret"] for r in bought["follow_ups"])
    assert g.json("status")["progress"]["german"]["step"] == "8.620"


def test_a_campaign_started_before_that_reading_keeps_its_door(tmp_path):
    """A campaign started under the older reading (8.6113 offered, not needed) was played with every declared roll
    holding the door: its walks are decided the same way again, so its audit stays clean."""
    t, g, u = _to_the_door(tmp_path)
    ledger = open_ledger(str(g.db))
    campaign = ledger.campaign(None)
    rules = load("kgp")
    waiting = [e["version"] for e in campaign.declared.values() if e["table"] == "8.6113" and not e["made"]]
    assert waiting and campaign.edition >= 1  # started under the reading that 8.6113 does not hold the door
    assert walk.unmade(rules, campaign) == []
    campaign.edition = 0
    assert walk.unmade(rules, campaign) == waiting


def test_a_last_purchase_with_no_follow_up_due_stands_alone_and_says_so(rr):
    """RR's I2 (replacements) makes no roll due: `buy --follow-ups` records the purchase, exit 0, and says that no
    follow-up roll was made, without writing anything else."""
    before = rr.events()
    done = rr("buy", "I2", "--side", "canadian", "--follow-ups")
    assert done.exit_code == 0 and "RG I2" in done.stdout
    assert "no follow-up roll made now" in done.stderr and "(2.519)" in done.stderr
    assert rr.events() == before + 1
