"""The compare_rate_plans tool's work: a year on each catalog plan of the user's utility.

Kept out of `toolkit.py` (one job per module); the tool there only forwards its arguments.
"""

from __future__ import annotations

from datetime import datetime, time, timezone
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from advisor.energy.catalog import (
    catalog_price_basis,
    catalog_tariff,
    normalize_plan,
    normalize_utility,
    plans_of,
)
from advisor.energy.ev import DEFAULT_LEVEL2_CHARGER_KW
from advisor.energy.plan_compare import compare_plans, household_from
from advisor.energy.utilities import utility_named
from advisor.places import zip_state
from advisor.tools.data import DataSources, local_timezone
from advisor.tools.models import Observation

if TYPE_CHECKING:
    from advisor.tools.toolkit import TurnContext

TOOL_NAME = "compare_rate_plans"


def _failed(summary: str, context: TurnContext) -> Observation:
    return Observation(tool=TOOL_NAME, ok=False, summary=summary, source="none", as_of=context.now)


# Texas' retail-choice areas: the wires companies deliver, the retail providers set the price
_TEXAS_WIRES = ("Oncor", "CenterPoint Energy", "AEP Texas", "TNMP")
_TEXAS_RETAIL = (
    "TXU Energy",
    "Reliant Energy",
    "Gexa Energy",
    "Green Mountain Energy",
    "Direct Energy",
    "Champion Energy",
    "Rhythm Energy",
)
POWER_TO_CHOOSE = (
    "compare plans on Power to Choose (powertochoose.org), the state's official site, by each plan's "
    "Electricity Facts Label (EFL) at your own monthly kWh, and check the contract length and early "
    "cancellation fee."
)


def _texas_choice(named: str, location: object) -> str | None:
    """Where the price comes from a retail provider the user picks (Texas' ERCOT areas), what to do
    instead of a comparison we cannot make: never "Oncor's own rate comparison tool"."""
    utility = utility_named(named)
    zip_code = getattr(location, "zip_code", None)
    state = zip_state(zip_code) if zip_code else None
    if utility is None or state not in (None, "TX"):
        return None
    if utility.name in _TEXAS_WIRES:
        return (
            f"In Texas' retail-choice areas {utility.name} only delivers the power; the price per kWh comes "
            f"from the retail provider you pick, so I can't compare plans from {utility.name}. Instead, "
            + POWER_TO_CHOOSE
        )
    if utility.name in _TEXAS_RETAIL:
        return (
            f"My plan catalog doesn't hold {utility.name}'s plans. In Texas you can switch providers: "
            + POWER_TO_CHOOSE
        )
    return None


def compare_rate_plans(
    data: DataSources,
    context: TurnContext,
    *,
    house_kwh_per_month: float | None = None,
    ev_kwh_per_month: float | None = None,
    ev_miles_per_month: float | None = None,
) -> Observation:
    profile = context.profile
    location = profile.location
    named = location.utility_provider if location else None
    utility = normalize_utility(named) if named else None
    if named is None:
        return _failed(
            "I need to know which utility serves you to compare its plans (my catalog has PG&E's and SDG&E's).",
            context,
        )
    texas = _texas_choice(named, location)
    if texas is not None:
        return _failed(texas, context)
    if utility is None:
        who = named
        return _failed(
            f"I can only compare rate plans for the utilities in my built-in catalog (PG&E and SDG&E), not {who}. "
            f"{who}'s own rate comparison tool, with your meter data, is the reliable way to choose.",
            context,
        )
    plans = plans_of(utility)
    if len(plans) < 2:
        return _failed(
            f"I only have {utility}'s {', '.join(plans)} in my catalog, so I can't compare its plans; "
            f"{utility}'s online rate comparison uses your own usage.",
            context,
        )
    for value, label in ((house_kwh_per_month, "house kWh a month"), (ev_kwh_per_month, "EV kWh a month")):
        if value is not None and not 0 <= value <= 10_000:
            return _failed(f"{label} must be between 0 and 10,000.", context)
    if ev_miles_per_month is not None and not 0 <= ev_miles_per_month <= 20_000:
        return _failed("miles a month must be between 0 and 20,000.", context)
    equipment = profile.equipment
    has_ev = bool(equipment and (equipment.ev_model or equipment.ev_battery_kwh))
    household_pattern = profile.household.typical_usage_pattern if profile.household else None
    household, assumptions = household_from(
        house_kwh_per_month=house_kwh_per_month,
        ev_kwh_per_month=ev_kwh_per_month,
        ev_miles_per_month=ev_miles_per_month,
        has_ev=has_ev,
        usage_pattern=household_pattern,
        charger_kw=(equipment.ev_charger_kw if equipment else None) or DEFAULT_LEVEL2_CHARGER_KW,
    )
    zone_name, zone_note = local_timezone(profile)
    if zone_note:
        assumptions.append(zone_note)
    tariffs = [tariff for plan in plans if (tariff := catalog_tariff(utility, plan)) is not None]
    year = context.now.astimezone(ZoneInfo(zone_name)).year
    costs = compare_plans(tariffs, household, year=year, timezone=zone_name)
    current = normalize_plan(location.rate_schedule) if location and location.rate_schedule else None
    # A plan assumed for a user who skipped the question (recall's view) is not "your plan".
    assumed = (
        current is not None
        and bool(profile.history)
        and not any(entry.field == "location.rate_schedule" for entry in profile.history)
    )
    mine = " (assumed, as you weren't sure)" if assumed else " (your plan)"
    lines = [
        f"{cost.plan}{mine if cost.plan == current else ''}: ${cost.total_usd:,.0f} a year "
        f"(energy ${cost.energy_usd:,.0f} + fixed charges ${cost.fixed_usd:,.0f})"
        for cost in costs
    ]
    cheapest = costs[0]
    usage = f"{household.house_kwh_per_month:g} kWh a month for the house"
    if household.ev_kwh_per_month:
        usage += f" + {household.ev_kwh_per_month:,.0f} kWh a month for the car"
    summary = f"Estimated {year} bill on each {utility} plan for {usage}: " + "; ".join(lines) + "."
    if current and current != cheapest.plan and (mine := next((c for c in costs if c.plan == current), None)):
        summary += f" {cheapest.plan} would cost about ${mine.total_usd - cheapest.total_usd:,.0f} a year less than {current}."
    elif current == cheapest.plan:
        runner_up = costs[1]
        lead = f"{cheapest.plan} comes out cheapest" if assumed else "You're already on the cheapest"
        summary += (
            f" {lead}: ${runner_up.total_usd - cheapest.total_usd:,.0f} a year less than {runner_up.plan}."
        )
    else:
        summary += f" {cheapest.plan} comes out cheapest, by ${costs[1].total_usd - cheapest.total_usd:,.0f} a year over {costs[1].plan}."
    missing = [
        *(["your home's kWh a month (from a bill)"] if not household.house_stated else []),
        *(["how many miles you drive a month"] if not household.ev_stated else []),
    ]
    if missing:
        summary += (
            " Don't decide on this alone: without your real usage it rests on the assumptions below. "
            f"{utility}'s rate comparison with your meter data is exact; tell me {' and '.join(missing)} "
            "and I'll redo it."
        )
    warnings = [
        f"Prices are illustrative ({catalog_price_basis(utility, tariffs[0].name)}), not the current tariff sheets."
    ]
    warnings += sorted({note for cost in costs for note in cost.notes if "baseline" in note.lower()})
    return Observation(
        tool=TOOL_NAME,
        summary=summary,
        facts={
            "plans": [cost.model_dump() for cost in costs],
            "cheapest": cheapest.plan,
            "current_plan": current,
            "household": household.model_dump(),
            "trustworthy": household.house_stated and household.ev_stated,
        },
        source=f"{utility} plans in the built-in tariff catalog: "
        + ", ".join(dict.fromkeys(t.source for t in tariffs)),
        as_of=datetime.combine(min(t.as_of for t in tariffs), time(), tzinfo=timezone.utc),
        is_mock=data.is_mock,
        assumptions=assumptions,
        warnings=warnings,
        comparable=True,  # every plan priced for the same household usage
    )
