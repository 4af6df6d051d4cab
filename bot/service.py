"""The conversation service: transport-agnostic turns, shared by Slack and the terminal chat.

A turn: keep the user's message in the session first (so nothing is lost if answering fails),
run the advisor graph with a trace recorder of its own, save the answer, the onboarding state
and the trace, and report the result. Turns of one session are serialized (one lock per
session, also taken by memorize runs); different sessions run concurrently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, Field

from advisor.graph import Advisor
from advisor.intent import validate_message
from advisor.llm.errors import ModelUnavailableError
from advisor.memorizer import MemorizeResult
from advisor.nodes.intake import EMPTY_REPLY
from config.clock import Clock, utc_now
from profiles.ids import validate_key, validate_label
from profiles.locks import KeyedLocks
from profiles.models import UserProfile
from profiles.session import Session
from profiles.wording import describe_saved
from traces.recorder import TraceRecorder, recording
from traces.storage import TraceStore

logger = logging.getLogger(__name__)

UNAVAILABLE_REPLY = (
    "Sorry, the advisor is unavailable right now: its language model {reason}. "
    "Your message is saved; please try again in a few minutes."
)
FAILED_REPLY = (
    "Sorry, something went wrong on my side while answering. Your message is saved; please try again."
)

TurnListener = Callable[[Session, "Reply"], None]
ExtraCallbacks = Callable[[str, str, int], list[Any]]


class Reply(BaseModel):
    text: str
    session_id: str
    turn: int
    intent: str | None = None
    topic: str | None = None
    citations: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    memorized: bool = False
    memorize_due: bool = False  # the turn threshold was reached: memorize after delivering this reply
    offline: bool = False
    failed: bool = False
    profile_changes: list[dict[str, Any]] = Field(default_factory=list)
    asked_for: str | None = None  # the onboarding slot this reply asks about
    trace_id: str | None = None


class ConversationService:
    def __init__(
        self,
        *,
        advisor: Advisor,
        traces: TraceStore | None = None,
        labels: dict[str, str] | None = None,
        offline: bool = False,
        on_turn: TurnListener | None = None,
        callbacks: ExtraCallbacks | None = None,
        clock: Clock = utc_now,
    ) -> None:
        """`traces` stores one trace per turn and memorize run; `labels` names the model per role in
        them; `on_turn` is told after every stored
        turn (the scheduler reschedules idle memorizing); `callbacks` adds per-turn LangChain callbacks
        (e.g. ContextForge's instrumentor) from (user, session, turn)."""
        self._advisor = advisor
        self._traces = traces
        self._labels = labels or {}
        self._offline = offline
        self.on_turn = on_turn
        self._callbacks = callbacks
        self._clock = clock
        self._locks = KeyedLocks()

    @property
    def sessions(self):
        return self._advisor.sessions

    @property
    def profiles(self):
        return self._advisor.profiles

    @property
    def traces(self) -> TraceStore | None:
        return self._traces

    def handle_turn(
        self,
        user_id: str,
        session_id: str,
        text: str,
        *,
        channel: str | None = None,
        thread_ts: str | None = None,
    ) -> Reply:
        validate_label(user_id)
        validate_key(session_id)
        if validate_message(text).empty:
            return Reply(text=EMPTY_REPLY, session_id=session_id, turn=0, offline=self._offline)
        with self._locks.hold((user_id, session_id)):
            reply, session = self._turn(user_id, session_id, text, channel=channel, thread_ts=thread_ts)
        if self.on_turn is not None:
            try:
                self.on_turn(session, reply)
            except Exception:  # a scheduling problem must not lose the answer
                logger.exception("Turn listener failed for session %s", session_id)
        return reply

    def memorize(self, user_id: str, session_id: str) -> MemorizeResult:
        """Memorize a session now (its own trace); never runs while a turn of the same session runs."""
        with self._locks.hold((user_id, session_id)):
            session = self._advisor.sessions.get(user_id, session_id)
            recorder = self._recorder(
                user_id, session_id, session.turn_count if session else 0, kind="memorize"
            )
            try:
                with recording(recorder):
                    result = self._advisor.memorizer.memorize_session(
                        session_id, user_id=user_id, config=self._config(recorder, user_id, session_id)
                    )
            except Exception as exc:
                recorder.error(node="memorizer", kind=type(exc).__name__, message=str(exc))
                recorder.final_output(f"memorize failed: {exc}", node="memorizer")
                self._save(recorder)
                raise
            recorder.final_output(result.describe_changes() or "nothing new to save", node="memorizer")
            self._save(recorder)
            return result

    # --- internals ------------------------------------------------------------------------

    def _turn(
        self, user_id: str, session_id: str, text: str, *, channel: str | None, thread_ts: str | None
    ) -> tuple[Reply, Session]:
        sessions = self._advisor.sessions
        before = sessions.get(user_id, session_id)
        turn = (before.turn_count if before else 0) + 1
        recorder = self._recorder(user_id, session_id, turn, kind="turn")
        state = {
            "user_id": user_id,
            "session_id": session_id,
            "message": text,
            "messages": _as_messages(before),
            "turn_count": turn,
            "memorized_through_turn": before.memorized_through_turn if before else 0,
            "pending_slot": before.pending_slot if before else None,
            "pending_question": before.pending_question if before else None,
            "last_request": before.last_request.model_dump() if before and before.last_request else None,
            "skipped_slots": list(before.skipped_slots) if before else [],
            "errors": [],
        }
        commit = {"user_text": text, "channel": channel, "thread_ts": thread_ts}
        try:
            with recording(recorder):
                result = self._advisor.graph.invoke(
                    state, config=self._config(recorder, user_id, session_id, turn)
                )
        except ModelUnavailableError as exc:
            logger.warning("Turn %d of %s: %s", turn, session_id, exc)
            recorder.error(node=exc.role, kind="model_unavailable", message=exc.reason)
            return self._failed(user_id, session_id, UNAVAILABLE_REPLY.format(reason=exc.reason), recorder, commit)
        except Exception as exc:
            logger.exception("Turn %d of %s failed", turn, session_id)
            recorder.error(node="graph", kind=type(exc).__name__, message=str(exc))
            return self._failed(user_id, session_id, FAILED_REPLY, recorder, commit)

        answer = "\n\n".join(part for part in [*result.get("notices", []), result.get("response", "")] if part).strip()
        session = sessions.commit_turn(
            user_id, session_id, reply_text=answer, updates=_session_updates(before, result, turn), **commit
        )
        recorder.final_output(answer, node=_answering_node(result))
        self._save(recorder)
        docs = result.get("retrieved_docs", [])
        return (
            Reply(
                text=answer,
                session_id=session_id,
                turn=session.turn_count,
                intent=result.get("intent"),
                topic=result.get("topic"),
                citations=[
                    docs[n - 1].source for n in result.get("cited_passages", []) if 0 < n <= len(docs)
                ],
                warnings=[w for obs in result.get("tool_observations", []) for w in obs.get("warnings", [])],
                memorized=bool(result.get("should_memorize")),
                memorize_due=bool(result.get("memorize_due")),
                offline=self._offline,
                profile_changes=result.get("profile_changes", []),
                asked_for=result.get("pending_slot"),
                trace_id=recorder.run_id,
            ),
            session,
        )

    def _recorder(self, user_id: str, session_id: str, turn: int, *, kind: str) -> TraceRecorder:
        return TraceRecorder(
            user_id=user_id,
            session_id=session_id,
            turn=turn,
            kind=kind,
            labels=self._labels,
            clock=self._clock,
        )

    def _config(
        self, recorder: TraceRecorder, user_id: str, session_id: str, turn: int | None = None
    ) -> RunnableConfig:
        callbacks: list[Any] = [recorder]
        if self._callbacks is not None:
            callbacks += self._callbacks(user_id, session_id, turn or 0)
        return {
            "callbacks": callbacks,
            "metadata": {"user_id": user_id, "session_id": session_id, "turn": turn},
        }

    def _save(self, recorder: TraceRecorder) -> None:
        if self._traces is None:
            return
        try:
            self._traces.save(recorder.finish())
        except Exception:  # a trace problem must never cost the user their answer
            logger.exception("Could not save trace %s", recorder.run_id)

    def _failed(
        self, user_id: str, session_id: str, text: str, recorder: TraceRecorder, commit: dict[str, Any]
    ) -> tuple[Reply, Session]:
        """The user's message is kept (the idle memorizer still reads it). Facts saved before the
        failure are said, so the reply never hides a change it made."""
        before = self._advisor.sessions.get(user_id, session_id)
        turn = (before.turn_count if before else 0) + 1
        saved = describe_saved(_changes_of_turn(self._advisor.profiles.get(user_id), session_id, turn))
        text = f"{saved}\n\n{text}" if saved else text
        session = self._advisor.sessions.commit_turn(user_id, session_id, reply_text=text, **commit)
        recorder.final_output(text, node="service")
        self._save(recorder)
        reply = Reply(
            text=text,
            session_id=session_id,
            turn=session.turn_count,
            offline=self._offline,
            failed=True,
            trace_id=recorder.run_id,
        )
        return reply, session


def _answering_node(result: dict[str, Any]) -> str:
    return (
        "recommend"
        if result.get("route") in ("analyzer", "recommend")
        else "recall"
        if result.get("route") == "done"
        else "intake"
    )


def _changes_of_turn(profile: UserProfile | None, session_id: str, turn: int) -> list[dict[str, Any]]:
    entries = profile.history if profile else []
    return [
        {"field": e.field, "operation": e.operation, "old_value": e.old_value, "new_value": e.new_value}
        for e in entries
        if e.source.session_id == session_id and e.source.turn == turn and e.operation in ("set", "updated")
    ]


def _as_messages(session: Session | None) -> list[BaseMessage]:
    """The session's raw messages (capped by the repository); the recommend node trims them to its
    token budget, and older turns live on as profile notes."""
    recent = session.messages if session else []
    return [HumanMessage(m.content) if m.role == "user" else AIMessage(m.content) for m in recent]


def _session_updates(before: Session | None, result: dict[str, Any], turn: int) -> dict[str, Any]:
    """The session state this turn changed, written with the turn's two messages in one write."""
    updates: dict[str, Any] = {
        "pending_slot": result.get("pending_slot"),
        "pending_question": result.get("pending_question"),
        "skipped_slots": result.get("skipped_slots", before.skipped_slots if before else []),
    }
    facts = result.get("session_facts") or []
    if facts:
        kept = [fact.model_dump() for fact in before.facts] if before else []
        updates["facts"] = [*kept, *facts][-200:]
    if result.get("route") == "analyzer" or (result.get("intent") == "live_data" and result.get("tool_observations")):
        params = result.get("params")
        updates["last_request"] = {
            "turn": turn,
            "intent": "live_data",
            "topic": result.get("topic", "general"),
            "question": str(result.get("message", ""))[:2000],
            "params": params.filled() if params is not None else {},
        }
    if result.get("intent") == "goodbye":
        updates["status"] = "ended"
    if result.get("memorized_through_turn"):
        updates["memorized_through_turn"] = result["memorized_through_turn"]
    return updates
