"""NREL PVWatts v8: typical-year production of a PV system (key required; DEMO_KEY is rate-limited)."""

from __future__ import annotations

from advisor.energy.pv import SYSTEM_LOSSES
from advisor.tools.http import ApiClient, ApiError, ApiResult
from advisor.tools.models import SolarEstimate

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
            validate=_check_errors,
        )
        data = result.data
        try:
            outputs = data["outputs"]
            estimate = SolarEstimate(
                system_capacity_kw=system_kw,
                ac_annual_kwh=float(outputs["ac_annual"]),
                monthly_kwh=[float(value) for value in outputs["ac_monthly"]],
                solrad_annual=float(outputs["solrad_annual"]),
                capacity_factor=float(outputs["capacity_factor"])
                if outputs.get("capacity_factor") is not None
                else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ApiError("pvwatts", f"unexpected response shape ({type(exc).__name__})") from None
        if len(estimate.monthly_kwh) != 12:
            raise ApiError("pvwatts", "ac_monthly does not have 12 months")
        return estimate, result


def _check_errors(data: object) -> None:
    if not isinstance(data, dict):
        raise ApiError("pvwatts", "response is not a JSON object")
    if data.get("errors"):
        raise ApiError("pvwatts", "; ".join(str(error) for error in data["errors"])[:200])
