"""What the twenty-third first run (h46/h47/h48, code e77098d) showed: wrong facts first (precision),
then requests and turns a homeowner notices, each tested with phrasings other than the one that
showed it."""

from __future__ import annotations

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand


def _facts(text: str, context: ReadingContext | None = None) -> dict:
    return {f.field: f.value for f in understand(text, context).facts}


@pytest.mark.parametrize("text", ["no its not 37919 its 37920", "its 37920 not 37919"])
def test_the_zip_said_after_not_is_the_wrong_one(text: str) -> None:
    assert _facts(text).get("location.zip_code") == "37920"


def test_how_often_someone_handled_the_bills_is_no_priority() -> None:
    text = "My husband passed in October and he always handled the bills. We have solar panels on the roof"
    assert "preferences.budget_priority" not in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "please forget that I said we have a heat pump, I was thinking of my sister's house",
        "nvm what i said about the heat pump its not installed yet",
    ],
)
def test_what_they_take_back_is_not_saved(text: str) -> None:
    assert "equipment.heating_type" not in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "we have a gas furnace and mini splits for cooling, no central air",
        "no central air, we use mini splits",
    ],
)
def test_no_central_air_beside_mini_splits_is_the_mini_splits(text: str) -> None:
    assert _facts(text).get("equipment.cooling_type") == "mini_split"


def test_no_ac_alone_is_still_none() -> None:
    assert _facts("no ac").get("equipment.cooling_type") == "none"


def test_a_count_after_plus_is_the_whole_household() -> None:
    text = "it's me and my husband plus the 2 grandbabies we're raising, so 4 of us"
    assert _facts(text).get("household.occupants") == 4


@pytest.mark.parametrize(
    "text", ["lightning has to be full by 5a for a job site run", "need it by 6a, the charger is slow"]
)
def test_a_morning_hour_written_with_a_is_no_amps(text: str) -> None:
    assert "equipment.ev_charger_kw" not in _facts(text)


def test_amps_written_with_a_are_still_amps() -> None:
    assert _facts("charger is 40a").get("equipment.ev_charger_kw") == pytest.approx(9.6)


@pytest.mark.parametrize(
    "text",
    ["my bro in tulsa has 12kw solar and pays basically nothing, how", "sister out in boise has a powerwall"],
)
def test_a_relation_with_their_town_between_is_someone_else(text: str) -> None:
    assert not _facts(text)


def test_a_search_in_a_town_is_not_where_they_live() -> None:
    assert "location.city" not in _facts("best green chile in abq")
    assert _facts("best time to run the dryer in austin").get("location.city") == "Austin"


def test_the_named_part_of_a_utility_answer_is_kept() -> None:
    facts = _facts("its a co-op, holy cross", ReadingContext(pending_slot="utility"))
    assert facts.get("location.utility_provider") == "holy cross"


def test_two_ways_to_charge_weighed_are_neither_theirs() -> None:
    assert not _facts("level 2 charger or just the regular outlet for a plug-in hybrid, whats the point")


def test_mini_splits_just_for_cooling_leave_the_gas_heat() -> None:
    facts = _facts("we got mini splits last fall just for cooling, still heat with gas")
    assert (
        facts.get("equipment.heating_type") == "gas" and facts.get("equipment.cooling_type") == "mini_split"
    )


@pytest.mark.parametrize(
    "text",
    [
        "I work from home Monday through Thursday and go into the office on Fridays.",
        "wfh except tuesdays in the office",
    ],
)
def test_home_most_days_and_the_office_on_one_is_hybrid(text: str) -> None:
    assert _facts(text).get("household.work_schedule") == "Hybrid"


@pytest.mark.parametrize("text", ["Dominion is who we have", "duke energy is what we use"])
def test_a_utility_said_as_who_we_have(text: str) -> None:
    assert _facts(text).get("location.utility_provider") in ("Dominion Energy", "Duke Energy")


def test_thanks_while_we_asked_which_ev_is_smalltalk_not_a_skip() -> None:
    reading = understand("ok I'll tell him. thank you", ReadingContext(pending_slot="ev"))
    assert reading.intent == "smalltalk" and reading.slot_answer is None


def test_skip_with_thanks_still_skips() -> None:
    reading = understand("skip, thanks", ReadingContext(pending_slot="ev"))
    assert reading.slot_answer is not None and reading.slot_answer.status == "skipped"


@pytest.mark.parametrize(
    "text",
    [
        "oh. well what is this time of use pricing I keep hearing about",
        "whats this peak pricing",
        "what is net metering that everyone talks about",
    ],
)
def test_a_term_heard_of_is_explained(text: str) -> None:
    assert understand(text).intent == "knowledge"


def test_these_prices_today_are_their_prices() -> None:
    assert understand("what are these prices today").intent == "live_data"


def test_a_question_while_we_wait_for_the_zip_is_no_town_to_look_up() -> None:
    assert understand("is that something KU has", ReadingContext(pending_slot="location")).place_query is None


def test_when_an_appliance_is_cheapest_to_run_is_its_timing() -> None:
    text = "hi there im a nurse on day shift we're with con ed no car no solar, i just want to know when the ac is cheapest to run"
    reading = understand(text)
    assert reading.intent == "live_data" and reading.params.task == "appliance"


def test_is_that_normal_put_last_asks() -> None:
    assert understand("we pay 45 cents a kwh on oahu is that normal").asks


def test_a_purchase_to_come_after_an_explanation_is_news_not_the_question_again() -> None:
    context = ReadingContext(
        last_intent="knowledge", last_topic="solar", last_question="are batteries worth it"
    )
    assert understand("ok we're getting one installed in april", context).intent == "profile_statement"


def test_what_is_true_after_it_is_taken_back_is_saved() -> None:
    facts = _facts("nvm what i said about the heat pump its actually a gas furnace")
    assert facts.get("equipment.heating_type") == "gas"


def test_taken_back_and_put_right_is_a_correction_not_a_forget() -> None:
    reading = understand("forget what i said about the car, its actually a model y")
    assert reading.intent != "forget" and _facts(
        "forget what i said about the car, its actually a model y"
    ) == {"equipment.ev_model": "Tesla Model Y"}


def test_ku_said_of_their_power_company_is_kentucky_utilities() -> None:
    assert _facts("KU is our power co").get("location.utility_provider") == "LG&E and KU"


def test_a_doubt_after_a_comma_is_the_plans_not_the_utilitys() -> None:
    facts = _facts("xcel customer in denver, think we're on re-tou but not 100%")
    assert facts.get("location.utility_provider") == "Xcel Energy" and facts.get("location.city") == "Denver"


def test_a_trim_said_on_its_own_against_the_car_they_have() -> None:
    context = ReadingContext(known_fields={"equipment.ev_model": "Chevrolet Bolt EV"})
    assert (
        _facts("its the euv not the regular one", context).get("equipment.ev_model") == "Chevrolet Bolt EUV"
    )


@pytest.mark.parametrize(
    "text", ["would a tou plan save me anything w my ioniq 5", "is a tou plan worth it for my model y"]
)
def test_their_car_named_with_my_in_a_what_if_is_theirs(text: str) -> None:
    assert "equipment.ev_model" in _facts(text)


def test_someone_elses_car_in_a_what_if_is_not() -> None:
    assert not _facts("would a tou plan be good for my neighbors tesla")


def test_no_car_and_a_charging_question_is_explained_not_planned() -> None:
    assert understand("no car, just an e-bike. is it worth charging it off peak").intent == "knowledge"


def test_a_size_said_roughly_to_our_question_is_used_not_saved() -> None:
    reading = understand("like 7.5ish", ReadingContext(pending_slot="solar_size"))
    assert reading.params.system_kw == 7.5 and not reading.facts
    assert reading.slot_answer is not None and reading.slot_answer.status == "skipped"


def test_a_load_named_before_its_power_is_an_appliance_not_a_solar_size() -> None:
    reading = understand("my mining rig runs 24/7 at like 1.2 kw, whats that costing me monthly")
    params = reading.params
    assert params.task == "appliance" and params.appliance == "mining rig"
    assert params.appliance_kw == 1.2 and params.run_hours == 24


def test_a_solar_size_asked_about_stays_a_solar_size() -> None:
    assert understand("what would a 1.2 kw system make").params.system_kw == 1.2


def test_it_to_run_is_the_appliance_named_a_few_lines_back() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="weather",
        last_params=RequestParams(task="weather", day="tomorrow"),
        recent=[
            "user: running the swamp cooler all aft, is that peak for nv energy",
            "assistant: …",
            "user: its gonna be 100 tmrw right",
            "assistant: …",
        ],
    )
    reading = understand("should i run it early tmrw then", context)
    assert reading.params.task == "appliance" and reading.params.appliance == "swamp cooler"


def test_a_bare_size_after_an_estimate_that_assumed_one_is_theirs() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="solar_forecast", day="tomorrow"),
    )
    assert _facts("husband says its 6.5", context).get("equipment.solar_capacity_kw") == 6.5
    assert "equipment.solar_capacity_kw" not in _facts("its 6pm", context)


@pytest.mark.parametrize(
    ("text", "now"),
    [("my model y is at 25, need 80 by 7am", 25), ("the bolt is at 40 and i need 90 by 6", 40)],
)
def test_the_car_is_at_a_number_beside_a_target_is_the_level_now(text: str, now: int) -> None:
    assert understand(text).params.current_soc_pct == now


def test_a_temperature_at_a_number_is_no_charge_level() -> None:
    assert understand("need 80 by 7am, temp is at 30 outside").params.current_soc_pct is None


def test_the_car_saved_said_to_be_anothers_is_removed() -> None:
    context = ReadingContext(known_fields={"equipment.ev_model": "Chevrolet Bolt EUV"})
    reading = understand("oops no that's my brother's car, ours is still on order", context)
    assert reading.intent == "forget" and "equipment.ev_model" in reading.forget


def test_a_car_as_a_bare_item_of_their_list_is_theirs() -> None:
    facts = _facts("hi im in louisville ky 40220, got a heat pump and an ev (model 3)")
    assert (
        facts.get("equipment.ev_model") == "Tesla Model 3"
        and facts.get("equipment.heating_type") == "heat_pump"
    )
    assert not _facts("my brother has solar and a model y")


def test_equipment_after_where_they_are_with_a_zip_is_theirs() -> None:
    assert _facts("im in columbus oh 43215 gas furnace, 2 story house").get("equipment.heating_type") == "gas"
    assert "equipment.heating_type" not in _facts("im in the market for a gas furnace")


def test_not_knowing_the_plan_when_no_usual_plan_exists_is_noted_not_answered_again() -> None:
    from advisor.understanding.models import RequestParams

    georgia = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan"),
        known_fields={"location.utility_provider": "Georgia Power"},
    )
    for text in ("idk", "were on the time of use plan i think, the one with expensive afternoons in summer"):
        assert understand(text, georgia).intent == "profile_statement", text
    pge = georgia.model_copy(update={"known_fields": {"location.utility_provider": "PG&E"}})
    assert understand("idk what plan im on", pge).intent == "live_data"  # redone on PG&E's usual plan


def test_a_plan_they_are_on_said_without_a_question_is_no_comparison() -> None:
    reading = understand("were on the saver choice plan 4-7pm is peak")
    assert reading.intent == "profile_statement" and not reading.asks
    assert [m.reason for m in reading.mentions if m.field == "location.rate_schedule"] == ["uncatalogued"]
    assert understand("were on e-tou-c, would ev2a be cheaper").params.task == "plan_comparison"


@pytest.mark.parametrize(
    ("text", "now"), [("its at 20 and i need it full by 7a", 20), ("charge to 100 by 7, its at 30", 30)]
)
def test_the_level_now_beside_a_full_charge(text: str, now: int) -> None:
    params = understand(text).params
    assert params.target_soc_pct == 100 and params.current_soc_pct == now


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("ok what about me, im in 45202 cincinnati duke, gas furnace, 4 of us", "Duke Energy"),
        ("im in 77002 houston reliant", "Reliant Energy"),
    ],
)
def test_a_short_utility_name_closing_where_they_are_is_theirs(text: str, utility: str) -> None:
    assert _facts(text).get("location.utility_provider") == utility


def test_a_short_utility_name_after_someone_elses_place_is_not_theirs() -> None:
    assert not _facts("my dad in 45202 cincinnati duke")
