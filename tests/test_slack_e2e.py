"""End to end over a real websocket: the real Bolt app and Slack SDK Socket Mode client connect
to a local server speaking Slack's Web API and Socket Mode (tests/servers/slack.py)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.formatting import AI_NOTICE
from bot.slack_runner import build_slack_bot
from bot.wiring import AppRuntime, build_runtime
from config.settings import Settings
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config
from tests.servers.http import Response
from tests.servers.slack import FakeSlack

BOT, APP, TEAM = "xoxb-e2e-bot-token", "xapp-1-e2e-app-token", "T0TEST"
_ts = itertools.count(1)


def next_ts() -> str:
    return f"1700000000.{next(_ts):06d}"


def eventually(predicate, timeout: float = 30, interval: float = 0.05) -> None:
    """Poll a condition that no Slack call signals (a profile change, a scheduled job)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(interval)


@dataclass
class Harness:
    slack: FakeSlack
    runtime: AppRuntime
    bot: Any

    def dm(
        self,
        user: str,
        text: str,
        *,
        thread_ts: str | None = None,
        retry: int = 0,
        event_id: str | None = None,
        **event: Any,
    ) -> dict:
        ts = event.pop("ts", None) or next_ts()
        message = {
            "type": "message",
            "channel_type": "im",
            "channel": f"D{user}",
            "user": user,
            "text": text,
            "ts": ts,
            "client_msg_id": f"msg-{ts}",
            **event,
        }
        if thread_ts:
            message["thread_ts"] = thread_ts
        payload = {
            "type": "event_callback",
            "team_id": TEAM,
            "event_id": event_id or f"Ev{ts}",
            "event": message,
        }
        envelope = self.slack.push("events_api", payload, retry_attempt=retry)
        return {"ts": ts, "envelope": envelope, "payload": payload}

    def replies(self) -> list[dict]:
        """Messages users see in threads: posted ones, and streamed ones once finished."""
        return [m for m in self.slack.answers() if not m["streamed"] or m["state"] == "stopped"]

    def wait_replies(self, count: int, timeout: float = 30) -> list[dict]:
        self.slack.wait_for(lambda: len(self.replies()) >= count, timeout)
        return self.replies()


@contextmanager
def running_bot(data_dir: Path, *, idle_minutes: float = 30, clock=None) -> Iterator[Harness]:
    with FakeSlack(bot_token=BOT, app_token=APP, team_id=TEAM) as slack:
        settings = Settings(
            _env_file=None,
            data_dir=data_dir,
            slack_bot_token=BOT,
            slack_app_token=APP,
            slack_api_url=slack.api_url,
        )
        kwargs = {"clock": clock} if clock else {}
        runtime = build_runtime(
            settings,
            config=app_config(idle_minutes=idle_minutes),
            http=httpx.Client(),
            probe_ollama=False,
            knowledge=False,
            **kwargs,
        )
        runtime.advisor.profiles.import_profile({**CONFIGURED_PROFILE, "user_id": f"{TEAM}-U1"})
        bot = build_slack_bot(runtime, **kwargs)
        bot.start()
        slack.wait_for_connection()
        try:
            yield Harness(slack, runtime, bot)
        finally:
            bot.stop(timeout=20)
            runtime.close()


@pytest.fixture
def harness(data_dir: Path) -> Iterator[Harness]:
    with running_bot(data_dir) as running:
        yield running


def test_a_dm_gets_exactly_one_reply_in_its_thread(harness: Harness) -> None:
    sent = harness.dm("U1", "When should I charge my EV?")
    (reply,) = harness.wait_replies(1)
    time.sleep(0.3)
    assert len(harness.replies()) == 1
    assert reply["channel"] == "DU1" and reply["thread_ts"] == sent["ts"]
    # the bot runs on the wall clock: late at night the 07:00 deadline cannot be met and the plan says so
    assert "Cheapest before 07:00" in reply["text"] or "more than the time left before 07:00" in reply["text"]
    notice, feedback = reply["blocks"][-2:]  # the AI notice, then the 👍/👎 buttons
    assert notice["elements"][0]["text"] == AI_NOTICE and feedback["type"] == "context_actions"
    assert harness.slack.acks[sent["envelope"]]  # acknowledged
    statuses = [c.params["status"] for c in harness.slack.calls_to("assistant.threads.setStatus")]
    assert statuses == ["is thinking…", ""]  # shown while thinking, cleared afterwards
    session = harness.runtime.service.sessions.get(f"{TEAM}-U1", f"DU1-{sent['ts']}")
    assert [m.role for m in session.messages] == ["user", "assistant"]


def test_threads_are_sessions_and_users_are_kept_apart(harness: Harness) -> None:
    first = harness.dm("U1", "When should I charge my EV?")
    harness.wait_replies(1)
    harness.dm("U1", "and what about tomorrow?", thread_ts=first["ts"])
    second_thread = harness.dm("U1", "How do heat pumps work?")
    harness.dm("U2", "When should I charge my EV?")
    replies = harness.wait_replies(4)
    sessions = harness.runtime.service.sessions
    assert sessions.get(f"{TEAM}-U1", f"DU1-{first['ts']}").turn_count == 2
    assert sessions.get(f"{TEAM}-U1", f"DU1-{second_thread['ts']}").turn_count == 1
    other = [r for r in replies if r["channel"] == "DU2"]
    assert len(other) == 1 and "ZIP code" in other[0]["text"]  # U2 is a new user: onboarding, not U1's data
    assert sessions.get(f"{TEAM}-U2", f"DU1-{first['ts']}") is None


def test_redelivered_event_gets_one_reply(harness: Harness) -> None:
    ts = next_ts()
    for attempt in range(3):
        harness.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvSame", retry=attempt)
    harness.wait_replies(1)
    time.sleep(1.0)
    assert len(harness.replies()) == 1
    assert len(harness.slack.acks) == 3  # every delivery is acknowledged


def test_rate_limited_stream_is_retried_once_and_delivered_once(harness: Harness) -> None:
    harness.slack.failures["chat.startStream"].append(
        Response.json({"ok": False, "error": "ratelimited"}, 429, {"Retry-After": "1"})
    )
    harness.dm("U1", "When should I charge my EV?")
    harness.wait_replies(1)
    time.sleep(0.5)
    attempts = harness.slack.calls_to("chat.startStream")
    assert len(attempts) == 2 and attempts[1].at - attempts[0].at >= 0.9  # honoured Retry-After
    assert len(harness.replies()) == 1


def test_energy_eval_grades_only_the_callers_own_traces(harness: Harness) -> None:
    harness.dm("U1", "When should I charge my EV?")
    harness.wait_replies(1)
    own_trace = harness.runtime.service.traces.latest(f"{TEAM}-U1").stem.split("-", 1)[1]

    def command(user: str, text: str) -> str:
        return harness.slack.push(
            "slash_commands",
            {
                "command": "/energy-eval",
                "text": text,
                "user_id": user,
                "team_id": TEAM,
                "channel_id": f"D{user}",
                "response_url": harness.slack.url + "/response-url",
                "trigger_id": "t1",
            },
        )

    envelope = command("U1", "")
    harness.slack.wait_for(lambda: len(harness.slack.webhooks) >= 1 and envelope in harness.slack.acks)
    assert harness.slack.acks[envelope].at - harness.slack.sent_at[envelope] < 3  # acked within Slack's 3 s
    graded = harness.slack.webhooks[0]
    assert graded["response_type"] == "ephemeral" and own_trace in graded["text"]
    names = " ".join(b["text"]["text"] for b in graded["blocks"] if b["type"] == "section")
    for grader in ("memory_hygiene", "loop", "retrieval_relevance", "budget", "memory_corruption"):
        assert f"*{grader}*" in names
    assert own_trace in graded["blocks"][-1]["elements"][0]["text"]

    command("U2", own_trace)  # someone else's trace id
    harness.slack.wait_for(lambda: len(harness.slack.webhooks) >= 2)
    assert harness.slack.webhooks[1]["text"].startswith("I couldn't find that trace among your answers")
    command("U3", "")  # no trace yet
    command("U1", "help")
    harness.slack.wait_for(lambda: len(harness.slack.webhooks) >= 4)
    texts = [hook["text"] for hook in harness.slack.webhooks[2:]]
    assert any(text.startswith("I don't have an answer of yours to grade yet") for text in texts)
    assert any(text.startswith("*/energy-eval* grades how I handled") for text in texts)


def test_idle_session_is_memorized_by_the_scheduler(data_dir: Path) -> None:
    with running_bot(data_dir, idle_minutes=0.02) as running:  # 1.2 seconds
        running.dm("U1", "I work from home now")
        running.wait_replies(1)
        sessions = running.runtime.service.sessions
        started = time.monotonic()
        eventually(lambda: not sessions.latest(f"{TEAM}-U1").needs_memorizing)
        assert time.monotonic() - started < 15  # 1.2 s of idle time, then the job runs
        traces = running.runtime.service.traces.list_for_user(f"{TEAM}-U1")
        assert any("memorize" in path.read_text() for path in traces)  # the memorize run wrote its own trace


def test_a_restart_memorizes_sessions_left_idle(data_dir: Path) -> None:
    with running_bot(data_dir, idle_minutes=30) as running:
        running.dm("U1", "I work from home now")
        running.wait_replies(1)
        assert running.runtime.service.sessions.latest(f"{TEAM}-U1").needs_memorizing
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=2)  # noqa: E731 - the bot was down for two hours
    with running_bot(data_dir, idle_minutes=30, clock=later) as restarted:
        sessions = restarted.runtime.service.sessions
        eventually(lambda: not sessions.latest(f"{TEAM}-U1").needs_memorizing, timeout=15)


def test_reconnects_after_disconnect_and_keeps_answering(harness: Harness) -> None:
    harness.dm("U1", "When should I charge my EV?")
    harness.wait_replies(1)
    harness.slack.ask_to_reconnect()
    harness.slack.wait_for_connection(count=2, timeout=30)
    harness.dm("U1", "How do heat pumps work?")
    harness.wait_replies(2)
    assert len(harness.slack.calls_to("apps.connections.open")) >= 2


def test_bad_input_never_breaks_the_bot(harness: Harness) -> None:
    harness.dm("U1", "   ")
    harness.dm("U1", "word " * 10_000)  # 50 000 characters
    harness.dm("U1", "🔥🔥🔥")
    markup_message = harness.dm("U1", "hey <@U123> is <https://example.com/rates|this rate> right? &lt;3")
    harness.dm("UOTHER", "I am another bot", bot_id="B999")
    harness.dm("U1", "edited", subtype="message_changed")
    harness.dm("U1", "", subtype="file_share", files=[{"id": "F1"}])
    harness.wait_replies(5)
    time.sleep(0.5)
    texts = [reply["text"] for reply in harness.replies()]
    assert len(texts) == 5  # no reply to the other bot or to the edit
    assert any("I didn't get any text" in text for text in texts)
    assert any("very long" in text for text in texts)
    assert any(text == "I can only read text for now. Please type your question." for text in texts)
    markup = harness.runtime.service.sessions.get(f"{TEAM}-U1", f"DU1-{markup_message['ts']}")
    assert markup.messages[0].content == "hey @someone is this rate (https://example.com/rates) right? <3"


def test_mentions_are_answered_privately_and_home_shows_the_profile(harness: Harness) -> None:
    harness.slack.push(
        "events_api",
        {
            "type": "event_callback",
            "team_id": TEAM,
            "event_id": "EvMention",
            "event": {
                "type": "app_mention",
                "channel": "C1",
                "user": "U1",
                "text": "<@UBOT> help",
                "ts": "1700000001.000001",
            },
        },
    )
    harness.slack.wait_for(lambda: harness.slack.calls_to("chat.postEphemeral"))
    note = harness.slack.calls_to("chat.postEphemeral")[0].params
    assert note["channel"] == "C1" and note["user"] == "U1" and "direct messages" in note["text"]
    assert harness.replies() == []  # profiles are private: nothing public
    harness.slack.push(
        "events_api",
        {
            "type": "event_callback",
            "team_id": TEAM,
            "event_id": "EvHome",
            "event": {"type": "app_home_opened", "user": "U1", "channel": "DU1", "tab": "home"},
        },
    )
    harness.slack.wait_for(lambda: harness.slack.calls_to("views.publish"))
    view = harness.slack.calls_to("views.publish")[0].params["view"]
    text = " ".join(block["text"]["text"] for block in view["blocks"] if block["type"] == "section")
    assert (
        "*Household*" in text and "stale" in text and "updated" in text
    )  # the fixture profile is months old
    assert "• you work in an office, 9 to 5" in text and "work_schedule" not in text  # plain words


def test_seen_events_survive_a_restart(data_dir: Path) -> None:
    ts = next_ts()
    with running_bot(data_dir) as running:
        running.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvPersist")
        running.wait_replies(1)
    with running_bot(data_dir) as restarted:
        restarted.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvPersist", retry=1)
        fresh = restarted.dm("U1", "How do heat pumps work?")
        restarted.wait_replies(1)
        time.sleep(0.8)
        # only the new message is answered: the re-delivered one was remembered across the restart
        assert [reply["thread_ts"] for reply in restarted.replies()] == [fresh["ts"]]
