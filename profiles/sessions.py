"""Sessions on top of the store: one per thread, at namespace `("sessions", <user_id>)`.

Every read-modify-write (append a message, mark memorized) holds the session's lock, so a
turn and a memorize run of the same session never overwrite each other's changes.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta
from typing import Any, Literal

from langgraph.store.base import BaseStore
from pydantic import ValidationError

from config.clock import Clock, utc_now
from profiles.ids import validate_key, validate_label
from profiles.json_store import WriteRefusedError
from profiles.loaded import Loaded, still_current, store_version
from profiles.locks import shared_locks
from profiles.repository import (
    SESSION_RESET_NOTICE,
    ResetNotices,
    first_error,
    quarantine_mark,
    quarantined_since,
    set_aside,
    store_location,
)
from profiles.session import Session, SessionMessage

logger = logging.getLogger(__name__)

SESSION_NAMESPACE = "sessions"
_SCAN_PAGE = 500


class SessionError(Exception):
    """A session problem the caller should turn into a clear message."""


class SessionRepository:
    """Short-term memory. `max_messages` caps what is kept per session (EC-004).

    The cap drops the oldest messages that the memorizer has already seen; unmemorized
    messages are only dropped past `hard_limit`, with a warning, so facts are not lost silently.
    """

    def __init__(
        self,
        store: BaseStore,
        *,
        max_messages: int = 40,
        hard_limit: int = 400,
        clock: Clock = utc_now,
    ) -> None:
        if max_messages < 2 or hard_limit < max_messages:
            raise ValueError("need 2 <= max_messages <= hard_limit")
        self._store = store
        self._max_messages = max_messages
        self._hard_limit = hard_limit
        self._clock = clock
        self._locks = shared_locks(store, "sessions")
        self.notices = ResetNotices(store, clock=clock)

    def get(self, user_id: str, session_id: str) -> Session | None:
        """The session, or None. A stored file that is not a valid session of this user never
        crashes a turn: it is moved aside (kept for a human), the thread starts fresh, and the user
        is told once (`notices`)."""
        namespace = self._namespace(user_id)
        mark = quarantine_mark(self._store)
        item = self._store.get(namespace, validate_key(session_id))
        if item is None:
            if quarantined_since(self._store, mark, namespace, session_id):  # unreadable JSON, moved aside
                self.notices.record(user_id, "session", SESSION_RESET_NOTICE)
            return None
        return self._checked(user_id, session_id, item.value)

    def load(self, user_id: str, session_id: str) -> Loaded[Session]:
        """The session with the store's version of it, for a turn that writes it back at its end."""
        version = store_version(self._store, self._namespace(user_id), validate_key(session_id))
        return Loaded(self.get(user_id, session_id), version)

    def get_or_create(
        self,
        user_id: str,
        session_id: str,
        *,
        channel: str | None = None,
        thread_ts: str | None = None,
    ) -> Session:
        with self._locks.hold((user_id, session_id)):
            existing = self.get(user_id, session_id)
            if existing is not None:
                return existing
            now = self._clock()
            session = Session(
                session_id=session_id,
                user_id=user_id,
                channel=channel,
                thread_ts=thread_ts,
                created_at=now,
                last_activity_at=now,
            )
            self._write(session)
            return session

    def append_message(
        self, user_id: str, session_id: str, role: Literal["user", "assistant"], content: str
    ) -> Session:
        """Add a message; a user message starts a new turn. Returns the saved session."""
        with self._locks.hold((user_id, session_id)):
            session = self.get(user_id, session_id)
            if session is None:
                raise SessionError(f"no session {session_id} for {user_id}; create it first")
            now = self._clock()
            turn = session.turn_count + 1 if role == "user" else max(session.turn_count, 1)
            messages = [
                *session.messages,
                SessionMessage(role=role, content=content, timestamp=now, turn=turn),
            ]
            updated = session.model_copy(
                update={
                    "messages": self._cap(messages, session.memorized_through_turn, session_id),
                    "turn_count": turn,
                    "last_activity_at": now,
                    "status": "active",
                }
            )
            self._write(updated)
            return updated

    def import_messages(
        self, user_id: str, session_id: str, messages: list[tuple[Literal["user", "assistant"], str]]
    ) -> Session:
        """Start a thread from earlier messages (a replayed feedback case), in one write, numbered
        as `append_message` would and marked memorized: what they held was handled back then."""
        self.get_or_create(user_id, session_id)
        with self._locks.hold((user_id, session_id)):
            session = self.get(user_id, session_id)
            if session is None:
                raise SessionError(f"session {session_id} of {user_id} could not be created")
            now = self._clock()
            turn = session.turn_count
            added = list(session.messages)
            for role, content in messages:
                turn = turn + 1 if role == "user" else max(turn, 1)
                added.append(SessionMessage(role=role, content=content, timestamp=now, turn=turn))
            updated = session.model_copy(
                update={
                    "messages": self._cap(added, session.memorized_through_turn, session_id),
                    "turn_count": turn,
                    "memorized_through_turn": max(session.memorized_through_turn, turn),
                    "last_activity_at": now,
                }
            )
            self._write(updated)
            return updated

    def commit_turn(
        self,
        user_id: str,
        session_id: str,
        *,
        user_text: str,
        reply_text: str,
        updates: dict[str, Any] | None = None,
        channel: str | None = None,
        thread_ts: str | None = None,
        base: Loaded[Session] | None = None,
    ) -> Session:
        """Store one whole turn in a single write: the user's message, the reply, and the session
        state the turn changed (`updates`: pending question, facts, last request, ...).
        Creates the session on its first turn. `base`: the session as the turn read it (not read
        again when nobody wrote it since)."""
        with self._locks.hold((user_id, session_id)):
            now = self._clock()
            namespace = self._namespace(user_id)
            current = (
                base.value  # type: ignore[union-attr]
                if still_current(self._store, namespace, validate_key(session_id), base)
                else self.get(user_id, session_id)
            )
            session = current or Session(
                session_id=session_id,
                user_id=user_id,
                channel=channel,
                thread_ts=thread_ts,
                created_at=now,
                last_activity_at=now,
            )
            turn = session.turn_count + 1
            messages = [
                *session.messages,
                SessionMessage(role="user", content=user_text, timestamp=now, turn=turn),
                SessionMessage(role="assistant", content=reply_text, timestamp=now, turn=turn),
            ]
            fields = dict(updates or {})
            through = min(
                max(session.memorized_through_turn, int(fields.pop("memorized_through_turn", 0))), turn
            )
            data = {
                **session.model_dump(),
                **fields,
                "messages": self._cap(messages, through, session_id),
                "turn_count": turn,
                "last_activity_at": now,
                "memorized_through_turn": through,
            }
            data["status"] = fields.get("status", "active")  # a new message reopens an ended thread
            try:
                updated = Session.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first["loc"])
                raise SessionError(f"turn state is not valid at {where}: {first['msg']}") from None
            self._write(updated)
            return updated

    def mark_memorized(self, user_id: str, session_id: str, through_turn: int) -> Session:
        """Record that turns up to `through_turn` were memorized; never moves backwards."""
        with self._locks.hold((user_id, session_id)):
            session = self.get(user_id, session_id)
            if session is None:
                raise SessionError(f"no session {session_id} for {user_id}")
            through = min(max(session.memorized_through_turn, through_turn), session.turn_count)
            updated = session.model_copy(update={"memorized_through_turn": through})
            self._write(updated)
            return updated

    def latest(self, user_id: str, *, prefix: str = "") -> Session | None:
        """The user's most recently active session whose id starts with `prefix`."""
        namespace = self._namespace(user_id)
        mark = quarantine_mark(self._store)
        items = self._store.search(namespace, limit=1000)
        if quarantined_since(self._store, mark, namespace):
            self.notices.record(user_id, "session", SESSION_RESET_NOTICE)
        candidates = [
            session
            for item in items
            if item.key.startswith(prefix)
            and (session := self._checked(user_id, item.key, item.value)) is not None
        ]
        return max(candidates, key=lambda session: session.last_activity_at, default=None)

    def list_idle_unmemorized(self, idle_minutes: float) -> list[Session]:
        """Sessions silent for more than `idle_minutes` whose latest turns were never memorized."""
        cutoff = self._clock() - timedelta(minutes=idle_minutes)
        return [session for session in self.list_unmemorized() if session.last_activity_at < cutoff]

    def list_unmemorized(self, user_id: str | None = None) -> list[Session]:
        """Every session (of one user, or all) with turns the memorizer has not read, oldest first."""
        prefix = (SESSION_NAMESPACE,) if user_id is None else self._namespace(user_id)
        found: list[Session] = []
        offset = 0
        while True:
            mark = quarantine_mark(self._store)
            page = self._store.search(prefix, limit=_SCAN_PAGE, offset=offset)
            # unreadable JSON the store just moved aside: its user is told, like for an invalid one
            for path in quarantined_since(
                self._store, mark, (SESSION_NAMESPACE, user_id or "any"), any_user=True
            ):
                self.notices.record(path.parent.name, "session", SESSION_RESET_NOTICE)
            for item in page:
                if len(item.namespace) != 2:
                    continue  # not a session of ours (sessions live at ("sessions", <user_id>))
                session = self._checked(item.namespace[1], item.key, item.value)
                if session is not None and session.needs_memorizing:
                    found.append(session)
            if len(page) < _SCAN_PAGE:
                break
            offset += _SCAN_PAGE
        found.sort(key=lambda session: session.last_activity_at)
        return found

    # --- internals ------------------------------------------------------------------------

    @staticmethod
    def _namespace(user_id: str) -> tuple[str, str]:
        return (SESSION_NAMESPACE, validate_label(user_id))

    def _write(self, session: Session) -> None:
        """The store may refuse (a link out of the data directory, logged at WARNING there): the
        turn is still answered, and the conversation is simply not kept."""
        with contextlib.suppress(WriteRefusedError):
            self._store.put(
                self._namespace(session.user_id),
                validate_key(session.session_id),
                session.model_dump(mode="json"),
            )

    def _cap(
        self, messages: list[SessionMessage], memorized_through: int, session_id: str
    ) -> list[SessionMessage]:
        excess = len(messages) - self._max_messages
        if excess <= 0:
            return messages
        droppable = sum(1 for message in messages[:excess] if message.turn <= memorized_through)
        kept = messages[droppable:]
        if len(kept) > self._hard_limit:
            lost = len(kept) - self._hard_limit
            logger.warning(
                "Session %s: dropping %d unmemorized messages over the hard limit", session_id, lost
            )
            kept = kept[lost:]
        return kept

    @staticmethod
    def _parse(user_id: str, session_id: str, value: dict[str, Any]) -> Session:
        try:
            session = Session.model_validate(value)
        except ValidationError as exc:
            raise SessionError(f"stored session is not valid at {first_error(exc)}") from None
        if session.user_id != user_id or session.session_id != session_id:
            # never let a file make a turn write into another user's or thread's session
            raise SessionError("stored session names another user or session")
        return session

    def _checked(self, user_id: str, session_id: str, value: dict[str, Any]) -> Session | None:
        try:
            return self._parse(user_id, session_id, value)
        except SessionError:
            return self._recover(user_id, session_id)

    def _recover(self, user_id: str, session_id: str) -> Session | None:
        """Move an invalid stored session aside; the thread starts fresh (its messages are short-term
        memory, and the file is kept for a human)."""
        namespace = self._namespace(user_id)
        with self._locks.hold((user_id, session_id)):
            item = self._store.get(namespace, session_id)  # again, under the lock: it may be fixed already
            if item is None:
                return None
            try:
                return self._parse(user_id, session_id, item.value)
            except SessionError as exc:
                reason = str(exc)
            where = store_location(self._store, namespace, session_id)
            try:
                aside = set_aside(self._store, namespace, session_id, item.value, clock=self._clock)
            except OSError as exc:
                logger.error("%s (%s) could not be moved aside: %s", where, reason, exc)
                return None
            logger.warning(
                "Stored session %s: %s; moved aside to %s; the thread starts fresh", where, reason, aside
            )
            self.notices.record(user_id, "session", SESSION_RESET_NOTICE)
            return None
