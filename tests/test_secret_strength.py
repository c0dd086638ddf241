"""8.6201 / 8.6204: a German RG's strength is a Secret DR, and a Depleted infantry platoon's SW drs are Secret too.
Declared before the strength is known (fair dice), the SW drs are made only if it gives 'D'. The one ledger that
knows the strength makes them or voids them, and what the other side sees is the same either way: every declared
roll made and sealed, none lapsed in the open. Revealed, a void roll is decided again: void only where the strength
called for no such roll."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import Cli, Player, named_and_refused, sql
from cgledger.ledger.application import open_ledger
from cgledger.ledger.player.keyring import Keyring

GERMAN, US = "Peiper's own words", "Harrison's own words"
CHART = (Path(__file__).parent / "data" / "kgp-rg-test-chart.toml").read_text()
STRENGTH = '''source = "test: every German RG {result}"
[[table]]
id = "8.6201"
step = "8.620"
effect = "rg_strength"
rule = "8.6201"
per = "rg"
per_rule = "8.6201"
title = "German RG Strength Table (test: always {result})"
die = "DR"
secret = true
sides = ["german"]
rows = [ {{ min = 2, result = "{result}", code = "{code}" }} ]
'''
RESULTS = {"F": "Full Strength", "D": "Depleted"}


@pytest.fixture
def start(at, tmp_path):
    """A KGP campaign at 8.619 on 21 AM, both sides with keys, every German RG's strength `code` (a rules file)."""
    def started(code: str):
        cli = at("8.619", "21 AM")
        for name, text in (("chart", CHART), ("strength", STRENGTH.format(result=RESULTS[code], code=code))):
            path = tmp_path / f"{name}-{code}.toml"
            path.write_text(text)
            cli.ok("rules", "load", str(path))
        german, us, anyone = Player(cli.db, GERMAN), Player(cli.db, US), Player(cli.db, None)
        german.ok("keys", "init", "--side", "german")
        us.ok("keys", "init", "--side", "us")
        return german, us, anyone
    return started


def followed_up(start, code: str, how: str = "--secret"):
    """An I2 bought (in secret, or in the open), its strength and the SW drs a 'D' calls for declared in one go,
    answered, and made by the German's ledger: (German, U.S., anyone, the purchase's event)."""
    german, us, anyone = start(code)
    german.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", how)
    bought = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    assert len(german.json("follow-ups", "--side", "german")) == 4  # the strength, three SW drs for a 'D'
    us.ok("answer")
    german.ok("status")  # its ledger makes the answered rolls: the SW drs made or void, as the strength says
    return german, us, anyone, bought


def seen_by_the_us(us, bought: int) -> list:
    """What the U.S. log shows of the follow-ups, without what differs from one campaign to another (commitments,
    sealed texts, chain values and times)."""
    kept = ("type", "side", "table", "rg", "n", "fair", "purpose", "action", "version", "secret", "if_result")
    return [{k: v for k, v in row.items() if k in kept} for row in us.json("log") if row["version"] > bought]


def sealed_lengths(db, bought: int) -> set[int]:
    rows = sql(db, "SELECT state FROM {events} WHERE originator_version > ?", (bought,))
    return {len(text) for (state,) in rows for text in re.findall(r'"sealed":"([^"]+)"', bytes(state).decode())}


@pytest.mark.parametrize("how", ["--secret", "--open"])
def test_the_other_side_cannot_tell_a_full_rg_from_a_depleted_one(start, how):
    """8.6201: the strength is a Secret DR. A Full RG's SW drs are void, a Depleted one's made: both look alike to
    the U.S., in its log, its status and the stored bytes it receives."""
    seen, lengths = {}, {}
    for code in ("F", "D"):
        german, us, anyone, bought = followed_up(start, code, how)
        seen[code] = seen_by_the_us(us, bought)
        lengths[code] = sealed_lengths(us.db, bought)
        assert "RollLapsed" not in {row["type"] for row in anyone.json("log")}
        assert german.json("rg-record", "--side", "german")[0]["str"] == code  # its own books know
        assert not us.json("rg-record", "--side", "german")[0]["str"]
        shown = us.ok("log").stdout + us.ok("status").stdout + us.ok("history").stdout
        assert "lapse" not in shown and "void" not in shown, shown
    assert seen["F"] == seen["D"]
    assert len(lengths["F"] | lengths["D"]) == 1, lengths
    types = [row["type"] for row in seen["F"]]
    assert types.count("SecretRollMade") == 4, types


@pytest.mark.parametrize("code", ["F", "D"])
def test_revealed_the_void_rolls_are_decided_again_and_the_audit_is_clean(start, code):
    german, us, anyone, bought = followed_up(start, code)
    rolls = json.loads(anyone("audit", "--json").stdout)["rolls"]
    german.ok("step", "8.621")
    said = german.ok("reveal", "--all", "--side", "german").stdout
    assert said.count("made void, as its RG's strength called for no such roll") == {"F": 3, "D": 0}[code], said
    assert "kept the count" not in said  # an I2 declares as many follow-ups as any German RG may
    report = json.loads(anyone("audit", "--json", "--final").stdout)
    assert report["clean"] and report["pending"] == [], report
    assert report["rolls"] - rolls == {"F": 1, "D": 4}[code]  # a roll made void is no roll
    record = us.json("rg-record", "--side", "german")[0]
    assert record["str"] == code
    shown = us.ok("log").stdout
    assert ("void" in shown) == (code == "F"), shown  # what the reveal shows of a void roll, in words
    assert "None" not in shown and "RollLapsed" not in shown


def test_a_void_roll_the_strength_called_for_is_named_once_revealed_and_refused_on_import(start, make_db, tmp_path):
    """A doctored ledger that sees a Depleted RG's SW dice before making them (its roll values and the answers give
    them) cannot drop the SW drs as void: the honest ledger refuses to reveal such a void; a doctored one that
    reveals it anyway is named by the audit, and a fresh ledger refuses the log."""
    import msgspec

    from cgledger.ledger.domain.commands import RevealRoll
    from cgledger.ledger.domain.events import RollLapsed, SecretRollRevealed
    from cgledger.ledger.player import fairplay
    from cgledger.ledger.trust.secrets import commitment

    german, us, anyone = start("D")
    german.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--open")
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    german.ok("follow-ups", "--side", "german")
    us.ok("answer")
    ledger = open_ledger(str(german.db))
    ledger.keyring = Keyring(GERMAN.encode())
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    voids = {}
    for made, (request, facts) in enumerate(fairplay.owed(campaign, rules, ledger.books, [])):
        if made:  # the SW drs: void, though the strength gave 'D' (each made in an action of its own)
            entry = campaign.declared[f"german:{request.fair}"]
            void = RollLapsed(action=campaign.next_action, declared=entry["version"], side="german")
            salt, text = ledger.keyring.seal(campaign, rules, void)
            request = msgspec.structs.replace(request, commitment=commitment(void, salt), sealed=text)
            facts = ledger.decided(campaign, rules, request)
            voids[campaign.version + 1] = (void, salt)
        ledger.put(campaign, *facts, request=request)
    assert len(voids) == 3
    ledger.store.save(campaign)
    assert json.loads(anyone("audit", "--json").stdout)["clean"]  # sealed: nobody can tell yet
    strength = min(voids) - 1
    german.ok("reveal", str(strength))  # 'D', in the open now
    first = min(voids)
    german.refused("reveal", str(first), contains="made void, though its RG's strength roll gave 'D'")
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    void, salt = voids[first]
    fact = SecretRollRevealed(action=campaign.next_action, roll=first, fact=void, salt=salt)
    campaign.record(fact, "german", Keyring(GERMAN.encode()).signer(campaign, rules, "german"), "",
                    RevealRoll(roll=first, fact=void, salt=salt))
    ledger.store.save(campaign)
    named_and_refused(german, Cli(make_db()), tmp_path, "secret", "made void, though its RG's strength roll gave 'D'")


@pytest.mark.parametrize("rg", ["I2", "V1", "HW1"])
def test_every_rg_bought_in_secret_declares_as_many_follow_ups(start, rg):
    """8.619: which RG was bought is secret too. An I2 declares its strength and three SW drs for a 'D', a V1 its
    strength and an armor leader, an HW1 its strength and two Equipment drs for a 'D': each declares as many as the
    most any German line may (four), the others keeping the count, made void. Revealed, the audit is clean."""
    german, us, anyone = start("F")  # (a Depleted HW1 rolls a second round when the first falls short: 8.6205)
    more = ("--map-group", "St", "--objective", "StJ19") if rg != "V1" else ("--map-group", "St")
    german.ok("buy", rg, "--side", "german", *more)
    bought = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    declared = german("follow-ups", "--side", "german")
    assert declared.exit_code == 0, declared.stderr
    us.ok("answer")
    german.ok("status")
    seen = [row["type"] for row in seen_by_the_us(us, bought)]
    assert seen.count("RollDeclared") == 4 and seen.count("SecretRollMade") == 4, seen
    german.ok("step", "8.621")
    said = german.ok("reveal", "--all", "--side", "german").stdout  # a Full RG: what a 'D' calls for is void
    assert said.count("made void, as its RG's strength called for no such roll") == {"I2": 3, "V1": 0, "HW1": 2}[rg]
    assert said.count("kept the count") == {"I2": 0, "V1": 2, "HW1": 1}[rg], said
    report = json.loads(anyone("audit", "--json", "--final").stdout)
    assert report["clean"] and report["pending"] == [], report
    shown = us.ok("log").stdout
    assert "None" not in shown and "on  " not in shown, shown
    assert shown.count("kept the count") == {"I2": 0, "V1": 2, "HW1": 1}[rg], shown


@pytest.mark.parametrize("how, first", [("--secret", "follow-ups"), ("--open", "roll")])
def test_status_offers_a_secret_rgs_follow_ups_all_at_once(start, how, first):
    """What a player pastes from `status` keeps the count: for an RG bought in secret, `follow-ups` (every one due,
    the count kept) comes first; one roll at a time would show how many its RG calls for."""
    german, us, anyone = start("F")
    german.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", how)
    offered = german.json("status")["next_acts"]
    assert offered and offered[0]["command"].split()[1] == first, offered
    assert any(c.split()[1] != first for c in offered[0]["commands"]), offered  # the other way stays offered


def test_a_secret_rgs_follow_up_declared_alone_says_what_it_shows(start):
    german, us, anyone = start("F")
    german.ok("buy", "V1", "--side", "german", "--map-group", "St")
    us.ok("step", "8.620")
    alone = german.ok("roll", "8.6201", "--side", "german", "--rg", "V1#1")
    assert "declared alone" in alone.stderr and "cgledger follow-ups --side german" in alone.stderr, alone.stderr
    together = german.ok("follow-ups", "--side", "german")  # its leader roll, then two that keep the count
    assert "declared alone" not in together.stderr and "keep the count" in together.stderr, together.stderr
    assert [r["type"] for r in anyone.json("log")].count("RollDeclared") == 4


def test_a_revealed_follow_up_that_kept_the_count_says_so_and_the_one_the_strength_voided_says_that(start):
    """A V1 bought in secret declares 8.6201 and 8.6206/armor and two more that keep the count (8.619): revealed,
    those two say they kept the count; nothing else is void for a Full V1."""
    german, us, anyone = start("F")
    german.ok("buy", "V1", "--side", "german", "--map-group", "St", "--secret")
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    german.ok("follow-ups", "--side", "german")
    us.ok("answer")
    german.ok("status")
    german.ok("step", "8.621")
    shown = german.json("reveal", "--all", "--side", "german")
    void = [r for r in shown if r.get("void")]
    assert len(void) == 2 and all(r["kept_count"] for r in void), shown
    assert {r["table"] for r in shown if "dice" in r and r["dice"]} == {"8.6201", "8.6206/armor"}, shown
    assert json.loads(anyone("audit", "--json", "--final").stdout)["clean"]
