"""What the thirtieth first run (h67 Mountain West ranches and co-ops, h68 young renters in the
Mid-Atlantic and Southeast, h69 Midwest and Plains families, many writing in a second language)
found, as behaviour: whose car, house or utility a message names, heat and cooling said by what they
run on, machines the appliance table does not list, answers given with their verb ("Is Evergy"),
chat filler before a question, and a town whose name starts "St."."""

from __future__ import annotations

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.params import read_params
from advisor.understanding.reader import understand
from advisor.understanding.text import sentences


def saved(text: str, context: ReadingContext | None = None) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, context or ReadingContext()).facts}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (
            "my wife's parents in las cruces have a chevy volt, how should they be charging it",
            "equipment.ev_model",
        ),
        (
            "my roommate has a model 3 and wants to know if its cheaper for her to charge here",
            "equipment.ev_model",
        ),
        ("one of my roommates has a leaf, can she charge it off the porch outlet", "equipment.ev_model"),
        (
            "we're lookin at buying a place near driggs that already has 12 kw of panels. what would that make",
            "equipment.solar_capacity_kw",
        ),
        ("hang on whats the difference between a co-op and xcel anyway", "location.utility_provider"),
        ("fyi were moving to a house in durham in the spring and it'll have solar", "location.city"),
        (
            "bro my power bill doubled 💀 we have an old heat pump in our first house, is it time to replace it",
            "preferences.budget_priority",
        ),
    ],
)
def test_what_is_not_theirs_or_not_said_is_not_saved(text: str, field: str) -> None:
    assert field not in saved(text)


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("and we use gas for the heat", "equipment.heating_type", "gas"),
        (
            "sorry, my mistake. the heat is electric, the gas is only for the stove",
            "equipment.heating_type",
            "electric",
        ),
        (
            "we just put in hyper heat mini splits for the whole house and ripped out the gas boiler",
            "equipment.heating_type",
            "heat_pump",
        ),
        ("its central air btw", "equipment.cooling_type", "central_ac"),
        ("nope its mini splits, not central air", "equipment.cooling_type", "mini_split"),
        ("is it bad to charge my kona to 100 every night", "equipment.ev_model", "Hyundai Kona Electric"),
        ("townhouse in richmond w dominion", "location.utility_provider", "Dominion Energy"),
        (
            "we're in st. george w rocky mountain power, 12 kw solar. how much will we make tmrw",
            "location.city",
            "St. George",
        ),
        ("money first then comfort", "preferences.budget_priority", "high"),
        (
            "I am a nurse, I work in the night. Which hour I can charge my car cheap?",
            "household.work_schedule",
            "Night shift",
        ),
        ("on 3rd shift now, home at 7:30am, need 90% by 9:30pm", "household.work_schedule", "Night shift"),
    ],
)
def test_what_they_say_of_their_home_the_way_they_say_it_is_saved(
    text: str, field: str, value: object
) -> None:
    assert saved(text).get(field) == value


def test_a_kona_named_as_a_hybrid_is_no_ev() -> None:
    assert "equipment.ev_model" not in saved("we also have a kona hybrid for errands")


def test_saint_and_fort_begin_a_town_not_a_sentence() -> None:
    assert sentences("we're in st. george, 12 kw solar. how much tmrw")[0].startswith("we're in st. george")
    assert len(sentences("we got here first. how much will we make")) == 2


@pytest.mark.parametrize(
    ("text", "appliance"),
    [
        ("whens cheapest to run the welder tomorrow", "welder"),
        ("the stock tank heater, when should it be running", "stock tank heater"),
        ("best time to use the sauna", "sauna"),
        (
            "shop has a 250 amp stick welder and a big compressor. whens cheapest to run em tomorrow",
            "stick welder",
        ),
    ],
)
def test_a_machine_the_table_does_not_list_is_timed(text: str, appliance: str) -> None:
    reading = understand(text)
    assert reading.params.appliance == appliance and reading.params.task == "appliance"


@pytest.mark.parametrize("text", ["can i run the numbers on solar", "when should i run the heat"])
def test_what_is_run_that_is_no_machine_is_no_appliance(text: str) -> None:
    assert read_params(text).appliance is None


def test_the_utility_answered_with_its_verb_is_the_answer() -> None:
    asked = ReadingContext(pending_slot="utility")
    assert saved("Is Evergy", asked)["location.utility_provider"] == "Evergy"
    assert "location.utility_provider" not in saved("is xcel cheaper", asked)


def test_chat_filler_before_a_question_keeps_it_a_question() -> None:
    reading = understand("ok fine lol what uses the most electricity in an apartment")
    assert reading.asks and reading.intent != "profile_statement"


def test_whether_an_hour_is_cheapest_is_read_off_the_prices() -> None:
    context = ReadingContext(known_fields={"location.city": "Reno"})
    text = "my neighbor just got a rivian and charges it at like 2am, is that the cheapest time here"
    reading = understand(text, context)
    assert reading.params.task == "prices" or reading.intent == "knowledge"  # never the neighbour's plan
    assert (
        understand("my car charges at 2am, is that the cheapest time here", context).params.task
        != "charging_plan"
    )


def test_the_plan_asked_is_compared_whatever_car_is_the_reason() -> None:
    context = ReadingContext(
        known_fields={"location.zip_code": "27701", "location.utility_provider": "Duke Energy"}
    )
    assert (
        understand("which plan is best if i charge my kona overnight", context).params.task
        == "plan_comparison"
    )


def test_a_plan_named_unsure_is_no_request() -> None:
    context = ReadingContext(
        known_fields={"location.zip_code": "63376", "location.utility_provider": "Ameren"}
    )
    reading = understand("were on the evening/morning savers plan i think, not sure", context)
    assert reading.intent == "profile_statement" and "location.rate_schedule" not in saved(
        "were on the evening/morning savers plan i think, not sure", context
    )


def test_thanks_while_we_wait_for_a_zip_is_thanks() -> None:
    reading = understand("ok thanks, we'll prob make an offer", ReadingContext(pending_slot="location"))
    assert reading.intent == "smalltalk"


def test_a_car_got_only_if_they_got_it_and_only_the_one_they_named() -> None:
    context = ReadingContext(
        recent=["user: we test drove an ioniq 5 and a model y this weekend, which one is cheaper to charge"]
    )
    assert "equipment.ev_model" not in saved("if we got one would a 40 amp charger be enough", context)
    assert "equipment.ev_model" not in saved("ok we got one!", context)
    bought = ReadingContext(recent=["user: test drove a model 3 today, loved it"])
    assert saved("ok we bought it!!", bought)["equipment.ev_model"] == "Tesla Model 3"


def test_a_place_looked_at_is_where_its_estimate_is_for() -> None:
    reading = understand(
        "we're lookin at a ranch near dillon mt w 10kw of solar already on it, what would that make in a yr"
    )
    assert reading.params.place == "Dillon, MT" and reading.params.system_kw == 10.0 and not reading.facts


@pytest.mark.parametrize(
    ("text", "utility"),
    [
        ("we're on Butler Rural Electric Cooperative", "Butler Rural Electric Cooperative"),
        ("member of tri-county emc here in georgia", "Tri-County EMC"),
        ("we are with Delta-Montrose Electric Association", "Delta-Montrose Electric Association"),
    ],
)
def test_a_cooperative_no_table_lists_is_kept_as_named(text: str, utility: str) -> None:
    assert saved(text)["location.utility_provider"] == utility


@pytest.mark.parametrize("text", ["my brother is on jackson emc", "is holy cross energy a co-op"])
def test_a_cooperative_someone_else_is_on_or_asked_about_is_not_theirs(text: str) -> None:
    assert "location.utility_provider" not in saved(text)


# --- a homeowner-tester's sixteen conversations after the run ---------------------------------


def test_the_level_they_will_be_at_is_where_the_charge_starts() -> None:
    assert read_params("what about tomorrow, i'll be at 50%").current_soc_pct == 50.0
    assert read_params("need it to be at 80% by 7").target_soc_pct == 80.0


def test_another_car_asked_next_does_not_inherit_the_last_cars_level() -> None:
    from advisor.understanding.models import RequestParams
    from advisor.understanding.params import follow_up_params

    last = RequestParams(task="charging_plan", current_soc_pct=35, target_soc_pct=80, ready_by_hour=7)
    bolt = follow_up_params(
        RequestParams(vehicle="Chevrolet Bolt EV", target_soc_pct=60, ready_by_hour=8), last
    )
    assert bolt.current_soc_pct is None and bolt.target_soc_pct == 60
    same = follow_up_params(RequestParams(ready_by_hour=8), last)
    assert same.current_soc_pct == 35


def test_the_outlet_asked_for_someone_elses_car_is_that_answers_charger() -> None:
    context = ReadingContext(known_fields={"equipment.ev_model": "Hyundai Ioniq 5"})
    reading = understand(
        "my dad has a ford f-150 lightning and wants to know how long it takes to charge on a regular 120v outlet",
        context,
    )
    assert reading.params.vehicle == "Ford F-150 Lightning" and reading.params.charger_kw == 1.44
    assert understand("my neighbor has a 48a charger, when should i charge tonight").params.charger_kw is None


def test_the_cold_said_as_a_temperature_and_precool_said_as_one_word_are_searched_as_meant() -> None:
    from knowledge.glossary import spelled_out

    assert "cold weather" in spelled_out("can my heat pump run when its -25F")
    assert "cold weather" in spelled_out("will a heat pump work at 20 below")
    assert "cold" not in spelled_out("charge from 20 to 80")
    assert "pre-cooling" in spelled_out("should i precool the house before peak")


def test_peak_hours_asked_where_only_an_average_is_known_are_said_unknown(data_dir) -> None:
    from tests.advisor_helpers import make_runtime

    service = make_runtime(data_dir).service
    service.handle_turn("U-GA", "t", "atlanta 30306 georgia power")
    reply = service.handle_turn("U-GA", "t", "when is peak on georgia power")
    assert "I don't know Georgia Power's peak hours" in reply.text and "00:00-24:00" not in reply.text


def test_a_message_in_spanish_is_told_in_both_languages_what_the_advisor_can_do(data_dir) -> None:
    from tests.advisor_helpers import make_runtime

    service = make_runtime(data_dir).service
    reply = service.handle_turn("U-ES", "t", "mi factura de luz es muy alta, que puedo hacer?")
    assert "solo puedo responder en inglés" in reply.text and "I don't have a source" not in reply.text
    mixed = understand("Somos 5 en la casa. My husband work nights. We have OG&E.")
    assert not mixed.in_spanish and mixed.intent != "unclear"


def test_the_utility_question_names_the_towns_own_utility_first() -> None:
    from advisor.onboarding import question_for
    from profiles.models import UserProfile

    austin = UserProfile.model_validate({"user_id": "u", "location": {"zip_code": "78704"}})
    assert "(for example Austin Energy or" in question_for("utility", austin)


def test_the_miles_someone_drives_price_the_month() -> None:
    params = read_params("how much would her car cost per month if she drives 1000 miles")
    assert params.ev_miles_per_month == 1000.0 and params.monthly


def test_a_place_said_with_nothing_asked_is_no_question() -> None:
    assert understand("denver, or boulder").intent != "knowledge"


def test_the_first_words_of_a_utility_the_table_knows_are_that_utility() -> None:
    assert saved("nashville electric, 37206")["location.utility_provider"] == "Nashville Electric Service"
