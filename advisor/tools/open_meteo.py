"""Open-Meteo: hourly weather and irradiance (no key; credit required, CC BY 4.0), and geocoding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, ValidationError

from advisor.tools.http import ApiClient, ApiError, ApiResult, shape_check
from advisor.tools.models import GeocodingAnswer, GeocodingPlace, OpenMeteoForecastAnswer

OPEN_METEO_CREDIT = "Weather data by Open-Meteo.com (CC BY 4.0)"
HOURLY_FIELDS = "temperature_2m,cloud_cover,shortwave_radiation,global_tilted_irradiance"


class HourlyWeather(BaseModel):
    """Hour i runs from `times[i]` to `times[i] + 1 h`: the radiation columns are the mean over that
    hour; temperature and cloud cover are Open-Meteo's instantaneous values at its end (see
    `_parse_hourly`)."""

    model_config = ConfigDict(frozen=True)

    timezone: str
    times: list[datetime]  # START of each hour, local, timezone-aware
    temperature_c: list[float]  # at the end of the hour
    cloud_cover_pct: list[float]  # at the end of the hour
    shortwave_w_m2: list[float]  # mean over the hour
    tilted_w_m2: list[float]  # mean over the hour (plane of array)


class Place(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    lat: float
    lon: float
    timezone: str | None = None
    region: str | None = None
    postcodes: list[str] = []


def open_meteo_azimuth(compass_deg: float) -> float:
    """Compass azimuth (180 = south) to Open-Meteo's convention (0 = south, -90 = east, 90 = west)."""
    value = (compass_deg - 180) % 360
    return value - 360 if value > 180 else value


class OpenMeteoClient:
    def __init__(self, forecast_api: ApiClient, geocoding_api: ApiClient) -> None:
        self._forecast = forecast_api
        self._geocoding = geocoding_api

    def hourly_forecast(
        self, *, lat: float, lon: float, tilt_deg: float = 20, azimuth_compass_deg: float = 180, days: int = 2
    ) -> tuple[HourlyWeather, ApiResult]:
        result = self._forecast.get_json(
            "/forecast",
            {
                "latitude": round(lat, 4),
                "longitude": round(lon, 4),
                "hourly": HOURLY_FIELDS,
                "tilt": tilt_deg,
                "azimuth": open_meteo_azimuth(azimuth_compass_deg),
                "timezone": "auto",
                "forecast_days": days,
            },
            fixture="open_meteo_forecast",
            validate=shape_check(
                OpenMeteoForecastAnswer, "open-meteo", "unexpected forecast shape: the response"
            ),
        )
        weather = _parse_hourly(result, redate=result.is_mock)
        return (_repeated(weather, days) if result.is_mock else weather), result

    def geocode(self, query: str, *, country_code: str = "US") -> Place | None:
        result = self._geocoding.get_json(
            "/search",
            {"name": query, "count": 1, "language": "en", "format": "json", "countryCode": country_code},
            fixture="open_meteo_geocoding",
            validate=shape_check(GeocodingAnswer, "open-meteo-geocoding"),
        )
        for item in GeocodingAnswer.model_validate(result.data).results or []:
            if not _matches(query, item):
                continue  # a search returns its nearest names: never take another place for this one
            try:
                found = GeocodingPlace.model_validate(item)
            except ValidationError:
                continue  # a result that does not fit (NaN, text for a number) is skipped
            return Place(
                name=found.name,
                lat=found.latitude,
                lon=found.longitude,
                timezone=found.timezone,
                region=found.admin1,
                postcodes=[str(code) for code in found.postcodes],
            )
        return None


def _matches(query: str, item: Any) -> bool:
    """A ZIP must be among the result's postcodes; a name must be the result's name."""
    if not isinstance(item, dict):
        return False
    wanted = query.strip().lower()
    if wanted.isdigit():
        codes = item.get("postcodes")
        return isinstance(codes, list) and wanted in [str(code) for code in codes]
    name = wanted.split(",")[0].strip()
    return str(item.get("name", "")).strip().lower() == name


def _repeated(weather: HourlyWeather, days: int) -> HourlyWeather:
    """Mock mode's fixture holds two days: a request for more repeats them, day after day, so a
    question about Saturday is answered from sample data (labelled as such) rather than refused."""
    held = len(weather.times) // 24
    if held == 0 or days <= held:
        return weather
    count = days * 24
    zone = ZoneInfo(weather.timezone)

    def later(moment: datetime, index: int) -> datetime:
        naive = moment.replace(tzinfo=None) + timedelta(days=(index // len(weather.times)) * held)
        return naive.replace(tzinfo=zone)

    def cycle(values: list[float]) -> list[float]:
        return [values[i % len(values)] for i in range(count)]

    return HourlyWeather(
        timezone=weather.timezone,
        times=[later(weather.times[i % len(weather.times)], i) for i in range(count)],
        temperature_c=cycle(weather.temperature_c),
        cloud_cover_pct=cycle(weather.cloud_cover_pct),
        shortwave_w_m2=cycle(weather.shortwave_w_m2),
        tilted_w_m2=cycle(weather.tilted_w_m2),
    )


def _parse_hourly(result: ApiResult, *, redate: bool) -> HourlyWeather:
    """Turn Open-Meteo's hourly arrays into hours that START at `times[i]`.

    Open-Meteo's hourly radiation values (`shortwave_radiation`, `global_tilted_irradiance`) are the
    mean over the PRECEDING hour: "Solar radiation is averaged over the past hour. Use instant for
    radiation at the indicated time." (https://open-meteo.com/en/docs/satellite-radiation-api; the
    `_instant` variants are the exception). A value stamped 13:00 is the sunshine of 12:00-13:00, so
    every stamp moves back one hour here, the one place the response becomes hourly values; PV
    hours, surplus windows and the sunniest hour then fall in the right hour. The shift is done in
    UTC, so a daylight-saving change cannot make it two hours or none.

    Temperature and cloud cover are instantaneous at the stamp, i.e. at the END of the hour. They are
    kept as they are rather than averaged with the previous stamp: within one hour the air
    temperature moves by a degree or two at most (under 1 % of PV output at -0.4 %/degree), and the
    first hour has no earlier value to average with.
    """
    data = result.data
    try:
        zone_name = str(data["timezone"])
        zone = ZoneInfo(zone_name)
        hourly = data["hourly"]
        raw_times = [datetime.fromisoformat(text) for text in hourly["time"]]
        columns = [hourly[name] for name in HOURLY_FIELDS.split(",")]
    except (KeyError, TypeError, ValueError, ZoneInfoNotFoundError) as exc:
        raise ApiError("open-meteo", f"unexpected forecast shape ({type(exc).__name__}: {exc})") from None
    times = [moment.replace(tzinfo=zone) if moment.tzinfo is None else moment for moment in raw_times]
    if redate and times:
        # Mock fixtures are from a fixed day: move them to the client clock's today.
        today = result.fetched_at.astimezone(zone).date()
        shift = timedelta(days=(today - times[0].date()).days)
        times = [(moment.replace(tzinfo=None) + shift).replace(tzinfo=zone) for moment in times]
    try:
        times = [(moment.astimezone(UTC) - timedelta(hours=1)).astimezone(zone) for moment in times]
    except (OverflowError, ValueError) as exc:  # "0001-01-01T00:00" east of UTC
        raise ApiError("open-meteo", f"forecast times out of range ({type(exc).__name__})") from None
    if any(len(column) != len(times) for column in columns):
        raise ApiError("open-meteo", "hourly arrays have different lengths")
    temperature, clouds, shortwave, tilted = (
        [0.0 if v is None else float(v) for v in col] for col in columns
    )
    return HourlyWeather(
        timezone=zone_name,
        times=times,
        temperature_c=temperature,
        cloud_cover_pct=clouds,
        shortwave_w_m2=shortwave,
        tilted_w_m2=tilted,
    )
