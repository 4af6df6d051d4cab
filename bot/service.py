"""The conversation service: transport-agnostic turns, shared by Slack and the terminal chat.

A turn is: take the session's lock, invoke the advisor graph once (it loads the session, saves
what the user said, answers, and writes the turn back in one session write), save the trace,
notify the listener. Only a failed turn is stored here: the user's message is kept with an apology
that says what was saved before the failure. Turns of one session are serialized (one lock per
session, also taken by memorize runs); different sessions run concurrently. A message with two
requests ("whens peak today and is it gonna rain") is two graph runs under the same lock: the graph
hands back the second as `next_request`, and both answers go out as one reply.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from context_forge.core.trace import TraceRun
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, Field

from advisor.graph import Advisor
from advisor.llm.errors import ModelUnavailableError
from advisor.memorizer import MemorizeResult
from advisor.message import validate_message
from advisor.nodes.intake import EMPTY_REPLY
from advisor.nodes.session import ThreadContext
from advisor.progress import ProgressListener, TurnProgress
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
TraceListener = Callable[[TraceRun], None]


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
    next_request: str | None = None  # a second request in the message, answered as the next turn


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
        on_trace: TraceListener | None = None,
    ) -> None:
        """`traces` stores one trace per turn and memorize run; `labels` names the model per role in
        them; `on_turn` is told after every stored
        turn (the scheduler reschedules idle memorizing); `callbacks` adds per-turn LangChain callbacks
        (e.g. ContextForge's instrumentor) from (user, session, turn); `on_trace` is handed each trace
        once saved (the optional OpenTelemetry export) and must return at once."""
        self._advisor = advisor
        self._traces = traces
        self._labels = labels or {}
        self._offline = offline
        self.on_turn = on_turn
        self._callbacks = callbacks
        self._clock = clock
        self._on_trace = on_trace
        self._locks = KeyedLocks()

    @property
    def sessions(self):
        return self._advisor.sessions

    @property
    def profiles(self):
        return self._advisor.profiles

    @property
    def clock(self) -> Clock:
        return self._clock

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
        progress: ProgressListener | None = None,
    ) -> Reply:
        """One turn. `progress` (optional) is told each step of the graph's work and the answer's
        text as the model writes it (`advisor.progress`); the returned reply is the whole answer."""
        validate_label(user_id)
        validate_key(session_id)
        if validate_message(text).empty:
            return Reply(text=EMPTY_REPLY, session_id=session_id, turn=0, offline=self._offline)
        with self._locks.hold((user_id, session_id)):
            reply, session = self._turn(
                user_id, session_id, text, channel=channel, thread_ts=thread_ts, progress=progress
            )
            if reply.next_request and not reply.failed and reply.asked_for is None:
                # "whens peak today and is it gonna rain": the second request is answered as the
                # next turn, and both answers go out as one reply
                if progress is not None:
                    progress.text("\n\n")
                second, session = self._turn(
                    user_id,
                    session_id,
                    reply.next_request,
                    channel=channel,
                    thread_ts=thread_ts,
                    progress=progress,
                )
                reply = _both(reply, second)
            if not reply.failed:  # a failed turn said its notices already (`_failed`)
                reply = reply.model_copy(update={"text": self._with_notices(user_id, reply.text)})
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
        self,
        user_id: str,
        session_id: str,
        text: str,
        *,
        channel: str | None,
        thread_ts: str | None,
        progress: ProgressListener | None = None,
    ) -> tuple[Reply, Session]:
        """One graph run: the graph loads and saves the session itself (one write). With a listener
        it is streamed (tasks, messages, values with subgraphs) so the listener can follow it and
        the output is the last top-level values; without one it is a plain invoke."""
        before = self._advisor.sessions.load(user_id, session_id)  # the turn's one read of it
        turn = (before.value.turn_count if before.value else 0) + 1
        recorder = self._recorder(user_id, session_id, turn, kind="turn")
        config = self._config(recorder, user_id, session_id, turn)
        config["configurable"] = {"thread_id": session_id}
        context = ThreadContext(user_id=user_id, channel=channel, thread_ts=thread_ts)
        commit = {"user_text": text, "channel": channel, "thread_ts": thread_ts}
        try:
            following = TurnProgress(progress)
            with recording(recorder):
                if progress is None:  # nobody follows the turn: its output is all it needs
                    following.output = self._advisor.graph.invoke(
                        {"message": text, "loaded_session": before}, config=config, context=context
                    )
                else:
                    for namespace, mode, data in self._advisor.graph.stream(
                        {"message": text, "loaded_session": before},
                        config=config,
                        context=context,
                        stream_mode=["tasks", "messages", "values"],
                        subgraphs=True,
                    ):
                        following.feed(namespace, mode, data)
            output = following.output
            if output is None:
                raise RuntimeError("the graph finished without an output")
        except ModelUnavailableError as exc:
            logger.warning("Turn %d of %s: %s", turn, session_id, exc)
            recorder.error(node=exc.role, kind="model_unavailable", message=exc.reason)
            return self._failed(
                user_id, session_id, UNAVAILABLE_REPLY.format(reason=exc.reason), recorder, commit
            )
        except Exception as exc:
            logger.exception("Turn %d of %s failed", turn, session_id)
            recorder.error(node="graph", kind=type(exc).__name__, message=str(exc))
            return self._failed(user_id, session_id, FAILED_REPLY, recorder, commit)
        recorder.final_output(output["text"], node=output.get("answered_by", "recommend"))
        self._save(recorder)
        session: Session = output["session"]
        fields = {key: output[key] for key in Reply.model_fields if key in output}
        reply = Reply(
            **{**fields, "session_id": session_id, "offline": self._offline, "trace_id": recorder.run_id}
        )
        return reply, session

    def _with_notices(self, user_id: str, text: str) -> str:
        """The reply with what the user is owed once (a damaged profile or conversation set aside)
        in front: the graph's remember node puts it in the reply it saves; this says it when the turn
        never got there, and marks it said."""
        owed: list[str] = []
        seen: set[int] = set()
        for repository in (self._advisor.profiles, self._advisor.sessions):
            notices = getattr(repository, "notices", None)
            if notices is None or id(notices.store) in seen:
                continue  # both repositories over one store keep one set of notices: read it once
            seen.add(id(notices.store))
            try:
                owed += [notice for notice in notices.take(user_id) if notice not in owed]
            except Exception:  # a notice is a courtesy: it must never cost the user the answer
                logger.exception("Could not read the notices owed to %s", user_id)
        missing = [notice for notice in owed if notice not in text]
        return "\n\n".join([*missing, text]) if missing else text

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
            trace = recorder.finish()
            saved = self._traces.save(trace)
        except Exception:  # a trace problem must never cost the user their answer
            logger.exception("Could not save trace %s", recorder.run_id)
            return
        if saved is not None and self._on_trace is not None:
            try:
                self._on_trace(trace)
            except Exception:  # the export is a side path: the saved JSON trace is what counts
                logger.warning("Could not hand trace %s to the exporter", recorder.run_id, exc_info=True)

    def _failed(
        self, user_id: str, session_id: str, text: str, recorder: TraceRecorder, commit: dict[str, Any]
    ) -> tuple[Reply, Session]:
        """The user's message is kept (the idle memorizer still reads it). Facts saved before the
        failure are said, so the reply never hides a change it made."""
        before = self._advisor.sessions.load(user_id, session_id)  # the turn's one read of it
        turn = (before.value.turn_count if before.value else 0) + 1
        try:
            saved = describe_saved(_changes_of_turn(self._advisor.profiles.get(user_id), session_id, turn))
        except Exception:  # the apology must go out whatever else is broken
            logger.exception("Could not read what turn %d of %s saved", turn, session_id)
            saved = ""
        text = f"{saved}\n\n{text}" if saved else text
        text = self._with_notices(user_id, text)
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


def _changes_of_turn(profile: UserProfile | None, session_id: str, turn: int) -> list[dict[str, Any]]:
    entries = profile.history if profile else []
    return [
        {"field": e.field, "operation": e.operation, "old_value": e.old_value, "new_value": e.new_value}
        for e in entries
        if e.source.session_id == session_id and e.source.turn == turn and e.operation in ("set", "updated")
    ]


def _both(first: Reply, second: Reply) -> Reply:
    """One reply for a message that asked two things: both answers, what both saved and cited; the
    first turn's number, reading and trace (the thread's title and the feedback buttons follow it)."""
    said = first.text
    ending = second.text.rsplit("\n\n", 1)[-1]
    if said.endswith("\n\n" + ending):  # the closing line both end with ("Offline mode: …") once
        said = said[: -len(ending)].rstrip()
    return first.model_copy(
        update={
            "text": f"{said}\n\n{second.text}",
            "citations": [*first.citations, *(c for c in second.citations if c not in first.citations)],
            "warnings": [*first.warnings, *(w for w in second.warnings if w not in first.warnings)],
            "profile_changes": [*first.profile_changes, *second.profile_changes],
            "memorize_due": first.memorize_due or second.memorize_due,
            "memorized": first.memorized or second.memorized,
            "failed": second.failed,
            "asked_for": second.asked_for,
            "next_request": None,
        }
    )
