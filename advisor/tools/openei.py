"""OpenEI Utility Rate Database: the tariff a user's plan name refers to, near their location."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from advisor.energy.tariff import Tariff, TariffError, tariff_from_urdb
from advisor.energy.utilities import find_utility, utility_named
from advisor.tools.http import ApiClient, ApiError, ApiResult

URDB_VIEW_URL = "https://apps.openei.org/USURDB/rate/view/"


class OpenEiClient:
    def __init__(self, api: ApiClient) -> None:
        self._api = api

    def find_tariff(
        self, *, plan: str | None, lat: float, lon: float, utility: str | None = None
    ) -> tuple[Tariff, ApiResult]:
        """The newest approved residential tariff near the location named like `plan`; without a
        plan, the utility's own residential tariff there (a standard one before optional ones)."""
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
        priced = [item for item in items if isinstance(item, dict) and item.get("energyratestructure")]
        if plan:
            wanted = _squash(plan)
            matches = [item for item in priced if wanted and wanted in _squash(str(item.get("name", "")))]
        else:
            matches = [item for item in priced if _same_utility(utility, str(item.get("utility", "")))]
            standard = [item for item in matches if _STANDARD.search(str(item.get("name", "")))]
            matches = standard or matches
        if not matches:
            raise ApiError("openei", f"no residential tariff named like {plan or utility} near this location")
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


# Without a plan name, a utility's standard residential tariff is the best guess (not an optional one).
_STANDARD = re.compile(r"\b(?:standard|general|basic|residential\s+service|schedule\s+r\b|rs\b|e-?1\b)", re.I)


def _same_utility(ours: str | None, theirs: str) -> bool:
    """'PG&E' and OpenEI's 'Pacific Gas & Electric Co' are the same utility (by the utility table)."""
    if not ours or not theirs:
        return False
    known, named = utility_named(ours), find_utility(theirs, answer=True)
    if known is not None and named is not None:
        return known.name == named[0].name
    return _squash(ours)[:8] in _squash(theirs)


def _squash(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())
