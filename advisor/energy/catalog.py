"""Built-in, dated tariff catalog for offline use and as a fallback when OpenEI is unavailable.

Periods and seasons follow the utilities' published plan descriptions (see each `source`).
The $/kWh figures are ILLUSTRATIVE (typical 2025 levels, not verified against the current
tariff sheets): every answer that uses them says so, and a live OpenEI lookup replaces them.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any

from advisor.energy.tariff import Tariff, tariff_from_urdb

CATALOG_AS_OF = date(2025, 10, 1)

_PGE_TOU_SOURCE = "https://www.pge.com/en/account/rate-plans/find-your-best-rate-plan.html"
_SDGE_EV_SOURCE = (
    "https://www.sdge.com/residential/pricing-plans/about-our-pricing-plans/electric-vehicle-plans"
)

# (utility, plan) -> description of seasons, hourly periods and illustrative prices.
_PLANS: dict[tuple[str, str], dict[str, Any]] = {
    ("PG&E", "E-TOU-C"): {
        "source": _PGE_TOU_SOURCE,
        "summer_months": {6, 7, 8, 9},
        # peak 4-9 pm every day; everything else off-peak
        "weekday": {"peak": range(16, 21)},
        "weekend": {"peak": range(16, 21)},
        "prices": {"summer": {"peak": 0.60, "off_peak": 0.50}, "winter": {"peak": 0.49, "off_peak": 0.46}},
        "notes": ["Default PG&E time-of-use plan: peak 4-9 pm every day."],
    },
    ("PG&E", "EV2-A"): {
        "source": _PGE_TOU_SOURCE,
        "summer_months": {6, 7, 8, 9},
        # peak 4-9 pm, partial peak 3-4 pm and 9 pm-midnight, off-peak midnight-3 pm, every day
        "weekday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "weekend": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "prices": {
            "summer": {"peak": 0.62, "partial_peak": 0.51, "off_peak": 0.31},
            "winter": {"peak": 0.49, "partial_peak": 0.47, "off_peak": 0.31},
        },
        "notes": ["PG&E plan for EV owners: cheapest from midnight to 3 pm every day."],
    },
    ("PG&E", "E-ELEC"): {
        "source": _PGE_TOU_SOURCE,
        "summer_months": {6, 7, 8, 9},
        "weekday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "weekend": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "prices": {
            "summer": {"peak": 0.60, "partial_peak": 0.44, "off_peak": 0.38},
            "winter": {"peak": 0.37, "partial_peak": 0.35, "off_peak": 0.33},
        },
        "notes": ["PG&E plan for electrified homes (EV, heat pump, battery); has a fixed monthly charge."],
    },
    ("SDG&E", "EV-TOU-5"): {
        "source": _SDGE_EV_SOURCE,
        "summer_months": {6, 7, 8, 9, 10},
        # on-peak 4-9 pm daily; super off-peak midnight-6 am daily and 10 am-2 pm on weekends
        # (and on March/April weekdays, handled below); off-peak otherwise
        "weekday": {"peak": range(16, 21), "super_off_peak": range(0, 6)},
        "weekend": {"peak": range(16, 21), "super_off_peak": [*range(0, 6), *range(10, 14)]},
        "spring_weekday_super_off_peak": {3, 4},
        "prices": {
            "summer": {"peak": 0.78, "off_peak": 0.50, "super_off_peak": 0.12},
            "winter": {"peak": 0.52, "off_peak": 0.47, "super_off_peak": 0.12},
        },
        "notes": ["SDG&E plan for EV owners: super off-peak midnight-6 am every day."],
    },
}

_ALIASES = {
    "PGE": "PG&E",
    "PG&E": "PG&E",
    "PACIFICGASANDELECTRIC": "PG&E",
    "PACIFICGAS&ELECTRIC": "PG&E",
    "SDGE": "SDG&E",
    "SDG&E": "SDG&E",
    "SANDIEGOGASANDELECTRIC": "SDG&E",
    "SANDIEGOGAS&ELECTRIC": "SDG&E",
}


def normalize_utility(text: str) -> str | None:
    """'pge', 'PG&E', 'Pacific Gas and Electric' -> 'PG&E'; unknown -> None."""
    key = "".join(ch for ch in text.upper() if ch.isalnum() or ch == "&")
    return _ALIASES.get(key)


def normalize_plan(text: str) -> str | None:
    """'ev2a', 'EV2-A', 'e tou c' -> the catalog's plan name; unknown -> None."""
    squashed = "".join(ch for ch in text.upper() if ch.isalnum())
    for _, plan in _PLANS:
        if squashed == "".join(ch for ch in plan if ch.isalnum()):
            return plan
    return None


def plans_of(utility: str) -> list[str]:
    return [plan for owner, plan in _PLANS if owner == utility]


def utility_of_plan(plan: str) -> str | None:
    return next((owner for owner, name in _PLANS if name == plan), None)


def known_utilities() -> list[str]:
    return sorted({owner for owner, _ in _PLANS})


@lru_cache(maxsize=64)
def catalog_tariff(utility: str, plan: str) -> Tariff | None:
    """The catalog tariff for a plan, or None. The plan name decides (see `utility_of_plan`)."""
    spec = _PLANS.get((utility, plan))
    if spec is None:
        return None
    return tariff_from_urdb(
        _to_urdb(utility, plan, spec),
        source=spec["source"],
        as_of=CATALOG_AS_OF,
        illustrative=True,
    ).model_copy(update={"notes": spec["notes"]})


def _to_urdb(utility: str, plan: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Express a plan description as a URDB item (periods + 12x24 schedules) with named periods."""
    index: dict[tuple[str, str], int] = {}
    structure: list[list[dict[str, Any]]] = []
    for season in ("summer", "winter"):
        for name, price in spec["prices"][season].items():
            index[(season, name)] = len(structure)
            structure.append([{"rate": price, "unit": "kWh"}])
    default = "off_peak"

    def row(month: int, weekend: bool) -> list[int]:
        season = "summer" if month in spec["summer_months"] else "winter"
        rules = dict(spec["weekend" if weekend else "weekday"])
        if not weekend and month in spec.get("spring_weekday_super_off_peak", set()):
            rules = spec["weekend"]
        hours = [default] * 24
        for name, covered in rules.items():
            for hour in covered:
                hours[hour] = name
        return [index[(season, name)] for name in hours]

    return {
        "utility": utility,
        "name": plan,
        "energyratestructure": structure,
        "energyweekdayschedule": [row(month, weekend=False) for month in range(1, 13)],
        "energyweekendschedule": [row(month, weekend=True) for month in range(1, 13)],
        "period_names": [name for (_season, name) in index],
    }
