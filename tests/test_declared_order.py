"""A declared roll's automatic DRMs are those of the campaign when its dice are made, in step order (found playing
RR by email): the German declared his secret RG's strength (2.5191) and its company leader (2.5193) in one email;
the strength came back Depleted, but the leader roll was made without its '+2 if Depleted' DRM, and the audit named
it only after the final reveal."""

from __future__ import annotations

import json

import pytest

from two_players import GAMES, start

# the strength table as a campaign's own rules file: every RG comes back Depleted (the leader table's +2 then applies)
ALWAYS_DEPLETED = '''source = "test: every RG Depleted"
[[table]]
id = "2.5191"
step = "2.519"
effect = "rg_strength"
rule = "2.5191"
per = "rg"
per_rule = "2.5191"
title = "RG Strength Table (test: always Depleted)"
die = "DR"
rows = [ { min = 2, result = "Depleted", code = "D" } ]
'''


def depleted(tmp_path, make_db, monkeypatch, strength: str = ALWAYS_DEPLETED):
    """RR by email, every RG Depleted (a rules file both accept at the set-up); the turn back with the German:
    (German desk, Canadian desk, the post)."""
    override = tmp_path / "strength.toml"
    override.write_text(strength)
    system, cg, cpp, _first, _second = GAMES["rr"]
    monkeypatch.setitem(GAMES, "rr", (system, cg, cpp, [override], []))
    desks, post = start("rr", [make_db(), make_db()], tmp_path)
    g, c = desks["german"], desks["canadian"]
    post.send(c)  # the Canadian has nothing to do yet: the turn goes back to the German
    post.receive(g)
    return g, c, post


def test_a_secret_rg_leader_roll_made_after_its_strength_has_the_depleted_drm(tmp_path, make_db, monkeypatch):
    g, c, post = depleted(tmp_path, make_db, monkeypatch)
    g.ok("buy", "I1", "--side", "german")  # in secret: its follow-ups are Secret rolls
    rg = g.json("status")["next_acts"][0]["rg"]
    g.ok("roll", "2.5191", "--side", "german", "--rg", str(rg))
    g.ok("roll", "2.5193/company", "--side", "german", "--rg", str(rg))  # in the same email
    post.send(g)
    post.receive(c)  # the Canadian ledger answers both
    post.send(c)
    made = post.receive(g)[0]["results"]  # the German ledger makes both, in step order
    assert [r["table"] for r in made] == ["2.5191", "2.5193/company"], made
    g.ok("reveal", "--all", "--side", "german")
    leader = next(r["fact"] for r in g.json("log") if r["type"] == "SecretRollRevealed"
                  and r["fact"]["table"] == "2.5193/company")
    assert [d["name"] for d in leader["drms"] if d["value"] == 2] == ["If Depleted"], leader
    post.send(g)
    post.receive(c)
    for desk in (g, c):
        result = desk.run("audit", "--json")
        assert json.loads(result.stdout)["findings"] == [], result.stdout


def test_a_follow_up_whose_drm_reads_the_strength_waits_for_the_strength_roll(rr):
    """RR 2.5193: '+2 DRM if Depleted' is read off the RG's 2.5191 roll; before that roll (or its declaration) the
    leader roll would be decided without it: refused, nothing written, and not offered; once the strength is
    rolled it is offered and taken."""
    rr.ok("buy", "I1", "--side", "german")
    rg = rr.json("log")[-1]["version"]
    offered = [n["table"] for n in rr.json("status")["next_acts"]]
    assert offered == ["2.5191"], offered
    rr.refused("roll", "2.5193/company", "--side", "german", "--rg", str(rg), "--dice", "5,5",
               contains="comes after its strength roll: roll 2.5191")
    rr.ok("roll", "2.5191", "--side", "german", "--rg", str(rg), "--dice", "6,6")  # Depleted
    assert "2.5193/company" in [n["table"] for n in rr.json("status")["needs"] + rr.json("status")["next_acts"]]
    leader = rr.json("roll", "2.5193/company", "--side", "german", "--rg", str(rg), "--dice", "5,5")
    assert [(d["name"], d["value"]) for d in leader["drms"]] == [("If Depleted", 2)], leader


def test_each_dr_due_for_one_rg_is_declared_in_the_same_turn(tmp_path, make_db, monkeypatch):
    """RR 2.5192: a Depleted RG makes a dr per SW; with fair dice each was refused until the one before it was
    answered (one round trip per dr). All four are offered, declared and answered in one exchange; a fifth is
    refused, nothing written."""
    g, c, post = depleted(tmp_path, make_db, monkeypatch)
    g.ok("buy", "I1", "--side", "german", "--open")  # open: its rolls are answered and made by the Canadian ledger
    rg = g.json("status")["next_acts"][0]["rg"]
    g.ok("roll", "2.5191", "--side", "german", "--rg", str(rg))
    post.send(g)
    post.receive(c)
    post.send(c)
    post.receive(g)  # Depleted: four 2.5192 drs due, and the company leader roll
    owed = [n["command"] for n in g.json("status")["needs"] + g.json("status")["next_acts"] if "2.5192" in n["command"]]
    assert len(owed) == 4, owed
    for line in owed:
        g.ok(*line.split()[1:])
    assert not [n for n in g.json("status")["needs"] + g.json("status")["next_acts"] if "2.5192" in n["command"]]
    g.player.refused("roll", "2.5192", "--side", "german", "--rg", str(rg), contains="declared already")
    post.send(g)
    post.receive(c)  # all four answered and made at once
    sw = [r for r in c.json("log") if r["type"] == "DiceRolled" and r["table"] == "2.5192"]
    assert len(sw) == 4, sw


def test_one_command_makes_every_follow_up_due_for_an_rg(tmp_path, make_db, monkeypatch):
    """`follow-ups`: the strength, the leader roll it decides the DRM of, and the four SW drs a Depleted result calls
    for (RR 2.5192), each made only if the strength gives 'D', declared in step order in one command; one exchange
    makes them all. A second run with nothing due is refused."""
    g, c, post = depleted(tmp_path, make_db, monkeypatch)
    g.ok("buy", "I1", "--side", "german")  # in secret
    first = g.json("follow-ups", "--side", "german", "--rg", "I1#1")
    assert [(r["table"], r["declared"], r["if_result"]) for r in first] == [
        ("2.5191", True, None), ("2.5193/company", True, None), *[("2.5192", True, "D")] * 4], first
    g.player.refused("follow-ups", "--side", "german", contains="no follow-up roll is due now")
    post.send(g)
    post.receive(c)
    post.send(c)
    made = post.receive(g)[0]["results"]
    assert [r["table"] for r in made] == ["2.5191", "2.5193/company", *["2.5192"] * 4], made
    g.player.refused("follow-ups", "--side", "german", contains="no follow-up roll is due now")


def test_a_secret_sw_dr_lapsed_though_its_rg_was_depleted_is_named_once_revealed(tmp_path, make_db, monkeypatch):
    """A doctored ledger lapses one of its Depleted RG's SW drs (the SW kept without its dr ≤ 4): the other side sees
    only that a sealed roll lapsed; once the strength is revealed, the audit names the lapse. The forged log is the
    honest one with that roll's sealed record replaced by a lapse, chained and signed as the cheater's ledger would."""
    import msgspec

    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.audit.replay import audit
    from cgledger.ledger.domain.commands import LapseRoll
    from cgledger.ledger.domain.events import RollDeclarationRevealed, RollLapsed, SecretRollMade, SecretRollRevealed
    from cgledger.ledger.store.campaign import campaign_id
    from cgledger.ledger.trust import chain
    from two_players import PASSPHRASES

    g, c, post = depleted(tmp_path, make_db, monkeypatch)
    g.ok("buy", "I1", "--side", "german")  # in secret
    g.ok("follow-ups", "--side", "german")
    post.send(g)
    post.receive(c)
    post.send(c)
    post.receive(g)
    g.ok("reveal", "--all", "--side", "german")
    ledger = open_ledger(str(g.player.db))
    try:
        logged = ledger.history(None)
    finally:
        ledger.close()
    assert not audit(campaign_id(logged[0].fact.name), logged).findings
    # its follow-ups were veiled (8.619): which roll was the SW dr, and what it was declared for, their reveals say
    shown = next(e.fact.roll for e in logged if isinstance(e.fact, SecretRollRevealed) and e.fact.fact.table == "2.5192")
    target = next(e for e in logged if e.version == shown and isinstance(e.fact, SecretRollMade))
    declared = next(e.fact.declared for e in logged if isinstance(e.fact, RollDeclarationRevealed)
                    and e.fact.fact.if_result and (e.fact.fact.side, e.fact.fact.n) == ("german", target.fact.fair))
    lapse = RollLapsed(action=target.fact.action, declared=declared, side="german")
    cid = campaign_id(logged[0].fact.name)
    signers = {side: sign(logged, phrase, side) for side, phrase in zip(("german", "canadian"), PASSPHRASES)}
    out, prev = [], None
    for event in logged:
        if isinstance(event.fact, SecretRollRevealed) and event.fact.roll == target.version:
            continue  # nothing sealed to reveal: the cheater's reveal leaves it out
        fact, request = (lapse, LapseRoll(declared=declared)) if event is target else (event.fact, event.request)
        if prev is None:
            out.append(event)
            prev = event.digest
            continue
        digest = chain.digest(cid, event.version, event.timestamp, prev, fact, event.topic, event.author,
                              event.command, event.form, request)
        signature = signers[event.author](digest) if event.signature else ""
        out.append(msgspec.structs.replace(event, fact=fact, held_request=request, prev=prev, digest=digest,
                                           signature=signature))
        prev = digest
    messages = [f.message for f in audit(cid, out).findings]
    assert any("made only if its RG's strength roll gave 'D', lapsed: that roll gave 'D'" in m for m in messages), \
        messages


def sign(logged, passphrase: str, side: str):
    """digest -> signature by the side's own key (as its player holds it)."""
    from cgledger.ledger import rules as rulesmod
    from cgledger.ledger.domain.evolve import fold
    from cgledger.ledger.player.keyring import Keyring

    state = fold(logged)
    return Keyring(passphrase.encode()).signer(state, rulesmod.load(state.system, state.override_sources()), side)


ALWAYS_FULL = ALWAYS_DEPLETED.replace('"Depleted", code = "D"', '"Full", code = "F"').replace("always Depleted",
                                                                                            "always Full")


def test_an_open_rgs_sw_drs_lapse_with_their_answer_when_it_comes_back_full(tmp_path, make_db, monkeypatch):
    """An RG bought in the open: its strength and the SW drs declared for 'D' are answered by the Canadian ledger in
    one action each; the strength comes back Full, so each SW dr lapses with its answer, and nothing is owed."""
    g, c, post = depleted(tmp_path, make_db, monkeypatch, ALWAYS_FULL)
    g.ok("buy", "I1", "--side", "german", "--open")
    first = g.json("follow-ups", "--side", "german")
    assert [r["if_result"] for r in first if r["table"] == "2.5192"] == ["D"] * 4, first
    post.send(g)
    post.receive(c)  # the Canadian ledger answers: the strength Full, the four SW drs lapse
    log = c.json("log")
    assert [r["declared"] for r in log if r["type"] == "RollLapsed"] == [
        r["version"] for r in log if r["type"] == "RollDeclared" and r["table"] == "2.5192"]
    assert not [r for r in log if r["type"] == "DiceRolled" and r["table"] == "2.5192"]
    post.send(c)
    post.receive(g)
    status = g.json("status")
    assert not [n for n in status["needs"] + status["next_acts"] if "2.5192" in (n.get("command") or "")]
    assert status["waiting"] == []
    assert "lapses" in g.ok("log").stdout
    for desk in (g, c):
        assert json.loads(desk.run("audit", "--json").stdout)["findings"] == []


def test_a_roll_for_a_strength_result_is_refused_where_the_rules_do_not_call_for_it(tmp_path, make_db,
                                                                                     monkeypatch):
    """Declared for a result only with fair dice, while the RG's strength roll waits for its dice, at most as often as
    the RG's chart line lists it for that result, and only for an RG follow-up: each refusal one line, nothing
    written."""
    g, c, post = depleted(tmp_path, make_db, monkeypatch)
    g.ok("buy", "I1", "--side", "german", "--open")
    g.player.refused("roll", "2.5192", "--side", "german", "--rg", "I1#1", "--if-strength", "D",
                     contains="only while its strength roll waits for its dice")
    g.ok("roll", "2.5191", "--side", "german", "--rg", "I1#1")
    g.player.refused("roll", "2.5192", "--side", "german", "--rg", "I1#1", "--if-strength", "D", "--dice", "3",
                     contains="only with fair dice")
    g.player.refused("roll", "2.5192", "--side", "german", "--rg", "I1#1", "--if-strength", "F",
                     contains="due at most 0 time(s) for RG I1 if its strength roll gives 'F'")
    g.player.refused("roll", "2.516", "--side", "german", "--if-strength", "D", contains="not an RG follow-up roll")
    for _ in range(4):
        g.ok("roll", "2.5192", "--side", "german", "--rg", "I1#1", "--if-strength", "D")
    g.player.refused("roll", "2.5192", "--side", "german", "--rg", "I1#1", "--if-strength", "D",
                     contains="due at most 4 time(s) for RG I1 if its strength roll gives 'D'; 4 declared already")


@pytest.mark.parametrize("seed, strength", [("open-i2", "Full Strength"), ("d32", "Depleted")])  # seeds that give each
def test_a_kgp_open_rgs_sw_drs_are_as_secret_as_its_strength(tmp_path, make_db, seed, strength):
    """KGP 8.6201 is a Secret DR even for an RG bought in the open: the 8.6204 SW drs declared for its 'D' are Secret
    too, made or made void by the buyer's ledger, which alone knows the strength, and sealed alike; both audits are
    clean, and so is the final one once everything is revealed."""
    from two_players import start

    desks, post = start("kgp", [make_db(), make_db()], tmp_path, fair_seed=seed)
    g, u = desks["german"], desks["us"]
    post.send(u)
    post.receive(g)
    g.ok("step", "8.619")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--open", "--follow-ups")
    declared = [r for r in g.json("log") if r["type"] == "RollDeclared"]
    assert [(r["table"], r["secret"], r["if_result"]) for r in declared] == [
        ("8.6201", True, ""), *[("8.6204", True, "D")] * 3], declared
    post.send(g)
    post.receive(u)
    post.send(u)
    made = post.receive(g)[0]["results"]
    assert next(r["result"] for r in made if r["table"] == "8.6201") == strength
    sw = [r for r in made if r["table"] == "8.6204"]
    assert len(sw) == (3 if strength == "Depleted" else 0), (strength, sw)  # what the roller is shown
    sealed = [r["table"] for r in g.json("log") if r["type"] in ("SecretRollMade", "RollLapsed")]
    assert sealed == ["8.6201", *["8.6204"] * 3], sealed  # a Full RG's SW drs made void, sealed alike
    g.ok("reveal", "--all", "--side", "german")
    void = [r for r in g.json("log") if r["type"] == "SecretRollRevealed" and "dice" not in r["fact"]]
    assert len(void) == (0 if strength == "Depleted" else 3), void
    post.send(g)
    post.receive(u)
    for desk in (g, u):
        assert json.loads(desk.run("audit", "--json").stdout)["findings"] == []


def test_one_undo_takes_back_a_command_whole(tmp_path, make_db):
    """`buy --follow-ups` records the walk, the purchase and each declaration as acts of their own: one `undo` takes
    the whole command back (it took six), and the side stands where it stood before it. A command's acts that the
    ledger's own records followed (an answer) are not taken back so (the fair dice are final)."""
    from two_players import start

    desks, post = start("kgp", [make_db(), make_db()], tmp_path)
    g = desks["german"]
    g.ok("step", "8.619")
    before = g.json("status")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19", "--follow-ups")
    taken = g.json("undo")
    assert len(taken["also"]) >= 2 and taken["same_command_left"] == [], taken
    after = g.json("status")
    assert after["progress"]["german"]["step"] == "8.619" and after["cpp"] == before["cpp"], after["progress"]
    assert not [r for r in g.json("log") if r["type"] in ("RollDeclared", "RGPurchaseSealed") and r["in_force"]]
    g.ok("step", "8.620")  # another command: its undo takes back that act alone
    assert "also" not in g.json("undo")
    assert json.loads(g.run("audit", "--json").stdout)["findings"] == []


def test_one_undo_takes_back_the_walk_follow_ups_made_first(tmp_path, make_db):
    """`follow-ups` from the RG step walks the side on to 8.620 first, then declares each roll: the walk carries the
    command's id as its declarations do, so one `undo` takes it back with them and the side stands in 8.619 again."""
    from two_players import start

    desks, post = start("kgp", [make_db(), make_db()], tmp_path)
    g = desks["german"]
    g.ok("step", "8.619")
    g.ok("buy", "I2", "--side", "german", "--map-group", "St", "--objective", "StJ19")
    g.ok("follow-ups", "--side", "german", "--rg", "I2#1")
    assert g.json("status")["progress"]["german"]["step"] == "8.620"
    taken = g.json("undo", "--reason", "not yet")
    assert taken["same_command_left"] == [], taken
    assert g.json("status")["progress"]["german"]["step"] == "8.619"
    assert json.loads(g.run("audit", "--json").stdout)["findings"] == []
