"""Rules learned from the fourteenth fresh set (h26 + h27, after its first runs were recorded) and
from the knowledge questions routed away from an explanation: each a rule over any wording,
checked on phrasings beside the ones that failed."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user, stored


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("fourteenth"), clock=lambda: NOW)
    yield built
    built.close()


def _read(text: str, **context: Any):
    return understand(text, ReadingContext(**context))


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {fact.field: fact.value for fact in _read(text, **context).facts}


@pytest.mark.parametrize(
    "text",
    [
        "central valley, fresno area, 108 in july. what temp should i set the thermastat to save money without dying",
        "nebraska, OPPD. is it better to charge the ev as soon as i get home or schedule it for later",
        "my husband and i are both retired and home all day. would solar pay off for us here",
    ],
)
def test_a_question_about_money_that_names_no_plan_is_not_a_plan_comparison(text: str) -> None:
    """The model's default live task for a money question was a comparison of rate plans ("Sorry: I
    can only compare rate plans for PG&E and SDG&E" to a thermostat question)."""
    reading = _read(text)
    assert reading.intent == "knowledge" and reading.params.task is None


@pytest.mark.parametrize(
    "text",
    [
        "can u compare ev2a vs e-elec for us",
        "which rate plan is cheapest for us",
        "virginia, dominion. should i switch to their off-peak plan? we both work from home",
        "would a time of use plan be cheaper for us than what we have now",
    ],
)
def test_a_question_about_plans_stays_a_plan_comparison(text: str) -> None:
    reading = _read(text)
    assert reading.intent == "live_data" and reading.params.task == "plan_comparison"


def test_a_money_question_leaning_on_the_last_answer_keeps_the_models_reading() -> None:
    reading = _read(
        "Which of those would be cheaper for my household?", last_intent="knowledge", last_topic="rates"
    )
    assert reading.intent == "live_data"


@pytest.mark.parametrize(
    ("text", "appliance"),
    [
        ("is it cheaper to run the window unit now or after 8", "ac"),
        ("what's the cheapest window to run the well pump and fill the cistern tmrw", "well pump"),
        ("should i run the space heaters now or preheat earlier", "space heater"),
        ("dehumidifier in the basement runs like all day, any cheaper hours for it", "dehumidifier"),
    ],
)
def test_appliances_by_their_everyday_names_and_plurals(text: str, appliance: str) -> None:
    reading = _read(text)
    assert reading.params.task == "appliance" and reading.params.appliance == appliance


def test_a_neighbour_leading_the_sentence_is_someone_else_even_after_a_solar_answer() -> None:
    after_solar = {
        "last_intent": "live_data",
        "last_topic": "solar",
        "last_params": RequestParams(task="typical_solar", system_kw=7, place="Atlanta, GA"),
    }
    text = "neighbor has 10kw and a battery, says he barely pays anything. does georgia power do net metering"
    assert "equipment.solar_capacity_kw" not in _facts(text, **after_solar)
    assert "equipment.solar_capacity_kw" not in _facts("bro just got 12 kw on his roof", **after_solar)
    # a landlord putting something in their rental is their home's
    assert (
        _facts(
            "landlord put in electric baseboard heat. how do i keep the bill from eating my stipend this winter"
        )["equipment.heating_type"]
        == "electric"
    )


def test_a_zip_code_after_were_is_no_household() -> None:
    facts = _facts("we're 30316, georgia power")
    assert facts["location.zip_code"] == "30316" and "household.occupants" not in facts
    assert _facts("we're 4, pge")["household.occupants"] == 4


@pytest.mark.parametrize(
    "text",
    [
        "uhh either centerpoint or reliant, idk which one counts",
        "either pge or smud",
        "we have either 6 or 7 kw of panels",
    ],
)
def test_either_one_or_the_other_saves_neither(text: str) -> None:
    assert _facts(text, pending_slot="utility") == {}


def test_what_a_size_would_make_is_asked_about_but_here_in_a_town_is_home() -> None:
    reading = _read("estimate what 5 kw on our south facing roof here in fresno would make in a typical year")
    facts = {fact.field: fact.value for fact in reading.facts}
    assert facts == {"location.city": "Fresno"} and reading.params.system_kw == 5


@pytest.mark.parametrize("text", ["same thing but for 12kw", "ok so what would 12 kw get me"])
def test_another_size_after_a_size_asked_about_is_asked_about_too(text: str) -> None:
    reading = _read(
        text,
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="typical_solar", system_kw=8),
    )
    assert reading.params.system_kw == 12 and not reading.facts


def test_their_own_size_after_a_size_asked_about_is_theirs() -> None:
    facts = _facts(
        "we actually have 5 kw already",
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="typical_solar", system_kw=8),
    )
    assert facts["equipment.solar_capacity_kw"] == 5


@pytest.mark.parametrize(
    ("known", "text", "car"),
    [
        ("Chevrolet Bolt EV", "its actually the euv", "Chevrolet Bolt EUV"),
        ("Tesla Model 3", "its the long range", "Tesla Model 3 Long Range"),
        ("Nissan Leaf", "actually its the plus", "Nissan Leaf Plus"),
    ],
)
def test_a_trim_said_alone_is_read_against_the_car_they_have(known: str, text: str, car: str) -> None:
    assert _facts(text, known_fields={"equipment.ev_model": known})["equipment.ev_model"] == car


@pytest.mark.parametrize("text", ["what's the forecast for today", "ok thats fine", "yes please"])
def test_words_that_are_no_trim_change_no_car(text: str) -> None:
    """ "what's" once read as "Model S" beside a saved Model 3."""
    assert "equipment.ev_model" not in _facts(text, known_fields={"equipment.ev_model": "Tesla Model 3"})


def test_a_trim_correction_updates_the_car_through_the_chat(runtime) -> None:
    user = new_user(runtime)
    service = runtime.service
    service.handle_turn(user, "s1", "we have a chevy bolt ev, 62704, ameren")
    reply = service.handle_turn(user, "s1", "its actually the euv")
    assert "Chevrolet Bolt EUV" in reply.text
    assert stored(runtime, user, "equipment.ev_model") == "Chevrolet Bolt EUV"


def test_equipment_someone_took_out_for_them_is_gone() -> None:
    reading = _read(
        "we had the powerwall pulled out, thing was a lemon",
        known_fields={"equipment.has_battery_storage": True, "equipment.battery_capacity_kwh": 13.5},
    )
    assert reading.intent == "forget" and "equipment.has_battery_storage" in reading.forget
