"""`status`: where the campaign stands and what each side may do next, as the player reading it sees it: a read
model of the campaign state, the rules, and what the reader knows (`Reader`: the side his key opens, his own books,
the turn this machine mailed). Every act it offers is judged by the decision the act runs (nothing is offered that
the ledger then refuses)."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from cgledger.ledger.decide import chits, fair, purchases, rights, steps, walk
from cgledger.ledger.decide import witness as witnessing
from cgledger.ledger.decide.steps import next_step, title, unmet
from cgledger.ledger.errors import LedgerError
from cgledger.projections import guidance, roster, takeback


class Reader(NamedTuple):
    """What the player reading `status` knows besides the campaign: all None/empty for a past CG Date (`as_of`)."""

    as_of: str | None = None
    key_given: bool = False
    side: Callable[[], str | None] = lambda: None  # the side the key given opens (asked only where needed)
    by: Callable[[], str] = lambda: ""  # the side recording now (the key's, else the only one without a key)
    own: str | None = None  # the side whose own secrets the key opened (8.619), with its books below
    view: Any = None  # the campaign as that side's own ledger knows it
    sealed_cpp: int = 0  # the CPP of that side's sealed replenishments
    mailed: int | None = None  # by email: the last event of the turn this machine mailed, its reply not read yet
    turn: dict | None = None  # the email turn as this machine sees it
    events_of: Callable[[int, int], list] = lambda action, before: []  # the events of one action before an event
    placeable: Callable[[], dict] = lambda: {}  # CGS: per side, the fortifications it bought and may place now


class Standing(NamedTuple):
    """Where the reader's side stands and what it owes there: `me` its side once each side walks the RePh, `here` its
    step, `needs` what it owes, `nxt` the step after, `at_door` whether it waits at a door both sides cross, `over`
    why the campaign is over, `held` the refusal `step next` would meet, `chit_side` the side sealing its chit."""

    me: str | None
    here: str
    needs: list
    nxt: str | None
    at_door: bool
    over: str | None
    held: dict | None
    chit_side: str | None


def standing(state, rules, reader: Reader, view) -> Standing:
    needs = unmet(rules, state, state.step)
    if reader.own is not None and view is not state:  # what its own secret purchases still need, to their buyer
        needs = unmet(rules, view, view.step)
    nxt = next_step(rules, state)
    walking = walk.walking(state, rules)
    me = reader.side() if walking and reader.as_of is None and reader.key_given else None
    here = walk.position(state, me) if me else state.step
    at_door = bool(me) and me in state.ahead and steps.crosses_together(rules, here)
    if me:  # each side walks the RePh: what this side owes where it stands (nothing at the door it waits at)
        needs = [] if at_door else walk.owed(rules, view, me, here)
        nxt = here if at_door else next_step(rules, state, here)
    over = steps.campaign_over(rules, state)
    if over:  # nothing more is played: nothing is offered that would be refused
        needs, nxt, at_door = [], None, True
    if reader.mailed is not None:  # by email, the turn mailed and its reply not read: nothing is recorded until it is
        needs, at_door = [], True
    held = None if at_door or over or needs or not rules.system.steps else step_refused(rules, view, reader.by())
    chit_side = me  # the side of the key given: once both sides hold keys, it seals its own Initiative chit only
    if chit_side is None and reader.as_of is None and chits.sealed_play(state, rules) \
            and "initiative" in {n["effect"] for n in needs}:
        chit_side = reader.own if reader.own is not None else reader.side()
    return Standing(me, here, needs, nxt, at_door, over, held, chit_side)


def status(state, rules, reader: Reader) -> dict:
    as_of, own = reader.as_of, reader.own
    view = reader.view if own is not None else state  # the campaign as this side's own ledger knows it
    cpp, fpp = dict(state.cpp), dict(state.fpp)
    if own is not None:  # this player's own secret purchases and sealed replenishments count for its own CPP, FPP
        cpp[own] = view.cpp.get(own, 0) + reader.sealed_cpp
        fpp[own] = view.fpp.get(own, 0)
    secret = {}
    for entry in state.secret_rgs.values():
        secret[entry["side"]] = secret.get(entry["side"], 0) + 1
    at = standing(state, rules, reader, view)
    me, needs, over = at.me, at.needs, at.over
    walking = walk.walking(state, rules)
    random_weather = state.options.get("random_weather", False)
    return {
        "campaign": state.name, "system": state.system, "sides": dict(rules.system.sides), "cg": state.cg,
        "cg_date": state.cg_date,
        "step": state.step, "step_title": title(rules, state.step),
        "purpose": guidance.purpose(rules, state.step),  # what the open step is for
        "scenario": state.scenario or None, "initial": state.initial,
        "needs": guidance.with_commands(rules, state, needs, at.chit_side),  # each with the command lines to paste
        "ahead": [] if over else guidance.ahead(rules, state),  # what the scenario Initiative gives makes later steps need
        "may": may(state, rules, reader, view, at),
        "held": at.held,  # why `step next` is not offered where nothing is needed: the step's own refusal, or null
        # by email: the turn this machine mailed and waits the reply to (`mailed`: its last event, `text`), and
        # whether the other side's turn was read here since (`reply_owed`: `send` mails the turn back)
        "turn": reader.turn,
        # nothing needed here: the next act ahead and its command, which walks the side there itself
        "next_acts": next_acts(state, rules, reader, view, at, cpp),
        "progress": progress(state, rules, own, fpp) if walking else {},  # where each side stands in the RePh
        "you": me,  # the side whose key was given, once each side walks the RePh (its needs above)
        "reminders": reminders(rules, state),
        "files_wanted": files_wanted(rules, state.proposal),  # what the players' own rules files still have to give
        "next": at.nxt, "next_title": "the campaign is over" if over else title(rules, at.nxt),
        "over": over or None,  # why the campaign is over (its last CG Date's scenario ended), else null
        # FPP still to spend (the public books of a side that bought FPP in secret and spent them read below 0)
        "cpp": cpp, "fpp": {s: v for s, v in fpp.items() if v > 0 and not _fpp_forfeit(state, rules, s)},
        "lvp": state.lvp,
        "attack_chits": state.chits, "flags": state.flags,
        "in_effect": [rules.flag_text(flag) for flag in state.flags],  # the flags in the players' words
        "attack_chits_left": chits.left(state, rules),  # per side with a limit (8.6231, RR 2.5221)
        "chits_sealed": sorted(state.sealed_chits),  # the sides whose Initiative chit is sealed, not revealed
        "random_weather": random_weather,
        # the weather chart's line for the CG Date (8.617, RR 2.517): the weather (unless the random weather
        # decides it) and what the chart gives beside it, by the chart's own names (Moon Phase, Cloud Cover, EC)
        "weather": None if random_weather else roster.historical(rules, state.cg, state.cg_date).get("weather"),
        "conditions": roster.conditions(rules, state.cg, state.cg_date, random_weather),
        "dice": dice_mode(state, rules), "waiting": waiting(state, rules),
        "secret_purchases": secret,  # side -> RG bought in secret, not revealed (its CPP shown before them)
        "cpp_before_secret": secret_replenishments(state, rules, own),
        "secret_purchase_rule": purchases.secret_step(rules),  # the rule that lets them be kept secret (8.619, RR 2.518)
        "own_secrets": own,  # the side of the key given, whose own secret purchases its CPP above counts
        "rg_refs": steps.rg_refs(view),  # purchase event -> the RG as `--rg` names it (I2#1; sealed: the event)
        "unwitnessed": (unwitnessed := witnessing.view(state, rules)),  # dice typed or VASL's, not witnessed yet
        "key_side": key_side(reader, me or own) if unwitnessed else None,
        # the open take-back proposal (or the last that lapsed, and why), with the command that accepts it
        "proposal": takeback.view(state, rules, (reader.by() or None) if as_of is None
                                  and (state.proposal or state.lapsed) else None, reader.events_of),
    }


def may(state, rules, reader: Reader, view, at: Standing) -> list[dict]:
    """What the reader's side may do where it stands besides its needs, its key to set up, and what moves the
    campaign on live (its ledger's part of the fair dice, the step in at a door)."""
    out = [] if at.at_door else guidance.options(rules, state, at.needs, at.here, at.me or _keyed_side(state, rules, reader),
                                                 go_on=at.held is None, fpp=view.fpp,
                                                 placeable=reader.placeable() if reader.as_of is None else {})
    out += key_to_set_up(state, rules, reader)
    if at.me and reader.mailed is None and not at.over:
        out += live_offers(state, rules, view, at.me, at.here, at.at_door, reader.by())
    return out


def _keyed_side(state, rules, reader: Reader) -> str | None:
    """Once both sides hold signing keys (a system with no Refit Phase to walk too), the side of the key given: each
    act is its own side's, signed with its key, so only its own are offered. Once one side holds a key and the
    reader's opens none, the acts this ledger may record are the other side's: the one without a key."""
    if reader.as_of is not None:
        return None
    signing = rights.signing_sides(state)
    if signing and reader.side() is None:
        keyless = [s for s in rules.system.sides if s not in signing]
        return keyless[0] if len(keyless) == 1 else None
    if not reader.key_given or not all(s in signing for s in rules.system.sides):
        return None
    return reader.side()


def key_to_set_up(state, rules, reader: Reader) -> list[dict]:
    """The other side has set up its key and the one given opens none: this player's side has none yet. Its acts
    are not signed and fair dice wait until it has (the trust model): offered, with the command."""
    missing = [s for s in rules.system.sides if s not in state.keys]
    mine = reader.side() if reader.as_of is None and reader.key_given else None
    if mine and not missing and state.dice_mode == "fair" and mine not in state.chains:  # keyed while not fair
        return [{"command": f"cgledger fair-dice commit --side {mine}", "rule": fair.RULE,
                 "text": "commit to your fair-dice chains: the campaign's dice are fair, and your key was set up "
                         "before they were"}]
    if reader.as_of is None and not state.keys and state.dice_mode == "fair" and reader.key_given:  # a passphrase, no key
        return [{"command": f"cgledger keys init --side {'|'.join(rules.system.sides)}", "rule": rights.RULE,
                 "text": "playing by email or each at his own machine: set up your side's key (its acts signed, fair "
                         "dice once both sides have one); two players at one table need none"}]
    if reader.as_of is not None or not state.keys or len(missing) != 1 or not reader.key_given or reader.side():
        return []
    if state.dice_mode != "fair":  # a key agrees to dice not fair by name
        return [{"command": f"cgledger keys init --side {missing[0]} --dice {state.dice_mode}", "rule": fair.RULE,
                 "text": f"set up your key, agreeing to the campaign's {state.dice_mode} dice: each side's ledger "
                         "rolls its own dice alone, not proven fair"},
                {"command": "cgledger fair-dice mode fair", "rule": fair.RULE,
                 "text": "or choose fair dice first: each roll's dice then come from both sides' chains"}]
    return [{"command": f"cgledger keys init --side {missing[0]}", "rule": rights.RULE,
             "text": f"set up your key: the {rules.system.sides[missing[0]]} side's acts are signed from then on, "
                     "and fair dice start once both sides have keys"}]


def live_offers(state, rules, view, me: str, here: str, at_door: bool, by: str) -> list[dict]:
    """What moves the campaign on where nothing else is offered this side: its ledger's part of the fair dice
    (answers to the other side's rolls, its own answered Secret rolls made), and, both sides done up to a door
    they enter together, the step in; each offered only where the ledger does it now."""
    out = []
    if fair.owed_by(state, rules, me):
        out.append({"command": "cgledger answer", "rule": fair.RULE,
                    "text": "your ledger's part of the fair dice: its answers to the other side's rolls, your "
                            "answered Secret rolls made"})
    elif at_door and step_refused(rules, view, by) is None:
        out.append({"command": "cgledger step next", "rule": None,
                    "text": f"enter {title(rules, here)}: both sides are done up to here"})
    return out


def step_refused(rules, view, by: str) -> dict | None:
    """The refusal `step next` would meet now, decided by the very decision the command runs (nothing is offered
    that the ledger then refuses): {text, rule}, or None where it would be accepted."""
    try:
        walk.step(view, rules, None, by)
    except LedgerError as refused:
        return {"text": refused.message, "rule": refused.rule}
    return None


def _fpp_forfeit(state, rules, side: str) -> bool:
    """The side stands outside the steps from its CG Date's start to the one its FPP are spent in (8.621, RR 2.520):
    those unspent are forfeit (the scenario and the RePh after it are still that CG Date's)."""
    step = rules.purchase_step("fortifications")
    at = walk.position(state, side)
    if step is None:
        return False
    if at not in rules.steps:
        return True  # the CG scenario
    order = [s.id for s in rules.system.steps]
    start = next((i for i, s in enumerate(rules.system.steps) if s.new_cg_date), 0)
    return not start <= order.index(at) <= order.index(step)


def progress(state, rules, own: str | None = None, fpp: dict | None = None) -> dict:
    """Each side's step (it walks the RePh itself once both hold keys) and what the campaign waits for it to do.
    `own`, `fpp`: the reader's side and the FPP its own books know (an RG it bought in secret may be no FPP)."""
    out = {}
    for side in rules.system.sides:
        at = walk.position(state, side)
        ahead = side in state.ahead
        reason = None if ahead or _chit_shown(rules, state, side, at) else walk.may_act(rules, state, side, at)
        if side == own and reason == "buy Fortifications" and (fpp or {}).get(side, 0) <= 0:
            reason = None  # its own books know it holds no FPP
        goes_on = None
        if reason == "buy Reinforcement Groups" and not guidance.may_buy(rules, state, side):
            reason, goes_on = None, "its CPP buy no RG of its chart"  # the campaign waits for its walk all the same
        out[side] = {"step": at, "step_title": title(rules, at), "ahead": ahead, "may": reason, "goes_on": goes_on}
    return out


def _chit_shown(rules, state, side: str, at: str) -> bool:
    """All the side still owes where it stands is Initiative, and its own sealed chit is revealed: what is left is
    the other side's ledger's (its chit revealed), not this side's to do (8.6232, RR 2.5222)."""
    owes = walk.owed(rules, state, side, at) if at in rules.steps else []
    return bool(owes) and all(n["effect"] == "initiative" for n in owes) and bool(state.sealed_chits.get(side, {}).get("chit"))


def waiting(state, rules) -> list[dict]:
    """The fair rolls waiting for their dice."""
    rows = []
    for entry in fair.pending(state):
        if entry["made"]:
            continue  # a Secret roll made: it has its dice (the audit lists it until it is revealed)
        roller, answerer = entry["side"], fair.other(rules, entry["side"])
        waits = (f"the {rules.system.sides[roller]} side's ledger to make the Secret roll" if entry["answered"]
                 else f"the {rules.system.sides[answerer]} side's answer (its next command, or `cgledger answer`)")
        rows.append({"event": entry["version"], "table": entry["table"] or None, "side": roller, "n": entry["n"],
                     "secret": entry["secret"], "purpose": entry["purpose"] or None, "waiting_for": waits,
                     "if_result": entry.get("if_result") or None, "rg": entry["rg"]})
    return rows


def dice_mode(state, rules) -> str:
    """What makes the dice now: 'fair' (declared, answered), 'fair-pending' (a side has not committed yet: rolls
    are immediate until both have keys and commitments), 'immediate'."""
    if state.dice_mode != "fair":
        return state.dice_mode
    return "fair" if state.fair_in_force(rules.system.sides) else "fair-pending"


def secret_replenishments(state, rules, own: str | None) -> dict[str, int]:
    """Side -> its Secret CPP Replenishments (8.616, RR 2.516) this reader cannot see, sealed or still to be made:
    the CPP shown for that side are before them (its key's own side counts its own)."""
    out: dict[str, int] = {}
    for roll in guidance.unseen_replenishments(rules, state):
        if roll["side"] != own:
            out[roll["side"]] = out.get(roll["side"], 0) + 1
    return out


def next_acts(state, rules, reader: Reader, view, at: Standing, cpp: dict) -> list[dict]:
    """Nothing needed here: the next act ahead and its command, which walks the side there itself; the reader's own
    proposal to mail first."""
    if at.needs or at.at_door or at.over:
        return []
    return _proposal_waits(state, rules, reader) or guidance.next_acts(
        rules, view, at.here, at.me, walk.walking(state, rules), state.secret_rgs, cpp)


def key_side(reader: Reader, known: str | None) -> str | None:
    """The side of the key given, where some claim waits for a witness: its key opened only then (it is stretched)."""
    if not reader.key_given or reader.as_of is not None:
        return None
    return known or reader.side()


def _proposal_waits(state, rules, reader: Reader) -> list[dict]:
    """The reader's own proposal is open: it waits for the other side's answer as the last act of the turn he mails,
    so his next act is mailing it, not one that would let it lapse (walking on, buying)."""
    author = (state.proposal or {}).get("author")
    if not author or reader.as_of is not None or author != reader.by():
        return []
    return [guidance.said_act(rules, author, state.step, state.cg_date, "proposal",
                              "your proposal waits for the other side's answer as the last act of your turn: mail it "
                              "(`cgledger send`); an act of yours before that lets it lapse")]


def files_wanted(rules, proposal: dict | None = None) -> list[dict]:
    """What the rules seeds leave to the players' own files and no file in force gives yet: the RG chart's costs
    (KGP 8.619, CGS: the seeds print none; RR's are in them) and the Map Groups' Locations (its grid: Control, Setup
    Areas, hexes). Each is loaded with `rules load` (a proposal the other side accepts, once keys are set up); one
    proposal is open at a time: a file it holds is said to be proposed, another is offered once it is answered."""
    proposed = [t for t in (proposal or {}).get("tables", [])] if (proposal or {}).get("kind") == "rules" else []
    later = " once the proposal open now is answered" if proposal else ""
    wanted = []
    if not any(rg.cost is not None for rg in rules.rgs.values()):
        wanted.append(("rg_chart", "RG chart with costs", "CHART.toml", "RG ", "nothing can be bought yet"))
    if rules.system.map_groups and not rules.maps:
        wanted.append(("map", "map", "MAP.toml", "map ", "Control, Setup Areas and hexes are not checked against it"))
    out = []
    for what, name, file, prefix, meanwhile in wanted:
        if any(t.startswith(prefix) for t in proposed):
            out.append({"what": what, "command": None,
                        "text": f"the {name} proposed is in force once the other side accepts it"})
        else:
            out.append({"what": what, "command": f"cgledger rules load {file}{later}",
                        "text": f"no {name} is loaded (the rules text gives none): {meanwhile}"})
    return out


def reminders(rules, state) -> list[dict]:
    """The open step's reminders that apply on this CG Date (e.g. RR 2.51428 at night)."""
    if state.step not in rules.steps:
        return []
    time = rules.calendar.parse(state.cg_date).time
    return [{"rule": r.rule, "text": r.text} for r in rules.steps[state.step].reminders if r.time in (None, time)]
