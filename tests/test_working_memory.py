"""Issue 9: what the user says counts at once, is saved in its turn, and the reply says exactly
what was saved — offline and over the local Ollama-API server; follow-ups, forget/undo, the one
session write per turn, memorizer failures that are retried, and restart catch-up."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from bot.scheduler import MemorizeScheduler
from bot.service import ConversationService, Reply
from profiles.wording import describe_saved
from tests.advisor_helpers import app_config, make_runtime
from tests.servers.ollama import FakeOllama, Step, call, say
from traces.storage import load_trace

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)
EXAMPLE_1 = "My ZIP is 94102 and I'm on PG&E's EV2-A plan. I drive a Tesla Model 3 with a 57.5 kWh battery."
EXAMPLE_2 = (
    "I'm in 94110 with PG&E on the EV2-A plan and drive a Tesla Model Y with an 11 kW wall charger. "
    "When should I charge tonight to be ready by 8am?"
)


def clock() -> datetime:
    return NOW


def assert_claims_match_the_store(service: ConversationService, user: str, reply: Reply) -> None:
    """Whatever the reply says was saved, was saved; whatever was saved, the reply says."""
    profile = service.profiles.get(user)
    saved = [c for c in reply.profile_changes if c["operation"] in ("set", "updated")]
    for change in saved:
        section, name = change["field"].split(".")
        assert getattr(getattr(profile, section), name) == change["new_value"], change
    said = describe_saved(saved)
    assert said in reply.text
    turn_entries = [
        e
        for e in (profile.history if profile else [])
        if e.source.session_id == reply.session_id
        and e.source.turn == reply.turn
        and e.operation in ("set", "updated")
    ]
    assert sorted(e.field for e in turn_entries) == sorted(c["field"] for c in saved)


@pytest.fixture(params=["offline", "ollama"])
def provider(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each conversation offline and over the local Ollama-API server (statements need no model
    call in either; a scripted answer covers anything else)."""
    if request.param == "offline":
        yield "offline"
        return
    with FakeOllama(["llama3.1:8b"]) as server:
        server.responder = lambda body: Step(content="(answer)")
        yield server.url


def service_for(data_dir: Path, provider: str) -> ConversationService:
    if provider == "offline":
        return make_runtime(data_dir, clock=clock).service
    config = app_config(provider="ollama")
    service = make_runtime(data_dir, ollama_url=provider, config=config, clock=clock).service
    assert not service._offline
    return service


# --- offline and over Ollama ----------------------------------------------------------------------


def test_facts_then_a_question_gets_a_plan_not_onboarding(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    first = service.handle_turn("T1-N", "t", EXAMPLE_1)
    assert first.text.startswith(
        "Saved: your ZIP code is 94102 (San Francisco), your utility is PG&E, your rate plan is EV2-A, "
        "your EV is a Tesla Model 3 and your EV's battery holds 57.5 kWh."
    )
    assert_claims_match_the_store(service, "T1-N", first)
    assert "When this conversation ends" not in first.text and first.asked_for is None
    second = service.handle_turn("T1-N", "t", "When should I charge my EV tonight?")
    assert second.asked_for is None and "Cheapest before 07:00" in second.text


def test_facts_and_a_question_in_one_message_are_saved_and_answered(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    reply = service.handle_turn("T1-N", "t", EXAMPLE_2)
    assert reply.asked_for is None  # no onboarding question: everything needed was just said
    assert "your home charger delivers 11 kW" in reply.text and "Cheapest before 08:00" in reply.text
    assert_claims_match_the_store(service, "T1-N", reply)
    equipment = service.profiles.get("T1-N").equipment
    assert (equipment.ev_model, equipment.ev_charger_kw) == ("Tesla Model Y", 11.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("remember that my charger is 32 amps", "your home charger delivers 7.68 kW"),
        ("we have a 40 amp breaker for the charger", "your home charger delivers 7.68 kW"),
        ("remember that we have 2 powerwalls", "you have a home battery and your home battery holds 27 kWh"),
        ("no AC here, and I work from home", "you have no air conditioning and you work from home"),
        ("we replaced our gas furnace with a heat pump", "you heat with a heat pump"),
    ],
)
def test_statements_are_saved_in_their_turn(data_dir: Path, provider: str, text: str, expected: str) -> None:
    service = service_for(data_dir, provider)
    reply = service.handle_turn("T1-N", "t", text)
    assert reply.text.startswith("Saved: " + expected)
    assert_claims_match_the_store(service, "T1-N", reply)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "remember that we are 1000 people",
            "I can't save 1000 as the number of people in your home: it must be between 1 and 50.",
        ),
        (
            "remember that I have a -5 kWh battery",
            "I can't save -5 kWh as your home battery's size: it must be more than 0 kWh",
        ),
        (
            "My neighbor has a heat pump",
            "I haven't saved anything about the heating: it sounds like it's about someone else's home",
        ),
        (
            "I think we're on EV2-A but not sure",
            "I haven't saved anything about the rate plan: you didn't sound sure",
        ),
        ("remember that I like pizza", "I couldn't find anything in that I can save."),
    ],
)
def test_nothing_is_saved_and_the_reply_says_why(
    data_dir: Path, provider: str, text: str, expected: str
) -> None:
    service = service_for(data_dir, provider)
    reply = service.handle_turn("T1-N", "t", text)
    assert reply.text.startswith(expected)
    assert reply.profile_changes == []
    profile = service.profiles.get("T1-N")
    assert profile is None or profile.history == []


def test_follow_ups_re_plan_with_one_thing_changed(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", EXAMPLE_1)
    service.handle_turn("T1-N", "t", "When should I charge my EV tonight? I'm at 20% now")
    earlier = service.handle_turn("T1-N", "t", "what about by 6am instead?")
    assert "Cheapest before 06:00" in earlier.text and "from 20% to 80%" in earlier.text
    less = service.handle_turn("T1-N", "t", "and if I only need 50%?")
    assert "Cheapest before 06:00" in less.text and "from 20% to 50%" in less.text  # the 6am and 20% stay
    last = service.sessions.get("T1-N", "t").last_request
    assert last.params == {
        "task": "charging_plan",
        "ready_by_hour": 6,
        "target_soc_pct": 50.0,
        "current_soc_pct": 20.0,
        "day": "today",
        "tonight": True,
    }


def test_forget_and_undo_say_what_the_profile_now_holds(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "My ZIP is 94102 and we're with PG&E")
    forgot = service.handle_turn("T1-N", "t", "forget my ZIP")
    assert forgot.text.startswith("Forgotten: your ZIP code (was 94102). Your profile now holds:")
    assert service.profiles.get("T1-N").location.zip_code is None
    undone = service.handle_turn("T1-N", "t", "that's wrong")
    assert undone.text.startswith("Undone: your ZIP code is 94102 again.")
    assert service.profiles.get("T1-N").location.zip_code == "94102"
    everything = service.handle_turn("T1-N", "t", "forget everything about me")
    assert everything.text.endswith("Your profile is now empty.")


def test_the_session_is_written_once_per_turn(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    writes: list[str] = []
    sessions = service.sessions
    original = sessions._write
    sessions._write = lambda session: (writes.append(session.session_id), original(session))[1]  # type: ignore[method-assign]
    for text in [EXAMPLE_1, "When should I charge my EV tonight?", "what about by 6am instead?", "hello"]:
        before = len(writes)
        service.handle_turn("T1-N", "t", text)
        assert len(writes) - before == 1, text
    assert service.sessions.get("T1-N", "t").turn_count == 4


def test_goodbye_says_what_the_memorizer_saved(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    # a turn stored without its fact saved (as after a crash mid-turn): the goodbye run catches it
    service.sessions.commit_turn("T1-N", "t", user_text="I work from home these days", reply_text="(lost)")
    bye = service.handle_turn("T1-N", "t", "ok bye")
    assert bye.text == "Bye! Thanks for chatting.\n\nSaved: you work from home."
    assert_claims_match_the_store_for_memorizer(service, "T1-N", bye)


def assert_claims_match_the_store_for_memorizer(
    service: ConversationService, user: str, reply: Reply
) -> None:
    profile = service.profiles.get(user)
    saved = [c for c in reply.profile_changes if c["operation"] in ("set", "updated")]
    assert saved and describe_saved(saved) in reply.text
    for change in saved:
        section, name = change["field"].split(".")
        assert getattr(getattr(profile, section), name) == change["new_value"]


def test_a_failed_turn_still_says_what_it_saved(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [Step(status=500)]
    service = ollama_service(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", EXAMPLE_2)
    assert reply.failed
    assert reply.text.startswith("Saved: your ZIP code is 94110 (San Francisco), your utility is PG&E")
    assert "Sorry, the advisor is unavailable right now" in reply.text
    assert service.profiles.get("T1-N").location.zip_code == "94110"
    assert service.sessions.get("T1-N", "t").messages[0].content == EXAMPLE_2  # the message is kept


def test_the_chat_forget_command_and_plain_profile(data_dir: Path) -> None:
    from bot.chat import run_chat

    runtime = make_runtime(data_dir, clock=clock)
    lines = iter([EXAMPLE_1, "/profile", "/forget ev", "I started working from home", "/quit"])
    output: list[str] = []
    run_chat(runtime.service, user_id="T1-N", read=lambda prompt: next(lines), write=output.append)
    text = "\n".join(output)
    assert "your ZIP code is 94102" in text and "equipment.ev_model" not in text
    assert f'(you said "{EXAMPLE_1[:80]}…")' in text  # where each fact came from
    assert "Forgotten: your EV (was Tesla Model 3)" in text
    assert runtime.service.profiles.get("T1-N").equipment.ev_model is None
    assert output[-1] == "Nothing new to save to your profile."  # /quit: the turns already saved it all


# --- over the local Ollama-API server ---------------------------------------------------------


@pytest.fixture
def ollama() -> FakeOllama:
    with FakeOllama(["llama3.1:8b"]) as server:
        yield server


def ollama_service(data_dir: Path, ollama: FakeOllama, **memorizer: Any) -> ConversationService:
    config = app_config(provider="ollama", **memorizer)
    return make_runtime(data_dir, ollama_url=ollama.url, config=config, clock=clock).service


def test_ollama_statement_turn_makes_no_llm_call_and_saves(data_dir: Path, ollama: FakeOllama) -> None:
    service = ollama_service(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", EXAMPLE_1)
    assert ollama.chat_requests == []  # a statement is saved and confirmed without a model call
    assert_claims_match_the_store(service, "T1-N", reply)


def test_ollama_mixed_turn_saves_then_plans_in_two_calls(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [call("plan_ev_charging", ready_by_hour=8), say("Charge from 04:12 on off-peak rates.")]
    service = ollama_service(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", EXAMPLE_2)
    assert len(ollama.chat_requests) == 2 and reply.asked_for is None
    assert reply.text.endswith("Charge from 04:12 on off-peak rates.")
    assert_claims_match_the_store(service, "T1-N", reply)
    analyzer_prompt = ollama.chat_requests[0]["messages"][-1]["content"]
    assert "ready_by_hour=8" in analyzer_prompt


def test_ollama_follow_up_sees_the_earlier_exchange(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [
        call("plan_ev_charging"),
        say("Charge from 02:33."),
        call("plan_ev_charging", ready_by_hour=6),
        say("Charge from 01:33."),
    ]
    service = ollama_service(data_dir, ollama)
    service.handle_turn("T1-N", "t", EXAMPLE_1)
    service.handle_turn("T1-N", "t", "When should I charge my EV tonight?")
    service.handle_turn("T1-N", "t", "what about by 6am instead?")
    analyzer, recommend = ollama.chat_requests[2:]
    assert "ready_by_hour=6" in analyzer["messages"][-1]["content"]
    assert "When should I charge my EV tonight?" in recommend["messages"][-1]["content"]  # recent history
    assert "Charge from 02:33." in recommend["messages"][-1]["content"]


def test_ollama_unreadable_memorizer_reply_is_an_error_and_retried(
    data_dir: Path, ollama: FakeOllama
) -> None:
    service = ollama_service(data_dir, ollama)
    service.sessions.commit_turn("T1-N", "t", user_text="I started working from home", reply_text="(lost)")
    replies = iter(
        [
            "Sure! You work from home.",
            json.dumps(
                {
                    "facts": [
                        {
                            "field": "household.work_schedule",
                            "new_value": "WFH",
                            "confidence": 0.9,
                            "source_turn": 1,
                            "source_text": "I started working from home",
                        }
                    ]
                }
            ),
        ]
    )
    ollama.responder = lambda body: Step(content=next(replies, json.dumps({"facts": []})))
    scheduler = MemorizeScheduler(service=service, idle_minutes=0.001, clock=clock, retry_minutes=(0.005,))
    try:
        scheduler.start()
        deadline = time.monotonic() + 15
        while service.sessions.get("T1-N", "t").needs_memorizing and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        scheduler.shutdown()
    assert service.profiles.get("T1-N").household.work_schedule == "WFH"  # the retry applied it
    first_request = ollama.chat_requests[0]
    assert first_request["format"]["properties"]["facts"]["type"] == "array"  # the JSON schema, not "json"
    traces = [load_trace(path) for path in service.traces.list_for_user("T1-N")]
    failed = [
        t
        for t in traces
        if t.metadata["kind"] == "memorize"
        and "unreadable_output" in [error["type"] for error in t.metadata.get("errors", [])]
    ]
    assert failed, "the unreadable reply is an error step in its trace"


# --- restart catch-up -------------------------------------------------------------------------


def test_restart_catch_up_of_a_thread_active_10_seconds_before_the_stop(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, config=app_config(idle_minutes=30))
    runtime.service.handle_turn("T1-N", "t", "How do heat pumps work?")
    last = runtime.service.sessions.get("T1-N", "t").last_activity_at
    restarted = make_runtime(
        data_dir, config=app_config(idle_minutes=30), clock=lambda: last + timedelta(seconds=10)
    )
    scheduler = MemorizeScheduler(
        service=restarted.service, idle_minutes=30, clock=lambda: last + timedelta(seconds=10)
    )
    try:
        assert scheduler.start() == 1
        due = scheduler.due_at("T1-N", "t")
        # due at last activity + idle: 29 min 50 s from the (simulated) restart, not skipped
        assert timedelta(minutes=29) < due - datetime.now(timezone.utc) <= timedelta(minutes=30)
    finally:
        scheduler.shutdown(wait=False)


def test_a_turn_is_one_graph_invocation_keyed_by_the_thread(data_dir: Path) -> None:
    from advisor.nodes.session import ThreadContext
    from advisor.state import TurnOutput

    runtime = make_runtime(data_dir, clock=clock)
    output = runtime.advisor.graph.invoke(
        {"message": "My ZIP is 94110"},
        config={"configurable": {"thread_id": "thread-9"}},
        context=ThreadContext(user_id="T1-N"),
    )
    assert set(output) <= set(TurnOutput.__annotations__)  # the declared output, no internals
    assert output["text"].startswith("Saved: your ZIP code is 94110") and output["turn"] == 1
    stored = runtime.service.sessions.get("T1-N", "thread-9")
    assert [m.content for m in stored.messages] == ["My ZIP is 94110", output["text"]]
    assert stored.facts[0].field == "location.zip_code" and stored.facts[0].status == "saved"


def test_onboarding_like_a_person_typos_doubt_skip_and_an_assumed_plan(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    asked = service.handle_turn("T1-N", "t", "hwo much would it cost to charge my car tonite")
    assert asked.asked_for == "location"
    city = service.handle_turn("T1-N", "t", "uh not sure, I'm in oakland")
    assert city.text.startswith("Saved: you're in Oakland.") and city.asked_for == "utility"
    assert_claims_match_the_store(service, "T1-N", city)
    utility = service.handle_turn("T1-N", "t", "pge i think")
    assert utility.text.startswith("Saved: your utility is PG&E.") and utility.asked_for == "rate_schedule"
    skipped = service.handle_turn("T1-N", "t", "no idea")
    assert skipped.text.startswith("No problem, I'll skip that.") and skipped.asked_for == "ev"
    plan = service.handle_turn("T1-N", "t", "its a chevy bolt")
    assert plan.text.startswith("Saved: your EV is a Chevrolet Bolt EV.")
    assert "this assumes PG&E's most common plan, E-TOU-C (not saved to your profile" in plan.text
    assert "Cheapest before" in plan.text  # the question from the first turn, answered
    assert service.profiles.get("T1-N").location.rate_schedule is None  # the assumption was not saved


def test_an_unknown_place_asks_for_the_zip_and_takes_it(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    unknown = service.handle_turn("T1-N", "t", "I live in Springfield")
    assert unknown.text == "I couldn't pin down where 'Springfield' is. What's your ZIP code?"
    assert service.profiles.get("T1-N") is None  # nothing guessed
    answered = service.handle_turn("T1-N", "t", "ok it's 62704")
    assert answered.text.startswith("Saved: your ZIP code is 62704 (Springfield).")  # every US ZIP is placed
    assert service.profiles.get("T1-N").location.city == "Springfield"


def test_what_do_you_know_about_me(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "we're a family of four with a heat pump")
    reply = service.handle_turn("T1-N", "t", "what do you know about me?")
    assert reply.text == (
        "Here's what I have for you: you heat with a heat pump and there are 4 people in your home. "
        "Tell me if anything is wrong."
    )


def test_a_requested_removal_is_not_memory_corruption(data_dir: Path) -> None:
    from config.files import EvalConfig
    from traces.evaluate import evaluate

    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "My ZIP is 94110")
    service.handle_turn("T1-N", "t", "forget my ZIP")
    report = evaluate([service.traces.latest("T1-N")], EvalConfig())
    (result,) = report.traces
    corruption = next(g for g in result.grades if g.grader_name == "memory_corruption")
    assert corruption.passed and corruption.evidence[0].check_name == "removed_on_request"


def test_older_turns_reach_the_model_as_the_threads_notes(data_dir: Path, ollama: FakeOllama) -> None:
    from profiles.models import ProfileNote

    ollama.responder = lambda body: Step(content="(answer)")
    # with the knowledge base: an explanation with no passage gets "no source" without a model call
    config = app_config(provider="ollama")
    service = make_runtime(
        data_dir, ollama_url=ollama.url, config=config, clock=clock, knowledge=True
    ).service
    service.handle_turn("T1-N", "t", "How do heat pumps work?")
    service.profiles.add_note(
        "T1-N",
        ProfileNote(
            content="Turns 1-20: asked about heat pumps and rates.", source_session="t", source_turns=[1]
        ),
    )
    service.profiles.add_note(
        "T1-N", ProfileNote(content="Another thread's note.", source_session="other", source_turns=[1])
    )
    service.handle_turn("T1-N", "t", "What is time-of-use pricing?")
    prompt = ollama.chat_requests[-1]["messages"][-1]["content"]
    assert "EARLIER IN THIS THREAD: Turns 1-20: asked about heat pumps and rates." in prompt
    assert "Another thread's note" not in prompt


def test_the_chat_catches_up_only_its_users_sessions(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, config=app_config(idle_minutes=30))
    runtime.service.handle_turn("T1-N", "a", "How do heat pumps work?")
    runtime.service.handle_turn("T1-OTHER", "b", "How do heat pumps work?")
    scheduler = MemorizeScheduler(service=runtime.service, idle_minutes=30)
    try:
        assert scheduler.start(user_id="T1-N") == 1
        assert scheduler.job_ids() == ["memorize:T1-N:a"]
    finally:
        scheduler.shutdown(wait=False)


def test_moving_asks_about_a_utility_that_does_not_serve_the_new_place(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "I'm in Austin with Austin Energy")
    moved = service.handle_turn("T1-N", "t", "no wait, we moved, it's 94107 now")
    assert moved.text == (
        "Saved: your ZIP code is 94107 (San Francisco). Is Austin Energy still your utility? It serves TX, "
        "and 94107 is in CA. Tell me your utility (and rate plan) so prices are right."
    )
    assert service.profiles.get("T1-N").location.utility_provider == "Austin Energy"  # asked, not erased
    refused = service.handle_turn("T1-N", "t", "my ev charger is -40 amps")
    assert refused.text.startswith("I can't save -40 amps as your home charger's power")


def test_two_cars_in_one_message_keep_one_and_say_so(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    reply = service.handle_turn("T1-N", "t", "we have 2 EVs, a bolt and a model 3")
    assert reply.text == (
        "Saved: your EV is a Chevrolet Bolt EV. I can keep only one value for the EV for now, so I saved "
        "the first one you named; tell me if it should be the other."
    )


def test_a_household_members_car_does_not_replace_the_users_and_a_correction_is_one_car(
    data_dir: Path,
) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "i drive a ioniq 5")
    wife = service.handle_turn("T1-N", "t", "my wife drives a model y btw")
    assert wife.text.startswith("I keep one EV per home and yours is the Hyundai Ioniq 5, so I left it")
    assert service.profiles.get("T1-N").equipment.ev_model == "Hyundai Ioniq 5"
    corrected = service.handle_turn("T1-N", "t", "actually it's a model y not a model 3")
    assert corrected.text == "Updated: your EV is a Tesla Model Y (was Hyundai Ioniq 5)."


def test_the_question_asked_before_onboarding_is_answered_as_it_was_understood(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.handle_turn("T1-N", "t", "we're in 94110 w pge, i drive a ioniq 5")
    asked = service.handle_turn(
        "T1-N", "t", "it's at 20% and i need to be full by 7am, when should i plug in?"
    )
    assert asked.asked_for == "rate_schedule"  # PG&E's plans we know: which one is asked, once
    assert service.sessions.get("T1-N", "t").pending_request == {
        "intent": "live_data",
        "topic": "ev_charging",
        "params": {
            "task": "charging_plan",
            "ready_by_hour": 7,
            "target_soc_pct": 100.0,
            "current_soc_pct": 20.0,
        },
    }
    plan = service.handle_turn("T1-N", "t", "not sure")
    assert "Cheapest before 07:00" in plan.text and "from 20% to 100%" in plan.text
    earlier = service.handle_turn("T1-N", "t", "what about by 6am instead?")
    assert "Cheapest before 06:00" in earlier.text and "from 20% to 100%" in earlier.text


def test_an_infeasible_plan_states_no_saving_and_says_what_is_achievable(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service  # 10:00 in San Francisco
    service.handle_turn("T1-N", "t", EXAMPLE_1)
    reply = service.handle_turn("T1-N", "t", "I'm at 20% and need it full by 11am, when should I charge?")
    assert "saves" not in reply.text
    assert "more than the time left before 11:00" in reply.text
    assert "short of 100%" in reply.text and "the full charge would finish at" in reply.text


def test_minutes_in_a_deadline_count_and_make_that_7am_re_plans(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service  # 10:00 in San Francisco
    service.handle_turn("T1-N", "t", EXAMPLE_1)
    first = service.handle_turn("T1-N", "t", "need 80% by 6:30am, when should i charge?")
    assert "before 06:30" in first.text
    brother = service.handle_turn("T1-N", "t", "my brother has solar on his roof")
    assert brother.text == (
        "I haven't saved that: it sounds like it's about someone else's home, and I only keep facts about yours."
    )
    later = service.handle_turn("T1-N", "t", "make that 7am")
    assert "before 07:00" in later.text and "I want to get this right" not in later.text
