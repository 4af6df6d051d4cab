"""What one recorded trace holds for a replay: the user's message, the clock, and every answer the
outside world gave the graph (model calls per role, tool results, retrieved passages), in order.

Read from a ContextForge `TraceRun` (the source of truth); nothing else is needed to re-run the
turn, so a trace from Slack, the terminal chat or a 👎 feedback case replays the same way."""

from __future__ import annotations

import json
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from context_forge.core.trace import (
    FinalOutputStep,
    LLMCallStep,
    MemoryReadStep,
    RetrievalStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)

OFFLINE_MODELS = {"offline-templates", "offline"}  # the deterministic stand-in: code, not an LLM


@dataclass
class RecordedCall:
    """One model call: the messages it was given (as the recorder keeps them) and its answer."""

    step_id: str
    role: str
    input: list[dict[str, Any]]
    content: str
    tool_calls: list[dict[str, Any]]
    tokens_in: int | None
    tokens_out: int | None


@dataclass
class RecordedTool:
    step_id: str
    name: str
    arguments: dict[str, Any]
    result: Any
    success: bool


@dataclass
class RecordedRetrieval:
    step_id: str
    query: str
    results: list[dict[str, Any]]


@dataclass
class TurnRecording:
    """One trace, ready to be served back to the graph."""

    run_id: str
    kind: str  # "turn" or "memorize"
    user_id: str
    session_id: str
    turn: int | None
    started_at: datetime
    message: str | None
    answer: str | None
    profile: dict[str, Any] | None  # the profile as the turn read it (None: a new user)
    calls: dict[str, deque[RecordedCall]] = field(default_factory=lambda: defaultdict(deque))
    tools: list[RecordedTool] = field(default_factory=list)
    retrievals: list[RecordedRetrieval] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)  # role -> recorded model name


def canonical(arguments: Any) -> str:
    """Tool arguments compared as canonical JSON: key order, spacing and 80 vs 80.0 (the tool's
    schema turns the model's 80 into a float) do not matter."""
    return json.dumps(_plain_numbers(arguments), sort_keys=True, default=str, separators=(",", ":"))


def _plain_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_numbers(item) for item in value]
    return value


def read_recording(trace: TraceRun) -> TurnRecording:
    metadata = trace.metadata or {}
    recording = TurnRecording(
        run_id=trace.run_id,
        kind=str(metadata.get("kind") or "turn"),
        user_id=str(metadata.get("user_id") or ""),
        session_id=str(metadata.get("session_id") or ""),
        turn=metadata.get("turn") if isinstance(metadata.get("turn"), int) else None,
        started_at=trace.started_at,
        message=None,
        answer=None,
        profile=None,
    )
    for step in trace.steps:
        if isinstance(step, UserInputStep) and recording.message is None:
            recording.message = step.content
        elif isinstance(step, FinalOutputStep):
            recording.answer = step.content if isinstance(step.content, str) else json.dumps(step.content)
        elif isinstance(step, MemoryReadStep) and recording.profile is None:
            recording.profile = _profile_read(step)
        elif isinstance(step, LLMCallStep):
            role = str((step.metadata or {}).get("node") or "unknown")
            recording.models.setdefault(role, step.model)
            content, calls = _output(step.output)
            recording.calls[role].append(
                RecordedCall(
                    step_id=step.step_id,
                    role=role,
                    input=list(step.input) if isinstance(step.input, list) else [],
                    content=content,
                    tool_calls=calls,
                    tokens_in=step.tokens_in,
                    tokens_out=step.tokens_out,
                )
            )
        elif isinstance(step, ToolCallStep):
            recording.tools.append(
                RecordedTool(
                    step_id=step.step_id,
                    name=step.tool_name,
                    arguments=dict(step.arguments or {}),
                    result=step.result,
                    success=bool(step.success),
                )
            )
        elif isinstance(step, RetrievalStep):
            recording.retrievals.append(
                RecordedRetrieval(
                    step_id=step.step_id,
                    query=step.query,
                    results=[result.model_dump() for result in step.results],
                )
            )
    return recording


def _profile_read(step: MemoryReadStep) -> dict[str, Any] | None:
    for result in step.results:
        if isinstance(result, dict) and isinstance(result.get("profile"), dict):
            return result["profile"]
    return None


def _output(output: Any) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(output, dict):
        return str(output.get("content") or ""), list(output.get("tool_calls") or [])
    return ("" if output is None else str(output)), []
