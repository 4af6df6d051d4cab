"""EV charging: energy needed, charge duration, and the cheapest slots before a deadline."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

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
        return min((slot.start for slot in self.slots), default=None)

    @property
    def end(self) -> datetime | None:
        return max((slot.end for slot in self.slots), default=None)

    def windows(self) -> list[tuple[datetime, datetime]]:
        """Planned slots merged into contiguous `[start, end)` windows, in time order."""
        merged: list[tuple[datetime, datetime]] = []
        for slot in sorted(self.slots, key=lambda s: s.start):
            if merged and merged[-1][1] >= slot.start:
                merged[-1] = (merged[-1][0], max(merged[-1][1], slot.end))
            else:
                merged.append((slot.start, slot.end))
        return merged


def _usable(
    prices: list[PriceSlot], start: datetime, deadline: datetime, cap: float | None
) -> list[PriceSlot]:
    """Slots inside `[start, deadline)`, clipped at both ends, under the price cap."""
    usable = []
    for slot in prices:
        begin, end = max(slot.start, start), min(slot.end, deadline)
        if end <= begin or (cap is not None and slot.usd_per_kwh > cap):
            continue
        usable.append(slot.model_copy(update={"start": begin, "end": end}))
    return usable


def _capacity_kwh(slot: PriceSlot, power_kw: float) -> float:
    """Energy a slot can deliver at full power."""
    return power_kw * (slot.end - slot.start).total_seconds() / 3600


def _charge(slot: PriceSlot, kwh: float, power_kw: float) -> ChargeSlot:
    """Charge `kwh` at full power from the start of the slot."""
    return ChargeSlot(
        start=slot.start,
        end=slot.start + timedelta(hours=kwh / power_kw),
        kwh=kwh,
        usd_per_kwh=slot.usd_per_kwh,
        period=slot.period,
    )


def _plan(slots: list[ChargeSlot], requested: float, strategy: str, cap: float | None) -> ChargingPlan:
    planned = sum(slot.kwh for slot in slots)
    shortfall = max(0.0, requested - planned)
    return ChargingPlan(
        slots=sorted(slots, key=lambda s: s.start),
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
    (charging closer to departure keeps the battery at a high state of charge for less time)."""
    usable = _usable(prices, start, deadline, price_cap_usd_per_kwh)
    ordered = sorted(usable, key=lambda s: (s.usd_per_kwh, -s.start.timestamp()))
    remaining, chosen = energy_kwh, []
    for slot in ordered:
        if remaining <= 1e-9:
            break
        kwh = min(_capacity_kwh(slot, power_kw), remaining)
        # A partly used slot charges at its end, so the plan stays as late as possible.
        chosen.append(
            _charge(
                slot.model_copy(update={"start": slot.end - timedelta(hours=kwh / power_kw)}), kwh, power_kw
            )
        )
        remaining -= kwh
    return _plan(chosen, energy_kwh, "cheapest hours (greedy)", price_cap_usd_per_kwh)


def cheapest_contiguous_window(
    prices: list[PriceSlot],
    *,
    energy_kwh: float,
    power_kw: float,
    start: datetime,
    deadline: datetime,
    price_cap_usd_per_kwh: float | None = None,
) -> ChargingPlan:
    """One uninterrupted session: the start hour with the lowest total cost (ties: later)."""
    usable = _usable(prices, start, deadline, price_cap_usd_per_kwh)
    hours_needed = energy_kwh / power_kw
    best: list[ChargeSlot] | None = None
    best_cost = math.inf
    for first in range(len(usable)):
        chosen, remaining = [], energy_kwh
        for index in range(first, len(usable)):
            slot = usable[index]
            if index > first and usable[index - 1].end != slot.start:
                break  # a gap (price cap or the deadline) interrupts the session
            kwh = min(_capacity_kwh(slot, power_kw), remaining)
            chosen.append(_charge(slot, kwh, power_kw))
            remaining -= kwh
            if remaining <= 1e-9:
                break
        if remaining > 1e-9 and hours_needed > 0:
            continue
        cost = sum(slot.kwh * slot.usd_per_kwh for slot in chosen)
        if cost <= best_cost + 1e-9:
            best, best_cost = chosen, cost
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
    far = start + timedelta(hours=max(1, math.ceil(energy_kwh / power_kw)) + 1)
    usable = _usable(prices, start, far, None)
    chosen, remaining = [], energy_kwh
    for slot in usable:
        if remaining <= 1e-9:
            break
        kwh = min(_capacity_kwh(slot, power_kw), remaining)
        chosen.append(_charge(slot, kwh, power_kw))
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
