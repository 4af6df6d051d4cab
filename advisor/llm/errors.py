"""Turning model-transport failures into one error the conversation service can explain."""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig


class ModelUnavailableError(Exception):
    """The LLM runtime did not answer (down, erroring or too slow); the user's message is kept."""

    def __init__(self, role: str, reason: str) -> None:
        self.role = role
        self.reason = reason
        super().__init__(f"{role} model unavailable: {reason}")


def is_transport_failure(exc: BaseException) -> bool:
    """Errors that mean "Ollama is not answering", as opposed to a bad answer."""
    try:
        from ollama import ResponseError
    except ImportError:  # pragma: no cover - ollama ships with langchain-ollama
        ResponseError = ()  # type: ignore[assignment]  # noqa: N806
    return isinstance(exc, (httpx.HTTPError, ConnectionError, TimeoutError, ResponseError))


def describe(exc: BaseException) -> str:
    if isinstance(exc, httpx.TimeoutException | TimeoutError):
        return "it did not answer in time"
    if isinstance(exc, ConnectionError | httpx.ConnectError):
        return "it is not reachable"
    status = getattr(exc, "status_code", None)
    return f"it answered with an error (HTTP {status})" if status else f"it failed ({type(exc).__name__})"


def invoke_model(
    model: BaseChatModel,
    messages: list[BaseMessage],
    *,
    role: str,
    config: RunnableConfig | None = None,
    **kwargs: Any,
) -> BaseMessage:
    """`model.invoke`, with "the runtime is not answering" turned into `ModelUnavailableError`."""
    try:
        return model.invoke(messages, config=config, **kwargs)
    except Exception as exc:
        if is_transport_failure(exc):
            raise ModelUnavailableError(role, describe(exc)) from exc
        raise
