"""A finished ContextForge trace (and its grades) as OpenTelemetry spans, per the GenAI semantic
conventions (open-telemetry/semantic-conventions-genai: gen-ai-agent-spans.md, gen-ai-spans.md,
gen-ai-events.md), so Phoenix, Langfuse or Jaeger show a turn without knowing our format.

The JSON trace stays the source of truth: spans are made afterwards from it, with each step's
recorded start time and latency, never from live callbacks. One run is one OpenTelemetry trace
whose id is the run id (a 32-hex uuid), so `energy-advisor eval` output, the trace file and the
backend's trace view share one id. The run is a root `invoke_agent` span; LLM calls (`chat`),
tool calls (`execute_tool`), retrievals (`retrieval`) and profile/session reads and writes
(`search_memory`, `create_memory`, `update_memory`, `upsert_memory`, `delete_memory`) are its
children. Grades become `gen_ai.evaluation.result` events on the root span (the semconv's
"parented to the GenAI operation span being evaluated"; span events rather than log records, so
a traces-only backend such as Jaeger shows them).

Message text, tool arguments and results, queries, memory records and error messages are opt-in
(`capture_content`), as the conventions ask: by default only names, models, ids, counts, timings,
token usage, verdicts (their evidence as check names and step ids) and error types leave the process.
The attribute mapping of each step lives in `traces.otlp_semconv`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from context_forge.core.trace import (
    FinalOutputStep,
    LLMCallStep,
    StateChangeStep,
    TraceRun,
    UserInputStep,
)
from opentelemetry import trace as trace_api
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from traces.graders.base import Grade
from traces.otlp_semconv import (
    EVALUATION_EVENT,
    Attributes,
    clean_attributes,
    evaluation_attributes,
    json_text,
    node_of,
    safe_text,
    step_span,
    text_message,
)

SCOPE = "home-energy-advisor.traces"
SERVICE_NAME = "home-energy-advisor"
MAX_STEP_SPANS = 1000  # a 100 000-step trace would overflow the batch queue (2048): the rest is counted
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_HEX_ID = re.compile(r"[0-9a-fA-F]{32}")


class _RunTraceIds(RandomIdGenerator):
    """Trace ids come from the run being written (span ids stay random): the SDK asks its id
    generator for a root span's trace id, and this is the supported hook to choose it."""

    def __init__(self) -> None:
        self.next_trace_id: int | None = None

    def generate_trace_id(self) -> int:
        return self.next_trace_id or super().generate_trace_id()


class SpanWriter:
    """Writes traces as spans into `processor` (a batch processor with an OTLP exporter, or an
    in-memory one in tests). Not the global tracer provider: nothing else in the process (LangChain,
    a user's own instrumentation) is changed or picked up."""

    def __init__(
        self,
        processor: SpanProcessor,
        *,
        capture_content: bool = False,
        service_version: str | None = None,
    ) -> None:
        self.capture_content = capture_content
        self._ids = _RunTraceIds()
        resource = {"service.name": SERVICE_NAME}
        if service_version:
            resource["service.version"] = service_version
        # Resource(...) rather than Resource.create(...): the latter reads OTEL_* from os.environ.
        self._provider = TracerProvider(
            resource=Resource(resource), sampler=ALWAYS_ON, id_generator=self._ids
        )
        self._provider.add_span_processor(processor)
        self._tracer = self._provider.get_tracer(SCOPE, service_version)
        self._lock = threading.Lock()

    def write(self, trace: TraceRun, grades: Sequence[Grade] = ()) -> int:
        """Emit the run's spans; they reach the processor as each one ends (children first).
        Returns how many spans were emitted."""
        metadata = trace.metadata or {}
        conversation = str(metadata.get("session_id") or "") or None
        steps = list(trace.steps)
        spans = [(step, *step_span(step, self.capture_content)) for step in steps]
        start = min([_ns(trace.started_at), *(_ns(step.timestamp) for step in steps)])
        end = max([start, _ns(trace.ended_at or trace.started_at), *(_end(step) for step in steps)])
        with self._lock:  # the trace id of the next root span
            self._ids.next_trace_id = _trace_id(trace.run_id)
            root = self._tracer.start_span(
                f"invoke_agent {trace.agent_info.name}",
                kind=SpanKind.INTERNAL,
                attributes=clean_attributes(self._root_attributes(trace, conversation)),
                start_time=start,
            )
            self._ids.next_trace_id = None
        context = trace_api.set_span_in_context(root)
        written: dict[str, trace_api.SpanContext] = {}
        skipped = 0
        for step, name, kind, attributes, error in spans:
            if name is None:
                continue
            if len(written) >= MAX_STEP_SPANS:
                skipped += 1
                continue
            linked = written.get(step.parent_step_id or "")
            if conversation and isinstance(step, LLMCallStep):
                attributes["gen_ai.conversation.id"] = conversation
            span = self._tracer.start_span(
                name,
                context=context,
                kind=kind,
                attributes=clean_attributes(attributes),
                links=[Link(linked, {"energy_advisor.link": "requested_by"})] if linked else None,
                start_time=_ns(step.timestamp),
            )
            if error is not None:  # the message only with content: it may quote the input
                span.set_status(
                    Status(
                        StatusCode.ERROR,
                        safe_text(error if self.capture_content else attributes["error.type"], 500),
                    )
                )
            span.end(end_time=_end(step))
            written[step.step_id] = span.get_span_context()
        for step in steps:
            if isinstance(step, StateChangeStep):
                root.add_event(
                    "energy_advisor.state_change",
                    clean_attributes(self._state_change(step)),
                    _ns(step.timestamp),
                )
        errors = [error for error in metadata.get("errors") or [] if isinstance(error, Mapping)]
        for error in errors:
            root.add_event(
                "exception",
                clean_attributes(
                    {
                        "exception.type": str(error.get("type") or "error"),
                        "exception.message": safe_text(error.get("message") or "", 500)
                        if self.capture_content
                        else None,
                        "energy_advisor.node": error.get("node"),
                    }
                ),
                end,
            )
        if errors:
            kinds = sorted({str(error.get("type") or "error") for error in errors})
            root.set_attribute("error.type", safe_text(kinds[0], 200))
            root.set_status(Status(StatusCode.ERROR, safe_text("errors recorded: " + ", ".join(kinds), 500)))
        for grade in grades:
            root.add_event(
                EVALUATION_EVENT, clean_attributes(evaluation_attributes(grade, self.capture_content)), end
            )
        if skipped:
            root.set_attribute("energy_advisor.steps_not_exported", skipped)
        root.end(end_time=end)
        return len(written) + 1

    def shutdown(self) -> None:
        """Flush and stop the processor (and its exporter)."""
        self._provider.shutdown()

    # --- attributes ------------------------------------------------------------------------

    def _root_attributes(self, trace: TraceRun, conversation: str | None) -> Attributes:
        metadata = trace.metadata or {}
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": trace.agent_info.name,
            "gen_ai.agent.version": trace.agent_info.version,
            "gen_ai.conversation.id": conversation,
            "session.id": conversation,
            "user.id": metadata.get("user_id"),
            "energy_advisor.run_id": trace.run_id,
            "energy_advisor.trace.kind": metadata.get("kind")
            or (trace.task_info and trace.task_info.description),
            "energy_advisor.turn": metadata.get("turn") if isinstance(metadata.get("turn"), int) else None,
        }
        attributes.update(
            {
                f"energy_advisor.model.{key.removesuffix('_model')}": value
                for key, value in metadata.items()
                if key.endswith("_model") and isinstance(value, str)
            }
        )
        if self.capture_content:
            said = [step.content for step in trace.steps if isinstance(step, UserInputStep)]
            answers = [step.content for step in trace.steps if isinstance(step, FinalOutputStep)]
            if said:
                attributes["gen_ai.input.messages"] = json_text([text_message("user", text) for text in said])
            if answers:
                attributes["gen_ai.output.messages"] = json_text(
                    [{**text_message("assistant", answer), "finish_reason": "stop"} for answer in answers]
                )
        return attributes

    def _state_change(self, step: StateChangeStep) -> Attributes:
        attributes: Attributes = {
            "energy_advisor.state.key": step.state_key,
            "energy_advisor.node": node_of(step),
        }
        if self.capture_content:  # a value or reason may quote the user ("the user asked: ...")
            attributes["energy_advisor.state.value"] = json_text(step.new_value)
            attributes["energy_advisor.state.reason"] = step.reason
        return attributes


# --- values ------------------------------------------------------------------------------------


def _trace_id(run_id: str) -> int:
    """The run id itself when it is a 128-bit hex id (ours are uuid4 hex), else a hash of it."""
    value = int(run_id, 16) if _HEX_ID.fullmatch(run_id) else 0
    return value or int.from_bytes(
        hashlib.blake2b(run_id.encode("utf-8", "replace"), digest_size=16).digest(), "big"
    )


def _ns(moment: datetime) -> int:
    """Nanoseconds since the epoch, exactly (a float timestamp loses the microseconds), within
    OTLP's unsigned 64 bits: a hostile time outside them would fail the whole batch."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return _clamp((aware - _EPOCH) // timedelta(microseconds=1) * 1000)


def _end(step: Any) -> int:
    latency = getattr(step, "latency_ms", None)
    return _clamp(_ns(step.timestamp) + max(0, int(latency or 0)) * 1_000_000)


def _clamp(nanoseconds: int) -> int:
    return min(max(nanoseconds, 0), 2**63 - 1)
