"""OpenEI Utility Rate Database: the tariff a user's plan name refers to, near their location."""

from __future__ import annotations

from datetime import datetime, timezone

from advisor.energy.tariff import Tariff, TariffError, tariff_from_urdb
from advisor.tools.http import ApiClient, ApiError, ApiResult

URDB_VIEW_URL = "https://apps.openei.org/USURDB/rate/view/"


class OpenEiClient:
    def __init__(self, api: ApiClient) -> None:
        self._api = api

    def find_tariff(self, *, plan: str, lat: float, lon: float) -> tuple[Tariff, ApiResult]:
        result = self._api.get_json(
            "",
            {
                "version": "latest",
                "format": "json",
                "detail": "full",
                "sector": "Residential",
                "approved": "true",
                "lat": round(lat, 3),
                "lon": round(lon, 3),
            },
            fixture="openei_rates",
        )
        items = result.data.get("items") if isinstance(result.data, dict) else None
        if not isinstance(items, list):
            raise ApiError("openei", "response has no items list")
        wanted = _squash(plan)
        matches = [
            item
            for item in items
            if isinstance(item, dict)
            and wanted
            and wanted in _squash(str(item.get("name", "")))
            and item.get("energyratestructure")
        ]
        if not matches:
            raise ApiError("openei", f"no residential tariff named like {plan} near this location")
        newest = max(matches, key=lambda item: item.get("startdate") or 0)
        start = newest.get("startdate")
        as_of = (
            datetime.fromtimestamp(start, timezone.utc).date()
            if isinstance(start, (int, float))
            else result.fetched_at.date()
        )
        try:
            tariff = tariff_from_urdb(
                newest, source=URDB_VIEW_URL + str(newest.get("label", "")), as_of=as_of
            )
        except (TariffError, ValueError) as exc:
            raise ApiError("openei", f"tariff cannot be priced: {exc}") from None
        return tariff, result


def _squash(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())
