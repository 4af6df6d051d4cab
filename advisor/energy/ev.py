"""EV charging: energy needed, charge duration, and the cheapest slots before a deadline."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone, tzinfo
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from advisor.energy.tariff import PriceSlot

DEFAULT_CHARGING_EFFICIENCY = 0.90  # wall-to-battery; losses in the charger and battery
DEFAULT_LEVEL2_CHARGER_KW = 7.2


class EvEnergy(BaseModel):
    model_config = ConfigDict(frozen=True)

    battery_kwh_added: float
    grid_kwh: float
    efficiency: float


def ev_energy_needed(
    *,
    battery_kwh: float,
    soc_now_pct: float,
    soc_target_pct: float,
    efficiency: float = DEFAULT_CHARGING_EFFICIENCY,
) -> EvEnergy:
    """kWh into the battery to go from `soc_now_pct` to `soc_target_pct`, and from the grid."""
    if battery_kwh <= 0:
        raise ValueError("battery_kwh must be positive")
    if not 0 <= soc_now_pct <= 100 or not 0 <= soc_target_pct <= 100:
        raise ValueError("state of charge must be between 0 and 100 %")
    if not 0 < efficiency <= 1:
        raise ValueError("efficiency must be in (0, 1]")
    added = max(0.0, battery_kwh * (soc_target_pct - soc_now_pct) / 100)
    return EvEnergy(battery_kwh_added=added, grid_kwh=added / efficiency, efficiency=efficiency)


def charging_power_kw(charger_kw: float, onboard_limit_kw: float | None) -> float:
    """A car charges at the lower of the charger's and its own on-board charger's power."""
    if charger_kw <= 0:
        raise ValueError("charger_kw must be positive")
    return min(charger_kw, onboard_limit_kw) if onboard_limit_kw else charger_kw


def charge_duration_h(grid_kwh: float, power_kw: float) -> float:
    if power_kw <= 0:
        raise ValueError("power_kw must be positive")
    return grid_kwh / power_kw


class ChargeSlot(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime
    kwh: float
    usd_per_kwh: float
    period: str
    label: str | None = None  # the period as the tariff names it, carried from the price slot


def _utc(moment: datetime) -> datetime:
    """Aware times in UTC for arithmetic: `-`, `+` and comparisons between two times in the same
    zone use wall-clock time, which is wrong across a DST change (naive times are left alone)."""
    return moment.astimezone(timezone.utc) if moment.tzinfo is not None else moment


class ChargingPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    slots: list[ChargeSlot]
    energy_kwh_requested: float
    energy_kwh_planned: float
    cost_usd: float
    feasible: bool
    shortfall_kwh: float
    strategy: str
    price_cap_usd_per_kwh: float | None = None

    @property
    def start(self) -> datetime | None:
        return min((slot.start for slot in self.slots), key=_utc, default=None)

    @property
    def end(self) -> datetime | None:
        return max((slot.end for slot in self.slots), key=_utc, default=None)

    def windows(self) -> list[tuple[datetime, datetime]]:
        """Planned slots merged into contiguous `[start, end)` windows, in time order."""
        merged: list[tuple[datetime, datetime]] = []
        for slot in sorted(self.slots, key=lambda s: _utc(s.start)):
            if merged and _utc(merged[-1][1]) >= _utc(slot.start):
                merged[-1] = (merged[-1][0], max(merged[-1][1], slot.end, key=_utc))
            else:
                merged.append((slot.start, slot.end))
        return merged


class _Span(NamedTuple):
    """The usable part of a price slot, in UTC, with the zone its times are shown in."""

    start: datetime
    end: datetime
    usd_per_kwh: float
    period: str
    label: str | None
    zone: tzinfo | None


def _usable(prices: list[PriceSlot], start: datetime, deadline: datetime, cap: float | None) -> list[_Span]:
    """Slots inside `[start, deadline)`, clipped at both ends, under the price cap, in time order."""
    start, deadline = _utc(start), _utc(deadline)
    usable = []
    for slot in prices:
        begin, end = max(_utc(slot.start), start), min(_utc(slot.end), deadline)
        if end <= begin or (cap is not None and slot.usd_per_kwh > cap):
            continue
        label = getattr(slot, "label", None)
        usable.append(_Span(begin, end, slot.usd_per_kwh, slot.period, label, slot.start.tzinfo))
    return sorted(usable, key=lambda s: s.start)


def _capacity_kwh(slot: _Span, power_kw: float) -> float:
    """Energy a slot can deliver at full power."""
    return power_kw * (slot.end - slot.start).total_seconds() / 3600


def _charge(slot: _Span, begin: datetime, end: datetime, kwh: float) -> ChargeSlot:
    """Charge `kwh` at full power over `[begin, end)` (UTC) within `slot`, shown in its zone."""

    def shown(moment: datetime) -> datetime:
        return moment.astimezone(slot.zone) if slot.zone is not None and moment.tzinfo is not None else moment

    return ChargeSlot(
        start=shown(begin),
        end=shown(end),
        kwh=kwh,
        usd_per_kwh=slot.usd_per_kwh,
        period=slot.period,
        label=slot.label,
    )


def _plan(slots: list[ChargeSlot], requested: float, strategy: str, cap: float | None) -> ChargingPlan:
    planned = sum(slot.kwh for slot in slots)
    shortfall = max(0.0, requested - planned)
    return ChargingPlan(
        slots=sorted(slots, key=lambda s: _utc(s.start)),
        energy_kwh_requested=requested,
        energy_kwh_planned=planned,
        cost_usd=round(sum(slot.kwh * slot.usd_per_kwh for slot in slots), 2),
        feasible=shortfall <= 1e-6,
        shortfall_kwh=round(shortfall, 3),
        strategy=strategy,
        price_cap_usd_per_kwh=cap,
    )


def cheapest_slots(
    prices: list[PriceSlot],
    *,
    energy_kwh: float,
    power_kw: float,
    start: datetime,
    deadline: datetime,
    price_cap_usd_per_kwh: float | None = None,
) -> ChargingPlan:
    """Greedy: fill the cheapest slots first; among equal prices prefer the later slot
    (charging closer to departure keeps the battery at a high state of charge for less time).
    Energy is divisible, so filling the cheapest capacity first is optimal."""
    usable = _usable(prices, start, deadline, price_cap_usd_per_kwh)
    ordered = sorted(usable, key=lambda s: (s.usd_per_kwh, -s.start.timestamp()))
    remaining, chosen = energy_kwh, []
    for slot in ordered:
        if remaining <= 1e-9:
            break
        capacity = _capacity_kwh(slot, power_kw)
        kwh = min(capacity, remaining)
        # A partly used slot charges at its end, so the plan stays as late as possible.
        begin = slot.start if kwh == capacity else slot.end - timedelta(hours=kwh / power_kw)
        chosen.append(_charge(slot, begin, slot.end, kwh))
        remaining -= kwh
    return _plan(chosen, energy_kwh, "cheapest hours (greedy)", price_cap_usd_per_kwh)


def _runs(usable: list[_Span]) -> list[list[_Span]]:
    """Usable slots grouped into stretches without a gap (the price cap or a hole in the prices)."""
    runs: list[list[_Span]] = []
    for slot in usable:
        if runs and runs[-1][-1].end == slot.start:
            runs[-1].append(slot)
        else:
            runs.append([slot])
    return runs


def cheapest_contiguous_window(
    prices: list[PriceSlot],
    *,
    energy_kwh: float,
    power_kw: float,
    start: datetime,
    deadline: datetime,
    price_cap_usd_per_kwh: float | None = None,
) -> ChargingPlan:
    """One uninterrupted session at full power (`energy_kwh / power_kw` hours) inside
    `[start, deadline)`, in hours under the price cap, at the lowest cost; ties: the later session.

    The session may begin at any moment, not only on the hour: beginning partway into a dear hour
    can be cheaper when the session then ends exactly as a cheap stretch (or the deadline) ends.
    Its cost is piecewise linear in the begin time, with corners where the session begins or ends
    on a slot boundary (`start` and the deadline included), so those begin times are the only
    candidates. If no session fits, the greedy plan is returned (it reports any shortfall)."""
    usable = _usable(prices, start, deadline, price_cap_usd_per_kwh)
    if energy_kwh <= 1e-9:
        return _plan([], energy_kwh, "one uninterrupted session", price_cap_usd_per_kwh)
    length = energy_kwh / power_kw * 3600  # seconds
    best: list[ChargeSlot] | None = None
    best_cost = math.inf
    for run in _runs(usable):
        if sum(_capacity_kwh(slot, power_kw) for slot in run) < energy_kwh - 1e-9:
            continue
        origin = run[0].start
        bounds = [((s.start - origin).total_seconds(), (s.end - origin).total_seconds()) for s in run]
        latest = max(0.0, bounds[-1][1] - length)
        begins = {b for b, _ in bounds} | {e - length for _, e in bounds}
        for offset in sorted({min(max(0.0, b), latest) for b in begins}):
            # (slot, slot bounds, charged part) for every slot the session touches
            parts = [
                (slot, b, e, max(b, offset), min(e, offset + length))
                for slot, (b, e) in zip(run, bounds, strict=True)
                if min(e, offset + length) > max(b, offset)
            ]
            cost = sum((hi - lo) / 3600 * power_kw * slot.usd_per_kwh for slot, _, _, lo, hi in parts)
            if cost > best_cost + 1e-9:
                continue
            best_cost, best = cost, []
            for slot, b, e, lo, hi in parts:
                begin = slot.start if lo == b else origin + timedelta(seconds=lo)
                end = slot.end if hi == e else origin + timedelta(seconds=hi)
                if end > begin:
                    best.append(_charge(slot, begin, end, (hi - lo) / 3600 * power_kw))
    if best is None:  # no window fits: fall back to the greedy plan, which reports the shortfall
        greedy = cheapest_slots(
            prices,
            energy_kwh=energy_kwh,
            power_kw=power_kw,
            start=start,
            deadline=deadline,
            price_cap_usd_per_kwh=price_cap_usd_per_kwh,
        )
        return greedy.model_copy(update={"strategy": "one session (none fits; greedy shown)"})
    return _plan(best, energy_kwh, "one uninterrupted session", price_cap_usd_per_kwh)


def charge_now(
    prices: list[PriceSlot], *, energy_kwh: float, power_kw: float, start: datetime
) -> ChargingPlan:
    """Plug in and charge at once until full: the baseline the plan is compared against."""
    far = _utc(start) + timedelta(hours=max(1, math.ceil(energy_kwh / power_kw)) + 1)
    usable = _usable(prices, start, far, None)
    chosen, remaining = [], energy_kwh
    for slot in usable:
        if remaining <= 1e-9:
            break
        capacity = _capacity_kwh(slot, power_kw)
        kwh = min(capacity, remaining)
        end = slot.end if kwh == capacity else slot.start + timedelta(hours=kwh / power_kw)
        chosen.append(_charge(slot, slot.start, end, kwh))
        remaining -= kwh
    return _plan(chosen, energy_kwh, "charge now", None)


class CostComparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    now_usd: float
    planned_usd: float
    savings_usd: float
    solar_first_usd: float | None = None
    solar_kwh_used: float = 0.0
    export_credit_usd_per_kwh: float | None = Field(None, description="value of exported solar given up")


def compare_costs(
    now: ChargingPlan,
    planned: ChargingPlan,
    *,
    solar_surplus_kwh: float = 0.0,
    export_credit_usd_per_kwh: float = 0.05,
) -> CostComparison:
    """Charge now vs the planned window vs solar-first (surplus PV first, valued at the
    export credit it would otherwise earn, the rest at the planned window's average price)."""
    solar_first = None
    used = 0.0
    if solar_surplus_kwh > 0 and planned.energy_kwh_planned > 0:
        used = min(solar_surplus_kwh, planned.energy_kwh_requested)
        average = planned.cost_usd / planned.energy_kwh_planned
        solar_first = round(
            used * export_credit_usd_per_kwh + (planned.energy_kwh_requested - used) * average, 2
        )
    return CostComparison(
        now_usd=now.cost_usd,
        planned_usd=planned.cost_usd,
        savings_usd=round(now.cost_usd - planned.cost_usd, 2),
        solar_first_usd=solar_first,
        solar_kwh_used=round(used, 2),
        export_credit_usd_per_kwh=export_credit_usd_per_kwh if solar_first is not None else None,
    )
