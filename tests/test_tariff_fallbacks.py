"""A customer of any US utility gets prices: their plan, else their utility's standard tariff from
OpenEI, else a price they gave, else their state's average — each labelled as what it is."""

from __future__ import annotations

import httpx

from advisor.tools.data import build_data_sources
from config.files import ToolsConfig
from config.settings import Settings
from profiles.models import UserProfile


def sources():
    return build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())


def profile(**location) -> UserProfile:
    return UserProfile.model_validate({"user_id": "u", "location": location})


def test_no_plan_named_uses_the_utilitys_standard_tariff_from_openei() -> None:
    lookup = sources().resolve_tariff(profile(utility_provider="PG&E", lat=37.77, lon=-122.42))
    assert lookup.origin == "openei" and lookup.tariff is not None
    assert "You didn't name your rate plan, so I used Pacific Gas & Electric Co's" in lookup.warnings[0]


def test_a_utility_openei_does_not_list_here_gets_the_price_the_user_gave() -> None:
    lookup = sources().resolve_tariff(
        profile(
            utility_provider="Eversource", zip_code="02134", lat=42.35, lon=-71.13, flat_rate_usd_per_kwh=0.31
        )
    )
    assert lookup.origin == "flat" and lookup.tariff.periods[0].usd_per_kwh == 0.31
    assert lookup.warnings == ["Priced at the flat 31.0¢/kWh you gave me (no hour is cheaper)."]


def test_without_a_price_the_states_average_is_used_and_said() -> None:
    lookup = sources().resolve_tariff(
        profile(utility_provider="Eversource", zip_code="02134", lat=42.35, lon=-71.13)
    )
    assert lookup.origin == "flat" and lookup.tariff.periods[0].usd_per_kwh == 0.2961
    assert "MA's 2023 average residential price, 29.6¢/kWh" in lookup.warnings[0]


def test_with_nothing_to_go_on_there_are_no_prices_and_the_user_is_told_what_to_give() -> None:
    lookup = sources().resolve_tariff(profile(utility_provider="Some Co-op"))
    assert lookup.tariff is None and "tell me either" in lookup.warnings[-1]


def test_comparing_charging_costs_uses_the_cars_limit_and_states_no_saving_when_it_cannot_finish() -> None:
    from datetime import datetime, timezone

    from advisor.tools.toolkit import TurnContext, compare_charging

    car = UserProfile.model_validate(
        {
            "user_id": "u",
            "location": {
                "utility_provider": "PG&E",
                "rate_schedule": "EV2-A",
                "timezone": "America/Los_Angeles",
            },
            "equipment": {"ev_model": "Tesla Model 3", "ev_charger_kw": 11.5},
        }
    )
    now = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # 10:00 local
    context = TurnContext(user_id="u", profile=car, now=now)
    feasible = compare_charging(sources(), context, kwh=20, ready_by_hour=7)
    assert feasible.facts["power_kw"] == 7.7  # the Model 3 RWD's on-board limit, not the 11.5 kW charger
    assert "accepts at most 7.7 kW AC" in " ".join(feasible.assumptions)
    tight = compare_charging(sources(), context, kwh=40, ready_by_hour=12)
    assert not tight.facts["feasible"] and tight.facts["savings_usd"] is None and "saves" not in tight.summary


def test_a_plan_they_named_without_prices_here_is_said_as_that_never_as_no_plan() -> None:
    """From trying it as an SDG&E customer: "Saved: your rate plan is TOU-DR1" then "Without your
    rate plan I used …" in the same reply."""
    lookup = sources().resolve_tariff(
        profile(utility_provider="SDG&E", zip_code="91910", lat=32.64, lon=-117.07, rate_schedule="TOU-DR1")
    )
    said = " ".join(lookup.warnings)
    assert lookup.origin == "flat" and "I don't have the prices of TOU-DR1 (SDG&E's plan)" in said
    assert "Without your rate plan" not in said and "its peak hours cost more than this" in said
