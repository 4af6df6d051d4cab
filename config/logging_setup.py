"""Logging for the whole app, with a handler filter that redacts secrets.

Defence in depth: code never logs tokens on purpose, but libraries may (httpx logs request
URLs at INFO, and PVWatts/OpenEI take their key as a query parameter). The filter removes
Slack-token shapes, key-bearing query parameters (`api_key=`, `token=`, Socket Mode's `ticket=`)
and the exact values of configured secrets from every record.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from pydantic import SecretStr

_TOKEN_SHAPES = re.compile(r"\b(xox[abposr]|xapp)-[A-Za-z0-9-]{6,}")
# `ticket`: Slack's Socket Mode URL (wss://…/link/?ticket=…), which slack_sdk logs at DEBUG in the
# apps.connections.open response body, opens the bot's event stream to whoever holds it.
_KEY_PARAMS = re.compile(r"(api_key|token|ticket)=([^&\s\"'\\]+)", re.IGNORECASE)
REDACTED = "[redacted]"


class RedactSecrets(logging.Filter):
    def __init__(self, secrets: Iterable[SecretStr | None] = ()) -> None:
        super().__init__()
        self._values = sorted(
            {s.get_secret_value() for s in secrets if s is not None and len(s.get_secret_value()) >= 6},
            key=len,
            reverse=True,
        )

    def redact(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, REDACTED)
        text = _TOKEN_SHAPES.sub(lambda m: f"{m.group(1)}-{REDACTED}", text)
        return _KEY_PARAMS.sub(lambda m: f"{m.group(1)}={REDACTED}", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self.redact(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def configure_logging(level: str, secrets: Iterable[SecretStr | None] = ()) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    # Request URLs (with query strings) are noise at INFO and may carry keys.
    for noisy in ("httpx", "httpcore", "urllib3"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
