"""The whole advisor graph over a local server speaking Ollama's API (ChatOllama's real path):
a tool-using turn, and the server failing (500), hanging past the timeout, sending a
malformed tool call, or looping until the recursion limit forces the analyzer out."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from advisor.prompts import ANALYZER_SYSTEM
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config, make_runtime
from tests.servers.ollama import FakeOllama, Step, call, say

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # 10:00 in San Francisco
MODELS = ["llama3.1:8b"]


def fixed_clock() -> datetime:
    return NOW


def system_prompt(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


@pytest.fixture
def ollama() -> FakeOllama:
    with FakeOllama(MODELS) as server:
        yield server


def runtime_for(data_dir: Path, ollama: FakeOllama, **config):
    runtime = make_runtime(
        data_dir, ollama_url=ollama.url, config=app_config(provider="ollama", **config), clock=fixed_clock
    )
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    return runtime


def test_tool_turn_makes_two_llm_calls_with_compact_prompts(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [
        call("plan_ev_charging", target_soc_pct=80),
        say("Charge after midnight on off-peak rates."),
    ]
    runtime = runtime_for(data_dir, ollama)
    assert not runtime.models.offline and runtime.notices == []

    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")

    assert reply.text == "Charge after midnight on off-peak rates." and not reply.failed
    assert reply.intent == "live_data" and reply.topic == "ev_charging"
    analyzer, recommend = ollama.chat_requests  # exactly two LLM calls
    assert system_prompt(analyzer) == ANALYZER_SYSTEM
    assert [tool["function"]["name"] for tool in analyzer["tools"]] == [
        "plan_ev_charging",
        "compare_charging_costs",
        "estimate_monthly_charging_cost",
        "get_tariff_prices",
    ]
    assert "runtime" not in str(analyzer["tools"])  # injected, never shown to the model
    prompt = recommend["messages"][-1]["content"]
    assert prompt.startswith("QUESTION: When should I charge my EV?")
    assert "PROFILE: EV Tesla Model 3; EV battery 57.5 kWh; charger 11.5 kW" in prompt
    # mock mode: the tariff comes from the OpenEI fixture, and the answer must say it is sample data
    assert (
        "FACTS (plan_ev_charging; Pacific Gas & Electric Co Residential Time-of-Use Electric Vehicle EV2-A"
        in prompt
    )
    assert "(sample data)" in prompt and "Cheapest before 07:00" in prompt
    assert "ASSUMED: the Tesla Model 3 RWD accepts at most 7.7 kW AC" in prompt
    assert not recommend.get("tools")
    assert analyzer["options"]["num_ctx"] == 4096 and analyzer["model"] == "llama3.1:8b"
    stored = runtime.service.sessions.get("T1-U1", "thread-1")
    assert [(m.role, m.content) for m in stored.messages] == [
        ("user", "When should I charge my EV?"),
        ("assistant", "Charge after midnight on off-peak rates."),
    ]


def test_ollama_500_gives_a_friendly_reply_and_keeps_the_message(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [Step(status=500)]
    runtime = runtime_for(data_dir, ollama)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    assert reply.failed
    assert reply.text.startswith(
        "Sorry, the advisor is unavailable right now: its language model it answered with an error (HTTP 500)"
    )
    assert "Your message is saved" in reply.text
    session = runtime.service.sessions.get("T1-U1", "thread-1")
    assert session.messages[0].content == "When should I charge my EV?" and session.turn_count == 1


def test_ollama_hanging_past_the_timeout(data_dir: Path, ollama: FakeOllama) -> None:
    ollama.script = [Step(hang_seconds=10, content="too late")]
    runtime = runtime_for(data_dir, ollama, timeout=0.5)
    started = time.monotonic()
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    assert time.monotonic() - started < 8
    assert reply.failed and "did not answer in time" in reply.text
    assert runtime.service.sessions.get("T1-U1", "thread-1").messages[0].role == "user"


def test_malformed_tool_call_is_recorded_and_the_turn_still_answers(
    data_dir: Path, ollama: FakeOllama
) -> None:
    ollama.script = [
        Step(raw_tool_calls=[{"function": {"name": "plan_ev_charging", "arguments": "{not json"}}]),
        say("I could not fetch your prices just now."),
    ]
    runtime = runtime_for(data_dir, ollama)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    assert not reply.failed and reply.text == "I could not fetch your prices just now."
    recommend_prompt = ollama.chat_requests[-1]["messages"][-1]["content"]
    assert "WARNING: the model's tool call could not be read" in recommend_prompt


def test_recursion_limit_is_a_forced_exit_not_a_crash(data_dir: Path, ollama: FakeOllama) -> None:
    def respond(body: dict) -> Step:
        if system_prompt(body) == ANALYZER_SYSTEM:
            return call("get_magic_numbers", anything=1)  # a tool that does not exist: the loop never ends
        return say("I couldn't get live data this time.")

    ollama.responder = respond
    runtime = runtime_for(data_dir, ollama, recursion_limit=5)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    assert not reply.failed and reply.text == "I couldn't get live data this time."
    analyzer_calls = [b for b in ollama.chat_requests if system_prompt(b) == ANALYZER_SYSTEM]
    assert len(analyzer_calls) == 3  # model, tools, model, tools, model: 5 steps
    recommend_prompt = ollama.chat_requests[-1]["messages"][-1]["content"]
    assert "WARNING: stopped after 5 steps (forced exit)" in recommend_prompt
    assert "FACTS (get_magic_numbers" in recommend_prompt  # observations gathered before the exit are kept
    assert "The data tool failed" in recommend_prompt


def test_missing_model_at_start_up_falls_back_to_offline_and_names_the_pull(data_dir: Path) -> None:
    with FakeOllama(["some-other-model"]) as server:
        runtime = make_runtime(data_dir, ollama_url=server.url, config=app_config(provider="ollama"))
    assert runtime.models.offline
    assert any("`ollama pull llama3.1:8b`" in notice for notice in runtime.notices)
