"""A request's parameters in the user's words: ready-by time, charge levels, appliance, day.

Read once by intake and passed to the analyzer as data, so a follow-up ("what about by 6am
instead?") can change one of them and keep the rest.
"""

from __future__ import annotations

import re

from advisor.understanding.models import WEEKDAYS, Mention, ReadingContext, RequestParams
from advisor.understanding.text import NUMBER_WORDS

_DEADLINE = re.compile(
    r"\b(?:by|before|until|til|till|ready\s+(?:at|by|for)|leave\s+at|leaving\s+at|need\s+it\s+(?:at|by))\s+"
    r"(?:(?:(?:this|next)\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow)(?:\s+morning)?\s+(?:at\s+)?)?"  # "by monday 7am"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d)(?=\s*[ap]\.?m))?"  # "6:30", "630am"
    r"\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?!\s*(?:%|percent))(?![\d:])",
    re.I,
)
# "leaving for tahoe 6am saturday", "heading out to the airport at 5:15": where they go, then when
# (a clock time with am/pm or minutes: "leaving for 2 weeks" is no time)
_LEAVING_FOR = re.compile(
    r"\b(?:leave|leaving|head(?:ing)?\s+out|depart(?:ing)?|tak(?:e|ing)\s+off)\s+(?:for|to)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?\s+"
    r"(?:at\s+|around\s+|by\s+)?(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d)(?=\s*[ap]\.?m))?"
    r"\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?<=[\d.mM])(?=(?::\d)|\s*[ap]\.?m|[^\d:]|$)",
    re.I,
)
# "140 miles, leaving 8am", "we head out 6:45": when they go, said without "at" (a clock time)
_LEAVING_TIME = re.compile(
    r"\b(?:leave|leaving|leaves|head(?:ing)?\s+out|out\s+the\s+door)\s+(?:around\s+|about\s+|like\s+)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d)(?=\s*[ap]\.?m))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?"
    r"(?<=[\dmM.])(?:(?<=[mM.])|(?<=:\d\d))(?![\w:%])",
    re.I,
)
_SHORT_TIME = re.compile(
    r"(?<![\d:])(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d))?\s*(?P<half>a\.?m\.?|p\.?m\.?)(?![\w])|"
    # "make that 6:30": a clock time with minutes needs no am/pm
    r"(?<![\d:])(?P<hour2>\d{1,2}):(?P<minute2>[0-5]\d)(?![\d%])",
    re.I,
)
# "by (tomorrow) morning", "before work in the morning": done by 07:00, and the reply names that time
MORNING_HOUR = 7
_BY_MORNING = re.compile(
    # ("needs it full by saturday morning": that day's morning)
    r"\b(?:by|before|until|til|till)\s+(?:the\s+)?(?:tomorrow\s+|tmrw\s+|(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+)?morning\b",
    re.I,
)
_NOON = re.compile(r"\b(?:by|before|until|ready\s+(?:at|by))\s+(?P<word>noon|midnight)\b", re.I)
_TARGET = re.compile(
    r"\b(?:to|only\s+need|need(?:\s+only)?|(?:need|want)(?:\s+it)?\s+at|want|up\s+to|charge\s+to|get\s+to|get\s+it\s+to|reach|(?<!will\s)(?<!'ll\s)(?<!ll\s)be\s+at|"
    r"target(?:\s+of)?|at\s+least)\s+(?:about\s+|around\s+)?(?P<pct>-?\d{1,3})\s*(?:%|percent)(?!\s+now)",
    re.I,
)
_FROM_TO = re.compile(r"\bfrom\s+(\d{1,3})\s*%?\s+to\s+(\d{1,3})\s*(?:%|percent)", re.I)
# "take the ev6 from 10 to 80": levels without their unit, when the second cannot be an hour
_FROM_TO_BARE = re.compile(
    r"\b(?:from|for)\s+(\d{1,2})\s+(?:up\s+)?to\s+(\d{2,3})\b(?!\s*(?:miles?|mi\b|km|kwh|kw|degrees|°|cents|¢|am\b|pm\b|a\.m|p\.m|:))",
    re.I,
)
# "actually make it 80", "change that to 70%": a level put in place of the one asked for (30-100, so
# "make it 7" stays an hour)
_MAKE_IT_LEVEL = re.compile(
    r"\b(?:make|change|set|bump|drop|lower|raise|put)\s+(?:it|that|this)\s+(?:to\s+|up\s+to\s+|down\s+to\s+)?"
    r"(?P<pct>(?:[3-9]\d|100))\s*(?:%|percent|pct)?(?!\s*(?:am|pm|a\.m|p\.m|kw|kwh|mi|miles|:|\.\d|¢|cents))\b",
    re.I,
)
_FROM_EMPTY = re.compile(
    r"\bfrom\s+(?:empty|dead|zero|nothing|flat)\b|\b(?:completely|totally)\s+(?:empty|dead)\b", re.I
)
# "its nearly empty", "basically dead", "running on fumes": a level said without a number
_NEARLY_EMPTY = re.compile(
    r"\b(?:nearly|almost|basically|pretty\s+much|practically)\s+(?:empty|dead)\b|\b(?:running\s+)?on\s+fumes\b",
    re.I,
)
NEARLY_EMPTY_PCT = 10.0
# "a full battery", "fully charged", "a full charge", "to full": 100 %
_FULL = re.compile(
    r"\b(?:to\s+full|(?:be|get\s+it|it)\s+full|fully\s+charged|full\s+(?:battery|charge|tank)|"
    r"full\s+(?:by|before|for|til|till|until)\b|topped\s+(?:off|up)|top\s+(?:it\s+)?(?:off|up))\b",
    re.I,
)
# "need 90 by 630am", "i4 at 85 by 6:30": a bare number right before a deadline is the level wanted
_LEVEL_BY = re.compile(
    r"(?<![\w.:$])(?P<pct>100|[1-9]\d)\s*(?:%|percent)?\s+(?:by|before|til|till|until)\s+"
    r"(?=\d|tomorrow|tmrw|morning|noon|the\s+morning|(?:mon|tues|wednes|thurs|fri|satur|sun)day)",
    re.I,
)
_CURRENT = re.compile(
    r"\b(?:from|is\s+at|currently(?:\s+at)?|at|it'?s\s+at|sitting\s+at|have)\s+(?P<pct>\d{1,3})\s*(?:%|percent)\s+(?:now|right\s+now|currently|left)\b|"
    r"\b(?:from|is\s+at|currently(?:\s+at)?|it'?s\s+at|it\s+is\s+at|sits\s+at|(?<!be\s)at|usually\s+at)\s+(?P<pct2>\d{1,3})\s*(?:%|percent)|"
    # "gotta be at 80% by 6:45, at 35 now": a bare level said with "now" is the level now
    r"\b(?:at|only\s+at|sitting\s+at)\s+(?P<pct3>\d{1,3})\s+(?:now|rn|right\s+now|currently|atm)\b|"
    # "currently at 35", "rn its at 40": all the message says is the level now
    r"^\W*(?:currently|rn|right\s+now|now|atm)\s+(?:it'?s\s+|its\s+|it\s+is\s+)?(?:at\s+)?(?P<pct4>\d{1,2}|100)\W*$|"
    # "what about tomorrow, i'll be at 50%": where the charge will start
    r"\b(?:i|it|she|he|we|they|car|battery)(?:'ll|ll|\s+will)\s+(?:only\s+|still\s+)?be\s+at\s+(?P<pct5>\d{1,3})\s*(?:%|percent)?",
    re.I,
)
# "its at 20" (no %) beside a charge level stated with one: the level now, in a charging request
_BARE_CURRENT = re.compile(
    # ("my model y is at 30, need 80 by 7am": whatever "is at" a number beside a target)
    r"\b(?:(?:it'?s|its|it\s+is|(?:the\s+)?battery(?:'s|\s+is)?|i'?m|we'?re|"
    r"(?!(?:temp|temps|temperature|thermostat|heat|house|outside|weather|price|rate|bill|peak|it)\b)[a-z0-9]+(?:\s+is|'s))\s+"
    # ("its sitting at 25", "it's still only at 40")
    r"(?:(?:only|currently|now|sitting|still|just|showing|reading)\s+){0,2}at|currently(?:\s+at)?)"
    r"\s+(?P<pct>\d{1,3})\b(?![.,:]?\d|\s*(?:%|percent|k?wh?\b|kw|a\.?m\b|p\.?m\b|am\b|pm\b|o'?clock|degrees|°|"
    r"cents?|¢|miles?|mi\b|mph|amps?|a\b|v\b|volts?|hours?|hrs?|minutes?|mins?))",
    re.I,
)
# "in 1 hour", "in 30 minutes", "in 2 hrs", "in an hour and a half", "in half an hour": from now
_COUNTS = {
    "a": 1,
    "an": 1,
    **NUMBER_WORDS,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
}
_AMOUNT = (
    r"(?:\d+(?:\.\d+)?|"
    + "|".join(w.replace(" ", r"\s+") for w in sorted(_COUNTS, key=len, reverse=True))
    + r")"
)
_IN_TIME = re.compile(
    r"\b(?:in|within)\s+(?:(?:about|around|roughly|like|just|only|under|less\s+than)\s+)?(?:the\s+next\s+)?"
    r"(?:(?P<half_an>half\s+an?\s+hour)|"
    r"(?P<hours>" + _AMOUNT + r")\s*(?:hours?|hrs?|h)\b(?P<and_half>\s+and\s+a\s+half)?"
    r"(?:,?\s*(?:and\s+)?(?P<plus_min>\d{1,2})\s*(?:minutes?|mins?)\b)?|"
    r"(?P<minutes>" + _AMOUNT + r")\s*(?:minutes?|mins?)\b)",
    re.I,
)
# "I'll be home in 2 hours" is when charging can start, not when the car must be ready
_NOT_A_DEADLINE = re.compile(
    r"\b(?:home|back|arriv\w*|get\s+in|plug\w*(?:\s+it)?\s+in|start\w*|begin\w*|off\s+work|(?:been|was)\s+charging|ago|"
    r"takes?|took|charges|charged|fills?\s+up)\W*(?:\w+\W+){0,2}$",  # "it charges in 8 hours" is how long, not by when
    re.I,
)
_APPLIANCES = re.compile(
    r"\b(dryer|dish\s+washer|washer|washing\s+machine|dishwasher|laundry|oven|pool\s+pump|water\s+heater|hot\s+tub|space\s+heater|"
    r"air\s+conditioner|ac|heat\s+pump|induction|stove|well\s+pump|sump\s+pump|dehumidifier|swamp\s+cooler|"
    r"evaporative\s+cooler)(?:s|es)?\b|\b(?P<heat_water>heat(?:ing)?\s+(?:the\s+|my\s+|our\s+)?(?:hot\s+)?water)\b|"
    r"\b(?P<precool>pre-?cool\w*)\b|\b(?P<window_ac>window\s+(?:unit|ac|a/c)|a/c)(?!\w)|"
    # "wash the clothes", "do the wash", "dry a load": laundry said by what is done
    # ("is now a good time to dry the sheets")
    r"\b(?P<laundry>(?:wash|dry)(?:ing)?\s+(?:the\s+|my\s+|our\s+|some\s+|a\s+)?(?:clothes|sheets|towels|bedding|"
    r"blankets|jeans|laundry|load)|do(?:ing)?\s+(?:the\s+|a\s+)?(?:wash|washing)|"
    r"(?:a\s+)?loads?\s+of\s+(?:wash|washing|clothes))\b",
    re.I,
)
_MILES = re.compile(
    r"\b(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k\s*)?(?:miles?|mi)\s*(?:a|an|per|/|each|every)\s*(?P<unit>day|week|month|year)\b",
    re.I,
)
# "we drive maybe 1000 mi" asked with "what would charging cost us per month": the question's period
_MILES_DRIVEN = re.compile(
    # ("what does it cost a month to charge for 1000 miles": the miles the question's month holds)
    r"\b(?:drive|drives|driving|do|does|put\s+on|puts\s+on|for)\s+(?:about\s+|around\s+|maybe\s+|like\s+|roughly\s+|~)?"
    r"(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k\s*)?(?:miles?|mi)\b(?!\s*(?:a|an|per|/|each|every)\s)",
    re.I,
)
_PERIOD_ASKED = re.compile(
    r"\b(?:(?:a|per|each|every)\s+(?P<unit>day|week|month|year)|(?P<ly>daily|weekly|monthly|yearly))\b", re.I
)
_HOUSE_KWH = re.compile(
    r"\b(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*kwh\s*(?:a|per|/|each|every)\s*(?P<unit>month|year)\b", re.I
)
_PER_MONTH = {"day": 365 / 12, "week": 52 / 12, "month": 1.0, "year": 1 / 12}


# "a 6 kw solar system", "6kw of panels", "a solar system of 6 kW": a size someone asks about
_SYSTEM_SIZE = re.compile(
    r"\b(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)\s*(?:of\s+)?(?:solar|pv|panels?|system|array|setup|on\s+(?:my|our|the)\s+(?:[\w-]+\s+)?roof)"
    r"|\b(?:solar|pv)\s+(?:system|array)?\s*of\s+(\d{1,2}(?:\.\d+)?)\s*(?:kw|kilowatts?)\b(?!h)"
    # "what would 7kw make in san diego": a size and what it makes
    r"|\b(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)(?=\s+(?:make|makes|produce|produces|generate|generates|do|give|get)\s+(?:for\s+)?(?:us|me|here|a\s+year|per|in|each)\b)"
    # "what would a 10kw make at our place", "what would 10 kw make on our house": asked what it would make
    r"|\b(?:would|will|could|might)\s+(?:an?\s+)?(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)"
    r"(?=\s+(?:system\s+|array\s+)?(?:make|produce|generate|cover|offset|be\s+enough)\b)"
    # "got a quote for 7.6 kw", "installer quoted us 11.4 kw": a size on offer
    r"|\b(?:quote|quoted|bid|proposal|offer)\w*\s+(?:us\s+|me\s+)?(?:for\s+|of\s+|at\s+)?(?:a\s+|an\s+)?"
    r"(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)"
)
# what the size makes, said after it ("a 6 kw system make here", not "make sense" or "make it bigger")
_PRODUCE = re.compile(
    r"^[^.?!]{0,40}?\b(?:make|makes|produce|produces|generate|generates|give|gives|put\s+out|do\s+for|good\s+for|yields?)\b"
    r"(?!\s+(?:sense|it|my|the|a|an)\b)"
    # "would an 8 kw system cover our usage": how much of what they use it makes
    r"|^[^.?!]{0,25}?\b(?:cover|covers|offset|offsets)\s+(?:us|me|it|our|my|the|all|most|everything)\b"
)
# "thinking about solar, 6kw on the south roof. how much would it make": what the size makes, asked
# in a sentence of its own
_HOW_MUCH_MADE = re.compile(
    r"\bhow\s+much\b[^.?!]{0,30}\b(?:would|will|could|might)\b[^.?!]{0,20}\b(?:make|produce|generate)\b"
)
_HOW_MUCH_FROM = re.compile(r"\bhow\s+much\s+(?:power|energy|electricity|kwh)\b")


# "maybe 250 of that is the car", "about 200 kwh of it goes to charging"
_CAR_SHARE = re.compile(
    r"(?<![$/\d.,])\b(?P<n>\d[\d,]*(?:\.\d+)?)(?!\s*/)\s*(?:kwh\s+)?of\s+(?:that|it|this|those)\s+(?:is|are|goes\s+to|for|being)\s+"
    r"(?:the\s+|our\s+|my\s+)?(?:car|ev|tesla|charging|the\s+charger)\b",
    re.I,
)


# "I need like 40 miles", "gotta drive 60 miles tomorrow", "40 miles of range": the range the charge
# must add (a distance a day/week/month is usage instead, `_MILES`)
_MILES_NEEDED = re.compile(
    # ("need it charged for 200 miles tmrw", "enough for 120 miles")
    r"\b(?:need|needs|gotta|have\s+to|got\s+to|going\s+to|will|(?:charged|enough|juice|range)\s+for)\b"
    r"(?:\s+(?:to|like|about|around|maybe|only|just|drive|go|do|get|it\s+charged\s+for|enough\s+for))*"
    r"\s+(?P<n>\d{1,3})\s*(?:more\s+)?(?:miles?|mi)\b(?!\s*(?:per|a\s|an\s|/|each|every|of\s+range|range))",
    re.I,
)


# "its about 200 miles round trip", "a 150 mile drive tomorrow", "driving 90 miles", "60 miles each
# way": the distance of the trip the charge is for (each way: there and back)
_TRIP_MILES = re.compile(
    r"\b(?P<n>\d{1,3})\s*-?\s*(?:miles?|mi)\s+(?:round\s*-?\s*trip|roundtrip|trip|drive|commute|journey|"
    r"there\s+and\s+back|(?P<each>each\s+way|one\s+way))\b|"
    r"\b(?:driving|drive)\s+(?:like\s+|about\s+|around\s+|maybe\s+|over\s+)?(?P<n2>\d{1,3})\s*(?:miles?|mi)\b|"
    # "have to drive to my daughters in scranton saturday, 140 miles", "it's 60 miles and we leave
    # at 8:30": the trip's distance said after where they go, or as what it is
    r"(?:\b(?:drive|driving|trip|head(?:ing)?|going|go)\s+(?:up\s+|down\s+|over\s+|out\s+)?to\b[^.!?]{0,60}?|"
    r"\b(?:it'?s|its|it\s+is|that'?s|thats)\s+(?:about\s+|like\s+|around\s+|roughly\s+|maybe\s+)?)"
    r"\b(?P<n3>\d{1,3})\s*(?:miles?|mi)\b(?!\s*(?:a|an|per|/|each|every|of\s+range|range|left)\b)",
    re.I,
)


# "a 1500w space heater", "the heater is 1.5 kw": the appliance's power as said
# (never a time's minutes or "w/": "dryer done by 6:30 w/ the eco cycle")
# at most four digits ("30306 w georgia power" is a ZIP "with" a utility, never a 30 kW appliance)
_APPLIANCE_WATTS = re.compile(
    r"(?<![\w.:,])(\d{2,4}(?:\.\d+)?|\d{1,2},\d{3})\s*-?\s*(?:w|watts?)\b(?!/)", re.I
)
_APPLIANCE_KW = re.compile(r"(?<![\w.])(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)", re.I)
# "for like 8 hrs", "8 hours a night", "runs 3h": how long it runs
_RUN_HOURS = re.compile(
    r"(?:\bfor\s+(?:like\s+|about\s+|around\s+|roughly\s+|~\s*)?)?(?<![\w.])(\d{1,2}(?:\.\d+)?)\s*"
    r"(?:hrs?|hours?|h)\b(?!\s*(?:ago|from\s+now|later))",
    re.I,
)


_NAMED_BEFORE_POWER = re.compile(
    r"\b(?:my|our|the|a|an)\s+(?P<name>(?!(?:solar|panels?|system|array|charger|car|ev|battery|powerwall)\b)[a-z][\w-]{2,20}"
    r"(?:\s+(?!(?:runs?|draws?|uses?|pulls?|is)\b)[a-z][\w-]{2,20})?)\s+(?:runs?|draws?|uses?|pulls?)\b"
    r"[^.,;!?]{0,20}?(?:\b(?:at|about|around|like|roughly)\s*|~\s*)?$",
    re.I,
)
_ALL_DAY = re.compile(
    r"\b24\s*/\s*7\b|\b24\s+hours\s+a\s+day\b|\ball\s+day\s+(?:and|&)\s+(?:all\s+)?night\b", re.I
)
_NAMED_AFTER_POWER = re.compile(
    r"\s+((?!(?:for|at|all|over|on|in|to|from|every|a|an|per|each|overnight|and|or|of|running|run|is|that|"
    r"one|ones|thing|things|instead|more|less|total|max|peak|now|then|make|makes|produce|generate|do|give|get|"
    r"setup|system|array|worth|would|will|could)\b)"
    r"[a-z]{3,20}(?:\s+(?!(?:for|at|all|over|on|in|to|from|every|per|each|overnight|and|or|of|is|that|run|runs|"
    r"running|uses|use|costs?|draws?|pulls?|cost|goes|was|were|has|had)\b)[a-z]{3,20})?)",
    re.I,
)


# power figures that belong to what makes or stores energy, or to the car's charger
_NOT_AN_APPLIANCE = re.compile(
    r"\b(?:solar|panels?|pv|inverters?|array|charg\w*|evse|wall\s*connector|batter(?:y|ies)|powerwalls?|"
    r"generators?|system|service|breaker|amps?)\b",
    re.I,
)


# "whens cheapest to run the stick welder", "the stock tank heater, when should it be running": a
# machine asked about by what is done with it, whether or not the appliance table knows it
_RUN_THING = re.compile(
    r"\b(?:run|running|use|using|turn\s+on|start|fire\s+up)\s+(?:the|my|our|a|an|this|that)\s+"
    r"(?P<thing>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)"
    r"(?=\s+(?:now|tonight|today|tomorrow|tmrw|at|in|during|before|after|when|or|and|for|on|rn|overnight|all|every|each|"
    r"while|till|until|so|then)\b|\s*[,.?!;]|\s*$)|"
    r"^\W*(?:the|my|our)\s+(?P<subject>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s*,?\s+(?:when|whens|what\s+time|should)\b"
    r"[^.?!]*\b(?:it|they)\s+(?:be\s+)?(?:run|running|on|going)\b",
    re.I,
)
_NO_MACHINE = re.compile(
    r"\b(?:numbers|math|plan|plans|comparison|report|errands?|tests?|check|house|home|place|heat|heating|furnace|"
    r"thermostat|business|shop|car|cars|ev|evs|truck|suv|vehicle|tesla|it|them|one|thing|stuff|things|lights|"
    r"power|electricity|energy|meter|bill|app|schedule|timer|risk|budget)$",
    re.I,
)


def _unlisted_appliance(text: str) -> str | None:
    """A machine the appliance table does not list, named where a request to time it names one (its
    verdict says it has no sourced figure for it, and still gives the hours); never a car, a charger
    or a word like "the numbers"."""
    from advisor.energy.vehicles import find_vehicle  # the vehicle table is a vocabulary here

    named = [
        re.sub(r"\s+", " ", (m.group("thing") or m.group("subject")).lower())
        for m in _RUN_THING.finditer(text)
    ]
    if _RUN_THEM.search(text):
        # "shop has a 250 amp stick welder and a big compressor. whens cheapest to run em": the first
        # machine the message named, without its size ("stick welder")
        for phrase in _NAMED_THING.finditer(text):
            words = [w for w in phrase.group("np").lower().split() if not re.fullmatch(_SIZE_WORD, w)]
            named.append(" ".join(words[-2:]))
    for thing in named:
        if (
            not thing
            or _NO_MACHINE.search(thing)
            or _NOT_AN_APPLIANCE.search(thing)
            or find_vehicle(thing) is not None
        ):
            continue
        return thing
    return None


_RUN_THEM = re.compile(r"\brun(?:ning)?\s+(?:em|'em|them|both|those|these)\b", re.I)
_NAMED_THING = re.compile(
    r"\b(?:a|an|the|my|our|two|2)\s+(?P<np>[a-z0-9-]+(?:\s+[a-z0-9-]+){0,3}?)(?=\s+and\s+(?:a|an|the|my|our)\b|\s*[,.;!?]|\s+that\b)",
    re.I,
)
_SIZE_WORD = r"\d+(?:\.\d+)?|amps?|a|volts?|v|watts?|w|kw|hp|gallons?|gal|big|small|old|new|little|huge|large"


# "in 3 hours", "within 2 hrs": when, not how long
_DELAY_BEFORE = re.compile(r"\b(?:in|within|after|next)\s+(?:like\s+|about\s+|the\s+next\s+)?$", re.I)


# "forget the dryer, is it cheaper to run the dishwasher at night": the one named after it is meant
_DISMISSED = re.compile(r"\b(?:forget|never\s*mind|nvm|scratch|not)\s+(?:about\s+)?(?:the\s+|my\s+)?$", re.I)


# where a request starts: "…, heat pump. whens the cheapest time to run the dishwasher"
_ASKING_FROM = re.compile(
    r"\b(?:when|whens|when's|what|whats|what's|should|shud|is\s+it|can\s+i|how\s+much|cheapest|best\s+time|ok\s+to)\b",
    re.I,
)


_WASHER_AND_DRYER = re.compile(
    r"\b(?:washer|washing\s+machine)\s*(?:\+|&|/|and|n)\s*(?:the\s+|my\s+)?dryer\b|\bdryer\s*(?:\+|&|/|and)\s*(?:the\s+|my\s+)?washer\b",
    re.I,
)


def _appliance_meant(text: str) -> re.Match[str] | None:
    """The appliance the request is about: the first named after the words that ask (the heat pump
    of "2 kids, heat pump. whens the cheapest time to run the dishwasher" is a fact), else the first
    named, unless it is dismissed for another."""
    named = list(_APPLIANCES.finditer(text))
    if len(named) > 1 and _DISMISSED.search(text[: named[0].start()]):
        return named[1]
    asking = _ASKING_FROM.search(text)
    after = [match for match in named if asking is not None and match.start() > asking.start()]
    return after[0] if after and len(named) > 1 else (named[0] if named else None)


def _stated_run(text: str, *, known: bool) -> dict[str, object]:
    """An appliance's power and run time when the user gives them ("how much to run a 1500w space
    heater for like 8 hrs"): the run is priced from their figures. `known`: an appliance we know
    is named; otherwise the words after the power name it ("a 1500 watt heater")."""
    data: dict[str, object] = {}
    if _NOT_AN_APPLIANCE.search(text):
        return data  # "24 panels at 400w", "a 48 amp charger, 11.5 kw": not an appliance run
    # a kW figure alone is most often a solar size ("what would 10kw make"): only beside an appliance we know
    said = _APPLIANCE_WATTS.search(text) or (_APPLIANCE_KW.search(text) if known else None)
    before = None
    if said is None and (kw_said := _APPLIANCE_KW.search(text)) is not None:
        # "my mining rig runs 24/7 at like 1.2 kw": the thing that runs or draws it, named before
        before = _NAMED_BEFORE_POWER.search(text[: kw_said.start()])
        said = kw_said if before is not None else None
    if said is not None:
        kw = float(said.group(1).replace(",", "")) / (1000 if said.re is _APPLIANCE_WATTS else 1)
        if 0 < kw <= 50:
            data["appliance_kw"] = round(kw, 3)
            # "a 1500 watt heater", "my 800w dehumidifier": what has that power, when not one we know
            named = _NAMED_AFTER_POWER.match(text, said.end())
            if not known and before is not None:
                data["appliance"] = before.group("name").lower()
            elif not known and named:
                data["appliance"] = named.group(1).lower()
            elif not known:
                return {}  # a power with nothing it belongs to
    # "the pool pump needs 8 hours": a run time said for an appliance we know prices that run
    if data and _ALL_DAY.search(text):
        data["run_hours"] = 24.0  # "runs 24/7": the whole day
    elif (
        (data or known)
        and (hours := _RUN_HOURS.search(text))
        and not _DELAY_BEFORE.search(text, 0, hours.start())
    ):
        run = float(hours.group(1))
        if 0 < run <= 24:
            data["run_hours"] = run
    return data


def _miles_needed(text: str) -> float | None:
    if _MILES.search(text):
        return None  # "i drive 30 miles a day" is usage, not this charge
    if need := _MILES_NEEDED.search(text):
        return float(need.group("n"))
    if trip := _TRIP_MILES.search(text):
        miles = float(trip.group("n") or trip.group("n2") or trip.group("n3"))
        return miles * 2 if trip.group("each") else miles
    return None


def read_params(text: str) -> RequestParams:
    """The request's parameters, one reader per slot; a slot the text does not fill stays None."""
    text = _hour_words(text)
    plug_in, text = _plug_in(text)
    start, text = _appliance_start(text)
    data: dict[str, object] = {**plug_in, **start, **_deadline(text)}
    if (minutes := _minutes_from_now(text)) is not None:
        data["ready_in_minutes"] = minutes
    data.update(_levels(text))
    if _WASHER_AND_DRYER.search(text):
        data["appliance"] = "laundry"  # "should i run the washer and dryer now": a wash and a dry, one load
    elif appliance := _appliance_meant(text):
        data["appliance"] = (
            "water heater"
            if appliance.group("heat_water")
            else ("dryer" if appliance.group("laundry").lower().startswith("dry") else "laundry")
            if appliance.group("laundry")
            else "ac"
            if appliance.group("precool") or appliance.group("window_ac")
            else re.sub(r"\s+", " ", appliance.group(1).lower())
        )
    elif (thing := _unlisted_appliance(text)) is not None:
        data["appliance"] = thing
    data.update(_stated_run(text, known="appliance" in data))
    data.update(_usage(text))
    if (miles := _miles_needed(text)) is not None and "target_soc_pct" not in data:
        data["miles_needed"] = miles  # a charge level said too wins
    lowered = text.lower()
    data.update(_days(lowered))
    data.update(_solar_size(lowered))
    if "system_kw" not in data and _SIZE_NEEDED.search(lowered):
        data["size_needed"] = True  # "how many panels do i need", "what size system would cover us"
    if _ONE_SESSION.search(lowered):
        data["one_session"] = True
    if (_A_MONTH.search(lowered) or "ev_miles_per_month" in data) and _COST.search(lowered):
        # "what would charging cost per month", "costing me if i drive 12k miles": a month's (or a
        # year's) cost, not tonight's plan
        data["monthly"] = True
    data.update(_fuel_price(lowered))
    return RequestParams.model_validate(data)


# "oil is about 4.10/gal", "propane runs us $2.89 a gallon", "4.10 a gallon for oil", "gas is 1.40 a
# therm": a heating fuel's price (gas only per therm: "gas is 3.50 a gallon" is gasoline)
_PRICE = r"\$?\s*(?P<price>\d{1,2}(?:\.\d{1,3})?)\s*(?:dollars?|bucks)?\s*(?:/|a|an|per|each)\s*"
_LIQUID = r"(?P<fuel>(?:heating\s+)?oil|propane|lp)"
_FUEL_PRICES = (
    re.compile(r"\b" + _LIQUID + r"\b[^.?!\d$]{0,30}?" + _PRICE + r"gal(?:lon)?s?\b"),
    re.compile(r"\b(?:natural\s+)?gas\b[^.?!\d$]{0,30}?" + _PRICE + r"therms?\b"),
    re.compile(_PRICE + r"gal(?:lon)?s?\s+(?:for|of|on)\s+(?:the\s+)?" + _LIQUID + r"\b"),
    re.compile(_PRICE + r"therms?\b"),
)


def _fuel_price(text: str) -> dict[str, object]:
    for pattern in _FUEL_PRICES:
        found = pattern.search(text)
        if found is not None:
            liquid = found.groupdict().get("fuel")
            fuel = "gas" if liquid is None else ("propane" if liquid in ("propane", "lp") else "oil")
            data: dict[str, object] = {"fuel": fuel, "fuel_price_usd": float(found.group("price"))}
            # "my 80% furnace", "electric 15c": the rest of that comparison, as they said it
            if (afue := _afue(text)) is not None:
                data["furnace_afue_pct"] = afue
            if (cents := _ELECTRIC_CENTS.search(text)) is not None:
                data["electricity_usd_per_kwh"] = round(float(cents.group("cents")) / 100, 4)
            if (burned := _fuel_burned(text)) is not None:
                data["fuel_units_per_year"] = burned
            return data
    return {}


_AFUE = re.compile(
    r"\b(?P<pct>[5-9]\d)\s*(?:%|percent)\s*(?:eff\w*\s+|afue\s+)?(?:gas\s+|oil\s+|propane\s+)?"
    r"(?:furnace|boiler|one|unit|afue)\b|"
    r"\b(?:furnace|boiler|afue|eff\w*)\s+(?:is\s+|it'?s\s+|its\s+|was\s+)?(?:actually\s+|really\s+|more\s+like\s+|"
    r"closer\s+to\s+)?(?:an?\s+|only\s+|about\s+|like\s+|rated\s+(?:at\s+)?)?(?P<pct2>[5-9]\d)\s*(?:%|percent)|"
    # "it's 95% efficient", "more like 90 percent efficiency"
    r"\b(?P<pct3>[5-9]\d)\s*(?:%|percent)\s+(?:eff\w*)\b"
)
# "what if oil goes to 3.50", "propane is 2.89 now": the fuel's price said again without its unit
_FUEL_AGAIN = re.compile(
    r"\b(?P<fuel>(?:heating\s+)?oil|propane|lp|(?:natural\s+)?gas)\s+(?:price\s+)?(?:goes\s+(?:up\s+|down\s+)?to|"
    r"(?:is|was|were|at|hits?|costs?|drops?\s+to|rises?\s+to|gets\s+to)|is\s+(?:actually|more\s+like|closer\s+to|now))\s+"
    r"(?:about\s+|like\s+|around\s+)?\$?\s*(?P<price>\d{1,2}(?:\.\d{1,3})?)(?![\d%])(?!\s*(?:%|percent|cents?|c\b|¢))"
)


def _afue(text: str) -> float | None:
    found = _AFUE.search(text)
    return float(next(g for g in found.group("pct", "pct2", "pct3") if g)) if found else None


# "we burned like 800 gal last winter", "we use about 900 therms a year": a season's fuel
_BURNED = re.compile(
    r"\b(?:burn(?:ed|t|s)?|use[ds]?|go(?:es)?\s+through|went\s+through|bought|buy|order(?:ed)?|fill(?:ed)?)\s+"
    r"(?:about\s+|like\s+|around\s+|roughly\s+|~|over\s+)?(?P<n>\d{1,2},\d{3}|\d{2,5})\s*"
    r"(?:gal(?:lon)?s?|therms?)\b(?:\s+(?:of\s+)?(?:heating\s+)?(?:oil|propane|lp|gas))?"
    r"(?=[^.?!]{0,25}\b(?:a|per|each|every|last|this|the\s+whole)\s+(?:year|yr|winter|season|heating\s+season)\b)|"
    r"\b(?P<n2>\d{1,2},\d{3}|\d{2,5})\s*(?:gal(?:lon)?s?|therms?)\s+(?:a|per|each|every)\s+(?:year|yr|winter|season)\b"
)


def _fuel_burned(text: str) -> float | None:
    found = _BURNED.search(text)
    if found is None:
        return None
    return float((found.group("n") or found.group("n2")).replace(",", ""))


def heating_changes(text: str, last: RequestParams) -> dict[str, object]:
    """What a message changes in the last heating comparison ("my furnace is actually 95%", "what if
    oil goes to 3.50", "electric is 18 cents"): {} when the last request was none, or nothing changes."""
    if last.fuel_price_usd is None or last.task is not None:
        return {}
    lowered = text.lower()
    priced = _fuel_price(lowered)
    data: dict[str, object] = {}
    if priced.get("fuel") == last.fuel:  # ("gas is 1.40 a therm" after the oil comparison: another fuel)
        data["fuel_price_usd"] = priced["fuel_price_usd"]
    if (afue := _afue(lowered)) is not None:
        data["furnace_afue_pct"] = afue
    if (cents := _ELECTRIC_CENTS.search(lowered)) is not None:
        data["electricity_usd_per_kwh"] = round(float(cents.group("cents")) / 100, 4)
    if (burned := _fuel_burned(lowered)) is not None:
        data["fuel_units_per_year"] = burned  # "we go through about 800 gallons a winter"
    again = _FUEL_AGAIN.search(lowered)
    if again is not None and "fuel_price_usd" not in data:
        word = again.group("fuel")
        fuel = "propane" if word in ("propane", "lp") else "oil" if word.endswith("oil") else "gas"
        if fuel == last.fuel:
            data["fuel_price_usd"] = float(again.group("price"))
    return data


_ELECTRIC_CENTS = re.compile(
    r"\b(?:electric(?:ity)?|elec|power)\s+(?:is\s+|costs?\s+|runs?\s+|(?:goes|went|drops?|gets)\s+(?:up\s+|down\s+)?to\s+|is\s+now\s+)?"
    r"(?:like\s+|about\s+|around\s+|~)?"
    r"(?P<cents>\d{1,2}(?:\.\d+)?)\s*(?:c|¢|cents?)\b"
)


# "a month", "per month", "each month", "this month", "monthly", "/mo" (not "last month")
_A_MONTH = re.compile(
    r"\b(?:a|per|each|every|this|the|one)\s+month\b|\bmonthly\b|\bper\s+mo\b|/\s*mo\b|\ba\s+mo\b"
)
_COST = re.compile(r"\b(?:cost\w*|run\s+(?:me|us)|spend|pay|price|bucks|dollars|how\s+much|add\s+to)\b|\$")


_HOUR_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")(?=\s*(?:a\.?m\.?|p\.?m\.?|o'?clock)\b)", re.I)
_ONE_SESSION = re.compile(
    r"\b(?:one|single|a\s+single|one\s+continuous|uninterrupted)\s+(?:session|block|go|stretch)\b|\bin\s+one\s+go\b"
)


def _hour_words(text: str) -> str:
    """ "by six am" -> "by 6 am": hours people write as words."""
    return _HOUR_WORD.sub(lambda m: str(NUMBER_WORDS[m.group(1).lower()]), text)


# "I get home at 6", "can only plug in after 9pm", "start charging at 10": when charging can
# start. "after"/"from" alone need a clock time ("from 30 to 80" is a charge level).
_PLUG_IN = re.compile(
    r"\b(?:(?P<verb>plug(?:ging|ged)?\s+(?:it\s+|the\s+car\s+|her\s+|him\s+)?in|get(?:ting)?\s+(?:back\s+)?home|"
    r"(?:i'?m|we'?re|am|are|be|is)\s+home|home\s+(?:at|by|around|from\s+work\s+at)|arrive|arriving|"
    r"start(?:ing)?\s+(?:charging|to\s+charge|it)|charging\s+starts?)\s+(?:only\s+)?(?:at|after|around|about|by|from)?|"
    r"(?:only\s+)?(?:after|from)(?=\s+\d{1,2}(?::\d{2}|\d{2}\s*[ap]\.?m|\s*[ap]\.?m)))"
    r"\s*(?:like\s+|about\s+|around\s+|~)?(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d)(?=\s*[ap]\.?m))?"
    r"\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?!\s*(?:%|percent|kw|miles?|hours?|hrs?))(?![\d:])",
    re.I,
)


# "what if i wait till 11pm to plug in", "gonna hold off until 10 to start charging": the time is when
# charging starts, though it follows "till" like a deadline
_WAIT_TO_PLUG = re.compile(
    r"(?:\b(?:wait(?:ing)?|hold(?:ing)?\s+off|hang\s+on)\s+(?:till|til|until|to|for)\s+"
    r"(?=\d{1,2}(?::\d{2}|\d{2}\s*[ap]\.?m)?\s*(?:[ap]\.?m\.?)?\s+(?:to|and|before|then)\s+(?:plug|charg|start|begin))|"
    # "what if i cant plug in till 10", "won't be able to plug it in until 9:30"
    r"\b(?:can'?t|cannot|won'?t(?:\s+be\s+able\s+to)?|not\s+able\s+to|unable\s+to|don'?t|not)\s+"
    r"(?:plug(?:\s+(?:it|her|him|the\s+car))?\s+in|charge|start\s+charging)\s+(?:till|til|until|before)\s+)"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2})|(?P<glued>[0-5]\d)(?=\s*[ap]\.?m))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?",
    re.I,
)


def _clock_hour(match: re.Match[str], *, evening: bool) -> int | None:
    """The 0-23 hour of a match's "hour" and "half" (am/pm); see `hour_of_day`."""
    return hour_of_day(int(match.group("hour")), match.group("half"), evening=evening)


def hour_of_day(hour: int, half: str | None, *, evening: bool) -> int | None:
    """The 0-23 hour of a clock hour and its half ("pm", "p.m.", "p"); without one, an hour from 1
    to 11 is the evening one when `evening` says so. None when it is no clock time."""
    half = (half or "").lower().replace(".", "")[:1]
    if half:
        return hour % 12 + (12 if half == "p" else 0) if 1 <= hour <= 12 else None
    if evening and 1 <= hour <= 11:
        return hour + 12
    return hour if hour <= 23 else None


def _plug_in(text: str) -> tuple[dict[str, object], str]:
    """When the car is plugged in, and the text without those words (so "home at 6" is no deadline).
    An hour without am/pm after "plug in" or "get home" is the evening one: people come home and
    plug in after work (the reply names the time it used)."""
    # ("and if i wait till midnight to plug in": a clock time said as a word)
    text = re.sub(r"\bmidnight\b", "12am", re.sub(r"\bnoon\b", "12pm", text, flags=re.I), flags=re.I)
    match = _WAIT_TO_PLUG.search(text) or _PLUG_IN.search(text)
    if match is None:
        return {}, text
    hour = _clock_hour(match, evening=True)
    if hour is None:
        return {}, text
    data: dict[str, object] = {"plug_in_hour": hour}
    minute = match.group("minute") or match.group("glued")
    if minute and int(minute) <= 59:
        data["plug_in_minute"] = int(minute)
    return data, text[: match.start()] + " " + text[match.end() :]


# "is it dumb to run the dishwasher at 5pm", "ok to start the dryer at 7 tonight?", "dishwasher at
# 10pm?": when they would start an appliance (not when it must be done)
_APPLIANCE_START = re.compile(
    r"\b(?:run(?:ning)?|start(?:ing)?|do(?:ing)?|put(?:ting)?\s+on|turn(?:ing)?\s+on|throw(?:ing)?\s+in)\s+"
    r"(?:(?:the|my|our|a|it|in|laundry|load|of|\w+er|pool\s+pump|oven)\s+){0,3}(?P<when>(?:at|around|@)\s+"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?)(?![\d:%])",
    re.I,
)


def _appliance_start(text: str) -> tuple[dict[str, object], str]:
    """When they would start an appliance, and the text without it (so it is no deadline). An hour
    without am/pm from 1 to 6, or said with "tonight", is the evening one."""
    if not _APPLIANCES.search(text):
        return {}, text
    match = _APPLIANCE_START.search(text)
    if match is None:
        return {}, text
    said = int(match.group("hour"))
    hour = _clock_hour(match, evening=said <= 6 or re.search(r"\btonight\b", text, re.I) is not None)
    if hour is None:
        return {}, text
    data: dict[str, object] = {"start_hour": hour}
    if match.group("minute") and int(match.group("minute")) <= 59:
        data["start_minute"] = int(match.group("minute"))
    return data, text[: match.start("when")] + " " + text[match.end("when") :]  # the appliance stays


# "i play shows til 2am", "i work till 6pm", "we sleep til noon": how long they do something, not
# when a car must be ready ("charge it til 7am", "need it full until 7" still are)
_UNTIL_OF_THEIR_DAY = re.compile(
    r"\b(?:i|we|he|she|they|i'?m|we'?re)\s+(?!(?:need|needs|want|wants|gotta|have|must|should|charge|plug)\b)[a-z']+"
    r"(?:\s+(?!(?:it|the\s+car|charg\w*|full)\b)[a-z']+){0,3}\s*$",
    re.I,
)


def _until_of_their_day(match: re.Match[str], text: str) -> bool:
    """A "til 2am" that ends something they do, not the time a car must be ready by."""
    return bool(re.match(r"(?:til|till|until)\b", match.group(0), re.I)) and bool(
        _UNTIL_OF_THEIR_DAY.search(text[: match.start()])
    )


def _deadline(text: str) -> dict[str, object]:
    """ "by 6:30", "before 7am", "leave at 6", "by noon", "by tomorrow morning"."""
    # the first that is a time: "need it at 80 by 7:30" has a charge level where a time could be
    deadline = next(
        (m for m in _DEADLINE.finditer(text) if _clock_time(m) and not _until_of_their_day(m, text)),
        None,
    )
    deadline = deadline or next((m for m in _LEAVING_FOR.finditer(text) if _clock_time(m)), None)
    deadline = deadline or next((m for m in _LEAVING_TIME.finditer(text) if _clock_time(m)), None)
    their_day = any(_until_of_their_day(m, text) for m in _DEADLINE.finditer(text))
    if deadline is None and len(text.split()) <= 6 and not their_day:
        deadline = _SHORT_TIME.search(text)  # "make that 7am", "6:30 instead"
    if deadline is None:
        if noon := _NOON.search(text):
            return {"ready_by_hour": 12 if noon.group("word").lower() == "noon" else 0}
        return {"ready_by_hour": MORNING_HOUR} if _BY_MORNING.search(text) else {}
    if deadline.re is _SHORT_TIME and deadline.group("hour2"):
        return {
            "ready_by_hour": int(deadline.group("hour2")),
            "ready_by_minute": int(deadline.group("minute2")),
        }
    hour, half = int(deadline.group("hour")), (deadline.group("half") or "").lower().replace(".", "")
    if half and 1 <= hour <= 12:
        data: dict[str, object] = {"ready_by_hour": hour % 12 + (12 if half == "pm" else 0)}
    elif not half and 0 <= hour <= 23:
        data = {"ready_by_hour": hour}
    else:
        return {}
    minute = deadline.group("minute") or deadline.group("glued")
    if minute and int(minute) <= 59:
        data["ready_by_minute"] = int(minute)
    return data


def _clock_time(match: re.Match[str]) -> bool:
    hour, half = int(match.group("hour")), match.group("half")
    return 1 <= hour <= 12 if half else 0 <= hour <= 23


_ROUGHLY = re.compile(r"\b(?:like|about|around|roughly|approximately|approx|maybe)\s+(?=\d)|~\s*(?=\d)", re.I)


def _levels(text: str) -> dict[str, object]:
    """The charge level wanted and the level now ("from 30 to 80%", "need 80%, it's at 20")."""
    text = _ROUGHLY.sub("", text)  # "im at like 20% rn": a level said roughly is the level
    data: dict[str, object] = {}
    target_span: tuple[int, int] | None = None
    if span := _FROM_TO.search(text):  # "from 10 to 80 percent", "charge from 20 to 100 percent by 10pm"
        return {"current_soc_pct": float(span.group(1)), "target_soc_pct": float(span.group(2))}
    bare = _FROM_TO_BARE.search(text)
    if (
        bare
        and int(bare.group(1)) < int(bare.group(2))
        and 24 < int(bare.group(2)) <= 100
        and not re.search(r"\b(?:temps?|temperatures?|degrees|thermostat|highs?|lows?)\b|°", text, re.I)
    ):
        return {"current_soc_pct": float(bare.group(1)), "target_soc_pct": float(bare.group(2))}
    if _NEARLY_EMPTY.search(text) and not _FROM_EMPTY.search(text):
        # "he said its nearly empty and he needs it full": a low level, taken as 10 % (the answer says so)
        data["current_soc_pct"] = NEARLY_EMPTY_PCT
    if _FROM_EMPTY.search(text):
        # "how long to charge a bolt from empty": from nothing, to full unless a level is said
        data["current_soc_pct"] = 0.0
        data["target_soc_pct"] = 100.0
    if _FULL.search(text):
        data["target_soc_pct"] = 100.0
    elif data:
        return data
    elif (
        (target := _TARGET.search(text))
        or ("%" in text and (target := _BARE_TARGET.search(text)))
        or (target := _LEVEL_BY.search(text))
        or (target := _BARE_NEED.search(text))
        or (target := _LEVEL_IS_FINE.search(text))
        or (target := _MAKE_IT_LEVEL.search(text))
    ):
        group = "pct" if "pct" in target.groupdict() else 1
        data["target_soc_pct"] = float(target.group(group))
        target_span = target.span(group)
    for current in _CURRENT.finditer(text):
        group = next(
            name for name in ("pct", "pct2", "pct3", "pct4", "pct5") if current.group(name) is not None
        )
        if group == "pct3" and _LEAVING_AT.search(text[: current.start()]):
            continue  # "redo it but i leave at 6 now": when they go, not the charge
        if target_span is None or not _overlaps(current.span(group), target_span):
            return {**data, "current_soc_pct": float(current.group(group))}  # "need it at 90%" is the target
    if target_span is not None or data.get("target_soc_pct") == 100.0:
        # "can I get to 100%? its at 20": a bare number beside a stated target is the level now
        # ("its at 20 and i need it full by 7a": a full charge is a target too)
        for bare in _BARE_CURRENT.finditer(text):
            if (target_span is None or not _overlaps(bare.span("pct"), target_span)) and int(
                bare.group("pct")
            ) <= 100:
                return {**data, "current_soc_pct": float(bare.group("pct"))}
    return data


# the words before "at 6 now" that make it a time: "i leave at 6 now", "heading out at 7 now"
_LEAVING_AT = re.compile(
    r"\b(?:leave|leaving|leaves|left|go|going|head(?:ing)?\s+out|get\s+home|getting\s+home|home|plug(?:ging)?\s+in|"
    r"start(?:ing)?|work|shift|back|off|out|up|be\s+there|done|ready|need\s+it|by)\s*$",
    re.I,
)
# "and if i only need 50?", "want like 90": a bare number someone needs, with no unit, is a level
_BARE_NEED = re.compile(
    r"\b(?:only\s+)?(?:need|needs|want|wants)\s+(?:it\s+)?(?:at\s+|to\s+be\s+at\s+)?(?:like\s+|about\s+|around\s+|~)?"
    r"(?P<pct>100|[1-9]\d)\b(?![.:]?\d|\s*(?:%|percent|miles?|mi\b|km|k?wh?\b|kw|amps?|a\b|am\b|pm\b|a\.m|p\.m|"
    r"o'?clock|dollars?|bucks|cents?|minutes?|mins?|hours?|hrs?|people|panels?|degrees|°|gallons?|more\s+miles))",
    re.I,
)
# "80 is fine", "90% is plenty": the level that will do
_LEVEL_IS_FINE = re.compile(
    r"(?<![\w.:$])(?P<pct>100|[1-9]\d)\s*(?:%|percent)?\s+(?:is|'s)\s+(?:fine|ok|okay|enough|plenty|good|good\s+enough)\b",
    re.I,
)
_BARE_TARGET = re.compile(r"\b(?:get|charge|go)\s+(?:it\s+)?to\s+(\d{1,3})\b(?!\s*(?:kw|am|pm|:|%))", re.I)


def _a_years_miles(miles: re.Match[str]) -> bool:
    """5,000 miles or more said with no period: a year's (nobody drives that in a month)."""
    return float(miles.group("n").replace(",", "")) * (1000 if miles.group("k") else 1) >= 5000


def _usage(text: str) -> dict[str, object]:
    """Miles driven and kWh used a month, and the car's share of a stated total."""
    data: dict[str, object] = {}
    unit = None
    if miles := _MILES.search(text):
        unit = miles.group("unit").lower()
    elif (miles := _MILES_DRIVEN.search(text)) and (period := _PERIOD_ASKED.search(text)):
        unit = (period.group("unit") or period.group("ly")[:-2].replace("dai", "day")).lower()
    elif (miles := _MILES_DRIVEN.search(text)) and _COST.search(text) and _a_years_miles(miles):
        unit = "year"  # "what's my EV costing me if i drive 12k miles": a year's driving, as people count it
    if miles is not None and unit is not None:
        thousands = 1000 if miles.group("k") else 1  # "12k miles a year"
        data["ev_miles_per_month"] = round(
            float(miles.group("n").replace(",", "")) * thousands * _PER_MONTH[unit]
        )
    house = _HOUSE_KWH.search(text)
    if house is None:
        return data
    total = round(float(house.group("n").replace(",", "")) * _PER_MONTH[house.group("unit").lower()])
    data["house_kwh_per_month"] = total
    if car := _CAR_SHARE.search(text):
        # "600 kWh a month, maybe 250 of that is the car": the car's share of the total, not extra
        share = round(float(car.group("n").replace(",", "")) * _PER_MONTH[house.group("unit").lower()])
        if 0 < share < total:
            data["ev_kwh_per_month"], data["house_kwh_per_month"] = share, total - share
    return data


def _days(lowered: str) -> dict[str, object]:
    data: dict[str, object] = {}
    if re.search(r"\btomorrow\b", lowered):
        data["day"] = data["ready_by_day"] = "tomorrow"
    elif re.search(r"\b(?:today|tonight|tonite|tonigh)\b", lowered) or (
        # "at 35% now" says the level now, not the day of the request
        re.search(r"\bnow\b", lowered)
        and not re.search(r"(?:\d\s*(?:%|percent)?|\bat\s+\w+)\s+(?:right\s+)?now\b", lowered)
    ):
        data["day"] = "today"
    if re.search(r"\b(?:tonight|tonite|tonigh)\b", lowered):
        data["tonight"] = True  # ready the morning after
    for day in WEEKDAYS:
        if re.search(rf"\b{day}\b", lowered):
            data["ready_by_day"] = day
    if (
        "ready_by_day" not in data
        and re.search(
            # ("the nights and weekends plan", "free weekends": a plan's name, no day asked)
            r"\b(?:on\s+)?(?:the\s+)?weekends?\b(?!\s+(?:plan|rate|pricing|free|deal))(?<!\bfree\sweekends)(?<!\bfree\sweekend)",
            lowered,
        )
        and not re.search(r"\bnights?\s+(?:and|&|n)\s+weekends?\b", lowered)
    ):
        data["ready_by_day"] = "saturday"  # "what about on weekends": the next weekend day
    return data


# Words a follow-up can be made of when it only moves the last request in time ("and tmrw
# morning?", "what about on weekends", "ok and by 6 instead?", "what about 90%?")
_CONNECTIVE = re.compile(
    r"and|what|whats|what's|about|how|if|instead|then|for|on|at|by|in|the|a|an|ok|okay|so|same|but|or|"
    r"it|that|this|too|also|again|pls|please|hbu|next|"
    # "what if i wait til tmrw to do it", "is sat any different": the same thing, moved
    r"i|we|wait|til|till|until|to|do|run|start|is|any|different|diff|cheaper|better|worse|should|can|could|would|be|rather",
    re.I,
)
_WHEN_WORD = re.compile(
    r"today|tonight|tonite|tomorrow|tmrw|tmr|tmw|tomoro|tomorow|2morrow|2moro|morning|afternoon|evening|night|noon|"
    r"midnight|weekends?|weekdays?|here|"
    r"week|later|earlier|now|early|late|(?:mon|tues|tue|wednes|wed|thurs|thu|fri|satur|sat|sun)(?:day)?s?|"
    r"\d{1,2}(?::\d{2})?(?:a\.?m\.?|p\.?m\.?)?|\d{1,3}%|a\.?m\.?|p\.?m\.?",
    re.I,
)


_RELATIVE = re.compile(r"later|now|early|late|earlier", re.I)


_RERUN = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|k|pls|please|can\s+you|could\s+you)\W+)*(?:re-?run|redo|re-?do|re-?calc\w*|"
    r"run\s+(?:it|that|the\s+(?:plan|numbers))\s+again|do\s+(?:it|that)\s+again|try\s+(?:it\s+|that\s+)?again|"
    r"update\s+(?:it|the\s+(?:plan|numbers|answer)))\b(?:\s+(?:it|that|the\s+(?:plan|numbers|answer)))?"
    r"(?:\s+(?:w/?|with)\s+(?:that|this|those|it|the\s+new\s+\w+))?(?:\s+(?:pls|please|now|then))?\W*$",
    re.I,
)


def only_when(text: str) -> bool:
    """The message says nothing but a connective and a time, day, level or "here": it moves the last
    request ("and tmrw morning?" after a dishwasher verdict is that verdict for tomorrow; "how about
    here" after an estimate for another town is the estimate for theirs)."""
    if _RERUN.match(text):
        return True  # "rerun it", "ok redo the plan w/ that": the last request again, as it now stands
    words = [word.strip(".") for word in re.findall(r"[\w:%'.]+", text) if word.strip(".")]
    when = [word for word in words if _WHEN_WORD.fullmatch(word)]
    if len(words) == len(when) == 1 and _RELATIVE.fullmatch(when[0]):
        return False  # "later", "now": a goodbye or a reply, not a moved request
    return bool(when) and len(words) <= 10 and all(w in when or _CONNECTIVE.fullmatch(w) for w in words)


_ANY_KW = re.compile(r"(?<![\w.])(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)")


def someone_elses_size(mentions: list[Mention]) -> float | None:
    """The solar size a message gives for someone else's panels ("my mom has 6kw of panels"), or None."""
    for mention in mentions:
        if mention.field == "equipment.solar_capacity_kw" and mention.reason == "someone_else":
            size = _ANY_KW.search(mention.words.lower())
            if size is not None:
                return float(size.group(1))
    return None


_NOT_SOLAR_KW = re.compile(
    r"\b(?:charger|charging|wall\s*box|wallbox|heat\s+pump|generator|battery|powerwall)\b"
)


def _solar_size(lowered: str) -> dict[str, object]:
    """A typical year asked about, and a system size asked about ("what would 6 kW make")."""
    typical = bool(
        re.search(
            r"\b(?:typical|per\s+(?:year|yr)|yearly|annual(?:ly)?|a\s+(?:year|yr)|average\s+year|"
            # "what will my solar make this year", "over a year", "in 12 months": a year's output
            r"(?:this|next|over\s+a|in\s+a|the)\s+(?:year|yr)|12\s+months|"
            r"(?:a|the|over\s+a|in\s+a)\s+(?:whole|full|entire)\s+(?:year|yr))\b",
            lowered,
        )
    )
    data: dict[str, object] = {"typical_year": True} if typical else {}
    size = _SYSTEM_SIZE.search(lowered)
    if (
        size is None
        and (
            typical
            # a size of solar asked about, not theirs and not a day's forecast
            or (
                re.search(r"\b(?:solar|panels?|pv)\b", lowered)
                and not re.search(r"\b(?:our|my|we\s+have|i\s+have|today|tomorrow|tmrw|tonight)\b", lowered)
            )
        )
        # ("if we put up 5 kilowatts, what is that good for in a year")
        and re.search(
            r"\b(?:make|makes|produce|produces|generate|generates|yields?|good\s+for|get\s+(?:us|me))\b(?!\s+sense)",
            lowered,
        )
    ):
        # ("if we did solar, like 8kw, what would that make": the size of solar asked about)
        # "one guy says 8.4kw. what would that make a yr": the one size the message names, asked about
        sizes = _ANY_KW.findall(lowered)
        size = _ANY_KW.search(lowered) if len(set(sizes)) == 1 and not _NOT_SOLAR_KW.search(lowered) else None
    produce = _PRODUCE.search(lowered[size.end() :]) if size else None  # the size, then what it makes
    day_of_theirs = (
        size is not None
        and not typical
        and re.search(r"\b(?:today|tomorrow|tmrw|tonight|this\s+week)\b", lowered) is not None
        and (
            re.search(
                # ("also have 8kw solar on the roof": the subject left out)
                r"\b(?:we|i)\s+(?:have|got|own)\b|\b(?:we'?ve|i'?ve)\s+got\b|\b(?:our|my)\b|"
                r"(?:^|\b(?:also|and|plus|but)\s+)(?:have|got|own)\b",
                lowered[: size.start()],
            )
            is not None
            # "we're in st. george w rocky mountain power, 12 kw solar. how much will we make tmrw":
            # a size listed among what they say of their home, no what-if about it
            or (
                re.search(r"\b(?:we|i|we'?re|i'?m|im|us)\b", lowered[: size.start()]) is not None
                and re.search(r"\b(?:if|would|could|suppose|imagine)\b", lowered) is None
            )
        )
    )
    if day_of_theirs:
        pass  # "we have 10.2 kw of solar in phoenix, how much will it make today": theirs, that day's forecast
    elif size and (produce or _HOW_MUCH_FROM.search(lowered) or typical or _HOW_MUCH_MADE.search(lowered)):
        data["system_kw"] = float(next(group for group in size.groups() if group))
        data["typical_year"] = True  # a size asked about gets a typical-year estimate, not a forecast
    elif (asked := _ESTIMATE_FOR_SIZE.search(lowered)) or (asked := _ANOTHER_SIZE.match(lowered)):
        # "solar est for 5kw on our roof": an estimate for the size named, a typical year
        data["system_kw"], data["typical_year"] = float(asked.group(1)), True
    elif (supposed := _SUPPOSED_SIZE.search(lowered)) and not _NOT_SOLAR_KW.search(lowered):
        # "what if it was 12 kw instead" after an estimate: the same estimate for that size (a
        # what-if, never saved as theirs)
        data["system_kw"] = float(supposed.group(1))
    return data


# "and for 10kw?", "what about 12 kw", "and 8kw": the next size asked about, said alone
_ANOTHER_SIZE = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|now)\s+)*(?:(?:what|how)\s+about\s+|for\s+|with\s+(?=an?\s))?(?:an?\s+)?"
    r"(?<=\s)(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)(?:\s+(?:system|array|instead|then))?\W*$"
)
_ESTIMATE_FOR_SIZE = re.compile(
    r"\b(?:est\.?|estimates?|numbers?|projections?|production|output)\s+(?:for|on)\s+(?:a\s+)?"
    r"(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)"
)


# the size their use needs, asked: "how many solar panels do i need", "what size system would cover
# our 900 kwh a month", "how big a system should we get"
_SIZE_NEEDED = re.compile(
    r"\bhow\s+many\s+(?:solar\s+)?(?:panels|kw|kilowatts)\s+(?:of\s+(?:solar|panels)\s+)?(?:do|would|will|should|shall)\s+(?:i|we)\b|"
    r"\b(?:what|which)\s+size\s+(?:of\s+)?(?:solar\s+)?(?:system|array|solar)\b|"
    r"\bhow\s+(?:big|large)\s+(?:of\s+)?(?:a\s+)?(?:solar\s+)?(?:system|array)\s+(?:do|would|should|will)\s+(?:i|we)\b|"
    # "how many solar panels to cover that", "how big a system would it take to zero out our bill"
    r"\bhow\s+(?:many\s+(?:solar\s+)?(?:panels|kw|kilowatts)|(?:big|large)\s+(?:of\s+)?(?:a\s+)?(?:solar\s+)?"
    r"(?:system|array))\b[^.?!]{0,25}?\b(?:to\s+(?:cover|offset|zero|wipe|power|run|get\s+rid)|"
    r"(?:would|will|does|do)\s+it\s+take|(?:are|is)\s+needed|needed)\b"
)
_SUPPOSED_SIZE = re.compile(
    r"\b(?:what\s+if|if|suppose|say)\s+(?:it|that|we|i|ours|mine|the\s+(?:system|array|solar))\s+"
    r"(?:was|were|is|had|have|got)\s+(?:a\s+)?(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)"
)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _amount(words: str) -> float:
    words = re.sub(r"\s+", " ", words.strip().lower())
    return float(_COUNTS[words]) if words in _COUNTS else float(words)


def _minutes_from_now(text: str) -> int | None:
    """'in 1 hour' -> 60, 'in an hour and a half' -> 90, 'in 30 minutes' -> 30 (None if not said)."""
    match = _IN_TIME.search(text)
    if match is None or _NOT_A_DEADLINE.search(text[max(0, match.start() - 40) : match.start()]):
        return None
    if match.group("half_an"):
        minutes = 30.0
    elif match.group("hours"):
        minutes = _amount(match.group("hours")) * 60 + (30 if match.group("and_half") else 0)
        minutes += int(match.group("plus_min") or 0)
    else:
        minutes = _amount(match.group("minutes"))
    return round(minutes) if 1 <= minutes <= 10_080 else None


# What the household uses: describes the home, not one question, so it stays for the thread's later questions
_USAGE_PARAMS = ("ev_miles_per_month", "house_kwh_per_month", "ev_kwh_per_month")
_DEADLINE_PARAMS = ("ready_by_hour", "ready_by_minute", "ready_by_day", "ready_in_minutes", "tonight")


def follow_up_params(params: RequestParams, last: RequestParams) -> RequestParams:
    """A follow-up's parameters over the last request's; a new deadline replaces the old one
    ("in 30 minutes" after "by 7am"), a weekday replaces "today"."""
    if last.start_hour is not None and params.start_hour is None and params.ready_by_hour is not None:
        # "ok what about at 10pm" after "run the dishwasher at 5pm?": another start, not a deadline
        params = params.model_copy(
            update={
                "start_hour": params.ready_by_hour,
                "start_minute": params.ready_by_minute,
                "ready_by_hour": None,
                "ready_by_minute": None,
            }
        )
    data = params.merged_over(last).model_dump()
    if params.ready_in_minutes is not None:
        for key in _DEADLINE_PARAMS:
            if key != "ready_in_minutes" and getattr(params, key) is None:
                data[key] = None
    elif params.ready_by_hour is not None or params.ready_by_day is not None or params.tonight:
        data["ready_in_minutes"] = None
        if params.ready_by_day is not None or params.day is not None:
            data["tonight"] = None  # "by saturday 7am instead" names the day itself
        # "what about by 6am instead?" after "tonight" changes the hour, not the night
    if (
        last.task == "charging_plan"
        and not last.monthly
        and params.ev_miles_per_month
        and params.miles_needed is None
        and last.miles_needed is None
        and last.target_soc_pct is None
    ):
        # "we drive maybe 40 miles a day" after tonight's plan: a day's driving is what to put back
        data["miles_needed"] = round(params.ev_miles_per_month * 12 / 365)
    if params.vehicle is not None and params.vehicle != last.vehicle and params.current_soc_pct is None:
        # "what about the bolt, it needs like 60% by 8" after the tesla's plan from 35 %: the tesla's
        # level now is not the bolt's (the plan assumes a typical one and says so)
        data["current_soc_pct"] = None
    if params.ready_by_day in WEEKDAYS and params.day is None:
        data["day"] = None  # "and on saturday?": that day, not the earlier "today"
    elif params.day is not None and params.ready_by_day is None and last.ready_by_day in WEEKDAYS:
        data["ready_by_day"] = None  # "and today?" after "on saturday"
    return RequestParams.model_validate(data)


def with_household_usage(params: RequestParams, context: ReadingContext) -> RequestParams:
    """Miles driven and kWh used, stated earlier in the thread, for a new question that doesn't restate them."""
    last = context.last_params
    if last is None:
        return params
    kept = {
        key: getattr(last, key)
        for key in _USAGE_PARAMS
        if getattr(params, key) is None and getattr(last, key) is not None
    }
    return params.model_copy(update=kept) if kept else params
