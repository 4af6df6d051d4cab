"""Heat from a heat pump against heat from the user's gas, oil or propane furnace, priced at what
they pay ("oil is about 4.10/gal and we pay 31 cents a kWh, would a heat pump save money?").

The arithmetic is `advisor.energy.heating_cost`'s; this tool finds the electricity price (the flat
price they gave, else their state's average, said so) and states every assumption, so the answer
shows its working rather than a verdict from nowhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from advisor.energy.heating_cost import (
    SOURCE,
    UNIT,
    ImplausiblePriceError,
    assumptions,
    compare_heating,
    describe,
    describe_year,
    heating_year,
)
from advisor.tools.data import flat_price
from advisor.tools.models import Observation

if TYPE_CHECKING:  # the toolkit imports this module to register the tool
    from advisor.tools.toolkit import TurnContext

TOOL_NAME = "compare_heating_costs"


def heating_costs(
    context: TurnContext,
    fuel: Literal["gas", "oil", "propane"],
    fuel_price_usd: float,
    cop: float | None = None,
    afue: float | None = None,
    electricity_usd_per_kwh: float | None = None,
    fuel_units_per_year: float | None = None,
) -> Observation:
    said = (electricity_usd_per_kwh, "at the price you said", "your own figure", False)
    flat = said if electricity_usd_per_kwh else flat_price(context.profile)
    if flat is None:
        return _failed(
            "I need your electricity price to compare: tell me what you pay per kWh (it's on your bill), "
            "or your ZIP code for your state's average.",
            context,
        )
    price, how, source, illustrative = flat
    try:
        result = compare_heating(
            fuel,
            fuel_price_usd,
            price,
            **({"cop": cop} if cop else {}),
            afue=(afue / 100 if afue and afue > 1 else afue),
        )
    except ImplausiblePriceError as exc:
        return _failed(f"{exc} is outside what homes pay, so I won't work it out; check the figure.", context)
    warnings = (
        [f"Electricity priced {how} ({source}), not your own bill: tell me what you pay per kWh."]
        if illustrative
        else []
    )
    year = heating_year(result, fuel_units_per_year) if fuel_units_per_year else None
    summary = describe(result) + (f" {describe_year(result, year)}" if year else "")
    yearly = (
        {"furnace_usd_a_year": round(year.furnace_usd), "heat_pump_usd_a_year": round(year.heat_pump_usd)}
        if year
        else {}
    )
    return Observation(
        tool=TOOL_NAME,
        summary=summary,
        facts={
            **yearly,
            "heat_pump_usd_per_100k_btu": round(result.heat_pump_usd, 2),
            "furnace_usd_per_100k_btu": round(result.furnace_usd, 2),
            "break_even_cop": round(result.break_even_cop, 2),
            "fuel": fuel,
            f"fuel_usd_per_{UNIT[fuel]}": fuel_price_usd,
            "electricity_usd_per_kwh": price,
        },
        source=SOURCE,
        as_of=context.now,
        assumptions=assumptions(result, afue_said=afue is not None),
        warnings=warnings,
    )


def _failed(message: str, context: TurnContext) -> Observation:
    return Observation(tool=TOOL_NAME, ok=False, summary=message, source=SOURCE, as_of=context.now)
