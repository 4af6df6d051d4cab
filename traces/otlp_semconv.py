"""What each ContextForge step says in OpenTelemetry GenAI semantic-convention terms: span name,
kind and attributes of a step, the `gen_ai.evaluation.result` attributes of a grade, the message
shapes of gen-ai-input-messages.json / gen-ai-output-messages.json, and attribute values the SDK
and OTLP accept. Checked against open-telemetry/semantic-conventions-genai (gen-ai-spans.md,
gen-ai-agent-spans.md, gen-ai-events.md); `traces.otlp` assembles the spans.

Content (message text, tool arguments and results, queries, documents, memory records) is added
only with `capture`, as the conventions ask of `Opt-In` attributes. Every string is redacted
(`config.redact`), made encodable (a lone surrogate would fail the whole protobuf batch) and clipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from context_forge.core.trace import LLMCallStep, MemoryReadStep, MemoryWriteStep, RetrievalStep, ToolCallStep
from opentelemetry.trace import SpanKind

from config.redact import redact
from traces.graders.base import Grade

DATA_SOURCE = "energy-knowledge"  # the knowledge base (knowledge/docs in Milvus)
CONTENT_LIMIT = 16_000  # characters of one captured content attribute
EXPLANATION_LIMIT = 1_000
EVALUATION_EVENT = "gen_ai.evaluation.result"
MEMORY_OPERATIONS = {  # ContextForge's write operation -> the semconv memory operation
    "add": "create_memory",
    "update": "update_memory",
    "put": "upsert_memory",
    "delete": "delete_memory",
}
ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
# Phoenix reads OpenInference's span kind to show a span as an agent, LLM, tool or retriever call
# (it shows GenAI-only spans as "unknown"); one extra attribute per span, the rest stays semconv.
OPENINFERENCE_KINDS = {
    "invoke_agent": "AGENT",
    "chat": "LLM",
    "execute_tool": "TOOL",
    "retrieval": "RETRIEVER",
    "search_memory": "RETRIEVER",
}

Attributes = dict[str, Any]


def evaluation_attributes(grade: Grade, capture: bool) -> Attributes:
    """One grade as a `gen_ai.evaluation.result` event: the grader's name, its score (0..1), the
    verdict as a low-cardinality label (`pass`, `warn`, `fail`) and its top evidence. Evidence
    text may quote the answer or a tool's arguments, so without `capture` the explanation names
    each finding's check and the step ids it points at (the spans' `energy_advisor.step_id`)."""
    order = {"error": 0, "warn": 1, "info": 2}
    evidence = sorted(grade.evidence, key=lambda item: order.get(item.severity.value, 3))[:3]
    explanation = "; ".join(
        f"[{item.severity.value}] {item.description}"
        if capture
        else f"[{item.severity.value}] {item.check_name}"
        + (f": {', '.join(item.step_ids[:5])}" if item.step_ids else "")
        for item in evidence
    )
    return {
        "gen_ai.evaluation.name": grade.grader_name,
        "gen_ai.evaluation.score.value": float(grade.score),
        "gen_ai.evaluation.score.label": grade.verdict.value.lower(),
        "gen_ai.evaluation.explanation": safe_text(explanation, EXPLANATION_LIMIT) if explanation else None,
    }


def step_span(step: Any, capture: bool) -> tuple[str | None, SpanKind, Attributes, str | None]:
    """(span name, kind, attributes, error description) of a step; name None: not a span (user
    input, final output and state changes are on the root span)."""
    node = {"energy_advisor.node": node_of(step), "energy_advisor.step_id": step.step_id}
    if isinstance(step, LLMCallStep):
        return _chat(step, capture, node)
    if isinstance(step, ToolCallStep):
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": step.tool_name,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": (step.metadata or {}).get("tool_call_id"),
            **node,
        }
        if capture:
            attributes["gen_ai.tool.call.arguments"] = json_text(step.arguments)
            if step.success is not False and step.result is not None:
                attributes["gen_ai.tool.call.result"] = json_text(step.result)
        error = None
        if step.success is False:
            error = step.error or "the tool reported a failure"
            attributes["error.type"] = _error_type(step.error, "tool_error")
        return f"execute_tool {step.tool_name}", SpanKind.INTERNAL, attributes, error
    if isinstance(step, RetrievalStep):
        attributes = {
            "gen_ai.operation.name": "retrieval",
            "gen_ai.data_source.id": DATA_SOURCE,
            "energy_advisor.retrieval.match_count": step.match_count,
            **node,
        }
        if capture:
            attributes["gen_ai.retrieval.query.text"] = step.query
            attributes["gen_ai.retrieval.documents"] = json_text(
                [
                    {
                        "id": _document_id(result.metadata, index),
                        "score": result.score,
                        "content": result.content,
                    }
                    for index, result in enumerate(step.results)
                ]
            )
        return f"retrieval {DATA_SOURCE}", SpanKind.CLIENT, attributes, None
    if isinstance(step, MemoryReadStep):
        query = step.query if isinstance(step.query, dict) else {}
        namespace = query.get("namespace") if isinstance(query.get("namespace"), list) else []
        attributes = {
            "gen_ai.operation.name": "search_memory",
            "gen_ai.memory.store.id": str(namespace[0]) if namespace else None,
            "gen_ai.memory.record.id": query.get("key") if isinstance(query.get("key"), str) else None,
            "gen_ai.memory.record.count": step.match_count,
            **node,
        }
        if capture:
            attributes["gen_ai.memory.query.text"] = json_text(step.query)
            attributes["gen_ai.memory.records"] = json_text([{"content": result} for result in step.results])
        return "search_memory", SpanKind.INTERNAL, attributes, None
    if isinstance(step, MemoryWriteStep):
        operation = MEMORY_OPERATIONS.get(step.operation, "upsert_memory")
        attributes = {
            "gen_ai.operation.name": operation,
            "gen_ai.memory.store.id": step.namespace[0] if step.namespace else None,
            "gen_ai.memory.record.id": step.key,
            "gen_ai.memory.record.count": 1,
            "energy_advisor.memory.changed_fields": [change.path for change in step.changes or []] or None,
            **node,
        }
        if capture:
            attributes["gen_ai.memory.records"] = json_text([{"id": step.key, "content": step.data}])
        return operation, SpanKind.INTERNAL, attributes, None
    return None, SpanKind.INTERNAL, {}, None


def _chat(step: LLMCallStep, capture: bool, node: Attributes) -> tuple[str, SpanKind, Attributes, str | None]:
    metadata = step.metadata or {}
    output = step.output
    failure = output.get("error") if isinstance(output, dict) else None
    attributes: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": step.provider or "unknown",
        "gen_ai.request.model": step.model,
        "gen_ai.usage.input_tokens": step.tokens_in,
        "gen_ai.usage.output_tokens": step.tokens_out,
        "energy_advisor.usage.estimated": True if metadata.get("tokens_estimated") else None,
        **node,
    }
    if failure is not None:
        attributes["error.type"] = _error_type(str(failure), "llm_error")
    if capture:
        attributes["gen_ai.input.messages"] = json_text(_input_messages(step.input))
        if failure is None:
            attributes["gen_ai.output.messages"] = json_text([_output_message(output)])
    return f"chat {step.model}", SpanKind.CLIENT, attributes, (str(failure) if failure is not None else None)


# --- message shapes (gen-ai-input-messages.json / gen-ai-output-messages.json) ----------------


def text_message(role: str, text: Any) -> dict[str, Any]:
    return {
        "role": role,
        "parts": [{"type": "text", "content": text if isinstance(text, str) else json_text(text)}],
    }


def _input_messages(recorded: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(recorded, str):
        return [text_message("user", recorded)]
    messages = []
    for entry in recorded:
        message = text_message(
            ROLES.get(str(entry.get("role")), str(entry.get("role"))), entry.get("content", "")
        )
        message["parts"] += [
            {"type": "tool_call", "name": call.get("name"), "arguments": call.get("args", {})}
            for call in entry.get("tool_calls") or []
            if isinstance(call, dict)
        ]
        messages.append(message)
    return messages


def _output_message(output: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(output, str):
        return {**text_message("assistant", output), "finish_reason": "stop"}
    calls = [call for call in output.get("tool_calls") or [] if isinstance(call, dict)]
    message = text_message("assistant", output.get("content", ""))
    message["parts"] += [
        {
            "type": "tool_call",
            "id": call.get("id"),
            "name": call.get("name"),
            "arguments": call.get("args", {}),
        }
        for call in calls
    ]
    return {**message, "finish_reason": "tool_call" if calls else "stop"}


def node_of(step: Any) -> str | None:
    node = (step.metadata or {}).get("node")
    return node if isinstance(node, str) else None


def _document_id(metadata: Mapping[str, Any] | None, index: int) -> str:
    metadata = metadata or {}
    parts = [str(metadata[key]) for key in ("source", "section") if metadata.get(key)]
    return "#".join(parts) or f"result-{index + 1}"


def _error_type(message: str | None, default: str) -> str:
    """A low-cardinality error class: the exception name before `Name: message`, else `default`."""
    head = (message or "").split(":", 1)[0].strip()
    return head if head.isidentifier() else default


def safe_text(value: Any, limit: int = CONTENT_LIMIT) -> str:
    """Redacted, encodable (no lone surrogates) and at most `limit` characters."""
    text = str(value).encode("utf-8", "replace").decode("utf-8")
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_text(value: Any) -> str:
    return safe_text(json.dumps(value, ensure_ascii=False, default=str))


def clean_attributes(attributes: Mapping[str, Any]) -> Attributes:
    """Attributes the SDK accepts (no None, strings made safe, lists of strings only), with the
    OpenInference span kind for a span's GenAI operation."""
    operation = attributes.get("gen_ai.operation.name")
    cleaned: Attributes = (
        {"openinference.span.kind": OPENINFERENCE_KINDS.get(operation, "CHAIN")} if operation else {}
    )
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str):
            cleaned[key] = safe_text(value, CONTENT_LIMIT)
        elif isinstance(value, bool | float):
            cleaned[key] = value
        elif isinstance(value, int):  # OTLP ints are 64-bit: a bigger one would fail the whole batch
            cleaned[key] = value if -(2**63) <= value < 2**63 else str(value)
        elif isinstance(value, Iterable):
            cleaned[key] = [safe_text(item, 500) for item in value]
        else:
            cleaned[key] = safe_text(value, CONTENT_LIMIT)
    return cleaned
