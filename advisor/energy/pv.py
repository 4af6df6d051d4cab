"""Solar PV: hourly AC output from plane-of-array irradiance, and the hours with a surplus over
household load.

The model follows NREL PVWatts v8's defaults, where the 14 % "system losses" are DC-side losses
(soiling, shading, snow, mismatch, wiring, connections, light-induced degradation, nameplate rating,
age, availability) and EXCLUDE the inverter, which is a separate `inv_eff` of 96 % at rated power
with `dc_ac_ratio` 1.2:

    dc_kw = kWp x POA/1000 x temperature derate x (1 - SYSTEM_LOSSES)
    ac_kw = min(dc_kw x INVERTER_EFFICIENCY, inverter AC rating)

Sources: PVWatts V8 API, https://developer.nrel.gov/docs/solar/pvwatts/v8/ (losses, inv_eff 96,
dc_ac_ratio 1.2) and the PVWatts Version 5 Manual, https://www.nrel.gov/docs/fy14osti/62641.pdf
(what the 14 % covers; the inverter model with its 96 % nominal efficiency). Simplifications
against PVWatts: one nominal inverter efficiency instead of its part-load curve, a linear cell
heating model, and no angle-of-incidence (cover reflection) loss.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

TEMPERATURE_COEFFICIENT_PER_C = -0.004  # typical crystalline silicon, per degree C above 25
CELL_HEATING_C_PER_W_M2 = 0.03  # cell temperature rise over air per W/m2 of irradiance
SYSTEM_LOSSES = 0.14  # PVWatts' default DC losses; the inverter is NOT included
INVERTER_EFFICIENCY = 0.96  # PVWatts v8 default `inv_eff` (nominal, at rated power)
DEFAULT_DC_AC_RATIO = 1.2  # PVWatts v8 default `dc_ac_ratio`: inverter AC rating = kWp / 1.2


class PvHour(BaseModel):
    """One hour of PV output: `start` is the beginning of the hour that `irradiance_w_m2` averages."""

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
    system_losses: float = SYSTEM_LOSSES,
    inverter_efficiency: float = INVERTER_EFFICIENCY,
    inverter_ac_kw: float | None = None,
) -> float:
    """kWp x POA/1000 x temperature derate x (1 - system losses) = DC; x inverter efficiency = AC,
    capped by the inverter's AC rating (kWp / 1.2 unless given)."""
    if system_kw <= 0:
        raise ValueError("system_kw must be positive")
    irradiance = max(0.0, tilted_irradiance_w_m2)
    cell_c = air_temperature_c + CELL_HEATING_C_PER_W_M2 * irradiance
    derate = max(0.0, 1 + TEMPERATURE_COEFFICIENT_PER_C * (cell_c - 25))
    dc_kw = system_kw * irradiance / 1000 * derate * (1 - system_losses)
    cap = inverter_ac_kw if inverter_ac_kw is not None else system_kw / DEFAULT_DC_AC_RATIO
    return round(min(dc_kw * inverter_efficiency, cap), 4)


def pv_forecast(
    *,
    system_kw: float,
    times: list[datetime],
    tilted_irradiance_w_m2: list[float],
    air_temperature_c: list[float],
    inverter_ac_kw: float | None = None,
) -> list[PvHour]:
    """One PvHour per entry: `times` are hour STARTS and the irradiance the mean over that hour
    (Open-Meteo's end-of-hour stamps are converted in `advisor.tools.open_meteo`)."""
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
