"""What `status` offers a side is what the ledger then accepts (found by the random two-player play,
tests/test_random_play.py): each case here was offered and refused at once before."""

from __future__ import annotations

from pathlib import Path

import pytest

from two_players import CHART, KGP_MAP, Desk, offers, start

import conftest


@pytest.fixture
def two(tmp_path, make_db):
    def make(game: str):
        return start(game, [make_db(), make_db()], tmp_path)

    return make


def lines(desk: Desk) -> list[str]:
    return [o.line for o in offers(desk.status(), desk.side)]


def test_step_next_is_not_offered_while_the_side_waits_for_a_strength_roll(two):
    """8.620: an RG's strength (8.6201) decides which follow-ups the step needs (8.6205); declared with fair dice,
    its side waits in the step for the other side's answer. `step next` is refused there, so it is not offered:
    `held` says why, in the step decision's own words."""
    desks, post = two("kgp")
    g = desks["german"]
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    rg = g.json("status")["next_acts"][0]["rg"]
    g.ok("roll", "8.6201", "--side", "german", "--rg", str(rg))
    status = g.status()
    assert "cgledger step next" not in lines(g)
    assert "waits in 8.620" in status["held"]["text"] and status["held"]["rule"] == "8.620"
    assert "not yet on to the next step" in g.ok("status").stdout
    g.player.refused("step", "next", contains="waits in 8.620")


def test_an_act_past_a_door_both_sides_cross_together_is_not_offered_yet(two):
    """After the CG-Scenario End one side may walk on alone only up to the door of the new CG Date (8.612): the
    8.616 roll beyond it is not its next act until the other side has the end too."""
    desks, post = two("kgp")
    g, u = desks["german"], desks["us"]
    g.ok("step", "scenario")
    post.send(g)
    post.receive(u)
    u.ok("step", "scenario")
    u.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=2", "--winner", "german")
    status = u.status()
    assert not [a for a in status["next_acts"] if a["step"] == "8.616"], status["next_acts"]
    for line in lines(u):  # whatever is offered is accepted
        if line == "cgledger step next":
            u.ok("step", "next")


def test_control_is_offered_only_where_a_map_gives_the_hexes(make_db):
    """No Map Group's grid is in the rules seeds (KGP1): without a map file every `control` is refused, so none is
    offered; with the St map loaded it is."""
    kgp = conftest.Cli(make_db())
    kgp.ok("new", "bare", "--system", "kgp", "--cg", "I")
    kgp.ok("step", "scenario")
    assert not [m for m in kgp.json("status")["may"] if "control" in m["command"]]
    kgp.refused("control", "StJ19", "--side", "us", contains="grid is not in the rules seeds")
    kgp.ok("rules", "load", str(KGP_MAP))
    assert [m for m in kgp.json("status")["may"] if m["command"].startswith("cgledger control LOCATION")]
    kgp.ok("control", "StJ19", "--side", "us")


def test_a_required_declared_drm_is_part_of_the_offered_line(rr):
    """RR 2.5122: the SAN dr needs --drm san=N (the side's current SAN); the line offered carries it (N where the
    ledger does not know the SAN yet, for the player to give)."""
    rr.to("2.512", "19 PM")
    status = rr.json("status")
    needed = [c for n in status["needs"] + status["may"] for c in n.get("commands", [n.get("command")])
              if c and "2.5122" in c]
    assert needed and all("--drm san=" in c for c in needed), needed
    line = needed[0].replace("san=N", "san=6").replace("german|canadian", "german").split()[1:]
    rr.ok(*line, "--dice", "6")


def test_a_scenario_roll_of_this_cg_date_is_not_offered_for_the_next(rr):
    """RR 2.5223a is rolled only in a Dual Attack. Looking ahead past the next CG Date's step (a side walking there
    while the other waits at the door), this CG Date's Dual Attack is not the next one's: its Initiative is still to
    come, so 2.5223a is not due there (it was offered there, and refused: 'Initiative has not decided this CG Date's
    scenario yet')."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide.steps import need_applies

    rr.to("2.522", "19 PM")
    rr.ok("initiative", "--chit", "german=attack", "--chit", "canadian=attack")
    state, rules = open_ledger(str(rr.db)).state_as_of(None)
    assert state.scenario == "Dual Attack"
    need = next(n for s in rules.system.steps for n in s.needs if n.scenario == "Dual Attack")
    assert need_applies(rules, state, need)  # on 19 PM
    assert need_applies(rules, state, need, date="19 PM")
    assert not need_applies(rules, state, need, date="19 N")  # the next CG Date: its scenario not decided yet


def test_the_side_without_a_key_is_offered_its_key_once_the_other_has_one(make_db):
    """Once one side has set up its key, the player whose passphrase opens none is offered `keys init` for his own
    side (nothing said of it, he would go on unsigned and without fair dice); run at once it is accepted, and then no
    longer offered. The side with a key, and players at one table (no passphrase given), are offered nothing; a
    player who gives his passphrase before any key is set up is offered his own."""
    from conftest import Player

    db = make_db()
    german, us = Player(db, "granite lantern orbit velvet 47"), Player(db, "copper meadow ribbon falcon 83")
    german.ok("new", "CG I", "--cg", "I")
    assert not [m for m in conftest.Cli(db).json("status")["may"] if m["command"].startswith("cgledger keys")]
    offered = [m["command"] for m in german.json("status")["may"] if m["command"].startswith("cgledger keys")]
    assert offered == ["cgledger keys init --side german|us"]
    german.ok("keys", "init", "--side", "german")
    assert not [m for m in german.json("status")["may"] if m["command"].startswith("cgledger keys")]
    offered = [m["command"] for m in us.json("status")["may"] if m["command"].startswith("cgledger keys")]
    assert offered == ["cgledger keys init --side us"]
    us.ok(*offered[0].split()[1:])
    assert not [m for m in us.json("status")["may"] if m["command"].startswith("cgledger keys")]


def test_the_new_cg_dates_own_roll_is_not_offered_where_the_walk_stops_at_its_door(make_db):
    """RR 2.512: the SAN dr of the new CG Date's step (2.5122) is made once both sides have entered that step. A play
    by email (random play, kept): both sides at 2.507 after a German Assault, the German's last SAN dr left his SAN
    at 6, so 2.512 needs his dr. His walk there stops at the door while the Canadian may still roll Wounded Leaders
    (2.510): the dr is not his next act yet, because the roll it offers would be refused ("the campaign is at
    2.510"). What the walk lands on is the step his acts are judged by (the decision's own `acting_step`)."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.decide import rolls, walk
    from cgledger.projections import guidance

    cli = conftest.Cli(make_db())
    cli.ok("import", str(Path(__file__).parent / "data" / "rr-both-at-2507.json"))
    campaign, rules = open_ledger(str(cli.db)).load(None)
    assert (campaign.step, campaign.san.get("german"), walk.walking(campaign, rules)) == ("2.507", 6, True)
    acts = guidance.next_acts(rules, campaign, "2.507", "german", True)
    assert not [a for a in acts if a["step"] == "2.512" and a["table"]], acts
    # what is offered is the walk up to the door: nothing more of his before it
    assert [a["command"] for a in acts if a["step"] == "2.512"] == ["cgledger step 2.512"], acts
    assert walk.lands(rules, campaign, "german", "2.512") == "2.510"  # the campaign's step then: the door waits
    for act in [a for a in acts if a["table"]]:  # each roll offered is admitted where the walk leaves the side
        rolls.admit(campaign, rules, act["table"], "german", act["rg"], "UNIT",
                    at=walk.lands(rules, campaign, "german", act["step"]))


def test_live_on_one_store_both_sides_at_the_door_of_the_new_cg_date_go_in(make_db, tmp_path):
    """Live on one shared store: after the scenario the U.S. and then the German roll their 8.6113 Battle Hardening
    DRs (fair, Secret), and the German walks on to the door of the new CG Date (8.612), which both sides enter
    together. The U.S. walks on while the German's Secret roll still waits to be made: it holds no door (it is
    decided as of 19 AM), so the U.S. walk takes the campaign into 19 PM, and the German's ledger makes the roll
    on its next command there (a read included)."""
    db = make_db()
    desks, post = start("kgp", [db, db], tmp_path)
    g, u = desks["german"], desks["us"]
    g.ok("step", "scenario")
    u.ok("step", "scenario")
    g.ok("scenario-end", "--lvp", "german=3", "--lvp", "us=2", "--winner", "german")
    for desk in (u, g):  # each walks up to 8.611 and rolls there, the German last
        for _ in range(10):
            if desk.status()["progress"][desk.side]["step"] == "8.611":
                break
            desk.ok("step", "next")
        desk.ok("roll", "8.6113", "--side", desk.side)
    g.ok("step", "next")
    assert g.status()["progress"]["german"] == {**g.status()["progress"]["german"], "step": "8.612", "ahead": True}
    u.ok("step", "next")
    status = g.status()
    assert (status["step"], status["cg_date"]) == ("8.612", "19 PM"), status
    from cgledger.ledger.application import open_ledger

    def unmade() -> list:
        return [e for e in open_ledger(str(db)).campaign(None).declared.values() if not e["made"]]

    if unmade():
        g.ok("answer")  # what his ledger owes: the roll made, sealed, in 19 PM
    assert unmade() == [] and g.json("audit")["clean"]


def test_the_san_dr_is_not_offered_below_the_san_its_table_takes(rr):
    """RR 2.5122: no SAN adjustment dr below SAN 5. Once the side's last SAN dr left its SAN at 4, the dr is not
    offered with san=4 (the table refuses it): nothing offered is refused."""
    rr.to("2.512", "19 PM")
    rr.ok("roll", "2.5122", "--side", "german", "--drm", "san=6", "--dice", "6")  # SAN 6 reduced by two: 4
    rr.to("2.512", "19 N")  # the next CG Date's SAN step
    from cgledger.ledger.application import open_ledger
    from cgledger.projections import guidance

    state, rules = open_ledger(str(rr.db)).load(None)
    assert state.san.get("german") == 4
    offered = [o["command"] for o in guidance.options(rules, state, [], "2.512", only="german")]  # as a walking side
    assert not [c for c in offered if "2.5122" in c], offered
    rr.refused("roll", "2.5122", "--side", "german", "--drm", "san=4", "--dice", "3", contains="out of range")


def test_an_objective_hex_is_offered_as_required_for_the_rg_that_need_one(make_db):
    """8.6198: the Objective Hex of each 'I'- and 'HW'-type RG is recorded when it is purchased, and `buy` refuses
    such an RG without one: the purchase is not offered with the Objective Hex optional. Those RG are offered on a
    line with `--objective HEX` required; the line without it is for the other RG (8.619), which it buys."""
    kgp = conftest.Cli(make_db())
    kgp.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=12", "--start-cpp", "us=8")
    kgp.ok("step", "8.619")
    kgp.ok("rules", "load", str(CHART))
    may = {m["command"]: m for m in kgp.json("status")["may"] if m["command"].startswith("cgledger buy")}
    with_hex = "cgledger buy RG_ID --side german|us --map-group St|Ch|Lg --objective HEX"
    without = "cgledger buy RG_ID --side german|us --map-group St|Ch|Lg"
    assert set(may) == {with_hex, without}, may
    assert may[with_hex]["rule"] == "8.6198" and "'I'- or 'HW'-type" in may[with_hex]["text"]
    assert not [c for c in may if "[--objective" in c]
    assert "--objective HEX  # buy an 'I'- or 'HW'-type" in kgp.ok("status").stdout

    def typed(line: str, rg: str) -> list[str]:
        return (line.replace("RG_ID", rg).replace("german|us", "german").replace("St|Ch|Lg", "St")
                .replace("HEX", "StJ19").split()[1:])

    for rg in ("I2", "HW1"):  # the line without the Objective Hex is refused for these, naming the rule
        kgp.refused(*typed(without, rg), contains="needs its Objective Hex: --objective HEX (8.6198)")
        kgp.ok(*typed(with_hex, rg))
    kgp.ok(*typed(without, "V1"))
    bought = {r["id"]: r["objective"] for r in kgp.json("rg-record", "--side", "german")}
    assert bought == {"I2": "StJ19", "HW1": "StJ19", "V1": None}, bought


def test_a_system_without_objective_hexes_offers_one_purchase_line(rr):
    """RR 2.518: RG are bought for no Map Group and with no Objective Hex: one line, which `buy` accepts."""
    rr.to("2.518")
    buys = [m["command"] for m in rr.json("status")["may"] if m["command"].startswith("cgledger buy")]
    assert buys == ["cgledger buy RG_ID --side german|canadian"], buys
    assert "--objective" not in rr.ok("status").stdout


def test_once_one_side_holds_a_key_a_ledger_without_it_is_offered_the_other_sides_acts_only(make_db):
    """CGS: the German set up his key; the Russian's ledger, his own key not set up yet, records unsigned acts, which
    only the side without a key may record: its rolls are offered for the Russian side, not `--side german|russian`
    (the German's would be refused for want of his signature)."""
    from conftest import Player

    cli = conftest.Cli(make_db())
    cli.ok("new", "T", "--system", "cgs", "--cg", "CGS")
    Player(cli.db, "Peiper's own words").ok("keys", "init", "--side", "german")
    rolls = [m["command"] for m in cli.json("status")["may"] if m["command"].startswith("cgledger roll")]
    assert rolls and all("--side russian" in line for line in rolls), rolls
    searching = next(line for line in rolls if "7.4.5" in line)  # no hex asked: rolled as offered, unsigned
    cli.ok(*searching.split()[1:], "--dice", "3")


def test_a_walk_the_other_sides_missing_key_refuses_is_not_offered(make_db):
    """RR: the German keyed, the Canadian not yet. A walk that would take the Canadian past its own acts is refused
    ("the Canadian side holds no key yet"), so the German's bought RG's follow-ups (in 2.519, past 2.518 where the
    Canadian may still buy) are not offered as his next act until the Canadian's key is set up."""
    from conftest import Player

    db = make_db()
    german = Player(db, "granite lantern orbit velvet 47")
    german.ok("new", "X", "--system", "rr", "--cg", "RR", "--start-cpp", "german=40", "--start-cpp", "canadian=30")
    german.ok("keys", "init", "--side", "german")
    german.ok("buy", "I2", "--side", "german")
    for act in german.json("status")["next_acts"]:
        if act.get("command"):
            german.ok(*act["command"].split()[1:])  # whatever is offered is accepted
