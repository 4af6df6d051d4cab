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
