"""The compact context the recommend node gives the model, and how it is rendered.

Only what matters for this question goes in: the profile facts for its topic, tool
observations as numbers with units and sources, numbered passages, stale facts to confirm,
and at most the previous exchange (so prompt size stays flat over a long thread).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from profiles.models import UserProfile
from profiles.staleness import SectionAge
from profiles.wording import join, statement

PREVIOUS_CHARS = 200
PASSAGE_CHARS = 600

# Profile sections that matter per topic (others are left out of the prompt).
_SECTIONS = {
    "ev_charging": ("equipment", "household", "location"),
    "solar": ("equipment", "household", "location"),
    "rates": ("location", "household"),
    "weather": ("equipment", "location"),
    "home": ("equipment", "household"),
    "general": ("equipment", "household", "location"),
}
# Fields of a section that say nothing about a topic (the car, for a heat pump question).
_NOT_FOR_TOPIC = {"home": frozenset({"ev_model", "ev_battery_kwh", "ev_charger_kw"})}
FIELD_LABELS = {
    "solar_capacity_kw": "solar {} kW",
    "ev_model": "EV {}",
    "ev_battery_kwh": "EV battery {} kWh",
    "ev_charger_kw": "charger {} kW",
    "has_battery_storage": "{}",  # said by `fact_words`: "has a home battery" / "no home battery"
    "battery_capacity_kwh": "home battery {} kWh",
    "heating_type": "heating: {}",
    "cooling_type": "cooling: {}",
    "work_schedule": "schedule: {}",
    "occupants": "{} occupants",
    "typical_usage_pattern": "usage: {}",
    "city": "{}",
    "zip_code": "ZIP {}",
    "utility_provider": "utility {}",
    "rate_schedule": "plan {}",
}


def fact_words(name: str, value: object) -> str:
    """One profile value in plain words for the prompt and the offline answer: no raw codes
    ("heat pump", not "heat_pump"; "has a home battery", not "home battery: True")."""
    if name == "has_battery_storage":
        return "has a home battery" if value else "no home battery"
    if isinstance(value, str):
        value = value.replace("_", " ")
    return FIELD_LABELS[name].format(value)


class Passage(BaseModel):
    number: int
    source: str
    text: str
    # "California" / "California, PG&E customers": the place a passage is about, when the user is
    # not known to be there (said with it, never presented as their answer)
    applies_in: str | None = None


class RecommendContext(BaseModel):
    question: str
    intent: str
    topic: str
    profile_facts: list[str] = Field(default_factory=list)
    profile_said: str = ""  # the same facts in one sentence, for the offline answer
    stale_facts: list[str] = Field(default_factory=list)
    observations: list[dict[str, Any]] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    nothing_more: bool = False  # a follow-up to the last explanation, its documents all said
    # … and what the follow-up added was only where they live ("we're in cheyenne fwiw, black hills")
    place_added: bool = False
    outside_california: bool = False  # the user's home is known to be in another state
    previous: list[str] = Field(default_factory=list)
    earlier: list[str] = Field(default_factory=list)  # profile notes summarizing older turns of the thread
    errors: list[str] = Field(default_factory=list)
    # caveats this thread's earlier answers already gave in full (left out of `observations`);
    # the answer says in one line that they still apply
    repeated_warnings: int = 0


_NEWS = re.compile(
    r"\b(?:no\s+\w+\s+forecast|unavailable|could\s+not|couldn'?t|failed|cached|earlier\s+copy|not\s+reached|"
    r"timed?\s*out|needs\s+more\s+than)",
    re.I,
)


def without_repeated_warnings(
    observations: list[dict[str, Any]], said_before: str
) -> tuple[list[dict[str, Any]], int]:
    """The observations without the warnings an earlier answer in the thread already gave word for
    word, and how many were left out: the same five-line price caveat in every answer buried the
    answers (a homeowner session); saying once that they still apply keeps it honest."""
    kept, repeated = [], 0
    for observation in observations:
        if observation.get("ok") is False:  # what failed just now is said again: it is news each time
            kept.append(observation)
            continue
        warnings = [str(w) for w in observation.get("warnings", []) if str(w).strip()]
        # a notice of something that failed or is missing now is news each time, said again
        fresh = [w for w in warnings if _NEWS.search(w) or w not in said_before]
        repeated += len(warnings) - len(fresh)
        original = observation.get("warnings", [])
        kept.append({**observation, "warnings": fresh} if fresh != list(original) else observation)
    return kept, repeated


def _topic_values(profile: UserProfile | None, topic: str) -> Iterator[tuple[str, str, Any]]:
    """(section, name, value) of each profile value the topic uses, in the labels' order."""
    if profile is None:
        return
    left_out = _NOT_FOR_TOPIC.get(topic, frozenset())
    for section in _SECTIONS.get(topic, _SECTIONS["general"]):
        value = getattr(profile, section)
        if value is None:
            continue
        for name in FIELD_LABELS:
            field = getattr(value, name, None)
            if field is not None and name not in left_out:
                yield section, name, field


def profile_facts(profile: UserProfile | None, topic: str) -> list[str]:
    return [fact_words(name, value) for _, name, value in _topic_values(profile, topic)]


def profile_said(profile: UserProfile | None, topic: str) -> str:
    """The same facts as `profile_facts`, as one sentence for an answer a person reads ("you heat
    with gas and you work from home"), not the prompt's labels ("heating: gas")."""
    return join(
        [statement(f"{section}.{name}", value) for section, name, value in _topic_values(profile, topic)]
    )


def stale_facts(profile: UserProfile | None, stale: list[SectionAge], topic: str) -> list[str]:
    """'schedule: Office 9-5 (household, last confirmed 220 days ago)' for stale sections the topic uses."""
    if profile is None:
        return []
    relevant = _SECTIONS.get(topic, _SECTIONS["general"])
    lines = []
    for age in stale:
        if age.section not in relevant:
            continue
        section = getattr(profile, age.section)
        values = [
            fact_words(name, getattr(section, name))
            for name in FIELD_LABELS
            if getattr(section, name, None) is not None
        ]
        if not values:
            continue
        when = "never confirmed" if age.age_days is None else f"last confirmed {age.age_days} days ago"
        lines.append(f"{', '.join(values)} ({age.section}, {when})")
    return lines


def render(context: RecommendContext) -> str:
    lines = [f"QUESTION: {context.question}"]
    if context.profile_facts:
        lines.append("PROFILE: " + "; ".join(context.profile_facts))
    for fact in context.stale_facts:
        lines.append(f"STALE: {fact}")
    for observation in context.observations:
        mock = " (sample data)" if observation.get("is_mock") else ""
        lines.append(
            f"FACTS ({observation['tool']}; {observation['source']}{mock}): {observation['summary']}"
        )
        for assumption in observation.get("assumptions", []):
            lines.append(f"ASSUMED: {assumption}")
        for warning in observation.get("warnings", []):
            lines.append(f"WARNING: {warning}")
        if observation.get("credit"):
            lines.append(f"CREDIT: {observation['credit']}")
    if context.repeated_warnings:
        lines.append(
            f"WARNING: the {context.repeated_warnings} caveat(s) about these figures given earlier in this "
            "thread still apply; say so in one short sentence, without repeating them"
        )
    for error in context.errors:
        lines.append(f"WARNING: {error}")
    if context.passages:
        lines.append("PASSAGES:")
        lines.extend(
            f"[{p.number}] ({p.source}{'; applies only in ' + p.applies_in if p.applies_in else ''}) "
            f"{p.text[:PASSAGE_CHARS]}"
            for p in context.passages
        )
    if context.earlier:
        lines.append("EARLIER IN THIS THREAD: " + " / ".join(context.earlier))
    if context.previous:
        lines.append("PREVIOUS: " + " / ".join(context.previous))
    return "\n".join(lines)


def clip(text: str, limit: int = PREVIOUS_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CITATION = re.compile(r"\[(\d{1,2})\]")


def cited_passages(answer: str, numbers: int) -> list[int]:
    """The passage numbers an answer cites as [n], each once, in order (1..numbers only)."""
    return sorted({int(n) for n in _CITATION.findall(answer) if 1 <= int(n) <= numbers})
