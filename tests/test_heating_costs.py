"""Heat from a heat pump against the user's gas, oil or propane furnace, at the prices they pay
(a homeowner-tester in Boston: "we pay 31 cents per kwh all in, oil is about 4.10/gal" had been
answered with an EV's cost per mile)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from advisor.energy.heating_cost import ImplausiblePriceError, compare_heating
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime


def test_the_documents_worked_example_comes_out_the_same() -> None:
    """heat-pump-vs-furnace-running-cost.md: $0.16/kWh at COP 2.5 about $1.88 per 100,000 Btu, gas
    at $1.40 a therm in a 95 % furnace about $1.47, break-even COP about 3.2."""
    result = compare_heating("gas", 1.40, 0.16)
    assert round(result.heat_pump_usd, 2) == 1.88 and round(result.furnace_usd, 2) == 1.47
    assert round(result.break_even_cop, 1) == 3.2 and result.cheaper == "furnace"


def test_oil_and_propane_use_their_energy_per_gallon() -> None:
    # the document's shortcuts: oil 0.72 x price / AFUE, propane 1.09 x price / AFUE
    assert compare_heating("oil", 4.10, 0.31).furnace_usd == pytest.approx(0.722 * 4.10 / 0.85, rel=0.01)
    propane = compare_heating("propane", 2.50, 0.16)
    assert (
        propane.furnace_usd == pytest.approx(1.093 * 2.50 / 0.95, rel=0.01) and propane.cheaper == "heat_pump"
    )


@pytest.mark.parametrize(("fuel", "price", "kwh"), [("oil", 410, 0.31), ("gas", 1.4, 31.0)])
def test_a_price_no_home_pays_is_never_worked_out(fuel: str, price: float, kwh: float) -> None:
    with pytest.raises(ImplausiblePriceError):
        compare_heating(fuel, price, kwh)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "fuel", "price"),
    [
        ("oil is about 4.10/gal", "oil", 4.10),
        ("propane runs us $2.89 a gallon", "propane", 2.89),
        ("paying 3.99 a gallon for heating oil", "oil", 3.99),
        ("gas is 1.40 a therm", "gas", 1.40),
        ("we pay $1.25/therm", "gas", 1.25),
    ],
)
def test_a_fuel_price_is_read_as_said(text: str, fuel: str, price: float) -> None:
    params = read_params(text)
    assert (params.fuel, params.fuel_price_usd) == (fuel, price)


def test_gasoline_and_a_years_gallons_are_no_heating_price() -> None:
    assert read_params("gas is 3.50 a gallon").fuel_price_usd is None
    assert read_params("we burn 800 gallons of oil a year").fuel_price_usd is None


def test_a_price_said_after_a_heat_pump_explanation_is_worked_out() -> None:
    from advisor.understanding.models import ReadingContext

    reading = understand(
        "we pay 31 cents per kwh all in, oil is about 4.10/gal",
        ReadingContext(last_intent="knowledge", last_topic="home"),
    )
    assert reading.intent == "live_data" and reading.topic == "home" and reading.params.fuel == "oil"


def clock() -> datetime:
    return datetime(2026, 1, 21, 18, tzinfo=timezone.utc)


def test_the_comparison_is_answered_with_their_prices_end_to_end(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn(
        "U-H", "t", "boston 02130, we heat with oil. would switching to a heat pump save money"
    )
    reply = service.handle_turn("U-H", "t", "we pay 31 cents per kwh all in, oil is about 4.10/gal")
    assert "$3.63" in reply.text and "$3.48" in reply.text and "about the same" in reply.text
    assert "COP 2.5" in reply.text and "85% AFUE" in reply.text  # the assumptions are said
    assert "cost per mile" not in reply.text


def test_without_an_electricity_price_the_state_average_is_used_and_said(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    asked = service.handle_turn(
        "U-I", "t", "gas is 1.40 a therm, would a heat pump be cheaper than our gas furnace"
    )
    assert "ZIP code" in asked.text  # where they are, for a price
    reply = service.handle_turn("U-I", "t", "43215")
    assert "gas furnace's heat is cheaper" in reply.text and "OH average price" in reply.text


def test_their_furnaces_efficiency_and_electricity_price_are_used_as_said(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    reply = service.handle_turn(
        "U-J",
        "t",
        "minneapolis mn 55406 xcel. natural gas is like $1.10/therm and electric 15c. "
        "is a cold climate heat pump worth it vs my 80% furnace",
    )
    # 29.3 x 0.15 / 2.5 = $1.76; 1.10 / 0.80 = $1.38 (not the state average, not 95 %)
    assert "$1.76" in reply.text and "$1.38" in reply.text and "80% AFUE, as you said" in reply.text
    assert "average price" not in reply.text
