"""The abbreviations homeowners type, spelled out for the search.

Documents spell terms out ("time-of-use", "heat pump water heater"); people type "tou", "hpwh",
"l2". BM25 matches words and a small sentence encoder has seen few of these abbreviations, so the
query carries both: the message as typed, plus the spelled-out terms for any abbreviation in it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

ABBREVIATIONS: dict[str, str] = {
    "tou": "time-of-use",
    "nem": "net energy metering",
    "nbt": "net billing tariff",
    "ac": "air conditioner",
    "a/c": "air conditioner",
    "hp": "heat pump",
    "hpwh": "heat pump water heater",
    "seer": "seasonal energy efficiency ratio",
    "seer2": "seasonal energy efficiency ratio",
    "hspf": "heating seasonal performance factor",
    "eer": "energy efficiency ratio",
    "cop": "coefficient of performance",
    "afue": "annual fuel utilization efficiency",
    "l1": "level 1",
    "l2": "level 2",
    "dcfc": "DC fast charging",
    "v2h": "vehicle-to-home",
    "v2l": "vehicle-to-load",
    "v2g": "vehicle-to-grid",
    "vpp": "virtual power plant",
    "ira": "Inflation Reduction Act",
    "psps": "public safety power shutoff",
    "phev": "plug-in hybrid",
    "lfp": "lithium iron phosphate",
    "bess": "battery storage",
    "temp": "temperature",
    # one word as typed, two in the documents ("pre-cooling")
    "precool": "pre-cooling",
    "precooling": "pre-cooling",
    "preheat": "pre-heating",
    "preheating": "pre-heating",
}
_WORD = re.compile(r"[a-z0-9/]+", re.I)
# Brand names people use for the thing itself ("how long would a powerwall run my fridge", "my
# kill-a-watt says 25 watts"): the documents name the thing, so the search carries its name too.
BRANDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), name)
    for pattern, name in (
        (
            r"\bpower\s*walls?\b|\benphase\s+(?:iq\s+)?batter|\bfranklin\s+(?:whole\s+home|apower)",
            "home battery",
        ),
        (r"\b(?:generac|kohler|champion|honda\s+eu\d)\b", "generator"),
        (r"\b(?:ecoflow|jackery|bluetti|anker\s+solix|goal\s+zero)\b", "portable power station battery"),
        (r"\bkill[-\s]?a[-\s]?watt\b", "plug-in electricity usage meter"),
        (r"\b(?:nest|ecobee|honeywell\s+t\d)\b", "smart thermostat"),
        (r"\b(?:emporia|sense\s+(?:monitor|meter|app))\b", "home energy monitor"),
        (r"\b(?:rinnai|navien|rheem\s+tankless)\b", "tankless water heater"),
        (
            r"\b(?:chargepoint|juicebox|wallbox|grizzl-?e|tesla\s+wall\s+connector|wall\s+connector)\b",
            "level 2 home EV charger",
        ),
        (r"\bsuperchargers?\b", "DC fast charging"),
        # the other names of a thing the documents name one way
        (r"\b(?:vampire|phantom|ghost)\s+(?:loads?|power|draws?|drain|energy)\b", "standby power"),
        (r"(?<![\w-])r-?(?:1[1-9]|[2-6]\d)\b(?!-)", "insulation R-value"),  # "is r-30 enough"
    )
)


# "can my heat pump run when its -25F", "20 below", "below zero": the cold said as a temperature
_FREEZING = re.compile(
    r"(?<![\w.])-\s?\d{1,2}\s*°?\s*f?\b|\b\d{1,2}\s+below\b|\bbelow\s+zero\b|\bsub[-\s]?zero\b|"
    # "when its like 15 degrees out": at or below freezing in °F, as US homeowners say it
    r"(?<![\w.-])(?:\d|[12]\d|3[0-2])\s*(?:°\s*f?|degrees?(?:\s+f(?:ahrenheit)?)?|deg|f)\b(?!\s*(?:warmer|cooler|higher|lower|more|less|up|down))",
    re.I,
)


def spelled_out(query: str) -> str:
    """The query, followed by the spelled-out form of each abbreviation it uses (once each), and
    "cold weather" when it says the cold only as a temperature below zero."""
    extra = []
    for word in _WORD.findall(query.lower()):
        full = ABBREVIATIONS.get(word)
        if full and full not in extra and full.lower() not in query.lower():
            extra.append(full)
    for pattern, name in BRANDS:
        if pattern.search(query) and name not in extra and name not in query.lower():
            extra.append(name)
    if _FREEZING.search(query) and "cold" not in query.lower():
        extra.append("cold weather")
    return f"{query} ({'; '.join(extra)})" if extra else query


_DOCS = Path(__file__).resolve().parent / "docs"
# capitals the documents use that say nothing about home energy
_GENERIC_CAPITALS = frozenset(
    {
        "FAQ",
        "ZIP",
        "GUID",
        "AAA",
        "CDC",
        "HHS",
        "IEEE",
        "STAR",
        "TECH",
        "HOMES",
        "IRS",
        "FEMA",
        "FTC",
        "NHTSA",
        "PHMSA",
        "CPSC",
    }
)
_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9]{2,6}\b")


@lru_cache(maxsize=1)
def _documents_using() -> dict[str, int]:
    """How many documents write each abbreviation in capitals."""
    counts: dict[str, int] = {}
    for path in _DOCS.glob("*.md"):
        for term in set(_CAPITALS.findall(path.read_text(encoding="utf-8"))) - _GENERIC_CAPITALS:
            counts[term] = counts.get(term, 0) + 1
    return counts


def document_terms() -> frozenset[str]:
    """The abbreviations the knowledge base's documents write in capitals ("CARE", "FERA", "PCIA",
    "SGIP", "LIHEAP"): read from the documents, so a term a new document brings is known at once."""
    return frozenset(_documents_using())


def terms_named(message: str) -> set[str]:
    """The terms the message names: typed in capitals ("what are CARE and FERA"), or in lower case
    when it is no English word ("whats pcia on my bill"; "care" is a word)."""
    terms = document_terms()
    named = {term for term in _CAPITALS.findall(message) if term in terms}
    from knowledge.encoder import common_words

    words = common_words()
    if words:
        named |= {
            token.upper()
            for token in re.findall(r"\b[a-z][a-z0-9]{2,6}\b", message)
            if token.upper() in terms and token not in words
        }
    return named


def names_a_document_term(message: str) -> bool:
    return bool(terms_named(message))


def rare_terms_named(message: str, at_most: int = 2) -> set[str]:
    """The named terms only a document or two use ("HEEHRA", "PCIA", "FERA"; not "TOU" or "SEER",
    which many do): a passage that writes one is about what was asked, whatever else it shares."""
    counts = _documents_using()
    return {term for term in terms_named(message) if counts.get(term, 0) <= at_most}
