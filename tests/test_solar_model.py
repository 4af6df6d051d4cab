"""Solar in the right hour and at the right size (issue 11, item 4).

- Open-Meteo's radiation is the mean over the PRECEDING hour, so a value stamped 13:00 is the
  sunshine of 12:00-13:00 and must land in the PvHour that starts at 12:00.
- The PV model follows PVWatts v8: 14 % DC losses, then a 96 % inverter, then the AC cap.
- Same inputs as the PVWatts fixture -> our annual AC output compared with PVWatts' ac_annual.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from advisor.energy.pv import (
    INVERTER_EFFICIENCY,
    SYSTEM_LOSSES,
    pv_ac_kw,
    pv_forecast,
    surplus_windows,
)
from advisor.tools.data import FIXTURES_DIR
from advisor.tools.http import ApiResult
from advisor.tools.open_meteo import OpenMeteoClient
from advisor.tools.pvwatts import DEFAULT_LOSSES_PCT

LA = ZoneInfo("America/Los_Angeles")


class StubForecastApi:
    """Answers every request with one Open-Meteo-shaped payload (no network)."""

    def __init__(self, payload: dict[str, Any], *, is_mock: bool = False, fetched_at: datetime | None = None):
        self._payload = payload
        self._is_mock = is_mock
        self._fetched_at = fetched_at or datetime(2026, 6, 1, 7, tzinfo=UTC)

    def get_json(self, path: str, params: dict[str, Any], **_: Any) -> ApiResult:
        return ApiResult(data=self._payload, fetched_at=self._fetched_at, is_mock=self._is_mock)


def open_meteo_payload(
    day: str, tilted: list[float], temperature: list[float] | None = None
) -> dict[str, Any]:
    hours = len(tilted)
    return {
        "timezone": "America/Los_Angeles",
        "hourly": {
            "time": [f"{day}T{hour:02d}:00" for hour in range(hours)],
            "temperature_2m": temperature or [20.0] * hours,
            "cloud_cover": [0] * hours,
            "shortwave_radiation": [value * 0.9 for value in tilted],
            "global_tilted_irradiance": tilted,
        },
    }


def parse(payload: dict[str, Any], **stub: Any):
    client = OpenMeteoClient(StubForecastApi(payload, **stub), StubForecastApi({}))
    weather, _ = client.hourly_forecast(lat=37.77, lon=-122.42)
    return weather


# --- the hour shift ------------------------------------------------------------------------------

# A clear June day: the brightest hour is the one STAMPED 13:00 (Open-Meteo: the mean of 12:00-13:00).
JUNE_GTI = [0, 0, 0, 0, 0, 0, 50, 200, 400, 600, 750, 850, 900, 950, 880, 760, 600, 400, 200, 50, 0, 0, 0, 0]


def test_radiation_stamped_13_00_is_the_pv_hour_starting_12_00() -> None:
    weather = parse(open_meteo_payload("2026-06-01", JUNE_GTI))
    forecast = pv_forecast(
        system_kw=6,
        times=weather.times,
        tilted_irradiance_w_m2=weather.tilted_w_m2,
        air_temperature_c=weather.temperature_c,
    )
    peak = max(forecast, key=lambda hour: hour.irradiance_w_m2)
    assert peak.irradiance_w_m2 == 950
    assert peak.start == datetime(2026, 6, 1, 12, tzinfo=LA)
    # every hour moved back by one: the first stamp (00:00) is the last hour of the day before
    assert weather.times[0] == datetime(2026, 5, 31, 23, tzinfo=LA)
    assert [moment.hour for moment in weather.times[1:4]] == [0, 1, 2]
    # the first light (stamped 06:00) is the hour 05:00-06:00, so production starts at 05:00
    assert next(hour.start.hour for hour in forecast if hour.ac_kw > 0) == 5
    # surplus windows follow: they now run an hour earlier than the stamps suggest
    windows = surplus_windows(forecast)
    assert windows[0][0] == datetime(2026, 6, 1, 7, tzinfo=LA)  # first surplus stamped 08:00 (400 W/m2)
    assert windows[0][1] == datetime(2026, 6, 1, 17, tzinfo=LA)  # last surplus stamped 17:00 (400 W/m2)


def test_temperature_keeps_its_end_of_hour_value() -> None:
    temperature = [10.0 + hour for hour in range(24)]
    weather = parse(open_meteo_payload("2026-06-01", JUNE_GTI, temperature))
    # the hour 12:00-13:00 carries the temperature Open-Meteo gives for 13:00, its end
    index = weather.times.index(datetime(2026, 6, 1, 12, tzinfo=LA))
    assert weather.temperature_c[index] == 23.0 and weather.tilted_w_m2[index] == 950


def test_the_shift_is_one_real_hour_across_daylight_saving() -> None:
    # 2026-03-08, spring forward in Los Angeles: local 02:00 does not exist
    payload = open_meteo_payload("2026-03-08", [0.0, 0.0, 0.0])
    payload["hourly"]["time"] = ["2026-03-08T01:00", "2026-03-08T03:00", "2026-03-08T04:00"]
    weather = parse(payload)
    assert [moment.astimezone(UTC).hour for moment in weather.times] == [8, 9, 10]
    assert [moment.strftime("%H:%M %Z") for moment in weather.times] == [
        "00:00 PST",
        "01:00 PST",
        "03:00 PDT",
    ]


def test_mock_fixture_is_still_moved_to_today() -> None:
    payload = json.loads((FIXTURES_DIR / "open_meteo_forecast.json").read_text(encoding="utf-8"))
    fetched = datetime(2026, 7, 4, 18, tzinfo=UTC)  # 11:00 in Los Angeles
    weather = parse(payload, is_mock=True, fetched_at=fetched)
    # the fixture's first stamp becomes today 00:00, i.e. the hour starting yesterday 23:00
    assert weather.times[0] == datetime(2026, 7, 3, 23, tzinfo=LA)
    assert weather.times[1] == datetime(2026, 7, 4, 0, tzinfo=LA)


# --- the model -----------------------------------------------------------------------------------


def test_losses_then_inverter_then_cap() -> None:
    assert (SYSTEM_LOSSES, INVERTER_EFFICIENCY) == (0.14, 0.96)
    # 1000 W/m2 with the cell at 25 C (air -5 C + 30 C of heating): no temperature derate
    stc = pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=1000, air_temperature_c=-5)
    assert stc == pytest.approx(6 * (1 - 0.14) * 0.96, abs=1e-3)  # 4.95 kW AC
    # the cap limits the inverter's AC OUTPUT: 5.16 kW DC x 0.96 = 4.95 kW fits under a 5 kW inverter
    assert pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=1000, air_temperature_c=-5, inverter_ac_kw=5.0) == (
        pytest.approx(4.954, abs=1e-3)
    )
    assert pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=1000, air_temperature_c=-5, inverter_ac_kw=4.5) == 4.5
    # default inverter: kWp / 1.2 = 5 kW AC
    assert pv_ac_kw(system_kw=6, tilted_irradiance_w_m2=1300, air_temperature_c=-5) == 5.0


# --- against PVWatts -----------------------------------------------------------------------------

PVWATTS = json.loads((FIXTURES_DIR / "pvwatts_v8.json").read_text(encoding="utf-8"))
DAYLIGHT = (6.0, 18.0)  # stated profile: a 12-hour, clear-sky-shaped (half-sine) day centred on noon
AIR_TEMPERATURE_C = 15.0  # stated typical air temperature for the fixture's coastal California site


def clear_sky_day(daily_wh_m2: float) -> list[float]:
    """24 hourly mean irradiances (W/m2): the exact hourly means of a half-sine over DAYLIGHT,
    scaled so the day adds up to `daily_wh_m2`."""
    sunrise, sunset = DAYLIGHT
    length = sunset - sunrise

    def integral(a: float, b: float) -> float:
        lo, hi = max(a, sunrise), min(b, sunset)
        if hi <= lo:
            return 0.0
        return (
            length
            / math.pi
            * (math.cos(math.pi * (lo - sunrise) / length) - math.cos(math.pi * (hi - sunrise) / length))
        )

    shape = [integral(hour, hour + 1) for hour in range(24)]
    return [value / sum(shape) * daily_wh_m2 for value in shape]


def modelled_annual_kwh() -> float:
    """Drive our model with the fixture's own plane-of-array irradiance: PVWatts' `solrad_annual`
    (kWh/m2/day, POA) on every day of the year, as a clear-sky-shaped day at a constant 15 C."""
    inputs = PVWATTS["inputs"]
    day = clear_sky_day(float(PVWATTS["outputs"]["solrad_annual"]) * 1000)
    start = datetime(2026, 3, 20, tzinfo=LA)
    forecast = pv_forecast(
        system_kw=float(inputs["system_capacity"]),
        times=[start + timedelta(hours=hour) for hour in range(24)],
        tilted_irradiance_w_m2=day,
        air_temperature_c=[AIR_TEMPERATURE_C] * 24,
    )
    return 365 * sum(hour.ac_kw for hour in forecast)  # hourly kW = kWh


def test_the_comparison_uses_the_fixture_system() -> None:
    inputs = PVWATTS["inputs"]
    assert (inputs["system_capacity"], inputs["tilt"], inputs["azimuth"], inputs["losses"]) == (
        "6",
        "20",
        "180",
        "14",
    )
    assert float(inputs["losses"]) == DEFAULT_LOSSES_PCT == pytest.approx(SYSTEM_LOSSES * 100)
    outputs = PVWATTS["outputs"]
    assert sum(outputs["ac_monthly"]) == pytest.approx(outputs["ac_annual"])
    day = clear_sky_day(outputs["solrad_annual"] * 1000)
    assert sum(day) == pytest.approx(4900) and max(day) < 700  # no inverter clipping in this comparison
    # measured (not fitted): 8,681 kWh against PVWatts' 8,190 kWh, +6.0 %
    assert modelled_annual_kwh() == pytest.approx(8681, abs=1)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "measured +6.0 % (8,681 vs 8,190 kWh). Our model has no angle-of-incidence (cover reflection)"
        " loss, which PVWatts takes after the plane-of-array irradiance it reports as solrad, and a simpler"
        " cell-temperature model; the result moves with the stated day shape and temperature (+3.8 % at"
        " 20 C, +8.2 % at 10 C);"
        " and the fixture is synthetic, not a recorded PVWatts answer. Constants are not tuned to close it."
    ),
)
def test_annual_output_within_5_percent_of_pvwatts() -> None:
    pvwatts_kwh = float(PVWATTS["outputs"]["ac_annual"])
    assert modelled_annual_kwh() == pytest.approx(pvwatts_kwh, rel=0.05)
