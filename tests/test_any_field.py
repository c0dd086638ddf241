"""the audit re-decides the whole fact. For any stored fact of any kind in the three shipped sample
campaigns (KGP, RR, CGS), changing any one field the ledger decides (what the rules give, not what the player typed)
and recomputing its digest, as a cheater's own ledger would before signing, is a finding of the audit: the forged
fact is the log's last, so nothing after it can betray it. The fields a player gives (dice, table, side, the RG
bought, a reason ...) make another command, which is decided as that command; those are the claims that witnessed
dice (test_witness.py) and signatures (test_trust.py) are for.

The audit is pure: it runs here on the events read back from real SQLite files, once per example."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import Cli
from cgledger.ledger.trust import chain
from cgledger.ledger.application import open_ledger
from cgledger.ledger.audit.replay import audit
from cgledger.ledger.store.campaign import campaign_id
from cgledger.ledger.domain.events import AnyFact

FIXTURES = Path(__file__).parent.parent / "fixtures"

# Per fact kind, the fields its command gives (the player's input, or material only its side holds: commitments,
# salts and seals, checked against what they commit to when revealed); every other field is decided by the rules
# from the state before it and the command, and is what this test changes. 'action' is the log's own numbering.
INPUTS: dict[str, set[str]] = {
    "DiceRolled": {"table", "side", "dice", "source", "secret", "purpose", "rg", "fair", "vasl", "player", "series",
                   "hexes"},
    "ActionUndone": {"reason"},
    "TablesOverridden": {"source", "text"},
    "RulesProposed": {"source", "text"},
    "StepOpened": {"step"},
    "SideAdvanced": {"side", "step"},
    "ScenarioEnded": {"lvp", "winner", "declared", "from_map"},
    "InitiativeChosen": {"chits", "us_has_no_units"},
    "RGPurchased": {"side", "rg", "map_group", "objective", "given", "on_map", "pre_registered", "early"},
    "Rewound": {"cg_date", "reason"},
    "FortificationsPurchased": {"side", "item", "size", "count", "setup_area", "front_line", "isolated", "squads"},
    "LocationControlled": {"location", "side", "strategic"},
    "HQRecorded": {"side", "location"},
    "FirefightEnded": {"map", "fires", "burning_wrecks", "in_sewer", "redeployed"},
    "FortificationPlaced": {"side", "item", "hex", "hidden"},
    "FortificationRemoved": {"side", "item", "hex", "by"},
    "MouseholeMade": {"side", "hexes", "roll"},
    "DiceModeChosen": {"mode"},
    "RollDeclared": {"table", "side", "drms", "purpose", "rg", "secret", "if_result"},
    "SecretRollMade": {"table", "side", "purpose", "rg", "commitment", "sealed"},
    "DiceCommitted": {"side", "roll_head", "answer_head", "sealed"},
    "DiceChainRenewed": {"side", "chain", "head", "sealed"},
    "DiceWitnessed": {"side", "rolls", "disputed", "log_digest"},
    "TakeBackProposed": {"kind", "cg_date", "reason"},
    # a VASL report kept as pasted: its line is the input, the dice, player and category are read from it
    "DiceReported": {"vasl", "side", "special", "series", "source"},
    # an import keeps its files' reports as read; every report's dice are checked against its line
    "VaslLogImported": {"file", "form", "digest", "duplicates", "skipped", "module", "module_version",
                        "vassal_version", "reports"},
}
NOT_DECIDED = {"CampaignStarted", "SideKeyRegistered", "FairDiceCommitted", "FairSeedRevealed", "ChitSealed",
               "RGPurchaseSealed", "HiddenFortificationPlaced"}  # a side's own material: nothing in them is decided


def _sample(path: Path, tmp: Path) -> list:
    cli = Cli(str(tmp / f"{path.stem}.db"))
    cli.ok("script", str(path))
    ledger = open_ledger(cli.db)
    return ledger.history(None)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    from conftest import BACKEND

    if BACKEND == "postgres":
        pytest.skip("the audit is pure: run once, on the SQLite run")
    tmp = tmp_path_factory.mktemp("any-field")
    out = {}
    for name in ("kgp-cg1-sample.cgl", "rr-sample.cgl", "cgs-sample.cgl"):
        logged = _sample(FIXTURES / name, tmp)
        out[name] = logged
    # both sides with keys, by email: fair dice declared and answered, Secret rolls, sealed chits and purchases,
    # witnessed dice, each side walking the RePh; a forged event there is re-signed with its author's own key
    from test_email_campaign import play_by_email

    out["email"] = open_ledger(str(play_by_email(tmp).german.db)).history(None)
    return Samples(out)


def decided_fields(fact) -> list[str]:
    kind = type(fact).__name__
    if kind in NOT_DECIDED:
        return []
    return [f for f in fact.__struct_fields__ if f != "action" and f not in INPUTS.get(kind, set())]


def action_end(logged, index: int) -> int:
    """The index after the last event of the action of event `index` (one decision may write several facts: a new
    CG Date with its step, a firefight's end with its CPP; the log is cut after the whole of it)."""
    action = getattr(logged[index].fact, "action", None)
    end = index + 1
    while end < len(logged) and getattr(logged[end].fact, "action", None) == action:
        end += 1
    return end


def targets(samples) -> list[tuple[str, int, str]]:
    """(sample, index, field) for every decided field of every event whose log, cut after its action, audits
    clean."""
    out = []
    for name, logged in samples.items():
        cid = campaign_id(logged[0].fact.name)
        clean: dict[int, bool] = {}
        for index in range(1, len(logged)):
            fields = decided_fields(logged[index].fact)
            end = action_end(logged, index)
            if fields and clean.setdefault(end, audit(cid, logged[:end]).clean):
                out += [(name, index, field) for field in fields]
    return out


def other(value, draw):
    """A different value of the same shape, as a forger would write it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, float):
        return draw(st.sampled_from([value + 0.5, value - 1.0, value * 2 + 1.0]))
    if isinstance(value, int):
        return draw(st.integers(-3, 400).filter(lambda v: v != value))
    if value is None:
        return draw(st.one_of(st.integers(0, 60), st.just("x")))
    if isinstance(value, str):
        return draw(st.text("abcdefghijklmnopqrstuvwxyz0123456789 .:-_", max_size=12).filter(lambda v: v != value))
    if isinstance(value, (tuple, list)):
        items = list(value)
        if items and draw(st.booleans()):
            del items[draw(st.integers(0, len(items) - 1))]
        elif items:
            items.append(items[draw(st.integers(0, len(items) - 1))])
        else:
            items.append(draw(st.one_of(st.just("x"), st.just(1))))
        return tuple(items)
    if isinstance(value, dict):
        changed = dict(value)
        if changed and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(changed)))
            changed[key] = other(changed[key], draw)
        else:
            changed["x"] = 1
        return changed
    if isinstance(value, msgspec.Struct):
        field = draw(st.sampled_from(list(value.__struct_fields__)))
        return msgspec.structs.replace(value, **{field: other(getattr(value, field), draw)})
    raise AssertionError(f"no mutation for {type(value).__name__}")


PASSPHRASES = {"german": "Peiper's own words", "us": "Harrison's own words"}  # the email campaign's


def signer(logged, side: str):
    """digest -> signature by the side's own key, as the email campaign's player holds it."""
    from cgledger.ledger import rules as rulesmod
    from cgledger.ledger.domain.evolve import fold
    from cgledger.ledger.player.keyring import Keyring

    state = fold(logged)
    return Keyring(PASSPHRASES[side].encode()).signer(state, rulesmod.load(state.system), side)


def forged(events: list, fact, cid, before: list) -> list:
    """The events as a cheater's ledger writes them: the first with the changed fact, the digests recomputed over
    it and chained on, each signed again with its author's key where the log is signed (`before`: the log before
    them)."""
    from msgspec.structs import replace  # Logged is a frozen msgspec Struct

    out, prev = [], events[0].prev
    for i, event in enumerate(events):
        mine = fact if i == 0 else event.fact
        digest = chain.digest(cid, event.version, event.timestamp, prev, mine, event.topic, event.author,
                              event.command, event.form, event.request)
        signature = signer(before, event.author)(digest) if event.signature else ""
        out.append(replace(event, fact=mine, prev=prev, digest=digest, signature=signature))
        prev = digest
    return out


class Cases(list):
    """The targets, with a short repr (Hypothesis prints the test's arguments on a failure)."""

    def __repr__(self) -> str:
        return f"<{len(self)} decided fields of the samples>"


class Samples(dict):
    def __repr__(self) -> str:
        return f"<{', '.join(self)}>"


@pytest.fixture(scope="module")
def cases(samples):
    return Cases(targets(samples))


def test_every_fact_kind_of_the_samples_is_covered(samples, cases):
    kinds = {type(samples[name][index].fact).__name__ for name, index, _f in cases}
    assert {"DiceRolled", "RGPurchased", "CGDateChanged", "StepOpened", "ScenarioEnded", "InitiativeChosen",
            "CPPGained", "RollDeclared", "RollAnswered", "SecretRollMade", "SecretRollRevealed", "RGPurchaseRevealed",
            "ChitRevealed", "SideAdvanced", "FirefightEnded", "ActionUndone", "Rewound"} <= kinds, kinds


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_changing_any_decided_field_is_a_finding(samples, cases, data):
    name, index, field = data.draw(st.sampled_from(cases), label="where")
    logged = samples[name]
    event = logged[index]
    value = data.draw(st.just(getattr(event.fact, field)))
    changed = other(value, data.draw)
    try:  # as it is read back: a value of the wrong type is an unreadable event, named by the audit anyway
        fact = msgspec.json.decode(msgspec.json.encode(msgspec.structs.replace(event.fact, **{field: changed})),
                                   type=AnyFact)
    except msgspec.ValidationError:
        assume(False)
    assume(fact != event.fact)
    cid = campaign_id(logged[0].fact.name)
    report = audit(cid, logged[:index] + forged(logged[index:action_end(logged, index)], fact, cid, logged[:index]))
    assert report.findings, (name, event.version, type(event.fact).__name__, field, value, changed)
