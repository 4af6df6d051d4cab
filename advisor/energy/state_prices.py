"""Average residential electricity price per state, for a customer whose tariff we cannot price.

Source: U.S. Energy Information Administration, Electric Power Annual with data for 2023 (released
2024-10-17), "Average revenue per kilowatthour" by state, residential column:
https://www.eia.gov/electricity/annual/secrev-map.php — a state's average, not anyone's tariff, so
every answer that uses it says so and asks for the user's own price or plan.
"""

from __future__ import annotations

STATE_PRICES_SOURCE = (
    "EIA Electric Power Annual, 2023 average residential revenue per kWh (released 2024-10-17)"
)
STATE_PRICES_URL = "https://www.eia.gov/electricity/annual/secrev-map.php"
STATE_PRICES_YEAR = 2023

# cents per kWh, residential (Wyoming is missing from the copy this table was taken from: no figure)
_CENTS = {
    "AL": 14.63,
    "AK": 23.90,
    "AZ": 14.02,
    "AR": 12.25,
    "CA": 29.51,
    "CO": 14.30,
    "CT": 29.88,
    "DE": 15.73,
    "DC": 16.45,
    "FL": 15.21,
    "GA": 13.69,
    "HI": 42.39,
    "ID": 11.05,
    "IL": 15.71,
    "IN": 14.94,
    "IA": 13.31,
    "KS": 13.38,
    "KY": 12.65,
    "LA": 11.55,
    "ME": 27.42,
    "MD": 16.60,
    "MA": 29.61,
    "MI": 18.84,
    "MN": 14.73,
    "MS": 13.23,
    "MO": 12.58,
    "MT": 12.54,
    "NE": 11.20,
    "NV": 16.67,
    "NH": 28.15,
    "NJ": 17.70,
    "NM": 13.85,
    "NY": 22.25,
    "NC": 12.93,
    "ND": 11.01,
    "OH": 15.38,
    "OK": 12.08,
    "OR": 12.73,
    "PA": 18.10,
    "RI": 27.02,
    "SC": 13.68,
    "SD": 12.32,
    "TN": 12.19,
    "TX": 14.46,
    "UT": 11.20,
    "VT": 20.82,
    "VA": 14.26,
    "WA": 10.98,
    "WV": 14.05,
    "WI": 16.88,
}


def state_price_usd_per_kwh(state: str | None) -> float | None:
    """The state's 2023 average residential price in $/kWh, or None when this table has none."""
    cents = _CENTS.get((state or "").upper())
    return round(cents / 100, 4) if cents is not None else None
