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


# --- conversations from the seventeenth fresh set (after its first run) ---------------------------


def _turns(runtime, *messages: str, **profile: Any):
    user = new_user(runtime, **profile)
    replies = [runtime.service.handle_turn(user, f"s-{user}", message) for message in messages]
    return user, replies


def test_a_farewell_while_we_wait_for_a_place_is_a_farewell(runtime) -> None:
    _, replies = _turns(runtime, "whats the weather this week", "gotta go")
    assert "pin down where" not in replies[-1].text and replies[-1].intent == "goodbye"


def test_a_charger_corrected_in_amps_while_held_in_kw(runtime) -> None:
    user, replies = _turns(runtime, "we put in a 48 amp charger", "sorry its wired for 40 actually")
    assert stored(runtime, user, "equipment.ev_charger_kw") == 9.6 and "was 11.52 kW" in replies[-1].text


def test_a_kw_said_of_theirs_while_chargers_are_talked_about_is_the_charger(runtime) -> None:
    user, _ = _turns(
        runtime,
        "how long does a level 2 charger take to fill a 77 kwh battery",
        "ours is the 9.6 kw kind btw",
    )
    assert stored(runtime, user, "equipment.ev_charger_kw") == 9.6


def test_a_town_corrected_beside_a_value_we_already_hold(runtime) -> None:
    user, _ = _turns(
        runtime,
        "correction, it's elk grove not sacramento, still smud tho",
        **{"location.city": "Sacramento", "location.utility_provider": "SMUD"},
    )
    assert stored(runtime, user, "location.city") == "Elk Grove"


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("we live in tampa, FPL... wait no, tampa electric", "location.utility_provider", "TECO"),
        ("we have a model 3, i mean a model y", "equipment.ev_model", "Tesla Model Y"),
        ("nope thats not my utility, its dominion", "location.utility_provider", "Dominion Energy"),
        ("gas stove, gas dryer, and the furnace is gas too", "equipment.heating_type", "gas"),
        ("family of 5 in plano tx, all electric house w a heat pump", "equipment.heating_type", "heat_pump"),
        ("ty that helps. oh also its 3 kids + us two", "household.occupants", 5),
        (
            "flat rate, 10 cents/kwh from our co-op. does it matter when i charge",
            "location.flat_rate_usd_per_kwh",
            0.1,
        ),
        ("we got 9.2kw installed in march", "equipment.solar_capacity_kw", 9.2),
    ],
)
def test_values_said_the_way_the_seventeenth_set_said_them(text: str, field: str, value: Any) -> None:
    assert _facts(text)[field] == value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("charge the lightning to 85 by 5:30a pls, it's at 22", "equipment.ev_charger_kw"),
        ("we got 9.6kw installed in the garage for the tesla", "equipment.solar_capacity_kw"),
    ],
)
def test_look_alikes_that_are_not_those_values(text: str, field: str) -> None:
    assert field not in _facts(text)


def test_a_question_opened_with_roughly_is_still_a_question_about_that_place() -> None:
    reading = understand("roughly what would a 7 kw system make in a year in las vegas", ReadingContext())
    assert reading.params.place == "Las Vegas, NV" and reading.params.system_kw == 7.0


def test_a_level_said_roughly_now_changes_the_last_charge_and_keeps_its_day() -> None:
    from advisor.understanding.models import RequestParams

    last = RequestParams(task="charging_plan", miles_needed=200, ready_by_hour=7, ready_by_day="friday")
    reading = understand(
        "im at like 20% rn",
        ReadingContext(last_intent="live_data", last_topic="ev_charging", last_params=last),
    )
    assert reading.params.current_soc_pct == 20.0 and reading.params.ready_by_day == "friday"
    assert understand("at about 35% now", ReadingContext(last_params=last)).params.day is None


def test_a_held_value_said_to_be_not_theirs_at_all_is_forgotten_not_asked_for(runtime) -> None:
    user, replies = _turns(
        runtime,
        "undo the solar thing entirely, that number was from the quote, nothing's installed yet",
        **{"location.zip_code": "30318", "equipment.solar_capacity_kw": 7.6},
    )
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None and "7.6 kW" in replies[-1].text
    held = {"equipment.solar_capacity_kw": 7.6}
    assert (
        understand("the solar number is completely wrong", ReadingContext(known_fields=held)).intent
        == "correction"
    )


def test_what_the_panels_make_is_asked_even_after_a_question_about_rates() -> None:
    context = ReadingContext(
        known_fields={"equipment.solar_capacity_kw": 9.2}, last_intent="knowledge", last_topic="rates"
    )
    assert understand("how much are we gonna make today", context).params.task == "solar_forecast"
    assert understand("how much will we make in a year", context).params.task == "typical_solar"


@pytest.mark.parametrize(
    "text",
    [
        "grand rapids - my dad insists turning the heat down at night makes the furnace work harder. whos right",
        "iowa farmhouse, propane is killing us. geothermal vs air source",
        "anyone know a solar installer in tucson thats not pushy? tep customer",
        "smud peak is 5-8pm, is precooling the house at 3pm actually worth it or just wasting energy earlier",
    ],
)
def test_questions_without_the_usual_form_are_explained(text: str) -> None:
    assert understand(text, ReadingContext()).intent == "knowledge"


def test_two_things_weighed_inside_a_statement_are_no_question() -> None:
    assert understand("we went with geothermal vs air source", ReadingContext()).intent != "knowledge"


def test_an_unknown_appliance_at_an_assumed_price_does_not_say_when_it_runs_does_not_matter(runtime) -> None:
    _, replies = _turns(runtime, "smud 95818. when should i run the space heater")
    assert "doesn't matter when it runs" not in replies[-1].text
    assert "I don't know your plan's hours" in replies[-1].text


@pytest.mark.parametrize(
    ("text", "heating"),
    [
        ("its got a gas furnace from like 1998 and central air", "gas"),
        (
            "i rent a 1 bedroom in portland, electric wall heaters, no ac. how do i keep my bill down",
            "electric",
        ),
        ("we're on electric baseboard now, 1960s ranch", "electric"),
        ("the apartment has electric baseboard heat", "electric"),
        ("furnace is gas btw, like 20 yrs old", "gas"),
        ("just a regular house in Springfield IL with gas heat. can this still help me?", "gas"),
    ],
)
def test_the_homes_heat_said_of_the_dwelling_is_theirs(text: str, heating: str) -> None:
    assert _facts(text)["equipment.heating_type"] == heating


@pytest.mark.parametrize(
    "text", ["my brother's house has a gas furnace", "is a heat pump better than a gas furnace"]
)
def test_heat_said_of_another_home_or_asked_about_is_not(text: str) -> None:
    assert "equipment.heating_type" not in _facts(text)


def test_panels_sized_in_the_wrong_unit_are_read_as_kw_and_said_so(runtime) -> None:
    user, replies = _turns(runtime, "we have 8 kwh of panels on the roof")
    assert stored(runtime, user, "equipment.solar_capacity_kw") == 8.0 and "sized in kW" in replies[-1].text
    assert "equipment.solar_capacity_kw" not in _facts("we make 30 kwh of solar a day")


@pytest.mark.parametrize(
    ("text", "price"),
    [
        ("we're in 35242 on alabama power, 14 cents flat. what does charging the lightning cost me", 0.14),
        ("bill says 11.2 cents per kwh, same all day", 0.112),
        ("reliant, flat plan, like 14.5 cents", 0.145),
        ("those arent my prices. im on the flat rate, 10 cents", 0.1),
        ("we're on sac osage electric, bill says 12.5 cents", 0.125),
        ("my rate isnt 14.9 anymore, renewed at 12.4 cents", 0.124),
    ],
)
def test_a_bare_price_said_of_their_rate_or_bill_is_per_kwh(text: str, price: float) -> None:
    assert _facts(text)["location.flat_rate_usd_per_kwh"] == price


@pytest.mark.parametrize(
    "text",
    [
        "my brother pays 14 cents flat",
        "my bill was 200, and gas is 12 cents more",
        "im on the flat rate, 10 cents more than last year",
        "we pay about 28 cents",
    ],
)
def test_a_price_of_someone_else_a_difference_or_of_what_is_not_a_flat_rate(text: str) -> None:
    assert "location.flat_rate_usd_per_kwh" not in _facts(text)


@pytest.mark.parametrize(
    ("text", "schedule"),
    [
        ("Dominion Energy, Richmond 23226, heat pump, two adults, both hybrid.", "Hybrid"),
        ("i work second shift at the toyota plant and get home like 1am", "Second shift"),
        ("wait actually im on days now, they moved me last month", "Day shift"),
        ("i work from home mon and fri and go in the other days", "Hybrid"),
        ("no wait, hybrid actually, in the office tue and thu", "Hybrid"),
        (
            "Hello! I'm Ruth, I'm 74 and new to this. Can you remember that I'm retired and home all day?",
            "Retired",
        ),
    ],
)
def test_work_schedules_said_as_people_say_them(text: str, schedule: str) -> None:
    assert _facts(text)["household.work_schedule"] == schedule


@pytest.mark.parametrize("text", ["we have a plug-in hybrid", "its a hybrid, a prius", "rav4 hybrid"])
def test_a_hybrid_car_is_no_work_schedule(text: str) -> None:
    assert "household.work_schedule" not in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "we don't have panels, just curious",
        "my neighbor has two and swears by them",
        "we're getting quotes from a couple installers next week",
        "we dont have one, just a portable gen",
    ],
)
def test_an_aside_after_an_explanation_is_acknowledged_not_explained_again(text: str) -> None:
    context = ReadingContext(last_intent="knowledge", last_topic="solar", last_question="is solar worth it")
    assert understand(text, context).intent == "profile_statement"
    assert understand("what about for lfp batteries", context).intent == "knowledge"


def test_a_skipped_size_stays_skipped_while_we_ask_for_the_place(runtime) -> None:
    _, replies = _turns(runtime, "whats my solar gonna make this year", "dont know the size", "lubbock")
    assert replies[-1].asked_for is None and "typical year" in replies[-1].text and "7 kW" in replies[-1].text


@pytest.mark.parametrize("text", ["no sorry its lubbock", "its lubbock", "sorry, lubbock"])
def test_a_town_answer_with_words_around_it(text: str) -> None:
    assert _facts(text, pending_slot="location")["location.city"] == "Lubbock"


def test_a_town_said_while_we_wait_for_another_answer_is_their_place() -> None:
    assert _facts("lubbock", pending_slot="solar_size")["location.city"] == "Lubbock"
    assert "location.city" not in _facts("the bolt", pending_slot="ev")


@pytest.mark.parametrize(
    "text", ["Thank you. That's everything.", "That's all. Thank you.", "ok thats all", "thanks, thats it"]
)
def test_thats_all_ends_the_chat(text: str) -> None:
    assert understand(text, ReadingContext(last_intent="knowledge")).intent == "goodbye"


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("sorry, fat thumbs. when's peak today", "prices"),
        ("sorry cat walked on the keyboard. how windy is it gonna be today", "weather"),
    ],
)
def test_an_apology_before_a_question_leaves_the_question(text: str, task: str) -> None:
    assert understand(text, ReadingContext()).params.task == task
    assert _facts("sorry, its 94107")["location.zip_code"] == "94107"


def test_the_size_they_chose_and_had_installed_is_their_panels() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="typical_solar", system_kw=8),
    )
    assert (
        _facts("ok we went w the 10, got installed last month", **dict(context))[
            "equipment.solar_capacity_kw"
        ]
        == 10
    )
    assert "equipment.solar_capacity_kw" not in _facts("we went with the 10", **dict(context))


def test_equipment_coming_next_month_is_not_theirs_yet() -> None:
    assert "equipment.ev_charger_kw" not in _facts(
        "fyi we're swapping the wall connector for a 40A unit next month"
    )
    assert _facts("we put in a 48 amp charger")["equipment.ev_charger_kw"] == 11.52


@pytest.mark.parametrize("text", ["rerun it", "ok redo the plan w/ that", "run it again"])
def test_a_rerun_asks_the_last_request_again(text: str) -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan", ready_by_hour=7),
    )
    reading = understand(text, context)
    assert reading.intent == "live_data" and reading.follow_up and reading.params.ready_by_hour == 7


@pytest.mark.parametrize("text", ["ok read me back my profile", "and whats left?", "show me my info"])
def test_a_read_back_is_what_we_hold(text: str) -> None:
    assert understand(text, ReadingContext(last_intent="live_data")).intent == "profile_query"


# --- from a user-tester helper's three homeowners ---------------------------------------------------


def test_not_knowing_the_plan_after_a_charging_plan_plans_again_not_a_comparison() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan", target_soc_pct=80, ready_by_hour=7),
    )
    reading = understand("idk the plan", context)
    assert reading.params.task == "charging_plan" and reading.params.target_soc_pct == 80


def test_a_number_said_in_place_of_an_unsure_one_just_said_is_saved(runtime) -> None:
    user, replies = _turns(
        runtime,
        "columbus oh 43215, aep. whens the best time to run the dryer tmrw",
        "we pay like 14 cents i think",
        "no wait its 13.5, checked the bill",
    )
    assert stored(runtime, user, "location.flat_rate_usd_per_kwh") == 0.135


def test_a_dismissed_appliance_gives_way_to_the_next() -> None:
    text = "actually forget the dryer, is it cheaper to run the dishwasher at night?"
    assert understand(text, ReadingContext()).params.appliance == "dishwasher"


def test_no_source_names_californias_rebates_only_to_someone_who_may_live_there(runtime) -> None:
    from advisor.llm.offline import no_source_reply

    assert "California" not in no_source_reply(outside_california=True)
    assert "California's rebates" in no_source_reply(outside_california=False)
    _, replies = _turns(runtime, "columbus oh 43215, aep. how do i get my bill down")
    assert "California's rebates" not in replies[-1].text


def test_a_charge_at_one_price_says_when_to_start_at_the_latest(runtime) -> None:
    _, replies = _turns(runtime, "austin tx, austin energy, model y. need 80% by 7am")
    assert "start by" in replies[-1].text and "at the latest" in replies[-1].text


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("hi, were in omaha 68102, opdd. gas heat and a leaf", "OPPD"),
        ("we're in 30306, gerogia power", "Georgia Power"),
    ],
)
def test_a_utility_name_with_one_slip_in_their_state(text: str, utility: str) -> None:
    assert _facts(text)["location.utility_provider"] == utility


def test_a_word_one_slip_from_a_utility_outside_their_state_is_none() -> None:
    assert "location.utility_provider" not in _facts("atlanta 30306 and we have solar")


def test_the_appliance_asked_about_is_the_one_after_the_question_words() -> None:
    text = "hey im in knoxvile tn, kub. 2 adults 2 kids, heat pump. whens the cheapest time to run the dishwasher"
    reading = understand(text, ReadingContext())
    assert reading.params.appliance == "dishwasher"
    assert {f.field: f.value for f in reading.facts}["equipment.heating_type"] == "heat_pump"
