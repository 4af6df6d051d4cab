"""Energy core: the worked EV example, tariffs (catalog and URDB), planning, PV."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from advisor.energy.catalog import catalog_tariff, normalize_plan, normalize_utility, utility_of_plan
from advisor.energy.ev import (
    charge_duration_h,
    charge_now,
    charging_power_kw,
    cheapest_contiguous_window,
    cheapest_slots,
    compare_costs,
    ev_energy_needed,
)
from advisor.energy.pv import pv_ac_kw, pv_forecast, surplus_windows
from advisor.energy.tariff import TariffError, hourly_prices, period_windows, tariff_from_urdb

LA = ZoneInfo("America/Los_Angeles")
FIXTURES = Path(__file__).parent / "fixtures"


def test_worked_example_model_3_from_30_to_80_percent() -> None:
    energy = ev_energy_needed(battery_kwh=57.5, soc_now_pct=30, soc_target_pct=80)
    assert energy.battery_kwh_added == pytest.approx(28.75)
    assert energy.grid_kwh == pytest.approx(31.94, abs=0.01)
    power = charging_power_kw(charger_kw=11.5, onboard_limit_kw=7.7)  # Model 3 RWD on-board limit
    assert power == 7.7
    assert charge_duration_h(energy.grid_kwh, power) == pytest.approx(4.15, abs=0.01)


@pytest.mark.parametrize("plan", ["EV2-A", "E-ELEC"])
def test_plan_falls_in_off_peak_midnight_to_3pm_with_its_cost(plan: str) -> None:
    tariff = catalog_tariff("PG&E", plan)
    start = datetime(2026, 1, 21, 18, tzinfo=LA)
    deadline = datetime(2026, 1, 22, 7, tzinfo=LA)
    prices = hourly_prices(tariff, start, 24, "America/Los_Angeles")
    energy = ev_energy_needed(battery_kwh=57.5, soc_now_pct=30, soc_target_pct=80)
    result = cheapest_slots(prices, energy_kwh=energy.grid_kwh, power_kw=7.7, start=start, deadline=deadline)

    assert result.feasible and result.shortfall_kwh == 0
    assert {slot.period for slot in result.slots} == {"off_peak"}
    ((first, last),) = result.windows()
    assert datetime(2026, 1, 22, 0, tzinfo=LA) <= first and last <= datetime(2026, 1, 22, 15, tzinfo=LA)
    off_peak = tariff.period_at(datetime(2026, 1, 22, 2, tzinfo=LA)).usd_per_kwh
    assert result.cost_usd == pytest.approx(energy.grid_kwh * off_peak, abs=0.01)
    assert last == deadline  # equal prices: the later slots win


def test_infeasible_deadline_reports_the_shortfall() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    start = datetime(2026, 1, 22, 1, tzinfo=LA)
    prices = hourly_prices(tariff, start, 24, "America/Los_Angeles")
    result = cheapest_slots(
        prices, energy_kwh=31.94, power_kw=7.7, start=start, deadline=start + timedelta(hours=2)
    )
    assert not result.feasible
    assert result.energy_kwh_planned == pytest.approx(15.4)
    assert result.shortfall_kwh == pytest.approx(31.94 - 15.4, abs=0.001)


def test_price_cap_excludes_expensive_hours() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    start = datetime(2026, 1, 21, 15, tzinfo=LA)
    prices = hourly_prices(tariff, start, 24, "America/Los_Angeles")
    capped = cheapest_slots(
        prices,
        energy_kwh=60,
        power_kw=7.7,
        start=start,
        deadline=start + timedelta(hours=10),
        price_cap_usd_per_kwh=0.40,
    )
    # 3 pm-1 am: only midnight-1 am (off-peak, $0.31) is under the cap
    assert [(slot.start.hour, slot.period) for slot in capped.slots] == [(0, "off_peak")]
    assert not capped.feasible and capped.shortfall_kwh == pytest.approx(60 - 7.7)


def test_contiguous_window_and_charge_now_baseline() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    start = datetime(2026, 1, 21, 18, tzinfo=LA)
    prices = hourly_prices(tariff, start, 24, "America/Los_Angeles")
    deadline = datetime(2026, 1, 22, 7, tzinfo=LA)
    window = cheapest_contiguous_window(
        prices, energy_kwh=31.94, power_kw=7.7, start=start, deadline=deadline
    )
    assert len(window.windows()) == 1 and {s.period for s in window.slots} == {"off_peak"}
    now = charge_now(prices, energy_kwh=31.94, power_kw=7.7, start=start)
    assert now.windows()[0][0] == start and {"peak"} <= {s.period for s in now.slots}
    comparison = compare_costs(now, window, solar_surplus_kwh=10, export_credit_usd_per_kwh=0.05)
    assert comparison.savings_usd == pytest.approx(now.cost_usd - window.cost_usd, abs=0.01)
    assert comparison.solar_first_usd < window.cost_usd and comparison.solar_kwh_used == 10


def test_ev_tou_5_schedule_and_dst_change() -> None:
    tariff = catalog_tariff("SDG&E", "EV-TOU-5")
    weekday = period_windows(tariff, date(2026, 1, 21), "America/Los_Angeles")
    assert weekday[0] == (
        "super_off_peak",
        0,
        6,
        tariff.period_at(datetime(2026, 1, 21, 1, tzinfo=LA)).usd_per_kwh,
    )
    saturday = [run[:3] for run in period_windows(tariff, date(2026, 1, 24), "America/Los_Angeles")]
    assert ("super_off_peak", 0, 14) in saturday  # weekends: midnight-2 pm
    march_weekday = [run[:3] for run in period_windows(tariff, date(2026, 3, 18), "America/Los_Angeles")]
    assert ("super_off_peak", 10, 14) in march_weekday
    # Spring forward (2026-03-08): 24 hourly slots still cover 24 real hours, none repeated.
    slots = hourly_prices(tariff, datetime(2026, 3, 8, 0, tzinfo=LA), 24, "America/Los_Angeles")
    assert len({slot.start.astimezone(ZoneInfo("UTC")) for slot in slots}) == 24


def test_urdb_conversion_against_a_fixture() -> None:
    item = json.loads((FIXTURES / "urdb_ev2a.json").read_text())["items"][0]
    tariff = tariff_from_urdb(
        item, source="https://apps.openei.org/USURDB/rate/view/fixture", as_of=date(2026, 1, 1)
    )
    assert tariff.utility == "Pacific Gas & Electric Co" and "EV2" in tariff.name
    names = {period.index: (period.name, period.usd_per_kwh) for period in tariff.periods}
    # rate + adj of tier 0; names ranked by price within each month
    assert names[0] == ("peak", pytest.approx(0.60 + 0.02))
    assert names[2] == ("off_peak", pytest.approx(0.30 + 0.01))
    assert tariff.period_at(datetime(2026, 7, 1, 17, tzinfo=LA)).name == "peak"
    assert tariff.period_at(datetime(2026, 7, 1, 3, tzinfo=LA)).name == "off_peak"
    assert tariff.period_at(datetime(2026, 1, 3, 15, tzinfo=LA)).name == "partial_peak"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda item: item["energyratestructure"][0][0].update(unit="kW"), "only kWh"),
        (lambda item: item.pop("energyweekdayschedule"), "no energyweekdayschedule"),
        (lambda item: item["energyweekendschedule"].pop(), "12 months x 24 hours"),
        (lambda item: item["energyweekdayschedule"][0].__setitem__(0, 9), "period the tariff does not have"),
        (lambda item: item["energyratestructure"][1].clear(), "no tiers"),
    ],
)
def test_urdb_conversion_rejects_what_it_cannot_price(change, message: str) -> None:
    item = json.loads((FIXTURES / "urdb_ev2a.json").read_text())["items"][0]
    change(item)
    with pytest.raises((TariffError, ValueError), match=message):
        tariff_from_urdb(item, source="fixture", as_of=date(2026, 1, 1))


def test_catalog_names_and_plan_ownership() -> None:
    assert normalize_utility("pge") == normalize_utility("Pacific Gas and Electric") == "PG&E"
    assert normalize_utility("SDGE") == "SDG&E" and normalize_utility("ConEd") is None
    assert normalize_plan("ev2a") == "EV2-A" and normalize_plan("e tou c") == "E-TOU-C"
    assert normalize_plan("EV TOU 5") == "EV-TOU-5" and normalize_plan("every") is None
    assert utility_of_plan("EV-TOU-5") == "SDG&E"
    assert catalog_tariff("PG&E", "EV-TOU-5") is None  # the demo profile's mismatch has no PG&E tariff
    assert catalog_tariff("PG&E", "EV2-A").illustrative


def test_pv_forecast_and_surplus_windows() -> None:
    assert pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=0, air_temperature_c=10) == 0
    noon = pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=800, air_temperature_c=20)
    # cell at 44 C: derate 0.924; DC 6 x 0.8 x 0.924 x (1 - 0.14) = 3.81 kW; AC x 0.96 inverter = 3.66 kW
    assert noon == pytest.approx(3.66, abs=0.01)
    assert pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=1200, air_temperature_c=0) == pytest.approx(
        5.0
    )  # inverter cap
    hours = [datetime(2026, 6, 1, h, tzinfo=LA) for h in range(8, 16)]
    gti = [100, 300, 600, 800, 800, 600, 300, 100]
    forecast = pv_forecast(system_kw=6, times=hours, tilted_irradiance_w_m2=gti, air_temperature_c=[20] * 8)
    windows = surplus_windows(forecast, household_load_kw=0.5)
    assert [(start.hour, end.hour) for start, end, _ in windows] == [(9, 15)]
    assert windows[0][2] == pytest.approx(sum(h.ac_kw - 0.5 for h in forecast[1:7]), abs=0.01)
