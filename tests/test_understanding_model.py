"""Issue 10 over the local Ollama-API server: the model reads the message (no rule is the
gatekeeper), its reading reaches the user, an invalid reading falls back to the offline reader and
is recorded, and facts the model cannot quote from the message are never saved."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.advisor_helpers import app_config, make_runtime
from tests.servers.ollama import FakeOllama, Step
from traces.storage import load_trace

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)


@pytest.fixture
def ollama() -> FakeOllama:
    with FakeOllama(["llama3.1:8b"]) as server:
        server.responder = lambda body: Step(content="(answer)")
        yield server


def service_for(data_dir: Path, ollama: FakeOllama):
    runtime = make_runtime(
        data_dir, ollama_url=ollama.url, config=app_config(provider="ollama"), clock=lambda: NOW
    )
    return runtime.service


def reading(**fields) -> Step:
    return Step(content=json.dumps({"intent": "profile_statement", "topic": "general", **fields}))


def test_an_off_script_message_is_read_by_the_model_and_its_reading_reaches_the_user(
    data_dir: Path, ollama: FakeOllama
) -> None:
    ollama.understanding_script = [
        reading(
            topic="ev_charging",
            facts=[
                {
                    "field": "equipment.ev_model",
                    "value": "Ford Mustang Mach-E",
                    "said": "the ride's a mach-e",
                },
                {"field": "equipment.ev_charger_kw", "value": 11.52, "said": "juice it at 48A"},
            ],
        )
    ]
    service = service_for(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", "yo, the ride's a mach-e and we juice it at 48A")
    assert reply.text == ("Saved: your EV is a Ford Mustang Mach-E and your home charger delivers 11.52 kW.")
    (request,) = ollama.understanding_requests
    assert request["format"]["title"] == "ModelReading"  # structured output against the schema
    assert json.loads(request["messages"][-1]["content"])["message"].startswith("yo, the ride")
    assert ollama.chat_requests == []  # a statement needs no other call
    trace = load_trace(service.traces.latest("T1-N"))
    intent = next(s for s in trace.steps if getattr(s, "state_key", None) == "intent")
    assert intent.new_value["source"] == "model"


def test_an_unclear_message_goes_to_the_model_not_to_a_canned_question(
    data_dir: Path, ollama: FakeOllama
) -> None:
    ollama.understanding_script = [
        Step(
            content=json.dumps(
                {"intent": "knowledge", "topic": "ev_charging", "question": "is the EV credit still a thing?"}
            )
        )
    ]
    runtime = make_runtime(
        data_dir,
        ollama_url=ollama.url,
        config=app_config(provider="ollama"),
        clock=lambda: NOW,
        knowledge=True,
    )
    reply = runtime.service.handle_turn("T1-N", "t", "ev credit still a thing??")
    assert reply.intent == "knowledge" and reply.text == "(answer)"
    assert "I want to get this right" not in reply.text


def test_an_invalid_reading_falls_back_to_the_rules_and_is_recorded(
    data_dir: Path, ollama: FakeOllama
) -> None:
    ollama.understanding_script = [Step(content='{"intent": "shopping", "facts": "lots"}')]
    service = service_for(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", "My ZIP is 94110")
    assert reply.text.startswith("Saved: your ZIP code is 94110")  # the offline reader read it
    trace = load_trace(service.traces.latest("T1-N"))
    (error,) = [e for e in trace.metadata["errors"] if e["type"] == "understanding_fallback"]
    assert "did not validate" in error["message"]


def test_model_facts_it_cannot_quote_or_that_are_someone_elses_are_dropped(
    data_dir: Path, ollama: FakeOllama
) -> None:
    ollama.understanding_script = [
        reading(
            facts=[
                {
                    "field": "equipment.heating_type",
                    "value": "heat_pump",
                    "said": "my neighbour has a heat pump",
                },
                {"field": "equipment.solar_capacity_kw", "value": 9, "said": "nine kilowatts of panels"},
                {"field": "location.lat", "value": 1.0, "said": "my neighbour"},
            ]
        )
    ]
    service = service_for(data_dir, ollama)
    reply = service.handle_turn("T1-N", "t", "my neighbour has a heat pump")
    assert reply.profile_changes == [] and service.profiles.get("T1-N") is None
    trace = load_trace(service.traces.latest("T1-N"))
    dropped = next(s for s in trace.steps if getattr(s, "state_key", None) == "model_facts_dropped")
    assert len(dropped.new_value) == 3


def test_the_understanding_benchmark_runs_against_an_ollama_server(ollama: FakeOllama) -> None:
    from bench.understanding import model_reader, score

    corpus = [
        {"text": "My ZIP is 94110", "intent": "profile_statement", "facts": {"location.zip_code": "94110"}},
        {"text": "How do heat pumps work?", "intent": "knowledge", "facts": {}},
        {"text": "bye", "intent": "goodbye", "facts": {}},
    ]
    scores = score(corpus, model_reader("llama3.1:8b", ollama.url))
    # the model reads every message: no reader runs before it (the offline one is its fallback)
    assert scores.messages == 3 and len(ollama.understanding_requests) == 3
    assert scores.routing == 1.0 and scores.precision() == 1.0 and scores.recall() == 1.0
