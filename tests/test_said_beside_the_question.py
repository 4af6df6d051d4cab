"""What homeowners say of their own home beside a question, in a correction or by reference
("ours is gas"), from the misses of the h34/h35 conversations (session of 2026-11-27): each rule is
a kind of sentence, tested with phrasings other than the one that showed it."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("would a free nights plan be cheaper for us, there's 6 of us", "household.occupants", 6),
        ("is a time of use plan smart for us, there are four of us", "household.occupants", 4),
        (
            "which plan is cheapest for us, most of our use is in the evening",
            "household.typical_usage_pattern",
            "evening_heavy",
        ),
    ],
)
def test_a_statement_after_the_question_comma_is_theirs(text: str, field: str, value: Any) -> None:
    assert _facts(text)[field] == value


def test_the_question_before_the_statement_is_still_answered() -> None:
    reading = understand("would a free nights plan be cheaper for us, there's 6 of us", ReadingContext())
    assert reading.asks and reading.intent == "live_data"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("which is cheaper to run, heat pump or gas furnace? ours is gas", "gas"),
        ("how long do furnaces last? ours is electric", "electric"),
    ],
)
def test_ours_is_names_their_heating_when_the_message_is_about_heat(text: str, value: str) -> None:
    assert _facts(text)["equipment.heating_type"] == value


def test_ours_is_without_heat_talk_saves_no_heating() -> None:
    assert "equipment.heating_type" not in _facts("which stove is cheaper to cook on? ours is gas")


@pytest.mark.parametrize(
    "text",
    ["she's got a gas furnace, we have a heat pump", "he's got a gas furnace but we have a heat pump"],
)
def test_someone_elses_heating_beside_theirs_keeps_only_theirs(text: str) -> None:
    assert _facts(text)["equipment.heating_type"] == "heat_pump"


@pytest.mark.parametrize(
    ("text", "known", "car"),
    [
        ("wait you have me as a leaf? i drive a bolt", "Nissan Leaf", "Chevrolet Bolt EV"),
        ("hmm why do you have us as a model 3? we drive a kia ev6", "Tesla Model 3", "Kia EV6"),
        ("wait no its the bolt euv", "Chevrolet Bolt EV", "Chevrolet Bolt EUV"),
        ("no wait, its the ioniq 6", "Hyundai Ioniq 5", "Hyundai Ioniq 6"),
    ],
)
def test_a_car_corrected_after_quoting_ours_back_is_saved(text: str, known: str, car: str) -> None:
    reading = understand(text, ReadingContext(known_fields={"equipment.ev_model": known}))
    assert {f.field: f.value for f in reading.facts}["equipment.ev_model"] == car


@pytest.mark.parametrize(
    ("text", "price"),
    [
        ("houston, fixed w gexa at 13.9c, contract up in august", 0.139),
        ("new contract started, 15.2 cents now", 0.152),
        ("locked a 12 month fixed plan at 11.4 cents", 0.114),
    ],
)
def test_a_retail_contract_price_is_their_price_per_kwh(text: str, price: float) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "profile_statement"
    assert {f.field: f.value for f in reading.facts}["location.flat_rate_usd_per_kwh"] == price


def test_a_bare_price_with_nothing_said_of_what_is_still_not_saved() -> None:
    assert "location.flat_rate_usd_per_kwh" not in _facts("we pay about 28 cents")


@pytest.mark.parametrize(
    "text", ["we added 4 more kw so it's 10 total now", "added 3 kw more panels, we're at 9 kw total"]
)
def test_panels_added_save_the_new_total(text: str) -> None:
    reading = understand(text, ReadingContext(known_fields={"equipment.solar_capacity_kw": 6.0}))
    assert reading.intent == "profile_statement"
    size = {f.field: f.value for f in reading.facts}["equipment.solar_capacity_kw"]
    assert size in (10.0, 9.0) and size != 3.0 and size != 4.0


def test_window_units_are_cooling_so_no_central_air_is_not_none() -> None:
    facts = _facts("gas boiler for heat, no central air, just a couple window units")
    assert facts["equipment.heating_type"] == "gas"
    assert "equipment.cooling_type" not in facts


@pytest.mark.parametrize("text", ["the boiler is gas, old radiators", "boiler runs on natural gas"])
def test_a_boiler_said_by_its_fuel_is_their_heating(text: str) -> None:
    assert _facts(text)["equipment.heating_type"] == "gas"


@pytest.mark.parametrize(
    "text",
    [
        "we're retired down in naples fl, fpl, pool pump runs 8 hrs a day",
        "upgraded to a 40 amp charger this weekend",
        "we added a second powerwall last month, forgot to tell u",
        "we actually have 5 kw already on the house",
    ],
)
def test_their_home_described_with_nothing_asked_is_a_statement(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "profile_statement" and reading.facts


@pytest.mark.parametrize(
    "text",
    [
        "model y at 30%, need 80 by 6:30 tmrw, sdge ev-tou-5",
        "60618 comed, prices tmrw",
        "xcel customer in 80203, dishwasher tonight",
        "pge 94110, bolt at 20% gotta be full by 7am",
    ],
)
def test_a_request_typed_as_a_statement_is_still_a_request(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "live_data" and reading.asks


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("bellingham, PSE", "Puget Sound Energy"),
        ("in tulsa w/ pso", "AEP"),
        ("dairy farm in vermont, 2 powerwalls through gmp and 15 kw of panels", "Green Mountain Power"),
    ],
)
def test_a_utilitys_initials_in_capitals_or_after_with_are_their_utility(text: str, utility: str) -> None:
    assert _facts(text)["location.utility_provider"] == utility


@pytest.mark.parametrize(
    "text",
    ["we use ACE hardware", "got it from ace", "i work with TEP on a project", "my brother is with PSE"],
)
def test_initials_that_are_a_word_an_employer_or_someone_elses_are_no_utility(text: str) -> None:
    assert "location.utility_provider" not in _facts(text)


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("family of 5 in lubbock", "Lubbock"),
        ("we have a mach e, keep it in the garage, up in bozeman", "Bozeman"),
        ("2 of us in boise", "Boise"),
    ],
)
def test_a_town_after_who_they_are_or_a_bare_up_in_is_theirs(text: str, city: str) -> None:
    assert _facts(text)["location.city"] == city


def test_someone_elses_town_after_up_in_is_not_theirs() -> None:
    assert "location.city" not in _facts("my mom is up in bozeman")


@pytest.mark.parametrize("text", ["why is my dryer so slow", "how come the heat pump runs all night"])
def test_why_something_happens_is_explained_not_timed(text: str) -> None:
    assert understand(text, ReadingContext()).intent == "knowledge"


def test_a_size_named_in_an_estimate_asked_for_is_the_size_asked_about() -> None:
    from advisor.understanding.models import RequestParams

    reading = understand(
        "ok so what would 12 kw get me",
        ReadingContext(
            last_intent="live_data", last_topic="solar", last_params=RequestParams(task="typical_solar")
        ),
    )
    assert reading.params.system_kw == 12 and not reading.facts


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("we use most of our power 5-10pm, 5 people, WFH", "evening_heavy"),
        ("most of our usage is between 4 and 9 pm", "evening_heavy"),
        ("we use a ton of power first thing in the am, everyone showering", "morning_heavy"),
    ],
)
def test_usage_said_in_hours_or_parts_of_the_day(text: str, pattern: str) -> None:
    assert _facts(text)["household.typical_usage_pattern"] == pattern


@pytest.mark.parametrize(
    "text",
    [
        "mini splits upstairs and down for heat and ac, no furnace at all",
        "we've got mini splits in every room now, no more furnace, they heat and cool",
    ],
)
def test_mini_splits_that_heat_are_a_heat_pump(text: str) -> None:
    assert _facts(text)["equipment.heating_type"] == "heat_pump"


@pytest.mark.parametrize(
    "text", ["my neighbor has mini splits for heat", "thinking about mini splits for heat and ac"]
)
def test_mini_splits_someone_else_has_or_they_consider_are_not_their_heating(text: str) -> None:
    assert "equipment.heating_type" not in _facts(text)


def test_a_trim_said_beside_another_value_upgrades_the_car_they_have() -> None:
    facts = _facts("and the leaf is a plus, 62 kwh", known_fields={"equipment.ev_model": "Nissan Leaf"})
    assert facts == {"equipment.ev_model": "Nissan Leaf Plus", "equipment.ev_battery_kwh": 62.0}


def test_a_held_number_corrected_by_its_fields_words() -> None:
    facts = _facts(
        "thats wrong, we added panels, its 8.4 now", known_fields={"equipment.solar_capacity_kw": 5.0}
    )
    assert facts == {"equipment.solar_capacity_kw": 8.4}


@pytest.mark.parametrize("text", ["landlord pays the electric actually", "its included in the rent"])
def test_someone_else_paying_is_no_utility_name(text: str) -> None:
    assert "location.utility_provider" not in _facts(text, pending_slot="utility")


def test_their_panels_in_a_town_asked_about_today_get_the_forecast_for_their_town() -> None:
    reading = understand("we have 10.2 kw of solar in phoenix, how much will it make today", ReadingContext())
    facts = {f.field: f.value for f in reading.facts}
    assert facts == {"location.city": "Phoenix", "equipment.solar_capacity_kw": 10.2}
    assert reading.params.task == "solar_forecast" and reading.params.system_kw is None


def test_a_size_asked_about_still_gets_a_typical_year() -> None:
    reading = understand("what will a 7 kw system make in a year", ReadingContext())
    assert reading.params.task == "typical_solar" and reading.params.system_kw == 7 and not reading.facts


def test_a_lowercase_in_after_a_town_is_a_word_not_indiana() -> None:
    facts = _facts(
        "also i said columbus but we actualy moved to dayton in sept, does that change anything?",
        known_fields={"location.city": "Columbus"},
    )
    assert facts["location.city"] == "Dayton"
    assert _facts("we live in fort wayne IN")["location.city"] == "Fort Wayne"


@pytest.mark.parametrize(
    "text",
    [
        "is it worth charging my home battery from the grid at night on APS?",
        "should i be charging the powerwall from the grid overnight or just let the panels do it",
    ],
)
def test_charging_a_home_battery_from_the_grid_is_explained_not_a_car_plan(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "knowledge" and reading.params.task is None


def test_an_unavailable_tool_is_said_without_a_capital_after_sorry() -> None:
    from advisor.llm.offline import _lower_first

    assert (
        _lower_first("The solar forecast is unavailable right now.")
        == "the solar forecast is unavailable right now."
    )
    assert _lower_first("I can only compare rate plans") == "I can only compare rate plans"
    assert _lower_first("PG&E's plans are not in the catalog") == "PG&E's plans are not in the catalog"


@pytest.mark.parametrize(
    ("text", "plan"),
    [("sdge, tou-dr1", "TOU-DR1"), ("we are on sdge tou-dr1", "TOU-DR1"), ("pge e-tou-c, 95112", "E-TOU-C")],
)
def test_a_code_said_right_after_their_utility_is_its_plan(text: str, plan: str) -> None:
    assert _facts(text)["location.rate_schedule"] == plan


def test_a_truck_after_a_utility_is_no_plan() -> None:
    assert "location.rate_schedule" not in _facts("duke, f-150 lightning")


@pytest.mark.parametrize(
    ("text", "zip_code"),
    [
        ("when should i charge tonight, 94110", "94110"),
        ("whens cheapest to run the dryer, 60618 comed", "60618"),
    ],
)
def test_a_zip_after_the_questions_comma_is_where_they_are(text: str, zip_code: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "live_data"
    assert {f.field: f.value for f in reading.facts}["location.zip_code"] == zip_code


def test_not_knowing_something_else_while_we_asked_for_the_car_plans_for_a_typical_ev(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW)
    try:
        user = new_user(runtime)
        asked = runtime.service.handle_turn(
            user,
            "s1",
            "what would it cost us to charge at night, we're with consumers energy in grand rapids",
        )
        assert asked.asked_for == "ev"
        reply = runtime.service.handle_turn(user, "s1", "no idea on the plan, sorry")
        assert reply.asked_for is None and "typical EV" in reply.text and "kWh" in reply.text
    finally:
        runtime.close()


def test_not_knowing_the_car_while_we_asked_the_utility_answers_with_both_assumed(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW)
    try:
        user = new_user(runtime)
        asked = runtime.service.handle_turn(user, "s1", "when should i charge tonight, 94110")
        assert asked.asked_for == "utility"
        reply = runtime.service.handle_turn(user, "s1", "no idea what car, skip")
        assert reply.asked_for is None and "typical EV" in reply.text and "average price" in reply.text
    finally:
        runtime.close()


@pytest.mark.parametrize(
    "text", ["what does duke charge at night", "whats electricity costing rn", "what do we pay per kwh"]
)
def test_what_their_power_costs_when_or_where_is_their_prices(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "live_data" and reading.params.task == "prices"


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("how much would i save by charging at night", "charging_plan"),
        ("what does it cost to run the dryer tonight", "appliance"),
    ],
)
def test_a_cost_of_charging_or_of_a_run_is_not_a_price_table(text: str, task: str) -> None:
    assert understand(text, ReadingContext()).params.task == task


def test_why_power_costs_more_is_explained() -> None:
    assert understand("why does electricity cost more at night", ReadingContext()).intent == "knowledge"


def test_a_detail_after_an_explanation_gets_the_same_documents_next_passage(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW, knowledge=True)
    try:
        user = new_user(runtime)
        first = runtime.service.handle_turn(
            user, "s1", "what's a heat pump water heater and would it save me money"
        )
        assert "heat-pump-water-heaters.md" in first.text
        more = runtime.service.handle_turn(user, "s1", "we have a 50 gallon electric tank now")
        assert "That's everything my sources say" not in more.text
        assert "heat-pump-water-heaters.md" in more.text
        assert more.text.split("\n\n")[0] not in first.text  # a passage not given before
    finally:
        runtime.close()
