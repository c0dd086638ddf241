"""What `log` prints and what `export` writes, without click: each event of the log as a line (or its JSON, written a
page at a time as it is read) and the bundle of the events the opponent does not have yet. The click commands
(cli/log.py, cli/exchange.py) and the console script's quick path (cli/quick.py) run these very functions."""

from __future__ import annotations

import sys
from typing import Callable, Iterator

from cgledger.ledger import lazy
from cgledger.ledger.domain.wording import item_name

reads = lazy.module("cgledger.ledger.read.player")


_TERMS = {"san": "SAN", "cpp": "CPP", "fpp": "FPP", "lvp": "LVP", "hs": "HS", "rg": "RG", "fb": "FB", "ss": "SS",
          "us": "U.S.", "sw": "SW", "mg": "MG", "hip": "HIP", "german": "German", "canadian": "Canadian",
          "russian": "Russian", "pm": "PM", "am": "AM", "vp": "VP"}


def drm_words(key: str, given: int | None) -> str:
    """A DRM in a roll's one line, short: its key in words ('enemy setup area', 'SAN'; the table's name for it is
    long, and `roll` and the report print it), with the value a player gave ('HS equivalents 2')."""
    words = " ".join(_TERMS.get(w, w) for w in key.split("_"))
    return f"{words} {given}" if given is not None else words


def describe(row: dict, sides: dict[str, str] | None = None) -> str:
    """One line for one event row of the log projection; `sides`: each side's name (the system's), for its id."""
    def who(side):
        return sides.get(side, side) if sides and side else side

    if "error" in row:
        return f"unreadable stored event ({row['error']})"
    described = _DESCRIBED.get(row["type"])
    return described(row, who) if described is not None else row["type"]


def _take_back_proposed(row: dict, who) -> str:
    what = (f"take back {row['takes_back']}" if row.get("takes_back") else f"undo of action {row['voided'][0]}") \
        if row["kind"] == "undo" \
        else f"rewind to the end of {row['cg_date']}'s RePh"
    return f"proposed: {what}" + (f": {row['reason']}" if row["reason"] else "") + " (the other side accepts)"


def _turn_returned(row: dict, who) -> str:
    return f"the {who(row['side'])} side read the turn and mails it back: nothing to record"


def _proposal_declined(row: dict, who) -> str:
    return f"the {who(row['side'])} side declines the proposal of event {row['proposal']}" + (
        f": {row['reason']}" if row.get("reason") else "")


def _campaign_started(row: dict, who) -> str:
    return f"campaign '{row['name']}' started: {row['system'].upper()} CG {row['cg']}"


def _dice_rolled(row: dict, who) -> str:
    drms = "".join(f" {d['value']:+d} {drm_words(d['key'], d['input'])}" for d in row["drms"])
    tags = (" [secret]" if row["secret"] else "") + (f" for '{row['purpose']}'" if row["purpose"] else "")
    rg = _rg(row)
    rg += f" <{row['player']}>" if row.get("player") else ""
    return (
        f"{row['table']} {who(row['side'])} {row['die']} {','.join(map(str, row['dice']))} ({row['source']}) "
        f"Original {row['original']}{drms} Final {row['final']}: {row['result']}{tags}{rg}"
    )


def _action_undone(row: dict, who) -> str:
    what = f"took back {row['takes_back']}" if row.get("takes_back") else f"undo of action {row['undone']}"
    return what + (f": {row['reason']}" if row["reason"] else "")


def _cg_date_changed(row: dict, who) -> str:
    return f"new CG Date {row['cg_date']} (was {row['previous']})"


def _tables_overridden(row: dict, who) -> str:
    return f"rules file {row['source']} loaded: {', '.join(row['tables'])}" + (
        f" (accepts event {row['proposal']})" if row.get("proposal") else "")


def _rules_proposed(row: dict, who) -> str:
    return f"rules file {row['source']} proposed: {', '.join(row['tables'])} (the other side accepts)"


def _step_opened(row: dict, who) -> str:
    skipped = f" (skipped {', '.join(row['skipped'])})" if row["skipped"] else ""
    return f"step {row['step']}{skipped}"


def _scenario_ended(row: dict, who) -> str:
    lvp = ", ".join(f"{who(side)} {n}" for side, n in row["lvp"].items())
    winner = f", winner {who(row['winner'])}" if row["winner"] else ""
    return f"{row['scenario'] or 'scenario'} ended: Current-LVP {lvp}{winner}" + (
        " (named by the players)" if row["declared"] else "")


def _initiative_chosen(row: dict, who) -> str:
    chits = ", ".join(f"{who(side)} {chit}" for side, chit in row["chits"].items())
    return f"Initiative chits {chits}: {row['scenario']}"


def _rg_purchased(row: dict, who) -> str:
    how = ("given" if row["given"] else f"{row['cpp']} CPP") + (", Early Entry" if row.get("early") else "")
    where = f" for {row['map_group']}" if row["map_group"] else ""
    return f"{who(row['side'])} RG {row['rg']} {row['group_type']}{where} ({how})"


def _rg_purchase_sealed(row: dict, who) -> str:
    return f"{who(row['side'])} bought an RG in secret on {row['cg_date']} (sealed; commitment {row['commitment'][:12]})"


def _rg_purchase_revealed(row: dict, who) -> str:
    bought = row["fact"]
    return (f"revealed the secret purchase of event {row['purchase']}: {who(bought['side'])} RG {bought['rg']} "
            f"{bought['group_type']} ({bought['cpp']} CPP)")


def _firefight_ended(row: dict, who) -> str:
    sewer = f"; In Sewer: {', '.join(row['in_sewer'])}" if row.get("in_sewer") else ""
    return (f"{row['firefight']} ended on {row['map']}: Fire in {', '.join(row['fires']) or 'no hex'}; "
            f"{len(row['burning_wrecks'])} Burning Wrecks{sewer}")


def _fortification_placed(row: dict, who) -> str:
    return f"{who(row['side'])} {item_name(row['item'])} placed in {row['hex']}" + (" (hidden)" if row["hidden"] else "")


def _hidden_fortification_placed(row: dict, who) -> str:
    return f"{who(row['side'])} {item_name(row['item'])} placed hidden (sealed; commitment {row['commitment'][:12]})"


def _hidden_fortification_revealed(row: dict, who) -> str:
    placed = row["fact"]
    why = {"entry": ": an enemy unit entered", "search": f": found by the search of event {row['search']}"}
    return (f"revealed the hidden {item_name(placed['item'])} of event {row['placed']}: {who(placed['side'])}, "
            f"{placed['hex']}{why.get(row['cause'], '')}")


def _fortification_removed(row: dict, who) -> str:
    return f"{who(row['side'])} {item_name(row['item'])} in {row['hex']} removed ({row['by']}, {row['rule']})"


def _mousehole_made(row: dict, who) -> str:
    return f"{who(row['side'])} Mousehole across {'/'.join(row['hexes'])} ({row['rule']})"


def _rubble_placed(row: dict, who) -> str:
    return f"Rubble placed in {', '.join(row['hexes'])} ({row['rule']})"


def _cpp_gained(row: dict, who) -> str:
    return f"{who(row['side'])} gains {row['cpp']} CPP for {row['cg_date']} ({row['chart']})"


def _secret_roll_made(row: dict, who) -> str:
    if not row["table"]:  # a follow-up of an RG bought in secret (8.619): its table sealed too
        return (f"secret roll{_rg(row)}, its table sealed with the RG (sealed; commitment "
                f"{row['commitment'][:12]})")
    typed = "" if row.get("fair") is not None else ", not a fair roll (its dice are seen once it is revealed)"
    return f"{who(row['side'])} Secret roll on {row['table']}" + (f" for '{row['purpose']}'" if row["purpose"] else "") + \
        _rg(row) + f"{typed} (sealed; commitment {row['commitment'][:12]})"


def _secret_roll_revealed(row: dict, who) -> str:
    rolled = row["fact"]
    if "dice" not in rolled:  # made void (8.6201: sealed, so the strength it depended on stayed Secret)
        return f"revealed the secret roll of event {row['roll']}: made void, as its RG called for no such roll"
    return (f"revealed the secret roll of event {row['roll']}: {rolled['table']} {rolled['die']} "
            f"{','.join(map(str, rolled['dice']))} Final {rolled['final']}: {rolled['result']}")


def _fair_dice_committed(row: dict, who) -> str:
    return f"the {who(row['side'])} side committed to its fair-dice seed ({len(row['shares'])} shares published)"


def _fair_seed_revealed(row: dict, who) -> str:
    return f"the {who(row['side'])} side revealed its fair-dice seed"


def _side_key_registered(row: dict, who) -> str:
    return f"the {who(row['side'])} side set up its key for Secret rolls"


def _location_controlled(row: dict, who) -> str:
    kind_text = f" (Strategic {row['strategic']})" if row["strategic"] else ""
    return f"{row['location']} Controlled by {who(row['side'])}{kind_text}"


def _hq_recorded(row: dict, who) -> str:
    return f"{who(row['side'])} HQ recorded at {row['location']}"


def _dice_reported(row: dict, who) -> str:
    side = f" {who(row['side'])}" if row["side"] else ""
    return f"VASL {row['die']} {','.join(map(str, row['dice']))} <{row['player']}>{side} (no table)"


def _vasl_log_imported(row: dict, who) -> str:
    attached = sum(1 for r in row["reports"] if r.get("table"))
    return (f"VASL import of {row['file']} ({row['form']}): {len(row['reports'])} dice reports"
            + (f", {attached} on tables" if attached else "")
            + (f"; {row['duplicates']} already recorded" if row.get("duplicates") else "")
            + (f"; {len(row['skipped'])} unreadable skipped" if row.get("skipped") else ""))


def _fortifications_purchased(row: dict, who) -> str:
    size = f" {row['size']}" if row["size"] else ""
    return f"{who(row['side'])} {row['count']} {row['name']}{size} for Setup Area {row['setup_area']} ({row['fpp']:g} FPP)"


def _roll_declared(row: dict, who) -> str:
    if not row["table"]:  # veiled: a follow-up of an RG bought in secret (8.619)
        return (f"{who(row['side'])} declares Secret fair roll {row['n']}{_rg(row)}, its table and what it is for "
                "sealed with the RG: its dice come with the answer")
    what = "Secret fair roll" if row["secret"] else "fair roll"
    purpose = f" for '{row['purpose']}'" if row["purpose"] else ""
    when = f", made only if its RG's strength roll gives '{row['if_result']}'" if row.get("if_result") else ""
    return (f"{who(row['side'])} declares {what} {row['n']} on {row['table']}{purpose}{_rg(row)}{when}: its dice come "
            "with the answer")


def _declaration_revealed(row: dict, who) -> str:
    opened = row["fact"]
    if not opened["table"]:  # it kept the count of its RG's follow-ups (8.619): no roll
        return (f"revealed the sealed declaration of event {row['declared']}: fair roll {opened['n']}, no roll: it kept "
                "the count of the RG's follow-ups alike")
    when = f", made only if its RG's strength roll gives '{opened['if_result']}'" if opened.get("if_result") else ""
    return f"revealed the sealed declaration of event {row['declared']}: fair roll {opened['n']} on {opened['table']}" + (
        f" for '{opened['purpose']}'" if opened["purpose"] else "") + when


def _rg(row: dict) -> str:
    """' (for RG I3)', ' (for an RG bought in secret on 19 AM)': the RG a follow-up roll is for, in words where the
    log read its purchase (else by its event)."""
    if row.get("rg") is None:
        return ""
    return f" (for {row['rg_named']})" if row.get("rg_named") else f" (RG bought at event {row['rg']})"


def _declared(row: dict) -> str:
    return row.get("roll_named") or f"the fair roll of event {row['declared']}"


def _roll_answered(row: dict, who) -> str:
    return f"the {who(row['side'])} side's ledger answers {_declared(row)}"


def _roll_lapsed(row: dict, who) -> str:
    return (f"{_declared(row)} lapses: its RG's strength roll gave another result, so the rules call for none")


def _roll_value_published(row: dict, who) -> str:
    blinded = " and the blinding value" if row.get("blind") else ""  # a Secret roll's, committed to when declared
    return f"the {who(row['side'])} side publishes the value{blinded} of its Secret fair roll {row['n']}"


def _dice_committed(row: dict, who) -> str:
    return f"the {who(row['side'])} side commits to its fair dice ({row['length']} values)"


def _dice_chain_renewed(row: dict, who) -> str:
    rolls = f"fair rolls {row['first']}-{row['first'] + row['length'] - 1}"
    return f"the {who(row['side'])} side's ledger commits its next {row['chain']} chain ({rolls})"


def _dice_mode_chosen(row: dict, who) -> str:
    return f"the campaign's dice are {row['mode']}"


def _chit_sealed(row: dict, who) -> str:
    return f"the {who(row['side'])} side seals its Initiative chit for {row['cg_date']}"


def _chit_revealed(row: dict, who) -> str:
    return f"the {who(row['side'])} side's Initiative chit: {row['chit']}"


def _dice_witnessed(row: dict, who) -> str:
    events = ", ".join(map(str, row["rolls"]))
    if row.get("disputed"):
        return f"the {who(row['side'])} side disputes the dice of event {events}: {row['disputed']}"
    how = " (its own copy of the VASL log holds the same reports)" if row.get("log_digest") else ""
    return f"the {who(row['side'])} side witnesses the dice of event {events}{how}"


def _side_advanced(row: dict, who) -> str:
    done = f" (done with {', '.join(row['passed'])})" if row["passed"] else ""
    return f"the {who(row['side'])} side walks on to {row['step']}{done}"


def _rewound(row: dict, who) -> str:
    return f"rewind to the end of {row['cg_date']}'s RePh: actions {row['voided'][0]}-{row['voided'][-1]} voided" + (
        f": {row['reason']}" if row["reason"] else "")


_DESCRIBED = {
    "TakeBackProposed": _take_back_proposed,
    "ProposalDeclined": _proposal_declined, "TurnReturned": _turn_returned,
    "CampaignStarted": _campaign_started,
    "DiceRolled": _dice_rolled,
    "ActionUndone": _action_undone,
    "CGDateChanged": _cg_date_changed,
    "TablesOverridden": _tables_overridden,
    "RulesProposed": _rules_proposed,
    "StepOpened": _step_opened,
    "ScenarioEnded": _scenario_ended,
    "InitiativeChosen": _initiative_chosen,
    "RGPurchased": _rg_purchased,
    "RGPurchaseSealed": _rg_purchase_sealed,
    "RGPurchaseRevealed": _rg_purchase_revealed,
    "FirefightEnded": _firefight_ended,
    "FortificationPlaced": _fortification_placed,
    "HiddenFortificationPlaced": _hidden_fortification_placed,
    "HiddenFortificationRevealed": _hidden_fortification_revealed,
    "FortificationRemoved": _fortification_removed,
    "MouseholeMade": _mousehole_made,
    "RubblePlaced": _rubble_placed,
    "CPPGained": _cpp_gained,
    "SecretRollMade": _secret_roll_made,
    "SecretRollRevealed": _secret_roll_revealed,
    "FairDiceCommitted": _fair_dice_committed,
    "FairSeedRevealed": _fair_seed_revealed,
    "SideKeyRegistered": _side_key_registered,
    "LocationControlled": _location_controlled,
    "HQRecorded": _hq_recorded,
    "DiceReported": _dice_reported,
    "VaslLogImported": _vasl_log_imported,
    "FortificationsPurchased": _fortifications_purchased,
    "RollDeclared": _roll_declared,
    "RollDeclarationRevealed": _declaration_revealed,
    "RollAnswered": _roll_answered,
    "RollLapsed": _roll_lapsed,
    "RollValuePublished": _roll_value_published,
    "DiceCommitted": _dice_committed,
    "DiceChainRenewed": _dice_chain_renewed,
    "DiceModeChosen": _dice_mode_chosen,
    "ChitSealed": _chit_sealed,
    "ChitRevealed": _chit_revealed,
    "DiceWitnessed": _dice_witnessed,
    "SideAdvanced": _side_advanced,
    "Rewound": _rewound,
}


def render(row: dict, sides: dict[str, str] | None = None, continues: bool = False) -> str:
    """One log line: the event's number (what `witness`, `reveal` and `--rg` take), a `+` where it belongs to the
    same move as the event before it (a roll's follow-ups, a step's effects), its CG Date, what it records."""
    voided = "  (undone)" if row.get("in_force") is False else ""
    action = "+" if continues else ""
    author = (sides or {}).get(row.get("author"), row.get("author"))
    by = f"  [by {author}{', signed' if row.get('signed') else ''}]" if author else ""
    return f"{row['version']:>5} {action:>1} {row.get('cg_date') or '':>6}  {describe(row, sides)}{voided}{by}"


def side_names(system: str | None) -> dict[str, str] | None:
    """Each side's name in a system (`german` -> German), for log lines in the game's words; None if not known."""
    from cgledger.ledger import rules as rulesmod
    from cgledger.ledger.errors import LedgerError

    try:
        return dict(rulesmod.load(system).system.sides) if system else None
    except (LedgerError, OSError):
        return None


def sides_in(rows) -> dict[str, str] | None:
    """side_names of the campaign these log rows start."""
    return side_names(next((r.get("system") for r in rows if r.get("type") == "CampaignStarted"), None))



def log(obj, as_of: str | None, last: int | None, as_json: bool, echo: Callable[[str], None]) -> None:
    """`log`: the campaign's event log in order, each piece written by `echo` (its own line ends) as it comes."""
    from cgledger.projections.log import iter_log_json, iter_log_rows, json_list

    if as_json and last is None and not as_of:
        return _whole_json(obj, echo)
    rows_of = iter_log_json if as_json else iter_log_rows  # JSON: each row's bytes, most without a dict
    sides = None
    if last is not None and not as_of:  # the tail alone, from the campaign just before it
        store = obj.ledger().store
        before, tail = store.log_tail(obj.campaign, last)
        rows = rows_of(tail, before) if as_json or before is None else rows_of(
            tail, before, lambda action, at: store.events_of_action(before, action, at))
        sides = side_names(getattr(before, "system", None))
    else:
        logged = obj.ledger().read(obj.campaign, as_of)[0] if as_of else obj.ledger().history(obj.campaign)
        rows = rows_of(logged)  # written as they come: the log never stands in memory as text
    if last is not None:
        from collections import deque

        rows = list(deque(rows, maxlen=last))
    if as_json:
        for chunk in json_list(rows):
            echo(chunk.decode())  # text: the web runs commands into a text stream
        return
    for line in rendered(rows, sides):
        echo(line)


def rendered(rows, sides: dict[str, str] | None = None) -> Iterator[str]:
    """The log's lines, each ending its line: a `+` where an event continues the move of the one before it."""
    move = None
    for row in rows:
        if sides is None and row.get("type") == "CampaignStarted":
            sides = side_names(row.get("system"))
        yield render(row, sides, continues=move is not None and row.get("action") == move) + "\n"
        move = row.get("action")


def _whole_json(obj, echo: Callable[[str], None]) -> None:
    """`log --json` of the whole log: a plain SQLite file read with sqlite3 and msgspec alone, a PostgreSQL one
    through libpq (ledger/store/reading.py stored_entries), else through the application; its rows encoded a page at a time."""
    from cgledger.ledger.store.reading import stored_entries
    from cgledger.ledger.store.database import resolve_db
    from cgledger.projections.log import log_json

    entries = stored_entries(resolve_db(obj.db), obj.campaign)
    if entries is None:
        entries = obj.ledger().store.entries(obj.campaign)
    binary = getattr(sys.stdout, "buffer", None)  # the web runs commands into a text stream: no bytes there
    if binary is None:
        for chunk in log_json(entries):
            echo(chunk.decode())
        return
    sys.stdout.flush()
    for chunk in log_json(entries):
        binary.write(chunk)
    binary.flush()


def export(obj, since: str, path, as_json: bool) -> str:
    """`export`: the events the opponent does not have yet (after the fingerprint `since`) written to `path`; the
    line (or JSON) that says so."""
    from cgledger.ledger.domain.wording import counted
    from cgledger.ledger.exchange.bundle import export_bundle
    from cgledger.ledger.store.reading import stored_entries
    from cgledger.ledger.store.database import resolve_db

    # the campaign loaded and checked as every command loads it, kept per log head as a read's answer (a log this
    # machine checked at this head loads nothing for it); the events themselves: every stored row decoded
    name, system = obj.answer("export", (), lambda ledger: reads.export_source(ledger, obj.campaign))
    entries = stored_entries(resolve_db(obj.db), name)
    bundle = export_bundle(obj.ledger().store.entries(name) if entries is None else entries, name, system, since, path)
    if as_json:
        from cgledger.ledger.read.answers import dumps

        return dumps({"campaign": bundle.campaign, "since": bundle.since, "events": len(bundle.events),
                      "to": bundle.events[-1].version}) + "\n"
    return (f"{counted(len(bundle.events), 'event')} ({bundle.since + 1}-{bundle.events[-1].version}) of "
            f"'{bundle.campaign}' written to {path}\n")
