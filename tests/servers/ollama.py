"""A local server that speaks Ollama's HTTP API: `/api/tags`, `/api/chat` (NDJSON streaming,
tool calls, token counts) and `/api/embed`, scripted per test so ChatOllama's real code path runs."""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.servers.http import LocalHTTPServer, Request, Response

EMBED_DIMENSIONS = 768


@dataclass
class Step:
    """One scripted /api/chat answer."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    hang_seconds: float = 0.0
    raw_tool_calls: Any = None  # sent as-is, to script malformed tool calls
    token_seconds: float = 0.0  # > 0: the content streams word by word, this long apart (a real model's pace)


def say(text: str) -> Step:
    return Step(content=text)


def call(name: str, **arguments: Any) -> Step:
    return Step(tool_calls=[{"function": {"name": name, "arguments": arguments}}])


_STOPWORDS = frozenset(
    "a an and are as at be but by can do does for from had has have how i if in into is it its just me my "
    "no not of on or our out so than that the their them then there these they this to too up us was we "
    "what when where which who why will with would you your should could about get got over under".split()
)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def embed_text(text: str, dimensions: int = EMBED_DIMENSIONS) -> list[float]:
    """Deterministic test embedding: a bag of content words (stopwords dropped, crude stemming)
    hashed into `dimensions` buckets, L2-normalized. A crude, lexical stand-in for a semantic
    model: it gives the dense half of hybrid retrieval a real similarity signal in tests."""
    vector = [0.0] * dimensions
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in _STOPWORDS or len(word) < 2:
            continue
        digest = hashlib.sha256(_stem(word).encode()).digest()
        vector[int.from_bytes(digest[:4], "big") % dimensions] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class FakeOllama(LocalHTTPServer):
    def __init__(
        self,
        models: list[str] | None = None,
        script: list[Step] | None = None,
        embedder: Callable[[str], list[float]] = embed_text,
    ) -> None:
        """`embedder` serves /api/embed: the fast lexical `embed_text` by default, or the semantic
        MiniLM (`tests.servers.minilm.embed_minilm`) where retrieval quality is measured."""
        super().__init__()
        self.models = list(models or [])
        self.embedder = embedder
        self.script: list[Step] = list(script or [])
        self.chat_requests: list[dict[str, Any]] = []  # every role but understanding
        # The understanding role's requests (JSON-schema `format` titled ModelReading) have their own
        # script; with none left, the server answers as a competent model would (the offline reader's
        # reading), so tests of the other roles keep their own scripts.
        self.understanding_requests: list[dict[str, Any]] = []
        self.understanding_script: list[Step] = []
        self.responder: Callable[[dict[str, Any]], Step] | None = None  # chooses by request, overrides script
        self.release = threading.Event()  # set to end a scripted hang early
        self._script_lock = threading.Lock()
        self.route("GET", "/api/tags", self._tags)
        self.route("POST", "/api/chat", self._chat)
        self.route("POST", "/api/embed", self._embed)

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        super().__exit__(*exc)

    def _tags(self, _request: Request) -> Response:
        return Response.json(
            {"models": [{"name": name, "model": name, "size": 1, "digest": "0" * 12} for name in self.models]}
        )

    def _chat(self, request: Request) -> Response:
        body = request.json()
        with self._script_lock:
            if _is_understanding(body):
                self.understanding_requests.append(body)
                step = (
                    self.understanding_script.pop(0)
                    if self.understanding_script
                    else _read_like_a_model(body)
                )
            elif self.responder is not None:
                self.chat_requests.append(body)
                step = self.responder(body)
            else:
                self.chat_requests.append(body)
                step = self.script.pop(0) if self.script else Step(content="(no scripted answer left)")
        if step.hang_seconds:
            self.release.wait(step.hang_seconds)
        if step.status != 200:
            return Response.json({"error": f"scripted failure {step.status}"}, step.status)
        prompt_tokens = max(
            1, len(json.dumps(body.get("messages", []))) // 4 + len(json.dumps(body.get("tools") or [])) // 4
        )
        message: dict[str, Any] = {"role": "assistant", "content": step.content}
        if step.raw_tool_calls is not None:
            message["tool_calls"] = step.raw_tool_calls
        elif step.tool_calls:
            message["tool_calls"] = step.tool_calls
        final = {
            "model": body.get("model"),
            "created_at": "2026-01-21T12:00:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": prompt_tokens,
            "eval_count": max(1, len(step.content) // 4 + 8 * len(step.tool_calls)),
            "total_duration": 1_000_000,
        }
        if not body.get("stream", True):
            return Response.json(final)
        if not step.token_seconds or not step.content:
            lines = [json.dumps(final)]
            return Response(200, ("\n".join(lines) + "\n").encode(), {"Content-Type": "application/x-ndjson"})
        # As Ollama streams: one line per token (here a word and its space), then the done line.
        tokens = re.findall(r"\S+\s*", step.content)
        partial = {key: final[key] for key in ("model", "created_at")}
        lines = [
            json.dumps({**partial, "message": {"role": "assistant", "content": t}, "done": False})
            for t in tokens
        ]
        lines.append(json.dumps({**final, "message": {**message, "content": ""}}))
        return Response(
            200,
            ("\n".join(lines) + "\n").encode(),
            {"Content-Type": "application/x-ndjson"},
            trickle=step.token_seconds,
            pieces=len(lines),
        )

    def _embed(self, request: Request) -> Response:
        body = request.json()
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        return Response.json(
            {"model": body.get("model"), "embeddings": [self.embedder(text) for text in texts]}
        )


def _is_understanding(body: dict[str, Any]) -> bool:
    schema = body.get("format")
    return isinstance(schema, dict) and schema.get("title") == "ModelReading"


def _read_like_a_model(body: dict[str, Any]) -> Step:
    """A competent model's reading: the offline reader's, in the schema the advisor asked for."""
    from advisor.llm.offline import reading_json
    from advisor.understanding.models import ReadingContext, RequestParams
    from advisor.understanding.reader import understand

    request = json.loads(body["messages"][-1]["content"])
    last = request.get("last_request") or {}
    context = ReadingContext(
        pending_slot=request.get("pending"),
        last_intent="live_data" if last else None,
        last_topic=last.get("topic"),
        last_params=RequestParams.model_validate(last.get("params") or {}) if last else None,
    )
    return Step(content=reading_json(understand(request["message"], context)))
