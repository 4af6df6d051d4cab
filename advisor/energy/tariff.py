"""Time-of-use tariffs in the OpenEI Utility Rate Database (URDB) shape, and hourly prices.

URDB describes a tariff with `energyratestructure` (a list of periods, each a list of tiers
with `rate`, optional `adj`, `unit` and `max`) and two 12x24 matrices, `energyweekdayschedule`
and `energyweekendschedule`, giving the 0-based period index for each month and hour. Which tier
is priced, and how fixed and minimum charges are read, is said in `tariff_from_urdb`. The built-in
catalog uses the same shape, so one conversion serves both.

What URDB cannot say, `Tariff` adds: a holiday calendar (tariff holidays are priced on the
weekend table, see `advisor/energy/holidays.py`), fixed monthly charges (such as California's
Base Services Charge) and the date the figures took effect. Month-specific weekday windows
(SDG&E's March/April midday super off-peak) are rows of the 12x24 tables, so the planner
never special-cases a plan: it asks `period_at` for every hour.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor.energy.holidays import holiday_name
from advisor.energy.utilities import utility_named


class TariffError(ValueError):
    """A tariff that cannot be turned into prices (wrong units, bad schedule shape, ...)."""


class PricePeriod(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    name: str  # off_peak, partial_peak, peak, super_off_peak: the source's period, as a key
    usd_per_kwh: float = Field(ge=0)  # 0: free hours, as a "free nights" plan's (never from URDB)
    label: str | None = None  # the source's own words ("On-Peak", "Super Off-Peak"), when given

    @property
    def display(self) -> str:
        return self.label or self.name.replace("_", "-")


class FixedCharge(BaseModel):
    """A charge that does not depend on kWh (Base Services Charge, monthly service fee)."""

    model_config = ConfigDict(frozen=True)

    name: str
    usd_per_month: float = Field(ge=0)
    source: str
    note: str = ""


class Tariff(BaseModel):
    """A TOU tariff ready for pricing: periods and the two 12x24 schedules."""

    model_config = ConfigDict(frozen=True)

    utility: str
    name: str
    periods: list[PricePeriod]
    weekday_schedule: list[list[int]]
    weekend_schedule: list[list[int]]
    source: str
    as_of: date  # the date the figures describe (when the $/kWh were current)
    illustrative: bool = False
    notes: list[str] = Field(default_factory=list)
    holiday_calendar: str | None = None  # utility whose tariff holidays use the weekend table
    fixed_charges: list[FixedCharge] = Field(default_factory=list)
    effective: date | None = None  # when the time periods / charges described took effect

    @property
    def fixed_usd_per_month(self) -> float:
        return round(sum(charge.usd_per_month for charge in self.fixed_charges), 2)

    def day_type(self, day: date) -> str:
        """'holiday' (priced as a weekend), 'weekend' or 'weekday'."""
        if holiday_name(self.holiday_calendar, day):
            return "holiday"
        return "weekend" if day.weekday() >= 5 else "weekday"

    @model_validator(mode="after")
    def _schedules_match_periods(self) -> Tariff:
        for label, schedule in (("weekday", self.weekday_schedule), ("weekend", self.weekend_schedule)):
            if len(schedule) != 12 or any(len(row) != 24 for row in schedule):
                raise TariffError(f"{label} schedule must be 12 months x 24 hours")
            if any(not 0 <= index < len(self.periods) for row in schedule for index in row):
                raise TariffError(f"{label} schedule names a period the tariff does not have")
        return self

    def period_at(self, moment: datetime) -> PricePeriod:
        """The period in force at a local time (the moment must carry the tariff's timezone).
        Tariff holidays are priced on the weekend table."""
        weekday = self.day_type(moment.date()) == "weekday"
        schedule = self.weekday_schedule if weekday else self.weekend_schedule
        return self.periods[schedule[moment.month - 1][moment.hour]]


class PriceSlot(BaseModel):
    """One hour `[start, end)` at one price."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime
    usd_per_kwh: float
    period: str
    label: str | None = None  # the period as the tariff names it ("Super Off-Peak")


def tariff_from_urdb(item: dict[str, Any], *, source: str, as_of: date, illustrative: bool = False) -> Tariff:
    """Convert one URDB rate item: $/kWh periods (rate + adj), the two 12x24 schedules, fixed
    charges (`fixedchargefirstmeter` in `fixedchargeunits`, or the older `fixedmonthlycharge`) and
    notes (usage tiers, a minimum charge). Anything it cannot price raises `TariffError`.

    Tiers. A URDB period can have several usage tiers, each up to `max` kWh (a month, or a day
    for unit "kWh daily"); which one a kWh falls in depends on the household's whole usage that
    month, which a planner pricing one charging session does not know. What it needs is the
    marginal price of the extra kWh, so:

    * periods with one tier: that price (no note);
    * tiers that only rise (every tiered period's second tier dearer than its first) are a
      baseline structure (PG&E's E-TOU-C baseline credit, E-1's baseline tier): the first tier is
      the baseline allowance, and a household that charges an EV at home is almost always past it,
      so the tier above it is priced — the same basis as the catalog, whose E-TOU-C prices leave
      the baseline credit out. Tiers further up (old multi-tier plans) are not used;
    * any other tier shape (declining blocks): the first tier, as before.

    Either way the choice and the other tier's prices go into `Tariff.notes` (the note starts with
    `TIERED_NOTE_PREFIX`), so the answer can say what the prices are.

    Names. URDB periods carry no names: they are named by price within each month (see
    `_rank_names`) unless the item gives `period_names`; labels (the source's own words) come from
    `period_labels` or URDB's `energytoulabels`, never from the description's prose.
    """
    try:
        structure = item["energyratestructure"]
        weekday = item["energyweekdayschedule"]
        weekend = item["energyweekendschedule"]
    except KeyError as missing:
        raise TariffError(f"URDB item has no {missing.args[0]}") from None
    periods_tiers = _tiers_of(structure)
    for label, schedule in (("weekday", weekday), ("weekend", weekend)):
        _check_schedule(label, schedule, len(periods_tiers))
    chosen, tier_note = _choose_tiers(periods_tiers)
    prices = [tiers[pick].usd_per_kwh for tiers, pick in zip(periods_tiers, chosen, strict=True)]
    for index, price in enumerate(prices):
        if price <= 0:
            raise TariffError(f"period {index} has no positive $/kWh rate")
    given = item.get("period_names")
    if given is not None and len(given) != len(prices):
        raise TariffError("period_names must name every period")
    if given is not None:
        names = list(given)
    else:
        names = _rank_names(prices, weekday, weekend, three_levels=_three_level_names(item.get("utility")))
    labels = item.get("period_labels") or _urdb_labels(item.get("energytoulabels"), len(prices))
    if len(labels) != len(prices):
        raise TariffError("period_labels must label every period")
    periods = [
        PricePeriod(index=i, name=names[i], usd_per_kwh=round(p, 5), label=labels[i])
        for i, p in enumerate(prices)
    ]
    fixed, charge_notes = _urdb_fixed_charges(item, source)
    notes = ([tier_note(names)] if tier_note else []) + charge_notes
    return Tariff(
        utility=str(item.get("utility", "unknown utility")),
        name=str(item.get("name", "unnamed tariff")),
        periods=periods,
        weekday_schedule=weekday,
        weekend_schedule=weekend,
        source=source,
        as_of=as_of,
        illustrative=illustrative,
        notes=notes,
        fixed_charges=fixed,
    )


TIERED_NOTE_PREFIX = "Tiered plan:"
_KWH_UNITS = {"kwh": "a month", "kwh daily": "a day"}  # URDB tier units priced per kWh, and what `max` counts


class _Tier(BaseModel):
    model_config = ConfigDict(frozen=True)

    usd_per_kwh: float
    max_kwh: float | None  # upper bound of the tier; None: no bound (the last tier)
    per: str  # "a month" or "a day": what max_kwh counts


def _tiers_of(structure: Any) -> list[list[_Tier]]:
    """Each period's tiers, up to the first one without a `max` (tiers after it are unreachable)."""
    if not isinstance(structure, list) or not structure:
        raise TariffError("energyratestructure must be a non-empty list of periods")
    periods: list[list[_Tier]] = []
    for index, tiers in enumerate(structure):
        if not isinstance(tiers, list) or not tiers:
            raise TariffError(f"period {index} has no tiers")
        kept: list[_Tier] = []
        for tier in tiers:
            if not isinstance(tier, dict):
                raise TariffError(f"period {index} has a tier that is not an object")
            unit = str(tier.get("unit", "kWh"))
            per = _KWH_UNITS.get(unit.strip().lower())
            if per is None:
                raise TariffError(
                    f"period {index} is priced per {unit!r}; only kWh energy rates are supported"
                )
            rate, adj = _number(tier.get("rate", 0)), _number(tier.get("adj", 0) or 0)
            if rate is None or adj is None:
                raise TariffError(f"period {index} has a rate that is not a number")
            bound = _number(tier.get("max")) if tier.get("max") is not None else None
            if bound is not None and bound <= 0:
                bound = None
            kept.append(_Tier(usd_per_kwh=rate + adj, max_kwh=bound, per=per))
            if bound is None:
                break
        periods.append(kept)
    return periods


def _choose_tiers(periods: list[list[_Tier]]) -> tuple[list[int], Callable[[list[str]], str] | None]:
    """The tier priced in each period (see `tariff_from_urdb`) and a function of the period
    names that writes the note saying so (None for a plan without tiers)."""
    tiered = [index for index, tiers in enumerate(periods) if len(tiers) > 1]
    if not tiered:
        return [0] * len(periods), None
    steps = {index: periods[index][1].usd_per_kwh - periods[index][0].usd_per_kwh for index in tiered}
    rising = all(step > 0 for step in steps.values())
    allowance = _allowance([periods[index][0] for index in tiered])

    def note(names: list[str]) -> str:
        first, above = steps_text(names)
        if rising:
            text = (
                f"{TIERED_NOTE_PREFIX} the first {allowance} (the baseline allowance) cost less "
                f"({first}). Prices used are the tier above it ({above}): the marginal price for a household "
                "past its baseline allowance, as most homes that charge an EV are."
            )
            if any(len(periods[index]) > 2 for index in tiered):
                text += " Higher tiers above that are not used."
            return text
        return (
            f"{TIERED_NOTE_PREFIX} prices used are the first tier, up to {allowance} ({first}); "
            f"above that: {above}."
        )

    def steps_text(names: list[str]) -> tuple[str, str]:
        shown = {}
        for index in tiered:  # one example per period name (summer and winter peaks alike)
            shown.setdefault(names[index].replace("_", "-"), index)
        first = ", ".join(f"{name} {_cents(periods[i][0].usd_per_kwh)}" for name, i in shown.items())
        above = ", ".join(f"{name} {_cents(periods[i][1].usd_per_kwh)}" for name, i in shown.items())
        return first, above

    chosen = [1 if rising and index in steps else 0 for index in range(len(periods))]
    return chosen, note


def _allowance(first_tiers: list[_Tier]) -> str:
    """'300 kWh a month', or '250-400 kWh a month' when seasons differ."""
    parts = []
    for per in dict.fromkeys(tier.per for tier in first_tiers):
        bounds = sorted(
            {tier.max_kwh for tier in first_tiers if tier.per == per and tier.max_kwh is not None}
        )
        span = f"{bounds[0]:g}" if len(bounds) == 1 else f"{bounds[0]:g}-{bounds[-1]:g}"
        parts.append(f"{span} kWh {per}")
    return " or ".join(parts)


def _cents(usd_per_kwh: float) -> str:
    return f"{usd_per_kwh * 100:.1f}¢/kWh"


def _check_schedule(label: str, schedule: Any, periods: int) -> None:
    """A 12x24 table of period numbers (checked before naming, so a bad shape is a TariffError)."""
    if (
        not isinstance(schedule, list)
        or len(schedule) != 12
        or any(not isinstance(row, list) or len(row) != 24 for row in schedule)
    ):
        raise TariffError(f"{label} schedule must be 12 months x 24 hours")
    for row in schedule:
        for index in row:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TariffError(f"{label} schedule has an entry that is not a period number")
            if not 0 <= index < periods:
                raise TariffError(f"{label} schedule names a period the tariff does not have")


def _number(value: Any) -> float | None:
    """A finite number, or None (booleans and text are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _urdb_labels(value: Any, count: int) -> list[str | None]:
    """URDB's own period labels (`energytoulabels`) when it gives one string per period."""
    if (
        isinstance(value, list)
        and len(value) == count
        and all(isinstance(v, str) and v.strip() for v in value)
    ):
        return [v.strip() for v in value]
    return [None] * count


_PER_MONTH = {"$/month": 1.0, "$/day": 365 / 12, "$/year": 1 / 12}


def _urdb_fixed_charges(item: dict[str, Any], source: str) -> tuple[list[FixedCharge], list[str]]:
    """URDB's fixed charge as a monthly `FixedCharge` ($/day x 365/12, $/year / 12), and the
    minimum charge as a note (a bill floor, not a charge added to every bill)."""
    charges: list[FixedCharge] = []
    notes: list[str] = []
    amount = _number(item.get("fixedchargefirstmeter"))
    units = str(item.get("fixedchargeunits") or "$/month").strip().lower()
    if amount is not None and amount > 0:
        if units in _PER_MONTH:
            per_day = f"${amount:g}/day x 365/12" if units == "$/day" else f"${amount:g} {units}"
            charges.append(
                FixedCharge(
                    name="customer charge",
                    usd_per_month=round(amount * _PER_MONTH[units], 2),
                    source=source,
                    note=f"{per_day}, OpenEI fixedchargefirstmeter",
                )
            )
        else:
            notes.append(f"OpenEI lists a fixed charge of {amount:g} in units {units!r}; it is not included.")
    else:
        monthly = _number(item.get("fixedmonthlycharge"))
        if monthly is not None and monthly > 0:
            charges.append(
                FixedCharge(
                    name="monthly charge",
                    usd_per_month=round(monthly, 2),
                    source=source,
                    note="OpenEI fixedmonthlycharge",
                )
            )
    minimum = _number(item.get("mincharge"))
    min_units = str(item.get("minchargeunits") or "$/month").strip().lower()
    if minimum is None or minimum <= 0:
        minimum, min_units = _number(item.get("minmonthlycharge")), "$/month"
    if minimum is not None and minimum > 0 and min_units in _PER_MONTH:
        notes.append(
            f"Minimum charge: ${minimum * _PER_MONTH[min_units]:.2f} a month ({minimum:g} {min_units}); a floor "
            "on the bill, not a fixed charge — it only matters in a month whose charges come to less."
        )
    return charges, notes


# Three price levels in a month are super off-peak / off-peak / peak by default (SDG&E's and
# SCE's words); PG&E calls its three levels off-peak / partial-peak / peak (EV2-A, E-ELEC: see
# https://www.pge.com/en_US/residential/rate-plans/rate-plan-options/electric-vehicle-base-plan/electric-vehicle-base-plan.page
# and the catalog's EV2-A). Keyed by the utility table's name (`advisor/energy/utilities.py`).
_DEFAULT_THREE_LEVELS = ("super_off_peak", "off_peak", "peak")
_THREE_LEVELS_BY_UTILITY = {"PG&E": ("off_peak", "partial_peak", "peak")}


def _three_level_names(utility: Any) -> tuple[str, str, str]:
    known = utility_named(utility) if isinstance(utility, str) and utility.strip() else None
    return _THREE_LEVELS_BY_UTILITY.get(known.name, _DEFAULT_THREE_LEVELS) if known else _DEFAULT_THREE_LEVELS


def _rank_names(
    prices: list[float],
    weekday: list[list[int]],
    weekend: list[list[int]],
    *,
    three_levels: tuple[str, str, str] = _DEFAULT_THREE_LEVELS,
) -> list[str]:
    """Name URDB periods (which carry no names) by price rank among the periods of the same month:
    one level is off_peak; two are off_peak and peak; three are `three_levels` (super_off_peak,
    off_peak, peak unless the utility says otherwise); four or more are super_off_peak, off_peak,
    partial_peak (every level between) and peak. A period keeps the name of the first month it
    appears in."""
    names: dict[int, str] = {}
    for month in range(min(len(weekday), len(weekend))):
        present = {i for i in {*weekday[month], *weekend[month]} if 0 <= i < len(prices)}
        levels = sorted({prices[i] for i in present})
        for index in sorted(present - names.keys()):
            names[index] = _level_name(levels.index(prices[index]), len(levels), three_levels)
    return [names.get(index, "off_peak") for index in range(len(prices))]


def _level_name(rank: int, count: int, three_levels: tuple[str, str, str]) -> str:
    if count == 1:
        return "off_peak"
    if count == 2:
        return ("off_peak", "peak")[rank]
    if count == 3:
        return three_levels[rank]
    if rank == count - 1:
        return "peak"
    return ("super_off_peak", "off_peak")[rank] if rank < 2 else "partial_peak"


def hourly_prices(tariff: Tariff, start: datetime, hours: int, timezone: str) -> list[PriceSlot]:
    """Prices for `hours` whole hours from the hour containing `start`, in local time."""
    if start.tzinfo is None:
        raise ValueError("start must be timezone-aware")
    zone = ZoneInfo(timezone)
    local = start.astimezone(zone).replace(minute=0, second=0, microsecond=0)
    slots = []
    for offset in range(hours):
        # Step in UTC so DST changes neither skip nor repeat an hour.
        utc_start = local.astimezone(ZoneInfo("UTC")) + timedelta(hours=offset)
        slot_start = utc_start.astimezone(zone)
        period = tariff.period_at(slot_start)
        slots.append(
            PriceSlot(
                start=slot_start,
                # a real hour later: local wall-clock arithmetic would make the first 01:00 of a
                # fall-back night end at 02:00 standard time, two hours later
                end=(utc_start + timedelta(hours=1)).astimezone(zone),
                usd_per_kwh=period.usd_per_kwh,
                period=period.name,
                label=period.display,
            )
        )
    return slots


def period_windows(tariff: Tariff, day: date, timezone: str) -> list[tuple[str, int, int, float]]:
    """The day's periods as (name, start_hour, end_hour, $/kWh) runs, for explanations."""
    zone = ZoneInfo(timezone)
    start = datetime(day.year, day.month, day.day, tzinfo=zone)
    following = day + timedelta(days=1)
    end = datetime(following.year, following.month, following.day, tzinfo=zone)
    hours = round((end.timestamp() - start.timestamp()) / 3600)  # 23 or 25 on a DST change day
    runs: list[tuple[str, int, int, float]] = []
    for slot in hourly_prices(tariff, start, hours, timezone):
        hour = slot.start.hour
        if runs and runs[-1][0] == slot.period and runs[-1][3] == slot.usd_per_kwh:
            name, first, _, price = runs[-1]
            runs[-1] = (name, first, hour + 1, price)
        else:
            runs.append((slot.period, hour, hour + 1, slot.usd_per_kwh))
    return runs


def period_label(tariff: Tariff, name: str) -> str:
    """How the tariff itself names a period key ('super_off_peak' -> 'Super Off-Peak')."""
    found = next((period for period in tariff.periods if period.name == name), None)
    return found.display if found else name.replace("_", "-")


def flat_tariff(
    usd_per_kwh: float, *, utility: str, name: str, source: str, as_of: date, illustrative: bool
) -> Tariff:
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
