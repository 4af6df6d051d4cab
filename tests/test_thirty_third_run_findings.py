"""What the thirty-third first run (h76 the Southeast, hurricanes and TVA distributors; h77 the
Mountain West and Southwest; h78 the Mid-Atlantic and Ohio valley, rowhouses and family members'
homes) and its knowledge questions (q45) found, as behaviour: the size a household's use needs
asked as "how many panels to cover that", an appliance's cost not read as solar, two things
weighed put first, backup heat that is not the home's heating, the energy wanted in the car that
is not its battery, a statement of why they ask that is no request of its own, and the brand
names people use for the thing itself."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from knowledge.glossary import spelled_out


def saved(text: str, **context: Any) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    "text",
    [
        "i use about 900 kwh a month in charlotte. how many solar panels to cover that?",
        "how big a system would it take to zero out our bill",
        "how many panels are needed for a 1200 kwh month",
    ],
)
def test_the_size_their_use_needs_is_asked(text: str) -> None:
    reading = understand(text, ReadingContext())
    assert reading.params.size_needed and reading.params.task == "typical_solar"


def test_how_many_panels_they_have_is_no_size_needed() -> None:
    assert not understand("how many panels do you have", ReadingContext()).params.size_needed


def test_an_appliances_cost_is_no_solar_estimate() -> None:
    reading = understand(
        "renter in chicago. landlord pays heat (radiators) but its freezing so im running a space heater. "
        "how much is that costing me",
        ReadingContext(),
    )
    # (an appliance's cost, or the space heater explained: never the solar estimate it had been)
    assert reading.params.task not in ("typical_solar", "solar_forecast")
    assert reading.params.appliance == "space heater" or reading.intent == "knowledge"


def test_two_things_weighed_put_first_are_a_question() -> None:
    reading = understand(
        "ductless vs ducted heat pump, our ducts are old and in the crawlspace", ReadingContext()
    )
    assert reading.intent == "knowledge" and reading.asks and reading.facts == []


@pytest.mark.parametrize(
    ("text", "heating"),
    [
        ("we have electric baseboard as backup too", None),
        ("we have a heat pump with gas backup", "heat_pump"),
        ("our house has a gas furnace as the backup for the heat pump", "heat_pump"),
        ("we heat with electric baseboard", "electric"),
    ],
)
def test_backup_heat_is_not_the_homes_heating(text: str, heating: str | None) -> None:
    assert saved(text).get("equipment.heating_type") == heating


def test_the_energy_wanted_in_the_car_is_not_its_battery() -> None:
    assert "equipment.ev_battery_kwh" not in saved("need 40 kwh in the car by 7am")
    assert saved("my leaf has a 62 kwh battery")["equipment.ev_battery_kwh"] == 62.0


def test_why_they_ask_is_no_weather_request_of_its_own() -> None:
    from advisor.understanding.requests import split_requests

    text = "hurricane might hit fri. how long would a powerwall run my fridge and ac"
    assert split_requests(text, understand(text, ReadingContext()), ReadingContext(), understand) is None


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("how long would a powerwall run my fridge and ac", "home battery"),
        ("my kill-a-watt says the cable box pulls 25 watts", "plug-in electricity usage meter"),
        ("can the generac run the well pump", "generator"),
    ],
)
def test_brand_names_are_searched_with_the_thing_they_name(query: str, name: str) -> None:
    assert name in spelled_out(query)


def test_scratch_the_car_and_he_took_the_charger_remove_them() -> None:
    known = {"equipment.ev_model": "Chevrolet Equinox EV", "equipment.ev_charger_kw": 9.6}
    scratched = understand(
        "scratch the ev, it was my son's, he moved out and took it", ReadingContext(known_fields=known)
    )
    assert scratched.intent == "forget" and "equipment.ev_model" in scratched.forget
    took = understand(
        "he took the charger too lol", ReadingContext(known_fields={"equipment.ev_charger_kw": 9.6})
    )
    assert took.intent == "forget" and took.forget == ["equipment.ev_charger_kw"]
    assert understand("scratch that, its 80 not 70", ReadingContext()).intent != "forget"


def test_a_question_after_a_forget_is_no_more_of_it() -> None:
    context = ReadingContext(
        recent=[
            "user: forget my zip",
            "advisor: Forgotten: your ZIP code.",
            "user: also whats the solar forecast today",
        ],
        known_fields={"equipment.solar_capacity_kw": 10.0},
    )
    reading = understand("also whats the solar forecast today", context)
    assert reading.intent == "live_data" and reading.forget == []


def test_the_value_after_a_forget_of_that_field_is_saved() -> None:
    context = ReadingContext(
        recent=["user: forget the solar size, its wrong anyway", "advisor: Forgotten.", "user: its 6.5"]
    )
    assert saved("its 6.5", **context.model_dump()) == {"equipment.solar_capacity_kw": 6.5}
    assert saved("its 6.5") == {}  # (with nothing removed before, no field is awaited)


def test_a_town_in_several_states_is_placed_by_its_utilitys_state() -> None:
    from advisor.places import located
    from profiles.models import Location, UserProfile

    profile = UserProfile(user_id="U", location=Location(city="Aspen", utility_provider="Holy Cross Energy"))
    assert located(profile).location.timezone == "America/Denver"
    assert located(profile).location.lat is not None


def test_the_low_on_a_day_is_the_forecast() -> None:
    context = ReadingContext(last_intent="live_data", last_topic="ev_charging")
    assert understand("whats the low friday morning", context).params.task == "weather"
    assert understand("whats the low price tonight", ReadingContext()).params.task == "prices"


def test_an_inverters_rating_is_not_the_panels_size() -> None:
    assert saved("solaredge 7.6 kw inverter, whats it gonna produce today") == {}
    assert saved("10 kw of panels on a 7.6 kw inverter") == {"equipment.solar_capacity_kw": 10.0}
    assert saved("we have a 7.6 kw system with a solaredge inverter") == {"equipment.solar_capacity_kw": 7.6}


def test_were_duke_is_their_utility_and_duke_fans_are_not() -> None:
    assert (
        saved("we're duke, in greenville. thinking about 10kw")["location.utility_provider"] == "Duke Energy"
    )
    assert saved("we're duke fans lol") == {}


def test_a_size_they_said_they_are_considering_is_the_size_asked_about_next() -> None:
    context = ReadingContext(
        recent=[
            "user: we're duke, in greenville. thinking about 10kw",
            "advisor: Saved: you're in Greenville and your utility is Duke Energy.",
            "user: ok what would it make a year",
        ]
    )
    assert understand("ok what would it make a year", context).params.system_kw == 10.0
    owned = context.model_copy(update={"known_fields": {"equipment.solar_capacity_kw": 6.0}})
    assert understand("ok what would it make a year", owned).params.system_kw is None  # their own panels


def test_a_place_added_after_an_explanation_is_saved_and_the_answer_stands(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW, knowledge=True)
    try:
        user = new_user(runtime)
        first = runtime.service.handle_turn(
            user, "s1", "my husband says our heat pump is wasteful below freezing, is he right"
        )
        assert first.citations
        more = runtime.service.handle_turn(user, "s1", "we're in cheyenne fwiw, black hills energy")
        assert "Saved: you're in Cheyenne and your utility is Black Hills Energy" in more.text
        assert "nothing specific to your area on this, so my answer above stands" in more.text
        assert "That's everything my sources say" not in more.text
    finally:
        runtime.close()


def test_a_model_year_corrected_is_said_as_not_kept(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW)
    try:
        user = new_user(runtime)
        runtime.service.handle_turn(user, "s1", "i drive a 2022 tesla model y")
        reply = runtime.service.handle_turn(user, "s1", "wait, it's a 2021 not a 2022")
        assert "I keep your car's model (Tesla Model Y), not its year" in reply.text
        assert "couldn't tell what to change" not in reply.text
    finally:
        runtime.close()


def test_the_miles_of_a_month_or_a_year_are_the_monthly_cost_asked() -> None:
    month = understand("what does it cost a month to charge for 1000 miles", ReadingContext()).params
    assert month.monthly and month.ev_miles_per_month == 1000
    year = understand("what's my EV costing me if i drive 12k miles", ReadingContext()).params
    assert year.monthly and year.ev_miles_per_month == 1000
    assert understand("need it charged for 200 miles tmrw", ReadingContext()).params.miles_needed == 200
    from advisor.understanding.models import RequestParams

    after = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan", monthly=True, ev_miles_per_month=1000),
    )
    assert not understand("ok so when should i plug in tonite", after).params.monthly


def test_a_large_evs_monthly_cost_says_the_typical_cars_rate_understates_it(tmp_path) -> None:
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW)
    try:
        user = new_user(runtime)
        reply = runtime.service.handle_turn(
            user,
            "s1",
            "boston 02130, eversource, we have a rivian r1s. what does it cost a month to charge for 1000 miles",
        )
        assert "1,000 miles a month" in reply.text
        assert "A Rivian R1S is a large EV and likely uses well over 0.30 kWh a mile" in reply.text
        small = runtime.service.handle_turn(
            new_user(runtime), "s2", "02130 eversource, chevy bolt. cost a month for 1000 miles?"
        )
        assert "large EV" not in small.text
    finally:
        runtime.close()
