"""snapshots linear in the log. What a closed CG Date no longer needs leaves the campaign state (which
each snapshot holds whole): its used-up due items, and who recorded each of its actions packed to one character each.
Undo, rewind and the audit still work across the CG Date change; a snapshot written before still loads."""

from __future__ import annotations

import json

import msgspec

from conftest import Cli, sql
from cgledger.ledger.application import open_ledger
from cgledger.ledger.store.campaign import campaign_id
from cgledger.ledger.domain.evolve import CampaignState, authorship
from cgledger.ledger.domain.events import ActionUndone, CampaignStarted, CGDateChanged, DiceRolled, StepOpened

STARTED = CampaignStarted(name="c", system="kgp", cg="III", cg_date="19 PM")


def roll(action: int, side: str, item: str) -> DiceRolled:
    return DiceRolled(action=action, table="8.6142", rule="8.6142", side=side, die="dr", dice=(3,), source="entered",
                      original=3, final=3, result="repaired", purpose=item, item=f"8.6142|{side}|{item}")


def encoded(state: CampaignState) -> int:
    return len(msgspec.json.encode({k: v for k, v in vars(state).items() if not k.startswith("_")}))


def play(dates: int, rolls_per_date: int = 200) -> CampaignState:
    """A fold of `dates` CG Dates, each with its rolls (one due item each, the sides taking turns, as two players with
    keys record them) and a move to 8.614, then the next CG Date."""
    state = CampaignState()
    state.start(STARTED, "0", "8.614")
    version, action = 1, 1

    def record(fact, author: str = "") -> None:
        nonlocal version
        version += 1
        state.evolve(fact, "0", version, author)

    for date in range(dates):
        for n in range(rolls_per_date):
            side = ("german", "us")[n % 2]
            record(roll(action, side, f"unit {n}"), side)
            action += 1
        record(CGDateChanged(action=action, previous=f"day {date}", cg_date=f"day {date + 1}"), "german")
        record(StepOpened(action=action, step="8.614"), "german")
        action += 1
    return state


def test_the_state_does_not_grow_with_the_cg_dates_crossed():
    three, thirty = play(3), play(30)
    assert len(thirty.consumed) == 0 and not any("consumed" in r for r in thirty.reverts.values())
    # 27 more CG Dates of 200 rolls each: 5,400 actions, at most a byte each (who recorded it) and a few small
    # reverts per date change (its step, its CG Date, its results): not the ~60 bytes a roll each they were
    assert encoded(thirty) - encoded(three) < 27 * (200 + 1) + 27 * 400
    assert len(thirty.acts) <= CampaignState.ACT_RANGES + 1


def test_who_recorded_each_action_is_the_same_packed():
    state = play(3, rolls_per_date=7)
    assert state.acts_closed and state.acts_sides == ["german", "us"]
    for action in range(1, state.next_action):
        if action % 8 == 0:  # the CG Date change: recorded by the German, shared (no side's own act)
            assert state.act(action) == ("german", True), action
        else:
            assert state.act(action) == (("german", "us")[(action - 1) % 8 % 2], False), action
    assert state.act(state.next_action) == ("", True)  # not recorded
    runs = authorship(state.acts_closed, state.acts_sides, state.acts)
    assert sum(last - first + 1 for first, last, _a, _s in runs) == state.next_action - 1


def test_the_used_up_items_of_the_open_date_stay_and_leave_with_it():
    state = CampaignState()
    state.start(STARTED, "0", "8.614")
    state.evolve(roll(1, "german", "A"), "0", 2, "german")
    assert list(state.consumed) == ["8.6142|german|A"]
    state.evolve(CGDateChanged(action=2, previous="19 PM", cg_date="19 N"), "0", 3)
    assert state.consumed == {} and "consumed" not in state.reverts["2"]
    state.evolve(ActionUndone(action=3, undone=2), "0", 4)  # the undo of the CG Date change reopens 19 PM
    assert state.cg_date == "19 PM" and state.act(1) == ("german", False)
    state.evolve(ActionUndone(action=4, undone=1), "0", 5)  # and reaches back into it
    assert state.live == [] and state.consumed == {}


def test_undo_and_rewind_across_cg_date_changes_and_the_audit_stays_clean(played):
    cli = Cli(played())
    cli.ok("step", "next")  # 21 AM: a new CG Date
    assert cli.json("status")["cg_date"] == "21 AM"
    cli.ok("undo", "--reason", "not yet")
    status = cli.json("status")
    assert status["cg_date"] == "20 N" and status["step"] == "8.623"
    assert cli("audit").exit_code == 0
    cli.ok("undo", "--reason", "the Initiative again")  # back into the closed CG Date
    assert cli.json("status")["needs"][0]["effect"] == "initiative"
    cli.ok("initiative", "--german", "idle", "--us", "idle")
    cli.ok("step", "next")
    rewound = cli.json("rewind", "19 PM", "--reason", "back across four CG Date changes")
    assert rewound["cg_date"] == "19 PM" and cli.json("status")["cg_date"] == "19 PM"
    assert cli("audit").exit_code == 0
    ledger = open_ledger(str(cli.db))
    assert ledger.verification.audit(None).clean and ledger.campaign(None).consumed == {}


def test_a_snapshot_written_before_still_loads_and_the_audit_stays_clean(played):
    """A snapshot of the state as it was kept before: every action's author in ranges, and the used-up due items of
    each closed CG Date in its date change's revert. It loads, the audit finds it is the replay's state, and the
    next CG Date change takes the old items out."""
    from cgledger.ledger.store.persistence import snapshot_seal

    cli = Cli(played())
    honest = cli.json("status")
    changes = [e.fact.action for e in open_ledger(str(cli.db)).history(None)
               if isinstance(e.fact, CGDateChanged) and e.version < 100]
    ((stored,),) = sql(cli.db, "SELECT state FROM {snapshots}")
    snap = json.loads(bytes(stored))
    state = snap["state"]
    assert state["acts_closed"] and str(changes[-1]) in state["reverts"]
    state["acts"] = authorship(state.pop("acts_closed"), state.pop("acts_sides"), state["acts"])
    state["reverts"][str(changes[-1])]["consumed"] = {"8.616|german|20 PM": [80, changes[-1] - 3]}
    raw = json.dumps(state).encode()
    data = json.dumps({**snap, "state": "@"}).encode().replace(b'"@"', raw)
    data = data.replace(snap["seal"].encode(), snapshot_seal(snap["head"], raw).encode())
    sql(cli.db, "UPDATE {snapshots} SET state = ?", (data,))

    result = cli("status", "--json")
    assert result.exit_code == 0 and result.stderr == "" and json.loads(result.stdout) == honest
    assert cli("audit").exit_code == 0
    ledger = open_ledger(str(cli.db))
    at_100 = ledger.store.loader.campaign(campaign_id(honest["campaign"]), 100)
    assert "consumed" in at_100.reverts[str(changes[-1])] and ledger.notices == []  # read from that snapshot
    assert ledger.verification.audit(None).clean
    cli.ok("step", "next")  # 21 AM: a CG Date change takes the old items out
    campaign = open_ledger(str(cli.db)).campaign(None)
    assert not any("consumed" in r for r in campaign.reverts.values()) and campaign.acts_closed
    assert cli("audit").exit_code == 0


def test_a_roll_made_again_on_a_date_opened_again_is_named_by_the_audit(played):
    """The used-up items of 20 N left the state with its change to 21 AM: once an undo opens 20 N again, a roll made
    there already is not refused again. The audit, which reads the whole log, names it (a re-roll, which `import`
    takes and every audit keeps naming), and only it."""
    cli = Cli(played())
    cli.ok("step", "next")  # 21 AM
    for _ in range(5):  # the CG Date change, the Initiative, step 8.623, the 8.618 DR, step 8.618
        cli.ok("undo")
    status = cli.json("status")
    assert (status["cg_date"], status["step"]) == ("20 N", "8.616")
    assert cli("audit").exit_code == 0
    cli.ok("roll", "8.616", "--side", "us", "--dice", "2,2")  # rolled at 20 N already (1,3), still in force
    findings = json.loads(cli("audit", "--json").stdout)["findings"]
    assert [f["kind"] for f in findings] == ["reroll"] and "rolled twice: 8.616 (us, 20 N)" in findings[0]["message"]
    cli.ok("undo")  # the second roll taken back: the log keeps it, and the audit keeps naming it, alone
    assert json.loads(cli("audit", "--json").stdout)["findings"] == findings
