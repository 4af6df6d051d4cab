"""What a homeowner says they lack, a question after "meant to ask", and the kind of heat asked
about beside the kind they have (from the h36/h37 conversation misses, session of 2026-11-27):
each rule is a kind of sentence, tested with phrasings other than the one that showed it."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.replies import not_saved
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand


def _read(text: str, **context: Any):
    return understand(text, ReadingContext(**context))


@pytest.mark.parametrize(
    "text", ["and no ev", "we dont have an ev btw", "no solar either", "we don't have solar"]
)
def test_equipment_they_lack_is_a_statement_not_a_forget(text: str) -> None:
    reading = _read(text, known_fields={"location.zip_code": "63109"})
    assert reading.intent == "profile_statement" and not reading.forget and not reading.facts
    assert {m.reason for m in reading.mentions} == {"lacks"}
    assert not_saved(reading).startswith("Noted: no ")


def test_equipment_held_and_said_gone_is_still_removed() -> None:
    reading = _read("no ev anymore", known_fields={"equipment.ev_model": "Nissan Leaf"})
    assert reading.intent == "forget" and "equipment.ev_model" in reading.forget


def test_a_question_beside_what_they_lack_is_answered() -> None:
    reading = _read("we don't have solar, is it worth getting", known_fields={"location.zip_code": "63109"})
    assert reading.asks and reading.intent == "knowledge"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("sorry my toddler grabbed the phone 😅 meant to ask about inversion days and solar", "knowledge"),
        ("oops, i meant to ask about how net metering works", "knowledge"),
        ("my bad, meant to ask when peak is tomorrow", "live_data"),
    ],
)
def test_after_meant_to_ask_comes_the_question(text: str, intent: str) -> None:
    reading = _read(text)
    assert reading.intent == intent and reading.asks and not reading.undo


def test_meant_to_say_is_still_a_correction() -> None:
    reading = _read("sorry i meant to say 94107", known_fields={"location.zip_code": "94110"})
    assert reading.intent == "correction"
    assert [(f.field, f.value) for f in reading.facts] == [("location.zip_code", "94107")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we have gas heat, wanted to ask about heat pumps", "gas"),
        ("gas heat here, curious about heat pumps", "gas"),
        ("thinking about a heat pump, we have gas heat", "gas"),
        ("we have a heat pump and a gas furnace backup", "heat_pump"),
    ],
)
def test_the_heat_they_have_not_the_heat_asked_about(text: str, value: str) -> None:
    facts = {f.field: f.value for f in _read(text).facts}
    assert facts.get("equipment.heating_type") == value


@pytest.mark.parametrize(
    "text",
    [
        "thats not right, smud peak is 5-8 not 4-9",
        "that's wrong, peak here is 5 to 8pm",
        "no thats not right, duke charges like 11 cents not 14",
    ],
)
def test_our_prices_disputed_are_answered_again_with_their_source(text: str) -> None:
    reading = _read(
        text,
        last_intent="live_data",
        last_topic="ev_charging",
        known_fields={"location.utility_provider": "SMUD", "location.zip_code": "95818"},
    )
    assert reading.intent == "live_data" and reading.params.task == "prices" and not reading.facts


def test_a_price_of_their_own_after_an_answer_is_still_saved() -> None:
    reading = _read("thats not right, we pay 11 cents a kwh", last_intent="live_data", last_topic="rates")
    assert [(f.field, f.value) for f in reading.facts] == [("location.flat_rate_usd_per_kwh", 0.11)]


@pytest.mark.parametrize(
    "text",
    [
        "unrelated but do you know a good electrician",
        "can you recommend a solar installer near me",
        "know any good hvac guys in tulsa",
    ],
)
def test_a_business_to_hire_is_off_topic(text: str) -> None:
    assert _read(text).intent == "off_topic"


def test_how_to_choose_a_contractor_is_still_a_question() -> None:
    assert _read("what should i ask an electrician before a panel upgrade").intent == "knowledge"


@pytest.mark.parametrize(
    ("typed", "read"), [("installer", "installer"), ("hosue", "house"), ("tomorow", "tomorrow")]
)
def test_real_words_are_never_corrected_into_domain_words(typed: str, read: str) -> None:
    from advisor.understanding.values import read_values

    assert read_values(f"the {typed} thing", ReadingContext()).message == f"the {read} thing"


def test_the_heat_they_got_rid_of_is_not_theirs() -> None:
    facts = {f.field: f.value for f in _read("got rid of the gas furnace, heat pump went in tuesday").facts}
    assert facts.get("equipment.heating_type") == "heat_pump"
