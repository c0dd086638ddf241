"""The email turn, as a player's ledger plays it (ledger/exchange/turn.py keeps whose turn it is): a turn sent
with everything the other side has not received, after the ledger's own duties; a turn received, each new event
re-decided before it is stored, then this side's duties carried out."""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInput
from ..trust import chain, mark
from ..trust.chain import campaign_id
from ..store import database as store
from . import turn


def whose(ledger, campaign, rules, side: str | None = None) -> str:
    """The side at the keyboard: the one whose key is given, else `side`."""
    mine = ledger.keyring.opens(campaign) if ledger.keyring.material is not None and campaign.keys else None
    if mine is None and side is None and ledger.keyring.material is not None:
        keyless = [s for s in rules.system.sides if s not in campaign.keys]
        raise BadInput("the key given opens no side's key in this campaign: give --side SIDE"
                       + (f" ({' or '.join(keyless)}: a side without a key), or set up your key first (`cgledger keys "
                          "init --side SIDE`)" if keyless else ""), turn.RULE)
    if mine is None and side is None:
        raise BadInput("which side are you? give your passphrase (CGLEDGER_PASSPHRASE) or key file (--key-file), "
                       "or --side SIDE", turn.RULE)
    if mine is not None and side is not None and rules.side(side) != mine:
        raise BadInput(f"the key given is the {rules.system.sides[mine]} side's, not the "
                       f"{rules.system.sides[rules.side(side)]} side's", turn.RULE)
    return mine or rules.side(side)


def send_turn(ledger, name: str | None, side: str | None, path: Path | None, outbox: Path | None):
    """Everything the other side has not yet received, to FILE (or a new file in the outbox folder); None when it
    has everything. The ledger's own duties are carried out first, so they travel in this email."""
    from .pbem import export_bundle

    name = ledger.store.resolve_name(name)
    if ledger.keyring.material is not None:
        ledger.answer(name)
    campaign = ledger.store.campaign(name)
    rules = ledger.rules_for(campaign)
    me = whose(ledger, campaign, rules, side)
    history = ledger.store.history(name)
    fingerprint = turn.since(history, turn.other_side(rules.system.sides, me))
    key = ledger.store.seen_key(campaign.id) if ledger.where else ""
    if history[-1].version == int(fingerprint.split(":")[0]):
        if not (key and turn.reply_owed(ledger.where, key)):
            return None, me, None
        # nothing new, but the other side's turn was read here: the turn goes back to him with this side's signed
        # receipt (with it, what it read is its own to hold: a shared act of it is taken back only by a proposal);
        # a turn that was itself only his receipt goes back as it came (no events, the head it was read at)
        if type(history[-1].fact).__name__ != "TurnReturned":
            from ..decide import commands as cmd

            ledger.record(campaign, rules, cmd.ReturnTurn(side=me))
            history = ledger.store.history(name)
        else:
            fingerprint = chain.fingerprint(history[-1].version, history[-1].digest)
    if path is None:
        path = turn.outbox_name(outbox or Path("."), name, campaign.cg_date, me, history[-1].version)
    entries = [(e.version, e.topic, e) for e in history]
    bundle = export_bundle(entries, name, campaign.system, fingerprint, path, empty=True)
    if key:
        turn.turn_mailed(ledger.where, key, history[-1].version)
    return bundle, me, path


def receive_turn(ledger, path: Path, checked: tuple | None = None, received: "turn.Received | None" = None):
    """Imports one bundle, then carries out this side's duties; adds what it brought to `received`."""
    from .pbem import read_bundle

    bundle = checked[0] if checked else read_bundle(path)
    names = ledger.store.campaign_names()
    if names and bundle.campaign not in names:  # a second campaign would make every command and page ask which
        raise BadInput(f"this database holds the campaign {', '.join(repr(n) for n in names)}; {path.name} is of "
                       f"another, {bundle.campaign!r}: receive it into a database of its own (--db FILE)", turn.RULE)
    if bundle.campaign not in names:
        joinable(bundle, path)
    before = len(ledger.store.history(bundle.campaign)) if bundle.campaign in names else 0
    name, count = import_bundle(ledger, path, checked)
    campaign = ledger.store.campaign(name)
    me = (ledger.keyring.opens(campaign) if ledger.keyring.material is not None and campaign.keys else None) or ""
    if me:
        ledger.answer(name)
    history = ledger.store.history(name)
    new = [e for e in history if e.version > before]
    received = received or turn.Received(name, me)
    received.me = me
    received.imported += new[:count]
    received.duties += new[count:]
    if me:
        state = ledger.store.campaign(name)
        opened = ledger.keyring.opened_rolls(state, ledger.rules_for(state), new, me)
        received.results += turn.own_results(new, opened, me)
    received.head = ledger.verification.head(name)
    received.files.append(str(path))
    return received


def joinable(bundle, path: Path) -> None:
    """A campaign received to play is read as this ledger reads the rules: one started under an older reading
    (`CampaignStarted.edition`) would hold its player to rules since closed (typed dice for Secret rolls, dice no
    one agreed to), and only its starter's ledger says which reading it is. `import` still reads it, to look at."""
    from ..decide.steps import EDITION
    from ..domain.events import CampaignStarted

    start = bundle.events[0].fact if bundle.events and bundle.since == 0 else None
    if isinstance(start, CampaignStarted) and start.edition < EDITION:
        raise BadInput(f"{path.name} holds a campaign started under an older reading of the rules than this "
                       f"cgledger's (edition {start.edition}, not {EDITION}): to play it, its starter starts it "
                       "again with this version (`cgledger import FILE` reads it, to look at)", turn.RULE)


def import_bundle(ledger, path: Path, checked: tuple | None = None) -> tuple[str, int]:
    """Appends the bundle's new events, each re-decided first, all or nothing; returns (campaign, number
    imported). `checked`: (bundle, its plan_import over an empty log), made before this database existed; used
    if the campaign is still not here. A snapshot is left behind when the import crossed a snapshot interval,
    so the next command does not replay the whole log."""
    from .pbem import domain_event, plan_import, read_bundle

    bundle = checked[0] if checked else read_bundle(path)
    local = ledger.store.history(bundle.campaign) if bundle.campaign in ledger.store.campaign_names() else []
    new = checked[1] if checked and not local else plan_import(bundle, local)
    if not new:
        _turn_read(ledger, bundle, local)  # a turn mailed back holds no events: read all the same
        return bundle.campaign, 0
    cid = campaign_id(bundle.campaign)
    ledger.store.save_events([domain_event(cid, e) for e in new])
    if ledger.where:  # plan_import checked every new event on top of the local log: marked, if that was verified
        key = ledger.store.seen_key(cid)
        if mark.read(ledger.where, key) == ((local[-1].version, local[-1].digest) if local else (0, "")):
            mark.advance(ledger.where, key, new[-1].version, new[-1].digest)
    ledger.kept.advance(None, [], cid, new[0].version)  # the kept read views that were current
    _turn_read(ledger, bundle, local)  # once its events are stored: a failed save leaves the turn where it was
    interval = store.SNAPSHOT_INTERVAL
    if new[-1].version // interval > (new[0].version - 1) // interval:
        ledger.store.take_snapshot(cid)
    return bundle.campaign, len(new)


def _turn_read(ledger, bundle, local: list) -> None:
    """The other side's turn is read here once his bundle holds the turn mailed from here (ledger/exchange/turn.py): an
    older bundle read again leaves the turn where it is."""
    if not ledger.where or not local:
        return
    key = ledger.store.seen_key(campaign_id(bundle.campaign))
    mailed = turn.mailed(ledger.where, key)
    if mailed is None or bundle.since + len(bundle.events) >= mailed:
        turn.turn_read(ledger.where, key)
