"""a fair-dice chain has the one length the ledger fixes, and a side whose chain nears its end has
its next one committed by its own ledger, on that side's next command with its key (where it answers), so no roll
waits. 10,000 rolls are too many for a test: the run-out is tested on states given near the end of a chain (Given
facts / When command / Then facts), the ledger's own duty on such a state held in memory, and forged renewals in a
real store, which the audit names and `import` refuses."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import msgspec
import pytest

from conftest import Cli, Player, named_and_refused
from cgledger.ledger.trust import fairdice
from cgledger.ledger import rules as rulesmod
from cgledger.ledger.application import open_ledger
from cgledger.ledger.decide import fair, rolls
from cgledger.ledger.decide.commands import AnswerRoll, Context, DeclareRoll, RenewChain, decide
from cgledger.ledger.errors import LedgerError
from cgledger.ledger.domain.events import (
    ActionUndone, CampaignStarted, DiceChainRenewed, DiceCommitted, DiceRolled, RollAnswered, RollDeclared,
    SideKeyRegistered, StepOpened,
)
from cgledger.ledger.domain.evolve import fold
from cgledger.ledger.player.keyring import Keyring
from cgledger.ledger.trust.logged import Logged
from cgledger.ledger.trust.secrets import derive_key, unseal_bytes
from test_fair_dice import GERMAN, US, forge, keyed

N, RENEW = fairdice.LENGTH, fair.RENEW
G, U, G2, U2 = b"g" * 32, b"u" * 32, b"G" * 32, b"U" * 32  # the seeds of the first and of the next chains
RULES = rulesmod.load("kgp")
BASE = (  # both sides keyed and committed, at 8.610 (a dr per unit): versions 1-6
    CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM"),
    StepOpened(action=1, step="8.610"),
    SideKeyRegistered(action=2, side="german", salt="aa", check="bb", public="cc"),
    DiceCommitted(action=2, side="german", roll_head=fairdice.head(G, "roll"), answer_head=fairdice.head(G, "answer"),
                  length=N, sealed="sealed"),
    SideKeyRegistered(action=3, side="us", salt="aa", check="bb", public="dd"),
    DiceCommitted(action=3, side="us", roll_head=fairdice.head(U, "roll"), answer_head=fairdice.head(U, "answer"),
                  length=N, sealed="sealed"),
)


def given(*facts):
    at = datetime(2026, 11, 24, tzinfo=timezone.utc)
    return fold([Logged(i + 1, at, "", f"d{i}", type(f).__name__, f) for i, f in enumerate(facts)])


def near_end(n: int, *more):
    """The German side's fair roll n declared (event 7) and answered: n values of its roll chain and of the U.S.
    answer chain are used."""
    return given(*BASE, *near_end_log(n), *more)


def near_end_log(n: int) -> tuple:
    return (RollDeclared(action=4, table="8.610", side="german", n=n, value=fairdice.value(G, "roll", n), purpose="Z",
                         item="8.610|german|19 AM|z"),
            RollAnswered(action=5, declared=7, side="us", n=n, value=fairdice.value(U, "answer", n)))


def next_chain(side: str, chain: str, seed: bytes, action: int = 6) -> DiceChainRenewed:
    return DiceChainRenewed(action=action, side=side, chain=chain, first=N + 1, head=fairdice.head(seed, chain),
                            length=N, sealed="sealed")


def renew(state, side: str, chain: str, head: str, length: int = N):
    return decide(state, RULES, RenewChain(side=side, chain=chain, head=head, length=length, sealed="sealed"))


def declare(state, value: str, purpose: str = "A"):
    roll = rolls.RollCommand(table="8.610", side="german", faces=(), source="fair", purpose=purpose)
    return decide(state, RULES, DeclareRoll(roll=roll, value=value))


def test_the_next_chain_is_due_once_fewer_than_renew_values_are_left_and_not_before():
    state = near_end(N - RENEW)
    assert fair.to_renew(state, RULES, "german") == [] and fair.to_renew(state, RULES, "us") == []
    with pytest.raises(LedgerError, match=f"roll chain has {RENEW} values left"):
        renew(state, "german", "roll", fairdice.head(G2, "roll"))
    state = near_end(N - RENEW + 1)
    # the German rolls take its roll chain's values, and the U.S. answer chain's: each side renews its own
    assert fair.to_renew(state, RULES, "german") == ["roll"] and fair.to_renew(state, RULES, "us") == ["answer"]
    assert renew(state, "german", "roll", fairdice.head(G2, "roll")) == [next_chain("german", "roll", G2)]
    assert renew(state, "us", "answer", fairdice.head(U2, "answer")) == [next_chain("us", "answer", U2)]
    # once renewed, not again: the next chain has all its values left
    again = near_end(N - RENEW + 1, next_chain("german", "roll", G2))
    assert fair.to_renew(again, RULES, "german") == []
    with pytest.raises(LedgerError, match="values left"):
        renew(again, "german", "roll", fairdice.head(b"x" * 32, "roll"))


def test_a_roll_past_the_end_takes_the_values_of_the_next_chains_only():
    state = near_end(N)
    with pytest.raises(LedgerError, match="needs the German side's next roll chain"):
        declare(state, fairdice.value(G2, "roll", 1))
    state = near_end(N, next_chain("german", "roll", G2))
    # the U.S. answer chain must be on record before the German roll value is published, or it could be chosen
    with pytest.raises(LedgerError, match="needs the U.S. side's next answer chain"):
        declare(state, fairdice.value(G2, "roll", 1))
    state = near_end(N, next_chain("german", "roll", G2), next_chain("us", "answer", U2, action=7))
    with pytest.raises(LedgerError, match="does not hash to its head"):  # a value of the chain it follows
        declare(state, fairdice.value(G, "roll", 1))
    declared, = declare(state, fairdice.value(G2, "roll", 1))
    assert (declared.n, declared.value) == (N + 1, fairdice.value(G2, "roll", 1))
    state = near_end(N, next_chain("german", "roll", G2), next_chain("us", "answer", U2, action=7),
                  declared)
    version = 11  # after the six of BASE, the two near the end and the two new chains
    with pytest.raises(LedgerError, match="does not hash to its head"):
        decide(state, RULES, AnswerRoll(declared=version, value=fairdice.value(U, "answer", N)), _by("us"))
    # the answer's whole action: the answer, and the open roll it makes (decided once, as the audit decides it)
    answered, made = decide(state, RULES, AnswerRoll(declared=version, value=fairdice.value(U2, "answer", 1)),
                            _by("us"))
    state = near_end(N, next_chain("german", "roll", G2), next_chain("us", "answer", U2, action=7),
                  declared, answered)
    rolled = fair.resolve(state, RULES, f"german:{N + 1}", declared.value)
    assert made == msgspec.structs.replace(rolled, action=answered.action)
    assert rolled.dice == fairdice.faces(fairdice.value(G2, "roll", 1), fairdice.value(U2, "answer", 1), "CG I",
                                         "german", N + 1, "dr")
    # the roll after it follows the value just published from the new chain
    state = near_end(N, next_chain("german", "roll", G2), next_chain("us", "answer", U2, action=7),
                  declared, answered, rolled)
    with pytest.raises(LedgerError, match=f"does not hash to its value {N + 1}"):
        declare(state, fairdice.value(G2, "roll", 3), "B")
    assert declare(state, fairdice.value(G2, "roll", 2), "B")[0].n == N + 2


def _by(side: str) -> Context:
    return Context(by=side)


@pytest.mark.parametrize("head, refused", [
    (fairdice.head(G, "roll"), "the head of a chain on record"),  # the seed used again
    (fairdice.head(U, "answer"), "the head of a chain on record"),  # the other side's
    (fairdice.value(G, "roll", N - 5), "a value published from the German side's roll chain"),  # the chain continued
    (fairdice.value(G, "roll", 3), "a value published from the German side's roll chain"),
    (fairdice.value(U, "answer", N - 9), "a value published from the U.S. side's answer chain"),
])
def test_a_new_chain_holds_no_value_on_record(head, refused):
    with pytest.raises(LedgerError, match=refused):
        renew(near_end(N - 5), "german", "roll", head)


def test_a_new_chain_has_the_one_length_and_is_a_roll_or_an_answer_chain():
    state = near_end(N - 5)
    with pytest.raises(LedgerError, match="not 9999"):
        renew(state, "german", "roll", fairdice.head(G2, "roll"), length=N - 1)
    with pytest.raises(LedgerError, match="not 'dice'"):
        renew(state, "german", "dice", fairdice.head(G2, "roll"))


def test_an_undo_keeps_the_next_chain():
    """The renewal is the ledger's own record: an undo of the act before it applies it again, and what was published
    from it stays consistent."""
    state = near_end(N - 5, next_chain("german", "roll", G2), ActionUndone(action=7, undone=4))
    assert fair.chain_for(state, "german", "roll", N + 1)["head"] == fairdice.head(G2, "roll")
    assert len(state.renewed["german:roll"]) == 1


# ---- the ledger's own duty: on a state given near the end, held in memory (never saved) ---------------------------
def test_each_sides_ledger_commits_its_next_chain_on_its_next_command(at):
    german, us, anyone = keyed(at("8.610"))
    ledger = open_ledger(str(anyone.db))
    campaign = ledger.campaign(None)
    rules = ledger.rules_for(campaign)
    german_key = Keyring(GERMAN.encode())
    n = N - RENEW + 1
    value = german_key.chain_value(campaign, rules, "german", "roll", n)
    campaign.record(RollDeclared(action=campaign.next_action, table="8.610", side="german", n=n, value=value,
                                 purpose="A", item="8.610|german|19 PM|a"), "german",
                    german_key.signer(campaign, rules, "german"))
    ledger.key_material = US.encode()  # the U.S. player's next command: its ledger renews, then answers
    facts = ledger.settle(campaign, rules)
    assert [type(f) for f in facts] == [DiceChainRenewed, RollAnswered, DiceRolled]
    renewed = facts[0]
    assert (renewed.side, renewed.chain, renewed.first, renewed.length) == ("us", "answer", N + 1, N)
    seed = unseal_bytes(derive_key(US.encode(), campaign.keys["us"]["salt"]), renewed.sealed)
    assert fairdice.head(seed, "answer") == renewed.head  # a new seed, sealed with the U.S. key
    assert seed != unseal_bytes(derive_key(US.encode(), campaign.keys["us"]["salt"]), campaign.chains["us"]["sealed"])
    assert ledger.settle(campaign, rules) == []  # done once
    ledger.key_material = GERMAN.encode()  # the German player's next command renews its roll chain
    renewed, = ledger.settle(campaign, rules)
    assert (renewed.side, renewed.chain, renewed.first) == ("german", "roll", N + 1)
    assert [e.author for e in campaign.collect_events()[-4:]] == ["us", "us", "us", "german"]
    # the roll after the end takes value 1 of the new chain
    seed = unseal_bytes(derive_key(GERMAN.encode(), campaign.keys["german"]["salt"]), renewed.sealed)
    assert german_key.chain_value(campaign, rules, "german", "roll", N + 1) == fairdice.value(seed, "roll", 1)


# ---- forged renewals in a real store: named by the audit, refused by import ----------------------------------------
@pytest.mark.parametrize("length, named", [(N, f"has {N - 1} values left"), (N - 1, f"not {N - 1}")])
def test_a_forged_renewal_is_named_and_refused(at, make_db, tmp_path, length, named):
    german, us, anyone = keyed(at("8.610"))
    german.ok("roll", "8.610", "--side", "german", "--for", "A")
    us.ok("answer")
    forge(anyone.db, lambda c: DiceChainRenewed(action=c.next_action, side="german", chain="roll", first=N + 1,
                                                head=fairdice.head(G2, "roll"), length=length, sealed="sealed"),
          GERMAN)
    named_and_refused(anyone, Cli(make_db()), tmp_path, "decision", named)


def test_a_renewal_of_the_other_sides_chain_is_named_and_refused(at, make_db, tmp_path):
    german, us, anyone = keyed(at("8.610"))
    forge(anyone.db, lambda c: DiceChainRenewed(action=c.next_action, side="german", chain="answer", first=N + 1,
                                                head=fairdice.head(U2, "answer"), length=N, sealed="sealed"), US)
    findings = json.loads(anyone("audit", "--json").stdout)["findings"]
    assert [f["kind"] for f in findings if f["kind"] == "author"] == ["author"], findings
    assert "german side's own act" in next(f["message"] for f in findings if f["kind"] == "author")
    bundle = tmp_path / "bundle.json"
    anyone.ok("export", "--since", "0", str(bundle))
    Player(make_db(), None).refused("import", str(bundle), contains="own act")
