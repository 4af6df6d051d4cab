"""NREL PVWatts v8: typical-year production of a PV system (key required; DEMO_KEY is rate-limited)."""

from __future__ import annotations

from typing import Any

from advisor.energy.pv import SYSTEM_LOSSES
from advisor.tools.http import ApiClient, ApiError, ApiResult, shape_check
from advisor.tools.models import PvWattsAnswer, SolarEstimate

# The same 14 % DC losses as the hourly model (advisor/energy/pv.py); the inverter is not in them,
# PVWatts applies its default `inv_eff` of 96 % and `dc_ac_ratio` of 1.2, as the hourly model does.
DEFAULT_LOSSES_PCT = round(SYSTEM_LOSSES * 100)


class PvWattsClient:
    def __init__(self, api: ApiClient) -> None:
        self._api = api

    def typical_production(
        self,
        *,
        system_kw: float,
        lat: float,
        lon: float,
        tilt_deg: float = 20,
        azimuth_compass_deg: float = 180,
    ) -> tuple[SolarEstimate, ApiResult]:
        result = self._api.get_json(
            ".json",
            {
                "system_capacity": system_kw,
                "lat": round(lat, 4),
                "lon": round(lon, 4),
                "tilt": tilt_deg,
                "azimuth": azimuth_compass_deg,  # PVWatts uses compass degrees (180 = south)
                "array_type": 1,  # fixed, roof-mounted
                "module_type": 0,
                "losses": DEFAULT_LOSSES_PCT,
            },
            fixture="pvwatts_v8",
            validate=_check_answer,
        )
        outputs = PvWattsAnswer.model_validate(result.data).outputs  # checked before caching
        # The mock fixture is one recorded answer for its own system size; output is proportional to
        # capacity at the same site and losses, so a 9 kW question is not told a 6 kW system's kWh.
        scale = (
            system_kw / recorded if result.is_mock and (recorded := _recorded_capacity(result.data)) else 1.0
        )
        estimate = SolarEstimate(
            system_capacity_kw=system_kw,
            ac_annual_kwh=outputs.ac_annual * scale,
            monthly_kwh=[month * scale for month in outputs.ac_monthly],
            solrad_annual=outputs.solrad_annual,
            capacity_factor=outputs.capacity_factor,
        )
        return estimate, result


_check_shape = shape_check(PvWattsAnswer, "pvwatts")


def _recorded_capacity(data: Any) -> float | None:
    """The system size a recorded answer was asked for (its `inputs.system_capacity`)."""
    inputs = data.get("inputs") if isinstance(data, dict) else None
    try:
        value = float(inputs.get("system_capacity")) if isinstance(inputs, dict) else None
    except (TypeError, ValueError):
        return None
    return value if value and value > 0 else None


def _check_answer(data: Any) -> None:
    """PVWatts' own error list first (it says what was wrong), then the shape: finite, non-negative
    kWh, twelve months (a "NaN" would otherwise become "about nan kWh in a typical year")."""
    errors = data.get("errors") if isinstance(data, dict) else None
    if errors:
        listed = errors if isinstance(errors, list) else [errors]
        raise ApiError("pvwatts", "; ".join(str(error) for error in listed)[:200])
    _check_shape(data)
