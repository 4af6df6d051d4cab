"""Secrets never reach log output, even when a library logs them."""

from __future__ import annotations

import io
import logging

import pytest
from pydantic import SecretStr

from config.logging_setup import REDACTED, RedactSecrets, configure_logging


@pytest.fixture
def captured() -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets([SecretStr("my-openei-key-123"), None, SecretStr("")]))
    logger = logging.getLogger("test.redaction")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)


def test_slack_tokens_keys_and_known_secrets_are_redacted(
    captured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = captured
    logger.info("token %s and %s", "xoxb-123456-abcdef", "xapp-1-A0-999-zzz")
    logger.info("GET https://developer.nrel.gov/api/pvwatts/v8.json?api_key=LIVEKEY42&lat=37")
    logger.info("openei said no for my-openei-key-123")
    output = stream.getvalue()
    for secret in ("123456-abcdef", "A0-999-zzz", "LIVEKEY42", "my-openei-key-123"):
        assert secret not in output
    assert output.count(REDACTED) == 4
    assert "lat=37" in output  # only the secret part goes


def test_exception_text_is_redacted(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured
    try:
        raise RuntimeError("auth failed for xoxb-999999-leaky")
    except RuntimeError:
        logger.exception("call failed")
    assert "leaky" not in stream.getvalue() and "RuntimeError" in stream.getvalue()


def test_configure_logging_installs_the_filter_and_quiets_httpx() -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    try:
        configure_logging("INFO", secrets=[SecretStr("abcdefgh")])
        assert any(isinstance(f, RedactSecrets) for handler in root.handlers for f in handler.filters)
        assert logging.getLogger("httpx").level == logging.WARNING
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
