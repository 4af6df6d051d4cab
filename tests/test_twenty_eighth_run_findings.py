"""Misreadings the twenty-eighth first run showed (h61/h62/h63, code 069112d), each tested with
phrasings other than the one that showed it."""

from __future__ import annotations

import pytest

from advisor.understanding.reader import understand


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("no need to keep my zip, delete it", "location.zip_code"),
        ("dont want you tracking how many people live here, erase that", "household.occupants"),
        ("i don't need you saving my work schedule, remove it", "household.work_schedule"),
    ],
)
def test_a_field_named_as_one_not_to_keep_is_forgotten_not_the_last_change_undone(
    text: str, field: str
) -> None:
    reading = understand(text)
    assert reading.intent == "forget" and field in reading.forget and not reading.undo


def test_undo_that_alone_still_undoes() -> None:
    reading = understand("undo that")
    assert reading.intent == "correction" and reading.undo


@pytest.mark.parametrize(
    "text",
    [
        "cold front coming thursday, how cold is it gonna get",
        "its been brutal all week, what does the weekend look like",
        "whats it gonna do tomorrow, the wind chill was awful today",
    ],
)
def test_the_coming_days_weather_asked_in_plain_words_is_the_forecast(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "live_data" and reading.params.task == "weather"


@pytest.mark.parametrize(
    "text",
    [
        "how cold does it get in minnesota in winter",
        "what is a polar vortex",
        "how hot should i set the water heater",
    ],
)
def test_climate_settings_and_terms_are_explained_not_forecast(text: str) -> None:
    assert understand(text).intent == "knowledge"


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("we have a model y and an ev9, the ev9 is the one that charges here", "Kia EV9"),
        ("two cars: a bolt and an ioniq 6. the ioniq is the one that charges at home", "Hyundai Ioniq 6"),
        ("we've got an id.4 and a leaf, the id.4 charges at home, the leaf at work", "Volkswagen ID.4"),
    ],
)
def test_of_two_cars_the_one_charged_at_home_is_saved(text: str, car: str) -> None:
    cars = [f.value for f in understand(text).facts if f.field == "equipment.ev_model"]
    assert cars == [car]


def test_a_field_they_say_we_do_not_need_is_forgotten() -> None:
    reading = understand("you dont need my work schedule, forget that")
    assert reading.intent == "forget" and reading.forget == ["household.work_schedule"]


@pytest.mark.parametrize("text", ["blizzard still coming?", "ice storm tonight?"])
def test_storm_words_ask_for_the_forecast(text: str) -> None:
    assert understand(text).params.task == "weather"


def test_rmp_is_rocky_mountain_power() -> None:
    facts = {f.field: f.value for f in understand("84770, rmp").facts}
    assert facts["location.utility_provider"] == "Rocky Mountain Power"


@pytest.mark.parametrize(
    "text",
    [
        "inspector says the water heater is past its life, replace now or run it till it dies",
        "furnace is 20 years old, should we replace it before winter",
    ],
)
def test_replacing_equipment_is_advice_not_a_run_timed(text: str) -> None:
    assert understand(text).intent == "knowledge"


def test_a_clause_after_and_goes_on_about_the_charger() -> None:
    facts = {f.field: f.value for f in understand("our charger is hardwired and set to 40 amps").facts}
    assert facts["equipment.ev_charger_kw"] == pytest.approx(9.6)


def test_a_town_inside_a_utilitys_name_is_not_where_they_live() -> None:
    facts = {f.field: f.value for f in understand("la plata electric, its a co-op").facts}
    assert "location.city" not in facts and facts["location.utility_provider"] == "La Plata Electric"
    beside = {f.field: f.value for f in understand("austin, austin energy").facts}
    assert beside["location.city"] == "Austin"


def test_a_utility_spelled_out_letter_by_letter_is_read() -> None:
    facts = {f.field: f.value for f in understand("M L G W, memphis 38118").facts}
    assert facts["location.utility_provider"] == "MLGW"
    assert {f.field: f.value for f in understand("we have p g and e").facts}[
        "location.utility_provider"
    ] == "PG&E"


# --- a homeowner-tester's fourteen conversations after the run ---------------------------------


def test_saying_the_heat_is_a_heat_pump_not_gas_updates_it() -> None:
    from advisor.understanding.models import ReadingContext

    reading = understand(
        "actually we dont have gas heat, its a heat pump. cold climate one",
        ReadingContext(known_fields={"equipment.heating_type": "gas"}),
    )
    assert {f.field: f.value for f in reading.facts} == {"equipment.heating_type": "heat_pump"}
    assert not reading.forget  # changed, not emptied
    assert "equipment.heating_type" not in {
        f.field for f in understand("the water heater, its a heat pump one").facts
    }


@pytest.mark.parametrize(
    "text",
    [
        "i got a letter from some third party supplier offering 9.9 cents, is that a good deal??",
        "esco guy at the door, legit?",
        "whats the price to compare on my bill",
    ],
)
def test_who_sells_the_power_is_home_energy(text: str) -> None:
    assert understand(text).intent == "knowledge"


def test_whether_to_precool_is_advice_not_an_appliance_run() -> None:
    assert understand("should i precool the house before peak").intent == "knowledge"


@pytest.mark.parametrize(
    "text",
    [
        "phoenix az 85016, aps, were on the saver choice plan (4-7pm peak)",
        "txu energy, free nights plan (9pm-6am free)",
    ],
)
def test_a_plan_described_by_its_hours_is_a_statement_not_a_deadline(text: str) -> None:
    assert understand(text).intent == "profile_statement"


def test_a_need_beside_the_peak_hours_is_still_a_request() -> None:
    reading = understand("need 80% by 7am, peak is 4-9pm")
    assert reading.intent == "live_data" and reading.params.target_soc_pct == 80


def test_a_plan_the_catalog_lacks_is_said_back_beside_what_was_saved(data_dir) -> None:
    from datetime import datetime, timezone

    from tests.advisor_helpers import make_runtime

    service = make_runtime(data_dir, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)).service
    reply = service.handle_turn(
        "U-A", "t", "phoenix az 85016, aps, were on the saver choice plan (4-7pm peak)"
    )
    assert reply.text.startswith("Saved: your ZIP code is 85016 (Phoenix) and your utility is APS.")
    assert "saver choice plan" in reply.text and "catalog doesn't hold that plan" in reply.text
    assert "Which EV" not in reply.text


def test_a_place_said_after_a_question_is_theirs_whatever_the_question_weighs() -> None:
    facts = {
        f.field: f.value
        for f in understand("whats the supply vs delivery thing on my bill, were in philly w peco").facts
    }
    assert facts == {"location.city": "Philadelphia", "location.utility_provider": "PECO"}


@pytest.mark.parametrize(
    "text",
    [
        "some guy offered me 8.9 cents fixed for 12 months, good deal?",
        "a supplier offered me 9.9 cents a kwh fixed",
        "the door to door guy quoted 10.5 cents a kwh",
    ],
)
def test_a_price_someone_offers_is_not_what_they_pay(text: str) -> None:
    assert "location.flat_rate_usd_per_kwh" not in {f.field for f in understand(text).facts}
    assert {f.field: f.value for f in understand("we pay 14 cents a kwh").facts} == {
        "location.flat_rate_usd_per_kwh": 0.14
    }


def test_a_used_car_they_are_running_is_theirs() -> None:
    facts = {
        f.field: f.value
        for f in understand("hey there, running a used bolt and we're on midamerican out in 50036").facts
    }
    assert facts["equipment.ev_model"] == "Chevrolet Bolt EV"
    assert "equipment.ev_model" not in {
        f.field for f in understand("hey, running the dryer now, is that ok").facts
    }


def test_the_days_miles_are_the_charge_when_no_level_is_asked() -> None:
    reading = understand("i drive about 40 miles a day and need the car charged by 7am")
    assert reading.params.miles_needed == 40 and reading.params.ready_by_hour == 7
    assert (
        understand("need 80% by 7, i drive 40 miles a day").params.miles_needed is None
    )  # the level asked wins


def test_a_short_follow_up_is_searched_with_what_it_leans_on_and_never_repeats_a_passage(data_dir) -> None:
    from datetime import datetime, timezone

    from tests.advisor_helpers import make_runtime

    service = make_runtime(
        data_dir, knowledge=True, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    ).service
    service.handle_turn("U-L", "t", "are heat pumps loud")
    lasting = service.handle_turn("U-L", "t", "how long do they last")
    assert lasting.citations == ["heat-pump-care-and-lifespan.md"]  # not the solar panels' lifespan
    first = service.handle_turn("U-M", "t", "whats net metering")
    again = service.handle_turn("U-M", "t", "is it worth it")
    assert first.text.split("\n\n")[0] not in again.text  # never the same passage again


def test_a_term_asked_with_more_after_it_is_answered_from_the_section_defining_it(data_dir) -> None:
    from datetime import datetime, timezone

    from tests.advisor_helpers import make_runtime

    assert (
        understand("what's a heat pump water heater and would it save me money").defined
        == "heat pump water heater"
    )
    service = make_runtime(
        data_dir, knowledge=True, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    ).service
    reply = service.handle_turn("U-W", "t", "what's a heat pump water heater and would it save me money")
    assert reply.citations == ["heat-pump-water-heaters.md"]
    assert "is a storage tank with a small heat pump" in reply.text  # what it is, not tank scheduling
