"""Every envelope form a ledger ever wrote still reads, audits and imports, and the log goes on in today's form.
Form 1 digested the fact alone, form 2 its whole stored form (topic, author, command id), form 3 also the request:
the typed command of the action an event opens (ledger/domain/commands.py), which the audit and `import` decide
again, the whole action at once. The bundles under tests/data were written by the ledger of their time: form 1 by
the ledger before signatures (the shipped KGP sample, `demo`), form 2 by a random two-player RR play by email."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from conftest import Cli, Player, count_events
from cgledger.ledger.application import open_ledger
from cgledger.ledger.domain.commands import Control, Step
from cgledger.ledger.domain.events import LocationControlled
from cgledger.ledger.player.keyring import Keyring
from test_trust import GERMAN, US, kinds, table  # noqa: F401 (table: both sides with keys at 8.610)

DATA = Path(__file__).parent / "data"
FORM_1 = DATA / "kgp-sample-form1.json"  # 118 events, unsigned, 19 AM - 20 N
FORM_2 = DATA / "rr-both-at-2507.json"  # 110 events, both sides signed, 19 N
PHRASES = {"german": "Peiper's own words, nobody else's 7", "canadian": "Harrison's own words, nobody else's 9"}


def stored(db) -> int:
    """Events in a store (0 where nothing was ever written, not even its tables)."""
    try:
        return count_events(db)
    except Exception:  # noqa: BLE001 - no ledger there
        return 0


def forms(path: Path) -> set[int]:
    return {e.get("form", 1) for e in json.loads(path.read_text())["events"]}


def test_a_form_1_log_imports_audits_and_goes_on_in_form_3(make_db):
    assert forms(FORM_1) == {1}
    cli = Cli(make_db())
    cli.ok("import", str(FORM_1))
    assert cli.ok("head").stdout.strip() == "118:05cbafd293ed02ef"  # the sender's own head: nothing rewritten
    assert kinds(cli) == []
    cli.ok("step", "next")  # 20 N's Idle Day: on to 21 AM
    rows = cli.json("log")
    assert rows[-1]["cg_date"] == "21 AM" and kinds(cli) == []
    history = open_ledger(str(cli.db)).history(None)
    assert [e.form for e in history[-2:]] == [3, 3]
    assert history[-2].request == Step(target=None) and history[-1].request is None  # one command per action


def test_a_form_2_log_imports_audits_and_goes_on_in_form_3(make_db, tmp_path):
    assert forms(FORM_2) == {2}
    german = Player(make_db(), PHRASES["german"])
    german.ok("import", str(FORM_2))
    assert kinds(german) == []
    german.ok("step", "next")  # a key is its passphrase and the log's salt: the same key on a new machine
    history = open_ledger(str(german.db)).history(None)
    assert (history[-1].form, history[-1].author, bool(history[-1].signature)) == (3, "german", True)
    assert isinstance(history[-1].request, Step) and kinds(german) == []
    path = tmp_path / "on.json"
    german.ok("export", "--since", "0", str(path))
    other = Cli(make_db())
    other.ok("import", str(path))  # the mixed log travels whole
    assert other.ok("head").stdout == german.ok("head").stdout and kinds(other) == []


def _record(db, fact_of, request, signer: str, side: str, command: str = "") -> None:
    """What a cheater's own ledger writes straight into the store: a fact with the command he says made it."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    sign = Keyring(signer.encode()).signer(campaign, ledger.rules_for(campaign), side)
    campaign.record(fact_of(campaign), side, sign, command, request)
    ledger.store.save(campaign)


@pytest.fixture
def mapped(at):
    """Both sides with keys during a KGP CG scenario, the St map loaded (Control may be recorded)."""
    cli = at("scenario")
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    german.ok("keys", "init", "--side", "german")
    us.ok("keys", "init", "--side", "us")
    german.ok("rules", "load", str(Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"))
    us.ok("accept")
    return german, us, Cli(cli.db)


def test_each_action_keeps_the_command_that_made_it_and_the_audit_decides_it(mapped):
    german, us, anyone = mapped
    us.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    event = open_ledger(str(anyone.db)).history(None)[-1]
    assert event.request == Control(location="StJ19", side="us", strategic="B")
    assert kinds(anyone) == []


def test_the_stored_command_is_decided_again_and_what_it_does_not_decide_is_named(mapped, make_db, tmp_path):
    """The German records a Control change whose stored command names another Location: the audit decides the
    stored command and names the difference; `import` refuses the log, writing nothing."""
    german, us, anyone = mapped
    before = count_events(anyone.db)
    _record(anyone.db, lambda c: LocationControlled(action=c.next_action, location="StJ19", side="german"),
            Control(location="StK17", side="german"), GERMAN, "german")
    found = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert [(f["version"], f["kind"]) for f in found] == [(before + 1, "decision")], found
    assert "location recorded 'StJ19', the rules give 'StK17'" in found[0]["message"], found
    path = tmp_path / "forged.json"
    german.ok("export", "--since", "0", str(path))
    fresh = Cli(make_db())
    fresh.refused("import", str(path), contains="forged or that the rules do not bear out")
    assert stored(fresh.db) == 0


def test_a_command_stored_inside_an_action_is_named(mapped):
    german, us, anyone = mapped
    german.ok("control", "StJ19", "--side", "german")
    _record(anyone.db, lambda c: LocationControlled(action=c.next_action - 1, location="StK17", side="german"),
            Control(location="StK17", side="german"), GERMAN, "german")
    messages = [f["message"] for f in json.loads(anyone("audit", "--json").stdout)["findings"]]
    assert any("carries a command inside an action" in m for m in messages), messages


def test_a_roll_is_decided_from_the_command_stored_with_it(mapped):
    """A roll's stored command carries the dice asked for (entered, VASL or the ledger's): a fact holding other
    dice than its own command is named, by what differs."""
    german, us, anyone = mapped
    german.ok("roll", "KGP3", "--side", "german", "--dice", "2,1")
    honest = open_ledger(str(anyone.db)).history(None)[-1]
    assert honest.request.faces == (2, 1) and kinds(anyone) == []
    request = msgspec.structs.replace(honest.request, faces=(6, 6))
    _record(anyone.db, lambda c: msgspec.structs.replace(honest.fact, action=c.next_action), request, GERMAN,
            "german")
    found = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert [f["kind"] for f in found] == ["result"]
    assert "the table gives 'Mist density increases one level' for a Final 12" in found[0]["message"]


def test_a_due_item_of_an_older_reading_is_kept_only_in_a_log_of_that_time(make_db):
    """The form-1 sample rolled 8.625 (one first-move dr per Dual Attack) under the older per-side item. A log of
    that time keeps it; the same fact written in today's form is decided by today's reading, and named."""
    from cgledger.ledger.decide.redecide import redecide
    from cgledger.ledger.domain.evolve import fold

    cli = Cli(make_db())
    cli.ok("import", str(FORM_1))
    history = open_ledger(str(cli.db)).history(None)
    event = next(e for e in history if getattr(e.fact, "table", "") == "8.625")
    before = [e for e in history if e.version < event.version]
    state = fold(before)
    assert event.fact.item == f"8.625|{event.fact.side}|{state.cg_date}"
    assert redecide(state, [event.fact], before, {}, event.author, form=1) == []
    found = redecide(state, [event.fact], before, {}, event.author, form=3)
    assert found and "item" in found[0][1], found


def test_a_log_never_goes_back_to_an_older_form(make_db, tmp_path):
    """Form 2's digest leaves the command out, so an act written in it after form 3 would escape being decided again
    from its command: no ledger writes it, `import` refuses it (nothing written) and the audit names it."""
    from cgledger.ledger.exchange.bundle import read_bundle, write_bundle
    from cgledger.ledger.store.campaign import campaign_id
    from cgledger.ledger.trust import chain

    cli = Cli(make_db())
    cli.ok("new", "CG I", "--cg", "I")
    cli.ok("step", "next")
    path = tmp_path / "all.json"
    cli.ok("export", "--since", "0", str(path))
    bundle = read_bundle(path)
    older = msgspec.structs.replace(bundle.events[-1], form=2, request=None)
    older = msgspec.structs.replace(older, digest=chain.event_digest(campaign_id(bundle.campaign), older))
    write_bundle(msgspec.structs.replace(bundle, events=[*bundle.events[:-1], older]), path)
    other = Cli(make_db())
    other.refused("import", str(path), contains="is written in an older form than the events before it")
    assert stored(other.db) == 0


def test_a_lapse_of_an_older_form_is_decided_from_its_fact(table):  # noqa: F811 - test_trust's fixture
    """A lapse recorded alone (a log written before each act kept its command) is its own side's, of a roll made
    only for one result of its RG's strength: the other side lapsing an open roll it must answer, after seeing its
    dice, is named. Today's form decides the same lapse from its command."""
    from cgledger.ledger.decide.redecide import redecide
    from cgledger.ledger.domain.events import RollDeclared, RollLapsed
    from cgledger.ledger.domain.evolve import fold

    german, us, anyone = table
    german.ok("roll", "8.610", "--side", "german", "--for", "A")  # fair dice: declared, the U.S. ledger answers
    history = open_ledger(str(anyone.db)).history(None)
    declared = next(e for e in reversed(history) if isinstance(e.fact, RollDeclared))
    state = fold(history)
    lapse = RollLapsed(action=state.next_action, declared=declared.version, side="german")
    for form in (2, 3):
        found = redecide(state, [lapse], history, {}, "us", form=form)
        assert found and "was declared without condition: it is made, never lapsed" in found[0][1], (form, found)
