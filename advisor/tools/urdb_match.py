"""Which OpenEI (URDB) rate items a user's plan name means: by plan CODE, never by substring.

A URDB name carries the utility's plan code among other words ("Residential Time-of-Use
Electric Vehicle EV2-A", "E-TOU-C3", "EV2A (Home Charging)", "Schedule EV-TOU-5 ... CARE").
The user's words match an item when their code equals one of the item's words (or two or three
consecutive words) with case, spaces and hyphens ignored: "ev2-a" and "EV2A" are EV2-A, while
"E-TOU-C" is not "E-TOU-C3". A utility's own name for a plan ("Home Charging") counts as its code
through a small alias table, each entry with the utility page that gives it.

Failing an exact code, a *family* match takes codes that continue the user's at a hyphen
("E-TOU" -> E-TOU-C, E-TOU-D; "EV2" -> EV2-A), never inside a part ("E-TOU-C" -> not E-TOU-C3).

Discount and metering variants of a plan (CARE, FERA, medical baseline, net metering, solar)
are separate URDB items; they are used only when the user's words ask for them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

_PGE_EV_PLANS = "https://www.pge.com/en/account/rate-plans/find-your-best-rate-plan/electric-vehicles.html"
_PGE_BEST_PLAN = "https://www.pge.com/en_US/residential/rate-plans/how-rates-work/find-my-best-rate-plan.page"


class PlanAlias(BaseModel):
    model_config = ConfigDict(frozen=True)

    words: str  # the utility's own name for the plan
    code: str
    source: str  # the utility page that names the plan so


# Utility (the name in advisor/energy/utilities.py) -> the names it gives its plans.
PLAN_ALIASES: dict[str, tuple[PlanAlias, ...]] = {
    "PG&E": (
        # "Home Charging EV2-A", "Electric Home Rate Plan (E-ELEC)"
        PlanAlias(words="Home Charging", code="EV2-A", source=_PGE_EV_PLANS),
        PlanAlias(words="Electric Home", code="E-ELEC", source=_PGE_EV_PLANS),
        # "Time-of-Use (Peak Pricing 4 - 9 p.m. Every Day) E-TOU-C", "... (Peak Pricing 5 - 8 p.m.
        # Weekdays) E-TOU-D", "Tiered Rate Plan E-1"
        PlanAlias(
            words="Time-of-Use (Peak Pricing 4-9 p.m. Every Day)", code="E-TOU-C", source=_PGE_BEST_PLAN
        ),
        PlanAlias(
            words="Time-of-Use (Peak Pricing 5-8 p.m. Weekdays)", code="E-TOU-D", source=_PGE_BEST_PLAN
        ),
        PlanAlias(words="Tiered Rate Plan", code="E-1", source=_PGE_BEST_PLAN),
    ),
}

# Variant kind -> the words that name it (matched on normalized text, as whole words).
_VARIANTS: dict[str, re.Pattern[str]] = {
    "CARE": re.compile(r"\b(?:care|california alternate rates? for energy|low income)\b"),
    "FERA": re.compile(r"\b(?:fera|family electric rate assistance)\b"),
    "medical baseline": re.compile(r"\bmed(?:ical)? baseline\b"),
    "net metering": re.compile(r"\b(?:nem\w{0,2}|nbt|net (?:energy )?metering|net billing|solar billing)\b"),
    "solar": re.compile(r"\b(?:solar|pv)\b"),
}
# Words in a user's plan name that are not part of the code ("my EV2-A plan").
_FILLER = {"PLAN", "RATE", "RATES", "SCHEDULE", "TARIFF", "THE", "MY", "ON", "OPTION"}
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


class PlanWords(BaseModel):
    """What a user's plan name asks for: a code (squashed) and variants."""

    model_config = ConfigDict(frozen=True)

    said: str
    code: str  # squashed: upper-case letters and digits only ("ETOUC")
    variants: frozenset[str]


class CodeMatch(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: str  # the item's code as the item writes it ("EV2-A"), or the alias's code
    exact: bool  # False: a family match ("E-TOU" -> "E-TOU-C")


def squash(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())


def _normal(text: str) -> str:
    """Lower-case words separated by single spaces ('4 - 9 p.m.' -> '4 9 p m')."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def variants_in(text: str) -> frozenset[str]:
    normal = _normal(text)
    return frozenset(kind for kind, pattern in _VARIANTS.items() if pattern.search(normal))


def alias_code(text: str, utility: str | None) -> str | None:
    """The plan code a utility's own plan name stands for ('Home Charging' -> 'EV2-A'); with no
    utility, any utility's alias, if they agree."""
    normal = f" {_normal(text)} "
    tables = [PLAN_ALIASES.get(utility, ())] if utility else list(PLAN_ALIASES.values())
    codes = {alias.code for table in tables for alias in table if f" {_normal(alias.words)} " in normal}
    return codes.pop() if len(codes) == 1 else None


def plan_words(said: str, utility: str | None = None) -> PlanWords:
    """The code and variants in a user's plan name ('E-TOU-C CARE', 'ev2a', 'Home Charging')."""
    variants = variants_in(said)
    code = alias_code(said, utility)
    if code is None:
        rest = _normal(said)
        for pattern in _VARIANTS.values():
            rest = pattern.sub(" ", rest)
        code = "".join(word for word in rest.upper().split() if word not in _FILLER)
    return PlanWords(said=said, code=squash(code), variants=variants)


def match_code(wanted: str, name: str, utility: str | None = None) -> CodeMatch | None:
    """Whether a URDB item's name carries the squashed code `wanted`: exactly (a word, or two or
    three consecutive words, or the utility's alias for the code), else as a family member (a word
    continuing it at a hyphen). None: no match."""
    if len(wanted) < 2:
        return None
    words = _WORD.findall(name)
    for size in (1, 2, 3):
        for start in range(len(words) - size + 1):
            run = words[start : start + size]
            if squash("".join(run)) == wanted:
                return CodeMatch(code=" ".join(run), exact=True)
    aliased = alias_code(name, utility)
    if aliased is not None and squash(aliased) == wanted:
        return CodeMatch(code=aliased, exact=True)
    for word in words:
        if _continues(word, wanted):
            return CodeMatch(code=word, exact=False)
    return None


def _continues(word: str, wanted: str) -> bool:
    """'E-TOU-C' continues 'ETOU' (at its hyphen); 'E-TOU-C3' does not continue 'ETOUC'."""
    parts = word.upper().split("-")
    return any("".join(parts[:end]) == wanted for end in range(1, len(parts)))
