"""8.619 / 8.6192 (RR 2.518): RG purchases kept secret. "The CPP expended, those remaining, and
the RG(s) purchased may all be kept secret": sealed with the buyer's key, the other side sees only that one RG
was bought; the buyer's own ledger checks every limit at purchase; on reveal the audit decides the purchase again
as its buyer knew the campaign, and `import` refuses one that the ledger would have refused."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import Cli, Player, named_and_refused, sql
from cgledger.ledger.application import open_ledger
from cgledger.ledger.errors import BadInput
from cgledger.ledger.domain.commands import SealPurchase
from cgledger.ledger.domain.events import RGPurchased, RGPurchaseRevealed, RGPurchaseSealed
from cgledger.ledger.player.keyring import Keyring
from cgledger.ledger.trust.secrets import commitment, derive_key, new_salt, seal_purchase, unseal_purchase

GERMAN, US = "Peiper's own words", "Harrison's own words"
CHART = (Path(__file__).parent / "data" / "kgp-rg-test-chart.toml").read_text()
# I2 at most once per CG Date and Map Group (8.6195), twice in the CG (8.6196); V1 dearer than any CPP held
LIMITS = CHART.replace('id = "I2"\ngroup_type = "SS Inf Pltn"\ncost = 1\ndate_max = 4\ncg_max = { I = 20, II = 20, III = 20 }',
                       'id = "I2"\ngroup_type = "SS Inf Pltn"\ncost = 2\ndate_max = 1\ncg_max = { I = 2, II = 2, III = 2 }')
LIMITS = LIMITS.replace('id = "V1"\ngroup_type = "Pz IV Sect"\ncost = 1', 'id = "V1"\ngroup_type = "Pz IV Sect"\ncost = 500')


@pytest.fixture
def table(at, tmp_path):
    """A KGP campaign at 8.619 on 21 AM, the RG chart loaded, both sides with keys."""
    return _table(at, tmp_path)


@pytest.fixture
def typed_table(at, tmp_path):
    """`table` with the dice typed (no fair dice: with them a Refit Phase Secret roll takes fair dice)."""
    return _table(at, tmp_path, "immediate")


def _table(at, tmp_path, dice: str = ""):
    cli = at("8.619", "21 AM")
    chart = tmp_path / "chart.toml"
    chart.write_text(LIMITS)
    cli.ok("rules", "load", str(chart))
    if dice:
        cli.ok("fair-dice", "mode", dice)
    german, us, anyone = Player(cli.db, GERMAN), Player(cli.db, US), Player(cli.db, None)
    german.ok("keys", "init", "--side", "german", *(("--dice", dice) if dice else ()))
    us.ok("keys", "init", "--side", "us", *(("--dice", dice) if dice else ()))  # the key set up last agrees to them
    return german, us, anyone


def buy_i2(player, *more: str) -> dict:
    return player.json("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", *more)


def audit(cli, *more: str) -> dict:
    result = cli("audit", "--json", *more)
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["clean"] else 1)
    return report


def test_a_secret_purchase_shows_the_other_side_only_that_one_rg_was_bought(table):
    german, us, anyone = table
    before = us.json("status")["cpp"]["german"]
    bought = buy_i2(german)
    assert bought["secret"] is True and bought["rg"] == "I2" and bought["cpp"] == 2  # the buyer sees its purchase
    row = anyone.json("log")[-1]
    assert row["type"] == "RGPurchaseSealed" and row["side"] == "german" and row["cg_date"] == "21 AM"
    assert "rg" not in row and "cpp" not in row and "objective" not in row and len(row["commitment"]) == 64
    # 8.6192: ID and Group Type are recorded secretly; the other side's key cannot open them
    state = open_ledger(str(german.db)).campaign(None)
    with pytest.raises(BadInput, match="does not open"):
        unseal_purchase(derive_key(US.encode(), state.keys["us"]["salt"]), row["sealed"])
    opened = unseal_purchase(derive_key(GERMAN.encode(), state.keys["german"]["salt"]), row["sealed"]).fact
    assert (opened.rg, opened.objective, opened.cpp) == ("I2", "StJ19", 2)
    # the RG Purchase Record and the CG Roster: the buyer's own, the other side's without what was bought or spent
    theirs, mine = us.json("rg-record", "--side", "german"), german.json("rg-record", "--side", "german")
    assert theirs == [{**theirs[0], "id": None, "group_type": "(bought in secret)", "cpp": None, "objective": None}]
    assert (mine[0]["id"], mine[0]["group_type"], mine[0]["objective"], mine[0]["cpp"]) == ("I2", "SS Inf Pltn",
                                                                                            "StJ19", 2)
    their_roster, my_roster = us.json("roster", "--side", "german")[-1], german.json("roster", "--side", "german")[-1]
    assert their_roster["spent"] is None and their_roster["left"] is None and their_roster["secret"] is True
    assert their_roster["rg"] == [{"id": None, "cpp": None, "text": "RG bought in secret"}]
    assert my_roster["spent"] == 2 and my_roster["rg"] == [{"id": "I2", "cpp": 2}]
    assert "I2" not in us.ok("rg-record", "--side", "german").stdout
    assert "RG bought in secret" in us.ok("history").stdout and "I2 (2)" in german.ok("history").stdout
    # status: the other side is told its CPP figure stops before the secret purchase; the buyer sees its own
    seen = us.json("status")
    assert seen["secret_purchases"] == {"german": 1} and seen["cpp"]["german"] == before
    assert german.json("status")["cpp"]["german"] == before - 2
    assert "the German side bought 1 RG in secret (8.619): its CPP above is before them" in us.ok("status").stdout
    said = german.ok("status").stdout  # to its buyer: its own purchase, counted in its own CPP
    assert "you bought 1 RG in secret (8.619): your CPP above counts them" in said and "German side bought" not in said
    assert german.json("status")["own_secrets"] == "german" and us.json("status")["own_secrets"] == "us"
    report = audit(anyone)
    assert report["clean"] and any("RG bought in secret on 21 AM was never revealed" in p["what"]
                                   for p in report["pending"])
    final = audit(anyone, "--final")
    assert not final["clean"] and [f["kind"] for f in final["findings"]] == ["pending"]


def test_the_buyers_ledger_checks_every_limit_at_purchase(table):
    german, us, anyone = table
    buy_i2(german)
    events = anyone.events()
    german.refused("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ20",
                   contains="at most 1 SS Inf Pltn (I2) per CG Date per Map Group; 1 already bought for St on 21 AM "
                            "(8.6195)")
    german.refused("buy", "V1", "--side", "german", "--map-group", "St", contains="costs 500 CPP")
    # the limits read the buyer's secret books: nobody else can decide them, so nobody else can buy for it
    anyone.refused("buy", "I2", "--side", "german", "--map-group", "Ch", "--objective", "ChK5",
                   contains="give its passphrase")
    us.refused("buy", "I2", "--side", "german", "--map-group", "Ch", "--objective", "ChK5",
               contains="not the German side's")
    assert anyone.events() == events
    buy_i2(german, "--map-group", "Ch", "--objective", "ChK5")  # another Map Group: allowed (8.6195)
    german.refused("buy", "I2", "--side", "german", "--map-group", "Lg", "--objective", "LgN25",
                   contains="may buy at most 2 SS Inf Pltn (I2) in CG I and has bought 2 (8.6196)")
    assert anyone.events() == events + 1


def test_an_open_purchase_stays_open_and_a_keyless_side_buys_openly(table):
    german, us, anyone = table
    bought = buy_i2(german, "--open")
    assert bought["secret"] is False and anyone.json("log")[-1]["type"] == "RGPurchased"
    assert us.json("rg-record", "--side", "german")[0]["id"] == "I2"


def test_follow_up_rolls_of_a_secret_rg_are_secret_and_read_the_buyers_books(typed_table):
    german, us, anyone = typed_table
    buy_i2(german)
    version = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")  # the U.S. is done with 8.619; the German may still buy there: the campaign waits
    assert anyone.json("status")["step"] == "8.619"
    german.ok("step", "8.620")
    assert anyone.json("status")["step"] == "8.620"
    # the buyer's status names the roll its RG still needs; the other side cannot know it
    mine = german.json("status")["needs"]
    assert [(n["table"], n["rg"]) for n in mine] == [("8.6201", version)]
    assert us.json("status")["needs"] == []
    german.refused("step", "8.621", contains="8.6201")  # its own RG's roll first
    german.refused("roll", "8.6206/armor", "--side", "german", "--rg", "I2#1", "--dice", "3,3",
                   contains="not due for RG I2")
    rolled = german.json("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "1,1")  # Full
    assert rolled["sealed"] is True  # a secret RG's follow-ups are Secret too
    assert anyone.json("log")[-1]["type"] == "SecretRollMade"
    german.ok("step", "8.621")
    assert audit(anyone)["clean"]


def test_reveal_publishes_the_purchase_and_the_audit_decides_it_again(table):
    german, us, anyone = table
    cpp = german.json("status")["cpp"]["german"]
    buy_i2(german)
    us.refused("reveal", str(anyone.json("log")[-1]["version"]), contains="not the German side's")
    german.ok("reveal", "--all", "--side", "german")
    row = anyone.json("log")[-1]
    assert row["type"] == "RGPurchaseRevealed" and row["fact"]["rg"] == "I2"
    assert us.json("rg-record", "--side", "german")[0]["id"] == "I2"
    assert us.json("status")["cpp"]["german"] == cpp - 2 and us.json("status")["secret_purchases"] == {}
    assert us.json("roster", "--side", "german")[-1]["spent"] == 2
    report = audit(anyone, "--final")
    assert report["clean"] and report["pending"] == []


def test_undo_takes_back_a_secret_purchase(table):
    german, us, anyone = table
    cpp = german.json("status")["cpp"]["german"]
    buy_i2(german)
    german.ok("undo")
    assert german.json("status")["secret_purchases"] == {} and german.json("status")["cpp"]["german"] == cpp
    assert german.json("rg-record", "--side", "german") == []


# ---- a buyer who cheats: its own ledger would refuse, so the audit on reveal and `import` do ------------------------
def forge_secret(db, passphrase: str, purchase) -> int:
    """Writes what a buyer with a doctored ledger could: a secret purchase the ledger would refuse, sealed and
    signed with the buyer's own key. Returns its event."""
    def make(campaign, rules, keyring):
        fact, salt = purchase(campaign), new_salt()
        sealed = seal_purchase(keyring.key(campaign, rules, fact.side), fact, salt)
        made = RGPurchaseSealed(action=campaign.next_action, side=fact.side, cg_date=campaign.cg_date,
                                commitment=commitment(fact, salt), sealed=sealed)
        return made, SealPurchase(side=fact.side, commitment=made.commitment, sealed=sealed)  # as its ledger keeps it
    return forge(db, passphrase, make)


def i2(campaign, objective: str = "StJ19", cpp: int = 2) -> RGPurchased:
    return RGPurchased(action=campaign.next_action, side="german", rg="I2", group_type="SS Inf Pltn", cpp=cpp,
                       map_group="St", objective=objective, rolls=("8.6201",))


def test_a_secret_purchase_over_a_limit_is_named_on_reveal_and_refused_on_import(table, make_db, tmp_path):
    german, us, anyone = table
    buy_i2(german)
    forge_secret(german.db, GERMAN, lambda c: i2(c, "StJ20"))  # a second I2 for St on one CG Date
    assert audit(anyone)["clean"]  # sealed: nobody but the buyer can tell yet
    german.ok("reveal", "--all", "--side", "german")
    assert "once revealed" in audit(anyone)["findings"][0]["message"]
    named_and_refused(german, Cli(make_db()), tmp_path, "decision", "per CG Date per Map Group; 1 already bought "
                                                                    "for St on 21 AM (8.6195)")


def test_a_secret_purchase_that_under_states_its_cost_is_named_on_reveal(table):
    german, us, anyone = table
    forge_secret(german.db, GERMAN, lambda c: i2(c, cpp=0))  # I2 costs 2
    german.ok("reveal", "--all", "--side", "german")
    findings = audit(anyone)["findings"]
    assert [f["kind"] for f in findings] == ["decision"] and "cpp recorded 0, the rules give 2" in findings[0]["message"]


def test_a_reveal_that_changes_the_purchase_is_refused(table, make_db, tmp_path):
    german, us, anyone = table
    buy_i2(german)
    made = anyone.json("log")[-1]["version"]
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    keyring = Keyring(GERMAN.encode())
    salt = unseal_purchase(keyring.key(campaign, rules, "german"), ledger.history(None)[-1].fact.sealed).salt
    changed = RGPurchased(action=campaign.next_action - 1, side="german", rg="V1", group_type="Pz IV Sect", cpp=2,
                          map_group="St", rolls=("8.6201", "8.6206/armor"))
    campaign.record(RGPurchaseRevealed(action=campaign.next_action, purchase=made, fact=changed, salt=salt), "german",
                    keyring.signer(campaign, rules, "german"))
    ledger.store.save(campaign)
    named_and_refused(german, Cli(make_db()), tmp_path, "secret", "does not match its commitment")


def test_no_side_takes_the_buyer_of_a_secret_rg_past_its_follow_ups(table):
    """8.619, 8.620: what a secret RG owes in the follow-up step only its buyer's books say, so the other side walks
    on alone and the campaign waits there for the buyer, who leaves once its books owe nothing (no finding at
    reveal: nobody was taken past a roll it owed)."""
    german, us, anyone = table
    buy_i2(german)
    german.ok("step", "8.620")  # the German walks on, done buying (the U.S. may still buy: the campaign waits)
    before = anyone.events()
    walked = us.ok("step", "8.621")  # the U.S. cannot know the German RG still owes its 8.6201
    status = anyone.json("status")
    assert status["step"] == "8.620", walked.stdout  # the U.S. walked on alone, the campaign stays for the German
    assert "bought in secret" in status["progress"]["german"]["may"]
    assert anyone.events() > before
    before = anyone.events()
    refused = german("step", "8.621")
    assert refused.exit_code != 0 and "8.6201" in refused.output  # its own books owe the roll
    assert anyone.events() == before  # nothing written
    german.ok("follow-ups", "--side", "german")
    us.ok("answer")
    german.ok("step", "8.621")  # its Secret rolls made first, then it leaves: the campaign with it
    assert anyone.json("status")["step"] == "8.621"
    assert audit(anyone)["clean"]
    german.ok("reveal", "--all", "--side", "german")
    assert audit(anyone)["clean"]


def test_rr_purchases_are_secret_too(rr, tmp_path):
    canadian, german = Player(rr.db, US), Player(rr.db, GERMAN)
    rr.to("2.518")
    german.ok("keys", "init", "--side", "german")
    canadian.ok("keys", "init", "--side", "canadian")
    bought = german.json("buy", "I1", "--side", "german")
    assert bought["secret"] is True
    assert Player(rr.db, None).json("log")[-1]["type"] == "RGPurchaseSealed"
    german.ok("reveal", "--all", "--side", "german")
    assert audit(Player(rr.db, None))["clean"]


def test_fair_dice_for_a_secret_rgs_follow_up(table):
    """Fair dice (the default with both keys): the German declares its RG's Secret strength roll, the U.S. answers,
    the German's ledger makes it on its own books; revealed, both sides' audits re-check it all."""
    german, us, anyone = table
    buy_i2(german)
    us.ok("step", "8.620")
    german.ok("step", "8.620")  # each side walks the RePh: the German leaves its purchase step itself
    declared = german.json("roll", "8.6201", "--side", "german", "--rg", "I2#1")
    assert declared["dice"] is None
    us.ok("answer")
    german.ok("status")  # its ledger makes the answered Secret roll
    assert anyone.json("log")[-1]["type"] == "SecretRollMade"
    assert german.json("rg-record", "--side", "german")[0]["str"] in ("F", "D")
    german.ok("reveal", "--all", "--side", "german")
    report = audit(anyone, "--final")
    assert report["clean"], report["findings"]


def test_an_honest_secret_purchase_travels_by_email_and_stays_secret(typed_table, make_db, tmp_path):
    german, us, anyone = typed_table
    buy_i2(german)
    german.ok("step", "8.620")
    german.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "1,1")
    bundle = tmp_path / "bundle.json"
    german.ok("export", "--since", "0", str(bundle))
    theirs = Player(make_db(), US)
    theirs.ok("import", str(bundle))
    assert theirs.json("rg-record", "--side", "german")[0]["group_type"] == "(bought in secret)"
    assert audit(theirs)["clean"]


# ---- the follow-ups of an RG bought in secret, veiled until it is revealed (8.619) ------------------------------------
def stored_after(db, version: int) -> str:
    """Every stored byte of the events after `version`: what travels to the other side (facts and commands)."""
    rows = sql(db, "SELECT originator_version, state FROM {events} WHERE originator_version > ?", (version,))
    return "".join(bytes(state).decode("utf-8", "replace") for _v, state in rows)


def test_the_follow_ups_of_a_secret_rg_do_not_name_it_until_it_is_revealed(table):
    """8.619: "the RG(s) purchased may all be kept secret". Its follow-up rolls (8.620) would name it: 8.6201 is a
    German RG's strength, 8.6204 the SW dr's of a Depleted infantry platoon. Declared, answered and made with their
    tables, DRMs and conditions sealed, they show the other side only that the German rolled for that RG; revealed
    with the RG, they are decided again, whole."""
    german, us, anyone = table
    buy_i2(german)
    bought = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    german.ok("follow-ups", "--side", "german")  # the strength, and the SW dr's a 'D' would call for
    waiting, text = german.json("status")["waiting"], german.ok("status").stdout
    lines = [line for line in text.splitlines() if line.strip().startswith("waiting:")]
    assert len(waiting) >= 2 and 1 <= len(lines) < len(waiting), text  # the same roll waiting said once, counted
    assert any(re.match(r"\s+waiting: \d+ Secret fair rolls of the German side for RG I2#1 wait for", line)
               for line in lines), lines
    us.ok("answer")
    german.ok("status")  # its ledger makes its answered rolls (the SW dr's made or lapsed by the strength)
    travels = stored_after(german.db, bought)
    for named in ("8.6201", "8.6204", "SS Inf Pltn", "StJ19"):
        assert named not in travels, named
    rows = sql(german.db, "SELECT topic, state FROM {events} WHERE originator_version >= ?", (bought,))
    sealed = [text for topic, state in rows if topic in ("RGPurchaseSealed", "RollDeclared", "SecretRollMade")
              for text in re.findall(r'"sealed":"([^"]+)"', bytes(state).decode())]
    assert len(sealed) >= 4 and len({len(text) for text in sealed}) == 1  # no length tells Full from Depleted
    rows = [json.dumps(row) for row in us.json("log") if row["version"] > bought]
    seen = rows + (us.ok("log").stdout + us.ok("status").stdout + us.ok("history").stdout).splitlines()
    for line in seen + [json.dumps(us.json("status"))]:
        assert not re.search(r"8\.620[14](?![-0-9])", line), line  # (8.6201-.6206: the step's own words)
    assert german.json("rg-record", "--side", "german")[0]["str"] in ("F", "D")  # its own books open them
    assert us.json("rg-record", "--side", "german")[0]["str"] in (None, "")
    assert audit(anyone)["clean"]
    made = next(r["version"] for r in anyone.json("log") if r["type"] == "SecretRollMade" and r["rg"] == bought)
    german.refused("reveal", str(made), contains="revealed with that RG")  # not alone: with the RG, every one
    german.ok("step", "8.621")
    german.ok("reveal", "--all", "--side", "german")
    shown = us.ok("log").stdout
    assert "8.6201" in shown and us.json("rg-record", "--side", "german")[0]["str"] in ("F", "D")
    report = audit(anyone, "--final")
    assert report["clean"] and report["pending"] == [], report


def forge(db, passphrase: str, make) -> int:
    """What a buyer's doctored ledger could write: `make(campaign, rules, keyring)` gives the fact and its command,
    recorded under the buyer's own key. Returns its event."""
    ledger = open_ledger(str(db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    keyring = Keyring(passphrase.encode())
    side = keyring.opens(campaign)
    fact, request = make(campaign, rules, keyring)
    campaign.record(fact, side, keyring.signer(campaign, rules, side), "", request)
    ledger.store.save(campaign)
    return campaign.version


def veiled_declaration(opened):
    """A veiled declaration of `opened(campaign)` (its RollDeclared as the buyer's ledger would seal it)."""
    from cgledger.ledger.decide import veiled
    from cgledger.ledger.domain.commands import DeclareSealed

    def make(campaign, rules, keyring):
        fact = opened(campaign)
        salt, text = keyring.seal_declaration(campaign, rules, fact)
        sealed_with = commitment(fact, salt)
        return (veiled.declare(campaign, rules, fact.side, fact.rg, sealed_with, text),
                DeclareSealed(side=fact.side, rg=fact.rg, commitment=sealed_with, sealed=text))
    return make


def test_a_veiled_follow_up_its_rg_does_not_owe_is_named_once_revealed(table, make_db, tmp_path):
    """A doctored ledger declares, under the veil, a roll the RG bought does not call for (an armor leader for an
    infantry platoon): nobody can tell while it is sealed; revealed with the RG, it is decided again and named, and a
    fresh ledger refuses the log."""
    from cgledger.ledger.domain.events import RollDeclared

    german, us, anyone = table
    buy_i2(german)
    bought = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    forge(german.db, GERMAN, veiled_declaration(lambda c: RollDeclared(
        action=c.next_action, table="8.6206/armor", side="german", n=c.fair_n.get("german", 0) + 1, rg=bought,
        item=f"8.6206/armor|rg{bought}|1", secret=True)))
    assert audit(anyone)["clean"]  # sealed: its side's own key alone opens it
    german.ok("reveal", "--all", "--side", "german")
    named_and_refused(german, Cli(make_db()), tmp_path, "decision", "8.6206/armor is not due for RG I2")


def test_a_veiled_roll_lapsed_though_declared_without_condition_is_named_once_revealed(table):
    """A buyer who sees its own dice before making its Secret roll (its roll value and the answer give them) cannot
    drop a roll it dislikes under the veil: lapsing is for a roll declared for a strength result its RG's roll did
    not give, and the reveal shows what each was declared for."""
    from cgledger.ledger.domain.commands import LapseRoll
    from cgledger.ledger.domain.events import RollLapsed

    german, us, anyone = table
    buy_i2(german)
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    german.json("roll", "8.6201", "--side", "german", "--rg", "I2#1")  # the strength: declared without condition
    declared = anyone.json("log")[-1]["version"]
    assert anyone.json("log")[-1]["table"] == ""  # veiled
    us.ok("answer")
    forge(german.db, GERMAN, lambda c, r, k: (RollLapsed(action=c.next_action, declared=declared, side="german"),
                                             LapseRoll(declared=declared)))
    assert audit(anyone)["clean"]  # what it was declared for is sealed
    german.ok("reveal", "--all", "--side", "german")
    findings = audit(anyone)["findings"]
    assert any("declared for its RG bought in secret without condition, lapsed" in f["message"] for f in findings), \
        findings


def strength_declared(table):
    """An I2 bought in secret, its strength roll declared veiled: (the purchase's event, the declaration's event, the
    German's ledger with its key, the campaign, its rules, the German's reveal of the RG)."""
    german, us, anyone = table
    buy_i2(german)
    bought = anyone.json("log")[-1]["version"]
    us.ok("step", "8.620")
    german.ok("step", "8.620")
    german.json("roll", "8.6201", "--side", "german", "--rg", "I2#1")
    declared = anyone.json("log")[-1]["version"]
    ledger = open_ledger(str(german.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    ledger.keyring = Keyring(GERMAN.encode())
    return bought, declared, ledger, campaign, rules, ledger.books.publish(campaign, rules, "german", bought).acts


def test_a_reveal_must_publish_every_veiled_follow_up_with_its_rg_and_as_made(table):
    anyone = table[2]
    bought, declared, ledger, campaign, rules, acts = strength_declared(table)
    assert [type(a).__name__ for a in acts] == ["RevealPurchase", "RevealDeclaration"]
    from cgledger.ledger.domain.commands import Reveal
    from msgspec.structs import replace

    events = anyone.events()
    with pytest.raises(BadInput, match=f"revealed with every roll made for it, event {declared} too"):
        ledger.record(campaign, rules, Reveal(acts=acts[:1]))  # the RG without its follow-up
    changed = replace(acts[1], fact=replace(acts[1].fact, table="8.6206/armor"))
    with pytest.raises(BadInput, match="does not match its commitment"):
        ledger.record(campaign, rules, Reveal(acts=(acts[0], changed)))
    assert anyone.events() == events  # nothing written


def test_a_reveal_recorded_alone_publishes_no_rg_without_its_veiled_follow_ups(table):
    """A doctored ledger that records the RG's reveal as a command of its own (the form of logs written before one
    reveal held every act) cannot leave its veiled follow-ups sealed: the decision the audit and `import` run refuses
    it as the command path does."""
    from cgledger.ledger.decide import commands

    anyone = table[2]
    _bought, _declared, ledger, campaign, rules, (purchase, declaration) = strength_declared(table)
    log = ledger.history(None)
    events = anyone.events()
    for alone in (purchase, declaration):
        with pytest.raises(BadInput, match="revealed with"):
            commands.decide(campaign, rules, alone, commands.Context(by="german", log=log))
        with pytest.raises(BadInput, match="revealed with"):
            ledger.record(campaign, rules, alone)
    assert anyone.events() == events


def test_with_fair_dice_a_secret_rgs_follow_up_takes_them(table):
    """The strength of an RG bought in secret is a Secret DR (8.6201): once fair dice are in force its dice are not
    typed (sealed, the other side could witness them only once revealed); declared, the other side answers it."""
    german, us, anyone = table
    buy_i2(german)
    german.ok("step", "8.620")
    before = anyone.events()
    german.refused("roll", "8.6201", "--side", "german", "--rg", "I2#1", "--dice", "6,6", contains="takes fair dice")
    assert anyone.events() == before
    german.ok("roll", "8.6201", "--side", "german", "--rg", "I2#1")  # declared: fair dice
