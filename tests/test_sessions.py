"""SessionRepository: turns, capped history, memorized-through marks, idle listing."""

from __future__ import annotations

import threading

import pytest
from freezegun import freeze_time

from profiles.ids import InvalidIdError
from profiles.sessions import SessionError, SessionRepository


def test_get_or_create_is_idempotent_and_keeps_thread_info(sessions: SessionRepository) -> None:
    first = sessions.get_or_create(
        "T1-U1", "1700000000.000100", channel="D123", thread_ts="1700000000.000100"
    )
    second = sessions.get_or_create("T1-U1", "1700000000.000100", channel="ignored")
    assert first == second and second.channel == "D123"


def test_user_message_starts_a_turn_and_the_reply_shares_it(sessions: SessionRepository) -> None:
    sessions.get_or_create("u1", "s1")
    sessions.append_message("u1", "s1", "user", "When should I charge my EV?")
    session = sessions.append_message("u1", "s1", "assistant", "After midnight.")
    session = sessions.append_message("u1", "s1", "user", "Thanks")
    assert session.turn_count == 2
    assert [(m.role, m.turn) for m in session.messages] == [("user", 1), ("assistant", 1), ("user", 2)]
    assert sessions.get("u1", "s1") == session


def test_append_to_a_missing_session_is_a_clear_error(sessions: SessionRepository) -> None:
    with pytest.raises(SessionError, match="create it first"):
        sessions.append_message("u1", "nope", "user", "hi")


def test_two_users_never_share_a_session(sessions: SessionRepository) -> None:
    sessions.get_or_create("u1", "s1")
    sessions.append_message("u1", "s1", "user", "private to u1")
    assert sessions.get("u2", "s1") is None
    other = sessions.get_or_create("u2", "s1")
    assert other.messages == []


def test_cap_drops_only_memorized_messages(sessions: SessionRepository) -> None:
    """The fixture caps at 6 messages with a hard limit of 10."""
    sessions.get_or_create("u1", "s1")
    for turn in range(1, 5):
        sessions.append_message("u1", "s1", "user", f"question {turn}")
        sessions.append_message("u1", "s1", "assistant", f"answer {turn}")
    unmemorized = sessions.get("u1", "s1")
    assert len(unmemorized.messages) == 8  # nothing memorized yet: nothing may be dropped

    sessions.mark_memorized("u1", "s1", 3)
    session = sessions.append_message("u1", "s1", "user", "question 5")
    assert len(session.messages) == 6
    # turn 1 and the question of turn 2 went (all memorized); turns 4 and 5 are kept in full
    assert [m.content for m in session.messages] == [
        "answer 2",
        "question 3",
        "answer 3",
        "question 4",
        "answer 4",
        "question 5",
    ]


def test_hard_limit_drops_unmemorized_with_a_warning(
    sessions: SessionRepository, caplog: pytest.LogCaptureFixture
) -> None:
    sessions.get_or_create("u1", "s1")
    for turn in range(1, 13):
        session = sessions.append_message("u1", "s1", "user", f"q{turn}")
    assert len(session.messages) == 10
    assert session.messages[0].content == "q3"
    assert "unmemorized" in caplog.text


def test_mark_memorized_never_moves_backwards_or_past_the_last_turn(sessions: SessionRepository) -> None:
    sessions.get_or_create("u1", "s1")
    for text in ("a", "b", "c"):
        sessions.append_message("u1", "s1", "user", text)
    assert sessions.mark_memorized("u1", "s1", 2).memorized_through_turn == 2
    assert sessions.mark_memorized("u1", "s1", 1).memorized_through_turn == 2
    assert sessions.mark_memorized("u1", "s1", 99).memorized_through_turn == 3
    assert not sessions.get("u1", "s1").needs_memorizing


def test_idle_unmemorized_sessions_are_listed_oldest_first(sessions: SessionRepository) -> None:
    with freeze_time("2026-01-01T10:00:00Z"):
        for session_id in ("old", "memorized", "empty"):
            sessions.get_or_create("u1", session_id)
        sessions.append_message("u1", "old", "user", "I work from home now")
        sessions.append_message("u1", "memorized", "user", "hello")
        sessions.mark_memorized("u1", "memorized", 1)
        sessions.get_or_create("u2", "other-user")
        sessions.append_message("u2", "other-user", "user", "we have 4 people")
    with freeze_time("2026-01-01T10:20:00Z"):
        sessions.get_or_create("u1", "recent")
        sessions.append_message("u1", "recent", "user", "still talking")

    with freeze_time("2026-01-01T10:31:00Z"):
        idle = sessions.list_idle_unmemorized(idle_minutes=30)
    assert [(s.user_id, s.session_id) for s in idle] == [("u1", "old"), ("u2", "other-user")]
    with freeze_time("2026-01-01T10:29:00Z"):
        assert sessions.list_idle_unmemorized(idle_minutes=30) == []


def test_end_marks_the_session_and_a_new_message_reopens_it(sessions: SessionRepository) -> None:
    ended = sessions.commit_turn("u1", "s1", user_text="bye", reply_text="Bye!", updates={"status": "ended"})
    assert ended.status == "ended"
    assert sessions.commit_turn("u1", "s1", user_text="one more thing", reply_text="ok").status == "active"


def test_concurrent_appends_and_memorize_marks_lose_nothing(sessions: SessionRepository) -> None:
    repository = SessionRepository(sessions._store, max_messages=400, hard_limit=400)
    repository.get_or_create("u1", "s1")

    def talk(worker: int) -> None:
        for index in range(20):
            repository.append_message("u1", "s1", "user", f"{worker}-{index}")

    def memorize() -> None:
        for _ in range(20):
            current = repository.get("u1", "s1")
            repository.mark_memorized("u1", "s1", current.turn_count)

    threads = [threading.Thread(target=talk, args=(n,)) for n in range(4)] + [
        threading.Thread(target=memorize)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = repository.get("u1", "s1")
    assert final.turn_count == 80 and len(final.messages) == 80
    assert sorted(m.turn for m in final.messages) == list(range(1, 81))


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "x" * 300, "nul\x00"])
def test_bad_session_ids_are_rejected(sessions: SessionRepository, bad: str) -> None:
    with pytest.raises(InvalidIdError):
        sessions.get_or_create("u1", bad)


def test_repository_rejects_a_cap_below_two(sessions: SessionRepository) -> None:
    with pytest.raises(ValueError, match="max_messages"):
        SessionRepository(sessions._store, max_messages=1)


def test_two_repositories_over_one_store_share_their_locks(sessions: SessionRepository) -> None:
    """A graph and the conversation service each build a repository; their writes must not interleave."""
    other = SessionRepository(sessions._store, max_messages=400, hard_limit=400)
    mine = SessionRepository(sessions._store, max_messages=400, hard_limit=400)
    mine.get_or_create("u1", "s1")

    def talk(repository: SessionRepository, tag: str) -> None:
        for index in range(25):
            repository.append_message("u1", "s1", "user", f"{tag}{index}")

    pairs = [(mine, "a"), (other, "b"), (mine, "c"), (other, "d")]
    threads = [threading.Thread(target=talk, args=pair) for pair in pairs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert mine.get("u1", "s1").turn_count == 100


def test_imported_messages_are_numbered_like_appends_and_marked_memorized(
    sessions: SessionRepository,
) -> None:
    """A replayed feedback case starts its thread from the earlier messages in one write."""
    session = sessions.import_messages(
        "T1-U1",
        "thread-9",
        [("user", "hi"), ("assistant", "hello"), ("user", "and now?"), ("assistant", "ok")],
    )
    assert [(m.role, m.turn) for m in session.messages] == [
        ("user", 1),
        ("assistant", 1),
        ("user", 2),
        ("assistant", 2),
    ]
    assert session.turn_count == 2 and session.memorized_through_turn == 2
    assert sessions.get("T1-U1", "thread-9") == session
    assert sessions.list_unmemorized("T1-U1") == []  # nothing left for the memorizer to redo
