"""Random two-player play (Hypothesis stateful): KGP, RR and CGS played by email as two players, each with his own
store and key, each act one that his side's `status --json` offers, bundles sent and received at random moments.
After every step: once both sides hold keys, no line offered to a player names the other side's act; an offered
act is accepted when run at once; while the campaign is not over some side can act or
has something to send (no deadlock); after an exchange both heads are equal. At the end, both sides caught up:
`audit` is clean on both. A player whose status offers him nothing (the other side's move) leaves the act to the
other player, so a play gets through CG Dates (and CGS firefights) with purchases, Fortifications and placements.

Derandomized with a fixed example count here; bench/bench_random_play.py plays longer and with fresh seeds."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import conftest
from two_players import (GAMES, Desk, Filler, Refused, actions_without_command, choose, lock_agents, offers,
                         others_offered, start)

EXAMPLES = int(os.environ.get("CGLEDGER_RANDOM_EXAMPLES", "4"))
STEPS = int(os.environ.get("CGLEDGER_RANDOM_STEPS", "150"))
FRESH = bool(os.environ.get("CGLEDGER_RANDOM_FRESH"))  # new plays each run (bench/bench_random_play.py), not CI's fixed ones
# shrinking replays the whole game many times over: on only where asked (the failing play is printed either way)
PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if os.environ.get("CGLEDGER_RANDOM_SHRINK")
                                                          else [])


class TwoPlayers(RuleBasedStateMachine):
    """Two desks by email; `game` is set by the subclass per system."""

    game = "kgp"
    shared = False  # both players live on one store (no mail): the subclass per system says

    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="cgl-random-"))
        self.made: list[str] = []
        self.desks: dict = {}
        self.sides = list(GAMES[self.game][2])
        self.acts = 0
        self.steps = 0  # the rule's draws are turned by the step's number: see `play`
        self.trace: list[str] = ["both players set up their keys and rules files"]
        self.rolls_taken_back = False

    @initialize(seed=st.integers(0, 10**9))
    def set_up(self, seed: int) -> None:
        """Both players set up; the fair dice replay too (each side's chains drawn from a text of this play's own):
        a failing play is the same play when it is run again."""
        dbs = []
        for side in self.sides:
            if self.shared and dbs:
                dbs.append(dbs[0])  # the other player at his own machine, on the same store
            elif conftest.BACKEND == "postgres":
                self.made.append(conftest.pg_create())
                dbs.append(self.made[-1])
            else:
                dbs.append(self.folder / f"{side}.db")
        # live, each player keeps his key in his agent for the session (`keys unlock`); by email every command
        # stretches his passphrase
        self.desks, self.post = start(self.game, dbs, self.folder, fair_seed="" if FRESH else f"{self.game} {seed}",
                                      agents=self.shared)

    def teardown(self):
        if os.environ.get("CGLEDGER_RANDOM_TRACE") and self.desks:
            status = next(iter(self.desks.values())).status()
            kinds = Counter(c.split()[0] for d in self.desks.values() for c in d.commands)
            print(f"{self.game}: {self.acts} acts, {self.post.count} emails, reached {status['cg_date']} {status['step']}"
                  f"; by kind: {', '.join(f'{k} {n}' for k, n in kinds.most_common())}")
        try:
            if self.desks:
                self._catch_up()
                heads = {s: d.ok("head").stdout for s, d in self.desks.items()}
                assert len(set(heads.values())) == 1, f"heads differ at the end: {heads}\n" + self.story()
                for side, desk in self.desks.items():
                    result = desk.run("audit", "--json")
                    findings = json.loads(result.stdout)["findings"]
                    # a roll taken back and made again with new dice is a re-roll the audit names (the player did it)
                    wrong = [f for f in findings if not (f["kind"] == "reroll" and self.rolls_taken_back)]
                    assert not wrong, f"audit on the {side} side:\n{result.stdout}\n" + self.story()
                    unkept = actions_without_command(desk.player.db)
                    assert not unkept, f"acts stored without their command on the {side} side: {unkept}\n" + self.story()
                self._reveal_everything()
        finally:
            lock_agents(self.desks)
            if not os.environ.get("CGLEDGER_RANDOM_KEEP"):  # the desks' stores kept to look into a failure
                shutil.rmtree(self.folder, ignore_errors=True)
            conftest.pg_drop(self.made)

    # ---- the email turn -------------------------------------------------------------------------------
    def other(self, desk: Desk) -> Desk:
        return next(d for d in self.desks.values() if d is not desk)

    def _send(self, desk: Desk) -> None:
        sent = self.post.send(desk)
        if sent["file"]:
            self.trace.append(f"{desk.side}: send (events {sent['from']}-{sent['to']})" if sent["events"]
                              else f"{desk.side}: send (the turn back, nothing new)")

    def _receive(self, desk: Desk) -> None:
        for got in self.post.receive(desk):
            self.trace.append(f"{desk.side}: receive: {got['imported']} new, duties "
                              + ", ".join(d["text"] for d in got["duties"]))
        other = self.other(desk)
        if desk.events() == other.events():
            assert desk.ok("head").stdout == other.ok("head").stdout, "heads differ after an exchange:\n" + self.story()

    def _catch_up(self) -> None:
        for _ in range(8):  # a turn mailed back carries its receipt: one more exchange to settle
            for desk in self.desks.values():
                if desk.inbox:
                    self._receive(desk)
            for desk in self.desks.values():
                self.send(desk)
            if not any(d.inbox for d in self.desks.values()):
                return

    def _reveal_everything(self) -> None:
        """Each side reveals every secret it holds (Secret rolls, secret purchases, hidden fortifications), as at
        campaign end: each is then decided again as it was made, and `audit --final` names nothing but what the
        play left pending (a fair roll not answered yet, dice not yet witnessed)."""
        for side, desk in self.desks.items():
            before = desk.events()
            result = desk.run("reveal", "--all", "--side", side)
            self.trace.append(f"{side}: reveal --all -> {result.exit_code} {(result.stdout + result.stderr).strip()[:160]}")
            if result.exit_code != 0:
                assert desk.events() == before, "a refused reveal wrote events"
            self.send(desk)
            self.receive(self.other(desk))
        self._catch_up()
        for side, desk in self.desks.items():
            result = desk.run("audit", "--final", "--json")
            findings = json.loads(result.stdout)["findings"]
            wrong = [f for f in findings if f["kind"] not in ("pending", "unwitnessed")
                     and not (f["kind"] == "reroll" and self.rolls_taken_back)]
            assert not wrong, f"audit --final after the reveals, on the {side} side:\n{result.stdout}\n" + self.story()

    def story(self) -> str:
        """The play so far, one line per act, for a failure's message."""
        return "    " + "\n    ".join(self.trace)

    def may_act(self, desk: Desk) -> bool:
        """A player reads his mail before he plays (the ledger keeps the rest of the turn-taking: a side that mailed
        its turn is offered nothing, and refused, until it has read the reply)."""
        return not desk.inbox

    # ---- the rules: one, whose first draw weighs what a player does next ------------------------------
    @rule(who=st.integers(0, 1), what=st.integers(0, 99), pick=st.integers(0, 10**6), seed=st.integers(0, 2**32))
    def play(self, who: int, what: int, pick: int, seed: int) -> None:
        # Hypothesis plays first the example whose every draw is 0: one player taking the first offer with the same
        # filler, 200 times (on CGS the same Control recorded again and again). Turned by the step's number, that
        # example is a varied play too; any other example stays as uniform as it was drawn
        self.steps += 1
        who, what = (who + self.steps) % 2, (what + 37 * self.steps) % 100
        pick, seed = pick + 7919 * self.steps, seed + self.steps
        desk = self.desks[self.sides[who]]
        if what < 70:  # he plays; where his status offers him nothing (the other side's move), the other plays
            if not self.act(desk, pick, seed):
                self.act(self.other(desk), pick, seed)
        elif what < 88:  # the turn passes: he mails everything, the other reads it
            self.send(desk)
            self.receive(self.other(desk))
        elif what < 92:
            self.send(desk)
        elif what < 97:
            self.receive(desk)
        else:
            self.take_back(desk)

    def act(self, desk: Desk, pick: int, seed: int) -> bool:
        """The player makes one of the acts his status offers him (False: it offers him none)."""
        self.receive(desk)  # a player reads his mail before he plays
        status = desk.status()
        strangers = others_offered(status, desk.side)
        if strangers:
            raise Refused(f"the {desk.side} player, his key given, is offered the other side's acts: {strangers}"
                          "\n  play so far:\n" + self.story())
        offered = offers(status, desk.side)
        if not offered:
            return False
        offer = choose(offered, pick)
        filler = Filler(self.game, desk, random.Random(seed))
        argv = filler.fill(offer.line)
        if argv is None:
            return True
        before = desk.events()
        result = desk.run(*argv)
        self.acts += 1
        self.trace.append(f"{desk.side}: {' '.join(argv)}  [{offer.where}: {offer.line}]")
        if result.exit_code != 0:
            assert desk.events() == before, ("a refusal wrote events", argv)
            if argv[0] == "buy" and _limit(result.stderr):
                return True  # the RG the player chose is over a limit his chart shows: his choice, not the offer's
            if argv[0] == "fortify" and any(w in result.stderr for w in ("FPP", "may get as many")):
                return True  # more than his FPP or his Setup Area's squads allow: his choice of item and count
            if argv[0] == "place" and re.search(r"no [\w '-]+ in |goes only in", result.stderr):
                return True  # terrain the item may not go in (7.1-7.6): his choice of hex
            if argv[0] == "control" and "already" in result.stderr:
                return True  # a Location his side Controls already (8.605): his choice, not the offer's
            where = {k: status.get(k) for k in ("cg_date", "step", "scenario", "progress")}
            raise Refused(f"offered and refused at once: {' '.join(argv)}\n  offered in {offer.where}: {offer.line}"
                          f"\n  refused: {result.stderr.strip()}\n  the side's status when offered: {where}"
                          "\n  play so far:\n" + self.story())
        return True

    def send(self, desk: Desk) -> None:
        if desk.events() > self.other(desk).events() or (desk.status().get("turn") or {}).get("reply_owed"):
            self._send(desk)

    def receive(self, desk: Desk) -> None:
        if desk.inbox:
            self._receive(desk)

    def take_back(self, desk: Desk) -> None:
        """A take-back: the player's last act undone (alone before the other side has it, else proposed)."""
        if not self.may_act(desk):
            return
        before = desk.events()
        result = desk.run("undo", "--reason", "a slip")
        said = (result.stdout + result.stderr).strip()
        self.trace.append(f"{desk.side}: undo -> {result.exit_code} {said[:160]}")
        if result.exit_code == 0 and "roll on" in said:
            self.rolls_taken_back = True
        if result.exit_code != 0:
            assert desk.events() == before, "a refused undo wrote events"

    # ---- what holds after every step ------------------------------------------------------------------
    @invariant()
    def someone_can_go_on(self) -> None:
        """While the campaign is not over, some side can act or has something to send or to read."""
        if not self.desks:
            return
        if any(d.inbox for d in self.desks.values()):
            return
        counts = {s: d.events() for s, d in self.desks.items()}
        if len(set(counts.values())) > 1:
            return  # the side ahead has something to send
        for _ in range(2):  # a status records its side's part of the fair dice first: a second look sees the result
            before = {s: d.events() for s, d in self.desks.items()}
            for desk in self.desks.values():
                status = desk.status()
                if status.get("over"):
                    return
                if offers(status, desk.side) or (status.get("turn") or {}).get("reply_owed"):
                    return  # he can act, or mail the turn back
            if {s: d.events() for s, d in self.desks.items()} == before:
                break
        lines = {s: (st_["progress"] if (st_ := d.status()).get("progress") else st_["step"])
                 for s, d in self.desks.items()}
        raise AssertionError(f"deadlock: neither side is offered anything and nothing is in flight: {lines}\n    "
                             + "\n    ".join(self.trace))


def _limit(stderr: str) -> bool:
    return any(w in stderr for w in ("CPP", "maximum", "at most", "limit", "already bought"))


def _machine(game: str, shared: bool = False):
    return type(f"TwoPlayers_{game}{'_shared' if shared else ''}", (TwoPlayers,), {"game": game, "shared": shared})


def _play(machine, examples: int, steps: int) -> None:
    machine.TestCase.settings = settings(max_examples=examples, stateful_step_count=steps, derandomize=not FRESH,
                                         deadline=None, suppress_health_check=list(HealthCheck), database=None,
                                         phases=PHASES)
    machine.TestCase().runTest()


@pytest.mark.parametrize("game", ["kgp", "rr", "cgs"])
def test_random_two_player_play(game):
    _play(_machine(game), EXAMPLES, STEPS)


@pytest.mark.parametrize("game", ["kgp", "rr", "cgs"])
def test_random_live_play_on_one_shared_store(game):
    """The same two players live on one store (a shared PostgreSQL with --backend postgres, else one SQLite file),
    each with his own key: no mail, each acts on what his status offers whenever he likes."""
    _play(_machine(game, shared=True), max(1, EXAMPLES // 2), STEPS)
