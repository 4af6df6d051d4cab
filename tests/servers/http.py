"""A small threaded HTTP server on 127.0.0.1 with scripted routes, recording every request.

Hostile behaviours for the data-API tests: a `Response` may wait `delay` seconds before
answering (a slow API) or send its body in pieces `trickle` seconds apart (an API that keeps the
connection busy without ever finishing). Waits end early when the server stops.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")


class _Server(ThreadingHTTPServer):
    # socketserver's listen backlog is 5: a burst of connections beyond it has its SYNs dropped and
    # retried by the client's kernel a second later (measured: the 17th-20th of 20 simultaneous
    # status calls took 1.03-1.15 s instead of ~0.1 s). Real Slack and the real APIs have no such limit.
    request_queue_size = 128


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line is sent
    trickle: float = 0.0  # seconds between body pieces (0: the body in one write)
    pieces: int = 20  # how many pieces a trickled body is cut into

    @classmethod
    def json(
        cls,
        payload: Any,
        status: int = 200,
        headers: dict[str, str] | None = None,
        *,
        delay: float = 0.0,
        trickle: float = 0.0,
    ) -> Response:
        return cls(
            status,
            json.dumps(payload).encode(),
            {"Content-Type": "application/json", **(headers or {})},
            delay=delay,
            trickle=trickle,
        )


Handler = Callable[[Request], Response]


class LocalHTTPServer:
    """Start with `with LocalHTTPServer() as server:`; `server.url` is its base URL."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Handler] = {}
        self.requests: list[Request] = []
        self.stopping = threading.Event()  # set on exit: slow answers stop waiting
        self._lock = threading.Lock()
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                path, _, query = self.path.partition("?")
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(self.command, path, query, dict(self.headers), self.rfile.read(length))
                with outer._lock:
                    outer.requests.append(request)
                handler = outer.routes.get((self.command, path)) or outer.route_for(path)
                response = handler(request) if handler else Response.json({"error": "not found"}, 404)
                if response.delay and outer.stopping.wait(response.delay):
                    return
                try:
                    self.send_response(response.status)
                    for name, value in response.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(response.body)))
                    self.end_headers()
                    if not response.trickle:
                        self.wfile.write(response.body)
                        return
                    size = max(1, -(-len(response.body) // response.pieces))
                    for start in range(0, len(response.body), size):
                        self.wfile.write(response.body[start : start + size])
                        self.wfile.flush()
                        if outer.stopping.wait(response.trickle):
                            return
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up waiting: expected with slow answers

            do_GET = do_POST = _serve

            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        # a short poll interval: shutdown() waits for the next poll (0.5 s by default, per test)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, method: str, path: str, handler: Handler) -> None:
        self.routes[(method, path)] = handler

    def route_for(self, path: str) -> Handler | None:
        """Fallback for paths no exact route matches (subclasses route whole prefixes)."""
        return None

    def __enter__(self) -> LocalHTTPServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
