"""Checkpoints of the read views kept current: a view kept as it stood some events back, from which an
undo, a rewind or a reveal folds it again instead of folding the whole log. Whenever `kept.resumes` lets a checkpoint
fold every event since, the view it gives is exactly the whole log's fold, for every view, at every checkpoint and
every later point of a log with undos, a rewind, Secret rolls and secret RG purchases revealed; and a read after each
of them shows what a machine with no kept view shows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import msgspec

from conftest import Cli, Player
from test_kept_views import _fresh
from cgledger.ledger.read import views
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import fold as fold_state
from cgledger.ledger.decide.witness import unwitnessed_events
from cgledger.ledger.domain.timeline import effective
from cgledger.projections import areas, dice_stats, kept

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GERMAN, US = "Peiper's own words", "Harrison's own words"


def _finished(name: str, view, rules, state) -> bytes:
    view = kept.decode(kept.encode(view))  # as stored
    if name == "roster":
        out = kept.finish_roster(view, rules)
    elif name == "rg":
        out = kept.finish_rg(view, rules)
    elif name == "dice":
        out = dice_stats.finish(view, None, unwitnessed_events(state))
    elif name.startswith(kept.AREAS):
        group = name[len(kept.AREAS):]
        out = areas.document(kept.finish_areas(view, rules, group), rules, group)
    else:
        out = {k: view[k] for k in ("notes", "maps", "terrain", "date")}
    return msgspec.json.encode(out)


def _agree(db, cuts: int = 4) -> Counter:
    """For checkpoints at every `cuts`-th event (made when the log ended there, and made by a fold of the whole log),
    at each later event that disturbs a view and at the end: where every event since resumes from the checkpoint,
    the checkpoint folded on equals the whole fold. Returns what resumed, by kind of event."""
    ledger = open_ledger(str(db))
    raw = ledger.history(None)
    resumed: Counter = Counter()
    states: dict = {}
    wholes: dict = {}  # (view, end, rules files): the whole fold to `end`, the same for every cut

    def state_at(k: int):
        if k not in states:
            states[k] = fold_state(raw[:k])
        return states[k]

    ends = [k for k in range(2, len(raw) + 1)
            if k == len(raw) or kept.disturbs("roster", raw[k - 1].fact, ledger.rules_for(state_at(k)))]
    for cut in range(2, len(raw) - 1, cuts):
        for made in (cut, len(raw)):  # a checkpoint made at the log's head then, or by a whole fold made later
            then = state_at(made)
            rules = ledger.rules_for(then)
            logged = effective(raw[:made])
            keep = sum(1 for e in logged if e.version <= raw[cut - 1].version)
            for name in kept.names(rules):
                checkpoint = kept.build(name, logged, rules, keep)[1]
                for end in (k for k in ends if k > cut and k >= made):  # a log only grows
                    state = state_at(end)
                    if state.override_sources() != then.override_sources():
                        continue  # kept under other rules: never read (ledger/read/views.py keys views by the rules)
                    tail = raw[cut:end]
                    data = kept.decode(checkpoint)
                    if not all(kept.resumes(name, data, raw[cut - 1].version, e, rules) for e in tail):
                        continue
                    got = kept.advance(name, data, effective(tail), rules)
                    key = (name, end, then.override_sources())
                    if key not in wholes:
                        wholes[key] = _finished(name, kept.build(name, effective(raw[:end]), rules)[0], rules, state)
                    assert _finished(name, got, rules, state) == wholes[key], \
                        (name, cut, made, end)
                    resumed.update(type(e.fact).__name__ for e in tail if kept.disturbs(name, e.fact, rules))
    return resumed


def test_a_checkpoint_folded_on_is_the_whole_fold_through_undos_and_a_rewind(played):
    cli = Cli(played(), seed="7")
    resumed = _agree(cli.db, cuts=3)
    assert resumed["ActionUndone"] and resumed["Rewound"]


def _keyed(cli: Cli, dice: str = "") -> tuple[Player, Player]:
    german, us = Player(cli.db, GERMAN), Player(cli.db, US)
    if dice:  # `immediate`: dice typed into Secret rolls (with fair dice a Refit Phase Secret roll takes them)
        cli.ok("fair-dice", "mode", dice)
    german.ok("keys", "init", "--side", "german", *(("--dice", dice) if dice else ()))
    us.ok("keys", "init", "--side", "us", *(("--dice", dice) if dice else ()))  # the key set up last agrees to them
    return german, us


def test_a_checkpoint_folded_on_is_the_whole_fold_through_secret_rolls_revealed(at):
    """8.616 on 19 PM, both sides keyed: each side's Secret roll, one undone and made again, both revealed."""
    cli = at("8.616", "19 PM")
    german, us = _keyed(cli, "immediate")
    german.ok("roll", "8.616", "--side", "german", "--dice", "3,3")
    secret = cli.json("log")[-1]["version"]
    us.ok("roll", "8.616", "--side", "us", "--dice", "2,5")
    us.ok("undo")
    us.ok("roll", "8.616", "--side", "us", "--dice", "6,4")
    german.ok("reveal", str(secret))
    us.ok("reveal", "--all", "--side", "us")
    resumed = _agree(cli.db, cuts=1)
    assert resumed["SecretRollRevealed"] and resumed["ActionUndone"]


def test_a_checkpoint_folded_on_is_the_whole_fold_through_secret_purchases_revealed(at, tmp_path):
    """8.619 on 21 AM, both sides keyed, the RG chart loaded: a secret purchase undone, bought again, revealed."""
    from test_secret_purchases import LIMITS

    cli = at("8.619", "21 AM")
    chart = tmp_path / "chart.toml"
    chart.write_text(LIMITS)
    cli.ok("rules", "load", str(chart))
    german, us = _keyed(cli)
    buy = ("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    german.ok(*buy)
    german.ok("undo")
    german.ok(*buy)
    german.ok("reveal", "--all", "--side", "german")
    resumed = _agree(cli.db, cuts=1)
    assert resumed["RGPurchaseRevealed"] and resumed["ActionUndone"]


def test_reads_after_an_undo_a_rewind_and_a_reveal_fold_from_a_checkpoint(make_db, tmp_path, monkeypatch):
    """The sample entered command by command with a checkpoint every 8 events (the shipped interval is 200: the
    sample is short), reading after each command: every read shows what a fresh machine shows, and checkpoints are
    kept beside the views."""
    monkeypatch.setattr(views, "CHECKPOINT_EVERY", 8)
    from cgledger.cli.script import words

    cli = Cli(make_db())
    lines = [words(line.replace("$HERE", str(FIXTURES)))
             for line in (FIXTURES / "kgp-cg1-sample.cgl").read_text().splitlines()]
    for number, args in enumerate(a for a in lines if a):
        cli.ok(*args)
        if args[0] not in ("undo", "rewind", "step") and number % 4:
            continue
        for read in (("history", "--json"), ("rg-record", "--side", "german", "--json")):
            assert cli.ok(*read).stdout == _fresh(cli, tmp_path, *read), (number, args, read)
    assert any(path.name.endswith(".view") for path in views.folder().iterdir())
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    parts = (*ledger.kept._view_parts(campaign, ""), "story")
    assert views.checkpoints(parts)  # kept beside the view
