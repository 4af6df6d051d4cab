"""Slot filling (spec 004 pattern; EC-002/003): which profile facts a question needs, the one
question to ask for the first missing one, and turning the user's answer into profile changes.

Order for a new user: location (ZIP or city) first, then utility, then rate plan, then the
equipment the question needs. Parsers only ever return values they found: a known value is
never replaced by a null.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from advisor.energy.catalog import normalize_utility, plans_of, utility_of_plan
from advisor.energy.utilities import utilities_in
from advisor.places import find_city, find_town, town_zips, zip_place, zip_state
from advisor.state import Intent, Topic
from advisor.tools.open_meteo import Place
from profiles.models import UserProfile

SLOT_ORDER = ["location", "utility", "rate_schedule", "ev", "solar_size"]

_NEEDS: dict[Topic, list[str]] = {
    "ev_charging": ["location", "utility", "rate_schedule", "ev"],
    "rates": ["location", "utility", "rate_schedule"],
    "weather": ["location"],
    "solar": ["location", "solar_size"],
    "home": ["location"],
    "general": [],
}

# Approximate ZIP-area centroids used when geocoding is unavailable (offline), with the
# utility that usually serves the area. Deliberately small: only areas the catalog prices.
_ZIP3 = {
    "941": ("San Francisco", 37.7749, -122.4194, "PG&E"),
    "946": ("Oakland", 37.8044, -122.2712, "PG&E"),
    "947": ("Berkeley", 37.8715, -122.2730, "PG&E"),
    "950": ("San Jose", 37.3382, -121.8863, "PG&E"),
    "951": ("San Jose", 37.3382, -121.8863, "PG&E"),
    "919": ("San Diego County", 32.7157, -117.1611, "SDG&E"),
    "921": ("San Diego", 32.7157, -117.1611, "SDG&E"),
}
_ZIP = re.compile(r"\b(\d{5})(?:-\d{4})?\b")
_KWH = re.compile(r"\b(\d{1,3}(?:\.\d+)?)\s*kwh\b", re.IGNORECASE)
_KW = re.compile(r"\b(\d{1,4}(?:\.\d+)?)\s*(?:kw|kilowatts?)\b(?!h)", re.IGNORECASE)
_NOT_SURE = re.compile(r"\b(?:not\s+sure|don'?t\s+know|no\s+idea|unsure|dunno)\b", re.IGNORECASE)

Geocoder = Callable[[str], Place | None]


# What each kind of live answer needs (the reader's `RequestParams.task`), when it named one
_TASK_NEEDS: dict[str, list[str]] = {
    "charging_plan": ["location", "utility", "rate_schedule", "ev"],
    "prices": ["location", "utility", "rate_schedule"],
    "appliance": ["location", "utility", "rate_schedule"],
    "plan_comparison": ["utility"],  # the catalog is per utility; the time zone can come from it
    "solar_forecast": ["location", "solar_size"],
    "typical_solar": ["location", "solar_size"],
    "weather": ["location"],
}


def missing_slots(
    profile: UserProfile | None, intent: Intent, topic: Topic, *, task: str | None = None
) -> list[str]:
    """Slots the question needs that the profile lacks, in onboarding order."""
    if intent != "live_data":
        return []
    needed = _TASK_NEEDS.get(task or "", _NEEDS.get(topic, []))
    flat = profile is not None and profile.location is not None and profile.location.flat_rate_usd_per_kwh
    if flat and task != "plan_comparison":
        needed = [slot for slot in needed if slot != "utility"]  # the price they pay is all prices need
    return [slot for slot in SLOT_ORDER if slot in needed and not _has(profile, slot)]


def _has(profile: UserProfile | None, slot: str) -> bool:
    if profile is None:
        return False
    location, equipment = profile.location, profile.equipment
    if slot == "location":
        return location is not None and (
            (location.lat is not None and location.lon is not None)
            or bool(location.zip_code)
            or bool(location.city)
        )
    if slot == "utility":
        # "i'm on ev2a": a plan only one utility offers says whose prices to use (nothing is saved)
        return location is not None and bool(
            location.utility_provider or (location.rate_schedule and utility_of_plan(location.rate_schedule))
        )
    if slot == "rate_schedule":
        return location is not None and bool(location.rate_schedule or location.flat_rate_usd_per_kwh)
    if slot == "ev":
        return equipment is not None and bool(equipment.ev_model or equipment.ev_battery_kwh)
    if slot == "solar_size":
        return equipment is not None and bool(equipment.solar_capacity_kw)
    raise KeyError(slot)


def question_for(
    slot: str, profile: UserProfile | None, *, first_contact: bool = False, kept: bool = True
) -> str:
    """The one question for a slot (`kept` False: they asked us not to save, and are told so)."""
    location = profile.location if profile else None
    if slot == "location":
        remembered = (
            "then remember the answers"
            if kept
            else "and, as you asked, use the answers in this conversation only, without saving them"
        )
        intro = (
            f"Hi! I'm your home energy advisor. I'll ask a few quick questions once, {remembered}. "
            if first_contact
            else ""
        )
        return (
            intro + "What's your ZIP code (or city)? I use it for weather, solar and your utility's prices."
        )
    if slot == "utility":
        guess = usual_utility(location.zip_code, location.city) if location else None
        where = location.zip_code or location.city if location else None
        hint = f" Around {where} that's usually {guess}." if guess else ""
        return f"Which electric utility serves your home (for example {utility_examples(location)})?{hint}"

    if slot == "rate_schedule":
        utility = (
            normalize_utility(location.utility_provider) if location and location.utility_provider else None
        )
        options = plans_of(utility) if utility else []
        known = "plan I know is" if len(options) == 1 else "plans I know are"
        listed = f" {utility}'s time-of-use {known} {', '.join(options)}." if options else ""
        price = (
            ""
            if options
            else ' If you don\'t know it, tell me roughly what you pay per kWh (for example "about 30 cents").'
        )
        return f"Which rate plan are you on? It's printed on your bill.{listed}{price}"
    if slot == "ev":
        return 'Which EV do you drive (for example "Tesla Model 3"), or what\'s its battery size in kWh?'
    if slot == "solar_size":
        return 'How big is your solar system, in kW (for example "6 kW")?'
    raise KeyError(slot)


# examples for someone whose state we do not know: utilities across the country, not only California's
_NATIONAL_EXAMPLES = ("PG&E", "Duke Energy", "Con Edison")


def utility_examples(location: object | None) -> str:
    """Examples in the utility question from the user's own state ("AEP Ohio or Duke Energy" to
    someone in Ohio, never PG&E and SDG&E to everyone)."""
    state = _state_of(location)
    names = [utility.name for utility in utilities_in(state)] if state else []
    # ("Austin Energy" first for Austin, "Seattle City Light" for Seattle: the town's own utility)
    town = _town_of(location)
    if town:
        names = sorted(names, key=lambda name: town.lower() not in name.lower())
    return " or ".join(names[:3] or _NATIONAL_EXAMPLES)


def _town_of(location: object | None) -> str | None:
    zip_code = getattr(location, "zip_code", None)
    place = zip_place(zip_code) if zip_code else None
    city = getattr(location, "city", None)
    return place.name if place is not None else (city.split(",")[0] if city else None)


def _state_of(location: object | None) -> str | None:
    zip_code = getattr(location, "zip_code", None)
    if zip_code and (state := zip_state(zip_code)):
        return state
    city = getattr(location, "city", None)
    place = (find_city(city) or find_town(city)) if city else None
    return place.state if place is not None else None


def suggested_utility(profile: UserProfile | None) -> str | None:
    """The utility the utility question suggests for the user's ZIP or town ("Around 94102 that's
    usually PG&E", "Around Oakland ...")."""
    location = profile.location if profile else None
    return usual_utility(location.zip_code, location.city) if location else None


def usual_utility(zip_code: str | None, city: str | None = None) -> str | None:
    """The utility that usually serves a ZIP code's area, or most of a town's ZIP codes."""
    if zip_code:
        return utility_for_zip(zip_code)
    place = (find_city(city) or find_town(city)) if city else None
    if place is None:
        return None
    found = [utility for code in town_zips(place.name, place.state) if (utility := utility_for_zip(code))]
    return max(set(found), key=found.count) if found else None


def utility_for_zip(zip_code: str | None) -> str | None:
    """The utility that usually serves a ZIP code's area (None outside the areas we know)."""
    area = _zip_area(zip_code) if zip_code else None
    return area[3] if area else None


def _zip_area(zip_code: str) -> tuple[str, float, float, str] | None:
    return _ZIP3.get(zip_code[:3])
