"""Wrong facts and misread turns of the twenty-fifth first run (h52/h53/h54, code 3343b3f), each a
kind of sentence tested with phrasings other than the one that showed it: precision first."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.reader import understand


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    "text",
    [
        "we're on pedernales electric co-op outside san antonio, flat 10.9 cents",
        "$0.142/kWh delivery + energy charge combined, thats our bill",
        "bluebonnet co-op, flat 11 cents, no tou",
    ],
)
def test_a_word_that_is_also_a_texas_town_is_no_town_in_a_list(text: str) -> None:
    """ "flat 10.9 cents" had saved the town Flat, TX; "energy charge" Energy, TX."""
    assert "location.city" not in _facts(text)


@pytest.mark.parametrize(
    ("text", "city"),
    [("wichita, evergy", "Wichita"), ("dayton, aes ohio", "Dayton"), ("columbus oh, aep", "Columbus, OH")],
)
def test_a_town_that_is_the_whole_list_item_is_still_their_town(text: str, city: str) -> None:
    assert _facts(text).get("location.city") == city


@pytest.mark.parametrize(
    "text",
    [
        "my sons got a used leaf, how long does that take on a regular outlet",
        "my daughter just bought a bolt, when should she charge it",
        "our kid has a model 3 now, is level 1 enough for him",
    ],
)
def test_a_childs_car_asked_about_is_not_saved_but_is_the_car_asked(text: str) -> None:
    reading = understand(text)
    assert "equipment.ev_model" not in {f.field for f in reading.facts}
    # a request about it is answered for that car (a general question needs none)
    assert reading.params.vehicle is not None or reading.intent == "knowledge"


def test_the_users_own_car_beside_a_spouses_is_the_one_saved() -> None:
    assert (
        _facts("my wife drives a model y and i got a lightning")["equipment.ev_model"]
        == "Ford F-150 Lightning"
    )


@pytest.mark.parametrize(
    "text", ["my wife drives a model y", "hubby drives a bolt and we charge it in the garage"]
)
def test_a_spouses_car_alone_is_the_households(text: str) -> None:
    assert "equipment.ev_model" in _facts(text)


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("upgrade: kia ev6 replaced the leaf last weekend 🎉", "Kia EV6"),
        ("the ioniq 5 replaced our old bolt", "Hyundai Ioniq 5"),
    ],
)
def test_the_car_that_replaced_another_is_theirs(text: str, car: str) -> None:
    assert _facts(text)["equipment.ev_model"] == car


@pytest.mark.parametrize(
    "text",
    [
        "we're in bozeman on northwestern energy, flat rate i think around 12 cents? does time of use even exist here",
        "i think we pay like 15 cents a kwh?",
    ],
)
def test_a_price_said_with_i_think_and_asked_back_is_not_saved(text: str) -> None:
    assert "location.flat_rate_usd_per_kwh" not in _facts(text)


def test_a_price_said_plainly_after_i_think_is_still_theirs() -> None:
    assert _facts("i think we pay 14 cents a kwh")["location.flat_rate_usd_per_kwh"] == 0.14


@pytest.mark.parametrize(
    "text",
    ["wfh 3 days office 2", "i work from home 2 days and go to the office 3", "in the office 3 days a week"],
)
def test_days_split_between_home_and_office_are_hybrid(text: str) -> None:
    assert _facts(text)["household.work_schedule"] == "Hybrid"


def test_office_hours_are_not_days() -> None:
    assert _facts("i work in the office 8-5")["household.work_schedule"] == "Office 8-5"


def test_not_caring_about_money_is_not_a_low_green_priority() -> None:
    facts = _facts("honestly i dont care about saving money i just want to be green 🌱")
    assert (
        facts.get("preferences.budget_priority") == "low" and facts.get("preferences.green_priority") != "low"
    )


def test_not_knowing_ones_plan_is_not_a_question_about_the_profile() -> None:
    context = ReadingContext(
        known_fields={"location.city": "Sun City", "location.utility_provider": "APS"},
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="appliance", appliance="dishwasher"),
    )
    assert understand("I don't know what plan I have, dear.", context).intent != "profile_query"
    assert understand("what plan am i on according to you").intent == "profile_query"


@pytest.mark.parametrize(
    "text",
    [
        "Hello. I am not sure how this works. My son said you could help me with my electric bill.",
        "my neighbor said you could help lower my bill",
    ],
)
def test_someone_told_to_try_us_gets_what_we_do(text: str) -> None:
    reading = understand(text)
    assert reading.about_advisor and reading.intent not in ("knowledge", "live_data")


# --- conversations of the twenty-fifth run ----------------------------------------------------


def test_a_number_put_right_against_what_they_said_before() -> None:
    """ "the charger in the garage is 48 amps" then "ugh sorry its 40 not 48": 40 A, read in what
    they said (9.6 kW), never an undo that asks what to change."""
    context = ReadingContext(
        known_fields={"equipment.ev_charger_kw": 11.52},
        recent=[
            "user: the charger in the garage is 48 amps",
            "advisor: Saved: your home charger delivers 11.52 kW.",
        ],
    )
    reading = understand("ugh sorry its 40 not 48, just looked at the sticker", context)
    assert {f.field: f.value for f in reading.facts} == {"equipment.ev_charger_kw": 9.6}
    assert not reading.undo


def test_why_a_fact_is_offered_is_no_what_if() -> None:
    assert _facts("we're on avista if that matters for payback")["location.utility_provider"] == "Avista"
    assert "location.utility_provider" not in _facts("would switching to avista matter for payback")


def test_we_dont_actually_have_it_forgets_what_we_hold() -> None:
    held = {"equipment.has_battery_storage": True, "equipment.battery_capacity_kwh": 13.5}
    reading = understand(
        "we dont actually have a powerwall, idk where u got that", ReadingContext(known_fields=held)
    )
    assert reading.intent == "forget" and "equipment.has_battery_storage" in reading.forget


@pytest.mark.parametrize(("text", "plan"), [("e-29, the ev one", "E-29"), ("r-1", "R-1")])
def test_a_plan_code_said_on_its_own_is_their_plan(text: str, plan: str) -> None:
    assert _facts(text)["location.rate_schedule"] == plan


def test_a_truck_said_on_its_own_is_no_plan() -> None:
    assert "location.rate_schedule" not in _facts("the f-150")


def test_the_home_is_on_a_utility() -> None:
    facts = _facts("ok so we finally closed on the house in tucson after renting for six years its on tep")
    assert facts["location.utility_provider"] == "Tucson Electric Power"


@pytest.mark.parametrize(
    ("text", "kw"),
    [("ok i went up and counted 20 panels each one says 350 W", 7.0), ("24 panels rated at 400 w", 9.6)],
)
def test_panels_counted_with_their_rating(text: str, kw: float) -> None:
    assert _facts(text, last_topic="solar")["equipment.solar_capacity_kw"] == kw


@pytest.mark.parametrize("text", ["ok good", "lol perfect", "cool, makes sense"])
def test_an_answer_taken_is_acknowledged_not_greeted(text: str) -> None:
    reading = understand(text, ReadingContext(last_intent="live_data"))
    assert reading.intent == "smalltalk" and reading.acknowledged


def test_a_hello_is_no_acknowledgement() -> None:
    assert not understand("hi", ReadingContext(last_intent="live_data")).acknowledged


@pytest.mark.parametrize(
    "text",
    [
        "my restaurant off the strip has huge ac bills, our commercial rate is like 12 cents",
        "my shop in tucson has a 20 kw array on the roof",
        "my rental on mcdowell has a leaf charging off a regular outlet and the tenants say its slow",
    ],
)
def test_a_business_or_a_rental_is_not_their_home(text: str) -> None:
    assert _facts(text) == {}


def test_the_car_named_shorter_is_the_one_held() -> None:
    """ "the bolt" with a Bolt EUV held had replaced it with the table's Bolt EV."""
    facts = _facts(
        "so when should i charge the bolt tonight", known_fields={"equipment.ev_model": "Chevrolet Bolt EUV"}
    )
    assert facts.get("equipment.ev_model") in (None, "Chevrolet Bolt EUV")
    assert _facts("its a model y actually", known_fields={"equipment.ev_model": "Tesla Model 3"}) == {
        "equipment.ev_model": "Tesla Model Y"
    }


def test_a_car_asked_about_with_a_is_the_answers_car() -> None:
    reading = understand("how much would it cost to charge a model y from 10 to 90")
    assert reading.params.vehicle == "Tesla Model Y" and not reading.facts


def test_a_tou_plan_whose_name_they_forgot_is_no_small_talk() -> None:
    context = ReadingContext(
        known_fields={"location.utility_provider": "We Energies", "location.zip_code": "53202"},
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="prices", day="tomorrow"),
    )
    reading = understand("im on the time of use one, forgot the name", context)
    assert reading.intent != "smalltalk" and not reading.facts


def test_news_of_the_home_read_as_a_correction_is_a_statement() -> None:
    assert understand("house was built in 1952, no insulation in the walls").intent == "profile_statement"
