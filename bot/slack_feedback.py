"""Slack's feedback buttons under every answer, and what a click does.

Each answer's last message ends with `feedback_block(trace_id)`: a `context_actions` block holding
Slack's `feedback_buttons`, whose values carry the turn's trace id ("good:<id>" / "bad:<id>"), so a
click needs no lookup by message. A click is acked at once, then stored by `FeedbackStore` (log,
trace step, and for a thumbs-down a regression case). A thumbs-down also opens a modal asking for
an optional one-line reason; submitting it updates the same records.

A click counts only on the clicker's own trace (the store looks the id up among that user's traces
only): a forged or foreign id records nothing and the user is told so. Slack calls that fail and
change what the user sees are logged at WARNING with the method and Slack's error.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.blocks import ContextActionsBlock, FeedbackButtonObject, FeedbackButtonsElement

from config.ids import InvalidIdError
from traces.feedback import MAX_REASON, FeedbackStore, Verdict

logger = logging.getLogger(__name__)

ACTION_ID = "answer_feedback"
REASON_CALLBACK = "answer_feedback_reason"
REASON_BLOCK = "reason"
REASON_INPUT = "reason_input"

THANKS_GOOD = "Thanks! Glad that helped."
THANKS_BAD = "Thanks for telling me. I've kept this answer as a case to improve on."
THANKS_REASON = "Thanks, noted: “{reason}”. I've kept this answer as a case to improve on."
NOT_YOURS = "I couldn't find that answer among yours, so nothing was recorded."
NOT_SAVED = "Sorry, I couldn't save your feedback just now (the bot's log says why). Please try again later."


def feedback_block(trace_id: str) -> dict[str, Any]:
    """The block to append to an answer's last message (validated by slack_sdk's models)."""
    return ContextActionsBlock(
        elements=[
            FeedbackButtonsElement(
                action_id=ACTION_ID,
                positive_button=FeedbackButtonObject(
                    text="Good answer", accessibility_label="This answer helped", value=f"good:{trace_id}"
                ),
                negative_button=FeedbackButtonObject(
                    text="Bad answer", accessibility_label="This answer did not help", value=f"bad:{trace_id}"
                ),
            )
        ]
    ).to_dict()


def parse_value(value: object) -> tuple[Verdict, str] | None:
    """("good" | "bad", trace id) from a button value; None for anything else."""
    if not isinstance(value, str) or ":" not in value:
        return None
    verdict, trace_id = value.split(":", 1)
    if verdict == "good":
        return "good", trace_id
    if verdict == "bad":
        return "bad", trace_id
    return None


def reason_modal(trace_id: str, channel: str | None, thread_ts: str | None) -> dict[str, Any]:
    """The optional one-line reason; where to say thanks travels in `private_metadata`."""
    return {
        "type": "modal",
        "callback_id": REASON_CALLBACK,
        "private_metadata": json.dumps({"trace_id": trace_id, "channel": channel, "thread_ts": thread_ts}),
        "title": {"type": "plain_text", "text": "What went wrong?"},
        "submit": {"type": "plain_text", "text": "Send"},
        "close": {"type": "plain_text", "text": "Skip"},
        "blocks": [
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": "Thanks, I've noted that this answer missed. If you like, tell me why in one line.",
                },
            },
            {
                "type": "input",
                "block_id": REASON_BLOCK,
                "optional": True,
                "label": {"type": "plain_text", "text": "What was wrong"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": REASON_INPUT,
                    "max_length": MAX_REASON,
                    "placeholder": {
                        "type": "plain_text",
                        "text": "e.g. those hours are not cheap on my plan",
                    },
                },
            },
        ],
    }


def register_feedback(app: App, *, feedback: FeedbackStore) -> None:
    """The listeners for the buttons and the reason modal (one per function, as Bolt does)."""
    app.action(ACTION_ID)(_on_click(feedback))
    app.view(REASON_CALLBACK)(_on_reason(feedback))


def _on_click(feedback: FeedbackStore) -> Callable[..., None]:
    def on_feedback_click(ack: Callable[..., Any], body: dict[str, Any], client: WebClient) -> None:
        ack()  # at once: Slack shows an error on the button after 3 s
        action = (body.get("actions") or [{}])[0]
        channel, thread_ts = _where(body)
        slack_user = (body.get("user") or {}).get("id")

        def tell(text: str) -> None:
            _ephemeral(client, channel, slack_user, thread_ts, text)

        parsed = parse_value(action.get("value"))
        user = _profile(body)
        if parsed is None or user is None:
            logger.warning(
                "Feedback click with an unusable value %r or user: nothing recorded", action.get("value")
            )
            tell(NOT_YOURS)
            return
        verdict, trace_id = parsed
        if not feedback.belongs(user, trace_id):
            logger.warning(
                "Feedback from %s on trace %r, which is not theirs: nothing recorded", user, trace_id
            )
            tell(NOT_YOURS)
            return
        opened = verdict == "bad" and _call(  # before recording: the trigger id expires in 3 s
            "views.open",
            client.views_open,
            trigger_id=body.get("trigger_id"),
            view=reason_modal(trace_id, channel, thread_ts),
        )
        try:
            entry = feedback.record(user, trace_id, verdict)
        except Exception:
            logger.exception("Could not record feedback of %s on trace %s", user, trace_id)
            tell(NOT_SAVED)
            return
        if entry is None:  # gone between the check and the write
            tell(NOT_YOURS)
        elif not opened:  # the modal thanks a thumbs-down itself
            tell(THANKS_GOOD if verdict == "good" else THANKS_BAD)

    return on_feedback_click


def _on_reason(feedback: FeedbackStore) -> Callable[..., None]:
    def on_feedback_reason(
        ack: Callable[..., Any], body: dict[str, Any], view: dict[str, Any], client: WebClient
    ) -> None:
        ack()  # closes the modal
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
            trace_id, channel, thread_ts = meta["trace_id"], meta.get("channel"), meta.get("thread_ts")
        except (ValueError, KeyError, TypeError):
            logger.warning("Feedback reason without a usable trace id: nothing recorded")
            return
        value = (
            ((view.get("state") or {}).get("values") or {})
            .get(REASON_BLOCK, {})
            .get(REASON_INPUT, {})
            .get("value")
        )
        slack_user = (body.get("user") or {}).get("id")
        user = _profile(body)
        reason = value.strip() if isinstance(value, str) else ""
        if not reason:  # sent empty: the click itself was recorded already
            _ephemeral(client, channel, slack_user, thread_ts, THANKS_BAD)
            return
        try:
            entry = None if user is None else feedback.record(user, str(trace_id), "bad", reason)
        except Exception:
            logger.exception("Could not record the feedback reason of %s on trace %s", user, trace_id)
            _ephemeral(client, channel, slack_user, thread_ts, NOT_SAVED)
            return
        if entry is None:
            logger.warning(
                "Feedback reason from %s on trace %r, which is not theirs: nothing recorded", user, trace_id
            )
            _ephemeral(client, channel, slack_user, thread_ts, NOT_YOURS)
            return
        shown = (entry.reason or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        _ephemeral(client, channel, slack_user, thread_ts, THANKS_REASON.format(reason=shown))

    return on_feedback_reason


def _profile(body: dict[str, Any]) -> str | None:
    """The clicker's profile id, mapped exactly as their DMs are."""
    from bot.slack_app import profile_id  # here, not at the top: slack_app imports this module

    user = body.get("user") or {}
    team = (body.get("team") or {}).get("id") or user.get("team_id")
    try:
        return profile_id(team, user.get("id")) if user.get("id") else None
    except InvalidIdError:
        return None


def _where(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """The clicked message's channel and thread (the answer's thread, so thanks appear beside it)."""
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    thread_ts = container.get("thread_ts") or message.get("thread_ts") or message.get("ts")
    return channel, thread_ts


def _ephemeral(
    client: WebClient, channel: str | None, user: str | None, thread_ts: str | None, text: str
) -> None:
    if channel and user:
        _call(
            "chat.postEphemeral",
            client.chat_postEphemeral,
            channel=channel,
            user=user,
            thread_ts=thread_ts,
            text=text,
        )


def _call(method: str, call: Callable[..., Any], **kwargs: Any) -> bool:
    """A Slack call whose failure the user would notice: logged at WARNING, never raised."""
    try:
        call(**kwargs)
    except SlackApiError as exc:
        logger.warning("Slack %s failed: %s", method, exc.response.get("error"))
        return False
    except (SlackClientError, OSError) as exc:
        logger.warning("Slack %s failed: %s", method, exc)
        return False
    return True
