"""A heating comparison put right and worked out again: the furnace's real efficiency, a new fuel
price, their own price per kWh, or "rerun the numbers" (a homeowner-tester in Vermont had
"rerun the numbers" read as the town they live in, and "my boiler is actually 85% efficient" as a
question for the knowledge base)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime

AFTER_OIL = ReadingContext(
    last_intent="live_data", last_topic="home", last_params=RequestParams(fuel="oil", fuel_price_usd=4.1)
)


@pytest.mark.parametrize(
    ("text", "changed"),
    [
        ("my boiler is actually 90% efficient, redo it", {"furnace_afue_pct": 90.0}),
        ("it's 95% efficient", {"furnace_afue_pct": 95.0}),
        ("what if oil goes to 3.50", {"fuel_price_usd": 3.5}),
        ("electric is 18 cents", {"electricity_usd_per_kwh": 0.18}),
        ("rerun the numbers", {}),
    ],
)
def test_what_they_put_right_is_the_comparison_again(text: str, changed: dict[str, float]) -> None:
    reading = understand(text, AFTER_OIL)
    assert reading.intent == "live_data" and reading.follow_up and reading.topic == "home"
    expected = {"fuel": "oil", "fuel_price_usd": 4.1, **changed}
    assert reading.params.model_dump(exclude_none=True) == expected  # no task: no prices asked


def test_another_fuels_price_or_no_comparison_before_changes_nothing() -> None:
    assert understand("gas is 1.40 a therm", AFTER_OIL).params.fuel != "oil"
    plain = understand("my furnace is actually 95%", ReadingContext())
    assert plain.params.furnace_afue_pct is None and not plain.follow_up


def test_their_price_per_kwh_said_after_it_is_saved_and_used(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)).service
    first = service.handle_turn(
        "U-V", "t", "burlington vt 05401. oil is 4.10 a gallon, would a heat pump be cheaper"
    )
    assert "VT average price" in first.text
    again = service.handle_turn("U-V", "t", "we pay 18 cents a kwh btw")
    # 29.3 x 0.18 / 2.5 = $2.11; 0.722 x 4.10 / 0.85 = $3.48
    assert "$2.11" in again.text and "$3.48" in again.text and "average price" not in again.text
    corrected = service.handle_turn("U-V", "t", "my boiler is actually 80% efficient")
    assert "$3.70" in corrected.text and "80% AFUE, as you said" in corrected.text
    rerun = service.handle_turn("U-V", "t", "rerun the numbers")
    assert "$2.11" in rerun.text and "ZIP" not in rerun.text and "utility" not in rerun.text.lower()


def test_a_request_is_no_town(data_dir: Path) -> None:
    reading = understand("rerun the numbers", ReadingContext(pending_slot="location"))
    assert reading.place_query is None and reading.slot_answer.status == "not_answered"


def test_a_years_fuel_gives_a_years_cost_both_ways() -> None:
    """800 gallons of oil at $4.10 in an 85 % boiler: $3,280 of oil; 800 × 138,500 × 0.85 = 94.2
    million Btu delivered, ÷ (3,412 × 2.5) = 11,040 kWh, × 20.8¢ ≈ $2,300 (the homeowner-tester's
    "burned like 800 gal" had been given only the cost per 100,000 Btu)."""
    from advisor.energy.heating_cost import compare_heating, heating_year
    from advisor.understanding.params import read_params

    year = heating_year(compare_heating("oil", 4.10, 0.208), 800)
    assert round(year.furnace_usd) == 3280 and round(year.heat_pump_kwh, -1) == 11040
    assert round(year.heat_pump_usd, -1) == 2300
    said = read_params("oil is 4.10 a gallon and we burned like 800 gal last winter")
    assert said.fuel_units_per_year == 800
    assert read_params("gas is 1.40 a therm and we use 900 therms a year").fuel_units_per_year == 900
    assert read_params("oil is 4.10 a gallon, the tank holds 275 gallons").fuel_units_per_year is None


def test_the_years_fuel_said_after_the_comparison_adds_the_years_cost(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)).service
    service.handle_turn("U-Y", "t", "burlington vt 05401. oil is 4.10 a gallon, would a heat pump be cheaper")
    reply = service.handle_turn("U-Y", "t", "we go through about 800 gallons a winter")
    assert "800 gallons you burn a year" in reply.text and "$3,280" in reply.text and "$2,300" in reply.text
