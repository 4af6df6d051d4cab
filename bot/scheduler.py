"""Idle memorization with APScheduler 3 (`BackgroundScheduler`).

Every turn (re)schedules `memorize:<user>:<session>` at last activity + `idle_minutes`; the turn
threshold memorizes at once (after the reply). At start-up every session with un-memorized turns
gets its job back, due at its last activity + `idle_minutes` (now, if that has passed), so a
thread active just before a restart or crash is still memorized. A failed run is retried with
backoff; after the last retry the session stays un-memorized and is picked up again by its next
turn or the next start, never silently dropped. The
conversation service's per-session lock keeps a memorize run from overlapping a turn.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from apscheduler.schedulers.background import BackgroundScheduler

from bot.service import ConversationService, Reply
from config.clock import Clock, utc_now
from profiles.session import Session

logger = logging.getLogger(__name__)

RETRY_MINUTES = (1, 2, 5, 15, 30, 60)


class MemorizeScheduler:
    def __init__(
        self,
        *,
        service: ConversationService,
        idle_minutes: float,
        clock: Clock = utc_now,
        retry_minutes: tuple[float, ...] = RETRY_MINUTES,
    ) -> None:
        self._service = service
        self._idle = timedelta(minutes=idle_minutes)
        self._idle_minutes = idle_minutes
        self._clock = clock
        self._retry_minutes = retry_minutes
        self._scheduler = BackgroundScheduler(
            timezone="UTC", job_defaults={"misfire_grace_time": None, "coalesce": True}
        )

    def start(self, *, user_id: str | None = None) -> int:
        """Start, and give every un-memorized session (of `user_id`, or all) its memorize job back:
        at last activity + idle, or now when that has passed. Returns how many were scheduled."""
        self._scheduler.start()
        pending = self._service.sessions.list_unmemorized(user_id)
        for session in pending:
            self._schedule_idle(session)
        if pending:
            logger.info("Scheduled memorizing for %d session(s) with un-memorized turns", len(pending))
        return len(pending)

    def shutdown(self, *, wait: bool = True) -> None:
        """Stop; with `wait`, running memorize jobs finish first."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=wait)

    def on_turn(self, session: Session, reply: Reply | None = None) -> None:
        """After every stored turn: memorize now if the turn threshold was reached, else at idle."""
        if reply is not None and reply.memorize_due:
            self._schedule(session.user_id, session.session_id, delay=timedelta(0))
        elif session.needs_memorizing:
            self._schedule_idle(session)

    def due_at(self, user_id: str, session_id: str):
        job = self._scheduler.get_job(f"memorize:{user_id}:{session_id}")
        return job.next_run_time if job else None

    def job_ids(self) -> list[str]:
        return [job.id for job in self._scheduler.get_jobs()]

    # --- internals ------------------------------------------------------------------------

    def _schedule_idle(self, session: Session) -> None:
        due = session.last_activity_at + self._idle - self._clock()
        self._schedule(session.user_id, session.session_id, delay=max(due, timedelta(0)))

    def _schedule(self, user_id: str, session_id: str, *, delay: timedelta, attempt: int = 0) -> None:
        # The injected clock decides how long to wait; APScheduler itself runs on real time.
        self._scheduler.add_job(
            self._memorize,
            "date",
            run_date=utc_now() + delay,
            args=[user_id, session_id, attempt],
            id=f"memorize:{user_id}:{session_id}",
            replace_existing=True,
        )

    def _memorize(self, user_id: str, session_id: str, attempt: int) -> None:
        session = self._service.sessions.get(user_id, session_id)
        if session is None or not session.needs_memorizing:
            return
        try:
            result = self._service.memorize(user_id, session_id)
        except Exception as exc:
            if attempt >= len(self._retry_minutes):
                logger.error(
                    "Memorizing session %s failed %d times (%s); its turns stay un-memorized until "
                    "its next turn or the next start",
                    session_id,
                    attempt + 1,
                    exc,
                )
                return
            wait = self._retry_minutes[attempt]
            logger.warning(
                "Memorizing session %s failed (attempt %d: %s); retrying in %g min",
                session_id,
                attempt + 1,
                exc,
                wait,
            )
            self._schedule(user_id, session_id, delay=timedelta(minutes=wait), attempt=attempt + 1)
            return
        logger.info(
            "Memorized session %s through turn %d (%d change(s))",
            session_id,
            result.through_turn,
            len(result.applied),
        )
