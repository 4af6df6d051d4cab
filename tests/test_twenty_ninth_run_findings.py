"""What the twenty-ninth first run (h64 Northeast retirees, h65 terse Northwest/Alaska/Hawaii
households, h66 busy Sun Belt parents) found, as behaviour: corrections that put the true value
after the wrong one, utilities named the short way after "on"/"with", heat and chargers named the
way people name them, equipment still to come, and a trip's distance and departure."""

from __future__ import annotations

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand


def saved(text: str, context: ReadingContext | None = None) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, context or ReadingContext()).facts}


@pytest.mark.parametrize(
    ("text", "held", "field", "value"),
    [
        (
            "thats wrong its a model y not a 3",
            {"equipment.ev_model": "Tesla Model 3"},
            "equipment.ev_model",
            "Tesla Model Y",
        ),
        ("scratch that, charger is 48a", {"equipment.ev_charger_kw": 9.6}, "equipment.ev_charger_kw", 11.52),
        ("no wait, undo that... it's National Grid", {}, "location.utility_provider", "National Grid"),
        ("not pacific power, portland general", {}, "location.utility_provider", "Portland General Electric"),
        ("mge is wrong, we're alliant", {}, "location.utility_provider", "Alliant Energy"),
        (
            "scratch that rate, its 38c",
            {"location.flat_rate_usd_per_kwh": 0.42},
            "location.flat_rate_usd_per_kwh",
            0.38,
        ),
        (
            "no it's Montclair, and we have PSE&G not JCP&L",
            {"location.city": "Montville"},
            "location.city",
            "Montclair, NJ",
        ),
        (
            "sold the leaf got a mach-e",
            {"equipment.ev_model": "Nissan Leaf"},
            "equipment.ev_model",
            "Ford Mustang Mach-E",
        ),
    ],
)
def test_the_true_value_after_the_wrong_one_is_saved(
    text: str, held: dict, field: str, value: object
) -> None:
    assert saved(text, ReadingContext(known_fields=held)).get(field) == value


def test_the_value_said_to_be_wrong_is_never_saved() -> None:
    assert saved("mge is wrong, we're alliant")["location.utility_provider"] != "Madison Gas and Electric"


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("hey new here, seattle 98103 on city light", "Seattle City Light"),
        ("on pse, peak hrs tmrw", "Puget Sound Energy"),
        ("on chugach, todays rates", "Chugach Electric"),
        ("when is peak today, we're nes in nashville", "Nashville Electric Service"),
        (
            "we moved from pee gee and e land to knoxville, kub is our utility now",
            "Knoxville Utilities Board",
        ),
        ("we're on oh g and e in okc", "OG&E"),
    ],
)
def test_a_utility_named_the_short_way_where_utilities_are_said(text: str, utility: str) -> None:
    assert saved(text)["location.utility_provider"] == utility


def test_a_short_name_that_is_a_word_stays_a_word() -> None:
    assert "location.utility_provider" not in saved("we rely on ace bandages")
    assert "location.utility_provider" not in saved("charging on liberty")


def test_the_town_moved_to_is_theirs_beside_its_utility() -> None:
    assert (
        saved("we moved from pee gee and e land to knoxville, kub is our utility now")["location.city"]
        == "Knoxville"
    )


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("we have a ducted hp, no gas", "equipment.heating_type", "heat_pump"),
        ("baseboard heat in every room", "equipment.heating_type", "electric"),
        ("house is all electric, heat strips and everything", "equipment.heating_type", "electric"),
        (
            "The Mitsubishi heat pump went in last week with the Mass Save rebate.",
            "equipment.heating_type",
            "heat_pump",
        ),
        ("model y, l2 at 48a", "equipment.ev_charger_kw", 11.52),
        ("only have a level 1 for now", "equipment.ev_charger_kw", 1.44),
        (
            "we have heat pumps and a 40 amp charger for the lightning",
            "equipment.ev_model",
            "Ford F-150 Lightning",
        ),
        ("Had a 40 amp charger put in for the Ioniq 5 in November.", "equipment.ev_model", "Hyundai Ioniq 5"),
        (
            "which rate plan is cheapest for us, we use 700 kwh a month and most of it in the mornings",
            "household.typical_usage_pattern",
            "morning_heavy",
        ),
    ],
)
def test_equipment_and_habits_named_the_way_people_name_them(text: str, field: str, value: object) -> None:
    assert saved(text).get(field) == value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("the heat pump goes in on the 14th, we got the Clean Heat rebate", "equipment.heating_type"),
        (
            "Our new heat pump is being installed next Tuesday!! We got the NYSERDA rebate.",
            "equipment.heating_type",
        ),
        ("night setback w a heat pump good idea", "equipment.heating_type"),
        ("the bill says sc-1c", "location.flat_rate_usd_per_kwh"),
        ("We have to be in Philadelphia by 10 Friday morning, it's 60 miles", "location.city"),
        ("solar est for 5kw on our roof", "equipment.solar_capacity_kw"),
    ],
)
def test_what_is_not_theirs_yet_or_not_theirs_at_all_is_not_saved(text: str, field: str) -> None:
    assert field not in saved(text, ReadingContext(pending_slot="rate_schedule") if "sc-1c" in text else None)


def test_one_day_at_home_is_no_work_schedule() -> None:
    reading = understand(
        "wfh tmrw so 11am is fine", ReadingContext(last_intent="live_data", last_topic="ev_charging")
    )
    assert "household.work_schedule" not in {f.field for f in reading.facts}


def test_a_size_asked_after_an_estimate_is_asked_not_saved() -> None:
    reading = understand("and for a 12kw", ReadingContext(last_intent="live_data", last_topic="solar"))
    assert reading.params.system_kw == 12.0 and not reading.facts
    assert read_params("solar est for 5kw on our roof").system_kw == 5.0


def test_a_trips_distance_and_departure_make_a_charging_plan() -> None:
    reading = understand(
        "have to drive to my daughters in scranton saturday, 140 miles, leaving 8am. the ioniq 5 is plugged in now"
    )
    assert reading.intent == "live_data" and reading.params.task == "charging_plan"
    assert (reading.params.miles_needed, reading.params.ready_by_hour, reading.params.ready_by_day) == (
        140.0,
        8,
        "saturday",
    )


def test_take_it_back_undoes_and_please_compare_asks() -> None:
    assert understand("nope thats not what i said, take it back").undo
    compared = understand("Please compare my options with PECO. We are on the regular R rate now.")
    assert compared.intent == "live_data" and compared.params.task == "plan_comparison"
    assert saved("Please compare my options with PECO.")["location.utility_provider"] == "PECO"


@pytest.mark.parametrize("text", ["what kind of stuff can you help with", "how can you help me"])
def test_asking_what_it_does_is_about_the_advisor(text: str) -> None:
    reading = understand(text)
    assert reading.about_advisor and reading.intent != "off_topic"


def test_a_level_two_charger_without_its_amps_is_heard_and_not_saved(data_dir) -> None:
    from tests.advisor_helpers import make_runtime

    reply = make_runtime(data_dir).service.handle_turn("U-L2", "t", "i have a level 2 charger")
    assert "Level 2" in reply.text and "amps" in reply.text and "didn't catch" not in reply.text
    assert "equipment.ev_charger_kw" not in {f.field for f in understand("i have a level 2 charger").facts}
    assert saved("i have a level 2 charger, 40 amps")["equipment.ev_charger_kw"] == 9.6


@pytest.mark.parametrize(
    "text",
    [
        "pool pump runs 8 hrs a day year round. would a variable speed pump really save that much",
        "would a heat pump dryer pay for itself",
    ],
)
def test_new_equipment_weighed_is_explained(text: str) -> None:
    assert understand(text).intent == "knowledge"
