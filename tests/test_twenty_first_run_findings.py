"""Kinds of sentence the twenty-first first run (h40/h41, code 2d31d7c) misread, each tested with
phrasings other than the one that showed it."""

from __future__ import annotations

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand


@pytest.mark.parametrize(
    "text",
    [
        "cant plug in till after 10pm bc the garage outlet shares a circuit w the freezer. need 70% by 6",
        "the ac kicks in around noon, when should the dishwasher run",
    ],
)
def test_in_after_a_verb_is_no_place_abroad(text: str) -> None:
    assert understand(text).intent == "live_data"


@pytest.mark.parametrize(
    "text", ["how windy is it supposed to get tonight, got a tarp on the barn roof", "any storms coming tmrw"]
)
def test_wind_and_storms_are_weather(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "live_data" and reading.params.task == "weather"


@pytest.mark.parametrize("text", ["is 4-9 still the expensive part", "is 7am too late to start charging"])
def test_is_before_a_number_and_more_words_is_a_question(text: str) -> None:
    reading = understand(text)
    assert reading.asks and reading.intent in ("live_data", "knowledge")


def test_is_and_a_zip_alone_is_still_a_statement() -> None:
    reading = understand("Zip wrong, is 95121")
    assert not reading.asks and [(f.field, f.value) for f in reading.facts] == [
        ("location.zip_code", "95121")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "husband asking if he can wait till after midnight to plug in the lightning, he leaves at 7",
        "my wife keeps asking when the cheapest hours are for the dryer",
    ],
)
def test_a_question_asked_for_someone_is_answered(text: str) -> None:
    assert understand(text).asks


@pytest.mark.parametrize(
    "text",
    [
        "if the grid goes down do my panels still work without a battery",
        "will solar work in an outage without a battery?",
    ],
)
def test_without_a_battery_in_a_question_is_no_fact(text: str) -> None:
    assert not understand(text).facts


def test_without_a_battery_said_is_still_theirs() -> None:
    facts = [(f.field, f.value) for f in understand("solar but without any battery").facts]
    assert ("equipment.has_battery_storage", False) in facts


@pytest.mark.parametrize("text", ["gonna be a scorcher huh. ok night", "ok night", "ok later"])
def test_ok_night_after_a_forecast_is_goodbye(text: str) -> None:
    context = ReadingContext(last_intent="live_data", last_topic="weather")
    assert understand(text, context).intent == "goodbye"


@pytest.mark.parametrize("text", ["and tonight?", "what about later"])
def test_a_time_alone_after_a_forecast_still_moves_it(text: str) -> None:
    context = ReadingContext(last_intent="live_data", last_topic="weather")
    assert understand(text, context).intent == "live_data"


@pytest.mark.parametrize(
    "text",
    ["we only have a regular outlet for the car", "only have a regular outlet for the car. is that enough"],
)
def test_a_regular_outlet_for_the_car_is_its_charger(text: str) -> None:
    facts = [(f.field, f.value) for f in understand(text).facts]
    assert facts == [("equipment.ev_charger_kw", 1.44)]


def test_a_regular_outlet_for_the_car_asked_about_is_no_charger() -> None:
    assert not understand("is a regular outlet enough for the car?").facts


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("leased panels, 6.2 kw. good solar day today or nah", "solar_forecast"),
        ("heat pump worth it here or not", None),
    ],
)
def test_a_yes_or_no_tag_makes_a_question(text: str, task: str | None) -> None:
    reading = understand(text)
    assert reading.asks and reading.params.task == task


@pytest.mark.parametrize(
    "text", ["san antonio, cps energy, 10 kw solar and a powerwall", "8 kw and a powerwall"]
)
def test_a_powerwall_in_a_list_of_their_setup_is_theirs(text: str) -> None:
    facts = {f.field: f.value for f in understand(text).facts}
    assert facts["equipment.has_battery_storage"] is True and facts["equipment.battery_capacity_kwh"] == 13.5


@pytest.mark.parametrize(
    "text",
    [
        "thinking of 8 kw and a powerwall",
        "my neighbor has 8 kw and a powerwall",
        "how long would 8 kw and a powerwall last",
    ],
)
def test_a_powerwall_considered_asked_about_or_someone_elses_is_not(text: str) -> None:
    assert not understand(text).facts


def test_the_old_houses_heat_beside_theirs_leaves_theirs_saved() -> None:
    context = ReadingContext(known_fields={"equipment.heating_type": "heat_pump"})
    reading = understand("actually our heat is gas, the heat pump was at the old house", context)
    assert [(f.field, f.value) for f in reading.facts] == [("equipment.heating_type", "gas")]


def test_the_old_house_alone_is_still_not_theirs() -> None:
    assert not understand("our old house had solar, 6 kw").facts


@pytest.mark.parametrize(
    "text", ["I work from home three days, office the other two", "wfh, in the office the rest of the week"]
)
def test_home_some_days_and_the_office_the_rest_is_hybrid(text: str) -> None:
    assert [(f.field, f.value) for f in understand(text).facts] == [("household.work_schedule", "Hybrid")]


def test_no_car_yet_with_none_saved_is_what_they_lack_not_a_forget() -> None:
    reading = understand("no car yet just asking")
    assert reading.intent == "profile_statement" and not reading.forget
    assert {m.reason for m in reading.mentions} == {"lacks"}


def test_not_the_regular_one_after_a_car_is_no_plan_skipped() -> None:
    context = ReadingContext(
        last_intent="live_data", last_topic="rates", known_fields={"equipment.ev_model": "Chevrolet Bolt EV"}
    )
    reading = understand("actually its a bolt euv not the regular one", context)
    assert reading.slot_answer is None
    assert [(f.field, f.value) for f in reading.facts] == [("equipment.ev_model", "Chevrolet Bolt EUV")]


@pytest.mark.parametrize(
    "text", ["also we have 2 powerwalls, wait no just 1", "we have 2 powerwalls, no wait, just one"]
)
def test_a_count_corrected_in_the_same_message_is_the_one_saved(text: str) -> None:
    facts = {f.field: f.value for f in understand(text).facts}
    assert facts["equipment.battery_capacity_kwh"] == 13.5


def test_two_powerwalls_and_one_of_them_somewhere_stays_two() -> None:
    facts = {f.field: f.value for f in understand("we have 2 powerwalls, one is in the garage").facts}
    assert facts["equipment.battery_capacity_kwh"] == 27.0
