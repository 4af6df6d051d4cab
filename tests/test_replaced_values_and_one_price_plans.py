"""What the h49–h51 conversations still got wrong after training on them, each tested with
phrasings other than the one that showed it: a value that replaces one we hold, a forget or an
undo that names one thing, one more item of what they just listed, and "the standard plan"."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from profiles.models import ChangeSource
from tests.advisor_helpers import make_runtime

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # a Wednesday


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("replaced"), clock=lambda: NOW)
    yield built
    built.close()


_users = iter(range(1, 1000))


def new_user(runtime: Any, **profile: Any) -> str:
    user = f"U-REPL-{next(_users)}"
    if profile:
        runtime.service.profiles.apply_changes(
            user, list(profile.items()), source=ChangeSource(kind="manual")
        )
    return user


def held(runtime: Any, user: str) -> dict[str, Any]:
    profile = runtime.service.profiles.get(user)
    if profile is None:
        return {}
    return {
        f"{section}.{name}": value
        for section in ("location", "equipment", "household")
        for name, value in (
            getattr(profile, section).model_dump() if getattr(profile, section) else {}
        ).items()
        if value is not None
    }


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


# --- a word they typed is quoted, not stated --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("and we're srp, not aps. no clue why i typed aps", "SRP"),
        ("its duke not dominion, idk why i wrote dominion", "Duke Energy"),
    ],
)
def test_the_utility_they_typed_by_mistake_is_not_saved_again(text: str, utility: str) -> None:
    assert _facts(text).get("location.utility_provider") == utility


def test_no_idea_how_is_not_a_doubt_about_the_value() -> None:
    assert (
        _facts("no idea how to read my bill, we are on duke").get("location.utility_provider")
        == "Duke Energy"
    )


def test_a_size_corrected_in_place_is_not_corrected_twice() -> None:
    """ "i said 7 kw earlier but its actually 7.2" had been scaled once more, to 7.41 kW."""
    facts = _facts(
        "wait i said 7 kw earlier but its actually 7.2", known_fields={"equipment.solar_capacity_kw": 7}
    )
    assert facts.get("equipment.solar_capacity_kw") == 7.2


# --- work hours are the ones they said -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "schedule"),
    [
        ("and i'm back in the office, 8-5", "Office 8-5"),
        ("lol fine. im not working from home anymore, back in the office 8 to 5", "Office 8-5"),
        ("i work at the office 7:30 to 4:30", "Office 7:30-4:30"),
        ("i work 9-5 in an office", "Office 9-5"),
    ],
)
def test_back_in_the_office_with_the_hours_said(text: str, schedule: str) -> None:
    assert _facts(text).get("household.work_schedule") == schedule


def test_office_hours_are_said_back_as_hours(runtime) -> None:
    user = new_user(runtime, **{"household.work_schedule": "WFH"})
    reply = runtime.service.handle_turn(user, "s1", "and i'm back in the office, 8-5")
    assert held(runtime, user)["household.work_schedule"] == "Office 8-5"
    assert "office, 8 to 5" in reply.text


# --- the car said beside its charger ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "comed, 60614, model 3 w a 48 amp wall connector. need 200 miles by 8am friday",
        "xcel, 80205, ioniq 5 w a 40 amp charger",
    ],
)
def test_a_listed_car_with_w_and_its_charger_is_theirs(text: str) -> None:
    facts = _facts(text)
    assert facts.get("equipment.ev_model") and facts.get("equipment.ev_charger_kw")


# --- one more item of what they just said they have -------------------------------------------


def _after(said: str) -> dict[str, Any]:
    return {"recent": [f"user: {said}", "advisor: Saved."], "last_intent": "profile_statement"}


@pytest.mark.parametrize("text", ["oh and a powerwall", "plus a powerwall too", "and a powerwall as well"])
def test_and_a_powerwall_after_their_own_panels_is_theirs(text: str) -> None:
    facts = _facts(text, **_after("we've got 8 kw of panels"))
    assert facts.get("equipment.has_battery_storage") is True


@pytest.mark.parametrize(
    "earlier", ["my dad has solar", "my sister in baltimore has a bolt", "do you know solar?"]
)
def test_and_a_powerwall_after_someone_elses_is_not_theirs(earlier: str) -> None:
    assert "equipment.has_battery_storage" not in _facts("and a powerwall", **_after(earlier))


def test_and_a_charger_after_their_car_is_theirs() -> None:
    assert (
        _facts("and a 48 amp charger", **_after("we drive a model y")).get("equipment.ev_charger_kw") == 11.52
    )


# --- forget and undo that name one thing ------------------------------------------------------


def test_forget_the_battery_on_my_profile_forgets_only_the_battery(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "85012",
            "equipment.solar_capacity_kw": 7,
            "equipment.has_battery_storage": True,
            "equipment.battery_capacity_kwh": 13.5,
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "ok and forget the battery on my profile, we returned it")
    kept = held(runtime, user)
    assert "equipment.battery_capacity_kwh" not in kept and not kept.get("equipment.has_battery_storage")
    assert kept["location.zip_code"] == "85012" and kept["equipment.solar_capacity_kw"] == 7
    assert "Forgotten" in reply.text


@pytest.mark.parametrize("text", ["delete my profile", "forget everything about me", "wipe all my data"])
def test_forgetting_the_whole_profile_still_names_nothing(text: str) -> None:
    assert understand(text).forget_everything


def test_someone_elses_place_names_no_place_of_theirs() -> None:
    reading = understand(
        "scratch that, the powerwall's at my dad's place, not ours",
        ReadingContext(known_fields={"location.zip_code": "97214", "equipment.solar_capacity_kw": 8}),
    )
    assert "location.zip_code" not in reading.forget + reading.undo_about


def test_an_undo_about_what_was_never_saved_changes_nothing(runtime) -> None:
    """The Powerwall was never saved; the last change was the panels. "scratch that, the
    powerwall's at my dad's" had forgotten their ZIP code (their "place")."""
    user = new_user(runtime, **{"location.zip_code": "97214"})
    runtime.service.handle_turn(user, "s1", "we've got 8 kw of panels")
    reply = runtime.service.handle_turn(
        user, "s1", "scratch that, the powerwall's at my dad's place, not ours"
    )
    kept = held(runtime, user)
    assert kept["location.zip_code"] == "97214" and kept["equipment.solar_capacity_kw"] == 8
    assert "nothing to take back" in reply.text


def test_an_undo_naming_what_was_just_saved_undoes_it(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "97214"})
    runtime.service.handle_turn(user, "s1", "we've got 8 kw of panels")
    runtime.service.handle_turn(user, "s1", "scratch that, the solar is my dad's")
    assert "equipment.solar_capacity_kw" not in held(runtime, user)


# --- "the standard plan": one price all day ---------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "the standard one, whatever it's called",
        "standard residential i guess, never changed it",
        "no idea what plan, just the normal one i reckon",
        "it just says residential standard",
        "we're not on time of use",
    ],
)
def test_the_standard_plan_after_a_state_average_answer_is_answered_with_one_price(
    runtime, said: str
) -> None:
    user = new_user(runtime)
    first = runtime.service.handle_turn(
        user, "s1", "Wilmington DE 19806, Delmarva Power, we drive an ID.4. when should i charge it tonight"
    )
    assert "I don't know your plan's hours" in first.text
    reply = runtime.service.handle_turn(user, "s1", said)
    assert reply.intent == "live_data"
    assert "is the same every hour" in reply.text and "one price all day" in reply.text
    assert "I don't know your plan's hours" not in reply.text
    kept = held(runtime, user)
    assert "location.rate_schedule" not in kept and kept["location.utility_provider"] == "Delmarva Power"
    # … and it holds for the rest of the conversation
    later = runtime.service.handle_turn(user, "s1", "when should i run the dryer tomorrow")
    assert "I don't know your plan's hours" not in later.text


def test_the_standard_plan_is_not_assumed_where_the_usual_plan_has_hours(runtime) -> None:
    """PG&E's usual plan is time-of-use: "the standard one" redoes the answer on it, never a flat price."""
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "94110, pg&e, model y. when should i charge tonight")
    reply = runtime.service.handle_turn(user, "s1", "the standard one i guess")
    assert "one price all day" not in reply.text


def test_one_price_all_day_ends_when_they_say_otherwise_about_their_plan(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(
        user, "s1", "Wilmington DE 19806, Delmarva Power, we drive an ID.4. when should i charge it tonight"
    )
    runtime.service.handle_turn(user, "s1", "the standard one i think")
    runtime.service.handle_turn(user, "s1", "actually we're on the time of use one, forgot the name")
    later = runtime.service.handle_turn(user, "s1", "when should i run the dryer tomorrow")
    # (the average price is again only a guess at the level, and their plan's cheap hours unknown)
    assert "I don't know your plan's hours" in later.text and "costs the same" not in later.text
