"""An answer streamed into a Slack thread as the graph works: its steps as task cards, the
model's words as they come (slack_sdk's `chat_stream`: chat.startStream / appendStream /
stopStream), the AI notice and feedback buttons when it stops.

Nothing is lost when streaming is not there: a workspace or message where the start call fails
gets the whole reply the usual way (posted, split at paragraphs); a stream Slack has already
closed (`message_not_in_streaming_state`, e.g. after a very slow model) is continued in a new
streamed message in the same thread; text the stream cannot take is posted at the end. The text
sent is tracked, so the stored reply and what the user reads never differ: when the final reply
does not continue what was streamed (a turn that failed half-way), it is posted whole.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks.block_elements import UrlSourceElement
from slack_sdk.models.messages.chunk import MarkdownTextChunk, TaskUpdateChunk
from slack_sdk.web.chat_stream import ChatStream

from advisor.progress import Step
from bot.formatting import answer_messages

logger = logging.getLogger(__name__)

FLUSH_CHARACTERS = 120  # text is sent once this much has gathered...
FLUSH_SECONDS = 0.8  # ...or this long after the last send, whichever comes first
EXPIRED = {"message_not_in_streaming_state"}
TASK_TEXT_LIMIT = 250
MARKDOWN_LIMIT = 11_000  # Slack takes 12 000 characters of markdown_text per call


class SlackAnswerStream:
    """A `ProgressListener` for one turn in one thread; `finish(...)` delivers the rest."""

    def __init__(
        self,
        client: WebClient,
        *,
        channel: str,
        thread_ts: str,
        team_id: str | None,
        user_id: str | None,
        display_mode: str = "timeline",
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._where = {
            "channel": channel,
            "thread_ts": thread_ts,
            "recipient_team_id": team_id,
            "recipient_user_id": user_id,
            "task_display_mode": display_mode,
        }
        self._monotonic = monotonic
        self._stream: ChatStream | None = None
        self.available = True  # false once the start call failed: the reply is posted instead
        self.delivered = ""  # answer text Slack has accepted, in order
        self._pending = ""  # answer text not sent yet
        self._last_send = monotonic()
        self._steps: dict[str, Step] = {}
        self.messages = 0  # streamed messages started (more than one after an expiry)

    # --- ProgressListener -------------------------------------------------------------------

    def step(self, step: Step) -> None:
        self._steps[step.id] = step
        self._send([_task_chunk(step)])

    def text(self, chunk: str) -> None:
        self._pending += chunk
        due = self._monotonic() - self._last_send >= FLUSH_SECONDS
        if len(self._pending) >= FLUSH_CHARACTERS or due:
            self._send([])

    # --- the end of the turn ------------------------------------------------------------------

    def finish(self, reply_text: str, closing_blocks: list[dict[str, Any]]) -> None:
        """Stop the stream with whatever of `reply_text` is not there yet, the notice and buttons
        below it; or post the reply the usual way when nothing could be streamed."""
        rest = continuation(reply_text, self.delivered)
        if rest is None:
            logger.warning(
                "The reply differs from the %d characters streamed; posting it whole", len(self.delivered)
            )
            self._close(closing=None)
            self._post(reply_text, closing_blocks)
            return
        self._pending = ""
        if self.available and self._stop(rest, closing_blocks):
            return
        self._post(rest if self.delivered else reply_text, closing_blocks)

    # --- internals ---------------------------------------------------------------------------

    def _send(self, chunks: list[Any]) -> None:
        """Send pending text and `chunks` in one call; a closed stream is continued in a new one."""
        if not self.available:
            return
        text, self._pending = self._pending[:MARKDOWN_LIMIT], self._pending[MARKDOWN_LIMIT:]
        payload = ([MarkdownTextChunk(text=text)] if text else []) + chunks
        if not payload:
            return
        for attempt in (1, 2):
            try:
                self._current().append(chunks=payload)
            except Exception as exc:  # SlackApiError, or the network (URLError, timeouts)
                error = _error(exc)
                if error in EXPIRED and attempt == 1 and self._stream is not None and self._stream.ts:
                    logger.warning("chat.appendStream: %s; continuing in a new message", error)
                    self._stream = None  # the next call starts a new streamed message in the thread
                    payload = ([MarkdownTextChunk(text=text)] if text else []) + self._open_steps()
                    continue
                self._unavailable(
                    "chat.appendStream" if self._stream and self._stream.ts else "chat.startStream", error
                )
                self._pending = text + self._pending
                return
            self.delivered += text
            self._last_send = self._monotonic()
            return

    def _current(self) -> ChatStream:
        if self._stream is None:
            self._stream = self._client.chat_stream(buffer_size=1, **self._where)
            self.messages += 1
        return self._stream

    def _open_steps(self) -> list[Any]:
        """Steps carried into a continuation message, so its task list is not empty."""
        return [_task_chunk(step) for step in self._steps.values()]

    def _stop(self, rest: str, closing_blocks: list[dict[str, Any]]) -> bool:
        for attempt in (1, 2):
            try:
                stream = self._current()
                stream.stop(markdown_text=rest[:MARKDOWN_LIMIT] or None, blocks=closing_blocks)
            except Exception as exc:  # SlackApiError, or the network
                error = _error(exc)
                if error in EXPIRED and attempt == 1:
                    logger.warning("chat.stopStream: %s; finishing in a new message", error)
                    self._stream = None
                    continue
                self._unavailable("chat.stopStream", error)
                return False
            self.delivered += rest[:MARKDOWN_LIMIT]
            if len(rest) > MARKDOWN_LIMIT:  # longer than one call takes: the rest as messages
                self._post(rest[MARKDOWN_LIMIT:], [])
            return True
        return False

    def _close(self, closing: list[dict[str, Any]] | None) -> None:
        if self._stream is None or not self._stream.ts:
            return
        try:
            self._stream.stop(blocks=closing)
        except Exception as exc:
            logger.warning("chat.stopStream failed: %s", _error(exc))

    def _unavailable(self, method: str, error: Any) -> None:
        if self.available:
            logger.warning("%s failed (%s): the reply is posted instead of streamed", method, error)
        self.available = False

    def _post(self, text: str, closing_blocks: list[dict[str, Any]]) -> None:
        messages = answer_messages(text, closing_blocks=closing_blocks)
        for fallback, blocks in messages:
            self._client.chat_postMessage(
                channel=self._where["channel"],
                thread_ts=self._where["thread_ts"],
                text=fallback,
                blocks=blocks,
                unfurl_links=False,
            )


def continuation(reply: str, sent: str) -> str | None:
    """What of `reply` comes after the text already `sent`, whitespace aside (the model's tokens
    may start with a space or end with a newline the stored reply trims); None when `sent` is not
    the start of `reply`."""
    position = 0
    for char in sent:
        if char.isspace():
            continue
        while position < len(reply) and reply[position].isspace():
            position += 1
        if position >= len(reply) or reply[position] != char:
            return None
        position += 1
    return reply[position:]


def _error(exc: Exception) -> str:
    """Slack's error code ("message_not_in_streaming_state"), or what went wrong on the way."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error"))
    return f"{type(exc).__name__}: {exc}"[:200]


def _task_chunk(step: Step) -> TaskUpdateChunk:
    return TaskUpdateChunk(
        id=step.id,
        title=step.title[:TASK_TEXT_LIMIT],
        status=step.status,
        details=step.details[:TASK_TEXT_LIMIT] if step.details else None,
        sources=[UrlSourceElement(url=s.url, text=s.text[:TASK_TEXT_LIMIT]) for s in step.sources] or None,
    )
