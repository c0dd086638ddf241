"""Two players as one model: each at his own desk (his own store, his own passphrase and key), acting only on what
his side's `status --json` offers and exchanging bundles by email at moments the caller picks. Used by the random
play of tests/test_random_play.py and by bench/bench_random_play.py for longer runs.

Email play is strict turn-taking (a bundle that forks the log is refused, docs/guide/email.md): a side acts only while
it holds every event the other side holds. Inside that, every choice is the caller's: which offered act, which
values a player fills in, when to send, when to receive."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from conftest import Player, count_events

ROOT = Path(__file__).parent.parent
CHART = Path(__file__).parent / "data" / "kgp-rg-test-chart.toml"
KGP_MAP = ROOT / "fixtures" / "kgp-st-fixture-map.toml"
CGS_MAP = ROOT / "fixtures" / "cgs-dtw-fixture-map.toml"
CGS_CHART = ROOT / "fixtures" / "cgs-rg-chart-example.toml"

# what each campaign needs before play: (system, cg, start CPP, rules files the first and the second side propose)
GAMES = {
    "kgp": ("kgp", "I", {"german": 20, "us": 12}, [CHART], [KGP_MAP]),
    "rr": ("rr", "RR", {"german": 40, "canadian": 30}, [], []),
    "cgs": ("cgs", "CGS", {"german": 0, "russian": 8}, [CGS_MAP], [CGS_CHART]),
}
# Locations a player names in `control` (the maps' own hexes where a map is loaded)
LOCATIONS = {"kgp": ["StJ19", "StK17", "StL18", "StM15"], "rr": ["TT19", "A20"], "cgs": ["DTW-G26", "DTW-N22"]}
PASSPHRASES = ("Peiper's own words, nobody else's 7", "Harrison's own words, nobody else's 9",
               "Ivanov's own words, nobody else's 3")
# Fortifications a player buys with FPP (KGP 8.621, RR 2.520), with what each needs said: a size, the Setup Area's
# Retained squad-equivalents ('S' items)
FORTIFICATIONS = ("dummy", "trench", "foxhole", "ap_mines", "hip")
FORTIFY_OPTIONS = {"trench": ("--squads", "3"), "foxhole": ("--size", "1", "--squads", "3"),
                   "ap_mines": ("--count", "2", "--squads", "3"), "hip": ("--size", "hs")}
READS = ("status", "head", "audit", "log", "tables", "rg-chart", "final")


class Refused(AssertionError):
    """An act the ledger refused: the command, its offer and what the ledger said."""


@dataclass
class Desk:
    """One player at his own machine."""

    side: str
    player: Player
    inbox: list = field(default_factory=list)
    commands: list = field(default_factory=list)  # every command this player typed that is not a read

    fair_seed: str = ""  # this desk's fair chains drawn from it (ledger/fairdice.new_seed): a play replays exactly
    machine: Path | None = None  # this player's own machine (XDG_STATE_HOME: its marks, heads, views, key agent)

    def run(self, *args: str):
        if args[0] not in READS:
            self.commands.append(shlex.join(args))
        settings = {"CGLEDGER_FAIR_SEED": self.fair_seed or None,
                    "XDG_STATE_HOME": str(self.machine) if self.machine else None}
        old = {name: os.environ.get(name) for name, value in settings.items() if value is not None}
        os.environ.update({name: value for name, value in settings.items() if value is not None})
        try:
            return self.player(*args)
        finally:
            for name, value in old.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def ok(self, *args: str):
        result = self.run(*args)
        if result.exit_code != 0:
            raise Refused(f"{self.side}: {shlex.join(args)} -> {result.stderr.strip() or result.stdout.strip()}")
        return result

    def json(self, *args: str):
        return json.loads(self.ok(*args, "--json").stdout)

    def status(self) -> dict:
        return self.json("status")

    def events(self) -> int:
        try:
            return count_events(self.player.db)
        except Exception:  # noqa: BLE001 - no ledger yet on this machine
            return 0


@dataclass
class Offer:
    """One act a side's status offers: the command line as shown, where it was shown, and why."""

    line: str
    where: str  # needs, next_acts, may, proposal, unwitnessed
    text: str = ""


def offers(status: dict, side: str) -> list[Offer]:
    """Every act the status offers the side of its key."""
    if status.get("over") or (status.get("turn") or {}).get("mailed") is not None:
        return []  # over, or by email the turn is mailed and its reply not read: nothing is recorded here
    out: list[Offer] = []
    for need in status.get("needs", []):
        for line in need.get("commands") or ([need["command"]] if need.get("command") else []):
            out.append(Offer(line, "needs", need.get("text", "")))
    for act in status.get("next_acts", []):
        if act.get("command"):
            out.append(Offer(act["command"], "next_acts", act.get("text", "")))
    for may in status.get("may", []):
        if may.get("command"):
            out.append(Offer(may["command"], "may", may.get("text", "")))
    proposal = status.get("proposal")
    if proposal and proposal.get("open") and proposal.get("accept") and proposal.get("by") != side:
        out.append(Offer(proposal["accept"], "proposal", "accept"))
        if proposal.get("decline"):
            out.append(Offer(proposal["decline"], "proposal", "decline"))
    if [u for u in status.get("unwitnessed", []) if u.get("claimed_by") != side and not u.get("disputed")]:
        out.append(Offer("cgledger witness --all", "unwitnessed", "witness"))
    return [o for o in out if _for_side(o.line, side)]


def choose(offered: list[Offer], pick: int) -> Offer:
    """A player's choice among the offers: what is owed or proposed first, most of the time, and the step's
    optional acts (purchases, rolls, Control) the rest, so that a campaign moves on as players move it."""
    owed = [o for o in offered if o.where != "may"]
    going = [o for o in offered if o.where == "may" and o.line.endswith("step next")]
    buying = [o for o in offered if o.where == "may" and re.match(r"cgledger (buy|fortify|place) ", o.line)]
    if owed and pick % 10 < 7:
        return owed[pick // 10 % len(owed)]
    # in a purchase step a player buys before he goes on, as often as not; where buying is open all along (CGS,
    # no purchase step), now and then
    if buying and pick // 100 % 10 < (4 if going else 1):
        return buying[pick // 1000 % len(buying)]
    if going and pick % 10 < 8:
        return going[0]
    return offered[pick // 10 % len(offered)]


def others_offered(status: dict, side: str) -> list[str]:
    """Once both sides hold keys (`you` in the status), each act is signed by its own side's key: the lines offered
    to this side that name another side's act (in --side or --chit), which the ledger would refuse it."""
    if status.get("you") != side:
        return []
    lines = [line for key in ("needs", "next_acts", "may") for item in status.get(key, [])
             for line in item.get("commands") or ([item["command"]] if item.get("command") else [])]
    return [line for line in lines
            if any(s != side for named in re.findall(r"--(?:side|chit) ([\w|]+)", line) for s in named.split("|"))]


def _for_side(line: str, side: str) -> bool:
    """An act for this side: a line naming a --side or --chit names this side among its choices."""
    named = re.findall(r"--(?:side|chit) ([\w|]+)", line)
    return not named or any(side in n.split("|") for n in named)


class Filler:
    """The values a player fills into an offered line: his side, dice as rolled, LVP, an RG from his chart."""

    def __init__(self, game: str, desk: Desk, rnd: random.Random):
        self.game, self.desk, self.rnd = game, desk, rnd
        self.dies: dict[str, str] = {}

    def die(self, table: str) -> str:
        if table not in self.dies:
            self.dies[table] = self.desk.json("tables", table)["die"]
        return self.dies[table]

    def dice(self, table: str) -> str:
        die = self.die(table)
        if die == "DR":
            return f"{self.rnd.randint(1, 6)},{self.rnd.randint(1, 6)}"
        if die in ("d100",):
            return f"{self.rnd.randint(0, 9)},{self.rnd.randint(0, 9)}"
        if die in ("d10", "D10", "dr10"):
            return str(self.rnd.randint(0, 9))
        if die in ("d%", "D%", "percentile"):
            return f"{self.rnd.randint(0, 9)}{self.rnd.randint(0, 9)}"
        return str(self.rnd.randint(1, 6))

    def drm(self, table: str, key: str) -> int:
        """A value a player gives for a declared DRM the ledger does not know: within the table's bounds."""
        drm = next(d for d in self.desk.json("tables", table)["drms"] if d["key"] == key)
        low = drm.get("min") if drm.get("min") is not None else 0
        return self.rnd.randint(low, max(low, drm.get("max") or low + 3))

    def fill(self, line: str) -> list[str] | None:
        """The argv the player types for an offered line, or None where he has nothing to fill it with."""
        line = line.replace(' (or --vasl "LINE")', "")
        line = re.sub(r"\[--count N\]", "", line)
        args = shlex.split(line)[1:]
        out: list[str] = []
        side = self.desk.side
        table = args[1] if args[:1] == ["roll"] and len(args) > 1 else None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--side":
                out += ["--side", side]
                i += 2
                continue
            if a == "--chit":
                s, choices = args[i + 1].split("=")
                out += ["--chit", f"{s}={self.rnd.choice(choices.split('|'))}"]
                i += 2
                continue
            if a == "--lvp":
                s = args[i + 1].split("=")[0]
                out += ["--lvp", f"{s}={self.rnd.randint(0, 12)}"]
                i += 2
                continue
            if a in ("--winner", "--map-group", "--map"):
                out += [a, self.rnd.choice(args[i + 1].split("|"))]
                i += 2
                continue
            if a == "--drm":
                key, _, value = args[i + 1].partition("=")
                out += ["--drm", f"{key}={self.drm(table, key) if value == 'N' else value}"]
                i += 2
                continue
            if a == "--dice":
                out += ["--dice", self.dice(table)]
                i += 2
                continue
            if a == "--for":
                out += ["--for", f"6-6-7 squad {self.rnd.randint(1, 10**6)}"]
                i += 2
                continue
            if a == "--hex" and args[:1] == ["roll"]:  # CGS: a mine's hex, a wall's hexside: not played by this model
                return None
            if a == "RG_ID":  # 8.6198: an 'I'- or 'HW'-type RG is offered on the line with --objective HEX
                rg = self.rg(objective="--objective" in args)
                if rg is None:
                    return None
                out.append(rg["id"])
                i += 1
                continue
            if a == "HEX":
                out.append(self.rnd.choice(LOCATIONS[self.game]))
                i += 1
                continue
            if a == "LOCATION":
                out.append(self.rnd.choice(LOCATIONS[self.game]))
                i += 1
                continue
            if args[:1] == ["place"] and i == 1:  # CGS: one of the fortifications the side bought and has not placed
                out.append(self.rnd.choice(a.split("|")))
                i += 1
                continue
            if a == "ITEM" and args[:1] == ["fortify"]:  # 8.621 (RR 2.520): an item its table lists for the side now
                listed = {f["id"] for f in self.desk.json("rg-chart", "--side", self.desk.side)["fortifications"]}
                items = [f for f in FORTIFICATIONS if f in listed]  # RR's A-P Mines: Initial Scenario only
                if not items:
                    return None
                item = self.rnd.choice(items)
                out += [item, *FORTIFY_OPTIONS.get(item, ())]
                i += 1
                continue
            if a == "--setup-area" and args[i + 1:i + 2] == ["ID"]:
                out += ["--setup-area", f"A{self.rnd.randint(1, 3)}"]
                i += 2
                continue
            if a in ("FILE", "ITEM", "UNIT") or a.startswith("--setup-area"):
                return None  # VASL files and CGS placements: not played by this model yet
            out.append(a)
            i += 1
        return out

    def rg(self, objective: bool) -> dict | None:
        """An RG of the side's chart it can afford, of the kind the offered line is for (with an Objective Hex or
        without)."""
        chart = self.desk.json("rg-chart", "--side", self.desk.side)
        rgs = [r for r in chart["rgs"] if r.get("available") and r.get("priced", True) is not False
               and (r.get("cost") is None or r["cost"] <= chart["cpp"]) and bool(r.get("objective")) == objective]
        return self.rnd.choice(rgs) if rgs else None


class Post:
    """The mail between two desks: numbered bundle files in one folder, each put in the other desk's inbox."""

    def __init__(self, folder: Path, desks: dict[str, Desk], shared: bool = False):
        self.folder, self.desks, self.count = folder, desks, 0
        self.shared = shared  # both desks on one store (a shared PostgreSQL, or one SQLite file): no mail at all

    def other(self, desk: Desk) -> Desk:
        return next(d for d in self.desks.values() if d is not desk)

    def send(self, desk: Desk) -> dict:
        if self.shared:
            return {"file": None, "events": 0}
        self.count += 1
        path = self.folder / f"{self.count:04d}-{desk.side}.json"
        sent = desk.json("send", str(path), "--side", desk.side)  # his side named: a key he took back names none
        if sent["file"]:
            self.other(desk).inbox.append(path)
        return sent

    def receive(self, desk: Desk) -> list[dict]:
        got = [desk.json("receive", str(path)) for path in desk.inbox]
        desk.inbox = []
        return got


def start(game: str, dbs: list, folder: Path, fair_seed: str = "", agents: bool = False
          ) -> tuple[dict[str, Desk], Post]:
    """Both players set up, each at his own machine: the first starts the campaign and his key and proposes his rules
    files; the second accepts, sets up his key and proposes his; the first accepts. `fair_seed`: each side's fair
    chains drawn from it (a play that replays exactly), else from the OS. `dbs` naming one store twice: both play live
    on it. `agents`: then each unlocks his key agent (`keys unlock`), as a player does for a session of many commands
    (`lock_agents` stops them); else every signed command stretches his passphrase."""
    system, cg, cpp, first_files, second_files = GAMES[game]
    desks = {side: Desk(side, Player(db, phrase), fair_seed=f"{fair_seed}:{side}" if fair_seed else "",
                        machine=folder / f"machine-{side}")
             for side, db, phrase in zip(cpp, dbs, PASSPHRASES)}
    post = Post(folder, desks, shared=len({str(db) for db in dbs}) == 1)
    a, b = desks.values()
    starts = [x for s, n in cpp.items() for x in ("--start-cpp", f"{s}={n}")]
    a.ok("new", f"Random {game}", "--system", system, "--cg", cg, *starts)
    a.ok("keys", "init", "--side", a.side)
    for f in first_files:
        a.ok("rules", "load", str(f))
    for desk, files in ((b, second_files), (a, None)):
        post.send(post.other(desk))
        post.receive(desk)
        proposal = desk.status().get("proposal")
        if proposal and proposal.get("open") and proposal.get("by") != desk.side:
            desk.ok("accept")
        if files is not None:
            desk.ok("keys", "init", "--side", desk.side)
            for f in files:
                desk.ok("rules", "load", str(f))
    if agents:
        for desk in desks.values():
            desk.ok("keys", "unlock", "--for", "30m")
    return desks, post


def lock_agents(desks: dict[str, Desk]) -> None:
    for desk in desks.values():
        desk.run("keys", "lock")


def actions_without_command(db) -> list[str]:
    """The actions a log written today stores without the command that made them: none but the campaign's start
    (every other act is decided again from its command)."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.domain.events import CampaignStarted

    ledger = open_ledger(str(db))
    try:
        log = ledger.history(None)
    finally:
        ledger.close()
    missing, last = [], None
    for event in log:
        action = getattr(event.fact, "action", None)
        if action is None or action == last:
            continue
        last = action
        if event.form >= 3 and event.request is None and not isinstance(event.fact, CampaignStarted):
            missing.append(f"event {event.version} ({type(event.fact).__name__}, action {action})")
    return missing
