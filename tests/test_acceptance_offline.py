"""Spec 001 acceptance scenarios through the conversation service, in offline mode."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from advisor.llm.offline import OFFLINE_LABEL
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime

LA = ZoneInfo("America/Los_Angeles")


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc))  # 10:00 in San Francisco


def test_configured_user_gets_an_off_peak_window_with_cost_and_reason(data_dir: Path, clock: Clock) -> None:
    clock.now = datetime(2026, 1, 22, 2, 0, tzinfo=timezone.utc)  # 18:00 local: peak now
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)

    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")

    assert reply.offline and OFFLINE_LABEL in reply.text
    window = re.search(
        r"Cheapest before 07:00: (\d\d):(\d\d)-(\d\d):(\d\d) tomorrow \(off-peak\) for \$(\d+\.\d\d)",
        reply.text,
    )
    assert window, reply.text
    start, end = int(window.group(1)), int(window.group(3))
    assert 0 <= start < end <= 15  # EV2-A off-peak is midnight to 3 pm
    plugged_in_now = re.search(r"vs \$(\d+\.\d\d) if plugged in now \(saves \$(\d+\.\d\d)\)", reply.text)
    assert plugged_in_now and float(plugged_in_now.group(2)) > 0  # the reason: it is cheaper than now
    assert "(Sample data: the data APIs are in mock mode.)" in reply.text


def test_first_time_user_is_asked_for_location_and_utility_before_any_advice(
    data_dir: Path, clock: Clock
) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    service = runtime.service

    asked = []
    for text in ["When should I charge my EV?", "94102", "PG&E", "EV2-A"]:
        reply = service.handle_turn("T1-NEW", "thread-1", text)
        assert "$" not in reply.text  # no recommendation before the profile is complete
        asked.append(reply.asked_for)
    assert asked == ["location", "utility", "rate_schedule", "ev"]
    assert "ZIP code" in service.sessions.get("T1-NEW", "thread-1").messages[1].content

    final = service.handle_turn("T1-NEW", "thread-1", "A Tesla Model 3")
    assert final.asked_for is None and "Cheapest before" in final.text  # the original question, answered
    profile = service.profiles.get("T1-NEW")
    assert (profile.location.zip_code, profile.location.utility_provider, profile.location.rate_schedule) == (
        "94102",
        "PG&E",
        "EV2-A",
    )
    assert profile.location.updated_at == clock.now and profile.equipment.ev_model == "Tesla Model 3"
    onboarding = {change["field"]: change["source"] for change in final.profile_changes}
    assert onboarding["equipment.ev_model"] == {
        "kind": "onboarding",
        "session_id": "thread-1",
        "turn": 5,
        "text": "A Tesla Model 3",
    }


def test_work_from_home_then_bye_updates_the_profile_with_its_source(data_dir: Path, clock: Clock) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    service = runtime.service

    first = service.handle_turn("T1-U1", "thread-1", "I started working from home last month")
    assert first.intent == "profile_statement" and not first.memorized
    # saved in the turn (FR-012), and the reply says exactly that, in plain words
    household = service.profiles.get("T1-U1").household
    assert household.work_schedule == "WFH" and household.updated_at == clock.now
    assert first.text == "Updated: you work from home (was Office 9-5)."
    (change,) = first.profile_changes
    assert (change["old_value"], change["new_value"], change["operation"]) == ("Office 9-5", "WFH", "updated")
    assert change["source"] == {
        "kind": "user_statement",
        "session_id": "thread-1",
        "turn": 1,
        "text": "I started working from home last month",
    }
    clock.now += timedelta(minutes=3)
    bye = service.handle_turn("T1-U1", "thread-1", "bye")

    assert bye.intent == "goodbye" and bye.memorized
    assert bye.text == "Bye! Thanks for chatting."  # the memorizer never re-applies the turn's fact
    history = service.profiles.get("T1-U1").history
    assert [(entry.field, entry.source.kind) for entry in history] == [
        ("household.work_schedule", "user_statement")
    ]
    session = service.sessions.get("T1-U1", "thread-1")
    assert session.memorized_through_turn == 2 and session.status == "ended"


def test_demo_profile_gets_the_plan_mismatch_notice(
    data_dir: Path, clock: Clock, demo_profile_data: dict[str, Any]
) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(demo_profile_data)
    reply = runtime.service.handle_turn("home_123", "thread-1", "When should I charge my EV?")
    assert "Your profile says PG&E with rate plan EV-TOU-5, but EV-TOU-5 is an SDG&E plan" in reply.text
    assert "E-TOU-C, EV2-A, E-ELEC" in reply.text
    # and the 220-day-old schedule is flagged for confirmation
    assert re.search(
        r"schedule: Office 9-5.*household, last confirmed \d+ days ago\) — is that still right\?", reply.text
    )


def test_remember_that_saves_at_once(data_dir: Path, clock: Clock) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "Remember that we are 4 people now")
    assert runtime.service.profiles.get("T1-U1").household.occupants == 4
    assert reply.text.startswith("Updated: there are 4 people in your home (was ")


def test_knowledge_question_without_a_knowledge_base_says_so(data_dir: Path, clock: Clock) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "How do heat pumps work?")
    assert reply.intent == "knowledge" and "I don't have a source" in reply.text


def test_empty_and_huge_messages(data_dir: Path, clock: Clock) -> None:
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    empty = runtime.service.handle_turn("T1-U1", "thread-1", "   \n ")
    assert "I didn't get any text" in empty.text and runtime.service.sessions.get("T1-U1", "thread-1") is None
    huge = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV? " + "please " * 1500)
    assert huge.text.startswith("Your message was very long, so I read only its first 1000 words.")
    assert (
        len(runtime.service.sessions.get("T1-U1", "thread-1").messages[0].content.split()) > 1000
    )  # stored whole


def test_turn_threshold_memorizes_after_the_reply_not_inside_the_turn(data_dir: Path, clock: Clock) -> None:
    from bot.chat import run_chat

    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    lines = iter(["I work from home now"] + ["When should I charge my EV?"] * 9 + ["/quit"])
    output: list[str] = []
    run_chat(runtime.service, user_id="T1-U1", read=lambda prompt: next(lines), write=output.append)
    replies = [line for line in output if line.startswith("advisor> ")]
    assert replies[0] == "advisor> Updated: you work from home (was Office 9-5)."  # saved in its turn
    session = runtime.service.sessions.get("T1-U1", "chat-T1-U1") or runtime.service.sessions.latest("T1-U1")
    assert session.memorized_through_turn == 10  # the threshold run happened after the tenth reply
    history = runtime.service.profiles.get("T1-U1").history
    assert len(history) == 1  # ... and did not apply the statement a second time
