"""Profile facts in plain words: what was saved, refused, forgotten or undone, and why a value
cannot be saved. Replies never show field paths ("equipment.battery_capacity_kwh"); they say
"your home battery holds 13.5 kWh". One place, so the chat, Slack and the graph say it the same way.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterable, Sequence
from typing import Any

import annotated_types

from profiles.models import SECTION_MODELS

# Fields derived from another one (a ZIP gives coordinates and a timezone): saved quietly with it.
DERIVED_FIELDS = frozenset({"location.lat", "location.lon", "location.timezone"})

UNITS = {
    "equipment.solar_capacity_kw": "kW",
    "equipment.ev_battery_kwh": "kWh",
    "equipment.ev_charger_kw": "kW",
    "equipment.battery_capacity_kwh": "kWh",
    "household.occupants": "people",
}

# What each field is, as a noun phrase ("I can't save -5 kWh as <noun>").
NOUNS = {
    "location.zip_code": "your ZIP code",
    "location.city": "your city",
    "location.utility_provider": "your utility",
    "location.rate_schedule": "your rate plan",
    "location.flat_rate_usd_per_kwh": "your price per kWh",
    "location.lat": "your latitude",
    "location.lon": "your longitude",
    "location.timezone": "your timezone",
    "equipment.solar_capacity_kw": "your solar system's size",
    "equipment.ev_model": "your EV",
    "equipment.ev_battery_kwh": "your EV's battery size",
    "equipment.ev_charger_kw": "your home charger's power",
    "equipment.has_battery_storage": "whether you have a home battery",
    "equipment.battery_capacity_kwh": "your home battery's size",
    "equipment.heating_type": "your heating",
    "equipment.cooling_type": "your cooling",
    "household.work_schedule": "your work schedule",
    "household.occupants": "the number of people in your home",
    "household.typical_usage_pattern": "when you use the most energy",
    "preferences.budget_priority": "how much saving money matters to you",
    "preferences.comfort_priority": "how much comfort matters to you",
    "preferences.green_priority": "how much a low-carbon home matters to you",
}

_CHOICES = {
    "heat_pump": "a heat pump",
    "gas": "gas",
    "electric": "electric resistance heat",
    "central_ac": "central air conditioning",
    "mini_split": "mini-splits",
    "none": "no air conditioning",
    "morning_heavy": "mornings",
    "evening_heavy": "evenings",
    "constant": "about the same all day",
}
_SCHEDULES = {
    "WFH": "you work from home",
    "Hybrid": "you work a hybrid schedule",
    "Office 9-5": "you work in an office, 9 to 5",
    "Retired": "you're retired (home most of the day)",
    "Night shift": "you work nights",
}


def said_of_someone_at_home(text: str) -> str:
    """ "you work from home" -> "someone in your household works from home": a schedule the user gave
    for a household member ("my wife works from home") is the household's, and said as such."""
    if text.startswith("you're "):
        return "someone in your household is " + text[len("you're ") :]
    if text.startswith("you "):
        verb, _, rest = text[len("you ") :].partition(" ")
        return f"someone in your household {verb}s {rest}".rstrip()
    return text


def number(value: Any) -> str:
    """57.5 -> '57.5', 7.0 -> '7', 7.68 -> '7.68' (no float noise)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:g}" if abs(value) < 1e6 else f"{value:,.0f}"


def statement(field: str, value: Any) -> str:
    """One fact as a clause: ('location.utility_provider', 'PG&E') -> 'your utility is PG&E'."""
    name = field.split(".", 1)[-1]
    if field == "location.zip_code":
        return f"your ZIP code is {value}"
    if field == "location.city":
        return f"you're in {value}"
    if field == "location.utility_provider":
        return f"your utility is {value}"
    if field == "location.rate_schedule":
        return f"your rate plan is {value}"
    if field == "location.flat_rate_usd_per_kwh":
        return f"you pay about {number(round(float(value) * 100, 2))}¢ per kWh"
    if field == "location.timezone":
        return f"your timezone is {value}"
    if name in ("lat", "lon"):
        return f"your {'latitude' if name == 'lat' else 'longitude'} is {number(value)}"
    if field == "equipment.solar_capacity_kw":
        return f"you have {number(value)} kW of solar"
    if field == "equipment.ev_model":
        return f"your EV is a {value}"
    if field == "equipment.ev_battery_kwh":
        return f"your EV's battery holds {number(value)} kWh"
    if field == "equipment.ev_charger_kw":
        return f"your home charger delivers {number(value)} kW"
    if field == "equipment.has_battery_storage":
        return "you have a home battery" if value else "you don't have a home battery"
    if field == "equipment.battery_capacity_kwh":
        return f"your home battery holds {number(value)} kWh"
    if field == "equipment.heating_type":
        return f"you heat with {_CHOICES.get(str(value), value)}"
    if field == "equipment.cooling_type":
        return (
            "you have no air conditioning"
            if value == "none"
            else f"you cool with {_CHOICES.get(str(value), value)}"
        )
    if field == "household.work_schedule":
        office = re.fullmatch(r"Office ([\d:]{1,5})-([\d:]{1,5})", str(value))
        if office and str(value) not in _SCHEDULES:
            return f"you work in an office, {office.group(1)} to {office.group(2)}"
        return _SCHEDULES.get(str(value), f"your work schedule is {value}")
    if field == "household.occupants":
        return "you live alone" if value == 1 else f"there are {number(value)} people in your home"
    if field == "household.typical_usage_pattern":
        usage = _CHOICES.get(str(value), value)
        return (
            f"you use the most energy in the {usage}"
            if value != "constant"
            else "your energy use is about the same all day"
        )
    if field.startswith("preferences."):
        return f"{NOUNS[field].replace('how much ', '').replace(' matters to you', '')} is a {value} priority for you"
    return f"{NOUNS.get(field, name)} is {value}"


def join(parts: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [part for part in parts if part]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _visible(changes: Iterable[Any]) -> list[Any]:
    """Changes worth saying: derived coordinates/timezone ride along with the place they came from."""
    items = list(changes)
    fields = {_get(change, "field") for change in items}
    place = bool(fields & {"location.zip_code", "location.city"})
    return [c for c in items if not (_get(c, "field") in DERIVED_FIELDS and place)]


def _get(change: Any, key: str) -> Any:
    return change[key] if isinstance(change, dict) else getattr(change, key)


def _with_place(changes: list[Any], field: str, text: str) -> str:
    """'your ZIP code is 94102 (San Francisco)' when the same change set found the city."""
    if field != "location.zip_code":
        return text
    city = next((_get(c, "new_value") for c in changes if _get(c, "field") == "location.city"), None)
    return f"{text} ({city})" if city else text


def describe_saved(changes: Iterable[Any]) -> str:
    """'Saved: your utility is PG&E and your rate plan is EV2-A.' for change records (or their dicts).

    Confirmations and updates are said as such; empty when nothing changed."""
    items = list(changes)
    visible = _visible(items)
    if any(_get(c, "field") == "location.zip_code" for c in visible):
        visible = [c for c in visible if _get(c, "field") != "location.city"]
    saved, updated, confirmed = [], [], []
    for change in visible:
        field, new, old = _get(change, "field"), _get(change, "new_value"), _get(change, "old_value")
        text = _with_place(items, field, statement(field, new))
        operation = _get(change, "operation")
        if operation == "confirmed":
            confirmed.append(text)
        elif operation == "updated":
            updated.append(f"{text} (was {shown_value(field, old)})")
        elif operation == "set":
            saved.append(text)
    sentences = []
    if saved:
        sentences.append(f"Saved: {join(saved)}.")
    if updated:
        sentences.append(f"Updated: {join(updated)}.")
    if confirmed:
        sentences.append(f"Confirmed: {join(confirmed)}.")
    return " ".join(sentences)


def describe_removed(changes: Iterable[Any], *, verb: str = "Forgotten") -> str:
    """'Forgotten: your ZIP code (was 94110).' / 'Undone: your rate plan is back to E-TOU-C.'"""
    removed, restored = [], []
    for change in _visible(changes):
        field, new, old = _get(change, "field"), _get(change, "new_value"), _get(change, "old_value")
        if new is None:
            removed.append(f"{NOUNS.get(field, field)} (was {shown_value(field, old)})")
        else:
            restored.append(f"{statement(field, new)} again")
    sentences = []
    if removed:
        sentences.append(f"{verb}: {join(removed)}.")
    if restored:
        sentences.append(f"{'Undone' if verb == 'Undone' else verb}: {join(restored)}.")
    return " ".join(sentences)


def shown_value(field: str, value: Any, unit: str | None = None) -> str:
    """A value as the user said it, with its unit: '-5 kWh', '1000 people'."""
    unit = unit or UNITS.get(field)
    if field == "household.occupants":
        return number(value)
    if (
        field == "location.flat_rate_usd_per_kwh"
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        return f"{number(round(float(value) * 100, 2))}¢ per kWh"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and value in _CHOICES:
        return _CHOICES[value]
    return f"{number(value)} {unit}" if unit else f"{value!s}"


def describe_refused(
    field: str, value: Any, reason: str, unit: str | None = None, said: str | None = None
) -> str:
    """ "I can't save -5 kWh as your home battery's size: it must be more than 0 kWh." (`said`, the
    user's own words such as "-40 amps", wins over a converted value)."""
    shown = said if said else shown_value(field, value, unit)
    return f"I can't save {shown} as {NOUNS.get(field, field)}: {reason}."


def plain_reason(field: str, value: Any) -> str:
    """Why `value` does not fit `field`, from the model's own constraints, in words a user can act on."""
    section, _, name = field.partition(".")
    info = SECTION_MODELS[section].model_fields[name]
    unit = UNITS.get(field, "")
    suffix = f" {unit}" if unit and unit != "people" else ""
    literals = [a for a in typing.get_args(info.annotation) if typing.get_origin(a) is typing.Literal]
    if literals:
        options = [_CHOICES.get(str(o), str(o)).replace("_", " ") for o in typing.get_args(literals[0])]
        return f"it must be one of: {', '.join(options)}"
    if field == "location.zip_code":
        return "a US ZIP code has five digits, like 94102"
    if field == "location.timezone":
        return "it must be a timezone name such as America/Los_Angeles"
    if field == "equipment.has_battery_storage":
        return "it must be yes or no"
    if field == "location.flat_rate_usd_per_kwh":
        # "i pay 0 cents per kwh lol, solar covers it": a price in dollars, said so
        return "a price per kWh must be more than $0 and at most $2 (tell me what your utility charges for what you buy)"
    low = high = None
    low_inclusive = True
    max_length = None
    for item in info.metadata:
        if isinstance(item, annotated_types.Gt):
            low, low_inclusive = item.gt, False
        elif isinstance(item, annotated_types.Ge):
            low = item.ge
        elif isinstance(item, annotated_types.Le):
            high = item.le
        elif isinstance(item, annotated_types.MaxLen):
            max_length = item.max_length
    if isinstance(value, str) and max_length is not None and len(value) > max_length:
        return f"it is longer than {max_length} characters"
    if not isinstance(value, int | float) or isinstance(value, bool):
        try:
            float(str(value))
        except ValueError:
            if low is not None or high is not None:
                return "it must be a number"
            return "that is not a value I can store there"
    if low is not None and high is not None and low_inclusive:
        return f"it must be between {number(low)} and {number(high)}{suffix}"
    parts = []
    if low is not None:
        parts.append(
            f"more than {number(low)}{suffix}" if not low_inclusive else f"at least {number(low)}{suffix}"
        )
    if high is not None:
        parts.append(f"at most {number(high)}{suffix}")
    return f"it must be {' and '.join(parts)}" if parts else "that value does not fit"


def fact_lines(profile: Any, section: str) -> list[str]:
    """Each fact of one profile section in plain words, with the user's words it came from when the
    change history has them: 'your ZIP code is 94110 (you said "My ZIP is 94110")'."""
    data = getattr(profile, section, None)
    if data is None:
        return []
    said: dict[str, str] = {}
    for entry in getattr(profile, "history", []):
        if entry.operation in ("set", "updated", "reverted") and entry.source.text:
            said[entry.field] = entry.source.text
    groups: dict[str | None, list[str]] = {}  # facts that came from the same words are said together
    for name, value in data.model_dump(exclude={"updated_at"}).items():
        field = f"{section}.{name}"
        if value is not None and field not in DERIVED_FIELDS:
            groups.setdefault(said.get(field), []).append(statement(field, value))
    lines = []
    for words, facts in groups.items():
        origin = f' (you said "{words[:80]}{"…" if len(words) > 80 else ""}")' if words else ""
        lines.append(join(facts) + origin)
    return lines
