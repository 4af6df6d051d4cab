"""What charging the car at home costs a month ("what would charging cost per month then").

Tonight's plan answers "when"; this answers "how much a month": the miles a month (theirs, or the
FHWA average) at the EPA-style 0.30 kWh a mile from the wall, split evenly over the next 30 nights
and each night's share put in that night's cheapest hours between 9 pm and 7 am (the hours
`plan_compare` already assumes the car is home and plugged in) by the same planner as tonight's
plan, on the user's own tariff with its weekends and holidays.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from advisor.energy.ev import cheapest_slots
from advisor.energy.plan_compare import (
    KWH_PER_MILE,
    KWH_PER_MILE_SOURCE,
    OVERNIGHT_HOURS,
    TYPICAL_MILES_PER_YEAR,
    TYPICAL_MILES_SOURCE,
)
from advisor.energy.tariff import hourly_prices
from advisor.energy.vehicles import vehicle_spec
from advisor.tools.data import DataSources, home_charging_power, local_timezone, tariff_as_of, tariff_source
from advisor.tools.models import Observation

if TYPE_CHECKING:  # the toolkit imports this module to register the tool
    from advisor.tools.toolkit import TurnContext

TOOL_NAME = "estimate_monthly_charging_cost"
NIGHTS = 30
PLUG_IN_HOUR = OVERNIGHT_HOURS[0]  # 21:00
READY_HOUR = OVERNIGHT_HOURS[-1] + 1  # 07:00, the end of the last overnight hour


def monthly_charging_cost(
    data: DataSources, context: TurnContext, miles_per_month: float | None = None
) -> Observation:
    """The next 30 nights of home charging for `miles_per_month` (else the FHWA average)."""
    profile = context.profile
    if miles_per_month is not None and not 0 < miles_per_month <= 20_000:
        return _failed("miles_per_month must be between 0 and 20,000.", context)
    lookup = data.resolve_tariff(profile, one_price=context.one_price_plan, described=context.described_plan)
    if lookup.tariff is None:
        return _failed("I can't price charging without your rate plan.", context, lookup.warnings)
    tariff = lookup.tariff
    assumptions: list[str] = []
    if miles_per_month is None:
        miles_per_month = TYPICAL_MILES_PER_YEAR / 12
        assumptions.append(f"{miles_per_month:,.0f} miles a month ({TYPICAL_MILES_SOURCE}); tell me yours")
    monthly_kwh = miles_per_month * KWH_PER_MILE
    assumptions.append(KWH_PER_MILE_SOURCE)
    power = home_charging_power(profile.equipment, assumptions)
    zone_name, zone_note = local_timezone(profile)
    if zone_note:
        assumptions.append(zone_note)
    zone = ZoneInfo(zone_name)
    now_local = context.now.astimezone(zone)
    nightly_kwh = monthly_kwh / NIGHTS
    prices = hourly_prices(tariff, now_local, (NIGHTS + 2) * 24, zone_name)
    cost = 0.0
    short = 0.0
    first_night = now_local.date() if now_local.hour < PLUG_IN_HOUR else now_local.date() + timedelta(days=1)
    for night in range(NIGHTS):
        evening = datetime.combine(first_night + timedelta(days=night), time(PLUG_IN_HOUR), zone)
        morning = datetime.combine(evening.date() + timedelta(days=1), time(READY_HOUR), zone)
        plan = cheapest_slots(prices, energy_kwh=nightly_kwh, power_kw=power, start=evening, deadline=morning)
        cost += sum(slot.kwh * slot.usd_per_kwh for slot in plan.slots)
        short += plan.shortfall_kwh
    if short > 0.01:
        return _failed(
            f"{miles_per_month:,.0f} miles a month needs {nightly_kwh:.1f} kWh a night, more than a {power:g} kW "
            f"charger delivers between {PLUG_IN_HOUR}:00 and {READY_HOUR:02d}:00.",
            context,
            lookup.warnings,
        )
    average = cost / monthly_kwh
    flat = len({period.usd_per_kwh for period in tariff.periods}) <= 1
    priced = (
        f"with one flat price every hour costs the same ({tariff.utility} {tariff.name})"
        if flat
        else f"in each night's cheapest hours between {PLUG_IN_HOUR}:00 and {READY_HOUR:02d}:00 on "
        f"{tariff.utility} {tariff.name}"
    )
    summary = (
        f"Charging at home for {miles_per_month:,.0f} miles a month takes about {monthly_kwh:,.0f} kWh from the wall; "
        f"{priced}, that is about ${cost:,.2f} a month (${average:.3f} per kWh on average, over the next {NIGHTS} nights)."
    )
    return Observation(
        tool=TOOL_NAME,
        summary=summary,
        facts={
            "miles_per_month": round(miles_per_month),
            "monthly_kwh": round(monthly_kwh, 1),
            "nightly_kwh": round(nightly_kwh, 2),
            "power_kw": power,
            "nights": NIGHTS,
            "plug_in": f"{PLUG_IN_HOUR:02d}:00",
            "ready_by": f"{READY_HOUR:02d}:00",
            "monthly_cost_usd": round(cost, 2),
            "average_usd_per_kwh": round(average, 3),
            "tariff": f"{tariff.utility} {tariff.name}",
        },
        source=tariff_source(lookup, tariff),
        as_of=tariff_as_of(tariff),
        is_mock=lookup.is_mock or data.is_mock,
        assumptions=assumptions,
        warnings=[*lookup.warnings, *_large_ev_warning(profile)],
    )


# a pack this big is a pickup's or a large SUV's, which uses well over a typical car's 0.30 kWh a mile
LARGE_PACK_KWH = 100.0


def _large_ev_warning(profile: Any) -> list[str]:
    """The typical car's kWh a mile understates a truck's or a large SUV's: said, not guessed at
    (no per-model rating in the tables)."""
    equipment = profile.equipment
    model = equipment.ev_model if equipment is not None else None
    spec = vehicle_spec(model) if model else None
    battery = (equipment.ev_battery_kwh if equipment is not None else None) or (
        spec.battery_kwh if spec else None
    )
    if not model or battery is None or battery < LARGE_PACK_KWH:
        return []
    return [
        f"A {model} is a large EV and likely uses well over 0.30 kWh a mile, so this cost is probably low: "
        "tell me its kWh per 100 miles (fueleconomy.gov lists it) for a closer figure."
    ]


def _failed(summary: str, context: TurnContext, warnings: list[str] | None = None) -> Observation:
    return Observation(
        tool=TOOL_NAME,
        ok=False,
        summary=summary,
        source="none",
        as_of=context.now,
        warnings=list(warnings or []),
    )
