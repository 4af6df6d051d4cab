"""Defects a review of issues 11-12 found, each reproduced before its fix."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from advisor.energy.catalog import catalog_tariff
from advisor.energy.plan_compare import Household, annual_cost
from advisor.energy.tariff import period_windows
from advisor.tools.data import build_data_sources
from advisor.tools.http import ApiError, ApiResult, _retry_after
from advisor.tools.open_meteo import _parse_hourly
from advisor.tools.openei import _Item, _priced
from advisor.tools.toolkit import TurnContext, advise_appliance, plan_charging
from config.files import ToolsConfig
from config.settings import Settings
from profiles.models import UserProfile

LA = ZoneInfo("America/Los_Angeles")
FIXTURE = Path(__file__).resolve().parents[1] / "advisor" / "tools" / "fixtures" / "openei_rates.json"


def test_an_infinite_retry_after_is_a_long_wait_not_a_crash() -> None:
    for value in ("inf", "Infinity", "1e999"):
        response = httpx.Response(429, headers={"Retry-After": value})
        assert _retry_after(response, now=datetime.now(timezone.utc)) == 86_400.0


def test_forecast_times_out_of_range_are_a_failed_api_not_a_crash() -> None:
    data = {
        "timezone": "Asia/Tokyo",
        "hourly": {
            "time": ["0001-01-01T00:00"],
            "temperature_2m": [1.0],
            "cloud_cover": [1.0],
            "shortwave_radiation": [1.0],
            "global_tilted_irradiance": [1.0],
        },
    }
    with pytest.raises(ApiError, match="out of range"):
        _parse_hourly(ApiResult(data=data, fetched_at=datetime.now(timezone.utc)), redate=False)


def test_openei_tariffs_get_their_utilitys_holiday_calendar() -> None:
    raw = json.loads(FIXTURE.read_text())["items"][0]
    for utility, calendar in (
        ("San Diego Gas & Electric Co", "SDG&E"),
        ("Pacific Gas & Electric Co", "PG&E"),
        ("Eversource", None),
    ):
        item = _Item(
            raw={**raw, "utility": utility}, name=raw["name"], utility=utility, start=1767225600, end=None
        )
        ((_, tariff),) = _priced([item], "x")
        assert tariff.holiday_calendar == calendar
        if calendar:
            assert tariff.day_type(date(2026, 11, 26)) == "holiday"


def test_a_dst_day_lists_each_of_its_hours_once() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    fall_back = period_windows(tariff, date(2026, 11, 1), "America/Los_Angeles")
    spring = period_windows(tariff, date(2026, 3, 8), "America/Los_Angeles")
    assert fall_back[-1][2] == 24 and spring[-1][2] == 24
    assert [run[1] for run in spring] == sorted(run[1] for run in spring)  # no run wrapping back to 00:00


def test_no_house_use_is_a_valid_household() -> None:
    cost = annual_cost(
        catalog_tariff("PG&E", "EV2-A"),
        Household(house_kwh_per_month=0, ev_kwh_per_month=300),
        year=2026,
        timezone="America/Los_Angeles",
    )
    assert cost.total_usd > cost.fixed_usd


def _context(now: datetime, **location) -> TurnContext:
    profile = UserProfile.model_validate(
        {
            "user_id": "u",
            "location": {"timezone": "America/Los_Angeles", **location},
            "equipment": {"ev_model": "Tesla Model 3"},
        }
    )
    return TurnContext(user_id="u", profile=profile, now=now.astimezone(timezone.utc))


def _sources():
    return build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())


def test_nothing_to_charge_is_said_plainly_and_an_infeasible_plan_records_no_saving() -> None:
    at_peak = _context(datetime(2026, 1, 21, 17, tzinfo=LA), utility_provider="PG&E", rate_schedule="EV2-A")
    full = plan_charging(_sources(), at_peak, 90, 80, 7, False)
    assert full.summary.startswith("Nothing to charge") and "cheap period" not in full.summary
    short = plan_charging(_sources(), at_peak, 10, 100, 18, False)
    assert short.facts["feasible"] is False and short.facts["savings_usd"] is None


def test_a_later_day_is_not_called_a_saving_when_it_costs_more() -> None:
    """'Wait until 06:00 tomorrow — ... $1.01 ... instead of $0.26 now ..., saving $-0.75.'"""
    one_am = _context(datetime(2026, 1, 21, 1, tzinfo=LA), utility_provider="SDG&E", rate_schedule="EV-TOU-5")
    observation = advise_appliance(_sources(), one_am, "dryer", day="tomorrow")
    assert "saving $-" not in observation.summary and "saving $0.00" not in observation.summary
