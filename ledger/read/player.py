"""The reads as the player whose key is given sees them: `status` (the protocol's duties of that key carried out
first), the RG chart against the buyer's own books, the CGS terrain with its own hidden fortifications."""

from __future__ import annotations

from .. import lazy

turn = lazy.module("cgledger.ledger.exchange.turn")
hiddenmod = lazy.module("cgledger.ledger.player.hidden")


def status(ledger, name: str | None, as_of: str | None = None) -> dict:
    """projections/status.py, as the player whose key is given reads it; the protocol's duties of that key
    carried out first."""
    from functools import cache

    from cgledger.projections.status import Reader, status

    state, rules = ledger.state_as_of(name, as_of)  # loaded once (it was loaded twice with a key)
    if as_of is not None:
        return status(state, rules, Reader(as_of=as_of, by=lambda: ledger.recording_side(state, rules)))
    key_given = ledger.keyring.material is not None
    if key_given and ledger.settle(state, rules):
        ledger.store.save_campaign(state)
    own = ledger.keyring.opens(state) if state.sealed or state.secret_rgs else None
    view = ledger.books.own_view(state, rules, own) if own is not None else None
    mailed = ledger.turn_mailed(state) if key_given else None
    turn_now = None
    if key_given and ledger.store.where:
        owed = mailed is None and turn.reply_owed(ledger.store.where, ledger.store.seen_key(state.id))
        turn_now = {"mailed": mailed, "reply_owed": owed,
                    "text": turn.waiting_text(mailed) if mailed is not None else None}
    return status(state, rules, Reader(
        key_given=key_given, side=cache(lambda: ledger.keyring.opens(state)),
        by=cache(lambda: ledger.recording_side(state, rules)), own=own, view=view,
        sealed_cpp=ledger.books.sealed_cpp(view, rules, own) if view is not None and view.sealed else 0,
        mailed=mailed, turn=turn_now, events_of=lambda action, before: ledger.store.events_of_action(state, action, before),
        placeable=lambda: placeable(ledger, name, state, rules)))


def placeable(ledger, name: str | None, state, rules) -> dict:
    """CGS: per side, the fortifications it bought as RG and may place now, as `place` decides them from the log
    (the log is read only once an RG in force is a fortification)."""
    from ..decide.fortify import placeable as of_side

    charted = (rules.rgs.get((rg["side"], rg["rg"])) for rg in state.rgs.values())
    if not rules.placements or not any(rg is not None and rg.fortification for rg in charted):
        return {}
    logged = ledger.read(name)[0]
    return {side: of_side(rules, side, logged) for side in rules.system.sides}


def rg_chart(ledger, name: str | None, side: str) -> dict:
    """The side's RG chart with what its maxima leave (a read: the buyer's own view when its key is given)."""
    from cgledger.projections.rg_chart import rg_chart

    state, rules = ledger.state_as_of(name)
    who = rules.side(side)
    mine = ledger.keyring.material is not None and ledger.keyring.opens(state) == who
    view = ledger.books.own_view(state, rules, who) if mine else state
    cpp = view.cpp.get(who, 0) + (ledger.books.sealed_cpp(view, rules, who) if mine and view.sealed else 0)
    return rg_chart(view, rules, who, cpp)


def terrain(ledger, name: str | None, map_id: str, as_of: str | None = None, side: str | None = None):
    """The CGS map as the firefights left it, as the viewer sees it (its own hidden fortifications, 7.4.4)."""
    from ..domain.terrain import terrain

    logged, rules, state = ledger.read(name, as_of)
    seer = hiddenmod.viewer(ledger.keyring, state, rules, side)
    opened = hiddenmod.opened_for(ledger.keyring, state, rules, logged, seer) if seer else {}
    return terrain(logged, rules, map_id, seer, opened), rules


def export_source(ledger, name: str | None) -> tuple[str, str]:
    """(the campaign's name, its game system) for `export`, after loading the campaign as every command does:
    a damaged log is refused, what does not check out past this machine's mark is a notice (cli/exchange.py
    keeps this per log head, ledger/read/answers.py; the bundle is written from `entries`, ledger/exchange/bundle.py)."""
    name = ledger.store.resolve_name(name)
    return name, ledger.store.campaign(name).system
