"""Typical EV figures used when the profile lacks them (usable battery kWh, on-board AC charger kW).

Only a default: the profile's own `ev_battery_kwh` / `ev_charger_kw` always win, and answers name
the assumption ("battery 77.4 kWh (typical for a Hyundai Ioniq 5)"). Figures are for a common US
trim, compiled for this project from the makers' published specifications (as of 2025); other
trims and model years differ, which is why a stated battery size or charger always replaces them.
The table is also the vocabulary the offline parser accepts as an EV model: a car it does not
know is never guessed into the profile.
"""

from __future__ import annotations

import re
from functools import lru_cache
from statistics import median

from pydantic import BaseModel, ConfigDict

VEHICLES_AS_OF = "2025"
VEHICLES_SOURCE = "manufacturers' published specifications for a common US trim (compiled for this project)"


class VehicleSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    battery_kwh: float  # usable
    onboard_charger_kw: float  # AC limit: Level 2 charging never goes faster than this
    plug_in_hybrid: bool = False


# (pattern, spec); more specific patterns first. Patterns match the user's words, case-insensitive.
_TABLE: list[tuple[str, VehicleSpec]] = [
    (
        # ("m3 long range, 82 kwh pack": a Tesla's trim said with it; a bare "m3" is BMW's too)
        r"(?:model\s*3|\bm3)\b.*\b(?:long\s*range|lr|awd|performance)",
        VehicleSpec(name="Tesla Model 3 Long Range", battery_kwh=75.0, onboard_charger_kw=11.5),
    ),
    (r"model\s*3", VehicleSpec(name="Tesla Model 3 RWD", battery_kwh=57.5, onboard_charger_kw=7.7)),
    (r"model\s*y", VehicleSpec(name="Tesla Model Y Long Range", battery_kwh=75.0, onboard_charger_kw=11.5)),
    (r"model\s*s", VehicleSpec(name="Tesla Model S", battery_kwh=100.0, onboard_charger_kw=11.5)),
    (r"model\s*x", VehicleSpec(name="Tesla Model X", battery_kwh=100.0, onboard_charger_kw=11.5)),
    (r"cyber\s*truck", VehicleSpec(name="Tesla Cybertruck", battery_kwh=123.0, onboard_charger_kw=11.5)),
    (r"bolt\s*euv", VehicleSpec(name="Chevrolet Bolt EUV", battery_kwh=65.0, onboard_charger_kw=11.5)),
    (
        r"(?:chevy\s+|chevrolet\s+)?bolt(?:\s*ev)?",
        VehicleSpec(name="Chevrolet Bolt EV", battery_kwh=65.0, onboard_charger_kw=11.5),
    ),
    (r"equinox\s*ev", VehicleSpec(name="Chevrolet Equinox EV", battery_kwh=85.0, onboard_charger_kw=11.5)),
    (r"blazer\s*ev", VehicleSpec(name="Chevrolet Blazer EV", battery_kwh=85.0, onboard_charger_kw=11.5)),
    (
        r"silverado\s*ev",
        VehicleSpec(name="Chevrolet Silverado EV", battery_kwh=200.0, onboard_charger_kw=19.2),
    ),
    (
        # "i drive a volt", "our 2017 volt": the car named on its own after a word that owns it
        # (a volt the unit follows a number: "a 240 volt outlet")
        r"(?:chevy\s+|chevrolet\s+)volt|(?:(?<=\ba\s)|(?<=\bmy\s)|(?<=\bour\s)|(?<=\bthe\s)|(?<=\bold\s)|"
        r"(?<=\b20[01]\d\s))volt(?!\s*(?:outlets?|plugs?|circuits?|lines?|batter\w*|chargers?|sockets?|"
        r"receptacles?|meters?|drops?|systems?|service|power|supply|vs|versus|(?:the\s+)?same|"
        r"(?:and|or)\s+an?\s+(?:amp|watt)))",
        VehicleSpec(name="Chevrolet Volt", battery_kwh=14.0, onboard_charger_kw=3.6, plug_in_hybrid=True),
    ),
    (
        r"(?:nissan\s+)?leaf\s*(?:plus|\+|e\+)",
        VehicleSpec(name="Nissan Leaf Plus", battery_kwh=60.0, onboard_charger_kw=6.6),
    ),
    (r"(?:nissan\s+)?leaf", VehicleSpec(name="Nissan Leaf", battery_kwh=40.0, onboard_charger_kw=6.6)),
    (r"ariya", VehicleSpec(name="Nissan Ariya", battery_kwh=87.0, onboard_charger_kw=7.2)),
    (r"ioniq\s*5", VehicleSpec(name="Hyundai Ioniq 5", battery_kwh=77.4, onboard_charger_kw=10.9)),
    (r"ioniq\s*6", VehicleSpec(name="Hyundai Ioniq 6", battery_kwh=77.4, onboard_charger_kw=10.9)),
    (
        # ("is it bad to charge my kona to 100", "its a kona": said to an energy advisor, the electric
        # one; a Kona named as a hybrid or a gas car is not)
        r"kona(?:\s*(?:electric|ev))?(?!\s*(?:hybrid|n\b|gas|limited|sel|se\b))",
        VehicleSpec(name="Hyundai Kona Electric", battery_kwh=64.8, onboard_charger_kw=10.9),
    ),
    (r"(?:kia\s+)?ev\s*6", VehicleSpec(name="Kia EV6", battery_kwh=77.4, onboard_charger_kw=10.9)),
    (r"(?:kia\s+)?ev\s*9", VehicleSpec(name="Kia EV9", battery_kwh=99.8, onboard_charger_kw=10.9)),
    (
        r"niro\s*(?:plug[-\s]?in(?:\s+hybrid)?|phev)",
        VehicleSpec(
            name="Kia Niro Plug-in Hybrid", battery_kwh=11.1, onboard_charger_kw=3.3, plug_in_hybrid=True
        ),
    ),
    (r"niro\s*(?:ev|electric)", VehicleSpec(name="Kia Niro EV", battery_kwh=64.8, onboard_charger_kw=11.0)),
    # ("mock e": the name as voice typing hears it)
    (
        r"(?:mach|mock)[\s-]*e\b",
        VehicleSpec(name="Ford Mustang Mach-E", battery_kwh=91.0, onboard_charger_kw=10.5),
    ),
    (
        r"(?:f[\s-]*150\s*)?lightning",
        VehicleSpec(name="Ford F-150 Lightning", battery_kwh=98.0, onboard_charger_kw=11.3),
    ),
    (r"id\.?\s*4", VehicleSpec(name="Volkswagen ID.4", battery_kwh=77.0, onboard_charger_kw=11.0)),
    (r"r1t", VehicleSpec(name="Rivian R1T", battery_kwh=135.0, onboard_charger_kw=11.5)),
    (r"r1s", VehicleSpec(name="Rivian R1S", battery_kwh=135.0, onboard_charger_kw=11.5)),
    # (the 120 Ah battery of 2019 on, the common used one; "rex" is its range-extender version)
    # (bare, only owned or dated: "the i3", "a 2015 i3"; an "i3" processor is no car)
    (
        r"(?:bmw\s+|(?<=\bthe\s)|(?<=\bmy\s)|(?<=\bour\s)|(?<=\ban\s)|(?<=\b20[12]\d\s))i3\b(?:\s*rex)?"
        r"(?!\s*(?:processor|cpu|chip|laptop|computer))",
        VehicleSpec(name="BMW i3", battery_kwh=42.2, onboard_charger_kw=7.4),
    ),
    (r"(?:bmw\s+)?i4", VehicleSpec(name="BMW i4", battery_kwh=81.0, onboard_charger_kw=11.0)),
    (r"(?:bmw\s+)?ix", VehicleSpec(name="BMW iX", battery_kwh=105.0, onboard_charger_kw=11.0)),
    (r"polestar\s*2", VehicleSpec(name="Polestar 2", battery_kwh=78.0, onboard_charger_kw=11.0)),
    (r"q4\s*e[\s-]*tron", VehicleSpec(name="Audi Q4 e-tron", battery_kwh=77.0, onboard_charger_kw=11.0)),
    (
        r"(?:audi\s+)?(?:q8\s+)?e[\s-]*tron",
        VehicleSpec(name="Audi Q8 e-tron", battery_kwh=106.0, onboard_charger_kw=11.0),
    ),
    (r"lucid\s*air", VehicleSpec(name="Lucid Air", battery_kwh=112.0, onboard_charger_kw=19.2)),
    (r"bz4x", VehicleSpec(name="Toyota bZ4X", battery_kwh=71.4, onboard_charger_kw=6.6)),
    (r"solterra", VehicleSpec(name="Subaru Solterra", battery_kwh=72.8, onboard_charger_kw=6.6)),
    (r"prologue", VehicleSpec(name="Honda Prologue", battery_kwh=85.0, onboard_charger_kw=11.5)),
    (r"lyriq", VehicleSpec(name="Cadillac Lyriq", battery_kwh=102.0, onboard_charger_kw=19.2)),
    (r"hummer\s*ev", VehicleSpec(name="GMC Hummer EV", battery_kwh=212.0, onboard_charger_kw=19.2)),
    (
        r"(?:xc40|ex40)\s*(?:recharge)?",
        VehicleSpec(name="Volvo XC40 Recharge", battery_kwh=75.0, onboard_charger_kw=11.0),
    ),
    (r"i[\s-]*pace", VehicleSpec(name="Jaguar I-Pace", battery_kwh=84.7, onboard_charger_kw=11.0)),
    (r"taycan", VehicleSpec(name="Porsche Taycan", battery_kwh=83.7, onboard_charger_kw=11.0)),
    (r"(?:fiat\s+)?500e", VehicleSpec(name="Fiat 500e", battery_kwh=42.0, onboard_charger_kw=11.0)),
    (
        r"mini\s*(?:cooper\s*)?(?:se|electric)",
        VehicleSpec(name="Mini Cooper SE", battery_kwh=28.9, onboard_charger_kw=7.4),
    ),
    (
        r"rav\s*4\s*prime",
        VehicleSpec(name="Toyota RAV4 Prime", battery_kwh=18.1, onboard_charger_kw=6.6, plug_in_hybrid=True),
    ),
    (
        r"prius\s*prime",
        VehicleSpec(name="Toyota Prius Prime", battery_kwh=13.6, onboard_charger_kw=3.5, plug_in_hybrid=True),
    ),
    (
        r"pacifica\s*(?:hybrid|phev|plug[-\s]?in(?:\s+hybrid)?)",
        VehicleSpec(
            name="Chrysler Pacifica Hybrid", battery_kwh=16.0, onboard_charger_kw=6.6, plug_in_hybrid=True
        ),
    ),
    (
        r"outlander\s*(?:phev|plug[-\s]?in(?:\s+hybrid)?)",
        VehicleSpec(
            name="Mitsubishi Outlander PHEV", battery_kwh=20.0, onboard_charger_kw=3.5, plug_in_hybrid=True
        ),
    ),
    (
        r"escape\s*(?:phev|plug[-\s]?in(?:\s+hybrid)?)",
        VehicleSpec(
            name="Ford Escape Plug-in Hybrid", battery_kwh=14.4, onboard_charger_kw=3.3, plug_in_hybrid=True
        ),
    ),
    (
        r"tucson\s*(?:phev|plug[-\s]?in(?:\s+hybrid)?)",
        VehicleSpec(
            name="Hyundai Tucson Plug-in Hybrid",
            battery_kwh=13.8,
            onboard_charger_kw=7.2,
            plug_in_hybrid=True,
        ),
    ),
    (
        r"grand\s*cherokee\s*4xe",
        VehicleSpec(
            name="Jeep Grand Cherokee 4xe", battery_kwh=17.3, onboard_charger_kw=7.4, plug_in_hybrid=True
        ),
    ),
    (
        r"wrangler\s*4xe",
        VehicleSpec(name="Jeep Wrangler 4xe", battery_kwh=17.3, onboard_charger_kw=7.4, plug_in_hybrid=True),
    ),
]

_COMPILED = [(re.compile(r"\b(?:" + pattern + r")\b", re.IGNORECASE), spec) for pattern, spec in _TABLE]
_BY_NAME = {spec.name.lower(): spec for _, spec in _TABLE}


@lru_cache(maxsize=512)
def find_vehicle(text: str) -> tuple[VehicleSpec, str] | None:
    """The vehicle named first in `text` (by position; the table's order breaks ties, most specific
    first), with the words that named it; None when no known model."""
    found = [
        (m.start(), m.end(), spec, m.group(0)) for pattern, spec in _COMPILED if (m := pattern.search(text))
    ]
    if not found:
        return None
    first = min(found, key=lambda item: item[0])
    # "chevy bolt euv": the Bolt EV pattern starts first, the Bolt EUV one reaches further: the more
    # specific name wins among matches that overlap the first one
    overlapping = [item for item in found if item[0] < first[1]]
    chosen = max(overlapping, key=lambda item: (item[1], -item[0]))
    return chosen[2], chosen[3]


def vehicles_named(text: str) -> list[tuple[VehicleSpec, str]]:
    """Every vehicle `text` names, in order, each with the words that named it ("test drove an ioniq
    5 and a model y": both)."""
    named, rest = [], text
    while (found := find_vehicle(rest)) is not None:
        named.append(found)
        rest = rest[rest.lower().find(found[1].lower()) + len(found[1]) :]
    return named


def vehicle_spec(model: str | None, battery_kwh: float | None = None) -> VehicleSpec | None:
    """Best match for a model name; a stated battery size picks between a Model 3's variants."""
    if not model:
        return None
    exact = _BY_NAME.get(model.strip().lower())
    found = exact or (found_pair[0] if (found_pair := find_vehicle(model)) else None)
    if found is not None and battery_kwh is not None and found.name.startswith("Tesla Model 3"):
        return _BY_NAME["tesla model 3 rwd" if battery_kwh < 66 else "tesla model 3 long range"]
    return found


@lru_cache(maxsize=1)
def typical_ev() -> tuple[VehicleSpec, int]:
    """The car a charging plan assumes when the user would rather not say which they drive: the
    median usable battery and on-board charger of the battery-electric cars in this table (and how
    many that is), so a "rough idea" rests on the same figures as every named car's plan."""
    electric = [spec for _, spec in _TABLE if not spec.plug_in_hybrid]
    spec = VehicleSpec(
        name="typical EV",
        battery_kwh=median(spec.battery_kwh for spec in electric),
        onboard_charger_kw=median(spec.onboard_charger_kw for spec in electric),
    )
    return spec, len(electric)


def known_vehicle_names() -> list[str]:
    return [spec.name for _, spec in _TABLE]
