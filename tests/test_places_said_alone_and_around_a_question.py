"""A place said alone is where the user lives, and a place said around a question does not hide the
question from the answer check ("im in ohio w aep. how do i lower my bill" was declined)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from advisor.understanding.reader import understand
from advisor.understanding.values import without_place_clauses
from tests.advisor_helpers import make_runtime


@pytest.fixture
def knowledge_runtime(data_dir: Path):
    runtime = make_runtime(
        data_dir, knowledge=True, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    )
    yield runtime
    runtime.close()


@pytest.mark.parametrize("text", ["chicago", "austin tx", "Des Moines, IA", "in tulsa", "chicago il 60614"])
def test_a_place_alone_is_saved_not_asked_about(text: str) -> None:
    reading = understand(text)
    assert reading.intent == "profile_statement" and not reading.asks
    assert {f.field for f in reading.facts} & {"location.city", "location.zip_code"}


def test_a_place_with_a_subject_is_still_a_question() -> None:
    assert understand("austin tx, is solar worth it").intent == "knowledge"
    assert understand("chicago weather").intent == "live_data"


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("im in ohio w aep. how do i lower my bill", "how do i lower my bill"),
        (
            "dallas 75204, oncor. whats the difference between delivery and supply",
            "whats the difference between delivery and supply",
        ),
        ("pge customer here, whats e-tou-c", "whats e-tou-c"),
    ],
)
def test_clauses_that_only_say_where_are_left_out_of_the_question_judged(text: str, asked: str) -> None:
    assert without_place_clauses(text, understand(text).facts) == asked


@pytest.mark.parametrize(
    "text",
    [
        "were in columbus, gas heat, 2 kids. how do i lower my bill",  # the home stays: it is theirs
        "how do rebates work in california",  # a place inside the question is part of it
        "chicago",  # never nothing at all
    ],
)
def test_clauses_that_say_more_than_where_are_kept(text: str) -> None:
    judged = without_place_clauses(text, understand(text).facts)
    assert "how do i lower my bill" in judged or judged == text
    assert ("gas heat" in judged) if "gas heat" in text else judged == text


def test_a_question_with_the_home_said_first_is_answered(knowledge_runtime) -> None:
    reply = knowledge_runtime.service.handle_turn("T-OHIO", "t", "im in ohio w aep. how do i lower my bill")
    assert reply.citations and reply.citations[0] == "lowering-an-electric-bill.md"
    assert "I don't have a source" not in reply.text
