"""KGP CG I played by email as two players would, each at his own machine with his own SQLite file and
passphrase, fair dice (the default), secret purchases, sealed chits and a take-back: a scenario, an Idle Day and a
Dual Attack over four CG Dates. Every command either player types is counted per CG Date, and every email (one
`send`, one `receive`); for a CG Date with a scenario, at most 2 emails and 15 commands per side. Both heads end equal and `audit --final` is clean on both sides."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import Player

GERMAN, US = "Peiper's own words", "Harrison's own words"
CHART = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
MAP = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"
EMAILS_PER_SIDE, COMMANDS_PER_SIDE = 2, 15
SHIM = False  # for a CG Date with a scenario


class Desk(Player):
    """One player at his own machine: his own database and passphrase; every command he types is counted against the
    CG Date being played, every `send` is one email."""

    def __init__(self, db: Path, passphrase: str, side: str, table: "Table"):
        super().__init__(db, passphrase)
        self.side, self.table, self.inbox = side, table, []

    fair_seed = ""  # this desk's fair chains drawn from it (a play that replays exactly), else from the OS

    def __call__(self, *args: str, db: bool = True):
        import os

        if args and args[0] not in ("status", "head", "audit", "log"):  # reads a player need not type
            self.table.commands[(self.table.date, self.side)] += 1
        if not self.fair_seed:
            return super().__call__(*args, db=db)
        os.environ["CGLEDGER_FAIR_SEED"] = f"{self.fair_seed}:{self.side}"
        try:
            return super().__call__(*args, db=db)
        finally:
            os.environ.pop("CGLEDGER_FAIR_SEED", None)

    def send(self, other: "Desk") -> dict:
        self.table.emails[(self.table.date, self.side)] += 1
        path = self.table.mail / f"{len(list(self.table.mail.iterdir())) + 1:03d}-{self.side}.json"
        if SHIM:
            self.ok("export", "--since", other.ok("head").stdout.strip() if other.db.exists() else "0", str(path))
            sent = {}
        else:
            sent = json.loads(self.ok("send", str(path), "--json").stdout)
        other.inbox.append(path)
        return sent

    def receive(self) -> list[dict]:
        if SHIM:
            got = [self.ok("import", str(path)) and self.ok("answer") and {} for path in self.inbox]
            self.inbox = []
            return got
        got = [json.loads(self.ok("receive", str(path), "--json").stdout) for path in self.inbox]
        self.inbox = []
        return got

    def me(self) -> dict:
        status = self.json("status")
        return {"status": status, "at": status["progress"][self.side]["step"] if status.get("progress")
                else status["step"]}


class Table:
    def __init__(self, tmp_path: Path, other: str = "us"):
        self.mail = tmp_path / "mail"
        self.mail.mkdir()
        self.date = "set-up"
        self.commands: Counter = Counter()
        self.emails: Counter = Counter()
        self.sides = ("german", other)
        self.german = Desk(tmp_path / "german.db", GERMAN, "german", self)
        setattr(self, other, Desk(tmp_path / f"{other}.db", US, other, self))

    def per_date(self) -> dict:
        dates = sorted({d for d, _ in self.commands} | {d for d, _ in self.emails}, key=list(self.order).index)
        return {d: {s: {"emails": self.emails[(d, s)], "commands": self.commands[(d, s)]} for s in self.sides}
                for d in dates}

    order = ("set-up", "19 AM", "19 PM", "19 N", "20 AM")

    def keyed(self, *new: str) -> None:
        """The German starts the campaign (`new` its arguments) and sets up his key; the other side his, by email."""
        g, other = self.german, getattr(self, self.sides[1])
        g.ok("new", *new)
        g.ok("keys", "init", "--side", "german")
        g.send(other)
        other.receive()
        other.ok("keys", "init", "--side", other.side)
        other.send(g)
        g.receive()


@pytest.mark.sqlite_only
def test_kgp_cg_i_by_email_within_the_targets(tmp_path):
    t = play_by_email(tmp_path)
    g, u = t.german, t.us
    assert g.ok("head").stdout == u.ok("head").stdout
    for desk in (g, u):
        result = desk("audit", "--final")
        assert result.exit_code == 0, result.stdout
    words_for_players(g, u)
    figures = t.per_date()
    print(json.dumps(figures, indent=1))
    for date in ("19 PM", "20 AM"):  # the CG Dates with a scenario after the Initial one
        for side in ("german", "us"):
            assert figures[date][side]["emails"] <= EMAILS_PER_SIDE, (date, side, figures[date])
            assert figures[date][side]["commands"] <= COMMANDS_PER_SIDE, (date, side, figures[date])


def play_by_email(tmp_path: Path) -> Table:
    """KGP CG I from 19 AM through 20 AM by email, both sides with keys and fair dice: the two desks at the end,
    everything revealed and sent (tests/test_any_field.py forges its facts too)."""
    t = Table(tmp_path)
    g, u = t.german, t.us
    # ---- set-up: the German starts the campaign, both set up keys (fingerprints compared once by phone) --------
    g.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("keys", "init", "--side", "german")
    g.ok("rules", "load", str(CHART))  # both sides' RG charts: a rules file is proposed, the other side accepts
    g.send(u)
    u.receive()
    u.ok("accept")
    u.ok("keys", "init", "--side", "us")
    u.ok("rules", "load", str(MAP))  # the Stoumont Map Group's Locations, proposed in turn
    u.send(g)
    g.receive()
    g.ok("accept")

    # ---- 19 AM, the Initial Scenario: the German is done with the † steps; the U.S. enters the scenario with him
    t.date = "19 AM"
    g.ok("step", "scenario")
    g.send(u)
    u.receive()
    u.ok("step", "scenario")
    assert u.me()["status"]["step"] == "scenario"
    u.ok("roll", "KGP3", "--side", "us", "--dice", "3,4")  # at the table, in VASL: the dice of play
    u.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    u.ok("roll", "8.6113", "--side", "us")  # 8.611: his Secret Battle Hardening DR (fair dice: declared)
    u.ok("step", "8.616")  # the U.S. walks its part of the RePh up to the new CG Date, which both enter together
    u.send(g)

    # ---- 19 PM: German Assault; both buy in secret; the U.S. takes back its own Control typo before sending ----
    t.date = "19 PM"
    g.receive()
    g.ok("witness", "--all")  # the KGP3 dice the U.S. typed: the German saw them rolled in VASL
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")  # Secret: declared, the U.S. ledger answers
    g.ok("buy", "V1", "--side", "german", "--map-group", "St", "--objective", "StJ19",  # sealed
         "--follow-ups")  # his last purchase: then 8.6201 and 8.6206/armor, in the same command
    g.ok("initiative", "--chit", "german=attack")
    g.send(u)

    u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.ok("buy", "I1", "--side", "us", "--map-group", "St", "--objective", "StK17", "--follow-ups")  # 8.6202, 8.6206/us
    u.ok("initiative", "--chit", "us=idle")  # the second chit sealed is revealed at once
    u.send(g)

    got = g.receive()[0]  # his Secret rolls made, the U.S. rolls answered, his chit revealed: a German Assault
    assert g.me()["status"]["scenario"] == "German Assault"
    mine = {r["table"]: r for r in got["results"]}  # he sees his own Secret results the moment his ledger makes them
    assert {"8.616", "8.6201"} <= set(mine) and mine["8.616"]["secret"] and mine["8.616"]["final"] is not None
    assert [a for a in got["acts"] if "us" != a["side"]] == []  # the acts listed are the U.S. side's
    g.ok("step", "scenario")
    g.send(u)

    theirs = u.receive()[0]
    assert not [r for r in theirs["results"] if r["side"] == "german"]  # the German Secret results stay sealed
    assert "8.616" not in u.ok("rg-record", "--side", "german").stdout
    u.ok("step", "scenario")
    u.ok("control", "StJ19", "--side", "us")  # a typo: the German still holds StJ19
    undone = u.json("undo", "--reason", "typo: StJ19 is still German")  # alone: the German has not received it
    assert "undone" in undone and "proposed" not in undone, undone
    u.ok("control", "StK17", "--side", "us")
    u.ok("scenario-end", "--lvp", "german=12", "--lvp", "us=8")
    u.ok("roll", "8.6113", "--side", "us")
    u.ok("step", "8.616")
    u.send(g)

    # ---- 19 N: an Idle Day (both chits Idle): the RePh repeats from 8.612 (8.6232 note 2) ------------------------
    t.date = "19 N"
    g.receive()
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.ok("initiative", "--chit", "german=idle")
    g.send(u)
    u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.ok("initiative", "--chit", "us=idle")
    u.send(g)
    g.receive()  # his chit revealed: an Idle Day
    assert g.me()["status"]["scenario"] == "Idle Day"
    g.ok("step", "8.616")  # he waits at the door of the next CG Date: the U.S. Secret roll is made on its side first
    g.send(u)

    # ---- 20 AM: a Dual Attack; 8.6233a and 8.625 are rolled at the table, where the scenario is set up ----------
    t.date = "20 AM"
    u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.ok("initiative", "--chit", "us=attack")
    u.send(g)
    g.receive()
    g.ok("roll", "8.616", "--side", "german")
    g.ok("roll", "8.618", "--side", "german")  # Ammunition Shortage, from 20 AM
    g.ok("initiative", "--chit", "german=attack")
    g.send(u)
    u.receive()  # the U.S. chit revealed: a Dual Attack
    assert u.me()["status"]["scenario"] == "Dual Attack"
    u.ok("roll", "8.6233a", "--side", "us", "--dice", "4")
    u.refused("roll", "8.625", "--side", "us", "--dice", "3", contains="once both sides stand in 8.625")
    u.ok("step", "8.625")  # his setup done: the side moving first is determined once all setup is (8.6233a)
    u.send(g)
    g.receive()
    g.ok("witness", "--all")  # the 8.6233a dr the U.S. typed
    g.ok("step", "8.625")
    g.ok("roll", "8.625", "--side", "german", "--dice", "3")
    g.ok("step", "scenario")  # both sides done up to it: the scenario begins
    assert g.me()["status"]["step"] == "scenario"
    g.ok("scenario-end", "--lvp", "german=12", "--lvp", "us=10")
    g.ok("roll", "8.6113", "--side", "german")
    g.ok("step", "8.616")
    g.send(u)
    u.receive()
    u.ok("witness", "--all")  # the 8.625 dr the German typed

    # ---- the end: equal heads, a clean final audit on both sides (everything revealed first) -----------------
    t.date = "end"
    t.order = (*t.order, "end")
    u.send(g)  # strict turns: the U.S. mails the turn back (nothing new) so that the German may record again
    g.receive()
    for desk, other in ((g, u), (u, g)):
        desk.ok("reveal", "--all", "--side", desk.side)
        desk.send(other)
        other.receive()
    return t


@pytest.mark.sqlite_only
def test_rr_by_email_within_the_targets(tmp_path):
    """RR from the set-up through 19 PM by email, secret purchases with fair dice: a Depleted German RG's SW drs
    (2.5192) are declared with its strength roll (2.5191), each made only if the strength is Depleted, so that its
    SW are known before the scenario without another exchange; at most 2 emails and 15 commands a side per CG Date."""
    t = Table(tmp_path, other="canadian")
    g, c = t.german, t.canadian
    g.fair_seed = c.fair_seed = "l"  # the German's I3 comes back Depleted, his V1 Full
    t.keyed("RR", "--system", "rr", "--cg", "RR", "--start-cpp", "german=40", "--start-cpp", "canadian=30")

    # ---- 19 AM, the Initial Scenario: both buy in secret; every follow-up declared with the last purchase --------
    t.date = "19 AM"
    g.ok("buy", "I3", "--side", "german")
    bought = g.json("buy", "V1", "--side", "german", "--follow-ups")
    declared = [(r["table"], r["if_result"]) for r in bought["follow_ups"]]
    assert declared == [("2.5191", None), ("2.5191", None), ("2.5192", "D"), ("2.5192", "D"), ("2.5192", "D")], declared
    g.send(c)
    c.receive()
    c.ok("buy", "I1", "--side", "canadian", "--follow-ups")
    c.ok("step", "scenario")  # done up to the scenario: entered once both sides' rolls are made
    c.send(g)
    made = [(r["table"], r["result"]) for got in g.receive() for r in got["results"]]
    assert made == [("2.5191", "Depleted"), ("2.5191", "Full"), ("2.5192", "SW received"), ("2.5192", "SW forfeit"),
                    ("2.5192", "SW received")], made  # his SW known before the scenario, in this one exchange
    g.ok("step", "scenario")
    g.send(c)
    c.receive()  # his own strengths made (Full: his I1's SW drs lapse)
    c.ok("step", "scenario")
    assert c.me()["status"]["step"] == "scenario"
    c.ok("scenario-end", "--lvp", "german=5", "--lvp", "canadian=7")
    c.ok("step", "2.516")  # his part of the RePh, up to the door of 19 PM
    c.send(g)

    # ---- 19 PM: CPP Replenishment, Secret purchases and chits in one email a side; the scenario in the next -----
    t.date = "19 PM"
    g.receive()
    g.ok("step", "2.516")  # both enter 19 PM
    g.ok("roll", "2.516", "--side", "german")  # CPP Replenishment: declared, the Canadian ledger answers
    g.ok("buy", "M2", "--side", "german", "--follow-ups")  # a Sniper: no follow-up roll
    g.ok("initiative", "--chit", "german=attack")
    g.send(c)
    c.receive()
    c.ok("roll", "2.516", "--side", "canadian")
    c.ok("buy", "G2", "--side", "canadian", "--follow-ups")
    c.ok("initiative", "--chit", "canadian=idle")
    c.send(g)
    g.receive()
    assert g.me()["status"]["scenario"] == "German Assault"
    g.ok("step", "scenario")
    g.send(c)
    c.receive()
    c.ok("step", "scenario")
    assert c.me()["status"]["step"] == "scenario"
    c.ok("scenario-end", "--lvp", "german=6", "--lvp", "canadian=9")
    c.ok("step", "2.516")
    c.send(g)
    g.receive()

    t.date = "end"
    t.order = (*t.order, "end")
    for desk, other in ((g, c), (c, g)):
        desk.ok("reveal", "--all", "--side", desk.side)
        desk.send(other)
        other.receive()
    assert g.ok("head").stdout == c.ok("head").stdout
    for desk in (g, c):
        result = desk("audit", "--final")
        assert result.exit_code == 0, result.stdout
    figures = t.per_date()
    print(json.dumps(figures, indent=1))
    for date in ("19 AM", "19 PM"):
        for side in t.sides:
            assert figures[date][side]["emails"] <= EMAILS_PER_SIDE, (date, side, figures[date])
            assert figures[date][side]["commands"] <= COMMANDS_PER_SIDE, (date, side, figures[date])


def battle_hardening(g: Desk, u: Desk) -> None:
    """8.6113: the German's Secret DR, declared after the U.S. declared his with the scenario's end. Both are decided
    as of the CG Date they were declared on, so the campaign enters the next one before their dice come: each
    side's ledger makes its own once the other's answer arrives, in a turn mailed anyway."""
    g.ok("roll", "8.6113", "--side", "german")


def words_for_players(*desks: Desk) -> None:
    """no internal event name, `None` or Python dict in any text a player reads (found by email:
    `undo of RGPurchaseSealed`, `CPP spent None`, `LVP {'german': 21, 'us': 8}`)."""
    import re

    from cgledger.ledger.domain.events import TAGS

    names = re.compile(r"\b(" + "|".join(sorted(TAGS.values(), key=len, reverse=True)) + r"|None)\b|\{'")
    for desk in desks:
        for args in (("log",), ("history",), ("status",), ("roster", "--side", "german"), ("roster", "--side", "us"),
                     ("rg-record", "--side", "german"), ("rg-record", "--side", "us"), ("dice-stats",), ("audit",)):
            text = Player.__call__(desk, *args).stdout
            found = names.search(text)
            assert found is None, (desk.side, args, found.group(0), text[max(0, found.start() - 200):found.end() + 80])


@pytest.mark.sqlite_only
def test_the_dual_attack_dr_waits_for_the_setup_order_and_one_side_declared_is_no_longer_the_others(tmp_path):
    """8.6233a and 8.625: who moves first is determined only once all setup is complete, and setup needs the setup
    order: a side enters 8.625 (its setup done) only once the 8.6233a dr has its result (fair dice: it comes with the
    other side's answer), and the first-move dr waits for it too. One dr per Dual Attack, by either side: once the
    U.S. declared it, neither side's `status` shows the German as still owing it."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.ok("initiative", "--chit", "german=attack")
    g.send(u), u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.ok("initiative", "--chit", "us=attack")
    u.send(g), g.receive()  # his chit revealed: a Dual Attack; the setup order is the U.S. dr's
    g.refused("step", "8.625", contains="8.625 Scenario Commencement is entered once all setup is complete, and the "
                                        "setup order is not known yet: the roll on 8.6233a has no result (not rolled "
                                        "yet) (8.6233a)")
    g.send(u), u.receive()  # the turn mailed back with his receipt
    u.ok("roll", "8.6233a", "--side", "us")  # declared: its dice come with the German answer
    act, = u.json("status")["next_acts"]
    assert act["command"] is None and "the setup order is not known yet (the roll on 8.6233a" in act["text"], act
    u.refused("step", "8.625", contains="the setup order is not known yet")
    u.refused("roll", "8.625", "--side", "us", contains="8.625")
    u.send(g), g.receive()  # the German ledger answers: the setup order is known to both
    g.ok("step", "8.625")  # his setup done
    g.send(u), u.receive()
    u.ok("step", "8.625")  # both stand in 8.625, all setup complete
    u.ok("roll", "8.625", "--side", "us")  # declared: its dice come with the German answer
    assert "a roll on 8.625" not in u.ok("status").stdout
    assert "waits for the German side's answer" in u.ok("status").stdout
    u.send(g), g.receive()
    status = g.json("status")
    assert not [c for n in status["needs"] for c in n["commands"] if "8.625" in c], status["needs"]
    assert not [m for m in status["may"] if "8.625" in m["command"]], status["may"]
    g.refused("roll", "8.625", "--side", "german", contains="8.625")


def to_19_pm(tmp_path: Path) -> tuple[Desk, Desk]:
    """Both keyed, the German's RG chart accepted, the Initial Scenario played: the German's turn at 19 PM."""
    t = Table(tmp_path)
    g, u = t.german, t.us
    g.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("keys", "init", "--side", "german")
    g.ok("rules", "load", str(CHART))
    g.send(u), u.receive()
    u.ok("accept")
    u.ok("keys", "init", "--side", "us")
    u.send(g), g.receive()
    g.ok("step", "scenario")
    g.send(u), u.receive()
    u.ok("step", "scenario")
    u.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    u.ok("roll", "8.6113", "--side", "us")
    u.ok("step", "8.616")
    u.send(g), g.receive()
    return g, u


@pytest.mark.sqlite_only
def test_a_next_act_past_the_recon_step_says_the_recon_dr_is_given_up(tmp_path):
    """8.622: each side may buy a Recon dr with CPP; a next act that walks past the step names it, as it names the
    other optional rolls a walk gives up."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--follow-ups")
    act = g.json("status")["next_acts"][0]
    assert act["step"] == "8.623" and "passing 8.622's Recon dr: optional, given up once passed" in act["text"], act
    g.ok("roll", "8.622", "--side", "german")  # the dr bought: nothing passed any more
    assert "passing" not in g.json("status")["next_acts"][0]["text"]


@pytest.mark.sqlite_only
def test_a_side_that_bought_before_its_replenishment_came_is_told_its_next_act_ends_its_purchases(tmp_path):
    """8.616 comes before 8.619: a German who bought an RG with the CPP he held while his CPP Replenishment's dice
    still come with the U.S. answer is offered its follow-ups (no round trip more), told that they end this CG
    Date's purchases before those CPP come (they carry over); once they came, the same act says nothing of it."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.ok("step", "8.619")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    act, = g.json("status")["next_acts"]
    assert act["step"] == "8.620" and act["command"] == "cgledger follow-ups --side german --rg I2#1", act
    assert "it ends this CG Date's purchases (8.619) before your CPP Replenishment comes" in act["text"], act
    g.send(u), u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.send(g), g.receive()  # his CPP came: what he holds still buys an RG, and the act says it ends his purchases
    status = g.json("status")
    act, = status["next_acts"]
    assert act["step"] == "8.620" and "Replenishment" not in act["text"], act
    assert f"it ends this CG Date's purchases (8.619): your {status['cpp']['german']} CPP left carry over" \
        in act["text"], act


@pytest.mark.sqlite_only
def test_the_other_sides_cpp_are_shown_before_its_secret_replenishment(tmp_path):
    """8.616: each side's CPP Replenishment is Secret. The other side's CPP in `status` are its public books, before
    what its sealed rolls gave (a Recon paid in the open took them below 0 and read as debt): said so, counted."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.send(u), u.receive()
    assert u.json("status")["cpp_before_secret"] == {"german": 1}
    assert "CPP: German 20 + its Secret CPP Replenishment, U.S. 12;" in u.ok("status").stdout
    u.ok("roll", "8.616", "--side", "us")
    u.send(g), g.receive()
    status = g.json("status")
    assert status["cpp_before_secret"] == {"us": 1} and status["cpp"]["german"] > 20  # his own counts his own


@pytest.mark.sqlite_only
def test_a_side_whose_cpp_buy_no_rg_is_not_said_to_buy_in_the_rg_step(tmp_path):
    """RR 2.518: a side with 0 CPP buys nothing (2.5184): the campaign waits in 2.518 for its walk on all the same
    (each side leaves its purchase step itself), but `status` no longer says it may still buy."""
    t = Table(tmp_path, other="canadian")
    g, c = t.german, t.canadian
    t.keyed("RR", "--system", "rr", "--cg", "RR", "--start-cpp", "german=40")
    status = g.json("status")  # 19 AM, the Initial Scenario: both in 2.518
    canadian = status["progress"]["canadian"]
    assert (canadian["may"], canadian["goes_on"]) == (None, "its CPP buy no RG of its chart"), status["progress"]
    assert status["progress"]["german"]["may"] == "buy Reinforcement Groups", status["progress"]
    assert "the campaign waits here for you to go on (your CPP buy no RG of your chart)" in c.ok("status").stdout


@pytest.mark.sqlite_only
def test_a_player_whose_proposal_waits_is_led_to_mail_it_not_to_let_it_lapse(tmp_path):
    """A proposal waits for the other side's answer as the last act of the turn mailed: the U.S., his map file just
    proposed, was told "next for you: step 8.619", which let it lapse. His next act is now mailing it; and a file
    still wanted is offered once the proposal open is answered."""
    t = Table(tmp_path)
    g, u = t.german, t.us
    g.ok("new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("keys", "init", "--side", "german")
    g.ok("rules", "load", str(CHART))
    wanted = {f["what"]: f for f in g.json("status")["files_wanted"]}
    assert wanted["rg_chart"]["command"] is None and "proposed" in wanted["rg_chart"]["text"], wanted  # the one open
    assert wanted["map"]["command"].endswith("once the proposal open now is answered"), wanted
    g.send(u), u.receive()
    u.ok("accept")
    u.ok("keys", "init", "--side", "us")
    u.ok("rules", "load", str(MAP))
    act, = u.json("status")["next_acts"]
    assert act["effect"] == "proposal" and "mail it (`cgledger send`)" in act["text"], act
    u.send(g), g.receive()
    assert g.json("status")["proposal"]["yours"]


@pytest.mark.sqlite_only
def test_the_walk_out_of_a_step_names_its_optional_rolls_left_unmade(tmp_path):
    """8.6114: each side makes one Secret DR on the Leader Battle Hardening Table, unless it creates a 7-0 (8.6115)
    or retains no leader, which the ledger cannot know: offered, not needed. The next act that walks the U.S. out of
    8.611 says it gives that roll up; once made, it says nothing of it."""
    t = Table(tmp_path)
    g, u = t.german, t.us
    t.keyed("CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    g.ok("step", "scenario")
    g.send(u), u.receive()
    u.ok("step", "scenario")
    u.ok("scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
    u.ok("roll", "8.6113", "--side", "us")
    act = u.json("status")["next_acts"][0]
    assert "passing 8.611's Leader Battle Hardening Table" in act["text"], act
    # the walk up to the door of 19 PM passes nothing beyond it: the new date's steps are not given up by it
    assert act["command"] == "cgledger step 8.612" and "8.612's" not in act["text"] and "8.613" not in act["text"], act
    u.ok("roll", "8.6114", "--side", "us")
    assert "Leader Battle Hardening" not in u.json("status")["next_acts"][0]["text"]


@pytest.mark.sqlite_only
def test_a_next_act_into_the_new_cg_date_names_the_san_dr_it_passes(tmp_path):
    """8.6122 (RR 2.5122): a SAN dr is needed of a side whose SAN is at least 4 (5), which the log knows only from
    that side's last SAN dr: where it does not, the roll is offered, and a next act that walks past 8.612 says that
    it gives it up (the player knows his SAN), as it names the other optional rolls of the steps it passes."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    act = g.json("status")["next_acts"][0]
    assert act["step"] == "8.616" and "8.612's SAN Adjustment dr;" in act["text"], act


@pytest.mark.sqlite_only
def test_a_walk_past_the_fortification_step_says_nothing_of_it_to_a_side_without_fpp(tmp_path):
    """8.621: Fortifications are bought with FPP. A German who bought no FPP and walks on from 8.620 past 8.621 was
    told its "Fortification purchases (8.621) are over this CG Date": nothing was ever his to buy there."""
    g, u = to_19_pm(tmp_path)
    battle_hardening(g, u)
    g.ok("roll", "8.616", "--side", "german")
    g.send(u), u.receive()
    u.ok("roll", "8.616", "--side", "us")
    u.send(g), g.receive()
    g.ok("step", "8.619")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--follow-ups")
    said = g.ok("initiative", "--chit", "german=attack").stderr
    assert "walked on to 8.623" in said and "Fortification purchases" not in said, said
