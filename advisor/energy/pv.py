"""Solar PV: forecast from tilted irradiance, and the hours with a surplus over household load."""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

TEMPERATURE_COEFFICIENT_PER_C = -0.004  # typical crystalline silicon, per degree C above 25
CELL_HEATING_C_PER_W_M2 = 0.03  # cell temperature rise over air per W/m2 of irradiance
DEFAULT_SYSTEM_EFFICIENCY = 0.86  # wiring, soiling, mismatch, inverter (PVWatts-like 14 % losses)
DEFAULT_DC_AC_RATIO = 1.2


class PvHour(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: datetime
    ac_kw: float
    irradiance_w_m2: float
    temperature_c: float


def pv_ac_kw(
    *,
    system_kw: float,
    tilted_irradiance_w_m2: float,
    air_temperature_c: float,
    system_efficiency: float = DEFAULT_SYSTEM_EFFICIENCY,
    inverter_ac_kw: float | None = None,
) -> float:
    """kWp x GTI/1000 x temperature derate x system efficiency, capped by the inverter's AC rating."""
    if system_kw <= 0:
        raise ValueError("system_kw must be positive")
    irradiance = max(0.0, tilted_irradiance_w_m2)
    cell_c = air_temperature_c + CELL_HEATING_C_PER_W_M2 * irradiance
    derate = max(0.0, 1 + TEMPERATURE_COEFFICIENT_PER_C * (cell_c - 25))
    dc_kw = system_kw * irradiance / 1000 * derate * system_efficiency
    cap = inverter_ac_kw if inverter_ac_kw is not None else system_kw / DEFAULT_DC_AC_RATIO
    return round(min(dc_kw, cap), 4)


def pv_forecast(
    *,
    system_kw: float,
    times: list[datetime],
    tilted_irradiance_w_m2: list[float],
    air_temperature_c: list[float],
    inverter_ac_kw: float | None = None,
) -> list[PvHour]:
    if not len(times) == len(tilted_irradiance_w_m2) == len(air_temperature_c):
        raise ValueError("times, irradiance and temperature must have the same length")
    return [
        PvHour(
            start=moment,
            ac_kw=pv_ac_kw(
                system_kw=system_kw,
                tilted_irradiance_w_m2=gti,
                air_temperature_c=temp,
                inverter_ac_kw=inverter_ac_kw,
            ),
            irradiance_w_m2=gti,
            temperature_c=temp,
        )
        for moment, gti, temp in zip(times, tilted_irradiance_w_m2, air_temperature_c, strict=True)
    ]


def surplus_windows(
    forecast: list[PvHour], *, household_load_kw: float = 0.5, min_surplus_kw: float = 0.5
) -> list[tuple[datetime, datetime, float]]:
    """Contiguous hourly runs where PV exceeds the household load by `min_surplus_kw`:
    (start, end, surplus kWh)."""
    windows: list[tuple[datetime, datetime, float]] = []
    for hour in forecast:
        surplus = hour.ac_kw - household_load_kw
        if surplus < min_surplus_kw:
            continue
        end = hour.start + timedelta(hours=1)
        if windows and windows[-1][1] == hour.start:
            first, _, kwh = windows[-1]
            windows[-1] = (first, end, round(kwh + surplus, 3))
        else:
            windows.append((hour.start, end, round(surplus, 3)))
    return windows
