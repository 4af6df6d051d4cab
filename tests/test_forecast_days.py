"""A forecast for a named day ("is it gonna be sunny saturday") is that day's, asked of Open-Meteo
with enough forecast days, and honestly refused when the answer does not reach it."""

from __future__ import annotations

from datetime import datetime, timezone

import httpx
import pytest
from pydantic import SecretStr

from advisor.tools.data import FIXTURES_DIR, build_data_sources
from advisor.tools.http import ApiClient
from advisor.tools.open_meteo import OpenMeteoClient
from advisor.tools.toolkit import TurnContext, solar_forecast, weather_forecast
from config.files import ProviderConfig, ToolsConfig
from config.settings import Settings
from profiles.models import UserProfile
from tests.servers.http import LocalHTTPServer, Response

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # Wednesday 10:00 in California
HOME = UserProfile.model_validate(
    {
        "user_id": "u",
        "location": {"zip_code": "94110", "lat": 37.75, "lon": -122.42},
        "equipment": {"solar_capacity_kw": 6},
    }
)
TWO_DAYS = {
    "timezone": "America/Los_Angeles",
    "hourly": {
        "time": [f"2026-01-{21 + h // 24}T{h % 24:02d}:00" for h in range(48)],
        "temperature_2m": [10.0 + (h % 24) / 4 for h in range(48)],
        "cloud_cover": [50] * 48,
        "shortwave_radiation": [max(0, 400 - abs(h % 24 - 12) * 80) for h in range(48)],
        "global_tilted_irradiance": [max(0, 450 - abs(h % 24 - 12) * 90) for h in range(48)],
    },
}


@pytest.fixture
def live_data():
    with LocalHTTPServer() as server, httpx.Client() as http:
        server.route("GET", "/forecast", lambda request: Response.json(TWO_DAYS))
        client = ApiClient(
            name="open_meteo",
            config=ProviderConfig(base_url=server.url, timeout_seconds=2, retries=0, cache_ttl_seconds=60),
            mode="live",
            http=http,
            fixtures_dir=FIXTURES_DIR,
            api_key=SecretStr("unused"),
        )
        data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), http)
        data.open_meteo = OpenMeteoClient(client, client)
        yield data, server


def test_a_named_day_asks_for_enough_days_and_says_when_the_answer_stops_short(live_data) -> None:
    data, server = live_data
    context = TurnContext(user_id="u", profile=HOME, now=NOW)
    saturday = weather_forecast(data, context, 24, "saturday")
    assert "forecast_days=5" in server.requests[-1].query  # Wednesday to Saturday, and Saturday itself
    assert saturday.ok is False and "can't forecast Sat 24 Jan yet" in saturday.summary
    solar = solar_forecast(data, context, "saturday")
    assert "forecast_days=5" in server.requests[-1].query and solar.ok is False
    tomorrow = weather_forecast(data, context, 24, "tomorrow")
    assert "forecast_days=2" in server.requests[-1].query
    assert (
        tomorrow.summary.startswith("Tomorrow (Thu 22 Jan): 50-60 °F (10-16 °C)")
        and "sunniest hour 11:00 (" in tomorrow.summary
    )  # the 12:00 stamp is 11-12
    hours = tomorrow.facts["weather_forecast"]["forecast"]
    assert len(hours) >= 23 and all(hour["time"].startswith("2026-01-22") for hour in hours[:-1])


def test_without_a_day_it_is_the_next_hours_as_before(live_data) -> None:
    data, server = live_data
    nxt = weather_forecast(data, TurnContext(user_id="u", profile=HOME, now=NOW), 24)
    assert "forecast_days=2" in server.requests[-1].query and nxt.summary.startswith("Next 24 h:")


def test_a_bad_day_is_a_clear_error() -> None:
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    refused = weather_forecast(data, TurnContext(user_id="u", profile=HOME, now=NOW), 24, "someday")
    assert refused.ok is False and "not 'someday'" in refused.summary


def test_sample_data_reaches_a_weekday_and_the_bot_answers_for_it(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime

    runtime = make_runtime(tmp_path, clock=lambda: NOW)
    try:
        user = "U-SAT"
        runtime.service.handle_turn(user, "s", "94110, pge e-tou-c")
        reply = runtime.service.handle_turn(user, "s", "is it gonna be sunny saturday")
        assert "Sat 24 Jan:" in reply.text and "Next 24 h" not in reply.text
        sunday = runtime.service.handle_turn(user, "s", "and sunday?")
        assert "Sun 25 Jan:" in sunday.text
    finally:
        runtime.close()
