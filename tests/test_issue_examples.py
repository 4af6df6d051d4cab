"""The conversations that showed the reader did not generalize (issue 21), each through the real
service (offline models, mock data APIs, the built-in knowledge base): every request is answered in
its turn, general questions are not held behind onboarding, off-topic gets one line on what the
advisor does, and facts are read whole (trims, replacements) or not at all (questions, what-ifs).

A reply's kind is read from what the turn did (the tool it called, the question it asked, the
node whose words are the reply), as the conversation benchmark reads it (bench/conversations.py).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from bench.conversations import reply_kind
from tests.advisor_helpers import make_runtime
from traces.storage import load_trace

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # a Wednesday, 10:00 in San Francisco
USER = "T1-EX"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("examples"), clock=lambda: NOW, knowledge=True)
    yield built
    built.close()


class Said:
    """A reply with what the turn did: its kind and the arguments of each tool it called."""

    def __init__(self, reply: Any, kind: str, tools: dict[str, dict]) -> None:
        self.reply, self.kind, self.tools = reply, kind, tools

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reply, name)


class Chat:
    """One new user's thread: say() answers a message and keeps its kind and tool arguments."""

    counter = 0

    def __init__(self, runtime: Any) -> None:
        Chat.counter += 1
        self.service = runtime.service
        self.user, self.thread = f"{USER}-{Chat.counter}", f"t{Chat.counter}"

    def say(self, text: str) -> Said:
        reply = self.service.handle_turn(self.user, self.thread, text)
        trace = load_trace(self.service.traces.find(self.user, reply.trace_id))
        tools = {s.tool_name: s.arguments for s in trace.steps if s.step_type.value == "tool_call"}
        return Said(reply, reply_kind(self.service, self.user, reply), tools)

    def saved(self, field: str) -> Any:
        section, name = field.split(".")
        profile = self.service.profiles.get(self.user)
        data = getattr(profile, section) if profile else None
        return getattr(data, name) if data is not None else None


@pytest.fixture
def chat(runtime) -> Chat:
    return Chat(runtime)


# --- requests typed as statements get their answer ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "args", "saved"),
    [
        (
            "sdge ev-tou-5, 92101. my model y is at 30% and i need 80% before work tmrw, i leave at 6:30",
            {"target_soc_pct": 80.0, "current_soc_pct": 30.0, "ready_by_hour": 6, "ready_by_minute": 30},
            {"location.rate_schedule": "EV-TOU-5", "equipment.ev_model": "Tesla Model Y"},
        ),
        (
            "pge e-tou-c, 95112. nissan leaf. i only need like 45 miles by 8am tmrw",
            {"miles_needed": 45.0, "ready_by_hour": 8},
            {"location.rate_schedule": "E-TOU-C", "equipment.ev_model": "Nissan Leaf"},
        ),
        (
            "sdge ev-tou-5, 92101, ioniq 5 w/ 11 kw charger. need it charged by noon tmrw (xmas)",
            {"ready_by_hour": 12},
            {"equipment.ev_charger_kw": 11.0, "equipment.ev_model": "Hyundai Ioniq 5"},
        ),
        (
            "tesla model 3 here, sdge ev-tou-5 in 92103. need it full by monday 6am, cheapest way?",
            {"target_soc_pct": 100.0, "ready_by_hour": 6, "ready_by_day": "monday"},
            {"location.zip_code": "92103", "equipment.ev_model": "Tesla Model 3"},
        ),
    ],
)
def test_a_request_typed_as_a_statement_gets_a_plan(chat: Chat, text: str, args: dict, saved: dict) -> None:
    reply = chat.say(text)
    assert reply.kind == "charging_plan", reply.text
    called = reply.tools["plan_ev_charging"]
    assert {key: called.get(key) for key in args} == args
    assert reply.text.startswith("Saved:") and "Needs" in reply.text and "$" in reply.text
    for field, value in saved.items():
        assert chat.saved(field) == value


# --- general questions are answered, never held up -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "is it bad to charge my car to 100% every night?",
        "whats net metering",
        "if the grid goes down do my solar panels still power my house",
    ],
)
def test_a_general_question_from_a_new_user_is_answered(chat: Chat, text: str) -> None:
    reply = chat.say(text)
    assert reply.kind == "explanation" and reply.asked_for is None, reply.text
    assert "plan for now" not in reply.text  # the canned clarifier is gone


@pytest.mark.parametrize(
    "text", ["when are peak hours on pge", "should i precool my house before the 4-9pm peak"]
)
def test_a_question_about_their_prices_is_answered_or_asks_what_it_needs(chat: Chat, text: str) -> None:
    reply = chat.say(text)
    assert reply.kind in ("explanation", "prices", "appliance_timing", "ask"), reply.text
    assert reply.asked_for in (None, "location", "utility", "rate_schedule")
    assert "plan for now" not in reply.text


def test_will_it_be_sunny_asks_where_not_how_big_the_solar_is(chat: Chat) -> None:
    reply = chat.say("will it be sunny tomorrow?")
    assert reply.kind in ("weather", "ask") and reply.asked_for in (None, "location")


def test_off_topic_gets_what_the_advisor_does_and_two_examples(chat: Chat) -> None:
    reply = chat.say("can u recommend a good pizza place in sf")
    assert reply.kind == "offtopic" and reply.text.count('"') == 4  # two example questions
    assert chat.service.profiles.get(chat.user) is None  # "in sf" is not where they live


def test_their_own_price_answers_a_heat_pump_question_without_onboarding(chat: Chat) -> None:
    reply = chat.say(
        "we've got a gas furnace and pay like 30 cents a kwh. would a heat pump actually be cheaper to run than gas?"
    )
    assert reply.kind == "explanation" and reply.asked_for is None, reply.text
    assert chat.saved("equipment.heating_type") == "gas"
    assert chat.saved("location.flat_rate_usd_per_kwh") == 0.30


def test_a_size_and_a_town_asked_about_get_an_estimate_without_a_zip(chat: Chat) -> None:
    reply = chat.say("how much would a 7 kw system make per yr in san diego")
    assert reply.kind == "solar_estimate" and reply.asked_for is None, reply.text
    assert reply.tools["get_typical_solar_production"]["system_kw"] == 7.0
    assert "San Diego" in reply.text and "not saved to your profile" in reply.text
    assert chat.saved("location.city") is None and chat.saved("equipment.solar_capacity_kw") is None


# --- facts read whole, or not at all ----------------------------------------------------------


def test_the_car_is_a_model_y_is_saved(chat: Chat) -> None:
    reply = chat.say("the car is a model y")
    assert chat.saved("equipment.ev_model") == "Tesla Model Y" and "Tesla Model Y" in reply.text


def test_a_car_named_alone_in_a_list_is_kept_and_never_asked_for(chat: Chat) -> None:
    reply = chat.say("nyc 10025, con ed. mustang mach-e. when should i charge to be ready by 7am")
    assert chat.saved("equipment.ev_model") == "Ford Mustang Mach-E"
    assert (
        chat.saved("location.zip_code") == "10025" and chat.saved("location.utility_provider") == "Con Edison"
    )
    assert reply.asked_for != "ev" and reply.kind == "charging_plan", reply.text


def test_a_trim_is_read_before_the_sentence_is_split(chat: Chat) -> None:
    chat.say("I drive a Nissan Leaf Plus with a 60 kWh battery")
    assert (
        chat.saved("equipment.ev_model") == "Nissan Leaf Plus"
        and chat.saved("equipment.ev_battery_kwh") == 60.0
    )


def test_a_battery_said_of_a_trim_is_saved(chat: Chat) -> None:
    chat.say("my leaf plus has a 62 kWh battery")
    assert (
        chat.saved("equipment.ev_model") == "Nissan Leaf Plus"
        and chat.saved("equipment.ev_battery_kwh") == 62.0
    )


def test_six_am_in_words_is_a_deadline(chat: Chat) -> None:
    chat.say("pge ev2-a, 94110, tesla model 3")
    reply = chat.say("need the car by six am")
    assert reply.kind == "charging_plan" and reply.tools["plan_ev_charging"]["ready_by_hour"] == 6


def test_a_sold_car_is_replaced_and_its_battery_size_dropped(chat: Chat) -> None:
    chat.say("I drive a tesla model 3 with a 57.5 kWh battery")
    reply = chat.say("we sold the tesla and got a rivian r1s")
    assert chat.saved("equipment.ev_model") == "Rivian R1S"
    assert chat.saved("equipment.ev_battery_kwh") is None and "57.5 kWh" in reply.text


def test_a_question_about_a_powerwall_saves_none(chat: Chat) -> None:
    reply = chat.say("how long will a powerwall run my house in an outage")
    assert reply.profile_changes == [] and chat.service.profiles.get(chat.user) is None
    assert reply.kind == "explanation"


def test_wait_thats_wrong_undo_that_undoes(chat: Chat) -> None:
    chat.say("we're in 94110")
    reply = chat.say("wait thats wrong, undo that")
    assert (
        reply.kind == "undo" and reply.text.startswith("Undone: ") and chat.saved("location.zip_code") is None
    )


def test_more_on_the_last_explanation_never_repeats_the_same_passage(runtime) -> None:
    """Talking to it: "my husband thinks its a waste of money" after an answer on heat pump water
    heaters quoted the same passage again, word for word."""
    user = "T1-EX-REPEAT"
    first = runtime.service.handle_turn(user, "s1", "is it worth getting a heat pump water heater in texas")
    again = runtime.service.handle_turn(user, "s1", "my husband thinks its a waste of money")
    opening = first.text.split(". ")[0]
    assert first.intent == again.intent == "knowledge" and opening and opening not in again.text
