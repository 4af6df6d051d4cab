"""A local server that speaks Ollama's HTTP API (`/api/tags` for now)."""

from __future__ import annotations

from tests.servers.http import LocalHTTPServer, Request, Response


class FakeOllama(LocalHTTPServer):
    def __init__(self, models: list[str] | None = None) -> None:
        super().__init__()
        self.models = list(models or [])
        self.route("GET", "/api/tags", self._tags)

    def _tags(self, _request: Request) -> Response:
        return Response.json(
            {"models": [{"name": name, "model": name, "size": 1, "digest": "0" * 12} for name in self.models]}
        )
