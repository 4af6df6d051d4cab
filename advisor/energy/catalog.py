"""Built-in, dated tariff catalog for offline use and as a fallback when OpenEI is unavailable.

Each plan records where its rules come from, when they took effect and how its prices were
obtained. Time periods, seasons and weekend/holiday rules follow the utilities' published plan
pages (cited per plan); fixed charges are cited per charge (PG&E's from PG&E's page; SDG&E's is a
customers' report, said as such in its note). The $/kWh figures are ILLUSTRATIVE: this project cannot
read the utilities' tariff sheets from where it is built, so every answer that uses them says
so, and a live OpenEI lookup replaces them. `price_basis` says exactly how each set was made.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any

from advisor.energy.tariff import FixedCharge, Tariff, tariff_from_urdb

# The date the catalog's illustrative price levels describe (the newest plan's figures).
CATALOG_AS_OF = date(2026, 3, 1)

_PGE_PLANS_SOURCE = "https://www.pge.com/en/account/rate-plans/find-your-best-rate-plan.html"
_PGE_EV_SOURCE = "https://www.pge.com/en/account/rate-plans/electric-vehicles.html"
_PGE_BSC_SOURCE = "https://www.pge.com/en/account/billing-and-assistance/base-services-charge.html"
_SDGE_EV_SOURCE = (
    "https://www.sdge.com/residential/pricing-plans/about-our-pricing-plans/electric-vehicle-plans"
)
_SDGE_TOU_SOURCE = "https://www.sdge.com/whenmatters"
_SDGE_FIXED_SOURCE = (
    "https://www.reddit.com/r/sandiego/ (customers' reading of SDG&E's 2026 rate advice letter)"
)

_PGE_PRICE_BASIS = (
    "PG&E's typical 2025 price levels less 6¢/kWh, the middle of the 5-7¢ average cut reported with the "
    "Base Services Charge that started with March 2026 bills; an estimate, not the tariff sheet"
)
_PGE_BSC = FixedCharge(
    name="Base Services Charge",
    usd_per_month=24.0,
    source=_PGE_BSC_SOURCE,
    note="about $24 a month for most customers ($12 FERA, $6 CARE), from March 2026 bills",
)
_LABELS = {
    "peak": "Peak",
    "partial_peak": "Partial-Peak",
    "off_peak": "Off-Peak",
    "super_off_peak": "Super Off-Peak",
}

# (utility, plan) -> seasons, hourly periods per day type, fixed charges and illustrative prices.
# Day types: "weekday" and "weekend_holiday" (weekends and the utility's tariff holidays);
# "weekday_by_month" adds windows to the weekday table in the named months only.
_PLANS: dict[tuple[str, str], dict[str, Any]] = {
    ("PG&E", "E-TOU-C"): {
        "sources": [_PGE_PLANS_SOURCE],
        "effective": date(2026, 3, 1),
        "summer_months": {6, 7, 8, 9},
        # Peak 4-9 pm every day, holidays included; every other hour off-peak.
        "weekday": {"peak": range(16, 21)},
        "weekend_holiday": {"peak": range(16, 21)},
        "prices": {"summer": {"peak": 0.54, "off_peak": 0.44}, "winter": {"peak": 0.43, "off_peak": 0.40}},
        "price_basis": _PGE_PRICE_BASIS,
        "fixed_charges": [_PGE_BSC],
        "notes": [
            "Default PG&E time-of-use plan: peak 4-9 pm every day.",
            "E-TOU-C also has a baseline credit for use within your baseline allowance, not included here.",
        ],
    },
    ("PG&E", "EV2-A"): {
        "sources": [_PGE_EV_SOURCE, _PGE_PLANS_SOURCE],
        "effective": date(2026, 3, 1),
        "summer_months": {6, 7, 8, 9},
        # The same every day, weekends and holidays included: peak 4-9 pm, partial peak 3-4 pm
        # and 9 pm-midnight, off-peak midnight-3 pm.
        "weekday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "weekend_holiday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "prices": {
            "summer": {"peak": 0.56, "partial_peak": 0.45, "off_peak": 0.25},
            "winter": {"peak": 0.43, "partial_peak": 0.41, "off_peak": 0.25},
        },
        "price_basis": _PGE_PRICE_BASIS,
        "fixed_charges": [_PGE_BSC],
        "notes": ["PG&E plan for EV owners: cheapest from midnight to 3 pm every day."],
    },
    ("PG&E", "E-ELEC"): {
        "sources": [_PGE_EV_SOURCE, _PGE_PLANS_SOURCE],
        "effective": date(2026, 3, 1),
        "summer_months": {6, 7, 8, 9},
        "weekday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "weekend_holiday": {"peak": range(16, 21), "partial_peak": [15, 21, 22, 23]},
        "prices": {
            "summer": {"peak": 0.54, "partial_peak": 0.38, "off_peak": 0.32},
            "winter": {"peak": 0.31, "partial_peak": 0.29, "off_peak": 0.27},
        },
        "price_basis": _PGE_PRICE_BASIS,
        "fixed_charges": [_PGE_BSC],
        "notes": [
            "PG&E plan for electrified homes (EV, heat pump, battery); its own $15 monthly charge is now "
            "the Base Services Charge."
        ],
    },
    ("SDG&E", "EV-TOU-5"): {
        "sources": [_SDGE_EV_SOURCE, _SDGE_TOU_SOURCE],
        "effective": date(2025, 10, 1),
        "summer_months": {6, 7, 8, 9, 10},
        # On-peak 4-9 pm every day. Super off-peak midnight-6 am on weekdays, midnight-2 pm on
        # weekends and holidays, and also 10 am-2 pm on March and April weekdays. Off-peak otherwise.
        "weekday": {"peak": range(16, 21), "super_off_peak": range(0, 6)},
        "weekend_holiday": {"peak": range(16, 21), "super_off_peak": range(0, 14)},
        "weekday_by_month": {3: {"super_off_peak": range(10, 14)}, 4: {"super_off_peak": range(10, 14)}},
        "prices": {
            "summer": {"peak": 0.78, "off_peak": 0.50, "super_off_peak": 0.12},
            "winter": {"peak": 0.52, "off_peak": 0.47, "super_off_peak": 0.12},
        },
        "price_basis": "typical 2025 EV-TOU-5 price levels; an estimate, not the tariff sheet",
        "fixed_charges": [
            FixedCharge(
                name="Base Services Charge (replaces the $16 EV-TOU-5 monthly fee)",
                usd_per_month=24.0,
                source=_SDGE_FIXED_SOURCE,
                note="reported as $24 a month, $8 more than the plan's former $16 fee; check your bill",
            )
        ],
        "labels": {"peak": "On-Peak"},
        "notes": [
            "SDG&E plan for EV owners: super off-peak midnight-6 am every day, midnight-2 pm on weekends "
            "and holidays.",
        ],
        # Said with every answer that prices this plan (not only kept in notes).
        "caveats": [
            "A 2025 CPUC decision is reported to make weekday 10 am-2 pm super off-peak all year on EV-TOU-5; "
            "I still have it in March and April only, as SDG&E's plan pages describe. Check SDG&E's current "
            "time-period chart before scheduling midday charging.",
        ],
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
    tariff = tariff_from_urdb(
        _to_urdb(utility, plan, spec),
        source=spec["sources"][0],
        as_of=spec["effective"],
        illustrative=True,
    )
    return tariff.model_copy(
        update={
            "notes": [*spec["notes"], f"Prices: {spec['price_basis']}."],
            "holiday_calendar": utility,
            "fixed_charges": list(spec["fixed_charges"]),
            "effective": spec["effective"],
        }
    )


def catalog_price_basis(utility: str, plan: str) -> str | None:
    """How a catalog plan's $/kWh figures were obtained (said with every answer that uses them)."""
    spec = _PLANS.get((utility, plan))
    return spec["price_basis"] if spec else None


def catalog_caveats(utility: str, plan: str) -> list[str]:
    """What every answer using a catalog plan must say besides its price basis (known doubts)."""
    spec = _PLANS.get((utility, plan))
    return list(spec.get("caveats", [])) if spec else []


def catalog_sources(utility: str, plan: str) -> list[str]:
    """Every page a catalog plan's rules come from."""
    spec = _PLANS.get((utility, plan))
    return list(spec["sources"]) if spec else []


def _to_urdb(utility: str, plan: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Express a plan description as a URDB item (periods + 12x24 schedules) with named periods.
    The weekend table also serves the utility's tariff holidays (see `Tariff.period_at`)."""
    index: dict[tuple[str, str], int] = {}
    structure: list[list[dict[str, Any]]] = []
    for season in ("summer", "winter"):
        for name, price in spec["prices"][season].items():
            index[(season, name)] = len(structure)
            structure.append([{"rate": price, "unit": "kWh"}])
    labels = {**_LABELS, **spec.get("labels", {})}

    def row(month: int, day_type: str) -> list[int]:
        season = "summer" if month in spec["summer_months"] else "winter"
        hours = ["off_peak"] * 24
        layers = [spec[day_type]]
        if day_type == "weekday":
            layers.append(spec.get("weekday_by_month", {}).get(month, {}))
        for rules in layers:
            for name, covered in rules.items():
                for hour in covered:
                    hours[hour] = name
        return [index[(season, name)] for name in hours]

    return {
        "utility": utility,
        "name": plan,
        "energyratestructure": structure,
        "energyweekdayschedule": [row(month, "weekday") for month in range(1, 13)],
        "energyweekendschedule": [row(month, "weekend_holiday") for month in range(1, 13)],
        "period_names": [name for (_season, name) in index],
        "period_labels": [labels[name] for (_season, name) in index],
    }
