"""What the same heat costs from a heat pump and from a gas, oil or propane furnace, at the prices
the user pays ("oil is 4.10 a gallon and we pay 31 cents a kWh, would a heat pump be cheaper?").

The arithmetic of `knowledge/docs/heat-pump-vs-furnace-running-cost.md`: the cost of 100,000 Btu
(one therm) delivered into the home = the price of that much energy ÷ the system's efficiency.
Energy contents are EIA's (Energy Explained, "Units and calculators"): 1 kWh = 3,412 Btu, a therm
of natural gas 100,000 Btu, a gallon of heating oil about 138,500 Btu and of propane about 91,500
Btu. Efficiencies are assumptions the answer states: a heat pump averaging COP 2.5 over a heating
season (lower in deep cold), and the furnace's AFUE (a new gas or propane furnace 95 %, an oil one
85 %; an older furnace is often lower, which makes the heat pump look better).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Fuel = Literal["gas", "oil", "propane"]

BTU_PER_KWH = 3_412
BTU_PER_THERM = 100_000
BTU_PER_UNIT: dict[str, float] = {"gas": 100_000, "oil": 138_500, "propane": 91_500}
UNIT: dict[str, str] = {"gas": "therm", "oil": "gallon", "propane": "gallon"}
FUEL_NAME: dict[str, str] = {"gas": "natural gas", "oil": "heating oil", "propane": "propane"}
SYSTEM_NAME: dict[str, str] = {
    "gas": "gas furnace",
    "oil": "oil furnace or boiler",
    "propane": "propane furnace",
}
USUAL_AFUE: dict[str, float] = {"gas": 0.95, "oil": 0.85, "propane": 0.95}
SEASONAL_COP = 2.5
SOURCE = "EIA Energy Explained, units and calculators; heat-pump-vs-furnace-running-cost.md"

# prices no home pays: a typo or a misread number, never worked out as if true
_PLAUSIBLE_PRICE: dict[str, tuple[float, float]] = {
    "gas": (0.2, 10.0),
    "oil": (0.5, 15.0),
    "propane": (0.5, 15.0),
}
_PLAUSIBLE_KWH = (0.02, 1.5)


class HeatingComparison(BaseModel):
    """Dollars per 100,000 Btu of heat delivered, each system at its assumed efficiency."""

    fuel: Fuel
    fuel_price_usd: float = Field(gt=0)
    electricity_usd_per_kwh: float = Field(gt=0)
    cop: float = Field(gt=0)
    afue: float = Field(gt=0, le=1)
    heat_pump_usd: float
    furnace_usd: float
    break_even_cop: float  # the COP at which the heat pump's heat costs what the furnace's does

    @property
    def cheaper(self) -> Literal["heat_pump", "furnace", "even"]:
        ratio = self.heat_pump_usd / self.furnace_usd
        return "even" if 0.95 <= ratio <= 1.05 else ("heat_pump" if ratio < 1 else "furnace")


class ImplausiblePriceError(ValueError):
    """A price outside what any US home pays: said back, not worked out."""


def compare_heating(
    fuel: Fuel,
    fuel_price_usd: float,
    electricity_usd_per_kwh: float,
    *,
    cop: float = SEASONAL_COP,
    afue: float | None = None,
) -> HeatingComparison:
    low, high = _PLAUSIBLE_PRICE[fuel]
    if not low <= fuel_price_usd <= high:
        raise ImplausiblePriceError(f"${fuel_price_usd:g} per {UNIT[fuel]} of {FUEL_NAME[fuel]}")
    if not _PLAUSIBLE_KWH[0] <= electricity_usd_per_kwh <= _PLAUSIBLE_KWH[1]:
        raise ImplausiblePriceError(f"${electricity_usd_per_kwh:g} per kWh of electricity")
    efficiency = afue if afue is not None else USUAL_AFUE[fuel]
    electricity_per_therm = electricity_usd_per_kwh * BTU_PER_THERM / BTU_PER_KWH  # 29.3 kWh a therm
    fuel_per_therm = fuel_price_usd * BTU_PER_THERM / BTU_PER_UNIT[fuel]
    furnace = fuel_per_therm / efficiency
    return HeatingComparison(
        fuel=fuel,
        fuel_price_usd=fuel_price_usd,
        electricity_usd_per_kwh=electricity_usd_per_kwh,
        cop=cop,
        afue=efficiency,
        heat_pump_usd=electricity_per_therm / cop,
        furnace_usd=furnace,
        break_even_cop=electricity_per_therm / furnace,
    )


def describe(result: HeatingComparison) -> str:
    """One paragraph: both costs, which is cheaper at these prices, and the COP that breaks even."""
    fuel, unit = result.fuel, UNIT[result.fuel]
    heat_pump = (
        f"a heat pump at {result.electricity_usd_per_kwh * 100:.1f}¢ per kWh costs about "
        f"**${result.heat_pump_usd:.2f}**"
    )
    furnace = f"{'an' if SYSTEM_NAME[fuel][0] in 'aeiou' else 'a'} {SYSTEM_NAME[fuel]} at ${result.fuel_price_usd:.2f} per {unit} about **${result.furnace_usd:.2f}**"
    verdict = {
        "heat_pump": "At these prices the heat pump's heat is cheaper",
        "furnace": f"At these prices the {SYSTEM_NAME[fuel]}'s heat is cheaper",
        "even": "At these prices the two cost about the same",
    }[result.cheaper]
    return (
        f"For the same 100,000 Btu of heat delivered into your home, {heat_pump}, and {furnace}. "
        f"{verdict}; the heat pump breaks even with the {SYSTEM_NAME[fuel]} at an average COP of "
        f"{result.break_even_cop:.1f} (cold-climate heat pumps average roughly 2 to 3 over a winter, "
        "less in deep cold)."
    )


class HeatingYear(BaseModel):
    """A season's heat both ways, from the fuel the furnace burned: the heat it delivered (fuel ×
    energy content × AFUE) is what a heat pump would have to deliver, at COP kWh per kWh of heat."""

    fuel_units: float = Field(gt=0)
    furnace_usd: float
    heat_delivered_btu: float
    heat_pump_kwh: float
    heat_pump_usd: float


def heating_year(result: HeatingComparison, fuel_units: float) -> HeatingYear:
    heat = fuel_units * BTU_PER_UNIT[result.fuel] * result.afue
    kwh = heat / (BTU_PER_KWH * result.cop)
    return HeatingYear(
        fuel_units=fuel_units,
        furnace_usd=fuel_units * result.fuel_price_usd,
        heat_delivered_btu=heat,
        heat_pump_kwh=kwh,
        heat_pump_usd=kwh * result.electricity_usd_per_kwh,
    )


def describe_year(result: HeatingComparison, year: HeatingYear) -> str:
    """ "For the 800 gallons you burn a year …": the season's cost both ways, rounded as estimates."""
    unit = UNIT[result.fuel]
    return (
        f"For the {year.fuel_units:,.0f} {unit}s you burn a year (about "
        f"{year.heat_delivered_btu / 1e6:,.0f} million Btu of heat delivered at {result.afue:.0%} AFUE), "
        f"{FUEL_NAME[result.fuel]} costs about **${_round(year.furnace_usd):,}** a year; a heat pump delivering "
        f"the same heat at COP {result.cop:g} would use about {_round(year.heat_pump_kwh):,} kWh, about "
        f"**${_round(year.heat_pump_usd):,}** at {result.electricity_usd_per_kwh * 100:.1f}¢ per kWh."
    )


def _round(value: float) -> int:
    """To the nearest $10 / 10 kWh: an estimate, not a bill."""
    return int(round(value, -1))


def assumptions(result: HeatingComparison, *, afue_said: bool = False) -> list[str]:
    furnace = (
        f"{SYSTEM_NAME[result.fuel]} at {result.afue:.0%} AFUE, as you said"
        if afue_said
        else f"{SYSTEM_NAME[result.fuel]} at {result.afue:.0%} AFUE (an older one is often lower, which favours the heat pump)"
    )
    return [
        f"heat pump averaging COP {result.cop:g} over the heating season",
        furnace,
        f"energy contents from EIA: 1 kWh = {BTU_PER_KWH:,} Btu, one {UNIT[result.fuel]} of "
        f"{FUEL_NAME[result.fuel]} ≈ {BTU_PER_UNIT[result.fuel]:,.0f} Btu",
    ]
