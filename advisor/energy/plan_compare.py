"""Which rate plan is cheapest for a household: a year's bill on each plan the user could choose.

The bill is priced hour by hour over a whole calendar year (seasons, weekends, tariff holidays):
the house's use spread over the day by its usage pattern, the EV charged every night in the
cheapest hours between 9 pm and 7 am, plus each plan's fixed monthly charges. Every input that was
not stated is an assumption with its source, listed with the result; without the household's own
usage the comparison is a guide, and the result says so.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from advisor.energy.tariff import Tariff

# Assumptions used when the household has not said, each with where it comes from.
TYPICAL_HOUSE_KWH_PER_MONTH = 500.0
TYPICAL_HOUSE_SOURCE = (
    "PG&E's 'typical residential customer' of 500 kWh a month (PG&E news release, 2 March 2026, "
    "https://www.prnewswire.com/news-releases/pge-lowers-electric-prices-in-march-fifth-electric-rate-drop-since-early-2024-302701359.html)"
)
TYPICAL_MILES_PER_YEAR = 13_476.0
TYPICAL_MILES_SOURCE = (
    "FHWA's average of 13,476 miles a year per driver (https://www.fhwa.dot.gov/ohim/onh00/bar8.htm)"
)
KWH_PER_MILE = 0.30
KWH_PER_MILE_SOURCE = (
    "0.30 kWh a mile from the wall, a car rated 30 kWh/100 mi by the EPA (check yours on "
    "https://www.fueleconomy.gov/feg/findacar.shtml; the rating already includes charging losses)"
)
OVERNIGHT_HOURS = (21, 22, 23, 0, 1, 2, 3, 4, 5, 6)  # when the car is assumed home and plugged in
EVENING_HOURS = range(16, 21)
MORNING_HOURS = range(6, 10)


class Household(BaseModel):
    """What the bill depends on; `*_stated` says whether the user gave it (else it is assumed)."""

    model_config = ConfigDict(frozen=True)

    house_kwh_per_month: float = Field(ge=0, le=20_000)
    ev_kwh_per_month: float = Field(ge=0, le=10_000)
    usage_pattern: str = "constant"  # constant | evening_heavy | morning_heavy
    charger_kw: float = Field(7.2, gt=0, le=20)
    house_stated: bool = False
    ev_stated: bool = False


class PlanCost(BaseModel):
    model_config = ConfigDict(frozen=True)

    plan: str
    energy_usd: float
    fixed_usd: float
    total_usd: float
    illustrative: bool
    notes: list[str] = Field(default_factory=list)


def household_from(
    *,
    house_kwh_per_month: float | None,
    ev_kwh_per_month: float | None,
    ev_miles_per_month: float | None,
    has_ev: bool,
    usage_pattern: str | None,
    charger_kw: float | None,
) -> tuple[Household, list[str]]:
    """The household to price and the assumptions made for what was not said."""
    assumptions: list[str] = []
    house = house_kwh_per_month
    if house is None:
        house = TYPICAL_HOUSE_KWH_PER_MONTH
        assumptions.append(f"house use {house:g} kWh a month besides the car: {TYPICAL_HOUSE_SOURCE}")
    ev = ev_kwh_per_month
    if ev is None and ev_miles_per_month is not None:
        ev = ev_miles_per_month * KWH_PER_MILE
        assumptions.append(f"{ev_miles_per_month:,.0f} miles a month x {KWH_PER_MILE_SOURCE}")
    if ev is None and has_ev:
        miles = TYPICAL_MILES_PER_YEAR / 12
        ev = miles * KWH_PER_MILE
        assumptions.append(f"{miles:,.0f} miles a month ({TYPICAL_MILES_SOURCE}) x {KWH_PER_MILE_SOURCE}")
    pattern = usage_pattern or "constant"
    shape = {
        "constant": "house use spread evenly over the day",
        "evening_heavy": "house use twice as heavy from 4 to 9 pm as at other hours (your usage pattern)",
        "morning_heavy": "house use twice as heavy from 6 to 10 am as at other hours (your usage pattern)",
    }
    assumptions.append(shape.get(pattern, shape["constant"]))
    if ev:
        assumptions.append("the car charged every night in the cheapest hours between 9 pm and 7 am")
    household = Household(
        house_kwh_per_month=house,
        ev_kwh_per_month=round(ev or 0.0, 1),
        usage_pattern=pattern if pattern in shape else "constant",
        charger_kw=charger_kw or 7.2,
        house_stated=house_kwh_per_month is not None,
        ev_stated=ev_kwh_per_month is not None or ev_miles_per_month is not None or not has_ev,
    )
    return household, assumptions


def _house_weights(pattern: str) -> list[float]:
    """Share of a day's house use in each hour (sums to 1)."""
    heavy = {"evening_heavy": EVENING_HOURS, "morning_heavy": MORNING_HOURS}.get(pattern, range(0))
    raw = [2.0 if hour in heavy else 1.0 for hour in range(24)]
    return [weight / sum(raw) for weight in raw]


def _day_prices(tariff: Tariff, day: date, zone: ZoneInfo) -> list[float]:
    """The 24 hourly prices of a local day (a DST day is priced as 24 clock hours: a 1-hour
    difference a year is far below the comparison's precision)."""
    return [
        tariff.period_at(datetime(day.year, day.month, day.day, hour, tzinfo=zone)).usd_per_kwh
        for hour in range(24)
    ]


def _ev_night_cost(tonight: list[float], tomorrow: list[float], kwh: float, charger_kw: float) -> float:
    """Cheapest cost of `kwh` in the overnight hours (9 pm-midnight tonight, midnight-7 am tomorrow);
    what does not fit is charged at the dearest overnight price (never free)."""
    prices = sorted(
        [tonight[h] for h in OVERNIGHT_HOURS if h >= 21] + [tomorrow[h] for h in OVERNIGHT_HOURS if h < 21]
    )
    cost, remaining = 0.0, kwh
    for price in prices:
        take = min(charger_kw, remaining)
        cost += take * price
        remaining -= take
        if remaining <= 1e-9:
            return cost
    return cost + remaining * prices[-1]


def annual_cost(tariff: Tariff, household: Household, *, year: int, timezone: str) -> PlanCost:
    """A calendar year's bill on one plan for the household."""
    zone = ZoneInfo(timezone)
    weights = _house_weights(household.usage_pattern)
    first = date(year, 1, 1)
    days = [first + timedelta(days=n) for n in range((date(year + 1, 1, 1) - first).days)]
    prices = {day: _day_prices(tariff, day, zone) for day in [*days, days[-1] + timedelta(days=1)]}
    energy = 0.0
    for day in days:
        month_days = ((day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)).day
        house_kwh = household.house_kwh_per_month / month_days
        ev_kwh = household.ev_kwh_per_month / month_days
        energy += sum(house_kwh * weight * price for weight, price in zip(weights, prices[day], strict=True))
        if ev_kwh:
            energy += _ev_night_cost(
                prices[day], prices[day + timedelta(days=1)], ev_kwh, household.charger_kw
            )
    fixed = tariff.fixed_usd_per_month * 12
    return PlanCost(
        plan=tariff.name,
        energy_usd=round(energy, 2),
        fixed_usd=round(fixed, 2),
        total_usd=round(energy + fixed, 2),
        illustrative=tariff.illustrative,
        notes=[note for note in tariff.notes if not note.startswith("Prices:")],
    )


def compare_plans(tariffs: list[Tariff], household: Household, *, year: int, timezone: str) -> list[PlanCost]:
    """Every plan's year, cheapest first."""
    costs = [annual_cost(tariff, household, year=year, timezone=timezone) for tariff in tariffs]
    return sorted(costs, key=lambda cost: cost.total_usd)
