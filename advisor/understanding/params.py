"""A request's parameters in the user's words: ready-by time, charge levels, appliance, day.

Read once by intake and passed to the analyzer as data, so a follow-up ("what about by 6am
instead?") can change one of them and keep the rest.
"""

from __future__ import annotations

import re

from advisor.understanding.models import RequestParams

_DEADLINE = re.compile(
    r"\b(?:by|before|until|til|till|ready\s+(?:at|by|for)|leave\s+at|leaving\s+at|need\s+it\s+(?:at|by))\s+"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?!\s*%)(?![\d:])",
    re.I,
)
_SHORT_TIME = re.compile(
    r"(?<![\d:])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>a\.?m\.?|p\.?m\.?)(?![\w])", re.I
)
_NOON = re.compile(r"\b(?:by|before|until|ready\s+(?:at|by))\s+(?P<word>noon|midnight)\b", re.I)
_TARGET = re.compile(
    r"\b(?:to|only\s+need|need(?:\s+only)?|(?:need|want)(?:\s+it)?\s+at|want|up\s+to|charge\s+to|get\s+to|get\s+it\s+to|reach|"
    r"target(?:\s+of)?|at\s+least)\s+(?:about\s+|around\s+)?(?P<pct>-?\d{1,3})\s*(?:%|percent)(?!\s+now)",
    re.I,
)
_FROM_TO = re.compile(r"\bfrom\s+(\d{1,3})\s*%?\s+to\s+(\d{1,3})\s*(?:%|percent)", re.I)
_CURRENT = re.compile(
    r"\b(?:from|is\s+at|currently(?:\s+at)?|at|it'?s\s+at|sitting\s+at|have)\s+(?P<pct>\d{1,3})\s*(?:%|percent)\s+(?:now|right\s+now|currently|left)\b|"
    r"\b(?:from|is\s+at|currently(?:\s+at)?|it'?s\s+at|it\s+is\s+at|sits\s+at|at|usually\s+at)\s+(?P<pct2>\d{1,3})\s*(?:%|percent)",
    re.I,
)
_APPLIANCES = re.compile(
    r"\b(dryer|washer|washing\s+machine|dishwasher|oven|pool\s+pump|water\s+heater|hot\s+tub|space\s+heater|"
    r"air\s+conditioner|ac|heat\s+pump|induction|stove)\b",
    re.I,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def read_params(text: str) -> RequestParams:
    data: dict[str, object] = {}
    deadline = _DEADLINE.search(text)
    if deadline is None and len(text.split()) <= 6:
        deadline = _SHORT_TIME.search(text)  # "make that 7am", "6:30 instead"
    if deadline:
        hour, half = int(deadline.group("hour")), (deadline.group("half") or "").lower().replace(".", "")
        if half and 1 <= hour <= 12:
            data["ready_by_hour"] = hour % 12 + (12 if half == "pm" else 0)
        elif not half and 0 <= hour <= 23:
            data["ready_by_hour"] = hour
        if "ready_by_hour" in data and deadline.group("minute"):
            minute = int(deadline.group("minute"))
            if minute <= 59:
                data["ready_by_minute"] = minute
    elif noon := _NOON.search(text):
        data["ready_by_hour"] = 12 if noon.group("word").lower() == "noon" else 0
    target = None
    if re.search(r"\b(?:to\s+full|(?:be|get\s+it|it)\s+full|fully\s+charged|a\s+full\s+charge)\b", text, re.I):
        data["target_soc_pct"] = 100.0
    elif target := _TARGET.search(text):
        data["target_soc_pct"] = float(target.group("pct"))
    elif span := _FROM_TO.search(text):  # "from 10 to 80 percent", "at 20%, ... get to 90"
        data["current_soc_pct"], data["target_soc_pct"] = float(span.group(1)), float(span.group(2))
    elif "%" in text and (bare := re.search(r"\b(?:get|charge|go)\s+(?:it\s+)?to\s+(\d{1,3})\b(?!\s*(?:kw|am|pm|:|%))", text, re.I)):
        data["target_soc_pct"] = float(bare.group(1))
    if (current := _CURRENT.search(text)) and "current_soc_pct" not in data:
        value = current.group("pct") or current.group("pct2")
        if target is None or current.start() != target.start():
            data["current_soc_pct"] = float(value)
    if appliance := _APPLIANCES.search(text):
        data["appliance"] = re.sub(r"\s+", " ", appliance.group(1).lower())
    lowered = text.lower()
    if re.search(r"\btomorrow\b", lowered):
        data["day"] = "tomorrow"
        data.setdefault("ready_by_day", "tomorrow")
    elif re.search(r"\b(?:today|tonight|now)\b", lowered):
        data["day"] = "today"
    for day in _WEEKDAYS:
        if re.search(rf"\b{day}\b", lowered):
            data["ready_by_day"] = day
    if re.search(r"\b(?:typical|per\s+year|yearly|annual(?:ly)?|a\s+year|average\s+year)\b", lowered):
        data["typical_year"] = True
    if re.search(r"\b(?:one|single|a\s+single|one\s+continuous|uninterrupted)\s+(?:session|block|go|stretch)\b|\bin\s+one\s+go\b", lowered):
        data["one_session"] = True
    return RequestParams.model_validate(data)
