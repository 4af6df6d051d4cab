"""What the thirty-first first run (h70 Northeast homeowners, many retired, oil and steam heat; h71
Texas and the South Central states, ERCOT retail plans; h72 the Pacific Northwest, Alaska, Hawaii
and the Great Lakes) found, as behaviour: names as people type or say them (lowercase "ppl" after
"with", "cyber truck", "mock E", "eva source", DTE's dotted plan codes), which of two named cars is
meant, causative installs ("we just had … put in"), a size asked about with a decimal, whether we
hold something asked, a suggestion reported, a home battery's setting, someone else's panels on a
day, and a new request after a clarifying question."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.nodes.intake import make_intake
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from config.files import MemorizerConfig
from tests.advisor_helpers import make_runtime
from tests.test_advisor_rules import TornReader
from tests.test_homeowner_findings import NOW, new_user


def saved(text: str, **context: Any) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        (
            "want to compare plans, ppl customer, 17104, about 1100 kwh a month",
            "location.utility_provider",
            "PPL Electric Utilities",
        ),
        (
            "we're with ppl and have an electric water heater",
            "location.utility_provider",
            "PPL Electric Utilities",
        ),
        ("a 2015 bmw i3 rex", "equipment.ev_model", "BMW i3"),
        ("when should I charge my cyber truck tonight", "equipment.ev_model", "Tesla Cybertruck"),
        ("hey when do I charge the mock E tonight", "equipment.ev_model", "Ford Mustang Mach-E"),
        ("what are the peak hours for Eva source tomorrow", "location.utility_provider", "Eversource"),
        ("we get our power from clark pud", "location.utility_provider", "Clark Public Utilities"),
        ("we're on d1.11", "location.rate_schedule", "D1.11"),
        ("oh wait no, we switched to d1.8 in the spring", "location.rate_schedule", "D1.8"),
        ("hi, 37206 nashville electric", "location.utility_provider", "Nashville Electric Service"),
        (
            "we have 2, the prius prime and a model 3 but its the model 3 i want to charge",
            "equipment.ev_model",
            "Tesla Model 3",
        ),
        (
            "my wifes car is a bolt, i drive a model 3. when should i charge mine",
            "equipment.ev_model",
            "Tesla Model 3",
        ),
        (
            "we just had the oil boiler ripped out and 3 mitsubishi hyper heat heads put in",
            "equipment.heating_type",
            "heat_pump",
        ),
    ],
)
def test_their_own_said_their_way_is_saved(text: str, field: str, value: object) -> None:
    assert saved(text).get(field) == value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("there are 4 ppl in the house and we have gas heat", "location.utility_provider"),
        ("my laptop has an i3 processor lol", "equipment.ev_model"),
        ("did you save my powerwall or nah", "equipment.has_battery_storage"),
        (
            "rough estimate of what 7.5 kw of panels would make on a year here, we're in 73099",
            "equipment.solar_capacity_kw",
        ),
        (
            "so the mass save guy came out tuesday and said we could go whole house heat pumps but keep "
            "the oil burner for backup on the really cold nights is that worth it",
            "equipment.heating_type",
        ),
    ],
)
def test_what_is_asked_suggested_or_not_a_car_is_not_saved(text: str, field: str) -> None:
    assert field not in saved(text)


def test_installing_heat_pumps_in_place_of_the_boiler_forgets_nothing() -> None:
    reading = understand(
        "we just had the oil boiler ripped out and 3 mitsubishi hyper heat heads put in", ReadingContext()
    )
    assert reading.intent != "forget" and not reading.forget


def test_a_home_battery_setting_is_an_explanation_not_a_car_plan() -> None:
    reading = understand(
        "nor'easter coming friday should i set the powerwall to backup only", ReadingContext()
    )
    assert reading.intent == "knowledge"
    assert reading.params.task is None


def test_someone_elses_panels_on_a_day_are_forecast_for_their_size_and_town() -> None:
    reading = understand(
        "my mom has 6kw of panels on her house in racine, what'll they make today", ReadingContext()
    )
    assert reading.params.system_kw == 6.0
    assert reading.params.place == "Racine, WI"
    assert not reading.facts


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("thirty-first"), clock=lambda: NOW)
    yield built
    built.close()


def test_someone_elses_panels_are_forecast_without_touching_the_profile(runtime: Any) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user, "mom", "my mom has 6kw of panels on her house in racine, what'll they make today"
    )
    assert "A 6 kW system today" in reply.text
    assert "Racine" in reply.text
    assert runtime.service.profiles.get(user) is None or not runtime.service.profiles.get(user).equipment


def test_a_new_request_after_a_clarifying_question_is_answered_as_itself() -> None:
    """ "how much will the panels make tmrw" after "a charging plan or an explanation?" is a solar
    forecast, not the charging plan the question offered (it had asked which EV they drive)."""
    intake = make_intake(MemorizerConfig(turn_threshold=10), TornReader())
    asked = intake({"message": "EV charging?"}, {})
    pending = {key: asked[key] for key in ("pending_slot", "pending_question", "pending_request")}
    new = intake({"message": "how much will the panels make tmrw", **pending}, {})
    assert new["params"].task == "solar_forecast"
    assert new["message"] != "EV charging?"
    picked = intake({"message": "the first one", **pending}, {})
    assert picked["params"].task != "solar_forecast" and picked["message"] == "EV charging?"


def test_a_question_run_into_a_statement_after_a_comma_is_asked() -> None:
    reading = understand(
        "tampa 33602 on teco. my bill was $380 last month, whys it so high", ReadingContext()
    )
    assert reading.asks and reading.intent == "knowledge"


def test_maybe_before_miles_rounds_them_and_leaves_the_car_sure() -> None:
    assert (
        saved("atlanta 30309 georgia power. we drive a ioniq 5 maybe 1000 mi a month").get(
            "equipment.ev_model"
        )
        == "Hyundai Ioniq 5"
    )
    assert "equipment.solar_capacity_kw" not in saved("we have maybe 8 kw of solar")


def test_their_own_car_after_someone_elses_is_planned_for_and_changes_nothing_before(runtime: Any) -> None:
    user = new_user(runtime)
    first = runtime.service.handle_turn(
        user, "buddy", "my buddy has a rivian r1t, how long would it take him to charge on a 40a charger"
    )
    assert "Rivian R1T" in first.text
    said = runtime.service.handle_turn(user, "buddy", "i drive a bolt euv fwiw")
    assert "Rivian" not in said.text  # their car saved, the buddy's plan not redone
    mine = runtime.service.handle_turn(user, "buddy", "how long for mine from 10 to 80")
    assert "Chevrolet Bolt EUV" in mine.text and "Rivian" not in mine.text


def test_asking_what_was_undone_is_a_question_not_another_undo() -> None:
    reading = understand("hmm what did u just undo", ReadingContext())
    assert reading.intent == "profile_query" and not reading.undo


def test_the_number_in_a_cars_name_corrects_nothing() -> None:
    known = {"equipment.ev_model": "Tesla Model 3", "equipment.ev_battery_kwh": 75.0}
    assert saved("no wait its a model 3 not y", known_fields=known) == {"equipment.ev_model": "Tesla Model 3"}


def test_a_car_name_corrected_keeps_the_battery_size_they_gave_with_it(runtime: Any) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "car", "austin 78701, tesla model y w 75kwh battery")
    fixed = runtime.service.handle_turn(user, "car", "no wait its a model 3 not y")
    assert "dropped" not in fixed.text
    equipment = runtime.service.profiles.get(user).equipment
    assert (equipment.ev_model, equipment.ev_battery_kwh) == ("Tesla Model 3", 75.0)


@pytest.mark.parametrize(
    ("text", "known"),
    [
        ("take that back i typed it wrong", {}),
        ("oops wrong zip, ignore that last one", {"location.zip_code": "02108"}),
        (
            "scratch the powerwall thing, that was just a quote we never went thru with",
            {"equipment.has_battery_storage": True},
        ),
        ("scratch the rivian thing, we ended up not buying it", {"equipment.ev_model": "Rivian R1S"}),
    ],
)
def test_taking_back_what_was_just_said_is_an_undo(text: str, known: dict[str, Any]) -> None:
    assert understand(text, ReadingContext(known_fields=known)).undo


def test_lose_names_what_to_remove_and_dont_forget_keeps_it() -> None:
    lose = understand("lose the rate plan info its out of date", ReadingContext())
    assert lose.intent == "forget" and lose.forget == ["location.rate_schedule"]
    for text in (
        "dont forget my zip",
        "pls dont delete the car",
        "dont lose the plan",
        "should i take it back to the dealer",
    ):
        reading = understand(text, ReadingContext())
        assert reading.intent != "forget" and not reading.forget and not reading.undo


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("theres 4 of us plus my mother in law moved in last month", 5),
        ("4 of us plus 2 dogs", 4),
        ("4 of us plus grandma so 5 total", 5),
        ("4 of us and my sister visits sometimes", 4),
    ],
)
def test_one_more_who_moved_in_is_counted(text: str, count: int) -> None:
    assert saved(text).get("household.occupants") == count


def test_equipment_said_installed_inside_a_question_is_theirs() -> None:
    assert saved("why has our electric bill gone way up this winter since the heat pumps went in") == {
        "equipment.heating_type": "heat_pump"
    }
    assert "equipment.heating_type" not in saved("should we get a heat pump since the furnace is old")


def test_a_second_array_on_the_barn_adds_to_the_size() -> None:
    assert saved("8 kw on the house and another 4 on the barn") == {"equipment.solar_capacity_kw": 12.0}


def test_dont_save_anything_saves_nothing_and_asks_as_they_said() -> None:
    reading = understand("dont save my info, 94110 pge, when should i charge my leaf", ReadingContext())
    assert reading.facts == []
    # (held unsaved: the conversation's view of their home answers with them, tests/test_saving_declined.py)
    assert {fact.field: fact.value for fact in reading.held} == {
        "location.zip_code": "94110",
        "location.utility_provider": "PG&E",
        "equipment.ev_model": "Nissan Leaf",
    }
    assert (
        understand("lol ok. dont save anything abt me but whats peak today for ameren missouri").facts == []
    )


def test_gas_for_heat_and_splits_for_cooling_is_gas_heat() -> None:
    assert saved("gas furnace for heat, mini splits for cooling") == {
        "equipment.heating_type": "gas",
        "equipment.cooling_type": "mini_split",
    }
    assert saved("mini splits for heat and ac").get("equipment.heating_type") == "heat_pump"


def test_a_visiting_daughters_car_is_planned_for_and_not_saved() -> None:
    reading = understand(
        "daughter's comin home from college w her leaf, she needs it charged back up by noon sunday",
        ReadingContext(),
    )
    assert reading.facts == [] and reading.params.vehicle == "Nissan Leaf"
    assert saved("need my leaf charged by 7") == {"equipment.ev_model": "Nissan Leaf"}


def test_a_parent_down_in_another_town_is_not_where_they_live() -> None:
    assert (
        saved("mama's down in dothan on alabama power, when oughta she run her dryer so its cheapest") == {}
    )
    assert saved("we live down in dothan on alabama power") == {
        "location.city": "Dothan",
        "location.utility_provider": "Alabama Power",
    }
