"""Stand-ins that serve a recording back to the graph: the model's recorded answers, the tools'
recorded results, the recorded passages and the recorded clock — and say so loudly when the graph
now asks for something the recording does not have (`Divergence`).

Each stand-in reads the `Cassette`, which holds the recording of the turn being replayed; the
runner loads the next trace into it before each turn. Divergences are also kept on the cassette,
because the graph turns a failing model or tool into a polite reply, and the replay must not."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from advisor.llm.offline import OfflineChatModel
from bot.replay.recording import RecordedCall, RecordedRetrieval, TurnRecording, canonical
from bot.replay.recording import RecordedTool as RecordedToolCall
from knowledge.models import RetrievedDocument
from traces.recorder import _message_dict

SHOWN = 160  # characters of a message shown in a divergence


class Divergence(Exception):
    """The graph asked for something the recording cannot answer; the message names the step."""


class Cassette:
    """The recording being replayed, and what the graph has taken from it so far."""

    def __init__(self) -> None:
        self.recording: TurnRecording | None = None
        self.divergences: list[str] = []
        self._tools_used: set[int] = set()
        self._retrievals_used: set[int] = set()

    def load(self, recording: TurnRecording) -> None:
        self.recording = recording
        self._tools_used = set()
        self._retrievals_used = set()

    def unused_retrievals(self) -> list[RecordedRetrieval]:
        if self.recording is None:
            return []
        return [
            found
            for index, found in enumerate(self.recording.retrievals)
            if index not in self._retrievals_used
        ]

    def unused_tools(self) -> list[RecordedToolCall]:
        if self.recording is None:
            return []
        return [tool for index, tool in enumerate(self.recording.tools) if index not in self._tools_used]

    def now(self) -> datetime:
        return self.recording.started_at if self.recording else datetime.now(timezone.utc)

    def _diverged(self, message: str) -> Divergence:
        where = f"turn {self.recording.turn} (trace {self.recording.run_id})" if self.recording else "replay"
        text = f"{where}: {message}"
        self.divergences.append(text)
        return Divergence(text)

    # --- model -----------------------------------------------------------------------------

    def next_call(self, role: str, messages: list[BaseMessage]) -> RecordedCall:
        assert self.recording is not None
        queue = self.recording.calls.get(role)
        asked = [_message_dict(message) for message in messages]
        if not queue:
            last = _shown(asked[-1]["content"]) if asked else ""
            raise self._diverged(
                f"the graph asked the {role} model something new (no recorded {role} call is left); "
                f"its last message: {last!r}"
            )
        call = queue.popleft()
        difference = _first_difference(call.input, asked)
        if difference is not None:
            raise self._diverged(
                f"the graph asked the {role} model something new at step {call.step_id}: {difference}"
            )
        return call

    # --- tools -----------------------------------------------------------------------------

    def tool_call(
        self, name: str, arguments: dict[str, Any], defaults: dict[str, Any] | None = None
    ) -> RecordedToolCall:
        """The recorded call with the same arguments; the recorder keeps the arguments as the model
        gave them, so `defaults` (the tool's) fill both sides before they are compared."""
        assert self.recording is not None
        defaults = defaults or {}
        wanted = canonical({**defaults, **arguments})
        for index, recorded in enumerate(self.recording.tools):
            if index in self._tools_used or recorded.name != name:
                continue
            if canonical({**defaults, **recorded.arguments}) == wanted:
                self._tools_used.add(index)
                return recorded
        same_name = [
            r for i, r in enumerate(self.recording.tools) if r.name == name and i not in self._tools_used
        ]
        found = (
            "; recorded: " + ", ".join(f"{r.step_id} {canonical(r.arguments)}" for r in same_name)
            if same_name
            else f"; the recording has no other {name} call"
        )
        raise self._diverged(
            f"the graph called the tool {name} with {wanted}, which the recording lacks{found}"
        )

    # --- retrieval -------------------------------------------------------------------------

    def compare_result(self, recorded: RecordedToolCall, now: Any) -> None:
        """A tool recorded over mock data ran live (it is deterministic code under test): its
        result must be the recorded one."""
        difference = _json_difference(recorded.result, now)
        if difference is not None:
            self._diverged(
                f"the tool {recorded.name} now returns something else than at step {recorded.step_id}: {difference}"
            )

    def passages(self, query: str) -> list[dict[str, Any]]:
        assert self.recording is not None
        for index, recorded in enumerate(self.recording.retrievals):
            if index not in self._retrievals_used and recorded.query == query:
                self._retrievals_used.add(index)
                return recorded.results
        recorded_queries = [r.query for r in self.recording.retrievals]
        raise self._diverged(
            f"the graph searched the knowledge base for {_shown(query)!r}, which the recording lacks"
            + (
                f" (recorded: {', '.join(repr(_shown(q)) for q in recorded_queries)})"
                if recorded_queries
                else ""
            )
        )


def _shown(text: Any) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= SHOWN else line[: SHOWN - 1] + "…"


def _json_difference(before: Any, now: Any, path: str = "") -> str | None:
    """The first place two JSON values differ, as 'facts.grid_kwh 31.94 -> 63.88' (None: equal)."""
    if isinstance(before, dict) and isinstance(now, dict):
        for key in sorted(before.keys() | now.keys()):
            found = _json_difference(before.get(key), now.get(key), f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(before, list) and isinstance(now, list) and len(before) == len(now):
        for index, (a, b) in enumerate(zip(before, now, strict=True)):
            found = _json_difference(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if canonical(before) == canonical(now):
        return None
    return f"{path or 'the result'} {_shown(before)} -> {_shown(now)}"


def _around(before: str, now: str) -> tuple[str, str]:
    """Both texts from a little before the first character where they differ."""
    first = next(
        (i for i, (a, b) in enumerate(zip(before, now, strict=False)) if a != b), min(len(before), len(now))
    )
    start = max(0, first - 40)
    prefix = "…" if start else ""
    return prefix + _shown(before[start:]), prefix + _shown(now[start:])


def _first_difference(recorded: list[dict[str, Any]], asked: list[dict[str, Any]]) -> str | None:
    """Where the messages the graph sends now first differ from the recorded ones (None: same)."""
    for index, (before, now) in enumerate(zip(recorded, asked, strict=False)):
        if before != now:
            was, now_text = _around(str(before.get("content")), str(now.get("content")))
            if was == now_text and before.get("sha256") != now.get("sha256"):  # differs past the cut
                was = f"{before.get('chars')} characters (sha256 {before.get('sha256')})"
                now_text = (
                    f"{now.get('chars')} characters (sha256 {now.get('sha256')}), after the first 4 000"
                )
            elif was == now_text:  # same text, different tool calls
                was, now_text = _shown(before.get("tool_calls")), _shown(now.get("tool_calls"))
            return f"message {index + 1} ({now.get('role')}) was {was!r}, now {now_text!r}"
    if len(recorded) != len(asked):
        return f"{len(asked)} messages, the recording has {len(recorded)}"
    return None


class RecordedChatModel(BaseChatModel):
    """Answers each call with the recorded answer of the same role, in order, after checking the
    graph sends the same messages it sent when the trace was recorded."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: str
    model_name: str = "replay"
    cassette: Any = Field(exclude=True)

    @property
    def _llm_type(self) -> str:
        return "replay"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        call = self.cassette.next_call(self.role, messages)
        message = AIMessage(
            content=call.content,
            tool_calls=[
                {
                    "name": c["name"],
                    "args": c.get("args") or {},
                    "id": c.get("id") or f"replay-{n}",
                    "type": "tool_call",
                }
                for n, c in enumerate(call.tool_calls)
            ],
        )
        if call.tokens_in is not None and call.tokens_out is not None:
            message.usage_metadata = {
                "input_tokens": call.tokens_in,
                "output_tokens": call.tokens_out,
                "total_tokens": call.tokens_in + call.tokens_out,
            }
        return ChatResult(generations=[ChatGeneration(message=message)])


class CheckedOfflineModel(OfflineChatModel):
    """The offline stand-in, which runs live (it is code under test), after checking the graph
    sends it the messages it sent when the trace was recorded: a prompt a real model would now see
    differently is a change the suite must show."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    cassette: Any = Field(exclude=True)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        self.cassette.next_call(self.role, messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class RecordedTool(BaseTool):
    """A tool with the real one's name and arguments that returns the recorded result."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    cassette: Any = Field(exclude=True)
    original: Any = Field(exclude=True)

    @classmethod
    def like(cls, tool: BaseTool, cassette: Cassette) -> RecordedTool:
        return cls(
            name=tool.name,
            description=tool.description,
            args_schema=tool.args_schema,
            return_direct=tool.return_direct,
            cassette=cassette,
            original=tool,
        )

    def _defaults(self) -> dict[str, Any]:
        schema = self.args_schema
        fields = getattr(schema, "model_fields", {}) if isinstance(schema, type) else {}
        return {
            name: info.default
            for name, info in fields.items()
            if name != "runtime" and not info.is_required() and info.default_factory is None
        }

    def _run(self, *args: Any, run_manager: Any = None, **kwargs: Any) -> str:
        arguments = {key: value for key, value in kwargs.items() if key != "runtime"}
        recorded = self.cassette.tool_call(self.name, arguments, self._defaults())
        if isinstance(recorded.result, dict) and recorded.result.get("is_mock") is True:
            # Recorded over the mock data fixtures: the data are reproducible, so the tool (the
            # energy core, deterministic code under test) runs live and must give the same result.
            live = self.original.func(**kwargs)
            self.cassette.compare_result(recorded, json.loads(live) if isinstance(live, str) else live)
            return live
        # Recorded over a real API: the recorded result stands in for the data API.
        return recorded.result if isinstance(recorded.result, str) else json.dumps(recorded.result)


class _ServedPassages(BaseRetriever):
    cassette: Any = Field(exclude=True)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            Document(
                page_content=str(result.get("content") or ""),
                metadata={**(result.get("metadata") or {}), "score": result.get("score")},
            )
            for result in self.cassette.passages(query)
        ]


class RecordedRetriever:
    """The knowledge base as the trace saw it: the recorded passages for the recorded query (the
    retrieval step is recorded again through the retriever callbacks, so graders see it)."""

    def __init__(self, cassette: Cassette) -> None:
        self._served = _ServedPassages(cassette=cassette)

    def retrieve(
        self, query: str, k: int = 4, config: Any = None, where: Any = None, skip: Any = frozenset()
    ) -> list[RetrievedDocument]:
        documents = self._served.invoke(query, config=config)
        fields = RetrievedDocument.model_fields
        served = []
        for document in documents:
            metadata = document.metadata
            values = {key: value for key, value in metadata.items() if key in fields and value is not None}
            score = metadata.get("score")
            values.update(
                text=document.page_content,
                source=str(metadata.get("source") or ""),
                score=min(1.0, max(0.0, float(score))) if isinstance(score, (int, float)) else 0.0,
            )
            served.append(RetrievedDocument(**values))
        return served


class ReplayClock:
    """The recorded clock: every reading during a turn is the time the trace started."""

    def __init__(self, cassette: Cassette) -> None:
        self._cassette = cassette

    def __call__(self) -> datetime:
        return self._cassette.now()
