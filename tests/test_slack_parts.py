"""Slack-side pieces on their own: formatting, de-duplication, and memorize retries with backoff."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from bot.dedup import SeenEvents
from bot.formatting import AI_NOTICE, answer_messages, from_slack, split_paragraphs, to_mrkdwn
from bot.scheduler import MemorizeScheduler
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime


def test_markdown_becomes_slack_mrkdwn() -> None:
    text = "# Plan\n**Charge** after _midnight_: see [PG&E](https://www.pge.com/ev) <now>\n- one\n- two"
    assert to_mrkdwn(text) == (
        "*Plan*\n*Charge* after _midnight_: see <https://www.pge.com/ev|PG&amp;E> &lt;now&gt;\n• one\n• two"
    )


def test_slack_markup_becomes_plain_text() -> None:
    assert from_slack(
        "hi <@U123> see <https://x.org/a|this> and <https://y.org> in <#C1|general> <!here> &amp; &lt;3"
    ) == ("hi @someone see this (https://x.org/a) and https://y.org in #general @here & <3")


def test_long_answers_split_at_paragraphs_under_the_limit() -> None:
    paragraphs = [f"Paragraph {n}. " + "word " * 150 for n in range(30)]
    pieces = split_paragraphs("\n\n".join(paragraphs), limit=2900)
    assert all(len(piece) <= 2900 for piece in pieces)
    assert all(piece.startswith("Paragraph") for piece in pieces)  # cut between paragraphs, never inside
    assert split_paragraphs("x" * 7000, limit=2900) == ["x" * 2900, "x" * 2900, "x" * 1200]
    messages = answer_messages("\n\n".join(paragraphs * 8))
    assert len(messages) > 1 and all(len(blocks) <= 21 for _, blocks in messages)
    assert messages[-1][1][-1]["elements"][0]["text"] == AI_NOTICE
    assert all(block["type"] == "section" for _, blocks in messages[:-1] for block in blocks)


def test_seen_events_are_bounded_and_persisted(tmp_path: Path) -> None:
    path = tmp_path / "seen.txt"
    seen = SeenEvents(path, capacity=3)
    assert (
        seen.first_time("Ev1", "msg1")
        and not seen.first_time("Ev1", None)
        and not seen.first_time(None, "msg1")
    )
    for n in range(2, 6):
        assert seen.first_time(f"Ev{n}")
    assert len(seen) == 3
    reloaded = SeenEvents(path, capacity=3)
    assert not reloaded.first_time("Ev5") and reloaded.first_time("Ev1")  # the oldest ones were dropped
    assert len(path.read_text().splitlines()) == 4  # compacted on start, then one new id appended


def test_failed_memorize_is_retried_with_backoff_until_it_succeeds(data_dir: Path) -> None:
    runtime = make_runtime(data_dir)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    service = runtime.service
    service.handle_turn("T1-U1", "t1", "I work from home now")
    real_memorize = service.memorize
    attempts: list[float] = []
    done = threading.Event()

    def flaky(user_id: str, session_id: str):
        attempts.append(time.monotonic())
        if len(attempts) < 3:
            raise RuntimeError("the model is down")
        result = real_memorize(user_id, session_id)
        done.set()
        return result

    service.memorize = flaky  # the scheduler calls the service; this one fails twice
    scheduler = MemorizeScheduler(service=service, idle_minutes=0.001, retry_minutes=(0.005, 0.01))
    scheduler.start()
    try:
        scheduler.on_turn(service.sessions.get("T1-U1", "t1"))
        assert done.wait(20)
    finally:
        scheduler.shutdown()
    assert len(attempts) == 3
    first_wait, second_wait = attempts[1] - attempts[0], attempts[2] - attempts[1]
    assert second_wait > first_wait  # 0.3 s, then 0.6 s: the backoff grows
    assert service.profiles.get("T1-U1").household.work_schedule == "WFH"
    assert not service.sessions.get("T1-U1", "t1").needs_memorizing


def test_a_session_stays_unmemorized_while_memorizing_fails(data_dir: Path) -> None:
    runtime = make_runtime(data_dir)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    service = runtime.service
    service.handle_turn("T1-U1", "t1", "I work from home now")
    failures = threading.Event()

    def broken(user_id: str, session_id: str):
        failures.set()
        raise RuntimeError("the model is down")

    service.memorize = broken
    scheduler = MemorizeScheduler(service=service, idle_minutes=0.001, retry_minutes=(60,))
    scheduler.start()
    try:
        scheduler.on_turn(service.sessions.get("T1-U1", "t1"))
        assert failures.wait(20)
        time.sleep(0.2)
        assert scheduler.job_ids() == ["memorize:T1-U1:t1"]  # rescheduled, not dropped
    finally:
        scheduler.shutdown()
    assert service.sessions.get("T1-U1", "t1").needs_memorizing
