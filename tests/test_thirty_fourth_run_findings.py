"""What the thirty-fourth first run (h79 New England and New York; h80 the Upper Midwest and Plains;
h81 the West Coast and Hawaii) found, as behaviour: a plan put right with an apology first, a
relative's equipment said as "my folks", one of both cars to charge, a plan weighed, a utility's
short name answering the utility question, and a household count put right ("forgot the baby")."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand


def saved(text: str, **context: Any) -> dict[str, object]:
    return {f.field: f.value for f in understand(text, ReadingContext(**context)).facts}


def test_a_sisters_plan_put_right_after_an_apology_is_not_theirs() -> None:
    assert saved("wait i mixed it up, ev2-a is my sister's plan. ours is e-elec") == {
        "location.rate_schedule": "E-ELEC"
    }


def test_my_folks_equipment_is_theirs_not_the_users() -> None:
    assert saved("my folks in fargo just put geothermal in, is that actually worth it up there") == {}
    assert saved("we have geothermal, my folks do too") == {"equipment.heating_type": "heat_pump"}


def test_one_of_both_cars_to_charge_is_not_saved() -> None:
    reading = understand("both cars need 70% by 7:30 tmrw, the ioniq and the bolt", ReadingContext())
    assert reading.facts == [] and reading.params.target_soc_pct == 70
    assert saved("my bolt needs 80% by 7") == {"equipment.ev_model": "Chevrolet Bolt EV"}


@pytest.mark.parametrize(
    "text",
    ["now that we have a 2nd ev am i better off on tou-d-prime", "is it worth switching to ev2-a"],
)
def test_a_plan_weighed_is_not_the_plan_they_are_on(text: str) -> None:
    assert "location.rate_schedule" not in saved(text)


def test_the_plan_they_leave_and_the_one_they_moved_to_are_still_theirs() -> None:
    assert saved("should i switch from e-tou-c to ev2-a") == {"location.rate_schedule": "E-TOU-C"}
    assert saved("we switched to ev2-a last month") == {"location.rate_schedule": "EV2-A"}


def test_green_mountain_answering_the_utility_question_is_green_mountain_power() -> None:
    assert saved("green mountain", pending_slot="utility") == {
        "location.utility_provider": "Green Mountain Power"
    }
    assert saved("we hiked green mountain today") == {}


def test_a_household_count_put_right_after_it_was_said() -> None:
    first = "it's the two of us plus my mother in law now, she's home all day so our usage is pretty steady"
    context = {
        "known_fields": {"household.occupants": 3},
        "recent": [f"user: {first}", "advisor: Saved: 3 people", "user: wait it's 4, forgot the baby lol"],
    }
    assert saved("wait it's 4, forgot the baby lol", **context) == {"household.occupants": 4}


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("whats the difference between TOU and tiered", ("TOU", "tiered")),
        (
            "induction vs radiant glass top, is induction really cheaper to run",
            ("induction", "radiant glass top"),
        ),
        ("how do heat pumps work", None),
        ("is a heat pump cheaper than gas", None),
    ],
)
def test_the_two_sides_a_question_weighs(question: str, sides: tuple[str, str] | None) -> None:
    from knowledge.comparison import compared_sides

    assert compared_sides(question) == sides


def test_a_comparison_is_answered_from_both_sides_sections_and_cites_both(tmp_path) -> None:
    """A homeowner-tester: "whats the difference between TOU and tiered" was answered from the
    time-of-use section alone, with nothing on tiered rates."""
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW, knowledge=True)
    try:
        reply = runtime.service.handle_turn(
            new_user(runtime), "s1", "whats the difference between TOU and tiered"
        )
        assert "[1]" in reply.text and "[2]" in reply.text
        assert "tiered rate" in reply.text and "Time-of-use" in reply.text
        assert 'Sources: [1] "How time-of-use' in reply.text and '[2] "How tiered' in reply.text
    finally:
        runtime.close()


def test_a_follow_up_asking_about_something_new_is_answered_from_where_it_is_answered(tmp_path) -> None:
    """The stop hook's homeowner: "what about adding a battery" after "thinking about solar … is it
    worth it?" got "That's everything my sources say" (only the solar documents were searched)."""
    from tests.advisor_helpers import make_runtime
    from tests.test_homeowner_findings import NOW, new_user

    runtime = make_runtime(tmp_path, clock=lambda: NOW, knowledge=True)
    try:
        user = new_user(runtime)
        runtime.service.handle_turn(
            user, "s1", "thinking about solar, we're in 85284 on srp, is it worth it?"
        )
        battery = runtime.service.handle_turn(user, "s1", "what about adding a battery")
        assert "That's everything my sources say" not in battery.text
        assert battery.citations and "batter" in battery.citations[0]
    finally:
        runtime.close()
