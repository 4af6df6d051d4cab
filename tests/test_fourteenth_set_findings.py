"""Rules learned from the fourteenth fresh set (h26 + h27, after its first runs were recorded) and
from the knowledge questions routed away from an explanation: each a rule over any wording,
checked on phrasings beside the ones that failed."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.reader import understand
from advisor.understanding.text import clean
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


# --- from the fifteenth set's first run (h28 + h29) and talking to it -------------------------


@pytest.mark.parametrize(
    ("text", "context", "field", "value"),
    [
        ("its eight point two kilowatts", {"pending_slot": "solar_size"}, "equipment.solar_capacity_kw", 8.2),
        ("its two nine four zero one", {"pending_slot": "location"}, "location.zip_code", "29401"),
        ("that's not right my panels are eleven kilowatts not seven", {}, "equipment.solar_capacity_kw", 11),
        ("we have a ten kilowatt solar system and two powerwalls", {}, "equipment.battery_capacity_kwh", 27),
    ],
)
def test_numbers_said_in_words_by_voice_typing_are_values(
    text: str, context: dict, field: str, value: Any
) -> None:
    assert _facts(text, **context)[field] == value


def test_a_time_said_in_words_is_the_deadline_and_words_that_are_no_value_stay() -> None:
    params = _read(
        "hey can you tell me the cheapest time to charge my model three tonight i have to leave at four thirty am"
    ).params
    assert (params.ready_by_hour, params.ready_by_minute) == (4, 30)
    assert clean("the electric one not the hybrid, two of us") == "the electric one not the hybrid, two of us"


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("i work nights, home by 8am and sleep thru the day. when should the leaf charge", "Nissan Leaf"),
        ("i need the car charged by seven tomorrow morning its a tesla model x", "Tesla Model X"),
        ("whats it gonna cost me to take the ev6 from 10 to 80", "Kia EV6"),
        ("hey can you tell me the cheapest time to charge my model three tonight", "Tesla Model 3"),
    ],
)
def test_the_car_a_charging_request_names_is_theirs_when_they_have_none(text: str, car: str) -> None:
    assert _facts(text)["equipment.ev_model"] == car


@pytest.mark.parametrize(
    "text",
    [
        "test drove an ev9 today, roughly what would it cost to charge on our plan",
        "what would it cost to charge a model 3 here",
        "my mom drives a leaf. when should she be charging it",
    ],
)
def test_a_car_asked_about_test_driven_or_someone_elses_is_not_taken_as_theirs(text: str) -> None:
    assert "equipment.ev_model" not in _facts(text)


def test_a_car_named_in_a_request_never_replaces_the_one_they_have() -> None:
    assert _facts("when should the leaf charge", known_fields={"equipment.ev_model": "Tesla Model Y"}) == {}


def test_levels_from_one_number_to_another_without_percent() -> None:
    params = _read("whats it gonna cost me to take the ev6 from 10 to 80").params
    assert (params.current_soc_pct, params.target_soc_pct) == (10, 80)
    weather = _read("temps from 60 to 85 tomorrow").params
    assert weather.target_soc_pct is None and weather.current_soc_pct is None


def test_a_doubt_said_again_after_its_clause_leaves_the_rest_of_the_sentence_stated() -> None:
    facts = _facts("hey, just moved to columbus ohio 43215, aep i think? not 100% sure")
    assert facts["location.zip_code"] == "43215" and "location.utility_provider" not in facts
    assert _facts("we're on ev2-a, not sure") == {}


def test_another_fact_while_we_wait_for_their_zip_is_no_town_to_look_up(runtime) -> None:
    user = new_user(runtime)
    service = runtime.service
    service.handle_turn(user, "s1", "we have a used bolt. how much does it cost to charge overnight")
    reply = service.handle_turn(user, "s1", "its the euv actually")
    assert "couldn't pin down where" not in reply.text
    assert stored(runtime, user, "equipment.ev_model") == "Chevrolet Bolt EUV"


@pytest.mark.parametrize(
    "text",
    [
        "what is the CARE discount and would we qualify, family of 4 making about 52k in fresno",
        "northern va townhouse, heat pump runs basically nonstop when its 25 out. normal or broken",
        "sun belt, thinking about a solar attic fan. legit or gimmick",
        "1960s ranch in pasadena, zero attic insulation, single pane windows. only have budget for one — insulation or windows first",
    ],
)
def test_a_question_after_what_they_say_about_their_home_is_answered(text: str) -> None:
    """Questions ending in a choice or asked in so many words after facts got only "Saved: …"."""
    assert _read(text).intent in ("knowledge", "live_data")


@pytest.mark.parametrize(
    "text", ["would love a powerwall someday", "we have a leaf and a bolt or two", "pge or smud, not sure"]
)
def test_a_wish_a_list_or_two_utilities_offered_is_no_question(text: str) -> None:
    assert _read(text).intent not in ("knowledge", "live_data")


def test_a_regular_outlet_is_no_default_plan_and_a_compared_time_keeps_the_utility(runtime) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user,
        "s1",
        "can i just charge my ev on the regular 120v outlet in the garage? irvine, 35 mi round trip",
    )
    assert "skip" not in reply.text
    reading = _read(
        "does it matter if i run the dishwasher at 10pm vs 6pm on pg&e or is that an old wives tale"
    )
    assert reading.params.utility == "PG&E" or any(f.value == "PG&E" for f in reading.facts)


@pytest.mark.parametrize(
    "text", ["i think we're on tou-dr2?? not 100% sure", "georgia power i think?? not 100%"]
)
def test_a_doubt_after_a_double_question_mark_still_doubts_the_value(text: str) -> None:
    assert _facts(text, pending_slot="rate_schedule") == {}


def test_forget_naming_a_field_we_keep_is_a_forget_after_an_explanation_too() -> None:
    reading = _read(
        "forget the baby thing, i mean the household size",
        last_intent="knowledge",
        last_topic="ev_charging",
        known_fields={"household.occupants": 3},
    )
    assert reading.intent == "forget" and reading.forget == ["household.occupants"]


def test_how_long_a_charge_takes_is_answered_without_asking_where_they_live(runtime) -> None:
    """ "how long for 10 to 80" asked for the ZIP code, the utility and the plan first: the hours
    stand on the car and the charger; the cheapest hours are said to need the utility."""
    user = new_user(runtime, **{"equipment.ev_model": "Volkswagen ID.4", "equipment.ev_charger_kw": 9.6})
    reply = runtime.service.handle_turn(user, "s1", "how long for 10 to 80")
    assert reply.asked_for is None
    assert "at 9.6 kW: 6.2 h" in reply.text and "utility" in reply.text
    asked_car = runtime.service.handle_turn(
        new_user(runtime),
        "s2",
        "how long does a tesla model 3 LR take to charge from 20 to 80% on a 32 amp charger",
    )
    assert asked_car.asked_for is None and "at 7.68 kW" in asked_car.text


def test_whether_an_outlet_is_enough_for_their_miles_needs_no_car(runtime) -> None:
    reply = runtime.service.handle_turn(
        new_user(runtime),
        "s1",
        "can i just charge my ev on the regular 120v outlet in the garage? irvine, 35 mi round trip",
    )
    assert reply.asked_for is None and "at 1.44 kW" in reply.text


def test_how_long_a_battery_lasts_is_no_charge_duration() -> None:
    assert not _read("how long will the powerwall last in an outage").params.duration
    assert _read("how long for 10 to 80").params.duration


@pytest.mark.parametrize("text", ["at one point we had solar", "by one or two", "two of us, one car"])
def test_number_words_that_set_no_time_or_quantity_stay_words(text: str) -> None:
    assert clean(text) == text


def test_what_can_you_do_says_what_it_does_not_the_greeting_again(runtime) -> None:
    user = new_user(runtime)
    greeting = runtime.service.handle_turn(user, "s-hi", "hi")
    asked = runtime.service.handle_turn(user, "s-hi", "what can you do")
    assert asked.text != greeting.text
    assert "Try" in asked.text and "rate plans" in asked.text
