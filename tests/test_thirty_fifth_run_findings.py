"""What the thirty-fifth first run (h82 the Midwest and Mountain West; h83 the Northeast and South;
h84 California, the Northwest and the desert) found, as behaviour: a plan weighed "than what im
on", hours asked for after the plans compared, the rate plan question left for another answer,
a town asked about whose name two states share, a town past the one they live near, a tag
question that doubts only its own part, deletes said as "dont keep my X", a utility left behind,
a count revised in the same breath, what we hold said back before a correction or checked, and
the documents' own abbreviations."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.reader import understand
from bench.conversations import profile_value
from tests.advisor_helpers import make_runtime, seeded_user


def saved(text: str, **context: Any) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    # a Wednesday, 10:00 in California (fixed: the same answers every run)
    built = make_runtime(
        tmp_path_factory.mktemp("thirty-fifth"), clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    )
    yield built
    built.close()


_users = iter(range(1, 1000))


def new_user(runtime: Any, **profile: Any) -> str:
    return seeded_user(runtime, f"U-35-{next(_users)}", profile)


def stored(runtime: Any, user: str, field: str) -> Any:
    return profile_value(runtime.service.profiles.get(user), field)


@pytest.mark.parametrize(
    "text", ["would ev2-a be cheaper than what im on", "is e-elec better vs our current plan"]
)
def test_a_plan_weighed_against_the_one_they_have_is_not_theirs(text: str) -> None:
    assert "location.rate_schedule" not in saved(text)
    assert saved("we are on ev2-a, would e-elec be cheaper than what we have") == {
        "location.rate_schedule": "EV2-A"
    }


def test_a_comparison_asked_about_a_plan_keeps_their_own_plan_and_a_switch_is_acknowledged(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94611",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "E-TOU-C",
            "equipment.ev_model": "Tesla Model Y",
        },
    )
    compared = runtime.service.handle_turn(user, "s", "would ev2-a be cheaper than what im on")
    assert "E-TOU-C (your plan)" in compared.text and "EV2-A would cost about" in compared.text
    assert stored(runtime, user, "location.rate_schedule") == "E-TOU-C"
    switched = runtime.service.handle_turn(user, "s", "ok switched to ev2-a today")
    assert "Estimated 2026 bill" not in switched.text and "EV2-A" in switched.text
    assert stored(runtime, user, "location.rate_schedule") == "EV2-A"
    hours = runtime.service.handle_turn(user, "s", "so whens cheapest to charge now")
    assert hours.text.startswith("Needs") and "Cheapest before" in hours.text


def test_hours_asked_for_after_the_plans_compared_are_a_request_of_their_own() -> None:
    after = {
        "last_intent": "live_data",
        "last_topic": "rates",
        "last_params": RequestParams(task="plan_comparison"),
        "last_question": "which plan is cheapest for us",
    }
    hours = understand("so whens cheapest to charge now", ReadingContext(**after))
    assert hours.params.task == "charging_plan" and not hours.follow_up
    solar = understand("and with solar?", ReadingContext(**after))
    assert solar.params.task == "plan_comparison" and solar.follow_up


def test_the_plan_question_answered_with_the_car_plans_on_the_usual_plan(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s", "hey when should i charge tonight")
    asked = runtime.service.handle_turn(user, "s", "94110, pge")
    assert asked.asked_for == "rate_schedule"
    planned = runtime.service.handle_turn(user, "s", "model 3")
    assert planned.asked_for is None and "Needs" in planned.text
    assert "Without your rate plan, this assumes PG&E's most common plan, E-TOU-C" in planned.text
    assert stored(runtime, user, "equipment.ev_model") == "Tesla Model 3"
    assert stored(runtime, user, "location.rate_schedule") is None


def test_a_town_two_states_share_is_answered_for_the_bigger_and_never_saved(runtime) -> None:
    assert understand("is it gonna freeze tonight in duluth", ReadingContext()).params.place == "Duluth, MN"
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, "s", "is it gonna freeze tonight in duluth")
    assert reply.asked_for is None and "Duluth, MN" in reply.text and "°F" in reply.text
    assert (
        stored(runtime, user, "location.city") is None and stored(runtime, user, "location.zip_code") is None
    )
    from advisor.places import find_town

    assert find_town("duluth") is None  # where they live still needs the state


def test_the_town_past_the_one_they_live_near_is_theirs() -> None:
    assert saved("we live just outside duluth in hermantown fyi", pending_slot="location") == {
        "location.city": "Hermantown"
    }
    assert saved("we moved away from denver to boulder") == {"location.city": "Boulder"}


def test_a_tag_question_doubts_only_its_own_part() -> None:
    assert saved("we have a 2018 leaf if that matters, no liquid cooling right") == {
        "equipment.ev_model": "Nissan Leaf"
    }
    assert saved("the battery is like 200 kwh right") == {}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("dont keep my utility info, delete it", "location.utility_provider"),
        ("don't keep my work schedule, remove it", "household.work_schedule"),
        ("stop storing my zip", "location.zip_code"),
    ],
)
def test_dont_keep_my_x_is_a_forget_of_x(text: str, field: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "forget" and reading.forget == [field] and not reading.undo


def test_a_utility_moved_away_from_is_not_saved() -> None:
    reading = understand("wipe my utility info, we moved out of pge territory", ReadingContext())
    assert reading.intent == "forget" and reading.facts == []
    assert saved("we moved out of pge territory, now on smud") == {"location.utility_provider": "SMUD"}


def test_a_count_revised_in_the_same_breath_is_the_new_one() -> None:
    assert (
        saved("4 people in the house, well 3 now that my daughter left for college")["household.occupants"]
        == 3
    )


def test_what_we_hold_said_back_before_what_is_true_is_a_correction() -> None:
    reading = understand("u have me down as a model 3 but its a model y", ReadingContext())
    assert reading.intent == "correction" and saved("u have me down as a model 3 but its a model y") == {
        "equipment.ev_model": "Tesla Model Y"
    }


@pytest.mark.parametrize(
    "text", ["what rate plan do you have me on, e-tou-c or ev2-a", "you have us on ev2-a, correct?"]
)
def test_what_we_hold_asked_or_checked_is_shown_and_nothing_saved(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.intent == "profile_query" and reading.facts == []


@pytest.mark.parametrize("text", ["what are CARE and FERA", "whats pcia on my bill"])
def test_the_documents_abbreviations_are_home_energy(text: str) -> None:
    assert understand(text, ReadingContext()).intent == "knowledge"
    assert understand("can u recommend a good pizza place in sf", ReadingContext()).intent == "off_topic"


def test_a_choice_asked_without_its_is_it_is_answered_and_the_facts_kept() -> None:
    reading = understand(
        "apartment in houston, 2 window units. cheaper to leave them on all day at 78 or turn em off while im at work",
        ReadingContext(),
    )
    assert reading.intent == "knowledge" and {f.field: f.value for f in reading.facts} == {
        "location.city": "Houston"
    }


def test_just_me_in_a_list_is_a_household_of_one() -> None:
    assert (
        saved("renting in philly, just me, electric baseboard heat. how do i keep the bill down")[
            "household.occupants"
        ]
        == 1
    )
    assert saved("we have a leaf, just me and my wife")["household.occupants"] == 2


def test_a_request_said_with_please_is_answered_beside_the_facts() -> None:
    reading = understand(
        "charge plan tonight pls. 40 amp charger, plugging in around 10:30pm", ReadingContext()
    )
    assert reading.intent == "live_data" and reading.params.task == "charging_plan"
    assert reading.params.plug_in_hour == 22 and saved(
        "charge plan tonight pls. 40 amp charger, plugging in around 10:30pm"
    ) == {"equipment.ev_charger_kw": 9.6}
    assert understand("we have a 40 amp charger please remember that", ReadingContext()).intent == (
        "profile_statement"
    )


def test_it_charged_right_after_a_home_battery_is_the_battery() -> None:
    said = "should i charge it from the grid overnight or just let the panels fill it"
    after_battery = ReadingContext(recent=["user: we just got a powerwall installed", "advisor: Saved."])
    reading = understand(said, after_battery)
    assert (
        reading.intent == "knowledge"
        and reading.topic == "solar"
        and "home battery" in (reading.question or "")
    )
    after_car = ReadingContext(recent=["user: need 80% by 7 on the model y", "advisor: Needs 30 kWh"])
    car = understand(said, after_car)
    assert car.topic == "ev_charging" and "home battery" not in (car.question or "")


def test_an_insulation_r_value_is_no_rate_plan() -> None:
    reading = understand(
        "attic has r-38. is that enough or should i go to r-60? insulation co is pushing more",
        ReadingContext(),
    )
    assert reading.intent == "knowledge" and reading.params.plan is None and not reading.mentions
    assert saved("were on r-1") == {"location.rate_schedule": "R-1"}  # a plan's code keeps its place


# --- from a homeowner-tester's conversations (2026-11-28) -------------------------------------


def test_a_plan_described_hours_first_with_its_days_is_read() -> None:
    from advisor.understanding.plan_described import described_plan

    plan = described_plan(
        "its 4-7pm weekdays on peak 27 cents, off peak 10 cents. when should i charge tonight"
    )
    assert plan is not None and (plan.window_start, plan.window_end) == (16, 19)
    assert (plan.window_usd_per_kwh, plan.other_usd_per_kwh, plan.weekdays_only) == (0.27, 0.10, True)


def test_how_a_thing_works_asks_for_the_thing_wherever_they_are() -> None:
    assert understand("how does net metering work w duke in nc", ReadingContext()).defined == "net metering"
    assert understand("whats community solar, can i do that in an apt", ReadingContext()).defined == (
        "community solar"
    )
    assert understand("how does it work", ReadingContext()).defined is None


def test_a_definition_is_the_sentence_that_says_what_it_is_not_a_whether() -> None:
    from knowledge.excerpts import answering_part

    passage = (
        "Community solar — What community solar is\n\nDOE describes community solar as a solar project whose "
        "benefits go to many customers. You don't put anything on your roof. Whether community solar is "
        "available depends on your state and utility."
    )
    answer = answering_part("whats community solar, can i do that in an apt", passage)
    assert answer.startswith("DOE describes community solar")


def test_should_typed_without_vowels_still_asks() -> None:
    reading = understand(
        "hi, raleigh nc 27609, duke energy progress. gas furnace is 20 yrs old, shld i replace w a heat pump or new furnace?",
        ReadingContext(),
    )
    assert reading.intent == "knowledge" and not [m for m in reading.mentions if m.reason == "second_value"]
    assert {f.field: f.value for f in reading.facts}["equipment.heating_type"] == "gas"


def test_another_day_asked_of_an_unknown_plan_says_that_day(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "85016", "location.utility_provider": "APS"})
    today = runtime.service.handle_turn(user, "s", "whats peak hours today")
    saturday = runtime.service.handle_turn(user, "s", "what about saturday?")
    assert "for today (Wed 21 Jan)" in today.text and "for Saturday (Sat 24 Jan)" in saturday.text


def test_two_machines_asked_together_each_get_a_verdict_and_washer_and_dryer_are_laundry(runtime) -> None:
    from advisor.understanding.params import read_params

    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "E-TOU-C",
        },
    )
    both = runtime.service.handle_turn(user, "s", "should i run the dishwasher + dryer now or wait")
    assert "your dishwasher costs" in both.text and "your dryer costs" in both.text
    assert read_params("ok and the washer and dryer?").appliance == "laundry"


def test_how_it_works_prefers_the_title_that_says_how_it_works() -> None:
    from advisor.nodes.retrieve import _document_named_by
    from knowledge.models import RetrievedDocument

    def doc(source: str, title: str) -> RetrievedDocument:
        return RetrievedDocument(source=source, title=title, text=title, score=1.0)

    water = doc("heat-pump-water-heaters.md", "Heat pump water heaters")
    works = doc("heat-pumps-how-they-work.md", "How an air-source heat pump works")
    assert _document_named_by("heat pumps", [water, works], "how do heat pumps work") is works
    assert _document_named_by("heat pumps", [water, works], "whats a heat pumps") is water  # the fuller title


def test_their_own_size_said_without_a_subject_gets_that_days_forecast() -> None:
    reading = understand("also have 8kw solar on the roof, how much will it make tomorrow", ReadingContext())
    assert reading.params.task == "solar_forecast" and reading.params.system_kw is None
    assert {f.field: f.value for f in reading.facts} == {"equipment.solar_capacity_kw": 8.0}


def test_a_program_or_a_kind_of_pricing_asked_about_is_explained_not_the_last_answer_again() -> None:
    after_laundry = ReadingContext(
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="appliance", appliance="laundry"),
        last_question="should i do laundry now or later tonight",
    )
    reading = understand("whats comed hourly pricing and is it worth it for someone like me", after_laundry)
    assert reading.intent == "knowledge" and not reading.follow_up and reading.facts == []


def test_a_cold_said_in_degrees_fahrenheit_is_searched_as_cold_weather() -> None:
    from knowledge.glossary import spelled_out

    assert spelled_out("do heat pumps work when its like 15 degrees out").endswith("(cold weather)")
    assert "cold weather" not in spelled_out("set the thermostat to 68 degrees")
    assert "cold weather" not in spelled_out("set it 5 degrees lower at night")


def test_a_car_on_its_way_is_not_theirs_yet() -> None:
    said = saved("were also gettin a chevy bolt next month. whats cheapest time to charge on duke")
    assert "equipment.ev_model" not in said
    assert saved("when should i charge the leaf tonight") == {"equipment.ev_model": "Nissan Leaf"}


def test_free_hours_said_with_a_price_otherwise_are_the_plan_and_not_when_the_car_plugs_in(runtime) -> None:
    from advisor.understanding.plan_described import described_plan

    plan = described_plan("its free from 9pm to 6am and like 16 cents otherwise")
    assert plan is not None and (plan.window_start, plan.window_end, plan.other_usd_per_kwh) == (21, 6, 0.16)
    reading = understand("its free from 9pm to 6am and like 16 cents otherwise", ReadingContext())
    assert reading.params.plug_in_hour is None and reading.params.ready_by_hour is None
    user = new_user(runtime)
    runtime.service.handle_turn(
        user, "s", "hey im in houston 77008, reliant free nights plan, tesla model y. when should i charge"
    )
    planned = runtime.service.handle_turn(user, "s", "its free from 9pm to 6am and like 16 cents otherwise")
    assert planned.asked_for is None and "(Free) for $0.00" in planned.text
    assert "as you said" not in planned.text  # no plug-in hour read from the plan's hours


def test_other_names_of_a_documents_thing_are_searched_as_it() -> None:
    from knowledge.glossary import spelled_out

    assert spelled_out("is r-30 enough").endswith("(insulation R-value)")
    assert spelled_out("are vampire loads a real thing or overblown").endswith("(standby power)")
    assert spelled_out("we are on r-1") == "we are on r-1"


def test_a_rare_term_the_passage_writes_keeps_the_passage() -> None:
    from advisor.nodes.retrieve import _writes_a_rare_term
    from knowledge.glossary import rare_terms_named
    from knowledge.models import RetrievedDocument

    assert rare_terms_named("do i qualify for liheap") == {"LIHEAP"}
    assert rare_terms_named("is tou worth it") == set()  # many documents write TOU
    bills = RetrievedDocument(
        source="lowering.md", title="Lowering a bill", text="Use less at peak.", score=1.0
    )
    help_paying = RetrievedDocument(
        source="help.md", title="Help paying", text="LIHEAP helps households pay energy bills.", score=0.9
    )
    assert _writes_a_rare_term("do i qualify for liheap", [bills, help_paying]) is help_paying
    assert _writes_a_rare_term("is tou worth it", [bills, help_paying]) is None


def test_a_request_said_as_its_noun_asks_about_the_town_it_names() -> None:
    reading = understand("weather for tomorrow in lincoln ne", ReadingContext())
    assert reading.facts == [] and reading.params.place == "Lincoln, NE"
    assert saved("weather in 94110 is nice today, we have a model y") == {
        "location.zip_code": "94110",
        "equipment.ev_model": "Tesla Model Y",
    }
