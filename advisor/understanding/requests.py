"""Two requests in one message: "whens peak today and is it gonna rain", "whats the cheapest time to
charge and is it worth getting a home battery". A turn answers one request, so the message is cut
in two: the first request with everything else the user said (their facts are saved with it), and
the second request on its own, which the conversation service answers right after as its own turn.

Precision first: a cut answers a question the user did not ask when it is wrong, so the second
part must be a question on its own (its own question word, no "it"/"that" pointing back), read
confidently by itself, about another kind of answer than the first (a charging plan and the
weather; prices and an explanation), and naming its subject. Two explanations are never cut: the
knowledge search reads both halves of "whats community solar and can renters sign up" together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from advisor.understanding.meaning import TASK_TOPIC
from advisor.understanding.models import ReadingContext, Understanding
from advisor.understanding.text import sentences

Read = Callable[[str, ReadingContext], Understanding]

# "…and is it gonna rain", "…, also whens peak": a second question joined inside one sentence
_JOINT = re.compile(
    r"(?:,\s*|\s+)(?:(?:and|&)\s+(?:also\s+)?|also\s+|plus\s+)"
    r"(?=(?:is|are|should|can|could|what|whats|what's|when|whens|when's|how|hows|how's|will|would|do|does|any|which|why)\b)",
    re.I,
)
_DIRECT = re.compile(
    r"^\W*(?:(?:and|also|plus|ok|so|oh|btw|hey|hi)\W+)*"
    r"(?:is|are|should|can|could|what|whats|what's|when|whens|when's|how|hows|how's|will|would|do|does|any|which|why|where)\b",
    re.I,
)
# "wondering if the panels will do much", "trying to decide abt precooling": why they asked the
# first question, not a second one
_MOTIVE = re.compile(
    r"^\W*(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:just\s+)?(?:wondering|trying|deciding|debating|thinking|"
    r"worried|need\s+to\s+know|want\s+to\s+know|wanna\s+know|curious)\b",
    re.I,
)
# "is it the same on weekends", "should i join one", "how much range in that cold": about the first
# request's subject ("is it gonna rain" and "is it worth getting a battery" point at nothing)
_POINTS_BACK = re.compile(
    r"\b(?:that|this|them|those|one|there|they)\b|"
    r"\bit\b(?!\s+(?:ok|okay|worth|bad|better|cheaper|safe|smart|dumb|stupid|silly|crazy|wise|fine|pointless|"
    r"possible|true|normal|going|gonna|supposed|"
    r"likely|a\s+good|cold|hot|sunny|rain|snow|freez|windy|cloudy))",
    re.I,
)
# the words a request of each kind names its subject with ("what hours should i set the timer to"
# names no car, so it is no charging request of its own)
_SUBJECT = {
    "ev_charging": r"charg|\bev\b|\bcar\b|plug|truck|vehicle|battery|range|miles|%|model|leaf|bolt|tesla|ioniq|"
    r"mach|lightning|rivian",
    "weather": r"weather|forecast|rain|snow|\bsun|cloud|storm|wind|cold|hot|heat\s*wave|freez|temp|degrees|"
    r"\bhigh\b|\blow\b",
    "solar": r"solar|panel|\bsun|\bpv\b|array|produc|generat",
    "rates": r"peak|price|rate|cheap|expens|plan|bill|\btou\b|kwh|cost|run\s+(?:the|my)|dryer|dishwasher|"
    r"washer|pool|oven|heater",
}
_SURE = 0.75  # the reader's confidence a second request needs, read on its own
_REQUESTS = ("live_data", "knowledge")


@dataclass(frozen=True)
class SplitRequests:
    first: str  # the first request and every statement of the message
    second: str  # the other request, answered next as a turn of its own


def split_requests(
    text: str, whole: Understanding, context: ReadingContext, read: Read
) -> SplitRequests | None:
    """The message cut before its second request, or None when it holds one request (or the cut
    is not sure). `whole` is the message's own reading (the turn has it already); `read` reads
    its pieces, (text, context) -> Understanding, only when there are two or more."""
    if whole.intent not in _REQUESTS or context.pending_slot or whole.follow_up:
        return None
    both = _two_appliances(text) if whole.intent == "live_data" else None
    if both is not None:
        return both
    pieces = _pieces(text)
    if len(pieces) < 2:
        return None
    kinds: list[str | None] = []
    readings: list[Understanding] = []
    for piece in pieces:
        reading = read(piece, context)
        readings.append(reading)
        kinds.append(_kind(piece, reading, first=not any(kinds)))
    asked = [index for index, kind in enumerate(kinds) if kind]
    if len(asked) < 2:
        return None
    first = asked[0]
    second = next((index for index in asked[1:] if kinds[index] != kinds[first]), None)
    if second is None or {kinds[first], kinds[second]} == {"knowledge"}:
        return None
    # the message as a whole is read as one of the two, and the other is read surely on its own
    whole_kind = _kind_of(whole)
    other = second if whole_kind == kinds[first] else first if whole_kind == kinds[second] else None
    if other is None or readings[other].confidence < _SURE:
        return None
    rest = _without(text, pieces[second])
    asked = re.sub(r"^\W*(?:(?:and|also|plus|&)\s+)+", "", pieces[second].strip(), flags=re.I)
    return SplitRequests(first=rest, second=asked) if rest else None


# "should i run the dishwasher + dryer now or wait": two machines asked about in one breath
_MACHINE = r"dishwasher|dryer|washer|oven|pool\s+pump|hot\s+tub|space\s+heater|water\s+heater|dehumidifier"
_TWO_MACHINES = re.compile(
    rf"\b(?P<a>{_MACHINE})\s*(?:\+|&|/|,|\band\b)\s*(?:the\s+|my\s+)?(?P<b>{_MACHINE})\b", re.I
)


def _two_appliances(text: str) -> SplitRequests | None:
    """Each machine gets its own verdict (the second one had been dropped); a washer and a dryer
    together are a load of laundry, one verdict."""
    found = _TWO_MACHINES.search(text)
    machines = {found.group("a").lower(), found.group("b").lower()} if found else set()
    if found is None or len(machines) < 2 or machines == {"washer", "dryer"}:
        return None
    first = text[: found.start()] + found.group("a") + text[found.end() :]
    second = text[: found.start()] + found.group("b") + text[found.end() :]
    return SplitRequests(first=first, second=second)


def _pieces(text: str) -> list[str]:
    found: list[str] = []
    for sentence in sentences(text):
        found += [part.strip(" ,") for part in _JOINT.split(sentence) if part and part.strip(" ,")]
    return found


def _kind(piece: str, reading: Understanding, *, first: bool) -> str | None:
    """What kind of answer the piece asks for on its own (a topic's live answer, or "knowledge"),
    or None when it is no request of its own."""
    if len(piece.split()) < (3 if first else 4) or _MOTIVE.match(piece) or not reading.asks:
        return None
    if not first and (
        reading.confidence < _SURE or (_POINTS_BACK.search(piece) and not _needs_a_charge(reading))
    ):
        return None  # ("i need it at 80% by 6:30": the car, which the profile names)
    # (a later one opens with its question word: "…, yes?" only asks about the first)
    direct = _DIRECT.match(piece) is not None or (first and piece.rstrip().endswith("?"))
    kind = _kind_of(reading)
    if kind is None or not (direct or (first and reading.params.task) or _needs_a_charge(reading)):
        return None  # a statement asks as the first request, or when it says what the car needs by when
    if not direct and kind in ("weather", "solar"):
        return None  # "hurricane might hit fri. how long would a powerwall run my fridge": why they ask
    if kind != "knowledge" and not first and not re.search(_SUBJECT.get(kind, "."), piece, re.I):
        return None
    return kind


def _needs_a_charge(reading: Understanding) -> bool:
    """ "i need 80% by 6:30 tomorrow": a level or miles wanted by a time is a charging request."""
    params = reading.params
    wanted = params.target_soc_pct is not None or params.miles_needed is not None
    return params.task == "charging_plan" and wanted and params.ready_by_hour is not None


def _kind_of(reading: Understanding) -> str | None:
    if reading.intent == "live_data" and reading.asks:
        return TASK_TOPIC.get(reading.params.task or "", reading.topic)
    if reading.intent == "knowledge" and reading.asks:
        return "knowledge"
    return None


def _without(text: str, piece: str) -> str:
    """The message without the second request and the "and" that joined it."""
    at = text.find(piece)
    if at < 0:
        return ""
    ended = re.search(r"[.?!]\s*$", text[:at]) is not None
    mark = (
        "?" if piece.rstrip().endswith("?") and not ended else ""
    )  # "when should i charge my leaf? pge e-tou-c 94110"
    rest = text[:at] + mark + text[at + len(piece) :]
    rest = re.sub(r"(?:\s*(?:,\s*|\s+)(?:and|also|plus|&))+\s*(?=[?.!]|$)", "", rest, flags=re.I)
    return re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", rest)).strip()
