"""Which plan is cheapest for me: a year priced hour by hour on each catalog plan, fixed charges
included, assumptions listed and sourced, and said to be untrustworthy without real usage."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from advisor.energy.catalog import catalog_tariff
from advisor.energy.plan_compare import Household, annual_cost, compare_plans, household_from
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime

LA = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)

# The README's example household: 500 kWh a month in the house, spread evenly over the day, and an
# EV driven 1,000 miles a month at 0.30 kWh a mile (300 kWh a month), charged overnight at 7.2 kW.
EXAMPLE = Household(house_kwh_per_month=500, ev_kwh_per_month=300, house_stated=True, ev_stated=True)


def test_the_example_household_on_ev2a_priced_independently() -> None:
    """EV2-A is the same every day, so a year is: each month's house kWh at that month's average
    hourly price, the car all at off-peak (midnight-7 am is off-peak), and 12 Base Services Charges."""
    tariff = catalog_tariff("PG&E", "EV2-A")
    house = sum(
        500
        * sum(tariff.period_at(datetime(2026, month, 15, hour, tzinfo=LA)).usd_per_kwh for hour in range(24))
        / 24
        for month in range(1, 13)
    )
    off_peak = tariff.period_at(datetime(2026, 1, 15, 2, tzinfo=LA)).usd_per_kwh
    expected = house + 300 * 12 * off_peak + 24.0 * 12
    cost = annual_cost(tariff, EXAMPLE, year=2026, timezone="America/Los_Angeles")
    assert cost.fixed_usd == 288.0
    assert cost.total_usd == pytest.approx(expected, abs=0.5)


def test_plans_are_ranked_and_fixed_charges_count() -> None:
    plans = [catalog_tariff("PG&E", name) for name in ("E-TOU-C", "EV2-A", "E-ELEC")]
    costs = compare_plans(plans, EXAMPLE, year=2026, timezone="America/Los_Angeles")
    assert [c.total_usd for c in costs] == sorted(c.total_usd for c in costs)
    assert all(c.total_usd == pytest.approx(c.energy_usd + c.fixed_usd, abs=0.01) for c in costs)
    # Shifting the car into EV2-A's off-peak beats E-TOU-C's flatter prices for this household.
    assert costs[-1].plan == "E-TOU-C"
    no_fixed = plans[1].model_copy(update={"fixed_charges": []})
    assert annual_cost(
        no_fixed, EXAMPLE, year=2026, timezone="America/Los_Angeles"
    ).total_usd == pytest.approx(
        annual_cost(plans[1], EXAMPLE, year=2026, timezone="America/Los_Angeles").total_usd - 288, abs=0.01
    )


def test_a_holiday_counts_in_the_year_on_ev_tou_5() -> None:
    """On EV-TOU-5 a weekday holiday's morning is super off-peak, so a house used only that morning
    costs less in a year with the holiday than priced as a plain weekday."""
    tariff = catalog_tariff("SDG&E", "EV-TOU-5")
    assert tariff.day_type(date(2026, 11, 26)) == "holiday"
    plain = tariff.model_copy(update={"holiday_calendar": None})
    with_holidays = annual_cost(tariff, EXAMPLE, year=2026, timezone="America/Los_Angeles")
    without = annual_cost(plain, EXAMPLE, year=2026, timezone="America/Los_Angeles")
    assert with_holidays.total_usd < without.total_usd


def test_assumptions_are_sourced_and_missing_usage_is_said() -> None:
    household, assumptions = household_from(
        house_kwh_per_month=None,
        ev_kwh_per_month=None,
        ev_miles_per_month=None,
        has_ev=True,
        usage_pattern=None,
        charger_kw=None,
    )
    assert household.house_kwh_per_month == 500 and not household.house_stated and not household.ev_stated
    assert household.ev_kwh_per_month == pytest.approx(13_476 / 12 * 0.30, abs=0.1)
    assert any("prnewswire.com" in a for a in assumptions) and any("fhwa.dot.gov" in a for a in assumptions)
    stated, _ = household_from(
        house_kwh_per_month=650,
        ev_kwh_per_month=None,
        ev_miles_per_month=1000,
        has_ev=True,
        usage_pattern="evening_heavy",
        charger_kw=11.5,
    )
    assert (stated.ev_kwh_per_month, stated.house_stated, stated.ev_stated) == (300.0, True, True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "which rate plan is cheapest for me? I drive about 1000 miles a month",
            {"ev_miles_per_month": 1000},
        ),
        (
            "would E-ELEC be better for us? we use 650 kWh a month and I drive 40 miles a day",
            {"house_kwh_per_month": 650, "ev_miles_per_month": 1217},
        ),
        ("should I switch to E-ELEC?", {}),
    ],
)
def test_plan_questions_are_read_as_plan_comparisons(text: str, expected: dict) -> None:
    reading = understand(text)
    assert (reading.intent, reading.params.task) == ("live_data", "plan_comparison")
    assert {k: v for k, v in read_params(text).filled().items() if k in expected} == expected


@pytest.mark.parametrize(
    "text", ["what rate plans does Con Ed have?", "how does EV2-A work?", "charge my car by 7am"]
)
def test_other_questions_are_not_plan_comparisons(text: str) -> None:
    assert understand(text).params.task != "plan_comparison"


def _service(data_dir: Path):
    return make_runtime(data_dir, clock=lambda: NOW).service


def test_offline_turn_compares_plans_with_the_users_words(data_dir: Path) -> None:
    service = _service(data_dir)
    service.handle_turn("T1-PC", "t", "I'm in 94110 on PG&E EV2-A and drive a Tesla Model 3.")
    reply = service.handle_turn(
        "T1-PC", "t", "Which rate plan is cheapest for me? I drive about 1000 miles a month"
    )
    assert "EV2-A (your plan)" in reply.text and "E-TOU-C" in reply.text and "a year" in reply.text
    assert "300 kWh a month for the car" in reply.text
    assert "your home's kWh a month" in reply.text  # the house's use was assumed, and it says so
    assert "Base Services Charge" in reply.text or "fixed charges $288" in reply.text


def test_a_utility_outside_the_catalog_is_told_plainly(data_dir: Path) -> None:
    service = _service(data_dir)
    service.handle_turn("T1-PC2", "t", "I'm in 02134 with Eversource and pay 31 cents per kWh.")
    reply = service.handle_turn("T1-PC2", "t", "Which plan is cheapest for me?")
    assert "only compare rate plans for the utilities in my built-in catalog" in reply.text
    assert "$" not in reply.text.split("_(Offline")[0].replace("$/kWh", "")
