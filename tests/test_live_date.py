"""Live play on one shared store with both players' `cgledger serve` running (a shared PostgreSQL in its CI pass, one
SQLite file otherwise): KGP CG I from the set-up through 19 PM, a German Assault with fair dice, Secret rolls,
secret purchases, their follow-ups and sealed chits. Each player types only his own acts, at his own machine with his
own key; the servers carry out every duty of the protocol the moment the log moves (the other side's fair rolls
answered, the side's own Secret rolls made, its chit revealed). So no act waits for the other player to type
anything: each act is accepted when its player makes it once the log has settled, and nobody types `answer`. How long
the servers took to settle after each act is printed (measured, never asserted)."""

from __future__ import annotations

import statistics
import time

import pytest

from conftest import Player
from test_email_campaign import CHART, GERMAN, MAP, US
from web_play import Server


class Live:
    """Both players at one shared store, each with his server running; every act counted, and the time the servers
    took to settle after it."""

    def __init__(self, db):
        self.db = db
        self.german, self.us = Player(db, GERMAN), Player(db, US)
        self.acts = {"german": 0, "us": 0}
        self.settled: list[float] = []
        self.servers: list[Server] = []

    def act(self, side: str, *args: str):
        self.acts[side] += 1
        result = getattr(self, side).ok(*args)
        if self.servers:
            self.settled.append(self.settle(f"{side}: {' '.join(args)}"))
        return result

    def settle(self, after: str, timeout: float = 60) -> float:
        """Seconds until neither side's ledger owes the protocol anything: its servers did it, nobody typed."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if not self.owed():
                return time.monotonic() - start
            time.sleep(0.05)
        pytest.fail(f"after {after}, the servers did not carry out the protocol's duties in {timeout} s: "
                    f"{self.owed()} still owe(s)")

    def owed(self) -> list[str]:
        from cgledger.ledger.application import open_ledger
        from cgledger.ledger.decide import fair

        ledger = open_ledger(str(self.db))
        try:
            state = ledger.campaign(None)
            rules = ledger.rules_for(state)
        finally:
            ledger.close()
        owing = [side for side in rules.system.sides if fair.owed_by(state, rules, side)]
        chits = state.sealed_chits
        if len(chits) == len(rules.system.sides) and not all(c["chit"] for c in chits.values()):
            owing.append("a sealed chit")
        return owing


def test_a_whole_cg_date_live_needs_no_waiting_for_the_other_player(make_db):
    live = Live(make_db())
    g, u = "german", "us"
    # ---- set-up, both at their own machines on the shared store: no server yet ---------------------------------
    live.act(g, "new", "CG I", "--system", "kgp", "--cg", "I", "--start-cpp", "german=20", "--start-cpp", "us=12")
    live.act(g, "keys", "init", "--side", "german")
    live.act(g, "rules", "load", str(CHART))
    live.act(u, "accept")
    live.act(u, "keys", "init", "--side", "us")
    live.act(u, "rules", "load", str(MAP))
    live.act(g, "accept")
    live.servers = [Server(live.db, GERMAN), Server(live.db, US)]
    try:
        # ---- 19 AM, the Initial Scenario ------------------------------------------------------------------------
        live.act(g, "step", "scenario")
        live.act(u, "step", "scenario")
        live.act(u, "roll", "KGP3", "--side", "us", "--dice", "3,4")
        live.act(g, "witness", "--all")
        live.act(u, "scenario-end", "--lvp", "german=10", "--lvp", "us=8", "--winner", "german")
        live.act(u, "roll", "8.6113", "--side", "us")  # each side's Secret DR: its server makes it once answered
        live.act(g, "roll", "8.6113", "--side", "german")
        live.act(u, "step", "8.616")
        live.act(g, "step", "8.616")  # both at the door: this enters 19 PM
        assert live.german.json("status")["cg_date"] == "19 PM"
        # ---- 19 PM: Secret CPP rolls, secret purchases and their follow-ups, sealed chits, a German Assault -----
        live.act(g, "roll", "8.616", "--side", "german")
        live.act(u, "roll", "8.616", "--side", "us")
        bought = live.act(g, "buy", "V1", "--side", "german", "--map-group", "St", "--objective", "StJ19",
                          "--follow-ups")
        assert "no follow-up roll made now" not in bought.stderr, bought.stderr  # not even while its server answers
        bought = live.act(u, "buy", "I1", "--side", "us", "--map-group", "St", "--objective", "StK17", "--follow-ups")
        assert "no follow-up roll made now" not in bought.stderr, bought.stderr
        live.act(g, "initiative", "--chit", "german=attack")
        live.act(u, "initiative", "--chit", "us=idle")  # both sealed: the servers reveal them
        assert live.us.json("status")["scenario"] == "German Assault"
        live.act(g, "step", "scenario")
        live.act(u, "step", "scenario")
        assert live.german.json("status")["step"] == "scenario"
        live.act(u, "control", "StK17", "--side", "us")
        live.act(g, "scenario-end", "--lvp", "german=12", "--lvp", "us=8")
        live.act(g, "roll", "8.6113", "--side", "german")
        live.act(u, "roll", "8.6113", "--side", "us")
        live.act(g, "step", "8.616")
        live.act(u, "step", "8.616")
        assert live.german.json("status")["cg_date"] == "19 N"
    finally:
        for server in live.servers:
            server.stop()
    authors = {r["author"] for r in live.german.json("log") if r["type"] in ("RollAnswered", "SecretRollMade")}
    assert authors == {"german", "us"}, authors  # each side's duties, carried out by its own server
    for player in (live.german, live.us):
        assert player("audit").exit_code == 0
    print({"acts": live.acts, "settled_median_s": round(statistics.median(live.settled), 2),
           "settled_max_s": round(max(live.settled), 2)})


def test_a_verb_is_decided_again_only_over_what_a_ledger_records_by_itself():
    """Live, a player's act may meet the other side's server recording first: over its answers, Secret rolls made,
    lapses, values published, chits revealed and chains the act is decided again as the log now stands (as the player
    would by typing it again); over the other player's own act (a roll, a purchase, a step), never: he is told, and
    may choose again."""
    from cgledger.ledger.domain.authorship import ledger_records
    from cgledger.ledger.domain.events import (
        ChitRevealed, DiceRolled, InitiativeChosen, RGPurchaseSealed, RollAnswered, RollDeclared, RollLapsed,
        SecretRollMade,
    )

    answer = RollAnswered(action=7, declared=5, side="us", n=1, value="ab")
    made = SecretRollMade(action=8, table="8.616", rule="8.616", side="german", die="DR", fair=1, commitment="c",
                          sealed="s")
    typed = SecretRollMade(action=8, table="8.616", rule="8.616", side="german", die="DR", commitment="c", sealed="s")
    dice = DiceRolled(action=7, table="KGP3", rule="KGP3", side="german", die="DR", dice=(3, 4), source="fair",
                      original=7, final=7, result="7")
    chit = ChitRevealed(action=9, side="us", chit="idle", salt="x")
    matrix = InitiativeChosen(action=9, chits={"german": "attack", "us": "idle"}, scenario="German Assault")
    assert ledger_records([answer, dice, made, RollLapsed(action=10, declared=6, side="us"), chit, matrix])
    assert not ledger_records([answer, RollDeclared(action=8, table="8.616", side="us", n=2)])
    assert not ledger_records([typed])  # a Secret roll typed by its player
    assert not ledger_records([RGPurchaseSealed(action=8, side="us", cg_date="19 PM", commitment="c", sealed="s")])
    assert not ledger_records([])
