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
