"""A local server that speaks Slack's Web API (HTTP) and Socket Mode (websocket).

The real Bolt app connects to it through `SLACK_API_URL`: `auth.test`, `apps.connections.open`
(which hands out this server's `ws://` URL), `chat.postMessage`, `chat.postEphemeral`,
`chat.update`, `assistant.threads.setStatus`, `assistant.threads.setSuggestedPrompts`,
`reactions.add`/`remove`, `views.publish`, `views.open`, `views.update`, the streaming API
(`chat.startStream` / `appendStream` / `stopStream`, building `StreamedMessage`s that can be
made unavailable or expire), and a `response_url` webhook. On the websocket it sends `hello`, pushes envelopes the test gives it, records every ack
with its time, and can ask the client to reconnect (`disconnect`). Failures can be scripted per method (e.g. 429).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve

from tests.servers.http import LocalHTTPServer, Request, Response


@dataclass
class Ack:
    envelope_id: str
    at: float
    payload: Any = None


@dataclass
class StreamedMessage:
    """One message built by chat.startStream / appendStream / stopStream, as a user sees it."""

    channel: str
    thread_ts: str
    ts: str
    text: str = ""
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> latest task_update
    updates: list[dict[str, Any]] = field(default_factory=list)  # every task_update, in order
    blocks: list[dict[str, Any]] = field(default_factory=list)
    state: str = "streaming"  # streaming, stopped, expired
    appends: int = 0
    at: float = field(default_factory=time.monotonic)

    def add(self, params: dict[str, Any]) -> None:
        self.text += params.get("markdown_text") or ""
        for chunk in params.get("chunks") or []:
            if chunk.get("type") == "markdown_text":
                self.text += chunk.get("text", "")
            elif chunk.get("type") == "task_update":
                self.tasks[chunk["id"]] = chunk
                self.updates.append(chunk)


@dataclass
class ApiCall:
    method: str
    params: dict[str, Any]
    token: str
    at: float = field(default_factory=time.monotonic)


class FakeSlack(LocalHTTPServer):
    def __init__(
        self, *, bot_token: str, app_token: str, team_id: str = "T0TEST", bot_user_id: str = "UBOT"
    ) -> None:
        super().__init__()
        self.bot_token = bot_token
        self.app_token = app_token
        self.team_id = team_id
        self.bot_user_id = bot_user_id
        self.calls: list[ApiCall] = []
        self.acks: dict[str, Ack] = {}
        self.sent_at: dict[str, float] = {}
        self.webhooks: list[dict[str, Any]] = []
        self.failures: dict[str, list[Response]] = defaultdict(list)  # method -> scripted answers first
        self.connections: list[ServerConnection] = []
        self.streams: dict[str, StreamedMessage] = {}  # ts -> message built by the streaming API
        self.streaming = True  # False: chat.startStream answers unknown_method (an older workspace)
        self.expire_after_appends: int | None = None  # a stream expires after this many appends
        self.scopes: list[str] | None = None  # the bot token's scopes, sent as X-OAuth-Scopes when set
        self.connection_count = 0
        self._ts = 1_700_000_000.0
        self._state = threading.Condition()
        self._ws = serve(self._socket_mode, "127.0.0.1", 0)
        self._ws_thread = threading.Thread(target=self._ws.serve_forever, daemon=True)
        self.route("POST", "/response-url", self._response_url)

    # --- lifecycle ------------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    @property
    def ws_url(self) -> str:
        host, port = self._ws.socket.getsockname()[:2]
        return f"ws://{host}:{port}/link/"

    def __enter__(self) -> FakeSlack:
        super().__enter__()
        self._ws_thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._ws.shutdown()
        self._ws_thread.join(timeout=5)
        super().__exit__(*exc)

    # --- Web API --------------------------------------------------------------------------

    def route_for(self, path: str) -> Any:
        return self._api if path.startswith("/api/") else None

    def _api(self, request: Request) -> Response:
        method = request.path.removeprefix("/api/")
        params = _params(request)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ") or str(
            params.get("token", "")
        )
        with self._state:
            self.calls.append(ApiCall(method, params, token))
            self._state.notify_all()
            scripted = self.failures[method].pop(0) if self.failures.get(method) else None
        if scripted is not None:
            return scripted
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return Response.json({"ok": False, "error": "invalid_auth"})
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        # As Slack does, every answer to the bot token lists the token's scopes.
        headers = (
            {"X-OAuth-Scopes": ",".join(self.scopes)}
            if self.scopes is not None and method != "apps.connections.open"
            else None
        )
        return Response.json(handler(params) if handler else {"ok": True}, 200, headers)

    def _auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "team": "Test Team",
            "team_id": self.team_id,
            "user": "energy_advisor",
            "user_id": self.bot_user_id,
            "bot_id": "BBOT",
        }

    def _apps_connections_open(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": self.ws_url + f"?ticket={uuid.uuid4().hex}"}

    def _next_ts(self) -> str:
        with self._state:
            self._ts += 1
            return f"{self._ts:.6f}"

    def _chat_postMessage(self, params: dict[str, Any]) -> dict[str, Any]:  # noqa: N802 - Slack's method name
        return {
            "ok": True,
            "channel": params.get("channel"),
            "ts": self._next_ts(),
            "message": {"text": params.get("text")},
        }

    def _chat_startStream(self, params: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        if not self.streaming:
            return {"ok": False, "error": "unknown_method"}
        if not params.get("channel") or not params.get("thread_ts"):
            return {"ok": False, "error": "invalid_arguments"}
        message = StreamedMessage(str(params["channel"]), str(params["thread_ts"]), self._next_ts())
        message.add(params)
        with self._state:
            self.streams[message.ts] = message
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    def _chat_appendStream(self, params: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        message = self.streams.get(str(params.get("ts")))
        if message is None or message.state != "streaming":
            return {"ok": False, "error": "message_not_in_streaming_state"}
        message.add(params)
        message.appends += 1
        if self.expire_after_appends is not None and message.appends >= self.expire_after_appends:
            message.state = "expired"  # as Slack does with a stream left open too long
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    def _chat_stopStream(self, params: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        message = self.streams.get(str(params.get("ts")))
        if message is None or message.state != "streaming":
            return {"ok": False, "error": "message_not_in_streaming_state"}
        message.add(params)
        with self._state:
            message.blocks = list(params.get("blocks") or [])
            message.state = "stopped"
            self._state.notify_all()
        return {"ok": True, "channel": message.channel, "ts": message.ts, "message": {"text": message.text}}

    def expire_streams(self) -> None:
        """Slack closes streams left open too long: later appends fail."""
        with self._state:
            for message in self.streams.values():
                if message.state == "streaming":
                    message.state = "expired"

    def answers(self) -> list[dict[str, Any]]:
        """What the users see, in order: posted messages and finished streamed messages, each as
        chat.postMessage's params (channel, thread_ts, text, blocks) plus `streamed` (and `tasks`)."""
        with self._state:
            posted = [
                {**call.params, "streamed": False, "at": call.at}
                for call in self.calls
                if call.method == "chat.postMessage"
            ]
            streamed = [
                {
                    "channel": m.channel,
                    "thread_ts": m.thread_ts,
                    "text": m.text,
                    "blocks": m.blocks,
                    "tasks": m.tasks,
                    "updates": list(m.updates),
                    "streamed": True,
                    "state": m.state,
                    "at": m.at,
                }
                for m in self.streams.values()
            ]
        return sorted(posted + streamed, key=lambda message: message["at"])

    def _conversations_open(self, params: dict[str, Any]) -> dict[str, Any]:
        users = str(params.get("users") or "")
        if not users or "," in users:
            return {"ok": False, "error": "not_enough_users" if not users else "too_many_users"}
        return {"ok": True, "channel": {"id": f"D{users}"}}

    def _chat_postEphemeral(self, params: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        return {"ok": True, "message_ts": self._next_ts()}

    def _chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}

    def _views_publish(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "view": {"id": "V1"}}

    def _views_open(self, params: dict[str, Any]) -> dict[str, Any]:
        if not params.get("trigger_id"):
            return {"ok": False, "error": "invalid_trigger_id"}
        return {"ok": True, "view": {"id": "VMODAL", **(params.get("view") or {})}}

    def _views_update(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "view": {"id": params.get("view_id") or "VMODAL", **(params.get("view") or {})}}

    def _response_url(self, request: Request) -> Response:
        with self._state:
            self.webhooks.append(request.json())
            self._state.notify_all()
        return Response(200, b"ok", {"Content-Type": "text/plain"})

    # --- Socket Mode ----------------------------------------------------------------------

    def _socket_mode(self, connection: ServerConnection) -> None:
        with self._state:
            self.connections.append(connection)
            self.connection_count += 1
            self._state.notify_all()
        connection.send(
            json.dumps({"type": "hello", "num_connections": 1, "debug_info": {"host": "fake-slack"}})
        )
        try:
            for raw in connection:
                message = json.loads(raw)
                if "envelope_id" in message:
                    with self._state:
                        self.acks[message["envelope_id"]] = Ack(
                            message["envelope_id"], time.monotonic(), message.get("payload")
                        )
                        self._state.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self._state:
                if connection in self.connections:
                    self.connections.remove(connection)
                self._state.notify_all()

    def push(
        self,
        envelope_type: str,
        payload: dict[str, Any],
        *,
        retry_attempt: int = 0,
        envelope_id: str | None = None,
    ) -> str:
        """Send one envelope to the connected app; returns its envelope id."""
        envelope_id = envelope_id or uuid.uuid4().hex
        envelope = {
            "envelope_id": envelope_id,
            "type": envelope_type,
            "payload": payload,
            "accepts_response_payload": envelope_type != "events_api",
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }
        connection = self.wait_for_connection()
        with self._state:
            self.sent_at[envelope_id] = time.monotonic()
        connection.send(json.dumps(envelope))
        return envelope_id

    @contextlib.contextmanager
    def pinging(self, interval: float = 0.05) -> Iterator[None]:
        """Ping every connected app while the block runs, as Slack pings its clients: for a quick
        stop. slack_sdk's client closes its socket only between two reads, and a read waits up to
        3 s for data; a ping ends the read (its pong then waits for the close), so the close is
        prompt. Nothing else changes: the client answers pings whether or not it is stopping."""
        done = threading.Event()

        def ping() -> None:
            while not done.wait(interval):
                with self._state:
                    connections = list(self.connections)
                for connection in connections:
                    with contextlib.suppress(Exception):  # closing or closed: nothing to wake
                        connection.ping()

        thread = threading.Thread(target=ping, name="fake-slack-pings", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(timeout=5)

    def ask_to_reconnect(self) -> None:
        connection = self.wait_for_connection()
        connection.send(
            json.dumps(
                {"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "fake-slack"}}
            )
        )

    # --- waiting helpers for tests --------------------------------------------------------

    def wait_for_connection(self, timeout: float = 20, count: int = 1) -> ServerConnection:
        with self._state:
            if not self._state.wait_for(lambda: self.connection_count >= count and self.connections, timeout):
                raise TimeoutError("the app did not connect over Socket Mode")
            return self.connections[-1]

    def wait_for(self, predicate, timeout: float = 30) -> Any:
        with self._state:
            result = self._state.wait_for(predicate, timeout)
        if not result:
            raise TimeoutError("condition not met in time")
        return result

    def calls_to(self, method: str) -> list[ApiCall]:
        with self._state:
            return [call for call in self.calls if call.method == method]


def _params(request: Request) -> dict[str, Any]:
    content_type = request.headers.get("Content-Type", "")
    body = request.body.decode("utf-8") if request.body else ""
    if "json" in content_type:
        return json.loads(body or "{}")
    parsed = {key: values[0] for key, values in parse_qs(body).items()}
    for key in ("blocks", "prompts", "view", "attachments", "chunks"):
        if isinstance(parsed.get(key), str):
            with contextlib.suppress(json.JSONDecodeError):
                parsed[key] = json.loads(parsed[key])
    return parsed
