"""A month of home charging: the miles a month priced night by night on the user's tariff."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import httpx
import pytest

from advisor.energy.catalog import catalog_tariff
from advisor.energy.tariff import hourly_prices
from advisor.tools.data import build_data_sources
from advisor.tools.monthly_charging import monthly_charging_cost
from advisor.tools.toolkit import TurnContext
from config.files import EvalConfig, ToolsConfig
from config.settings import Settings
from profiles.models import UserProfile
from tests.advisor_helpers import make_runtime
from traces.graders import Verdict, grade_trace
from traces.storage import load_trace

LA = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # a Wednesday, 10:00 in California


def _context(location: dict, equipment: dict | None = None) -> TurnContext:
    profile = UserProfile.model_validate({"user_id": "u", "location": location, "equipment": equipment or {}})
    return TurnContext(user_id="u", profile=profile, now=NOW)


@pytest.fixture(scope="module")
def data():
    with httpx.Client() as client:
        yield build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), client)


def test_a_flat_price_is_miles_times_kwh_a_mile_times_the_price(data) -> None:
    context = _context({"timezone": "America/Chicago", "flat_rate_usd_per_kwh": 0.20})
    result = monthly_charging_cost(data, context, miles_per_month=1000)
    assert result.ok and result.facts["monthly_kwh"] == 300.0
    assert result.facts["monthly_cost_usd"] == pytest.approx(60.00, abs=0.005)
    assert "every hour costs the same" in result.summary


def test_on_ev2a_every_night_charges_in_the_off_peak_hours(data) -> None:
    """An independent figure: EV2-A's price at 02:00 (off-peak every day) times the kWh; the
    nightly 10 kWh at 7.2 kW fits between midnight and 07:00 every night."""
    context = _context(
        {"timezone": "America/Los_Angeles", "utility_provider": "PG&E", "rate_schedule": "EV2-A"},
        {"ev_model": "Tesla Model 3", "ev_charger_kw": 7.2},
    )
    result = monthly_charging_cost(data, context, miles_per_month=1000)
    tariff = catalog_tariff("PG&E", "EV2-A")
    night = datetime(2026, 1, 22, 2, tzinfo=LA)
    off_peak = hourly_prices(tariff, night, 1, "America/Los_Angeles")[0].usd_per_kwh
    assert result.ok
    assert result.facts["monthly_cost_usd"] == pytest.approx(300 * off_peak, abs=0.01)
    assert "cheapest hours between 21:00 and 07:00" in result.summary


def test_the_fhwa_average_when_they_gave_no_miles_and_a_clear_refusal_when_nights_are_too_short(data) -> None:
    context = _context(
        {"timezone": "America/Chicago", "flat_rate_usd_per_kwh": 0.15}, {"ev_charger_kw": 1.44}
    )
    typical = monthly_charging_cost(data, context)
    assert typical.ok and typical.facts["miles_per_month"] == 1123 and "FHWA" in " ".join(typical.assumptions)
    too_far = monthly_charging_cost(data, context, miles_per_month=6000)
    assert not too_far.ok and "more than a 1.44 kW charger delivers" in too_far.summary
    assert not monthly_charging_cost(data, context, miles_per_month=-5).ok


def test_a_monthly_cost_question_gets_the_month_not_tonights_plan(tmp_path) -> None:
    runtime = make_runtime(tmp_path / "data", clock=lambda: NOW)
    try:
        user = "U-MONTH"
        runtime.service.profiles.import_profile(
            {
                "user_id": user,
                "location": {"zip_code": "78704", "city": "Austin", "utility_provider": "Austin Energy"},
                "equipment": {"ev_model": "Tesla Model 3"},
            }
        )
        reply = runtime.service.handle_turn(
            user, "s1", "how much is charging gonna cost me a month if i drive 40 miles a day"
        )
        # every figure the answer gives is in its trace (the claims grader passes it)
        trace = load_trace(runtime.service.traces.find(user, reply.trace_id))
        claims = {g.grader_name: g for g in grade_trace(trace, EvalConfig())}["claims"]
        tonight = runtime.service.handle_turn(user, "s1", "when should i charge tonight")
    finally:
        runtime.close()
    assert (
        "1,217 miles a month" in reply.text
        and "a month" in reply.text
        and "Cheapest before" not in reply.text
    )
    assert "before 07:00" in tonight.text
    assert claims.verdict == Verdict.PASS, claims
