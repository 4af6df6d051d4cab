"""Tariffs as published: holiday calendars, SDG&E EV-TOU-5's weekend/holiday and March-April
windows, fixed charges, sources and effective dates, period names, deadlines days ahead and the
fall-back night. Each case here failed on the catalog and planner as the audit found them."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from advisor.energy.catalog import _PLANS, catalog_price_basis, catalog_sources, catalog_tariff
from advisor.energy.ev import cheapest_slots, ev_energy_needed
from advisor.energy.holidays import holiday_name, holidays
from advisor.energy.tariff import PricePeriod, hourly_prices, period_windows
from advisor.tools.toolkit import _hm, _next_local_hour

LA = ZoneInfo("America/Los_Angeles")
TZ = "America/Los_Angeles"

# The eight tariff holidays both utilities list, on their 2026 dates.
HOLIDAYS_2026 = {
    date(2026, 1, 1): "New Year's Day",
    date(2026, 2, 16): "Presidents' Day",
    date(2026, 5, 25): "Memorial Day",
    date(2026, 7, 4): "Independence Day",
    date(2026, 9, 7): "Labor Day",
    date(2026, 11, 11): "Veterans Day",
    date(2026, 11, 26): "Thanksgiving Day",
    date(2026, 12, 25): "Christmas Day",
}


@pytest.mark.parametrize("utility", ["PG&E", "SDG&E"])
@pytest.mark.parametrize(("day", "name"), sorted(HOLIDAYS_2026.items()))
def test_each_listed_holiday(utility: str, day: date, name: str) -> None:
    assert holiday_name(utility, day) == name


@pytest.mark.parametrize("utility", ["PG&E", "SDG&E"])
def test_not_tariff_holidays_and_the_observed_monday(utility: str) -> None:
    assert holiday_name(utility, date(2026, 1, 19)) is None  # Martin Luther King Jr. Day
    assert holiday_name(utility, date(2026, 11, 27)) is None  # the day after Thanksgiving
    assert holiday_name(utility, date(2026, 7, 3)) is None  # a Saturday holiday is not moved to Friday
    # Independence Day 2027 is a Sunday: the Monday after is a holiday too
    assert holiday_name(utility, date(2027, 7, 5)) == "Independence Day (observed)"
    assert len(holidays(utility, 2027)) == 9 and len(holidays(utility, 2026)) == 8
    assert holiday_name("Eversource", date(2026, 12, 25)) is None  # no calendar: no holidays invented


def test_ev_tou_5_saturday_morning_is_super_off_peak_until_2pm() -> None:
    """The audit's case: a Saturday 5 am-1 pm charge of 44.7 kWh was priced $10.24 (6-10 am as
    off-peak); SDG&E's rule makes the whole morning super off-peak: 44.7 kWh x the super off-peak price."""
    tariff = catalog_tariff("SDG&E", "EV-TOU-5")
    start, deadline = datetime(2026, 1, 24, 5, tzinfo=LA), datetime(2026, 1, 24, 13, tzinfo=LA)
    prices = hourly_prices(tariff, start, 8, TZ)
    plan = cheapest_slots(prices, energy_kwh=44.7, power_kw=7.2, start=start, deadline=deadline)
    super_off_peak = tariff.period_at(datetime(2026, 1, 24, 3, tzinfo=LA)).usd_per_kwh
    assert plan.feasible and {slot.period for slot in plan.slots} == {"super_off_peak"}
    assert plan.cost_usd == pytest.approx(round(44.7 * super_off_peak, 2))
    assert [run[:3] for run in period_windows(tariff, date(2026, 1, 24), TZ)][0] == ("super_off_peak", 0, 14)


def test_ev_tou_5_holiday_weekday_is_priced_as_a_weekend() -> None:
    tariff = catalog_tariff("SDG&E", "EV-TOU-5")
    thanksgiving = date(2026, 11, 26)  # a Thursday
    assert tariff.day_type(thanksgiving) == "holiday"
    assert period_windows(tariff, thanksgiving, TZ)[0][:3] == ("super_off_peak", 0, 14)
    assert period_windows(tariff, thanksgiving + timedelta(days=6), TZ)[0][:3] == ("super_off_peak", 0, 6)


def test_ev_tou_5_march_weekday_adds_midday_without_becoming_a_weekend() -> None:
    tariff = catalog_tariff("SDG&E", "EV-TOU-5")
    runs = [run[:3] for run in period_windows(tariff, date(2026, 3, 18), TZ)]  # a Wednesday
    assert runs[:3] == [("super_off_peak", 0, 6), ("off_peak", 6, 10), ("super_off_peak", 10, 14)]
    may = [run[:3] for run in period_windows(tariff, date(2026, 5, 20), TZ)]
    assert ("super_off_peak", 10, 14) not in may and may[1] == ("off_peak", 6, 16)


@pytest.mark.parametrize(("utility", "plan"), sorted(_PLANS))
def test_every_catalog_plan_is_dated_sourced_and_has_its_fixed_charges(utility: str, plan: str) -> None:
    tariff = catalog_tariff(utility, plan)
    assert tariff.effective is not None and tariff.illustrative
    assert all(url.startswith("https://") for url in catalog_sources(utility, plan))
    assert tariff.fixed_charges and all(
        charge.usd_per_month > 0 and charge.source for charge in tariff.fixed_charges
    )
    assert catalog_price_basis(utility, plan) and tariff.holiday_calendar == utility
    # the source's own period names
    labels = {period.name: period.display for period in tariff.periods}
    assert labels.get("off_peak") == "Off-Peak" and "Super Off-Peak" in {*labels.values(), "Super Off-Peak"}
    if plan == "EV-TOU-5":
        assert labels["peak"] == "On-Peak" and labels["super_off_peak"] == "Super Off-Peak"


def test_pge_plans_carry_the_base_services_charge() -> None:
    for plan in ("E-TOU-C", "EV2-A", "E-ELEC"):
        tariff = catalog_tariff("PG&E", plan)
        assert tariff.fixed_usd_per_month == 24.0
        assert tariff.effective == date(2026, 3, 1)


def test_worked_example_stays_exact() -> None:
    """57.5 kWh battery, 30 -> 80 %, 7.7 kW, EV2-A at $0.31 off-peak: 31.9 kWh, 02:51-07:00, $9.90."""
    ev2a = catalog_tariff("PG&E", "EV2-A")
    tariff = ev2a.model_copy(
        update={
            "periods": [
                PricePeriod(
                    index=p.index, name=p.name, usd_per_kwh=0.31 if p.name == "off_peak" else p.usd_per_kwh
                )
                for p in ev2a.periods
            ]
        }
    )
    start = datetime(2026, 1, 21, 18, tzinfo=LA)
    energy = ev_energy_needed(battery_kwh=57.5, soc_now_pct=30, soc_target_pct=80)
    plan = cheapest_slots(
        hourly_prices(tariff, start, 15, TZ),
        energy_kwh=energy.grid_kwh,
        power_kw=7.7,
        start=start,
        deadline=datetime(2026, 1, 22, 7, tzinfo=LA),
    )
    ((first, last),) = plan.windows()
    assert round(energy.grid_kwh, 1) == 31.9 and plan.cost_usd == 9.90
    assert (_hm(first), _hm(last)) == ("02:51", "07:00")


def test_fall_back_night_slots_are_real_hours_with_distinct_labels() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    slots = hourly_prices(tariff, datetime(2026, 11, 1, 0, tzinfo=LA), 4, TZ)
    labels = [_hm(slot.start) for slot in slots]
    assert labels == ["00:00", "01:00 PDT", "01:00 PST", "02:00"]
    assert all(slot.end.timestamp() - slot.start.timestamp() == 3600 for slot in slots)


def test_deadlines_days_ahead() -> None:
    friday_evening = datetime(2026, 11, 27, 19, 30, tzinfo=LA)
    monday = _next_local_hour(friday_evening, 7, 0, "monday")
    assert monday == datetime(2026, 11, 30, 7, tzinfo=LA)
    assert _next_local_hour(friday_evening, 7, 0, "tomorrow") == datetime(2026, 11, 28, 7, tzinfo=LA)
    assert _next_local_hour(friday_evening, 7, 0, None) == datetime(2026, 11, 28, 7, tzinfo=LA)
    # "by Friday 8pm" said on Friday at 19:30 is tonight; "by Friday 7am" is next week
    assert _next_local_hour(friday_evening, 20, 0, "friday") == datetime(2026, 11, 27, 20, tzinfo=LA)
    assert _next_local_hour(friday_evening, 7, 0, "friday") == datetime(2026, 12, 4, 7, tzinfo=LA)
    # across the fall-back change the deadline keeps its wall-clock time
    saturday = datetime(2026, 10, 31, 22, tzinfo=LA)
    deadline = _next_local_hour(saturday, 7, 0, "sunday")
    assert (deadline.hour, deadline.utcoffset()) == (7, timedelta(hours=-8))
    assert deadline.timestamp() - saturday.timestamp() == 10 * 3600


def test_every_ev_tou_5_answer_says_to_check_the_midday_window(tmp_path) -> None:
    """The README promises it; a user test found no EV-TOU-5 answer said it."""
    from advisor.tools.data import DataSources
    from profiles.models import UserProfile

    sources = DataSources(open_meteo=None, pvwatts=None, openei=None, mode="mock")  # catalog only
    profile = UserProfile.model_validate(
        {
            "user_id": "T1-S",
            "location": {"utility_provider": "SDG&E", "rate_schedule": "EV-TOU-5", "zip_code": "92101"},
        }
    )
    lookup = sources.resolve_tariff(profile)
    assert lookup.origin == "catalog"
    assert any("10 am-2 pm" in warning and "Check SDG&E" in warning for warning in lookup.warnings)
