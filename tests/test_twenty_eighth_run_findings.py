"""Misreadings the twenty-eighth first run showed (h61/h62/h63, code 069112d), each tested with
phrasings other than the one that showed it."""

from __future__ import annotations

import pytest

from advisor.understanding.reader import understand


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("no need to keep my zip, delete it", "location.zip_code"),
        ("dont want you tracking how many people live here, erase that", "household.occupants"),
        ("i don't need you saving my work schedule, remove it", "household.work_schedule"),
    ],
)
def test_a_field_named_as_one_not_to_keep_is_forgotten_not_the_last_change_undone(
    text: str, field: str
) -> None:
    reading = understand(text)
    assert reading.intent == "forget" and field in reading.forget and not reading.undo


def test_undo_that_alone_still_undoes() -> None:
    reading = understand("undo that")
    assert reading.intent == "correction" and reading.undo


@pytest.mark.parametrize(
    "text",
    [
        "cold front coming thursday, how cold is it gonna get",
        "its been brutal all week, what does the weekend look like",
        "whats it gonna do tomorrow, the wind chill was awful today",
    ],
)
def test_the_coming_days_weather_asked_in_plain_words_is_the_forecast(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "live_data" and reading.params.task == "weather"


@pytest.mark.parametrize(
    "text",
    [
        "how cold does it get in minnesota in winter",
        "what is a polar vortex",
        "how hot should i set the water heater",
    ],
)
def test_climate_settings_and_terms_are_explained_not_forecast(text: str) -> None:
    assert understand(text).intent == "knowledge"


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("we have a model y and an ev9, the ev9 is the one that charges here", "Kia EV9"),
        ("two cars: a bolt and an ioniq 6. the ioniq is the one that charges at home", "Hyundai Ioniq 6"),
        ("we've got an id.4 and a leaf, the id.4 charges at home, the leaf at work", "Volkswagen ID.4"),
    ],
)
def test_of_two_cars_the_one_charged_at_home_is_saved(text: str, car: str) -> None:
    cars = [f.value for f in understand(text).facts if f.field == "equipment.ev_model"]
    assert cars == [car]


def test_a_field_they_say_we_do_not_need_is_forgotten() -> None:
    reading = understand("you dont need my work schedule, forget that")
    assert reading.intent == "forget" and reading.forget == ["household.work_schedule"]


@pytest.mark.parametrize("text", ["blizzard still coming?", "ice storm tonight?"])
def test_storm_words_ask_for_the_forecast(text: str) -> None:
    assert understand(text).params.task == "weather"


def test_rmp_is_rocky_mountain_power() -> None:
    facts = {f.field: f.value for f in understand("84770, rmp").facts}
    assert facts["location.utility_provider"] == "Rocky Mountain Power"
