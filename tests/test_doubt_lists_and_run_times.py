"""Rules from talking to the bot as a homeowner (session of 2026-11-26): a "?" that only marks a
doubt, a household listed without "me", panels sized after they were mentioned, a run time said
for an appliance, and an assumed average price that must not pose as the user's own."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user, stored


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("doubt"), clock=lambda: NOW)
    yield built
    built.close()


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}


# --- a question mark that is only the doubt's ------------------------------------------------


def test_a_doubt_after_one_clause_leaves_the_sure_clause_saved() -> None:
    facts = _facts("94110, i think we're on e-tou-c? not sure")
    assert facts == {"location.zip_code": "94110"}


@pytest.mark.parametrize(
    "text",
    [
        "i think the charger is 40 amps? the electrician set it up, not totally sure",
        "we're in 30306 and maybe have 8 kw of solar? not sure",
        "we have solar, maybe 8 kw?",
    ],
)
def test_a_statement_marked_with_doubt_is_not_a_question_and_saves_nothing_unsure(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "profile_statement"
    assert not {"equipment.ev_charger_kw", "equipment.solar_capacity_kw"} & {f.field for f in reading.facts}


@pytest.mark.parametrize("text", ["i think peak is 4-9?", "maybe we should switch to e-elec?"])
def test_a_doubt_that_asks_for_a_check_or_advice_stays_a_question(text: str) -> None:
    assert understand(text, ReadingContext()).intent != "profile_statement"


# --- a household listed as a whole ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("we're 2 adults and 1 toddler", 3),
        ("2 adults and a toddler", 3),
        ("we have 2 adults and a baby", 3),
        ("there are 2 adults, 3 kids and a dog", 5),
        ("we are 2 adults and 2 kids in atlanta", 4),
        ("we're 2 adults and 1 toddler in 30306, georgia power", 3),
    ],
)
def test_a_household_listed_as_a_whole_is_counted(text: str, count: int) -> None:
    assert _facts(text)["household.occupants"] == count


@pytest.mark.parametrize(
    "text", ["2 kids and a dog", "we're 2 adults and 1 car", "we have 2 kids and a tesla"]
)
def test_a_list_that_is_not_the_whole_household_counts_nobody(text: str) -> None:
    assert "household.occupants" not in _facts(text)


# --- panels sized after they were mentioned ----------------------------------------------------


def test_panels_mentioned_without_a_size_take_the_size_said_next(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(
        user, "s-panels", "hi im in rochester ny with rg&e, we have about 20 panels i think? not sure the kw"
    )
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None
    reply = runtime.service.handle_turn(user, "s-panels", "found the paperwork, 7.6 kw")
    assert stored(runtime, user, "equipment.solar_capacity_kw") == 7.6 and "7.6 kW of solar" in reply.text
    runtime.service.handle_turn(user, "s-panels", "no sorry 6.7, i flipped the numbers")
    assert stored(runtime, user, "equipment.solar_capacity_kw") == 6.7


# --- a run time said for an appliance ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("when should i run the pool pump, it needs 8 hours", 8.0),
        ("pool pump runs 8 hrs a day, when should it run", 8.0),
        ("how much to run the oven for 2 hours", 2.0),
        ("run the dishwasher in 3 hours", None),
    ],
)
def test_a_run_time_is_read_for_an_appliance_and_a_delay_is_not_one(text: str, hours: float | None) -> None:
    assert understand(text, ReadingContext()).params.run_hours == hours


def test_a_pool_pump_is_priced_for_the_hours_said(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "E-TOU-C",
        },
    )
    reply = runtime.service.handle_turn(user, "s-pump", "when should i run the pool pump, it needs 8 hours")
    assert "8-hour run" in reply.text and "14.00 kWh" in reply.text


# --- an assumed average price is not the user's price -----------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "phoenix 85004, aps. when should i run the dryer",
        "houston 77008, txu. i drive a bolt. when should i charge",
    ],
)
def test_an_assumed_average_never_says_every_hour_of_their_plan_costs_the_same(runtime, message: str) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, f"s-{user}", message)
    assert "I don't know your plan's hours" in reply.text
    assert "Run it whenever suits you" not in reply.text and "is fine." not in reply.text


# --- a price for part of the day, and a question beside a price ------------------------------------


def test_a_price_for_part_of_the_day_is_said_back_not_saved(runtime) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, "s-day-price", "i pay 19c/kwh during the day")
    assert stored(runtime, user, "location.flat_rate_usd_per_kwh") is None
    assert "price per kWh" in reply.text and "rate plan's name" in reply.text


def test_a_plain_question_beside_a_saved_price_is_answered_too() -> None:
    reading = understand("i'm paying 15 cents a kwh, is that high", ReadingContext())
    assert {f.field: f.value for f in reading.facts} == {"location.flat_rate_usd_per_kwh": 0.15}
    assert reading.intent != "profile_statement"
