"""Property tests for the EV charging planner (issue 11, "verified optimal").

Hypothesis draws hourly price curves (often with few price levels, so ties happen), energy,
charger power, a start that may fall mid-hour, a deadline anywhere after it (mid-hour, or past
the last slot) and sometimes a price cap, in UTC or in America/Los_Angeles across a DST change.
Every plan is checked against references written here from scratch in whole seconds from the
start of the curve: they never call the code under test.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.energy.ev import ChargingPlan, charge_now, cheapest_contiguous_window, cheapest_slots
from advisor.energy.tariff import PriceSlot

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")
HOUR = 3600

# Curve origins (whole UTC hours): an ordinary day, and the evenings before the 2026 US DST
# changes (spring forward 2026-03-08 10:00 UTC, fall back 2026-11-01 09:00 UTC).
ORIGINS = [
    datetime(2026, 1, 21, 2, tzinfo=UTC),
    datetime(2026, 3, 8, 4, tzinfo=UTC),
    datetime(2026, 11, 1, 3, tzinfo=UTC),
]

# Reproducible in CI: the same examples on every run, nothing read from or written to a database.
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@dataclass(frozen=True)
class Scenario:
    """A planning question in whole seconds from `origin` (the start of the first hourly slot)."""

    zone: tzinfo
    origin: datetime
    prices: tuple[float, ...]  # slot i is [i h, (i + 1) h)
    start_s: int
    deadline_s: int
    energy_kwh: float
    power_kw: float
    cap: float | None

    def at(self, seconds: float) -> datetime:
        return (self.origin + timedelta(seconds=seconds)).astimezone(self.zone)

    def price_slots(self) -> list[PriceSlot]:
        return [
            PriceSlot(start=self.at(i * HOUR), end=self.at((i + 1) * HOUR), usd_per_kwh=p, period=f"p{p}")
            for i, p in enumerate(self.prices)
        ]

    @property
    def start(self) -> datetime:
        return self.at(self.start_s)

    @property
    def deadline(self) -> datetime:
        return self.at(self.deadline_s)

    def offset(self, moment: datetime) -> float:
        """Seconds from the origin, in real (UTC) time."""
        return (moment.astimezone(UTC) - self.origin).total_seconds()


# --- independent references -------------------------------------------------------------------


def usable_seconds(sc: Scenario) -> list[tuple[int, int, float]]:
    """(slot index, seconds usable, price) for each slot with time in [start, deadline) under the cap."""
    out = []
    for i, price in enumerate(sc.prices):
        seconds = min((i + 1) * HOUR, sc.deadline_s) - max(i * HOUR, sc.start_s)
        if seconds > 0 and (sc.cap is None or price <= sc.cap):
            out.append((i, seconds, price))
    return out


def capacity_kwh(sc: Scenario) -> float:
    return sum(sc.power_kw * seconds / HOUR for _, seconds, _ in usable_seconds(sc))


def lp_optimum_exhaustive(sc: Scenario) -> float:
    """Minimum cost of min sum(p_i x_i) s.t. sum(x_i) = E, 0 <= x_i <= capacity_i, by enumerating
    the LP's vertices: every subset of slots used in full plus at most one slot used in part.
    When the capacity is short of E, the least-cost plan uses all of it."""
    slots = [(sc.power_kw * seconds / HOUR, price) for _, seconds, price in usable_seconds(sc)]
    total = sum(c for c, _ in slots)
    if total <= sc.energy_kwh:
        return sum(c * p for c, p in slots)
    best = math.inf
    for mask in range(1 << len(slots)):
        full = [slots[k] for k in range(len(slots)) if mask >> k & 1]
        kwh, cost = sum(c for c, _ in full), sum(c * p for c, p in full)
        if abs(kwh - sc.energy_kwh) <= 1e-9:
            best = min(best, cost)
        for k, (c, p) in enumerate(slots):
            if not mask >> k & 1 and kwh < sc.energy_kwh <= kwh + c:
                best = min(best, cost + (sc.energy_kwh - kwh) * p)
    return best


def grid_session_optimum(sc: Scenario) -> float | None:
    """Cheapest uninterrupted full-power session beginning on any whole minute (None: none fits).

    Brute force over every begin minute. When the session lasts a whole number of minutes (and
    start and deadline are whole minutes, as drawn here) every candidate optimum begins on a whole
    minute, so this is the exact optimum; otherwise it is an upper bound on it."""
    minutes = len(sc.prices) * 60
    lo, hi = max(0, math.ceil(sc.start_s / 60)), min(minutes, sc.deadline_s // 60)
    price = [
        sc.prices[m // 60] if lo <= m < hi and (sc.cap is None or sc.prices[m // 60] <= sc.cap) else None
        for m in range(minutes)
    ]
    length = sc.energy_kwh / sc.power_kw * 60
    if abs(length - round(length)) < 1e-6:
        length = float(round(length))
    whole, part = math.floor(length), length - math.floor(length)
    needed = math.ceil(length)
    best = None
    for begin in range(lo, hi - needed + 1):
        window = price[begin : begin + needed]
        if any(p is None for p in window):
            continue
        cost = sc.power_kw / 60 * (sum(window[:whole]) + (part * window[whole] if part else 0.0))
        best = cost if best is None else min(best, cost)
    return best


# --- strategies -------------------------------------------------------------------------------

price_values = st.floats(0.01, 1.0).map(lambda p: round(p, 4))


@st.composite
def scenarios(
    draw: st.DrawFn,
    *,
    max_slots: int = 48,
    whole_minutes: bool = False,
    allow_cap: bool = True,
    start_in_curve: bool = False,
) -> Scenario:
    n = draw(st.integers(1, max_slots))
    if draw(st.booleans()):  # few levels: ties between slots
        levels = draw(st.lists(price_values, min_size=1, max_size=3))
        prices = draw(st.lists(st.sampled_from(levels), min_size=n, max_size=n))
    else:
        prices = draw(st.lists(price_values, min_size=n, max_size=n))
    earliest = 0 if start_in_curve else -90
    start_min = draw(st.integers(earliest, n * 60 - 1))
    deadline_min = start_min + draw(st.integers(1, n * 60 + 180 - start_min))
    power = round(draw(st.floats(1.0, 19.2)), 2)
    if whole_minutes:  # the session lasts a whole number of minutes
        duration = draw(st.integers(math.ceil(0.1 / power * 60), math.floor(120 / power * 60)))
        energy = power * duration / 60
    else:
        energy = draw(st.floats(0.1, 120.0))
    cap = None
    if allow_cap and draw(st.integers(0, 3)) == 0:
        cap = draw(st.one_of(st.sampled_from(prices), price_values))
    return Scenario(
        zone=draw(st.sampled_from([UTC, LA])),
        origin=draw(st.sampled_from(ORIGINS)),
        prices=tuple(prices),
        start_s=start_min * 60,
        deadline_s=deadline_min * 60,
        energy_kwh=energy,
        power_kw=power,
        cap=cap,
    )


# --- checks shared by every plan -------------------------------------------------------------


def check_slots(sc: Scenario, plan: ChargingPlan, *, until_s: float, cap: float | None) -> list[float]:
    """Every slot lies in one price slot, within [start, until], at that slot's price and under the
    cap, charging at full power; slots do not overlap; the cost is the rounded sum. Returns the
    kWh charged in each price slot."""
    used = [0.0] * len(sc.prices)
    previous_end = -math.inf
    for slot in plan.slots:
        begin, end = sc.offset(slot.start), sc.offset(slot.end)
        assert begin < end
        index = int(begin // HOUR)
        assert 0 <= index < len(sc.prices) and index * HOUR <= begin and end <= (index + 1) * HOUR
        assert max(sc.start_s, 0) <= begin and end <= until_s
        assert slot.usd_per_kwh == sc.prices[index]
        assert cap is None or slot.usd_per_kwh <= cap
        assert slot.kwh == pytest.approx(sc.power_kw * (end - begin) / HOUR, abs=1e-6)
        assert slot.kwh <= sc.power_kw * (end - begin) / HOUR + 1e-6
        assert previous_end <= begin  # sorted by time, no overlap
        previous_end = end
        used[index] += slot.kwh
    assert plan.cost_usd == round(sum(s.kwh * s.usd_per_kwh for s in plan.slots), 2)
    assert plan.energy_kwh_planned == pytest.approx(sum(s.kwh for s in plan.slots), abs=1e-9)
    return used


def check_feasibility(sc: Scenario, plan: ChargingPlan) -> None:
    """feasible == (capacity in [start, deadline) under the cap >= energy); when feasible the plan
    delivers the request, otherwise everything available and an exact shortfall."""
    capacity = capacity_kwh(sc)
    if abs(capacity - sc.energy_kwh) > 1e-6:
        assert plan.feasible == (capacity >= sc.energy_kwh)
    if plan.feasible:
        assert plan.energy_kwh_planned == pytest.approx(sc.energy_kwh, abs=1e-6)
        assert plan.shortfall_kwh == 0
    else:
        assert plan.energy_kwh_planned == pytest.approx(capacity, abs=1e-6)
        assert abs(plan.shortfall_kwh - (sc.energy_kwh - capacity)) <= 0.0005 + 1e-9


def plan_cheapest(sc: Scenario) -> ChargingPlan:
    return cheapest_slots(
        sc.price_slots(),
        energy_kwh=sc.energy_kwh,
        power_kw=sc.power_kw,
        start=sc.start,
        deadline=sc.deadline,
        price_cap_usd_per_kwh=sc.cap,
    )


def plan_session(sc: Scenario) -> ChargingPlan:
    return cheapest_contiguous_window(
        sc.price_slots(),
        energy_kwh=sc.energy_kwh,
        power_kw=sc.power_kw,
        start=sc.start,
        deadline=sc.deadline,
        price_cap_usd_per_kwh=sc.cap,
    )


# --- cheapest_slots ---------------------------------------------------------------------------


@PROPERTY
@given(scenarios(max_slots=8))
def test_cheapest_slots_cost_equals_the_exhaustive_lp_optimum(sc: Scenario) -> None:
    plan = plan_cheapest(sc)
    check_slots(sc, plan, until_s=sc.deadline_s, cap=sc.cap)
    check_feasibility(sc, plan)
    optimum = lp_optimum_exhaustive(sc)
    assert sum(s.kwh * s.usd_per_kwh for s in plan.slots) == pytest.approx(optimum, rel=1e-6, abs=1e-9)
    assert abs(plan.cost_usd - optimum) <= max(0.005 * optimum, 0.005 + 1e-9)  # rounded to cents


@settings(PROPERTY, max_examples=200)
@given(scenarios())
def test_cheapest_slots_is_optimal_meets_the_deadline_and_reports_the_shortfall(sc: Scenario) -> None:
    plan = plan_cheapest(sc)
    used = check_slots(sc, plan, until_s=sc.deadline_s, cap=sc.cap)
    check_feasibility(sc, plan)
    # LP optimality certificate (complementary slackness): a slot is charged only if every cheaper
    # slot is full. Ties go to the later slot: an earlier one is charged only if later ones are full.
    spare = {i: sc.power_kw * seconds / HOUR - used[i] for i, seconds, _ in usable_seconds(sc)}
    for i, j in itertools.permutations(spare, 2):
        if used[i] > 1e-9 and (sc.prices[j] < sc.prices[i] or (sc.prices[j] == sc.prices[i] and j > i)):
            assert spare[j] <= 1e-6, f"slot {i} charged while slot {j} has {spare[j]} kWh spare"
    assert all(used[i] <= 1e-12 for i in range(len(sc.prices)) if i not in spare)


# --- cheapest_contiguous_window ---------------------------------------------------------------


def check_session(sc: Scenario, plan: ChargingPlan) -> float | None:
    """The plan is one uninterrupted full-power session delivering the energy, or says none fits.
    Returns its exact cost, or None."""
    if "none fits" in plan.strategy:  # the greedy fallback
        check_slots(sc, plan, until_s=sc.deadline_s, cap=sc.cap)
        check_feasibility(sc, plan)
        return None
    assert plan.strategy == "one uninterrupted session" and plan.feasible
    check_slots(sc, plan, until_s=sc.deadline_s, cap=sc.cap)
    ((first, last),) = plan.windows()
    hours = (sc.offset(last) - sc.offset(first)) / HOUR
    assert hours == pytest.approx(sc.energy_kwh / sc.power_kw, abs=1e-6)
    assert plan.energy_kwh_planned == pytest.approx(sc.energy_kwh, abs=1e-6)
    return sum(s.kwh * s.usd_per_kwh for s in plan.slots)


@PROPERTY
@given(scenarios(whole_minutes=True))
def test_contiguous_session_is_the_cheapest_session(sc: Scenario) -> None:
    """Whole-minute sessions: the minute brute force is exact, so the costs must be equal."""
    cost = check_session(sc, plan_session(sc))
    reference = grid_session_optimum(sc)
    assert (cost is None) == (reference is None)
    if cost is not None:
        assert cost == pytest.approx(reference, rel=1e-6, abs=1e-9)


@PROPERTY
@given(scenarios())
def test_contiguous_session_beats_every_minute_aligned_session(sc: Scenario) -> None:
    """Any length: the plan is a real session, no dearer than any session beginning on a minute."""
    cost = check_session(sc, plan_session(sc))
    reference = grid_session_optimum(sc)
    if reference is not None:
        assert cost is not None and cost <= reference + 1e-9


# --- charge_now -------------------------------------------------------------------------------


@PROPERTY
@given(scenarios(allow_cap=False, start_in_curve=True))
def test_charge_now_starts_at_once_and_charges_without_a_break(sc: Scenario) -> None:
    plan = charge_now(sc.price_slots(), energy_kwh=sc.energy_kwh, power_kw=sc.power_kw, start=sc.start)
    curve_end = len(sc.prices) * HOUR
    check_slots(sc, plan, until_s=curve_end, cap=None)
    ((first, last),) = plan.windows()
    assert sc.offset(first) == sc.start_s
    hours = sc.energy_kwh / sc.power_kw
    available = sc.power_kw * (curve_end - sc.start_s) / HOUR
    if available > sc.energy_kwh + 1e-6:
        assert plan.feasible and plan.energy_kwh_planned == pytest.approx(sc.energy_kwh, abs=1e-6)
        assert sc.offset(last) == pytest.approx(sc.start_s + hours * HOUR, abs=1e-3)
    elif available < sc.energy_kwh - 1e-6:  # the prices end first
        assert not plan.feasible and sc.offset(last) == curve_end
        assert abs(plan.shortfall_kwh - (sc.energy_kwh - available)) <= 0.0005 + 1e-9


# --- regressions (found while writing the properties) ----------------------------------------


def test_a_session_may_begin_partway_into_a_dear_hour() -> None:
    """Sessions used to begin only on slot starts: 25 kWh at 10 kW (2.5 h) before 03:00 with
    $1.00, $0.10, $0.10 cost $11.50 from 00:00; from 00:30 it is 5 kWh at $1 + 20 kWh at $0.10."""
    origin = datetime(2026, 1, 21, 0, tzinfo=UTC)
    prices = [
        PriceSlot(
            start=origin + timedelta(hours=i), end=origin + timedelta(hours=i + 1), usd_per_kwh=p, period="x"
        )
        for i, p in enumerate([1.0, 0.1, 0.1])
    ]
    plan = cheapest_contiguous_window(
        prices, energy_kwh=25, power_kw=10, start=origin, deadline=origin + timedelta(hours=3)
    )
    assert plan.cost_usd == 7.0
    assert plan.windows() == [(origin + timedelta(minutes=30), origin + timedelta(hours=3))]


def test_the_repeated_hour_at_the_fall_back_change_is_a_real_hour() -> None:
    """Same-zone datetime arithmetic is wall-clock: 01:00 PDT -> 01:00 PST counted as 0 h, so six
    real hours at 5 kW were planned as 25 kWh (5 kWh short) and one slot ran 2 real hours."""
    origin = datetime(2026, 11, 1, 6, tzinfo=UTC)  # 23:00 PDT on 31 Oct
    prices = [
        PriceSlot(
            start=(origin + timedelta(hours=i)).astimezone(LA),
            end=(origin + timedelta(hours=i + 1)).astimezone(LA),
            usd_per_kwh=0.2,
            period="off_peak",
        )
        for i in range(6)
    ]
    start, deadline = prices[0].start, prices[-1].end
    for planner in (cheapest_slots, cheapest_contiguous_window):
        plan = planner(prices, energy_kwh=30, power_kw=5, start=start, deadline=deadline)
        assert plan.feasible and plan.energy_kwh_planned == pytest.approx(30)
        assert all(
            slot.end.astimezone(UTC) - slot.start.astimezone(UTC) == timedelta(hours=1) for slot in plan.slots
        )
        assert plan.windows() == [(start, deadline)] and plan.cost_usd == 6.0
    now = charge_now(prices, energy_kwh=30, power_kw=5, start=start)
    assert now.feasible and now.windows() == [(start, deadline)]


def test_worked_example_stays_exact() -> None:
    """57.5 kWh battery, 30 -> 80 %, 7.7 kW, PG&E EV2-A winter (off-peak $0.31 midnight-3 pm):
    31.9 kWh from the grid, 02:51-07:00, $9.90, whether in pieces or in one session."""
    evening = datetime(2026, 1, 21, 18, tzinfo=LA)

    def period(hour: int) -> tuple[float, str]:
        if 16 <= hour < 21:
            return 0.49, "Peak"
        return (0.47, "Partial-Peak") if hour in (15, 21, 22, 23) else (0.31, "Off-Peak")

    prices = []
    for i in range(24):
        at = (evening.astimezone(UTC) + timedelta(hours=i)).astimezone(LA)
        usd, label = period(at.hour)
        prices.append(
            PriceSlot(start=at, end=at + timedelta(hours=1), usd_per_kwh=usd, period="x", label=label)
        )
    grid_kwh = 57.5 * (80 - 30) / 100 / 0.9
    assert round(grid_kwh, 1) == 31.9
    deadline = datetime(2026, 1, 22, 7, tzinfo=LA)
    for planner in (cheapest_slots, cheapest_contiguous_window):
        plan = planner(prices, energy_kwh=grid_kwh, power_kw=7.7, start=evening, deadline=deadline)
        ((first, last),) = plan.windows()
        assert (first.strftime("%H:%M"), last.strftime("%H:%M")) == ("02:51", "07:00")
        assert plan.cost_usd == 9.90 and plan.feasible
        assert {slot.label for slot in plan.slots} == {"Off-Peak"}
