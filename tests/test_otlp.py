"""OpenTelemetry export: real turns through the runtime to a real local OTLP/HTTP receiver, the
GenAI semantic-convention names and structure, grades as evaluation events, a receiver that is
down (the answer is unaffected, one warning), no secrets and no content by default, and
`energy-advisor eval --otlp-endpoint`. The exporter is flushed explicitly: no test sleeps."""

from __future__ import annotations

import logging
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from context_forge.core.trace import (
    LLMCallStep,
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)
from context_forge.core.types import AgentInfo, FieldChange, RetrievalResult
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from bot.wiring import AppRuntime, build_runtime
from config.files import EvalConfig
from config.settings import Settings
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config
from tests.servers.otlp import OtlpReceiver, ReceivedSpan
from traces.evaluate import main as evaluate_main
from traces.graders import all_graders, grade_trace
from traces.otlp import SpanWriter
from traces.otlp_export import OtlpTraceExporter, parse_headers, traces_url
from traces.storage import load_trace

T0 = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)
SAMPLES = Path(__file__).resolve().parent.parent / "traces" / "samples"
SECRETS = {
    "slack_bot_token": "xoxb-1111-2222-otlpsecretbot",
    "slack_app_token": "xapp-1-A111-otlpsecretapp",
    "nrel_api_key": "nrel-otlp-secret-key-123456",
    "openei_api_key": "openei-otlp-secret-key-654321",
}
OTLP_AUTH = "Basic cGstbGYtc2VjcmV0OnNrLWxmLXNlY3JldA=="  # what Langfuse asks for (base64 of pk:sk)


def runtime_for(data_dir: Path, *, endpoint: str | None = None, **kwargs: Any) -> AppRuntime:
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        ollama_base_url="http://127.0.0.1:9",
        otel_exporter_otlp_endpoint=endpoint,
        otel_exporter_otlp_headers=f"authorization={OTLP_AUTH.replace(' ', '%20')}",
        **SECRETS,
    )
    runtime = build_runtime(
        settings,
        config=app_config(provider="offline"),
        http=httpx.Client(),
        probe_ollama=False,
        knowledge=False,
        clock=lambda: T0,
        **kwargs,
    )
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    return runtime


def ns(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1) * 1000


def by_operation(spans: list[ReceivedSpan], operation: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.attributes.get("gen_ai.operation.name") == operation]


def test_a_turn_is_exported_as_genai_spans_with_its_grades(data_dir: Path) -> None:
    with OtlpReceiver() as receiver:
        runtime = runtime_for(data_dir, endpoint=receiver.url)
        try:
            reply = runtime.service.handle_turn("T1-U1", "t1", "When should I charge my EV?")
            runtime.service.sessions.commit_turn("T1-U1", "t1", user_text="I work from home", reply_text="ok")
            runtime.service.memorize("T1-U1", "t1")
            assert runtime.exporter is not None and runtime.exporter.flush()
        finally:
            runtime.close()
        spans = receiver.spans
        request = receiver.requests[0]

    trace = load_trace(runtime.service.traces.find("T1-U1", reply.trace_id))
    memorized = load_trace(runtime.service.traces.latest("T1-U1"))
    assert memorized.metadata["kind"] == "memorize"  # memorize runs are exported too
    (memorize_root,) = [s for s in spans if s.trace_id == memorized.run_id and not s.parent_span_id]
    assert memorize_root.attributes["energy_advisor.trace.kind"] == "memorize"
    assert by_operation([s for s in spans if s.trace_id == memorized.run_id], "update_memory")
    assert {span.trace_id for span in spans} == {trace.run_id, memorized.run_id}  # the run ids
    spans = [span for span in spans if span.trace_id == trace.run_id]
    headers = {name.lower(): value for name, value in request.headers.items()}
    assert request.path == "/v1/traces" and headers["content-type"] == "application/x-protobuf"
    assert headers["authorization"] == OTLP_AUTH

    # One trace, with the run id as its id: a root invoke_agent span and its children.
    (root,) = [span for span in spans if not span.parent_span_id]
    assert root.name == "invoke_agent home-energy-advisor"
    assert root.attributes["openinference.span.kind"] == "AGENT"
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.agent.name"] == "home-energy-advisor"
    assert root.attributes["gen_ai.conversation.id"] == "t1"
    assert root.attributes["energy_advisor.trace.kind"] == "turn"
    assert root.resource["service.name"] == "home-energy-advisor"
    assert all(span.parent_span_id == root.span_id for span in spans if span is not root)
    assert root.start_ns == ns(trace.started_at) and root.status_code == StatusCode.UNSET.value

    # chat: one span per llm_call step, model, provider and token counts from the trace file.
    llm_steps = [step for step in trace.steps if isinstance(step, LLMCallStep)]
    chats = by_operation(spans, "chat")
    assert len(chats) == len(llm_steps) == 2
    chats.sort(key=lambda s: s.attributes["energy_advisor.step_id"])
    for span, step in zip(chats, llm_steps, strict=True):
        assert span.name == f"chat {step.model}"
        assert span.attributes["gen_ai.request.model"] == step.model
        assert span.attributes["gen_ai.provider.name"] == step.provider
        assert span.attributes["gen_ai.usage.input_tokens"] == step.tokens_in
        assert span.attributes["gen_ai.usage.output_tokens"] == step.tokens_out
        assert span.start_ns == ns(step.timestamp)
        assert span.end_ns == ns(step.timestamp) + step.latency_ms * 1_000_000

    # execute_tool: the tool's name and call id, linked to the chat span that asked for it.
    (tool_step,) = [step for step in trace.steps if isinstance(step, ToolCallStep)]
    (tool,) = by_operation(spans, "execute_tool")
    assert tool.name == "execute_tool plan_ev_charging"
    assert tool.attributes["gen_ai.tool.name"] == tool_step.tool_name == "plan_ev_charging"
    assert tool.attributes["gen_ai.tool.call.id"] == tool_step.metadata["tool_call_id"]
    asking = next(s for s in chats if s.attributes["energy_advisor.step_id"] == tool_step.parent_step_id)
    assert tool.links == [asking.span_id]
    assert tool.end_ns - tool.start_ns == tool_step.latency_ms * 1_000_000

    # memory reads as search_memory spans.
    reads = [step for step in trace.steps if isinstance(step, MemoryReadStep)]
    assert len(by_operation(spans, "search_memory")) == len(reads) >= 1
    assert by_operation(spans, "search_memory")[0].attributes["gen_ai.memory.store.id"] == "profiles"

    # Every grader's verdict as a gen_ai.evaluation.result event on the root span.
    grades = {grade.grader_name: grade for grade in grade_trace(trace, EvalConfig())}
    events = {
        event.attributes["gen_ai.evaluation.name"]: event
        for event in root.events
        if event.name == "gen_ai.evaluation.result"
    }
    assert set(events) == set(grades) and len(events) >= 5
    for name, event in events.items():
        assert event.attributes["gen_ai.evaluation.score.value"] == pytest.approx(grades[name].score)
        assert event.attributes["gen_ai.evaluation.score.label"] == grades[name].verdict.value.lower()

    # No secret anywhere in what was sent, and no content by default (opt-in).
    for sent in receiver.requests:
        for secret in [*SECRETS.values(), OTLP_AUTH.split()[1]]:
            assert secret.encode() not in sent.body
        assert b"When should I charge my EV?" not in sent.body
        assert b"Tesla Model 3" not in sent.body  # the profile read
    assert not any(key in span.attributes for span in spans for key in ("gen_ai.tool.call.arguments",))


def test_receiver_down_the_turn_still_answers_and_one_warning_is_logged(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    exporter = OtlpTraceExporter(dead, graders=all_graders(EvalConfig()), timeout=0.2)
    runtime = runtime_for(data_dir, exporter=exporter)
    caplog.set_level(logging.DEBUG)
    try:
        replies = []
        for text in ("When should I charge my EV?", "And what about tomorrow?"):
            replies.append(runtime.service.handle_turn("T1-U1", "t1", text))
            assert exporter.flush() is False  # every batch failed; each flush waited for it
    finally:
        runtime.close()

    assert all(reply.text and not reply.failed for reply in replies)
    assert len(runtime.service.traces.list_for_user("T1-U1")) == 2  # the JSON traces are saved
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [record.name for record in warnings] == ["traces.otlp_export"]
    message = warnings[0].getMessage()
    assert f"OpenTelemetry export to {dead} failed" in message and "still saved as JSON" in message
    assert OTLP_AUTH.split()[1] not in caplog.text and "sk-lf" not in caplog.text


def test_eval_exports_graded_traces_with_their_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLES / "ev-charging-loop.json"
    with OtlpReceiver() as receiver:
        code = evaluate_main([str(sample), "--format", "json", "--otlp-endpoint", receiver.url])
        spans = receiver.spans
    out, err = capsys.readouterr()
    assert code == 1 and '"verdict": "FAIL"' in out  # the report and exit code are unchanged
    assert f"Exported 1 graded trace(s) to {receiver.url}." in err
    trace = load_trace(sample)
    (root,) = [span for span in spans if not span.parent_span_id]
    assert root.trace_id == trace.run_id
    labels = {
        event.attributes["gen_ai.evaluation.name"]: event.attributes["gen_ai.evaluation.score.label"]
        for event in root.events
        if event.name == "gen_ai.evaluation.result"
    }
    assert labels["loop"] == "fail"
    loop_event = next(e for e in root.events if e.attributes.get("gen_ai.evaluation.name") == "loop")
    explanation = loop_event.attributes["gen_ai.evaluation.explanation"]
    assert explanation.startswith("[error] tool_loop: toolcall-")  # check and steps, no arguments
    assert "hours" not in explanation
    assert len(by_operation(spans, "execute_tool")) == 4


def hand_made_trace() -> TraceRun:
    def at(ms: int) -> dict[str, Any]:
        return {"step_id": f"s{ms}", "timestamp": T0 + timedelta(milliseconds=ms), "metadata": {"node": "n"}}

    return TraceRun(
        run_id="not-a-hex-id",
        started_at=T0,
        ended_at=T0 + timedelta(seconds=1),
        agent_info=AgentInfo(name="home-energy-advisor"),
        steps=[
            UserInputStep(**at(1), content="my zip is 94102 \ud800"),
            LLMCallStep(
                **at(2),
                model="llama3.2",
                provider="ollama",
                input=[{"role": "human", "content": "hi"}],
                output={"error": "ConnectError: refused"},
                latency_ms=30,
            ),
            ToolCallStep(
                **at(3),
                tool_name="tariff_lookup",
                arguments={"zip": "94102"},
                success=False,
                error="HTTPStatusError: 500 from api_key=abcdef123456",
                latency_ms=5,
            ),
            RetrievalStep(
                **at(4),
                query="heat pumps",
                results=[RetrievalResult(content="passage", score=0.5, metadata={"source": "doc.md"})],
                match_count=1,
                latency_ms=7,
            ),
            MemoryWriteStep(
                **at(5),
                namespace=["profiles", "u"],
                key="profile",
                operation="update",
                data={"location": {"zip_code": "94102"}},
                changes=[FieldChange(path="location.zip_code", old_value=None, new_value="94102")],
            ),
        ],
        metadata={
            "user_id": "u",
            "session_id": "s",
            "turn": 2,
            "kind": "turn",
            "errors": [{"node": "graph", "type": "RuntimeError", "message": "boom"}],
        },
    )


@pytest.mark.parametrize("capture", [False, True])
def test_step_kinds_errors_and_content_capture(capture: bool) -> None:
    memory = InMemorySpanExporter()
    writer = SpanWriter(SimpleSpanProcessor(memory), capture_content=capture)
    writer.write(hand_made_trace())
    spans = {span.attributes["gen_ai.operation.name"]: span for span in memory.get_finished_spans()}
    encode_spans(list(spans.values())).SerializeToString()  # a lone surrogate must not break the batch

    chat, tool = spans["chat"], spans["execute_tool"]
    assert chat.status.status_code is StatusCode.ERROR and chat.attributes["error.type"] == "ConnectError"
    assert tool.status.status_code is StatusCode.ERROR and tool.attributes["error.type"] == "HTTPStatusError"
    assert "abcdef123456" not in tool.status.description  # redacted
    assert spans["retrieval"].name == "retrieval energy-knowledge"
    assert spans["retrieval"].end_time - spans["retrieval"].start_time == 7_000_000
    write = spans["update_memory"]
    assert write.attributes["gen_ai.memory.record.id"] == "profile"
    assert list(write.attributes["energy_advisor.memory.changed_fields"]) == ["location.zip_code"]
    root = spans["invoke_agent"]
    assert root.status.status_code is StatusCode.ERROR and root.attributes["error.type"] == "RuntimeError"
    assert len(f"{root.context.trace_id:032x}") == 32  # a non-hex run id still gives a valid trace id
    content_keys = {
        "gen_ai.tool.call.arguments",
        "gen_ai.input.messages",
        "gen_ai.retrieval.query.text",
        "gen_ai.memory.records",
    }
    exported = {key for span in spans.values() for key in span.attributes}
    assert (content_keys <= exported) is capture and not (content_keys & exported and not capture)
    if capture:
        assert '"zip": "94102"' in tool.attributes["gen_ai.tool.call.arguments"]
        assert '"role": "user"' in chat.attributes["gen_ai.input.messages"]
    writer.shutdown()


def test_endpoint_and_header_settings() -> None:
    assert traces_url("http://localhost:4318") == "http://localhost:4318/v1/traces"
    assert traces_url("https://cloud.langfuse.com/api/public/otel/") == (
        "https://cloud.langfuse.com/api/public/otel/v1/traces"
    )
    assert traces_url("http://collector:4318/v1/traces") == "http://collector:4318/v1/traces"
    assert parse_headers("Authorization=Basic%20abc=,x-y = z,broken") == {
        "authorization": "Basic abc=",
        "x-y": "z",
    }
    with pytest.raises(ValueError, match="http"):
        Settings(_env_file=None, otel_exporter_otlp_endpoint="localhost:4318")
    assert Settings(_env_file=None, otel_exporter_otlp_endpoint="  ").otel_exporter_otlp_endpoint is None
