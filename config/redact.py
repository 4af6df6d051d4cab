"""Removing keys and tokens from text that leaves the process: API error reasons (which reach
replies, sessions and traces) and log records.

Two defences: the exact values of the secrets this process was configured with (registered at
start-up by whoever holds them), and shapes that look like credentials whatever their value —
Slack tokens (`xoxb-…`, `xapp-…`), `Bearer …`, `api_key=…` / `token: …` / `key=…` pairs, and a
long key-like run of characters right after the word key or token ("invalid api_key fedcba98…",
as NREL's gateway answers).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from pydantic import SecretStr

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 6  # shorter values would redact ordinary words

_SLACK_TOKENS = re.compile(r"\b(xox[abposre]|xapp)-[A-Za-z0-9-]{6,}", re.IGNORECASE)
_BEARER = re.compile(r"\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_NAMES = (
    r"(?:api|access|auth|client|private|secret|session|refresh)?[ _-]?(?:key|token|secret|password|passwd)"
)
# `name=value` (a query string): whatever the value is; `name: value`, `"name": "value"`: a value
# of 8 or more characters ("rate key: peak" stays readable).
_PAIRS = re.compile(
    rf"(\b{_NAMES}\b[\"']?\s*(?:=\s*[\"']?(?=[^\s&\"',;)<>])|:\s*[\"']?(?=[^\s&\"',;)<>]{{8}})))([^\s&\"',;)<>]+)",
    re.IGNORECASE,
)
# `name value` (a space only): only a value shaped like a credential — 12 or more key characters
# with a digit — so "the key is missing" stays readable.
_LOOSE = re.compile(rf"(\b{_NAMES}\b\s+)(?=[A-Za-z0-9_+/=.-]*\d)([A-Za-z0-9_+/=.-]{{12,}})", re.IGNORECASE)

_known: set[str] = set()
_known_lock = threading.Lock()


def register_secret(value: SecretStr | str | None) -> None:
    """Remember a configured key or token so every later `redact` removes it."""
    text = value.get_secret_value() if isinstance(value, SecretStr) else value
    if text and len(text.strip()) >= MIN_SECRET_LENGTH:
        with _known_lock:
            _known.add(text.strip())


def register_secrets(values: Iterable[SecretStr | str | None]) -> None:
    for value in values:
        register_secret(value)


def redact(text: str, secrets: Iterable[SecretStr | str | None] = ()) -> str:
    """`text` without the registered secrets, the given ones and anything shaped like a key."""
    extra = {
        value.get_secret_value() if isinstance(value, SecretStr) else value
        for value in secrets
        if value is not None
    }
    with _known_lock:
        values = _known | {value for value in extra if value and len(value) >= MIN_SECRET_LENGTH}
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = _SLACK_TOKENS.sub(lambda m: f"{m.group(1)}-{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _PAIRS.sub(lambda m: m.group(1) + REDACTED if m.group(2) != REDACTED else m.group(0), text)
    return _LOOSE.sub(lambda m: m.group(1) + REDACTED, text)


def clip(text: str, limit: int) -> str:
    """One line of at most `limit` characters (after redaction, so a key is never cut in half)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
