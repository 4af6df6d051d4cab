"""Data-API clients against a real local HTTP server: success, 429 + Retry-After, 500,
timeout, malformed JSON, stale-cache fallback, and keys kept out of logs and cache keys."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from advisor.tools.data import FIXTURES_DIR
from advisor.tools.http import ApiClient, ApiError
from advisor.tools.open_meteo import OpenMeteoClient, open_meteo_azimuth
from advisor.tools.openei import OpenEiClient
from advisor.tools.pvwatts import PvWattsClient
from config.files import ProviderConfig
from tests.servers.http import LocalHTTPServer, Response

KEY = "secret-api-key-value"


class Clock:
    """A fake monotonic-free clock for the recorded sleeps (no real waiting in tests)."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


@pytest.fixture
def server() -> LocalHTTPServer:
    with LocalHTTPServer() as running:
        yield running


@pytest.fixture
def http() -> httpx.Client:
    with httpx.Client() as client:
        yield client


def make_client(server: LocalHTTPServer, http: httpx.Client, sleeper: Clock, **config: object) -> ApiClient:
    settings = {"base_url": server.url, "timeout_seconds": 2, "retries": 2, "cache_ttl_seconds": 60, **config}
    return ApiClient(
        name="testapi",
        config=ProviderConfig(**settings),
        mode="live",
        http=http,
        fixtures_dir=FIXTURES_DIR,
        api_key=SecretStr(KEY),
        sleep=sleeper.sleep,
    )


def test_success_sends_key_and_caches(server: LocalHTTPServer, http: httpx.Client) -> None:
    server.route("GET", "/data", lambda request: Response.json({"value": 42}))
    client = make_client(server, http, Clock())
    first = client.get_json("/data", {"a": 1}, fixture="unused")
    second = client.get_json("/data", {"a": 1}, fixture="unused")
    assert first.data == {"value": 42} and not first.from_cache
    assert second.from_cache and second.data == first.data
    assert len(server.requests) == 1
    assert server.requests[0].headers.get("X-Api-Key") == KEY  # in a header, never in the URL
    assert KEY not in server.requests[0].query and "a=1" in server.requests[0].query


def test_429_with_retry_after_is_honoured(server: LocalHTTPServer, http: httpx.Client) -> None:
    answers = iter(
        [Response.json({"error": "slow down"}, 429, {"Retry-After": "7"}), Response.json({"ok": True})]
    )
    server.route("GET", "/data", lambda request: next(answers))
    sleeper = Clock()
    result = make_client(server, http, sleeper).get_json("/data", {}, fixture="unused")
    assert result.data == {"ok": True}
    assert sleeper.sleeps == [7.0]
    assert len(server.requests) == 2


def test_500s_are_retried_with_backoff_then_fail(server: LocalHTTPServer, http: httpx.Client) -> None:
    server.route("GET", "/data", lambda request: Response.json({"error": "boom"}, 500))
    sleeper = Clock()
    with pytest.raises(ApiError, match=r"testapi: HTTP 500 after 3 attempt\(s\)"):
        make_client(server, http, sleeper).get_json("/data", {}, fixture="unused")
    assert sleeper.sleeps == [0.5, 1.0]
    assert len(server.requests) == 3


def test_timeout_is_retried_and_reported(server: LocalHTTPServer, http: httpx.Client) -> None:
    release = threading.Event()

    def hang(request):  # answers only after the client gave up
        release.wait(5)
        return Response.json({"late": True})

    server.route("GET", "/slow", hang)
    client = make_client(server, http, Clock(), timeout_seconds=0.2, retries=1)
    started = time.monotonic()
    with pytest.raises(ApiError, match=r"timed out after 0.2 s after 2 attempt"):
        client.get_json("/slow", {}, fixture="unused")
    release.set()
    assert time.monotonic() - started < 4


def test_malformed_json_is_an_error_without_retry(server: LocalHTTPServer, http: httpx.Client) -> None:
    server.route(
        "GET", "/data", lambda request: Response(200, b"{not json", {"Content-Type": "application/json"})
    )
    with pytest.raises(ApiError, match="malformed JSON"):
        make_client(server, http, Clock()).get_json("/data", {}, fixture="unused")
    assert len(server.requests) == 1


def test_client_errors_are_not_retried_and_never_show_the_key(
    server: LocalHTTPServer, http: httpx.Client
) -> None:
    server.route("GET", "/data", lambda request: Response.json({"error": "bad request"}, 400))
    with pytest.raises(ApiError) as raised:
        make_client(server, http, Clock()).get_json("/data", {}, fixture="unused")
    assert "HTTP 400" in str(raised.value) and KEY not in str(raised.value)
    assert len(server.requests) == 1


def test_expired_cache_is_served_as_stale_when_the_api_fails(
    server: LocalHTTPServer, http: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    answers = iter([Response.json({"v": 1}), *[Response.json({}, 503)] * 3])
    server.route("GET", "/data", lambda request: next(answers))
    client = make_client(server, http, Clock(), cache_ttl_seconds=0)
    assert client.get_json("/data", {}, fixture="unused").data == {"v": 1}
    with caplog.at_level(logging.INFO):
        stale = client.get_json("/data", {}, fixture="unused")
    assert stale.stale and stale.data == {"v": 1}
    assert KEY not in caplog.text


def test_mock_mode_reads_fixtures_and_never_calls_out(http: httpx.Client, tmp_path: Path) -> None:
    config = ProviderConfig(base_url="http://127.0.0.1:9")  # nothing listens there
    client = ApiClient(name="open_meteo", config=config, mode="mock", http=http, fixtures_dir=FIXTURES_DIR)
    result = client.get_json("/forecast", {}, fixture="open_meteo_forecast")
    assert result.is_mock and "hourly" in result.data
    missing = ApiClient(name="x", config=config, mode="mock", http=http, fixtures_dir=tmp_path)
    with pytest.raises(ApiError, match="no fixture nothing.json"):
        missing.get_json("/", {}, fixture="nothing")


def test_open_meteo_parses_forecast_and_converts_azimuth(server: LocalHTTPServer, http: httpx.Client) -> None:
    payload = {
        "timezone": "America/Los_Angeles",
        "hourly": {
            "time": ["2026-01-21T11:00", "2026-01-21T12:00"],
            "temperature_2m": [12.0, None],
            "cloud_cover": [10, 20],
            "shortwave_radiation": [400, 450],
            "global_tilted_irradiance": [500, 550],
        },
    }
    server.route("GET", "/forecast", lambda request: Response.json(payload))
    client = OpenMeteoClient(make_client(server, http, Clock()), make_client(server, http, Clock()))
    weather, _ = client.hourly_forecast(lat=37.77, lon=-122.42, azimuth_compass_deg=180)
    assert weather.times[0].utcoffset().total_seconds() == -8 * 3600
    assert weather.temperature_c == [12.0, 0.0] and weather.tilted_w_m2 == [500.0, 550.0]
    assert "azimuth=0" in server.requests[0].query and "global_tilted_irradiance" in server.requests[0].query
    assert (open_meteo_azimuth(90), open_meteo_azimuth(270), open_meteo_azimuth(180)) == (-90, 90, 0)


def test_open_meteo_rejects_a_wrong_shape(server: LocalHTTPServer, http: httpx.Client) -> None:
    server.route(
        "GET", "/forecast", lambda request: Response.json({"timezone": "Nowhere/City", "hourly": {}})
    )
    client = OpenMeteoClient(make_client(server, http, Clock()), make_client(server, http, Clock()))
    with pytest.raises(ApiError, match="unexpected forecast shape"):
        client.hourly_forecast(lat=1, lon=1)


def test_geocoding_finds_a_zip_or_nothing(server: LocalHTTPServer, http: httpx.Client) -> None:
    answers = iter(
        [
            Response.json(
                {
                    "results": [
                        {
                            "name": "San Francisco",
                            "latitude": 37.77,
                            "longitude": -122.42,
                            "timezone": "America/Los_Angeles",
                            "postcodes": ["94102"],
                        }
                    ]
                }
            ),
            Response.json({"generationtime_ms": 0.1}),
        ]
    )
    server.route("GET", "/search", lambda request: next(answers))
    client = OpenMeteoClient(make_client(server, http, Clock()), make_client(server, http, Clock()))
    place = client.geocode("94102")
    assert place.name == "San Francisco" and place.timezone == "America/Los_Angeles"
    assert client.geocode("Atlantis") is None


def test_pvwatts_reports_api_errors_and_parses_outputs(server: LocalHTTPServer, http: httpx.Client) -> None:
    answers = iter(
        [
            Response.json({"errors": ["system_capacity must be between 0.05 and 500000"], "outputs": {}}),
            Response.json(
                {
                    "errors": [],
                    "outputs": {
                        "ac_annual": 8000,
                        "ac_monthly": [600] * 12,
                        "solrad_annual": 5.1,
                        "capacity_factor": 15.2,
                    },
                }
            ),
        ]
    )
    server.route("GET", "/api/pvwatts/v8.json", lambda request: next(answers))
    client = PvWattsClient(make_client(server, http, Clock(), base_url=server.url + "/api/pvwatts/v8"))
    with pytest.raises(ApiError, match="system_capacity must be"):
        client.typical_production(system_kw=6, lat=37.7, lon=-122.4)
    estimate, _ = client.typical_production(system_kw=6, lat=37.7, lon=-122.4)
    assert estimate.ac_annual_kwh == 8000 and len(estimate.monthly_kwh) == 12
    assert "azimuth=180" in server.requests[-1].query


def test_openei_picks_the_newest_matching_plan(server: LocalHTTPServer, http: httpx.Client) -> None:
    import json

    items = json.loads((FIXTURES_DIR / "openei_rates.json").read_text())["items"]
    older = dict(items[0], label="older", startdate=1600000000)
    server.route("GET", "/utility_rates", lambda request: Response.json({"items": [older, *items]}))
    client = OpenEiClient(make_client(server, http, Clock(), base_url=server.url + "/utility_rates"))
    tariff, _ = client.find_tariff(plan="EV2-A", lat=37.7, lon=-122.4)
    assert tariff.source.endswith("fixture-ev2a") and tariff.as_of.year == 2026
    with pytest.raises(ApiError, match="no residential tariff named like EV-TOU-5"):
        client.find_tariff(plan="EV-TOU-5", lat=37.7, lon=-122.4)


def test_an_api_that_refuses_the_key_header_gets_the_query_parameter(
    server: LocalHTTPServer, http: httpx.Client
) -> None:
    def only_query_keys(request):
        if f"api_key={KEY}" in request.query:
            return Response.json({"ok": True})
        return Response.json({"error": {"code": "API_KEY_MISSING"}}, 403)

    server.route("GET", "/data", only_query_keys)
    client = make_client(server, http, Clock(), cache_ttl_seconds=0)
    assert client.get_json("/data", {"a": 1}, fixture="unused").data == {"ok": True}
    assert [KEY in r.query for r in server.requests] == [False, True]  # header first, then the parameter
    client.get_json("/data", {"a": 2}, fixture="unused")
    assert len(server.requests) == 3 and KEY in server.requests[2].query  # remembered: no second refusal
