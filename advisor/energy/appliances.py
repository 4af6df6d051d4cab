"""Appliance verdicts: "run it now" or "wait until 21:00", from a small, sourced table of typical
energy per load and the user's hourly prices.

Every figure in `APPLIANCES` comes from the page its row cites; the comment above each row quotes
the sentence it was derived from and shows the arithmetic. An appliance without a sourced figure
(water heater, space heater, AC, hot tub, ...) is not in the table: `appliance_for` returns None
and the advisor says it has no typical figure instead of guessing one.

The verdict (`appliance_verdict`) is deterministic: the energy of one run is spread evenly over
its typical duration, priced hour by hour from `hourly_prices`, for a start now and for every
start that finishes by the deadline (default: the next 24 hours). Waiting is only advised when it
saves at least `MIN_SAVING_USD` *and* `MIN_SAVING_SHARE` of the cost of running now; anything
less is not worth planning around. Appliances that need someone awake (a dryer: NFPA fire-safety
guidance, see knowledge/docs/running-appliances-off-peak.md; an oven: you are cooking) are never
scheduled to start or run during `SLEEP_HOURS`; when the cheapest window is then, the verdict
names it and says why it was skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from advisor.energy.tariff import PriceSlot, Tariff, hourly_prices

MIN_SAVING_USD = 0.10  # below ten cents a run, waiting is not worth the bother
MIN_SAVING_SHARE = 0.10  # ... nor below a tenth of what running now costs
SLEEP_HOURS = (23, 6)  # local hours [23:00, 06:00) when people are normally asleep
DEFAULT_HORIZON_H = 24
_TIE_USD = 0.005  # starts within half a cent of the cheapest count as equally cheap (the earliest wins)

LOOKED_UP = date(2026, 11, 23)  # when the pages without a date of their own were read


class ApplianceSource(BaseModel):
    """Where a figure comes from: the page, its date, and the sentence the figure is read from."""

    model_config = ConfigDict(frozen=True)

    title: str
    url: str
    date: date
    date_kind: Literal["published", "effective", "looked_up"]
    quote: str
    figure: Literal["energy", "duration", "energy and duration"] = "energy"  # what the row takes from it


class Phase(BaseModel):
    """One part of a run: energy drawn evenly over a duration."""

    model_config = ConfigDict(frozen=True)

    kwh: float = Field(gt=0)
    duration_h: float = Field(gt=0)


class Appliance(BaseModel):
    """A typical run: `kwh` per `unit` (a load, a cycle, or an hour of running), lasting `duration_h`."""

    model_config = ConfigDict(frozen=True)

    key: str
    name: str  # as said in a sentence: "dryer", "pool pump"
    kwh: float = Field(gt=0)
    unit: Literal["load", "cycle", "hour"]
    duration_h: float = Field(gt=0)
    basis: str  # what the figure describes, for the user
    sources: list[ApplianceSource] = Field(min_length=1)
    attended: bool = False  # needs someone awake at home while it runs
    by_bedtime: bool = (
        False  # only useful before bedtime (cooking): the default window ends at SLEEP_HOURS[0]
    )
    caveat: str | None = None
    phases: list[Phase] = Field(default_factory=list)  # several parts run one after another (laundry)
    per: str | None = None  # what one run is called, when not 'a load' / 'a cycle' ('a wash and dry')

    @property
    def run_kwh(self) -> float:
        """Energy of one run: per load/cycle as given; per hour times the run's duration."""
        if self.phases:
            return sum(phase.kwh for phase in self.phases)
        return self.kwh * self.duration_h if self.unit == "hour" else self.kwh

    @property
    def run_phases(self) -> list[Phase]:
        return list(self.phases) or [Phase(kwh=self.run_kwh, duration_h=self.duration_h)]

    @property
    def run_label(self) -> str:
        """'a load', 'a cycle', 'a 6-hour run'."""
        if self.per:
            return self.per
        if self.unit == "hour":
            hours = f"{self.duration_h:g}"
            article = "an" if hours.startswith("8") or hours in ("11", "18") else "a"  # "an 8-hour run"
            return f"{article} {hours}-hour run"
        return f"a {self.unit}"


# --- the table -------------------------------------------------------------------------------

_ES_DRYERS = ApplianceSource(
    title="ENERGY STAR: Clothes Dryers Key Product Criteria",
    url="https://www.energystar.gov/products/appliances/clothes_dryers/key_product_criteria",
    date=date(2014, 5, 19),
    date_kind="effective",
    quote=(
        "Ventless or Vented Electric, Standard (4.4 cu-ft or greater capacity) 3.93 [Combined Energy Factor, "
        "lbs/kWh] ... the test load size, 8.45 lbs for standard dryers ... Maximum Test Cycle Time 80 minutes"
    ),
    figure="energy and duration",
)
_ES_DISHWASHERS = ApplianceSource(
    title="ENERGY STAR: Dishwashers Key Product Criteria",
    url="https://www.energystar.gov/products/appliances/dishwashers/key_product_criteria",
    date=date(2016, 1, 29),
    date_kind="effective",
    quote=(
        "Standard ≥ 8 place settings + 6 serving pieces ≤ 270 kWh/year ... the average cycles per year has "
        "been lowered from 264 cycles per year to 215 cycles"
    ),
)
_CR_DISHWASHER_TIME = ApplianceSource(
    title="Why do new dishwashers take so long to complete a normal cycle? (Consumer Reports, on Yahoo)",
    url="https://homes.yahoo.com/news/why-does-dishwasher-long-201500042.html",
    date=LOOKED_UP,
    date_kind="looked_up",
    quote="don't expect normal cycles to drop anytime soon from their 2- to 3-hour mark",
    figure="duration",
)
_HES_WASHER = ApplianceSource(
    title="Home Energy Saver (Lawrence Berkeley National Laboratory): Calculating Machine Energy, clothes washers",
    url=(
        "https://hes-documentation.lbl.gov/calculation-methodology/calculation-of-energy-consumption/"
        "appliances/clothes-washer-energy-consumption/calculating-machine-energy"
    ),
    date=LOOKED_UP,
    date_kind="looked_up",
    quote=(
        "Machine energy for the average new clothes washer has not changed significantly over time, so is "
        "assumed to be 0.23 kWh/load for the purposes of this model (DOE 1990, Page 3-22 table 3.17)."
    ),
)
_CR_WASHER_TIME = ApplianceSource(
    title="How Long Does a Washing Machine Take? (Bellingham Electric, citing Consumer Reports' tests)",
    url="https://blog.bellinghamelectric.com/blog/how-long-does-a-washing-machine-take",
    date=date(2020, 1, 24),
    date_kind="published",
    quote=(
        "Consumer Reports washes clothes on the Normal cycle with the heavy soil setting ... Front loaders: "
        "70-120 minutes; High efficiency top loaders: 60-85 minutes; Agitator top loaders: 35-65 minutes"
    ),
    figure="duration",
)
_OVEN_GUIDE = ApplianceSource(
    title="How much energy does a conventional oven use? (eHow, quoting the Consumer Guide to Home Energy Savings)",
    url="https://www.ehow.co.uk/info_8615953_much-energy-conventional-oven-use.html",
    date=LOOKED_UP,
    date_kind="looked_up",
    quote=(
        "To operate an electric oven for an hour at 176 degrees C (350 degrees F) costs 10p and uses 2.0 kWh."
    ),
)
_OVEN_CEC = ApplianceSource(
    title="Energy consumption of electric ovens (eHow, citing the California Energy Commission Consumer Energy Center)",
    url="http://www.ehow.co.uk/info_8423093_energy-consumption-electric-ovens.html",
    date=LOOKED_UP,
    date_kind="looked_up",
    quote=(
        "The average energy consumption of an electric oven is about 2 kilowatts per hour, or about 16 cents per "
        "hour, according to the California Energy Commission Consumer Energy Center."
    ),
)
_POOL_PUMP = ApplianceSource(
    title="Pooled Resources (Home Energy magazine)",
    url=(
        "https://www.homeenergy.org/show/article/year/2000/magazine/13/id/2121/viewFull/page/4/nav/weatherization"
    ),
    date=LOOKED_UP,
    date_kind="looked_up",
    quote=(
        "Older pool pumps typically draw about 1,500–2,500 watts. If the pump runs only 4½–6 hours each day, "
        "that can add up to 10.5 kWh per day"
    ),
)

# Dryer: 8.45 lb test load / 3.93 lb per kWh = 2.150 kWh per load, the most an ENERGY STAR standard
# electric dryer may use on the DOE test load; the test cycle takes at most 80 min = 1.33 h.
_DRYER = Appliance(
    key="dryer",
    name="dryer",
    kwh=round(8.45 / 3.93, 2),
    unit="load",
    duration_h=round(80 / 60, 2),
    basis="an ENERGY STAR-certified standard electric dryer on the DOE test load (8.45 lb ÷ 3.93 lb/kWh)",
    sources=[_ES_DRYERS],
    attended=True,
    caveat="older and non-certified dryers use more",
)
# Dishwasher: 270 kWh/year / 215 cycles/year = 1.256 kWh per cycle (the ENERGY STAR limit for a
# standard dishwasher; the annual figure counts heating the water). Duration: the lower end of
# "their 2- to 3-hour mark" = 2 h.
_DISHWASHER = Appliance(
    key="dishwasher",
    name="dishwasher",
    kwh=round(270 / 215, 2),
    unit="cycle",
    duration_h=2.0,
    basis="the ENERGY STAR limit for a standard dishwasher, 270 kWh a year over 215 cycles (water heating included)",
    sources=[_ES_DISHWASHERS, _CR_DISHWASHER_TIME],
)
# Washer: 0.23 kWh per load of machine energy (motor, pumps), as quoted; hot water comes on top.
# Duration: the lower end of "High efficiency top loaders: 60-85 minutes" = 1 h.
_WASHER = Appliance(
    key="washer",
    name="washer",
    kwh=0.23,
    unit="load",
    duration_h=1.0,
    basis="the washer's own motor and pumps, 0.23 kWh a load (LBL Home Energy Saver, from DOE)",
    sources=[_HES_WASHER, _CR_WASHER_TIME],
    caveat="a warm or hot wash adds the energy to heat the water",
)
# Oven: "uses 2.0 kWh" for "an hour at ... 350 degrees F" = 2.0 kWh per hour of use.
_OVEN = Appliance(
    key="oven",
    name="oven",
    kwh=2.0,
    unit="hour",
    duration_h=1.0,
    basis="an electric oven at 350 °F for an hour (Consumer Guide to Home Energy Savings; California Energy Commission)",
    sources=[_OVEN_GUIDE, _OVEN_CEC],
    attended=True,
    by_bedtime=True,
)
# Pool pump: "10.5 kWh per day" for a run of up to 6 h: 10.5 kWh / 6 h = 1.75 kWh per hour, within the
# quoted 1,500-2,500 W of an older single-speed pump; the run is the quoted upper end, 6 h.
_POOL = Appliance(
    key="pool_pump",
    name="pool pump",
    kwh=round(10.5 / 6, 2),
    unit="hour",
    duration_h=6.0,
    basis="an older single-speed pool pump: 10.5 kWh over a 6-hour daily run (Home Energy magazine)",
    sources=[_POOL_PUMP],
    caveat="a variable-speed pump on a low speed uses far less",
)
# Laundry: a washer load then a dryer load, one after the other (the two rows above, nothing new).
_LAUNDRY = Appliance(
    key="laundry",
    name="laundry",
    per="a wash and dry",
    kwh=round(_WASHER.kwh + _DRYER.kwh, 2),
    unit="load",
    duration_h=round(_WASHER.duration_h + _DRYER.duration_h, 2),
    basis=f"a washer load ({_WASHER.kwh:g} kWh, {_WASHER.duration_h:g} h) then a dryer load ({_DRYER.kwh:g} kWh, 80 min)",
    sources=[*_DRYER.sources, *_WASHER.sources],
    attended=True,
    caveat=_DRYER.caveat,
    phases=[
        Phase(kwh=_WASHER.kwh, duration_h=_WASHER.duration_h),
        Phase(kwh=_DRYER.kwh, duration_h=_DRYER.duration_h),
    ],
)

APPLIANCES: dict[str, Appliance] = {
    row.key: row for row in (_DRYER, _DISHWASHER, _WASHER, _OVEN, _POOL, _LAUNDRY)
}
_ALIASES = {
    "dryer": "dryer",
    "clothes dryer": "dryer",
    "tumble dryer": "dryer",
    "drier": "dryer",
    "dishwasher": "dishwasher",
    "dish washer": "dishwasher",
    "washer": "washer",
    "washing machine": "washer",
    "clothes washer": "washer",
    "oven": "oven",
    "pool pump": "pool_pump",
    "pool": "pool_pump",
    "laundry": "laundry",
}


STATED = "stated"  # the key of a run priced from the user's own power and hours


def stated_appliance(name: str, power_kw: float, hours: float | None, said_on: date) -> Appliance:
    """A run priced from the user's own figures ("a 1500w space heater for 8 hrs"): their power over
    their hours (one hour when they gave none), said as theirs, never as a published typical."""
    run = hours or 1.0
    return Appliance(
        key=STATED,
        name=name,
        kwh=power_kw,
        unit="hour",
        duration_h=run,
        basis=f"{power_kw:g} kW for {run:g} h, your own figures"
        + ("" if hours else " (an hour, as you gave no run time)"),
        sources=[
            ApplianceSource(
                title="your own figures in this conversation",
                url="",
                date=said_on,
                date_kind="looked_up",
                quote=f"{power_kw:g} kW" + (f" for {hours:g} h" if hours else ""),
                figure="energy and duration",
            )
        ],
    )


def run_for(row: Appliance | None, hours: float | None) -> Appliance | None:
    """A typical row run for the user's hours ("the pool pump needs 8 hours"): an appliance priced per
    hour runs that long at its sourced hourly energy; a load or a cycle is one run however long it takes."""
    if row is None or hours is None or row.unit != "hour" or hours == row.duration_h:
        return row
    return row.model_copy(
        update={"duration_h": hours, "basis": f"{row.basis}; run for the {hours:g} h you said"}
    )


def appliance_for(name: str | None) -> Appliance | None:
    """The table row for an appliance as the user named it, or None (no sourced figure)."""
    cleaned = re.sub(r"[^a-z ]+", " ", (name or "").lower())
    cleaned = re.sub(r"\b(?:the|my|our|a|an|electric)\b", " ", cleaned)
    cleaned = " ".join(cleaned.split())
    key = _ALIASES.get(cleaned) or _ALIASES.get(cleaned.removesuffix("s"))
    return APPLIANCES.get(key) if key else None


# --- the verdict -----------------------------------------------------------------------------


class ApplianceVerdict(BaseModel):
    """Run now, or wait until `start`: costs of one run, the saving, and why."""

    model_config = ConfigDict(frozen=True)

    appliance: str
    verdict: Literal["run_now", "wait"]
    start: datetime  # recommended start (now when running now)
    end: datetime
    now: datetime
    deadline: datetime
    cost_now_usd: float  # one run started now
    cost_then_usd: float  # one run at `best_start`, the cheapest allowed start before the deadline
    saving_usd: float  # cost_now_usd - cost_then_usd
    best_start: datetime
    periods_now: list[str]
    periods_then: list[str]
    flat: bool = False  # every hour in the window has the same price
    usd_per_kwh_now: float
    fits_deadline: bool = True  # False: even a start now finishes after the deadline
    kwh: float
    duration_h: float
    skipped_start: datetime | None = None  # a cheaper start skipped because people are asleep then
    skipped_cost_usd: float | None = None
    assumptions: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def _label(slot: PriceSlot) -> str:
    return getattr(slot, "label", None) or slot.period.replace("_", "-")


def run_cost(
    prices: Sequence[PriceSlot], start: datetime, phases: Sequence[Phase]
) -> tuple[float, list[str]]:
    """Cost of a run starting at `start` (each phase's energy spread evenly over its duration) and
    the price periods it runs in. Raises ValueError when `prices` do not cover the whole run."""
    moment = start.timestamp()
    cost, covered, total = 0.0, 0.0, 0.0
    periods: list[str] = []
    for phase in phases:
        end = moment + phase.duration_h * 3600
        per_second = phase.kwh / (phase.duration_h * 3600)
        for slot in prices:
            overlap = min(end, slot.end.timestamp()) - max(moment, slot.start.timestamp())
            if overlap > 0:
                cost += overlap * per_second * slot.usd_per_kwh
                covered += overlap
                if _label(slot) not in periods:
                    periods.append(_label(slot))
        total += end - moment
        moment = end
    if covered < total - 1:
        raise ValueError("the prices do not cover the whole run")
    return cost, periods


def _in_sleep(start: datetime, duration_h: float, zone: ZoneInfo, sleep: tuple[int, int]) -> bool:
    """Whether [start, start + duration) overlaps the nightly sleep hours (local)."""
    begin, end = start.timestamp(), start.timestamp() + duration_h * 3600
    first = start.astimezone(zone).date() - timedelta(days=1)
    last = datetime.fromtimestamp(end, zone).date()
    day = first
    while day <= last:
        night = datetime(day.year, day.month, day.day, sleep[0], tzinfo=zone).timestamp()
        following = day + timedelta(days=1)
        morning = datetime(following.year, following.month, following.day, sleep[1], tzinfo=zone).timestamp()
        if begin < morning and night < end:
            return True
        day = following
    return False


def appliance_verdict(
    appliance: Appliance,
    tariff: Tariff,
    now: datetime,
    timezone: str,
    *,
    deadline: datetime | None = None,
    earliest: datetime | None = None,
    sleep: tuple[int, int] = SLEEP_HOURS,
) -> ApplianceVerdict:
    """Run now or wait: the cost of one run started now vs the cheapest start that finishes by
    `deadline` (default: 24 hours from now) and not before `earliest` (default: now)."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    zone = ZoneInfo(timezone)
    now = now.astimezone(zone)
    if deadline is None and appliance.by_bedtime:  # a meal is cooked this evening, not tomorrow morning
        deadline = now.replace(hour=sleep[0], minute=0, second=0, microsecond=0)
        if deadline.timestamp() <= now.timestamp():
            deadline += timedelta(days=1)
    if deadline is None:  # real hours (in UTC), so a daylight-saving night is not an hour short or long
        deadline = datetime.fromtimestamp(now.timestamp() + DEFAULT_HORIZON_H * 3600, zone)
    deadline = deadline.astimezone(zone)
    earliest = max(now, (earliest or now).astimezone(zone), key=lambda moment: moment.timestamp())
    phases = appliance.run_phases
    duration_h = sum(phase.duration_h for phase in phases)
    run_s = duration_h * 3600
    span_h = (
        max(deadline.timestamp(), now.timestamp() + run_s, earliest.timestamp() + run_s) - now.timestamp()
    ) / 3600
    prices = hourly_prices(tariff, now, int(span_h) + 2, timezone)

    def at(timestamp: float) -> datetime:
        return datetime.fromtimestamp(timestamp, zone)

    cost_now, periods_now = run_cost(prices, now, phases)
    first, last = earliest.timestamp(), deadline.timestamp() - run_s
    fits = last >= first
    marks = {first, last}
    for slot in prices:
        marks.update((slot.start.timestamp(), slot.end.timestamp() - run_s))
    starts = sorted(mark for mark in marks if first <= mark <= last) if fits else [first]
    priced = [(start, run_cost(prices, at(start), phases)[0]) for start in starts]
    window = [
        slot
        for slot in prices
        if slot.end.timestamp() > first and slot.start.timestamp() < max(last + run_s, first + run_s)
    ]
    flat = len({slot.usd_per_kwh for slot in window}) <= 1

    def cheapest(options: list[tuple[float, float]]) -> tuple[float, float]:
        low = min(cost for _, cost in options)
        return next(option for option in options if option[1] <= low + _TIE_USD)

    best_any = cheapest(priced)
    allowed = priced
    # It is the night hours already (23:40): "run it now" would be the advice to run it unattended.
    asleep_now = appliance.attended and _in_sleep(now, 1 / 60, zone, sleep)
    if appliance.attended:
        # a start now is the user's own choice while awake; later starts avoid the sleep hours
        allowed = [
            option
            for option in priced
            if (option[0] == now.timestamp() and not asleep_now)
            or not _in_sleep(at(option[0]), duration_h, zone, sleep)
        ] or priced
    best = cheapest(allowed)
    best_start, cost_then = best
    # Costs are shown to the cent, so the saving is the difference of the shown figures
    # ($0.92 - $0.54 = $0.38, never a $0.39 from unrounded costs).
    cost_now, cost_then = round(cost_now, 2), round(cost_then, 2)
    saving = round(cost_now - cost_then, 2)
    later = earliest.timestamp() > now.timestamp()
    worth = saving >= MIN_SAVING_USD and saving >= MIN_SAVING_SHARE * cost_now
    wait = fits and (
        (not flat and (later or (worth and best_start > now.timestamp())))
        or (asleep_now and best_start > now.timestamp())  # wait for the morning, whatever it saves
    )
    start = at(best_start) if wait or (later and fits) else now
    if flat and later:
        wait, start = True, earliest
    notes: list[str] = []
    skipped_start = skipped_cost = None
    if fits and best_any[0] != best_start and best_any[1] <= cost_then + _TIE_USD:
        skipped_start, skipped_cost = at(best_any[0]), round(best_any[1], 4)  # cheapest, but while asleep
    if asleep_now and wait and not _in_sleep(start, duration_h, zone, sleep):
        notes.append(
            f"it's the night hours now ({sleep[0]:02d}:00-{sleep[1]:02d}:00), when no one is up to keep an eye on it, "
            "so I'd start it in the morning"
        )
    elif appliance.attended and _in_sleep(start, duration_h, zone, sleep):
        notes.append(
            f"it would run into the night ({sleep[0]:02d}:00-{sleep[1]:02d}:00): only run it while someone is "
            "awake to keep an eye on it"
        )
    spread = (
        f"spread evenly over {duration_h:g} h"
        if len(phases) == 1
        else f"each part spread evenly over its own time, {duration_h:g} h in all"
    )
    assumptions = [f"{appliance.run_kwh:.2f} kWh for {appliance.run_label}, {spread}: {appliance.basis}"]
    if appliance.attended:
        assumptions.append(
            f"people are asleep {sleep[0]:02d}:00-{sleep[1]:02d}:00, so no later start runs then"
        )
    return ApplianceVerdict(
        appliance=appliance.name,
        verdict="wait" if wait else "run_now",
        start=start,
        end=at(start.timestamp() + run_s),
        now=now,
        deadline=deadline,
        cost_now_usd=cost_now,
        cost_then_usd=cost_then,
        saving_usd=saving,
        best_start=at(best_start),
        periods_now=periods_now,
        periods_then=run_cost(prices, at(best_start), phases)[1],
        flat=flat,
        usd_per_kwh_now=next(slot.usd_per_kwh for slot in prices if slot.end.timestamp() > now.timestamp()),
        fits_deadline=fits,
        kwh=round(appliance.run_kwh, 3),
        duration_h=duration_h,
        skipped_start=skipped_start,
        skipped_cost_usd=skipped_cost,
        assumptions=assumptions,
        notes=notes,
    )


def cheapest_windows(prices: Sequence[PriceSlot]) -> list[tuple[datetime, datetime, str, float]]:
    """The runs of hours at the lowest price in `prices`, as (start, end, period, $/kWh)."""
    if not prices:
        return []
    low = min(slot.usd_per_kwh for slot in prices)
    runs: list[tuple[datetime, datetime, str, float]] = []
    for slot in prices:
        if slot.usd_per_kwh != low:
            continue
        if runs and runs[-1][1].timestamp() == slot.start.timestamp():
            runs[-1] = (runs[-1][0], slot.end, runs[-1][2], low)
        else:
            runs.append((slot.start, slot.end, _label(slot), low))
    return runs
