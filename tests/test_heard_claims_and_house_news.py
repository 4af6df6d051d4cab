"""A claim someone else made, heat the profile cannot hold, and news of the house that is no
correction (from the session of 2026-11-27, tried in the terminal as a homeowner in Maine and Ohio):
each rule is a kind of sentence, tested with phrasings other than the one that showed it."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.replies import NOTHING_KEPT, not_saved
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user, stored


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    """One advisor for the module, with its knowledge base; each test talks as a new user."""
    built = make_runtime(tmp_path_factory.mktemp("heard"), clock=lambda: NOW, knowledge=True)
    yield built
    built.close()


def _read(text: str, **context: Any):
    return understand(text, ReadingContext(**context))


@pytest.mark.parametrize(
    "text",
    [
        "my oil guy says heat pumps dont work up here",
        "i heard you should never run the dryer at night",
        "people keep saying heat pumps are expensive to run in the cold",
        "so my dad says leaving the heat on all day is cheaper",
        "i read that the federal ev credit ended",
    ],
)
def test_a_claim_someone_made_is_looked_up(text: str) -> None:
    reading = _read(text, last_intent="knowledge", last_topic="home")
    assert reading.intent == "knowledge" and reading.asks and not reading.facts
    assert reading.question and reading.question.startswith("is it true that ")


@pytest.mark.parametrize(
    "text",
    [
        "my installer says our system is 7.6 kw",  # news of their own home, not a claim to check
        "my wife says we're on e-tou-c",
        "i heard back from the installer",
        "my neighbor has two and swears by them",
    ],
)
def test_news_passed_on_is_no_claim_to_check(text: str) -> None:
    reading = _read(text)
    assert not (reading.question or "").startswith("is it true that ")


def test_a_claim_about_the_dryer_gets_the_fire_safety_passage_not_a_zip_question(runtime) -> None:
    reply = runtime.service.handle_turn(
        new_user(runtime), "s1", "i heard you should never run the dryer at night"
    )
    assert reply.asked_for is None
    assert "running-appliances-off-peak.md" in reply.text and "NFPA" in reply.text


@pytest.mark.parametrize(
    ("text", "fuel"),
    [
        ("we heat with oil", "oil"),
        ("oil heat, about 600 gallons a year", "oil"),
        ("we have a propane furnace", "propane"),
        ("our furnace runs on propane", "propane"),
    ],
)
def test_heat_the_profile_cannot_hold_is_said_back_not_saved(text: str, fuel: str) -> None:
    reading = _read(text)
    assert not reading.facts
    assert [(m.reason, m.words) for m in reading.mentions] == [("unkept", fuel)]
    assert not_saved(reading).startswith(f"Noted: you heat with {fuel}. I can keep heating only as")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we replaced our oil boiler with a heat pump", "heat_pump"),  # the new one is kept
        ("propane stove and gas furnace", "gas"),  # a propane stove cooks
    ],
)
def test_kept_heat_beside_an_unkept_fuel_is_still_saved(text: str, value: str) -> None:
    assert [(f.field, f.value) for f in _read(text).facts] == [("equipment.heating_type", value)]


def test_someone_elses_oil_heat_is_someone_elses() -> None:
    reading = _read("my parents heat with oil")
    assert {m.reason for m in reading.mentions} == {"someone_else"} and not reading.facts


def test_oil_heat_said_in_the_terminal_saves_nothing_and_says_why(runtime) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, "s1", "we heat with oil")
    assert reply.text.startswith("Noted: you heat with oil.")
    assert stored(runtime, user, "equipment.heating_type") is None


@pytest.mark.parametrize(
    "text", ["house was built in 1952, no insulation in the walls", "no basement, slab foundation"]
)
def test_no_before_a_noun_is_news_of_the_house_not_a_correction(text: str) -> None:
    reading = _read(text, known_fields={"location.zip_code": "94610"})
    assert reading.intent != "correction" and not reading.undo


@pytest.mark.parametrize("text", ["no its 94611", "no, wrong zip", "nope thats wrong"])
def test_no_that_disputes_is_still_a_correction(text: str) -> None:
    assert _read(text, known_fields={"location.zip_code": "94610"}).intent == "correction"


def test_news_of_the_house_gets_a_note_not_couldnt_tell_what_to_change(runtime) -> None:
    reply = runtime.service.handle_turn(
        new_user(runtime), "s1", "house was built in 1952, no insulation in the walls"
    )
    assert reply.text == NOTHING_KEPT


def test_a_claim_behind_a_doubt_of_our_answer_is_looked_up() -> None:
    reading = _read(
        "that doesnt sound right, my friend says space heaters save a ton",
        last_intent="knowledge",
        last_topic="home",
    )
    assert reading.intent == "knowledge" and reading.question == "is it true that space heaters save a ton?"


def test_their_prices_doubted_without_a_number_are_answered_again() -> None:
    from advisor.understanding.models import RequestParams

    reading = _read(
        "that doesnt sound right, ameren isnt that cheap is it",
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="prices"),
        known_fields={"location.utility_provider": "Ameren"},
    )
    assert reading.intent == "live_data" and reading.disputed and reading.params.task == "prices"


def test_a_plan_named_unsure_beside_sure_facts_is_said_not_skipped(runtime) -> None:
    reply = runtime.service.handle_turn(
        new_user(runtime),
        "s1",
        "atlanta 30306 georgia power, tesla model y lr. were on the TOU-REO plan i think?",
    )
    assert "No problem, I'll skip that" not in reply.text
    assert "I haven't saved anything about the rate plan: you didn't sound sure" in reply.text


def test_a_plan_put_right_keeps_the_deadline_and_level_of_the_request(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "30306", "location.utility_provider": "Georgia Power"})
    runtime.service.handle_turn(
        user, "s1", "cheapest hours to charge my model y tonight, need it by 7:30am, at 20% now"
    )
    reply = runtime.service.handle_turn(
        user, "s1", "wait no its the overnight plan, the one with super cheap midnight to 6"
    )
    assert "before 07:30" in reply.text and "from 20% to 80%" in reply.text
    assert "saves $0.0" not in reply.text  # one price all day: no cent "saved" by waiting
