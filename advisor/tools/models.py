"""Tool response models (spec 000) and the observation every tool returns to the analyzer."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from profiles.models import UtcDatetime


class WeatherForecast(BaseModel):
    location: dict[str, Any]
    current: dict[str, Any] | None = None
    forecast: list[dict[str, Any]]
    solar_hours: float | None = None
    timestamp: UtcDatetime


class RatePeriod(BaseModel):
    name: str  # off_peak, partial_peak, peak, super_off_peak
    start_hour: int = Field(ge=0, le=23)
    end_hour: int = Field(ge=0, le=24)
    rate_kwh: float = Field(gt=0)
    days: list[Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]]


class RateSchedule(BaseModel):
    utility_name: str
    schedule_name: str
    periods: list[RatePeriod]
    effective_date: date


class SolarEstimate(BaseModel):
    system_capacity_kw: float
    ac_annual_kwh: float
    monthly_kwh: list[float]
    solrad_annual: float
    capacity_factor: float | None = None


class Observation(BaseModel):
    """What a tool found, as numbers with units and where they came from.

    `summary` is one short paragraph for the answer; `facts` the numbers behind it.
    `warnings` carry disclaimers the answer must repeat (fallback data, plan mismatch).
    `comparable` is set by tools that compare two options: True when both deliver the same energy
    (or serve the same usage), so a saving between them may be stated; False when they do not (an
    EV plan that cannot finish by the deadline), so no saving may be stated; None when the tool
    compares nothing. The claims grader checks every "saves $X" in an answer against it.
    """

    model_config = ConfigDict(extra="forbid")

    tool: str
    ok: bool = True
    summary: str
    facts: dict[str, Any] = Field(default_factory=dict)
    source: str
    as_of: UtcDatetime
    is_mock: bool = False
    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    credit: str | None = None
    comparable: bool | None = None


# --- what each data API must answer (issue 12, item 7) ---------------------------------------
# Checked before an answer is used or cached: NaN, text where a number belongs, a missing key or
# ragged arrays become an ApiError ("... did not match the expected shape: <where>: <what>"), so
# the tool falls back like on any API failure and says so. Unknown extra keys are allowed (APIs
# add fields); numbers must be real JSON numbers (no "12.5" strings, no booleans) and finite.

Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Amount = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class OpenMeteoHourly(_Answer):
    """Hourly arrays of one length; None is Open-Meteo's 'no value' (read as 0 later)."""

    time: list[str] = Field(min_length=1)
    temperature_2m: list[Number | None]
    cloud_cover: list[Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0, le=100)] | None]
    shortwave_radiation: list[Amount | None]
    global_tilted_irradiance: list[Amount | None]

    @field_validator("time")
    @classmethod
    def _iso_times(cls, values: list[str]) -> list[str]:
        for index, text in enumerate(values):
            try:
                datetime.fromisoformat(text)
            except (TypeError, ValueError):
                raise ValueError(f"item {index} is not an ISO date-time") from None
        return values

    @model_validator(mode="after")
    def _same_lengths(self) -> OpenMeteoHourly:
        lengths = {
            name: len(getattr(self, name))
            for name in ("temperature_2m", "cloud_cover", "shortwave_radiation", "global_tilted_irradiance")
        }
        ragged = [f"{name} has {count}" for name, count in lengths.items() if count != len(self.time)]
        if ragged:
            raise ValueError(f"arrays of different lengths: time has {len(self.time)}, " + ", ".join(ragged))
        return self


class OpenMeteoForecastAnswer(_Answer):
    timezone: str
    hourly: OpenMeteoHourly

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("not a known time zone") from None
        return value


class GeocodingPlace(_Answer):
    """One geocoding result; a result that does not fit is skipped, not the whole answer."""

    name: str = Field(min_length=1)
    latitude: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-90, le=90)]
    longitude: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-180, le=180)]
    timezone: str | None = None
    admin1: str | None = None
    postcodes: list[str | int] = Field(default_factory=list)


class GeocodingAnswer(_Answer):
    results: list[Any] | None = None  # absent: nothing found


class PvWattsOutputs(_Answer):
    ac_annual: Amount
    ac_monthly: list[Amount] = Field(min_length=12, max_length=12)
    solrad_annual: Amount
    capacity_factor: Amount | None = None


class PvWattsAnswer(_Answer):
    outputs: PvWattsOutputs
    errors: list[Any] = Field(default_factory=list)


class OpenEiAnswer(_Answer):
    """The list of rate items; each item is checked (and skipped when unusable) while matching."""

    items: list[Any]
