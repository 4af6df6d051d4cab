"""Two requests in one message ("whens peak today and is it gonna rain") get two answers: the
message is cut before the second request, the first is answered with everything the user said, the
second right after as its own turn, and both go out as one reply. The cut is made only when it is
sure: a second half that points back, explains why they asked, or names no subject stays part of
the first request."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from advisor.understanding.requests import split_requests
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user, stored


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("two-requests"), clock=lambda: NOW)
    yield built
    built.close()


def split(text: str, **context: Any):
    reading = ReadingContext(**context)
    return split_requests(text, understand(text, reading), reading, understand)


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        (
            "when should i charge my leaf and is it ok to run the dryer now? pge e-tou-c 94110",
            "when should i charge my leaf? pge e-tou-c 94110",
            "is it ok to run the dryer now?",
        ),
        ("what are rates tmrw and also is it gonna be sunny", "what are rates tmrw", "is it gonna be sunny"),
        ("2 q's: whens peak today and is it gonna rain", "2 q's: whens peak today", "is it gonna rain"),
        ("peak hrs today? and is it supposed to snow tmrw", "peak hrs today?", "is it supposed to snow tmrw"),
        (
            "whats the cheapest time to charge my bolt and is it worth getting a home battery",
            "whats the cheapest time to charge my bolt",
            "is it worth getting a home battery",
        ),
        (
            "is it bad to charge to 100% every night? i need 80% by 6:30 tomorrow, at 30% now",
            "is it bad to charge to 100% every night?",
            "i need 80% by 6:30 tomorrow, at 30% now",
        ),
    ],
)
def test_a_second_request_of_another_kind_is_cut_off_for_its_own_answer(
    text: str, first: str, second: str
) -> None:
    found = split(text)
    assert found is not None
    assert (found.first, found.second) == (first, second)


@pytest.mark.parametrize(
    "text",
    [
        "when should i charge my leaf and how much will it cost",  # the same request's cost
        "whats a VPP and should i sign up",  # about the first question's subject
        "whats community solar and can renters sign up",  # two explanations are searched together
        "gonna be hot tmrw? wondering if i should precool the house",  # why they asked
        "pool pump has to run 8 hrs a day. what hours should i set the timer to",  # one request
        "is 4 to 9 the expensive stretch on my plan, and is it the same on weekends",  # points back
        "hot tub heater - overnight or midday?",  # one question in two pieces
        "i think the battery is like 60 something kwh? not sure. when should i charge tonight",
        "Hello, I want to know what time is good for wash clothes today. Electricity is more expensive in "
        "afternoon, yes?",  # a check on the first, not a second request
        "MUST have the Mach-E at 90% by 6 AM Tuesday, we're driving up to Asheville.  what's the plan",
    ],
)
def test_one_request_said_in_pieces_is_not_cut(text: str) -> None:
    assert split(text) is None


def test_nothing_is_cut_while_we_wait_for_an_answer() -> None:
    assert split("whens peak today and is it gonna rain", pending_slot="location") is None


def test_both_requests_are_answered_in_one_reply_and_the_facts_saved_once(runtime: Any) -> None:
    user = new_user(runtime)
    reply = runtime.service.handle_turn(
        user, "two", "when should i charge my leaf and is it ok to run the dryer now? pge e-tou-c 94110"
    )
    text = reply.text
    assert "kWh from the grid" in text  # the charging plan
    assert "dryer" in text.split("kWh from the grid", 1)[1]  # and the dryer after it
    assert text.count("Offline mode") == 1  # the closing line said once
    assert stored(runtime, user, "equipment.ev_model") == "Nissan Leaf"
    assert stored(runtime, user, "location.rate_schedule") == "E-TOU-C"
    assert text.count("Saved:") == 1
    session = runtime.service.sessions.get(user, "two")
    said = [m.content for m in session.messages if m.role == "user"]
    assert said == ["when should i charge my leaf? pge e-tou-c 94110", "is it ok to run the dryer now?"]
    assert reply.turn == 1 and reply.next_request is None


def test_a_second_request_waits_while_the_first_asks_for_what_it_needs(runtime: Any) -> None:
    """No ZIP yet: the first request asks for it, and the weather is not asked for again beside it."""
    user = new_user(runtime)
    reply = runtime.service.handle_turn(user, "wait", "whens peak today and is it gonna rain")
    assert reply.asked_for is not None
    assert runtime.service.sessions.get(user, "wait").turn_count == 1


def test_a_second_request_waits_for_the_question_and_is_answered_with_the_first(runtime: Any) -> None:
    """ "whens peak today and is it gonna rain" from someone with no ZIP: the ZIP is asked once,
    and the answer that resumes the prices answers the weather too (it had been dropped)."""
    user = new_user(runtime)
    asked = runtime.service.handle_turn(user, "queued", "whens peak today and is it gonna rain")
    assert asked.asked_for == "location"
    runtime.service.handle_turn(user, "queued", "80202")
    answered = runtime.service.handle_turn(user, "queued", "xcel")
    assert "Xcel Energy" in answered.text
    assert "°C" in answered.text or "forecast" in answered.text.lower()  # the weather, after the prices
    session = runtime.service.sessions.get(user, "queued")
    assert [m.content for m in session.messages if m.role == "user"][-1] == "is it gonna rain"
    assert session.queued_request is None
