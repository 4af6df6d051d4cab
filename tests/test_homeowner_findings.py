"""What a homeowner trying the bot found (issue 21's tester, after the learned reader landed), each
through the real service or the real reader: a car the profile does not hold is never removed,
"forget that <fact>" forgets the fact and never undoes the last change, "undo that" only undoes
what this conversation changed, terse charge targets are read, a shorter name for the same car keeps
the stored one, a new town drops the old town's ZIP, and "I get home at 6" is when charging starts.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from advisor.onboarding import question_for
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import TurnContext, plan_charging
from advisor.understanding.models import ReadingContext, RequestParams
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand
from config.files import ToolsConfig
from config.settings import Settings
from profiles.models import ChangeSource, UserProfile
from tests.advisor_helpers import make_runtime

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # a Wednesday, 10:00 in California
LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("findings"), clock=lambda: NOW)
    yield built
    built.close()


_users = iter(range(1, 1000))


def new_user(runtime: Any, **profile: Any) -> str:
    user = f"U-FIND-{next(_users)}"
    if profile:
        runtime.service.profiles.apply_changes(
            user, list(profile.items()), source=ChangeSource(kind="manual")
        )
    return user


def stored(runtime: Any, user: str, field: str) -> Any:
    section, name = field.split(".")
    profile = runtime.service.profiles.get(user)
    part = getattr(profile, section) if profile else None
    return getattr(part, name) if part else None


# --- equipment that is gone -----------------------------------------------------------------


def test_selling_a_car_the_profile_does_not_hold_keeps_the_one_it_does(runtime) -> None:
    user = new_user(runtime, **{"equipment.ev_model": "Tesla Model 3"})
    reply = runtime.service.handle_turn(user, "s1", "we sold the leaf")
    assert stored(runtime, user, "equipment.ev_model") == "Tesla Model 3"
    assert "Tesla Model 3" in reply.text and "left it" in reply.text


def test_selling_the_car_the_profile_holds_removes_it(runtime) -> None:
    user = new_user(runtime, **{"equipment.ev_model": "Nissan Leaf Plus"})
    reply = runtime.service.handle_turn(user, "s1", "sold the leaf")
    assert stored(runtime, user, "equipment.ev_model") is None
    assert reply.intent != "goodbye" and "Forgotten" in reply.text


def test_a_sold_car_and_its_replacement_after_a_comma_saves_the_new_one(runtime) -> None:
    user = new_user(runtime, **{"equipment.ev_model": "Nissan Leaf"})
    runtime.service.handle_turn(user, "s1", "I sold the leaf last month, got a rivian r1s")
    assert stored(runtime, user, "equipment.ev_model") == "Rivian R1S"


def test_an_unsure_goodbye_is_not_a_goodbye() -> None:
    assert understand("sold the leaf").intent != "goodbye"
    assert understand("ok bye").intent == "goodbye"


# --- forget and undo ------------------------------------------------------------------------


def test_forget_that_followed_by_a_fact_forgets_the_fact_and_undoes_nothing(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "we have gas heat and a chevy bolt")
    runtime.service.handle_turn(user, "s1", "forget that i have gas heat")
    assert stored(runtime, user, "equipment.heating_type") is None
    assert stored(runtime, user, "equipment.ev_model") == "Chevrolet Bolt EV"
    assert understand("forget that").undo and understand("forget that, we have gas").undo


def test_undo_in_a_new_conversation_changes_nothing(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "old", "zip 94110, we drive a kia ev6")
    reply = runtime.service.handle_turn(user, "new", "undo that")
    assert stored(runtime, user, "location.zip_code") == "94110"
    assert stored(runtime, user, "equipment.ev_model") == "Kia EV6"
    assert "nothing to undo" in reply.text
    runtime.service.handle_turn(user, "new", "we have 3 people at home")
    runtime.service.handle_turn(user, "new", "undo that")
    assert stored(runtime, user, "household.occupants") is None  # this conversation's change
    assert stored(runtime, user, "location.zip_code") == "94110"


# --- charge targets and plug-in times --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("need ev6 at 100 by 7am", {"target_soc_pct": 100.0, "ready_by_hour": 7}),
        ("need 90 by 630am", {"target_soc_pct": 90.0, "ready_by_hour": 6, "ready_by_minute": 30}),
        (
            "at 80 by 7:30 its at 25",
            {"target_soc_pct": 80.0, "current_soc_pct": 25.0, "ready_by_hour": 7, "ready_by_minute": 30},
        ),
        (
            "need it at 80 by 7:30 its at 25",
            {"target_soc_pct": 80.0, "current_soc_pct": 25.0, "ready_by_hour": 7, "ready_by_minute": 30},
        ),
        ("need the bolt full by 8am", {"target_soc_pct": 100.0, "ready_by_hour": 8}),
        (
            "I get home at 6, need 80% by 7am",
            {"plug_in_hour": 18, "target_soc_pct": 80.0, "ready_by_hour": 7},
        ),
        ("plug in at 9pm instead", {"plug_in_hour": 21}),
        ("from 30 to 80%", {"current_soc_pct": 30.0, "target_soc_pct": 80.0}),
    ],
)
def test_terse_charging_requests_are_read_whole(text: str, expected: dict[str, Any]) -> None:
    assert read_params(text).said() == expected


# a PG&E EV2-A customer with a Model 3, for the plug-in time tests
_MODEL_3_ON_EV2A = UserProfile.model_validate(
    {
        "user_id": "u",
        "location": {"timezone": "America/Los_Angeles", "utility_provider": "PG&E", "rate_schedule": "EV2-A"},
        "equipment": {"ev_model": "Tesla Model 3"},
    }
)


def test_a_later_plug_in_moves_the_plan_and_its_baseline() -> None:
    profile = _MODEL_3_ON_EV2A
    morning = TurnContext(
        user_id="u", profile=profile, now=datetime(2026, 1, 21, 9, tzinfo=LA).astimezone(timezone.utc)
    )
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    later = plan_charging(data, morning, 30, 80, 7, False, plug_in_hour=21)
    now = plan_charging(data, morning, 30, 80, 7, False)
    starts = [datetime.fromisoformat(start) for start, _ in later.facts["windows"]]
    assert starts and min(starts) >= datetime(2026, 1, 21, 21, tzinfo=LA)
    assert "plugged in at 21:00 today" in later.summary
    assert later.facts["charge_now_cost_usd"] != now.facts["charge_now_cost_usd"]  # from 21:00, not 09:00
    refused = plan_charging(data, morning, 30, 80, 7, False, plug_in_hour=24)
    assert refused.ok is False and "plug_in_hour" in refused.summary


@pytest.mark.parametrize(
    ("said_at", "expected_start"),
    [
        (datetime(2026, 1, 21, 21, 45, tzinfo=LA), datetime(2026, 1, 21, 21, 45, tzinfo=LA)),  # home already
        (
            datetime(2026, 1, 22, 3, 0, tzinfo=LA),
            datetime(2026, 1, 22, 3, 0, tzinfo=LA),
        ),  # home since last night
        (datetime(2026, 1, 21, 14, 0, tzinfo=LA), datetime(2026, 1, 21, 18, 0, tzinfo=LA)),  # not home yet
    ],
)
def test_home_at_six_said_after_six_starts_now_not_tomorrow_evening(said_at, expected_start) -> None:
    """'car gets home around 6pm, full by 7am' typed at 9:45 pm: the car is in the driveway, so the
    plan runs tonight to 7 am, not from 18:00 tomorrow to the morning after."""
    profile = _MODEL_3_ON_EV2A
    turn = TurnContext(user_id="u", profile=profile, now=said_at.astimezone(timezone.utc))
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    plan = plan_charging(data, turn, 30, 100, 7, False, plug_in_hour=18)
    starts = [datetime.fromisoformat(start) for start, _ in plan.facts["windows"]]
    assert plan.ok and min(starts) >= expected_start
    assert max(starts) < expected_start + timedelta(hours=18)  # ready the next morning, not the one after
    said = plan.summary + " ".join(plan.assumptions)
    assert ("the car is home already" in said) == (expected_start == said_at)
    assert ("plugged in at 18:00 today" in said) == (expected_start != said_at)


def test_get_home_at_six_reaches_the_tool(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "EV2-A",
            "equipment.ev_model": "Chevrolet Bolt EV",
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "i get home at 6pm, need 80% by 7am")
    assert "plugged in at 18:00" in reply.text


# --- the same car named shorter, places ------------------------------------------------------


def test_a_shorter_name_for_the_stored_car_keeps_the_stored_one(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "EV2-A",
            "equipment.ev_model": "Nissan Leaf Plus",
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "need the leaf at 100 by 7am")
    assert stored(runtime, user, "equipment.ev_model") == "Nissan Leaf Plus"
    assert "Updated" not in reply.text and "Confirmed" not in reply.text


def test_a_new_town_without_a_zip_drops_the_old_towns_zip(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "93721", "location.city": "Fresno"})
    reply = runtime.service.handle_turn(user, "s1", "no wait were in clovis not fresno")
    assert stored(runtime, user, "location.city") == "Clovis, CA"
    assert stored(runtime, user, "location.zip_code") is None
    assert "93721" in reply.text


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("phoenix az aps customer", "Phoenix"),
        ("we moved from fresno to clovis", "Clovis, CA"),
        ("we were in fresno last year", None),
        ("i charge at work in mesa az", None),
    ],
)
def test_the_home_town_is_the_one_they_live_in_now(text: str, city: str | None) -> None:
    context = ReadingContext(known_fields={"location.zip_code": "93721"})
    facts = {fact.field: fact.value for fact in understand(text, context).facts}
    assert facts.get("location.city") == city


# --- from the second fresh set's first run (fresh_h3) ------------------------------------------


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("my rate plan is tou-d-prime with edison", "location.rate_schedule", "TOU-D-PRIME"),
        ("its tou-dr1 w sdge", "location.rate_schedule", "TOU-DR1"),
        ("its f-150 lightning", "location.rate_schedule", None),  # a truck, not a plan code
        ("its just me and my partner now, not 3", "household.occupants", 2),
        ("its just me and my dog", "household.occupants", 1),
        ("we have 4 people and a tesla", "household.occupants", 4),
        (
            "wait that's wrong, we're not retired, i still work nights",
            "household.work_schedule",
            "Night shift",
        ),
        ("i think our utility is national grid but not 100% sure", "location.utility_provider", None),
        ("pretty sure its a 40 amp charger but id have to go look", "equipment.ev_charger_kw", None),
        ("georgia power i think", "location.utility_provider", None),
        ("I think it's PG&E", "location.utility_provider", "PG&E"),
        (
            "portland oregon, pge (the oregon one), ioniq 6",
            "location.utility_provider",
            "Portland General Electric",
        ),
        ("we're PSE&G customers in montclair", "location.city", "Montclair, NJ"),
        ("edison, 92618", "location.city", None),  # Edison, CA is 150 km from that ZIP: the utility
        ("moved! new zip is 97214, still portland", "location.city", "Portland, OR"),
        ("we live in edison nj", "location.city", "Edison"),
        ("honestly being green matters more to me than saving money", "preferences.budget_priority", None),
        ("honestly being green matters more to me than saving money", "preferences.green_priority", "high"),
        ("comfort is the big one for me, i hate being cold", "preferences.comfort_priority", "high"),
        ("we sold the bolt last week, its just the mach-e now", "equipment.ev_model", "Ford Mustang Mach-E"),
    ],
)
def test_fresh_text_reads_its_values(text: str, field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get(field) == value


def test_a_goodbye_is_no_town_to_look_up() -> None:
    reading = understand("cool, bye", ReadingContext(pending_slot="location"))
    assert reading.place_query is None and reading.slot_answer.status != "answered"


def test_a_town_without_a_zip_suggests_its_usual_utility_and_agrees_with_a_doubtful_answer(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "when should i charge my car tonight")
    asked = runtime.service.handle_turn(user, "s1", "I'm in oakland")
    assert asked.asked_for == "utility" and "Around Oakland that's usually PG&E" in asked.text
    runtime.service.handle_turn(user, "s1", "pge i think")  # doubtful, but it is what Oakland has
    assert stored(runtime, user, "location.utility_provider") == "PG&E"


def test_a_quoted_size_is_the_size_asked_about() -> None:
    assert read_params("got a quote for 7.6 kw, what would that produce in a year").said() == {
        "system_kw": 7.6,
        "typical_year": True,
    }


# --- from talking to it ------------------------------------------------------------------------


def test_a_long_correction_we_cannot_read_undoes_nothing(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "we just moved to boise, have a 2023 ioniq 5 and idaho power")
    reply = runtime.service.handle_turn(user, "s1", "wait i said boise but we're actually in zzyzxville")
    assert stored(runtime, user, "equipment.ev_model") == "Hyundai Ioniq 5"
    assert stored(runtime, user, "location.utility_provider") == "Idaho Power"
    assert "Undone" not in reply.text


def test_a_town_in_two_states_is_the_one_in_the_state_we_know(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "we just moved to boise, have a 2023 ioniq 5 and idaho power")
    runtime.service.handle_turn(user, "s1", "wait i said boise but we're actually in meridian")
    assert stored(runtime, user, "location.city") == "Meridian, ID"
    assert stored(runtime, user, "equipment.ev_model") == "Hyundai Ioniq 5"


def test_facts_and_a_closing_question_get_saved_and_answered(runtime) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user, "s1", "we pay a ton in summer, family of 5, central ac, gas furnace. phoenix. what can i do?"
    )
    assert reply.intent == "knowledge" and stored(runtime, user, "household.occupants") == 5


def test_a_list_item_got_is_the_users_own() -> None:
    facts = {
        f.field: f.value
        for f in understand("xcel customer in denver 80218, got 8.2kw on the roof and a powerwall").facts
    }
    assert facts["equipment.has_battery_storage"] is True and facts["equipment.solar_capacity_kw"] == 8.2


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (
            "fyi the powerwall got pulled out, warranty replacement is months away",
            "equipment.has_battery_storage",
        ),
        ("we took the panels off when we reroofed and never put em back", "equipment.solar_capacity_kw"),
        ("the id4 went back at end of lease, we're car-free now", "equipment.ev_model"),
        ("we returned the id.4 last week", "equipment.ev_model"),
    ],
)
def test_equipment_that_went_away_is_removed_when_the_profile_holds_it(text: str, gone: str) -> None:
    context = ReadingContext(known_fields={"equipment.ev_model": "Volkswagen ID.4"})
    reading = understand(text, context)
    assert gone in reading.forget and not reading.facts


@pytest.mark.parametrize("text", ["i took the car to work", "my zip was removed?", "the bill went back up"])
def test_things_that_only_sound_gone_remove_nothing(text: str) -> None:
    assert understand(text).forget == []


def test_a_forget_reading_without_a_word_asking_to_remove_keeps_the_facts() -> None:
    context = ReadingContext(known_fields={"equipment.ev_model": "Nissan Leaf"})
    reading = understand("traded the leaf in for a kia ev9 last weekend 🎉", context)
    assert reading.forget == [] and {f.field: f.value for f in reading.facts} == {
        "equipment.ev_model": "Kia EV9"
    }


def test_a_question_about_someone_elses_equipment_is_not_a_correction() -> None:
    reading = understand("my sister got a powerwall through gmp, would that work for us too")
    assert reading.intent in ("knowledge", "live_data") and not reading.undo and not reading.fix


# --- from the hook's homeowners ------------------------------------------------------------------


def test_an_explanation_is_remembered_and_a_detail_after_it_asks_it_again(runtime) -> None:
    """The retrieve node used to overwrite the route, so the session never recorded an explanation
    as the last request: "why?" or a detail after it had nothing to be read against."""
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "what's a heat pump water heater and would it save me money")
    last = runtime.service.sessions.get(user, "s1").last_request
    assert last is not None and last.intent == "knowledge"
    reply = runtime.service.handle_turn(user, "s1", "we have a 50 gallon electric tank now")
    assert reply.intent == "knowledge" and "isn't something I keep" not in reply.text


def test_a_bare_level_in_a_follow_up_changes_the_plan() -> None:
    assert read_params("and if i only need 50?").said() == {"target_soc_pct": 50.0}
    assert read_params("i need 50 miles").said() == {"miles_needed": 50.0}


# --- from the dev conversations (h1-h3), generalized -------------------------------------------


def test_an_unsure_answer_to_the_plan_question_answers_with_the_usual_plan_and_saves_nothing(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "equipment.ev_model": "Chevrolet Bolt EV",
        },
    )
    asked = runtime.service.handle_turn(user, "s1", "when should i charge tonight")
    assert asked.asked_for == "rate_schedule"
    reply = runtime.service.handle_turn(user, "s1", "i think its e-tou-c but honestly not sure")
    assert "Needs" in reply.text and "Without your rate plan, this assumes" in reply.text
    assert "I'll skip that" not in reply.text  # one notice, not two saying the same
    assert stored(runtime, user, "location.rate_schedule") is None


def test_a_skipped_car_gets_a_plan_for_a_typical_ev_said_as_such(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "94110", "location.utility_provider": "PG&E"})
    runtime.service.handle_turn(user, "s1", "im on ev2a")
    asked = runtime.service.handle_turn(user, "s1", "need to charge tonight for a long drive tomorrow")
    assert asked.asked_for == "ev"
    rough = runtime.service.handle_turn(user, "s1", "skip that, just give me a rough idea")
    assert "Needs" in rough.text and "you didn't say which EV, so a typical one" in rough.text
    trip = runtime.service.handle_turn(user, "s1", "its about 200 miles round trip")
    assert "200 miles of range" in trip.text
    assert stored(runtime, user, "equipment.ev_model") is None


@pytest.mark.parametrize(
    ("text", "miles"),
    [
        ("its about 200 miles round trip", 200.0),
        ("a 150 mile drive tomorrow", 150.0),
        ("60 miles each way", 120.0),
        ("driving 90 miles tmrw", 90.0),
        ("i drive 30 miles a day", None),  # usage, not this charge
    ],
)
def test_a_trip_is_the_range_the_charge_must_add(text: str, miles: float | None) -> None:
    assert read_params(text).miles_needed == miles


@pytest.mark.parametrize("text", ["and tmrw morning?", "what about on weekends", "how about saturday at 7am"])
def test_a_follow_up_that_only_moves_the_time_keeps_the_last_answer_kind(text: str) -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="appliance", appliance="washer"),
    )
    reading = understand(text, context)
    assert reading.follow_up and reading.params.task == "appliance" and reading.params.appliance == "washer"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("theres four of us, and we're heavy users after dinner", "evening_heavy"),
        ("we mostly use power after 5 when everyones home", "evening_heavy"),
        ("heavy usage before work", "morning_heavy"),
        ("we use the most in the morning and in the evening", None),  # both: no one pattern
    ],
)
def test_when_a_household_uses_most_is_read_in_its_own_words(text: str, value: str | None) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get("household.typical_usage_pattern") == value


@pytest.mark.parametrize(
    ("text", "context", "field", "value"),
    [
        ("edison, 92618", ReadingContext(pending_slot="location"), "location.city", None),
        ("dayton, aes ohio", ReadingContext(), "location.city", "Dayton"),
        (
            "which plan should we be on w georgia power",
            ReadingContext(),
            "location.utility_provider",
            "Georgia Power",
        ),
        ("when are peak hours on pge", ReadingContext(), "location.utility_provider", "PG&E"),  # theirs
    ],
)
def test_places_and_utilities_in_their_own_words(
    text: str, context: ReadingContext, field: str, value: Any
) -> None:
    facts = {fact.field: fact.value for fact in understand(text, context).facts}
    assert facts.get(field) == value


def test_asking_which_plan_to_be_on_is_a_plan_comparison_not_a_profile_question() -> None:
    reading = understand("what plan should i be on")
    assert (reading.intent, reading.params.task) == ("live_data", "plan_comparison")
    assert understand("what plan am i on").intent == "profile_query"


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("upgraded from the 5kw array to 9.6 kw", "equipment.solar_capacity_kw", 9.6),
        ("dont use 94110 anymore, we moved to 94611 in oakland", "location.zip_code", "94611"),
        (
            "well it was a bolt but we traded it for a model 3 last month",
            "equipment.ev_model",
            "Tesla Model 3",
        ),
        ("moved from san diego to phoenix so no more sdge, its aps now", "location.utility_provider", "APS"),
        (
            "we have a bolt and a model 3",
            "equipment.ev_model",
            "Chevrolet Bolt EV",
        ),  # no change said: the first
        ("work is in 94105 but home's 94501", "location.zip_code", "94501"),
        ("sold our place in reno, renting in sparks now", "location.city", "Sparks"),
        ("heat pump dryers worth it", "equipment.heating_type", None),
        ("any rebates in massachusetts for heat pumps", "equipment.heating_type", None),
        ("2 people, 6kw solar, no battery. what's net metering?", "equipment.solar_capacity_kw", 6.0),
        ("level 1 charging only", "equipment.ev_charger_kw", 1.44),
        ("heads up we moved to st louis last month", "location.city", "St. Louis"),
    ],
)
def test_the_value_that_is_theirs_now(text: str, field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get(field) == value


def test_an_unsure_plan_after_an_answer_is_noted_not_kept_and_not_answered_again(runtime) -> None:
    """Dominion has no usual plan in the catalog: the answer again would be the same one, so the
    doubt is noted (the answer above stands) and nothing is kept."""
    user = new_user(runtime)
    first = runtime.service.handle_turn(
        user, "s1", "ok fine, dominion customer here in 23220, what are the peak hours today"
    )
    reply = runtime.service.handle_turn(user, "s1", "not sure which plan tbh")
    assert "Dominion Energy" in first.text and reply.text not in first.text
    assert "my answer above stands" in reply.text or "didn't sound sure" in reply.text
    assert stored(runtime, user, "location.rate_schedule") is None


def test_the_standard_plan_after_an_answer_is_answered_again_with_one_price_all_day(runtime) -> None:
    """ "regular residential i think" tells us what the answer could not know: no hour is cheaper.
    The answer is given again saying so (the price level is still the state's average), and no
    plan is saved."""
    user = new_user(runtime)
    runtime.service.handle_turn(
        user, "s1", "ok fine, dominion customer here in 23220, what are the peak hours today"
    )
    reply = runtime.service.handle_turn(user, "s1", "regular residential i think")
    assert reply.intent == "live_data"
    assert (
        "plan is the standard one, with one price all day" in reply.text and "VA's 2023 average" in reply.text
    )
    assert stored(runtime, user, "location.rate_schedule") is None


def test_facts_then_a_question_without_a_question_mark_get_both(runtime) -> None:
    user = new_user(runtime, **{"location.city": "Phoenix", "location.utility_provider": "APS"})
    reply = runtime.service.handle_turn(
        user, "s1", "we're both retired and home all day. what plan would save us the most"
    )
    assert reply.intent == "live_data" and stored(runtime, user, "household.work_schedule") == "Retired"


def test_a_statement_that_says_equipment_went_saves_the_rest_and_removes_it(runtime) -> None:
    user = new_user(runtime, **{"equipment.ev_model": "Nissan Leaf"})
    reply = runtime.service.handle_turn(user, "s1", "we rent, no ev, electric baseboard heat")
    assert stored(runtime, user, "equipment.heating_type") == "electric"
    assert stored(runtime, user, "equipment.ev_model") is None and "Removed: your EV" in reply.text
    undone = runtime.service.handle_turn(user, "s1", "wait undo that")
    assert "Undone" in undone.text and stored(runtime, user, "equipment.ev_model") == "Nissan Leaf"


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("we traded in the model 3 for an ev9", "equipment.ev_model", "Kia EV9"),
        ("got rid of the gas furnace, heat pump went in tuesday", "equipment.heating_type", "heat_pump"),
        (
            "sold the model s, we're a one car family now with the ioniq 6",
            "equipment.ev_model",
            "Hyundai Ioniq 6",
        ),
    ],
)
def test_what_replaced_the_equipment_that_went_is_saved(text: str, field: str, value: str) -> None:
    reading = understand(text)
    assert reading.intent == "profile_statement"
    assert {fact.field: fact.value for fact in reading.facts}.get(field) == value


def test_selling_a_gas_car_keeps_the_ev() -> None:
    reading = understand("sold my gas truck", ReadingContext(known_fields={"equipment.ev_model": "Kia EV6"}))
    assert "equipment.ev_model" not in reading.forget


def test_a_utility_without_a_place_is_enough_for_prices(runtime) -> None:
    user = new_user(runtime)
    asked = runtime.service.handle_turn(user, "s1", "whats the cheapest time to run my pool pump")
    assert asked.asked_for == "location"
    skipped = runtime.service.handle_turn(user, "s1", "rather not say where i live")
    assert skipped.asked_for == "utility" and "for prices your utility is enough" in skipped.text
    answer = runtime.service.handle_turn(user, "s1", "fpl")
    assert "pool pump" in answer.text and "FPL's state, FL" in answer.text
    assert stored(runtime, user, "location.zip_code") is None


# --- from the third fresh set's first run (fresh_h4, fresh_h5) -----------------------------------


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("nah its a model s", "equipment.ev_model", "Tesla Model S"),
        ("also its a leaf plus not a leaf", "equipment.ev_model", "Nissan Leaf Plus"),
        ("and a model 3 would be nice", "equipment.ev_model", None),
        ("and we're 5 now, new baby", "household.occupants", 5),
        ("our house is 5 people now", "household.occupants", 5),
        ("we got a second powerwall put in", "equipment.battery_capacity_kwh", 27.0),
        ("fyi we had a second powerwall put in last month", "equipment.battery_capacity_kwh", 27.0),
        ("thinking about a second powerwall", "equipment.battery_capacity_kwh", None),
        ("i think we're on tou-d-prime? not sure. when is peak today", "location.rate_schedule", None),
    ],
)
def test_third_fresh_set_values(text: str, field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get(field) == value


def test_gracias_is_thanks() -> None:
    assert understand("gracias").intent == "smalltalk"


def test_a_zip_in_a_live_question_is_kept_when_the_profile_has_no_place(runtime) -> None:
    """ "whats the weather tmrw in 33602" from someone we know nothing about: their own weather (every
    fresh corpus's authors expect it kept), saved and said so; the solar question after it needs
    no ZIP again. With a place saved, another ZIP is the place asked about, not theirs."""
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, "s1", "whats the weather tmrw in 33602")
    assert (
        reply.text.startswith("Saved: your ZIP code is 33602")
        and stored(runtime, user, "location.zip_code") == "33602"
    )
    solar = runtime.service.handle_turn(user, "s1", "will my panels do ok then, 7 kw system")
    assert "ZIP" not in solar.text and stored(runtime, user, "equipment.solar_capacity_kw") == 7.0
    other = new_user(runtime, **{"location.zip_code": "94110"})
    asked = runtime.service.handle_turn(other, "s1", "whats the weather tmrw in 33602")
    assert "This is for Tampa, FL" in asked.text and stored(runtime, other, "location.zip_code") == "94110"


def test_another_size_in_a_follow_up_is_the_size_answered(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "85016", "location.utility_provider": "APS"})
    first = runtime.service.handle_turn(user, "s1", "what would 8kw on my roof make in a year")
    assert "An 8 kW system" in first.text
    assert "A 10 kW system" in runtime.service.handle_turn(user, "s1", "and 10?").text
    assert "A 12 kW system" in runtime.service.handle_turn(user, "s1", "what about a 12 kw one").text
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None


def test_a_rough_size_answers_the_forecast_and_is_not_saved(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "94110", "location.utility_provider": "PG&E"})
    asked = runtime.service.handle_turn(user, "s1", "how much will my solar make tomorrow")
    assert asked.asked_for == "solar_size"
    rough = runtime.service.handle_turn(user, "s1", "not sure, maybe 5 or 6 kw? previous owner put them in")
    assert "so this uses about 5.5 kW" in rough.text and "Your 5.5 kW system tomorrow" in rough.text
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        (
            "when should i plug in the ioniq 5 tonight so it hits 80 by 7:30",
            "equipment.ev_model",
            "Hyundai Ioniq 5",
        ),
        (
            "when should i charge the model y tonight? need it by 7 tmrw",
            "equipment.ev_model",
            "Tesla Model Y",
        ),
        ("how long to charge the ioniq 5 on level 1", "equipment.ev_model", None),  # a general question
        ("generally is it cheaper to heat with gas or with a heat pump", "equipment.heating_type", None),
        ("we pay a flat 13 cents per kwh, no time of use", "household.typical_usage_pattern", None),
        ("we're pg&e, model y, charging around 30 kwh a night", "equipment.ev_battery_kwh", None),
        ("saving money is the #1 thing for me", "preferences.budget_priority", "high"),
        ("being green matters a lot to us even if it costs a bit more", "preferences.budget_priority", None),
        (
            "Just so you know, my wife and I are both retired and we live in a small condo in Tampa.",
            "household.occupants",
            2,
        ),
        (
            "Just so you know, my wife and I are both retired and we live in a small condo in Tampa.",
            "location.city",
            "Tampa",
        ),
        ("my wife and I share a model x", "household.occupants", None),
        ("family of 5, me and my husband both wfh", "household.occupants", 5),
        ("just me and the dog lol", "household.occupants", 1),
        ("ours is a leaf plus, 62 kwh battery", "equipment.ev_model", "Nissan Leaf Plus"),
        ("xcel in 80220, baseboard electric heat", "equipment.heating_type", "electric"),
    ],
)
def test_third_fresh_set_values_in_requests_and_households(text: str, field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get(field) == value


@pytest.mark.parametrize(
    ("text", "context", "field", "value"),
    [
        (
            "thinking about a heat pump, would it save us money vs our gas furnace",
            {},
            "equipment.heating_type",
            "gas",
        ),
        ("should we replace our gas furnace with a heat pump", {}, "equipment.heating_type", "gas"),
        ("we replaced our gas furnace with a heat pump", {}, "equipment.heating_type", "heat_pump"),
        ("if we got a heat pump would our bills go down", {}, "equipment.heating_type", None),
        (
            "we heat w a mitsubishi mini split heat pump, is it ok running it at -10",
            {},
            "equipment.cooling_type",
            "mini_split",
        ),
        (
            "storm coming this wknd? we have 12kw solar + a powerwall",
            {},
            "equipment.battery_capacity_kwh",
            13.5,
        ),
        (
            "hi there, retired in port st lucie and fpl is my electric co",
            {},
            "location.city",
            "Port St. Lucie",
        ),
        ("we are in springfield, ameren", {}, "location.city", None),  # Ameren serves two states
        (
            "pge",
            {"pending_slot": "utility", "known_fields": {"location.city": "Portland"}},
            "location.utility_provider",
            "Portland General Electric",
        ),
        (
            "its the extended range, 131 kwh",
            {"known_fields": {"equipment.ev_model": "Ford F-150 Lightning"}},
            "equipment.ev_battery_kwh",
            131.0,
        ),
        (
            "we also have a 13.5 kwh home battery",
            {"known_fields": {"equipment.ev_model": "Kia EV6"}},
            "equipment.battery_capacity_kwh",
            13.5,
        ),
    ],
)
def test_dev_conversation_values(text: str, context: dict[str, Any], field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}
    assert facts.get(field) == value


@pytest.mark.parametrize(
    ("text", "context"),
    [
        (
            "and if we added a battery would that help with the peak",
            {"last_topic": "solar", "task": "solar_forecast"},
        ),
        ("would a powerwall let me run it at night for free", {"last_topic": "rates", "task": "appliance"}),
        (
            "what if i just use a supercharger down there",
            {"last_topic": "ev_charging", "task": "charging_plan"},
        ),
        ("we have 5kw already, would adding a battery make sense for us", {}),
    ],
)
def test_equipment_they_might_get_is_advice_not_a_live_figure(text: str, context: dict[str, str]) -> None:
    from advisor.understanding.models import RequestParams

    reading_context = (
        ReadingContext(
            last_intent="live_data",
            last_topic=context["last_topic"],
            last_params=RequestParams(task=context["task"]),
        )
        if context
        else ReadingContext()
    )
    assert understand(text, reading_context).intent == "knowledge"


def test_someone_elses_size_is_estimated_for_their_town_and_ours_for_here(runtime) -> None:
    user = new_user(runtime)
    theirs = runtime.service.handle_turn(
        user, "s1", "my brother in austin just got 10kw of solar. what would that make in a year"
    )
    assert "This is for Austin, TX" in theirs.text and "A 10 kW system in Austin" in theirs.text
    ours = runtime.service.handle_turn(
        user, "s1", "we are in san antonio ourselves, cps energy, no panels yet"
    )
    assert ours.asked_for is None and "Austin" not in ours.text  # a statement about us, not a re-answer
    here = runtime.service.handle_turn(user, "s1", "what would an 8kw system make here")
    assert "Austin" not in here.text and "8 kW system" in here.text
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None


# --- from talking to it (session of 2026-11-26) ------------------------------------------------


def test_waiting_till_a_time_to_plug_in_is_when_charging_starts() -> None:
    assert read_params("and what if i wait till 11pm to plug in").said() == {"plug_in_hour": 23}
    assert read_params("gonna hold off until 10 to start charging").said() == {"plug_in_hour": 22}


def test_a_forecast_for_a_later_day_is_that_days(runtime) -> None:
    """(The refusal when the forecast stops short: tests/test_forecast_days.py.)"""
    user = new_user(
        runtime,
        **{
            "location.zip_code": "80302",
            "location.utility_provider": "Xcel Energy",
            "equipment.solar_capacity_kw": 9,
        },
    )
    runtime.service.handle_turn(user, "s1", "how much will my panels make tomorrow")
    saturday = runtime.service.handle_turn(user, "s1", "and saturday?")
    assert "Your 9 kW system on Sat 24 Jan: about" in saturday.text and "today" not in saturday.text


def test_what_about_after_an_explanation_stays_on_its_question() -> None:
    context = ReadingContext(
        last_intent="knowledge",
        last_topic="ev_charging",
        last_question="is it dumb to charge to 100% every night",
    )
    reading = understand("what about for lfp batteries", context)
    assert reading.intent == "knowledge"
    assert reading.question.startswith("is it dumb to charge to 100% every night")


def test_forgetting_something_we_never_keep_says_so(runtime) -> None:
    user = new_user(runtime, **{"location.city": "Phoenix"})
    reply = runtime.service.handle_turn(user, "s1", "forget the pool stuff, we drained it lol")
    assert 'I don\'t keep anything about "the pool stuff"' in reply.text
    assert stored(runtime, user, "location.city") == "Phoenix"


def test_and_the_city_too_after_a_forget_forgets_the_city(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "02139",
            "location.city": "Cambridge",
            "location.utility_provider": "Eversource",
        },
    )
    runtime.service.handle_turn(user, "s1", "forget my zip")
    reply = runtime.service.handle_turn(user, "s1", "and the city too pls")
    assert "Forgotten: your city" in reply.text and stored(runtime, user, "location.city") is None
    assert stored(runtime, user, "location.utility_provider") == "Eversource"


# --- from the fourth fresh set's first run (fresh_h6, fresh_h7) ----------------------------------


@pytest.mark.parametrize(
    ("text", "context", "field", "value"),
    [
        (
            "should i switch from e-tou-c to ev2-a now that we have a bolt euv",
            {},
            "location.rate_schedule",
            "E-TOU-C",
        ),
        (
            "should i switch from e-tou-c to ev2-a now that we have a bolt euv",
            {},
            "equipment.ev_model",
            "Chevrolet Bolt EUV",
        ),
        ("ev-tou-5 or tou-dr1, which is better for us with 2 evs", {}, "location.rate_schedule", None),
        ("we switched from e-tou-c to ev2-a", {}, "location.rate_schedule", "EV2-A"),
        ("is it going to freeze tonight here in 55811", {}, "location.zip_code", "55811"),
        (
            "we're a co-op, jackson emc",
            {"pending_slot": "utility"},
            "location.utility_provider",
            "Jackson EMC",
        ),
        ("we pay 11 cents a kwh flat, small co-op out here in western nebraska", {}, "location.city", None),
        ("apartment in chicago w 2 roommates, comed", {}, "household.occupants", 3),
        ("my sisters house in miami", {}, "location.city", None),
        ("our new condo in denver", {}, "location.city", "Denver"),
    ],
)
def test_fourth_fresh_set_values(text: str, context: dict[str, Any], field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}
    assert facts.get(field) == value


def test_the_next_size_asked_about_is_not_saved() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="typical_solar", system_kw=8, typical_year=True),
    )
    reading = understand("and for a 10kw system", context)
    assert reading.params.system_kw == 10 and not reading.facts


@pytest.mark.parametrize(
    "text",
    [
        "What if I bought a Kia EV6?",
        "How do I make my EV wait until cheap overnight hours before it starts filling up?",
        "how do i set my thermostat for winter",
    ],
)
def test_what_ifs_and_how_tos_are_advice_without_a_clarifying_question(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "knowledge" and reading.alternative is None


def test_asking_which_plan_to_be_on_stays_a_request_whatever_the_model_leans_to() -> None:
    assert understand("what plan should i be on").intent == "live_data"


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("i think we're on tou-d-prime? not 100% sure", "location.rate_schedule", None),
        (
            "we're a dairy farm in wisconsin on a co-op, pay 12 cents flat. does it even matter when i run stuff",
            "location.flat_rate_usd_per_kwh",
            0.12,
        ),
        ("my neighbor pays 12 cents flat", "location.flat_rate_usd_per_kwh", None),
        (
            "me and 3 roommates split the electric bill in our rental, how do we get it down",
            "household.occupants",
            4,
        ),
        (
            "my son's apartment has baseboard heat and his bill is nuts. how do baseboard heaters compare",
            "equipment.heating_type",
            None,
        ),
        (
            "family of 5 in raleigh, duke, 2 evs, and im a night shift nurse",
            "location.utility_provider",
            "Duke Energy",
        ),
    ],
)
def test_fourth_fresh_set_conversation_values(text: str, field: str, value: Any) -> None:
    facts = {fact.field: fact.value for fact in understand(text).facts}
    assert facts.get(field) == value


@pytest.mark.parametrize("text", ["sorry this is prob dumb, whats a kwh", "how would i know what plan im on"])
def test_what_a_word_means_and_how_to_find_out_are_explanations(text: str) -> None:
    assert understand(text).intent == "knowledge"


def test_a_level_that_will_do_after_a_plan_replans_it() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(task="charging_plan", target_soc_pct=100, ready_by_hour=7),
    )
    reading = understand("nvm 80 is fine, trip got cancelled", context)
    assert reading.intent == "live_data" and reading.follow_up and reading.params.target_soc_pct == 80
    assert read_params("getting solar quotes, one guy says 8.4kw. what would that make a yr").system_kw == 8.4


def test_the_car_talked_about_is_theirs_once_they_say_they_bought_it(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "30316", "location.utility_provider": "Georgia Power"})
    runtime.service.handle_turn(user, "s1", "thinking of a model 3, what would charging it cost here")
    bought = runtime.service.handle_turn(user, "s1", "ok we bought it! picked it up today")
    assert stored(runtime, user, "equipment.ev_model") == "Tesla Model 3" and "Saved" in bought.text
    plan = runtime.service.handle_turn(user, "s1", "when should i plug it in tonight, need 70% by 7")
    assert "before 07:00" in plan.text
    later = runtime.service.handle_turn(user, "s1", "make that 6:30")
    assert "before 06:30" in later.text


def test_a_nema_outlet_with_amps_is_the_charger() -> None:
    facts = {f.field: f.value for f in understand("its on a 14-50 outlet, 40 amps").facts}
    assert facts == {"equipment.ev_charger_kw": 9.6}


def test_a_goodbye_while_we_wait_for_an_answer_is_a_goodbye() -> None:
    assert understand("later, gotta go", ReadingContext(pending_slot="ev")).intent == "goodbye"


def test_a_question_then_a_list_of_facts_saves_the_facts(runtime) -> None:
    """Found trying `make run` from a fresh clone: the first message asked for the ZIP it gave."""
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user, "s1", "when should i charge my ev, sdge 92101, model y, need 80% by 7"
    )
    assert stored(runtime, user, "location.zip_code") == "92101"
    assert stored(runtime, user, "equipment.ev_model") == "Tesla Model Y"
    assert reply.asked_for != "location"


def test_a_car_asked_about_is_planned_for_and_not_saved(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "30316", "location.utility_provider": "Georgia Power"})
    reply = runtime.service.handle_turn(
        user, "s1", "test drove an ioniq 5 today, how much would charging it at home cost me"
    )
    assert "This is for a Hyundai Ioniq 5, the car you asked about" in reply.text and "Needs" in reply.text
    assert reply.asked_for is None and stored(runtime, user, "equipment.ev_model") is None


def test_their_own_car_is_not_replaced_by_one_asked_about(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "30316",
            "location.utility_provider": "Georgia Power",
            "equipment.ev_model": "Kia EV6",
        },
    )
    reply = runtime.service.handle_turn(
        user, "s1", "thinking about a model y, what would charging it cost tonight"
    )
    # the question's car is the answer's (said as such), and their own stays stored
    assert "This is for a Tesla Model Y, the car you asked about" in reply.text
    assert "your Kia EV6 stays in your profile" in reply.text
    assert stored(runtime, user, "equipment.ev_model") == "Kia EV6"


def test_a_utilitys_plans_are_ours_to_answer_and_car_insurance_is_not() -> None:
    assert understand("whats pge's best plan").intent != "off_topic"
    assert understand("how much is insurance on a model 3 usually").intent == "off_topic"
    facts = {f.field: f.value for f in understand("whats georgia power's cheapest plan for us").facts}
    assert facts == {"location.utility_provider": "Georgia Power"}


def test_fifth_fresh_set_values() -> None:
    assert understand("best pizza in brooklyn").facts == []
    facts = {
        f.field: f.value for f in understand("rocky mtn power", ReadingContext(pending_slot="utility")).facts
    }
    assert facts == {"location.utility_provider": "Rocky Mountain Power"}
    conceded = {
        f.field: f.value
        for f in understand("comfort first for us, we keep it at 70 no matter what it costs").facts
    }
    assert conceded.get("preferences.budget_priority") is None


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("our charger runs at 32 amps, no wait 24, just checked the app", "equipment.ev_charger_kw", 5.76),
        ("we are 4 people, no wait 5", "household.occupants", 5),
        ("we have 6.5kw solar, sorry 7.5", "equipment.solar_capacity_kw", 7.5),
        ("we have 6kw of solar and 2 kids", "equipment.solar_capacity_kw", 6.0),
    ],
)
def test_a_number_corrected_inside_the_message_is_the_one_kept(text: str, field: str, value: Any) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get(field) == value


def test_a_household_members_schedule_is_said_as_theirs(runtime) -> None:
    """From the stop check: "my wife works from home" was confirmed as "you work from home"."""
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user, "s1", "my wife works from home and we have 3 kids, 95051, silicon valley power"
    )
    assert (
        "someone in your household works from home" in reply.text and "you work from home" not in reply.text
    )
    assert stored(runtime, user, "household.work_schedule") == "WFH"
    own = runtime.service.handle_turn(new_user(runtime), "s1", "i work from home")
    assert "you work from home" in own.text


def test_a_word_that_is_also_a_town_is_no_move_for_someone_with_a_home(runtime) -> None:
    """ "cool, bye" from a Sacramento customer saved Cool, CA and dropped their ZIP; a list item
    is a town only when the message itself names a place or utility ("dayton, aes ohio")."""
    user = new_user(runtime, **{"location.zip_code": "95818", "location.utility_provider": "SMUD"})
    reply = runtime.service.handle_turn(user, "s1", "cool, bye")
    assert stored(runtime, user, "location.zip_code") == "95818"
    assert stored(runtime, user, "location.city") is None and "Saved" not in reply.text
    other = new_user(runtime, **{"location.zip_code": "45402"})
    runtime.service.handle_turn(other, "s1", "dayton, aes ohio")
    assert stored(runtime, other, "location.city") == "Dayton"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a bare kW beside a solar question is the panels' size
        (
            "we have 9.5kw and a powerwall, how much will we make today",
            {"equipment.solar_capacity_kw": 9.5, "equipment.has_battery_storage": True},
        ),
        # what they are considering is not what they have
        ("we have gas heat, worth switching to a heat pump", {"equipment.heating_type": "gas"}),
        # a self-description after a question's comma is a statement
        (
            "ok fine, whens the cheapest time to run my dryer today, xcel customer in 80203",
            {"location.utility_provider": "Xcel Energy", "location.zip_code": "80203"},
        ),
        (
            "which aps plan is cheapest for us, 4 people and we both work office 9-5s",
            {"household.occupants": 4, "household.work_schedule": "Office 9-5"},
        ),
        ("we're duke customers in raleigh, 7 kw on the roof", {"location.utility_provider": "Duke Energy"}),
        # a home shared with one partner, and nobody else named
        ("renting a 2br in denver w my partner, xcel", {"household.occupants": 2}),
        ("hybrid worker, office mon and wed", {"household.work_schedule": "Hybrid"}),
        (
            "someone's always home so usage is pretty even all day",
            {"household.typical_usage_pattern": "constant"},
        ),
    ],
)
def test_facts_said_beside_a_question_or_in_passing(text: str, expected: dict[str, Any]) -> None:
    facts = {f.field: f.value for f in understand(text).facts}
    assert {field: facts.get(field) for field in expected} == expected


@pytest.mark.parametrize(
    "text",
    [
        "we live in boston with my husband and his mom",  # three people, not two
        "my brother lives with his wife in ohio",
        "what would 8kw make in a year",  # a size asked about
    ],
)
def test_no_household_count_or_size_from_part_of_the_message(text: str) -> None:
    fields = {f.field for f in understand(text).facts}
    assert not fields & {"household.occupants", "equipment.solar_capacity_kw"}


def test_a_correction_of_what_we_hold_keeps_the_new_value(runtime) -> None:
    user = new_user(runtime, **{"equipment.heating_type": "electric"})
    reply = runtime.service.handle_turn(
        user, "s1", "you have us as electric heat, its actually gas forced air"
    )
    assert stored(runtime, user, "equipment.heating_type") == "gas" and "was electric" in reply.text


def test_the_regular_outlet_after_a_charging_plan_is_the_charger() -> None:
    context = ReadingContext(last_intent="live_data", last_topic="ev_charging")
    facts = {
        f.field: f.value
        for f in understand("oh and its only on the regular outlet rn, no level 2", context).facts
    }
    assert facts.get("equipment.ev_charger_kw") == pytest.approx(1.44)


@pytest.mark.parametrize(
    "text",
    ["we have gas heat, worth switching to a heat pump", "whats a time of use plan anyway"],
)
def test_questions_about_what_they_might_get_or_a_term_are_explained(runtime, text: str) -> None:
    reply = runtime.service.handle_turn(new_user(runtime), "s1", text)
    assert reply.intent == "knowledge"


def test_plan_comparison_for_someone_who_told_us_nothing_says_what_it_needs(runtime) -> None:
    """Found when a plan comparison no longer waits for a ZIP: the tool met an absent profile."""
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "which plan is cheapest for me")
    reply = runtime.service.handle_turn(user, "s1", "rather not say")
    assert "which utility serves you" in reply.text and "could not be read" not in reply.text


def test_a_utility_named_in_a_live_question_is_kept_when_the_profile_has_none(runtime) -> None:
    """ "when's peak for ameren tmrw": a homeowner asking about their prices names their own
    utility; saved and said so, and the ZIP they give next resumes the same request. A general
    question naming a utility keeps nothing, nor does a utility that does not serve their state."""
    user = new_user(runtime)
    first = runtime.service.handle_turn(user, "s1", "when's peak for ameren tmrw")
    assert (
        first.text.startswith("Saved: your utility is Ameren.") and "Which electric utility" not in first.text
    )
    reply = runtime.service.handle_turn(user, "s1", "63116, not sure what plan")
    assert "Ameren" in reply.text and "the utility you asked about" not in reply.text
    assert stored(runtime, user, "location.utility_provider") == "Ameren"
    assert stored(runtime, user, "location.zip_code") == "63116"
    general = new_user(runtime)
    runtime.service.handle_turn(general, "s1", "does pge charge a fixed monthly fee now")
    assert stored(runtime, general, "location.utility_provider") is None
    elsewhere = new_user(runtime, **{"location.zip_code": "94110"})
    asked = runtime.service.handle_turn(elsewhere, "s1", "whats peak on dte for me tomorrow")
    assert "DTE" in asked.text and stored(runtime, elsewhere, "location.utility_provider") is None


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("we're both retired so we're home all day", "household.work_schedule", "Retired"),
        ("update: not wfh anymore, back in the office 9-5", "household.work_schedule", "Office 9-5"),
        ("i switched to nights, need 80% by 5pm tmrw", "household.work_schedule", "Night shift"),
        ("renting in east nashville, gas heat", "location.city", "Nashville"),
        ("gas furnace, no ev, 3 of us in springfield mo", "location.city", "Springfield, MO"),
        ("two powerwalls with our 11 kw system", "equipment.solar_capacity_kw", 11.0),
        ("gas is $5.40 at the chevron in san jose, is that normal rn", "location.city", None),
        ("my wife wants a powerwall, im not convinced", "equipment.has_battery_storage", None),
        (
            "gonna need 60 miles tmrw, dont care when it charges as long as its cheap",
            "preferences.budget_priority",
            None,
        ),
    ],
)
def test_sixth_fresh_set_values(text: str, field: str, value: Any) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get(field) == value


def test_not_knowing_the_utility_when_asked_for_the_zip_skips_the_utility_not_the_zip(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "what are my prices today")
    reply = runtime.service.handle_turn(user, "s1", "idk who my utility is, i just moved")
    assert "ZIP code" in reply.text and "Which electric utility" not in reply.text
    priced = runtime.service.handle_turn(user, "s1", "zip is 63110")
    assert stored(runtime, user, "location.zip_code") == "63110"
    assert "Which electric utility" not in priced.text and "MO average price" in priced.text
    # an average assumed has no peak hours to show, and says so (a sentence starts with a capital)
    assert "I don't know your utility's peak hours" in priced.text


def test_a_zip_in_a_new_question_right_after_we_asked_for_it_is_theirs(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "is it ok to run the dishwasher now")
    reply = runtime.service.handle_turn(user, "s1", "whats the low tomorrow in 04101")
    assert stored(runtime, user, "location.zip_code") == "04101"
    assert "place you asked about" not in reply.text


def test_a_powerwall_in_a_list_with_the_utility_and_zip_is_theirs() -> None:
    facts = {f.field: f.value for f in understand("i have solar 8.5 kw and a powerwall, pge, 95126").facts}
    assert facts.get("equipment.has_battery_storage") is True and facts.get("location.zip_code") == "95126"


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("take back the heat pump thing, we still have the gas furnace", "equipment.heating_type", "gas"),
        ("you have me on ev2-a but its e-elec", "location.rate_schedule", "E-ELEC"),
        ("4 of us plus grandma so 5 total", "household.occupants", 5),
        ("we have 2 evs, 3 total cars", "household.occupants", None),
        ("we're borrowing my in-laws bolt for the month", "equipment.ev_model", None),
        ("leaning towards the lightning over the r1t", "equipment.ev_model", None),
        ("probably a model 3 but we havent picked it up yet", "equipment.ev_model", None),
        ("we still have the leaf", "equipment.ev_model", "Nissan Leaf"),
    ],
)
def test_dev_set_precision_misses(text: str, field: str, value: Any) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get(field) == value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("any alaska specific rebates for heat pumps", "equipment.heating_type"),
        ("rivian r1s getting delivered in march!!", "equipment.ev_model"),
        ("I would like to evaluate a 9 kW solar system for my home", "equipment.solar_capacity_kw"),
        (
            "My daughter in Charlotte has a Tesla and she says always charge at night, is she right??",
            "location.city",
        ),
        ("i rent out a duplex in dearborn that has gas heat", "location.city"),
        ("48 amp or 40 amp charger, does it matter", "equipment.ev_charger_kw"),
        (
            "I'm trying to figure out whether LADWP's time-of-use plan would save us money",
            "location.utility_provider",
        ),
        ("ComEd has that hourly pricing program. Is that worth it for me?", "location.utility_provider"),
        ("generation comes from Sonoma Clean Power", "location.city"),
    ],
)
def test_seventh_fresh_set_precision_misses(text: str, field: str) -> None:
    assert field not in {f.field for f in understand(text).facts}


def test_taking_back_a_fact_forgets_it(runtime) -> None:
    user = new_user(runtime, **{"household.work_schedule": "WFH", "location.zip_code": "94110"})
    reply = runtime.service.handle_turn(user, "s1", "wait no, take back the working from home thing")
    assert stored(runtime, user, "household.work_schedule") is None and "Forgotten" in reply.text
    assert stored(runtime, user, "location.zip_code") == "94110"


@pytest.mark.parametrize(
    "text",
    [
        "nvm take the zip off, i move out in may",
        "Take the zip back off my file.",
        "On second thought, I'd prefer you not keep my zip code.",
    ],
)
def test_ways_of_asking_to_drop_a_saved_value(runtime, text: str) -> None:
    user = new_user(runtime, **{"location.zip_code": "94110", "equipment.heating_type": "gas"})
    reply = runtime.service.handle_turn(user, "s1", text)
    assert stored(runtime, user, "location.zip_code") is None and "Forgotten" in reply.text
    assert stored(runtime, user, "equipment.heating_type") == "gas"


@pytest.mark.parametrize(
    ("known", "text", "field", "value"),
    [
        ({}, "Plan is EV2-A. Zip 95122", "location.rate_schedule", "EV2-A"),
        ({"location.zip_code": "95122"}, "Zip wrong, is 95121", "location.zip_code", "95121"),
        (
            {"location.zip_code": "21218"},
            "no wait 21211, the other one is my old place",
            "location.zip_code",
            "21211",
        ),
        ({"equipment.solar_capacity_kw": 4.0}, "oops sorry that was 4.8", "equipment.solar_capacity_kw", 4.8),
        (
            {"equipment.solar_capacity_kw": 4.0},
            "no wait 4.5 i forgot the two panels on the garage",
            "equipment.solar_capacity_kw",
            4.5,
        ),
        (
            {"equipment.solar_capacity_kw": 4.0, "equipment.ev_charger_kw": 7.2},
            "oops that was 5",
            "equipment.solar_capacity_kw",
            None,
        ),
        ({}, "we have 4 kw on our garage", "equipment.solar_capacity_kw", 4.0),
    ],
)
def test_seventh_fresh_set_values(known: dict, text: str, field: str, value: Any) -> None:
    facts = {f.field: f.value for f in understand(text, ReadingContext(known_fields=known)).facts}
    assert facts.get(field) == value


def test_salt_lake_is_salt_lake_city() -> None:
    assert understand("what would a 10 kw system make in salt lake").params.place == "Salt Lake City, UT"


def test_a_request_the_model_doubts_as_a_statement_is_answered(runtime) -> None:
    user = new_user(
        runtime,
        **{
            "location.zip_code": "60618",
            "location.utility_provider": "ComEd",
            "equipment.ev_model": "Tesla Model 3",
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "need the car charged")
    assert "isn't something I keep" not in reply.text and "kWh" in reply.text


def test_the_level_now_after_a_plan_replans_it() -> None:
    from advisor.understanding.models import RequestParams

    context = ReadingContext(
        last_intent="live_data",
        last_topic="ev_charging",
        last_params=RequestParams(
            task="charging_plan", target_soc_pct=90, ready_by_hour=6, ready_by_day="saturday"
        ),
    )
    reading = understand("currently at 35", context)
    assert reading.intent == "live_data" and reading.params.current_soc_pct == 35


def test_leaving_for_somewhere_at_a_time_is_the_deadline() -> None:
    params = read_params("leaving for tahoe 6am saturday, need 90%")
    assert (params.ready_by_hour, params.ready_by_day, params.target_soc_pct) == (6, "saturday", 90)
    assert read_params("leaving for 2 weeks on friday").ready_by_hour is None


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("when should I charge my Nissan leave tonight", "Nissan Leaf"),
        ("Kia EV six", "Kia EV6"),
        ("when should I charge my tesla model why", "Tesla Model Y"),
        ("ioniq five, 94110", "Hyundai Ioniq 5"),
    ],
)
def test_car_names_as_voice_typing_writes_them(text: str, car: str) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get("equipment.ev_model") == car


def test_declining_the_zip_while_naming_the_utility_gets_the_answer(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "What's electricity cost me per kilowatt hour right now")
    reply = runtime.service.handle_turn(user, "s1", "Consumers Energy. Not giving you my address.")
    assert stored(runtime, user, "location.utility_provider") == "Consumers Energy"
    assert "ZIP code (or city)?" not in reply.text and "MI average price" in reply.text


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("we bought a house in worcester that already had solar on it", "Worcester"),
        ("i own a rental in toledo and my own house is in ann arbor", "Ann Arbor"),
        ("im renting in logan square, chicago", "Chicago"),
        ("renting in logan square chicago, comed", None),  # not the town Logan
    ],
)
def test_the_home_they_live_in_not_one_they_let_or_a_neighbourhood_name(text: str, city: str | None) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get("location.city") == city


def test_off_topic_after_an_explanation_is_still_off_topic() -> None:
    context = ReadingContext(last_intent="knowledge", last_topic="home")
    assert understand("whats the best pizza in minneapolis", context).intent == "off_topic"


def test_when_to_run_an_appliance_is_an_appliance_verdict_whatever_else_is_said() -> None:
    reading = understand(
        "hi im renting in columbus ohio, aep is the utility, no ev. is it cheaper to run my dryer at night"
    )
    assert (reading.intent, reading.params.task, reading.params.appliance) == (
        "live_data",
        "appliance",
        "dryer",
    )


def test_a_state_is_no_town_to_look_up() -> None:
    reading = understand("whats the deal with heat pumps in cold climates, we're in minnesota")
    assert reading.place_query is None and reading.intent == "knowledge"


@pytest.mark.parametrize(
    "text",
    [
        "thanks!! 💕 gotta run, soccer practice",
        "Ha, fair. Later.",
        "Good night.",
        "ok thanks, gtg",
        "ok thats it for today",
    ],
)
def test_ways_of_leaving_are_goodbyes(text: str) -> None:
    assert understand(text).intent == "goodbye"


def test_a_utility_before_its_plan_is_theirs_and_for_me_names_the_car() -> None:
    setup = understand(
        "Setup: 11.2 kW PV, one Powerwall, Model S, 48A wall connector, SCE on TOU-D-PRIME, ZIP 90803"
    )
    assert {f.field: f.value for f in setup.facts}.get(
        "location.utility_provider"
    ) == "Southern California Edison"
    answer = understand("for me its a bolt ev and pg&e", ReadingContext(pending_slot="location"))
    assert {f.field: f.value for f in answer.facts}.get("equipment.ev_model") == "Chevrolet Bolt EV"


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("wait no, my oldest shipped out with the navy, so 4", 4),
        ("my roommate moved out, its 2 now", 2),
        ("we have 2 evs now", None),
    ],
)
def test_a_new_count_after_who_came_or_went(text: str, count: int | None) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get("household.occupants") == count


def test_a_doubt_about_something_else_leaves_the_car_sure() -> None:
    facts = {
        f.field: f.value
        for f in understand("just got my first ev, a kia ev6, honestly no idea what im doing lol").facts
    }
    assert facts.get("equipment.ev_model") == "Kia EV6"


def test_a_powerwall_count_corrected_in_words(runtime) -> None:
    user = new_user(
        runtime, **{"equipment.has_battery_storage": True, "equipment.battery_capacity_kwh": 27.0}
    )
    reply = runtime.service.handle_turn(
        user, "s1", "wait you have me down for 2 powerwalls?? it's just one 😅"
    )
    assert stored(runtime, user, "equipment.battery_capacity_kwh") == 13.5 and "was 27 kWh" in reply.text


def test_not_knowing_the_plan_after_an_answer_is_said_once(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "80205", "location.utility_provider": "Xcel Energy"})
    runtime.service.handle_turn(user, "s1", "whats charging gonna run me a month, i drive like 40 mi a day")
    reply = runtime.service.handle_turn(user, "s1", "not sure what plan tbh")
    assert "my answer above stands" in reply.text and "didn't sound sure" not in reply.text


def test_a_town_before_a_comma_list_and_a_monthly_cost_without_the_car(runtime) -> None:
    facts = {f.field: f.value for f in understand("renting in silver spring, gas heat, no car").facts}
    assert facts.get("location.city") == "Silver Spring" and facts.get("equipment.heating_type") == "gas"
    user = new_user(runtime, **{"location.zip_code": "27601", "location.utility_provider": "Duke Energy"})
    reply = runtime.service.handle_turn(
        user, "s1", "how much would it cost us to charge one each month on duke"
    )
    assert "a month" in reply.text and "Which EV" not in reply.text


def test_a_plan_only_one_utility_offers_answers_without_asking_the_utility(runtime) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "s1", "when are my peak hours")
    runtime.service.handle_turn(user, "s1", "i'm on ev2a")
    reply = runtime.service.handle_turn(user, "s1", "oakland")
    assert "EV2-A" in reply.text and "Which electric utility" not in reply.text
    assert stored(runtime, user, "location.utility_provider") is None  # inferred for the answer, not saved


@pytest.mark.parametrize(
    ("known", "text", "field", "value"),
    [
        ({}, "nv energy in vegas, zip 89123 sorry 89128", "location.zip_code", "89128"),
        ({}, "we have a 6kw, no 6.8kw system in 84106", "equipment.solar_capacity_kw", 6.8),
        ({}, "pretty sure its ev2-a but lemme check the bill", "location.rate_schedule", None),
        ({}, "is it cheaper for me to switch to ev-tou-5 or stay where i am", "location.rate_schedule", None),
        (
            {},
            "during a psps shutoff do solar panels still work if you dont have a battery",
            "equipment.has_battery_storage",
            None,
        ),
        ({}, "dads leaf sits at our place on weekends but its his car", "equipment.ev_model", None),
        ({"equipment.ev_charger_kw": 9.6}, "ugh scratch that its 32 amps", "equipment.ev_charger_kw", 7.68),
    ],
)
def test_eighth_fresh_set_values(known: dict, text: str, field: str, value: Any) -> None:
    context = ReadingContext(known_fields=known, last_intent="live_data", last_topic="ev_charging")
    assert {f.field: f.value for f in understand(text, context).facts}.get(field) == value


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("renting in spokane, baseboard heat, no ac", "equipment.heating_type", "electric"),
        (
            "got rid of the window units, put in mini splits for cooling",
            "equipment.cooling_type",
            "mini_split",
        ),
        ("my brother is renting in spokane, baseboard heat", "equipment.heating_type", None),
    ],
)
def test_eighth_set_recall(text: str, field: str, value: Any) -> None:
    assert {f.field: f.value for f in understand(text).facts}.get(field) == value


def test_the_town_asked_about_after_another_in_and_the_low_tonight() -> None:
    assert understand("what would a 9 kw array make in a year in san jose").params.place == "San Jose, CA"
    weather = understand("whats the low tonight in denver")
    assert weather.intent == "live_data" and weather.params.place == "Denver, CO"
    assert understand("whats the weather in cancun next week for our vacation").intent == "off_topic"


def test_a_greeting_before_the_question_keeps_it_a_question() -> None:
    reading = understand("yo whats the low tonight in boise")
    assert "location.city" not in {f.field for f in reading.facts} and reading.params.place == "Boise, ID"


def test_prices_from_a_one_state_utility_need_no_zip(runtime) -> None:
    user = new_user(runtime)
    asked = runtime.service.handle_turn(user, "s1", "when is peak for pge today")
    assert "ZIP code" not in asked.text and asked.asked_for == "rate_schedule"
    reply = runtime.service.handle_turn(user, "s1", "not sure")
    assert "ZIP code" not in reply.text and "E-TOU-C" in reply.text


def test_facts_said_as_context_for_the_last_question_are_saved_and_the_question_taken_up() -> None:
    context = ReadingContext(
        last_intent="knowledge",
        last_topic="rates",
        last_question="my electric bill doubled this winter and i have no idea why",
    )
    reading = understand("we heat with baseboard heaters if that matters", context)
    assert reading.intent == "knowledge" and reading.question.startswith("my electric bill doubled")
    assert {f.field: f.value for f in reading.facts} == {"equipment.heating_type": "electric"}


def test_a_bare_place_after_a_live_answer_redoes_that_answer(runtime) -> None:
    """ "78745" right after the pool-pump verdict that had no ZIP: the user is filling in what the
    answer lacked, so it is saved and the verdict given again, not only "Saved"."""
    user = new_user(runtime, **{"location.city": "Austin", "location.utility_provider": "Austin Energy"})
    first = runtime.service.handle_turn(user, "s1", "trying to figure out when to run the pool pump today")
    assert "pool pump" in first.text
    again = runtime.service.handle_turn(user, "s1", "78745")
    assert again.text.startswith("Saved: your ZIP code is 78745") and "pool pump" in again.text
    thanks = runtime.service.handle_turn(user, "s1", "thanks")
    later = runtime.service.handle_turn(user, "s1", "78704")
    assert "pool pump" not in later.text and thanks.text  # only right after the answer


@pytest.mark.parametrize(
    ("text", "context", "field", "value"),
    [
        ("we switched to tou-d-prime", ReadingContext(), "location.rate_schedule", "TOU-D-PRIME"),
        ("should we switch to tou-d-prime", ReadingContext(), "location.rate_schedule", None),
        (
            "checked the app its 5.6",
            ReadingContext(pending_slot="solar_size"),
            "equipment.solar_capacity_kw",
            5.6,
        ),
        ("20 panels", ReadingContext(pending_slot="solar_size"), "equipment.solar_capacity_kw", None),
        ("we added panels, we're at 8.4 kw now", ReadingContext(), "equipment.solar_capacity_kw", 8.4),
        ("would panels help? our ac pulls 5 kw", ReadingContext(), "equipment.solar_capacity_kw", None),
        ("my brother got panels, i think hes at 9 kw", ReadingContext(), "equipment.solar_capacity_kw", None),
        (
            "i think we have like 5kw? not sure tbh. how much will they make tmrw",
            ReadingContext(),
            "equipment.solar_capacity_kw",
            None,
        ),
        (
            "97006, 9 kw",
            ReadingContext(pending_slot="location", pending_topic="solar"),
            "equipment.solar_capacity_kw",
            9.0,
        ),
        (
            "8 kw",
            ReadingContext(
                last_intent="live_data", last_topic="weather", last_question="sunny enough for the panels?"
            ),
            "equipment.solar_capacity_kw",
            8.0,
        ),
        ("we have 7 kw on the roof and no battery, in plano", ReadingContext(), "location.city", "Plano"),
        ("we have central air in st louis", ReadingContext(), "location.city", "St. Louis"),
        ("my brother has solar and a leaf, in plano", ReadingContext(), "location.city", None),
    ],
)
def test_values_said_beside_their_context(text: str, context: ReadingContext, field: str, value: Any) -> None:
    """A value whose meaning comes from the clause or the question before it (the panels named in
    another clause, the size we asked for, the plan they switched to, a town after a comma)."""
    facts = {fact.field: fact.value for fact in understand(text, context).facts}
    assert facts.get(field) == value


@pytest.mark.parametrize("text", ["what can u do then", "ok so what else can you help with?", "who are you"])
def test_a_question_about_the_advisor_is_answered_with_what_it_does(text: str) -> None:
    assert understand(text, ReadingContext(last_intent="knowledge", last_topic="home")).intent == "smalltalk"
    assert understand("what can you tell me about heat pumps", ReadingContext()).intent == "knowledge"


def test_a_flat_price_is_all_prices_need(runtime) -> None:
    """Someone who says what they pay is not asked which utility sells it (a plan comparison still is)."""
    user = new_user(runtime, **{"location.zip_code": "43604", "location.flat_rate_usd_per_kwh": 0.15})
    reply = runtime.service.handle_turn(user, "s1", "is it cheaper to run the dryer at night")
    assert reply.asked_for is None and "dryer" in reply.text
    compare = runtime.service.handle_turn(user, "s1", "which rate plan is cheapest for me")
    assert compare.asked_for == "utility"


def test_a_number_said_in_place_of_the_plans_redoes_the_plan_and_undoes_nothing(runtime) -> None:
    """ "wait no its 35% not 25" right after a plan from 25 %: the plan again from 35 % (it used to
    undo the ZIP, the utility and the car saved the turn before); "cant plug in till 10" then starts
    the charging at 22:00, not a 10:00 deadline."""
    user = new_user(runtime)
    service = runtime.service
    service.handle_turn(
        user, "s1", "we just moved to 78704, austin energy. bolt euv, need 70% by 7:15 tmrw, its at 25 now"
    )
    again = service.handle_turn(user, "s1", "wait no its 35% not 25")
    assert "from 35% to 70%" in again.text and "Undone" not in again.text
    assert stored(runtime, user, "location.zip_code") == "78704"
    later = service.handle_turn(user, "s1", "what if i cant plug in till 10")
    assert "before 07:15" in later.text and "22:00" in later.text


def test_choosing_who_sells_the_power_is_an_energy_question() -> None:
    """ "how do i pick a plan in texas, the free nights ones seem sketchy" was read as off-topic."""
    reading = understand("how do i pick a plan in texas, the free nights ones seem sketchy", ReadingContext())
    assert reading.intent == "knowledge" and reading.params.state == "TX"
    assert understand("whats the best pizza plan", ReadingContext()).intent == "off_topic"


@pytest.mark.parametrize(
    "context",
    [
        ReadingContext(),
        ReadingContext(last_intent="knowledge", last_topic="rates", last_question="whats a kwh"),
    ],
)
def test_the_products_first_question_is_a_plan_after_an_explanation_too(context: ReadingContext) -> None:
    """ "when should i charge my leaf" right after "whats a kwh" was read as a general question
    (0.51 against 0.47) and got "I don't have a source"; when to charge their own car is a plan.
    How often, or whether it is bad, stays a question to explain."""
    reading = understand("when should i charge my leaf", context)
    assert reading.intent == "live_data" and reading.params.task == "charging_plan"
    assert understand("how often should i charge my ev", context).intent == "knowledge"
    assert understand("when should i charge my ev to keep the battery healthy", context).intent == "knowledge"


def test_equipment_they_got_told_as_news_is_saved_not_planned() -> None:
    """ "put in a 40 amp charger last week" was read as a charging request (0.91) and asked for a
    ZIP; it is news about their home. A need said with it is still a request."""
    news = understand("put in a 40 amp charger last week", ReadingContext())
    assert news.intent == "profile_statement" and {f.field for f in news.facts} == {"equipment.ev_charger_kw"}
    assert understand("got a model y, need 80% by 7", ReadingContext()).intent == "live_data"


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("is charging at night cheaper", "charging_plan"),
        ("is running the dryer at night cheaper", "appliance"),
        ("is it cheaper to run the dishwasher at night", "appliance"),
    ],
)
def test_whether_later_is_cheaper_is_asked_of_their_own_prices(text: str, task: str) -> None:
    """The time can come before "cheaper", and the car is asked about like an appliance."""
    reading = understand(text, ReadingContext())
    assert reading.intent == "live_data" and reading.params.task == task
    assert understand("is it bad to charge overnight", ReadingContext()).intent == "knowledge"


def _saved(text: str, context: ReadingContext | None = None) -> dict[str, object]:
    return {fact.field: fact.value for fact in understand(text, context or ReadingContext()).facts}


def test_a_household_said_without_my_or_a_count_word_is_counted() -> None:
    """From the tenth fresh set: "house is 4 people" and "its me and my roommate, both of us
    work 9-5" were not counted; a list that goes on after the comma is still not a pair."""
    assert _saved("house is 4 people, everybody's gone 8-5")["household.occupants"] == 4
    assert _saved("its me and my roommate, both of us work 9-5 at the office")["household.occupants"] == 2
    # the whole list is counted, pets not: never the pair before the comma
    assert _saved("its me and my wife, my son and 2 dogs")["household.occupants"] == 3


def test_solar_said_of_the_roof_beside_a_home_battery_is_the_panels() -> None:
    """ "12.3 kw on the roof and 2 powerwalls" lost the solar (a battery was named); "7.6k" answering
    the size question is 7.6 kW."""
    saved = _saved("we've got 12.3 kw on the roof and 2 powerwalls, 84020")
    assert saved["equipment.solar_capacity_kw"] == 12.3 and saved["equipment.battery_capacity_kwh"] == 27.0
    assert _saved("7.6k", ReadingContext(pending_slot="solar_size"))["equipment.solar_capacity_kw"] == 7.6


def test_a_correction_of_a_saved_number_right_after_an_answer_corrects_the_profile(runtime) -> None:
    """ "wait its 11.3 not 12.3" after an estimate on the saved 12.3 kW: the profile says 11.3 and
    the estimate is redone from it (it used to redo the estimate alone and keep 12.3)."""
    user = new_user(runtime, **{"location.zip_code": "84020", "equipment.solar_capacity_kw": 12.3})
    runtime.service.handle_turn(user, "s1", "how much will we make tmrw")
    again = runtime.service.handle_turn(user, "s1", "wait its 11.3 not 12.3, sorry")
    assert stored(runtime, user, "equipment.solar_capacity_kw") == 11.3
    assert "11.3 kW" in again.text


@pytest.mark.parametrize(
    "text",
    [
        "my partner swears we're on e-tou-c but i'm pretty sure she moved us to EV2-A when the car came",
        "i think we're on E-ELEC? could be E-TOU-C honestly",
    ],
)
def test_two_plan_names_one_of_them_doubted_saves_neither(text: str) -> None:
    """Someone unsure which of two plans they are on: neither is kept (precision before recall);
    a plan stated beside a question about another is still kept."""
    assert "location.rate_schedule" not in _saved(text)
    assert _saved("we're on e-tou-c. is ev2-a better for us?")["location.rate_schedule"] == "E-TOU-C"


def test_a_battery_last_in_what_they_lack_is_no_battery() -> None:
    assert _saved("we don't have a generator or a home battery")["equipment.has_battery_storage"] is False
    assert _saved("we don't have solar or a battery")["equipment.has_battery_storage"] is False
    assert "equipment.has_battery_storage" not in _saved("we don't have money for a battery")


@pytest.mark.parametrize("text", ["what's EV-TOU-5", "whats e-tou-c"])
def test_a_plan_named_only_in_a_question_is_explained_not_saved(text: str) -> None:
    """ "what's EV-TOU-5" was read as a statement with nothing to save ("Saved: nothing")."""
    reading = understand(text, ReadingContext())
    assert reading.intent == "knowledge" and not reading.facts
    assert _saved("we're on e-tou-c")["location.rate_schedule"] == "E-TOU-C"


def test_a_question_after_a_comma_starting_with_where_is_a_question() -> None:
    reading = understand("drafty victorian in providence, where do i even start", ReadingContext())
    assert reading.intent == "knowledge"


def test_a_supposed_size_is_asked_about_not_saved() -> None:
    """ "hmm what if it was 12 kw instead" saved 12 kW of solar as theirs."""
    context = ReadingContext(
        last_intent="live_data",
        last_topic="solar",
        last_params=RequestParams(task="solar_forecast", system_kw=8),
    )
    reading = understand("hmm what if it was 12 kw instead", context)
    assert reading.intent == "live_data" and reading.params.system_kw == 12.0 and not reading.facts


def test_the_top_of_a_bill_is_no_priority() -> None:
    saved = _saved("from the top of my bill: 'AEP Ohio   Service Address: ... Columbus OH 43214'")
    assert "preferences.budget_priority" not in saved and saved["location.zip_code"] == "43214"
    assert _saved("saving money is my top priority")["preferences.budget_priority"] == "high"


def test_a_run_priced_from_the_power_and_hours_they_give(runtime) -> None:
    """ "how much does it cost to run a 1500w space heater for like 8 hrs" got "I don't have a
    sourced typical energy figure for a space heater" though every number was given (a homeowner
    trying the bot); it is 12 kWh at their price, said as their figures."""
    user = new_user(runtime, **{"location.zip_code": "30307", "location.utility_provider": "Georgia Power"})
    reply = runtime.service.handle_turn(
        user, "s1", "how much does it cost to run a 1500w space heater for like 8 hrs"
    )
    assert "12.00 kWh for an 8-hour run" in reply.text and "your own figures" in reply.text
    assert "$1.64" in reply.text  # 12 kWh at Georgia's 13.7 ¢/kWh average
    heater = understand("how much to run a 1500 watt heater for 3 hours", ReadingContext())
    assert heater.intent == "live_data" and heater.params.appliance == "heater"
    assert (heater.params.appliance_kw, heater.params.run_hours) == (1.5, 3.0)
    panels = understand("24 panels at 400w each", ReadingContext())
    assert panels.params.appliance_kw is None and panels.intent == "profile_statement"


def test_a_new_question_after_a_live_answer_is_not_its_follow_up() -> None:
    """ "whats time of use pricing and should i switch" after a space-heater price repeated the
    heater; "is ev2a actually cheaper than e-tou-c for me? we use like 900 kwh a month" after a
    charging plan repeated the plan. A question of its own gets its own answer; a bare usage or
    "and tomorrow?" still redoes the last one."""
    after_heater = ReadingContext(
        last_intent="live_data",
        last_topic="rates",
        last_params=RequestParams(task="appliance", appliance="space heater"),
    )
    assert (
        understand("whats time of use pricing and should i switch", after_heater).params.task != "appliance"
    )
    after_plan = ReadingContext(
        last_intent="live_data", last_topic="ev_charging", last_params=RequestParams(task="charging_plan")
    )
    compare = understand(
        "is ev2a actually cheaper than e-tou-c for me? we use like 900 kwh a month", after_plan
    )
    assert compare.params.task == "plan_comparison" and not compare.follow_up
    assert understand("we use about 700 kwh a month", after_plan).follow_up


def test_the_utility_question_gives_examples_from_their_own_state(runtime) -> None:
    """An Ohioan was asked "Which electric utility serves your home (for example PG&E or SDG&E)?"."""
    user = new_user(runtime, **{"location.zip_code": "43214"})
    asked = runtime.service.handle_turn(
        user, "s1", "how much would it cost to charge per month if i drive 1000 miles"
    )
    assert asked.asked_for == "utility" and "AEP" in asked.text and "SDG&E" not in asked.text
    assert "Duke Energy" in question_for("utility", None)


def test_a_new_utility_drops_a_plan_only_the_old_one_offers(runtime) -> None:
    """After "moved to san diego last month, 92104, sdge now" the profile kept PG&E's EV2-A and the
    next plan was priced on PG&E's tariff for an SDG&E home."""
    user = new_user(
        runtime,
        **{
            "location.zip_code": "95125",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "EV2-A",
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "we moved to san diego last month, 92104, sdge now")
    assert stored(runtime, user, "location.utility_provider") == "SDG&E"
    assert stored(runtime, user, "location.rate_schedule") is None
    assert "dropped your rate plan EV2-A, which is a PG&E plan" in reply.text
    kept = new_user(runtime, **{"location.utility_provider": "PG&E", "location.rate_schedule": "E-TOU-C"})
    runtime.service.handle_turn(kept, "s1", "our utility is pg&e")
    assert stored(runtime, kept, "location.rate_schedule") == "E-TOU-C"


def test_a_doubted_utility_beside_a_skipped_plan_is_still_said_as_not_saved(runtime) -> None:
    """ "our utility is aep ohio i think. not sure what rate plan we're on tbh" answered only the
    skip ("No problem, I'll skip that"), never that AEP was not kept."""
    user = new_user(runtime, **{"location.zip_code": "43215"})
    reply = runtime.service.handle_turn(
        user, "s1", "our utility is aep ohio i think. not sure what rate plan we're on tbh"
    )
    assert "I haven't saved anything about the utility" in reply.text
    assert stored(runtime, user, "location.utility_provider") is None


def test_a_range_corrected_in_place_redoes_the_plan_and_undoes_nothing(runtime) -> None:
    """ "actually its 40 miles not 60" after a plan for 60 miles undid every fact saved in the thread
    (ZIP, utility, household, car); "actually its more like 40 miles" planned for 60 again."""
    user = new_user(runtime)
    service = runtime.service
    service.handle_turn(
        user,
        "s1",
        "2 adults 1 toddler in raleigh 27609, duke energy. we just got a bolt euv. whens cheapest to charge",
    )
    service.handle_turn(user, "s1", "we usually leave at 7:15, need maybe 60 miles")
    fixed = service.handle_turn(user, "s1", "actually its 40 miles not 60")
    assert "Undone" not in fixed.text and "40 miles of range" in fixed.text
    assert stored(runtime, user, "location.zip_code") == "27609"
    again = service.handle_turn(user, "s1", "actually its more like 30 miles")
    assert "30 miles of range" in again.text


@pytest.mark.parametrize(
    "text",
    [
        "Good morning. We heat our home with an oil boiler and a neighbor tells me a heat pump would save us money. Is that true for Hartford winters? Regards, Walter",
        "we heat w/ propane, paying $3.10/gal. thinking abt a cold climate heat pump, whats the break even",
    ],
)
def test_a_heat_pump_someone_suggests_or_they_think_about_is_not_theirs(text: str) -> None:
    """From the eleventh fresh set: both saved a heat pump as their heating."""
    assert "equipment.heating_type" not in _saved(text)
    assert (
        _saved("we got a heat pump last year, whats the payback on solar")["equipment.heating_type"]
        == "heat_pump"
    )


def test_a_value_asked_to_be_confirmed_is_not_saved() -> None:
    """ "the battery's like 200 kwh right" saved a 200 kWh battery."""
    assert not understand("the battery's like 200 kwh right", ReadingContext()).facts
    assert _saved("we have 6 kw of solar, right on the roof")["equipment.solar_capacity_kw"] == 6.0


def test_okc_is_oklahoma_city() -> None:
    assert _saved("we live in okc")["location.city"] == "Oklahoma City"


def test_equipment_said_not_theirs_is_removed_when_the_profile_holds_it(runtime) -> None:
    """ "thats from the old house, we dont have solar here" with 6 kW of solar saved was read as
    nothing at all (eleventh fresh set); it removes the solar, and says so."""
    user = new_user(runtime, **{"location.zip_code": "94110", "equipment.solar_capacity_kw": 6.0})
    reply = runtime.service.handle_turn(user, "s1", "thats from the old house, we dont have solar here")
    assert stored(runtime, user, "equipment.solar_capacity_kw") is None and "6 kW" in reply.text
    assert (
        understand("we dont have solar", ReadingContext()).intent != "forget"
    )  # nothing held, nothing removed


def test_a_car_listed_with_the_charger_it_is_on_is_theirs() -> None:
    """ "…, 5 of us, model y on a 40 amp wall charger" saved the charger and lost the car."""
    saved = _saved("we're in arlington tx, oncor area, 5 of us, model y on a 40 amp wall charger")
    assert saved["equipment.ev_model"] == "Tesla Model Y" and saved["equipment.ev_charger_kw"] == 9.6


def test_a_power_figure_is_never_a_times_minutes() -> None:
    assert read_params("run the dryer by 6:30 w/ the eco cycle").appliance_kw is None
    assert read_params("my 800 watt dehumidifier runs all day").appliance == "dehumidifier"


def test_a_move_to_a_utility_outside_the_catalog_drops_the_old_plan_too(runtime) -> None:
    user = new_user(runtime, **{"location.utility_provider": "PG&E", "location.rate_schedule": "E-TOU-C"})
    reply = runtime.service.handle_turn(user, "s1", "we moved to raleigh 27609, duke energy now")
    assert (
        stored(runtime, user, "location.rate_schedule") is None
        and "E-TOU-C, which is a PG&E plan" in reply.text
    )


def test_a_plan_named_in_a_cost_question_is_priced_and_not_saved(runtime) -> None:
    """ "ok and what would that cost me overnight on ev2-a" asked for a ZIP though EV2-A says whose
    prices (and time zone) to use; a customer on E-TOU-C asking about EV2-A gets EV2-A's price and
    keeps E-TOU-C."""
    user = new_user(
        runtime,
        **{
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "E-TOU-C",
            "equipment.ev_model": "Tesla Model 3",
        },
    )
    reply = runtime.service.handle_turn(user, "s1", "what would charging tonight cost me on ev2-a")
    assert "This is on EV2-A, the plan you asked about" in reply.text and "(off-peak)" in reply.text
    assert stored(runtime, user, "location.rate_schedule") == "E-TOU-C"
    stranger = new_user(runtime, **{"equipment.ev_model": "Tesla Model 3"})
    priced = runtime.service.handle_turn(stranger, "s1", "what would it cost me to charge overnight on ev2-a")
    assert priced.asked_for is None and "EV2-A" in priced.text


def test_a_load_that_runs_all_day_is_priced_by_the_month(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "74104", "location.utility_provider": "OG&E"})
    reply = runtime.service.handle_turn(
        user, "s-rig", "my mining rig runs 24/7 at like 1.2 kw, whats that costing me monthly"
    )
    daily = float(re.search(r"costs about \$(\d+\.\d\d) for a 24-hour run", reply.text).group(1))
    monthly = float(re.search(r"about \$(\d+) a month", reply.text).group(1))
    assert "mining rig" in reply.text and abs(monthly - daily * 30.4) <= 1


def test_not_knowing_the_plan_on_a_utility_with_a_usual_plan_redoes_the_answer_on_it(runtime) -> None:
    user = new_user(runtime, **{"location.zip_code": "94110", "location.utility_provider": "PG&E"})
    runtime.service.handle_turn(user, "s-pge", "model 3 here, need 80 by 7am")
    reply = runtime.service.handle_turn(user, "s-pge", "idk what plan im on")
    assert "E-TOU-C" in reply.text and "my answer above stands" not in reply.text


def test_plugging_in_at_eleven_after_tonight_said_before_dawn_is_this_evening() -> None:
    """ "when shud i plug in tonite … need 80 by 7" asked at 3:30 am, then "if i cant plug in till
    11": 11 pm this evening, for 7 am the morning after (it had said the car was home already)."""
    said_at = datetime(2026, 11, 27, 3, 30, tzinfo=LA)
    turn = TurnContext(user_id="u", profile=_MODEL_3_ON_EV2A, now=said_at.astimezone(timezone.utc))
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    plan = plan_charging(data, turn, 25, 80, 7, False, tonight=True, plug_in_hour=23)
    starts = [datetime.fromisoformat(start) for start, _ in plan.facts["windows"]]
    assert plan.ok and min(starts) >= datetime(2026, 11, 27, 23, 0, tzinfo=LA)
    said = plan.summary + " ".join(plan.assumptions)
    assert "the car is home already" not in said and "plugged in at 23:00" in said


def test_by_seven_pm_tonight_said_before_dawn_is_this_evening() -> None:
    """A night-shift nurse at 2:40 am: "need full charge by 7pm tonight" is today's 19:00 (it had
    been planned for 19:00 the day after)."""
    said_at = datetime(2026, 11, 27, 2, 40, tzinfo=LA)
    turn = TurnContext(user_id="u", profile=_MODEL_3_ON_EV2A, now=said_at.astimezone(timezone.utc))
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    plan = plan_charging(data, turn, 45, 100, 19, False, tonight=True)
    ends = [datetime.fromisoformat(end) for _, end in plan.facts["windows"]]
    assert plan.ok and max(ends) <= datetime(2026, 11, 27, 19, 0, tzinfo=LA)


def test_tomorrows_deadline_is_said_from_now_not_from_the_plug_in() -> None:
    """ "need 90% by 6:45 tmrw" at 4 am, plugged in at midnight: tomorrow's 6:45, not the day after's."""
    said_at = datetime(2026, 11, 27, 4, 0, tzinfo=LA)
    turn = TurnContext(user_id="u", profile=_MODEL_3_ON_EV2A, now=said_at.astimezone(timezone.utc))
    data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())
    plan = plan_charging(
        data, turn, 35, 90, 6, False, ready_by_minute=45, ready_by_day="tomorrow", plug_in_hour=0
    )
    windows = [
        (datetime.fromisoformat(start), datetime.fromisoformat(end)) for start, end in plan.facts["windows"]
    ]
    assert plan.ok and min(s for s, _ in windows) >= datetime(2026, 11, 28, 0, 0, tzinfo=LA)
    assert max(e for _, e in windows) <= datetime(2026, 11, 28, 6, 45, tzinfo=LA)
