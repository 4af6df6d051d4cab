"""One trace per turn (or memorize run) in ContextForge's format (FR-040..042).

`TraceRecorder` is a LangChain callback handler: it records `llm_call` (with the tool calls
the model requested and token counts from `usage_metadata`), `tool_call` (linked to the LLM
call that requested it) and `retrieval` steps by itself. Graph nodes add `user_input`,
`memory_read`, `memory_write`, `state_change` and `final_output` through the small API here,
reached via `current_trace()` (a context variable set for the turn). One recorder per turn,
so concurrent users never share a trace; callbacks never raise into the turn.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from uuid import UUID

from context_forge.core.trace import (
    FinalOutputStep,
    LLMCallStep,
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    StateChangeStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)
from context_forge.core.types import AgentInfo, FieldChange, RetrievalResult, TaskInfo
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage

from config.clock import Clock, utc_now

AGENT_NAME = "home-energy-advisor"
CONTENT_LIMIT = 4000  # characters of a message or tool result kept in a step

_CURRENT: ContextVar[TraceRecorder | None] = ContextVar("energy_advisor_trace", default=None)


def current_trace() -> TraceRecorder | None:
    """The recorder of the turn running in this context, if any."""
    return _CURRENT.get()


@contextmanager
def recording(recorder: TraceRecorder) -> Iterator[TraceRecorder]:
    token = _CURRENT.set(recorder)
    try:
        yield recorder
    finally:
        _CURRENT.reset(token)


def _clip(text: Any, limit: int = CONTENT_LIMIT) -> str:
    value = text if isinstance(text, str) else json.dumps(text, default=str)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _jsonable(value: Any) -> Any:
    """Plain JSON values only (datetimes as ISO strings), so the trace round-trips."""
    return json.loads(json.dumps(value, default=str))


class TraceRecorder(BaseCallbackHandler):
    raise_error = False  # a recording problem must never break a turn

    def __init__(
        self,
        *,
        user_id: str,
        session_id: str,
        turn: int,
        kind: str = "turn",
        labels: dict[str, str] | None = None,
        agent_version: str | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.user_id = user_id
        self.session_id = session_id
        self.turn = turn
        self.kind = kind
        self.run_id = uuid.uuid4().hex
        self._labels = labels or {}
        self._agent_version = agent_version
        self._clock = clock
        self.started_at = clock()
        self._steps: list[Any] = []
        self._errors: list[dict[str, Any]] = []
        self._pending: dict[UUID, dict[str, Any]] = {}
        self._llm_step_of_tool_call: dict[str, str] = {}
        self._lock = threading.Lock()
        self._count = 0

    # --- node API ----------------------------------------------------------------------------

    def user_input(self, content: str, *, node: str = "intake") -> str:
        return self._add(UserInputStep, node, content=_clip(content), input_type="text")

    def memory_read(
        self, namespace: Sequence[str], key: str, results: list[Any], *, node: str, query: Any = None
    ) -> str:
        return self._add(
            MemoryReadStep,
            node,
            query=_jsonable(query or {"namespace": list(namespace), "key": key}),
            results=_jsonable(results),
            match_count=len(results),
        )

    def memory_write(
        self,
        namespace: Sequence[str],
        key: str,
        *,
        operation: str,
        data: dict[str, Any],
        changes: Sequence[tuple[str, Any, Any]] = (),
        node: str,
    ) -> str:
        return self._add(
            MemoryWriteStep,
            node,
            namespace=list(namespace),
            key=key,
            operation=operation,
            data=_jsonable(data),
            changes=[
                FieldChange(path=path, old_value=_jsonable(old), new_value=_jsonable(new))
                for path, old, new in changes
            ],
            entity_type=namespace[0] if namespace else None,
            entity_id=key,
        )

    def state_change(
        self, key: str, new_value: Any, *, node: str, old_value: Any = None, reason: str | None = None
    ) -> str:
        # ContextForge drops nulls when saving and then cannot reload: never write a null new_value.
        value = "none" if new_value is None else _jsonable(new_value)
        return self._add(
            StateChangeStep,
            node,
            state_key=key,
            new_value=value,
            old_value=_jsonable(old_value),
            reason=reason,
        )

    def final_output(self, content: str | None, *, node: str = "recommend") -> str:
        return self._add(FinalOutputStep, node, content=content or "", format="markdown")

    def error(self, *, node: str, kind: str, message: str) -> None:
        with self._lock:
            self._errors.append({"node": node, "type": kind, "message": _clip(message, 500)})

    # --- callbacks -------------------------------------------------------------------------

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        metadata = metadata or {}
        role = next((tag.split(":", 1)[1] for tag in tags or [] if tag.startswith("role:")), None)
        model = (
            metadata.get("ls_model_name") or (serialized or {}).get("kwargs", {}).get("model") or "unknown"
        )
        self._begin(
            run_id,
            role or metadata.get("langgraph_node") or "unknown",
            model=str(model),
            provider=metadata.get("ls_provider"),
            input=[_message_dict(message) for message in (messages[0] if messages else [])],
        )

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is None:
            return
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(generation, "message", None)
        content = str(getattr(message, "content", "") or getattr(generation, "text", ""))
        tool_calls = [
            {"id": call.get("id"), "name": call["name"], "args": call.get("args", {})}
            for call in getattr(message, "tool_calls", []) or []
        ]
        usage = getattr(message, "usage_metadata", None) or {}
        estimated = bool((getattr(message, "response_metadata", None) or {}).get("token_estimate"))
        output: Any = {"content": _clip(content), "tool_calls": tool_calls} if tool_calls else _clip(content)
        step_id = self._add(
            LLMCallStep,
            pending["node"],
            at=pending["at"],
            model=pending["model"],
            provider=pending["provider"],
            input=pending["input"],
            output=output,
            tokens_in=usage.get("input_tokens"),
            tokens_out=usage.get("output_tokens"),
            tokens_total=usage.get("total_tokens"),
            latency_ms=_elapsed_ms(pending),
            extra={"tokens_estimated": True} if estimated else None,
        )
        with self._lock:
            for call in tool_calls:
                if call["id"]:
                    self._llm_step_of_tool_call[call["id"]] = step_id

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is None:
            return
        self._add(
            LLMCallStep,
            pending["node"],
            at=pending["at"],
            model=pending["model"],
            provider=pending["provider"],
            input=pending["input"],
            output={"error": _clip(f"{type(error).__name__}: {error}", 500)},
            latency_ms=_elapsed_ms(pending),
        )
        self.error(node=pending["node"], kind="llm_error", message=f"{type(error).__name__}: {error}")

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        arguments = inputs if isinstance(inputs, dict) else _parse_json(input_str)
        self._begin(
            run_id,
            (metadata or {}).get("langgraph_node", "tools"),
            name=(serialized or {}).get("name") or kwargs.get("name") or "unknown",
            arguments={k: v for k, v in (arguments or {}).items() if k != "runtime"},
            tool_call_id=kwargs.get("tool_call_id"),
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is None:
            return
        content = getattr(output, "content", output)
        failed = getattr(output, "status", "success") == "error"
        result = _parse_json(content) if isinstance(content, str) else content
        if isinstance(result, dict) and result.get("ok") is False:
            failed = True
        self._tool_step(
            pending, result=_jsonable(result if result is not None else _clip(content)), success=not failed
        )

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is not None:
            self._tool_step(
                pending, result=None, success=False, error=_clip(f"{type(error).__name__}: {error}", 500)
            )

    def on_retriever_start(
        self,
        serialized: dict[str, Any],
        query: str,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._begin(run_id, (metadata or {}).get("langgraph_node", "retrieve"), query=query)

    def on_retriever_end(self, documents: Sequence[Any], *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is None:
            return
        results = [
            RetrievalResult(
                content=_clip(document.page_content),
                score=document.metadata.get("score"),
                metadata={
                    key: document.metadata.get(key)
                    for key in ("source", "title", "section")
                    if document.metadata.get(key)
                },
            )
            for document in documents
        ]
        self._add(
            RetrievalStep,
            pending["node"],
            at=pending["at"],
            query=_clip(pending["query"], 2000),
            results=results,
            match_count=len(results),
            latency_ms=_elapsed_ms(pending),
        )

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        pending = self._end(run_id)
        if pending is not None:
            self.error(
                node=pending["node"], kind="retrieval_error", message=f"{type(error).__name__}: {error}"
            )

    # --- result ----------------------------------------------------------------------------

    def finish(self) -> TraceRun:
        """The finished trace, validated the way it will be read back (nulls dropped)."""
        with self._lock:
            steps = list(self._steps)
            errors = list(self._errors)
        ended = max([self._clock(), self.started_at])
        trace = TraceRun(
            run_id=self.run_id,
            started_at=self.started_at,
            ended_at=ended,
            agent_info=AgentInfo(name=AGENT_NAME, version=self._agent_version, framework="langgraph"),
            task_info=TaskInfo(description=self.kind),
            steps=steps,
            metadata={
                "user_id": self.user_id,
                "session_id": self.session_id,
                "turn": self.turn,
                "kind": self.kind,
                **{f"{role}_model": label for role, label in self._labels.items()},
                "errors": errors,
            },
        )
        return TraceRun.model_validate(json.loads(trace.model_dump_json(exclude_none=True)))

    # --- internals -------------------------------------------------------------------------

    def _begin(self, run_id: UUID, node: str, **fields: Any) -> None:
        """Remember a started LLM / tool / retriever run until its end callback."""
        with self._lock:
            self._pending[run_id] = {
                "start": time.perf_counter(),
                "at": self._clock(),
                "node": node,
                **fields,
            }

    def _end(self, run_id: UUID) -> dict[str, Any] | None:
        with self._lock:
            return self._pending.pop(run_id, None)

    def _tool_step(
        self, pending: dict[str, Any], *, result: Any, success: bool, error: str | None = None
    ) -> None:
        with self._lock:
            parent = self._llm_step_of_tool_call.get(pending.get("tool_call_id") or "")
        self._add(
            ToolCallStep,
            pending["node"],
            at=pending["at"],
            parent=parent,
            tool_name=pending["name"],
            arguments=_jsonable(pending["arguments"]),
            result=result,
            latency_ms=_elapsed_ms(pending),
            success=success,
            error=error,
            extra={"tool_call_id": pending.get("tool_call_id")} if pending.get("tool_call_id") else None,
        )

    def _add(
        self,
        step_type: type,
        node: str,
        *,
        at: datetime | None = None,
        parent: str | None = None,
        extra: dict[str, Any] | None = None,
        **fields: Any,
    ) -> str:
        with self._lock:
            self._count += 1
            step_id = f"{step_type.__name__.removesuffix('Step').lower()}-{self._count:03d}"
            step = step_type(
                step_id=step_id,
                timestamp=at or self._clock(),
                parent_step_id=parent,
                metadata={"node": node, **(extra or {})},
                **fields,
            )
            self._steps.append(step)
        return step_id


def _elapsed_ms(pending: dict[str, Any]) -> int:
    return int((time.perf_counter() - pending["start"]) * 1000)


def _message_dict(message: BaseMessage) -> dict[str, Any]:
    """A message as a step keeps it; one longer than the cut also keeps its full length and a hash
    of the whole text, so a replay still sees a change past the cut (a lost history line)."""
    text = str(message.content)
    entry: dict[str, Any] = {"role": message.type, "content": _clip(text)}
    if len(text) > CONTENT_LIMIT:
        entry["chars"] = len(text)
        entry["sha256"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    calls = getattr(message, "tool_calls", None)
    if calls:
        entry["tool_calls"] = [{"name": call["name"], "args": call.get("args", {})} for call in calls]
    return entry


def _parse_json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
