"""The conversation service: transport-agnostic turns, shared by Slack and the terminal chat.

A turn: keep the user's message in the session first (so nothing is lost if answering fails),
run the advisor graph, save the answer and the onboarding state, and report the result.
Turns of one session are serialized (one lock per session, also taken by memorize runs);
different sessions run concurrently.
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
from profiles.ids import validate_key, validate_label
from profiles.locks import KeyedLocks
from profiles.session import Session

logger = logging.getLogger(__name__)

HISTORY_MESSAGES = 4  # the graph needs only the last exchange; the memorizer reads the session itself

UNAVAILABLE_REPLY = (
    "Sorry, the advisor is unavailable right now: its language model {reason}. "
    "Your message is saved; please try again in a few minutes."
)
FAILED_REPLY = (
    "Sorry, something went wrong on my side while answering. Your message is saved; please try again."
)

TurnListener = Callable[[Session], None]


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


class ConversationService:
    def __init__(
        self,
        *,
        advisor: Advisor,
        offline: bool = False,
        on_turn: TurnListener | None = None,
        callbacks: Callable[[str, str, int], list[Any]] | None = None,
    ) -> None:
        """`on_turn` is told after every stored turn (the scheduler reschedules idle memorizing);
        `callbacks` builds per-turn LangChain callbacks (trace recording) from (user, session, turn)."""
        self._advisor = advisor
        self._offline = offline
        self._on_turn = on_turn
        self._callbacks = callbacks
        self._locks = KeyedLocks()

    @property
    def sessions(self):
        return self._advisor.sessions

    @property
    def profiles(self):
        return self._advisor.profiles

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
        if self._on_turn is not None:
            try:
                self._on_turn(session)
            except Exception:  # a scheduling problem must not lose the answer
                logger.exception("Turn listener failed for session %s", session_id)
        return reply

    def memorize(self, user_id: str, session_id: str) -> MemorizeResult:
        """Memorize a session now; never runs while a turn of the same session is running."""
        with self._locks.hold((user_id, session_id)):
            return self._advisor.memorizer.memorize_session(session_id, user_id=user_id)

    # --- internals ------------------------------------------------------------------------

    def _turn(
        self, user_id: str, session_id: str, text: str, *, channel: str | None, thread_ts: str | None
    ) -> tuple[Reply, Session]:
        sessions = self._advisor.sessions
        before = sessions.get_or_create(user_id, session_id, channel=channel, thread_ts=thread_ts)
        history = _as_messages(before)
        session = sessions.append_message(user_id, session_id, "user", text)
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
        config: RunnableConfig = {
            "metadata": {"user_id": user_id, "session_id": session_id, "turn": session.turn_count}
        }
        if self._callbacks is not None:
            config["callbacks"] = self._callbacks(user_id, session_id, session.turn_count)
        try:
            result = self._advisor.graph.invoke(state, config=config)
        except ModelUnavailableError as exc:
            logger.warning("Turn %d of %s: %s", session.turn_count, session_id, exc)
            return self._failed(
                user_id, session_id, UNAVAILABLE_REPLY.format(reason=exc.reason), session.turn_count
            )
        except Exception:
            logger.exception("Turn %d of %s failed", session.turn_count, session_id)
            return self._failed(user_id, session_id, FAILED_REPLY, session.turn_count)

        answer = "\n\n".join([*result.get("notices", []), result.get("response", "")]).strip()
        sessions.append_message(user_id, session_id, "assistant", answer)
        session = sessions.set_pending(
            user_id, session_id, result.get("pending_slot"), result.get("pending_question")
        )
        if result.get("intent") == "goodbye":
            session = sessions.end(user_id, session_id)
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
            ),
            session,
        )

    def _failed(self, user_id: str, session_id: str, text: str, turn: int) -> tuple[Reply, Session]:
        session = self._advisor.sessions.append_message(user_id, session_id, "assistant", text)
        return Reply(text=text, session_id=session_id, turn=turn, offline=self._offline, failed=True), session


def _as_messages(session: Session) -> list[BaseMessage]:
    recent = session.messages[-HISTORY_MESSAGES:]
    return [HumanMessage(m.content) if m.role == "user" else AIMessage(m.content) for m in recent]
