"""Feedback buttons end to end, in process: a real Bolt app whose WebClient talks to the local Slack
Web API server, requests dispatched as Socket Mode delivers them (as slack_bolt's own tests do), a
real advisor turn to rate, and the files the feedback leaves behind."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient

from bot.slack_feedback import (
    ACTION_ID,
    NOT_YOURS,
    REASON_BLOCK,
    REASON_CALLBACK,
    REASON_INPUT,
    THANKS_BAD,
    THANKS_GOOD,
    feedback_block,
    register_feedback,
)
from bot.slack_views import eval_blocks
from bot.wiring import AppRuntime
from config.files import EvalConfig
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime
from tests.servers.http import Response
from tests.servers.slack import FakeSlack
from traces.evaluate import main as evaluate
from traces.feedback import FeedbackStore
from traces.graders import grade_trace
from traces.storage import load_trace

BOT, APP_TOKEN, TEAM = "xoxb-feedback-test", "xapp-feedback-test", "T0TEST"
ALICE, BOB = f"{TEAM}-UALICE", f"{TEAM}-UBOB"
CHANNEL, THREAD = "D0ALICE", "1700000000.000100"
SESSION = f"{CHANNEL}-{THREAD}"


def eventually(predicate: Any, timeout: float = 10) -> None:
    """Listeners run on Bolt's executor thread: poll for what they write to disk."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


@dataclass
class Harness:
    slack: FakeSlack
    app: App
    runtime: AppRuntime
    feedback: FeedbackStore
    data_dir: Path

    def turn(self, text: str, user: str = ALICE, session: str = SESSION) -> str:
        reply = self.runtime.service.handle_turn(user, session, text)
        assert reply.trace_id
        return reply.trace_id

    def click(self, value: Any, *, slack_user: str = "UALICE", trigger_id: str = "trigger-1") -> BoltResponse:
        body = {
            "type": "block_actions",
            "team": {"id": TEAM, "domain": "test"},
            "user": {"id": slack_user, "team_id": TEAM},
            "api_app_id": "A0TEST",
            "trigger_id": trigger_id,
            "container": {
                "type": "message",
                "message_ts": "1700000000.000200",
                "channel_id": CHANNEL,
                "is_ephemeral": False,
                "thread_ts": THREAD,
            },
            "channel": {"id": CHANNEL, "name": "directmessage"},
            "message": {"type": "message", "ts": "1700000000.000200", "thread_ts": THREAD, "text": "…"},
            "actions": [
                {
                    "type": "feedback_buttons",
                    "action_id": ACTION_ID,
                    "block_id": "fb",
                    "value": value,
                    "action_ts": "1700000001.000000",
                }
            ],
        }
        return self.app.dispatch(BoltRequest(body=body, mode="socket_mode"))

    def submit(self, view: dict[str, Any], reason: str | None, *, slack_user: str = "UALICE") -> BoltResponse:
        body = {
            "type": "view_submission",
            "team": {"id": TEAM, "domain": "test"},
            "user": {"id": slack_user, "team_id": TEAM},
            "api_app_id": "A0TEST",
            "view": {
                **view,
                "state": {
                    "values": {REASON_BLOCK: {REASON_INPUT: {"type": "plain_text_input", "value": reason}}}
                },
            },
        }
        return self.app.dispatch(BoltRequest(body=body, mode="socket_mode"))

    def ephemerals(self, count: int, user: str = "UALICE") -> list[str]:
        """The texts of the first `count` ephemeral messages to `user`, once they were sent."""

        def sent() -> list[str]:
            return [
                c.params["text"]
                for c in self.slack.calls_to("chat.postEphemeral")
                if c.params["user"] == user
            ]

        self.slack.wait_for(lambda: len(sent()) >= count, timeout=10)
        return sent()

    def trace_path(self, trace_id: str, user: str = ALICE) -> Path:
        path = self.runtime.service.traces.find(user, trace_id)
        assert path is not None
        return path

    def log(self) -> list[dict[str, Any]]:
        path = self.data_dir / "feedback" / "log.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def harness(data_dir: Path) -> Iterator[Harness]:
    with FakeSlack(bot_token=BOT, app_token=APP_TOKEN, team_id=TEAM) as slack:
        runtime = make_runtime(data_dir)
        runtime.advisor.profiles.import_profile({**CONFIGURED_PROFILE, "user_id": ALICE})
        service = runtime.service
        assert service.traces is not None
        feedback = FeedbackStore(
            data_dir / "feedback", traces=service.traces, sessions=service.sessions, profiles=service.profiles
        )
        app = App(client=WebClient(token=BOT, base_url=slack.api_url))
        register_feedback(app, feedback=feedback)
        try:
            yield Harness(slack, app, runtime, feedback, data_dir)
        finally:
            runtime.close()


def _button(trace_id: str, which: str) -> str:
    return feedback_block(trace_id)["elements"][0][f"{which}_button"]["value"]


def _feedback_steps(path: Path) -> list[Any]:
    return [s for s in load_trace(path).steps if getattr(s, "state_key", None) == "user_feedback"]


def test_the_block_is_slacks_feedback_buttons_carrying_the_trace_id() -> None:
    block = feedback_block("ab" * 16)
    assert block["type"] == "context_actions"
    [element] = block["elements"]
    assert element["type"] == "feedback_buttons" and element["action_id"] == ACTION_ID
    assert element["positive_button"]["value"] == "good:" + "ab" * 16
    assert element["negative_button"]["value"] == "bad:" + "ab" * 16
    assert element["positive_button"]["text"]["type"] == "plain_text"


def test_a_thumbs_up_is_acked_at_once_then_logged_and_put_on_the_trace(harness: Harness) -> None:
    trace_id = harness.turn("When should I charge my EV?")
    real_record = harness.feedback.record

    def slow_record(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.0)  # recording may be slow; the ack must not wait for it
        return real_record(*args, **kwargs)

    harness.feedback.record = slow_record  # type: ignore[method-assign]
    started = time.monotonic()
    response = harness.click(_button(trace_id, "positive"))
    assert response.status == 200 and time.monotonic() - started < 0.8

    assert harness.ephemerals(1) == [THANKS_GOOD]
    [line] = harness.log()
    assert (line["user"], line["trace_id"], line["verdict"], line["reason"]) == (
        ALICE,
        trace_id,
        "good",
        None,
    )
    path = harness.trace_path(trace_id)
    [step] = _feedback_steps(path)
    assert step.new_value["verdict"] == "good" and step.metadata["user_id"] == ALICE
    assert evaluate([str(path)]) in (0, 1)  # still a gradable ContextForge trace (2 would be "unreadable")
    assert harness.feedback.feedback_for(ALICE, trace_id).verdict == "good"
    assert not harness.slack.calls_to("views.open")
    assert not (harness.data_dir / "feedback" / "cases" / trace_id).exists()  # only a thumbs-down is a case


def test_a_thumbs_down_opens_a_modal_and_becomes_a_case_with_the_reason(harness: Harness) -> None:
    first = harness.turn("When should I charge my EV?")
    second = harness.turn("There are 3 people in our house now")  # a later turn changes the profile
    latest_before = harness.runtime.service.traces.latest(ALICE)

    assert harness.click(_button(first, "negative"), trigger_id="trigger-42").status == 200
    opened = harness.slack.wait_for(lambda: harness.slack.calls_to("views.open"), timeout=10)[0]
    assert opened.params["trigger_id"] == "trigger-42"
    view = opened.params["view"]
    assert view["callback_id"] == REASON_CALLBACK
    eventually(lambda: len(harness.log()) == 1)
    assert harness.log()[0]["verdict"] == "bad"

    assert harness.submit(view, "  The cheapest hours\nwere wrong  ").status == 200
    [thanks] = harness.ephemerals(1)
    assert "The cheapest hours were wrong" in thanks  # one line, as stored

    case = harness.data_dir / "feedback" / "cases" / first
    assert sorted(p.name for p in case.iterdir()) == [
        "case.json",
        "conversation.json",
        "profile.json",
        "trace.json",
    ]
    info = json.loads((case / "case.json").read_text())
    assert (info["verdict"], info["reason"], info["user"], info["trace_id"]) == (
        "bad",
        "The cheapest hours were wrong",
        ALICE,
        first,
    )
    assert (info["session_id"], info["turn"], info["profile_source"]) == (SESSION, 1, "trace")
    assert info["question"] == "When should I charge my EV?"
    conversation = json.loads((case / "conversation.json").read_text())
    assert [(m["role"], m["turn"]) for m in conversation] == [("user", 1), ("assistant", 1)]  # not turn 2
    assert conversation[0]["content"] == "When should I charge my EV?"
    assert json.loads((case / "profile.json").read_text())["household"]["occupants"] == 2  # as it was
    assert harness.runtime.service.profiles.get(ALICE).household.occupants == 3
    assert load_trace(case / "trace.json").run_id == first
    assert evaluate([str(case / "trace.json")]) in (0, 1)

    assert [line["reason"] for line in harness.log()] == [None, "The cheapest hours were wrong"]
    assert len(_feedback_steps(harness.trace_path(first))) == 1  # replaced, never piled up
    assert (
        harness.runtime.service.traces.latest(ALICE) == latest_before
    )  # rating never makes a trace "latest"
    assert latest_before == harness.trace_path(second)

    feedback = harness.feedback.feedback_for(ALICE, first)
    assert feedback is not None and feedback.reason == "The cheapest hours were wrong"
    grades = grade_trace(load_trace(harness.trace_path(first)), EvalConfig())
    shown = json.dumps(eval_blocks(grades, first, feedback=feedback), ensure_ascii=False)
    assert "👎" in shown and "The cheapest hours were wrong" in shown
    assert "Your feedback" not in json.dumps(eval_blocks(grades, first), ensure_ascii=False)


def test_a_modal_that_cannot_open_still_records_and_is_logged(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    trace_id = harness.turn("When should I charge my EV?")
    harness.slack.failures["views.open"].append(Response.json({"ok": False, "error": "expired_trigger_id"}))
    with caplog.at_level(logging.WARNING, logger="bot.slack_feedback"):
        harness.click(_button(trace_id, "negative"))
        assert harness.ephemerals(1) == [THANKS_BAD]
    assert any("views.open" in r.message and "expired_trigger_id" in r.message for r in caplog.records)
    assert [line["verdict"] for line in harness.log()] == ["bad"]
    assert (harness.data_dir / "feedback" / "cases" / trace_id / "case.json").exists()


def test_nobody_can_rate_someone_elses_answer(harness: Harness) -> None:
    trace_id = harness.turn("When should I charge my EV?")
    path = harness.trace_path(trace_id)
    before = path.read_bytes()

    harness.click(_button(trace_id, "negative"), slack_user="UBOB")
    assert harness.ephemerals(1, user="UBOB") == [NOT_YOURS]
    metadata = {"trace_id": trace_id, "channel": CHANNEL, "thread_ts": THREAD}
    forged = {"type": "modal", "callback_id": REASON_CALLBACK, "private_metadata": json.dumps(metadata)}
    harness.submit(forged, "I say it was bad", slack_user="UBOB")
    assert harness.ephemerals(2, user="UBOB") == [NOT_YOURS, NOT_YOURS]

    assert harness.log() == [] and path.read_bytes() == before
    assert not harness.slack.calls_to("views.open")
    assert not (harness.data_dir / "feedback" / "cases").exists()
    assert harness.feedback.feedback_for(BOB, trace_id) is None


@pytest.mark.parametrize(
    "value",
    ["", "good", "meh:" + "a" * 32, "good:../../etc/passwd", "bad:" + "f" * 31, "good:" + "0" * 32, None, 42],
)
def test_a_bogus_button_value_records_nothing_and_says_so(harness: Harness, value: Any) -> None:
    harness.turn("When should I charge my EV?")
    assert harness.click(value).status == 200
    assert harness.ephemerals(1) == [NOT_YOURS]
    assert harness.log() == [] and not harness.slack.calls_to("views.open")


def test_a_link_out_of_the_data_dir_is_never_followed(
    harness: Harness, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    trace_id = harness.turn("When should I charge my EV?")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (harness.data_dir / "feedback").mkdir()
    (harness.data_dir / "feedback" / "cases").symlink_to(elsewhere)
    with caplog.at_level(logging.WARNING, logger="traces.feedback"):
        assert harness.feedback.record(ALICE, trace_id, "bad", "wrong") is not None
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    assert any("symbolic link" in r.message for r in caplog.records)
    assert [line["reason"] for line in harness.log()] == ["wrong"]  # the log and the trace still have it
    assert harness.feedback.feedback_for(ALICE, trace_id).reason == "wrong"
