"""The Slack transport: a Bolt app over Socket Mode on top of the conversation service.

DMs are turns (one session per thread), answered as a stream with the graph's steps
(`bot.slack_stream`); a status shows at once, before a turn waits for a free answer slot; a new
assistant thread is greeted with its own suggested prompts (Bolt's `Assistant` middleware) and
titled from its first question; a channel mention is answered privately with a button that takes
the question to the asker's DM (profiles are private). App Home is the user's memory
(`bot.slack_home`), 👍/👎 go to the feedback store (`bot.slack_feedback`), `/energy-eval` grades the
caller's own traces with their feedback. Events are de-duplicated (Slack re-delivers), and every
answer ends with an AI-generated notice.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from functools import partial
from typing import Any

from slack_bolt import App, Assistant
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.dedup import SeenEvents
from bot.formatting import from_slack, notice_block
from bot.scheduler import MemorizeScheduler
from bot.service import ConversationService, Reply
from bot.slack_feedback import feedback_block, register_feedback
from bot.slack_home import register_home
from bot.slack_stream import SlackAnswerStream
from bot.slack_views import EVAL_HELP, SUGGESTED_PROMPTS, eval_blocks
from bot.text_input import clean_text
from config.files import EvalConfig
from config.ids import InvalidIdError, validate_key, validate_label
from traces.feedback import FeedbackStore
from traces.graders import grade_trace, memorize_runs_beside
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


GREETING = (
    "Hi! I'm your home energy advisor. Ask me when to charge your EV, whether to run the dryer now, "
    "what your solar will do, or how a heat pump works. I answer from your own profile, live prices "
    "and weather, and I remember what you tell me (see it, fix it or forget it in my Home tab)."
)
FILE_NOT_READ = "(I didn't open the attached file: I can only read text for now.)"
ASK_IN_DM_ACTION = "ask_in_dm"
MENTION_EPHEMERAL = (
    "I answer in direct messages, so your home profile stays private. "
    "Press the button and I'll answer this in our DM."
)
QUESTION_VALUE_LIMIT = 1900  # a button's value holds 2000 characters


def create_app(
    *,
    settings: Any,
    service: ConversationService,
    seen: SeenEvents,
    eval_config: EvalConfig,
    scheduler: MemorizeScheduler | None = None,
    in_flight: InFlight | None = None,
    client: WebClient | None = None,
    listener_threads: int | None = None,
    parallel_turns: int | None = None,
    feedback: FeedbackStore | None = None,
) -> App:
    """A Bolt app whose WebClient talks to `settings.slack_api_url` (Slack's, or a test server)
    and retries rate-limited calls honouring Retry-After.

    `listener_threads` sizes Bolt's listener pool (Bolt's default is 5: a sixth user at once
    would wait without even a status), `parallel_turns` how many answers run at once; a user
    over that sees a status right away and waits for a free slot."""
    threads = listener_threads or getattr(settings, "slack_listener_threads", 32)
    app = App(
        client=client or slack_client(settings),
        listener_executor=ThreadPoolExecutor(max_workers=threads, thread_name_prefix="slack-listener"),
    )
    in_flight = in_flight or InFlight()
    slots = threading.BoundedSemaphore(parallel_turns or getattr(settings, "slack_parallel_turns", 4))
    if scheduler is not None:
        service.on_turn = scheduler.on_turn
    bot_user = app.client.auth_test().get("user_id")  # Bolt verified the token already
    turn = partial(_answer, service=service, slots=slots, in_flight=in_flight, feedback=feedback is not None)
    if feedback is not None:
        register_feedback(app, feedback=feedback)

    assistant = Assistant()

    @assistant.thread_started
    def greet(say, set_suggested_prompts) -> None:
        """A new assistant thread: a greeting and this thread's suggested prompts."""
        _tell(say, text=GREETING)
        try:
            set_suggested_prompts(prompts=SUGGESTED_PROMPTS, title="Try asking")
        except SlackApiError as exc:
            logger.warning("assistant.threads.setSuggestedPrompts failed: %s", exc.response.get("error"))

    @assistant.thread_context_changed
    def context_changed(payload: dict[str, Any]) -> None:
        """The user moved to another channel with the assistant open: the advisor answers from the
        user's own profile, not from the channel, so there is nothing to keep."""
        logger.debug(
            "Assistant thread context changed: %s", (payload.get("assistant_thread") or {}).get("context")
        )

    app.use(assistant)

    @app.event("message")
    def on_message(
        event: dict[str, Any], body: dict[str, Any], client: WebClient, set_status=None, set_title=None
    ) -> None:
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("user") in (None, bot_user):
            return  # not a DM, or a bot (ourselves included)
        subtype = event.get("subtype")
        if subtype not in (None, "file_share"):
            return  # edits, deletions, joins...
        if not seen.first_time(body.get("event_id"), event.get("client_msg_id")):
            return  # a re-delivery of something already answered
        channel, thread_ts = event["channel"], event.get("thread_ts") or event["ts"]
        text = clean_text(event.get("text") or "")
        if subtype == "file_share" and not text.strip():
            _post(client, channel=channel, thread_ts=thread_ts, text=FILE_REPLY)
            return
        turn(
            client,
            user=event["user"],
            team=body.get("team_id") or event.get("team"),
            channel=channel,
            thread_ts=thread_ts,
            message_ts=event["ts"],
            text=text,
            file_note=FILE_NOT_READ if subtype == "file_share" else None,
            set_status=set_status,
            set_title=set_title if event.get("thread_ts") else None,
        )

    @app.event("app_mention")
    def on_mention(event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """Profiles are private: the asker alone sees the answer offer (ephemeral), with a button
        that answers the question in their DM."""
        if not seen.first_time(body.get("event_id")) or not event.get("user"):
            return
        question = _without_mention(clean_text(event.get("text") or ""), bot_user)
        blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": MENTION_EPHEMERAL}}]
        if question:
            blocks.append(
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "button",
                            "action_id": ASK_IN_DM_ACTION,
                            "text": {"type": "plain_text", "text": "Answer me in a DM"},
                            "value": question[:QUESTION_VALUE_LIMIT],
                            "style": "primary",
                        }
                    ],
                }
            )
        try:
            client.chat_postEphemeral(
                channel=event["channel"],
                user=event["user"],
                thread_ts=event.get("thread_ts"),
                text=MENTION_REPLY,
                blocks=blocks,
            )
        except SlackApiError as exc:
            logger.warning("chat.postEphemeral failed: %s", exc.response.get("error"))

    @app.action(ASK_IN_DM_ACTION)
    def ask_in_dm(ack, body: dict[str, Any], client: WebClient) -> None:
        """The mention's button: the question goes to the asker's DM and is answered there."""
        ack()
        user = (body.get("user") or {}).get("id")
        question = clean_text(((body.get("actions") or [{}])[0]).get("value") or "").strip()
        if not user or not question:
            return
        try:
            channel = client.conversations_open(users=user)["channel"]["id"]
            where = (body.get("channel") or {}).get("id")
            posted = client.chat_postMessage(
                channel=channel, text=f"You asked{f' in <#{where}>' if where else ''}: {question}"
            )
        except SlackApiError as exc:
            logger.warning("Could not open the DM for a mention: %s", exc.response.get("error"))
            return
        turn(
            client,
            user=user,
            team=(body.get("team") or {}).get("id"),
            channel=channel,
            thread_ts=posted["ts"],
            message_ts=posted["ts"],
            text=question,
        )

    register_home(app, service=service, staleness_days=eval_config.staleness_days, clock=service.clock)

    @app.event("app_home_opened")
    def on_messages_tab(event: dict[str, Any]) -> None:
        """The Messages tab needs nothing: suggested prompts are set per assistant thread when it
        starts (the Home tab's listener, registered first, takes tab == "home")."""

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
        grades = grade_trace(trace, eval_config, memorize_runs_beside(path))
        summary = ", ".join(f"{g.grader_name} {g.verdict.value}" for g in grades)
        said = feedback.feedback_for(user, trace.run_id) if feedback is not None else None
        respond(
            response_type="ephemeral",
            text=f"Grades for trace {trace.run_id}: {summary}",
            blocks=eval_blocks(grades, trace.run_id, feedback=said),
        )

    return app


def _answer(
    client: WebClient,
    *,
    service: ConversationService,
    slots: threading.BoundedSemaphore,
    in_flight: InFlight,
    user: str,
    team: str | None,
    channel: str,
    thread_ts: str,
    message_ts: str,
    text: str,
    file_note: str | None = None,
    set_status: Callable[..., Any] | None = None,
    set_title: Callable[[str], Any] | None = None,
    feedback: bool = False,
) -> None:
    """One turn in one thread: a status at once, then (once a slot is free) the graph's steps
    and the answer streamed into the thread, the title of a new thread, the closing blocks."""
    try:
        profile = profile_id(team, user)
        session = validate_key(f"{channel}-{thread_ts}")
    except InvalidIdError as exc:
        logger.warning("Unusable Slack ids: %s", exc)
        _post(
            client, channel=channel, thread_ts=thread_ts, text="Sorry, I couldn't read who sent that message."
        )
        return
    with in_flight.track(), _thinking(client, channel, thread_ts, message_ts, set_status) as status:
        if not slots.acquire(blocking=False):
            status("is answering others first… you're next")
            slots.acquire()
        try:
            stream = SlackAnswerStream(
                client, channel=channel, thread_ts=thread_ts, team_id=team, user_id=user
            )
            # A lone surrogate ("\ud800" in the event's JSON) becomes U+FFFD, so the turn can be saved.
            reply = service.handle_turn(
                profile, session, from_slack(text), channel=channel, thread_ts=thread_ts, progress=stream
            )
        finally:
            slots.release()
        answer = f"{reply.text}\n\n{file_note}" if file_note else reply.text
        stream.finish(answer, closing_blocks(reply, feedback=feedback))
        if set_title is not None and reply.turn == 1:
            _set_title(set_title, thread_title(reply.topic, reply.intent, text))


def closing_blocks(reply: Reply, *, feedback: bool) -> list[dict[str, Any]]:
    """What ends every answer: the AI notice, and 👍/👎 for a turn with a trace when clicks are
    recorded (no buttons that nothing listens to)."""
    blocks = [notice_block()]
    if feedback and reply.trace_id:
        blocks.append(feedback_block(reply.trace_id))
    return blocks


def thread_title(topic: str | None, intent: str | None, question: str) -> str:
    """A few words for the thread's title in History, from the understanding (no extra model
    call): the topic when it names one, else the start of the question."""
    if topic in THREAD_TITLES and intent not in ("smalltalk", "goodbye", "unclear"):
        return THREAD_TITLES[topic]
    words = " ".join(from_slack(question).split()[:6])
    return (words[:60] + "…") if len(words) > 60 else words or "Energy question"


THREAD_TITLES = {
    "ev_charging": "EV charging",
    "solar": "Solar at home",
    "rates": "Rate plan and prices",
    "weather": "Weather and energy",
    "home": "Home energy",
}


def _set_title(set_title: Callable[[str], Any], title: str) -> None:
    try:
        set_title(title)
    except SlackApiError as exc:
        logger.warning("assistant.threads.setTitle failed: %s", exc.response.get("error"))


def _tell(say: Callable[..., Any], **message: Any) -> None:
    try:
        say(**message)
    except SlackApiError as exc:
        logger.warning("chat.postMessage (greeting) failed: %s", exc.response.get("error"))


def _post(client: WebClient, **message: Any) -> None:
    try:
        client.chat_postMessage(**message)
    except SlackApiError as exc:
        logger.warning("chat.postMessage failed: %s", exc.response.get("error"))


def _without_mention(text: str, bot_user: str | None) -> str:
    return text.replace(f"<@{bot_user}>", "").strip() if bot_user else text.strip()


@contextmanager
def _thinking(
    client: WebClient,
    channel: str,
    thread_ts: str,
    message_ts: str,
    set_status: Callable[..., Any] | None = None,
) -> Iterator[Callable[[str], None]]:
    """Show "is thinking…" while the turn waits and runs (a reaction where the status API is
    unavailable); yields a function to change the status; always cleared afterwards."""

    def status(text: str, **extra: Any) -> None:
        if set_status is not None:
            set_status(status=text, **extra)
        else:
            client.assistant_threads_setStatus(channel_id=channel, thread_ts=thread_ts, status=text, **extra)

    # The indicator is decoration: Slack refusing it (SlackApiError) or the connection dropping
    # (OSError: reset, timeout) never costs the user their answer.
    reaction = False
    shown = True
    try:
        status("is thinking…", loading_messages=LOADING_MESSAGES)
    except (SlackApiError, OSError):
        shown = False
        try:
            client.reactions_add(channel=channel, timestamp=message_ts, name="hourglass_flowing_sand")
            reaction = True
        except (SlackApiError, OSError) as exc:
            logger.warning("No loading indicator available (reactions.add: %s)", _slack_error(exc))

    def update(text: str) -> None:
        if shown:
            with suppress(SlackApiError, OSError):
                status(text)

    try:
        yield update
    finally:
        try:
            if reaction:
                client.reactions_remove(channel=channel, timestamp=message_ts, name="hourglass_flowing_sand")
            elif shown:
                status("")
        except (SlackApiError, OSError) as exc:
            logger.warning("Could not clear the loading indicator (%s)", _slack_error(exc))


def _slack_error(exc: Exception) -> str:
    """Slack's error code, or the kind of transport failure (never a URL or a token)."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error"))
    return type(exc).__name__


class SlackBot:
    """The running bot: the app, its Socket Mode connection, the scheduler, and a clean stop."""

    def __init__(
        self,
        *,
        app: App,
        app_token: str,
        scheduler: MemorizeScheduler | None,
        in_flight: InFlight,
        concurrency: int = 32,
    ) -> None:
        self.app = app
        self.scheduler = scheduler
        self.in_flight = in_flight
        # Envelopes are read and dispatched on this pool (the builtin default is 10): as wide as the
        # listener pool, so a burst of DMs is acked and given a status without queueing.
        self.handler = SocketModeHandler(app, app_token, concurrency=concurrency)

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
