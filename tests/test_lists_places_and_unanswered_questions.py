"""What the twenty-sixth run's conversations still missed, each as a kind of sentence with
phrasings other than the one that showed it: list items read in their list (a town beside the
utility that serves it, a household typed without its commas), a town's own utility, a part of a
state naming the state, numbers said as words, and an onboarding question the user passes over
with the same request again."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    ("text", "city", "utility"),
    [
        ("whens cheapest to charge tonight, lincoln, LES, model y", "Lincoln", "Lincoln Electric System"),
        ("whens cheapest to charge tonight, mobile, alabama power", "Mobile", "Alabama Power"),
    ],
)
def test_a_town_listed_beside_its_utility_in_a_question(text: str, city: str, utility: str) -> None:
    """Each list item is a clause of its own: the town and the utility are still read in the list."""
    facts = _facts(text)
    assert facts["location.city"] == city and facts["location.utility_provider"] == utility


def test_initials_that_are_a_word_need_capitals_and_their_place() -> None:
    assert "location.utility_provider" not in _facts("les miserables is on tonight, any good")
    assert "location.utility_provider" not in _facts("lincoln, les, model y")


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("huntsville, huntsville utilities", "Huntsville Utilities"),
        ("we have lakeland electric, gas heat", "Lakeland Electric"),
    ],
)
def test_a_towns_own_utility_is_kept_as_said(text: str, utility: str) -> None:
    assert _facts(text)["location.utility_provider"] == utility


@pytest.mark.parametrize("text", ["is solar power worth it", "we want cheap power at night"])
def test_power_and_energy_after_an_ordinary_word_are_no_utility(text: str) -> None:
    assert "location.utility_provider" not in _facts(text)


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("long island, pseg", "PSEG Long Island"),
        ("pseg, 11740", "PSEG Long Island"),
        ("we have pseg", "PSE&G"),
        ("pseg in newark", "PSE&G"),
    ],
)
def test_a_shared_short_name_is_the_one_serving_where_they_are(text: str, utility: str) -> None:
    assert _facts(text, pending_slot="utility")["location.utility_provider"] == utility


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("we're with cobb emc, me the wife and two boys, gas furnace", 4),
        ("kids are 3 of em, plus me", 4),
        ("i live in town in a condo, all electric heat, just me", 1),
    ],
)
def test_a_household_typed_loosely_is_counted(text: str, people: int) -> None:
    assert _facts(text)["household.occupants"] == people


def test_someone_elses_household_is_not_counted() -> None:
    assert "household.occupants" not in _facts("my sister has 3 kids, me and my wife have solar")


@pytest.mark.parametrize(
    ("text", "heat"),
    [
        ("im in ridgeland with gas heat, also entergy mississippi", "gas"),
        ("geothermal heat, 5 of us, madison, MGE", "heat_pump"),
        ("we have geothermal", "heat_pump"),
    ],
)
def test_their_heat_said_beside_where_they_are(text: str, heat: str) -> None:
    assert _facts(text)["equipment.heating_type"] == heat


@pytest.mark.parametrize(
    "text",
    ["how does geothermal work", "is a geothermal power plant clean", "geothermal or gas, which is cheaper"],
)
def test_geothermal_asked_about_is_not_theirs(text: str) -> None:
    assert "equipment.heating_type" not in _facts(text)


@pytest.mark.parametrize(
    ("text", "kw"),
    [
        ("twenty panels, 400 watts a piece", 8.0),
        ("we have thirty two panels at 400w", 12.8),
        ("24 panels 410 watts apiece", 9.84),
    ],
)
def test_panels_counted_in_words_times_their_watts(text: str, kw: float) -> None:
    assert _facts(text, pending_slot="solar_size")["equipment.solar_capacity_kw"] == pytest.approx(kw)


def test_a_zip_said_in_words_as_a_whole_message() -> None:
    assert _facts("twenty eight two oh five")["location.zip_code"] == "28205"
    assert "location.zip_code" not in _facts("one two three")


def test_the_chargers_own_setting_wins_over_its_breaker() -> None:
    facts = _facts(
        "no wait its on a 60 amp breaker but the charger is set to 40",
        last_topic="ev_charging",
        last_intent="live_data",
    )
    assert facts["equipment.ev_charger_kw"] == pytest.approx(9.6)
    # without amps said anywhere, "set to 40" is no current
    assert "equipment.ev_charger_kw" not in _facts(
        "the charger is set to 40 minutes", last_topic="ev_charging"
    )


def test_a_car_named_with_that_is_the_car_asked_about() -> None:
    reading = understand(
        "how long would that leaf take from empty on 120v",
        ReadingContext(known_fields={"location.city": "Phoenix"}, last_topic="ev_charging"),
    )
    assert reading.params.vehicle == "Nissan Leaf" and not reading.facts


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("unanswered"))
    yield built
    built.close()


def test_the_same_request_instead_of_our_answer_is_answered(runtime) -> None:
    """ZIP asked, the user asks the charge again another way: answered with what we have, and the
    reply asks only for what it lacks (never the utility they gave)."""
    user, session = "U-IGNORED", "s-ignored"
    runtime.service.handle_turn(user, session, "xcel energy, we're on re-tou")
    first = runtime.service.handle_turn(user, session, "need the ioniq 5 at 80% by 7:15 tmrw, its at 35 now")
    assert "ZIP" in first.text
    reply = runtime.service.handle_turn(user, session, "what if i can only plug in after 10")
    assert "kWh" in reply.text and "What's your ZIP code" not in reply.text
    assert "tell me your ZIP code and I'll time it" in reply.text
    assert "Which electric utility" not in reply.text


def test_a_new_question_instead_of_our_answer_is_still_asked(runtime) -> None:
    """Another kind of request than the one we asked for is not taken as passing our question."""
    user, session = "U-OTHER", "s-other"
    runtime.service.handle_turn(user, session, "need the bolt at 80% by 7 tmrw")
    reply = runtime.service.handle_turn(user, session, "whats the weather tomorrow")
    assert "ZIP" in reply.text


def test_weighing_a_switch_after_prices_is_a_comparison_not_the_prices_again() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data", last_topic="rates", last_params=RequestParams(task="prices", day="tomorrow")
    )
    reading = understand("is that worth switching to hourly pricing for", context)
    assert reading.params.task == "plan_comparison" and not reading.follow_up
    # the same prices asked again for another day stays a follow-up
    assert understand("and saturday?", context).params.task == "prices"


@pytest.mark.parametrize(
    ("text", "now"),
    [("need it at 90 by 6:15 tmrw, its sitting at 25", 25.0), ("need 80 by 7, its still only at 40", 40.0)],
)
def test_the_level_now_said_with_a_verb_between(text: str, now: float) -> None:
    params = understand(text, ReadingContext(last_topic="ev_charging")).params
    assert params.current_soc_pct == now and params.target_soc_pct in (80.0, 90.0)


@pytest.mark.parametrize(
    ("text", "people"),
    [("so we just moved to long island, pseg, 3 of us + my mom", 4), ("3 of us plus grandma", 4)],
)
def test_us_counted_and_one_more_listed(text: str, people: int) -> None:
    assert _facts(text)["household.occupants"] == people


def test_who_moved_out_and_the_count_now_in_two_clauses() -> None:
    facts = _facts("forget my mom lol she moved out, its 3 now", known_fields={"household.occupants": 4})
    assert facts == {"household.occupants": 3}
    # a count of something else is no household
    assert "household.occupants" not in _facts("my brother moved out last year, its 9 years old now the car")


def test_a_concept_named_after_an_answer_is_explained() -> None:
    from advisor.understanding.models import RequestParams

    after_laundry = ReadingContext(
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="appliance", appliance="laundry"),
    )
    assert understand("ok whats time of use then", after_laundry).intent == "knowledge"
    after_prices = ReadingContext(
        last_intent="live_data", last_topic="rates", last_params=RequestParams(task="prices")
    )
    # their peak hours are theirs to be priced, not a concept
    assert understand("whats peak then", after_prices).params.task == "prices"


@pytest.mark.parametrize(
    "text",
    ["hi i have a question about my bill", "quick question about solar", "hey can i ask you a question"],
)
def test_a_question_announced_is_invited_not_searched(runtime, text: str) -> None:
    reply = runtime.service.handle_turn("U-COMING", "s-" + "-".join(text.split()), text)
    assert reply.text.startswith("Sure, go ahead") and not reply.citations


def test_the_question_itself_after_the_announcement_is_answered() -> None:
    reading = understand("i have a question about my bill, why did it double")
    assert reading.intent == "knowledge" and not reading.question_coming


def test_a_charge_level_put_right_never_corrects_the_charger() -> None:
    """ "actually its at 60 now" after a plan from 45 % had been saved as a 60 A charger (14.4 kW)."""
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        known_fields={"equipment.ev_charger_kw": 11.52, "equipment.ev_model": "Tesla Model 3 Long Range"},
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan", current_soc_pct=45),
    )
    reading = understand("actually its at 60 now", context)
    assert reading.params.current_soc_pct == 60 and not reading.facts
    # the charger put right in so many words still is
    corrected = understand(
        "no wait its 40 amps", ReadingContext(known_fields={"equipment.ev_charger_kw": 11.52})
    )
    assert [(f.field, f.value) for f in corrected.facts] == [("equipment.ev_charger_kw", 9.6)]


@pytest.mark.parametrize(
    ("text", "city", "utility"),
    [
        ("minneapolis xcel customer. gas furnace, 2400 sq ft house built 1985", "Minneapolis", "Xcel Energy"),
        ("chicago comed hourly pricing", "Chicago", "ComEd"),
        ("akron ohio. need the car at 80 by 7", "Akron", None),
    ],
)
def test_a_message_that_opens_with_its_town(text: str, city: str, utility: str | None) -> None:
    facts = _facts(text)
    assert facts["location.city"] == city and facts.get("location.utility_provider") == utility


@pytest.mark.parametrize(
    "text", ["denver broncos game tonight, should i preheat", "washington state has cheap power right"]
)
def test_a_town_word_opening_something_else_is_no_place(text: str) -> None:
    assert "location.city" not in _facts(text)


def test_a_plan_they_are_on_named_is_no_comparison_asked() -> None:
    reading = understand("georgia power, savannah. on the nights & weekends plan")
    assert reading.intent == "profile_statement" and reading.params.task is None
    assert (
        understand("georgia power, savannah. which plan is cheapest for us").params.task == "plan_comparison"
    )


@pytest.mark.parametrize(("text", "kw"), [("16 amp granny charger", 1.92), ("32 amp charger", 7.68)])
def test_a_granny_cord_is_120_volts(text: str, kw: float) -> None:
    assert _facts(text)["equipment.ev_charger_kw"] == pytest.approx(kw)


def test_a_field_asked_back_that_we_lack_is_said_first(runtime) -> None:
    user, session = "U-RATE", "s-rate"
    runtime.service.handle_turn(user, session, "columbus ohio, aep")
    reply = runtime.service.handle_turn(user, session, "what rate am i on")
    assert reply.text.startswith("You haven't told me your rate plan yet") and "AEP" in reply.text
    held = runtime.service.handle_turn(user, session, "what utility do you have me down as")
    assert "haven't told me" not in held.text and "AEP" in held.text


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("is solar worth it in florida", False),
        ("is a powerwall worth it w/ dukes net metering", False),
        ("is it worth it", True),
        ("would that be worth it", True),
    ],
)
def test_worth_it_points_back_only_without_a_subject_of_its_own(text: str, back: bool) -> None:
    assert understand(text).points_back is back
