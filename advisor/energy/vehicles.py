"""Typical EV figures used when the profile lacks them (usable battery kWh, on-board AC charger kW).

Only a default: the profile's own `ev_battery_kwh` / `ev_charger_kw` always win, and answers
name the assumption.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict


class VehicleSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    battery_kwh: float
    onboard_charger_kw: float


_SPECS = [
    (
        re.compile(r"\bmodel\s*3\b.*\b(long\s*range|lr|awd|performance)\b", re.I),
        VehicleSpec(name="Tesla Model 3 Long Range", battery_kwh=75.0, onboard_charger_kw=11.5),
    ),
    (
        re.compile(r"\bmodel\s*3\b", re.I),
        VehicleSpec(name="Tesla Model 3 RWD", battery_kwh=57.5, onboard_charger_kw=7.7),
    ),
    (
        re.compile(r"\bmodel\s*y\b", re.I),
        VehicleSpec(name="Tesla Model Y Long Range", battery_kwh=75.0, onboard_charger_kw=11.5),
    ),
    (
        re.compile(r"\bbolt\b", re.I),
        VehicleSpec(name="Chevrolet Bolt EV", battery_kwh=65.0, onboard_charger_kw=11.5),
    ),
    (
        re.compile(r"\bleaf\b", re.I),
        VehicleSpec(name="Nissan Leaf", battery_kwh=40.0, onboard_charger_kw=6.6),
    ),
]


def vehicle_spec(model: str | None, battery_kwh: float | None = None) -> VehicleSpec | None:
    """Best match for a model name; a stated battery size picks between a model's variants."""
    if not model:
        return None
    if battery_kwh is not None and re.search(r"\bmodel\s*3\b", model, re.I):
        return _SPECS[1][1] if battery_kwh < 66 else _SPECS[0][1]
    return next((spec for pattern, spec in _SPECS if pattern.search(model)), None)
