"""Tool response models (spec 000) and the observation every tool returns to the analyzer."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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
