"""What a homeowner says they lack, a question after "meant to ask", and the kind of heat asked
about beside the kind they have (from the h36/h37 conversation misses, session of 2026-11-27):
each rule is a kind of sentence, tested with phrasings other than the one that showed it."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.replies import not_saved
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    """One advisor for the module; each test talks as a new user."""
    built = make_runtime(tmp_path_factory.mktemp("lacks"), clock=lambda: NOW)
    yield built
    built.close()


def _read(text: str, **context: Any):
    return understand(text, ReadingContext(**context))


@pytest.mark.parametrize(
    "text", ["and no ev", "we dont have an ev btw", "no solar either", "we don't have solar"]
)
def test_equipment_they_lack_is_a_statement_not_a_forget(text: str) -> None:
    reading = _read(text, known_fields={"location.zip_code": "63109"})
    assert reading.intent == "profile_statement" and not reading.forget and not reading.facts
    assert {m.reason for m in reading.mentions} == {"lacks"}
    assert not_saved(reading).startswith("Noted: no ")


def test_equipment_held_and_said_gone_is_still_removed() -> None:
    reading = _read("no ev anymore", known_fields={"equipment.ev_model": "Nissan Leaf"})
    assert reading.intent == "forget" and "equipment.ev_model" in reading.forget


def test_a_question_beside_what_they_lack_is_answered() -> None:
    reading = _read("we don't have solar, is it worth getting", known_fields={"location.zip_code": "63109"})
    assert reading.asks and reading.intent == "knowledge"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("sorry my toddler grabbed the phone 😅 meant to ask about inversion days and solar", "knowledge"),
        ("oops, i meant to ask about how net metering works", "knowledge"),
        ("my bad, meant to ask when peak is tomorrow", "live_data"),
    ],
)
def test_after_meant_to_ask_comes_the_question(text: str, intent: str) -> None:
    reading = _read(text)
    # ("tell me about inversion days and solar" may be answered with their panels' forecast too)
    assert reading.asks and not reading.undo
    assert reading.intent == intent or (reading.topic == "solar" and reading.params.task == "solar_forecast")


def test_meant_to_say_is_still_a_correction() -> None:
    reading = _read("sorry i meant to say 94107", known_fields={"location.zip_code": "94110"})
    assert reading.intent == "correction"
    assert [(f.field, f.value) for f in reading.facts] == [("location.zip_code", "94107")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we have gas heat, wanted to ask about heat pumps", "gas"),
        ("gas heat here, curious about heat pumps", "gas"),
        ("thinking about a heat pump, we have gas heat", "gas"),
        ("we have a heat pump and a gas furnace backup", "heat_pump"),
    ],
)
def test_the_heat_they_have_not_the_heat_asked_about(text: str, value: str) -> None:
    facts = {f.field: f.value for f in _read(text).facts}
    assert facts.get("equipment.heating_type") == value


@pytest.mark.parametrize(
    "text",
    [
        "thats not right, smud peak is 5-8 not 4-9",
        "that's wrong, peak here is 5 to 8pm",
        "no thats not right, duke charges like 11 cents not 14",
    ],
)
def test_our_prices_disputed_are_answered_again_with_their_source(text: str) -> None:
    reading = _read(
        text,
        last_intent="live_data",
        last_topic="ev_charging",
        known_fields={"location.utility_provider": "SMUD", "location.zip_code": "95818"},
    )
    assert reading.intent == "live_data" and reading.params.task == "prices" and not reading.facts


def test_a_price_of_their_own_after_an_answer_is_still_saved() -> None:
    reading = _read("thats not right, we pay 11 cents a kwh", last_intent="live_data", last_topic="rates")
    assert [(f.field, f.value) for f in reading.facts] == [("location.flat_rate_usd_per_kwh", 0.11)]


@pytest.mark.parametrize(
    "text",
    [
        "unrelated but do you know a good electrician",
        "can you recommend a solar installer near me",
        "know any good hvac guys in tulsa",
    ],
)
def test_a_business_to_hire_is_off_topic(text: str) -> None:
    assert _read(text).intent == "off_topic"


def test_how_to_choose_a_contractor_is_still_a_question() -> None:
    assert _read("what should i ask an electrician before a panel upgrade").intent == "knowledge"


@pytest.mark.parametrize(
    ("typed", "read"), [("installer", "installer"), ("hosue", "house"), ("tomorow", "tomorrow")]
)
def test_real_words_are_never_corrected_into_domain_words(typed: str, read: str) -> None:
    from advisor.understanding.values import read_values

    assert read_values(f"the {typed} thing", ReadingContext()).message == f"the {read} thing"


def test_the_heat_they_got_rid_of_is_not_theirs() -> None:
    facts = {f.field: f.value for f in _read("got rid of the gas furnace, heat pump went in tuesday").facts}
    assert facts.get("equipment.heating_type") == "heat_pump"


def test_a_grown_child_elsewhere_is_not_the_household() -> None:
    text = "my daughter has a leaf and solar panels in atlanta. is it worth it for her to add a battery"
    assert not _read(text).facts
    assert not _read("my son has a model 3 in denver").facts


def test_a_child_at_home_still_counts() -> None:
    facts = {
        f.field: f.value for f in _read("my daughter drives the leaf to school so we charge at night").facts
    }
    assert facts.get("equipment.ev_model") == "Nissan Leaf"


@pytest.mark.parametrize(
    "text", ["water heater's electric, 80 gallon. should i put it on a timer", "the stove is electric"]
)
def test_equipment_that_runs_on_electricity_is_no_utility(text: str) -> None:
    assert "location.utility_provider" not in {f.field for f in _read(text).facts}


def test_a_utility_shaped_name_is_still_read() -> None:
    facts = {f.field: f.value for f in _read("we're with singing river electric").facts}
    assert facts.get("location.utility_provider") == "Singing River Electric"


@pytest.mark.parametrize(
    ("text", "kw"), [("about 5 and a half kw", 5.5), ("we have 6 and a half kw of solar", 6.5)]
)
def test_and_a_half_is_a_half(text: str, kw: float) -> None:
    facts = {f.field: f.value for f in _read(text, pending_slot="solar_size").facts}
    assert facts.get("equipment.solar_capacity_kw") == kw


def test_undo_said_with_not_ours_undoes() -> None:
    reading = _read(
        "ugh sorry that's my sister's car not ours, undo that",
        last_intent="live_data",
        known_fields={"equipment.ev_model": "Rivian R1T"},
    )
    assert reading.undo and not reading.forget


def test_skip_with_a_general_idea_asks_nothing_more(runtime) -> None:
    user = new_user(runtime)
    asked = runtime.service.handle_turn(user, "s1", "when should i charge tonight")
    assert asked.asked_for == "location"
    reply = runtime.service.handle_turn(user, "s1", "skip that, just give me a general idea")
    assert reply.asked_for is None and "answer with what I have" in reply.text
    # the energy and the hours stand on a typical car; which hours are cheapest needs their prices
    assert reply.intent == "live_data" and "kWh" in reply.text and "tell me your ZIP code" in reply.text


@pytest.mark.parametrize(
    "text", ["ok switch me to ev2-a", "please put us on e-elec", "sign me up for tou-d-prime"]
)
def test_asking_us_to_switch_plans_is_a_deed_and_saves_no_plan(text: str) -> None:
    reading = _read(text, last_intent="live_data", known_fields={"location.rate_schedule": "E-TOU-C"})
    assert reading.intent == "off_topic" and reading.deed and not reading.facts


def test_a_switch_already_made_is_still_saved() -> None:
    reading = _read("ok we switched to ev2-a last week", known_fields={"location.utility_provider": "PG&E"})
    assert [(f.field, f.value) for f in reading.facts] == [("location.rate_schedule", "EV2-A")]


def test_our_prices_doubted_are_answered_again() -> None:
    reading = _read(
        "that doesnt look right, i thought sdge peak was 4-9",
        last_intent="live_data",
        known_fields={"location.utility_provider": "SDG&E"},
    )
    assert reading.intent == "live_data" and reading.params.task == "prices"


def test_the_memorizer_reads_a_deed_as_the_turn_does() -> None:
    from advisor.understanding.reader import stated_facts

    found = stated_facts([{"turn": 1, "text": "ok switch me to ev-tou-5 then lol"}])
    assert not [fact for fact in found if fact["field"] == "location.rate_schedule"]


def test_peak_hours_doubted_after_a_statement_never_undo_it() -> None:
    reading = _read(
        "thats not right, isnt peak 4-9?",
        last_intent="profile_statement",
        known_fields={"location.utility_provider": "SDG&E", "location.rate_schedule": "EV-TOU-5"},
    )
    assert not reading.undo and reading.intent == "live_data" and reading.params.task == "prices"


def test_a_request_explained_for_want_of_a_zip_is_redone_once_it_is_given(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "when should i charge my kia ev6 tonight, 30% now need 80 by 7am")
    general = runtime.service.handle_turn(user, "s1", "skip that, just give me a general idea")
    assert general.asked_for is None and "I'll time it and price it" in general.text
    plan = runtime.service.handle_turn(user, "s1", "sdge ev-tou-5, 92101")
    assert plan.intent == "live_data" and "Saved:" in plan.text
    assert "$" in plan.text and "I'll time it and price it" not in plan.text  # timed and priced now


def test_a_business_to_hire_gets_its_own_answer(runtime) -> None:
    from advisor.replies import HIRE

    reply = runtime.service.handle_turn(
        new_user(runtime), "s1", "do you know a good hvac company in minneapolis"
    )
    assert reply.text == HIRE


def test_a_price_corrected_in_cents_replaces_the_one_held() -> None:
    reading = _read(
        "sorry its 12 cents not 11, just looked at the bill",
        last_intent="live_data",
        known_fields={"location.flat_rate_usd_per_kwh": 0.11},
    )
    assert [(f.field, f.value) for f in reading.facts] == [("location.flat_rate_usd_per_kwh", 0.12)]


def test_what_runs_is_the_appliance_named_before_not_a_car() -> None:
    reading = _read(
        "eh ok. when should it run then, we're on srp in mesa",
        recent=["user: can u turn off my water heater at 4pm every day", "advisor: I can't act on that"],
    )
    assert reading.params.task == "appliance" and reading.params.appliance == "water heater"


def test_a_flat_price_prices_a_charge_without_a_zip(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "we're on a co-op, flat 11 cents a kwh")
    reply = runtime.service.handle_turn(
        user, "s1", "what would it cost me to take the bolt euv from 20 to 80"
    )
    assert reply.asked_for is None and "flat 11.0¢/kWh" in reply.text and "$" in reply.text


def test_no_ev_of_their_own_is_never_asked_which_ev(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "seattle, seattle city light")
    runtime.service.handle_turn(user, "s1", "we have an ioniq 5 now")
    runtime.service.handle_turn(user, "s1", "ugh sorry that's my sister's car not ours, undo that")
    reply = runtime.service.handle_turn(
        user, "s1", "we dont have an ev, just curious what charging at home costs here"
    )
    assert reply.intent != "forget" and reply.asked_for != "ev"


def test_a_disputed_price_is_answered_with_where_ours_comes_from(runtime) -> None:
    from advisor.replies import DISPUTED

    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "hi, we're in knoxville 37919 w/ KUB, gas heat, no ev")
    runtime.service.handle_turn(user, "s1", "when is electricity cheapest tomorrow")
    reply = runtime.service.handle_turn(user, "s1", "thats not right, i thought peak was 2-7")
    assert reply.text.startswith(DISPUTED) and "TN average price" in reply.text


def test_asking_us_to_call_their_utility_is_a_deed_even_naming_it() -> None:
    reading = _read("can u just call my utility and switch my plan", pending_slot="utility")
    assert reading.intent == "off_topic" and reading.deed


def test_a_clarifying_question_quotes_a_short_message_whole() -> None:
    from advisor.nodes.intake import _clarify

    understanding = _read("what does it cost")
    text = _clarify(
        understanding.model_copy(update={"alternative": "knowledge"}),
        "my last bill was like $180 in jan not sure how much was gas",
    )["response"]
    assert '"my last bill was like $180 in jan not sure how much was gas"' in text


def test_a_days_driving_after_a_plan_is_what_to_put_back() -> None:
    from advisor.understanding.models import RequestParams

    reading = _read(
        "we drive maybe 40 miles a day, car gets home around 6pm",
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan"),
        known_fields={"equipment.ev_model": "Tesla Model Y"},
    )
    assert reading.params.miles_needed == 40 and reading.params.plug_in_hour == 18


def test_a_utility_they_think_is_used_said_and_never_saved(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "hey im renting in columbus ohio, gas heat")
    runtime.service.handle_turn(user, "s1", "aep ohio i think")
    dryer = runtime.service.handle_turn(user, "s1", "when is the cheapest time to run my dryer")
    assert dryer.asked_for is None and "You weren't sure your utility is AEP" in dryer.text
    again = runtime.service.handle_turn(user, "s1", "what about tomorrow")
    assert "You weren't sure" not in again.text  # said once
    profile = runtime.service.profiles.get(user)
    assert profile is None or profile.location is None or profile.location.utility_provider is None


def test_a_zip_with_a_utility_is_no_appliances_watts() -> None:
    text = "hii we're in 30306 w georgia power, 2 adults 1 kid, gas furnace + central ac. is it cheaper to run the dishwaser at night"
    reading = _read(text)
    assert reading.params.appliance == "dishwasher" and reading.params.appliance_kw is None
    assert _read("1500 w space heater, cheapest hours").params.appliance_kw == 1.5


def test_forgetting_the_baseboard_forgets_the_heating() -> None:
    reading = _read(
        "forget the baseboard thing actually, its my moms house im thinking of",
        known_fields={"equipment.heating_type": "electric"},
    )
    assert reading.intent == "forget" and reading.forget == ["equipment.heating_type"]


def test_a_plan_with_no_time_said_lists_the_morning_it_assumed(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "austin 78704, austin energy, tesla model y")
    plan = runtime.service.handle_turn(user, "s1", "when should i charge it")
    assert "before 07:00" in plan.text and "ready by 07:00 (you didn't say when)" in plan.text
    timed = runtime.service.handle_turn(user, "s1", "i need it by 6am")
    assert "you didn't say when" not in timed.text
