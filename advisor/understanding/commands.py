"""The values a command carries, one table per slot: which profile fields "forget my X" names,
which equipment "we sold the Tesla" removes, and the few words that mark a turn's form
("remember that …", thanks, yes). Whether a message *is* a command is the meaning model's call;
these tables only say what it is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLACE_FIELDS = ("location.zip_code", "location.city", "location.lat", "location.lon", "location.timezone")
PREFERENCE_FIELDS = (
    "preferences.budget_priority",
    "preferences.comfort_priority",
    "preferences.green_priority",
)


@dataclass(frozen=True)
class Target:
    """Words naming something in the profile, and the fields they name. `alone`: once matched, no
    later entry is read ("forget my ZIP" is not the whole place; "home battery" is not the EV's)."""

    words: str
    fields: tuple[str, ...]
    alone: bool = False
    consumes: bool = (
        False  # the words are removed before later entries read ("the rate I pay" is not the plan)
    )


FORGET_TARGETS: tuple[Target, ...] = (
    Target(r"zip|zipcode|postcode|postal", ("location.zip_code",), alone=True),
    # "my place" is where they live; "my dad's place" is not
    Target(r"city|location|address|where\s+(?:i|we)\s+live|town|(?:my|our)\s+place", PLACE_FIELDS),
    Target(r"utility|provider|power\s+company|electric\s+company", ("location.utility_provider",)),
    Target(
        r"price|prices|(?:rate|price)\s+(?:i|we)\s+pay|what\s+(?:i|we)\s+pay|per\s+kwh|cents|flat\s+rate",
        ("location.flat_rate_usd_per_kwh",),
        consumes=True,
    ),
    Target(r"plan|rate|tariff|schedule\s+code", ("location.rate_schedule",)),
    Target(r"charger|charging\s+speed", ("equipment.ev_charger_kw",), alone=True),
    Target(
        r"home\s+battery|powerwall|battery\s+storage|storage",
        ("equipment.has_battery_storage", "equipment.battery_capacity_kwh"),
        alone=True,
    ),
    Target(
        r"ev|car|vehicle|tesla|model|bolt|leaf|truck|rivian|ioniq|mach-?e|lightning",
        ("equipment.ev_model", "equipment.ev_battery_kwh"),
    ),
    Target(r"battery", ("equipment.has_battery_storage", "equipment.battery_capacity_kwh")),
    Target(r"solar|panels?", ("equipment.solar_capacity_kw",)),
    Target(
        r"heating|heat\s+pump|furnace|heat|baseboards?|boiler|mini[-\s]?splits?", ("equipment.heating_type",)
    ),
    Target(r"cooling|ac|a/c|air\s+conditioning", ("equipment.cooling_type",)),
    Target(
        r"work|working|job|schedule|wfh|remote|office|retired|retirement|hybrid|night\s+shifts?",
        ("household.work_schedule",),
    ),
    Target(r"household|people|occupants|family|kids|children|roommates|adults", ("household.occupants",)),
    Target(r"usage|habits", ("household.typical_usage_pattern",)),
    Target(r"preferences?|priorities", PREFERENCE_FIELDS),
)

# "forget everything", "delete all my data": the whole profile
EVERYTHING = re.compile(
    r"\b(?:everything|all\s+(?:of\s+)?(?:it|my\s+data|my\s+info\w*|that)|my\s+(?:whole\s+)?profile|"
    r"all\s+my\s+data|(?:about|on)\s+me|all\s+you\s+know)\b",
    re.I,
)
# "forget that", "scratch it": the last change, not a field. The "that" ends its clause: in
# "forget that i have oil heat" it introduces the fact to forget.
LAST_CHANGE = re.compile(
    r"\b(?:forget|delete|remove|erase|scratch|drop|undo|cancel|take\s+back|reverse|ignore|disregard)\s+(?:it|that|this|"
    r"(?:the\s+|that\s+)?last\s+(?:thing|one|change)|what\s+i\s+(?:just\s+)?said)\b"
    r"(?=\s*(?:$|[.,!?;:)-]|(?:please|pls|plz|thanks|thx|now|then|too|and|but|i\s+meant|sorry|lol)\b))|"
    # "thats not what i said, take it back", "take that back i typed it wrong" (not "take it back to
    # the dealer")
    r"\btake\s+(?:it|that|this)\s+back\b(?!\s+(?:to|from|in|into|for|at|on|off)\b)|"
    # "scratch the powerwall thing, that was just a quote": the named thing they said, taken back
    r"\b(?:scratch|ignore|disregard)\s+(?:the|that|my)\s+(?:[\w-]+\s+){1,2}?(?:thing|part|bit|stuff|one)\b",
    re.I,
)
# "we sold the Tesla", "no longer have solar", "got rid of the powerwall": equipment that is gone.
# What went is the rest of the clause; the tables say which fields it names ("sold the ev6",
# "got rid of the gas furnace"), so a thing they do not know ("sold the house") names none.
GONE = re.compile(
    r"\b(?:(?:i|we)\s+(?:(?:no\s+longer)\s+(?:have|own|drive|use)|"
    r"(?:don'?t|do\s+not)\s+(?:have|own|drive|use)(?=.*\b(?:anymore|any\s+more)\b)|"
    r"(?:just\s+)?(?:sold|got\s+rid\s+of|removed|returned|traded\s+in|totaled|totalled))|"
    r"(?:sold|got\s+rid\s+of|traded\s+in|totaled|totalled)|"
    # "he took the charger too": a son or a partner who moved out took it with them
    r"(?:he|she|they)\s+(?:took|kept)(?=\s+(?:the|our|my|his|her|their)\s))\s+"
    r"(?P<what>[^,;!?]{1,40}?)(?=\s*(?:$|[,.;!?](?:\s|$)|\b(?:and|but|so|because|last|yesterday|anymore|any\s+more|for|to|when|after|got|bought|leased|now)\b))",
    re.I,
)
# "the model 3 got totaled", "the powerwall got pulled out", "the id4 went back at end of lease"
_GONE_PASSIVE = re.compile(
    r"\b(?:the|our|my)\s+(?P<what>[\w .-]{1,25}?)\s+(?:got|was|were|went|has\s+been|have\s+been)\s+"
    r"(?:totaled|totalled|pulled(?:\s+out)?|recalled|hauled\s+away|repo'?d|repossessed|taken\s+(?:out|away|off)|"
    r"removed|stolen|back)\b",
    re.I,
)
# "returned the rivian", "took the panels off when we reroofed"
_GONE_ACTIVE = re.compile(
    r"\b(?:returned\s+(?:the|our|my)\s+(?P<what>[\w .-]{1,25}?)|took\s+(?:the|our|my)\s+(?P<taken>[\w .-]{1,25}?)\s+(?:off|out|down))"
    r"(?=\s*(?:$|[,.;!?](?:\s|$)|\b(?:and|but|so|when|because|inside|at|after|last)\b))",
    re.I,
)
# "we had the powerwall pulled out", "got the old panels removed": someone took it out for them
_GONE_CAUSED = re.compile(
    r"\b(?:had|got|have|having)\s+(?:the|our|my)\s+(?P<what>[\w .-]{1,25}?)\s+(?:pulled(?:\s+out)?|removed|"
    r"taken\s+(?:out|off|away|down)|hauled\s+(?:off|away)|uninstalled|ripped\s+out|torn\s+out)\b",
    re.I,
)
# "no car rn", "we're car-free now": no EV at all
_NO_CAR = re.compile(
    r"\b(?:no\s+(?:car|ev|electric\s+car)\b(?!\s+(?:charger|charging|rate|plan))|car-?free|carless)", re.I
)
_FUEL = re.compile(r"\b(?:gas|gasoline|diesel|ice|petrol)\b", re.I)
_GONE_FILLER = re.compile(r"\b(?:a|an|the|any|our|my|that|old|\d{4})\b", re.I)
_GENERIC_EQUIPMENT = re.compile(r"^(?:ev|car|electric\s+car|truck|vehicle)?$", re.I)
# What makes a message with no new value a correction of what we saved ("nope", "thats wrong",
# "undo", "not mine, my neighbour's"): without one ("ok redo it") nothing is undone
UNDO_CUE = re.compile(
    r"\b(?:undo|undid|revert\w*|go\s+back|back\s+to|wrong|not\s+right|incorrect|not\s+correct|mistake|"
    r"scratch|take\s+(?:it|that|this)\s+back|cancel|nope|wait|never\s?mind|nvm|ignore|forget|disregard|"
    r"didn'?t\s+mean|not\s+(?:what|it|true|mine|ours|my|our|me|us|the)|isn'?t|wasn'?t|aren'?t|can'?t\s+be|"
    r"neighbou?rs?|typo|oops|sorry|misspoke|mixed\s+up|confused|remove|delete|drop|erase|no\s+longer|"
    r"anymore|actually|meant|false|no|you\s+said|says)\b",
    re.I,
)
# A word that asks to remove something: a "forget" reading without one removes nothing
REMOVAL_CUE = re.compile(
    r"\b(?:forget|forgot\s+about|delete|remove|erase|clear|wipe|drop|unsave|get\s+rid\s+of|take\s+(?:off|out|back\s+the)|"
    # "lose the rate plan info its out of date"
    r"(?<!\bdont\s)(?<!\bdon't\s)(?<!\bnot\s)(?<!\bnever\s)(?:lose|ditch|toss|nix)(?=\s+(?:the|my|that)\b)|scratch(?=\s+(?:the|my)\s+(?!plan\b)\w)|"
    # "take the zip back off my file", "i'd prefer you not keep my zip code"
    r"take\s+(?:the|my)\s+[\w ]{1,20}?\s+(?:back\s+)?off|(?:prefer|rather)\s+(?:you\s+)?(?:not|didn'?t)\s+(?:keep|store|save|have|hold)|"
    r"(?:don'?t|do\s+not|stop)\s+(?:keep|keeping|store|storing|save|saving|remember|remembering|hold|holding))\b",
    re.I,
)
# "forget the gas heat", "pls delete my zip", "forget that i have oil heat": the message is a
# command to remove what it names
FORGET_LEAD = re.compile(
    r"^\W*(?:(?:please|pls|plz|can\s+you|could\s+you|ok|okay|also|and|wait|no|nope|sorry|oops|nvm|oh|so)\W*\s+)*"
    r"(?:forget|delete|remove|erase|clear|wipe|drop|take\s+back(?=\s+the\s)|scratch(?=\s+(?:the|my)\s+(?!plan\b)\w)|take(?=\s+(?:the|my)\s+[\w ]{1,20}?\s+(?:back\s+)?off\b)|"
    # "scratch what i said about the powerwall": what they said about that, removed
    r"(?:scratch|ignore|disregard|take\s+back)(?=\s+(?:what|everything|all)\s+i\s+(?:just\s+)?(?:said|told\s+you|typed|wrote)\s+(?:about|re|regarding|on)\s))\b"
    r"(?!\s+(?:about\s+)?(?:it|this)\b)",
    re.I,
)
REMEMBER = re.compile(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?(?:remember|note|save|keep\s+in\s+mind|make\s+a\s+note)"
    r"(?:\s+(?:that|this))?\s*[:,-]?\s*",
    re.I,
)
THANKS = re.compile(
    r"\b(?:thanks|thank\s+you|thank\s+u|thx|thnx|ty|tysm|tyvm|cheers|appreciate\s+it|much\s+appreciated|mahalo|"
    r"gracias|merci|danke)\b",
    re.I,
)
YES = re.compile(
    r"^\s*(?:yes|yep|yeah|yup|ya|right|correct|that'?s\s+(?:it|right|the\s+one)|sure|exactly)\b", re.I
)


# "the first one", "2nd", "option 1": which of two readings we offered
_CHOICES = (
    (
        re.compile(
            r"^\W*(?:the\s+)?(?:first|1st|former|option\s+(?:1|one)|(?:number\s+)?1|a)(?:\s+one)?\W*$", re.I
        ),
        1,
    ),
    (
        re.compile(
            r"^\W*(?:the\s+)?(?:second|2nd|latter|option\s+(?:2|two)|(?:number\s+)?2|b)(?:\s+one)?\W*$", re.I
        ),
        2,
    ),
)


def choice(text: str) -> int | None:
    return next((number for pattern, number in _CHOICES if pattern.match(text)), None)


def named_fields(text: str) -> list[str]:
    """The profile fields the words name, in table order ("my zip and my car" -> both); a car the
    vehicle table knows names the EV ("it's the ix not the i4")."""
    from advisor.energy.vehicles import find_vehicle  # the vehicle table is one of the grammar's vocabularies

    fields: list[str] = []
    if find_vehicle(text) is not None:
        fields += ["equipment.ev_model", "equipment.ev_battery_kwh"]
    for target in FORGET_TARGETS:
        pattern = re.compile(r"\b(?:" + target.words + r")\b", re.I)
        if pattern.search(text):
            fields.extend(field for field in target.fields if field not in fields)
            if target.alone:
                break
            if target.consumes:
                text = pattern.sub(" ", text)
    return fields


def gone(text: str) -> tuple[list[str], str | None]:
    """Fields of equipment the user says is gone, and the words that named it ("we sold the
    tesla" -> the EV's fields, "tesla")."""
    for pattern in (GONE, _GONE_PASSIVE, _GONE_ACTIVE, _GONE_CAUSED):
        match = pattern.search(text)
        if match is None:
            continue
        what = match.group("what") or match.groupdict().get("taken") or ""
        words = " ".join(_GONE_FILLER.sub(" ", what).split())
        fields = [
            field for field in named_fields(what) if field.startswith("equipment.")
        ]  # things, not facts
        if _FUEL.search(what):
            # "sold my gas truck", "the gas one": not the EV (a gas furnace is still the heating)
            fields = [field for field in fields if not field.startswith("equipment.ev_")]
        if fields:
            return fields, words
    if _NO_CAR.search(text):
        return named_fields("ev"), "car"
    return [], None


def another_car(words: str, stored: str | None) -> bool:
    """Whether the car the user says is gone ("the leaf") is not the one the profile holds (a
    Tesla Model 3): then the profile's car stays. A plain "the car" is the one we have."""
    from advisor.energy.vehicles import find_vehicle

    if not stored or _GENERIC_EQUIPMENT.match(words):
        return False
    said, held = _squashed(words), _squashed(stored)
    if said in held or said.split()[0] in held.split():
        return False  # "the model 3", "the tesla", "the leaf" of "Nissan Leaf Plus"
    named, known = find_vehicle(words), find_vehicle(stored)
    return not (named is not None and known is not None and named[0].name == known[0].name)


def same_words(said: str, words: str) -> bool:
    """Whether two mentions name the same thing ("ID4" / "id4", "powerwall" / "the powerwall")."""
    a, b = _squashed(said).replace(" ", ""), _squashed(words).replace(" ", "")
    return bool(a) and bool(b) and (a in b or b in a)


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", re.sub(r"(?<=[a-z])[\s-]+(?=\d)", "", text.lower()))


def remember_lead(text: str) -> str | None:
    """The message without a leading "remember that", or None when it has none ("hi, i'm ruth. can
    you remember that i'm retired?": the lead may open a later sentence, what came before stays)."""
    for start in (0, *(m.end() for m in re.finditer(r"[.!?]\s+", text))):
        sentence = text[start:]
        match = REMEMBER.match(sentence)
        if match is None or re.match(r"^\s*(?:do|did)\s+you\s+remember", sentence, re.I):
            continue
        said = sentence[match.end() :]
        # "can you remember that i'm retired?": the mark was the request's, the rest is a statement
        said = said.rstrip(" ?") if re.match(r"\s*(?:can|could)\s", sentence, re.I) else said
        return text[:start] + said
    return None


# "wait, it's a 2021 not a 2022": a model year, which the profile does not keep
_MODEL_YEAR = re.compile(r"\b(?:19[89]\d|20[0-4]\d)\b")


def model_year_said(text: str) -> bool:
    """A car's model year in the words (the profile keeps the model, never its year)."""
    return _MODEL_YEAR.search(text) is not None
