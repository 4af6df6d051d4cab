"""End to end over a real websocket: the real Bolt app and Slack SDK Socket Mode client connect
to a local server speaking Slack's Web API and Socket Mode (tests/servers/slack.py).

Only what needs the websocket is here: a DM answered once over Socket Mode, re-deliveries,
reconnects, restarts and the scheduler. Listener behaviour is tested in process, as bolt-python's
own tests do (tests/test_slack_assistant.py, test_slack_home.py, test_slack_feedback.py).

The tests that need no fresh process share one running bot (`shared_bot`); each looks only at its own
thread, envelopes and connections. Restarts and the scheduler's timing get bots of their own."""

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
from tests.conftest import SETTINGS_VARIABLES
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

    def replies_in(self, thread_ts: str) -> list[dict]:
        return [reply for reply in self.replies() if reply["thread_ts"] == thread_ts]

    def wait_replies_in(self, thread_ts: str, count: int = 1, timeout: float = 30) -> list[dict]:
        self.slack.wait_for(lambda: len(self.replies_in(thread_ts)) >= count, timeout)
        return self.replies_in(thread_ts)


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
            with slack.pinging():  # the client's socket closes at once instead of after its 3 s read
                bot.stop(timeout=20)
            runtime.close()


@pytest.fixture(scope="module")
def shared_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """One bot for the tests that do not restart it (set up before the per-test environment is
    cleaned, so it cleans the Settings variables itself)."""
    with pytest.MonkeyPatch.context() as environment:
        for variable in SETTINGS_VARIABLES:
            environment.delenv(variable, raising=False)
        with running_bot(tmp_path_factory.mktemp("shared-bot") / "data") as running:
            yield running


def test_a_dm_gets_exactly_one_reply_in_its_thread(shared_bot: Harness) -> None:
    harness = shared_bot
    sent = harness.dm("U1", "When should I charge my EV?")
    (reply,) = harness.wait_replies_in(sent["ts"])
    time.sleep(0.3)
    assert len(harness.replies_in(sent["ts"])) == 1
    assert reply["channel"] == "DU1" and reply["thread_ts"] == sent["ts"]
    # the bot runs on the wall clock: late at night the 07:00 deadline cannot be met and the plan says so
    assert "Cheapest before 07:00" in reply["text"] or "more than the time left before 07:00" in reply["text"]
    notice, feedback = reply["blocks"][-2:]  # the AI notice, then the 👍/👎 buttons
    assert notice["elements"][0]["text"] == AI_NOTICE and feedback["type"] == "context_actions"
    assert harness.slack.acks[sent["envelope"]]  # acknowledged
    statuses = [
        c.params["status"]
        for c in harness.slack.calls_to("assistant.threads.setStatus")
        if c.params.get("thread_ts") == sent["ts"]
    ]
    assert statuses == ["is thinking…", ""]  # shown while thinking, cleared afterwards
    session = harness.runtime.service.sessions.get(f"{TEAM}-U1", f"DU1-{sent['ts']}")
    assert [m.role for m in session.messages] == ["user", "assistant"]


def test_redelivered_event_gets_one_reply(shared_bot: Harness) -> None:
    harness = shared_bot
    ts = next_ts()
    envelopes = {
        harness.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvSame", retry=attempt)["envelope"]
        for attempt in range(3)
    }
    harness.wait_replies_in(ts)
    time.sleep(1.0)
    assert len(harness.replies_in(ts)) == 1
    assert len(envelopes) == 3 and envelopes <= set(harness.slack.acks)  # every delivery is acknowledged


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


def test_reconnects_after_disconnect_and_keeps_answering(shared_bot: Harness) -> None:
    harness = shared_bot
    first = harness.dm("U1", "When should I charge my EV?")
    harness.wait_replies_in(first["ts"])
    connections, opened = harness.slack.connection_count, len(harness.slack.calls_to("apps.connections.open"))
    # slack_sdk opens the new connection, then closes the old one between two of its reads (each
    # waits up to 3 s for data) before reading from the new one: pings end the wait, as Slack's do
    with harness.slack.pinging():
        harness.slack.ask_to_reconnect()
        harness.slack.wait_for_connection(count=connections + 1, timeout=30)
        second = harness.dm("U1", "How do heat pumps work?")
        harness.wait_replies_in(second["ts"])
    assert len(harness.slack.calls_to("apps.connections.open")) >= opened + 1


def test_a_restart_remembers_seen_events_and_memorizes_sessions_left_idle(data_dir: Path) -> None:
    """Both promises of a restart in one restart: an event handled before it is not answered again
    when Slack re-delivers it after, and sessions left idle while the bot was down are memorized."""
    ts = next_ts()
    with running_bot(data_dir, idle_minutes=30) as running:
        running.dm("U1", "I work from home now")
        running.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvPersist")
        running.wait_replies(2)
        assert running.runtime.service.sessions.latest(f"{TEAM}-U1").needs_memorizing
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=2)  # noqa: E731 - the bot was down for two hours
    with running_bot(data_dir, idle_minutes=30, clock=later) as restarted:
        sessions = restarted.runtime.service.sessions
        eventually(lambda: not sessions.latest(f"{TEAM}-U1").needs_memorizing, timeout=15)
        restarted.dm("U1", "When should I charge my EV?", ts=ts, event_id="EvPersist", retry=1)
        fresh = restarted.dm("U1", "How do heat pumps work?")
        restarted.wait_replies(1)
        time.sleep(0.8)
        # only the new message is answered: the re-delivered one was remembered across the restart
        assert [reply["thread_ts"] for reply in restarted.replies()] == [fresh["ts"]]
