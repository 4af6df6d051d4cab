"""What the claims grader reads: numbers, clock times and dates in a text (an answer, or evidence),
and the evidence of a trace — every number, time and date a claim may come from — indexed so
each claim is one lookup (linear in the trace, < 10 ms on 1 000 steps).

Numbers carry a unit class: money (dollars; cents are converted), kwh, kw, pct, days, or ""
(unknown). A money, kWh, kW or % claim needs evidence of that very unit: a number written with
it ("$9.58", "31.9 kWh", "30 cents", "80 percent") or a JSON value whose key names it
(`key_unit`: planned_cost_usd, grid_kwh, power_kw, current_soc_pct, price/cost keys); a % may
also be a unitless fraction (efficiency 0.9 -> 90%). A days claim takes "days" or a unitless
number. A claim of unknown unit may come from any number. Numbers that are no quantity are
kept apart by their own unit class, so they back only unitless claims ("January 22"): the parts
of a date ("date"), a clock hour such as ready_by_hour ("time"), latitude/longitude ("geo").
Identifiers (user_id, step ids, any *_id key) are not evidence at all. Signs are kept: a
figure the trace holds as -122.4 (or writes "-5 kWh") backs "-122.4", never "$122".

A number in an answer also carries the tolerance its shown precision allows (31.9 -> ±0.05).
After "about / around / roughly / approximately / approx. / nearly / almost / close to / some
/ ~" trailing zeros state a rounding: a whole number's as before ("about 30" -> ±5, "about
$3,300" -> ±50); a decimal's to the next step ("about $9.60" -> ±0.05, so 9.58 passes; "about
$12.00" -> ±0.5), never more than 10 % of the value ("about $0.30" -> ±0.03). A decimal without
a trailing zero keeps its shown precision even after "about": "about 31.8 kWh" is a wrong
rounding of 31.94, not an approximation of it (one digit less would let every figure within
±0.5 through). A clock time matches within a minute (a time shown rounded), or within 30 minutes
after those words (±30 min: "around 3 AM" for 02:51, a time rounded to the half hour or hour).
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from context_forge.core.trace import (
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    StateChangeStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)

from config.clock import as_utc

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = r"kWh|kW|MWh|Wh|%|¢|cents?\b|days?\b|percent\b|dollars?\b|USD\b"
# An ISO date-time (in evidence) is read as a whole, so its UTC offset is not taken for a clock time.
_ISO = r"(?P<iso>\d{4}-\d\d-\d\d)(?:[T ](?P<ih>\d\d):(?P<im>\d\d)(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)?)?"
_START = re.compile(r"[0-9$]")
_TOKENS = re.compile(
    r"(?:"
    rf"{_ISO}"
    r"|(?<![\d:.])(?P<h>[01]?\d|2[0-4]):(?P<m>[0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?!\d)(?:\s?(?P<ap>[AaPp])\.?[Mm]\b\.?)?"
    r"|(?<![\d:.,])(?P<h2>1[0-2]|0?[1-9])\s?(?P<ap2>[AaPp])\.?[Mm]\.?(?![A-Za-z])"
    rf"|(?<![A-Za-z0-9.,_/#])(?<![A-Za-z]-)(?P<dollar>\$\s?)?(?P<num>{NUM})(?P<unit>\s?(?:{_UNIT}))?(?P<k>k\b)?"
    r")"
)
_GROUPS = ("iso", "ih", "im", "h", "m", "ap", "h2", "ap2", "dollar", "num", "unit", "k")
_GLUED = re.compile(r"[A-Za-z]")
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b")
_URL = re.compile(r"https?://\S+|www\.\S+")
# Not claims, on principle: list numbering, citations, "24/7", names ("Model 3", "Level 2").
_SKIPPED = re.compile(
    r"(?m)^\s*(?:[-*•]\s*)?\d{1,2}[.)](?=\s)"
    r"|\[\d{1,3}\]"
    r"|\b24/7\b"
    r"|\b(?:Model|Level|Powerwall|Type|Title|Tier)\s+\d+\b"
)
_APPROX = re.compile(
    r"(?:about|around|roughly|approximately|approx\.|nearly|almost|close to|some|~)\s*$", re.I
)
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_STAMPS = {"updated_at", "created_at"}  # when a record was saved: a source for dates only
# Units a claim must find in the evidence as such (module docstring); the unit classes of numbers
# that are no quantity, which back unitless claims only.
STRICT = frozenset({"money", "kwh", "kw", "pct"})
DATE, TIME, GEO = "date", "time", "geo"
_GEO_KEYS = {"lat", "lon", "lng", "latitude", "longitude"}
# A minus sign is a sign after these (or at the start), not a hyphen or a range: "(-5 kWh)",
# "was -$1.61", never "30-80%", "EV2-A", "02:51-07:00".
_SIGN_AFTER = frozenset(" \t\n([{=:,;")
APPROX_MINUTES = 30


class Number(NamedTuple):
    value: float  # money in dollars
    unit: str  # money | kwh | kw | pct | days | "" (unknown)
    tolerance: float
    start: int
    end: int
    text: str


class Clock(NamedTuple):
    minutes: int
    start: int
    end: int
    text: str
    tolerance: int = 1  # minutes; APPROX_MINUTES after "about", "around" …


def _unit_of(dollar: str | None, unit: str | None) -> tuple[str, float]:
    """(unit class, factor to the class's base unit)."""
    if dollar:
        return "money", 1.0
    if not unit:
        return "", 1.0
    word = unit.strip().lower()
    if word in ("¢", "cent", "cents"):
        return "money", 0.01
    if word in ("kwh", "kw"):
        return word, 1.0
    if word in ("day", "days"):
        return "days", 1.0
    if word in ("dollar", "dollars", "usd"):
        return "money", 1.0
    if word == "percent":
        return "pct", 1.0
    if word in ("mwh", "wh"):
        return "kwh", 1000.0 if word == "mwh" else 0.001
    return ("pct", 1.0) if word == "%" else ("", 1.0)


@functools.lru_cache(maxsize=4096)
def key_unit(name: str) -> str:
    """The unit class of a JSON value from its key: planned_cost_usd -> money, grid_kwh -> kwh."""
    name = name.lower()
    if "usd" in name or "cost" in name or "price" in name or "dollar" in name:
        return "money"
    for word in re.split(r"[^a-z0-9]+", name):  # battery_kwh_added, ev_kwh_per_month -> kwh
        if unit := _KEY_WORDS.get(word):
            return unit
    return ""


_KEY_WORDS = {"kwh": "kwh", "kw": "kw", "pct": "pct", "percent": "pct", "days": "days"}


def _is_id(key: str) -> bool:
    """An identifier's key (user_id, step_id, tool_call_id, id): its digits are no quantity."""
    key = key.lower()
    return key == "id" or key.endswith("_id") or key == "namespace"


def _signed(text: str, start: int) -> bool:
    """A minus sign right before `start` (module docstring: `_SIGN_AFTER`)."""
    return start >= 1 and text[start - 1] in "-−" and (start == 1 or text[start - 2] in _SIGN_AFTER)


def _hour(hour: int, ampm: str | None) -> int:
    if not ampm:
        return hour
    return hour % 12 + (12 if ampm.lower() == "p" else 0)


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """`_TOKENS.finditer`, but the regex runs only where a digit or "$" is (found by a plain
    character search): four times faster on long passages."""
    position = 0
    while (hit := _START.search(text, position)) is not None:
        match = _TOKENS.match(text, hit.start())
        if match is None:
            position = hit.start() + 1
            continue
        yield match
        position = match.end()


def read_tokens(
    text: str, *, answer: bool = False
) -> tuple[list[Number], list[Clock], list[tuple[int, int, str]]]:
    """Numbers, clock times and ISO dates of a text. In an answer, what is not a claim is skipped
    (URLs, list numbering, citations, 24/7, names, years written alone)."""
    skipped: list[tuple[int, int]] = []
    if answer:
        skipped = [m.span() for m in _URL.finditer(text)] + [m.span() for m in _SKIPPED.finditer(text)]
    numbers: list[Number] = []
    clocks: list[Clock] = []
    dates: list[tuple[int, int, str]] = []
    for match in _tokens(text):
        start, end = match.span()
        if skipped and any(a <= start < b for a, b in skipped):
            continue
        iso, ih, im, h, m, ap, h2, ap2, dollar, raw, unit_text, k = match.group(*_GROUPS)
        if iso:
            dates.append((start, end, iso))
            if ih is not None:
                clocks.append(Clock(int(ih) * 60 + int(im), start, end, match.group()))
            if not answer:  # its parts are evidence for "21 Jan" or "2026"
                numbers += [Number(float(part), "", 0.0, start, end, iso) for part in iso.split("-")]
            continue
        if h is not None or h2 is not None:
            hour = _hour(int(h or h2), ap or ap2)
            approx = answer and _APPROX.search(text[max(0, start - 20) : start]) is not None
            clocks.append(
                Clock(hour * 60 + int(m or 0), start, end, match.group(), APPROX_MINUTES if approx else 1)
            )
            continue
        after = text[end : end + 3]
        if not unit_text and not k and _GLUED.match(after) and not _ORDINAL.match(after):
            continue  # part of an identifier: 2FA, 5G
        digits = raw.replace(",", "")
        value = float(digits)
        decimals = len(digits) - digits.index(".") - 1 if "." in digits else 0
        unit, factor = _unit_of(dollar, unit_text)
        if answer and not unit and decimals == 0 and 1900 <= value <= 2100 and "," not in raw:
            continue  # a year
        tolerance = 0.5 * 10.0**-decimals
        if answer and _APPROX.search(text[max(0, start - 20) : start]):
            if decimals:  # "about $9.60" is rounded to the dime: its trailing zeros, at most 10 %
                shown = digits.rstrip("0")
                step = 0.5 * 10.0 ** -(len(shown) - shown.index(".") - 1)
                tolerance = max(tolerance, min(step, 0.1 * abs(value)))
            elif (zeros := len(digits) - len(digits.rstrip("0"))) < len(digits):
                tolerance = (
                    0.5 * 10.0**zeros
                )  # "about 30" is rounded to the ten, "about $3,300" to the hundred
        if k:
            factor *= 1000.0
        if answer and _signed(text, start):
            start, value = start - 1, -value
        numbers.append(Number(value * factor, unit, tolerance * factor, start, end, text[start:end]))
    return numbers, clocks, dates


# --- the evidence of a trace -------------------------------------------------------------------


class Found(NamedTuple):
    value: float  # signed; for a clock time: minutes after midnight
    unit: str  # a Number's unit class, or DATE / TIME / GEO (module docstring)
    step_id: str
    source: str  # the text (or "key=value") it was read from
    token: str = ""  # the number as written there

    @property
    def where(self) -> str:
        """The evidence around the number, for the report."""
        at = self.source.find(self.token) if self.token else -1
        if at < 0:
            return " ".join(self.source[:100].split())
        return " ".join(self.source[max(0, at - 40) : at + len(self.token) + 40].split())


# Evidence is read with one findall pass whose pattern starts with a character set (the regex
# engine then skips ahead at C speed; a trace may hold hundreds of passages), each token then
# split by a small pattern: more lenient than an answer's reading, as evidence may be.
_EV_TOKEN = re.compile(
    r"([-−]\$?|[$0-9])([0-9,.:]*)(?:(-[0-9]{2}-[0-9]{2})"
    r"|\s?(kWh|kW|MWh|Wh|%|¢|cents?\b|days?\b|percent\b|dollars?\b|USD\b)|\s?([AaPp])\.?[Mm]\b)?"
)
_ISO_VALUE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?"
)


_VALUE = operator.itemgetter(0)


def compatible(claim: Number, found: Found) -> bool:
    """A money, kWh, kW or % claim needs that unit; a days claim "days" or a unitless number; a
    claim of unknown unit any number (module docstring)."""
    if claim.unit in STRICT:
        return found.unit == claim.unit
    return not claim.unit or found.unit in (claim.unit, "")


@dataclass
class TraceEvidence:
    numbers: list[Found] = field(default_factory=list)
    clocks: list[Found] = field(default_factory=list)  # value: minutes after midnight
    dates: dict[str, str] = field(default_factory=dict)  # ISO date -> step id
    _keys: list[float] = field(default_factory=list)
    _sorted: list[Found] = field(default_factory=list)
    _clock_keys: list[float] = field(default_factory=list)
    _passages: bool = False

    def add_text(self, text: str, step_id: str) -> None:
        if len(text) <= 40 and "-" in text and (iso := _ISO_VALUE.fullmatch(text.strip())):  # a time stamp
            year, month, day, hour, minute = iso.groups()
            self.dates.setdefault(f"{year}-{month}-{day}", step_id)
            self.numbers.extend(Found(float(part), DATE, step_id, text, part) for part in (year, month, day))
            if hour is not None:
                self.clocks.append(Found(int(hour) * 60 + int(minute), "", step_id, text, f"{hour}:{minute}"))
            return
        numbers, clocks = self.numbers, self.clocks
        for match in _EV_TOKEN.finditer(text):
            first, rest, day, unit, ampm = match.groups()
            sign = 1.0
            if first[0] in "-−":  # a sign, or a hyphen (EV2-A, 5-7¢, 02:51-07:00): then read without it
                sign = -1.0 if _signed(text, match.start() + 1) else 1.0
                first = first[1:]
                if not first:
                    first, rest = rest[:1], rest[1:]
            digits = (rest if first == "$" else first + rest).rstrip(".,:")
            if not digits:
                continue
            token = match.group()
            if day:  # 2026-01-21: the date, and its parts for "21 Jan" (its year: below)
                self.dates.setdefault(first + rest + day, step_id)
                numbers.extend(Found(float(part), DATE, step_id, text, part) for part in day[1:].split("-"))
            if ampm or ":" in digits:  # a clock time: 07:00, 9 pm, 7:30 AM
                hour, _, minute = digits.partition(":")
                minute = minute[:2]
                if (
                    hour.isdigit()
                    and int(hour) <= 24
                    and (not minute or (minute.isdigit() and int(minute) < 60))
                ):
                    clocks.append(
                        Found(
                            _hour(int(hour), ampm) * 60 + (int(minute) if minute else 0),
                            "",
                            step_id,
                            text,
                            token,
                        )
                    )
                continue
            try:
                value = sign * float(digits.replace(",", ""))
            except ValueError:
                continue
            if day:
                numbers.append(Found(value, DATE, step_id, text, token))  # the year of a date
            elif first == "$":
                numbers.append(Found(value, "money", step_id, text, token))
            elif unit:
                kind, factor = _unit_of(None, unit)
                numbers.append(Found(value * factor, kind, step_id, text, token))
            else:
                numbers.append(Found(value, "", step_id, text, token))

    def add_json(
        self, value: Any, step_id: str, key: str = "", siblings: dict[str, Any] | None = None
    ) -> None:
        if key and _is_id(key):
            return
        if isinstance(value, str):
            if key in _STAMPS:
                self.dates.update({m.group(): step_id for m in _DAY.finditer(value)})
            elif any(ch.isdigit() for ch in value):
                self.add_text(value, step_id)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, int | float):
            name = key.lower()
            hour = name == "hour" or name.endswith("_hour")
            unit = GEO if name in _GEO_KEYS else TIME if hour else key_unit(key)
            self.numbers.append(Found(float(value), unit, step_id, f"{key}={value}"))
            if isinstance(value, int) and hour and 0 <= value <= 24:
                minute = (siblings or {}).get(
                    key[: -len("hour")] + "minute", 0
                )  # ready_by_hour + ready_by_minute
                minute = minute if isinstance(minute, int) and 0 <= minute < 60 else 0
                self.clocks.append(Found(value * 60 + minute, "", step_id, f"{key}={value}"))
        elif isinstance(value, dict):
            for child_key, child in value.items():
                self.add_json(child, step_id, "updated_at" if key == "sections" else str(child_key), value)
        elif isinstance(value, list | tuple):
            for child in value:
                self.add_json(child, step_id, key, siblings)

    def add_passages(
        self, trace: TraceRun, wanted: tuple[list[Number], list[Clock], list[str]] | None = None
    ) -> TraceEvidence:
        """Add the retrieved passages. With `wanted` claims and more than `MANY_PASSAGES` passages,
        only the passages that can hold one of the claims are read (`_digit_strings`)."""
        if self._passages:
            return self
        self._passages = True
        passages = [
            (step.step_id, r.content)
            for step in trace.steps
            if isinstance(step, RetrievalStep)
            for r in step.results
        ]
        digits = _digit_strings(*wanted) if wanted is not None and len(passages) > MANY_PASSAGES else None
        for step_id, text in passages:
            if digits is None or any(d in text for d in digits):
                self.add_text(text, step_id)
        return self.index()

    def index(self) -> TraceEvidence:
        self._sorted = sorted(self.numbers, key=_VALUE)
        self._keys = list(map(_VALUE, self._sorted))
        self.clocks.sort(key=_VALUE)
        self._clock_keys = list(map(_VALUE, self.clocks))
        return self

    def _between(self, low: float, high: float) -> list[Found]:
        return self._sorted[
            bisect.bisect_left(self._keys, low - 1e-9) : bisect.bisect_right(self._keys, high + 1e-9)
        ]

    def holding(self, claim: Number) -> list[Found]:
        """Every number in the evidence that matches the claim (same value and unit class)."""
        return [
            f
            for f in self._between(claim.value - claim.tolerance, claim.value + claim.tolerance)
            if compatible(claim, f)
        ]

    def supports(self, claim: Number) -> Found | None:
        """Evidence of the same value (within the claim's precision) in a compatible unit; a
        percentage may also be a fraction in the data (efficiency 0.9 -> 90%)."""
        for found in self._between(claim.value - claim.tolerance, claim.value + claim.tolerance):
            if compatible(claim, found):
                return found
        if claim.unit == "pct":
            for found in self._between(
                (claim.value - claim.tolerance) / 100, (claim.value + claim.tolerance) / 100
            ):
                if not found.unit and abs(found.value) <= 1:
                    return found
        return None

    def nearest(self, claim: Number) -> Found | None:
        """The closest number of a compatible unit (what the evidence holds instead)."""
        at = bisect.bisect_left(self._keys, claim.value)
        below, above = at - 1, at
        while below >= 0 or above < len(self._sorted):
            candidates = []
            if below >= 0:
                candidates.append(self._sorted[below])
            if above < len(self._sorted):
                candidates.append(self._sorted[above])
            for found in sorted(candidates, key=lambda f: abs(f.value - claim.value)):
                if compatible(claim, found):
                    return found
            below, above = below - 1, above + 1
        return None

    def clock(self, minutes: int, tolerance: int = 1) -> tuple[bool, Found | None]:
        """(a clock time in the evidence within `tolerance` minutes of `minutes` — a minute for a
        time shown rounded, APPROX_MINUTES for "around 3 AM" —, that time or else the nearest one)."""
        at = bisect.bisect_left(self._clock_keys, minutes - tolerance)
        if at < len(self.clocks) and self.clocks[at].value <= minutes + tolerance:
            return True, self.clocks[at]
        near = [self.clocks[i] for i in (at - 1, at) if 0 <= i < len(self.clocks)]
        return False, min(near, key=lambda item: abs(item.value - minutes), default=None)


MANY_PASSAGES = 50
# The scales a unit's reading converts by (scale 1 first): cents, a fraction for a %, Wh and MWh;
# a claim of unknown unit may match any of them.
_SCALES = {"money": (1, 100), "pct": (1, 0.01), "kwh": (1, 1000, 0.001), "": (1, 100, 0.01, 1000, 0.001)}


def _digit_strings(numbers: list[Number], clocks: list[Clock], dates: list[str]) -> set[str] | None:
    """Digit strings one of which any text holding a match for one of the claims contains: the
    integer part of every value within the tolerance, in every unit scale the reading converts
    (cents, %, Wh/MWh), with and without thousands separators; a time's hour (24- and 12-hour);
    a date as written. None: too many to be worth it."""
    found: set[str] = set(dates)
    for number in numbers:
        size = abs(number.value)  # the digits: a sign may be "-" or "−"
        for scale in _SCALES.get(number.unit, (1,)):
            low = int(max(0.0, size - number.tolerance) * scale)
            high = int((size + number.tolerance) * scale)
            if high - low > 20:
                if scale > 1 and size - number.tolerance >= 1:
                    continue  # scaled up, its digits start with the unscaled integer part
                return None
            for whole in range(low, high + 1):
                found.update((str(whole), f"{whole:,}"))
    for clock in clocks:
        for minutes in range(clock.minutes - clock.tolerance, clock.minutes + clock.tolerance + 1, 30):
            hour = minutes // 60 % 24
            found.update((str(hour), str(hour % 12 or 12)))
        hour = (clock.minutes + clock.tolerance) // 60 % 24
        found.update((str(hour), str(hour % 12 or 12)))
    return found


def section_age(stamp: Any, moment: datetime) -> int | None:
    """A profile section's age in UTC calendar days at `moment` (as MemoryHygiene counts it)."""
    try:
        return (moment.date() - as_utc(datetime.fromisoformat(str(stamp))).date()).days if stamp else None
    except (ValueError, OverflowError):  # not a time, or before year 1 in UTC
        return None


def collect(trace: TraceRun, *, passages: bool = True) -> TraceEvidence:
    """Everything a number may come from: tool calls (arguments and results), passages, the profile
    read and written (and the limits a refused value broke), the user's words in this turn; plus
    each profile section's age in days at the trace's own time. `passages=False` leaves out the
    retrieved passages (the bulk of a long trace's text) for a first look; `add_passages` adds them."""
    found = TraceEvidence()
    moment = as_utc(trace.started_at)
    ages: dict[tuple[str, Any], int | None] = {}
    for step in trace.steps:
        if isinstance(step, UserInputStep):
            found.add_text(str(step.content or ""), step.step_id)
        elif isinstance(step, ToolCallStep):
            found.add_json(step.arguments, step.step_id)
            found.add_json(step.result, step.step_id)
        elif isinstance(step, MemoryReadStep):
            found.add_json(step.results, step.step_id)
            for result in step.results:
                sections = result.get("sections") if isinstance(result, dict) else None
                for section, stamp in (sections if isinstance(sections, dict) else {}).items():
                    if (section, stamp) not in ages:
                        ages[section, stamp] = section_age(stamp, moment)
                    if (age := ages[section, stamp]) is not None:
                        found.numbers.append(
                            Found(float(age), "days", step.step_id, f"'{section}' section, {age} days old")
                        )
        elif isinstance(step, StateChangeStep) and step.state_key == "refused_facts":
            found.add_json(step.new_value, step.step_id)  # the profile's own limits, said with a refusal
        elif isinstance(step, StateChangeStep) and step.state_key == "stated_facts":
            # only the assumption a reading of the user's words used ("32 A at 240 V"), not the values
            # it read: a value must still be in the user's own words or a write to count
            assumptions = [
                fact["assumption"]
                for fact in step.new_value or []
                if isinstance(fact, dict) and isinstance(fact.get("assumption"), str)
            ]
            if assumptions:
                found.add_json(assumptions, step.step_id)
        elif isinstance(step, MemoryWriteStep):
            found.add_json(step.data, step.step_id)
            for change in step.changes or []:
                found.add_json(
                    {change.path.rsplit(".", 1)[-1]: [change.old_value, change.new_value]}, step.step_id
                )
    if passages:
        found.add_passages(trace)
    return found.index()
