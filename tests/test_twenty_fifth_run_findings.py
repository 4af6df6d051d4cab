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
