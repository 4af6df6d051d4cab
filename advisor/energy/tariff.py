"""Time-of-use tariffs in the OpenEI Utility Rate Database (URDB) shape, and hourly prices.

URDB describes a tariff with `energyratestructure` (a list of periods, each a list of tiers
with `rate`, optional `adj` and `unit`) and two 12x24 matrices, `energyweekdayschedule` and
`energyweekendschedule`, giving the 0-based period index for each month and hour. Plain TOU
tariffs use tier 0. The built-in catalog uses the same shape, so one conversion serves both.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, model_validator


class TariffError(ValueError):
    """A tariff that cannot be turned into prices (wrong units, bad schedule shape, ...)."""


class PricePeriod(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    name: str  # off_peak, partial_peak, peak (or super_off_peak), ranked by price
    usd_per_kwh: float = Field(gt=0)


class Tariff(BaseModel):
    """A TOU tariff ready for pricing: periods and the two 12x24 schedules."""

    model_config = ConfigDict(frozen=True)

    utility: str
    name: str
    periods: list[PricePeriod]
    weekday_schedule: list[list[int]]
    weekend_schedule: list[list[int]]
    source: str
    as_of: date
    illustrative: bool = False
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _schedules_match_periods(self) -> Tariff:
        for label, schedule in (("weekday", self.weekday_schedule), ("weekend", self.weekend_schedule)):
            if len(schedule) != 12 or any(len(row) != 24 for row in schedule):
                raise TariffError(f"{label} schedule must be 12 months x 24 hours")
            if any(not 0 <= index < len(self.periods) for row in schedule for index in row):
                raise TariffError(f"{label} schedule names a period the tariff does not have")
        return self

    def period_at(self, moment: datetime) -> PricePeriod:
        """The period in force at a local time (the moment must carry the tariff's timezone)."""
        schedule = self.weekend_schedule if moment.weekday() >= 5 else self.weekday_schedule
        return self.periods[schedule[moment.month - 1][moment.hour]]


class PriceSlot(BaseModel):
    """One hour `[start, end)` at one price."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime
    usd_per_kwh: float
    period: str


def tariff_from_urdb(item: dict[str, Any], *, source: str, as_of: date, illustrative: bool = False) -> Tariff:
    """Convert one URDB rate item. Tier 0 of each period is used (plain TOU); only $/kWh units."""
    try:
        structure = item["energyratestructure"]
        weekday = item["energyweekdayschedule"]
        weekend = item["energyweekendschedule"]
    except KeyError as missing:
        raise TariffError(f"URDB item has no {missing.args[0]}") from None
    prices = []
    for index, tiers in enumerate(structure):
        if not tiers:
            raise TariffError(f"period {index} has no tiers")
        tier = tiers[0]
        unit = str(tier.get("unit", "kWh"))
        if unit.lower() != "kwh":
            raise TariffError(f"period {index} is priced per {unit!r}; only kWh energy rates are supported")
        price = float(tier.get("rate", 0)) + float(tier.get("adj", 0) or 0)
        if price <= 0:
            raise TariffError(f"period {index} has no positive $/kWh rate")
        prices.append(price)
    given = item.get("period_names")
    if given is not None and len(given) != len(prices):
        raise TariffError("period_names must name every period")
    names = list(given) if given is not None else _rank_names(prices, weekday, weekend)
    periods = [PricePeriod(index=i, name=names[i], usd_per_kwh=round(p, 5)) for i, p in enumerate(prices)]
    return Tariff(
        utility=str(item.get("utility", "unknown utility")),
        name=str(item.get("name", "unnamed tariff")),
        periods=periods,
        weekday_schedule=weekday,
        weekend_schedule=weekend,
        source=source,
        as_of=as_of,
        illustrative=illustrative,
    )


def _rank_names(prices: list[float], weekday: list[list[int]], weekend: list[list[int]]) -> list[str]:
    """Name URDB periods (which carry no names) by price among the periods of the same month:
    the cheapest is off_peak, the dearest peak, the others partial_peak."""
    names: dict[int, str] = {}
    for month in range(min(len(weekday), len(weekend))):
        used = sorted({*weekday[month], *weekend[month]} - names.keys())
        levels = sorted({prices[i] for i in {*weekday[month], *weekend[month]} if 0 <= i < len(prices)})
        for index in used:
            if not 0 <= index < len(prices):
                continue  # reported by Tariff's own validation
            price = prices[index]
            if len(levels) == 1 or price == levels[0]:
                names[index] = "off_peak"
            elif price == levels[-1]:
                names[index] = "peak"
            else:
                names[index] = "partial_peak"
    return [names.get(index, "off_peak") for index in range(len(prices))]


def hourly_prices(tariff: Tariff, start: datetime, hours: int, timezone: str) -> list[PriceSlot]:
    """Prices for `hours` whole hours from the hour containing `start`, in local time."""
    if start.tzinfo is None:
        raise ValueError("start must be timezone-aware")
    zone = ZoneInfo(timezone)
    local = start.astimezone(zone).replace(minute=0, second=0, microsecond=0)
    slots = []
    for offset in range(hours):
        # Step in UTC so DST changes neither skip nor repeat an hour.
        slot_start = (local.astimezone(ZoneInfo("UTC")) + timedelta(hours=offset)).astimezone(zone)
        period = tariff.period_at(slot_start)
        slots.append(
            PriceSlot(
                start=slot_start,
                end=slot_start + timedelta(hours=1),
                usd_per_kwh=period.usd_per_kwh,
                period=period.name,
            )
        )
    return slots


def period_windows(tariff: Tariff, day: date, timezone: str) -> list[tuple[str, int, int, float]]:
    """The day's periods as (name, start_hour, end_hour, $/kWh) runs, for explanations."""
    start = datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(timezone))
    runs: list[tuple[str, int, int, float]] = []
    for slot in hourly_prices(tariff, start, 24, timezone):
        hour = slot.start.hour
        if runs and runs[-1][0] == slot.period and runs[-1][3] == slot.usd_per_kwh:
            name, first, _, price = runs[-1]
            runs[-1] = (name, first, hour + 1, price)
        else:
            runs.append((slot.period, hour, hour + 1, slot.usd_per_kwh))
    return runs


def flat_tariff(usd_per_kwh: float, *, utility: str, name: str, source: str, as_of: date, illustrative: bool) -> Tariff:
    """One price all day, every day: what a price the user gave (or a state average) amounts to."""
    return Tariff(
        utility=utility,
        name=name,
        periods=[PricePeriod(index=0, name="flat", usd_per_kwh=usd_per_kwh)],
        weekday_schedule=[[0] * 24 for _ in range(12)],
        weekend_schedule=[[0] * 24 for _ in range(12)],
        source=source,
        as_of=as_of,
        illustrative=illustrative,
    )
