"""A local server that speaks Slack's Web API (`auth.test` for now)."""

from __future__ import annotations

from tests.servers.http import LocalHTTPServer, Request, Response


class FakeSlackWebApi(LocalHTTPServer):
    def __init__(self, valid_bot_tokens: set[str]) -> None:
        super().__init__()
        self.valid_bot_tokens = valid_bot_tokens
        self.route("POST", "/api/auth.test", self._auth_test)

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def _auth_test(self, request: Request) -> Response:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if token not in self.valid_bot_tokens:
            return Response.json({"ok": False, "error": "invalid_auth"})
        return Response.json({"ok": True, "team": "Test Team", "user": "energy_advisor", "team_id": "T0TEST"})
