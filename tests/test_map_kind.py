"""map entry that cannot lose information. Found by email: `control HEX` without `--strategic`
dropped a Location's Strategic kind (StJ19, StN19), so by 20 AM the U.S. had no Setup Area, and nothing said so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kept_command

MAP = Path(__file__).parent.parent / "fixtures" / "kgp-st-fixture-map.toml"


@pytest.fixture
def scenario(kgp):
    kgp.ok("rules", "load", str(MAP))
    kgp.ok("step", "scenario")
    return kgp


def strategic(cli) -> dict:
    return {row["location"]: (row["side"], row["strategic"]) for row in cli.json("log")
            if row["type"] == "LocationControlled" and row["in_force"]}


def test_a_change_of_control_keeps_the_strategic_kind(scenario):
    cli = scenario
    cli.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    cli.ok("control", "StN19", "--side", "us", "--strategic", "E")
    cli.ok("control", "StJ19", "--side", "german")  # taken: still a building Location, Strategic
    assert strategic(cli)["StJ19"] == ("german", "B")
    areas = cli.json("areas", "--group", "St")
    assert "us" not in areas["no_strategic_location"] and "german" not in areas["no_strategic_location"]
    cli.ok("control", "StJ19", "--side", "us", "--strategic", "none")  # the players say it is not Strategic
    assert strategic(cli)["StJ19"] == ("us", "")
    assert cli("audit").exit_code == 0


def test_a_change_that_leaves_a_side_no_strategic_location_is_named_when_made(scenario):
    cli = scenario
    cli.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    cli.ok("control", "StP15", "--side", "german", "--strategic", "B")
    taken = cli("control", "StJ19", "--side", "german", "--json")
    assert taken.exit_code == 0
    warnings = json.loads(taken.stdout)["warnings"]
    assert len(warnings) == 1 and "U.S. side Controls no Strategic Location on the St Map Group" in warnings[0]
    assert "8.605" in warnings[0] and "Warning:" in taken.stderr
    assert cli("audit").exit_code == 0


def test_an_older_record_without_a_kind_still_audits_clean(scenario):
    """A LocationControlled stored with no kind over a Strategic Location (the old behaviour) is read as the
    players' clearing it: the audit re-decides it as recorded."""
    from cgledger.ledger.application import open_ledger
    from cgledger.ledger.domain.events import LocationControlled

    cli = scenario
    cli.ok("control", "StJ19", "--side", "us", "--strategic", "B")
    ledger = open_ledger(str(cli.db))
    campaign = ledger.campaign(None)
    older = LocationControlled(action=campaign.next_action, location="StJ19", side="german", strategic="")
    campaign.record(older, "", None, "", kept_command(older))  # with the command it records
    ledger.store.save(campaign)
    assert cli("audit").exit_code == 0
    assert strategic(cli)["StJ19"] == ("german", "")


def test_entering_the_map_warns_no_side_that_never_held_a_strategic_location(scenario):
    """The first Controls entered on a Map Group leave the other side none there yet: that is no change a typo made,
    so nothing is said (the sample's first five Control lines each printed the same warning)."""
    first = scenario("control", "StJ19", "--side", "us", "--strategic", "B", "--json")
    assert json.loads(first.stdout).get("warnings", []) == [] and "Warning:" not in first.stderr
    second = scenario("control", "StJ21", "--side", "us", "--strategic", "F", "--json")
    assert json.loads(second.stdout).get("warnings", []) == [] and "Warning:" not in second.stderr
