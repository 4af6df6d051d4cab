"""A time-of-use plan described in words: "my rates are 11 cents off peak and 25 cents on peak, peak
is 5pm to 9pm weekdays", "On-Peak 3pm-8pm Mon-Fri $0.2809/kWh Off-Peak $0.1107/kWh". Read only
when all of it is there (both prices and the peak's hours): half a plan would price hours the user
never described."""

from __future__ import annotations

import re

from pydantic import ValidationError

from advisor.energy.described_plan import DescribedPlan
from advisor.understanding.params import hour_of_day

# a price has its unit or its decimal point ("25 cents", "24c", "$0.2809", ".31"); a bare "5" next to
# "peak" is an hour ("peak is 5pm to 9pm")
_PRICE = (
    r"(?P<{name}>\$\s?\d{{0,2}}(?:\.\d{{1,4}})?|\d{{0,2}}\.\d{{1,4}}|\d{{1,2}}(?=\s*(?:cents?\b|c\b|¢)))"
    r"\s*(?P<{unit}>cents?\b|c\b|¢|/\s*kwh)?(?!\s*(?:am|pm|a\.?m|p\.?m)\b)"
)
_PEAK_WORD = r"(?:on[-\s]?peak|peak)"
_OFF_WORD = r"(?:off[-\s]?peak)"
# "25 cents on peak", "on peak is 25 cents", "On-Peak $0.2809/kWh", "peak rate 25c"
_PRICE_THEN = r"\b{price}(?:\s*(?:a|per|/)\s*kwh)?\s+(?:for\s+|during\s+|at\s+)?{word}\b"
_WORD_THEN = r"(?<![-\w]){word}(?:\s+(?:rate|price|hours?))?\s*(?:is|=|:|at|of|costs?)?\s*(?:like\s+|about\s+|around\s+)?{price}"
# "peak is 4-9 at 38 cents", "On-Peak 3pm-8pm Mon-Fri $0.2809/kWh": the price after the peak's hours
_WORD_HOURS_THEN = r"(?<![-\w]){word}\b[^.,;$]{{0,30}}?(?:\bat\s+|\s)(?:like\s+|about\s+)?{price}"
_HOUR = r"(?P<{h}>\d{{1,2}})(?::(?P<{m}>[0-5]\d))?\s*(?P<{ap}>am\b|pm\b|a\.m\.?|p\.m\.?|a\b|p\b)?"
_WINDOW = re.compile(
    r"(?<!off\s)(?<!off-)(?<!off)\bpeak(?:\s+(?:hours?|time|period|window))?\s*(?:is|are|runs?|=|:)?\s*(?:from\s+)?"
    + _HOUR.format(h="h1", m="m1", ap="ap1")
    + r"\s*(?:-|–|to|till|until|thru|through)\s*"
    + _HOUR.format(h="h2", m="m2", ap="ap2")
    + r"|\b"
    + _HOUR.format(h="h3", m="m3", ap="ap3")
    + r"\s*(?:-|–|to)\s*"
    + _HOUR.format(h="h4", m="m4", ap="ap4")
    # ("4-7pm weekdays on peak 27 cents": the days said between the hours and the word)
    + r"\s+(?:(?:on\s+)?(?:weekdays?|mon(?:day)?\s*(?:-|–|to|thru)\s*fri(?:day)?|m\s*-\s*f)\s+)?"
    r"(?:is\s+)?(?:the\s+)?(?:on[-\s]?)?peak\b",
    re.I,
)


def _hours_range(joined: str = r"-|–|to|till|until") -> str:
    """ "11pm-7am", "9 to 6": a stretch of hours (groups h1/m1/ap1 to h2/m2/ap2)."""
    return (
        _HOUR.format(h="h1", m="m1", ap="ap1")
        + rf"\s*(?:{joined})\s*"
        + _HOUR.format(h="h2", m="m2", ap="ap2")
    )


_HOURS_FROM_TO = _hours_range()
_WEEKDAYS = re.compile(
    r"\b(?:weekdays?|mon(?:day)?\s*(?:-|–|to|thru|through)\s*fri(?:day)?|m\s*-\s*f|business\s+days)\b", re.I
)
_EVERY_DAY = re.compile(
    r"\b(?:every\s+day|7\s+days|all\s+week|weekends?\s+too|incl(?:uding|\.)?\s+weekends?)\b", re.I
)


_FREE = re.compile(
    # ("its free from 9pm to 6am": the nights word left out)
    r"\bfree\s+(?:(?:nights?|overnight|night\s*time|power\s+at\s+night|electricity\s+at\s+night)\s*)?(?:from\s+)?(?:is\s+)?"
    + _HOURS_FROM_TO,
    re.I,
)
_REST = re.compile(
    _PRICE.format(name="value", unit="unit")
    + r"(?:\s*(?:a|per|/)\s*kwh)?\s+(?:for\s+|during\s+|the\s+|in\s+the\s+)*"
    r"(?:rest|other\s+(?:hours|times)|daytime|days?|day\s*time)\b",
    re.I,
)


def _price_of(rest: re.Match[str]) -> float | None:
    """The price "otherwise" said, before it or after it ("18 cents otherwise", "otherwise 18")."""
    found = rest.groupdict()
    return _usd(found.get("value") or found.get("value2"), found.get("unit") or found.get("unit2"))


def free_nights(text: str) -> DescribedPlan | None:
    """ "free nights 9pm-6am and 19 cents a kwh the rest of the day": free hours and one price."""
    free = _FREE.search(text)
    rest = _REST.search(text) or _OTHERWISE.search(text)  # "… and like 16 cents otherwise"
    if free is None or rest is None:
        return None
    start = hour_of_day(int(free.group("h1")), free.group("ap1") or "pm", evening=True)
    end = hour_of_day(int(free.group("h2")), free.group("ap2") or "am", evening=False)
    price = _price_of(rest)
    if start is None or end is None or price is None:
        return None
    try:
        return DescribedPlan(
            window_start=start,
            window_end=end or 24,
            window_kind="off_peak",
            window_usd_per_kwh=0.0,
            other_usd_per_kwh=price,
        )
    except ValidationError:
        return None


# a third price ("super off-peak 0.21", "mid-peak", "shoulder"): a plan of three periods, which two
# prices would misprice
_THIRD_PERIOD = re.compile(r"\bsuper[-\s]?off|\bmid[-\s]?peak|\bpart(?:ial)?[-\s]?peak|\bshoulder\b", re.I)


# "off peak is 7.3 cents from 11pm to 7am": the off-peak hours, said instead of the peak's
_OFF_WINDOW = re.compile(
    r"(?<![-\w])off[-\s]?peak(?:\s+(?:hours?|time|period|window))?\b(?:[^.;!?]|\.(?=\d)){0,25}?\b(?:from\s+)?"
    + _HOURS_FROM_TO,
    re.I,
)
# "7.3 cents 11pm-7am and like 18 cents otherwise": a price for some hours, and one for the rest
_PRICED_HOURS = re.compile(
    _PRICE.format(name="value", unit="unit")
    + r"(?:\s*(?:a|per|/)\s*kwh)?\s+(?:from\s+|between\s+|for\s+)?"
    + _hours_range(r"-|–|to|till|until|and"),
    re.I,
)
_OTHERWISE = re.compile(
    _PRICE.format(name="value", unit="unit")
    + r"(?:\s*(?:a|per|/)\s*kwh)?\s+(?:for\s+|during\s+|in\s+)?(?:otherwise|the\s+rest\b|(?:all\s+|any\s+)?other\s+(?:times?|hours)|"
    r"the\s+other\s+hours|every\s*(?:thing|other\s+hour)\s+else)|"
    r"\b(?:otherwise|the\s+rest\s+(?:of\s+the\s+(?:time|day)\s+)?(?:is\s+)?|other\s+times\s+(?:are\s+)?)(?:like\s+|about\s+)?"
    + _PRICE.format(name="value2", unit="unit2"),
    re.I,
)


# "we pay 9 cents at night and 22 during the day, day is 7am to 11pm": two prices by day and night,
# and the hours of one of them
_NIGHT = r"(?:at\s+night|overnight|nights?|night\s*time)"
_DAY = r"(?:during\s+the\s+day|in\s+the\s+day(?:time)?|daytime|days?|day\s*time)"
_DAY_OR_NIGHT_HOURS = re.compile(
    r"\b(?P<which>day(?:time)?|night(?:time)?|nights|overnight)\s*(?:hours?\s+)?(?:is|are|=|:|runs?|goes)?\s*(?:from\s+)?"
    + _HOURS_FROM_TO,
    re.I,
)


def _said_for(text: str, word: str) -> float | None:
    """The price said beside "at night" or "during the day" (a bare number too, beside a price said
    with its unit elsewhere in the message)."""
    price = _PRICE.format(name="value", unit="unit")
    for shape in (
        rf"\b{price}(?:\s*(?:a|per|/)\s*kwh)?\s+{word}\b",
        rf"\b{word}\s*(?:is|=|:|at|it'?s)?\s*(?:like\s+|about\s+)?{price}",
    ):
        found = re.search(shape, text, re.I)
        if found is not None and (usd := _usd(found.group("value"), found.group("unit"))) is not None:
            return usd
    if not re.search(r"\d\s*(?:cents?\b|c\b|¢)|\$", text, re.I):
        return None
    bare = re.search(rf"(?<![\d:.\-–])(\d{{1,2}}(?:\.\d{{1,2}})?)\s+(?:cents?\s+)?{word}\b", text, re.I)
    return _usd(bare.group(1), None) if bare else None


def _day_and_night(text: str) -> DescribedPlan | None:
    hours = _DAY_OR_NIGHT_HOURS.search(text)
    night, day = _said_for(text, _NIGHT), _said_for(text, _DAY)
    if hours is None or night is None or day is None or night == day:
        return None
    window = _hours(hours)
    if window is None:
        return None
    is_night = hours.group("which").lower().startswith(("night", "over"))
    window_usd, other_usd = (night, day) if is_night else (day, night)
    try:
        return DescribedPlan(
            window_start=window[0],
            window_end=window[1],
            window_kind="off_peak" if window_usd < other_usd else "peak",
            window_usd_per_kwh=window_usd,
            other_usd_per_kwh=other_usd,
        )
    except ValidationError:
        return None


def _hours(found: re.Match[str]) -> tuple[int, int] | None:
    """(start, end) of an off-peak or priced window ("11pm-7am", "9 to 6")."""
    start = hour_of_day(int(found.group("h1")), found.group("ap1") or found.group("ap2"), evening=True)
    end = hour_of_day(int(found.group("h2")), found.group("ap2"), evening=False)
    return None if start is None or end is None else (start, end or 24)


def _window_priced_alone(text: str, peak: float | None, off: float | None) -> DescribedPlan | None:
    """The plan told by its cheap (or dear) hours rather than the peak's: "off peak is 7.3 cents
    from 11pm to 7am, on peak 18 cents", "7.3 cents 11pm-7am and like 18 cents otherwise"."""
    off_window = _OFF_WINDOW.search(text)
    if off_window is not None and peak is not None and off is not None and off < peak:
        window, window_usd, other_usd = _hours(off_window), off, peak
    else:
        priced, rest = _PRICED_HOURS.search(text), _OTHERWISE.search(text)
        if priced is None or rest is None:
            return None
        window_usd = _usd(priced.group("value"), priced.group("unit"))
        other_usd = _price_of(rest)
        window = _hours(priced)
    if window is None or window_usd is None or other_usd is None or window_usd == other_usd:
        return None
    try:
        return DescribedPlan(
            window_start=window[0],
            window_end=window[1],
            window_kind="off_peak" if window_usd < other_usd else "peak",
            window_usd_per_kwh=window_usd,
            other_usd_per_kwh=other_usd,
            weekdays_only=bool(_WEEKDAYS.search(text))
            and not _EVERY_DAY.search(text)
            and window_usd > other_usd,
        )
    except ValidationError:
        return None


def described_plan(text: str) -> DescribedPlan | None:
    """The plan the words describe, or None when a price or the peak's hours are missing (or a
    third period is named: two prices would misprice its hours)."""
    if _THIRD_PERIOD.search(text):
        return None
    if (free := free_nights(text)) is not None:
        return free
    peak = _price_for(text, _PEAK_WORD)
    off = _price_for(text, _OFF_WORD)
    # "25 cents on peak 5-9pm weekdays, 11 off peak": beside a price said with its unit, a bare
    # number before the other period's name is that period's price (alone it may be an hour)
    if peak is not None and off is None:
        off = _price_for(text, _OFF_WORD, bare=True)
    elif off is not None and peak is None:
        peak = _price_for(text, _PEAK_WORD, bare=True)
    window = _WINDOW.search(text)
    if window is None or peak is None or off is None:
        return _window_priced_alone(text, peak, off) or _day_and_night(text)
    if peak <= off:
        return None
    groups = window.groupdict()
    first = ("h1", "m1", "ap1") if groups["h1"] else ("h3", "m3", "ap3")
    last = ("h2", "m2", "ap2") if groups["h2"] else ("h4", "m4", "ap4")
    # ("peak is 4-9", "3-7pm": a peak is the afternoon's or the evening's)
    start = hour_of_day(int(groups[first[0]]), groups[first[2]] or groups[last[2]], evening=True)
    end = hour_of_day(int(groups[last[0]]), groups[last[2]], evening=True)
    if start is None or end is None:
        return None
    try:
        return DescribedPlan(
            window_start=start,
            window_end=end or 24,
            window_kind="peak",
            window_usd_per_kwh=peak,
            other_usd_per_kwh=off,
            weekdays_only=bool(_WEEKDAYS.search(text)) and not _EVERY_DAY.search(text),
        )
    except ValidationError:
        return None


def _price_for(text: str, word: str, *, bare: bool = False) -> float | None:
    """The price said beside "peak" or "off peak" (the off-peak words are never the peak's)."""
    scope = text if word == _OFF_WORD else re.sub(_OFF_WORD, " ", text, flags=re.I)
    for shape in (_WORD_THEN, _PRICE_THEN, _WORD_HOURS_THEN):
        pattern = shape.format(word=word, price=_PRICE.format(name="value", unit="unit"))
        for match in re.finditer(pattern, scope, re.I):
            price = _usd(match.group("value"), match.group("unit"))
            if price is not None:
                return price
    if not bare:
        return None
    # a bare number right before the period's name (never an hour's: "9-11 off peak" is a range,
    # "11pm off peak" has its am/pm)
    found = re.search(
        r"(?<![\d:.\-–])(\d{1,2}(?:\.\d{1,2})?)\s+(?:for\s+|during\s+|at\s+)?" + word + r"\b", scope, re.I
    )
    return _usd(found.group(1), None) if found else None


def _usd(value: str, unit: str | None) -> float | None:
    """Dollars per kWh from "25 cents", "$0.2809", ".31", "25" (a bare whole number is cents)."""
    digits = value.replace("$", "").strip()
    if not digits or digits == ".":
        return None
    number = float(digits)
    dollars = "$" in value or (unit or "").strip().startswith("/") or (unit or "") == "$" or "." in digits
    if unit and unit.lower().startswith(("cent", "c", "¢")):
        dollars = False
    usd = number if dollars and number < 2 else number / 100
    return round(usd, 4) if 0.01 <= usd <= 2 else None
