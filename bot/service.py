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
from profiles.session import Session
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
        history_turns: int = 1,
        on_turn: TurnListener | None = None,
        callbacks: ExtraCallbacks | None = None,
        clock: Clock = utc_now,
    ) -> None:
        """`traces` stores one trace per turn and memorize run; `labels` names the model per role in
        them; `history_turns` previous exchanges go to the model; `on_turn` is told after every stored
        turn (the scheduler reschedules idle memorizing); `callbacks` adds per-turn LangChain callbacks
        (e.g. ContextForge's instrumentor) from (user, session, turn)."""
        self._advisor = advisor
        self._traces = traces
        self._labels = labels or {}
        self._offline = offline
        self._history_messages = max(0, 2 * history_turns)
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
        before = sessions.get_or_create(user_id, session_id, channel=channel, thread_ts=thread_ts)
        history = _as_messages(before, self._history_messages)
        session = sessions.append_message(user_id, session_id, "user", text)
        recorder = self._recorder(user_id, session_id, session.turn_count, kind="turn")
        state = {
            "user_id": user_id,
            "session_id": session_id,
            "message": text,
            "messages": history,
            "turn_count": session.turn_count,
            "memorized_through_turn": session.memorized_through_turn,
            "pending_slot": session.pending_slot,
            "pending_question": session.pending_question,
            "errors": [],
        }
        try:
            with recording(recorder):
                result = self._advisor.graph.invoke(
                    state, config=self._config(recorder, user_id, session_id, session.turn_count)
                )
        except ModelUnavailableError as exc:
            logger.warning("Turn %d of %s: %s", session.turn_count, session_id, exc)
            recorder.error(node=exc.role, kind="model_unavailable", message=exc.reason)
            return self._failed(user_id, session_id, UNAVAILABLE_REPLY.format(reason=exc.reason), recorder)
        except Exception as exc:
            logger.exception("Turn %d of %s failed", session.turn_count, session_id)
            recorder.error(node="graph", kind=type(exc).__name__, message=str(exc))
            return self._failed(user_id, session_id, FAILED_REPLY, recorder)

        answer = "\n\n".join([*result.get("notices", []), result.get("response", "")]).strip()
        session = sessions.append_message(user_id, session_id, "assistant", answer)
        pending = (result.get("pending_slot"), result.get("pending_question"))
        if pending != (session.pending_slot, session.pending_question):  # one write fewer per ordinary turn
            session = sessions.set_pending(user_id, session_id, *pending)
        if result.get("intent") == "goodbye":
            session = sessions.end(user_id, session_id)
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
        self, user_id: str, session_id: str, text: str, recorder: TraceRecorder
    ) -> tuple[Reply, Session]:
        session = self._advisor.sessions.append_message(user_id, session_id, "assistant", text)
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


def _as_messages(session: Session, count: int) -> list[BaseMessage]:
    recent = session.messages[-count:] if count else []
    return [HumanMessage(m.content) if m.role == "user" else AIMessage(m.content) for m in recent]
