"""Session nodes: the thread's working memory loaded at the start of a turn and written back, with
the turn's two messages, in one write at the end.

The session is graph state (LangGraph `thread_id` = the session id, the user from the runtime
context), kept as one JSON document per thread rather than a LangGraph checkpoint: it stays
readable and editable by hand, the idle scheduler scans it, and a turn costs one write instead
of a checkpoint per super-step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from advisor.message import validate_message
from advisor.state import AdvisorState
from knowledge.models import passage_key
from profiles.models import SECTION_MODELS, UserProfile
from profiles.repository import ProfileRepository
from profiles.session import Session
from profiles.sessions import SessionRepository
from traces.recorder import current_trace


@dataclass(frozen=True)
class ThreadContext:
    """Who is talking and where (the runtime context of one turn)."""

    user_id: str
    channel: str | None = None
    thread_ts: str | None = None


def thread_id(config: RunnableConfig) -> str:
    configurable = config.get("configurable") or {}
    value = configurable.get("thread_id")
    if not value:
        raise ValueError("a turn needs configurable.thread_id (the session id)")
    return str(value)


def make_load_session(sessions: SessionRepository, profiles: ProfileRepository):
    """The turn's one read of the thread's session and of the user's profile (every node reads
    them from the state; writes go through the repositories, each at most once a turn)."""

    def load_session(
        state: AdvisorState, runtime: Runtime[ThreadContext], config: RunnableConfig
    ) -> dict[str, Any]:
        user_id, session_id = runtime.context.user_id, thread_id(config)
        loaded = state.get("loaded_session") or sessions.load(user_id, session_id)
        session = loaded.value
        stored = profiles.load(user_id)
        profile = stored.value
        checked = validate_message(state.get("message"))
        if not checked.empty and (trace := current_trace()) is not None:
            trace.user_input(checked.text)  # the turn's first step: what the user said
        _record_read(user_id, profile)
        return {
            "loaded_session": loaded,
            "user_profile": profile,
            "viewed_profile": False,
            "fallback_query": None,
            "profile_version": stored.version,
            # A damaged profile or conversation was set aside: the reply starts by saying so (once;
            # the service marks it said when the reply is out).
            "notices": profiles.notices.pending(user_id),
            "user_id": user_id,
            "session_id": session_id,
            "messages": _as_messages(session),
            "turn_count": (session.turn_count if session else 0) + 1,
            "memorized_through_turn": session.memorized_through_turn if session else 0,
            "pending_slot": session.pending_slot if session else None,
            "pending_question": session.pending_question if session else None,
            "pending_request": session.pending_request if session else None,
            "queued_request": session.queued_request if session else None,
            "last_request": session.last_request.model_dump() if session and session.last_request else None,
            "last_live_request": session.last_live_request.model_dump()
            if session and session.last_live_request
            else None,
            "skipped_slots": list(session.skipped_slots) if session else [],
            "one_price_plan": bool(session and session.one_price_plan),
            "described_plan": session.described_plan if session else None,
            # (still declined when the last turn declined: a message saying to save lifts it)
            "saving_declined": bool(session and 0 < session.turn_count == session.declined_through_turn),
            "held_facts": dict(session.held_facts) if session else {},
            "prior_facts": [fact.model_dump() for fact in session.facts] if session else [],
            "errors": [],
        }

    return load_session


def make_save_session(sessions: SessionRepository):
    def save_session(state: AdvisorState, runtime: Runtime[ThreadContext]) -> dict[str, Any]:
        text = "\n\n".join(
            part for part in [*state.get("notices", []), state.get("response", "")] if part
        ).strip()
        session = sessions.commit_turn(
            state["user_id"],
            state["session_id"],
            user_text=state["original_message"],
            reply_text=text,
            updates=session_updates(state),
            channel=runtime.context.channel,
            thread_ts=runtime.context.thread_ts,
            base=state.get("loaded_session"),
        )
        if (trace := current_trace()) is not None:
            trace.state_change("session_saved", {"turn": session.turn_count}, node="save_session")
        return {
            "text": text,
            "turn": session.turn_count,
            "session": session,
            "citations": [doc.source for doc in _cited_docs(state)],
            "warnings": [w for obs in state.get("tool_observations", []) for w in obs.get("warnings", [])],
            "memorized": bool(state.get("should_memorize")),
            "asked_for": state.get("pending_slot"),
            "answered_by": _answering_node(state),
            "next_request": _next_request(state),
        }

    return save_session


def session_updates(state: AdvisorState) -> dict[str, Any]:
    """The session state this turn changed."""
    updates: dict[str, Any] = {
        "pending_slot": state.get("pending_slot"),
        "pending_question": state.get("pending_question"),
        "pending_request": state.get("pending_request") if state.get("pending_question") else None,
        "skipped_slots": state.get("skipped_slots", []),
        "one_price_plan": bool(state.get("one_price_plan")),
        "described_plan": state.get("described_plan"),
        "held_facts": state.get("held_facts") or {},
        **({"declined_through_turn": state.get("turn_count", 0)} if state.get("saving_declined") else {}),
        # a second request waits while we ask what the first one needs ("whens peak today and is it
        # gonna rain" from someone with no ZIP yet), and is answered once that question is
        "queued_request": (state.get("next_request") or state.get("queued_request"))
        if state.get("pending_slot")
        else None,
    }
    facts = state.get("session_facts") or []
    if facts:
        updates["facts"] = [*state.get("prior_facts", []), *facts][-200:]
    if state.get("route") in ("analyzer", "retrieve"):
        # the request this turn answered: what the next message is read against ("and tomorrow?",
        # "why?", "thanks"); only a live answer's parameters carry over to a follow-up
        params = state.get("params")
        live = state.get("route") == "analyzer"
        # a live request explained in general for want of a skipped ZIP stays the live request:
        # "sdge ev-tou-5, 92101" next redoes it with what it lacked
        live = live or bool(state.get("fell_back"))
        if state.get("fell_back") and params is not None:
            params = params.model_copy(update={"duration": None})  # the hours stood in for the plan asked
        updates["last_request"] = {
            "turn": state["turn_count"],
            "intent": "live_data" if live else "knowledge",
            "topic": state.get("topic", "general"),
            "question": str(state.get("message", ""))[:2000],
            "params": params.filled() if params is not None and live else {},
            "passages": [passage_key(doc) for doc in _cited_docs(state)][:10] if not live else [],
        }
        if live:
            updates["last_live_request"] = updates["last_request"]
    if state.get("intent") == "goodbye":
        updates["status"] = "ended"
    if state.get("memorized_through_turn"):
        updates["memorized_through_turn"] = state["memorized_through_turn"]
    return updates


def _next_request(state: AdvisorState) -> str | None:
    """The request to answer right after this turn: the message's own second one, or the one that
    waited for the question this turn's answer resumed; none while a question is open."""
    if state.get("pending_slot"):
        return None
    return state.get("next_request") or (state.get("queued_request") if state.get("resumed") else None)


def _cited_docs(state: AdvisorState) -> list[Any]:
    docs = state.get("retrieved_docs", [])
    return [docs[n - 1] for n in state.get("cited_passages", []) if 0 < n <= len(docs)]


def _answering_node(state: AdvisorState) -> str:
    """The node whose words are the reply (the trace's final output names it)."""
    route = state.get("route")
    if route in ("analyzer", "recommend", "retrieve"):
        return "recommend"
    return state.get("answered_by") or "intake"


def _as_messages(session: Session | None) -> list[BaseMessage]:
    """The thread's raw messages (capped by the repository); recommend trims them to its token
    budget, and older turns live on as profile notes."""
    recent = session.messages if session else []
    return [HumanMessage(m.content) if m.role == "user" else AIMessage(m.content) for m in recent]


def _record_read(user_id: str, profile: UserProfile | None) -> None:
    """Trace the profile read with each section's timestamp (what the staleness grader judges)."""
    trace = current_trace()
    if trace is None:
        return
    results = []
    if profile is not None:
        sections = {
            name: (section.updated_at.isoformat() if section.updated_at else None)
            for name in SECTION_MODELS
            if (section := getattr(profile, name)) is not None
        }
        results = [
            {
                "user_id": user_id,
                "sections": sections,
                "profile": profile.model_dump(mode="json", exclude={"notes", "history"}),
            }
        ]
    trace.memory_read(("profiles", user_id), "profile", results, node="load_session")
