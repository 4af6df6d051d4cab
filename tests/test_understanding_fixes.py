"""Defects a user test found in the offline reader: relative deadlines, a target read as the level
now, "tonight", a price answering the plan question, usage said as a statement, a 120 V outlet, an
EV among other facts, short follow-ups, and money questions about charging. Precision still holds:
nothing is saved that the user did not say about themself."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from advisor.understanding.commands import named_fields
from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand
from bot.service import ConversationService
from tests.advisor_helpers import make_runtime

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # 10:00 in San Francisco
CLARIFIER = "plan for now"  # both clarifying questions ask "a plan for now, or an explanation?"
# Phrasings the rule reader was fixed on one by one and the learned reader (issue 21) still reads
# otherwise; kept visible (XFAIL, XPASS once read right) rather than deleted or trained on.
MISREAD = "the learned reader misreads this phrasing (issue 21 note: known misreads)"


def clock() -> datetime:
    return NOW


def service_for(data_dir: Path) -> ConversationService:
    return make_runtime(data_dir, clock=clock).service


def facts(text: str, **context) -> dict[str, object]:
    return {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}


TOPIC_TASK = {
    "ev_charging": "charging_plan",
    "rates": "prices",
    "solar": "solar_forecast",
    "weather": "weather",
}


def after(topic: str, **last) -> ReadingContext:
    """The context of a message that follows a live answer about `topic` (of that topic's usual kind)."""
    last.setdefault("task", TOPIC_TASK.get(topic))
    return ReadingContext(last_intent="live_data", last_topic=topic, last_params=RequestParams(**last))


# --- 1. relative deadlines ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes", "current", "target"),
    [
        ("I need the car ready in 1 hour, it's at 20% and I want 100%", 60, 20.0, 100.0),
        ("I have to leave in 1 hour, can I get to 100%? its at 20", 60, 20.0, 100.0),
        ("in 30 minutes", 30, None, None),
        ("in 2 hrs", 120, None, None),
        ("in an hour and a half", 90, None, None),
        ("in half an hour", 30, None, None),
    ],
)
def test_relative_deadlines_are_minutes_from_now(
    text: str, minutes: int, current: float | None, target: float | None
) -> None:
    params = read_params(text)
    assert params.ready_in_minutes == minutes
    assert params.current_soc_pct == current and params.target_soc_pct == target


def test_a_relative_deadline_with_charge_levels_asks_for_a_charging_plan() -> None:
    reading = understand("I have to leave in 1 hour, can I get to 100%? its at 20")
    assert (reading.intent, reading.topic) == ("live_data", "ev_charging")
    assert reading.params.ready_in_minutes == 60 and reading.params.current_soc_pct == 20.0


@pytest.mark.parametrize(
    "text",
    [
        "I'll be home in 2 hours, when should I charge?",
        "my car charges in 8 hours",
        "its at 20 degrees, can I get to 80%?",
        "get to 80%? its at 20 amps",
    ],
)
def test_when_charging_can_start_and_other_numbers_are_not_deadlines_or_levels(text: str) -> None:
    params = read_params(text)
    assert params.ready_in_minutes is None and params.current_soc_pct is None


def test_a_relative_deadline_after_a_plan_replaces_the_old_deadline() -> None:
    reading = understand(
        "in 30 minutes", after("ev_charging", ready_by_hour=7, current_soc_pct=20, tonight=True)
    )
    assert reading.follow_up and reading.intent == "live_data"
    assert reading.params.said() == {"current_soc_pct": 20.0, "ready_in_minutes": 30}
    back = understand(
        "what about by 6am instead?", after("ev_charging", ready_in_minutes=30, current_soc_pct=20)
    )
    assert back.params.said() == {"ready_by_hour": 6, "current_soc_pct": 20.0}


# --- 2. a level wanted at a time is the target ---------------------------------------------------


def test_a_level_wanted_by_a_time_is_the_target_not_the_level_now() -> None:
    monday = read_params("i need it at 90% by monday 7am")
    assert (monday.target_soc_pct, monday.current_soc_pct) == (90.0, None)
    assert (monday.ready_by_day, monday.ready_by_hour) == ("monday", 7)
    hour = read_params("i need it at 100% in 1 hour")
    assert (hour.target_soc_pct, hour.current_soc_pct, hour.ready_in_minutes) == (100.0, None, 60)
    both = read_params("it's at 30%, i need it at 90% by 7am")
    assert (both.current_soc_pct, both.target_soc_pct) == (30.0, 90.0)


# --- 3. from-to, typos and a full battery --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "current", "target", "hour"),
    [
        ("charge from 20 to 100 percent by 10pm", 20.0, 100.0, 22),
        ("actually its a tesla model 3, batery at 20%", 20.0, None, None),
        ("I need to leave at 10pm with a full battery, currently 20%", 20.0, 100.0, 22),
        ("I want it fully charged by 10pm, currently 20%", 20.0, 100.0, 22),
        ("need a full charge by 10pm, its at 20%", 20.0, 100.0, 22),
        ("need 100% by 10pm, currently 20%", 20.0, 100.0, 22),
    ],
)
def test_charge_levels_from_to_full_and_with_a_typo(
    text: str, current: float, target: float | None, hour: int | None
) -> None:
    params = understand(text).params
    assert (params.current_soc_pct, params.target_soc_pct, params.ready_by_hour) == (current, target, hour)


def test_the_level_said_with_the_car_answers_the_resumed_question(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-N", "t", "im on pge ev2a, zip 94110")
    asked = service.handle_turn("T1-N", "t", "when should i charge my car tonight?")
    assert asked.asked_for == "ev"
    plan = service.handle_turn("T1-N", "t", "actually its a tesla model 3, batery at 20%")
    assert plan.text.startswith("Saved: your EV is a Tesla Model 3.")
    assert "from 20% to 80%" in plan.text
    assert service.sessions.get("T1-N", "t").last_request.params["current_soc_pct"] == 20.0


# --- 4. tonight --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["when should i charge my car tonight?", "when should i charge my car tonite?"]
)
def test_tonight_is_read(text: str) -> None:
    reading = understand(text)
    assert reading.params.tonight is True
    assert (reading.intent, reading.topic) == ("live_data", "ev_charging")
    assert read_params("when should i charge my car tomorrow?").tonight is None


# --- 5. a price answers the rate-plan question ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "price"),
    [
        ("idk, we pay about 28 cents", 0.28),
        ("not sure, around 30 cents", 0.30),
        ("$0.31", 0.31),
        ("about 28c", 0.28),
    ],
)
def test_a_price_answers_the_rate_plan_question(text: str, price: float) -> None:
    reading = understand(text, ReadingContext(pending_slot="rate_schedule"))
    assert {f.field: f.value for f in reading.facts} == {"location.flat_rate_usd_per_kwh": price}
    assert reading.slot_answer is not None and reading.slot_answer.status == "answered"


@pytest.mark.parametrize(
    "text",
    [
        "maybe 28 cents?",
        "idk, my brother pays 30 cents",
        "we pay 10 cents a mile",
        "not sure, maybe 30 cents",
    ],
)
def test_a_price_that_is_not_theirs_or_not_per_kwh_is_not_saved(text: str) -> None:
    assert "location.flat_rate_usd_per_kwh" not in facts(text, pending_slot="rate_schedule")
    assert facts("we pay about 28 cents") == {}  # without the plan question, cents of what?


def test_a_stated_price_is_saved_and_the_question_answered(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-N", "t", "we're in atlanta w georgia power, i drive a ioniq 5")
    answered = service.handle_turn("T1-N", "t", "what are prices today?")
    # no question about a rate plan we could not price anyway: the state's average, said so
    assert answered.asked_for is None and "GA average price" in answered.text
    reply = service.handle_turn("T1-N", "t", "we pay about 28 cents a kwh")
    assert reply.text.startswith("Saved: you pay about 28¢ per kWh.")
    assert "$0.28" in reply.text  # the prices just given, redone with their price
    assert service.profiles.get("T1-N").location.flat_rate_usd_per_kwh == 0.28
    assert reply.asked_for is None


# --- 6. usage stated as a statement ------------------------------------------------------------


def test_usage_after_a_question_re_runs_it_with_the_usage() -> None:
    reading = understand("we use like 700 kwh/month", after("rates"))
    assert reading.follow_up and (reading.intent, reading.topic) == ("live_data", "rates")
    assert reading.params.house_kwh_per_month == 700
    miles = understand("I drive 30 miles a day", after("rates", house_kwh_per_month=700))
    assert miles.follow_up and miles.params.said() == {
        "house_kwh_per_month": 700.0,
        "ev_miles_per_month": 912.0,
    }


def test_usage_stays_for_the_threads_next_questions() -> None:
    reading = understand(
        "should I switch to E-TOU-C?", after("rates", house_kwh_per_month=700, ev_miles_per_month=912)
    )
    assert not reading.follow_up and (reading.intent, reading.topic) == ("live_data", "rates")
    assert reading.params.house_kwh_per_month == 700 and reading.params.ev_miles_per_month == 912
    stated = understand(
        "we use 900 kwh a month, which plan is cheapest?", after("rates", house_kwh_per_month=700)
    )
    assert stated.params.house_kwh_per_month == 900  # what they say now wins


def test_usage_re_runs_the_plan_comparison_end_to_end(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-N", "t", "im on pge e-tou-c, zip 94110, i drive a bolt")
    first = service.handle_turn("T1-N", "t", "which rate plan is cheapest for me?")
    assert "for 500 kWh a month for the house" in first.text
    house = service.handle_turn("T1-N", "t", "we use like 700 kwh/month")
    assert "Estimated 2026 bill on each PG&E plan for 700 kWh a month for the house" in house.text
    assert "That isn't something I keep" not in house.text
    miles = service.handle_turn("T1-N", "t", "I drive 30 miles a day")
    assert CLARIFIER not in miles.text and "That isn't something I keep" not in miles.text
    assert "912 miles a month" in miles.text and "700 kWh a month for the house" in miles.text
    later = service.handle_turn("T1-N", "t", "should I switch to EV2-A?")
    assert "700 kWh a month for the house" in later.text and "912 miles a month" in later.text
    assert service.profiles.get("T1-N").household is None  # usage is not a profile field


# --- 7. a 120 V outlet -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I only have a 120V outlet",
        "just a regular wall outlet",
        "level 1 charging only",
        "I charge from a normal 120 volt plug",
    ],
)
def test_a_household_outlet_is_a_1_44_kw_charger(text: str) -> None:
    (fact,) = understand(text).facts
    assert (fact.field, fact.value) == ("equipment.ev_charger_kw", 1.44)
    assert fact.assumption == "a household outlet charges at about 12 A on 120 V"


@pytest.mark.parametrize(
    "text",
    [
        "I only have a regular outlet, can I run a heat pump dryer?",
        "my neighbour only has a 120V outlet",
        "I don't have a 120V outlet",
    ],
)
def test_an_outlet_that_is_not_how_their_car_charges_is_not_saved(text: str) -> None:
    assert "equipment.ev_charger_kw" not in facts(text)


def test_the_outlet_is_saved_with_the_assumption_said(data_dir: Path) -> None:
    reply = service_for(data_dir).handle_turn("T1-N", "t", "I only have a 120V outlet")
    assert reply.text.startswith("Saved: your home charger delivers 1.44 kW.")
    assert "assuming a household outlet charges at about 12 A on 120 V" in reply.text


# --- 8. an EV among other facts ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "im on pge ev2a, zip 94110, its a tesla model 3",
            {
                "location.zip_code": "94110",
                "location.utility_provider": "PG&E",
                "location.rate_schedule": "EV2-A",
                "equipment.ev_model": "Tesla Model 3",
            },
        ),
        (
            "94110, pge, ev2a, tesla model 3. when should i charge? its at 40%",
            {
                "location.zip_code": "94110",
                "location.utility_provider": "PG&E",
                "location.rate_schedule": "EV2-A",
                "equipment.ev_model": "Tesla Model 3",
            },
        ),
        (
            "sdge ev-tou-5, 92101, kia ev6",
            {
                "location.zip_code": "92101",
                "location.utility_provider": "SDG&E",
                "location.rate_schedule": "EV-TOU-5",
                "equipment.ev_model": "Kia EV6",
            },
        ),
    ],
)
def test_an_ev_in_a_list_of_facts_is_saved(text: str, expected: dict[str, object]) -> None:
    assert facts(text) == expected


def test_an_ev_listed_with_a_question_gets_the_level_now() -> None:
    reading = understand("94110, pge, ev2a, tesla model 3. when should i charge? its at 40%")
    assert (reading.intent, reading.topic, reading.params.current_soc_pct) == (
        "live_data",
        "ev_charging",
        40.0,
    )


@pytest.mark.parametrize(
    "text",
    [
        "zip 94110, my neighbour has a tesla model 3",
        "94110, pge, should I get a tesla model 3?",
        "pge ev2a, my brother drives a bolt",
    ],
)
def test_someone_elses_or_a_wanted_car_in_a_list_is_not_saved(text: str) -> None:
    assert "equipment.ev_model" not in facts(text)


# --- 9. short follow-ups -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "topic", "last", "expected"),
    [
        (
            "and on saturday?",
            "ev_charging",
            {"ready_by_hour": 7, "current_soc_pct": 20},
            {"ready_by_hour": 7, "ready_by_day": "saturday", "current_soc_pct": 20.0},
        ),
        ("and friday?", "rates", {"day": "today"}, {"ready_by_day": "friday"}),
        ("how about thursday?", "rates", {"day": "today"}, {"ready_by_day": "thursday"}),
        ("prices on thursday?", "rates", {"day": "today"}, {"ready_by_day": "thursday"}),
        (
            "it's at 10% right now",
            "ev_charging",
            {"ready_by_hour": 7, "current_soc_pct": 20},
            {"ready_by_hour": 7, "current_soc_pct": 10.0},  # "right now" is the level's time, not a day
        ),
        ("same question", "rates", {"day": "tomorrow"}, {"day": "tomorrow"}),
    ],
)
def test_short_follow_ups_change_the_last_request(text: str, topic: str, last: dict, expected: dict) -> None:
    reading = understand(text, after(topic, **last))
    assert reading.follow_up and (reading.intent, reading.topic) == ("live_data", topic)
    assert reading.alternative is None  # answered, never met with a clarifying question
    assert reading.params.said() == expected


@pytest.mark.parametrize(
    ("text", "appliance"),
    [
        ("whens the best time to heat water", "water heater"),
        ("when should i run the dishwaher", "dishwasher"),
    ],
)
def test_when_to_run_an_appliance_is_a_live_question_even_with_a_typo(text: str, appliance: str) -> None:
    reading = understand(text)
    assert (reading.intent, reading.params.appliance) == ("live_data", appliance)
    assert reading.alternative is None  # answered, never met with a clarifying question


def test_prices_on_a_weekday_after_a_charging_plan_is_a_new_prices_question() -> None:
    reading = understand("prices on thursday?", after("ev_charging", ready_by_hour=7))
    assert not reading.follow_up and (reading.intent, reading.topic) == ("live_data", "rates")
    assert reading.confidence >= 0.7 and reading.params.ready_by_day == "thursday"


def test_short_follow_ups_get_an_answer_not_the_clarifier(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-N", "t", "im on pge ev2a, zip 94110, its a tesla model 3")
    service.handle_turn("T1-N", "t", "When should I charge my EV tonight? I'm at 20% now")
    lower = service.handle_turn("T1-N", "t", "it's at 10% right now")
    assert "from 10% to 80%" in lower.text
    saturday = service.handle_turn("T1-N", "t", "and on saturday?")
    assert CLARIFIER not in saturday.text and "Needs" in saturday.text
    assert service.sessions.get("T1-N", "t").last_request.params["ready_by_day"] == "saturday"
    service.handle_turn("T1-N", "t", "actually we're on E-TOU-C")
    again = service.handle_turn("T1-N", "t", "same question")
    assert CLARIFIER not in again.text and "from 10% to 80%" in again.text
    for text in (
        "whens the best time to heat water",
        "when should i run the dishwaher",
        "prices on thursday?",
    ):
        assert CLARIFIER not in service.handle_turn("T1-N", "t", text).text


# --- 10. money questions about charging ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "how much would i save by charging at night",
        "whats cheaper, charging at 3pm or 11pm?",
        "I charged last night from 1am to 6am, how much did I save?",
    ],
)
def test_money_questions_about_when_to_charge_get_their_prices(text: str) -> None:
    reading = understand(text)
    assert (reading.intent, reading.topic) == ("live_data", "ev_charging")


@pytest.mark.parametrize(
    "text",
    [
        "why is charging at night cheaper?",
        "how much does it cost to install a level 2 charger?",
        "do EVs save money compared to gas?",
    ],
)
def test_general_money_questions_stay_knowledge(text: str) -> None:
    assert understand(text).intent == "knowledge"


def test_a_money_question_gets_a_charging_plan_not_a_passage(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-N", "t", "im on pge ev2a, zip 94110, its a tesla model 3")
    reply = service.handle_turn("T1-N", "t", "how much would i save by charging at night")
    assert "Needs" in reply.text and "kWh from the grid" in reply.text


def test_an_ev_listed_with_its_charger_is_saved() -> None:
    """'hey! 94110, pge ev2a, tesla model 3 w/ a 32 amp charger' saved the charger but not the car,
    then asked 'Which EV do you drive?' twice."""
    from advisor.understanding.reader import understand as read

    for message in (
        "hey! 94110, pge ev2a, tesla model 3 w/ a 32 amp charger",
        "94110, pge ev2a, tesla model 3 with a 32 amp charger",
    ):
        fields = {fact.field: fact.value for fact in read(message).facts}
        assert fields["equipment.ev_model"] == "Tesla Model 3" and fields["equipment.ev_charger_kw"] == 7.68
    neighbour = read("94110, pge, my neighbour has a tesla model 3 with a 32 amp charger")
    assert "equipment.ev_model" not in {fact.field for fact in neighbour.facts}


def test_a_new_hour_after_tonight_keeps_the_night() -> None:
    """'whens the cheapest time to charge tonite?' at 5 am, then 'what about by 6am instead' planned
    to 06:00 that same morning (half an hour away) instead of the morning after tonight."""
    from advisor.understanding.models import RequestParams
    from advisor.understanding.params import follow_up_params

    last = RequestParams(tonight=True, current_soc_pct=25)
    assert follow_up_params(RequestParams(ready_by_hour=6), last).tonight is True
    assert follow_up_params(RequestParams(ready_by_hour=7, ready_by_day="saturday"), last).tonight is None
    assert follow_up_params(RequestParams(ready_in_minutes=60), last).tonight is None


# --- found trying the bot as a homeowner (session 19) ------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the panel's amps are the house's service, not the charger; "panel" is not solar
        ("hey. 94110, pg&e EV2-A, bolt euv, 60 amp panel, 7.2kw charger", {"equipment.ev_charger_kw": 7.2}),
        ("no the charger is 7.2kw, 60 amp is the panel", {"equipment.ev_charger_kw": 7.2}),
        (
            "we have 6 kw of panels on the roof and a 7.2kw charger",
            {"equipment.ev_charger_kw": 7.2, "equipment.solar_capacity_kw": 6.0},
        ),
        (
            "5kw solar system, 11 kw wall connector",
            {"equipment.ev_charger_kw": 11.0, "equipment.solar_capacity_kw": 5.0},
        ),
        ("my charger is on a 40 amp breaker", {"equipment.ev_charger_kw": 7.68}),
        ("actually it's 3 people, not 4", {"household.occupants": 3}),
        ("no, 3 people not 4", {"household.occupants": 3}),
    ],
)
def test_each_figure_goes_to_the_thing_it_was_said_of(text: str, expected: dict[str, object]) -> None:
    found = facts(text)
    assert {field: found.get(field) for field in expected} == expected, found
    assert not any(field.endswith("charger_kw") for field in found) or "equipment.ev_charger_kw" in expected


def test_the_rate_i_pay_is_the_price_not_the_rate_plan() -> None:
    assert understand("forget the rate i pay").forget == ["location.flat_rate_usd_per_kwh"]
    assert named_fields("what we pay per kwh") == ["location.flat_rate_usd_per_kwh"]
    assert understand("forget my rate plan").forget == ["location.rate_schedule"]


def test_forget_what_we_pay_is_a_command() -> None:
    assert understand("forget what we pay per kwh").forget == ["location.flat_rate_usd_per_kwh"]


def test_an_unsure_word_about_the_car_does_not_skip_the_zip_question(data_dir: Path) -> None:
    """Asked for the ZIP, "idk what car, its a bolt i think" is about the car (unsure: not saved,
    and said so); the ZIP question is asked again, not skipped."""
    service = service_for(data_dir)
    service.handle_turn("T1-U9", "t", "When should I charge my EV?")
    reply = service.handle_turn("T1-U9", "t", "idk what car, its a bolt i think")
    assert "didn't sound sure" in reply.text and "ZIP code" in reply.text
    assert "skip" not in reply.text.lower()
    assert service.profiles.get("T1-U9") is None


@pytest.mark.parametrize("text", ["whats the weather", "what's the weather like tomorrow", "weather today?"])
def test_asking_for_the_weather_is_a_forecast_not_an_article(text: str) -> None:
    reading = understand(text)
    assert (reading.intent, reading.topic) == ("live_data", "weather")


@pytest.mark.xfail(reason=MISREAD)
def test_a_live_question_no_tool_fits_is_said_in_words_not_as_an_internal_error(data_dir: Path) -> None:
    """ "what about today" after facts, with nothing to follow up: no "⚠️ no data tool was called";
    the reply says nothing was looked up and what can be asked."""
    service = service_for(data_dir)
    reply = service.handle_turn(
        "T1-U9", "t", "92101, sdge, we have 6 kw of panels on the roof. what about today"
    )
    assert "Saved: your ZIP code is 92101" in reply.text
    assert "no data tool" not in reply.text and "haven't looked anything up" in reply.text


@pytest.mark.parametrize("text", ["what about the dishwasher", "and the dryer?", "how about laundry"])
def test_another_appliance_after_a_charging_plan_is_that_appliances_question(text: str) -> None:
    reading = understand(text, after("ev_charging"))
    assert (reading.intent, reading.topic) == ("live_data", "rates") and reading.params.appliance
    assert not reading.follow_up


def test_thanks_is_answered_as_thanks_not_with_the_introduction(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U9", "t", "94110")
    assert service.handle_turn("T1-U9", "t", "thanks!").text.startswith("You're welcome")


@pytest.mark.parametrize(
    "text",
    [
        "how does a heat pump work?",
        "is a heat pump worth it",
        "why is my dryer so slow",
        "is my dryer electric?",
    ],
)
def test_a_short_question_about_an_appliance_is_still_a_question_not_a_price(text: str) -> None:
    assert understand(text).intent == "knowledge"


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        (
            "forget my rate plan and my price per kwh",
            {"location.rate_schedule", "location.flat_rate_usd_per_kwh"},
        ),
        ("forget my charger and the price", {"equipment.ev_charger_kw", "location.flat_rate_usd_per_kwh"}),
        ("forget the rate i pay", {"location.flat_rate_usd_per_kwh"}),
    ],
)
def test_forgetting_the_price_keeps_the_other_things_named(text: str, fields: set[str]) -> None:
    assert set(understand(text).forget) == fields


def test_not_knowing_the_plan_before_being_asked_skips_that_question(data_dir: Path) -> None:
    """'idk the plan, whatever is normal' right after ZIP and utility: the plan question is answered
    ahead (skipped, nothing stored), so the next question is answered instead of asking for the plan."""
    service = service_for(data_dir)
    service.handle_turn("T1-U5", "thread-1", "we live in 92101, sdge")
    skip = service.handle_turn("T1-U5", "thread-1", "idk the plan, whatever is normal")
    assert "won't ask for it" in skip.text and "isn't something I keep" not in skip.text
    dryer = service.handle_turn("T1-U5", "thread-1", "ok and is it worth running my dryer rn")
    assert "Which rate plan" not in dryer.text and "$" in dryer.text
    profile = service.profiles.get("T1-U5")
    assert profile is not None and profile.location.rate_schedule is None
    assert understand("we're on EV2-A I think").slot_answer is None  # a hedged plan is not a skip


@pytest.mark.parametrize(
    ("text", "appliance"),
    [
        ("is it better to run the dishwasher at night?", "dishwasher"),
        ("is it cheaper to do laundry on weekends", "laundry"),
        ("yo is it cheaper to run my space heater at night", "space heater"),
    ],
)
def test_better_or_cheaper_to_run_an_appliance_is_a_live_question(text: str, appliance: str) -> None:
    reading = understand(text)
    assert reading.intent == "live_data" and reading.params.appliance == appliance


@pytest.mark.parametrize("text", ["I have a tesla modle y", "my telsa modle y"])
def test_a_misspelt_model_name_is_still_the_car(text: str) -> None:
    assert facts(text) == {"equipment.ev_model": "Tesla Model Y"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "we have a gas furnace and 4 ppl in the house",
            {"equipment.heating_type": "gas", "household.occupants": 4},
        ),
        ("2 ppl live here", {"household.occupants": 2}),
        ("im with PPL", {"location.utility_provider": "PPL Electric Utilities"}),
    ],
)
def test_ppl_is_people_unless_written_as_the_utility(text: str, expected: dict[str, object]) -> None:
    assert facts(text) == expected


def test_rebates_for_them_after_a_heat_pump_answer_is_a_knowledge_question() -> None:
    context = ReadingContext(last_intent="knowledge", last_topic="home")
    reading = understand("are there rebates for them in california?", context)
    assert reading.intent == "knowledge" and reading.topic == "home" and reading.confidence >= 0.7
    assert understand("any rebates?").intent == "knowledge"


@pytest.mark.parametrize(
    "text",
    [
        "what about heat pumps, are they worth it",
        "what about rebates?",
        "what about a home battery like a powerwall",
    ],
)
def test_what_about_a_new_subject_after_a_plan_is_a_new_question(text: str) -> None:
    """It repeated the charging plan word for word (a homeowner session)."""
    reading = understand(text, after("ev_charging"))
    assert not reading.follow_up and reading.intent == "knowledge"


@pytest.mark.parametrize(
    "text", ["what about by 6am instead?", "what about tomorrow?", "and if i only need 50%?"]
)
def test_what_about_a_changed_deadline_or_level_is_still_a_follow_up(text: str) -> None:
    assert understand(text, after("ev_charging")).follow_up


def test_a_hedged_utility_that_matches_the_zip_codes_usual_one_is_saved(data_dir: Path) -> None:
    """'sdge i guess' after 'Around 92101 that's usually SDG&E': two signals agree. Without the ZIP
    (another thread, no area known) the same doubt saves nothing."""
    service = service_for(data_dir)
    first = service.handle_turn(
        "T1-U6", "thread-1", "hi im in 92101 and want to know when to charge my ioniq 5"
    )
    assert "usually SDG&E" in first.text
    reply = service.handle_turn("T1-U6", "thread-1", "sdge i guess")
    assert "Saved: your utility is SDG&E" in reply.text
    assert understand("sdge i guess").facts == []
    assert understand("sdge i guess", ReadingContext(known_fields={"location.zip_code": "94110"})).facts == []


@pytest.mark.parametrize(
    "text",
    ["hi im in 92101 and want to know when to charge my ioniq 5", "wondering when i should charge my bolt"],
)
def test_an_indirect_question_is_a_question(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "live_data" and reading.confidence >= 0.7 and reading.asks


def test_a_what_if_after_a_comma_does_not_take_the_zip_with_it() -> None:
    """The ZIP was dropped as 'something you're considering' (a homeowner session)."""
    reading = understand(
        "we're in sacramento 95814, thinking about replacing our old gas furnace w a heat pump. are there rebates?"
    )
    facts = {fact.field: fact.value for fact in reading.facts}
    assert facts["location.zip_code"] == "95814"
    # the furnace they have now is theirs; the heat pump they are thinking about is not
    assert facts["equipment.heating_type"] == "gas"


def test_what_do_you_know_about_me_for_a_new_user_says_what_to_tell(data_dir: Path) -> None:
    reply = service_for(data_dir).handle_turn("T1-U7", "thread-1", "what do you know about me")
    assert "anything saved about you yet" in reply.text and "anything is wrong" not in reply.text


def test_profile_values_are_said_in_plain_words_not_codes() -> None:
    from advisor.context import profile_facts
    from profiles.models import UserProfile

    profile = UserProfile.model_validate(
        {
            "user_id": "T1-U8",
            "equipment": {"has_battery_storage": True, "heating_type": "heat_pump"},
            "household": {"typical_usage_pattern": "evening_heavy"},
        }
    )
    facts = profile_facts(profile, "general")
    assert "has a home battery" in facts and "heating: heat pump" in facts
    assert not any("True" in fact or "_" in fact for fact in facts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "yo got a model y, zip is 94110",
            {"location.zip_code": "94110", "equipment.ev_model": "Tesla Model Y"},
        ),
        (
            "zip is 94110, got a model y",
            {"location.zip_code": "94110", "equipment.ev_model": "Tesla Model Y"},
        ),
        (
            "we have 7kw solar and a powerwall",
            {
                "equipment.solar_capacity_kw": 7.0,
                "equipment.has_battery_storage": True,
                "equipment.battery_capacity_kwh": 13.5,
            },
        ),
        ("my neighbor has solar and a powerwall", {}),
        ("what if we got solar and a powerwall", {}),
    ],
)
def test_a_car_or_battery_in_a_list_of_the_users_things_is_theirs(
    text: str, expected: dict[str, object]
) -> None:
    """The car after 'yo' or a comma, and the Powerwall after 'and', were dropped (a homeowner session)."""
    assert facts(text) == expected


def test_a_caveat_is_said_in_full_once_per_thread(data_dir: Path) -> None:
    """Every SDG&E answer repeated the same three price caveats word for word."""
    service = service_for(data_dir)
    first = service.handle_turn(
        "T1-U9", "thread-1", "we're in 92101 with sdge on ev-tou-5, tesla model 3. when should i charge?"
    )
    caveat = next(line for line in first.text.splitlines() if line.startswith("⚠️ Prices are illustrative"))
    second = service.handle_turn("T1-U9", "thread-1", "what about by 6am instead?")
    assert caveat not in second.text
    assert "caveats I gave earlier in this thread about these figures still apply" in second.text
    other_thread = service.handle_turn("T1-U9", "thread-2", "when should i charge?")
    assert caveat in other_thread.text  # a new thread says it in full again


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("how much would a 6 kw solar system make here", 6.0),
        ("oh we dont have solar yet lol, how much would a 6kw system make here", 6.0),
        ("ok and the typical solar per year for a 5 kw system here?", 5.0),
    ],
)
def test_what_a_solar_size_would_make_is_a_typical_year_estimate(text: str, size: float) -> None:
    """It got a passage about shading or battery outages (a homeowner session)."""
    reading = understand(text)
    assert reading.intent == "live_data" and reading.topic == "solar"
    assert reading.params.system_kw == size and reading.params.typical_year
    assert not any(fact.field == "equipment.solar_capacity_kw" for fact in reading.facts)


def test_a_solar_size_asked_about_is_estimated_and_never_saved(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U10", "thread-1", "my zip is 94110")
    six = service.handle_turn("T1-U10", "thread-1", "how much would a 6 kw solar system make here")
    nine = service.handle_turn("T1-U10", "thread-2", "how much would a 9 kw solar system make here")
    assert "A 6 kW system here makes about 8,190 kWh" in six.text and "not saved" in six.text
    assert "A 9 kW system here makes about 12,285 kWh" in nine.text  # the fixture is 6 kW: scaled, not reused
    profile = service.profiles.get("T1-U10")
    assert profile is not None and (profile.equipment is None or profile.equipment.solar_capacity_kw is None)


def test_the_cars_share_of_a_monthly_total_is_not_added_to_it(data_dir: Path) -> None:
    """'600 kWh a month, maybe 250 of that is the car' was priced as 600 for the house + 337 for the car."""
    assert read_params("we use about 600 kWh a month, maybe 250 of that is the car").filled() == {
        "house_kwh_per_month": 350.0,
        "ev_kwh_per_month": 250.0,
    }
    service = service_for(data_dir)
    service.handle_turn("T1-U11", "thread-1", "pg&e in 94110, on e-tou-c, we have a model y")
    service.handle_turn("T1-U11", "thread-1", "which rate plan would be cheapest for us")
    reply = service.handle_turn(
        "T1-U11", "thread-1", "we use about 600 kWh a month, maybe 250 of that is the car"
    )
    assert "350 kWh a month for the house + 250 kWh a month for the car" in reply.text


def test_a_range_needed_sets_the_charge_instead_of_80_percent(data_dir: Path) -> None:
    """'what about by 6am, i need like 40 miles' still planned 30% -> 80% (31.9 kWh)."""
    assert read_params("what about by 6am, i need like 40 miles").filled() == {
        "ready_by_hour": 6,
        "miles_needed": 40.0,
    }
    assert read_params("I drive 40 miles a day").miles_needed is None  # usage, not a range for this charge
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(
        {
            "user_id": "T1-U12",
            "equipment": {"ev_model": "Tesla Model 3"},
            "location": {
                "zip_code": "94102",
                "city": "San Francisco",
                "lat": 37.77,
                "lon": -122.42,
                "timezone": "America/Los_Angeles",
                "utility_provider": "PG&E",
                "rate_schedule": "EV2-A",
            },
        }
    )
    runtime.service.handle_turn("T1-U12", "thread-1", "When should I charge my EV?")
    reply = runtime.service.handle_turn("T1-U12", "thread-1", "what about by 6am, i need like 40 miles")
    assert (
        "Needs 12.0 kWh from the grid" in reply.text and "40 miles of range at 0.3 kWh a mile" in reply.text
    )
    assert "before 06:00" in reply.text


def test_correcting_the_car_after_a_plan_redoes_the_plan_for_the_new_car(data_dir: Path) -> None:
    """'no wait its a model y not a 3' was saved and the Model 3's plan (and 57.5 kWh battery) left standing."""
    from config.files import EvalConfig
    from tests.advisor_helpers import CONFIGURED_PROFILE
    from traces.graders import Verdict, grade_trace
    from traces.storage import load_trace

    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    first = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    assert "28.8 kWh into the battery" in first.text
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "no wait its a model y not a 3")
    assert reply.text.startswith("Updated: your EV is a Tesla Model Y (was Tesla Model 3).")
    assert "dropped the 57.5 kWh battery size" in reply.text
    assert "37.5 kWh into the battery" in reply.text  # 30 -> 80 % of a typical Model Y's 75 kWh
    profile = runtime.service.profiles.get("T1-U1")
    assert profile.equipment.ev_model == "Tesla Model Y" and profile.equipment.ev_battery_kwh is None
    grades = grade_trace(load_trace(runtime.service.traces.latest("T1-U1")), EvalConfig())
    assert all(g.verdict is not Verdict.FAIL for g in grades), [(g.grader_name, g.evidence) for g in grades]
    # a statement that changes nothing the last plan stood on is just saved
    other = runtime.service.handle_turn("T1-U1", "thread-1", "we are 3 people now")
    assert "Needs" not in other.text


def test_why_a_system_makes_less_is_an_explanation_not_an_estimate() -> None:
    reading = understand("our 7.6 kw array produces less in winter, why?")
    assert reading.intent == "knowledge"
    assert {fact.field: fact.value for fact in reading.facts} == {"equipment.solar_capacity_kw": 7.6}


# --- from a review of the changes above -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "we have 7kw solar and want a powerwall",
        "we have solar and a quote for a powerwall",
        "we have 7kw solar and a powerwall, maybe next year",
        "so got a quote for a model y",
        "yo have u seen the new model 3",
        "zip is 94110, got a model y test drive tomorrow",
    ],
)
def test_no_battery_or_car_from_wishes_quotes_or_questions(text: str) -> None:
    assert not {"equipment.has_battery_storage", "equipment.ev_model"} & set(facts(text))


@pytest.mark.parametrize(
    "text",
    [
        "I get about 4 miles per kwh",
        "my car gets 250 miles of range",
        "level 2 adds about 25 miles of range per hour",
        "we use 900 kwh a month, 1/3 of that is the car",
        "600 kwh a month, about $50 of that is the car",
        "would a 6 kw system make sense for a 2 person home?",
        "should I make my 6 kw system bigger?",
    ],
)
def test_no_range_share_or_solar_size_read_from_ordinary_sentences(text: str) -> None:
    params = read_params(text)
    assert params.miles_needed is None and params.ev_kwh_per_month is None and params.system_kw is None


def test_a_charge_level_said_with_a_distance_wins_and_a_later_level_replaces_it() -> None:
    assert read_params("I want to get 50 miles, charge it to 80% by 7am").miles_needed is None
    earlier = read_params("i need like 40 miles by 7am")
    merged = read_params("actually charge it to 90%").merged_over(earlier)
    assert merged.target_soc_pct == 90 and merged.miles_needed is None


def test_a_yearly_share_is_a_monthly_share_of_a_yearly_total() -> None:
    params = read_params("7,000 kwh a year, 2,000 of that is the ev")
    assert params.ev_kwh_per_month == 167 and params.house_kwh_per_month == 416


def test_a_range_longer_than_the_battery_says_so(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U13", "thread-1", "zip 94110, pge ev2a, its a tesla model 3")
    reply = service.handle_turn(
        "T1-U13", "thread-1", "I need to drive 400 miles tomorrow, when should I charge tonight?"
    )
    assert "400 miles needs more than your battery holds" in reply.text and "plan a stop" in reply.text


def test_a_correction_re_plans_only_right_after_the_plan_and_only_when_something_changed(
    data_dir: Path,
) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U14", "thread-1", "zip 94110, pge ev2a, its a tesla model 3")
    service.handle_turn("T1-U14", "thread-1", "When should I charge my EV tonight? I'm at 20% now")
    confirmed = service.handle_turn("T1-U14", "thread-1", "we're with pge btw")
    assert confirmed.text.startswith("Confirmed: your utility is PG&E.") and "Needs" not in confirmed.text
    service.handle_turn("T1-U14", "thread-1", "thanks!")
    later = service.handle_turn("T1-U14", "thread-1", "we actually have a model y")
    assert later.text.startswith("Updated: your EV is a Tesla Model Y") and "Needs" not in later.text


def test_a_size_the_user_gave_stays_when_the_car_is_refined(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U15", "thread-1", "i drive a tesla model 3")
    service.handle_turn("T1-U15", "thread-1", "my car's battery is 78 kwh")
    reply = service.handle_turn("T1-U15", "thread-1", "it's a 2021 model 3 long range awd")
    assert "dropped" not in reply.text
    assert service.profiles.get("T1-U15").equipment.ev_battery_kwh == 78


def test_a_stated_solar_size_after_an_estimate_answers_for_that_size(data_dir: Path) -> None:
    service = service_for(data_dir)
    service.handle_turn("T1-U16", "thread-1", "zip 94110, pge ev2a")
    service.handle_turn("T1-U16", "thread-1", "how much would a 6 kW system make here?")
    reply = service.handle_turn("T1-U16", "thread-1", "we have 4 kw solar")
    assert "Saved: you have 4 kW of solar." in reply.text and "A 4 kW system here makes" in reply.text


def test_a_failure_notice_is_repeated_and_an_empty_warning_is_not_counted() -> None:
    from advisor.context import without_repeated_warnings

    notice = "No solar forecast (timeout); the plan uses prices only."
    kept, repeated = without_repeated_warnings([{"ok": True, "warnings": [notice, ""]}], f"⚠️ {notice}")
    assert kept[0]["warnings"] == [notice] and repeated == 0


def test_an_opinion_about_a_utility_is_not_the_users_utility() -> None:
    context = ReadingContext(known_fields={"location.zip_code": "92101"})
    assert understand("I guess sdge is expensive", context).facts == []
