"""The purchase rules, one decision at a time (tests/given.py): RG bought against the chart in force (KGP 8.619-8.6198,
RR 2.518-2.5188) and Fortifications with the FPP of the CG Date (KGP 8.621, RR 2.520). Each test is named by its
rule and cites it; a refusal names that rule of the campaign's own system and writes nothing (a decision gives facts
or a refusal, never both)."""

from __future__ import annotations

from cgledger.ledger.domain.commands import Buy, Fortify
from cgledger.ledger.domain.events import (
    CampaignStarted, CGDateChanged, CPPGained, FortificationsPurchased, RGPurchased, StepOpened, TablesOverridden,
)

from given import given

RR = CampaignStarted(name="RR", system="rr", cg="RR", cg_date="19 AM", start_cpp={"german": 40, "canadian": 30})


def rr_at(step: str, *facts, date: str = "19 PM"):
    """RR past its Initial Scenario: the CG Date `date` in `step`, then the facts given."""
    return given(RR, StepOpened(action=1, step="scenario"), CGDateChanged(action=2, previous="19 AM", cg_date=date),
                 StepOpened(action=2, step=step), *facts)


def bought(action: int, rg: str, cpp: int, side: str = "german", **more) -> RGPurchased:
    return RGPurchased(action=action, side=side, rg=rg, group_type="", cpp=cpp, map_group="", **more)


# ---- RR 2.518: RG purchases ------------------------------------------------------------------------------------------
def test_2_518_rg_are_bought_in_the_purchase_step_only():
    rr_at("2.516").when(Buy(rg="I1", side="german")).refused("2.518", "RG are purchased in step 2.518")
    facts = rr_at("2.518").when(Buy(rg="I1", side="german")).decided()
    assert [(f.rg, f.cpp, f.action) for f in facts] == [("I1", 28, 3)]


def test_2_5181_an_rg_is_one_of_the_sides_chart():
    rr_at("2.518").when(Buy(rg="Z9", side="german")).refused("2.5181", "no RG 'Z9' on the German RG chart")
    # an ID of the other side's chart is not this side's
    rr_at("2.518").when(Buy(rg="V6", side="canadian")).refused("2.5181", "no RG 'V6' on the Canadian RG chart")


def test_2_5184_the_cpp_cost_is_paid_from_what_the_side_has():
    campaign = rr_at("2.518")
    (fact,) = campaign.when(Buy(rg="I1", side="german")).decided()
    assert fact.cpp == 28  # the chart's cost
    after = campaign.and_then(fact)
    assert after.state.cpp["german"] == 12
    after.when(Buy(rg="V2", side="german")).refused("2.5184", "costs 14 CPP; the German side has 12 CPP left")
    # what the side's own Secret replenishments hold counts, as its own ledger knows them (8.616: sealed CPP)
    assert after.when(Buy(rg="V2", side="german"), sealed_cpp=2).decided()[0].cpp == 14


def test_2_5184_a_sides_sealed_books_are_opened_only_for_a_cost_over_its_open_cpp():
    """Its own ledger opens the sealed replenishments (a decryption) only when the open CPP fall short: the books
    are given as a function of none, and what it gives decides as the number would."""
    opened = []

    def books() -> int:
        opened.append(1)
        return 2

    after = rr_at("2.518", bought(3, "I1", 28))
    assert after.when(Buy(rg="HW1", side="german"), sealed_cpp=books).decided()[0].cpp == 12 and not opened
    assert after.when(Buy(rg="V2", side="german"), sealed_cpp=books).decided()[0].cpp == 14 and opened == [1]
    after.when(Buy(rg="I1", side="german"), sealed_cpp=books).refused("2.5184",
                                                                       "costs 28 CPP; the German side has 14 CPP left")


def test_2_5184_an_on_map_setup_costs_three_more_eight_for_an_infantry_company():
    campaign = rr_at("2.518")
    assert campaign.when(Buy(rg="HW1", side="german", on_map=True)).decided()[0].cpp == 12 + 3
    assert campaign.when(Buy(rg="I1", side="german", on_map=True)).decided()[0].cpp == 28 + 8  # a company
    assert campaign.when(Buy(rg="G1", side="german", on_map=True)).decided()[0].cpp == 8  # G: Standard, no cost
    campaign.when(Buy(rg="I2", side="german", on_map=True)).refused("2.5184", "may not set up on board")  # Lehr
    campaign.when(Buy(rg="V4", side="canadian", on_map=True)).refused("2.5184", "may not set up on board")


def test_2_5185_at_most_the_cg_date_max_a_cg_date():
    two = rr_at("2.518", bought(3, "I1", 20, side="canadian"), bought(4, "I1", 0, side="canadian"))
    two.when(Buy(rg="I1", side="canadian")).refused("2.5185", "at most 2", "2 already bought on 19 PM")
    # the next CG Date counts afresh
    next_date = two.and_then(StepOpened(action=5, step="scenario"),
                             CGDateChanged(action=6, previous="19 PM", cg_date="19 N"),
                             CPPGained(action=6, side="canadian", cpp=30, cg_date="19 N", chart="2.516"),
                             StepOpened(action=6, step="2.518"))
    assert next_date.state.cpp["canadian"] == 40
    assert next_date.when(Buy(rg="I1", side="canadian")).decided()[0].cpp == 20


def test_2_5186_at_most_the_cg_maximum_and_an_initial_scenario_rg_given_does_not_count():
    # Canadian I3 (CG maximum 1): one given in the Initial Scenario's OB, one bought later
    initial = given(RR, StepOpened(action=1, step="2.518"))
    (given_rg,) = initial.when(Buy(rg="I3", side="canadian", given=True)).decided()
    assert (given_rg.given, given_rg.cpp) == (True, 0)
    later = rr_at("2.518", given_rg)  # the given RG stands before the CG Date change
    (fact,) = later.when(Buy(rg="I3", side="canadian")).decided()
    assert fact.cpp == 10
    on = later.and_then(fact, StepOpened(action=4, step="scenario"),
                        CGDateChanged(action=5, previous="19 PM", cg_date="19 N"), StepOpened(action=5, step="2.518"))
    on.when(Buy(rg="I3", side="canadian")).refused("2.5186", "at most 1", "has bought 1")
    later.when(Buy(rg="I3", side="canadian", given=True)).refused("2.5186", "only an Initial-Scenario OB gives RG")


def test_2_518_an_rg_available_from_a_later_cg_date_is_refused_before_it():
    rr_at("2.518").when(Buy(rg="M4", side="german")).refused("2.518", "available only from 19 N")
    assert rr_at("2.518", date="19 N").when(Buy(rg="M4", side="german")).decided()[0].rg == "M4"


def test_2_5186_a_shared_maximum_counts_the_rg_that_share_it():
    """RR footnote f: at most 2 RG of G2 and G3 together in the CG."""
    campaign = rr_at("2.518", bought(3, "G2", 13), bought(4, "G3", 11))
    campaign.when(Buy(rg="G3", side="german")).refused("2.5186", "at most 2 of G2+G3 together")


def test_rr_footnote_p_pre_registered_hexes_cost_one_each_two_at_most():
    campaign = rr_at("2.518")
    assert campaign.when(Buy(rg="O1", side="german", pre_registered=2)).decided()[0].cpp == 5 + 2
    campaign.when(Buy(rg="O1", side="german", pre_registered=3)).refused("2.518", "at most 2 Pre-Registered hexes")
    campaign.when(Buy(rg="O1", side="german", pre_registered=-1)).refused("2.518", "cannot be negative")


# ---- KGP 8.619: RG for a Map Group, Early Entry -------------------------------------------------------------------
CHART = """
[[rg]]
side = "german"
id = "I2"
group_type = "SS Inf Pltn"
cost = 8
date_max = 1
cg_max = { I = 6 }

[[rg]]
side = "us"
id = "I1"
group_type = "Inf Pltn"
cost = 6
date_max = 2
cg_max = { I = 6 }

[[rg]]
side = "us"
id = "V3"
group_type = "Med Tank Pltn I"
cost = 7
date_max = 1
cg_max = { I = 4 }
on_map = "free"

[[rg]]
side = "us"
id = "HW1"
group_type = "Hvy Wpns Pltn"
cost = 5
date_max = 1
cg_max = { I = 4 }

[[rg]]
side = "german"
id = "FPP"
group_type = "Fortification Purchase Points"
cost = 3
date_max = 3
cg_max = { I = 12 }
fpp = 10
"""

KGP = CampaignStarted(name="CG I", system="kgp", cg="I", cg_date="19 AM", start_cpp={"german": 40, "us": 40})


def kgp_at(step: str, *facts):
    """KGP CG I at 19 PM, in `step`, a player's RG chart loaded (the seeds print no costs)."""
    return given(KGP, TablesOverridden(action=1, source="chart.toml", text=CHART, tables=("RG chart",)),
                 StepOpened(action=2, step="scenario"), CGDateChanged(action=3, previous="19 AM", cg_date="19 PM"),
                 StepOpened(action=3, step=step), *facts)


def test_8_6195_an_rg_is_bought_for_a_map_group_of_the_cg():
    campaign = kgp_at("8.619")
    campaign.when(Buy(rg="I2", side="german", objective="StJ19")).refused("8.6195", "give --map-group St|Ch|Lg")
    campaign.when(Buy(rg="I2", side="german", map_group="Xx", objective="StJ19")).refused(
        "8.6195", "unknown Map Group 'Xx'")


def test_8_6195_the_cg_date_max_counts_per_map_group():
    one = kgp_at("8.619", RGPurchased(action=4, side="german", rg="I2", group_type="SS Inf Pltn", cpp=8,
                                      map_group="St", objective="StJ19"))
    one.when(Buy(rg="I2", side="german", map_group="St", objective="StJ19")).refused(
        "8.6195", "at most 1 SS Inf Pltn (I2) per CG Date per Map Group", "1 already bought for St")
    assert one.when(Buy(rg="I2", side="german", map_group="Ch", objective="ChK5")).decided()[0].cpp == 8


def test_8_6198_an_infantry_or_heavy_weapons_rg_names_its_objective_hex():
    campaign = kgp_at("8.619")
    campaign.when(Buy(rg="I2", side="german", map_group="St")).refused("8.6198", "needs its Objective Hex")
    campaign.when(Buy(rg="HW1", side="us", map_group="St")).refused("8.6198", "needs its Objective Hex")
    campaign.when(Buy(rg="I2", side="german", map_group="St", objective="J19")).refused("KGP1", "malformed hex 'J19'")
    assert campaign.when(Buy(rg="V3", side="us", map_group="St")).decided()[0].objective == ""  # a 'V': none


def test_8_6194b_us_early_entry_costs_half_again_rounded_down_for_an_i_v_or_g_rg():
    """'... a U.S. RG whose ID begins with 'T', "V" or "G" ...': the 'T' read as "I" (8.6197: the Entry Code an
    Early Entry uses is given to each "I", "V" and "G" RG type)."""
    campaign = kgp_at("8.619")
    assert campaign.when(Buy(rg="V3", side="us", map_group="St", early=True)).decided()[0].cpp == 7 + 3  # 3.5 FRD
    assert campaign.when(Buy(rg="I1", side="us", map_group="St", objective="StJ19", early=True)).decided()[0].cpp == 9
    campaign.when(Buy(rg="HW1", side="us", map_group="St", objective="StJ19", early=True)).refused(
        "8.6194b", "HW1 is not one")
    campaign.when(Buy(rg="I2", side="german", map_group="St", objective="StJ19", early=True)).refused(
        "8.6194b", "Early Entry is for a U.S. RG")


def test_8_6194b_an_rg_set_up_on_map_does_not_enter_and_rr_has_no_early_entry():
    kgp_at("8.619").when(Buy(rg="V3", side="us", map_group="St", on_map=True, early=True)).refused(
        "8.6194b", "does not enter")
    rr_at("2.518").when(Buy(rg="V1", side="german", early=True)).refused(None, "RR has no Early Entry")


# ---- KGP 8.621: Fortifications -------------------------------------------------------------------------------------
def fpp(action: int) -> RGPurchased:
    return RGPurchased(action=action, side="german", rg="FPP", group_type="Fortification Purchase Points", cpp=3,
                       map_group="St", fpp=10)


def test_8_621_fortifications_are_bought_with_the_fpp_of_rg_bought_in_8_619():
    """The 8.621 EX: 30 FPP; four A-T factors 16, HIP for one squad, two HS, one crew and one SMC 9, five '?' 5."""
    with_fpp = kgp_at("8.619", fpp(4), fpp(5), fpp(6))
    assert with_fpp.state.fpp["german"] == 30
    at = with_fpp.and_then(StepOpened(action=7, step="8.621"))
    buys = [Fortify(item="at_mines", side="german", setup_area="A", count=4, squads=2),
            Fortify(item="hip", side="german", setup_area="A", size="squad"),
            Fortify(item="hip", side="german", setup_area="A", size="hs", count=2),
            Fortify(item="hip", side="german", setup_area="A", size="crew"),
            Fortify(item="hip", side="german", setup_area="A", size="smc"),
            Fortify(item="dummy", side="german", setup_area="A", count=5)]
    spent = []
    for command in buys:
        (fact,) = at.when(command).decided()
        spent.append(fact.fpp)
        at = at.and_then(fact)
    assert spent == [16, 3, 4, 1, 1, 5] and at.state.fpp["german"] == 0
    at.when(Fortify(item="dummy", side="german", setup_area="A")).refused("8.621", "cost 1 FPP", "has 0 FPP")


def test_8_621_s_items_count_against_the_setup_areas_retained_squads():
    """Footnote S: each 6-A-P / 2-A-T factor minefield (or part thereof) and each '1S' foxhole capacity counts as one
    Fortification, no more than the Setup Area's Retained squad-equivalents."""
    at = kgp_at("8.619", fpp(4), fpp(5)).and_then(StepOpened(action=6, step="8.621"))
    (mines,) = at.when(Fortify(item="ap_mines", side="german", setup_area="A", count=7, squads=2)).decided()
    assert (mines.s_units, mines.fpp) == (2, 10.5)  # 7 factors: two minefields
    after = at.and_then(mines)
    after.when(Fortify(item="foxhole", side="german", setup_area="A", size="1", squads=2)).refused(
        "8.621", "it has 2 already, these count 1")
    assert after.when(Fortify(item="foxhole", side="german", setup_area="B", size="2", squads=2)).decided()[0].s_units \
        == 2
    at.when(Fortify(item="trench", side="german", setup_area="A")).refused(
        "8.621", "give Setup Area A's number with --squads N")


def test_8_621_only_f_items_in_a_front_line_hex_only_i_items_in_an_isolated_location():
    at = kgp_at("8.619", fpp(4)).and_then(StepOpened(action=5, step="8.621"))
    at.when(Fortify(item="trench", side="german", setup_area="A", squads=1, front_line=True)).refused(
        "8.621", "only 'F' items may be set up in a Front-Line Hex")
    at.when(Fortify(item="ap_mines", side="german", setup_area="A", squads=1, isolated=True)).refused(
        "8.621", "only 'i' items may be added to an Isolated Location")
    assert at.when(Fortify(item="dummy", side="german", setup_area="A", front_line=True, isolated=True)).decided()


def test_8_621_fortifications_are_bought_in_their_step_only():
    kgp_at("8.619", fpp(4)).when(Fortify(item="dummy", side="german", setup_area="A")).refused(
        "8.621", "Fortifications are purchased in step 8.621")


def test_2_520_rr_fortifications_come_from_the_fpp_an_rg_gives():
    at = rr_at("2.518", bought(3, "M1", 1, fpp=15.0)).and_then(StepOpened(action=4, step="2.520"))
    (fact,) = at.when(Fortify(item="dummy", side="german", setup_area="A", count=15)).decided()
    assert isinstance(fact, FortificationsPurchased) and fact.fpp == 15
    at.when(Fortify(item="dummy", side="german", setup_area="A", count=16)).refused("2.520", "has 15 FPP")

