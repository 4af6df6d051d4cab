"""What a turn is doing, as it happens: the graph's own stream events turned into steps a person
can follow ("Reading your profile", "Looking up PG&E EV2-A prices") and the answer's text as the
model writes it.

`TurnProgress` reads the events of `graph.stream(..., stream_mode=["tasks", "messages",
"values"], subgraphs=True)`: a node's task starting or finishing is a step; a tool call the
analyzer's model asks for is a step that completes when its result arrives (its summary and
sources attached); the recommend model's tokens are the answer's text. Nothing here is timed or
canned: a step exists only because the graph did that work. Transports (Slack, the terminal) get
them through the `ProgressListener` protocol; the final reply is still the service's `Reply`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

logger = logging.getLogger(__name__)

StepStatus = Literal["in_progress", "complete", "error"]

# Graph nodes a person would recognise as work; the others (loading and saving the thread) are
# bookkeeping and shown only through their effect.
NODE_TITLES: dict[str, str] = {
    "intake": "Reading your message",
    "remember": "Reading your profile",
    "recommend": "Writing the answer",
    "memorizer": "Noting what to remember",
}
TOOL_TITLES: dict[str, str] = {
    "plan_ev_charging": "Planning the cheapest charging window",
    "compare_charging_costs": "Comparing charging now with later",
    "estimate_monthly_charging_cost": "Pricing a month of charging",
    "get_tariff_prices": "Looking up your rate plan's prices",
    "get_weather_forecast": "Checking the weather forecast",
    "get_solar_forecast": "Estimating your solar output",
    "get_typical_solar_production": "Estimating a typical year of solar",
    "compare_rate_plans": "Pricing a year on each rate plan",
    "appliance_advice": "Pricing the appliance run now and later",
}
ANSWER_ROLE_TAG = "role:recommend"  # the model call whose tokens are the answer
DETAILS_LIMIT = 280
_URL = re.compile(r"https?://[^\s)\]>,;]+")


@dataclass(frozen=True)
class Source:
    url: str
    text: str


@dataclass(frozen=True)
class Step:
    """One piece of work, updated in place by its `id` (in_progress, then complete or error)."""

    id: str
    title: str
    status: StepStatus
    details: str | None = None
    sources: tuple[Source, ...] = ()


class ProgressListener(Protocol):
    def step(self, step: Step) -> None: ...

    def text(self, chunk: str) -> None: ...


@dataclass
class TurnProgress:
    """Feeds one turn's stream events to a listener; keeps the turn's output (the last top-level
    `values` event, which the graph filters to `TurnOutput`)."""

    listener: ProgressListener | None = None
    output: dict[str, Any] | None = None
    streamed: str = ""  # the answer text given to the listener so far
    _open_tools: dict[str, tuple[str, str]] = field(default_factory=dict)  # call id -> (name, title)
    _model_spoke: bool = False  # the answer model's own text has started
    _plan: str | None = None  # the user's utility and plan, as remember read them ("PG&E EV2-A")

    def feed(self, namespace: tuple[str, ...], mode: str, data: Any) -> None:
        if mode == "values":
            if not namespace:
                self.output = data
            return
        if self.listener is None:
            return
        if mode == "tasks" and not namespace:
            self._task(data)
        elif mode == "messages":
            message, metadata = data
            self._message(message, metadata)

    # --- graph nodes ------------------------------------------------------------------------

    def _task(self, task: dict[str, Any]) -> None:
        name = task.get("name")
        result = dict(task.get("result") or []) if "result" in task else None
        if result is not None and "user_profile" in result and name in ("remember", "onboarding"):
            self._plan = _plan_name(result.get("user_profile"))  # the plan the prices will be for
        if result is not None and name == "retrieve":
            self._retrieval(result)
        title = NODE_TITLES.get(name or "")
        if title is None:
            return
        if "result" not in task:  # a task starting
            if name == "recommend":
                self._before_answer(task.get("input") or {})
            self._emit(Step(id=f"node-{name}", title=title, status="in_progress"))
            return
        failed = task.get("error") is not None
        details, sources = _node_outcome(name or "", dict(task.get("result") or []))
        self._emit(
            Step(
                id=f"node-{name}",
                title=title,
                status="error" if failed else "complete",
                details=details,
                sources=sources,
            )
        )

    def _before_answer(self, state: dict[str, Any]) -> None:
        """What the reply says before the model's words (what was saved, notices) goes first, as
        the stored reply has it (`save_session` joins notices and the answer)."""
        lead = "\n\n".join(notice for notice in state.get("notices") or [] if notice)
        if lead:
            self._text(lead + "\n\n")

    def _retrieval(self, result: dict[str, Any]) -> None:
        documents = result.get("retrieved_docs") or []
        if not documents:
            return
        sources = tuple(
            Source(url=_document_url(doc), text=_document_title(doc))
            for doc in documents[:4]
            if _document_url(doc)
        )
        names = ", ".join(_document_title(doc) for doc in documents[:4])
        self._emit(
            Step(
                id="retrieval",
                title="Searching the knowledge base",
                status="complete",
                details=_clip(f"Found {len(documents)} passage(s): {names}"),
                sources=sources,
            )
        )

    # --- tool calls and the answer's tokens ---------------------------------------------------

    def _message(self, message: Any, metadata: dict[str, Any]) -> None:
        tags = metadata.get("tags") or []
        if isinstance(message, ToolMessage):
            self._tool_result(message)
        elif isinstance(message, AIMessage | AIMessageChunk):
            for call in getattr(message, "tool_calls", None) or []:
                self._tool_started(call)
            if ANSWER_ROLE_TAG in tags and metadata.get("ls_integration") == "langchain_chat_model":
                content = message.content if isinstance(message.content, str) else ""
                # Token chunks as they come; a whole message (a model that does not stream) once.
                if content and (isinstance(message, AIMessageChunk) or not self._model_spoke):
                    self._model_spoke = True
                    self._text(content)

    def _tool_started(self, call: dict[str, Any]) -> None:
        call_id, name = call.get("id"), call.get("name")
        if not call_id or not name or call_id in self._open_tools:
            return
        title = TOOL_TITLES.get(name, f"Running {name}")
        if name == "get_tariff_prices" and self._plan:
            title = f"Looking up {self._plan} prices"
        self._open_tools[call_id] = (name, title)
        self._emit(Step(id=f"tool-{call_id}", title=title, status="in_progress"))

    def _tool_result(self, message: ToolMessage) -> None:
        call_id = message.tool_call_id
        name, title = self._open_tools.pop(
            call_id, (message.name or "", TOOL_TITLES.get(message.name or "", "Running a tool"))
        )
        observation = _json(message.content)
        ok = bool(observation.get("ok", True)) and message.status != "error"
        summary = observation.get("summary") if isinstance(observation.get("summary"), str) else None
        cited = " ".join(str(observation.get(key) or "") for key in ("source", "credit"))
        sources = tuple(Source(url=url, text=_host(url)) for url in dict.fromkeys(_URL.findall(cited)))
        self._emit(
            Step(
                id=f"tool-{call_id}",
                title=title,
                status="complete" if ok else "error",
                details=_clip(summary) if summary else None,
                sources=sources,
            )
        )

    def _text(self, chunk: str) -> None:
        self.streamed += chunk
        self._tell("text", chunk)

    def _emit(self, step: Step) -> None:
        self._tell("step", step)

    def _tell(self, method: str, value: Any) -> None:
        """A listener is told what happens; its failure (a transport's network error) must never
        cost the turn its answer: it is logged and the listener is not told anything more."""
        if self.listener is None:
            return
        try:
            getattr(self.listener, method)(value)
        except Exception:
            logger.exception("The turn's progress listener failed; the turn goes on without it")
            self.listener = None


def _node_outcome(name: str, result: dict[str, Any]) -> tuple[str | None, tuple[Source, ...]]:
    """A short line of what the node found, from what it wrote to the state."""
    if name == "remember":
        profile = result.get("user_profile")
        changes = result.get("profile_changes") or []
        parts = []
        if changes:
            parts.append(f"saved {len(changes)} change(s) you stated")
        if plan := _plan_name(profile):
            parts.append(f"rate plan {plan}")
        return (_clip("; ".join(parts)) if parts else None), ()
    return None, ()


def _plan_name(profile: Any) -> str | None:
    location = getattr(profile, "location", None)
    parts = [getattr(location, "utility_provider", None), getattr(location, "rate_schedule", None)]
    named = [str(part) for part in parts if part]
    return " ".join(named) if named else None


def _document_title(doc: Any) -> str:
    return str(getattr(doc, "title", None) or getattr(doc, "source", "") or "a passage")


def _document_url(doc: Any) -> str | None:
    found = _URL.search(str(getattr(doc, "source", "") or ""))
    return found.group(0) if found else None


def _host(url: str) -> str:
    return url.split("//", 1)[-1].split("/", 1)[0]


def _json(content: Any) -> dict[str, Any]:
    if isinstance(content, dict):
        return content
    try:
        parsed = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _clip(text: str, limit: int = DETAILS_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
