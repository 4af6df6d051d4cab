"""The Slack transport: a Bolt app over Socket Mode on top of the conversation service.

DMs are turns (one session per thread); channel mentions get a pointer to DMs (profiles are
private); App Home shows the profile with each section's age; `/energy-eval` grades the caller's
own traces. Events are de-duplicated (Slack re-delivers), a loading status shows while the graph
runs, and every answer ends with an AI-generated notice.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.dedup import SeenEvents
from bot.formatting import answer_messages, from_slack
from bot.scheduler import MemorizeScheduler
from bot.service import ConversationService
from bot.slack_views import EVAL_HELP, SUGGESTED_PROMPTS, eval_blocks, home_view
from bot.text_input import clean_text
from config.files import EvalConfig
from config.ids import InvalidIdError, validate_key, validate_label
from traces.graders import grade_trace
from traces.storage import TraceFileError, load_trace

logger = logging.getLogger(__name__)

FILE_REPLY = "I can only read text for now. Please type your question."
MENTION_REPLY = (
    "Hi! I answer in direct messages, so your home profile stays private. "
    "Open a DM with me (click my name, then *Message*) and ask away."
)
LOADING_MESSAGES = ["Checking your rate plan…", "Looking at the forecast…", "Doing the math…"]
NO_TRACE = "I don't have an answer of yours to grade yet. Ask me something in a DM first.\n\n" + EVAL_HELP
TRACE_NOT_FOUND = (
    "I couldn't find that trace among your answers. `/energy-eval` alone grades your latest one."
)


def profile_id(team_id: str | None, user_id: str | None) -> str:
    """Slack user -> profile id scoped by team (T…-U…), validated before any use."""
    return validate_label(f"{team_id or 'T0'}-{user_id}")


def slack_client(settings: Any) -> WebClient:
    assert settings.slack_bot_token is not None
    return WebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=3)],
    )


class InFlight:
    """Counts running turns so shutdown can wait for them."""

    def __init__(self) -> None:
        self._count = 0
        self._done = threading.Condition()

    @contextmanager
    def track(self) -> Iterator[None]:
        with self._done:
            self._count += 1
        try:
            yield
        finally:
            with self._done:
                self._count -= 1
                self._done.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._done:
            return self._done.wait_for(lambda: self._count == 0, timeout)


def create_app(
    *,
    settings: Any,
    service: ConversationService,
    seen: SeenEvents,
    eval_config: EvalConfig,
    scheduler: MemorizeScheduler | None = None,
    in_flight: InFlight | None = None,
    client: WebClient | None = None,
) -> App:
    """A Bolt app whose WebClient talks to `settings.slack_api_url` (Slack's, or a test server)
    and retries rate-limited calls honouring Retry-After."""
    app = App(client=client or slack_client(settings))
    in_flight = in_flight or InFlight()
    if scheduler is not None:
        service.on_turn = scheduler.on_turn
    bot_user = app.client.auth_test().get("user_id")  # Bolt verified the token already

    @app.event("message")
    def on_message(event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("user") in (None, bot_user):
            return  # not a DM, or a bot (ourselves included)
        subtype = event.get("subtype")
        if subtype not in (None, "file_share"):
            return  # edits, deletions, joins...
        if not seen.first_time(body.get("event_id"), event.get("client_msg_id")):
            return  # a re-delivery of something already answered
        channel, thread_ts = event["channel"], event.get("thread_ts") or event["ts"]
        if subtype == "file_share":
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=FILE_REPLY)
            return
        with in_flight.track():
            _answer(client, service, event, body, channel, thread_ts)

    @app.event("app_mention")
    def on_mention(event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        if seen.first_time(body.get("event_id")):
            client.chat_postMessage(
                channel=event["channel"], thread_ts=event.get("thread_ts") or event["ts"], text=MENTION_REPLY
            )

    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        try:
            user = profile_id(body.get("team_id"), event.get("user"))
        except InvalidIdError:
            return
        if event.get("tab") == "messages":
            try:
                client.assistant_threads_setSuggestedPrompts(
                    channel_id=event["channel"],
                    thread_ts=event.get("thread_ts", ""),
                    prompts=SUGGESTED_PROMPTS,
                    title="Try asking",
                )
            except SlackApiError as exc:
                logger.info("Suggested prompts unavailable here (%s)", exc.response.get("error"))
            return
        profile = service.profiles.get(user)
        client.views_publish(
            user_id=event["user"], view=home_view(profile, staleness_days=eval_config.staleness_days)
        )

    @app.command("/energy-eval")
    def energy_eval(ack, command: dict[str, Any], respond) -> None:
        ack()  # within Slack's 3 s, before any work
        argument = clean_text(command.get("text") or "").strip()
        if argument.lower() in ("help", "-h", "--help", "?"):
            respond(response_type="ephemeral", text=EVAL_HELP)
            return
        try:
            user = profile_id(command.get("team_id"), command.get("user_id"))
        except InvalidIdError:
            respond(response_type="ephemeral", text="Sorry, I couldn't tell who you are.")
            return
        traces = service.traces
        path = None if traces is None else traces.find(user, argument) if argument else traces.latest(user)
        if path is None:
            respond(response_type="ephemeral", text=TRACE_NOT_FOUND if argument else NO_TRACE)
            return
        try:
            trace = load_trace(path)
        except TraceFileError as exc:
            respond(response_type="ephemeral", text=f"That trace can't be read: {exc.reason}")
            return
        grades = grade_trace(trace, eval_config)
        summary = ", ".join(f"{g.grader_name} {g.verdict.value}" for g in grades)
        respond(
            response_type="ephemeral",
            text=f"Grades for trace {trace.run_id}: {summary}",
            blocks=eval_blocks(grades, trace.run_id),
        )

    return app


def _answer(
    client: WebClient, service: ConversationService, event: dict, body: dict, channel: str, thread_ts: str
) -> None:
    try:
        user = profile_id(body.get("team_id") or event.get("team"), event["user"])
        session = validate_key(f"{channel}-{thread_ts}")
    except InvalidIdError as exc:
        logger.warning("Unusable Slack ids: %s", exc)
        client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, text="Sorry, I couldn't read who sent that message."
        )
        return
    # A lone surrogate ("\ud800" in the event's JSON) becomes U+FFFD, so the turn can be saved.
    with _thinking(client, channel, thread_ts, event["ts"]):
        reply = service.handle_turn(
            user,
            session,
            from_slack(clean_text(event.get("text") or "")),
            channel=channel,
            thread_ts=thread_ts,
        )
    for text, blocks in answer_messages(reply.text):
        client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, text=text, blocks=blocks, unfurl_links=False
        )


@contextmanager
def _thinking(client: WebClient, channel: str, thread_ts: str, message_ts: str) -> Iterator[None]:
    """Show "is thinking…" while the graph runs (a reaction where the status API is unavailable);
    always cleared afterwards."""
    reaction = False
    try:
        client.assistant_threads_setStatus(
            channel_id=channel, thread_ts=thread_ts, status="is thinking…", loading_messages=LOADING_MESSAGES
        )
    except SlackApiError:
        try:
            client.reactions_add(channel=channel, timestamp=message_ts, name="hourglass_flowing_sand")
            reaction = True
        except SlackApiError as exc:
            logger.info("No loading indicator available (%s)", exc.response.get("error"))
    try:
        yield
    finally:
        try:
            if reaction:
                client.reactions_remove(channel=channel, timestamp=message_ts, name="hourglass_flowing_sand")
            else:
                client.assistant_threads_setStatus(channel_id=channel, thread_ts=thread_ts, status="")
        except SlackApiError as exc:
            logger.info("Could not clear the loading indicator (%s)", exc.response.get("error"))


class SlackBot:
    """The running bot: the app, its Socket Mode connection, the scheduler, and a clean stop."""

    def __init__(
        self, *, app: App, app_token: str, scheduler: MemorizeScheduler | None, in_flight: InFlight
    ) -> None:
        self.app = app
        self.scheduler = scheduler
        self.in_flight = in_flight
        self.handler = SocketModeHandler(app, app_token)

    def start(self) -> None:
        if self.scheduler is not None:
            self.scheduler.start()
        self.handler.connect()

    def stop(self, *, timeout: float = 60) -> bool:
        """Stop taking events, let running turns and memorize jobs finish, then disconnect."""
        self.handler.client.disconnect()
        drained = self.in_flight.wait_idle(timeout)
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=True)
        self.handler.close()
        return drained
