"""Users' verdicts on answers: a log, a step on the turn's trace, and regression cases.

Layout under `DATA_DIR/feedback/`:

```
log.jsonl                  one `FeedbackRecord` per click or reason, appended (the full history)
cases/<trace id>/          a thumbs-down turn, kept so it can be replayed and graded later:
    trace.json             the turn's trace (with the feedback step)
    traces/                the thread's earlier traces (turns and memorize runs), so a replay
                           rebuilds the thread as it was before the rated turn
    conversation.json      the session's messages up to and including that turn
    profile.json           the profile as the turn read it (or the current one; case.json says which)
    case.json              verdict, reason, user, trace id, turn, times, and where each file came from
```

The trace file itself gets one `state_change` step with `state_key` "user_feedback" (ContextForge has
no feedback step type; `interrupt` means the agent paused for a human, which is not what happened).
It is replaced, not appended, on each change, so clicking back and forth never grows the trace; the
log keeps every click. The trace keeps its modification time, so `/energy-eval` with no argument
still grades the user's latest *answer*, not the one they last rated.

A trace is found only among the user's own (`TraceStore.find`), so nobody can rate someone else's
answer. Like the other stores, nothing is read or written through a link that leads out of the
feedback folder (WARNING, and the write is skipped); writes are atomic and, per trace, serialized
across threads and processes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from context_forge.core.trace import FinalOutputStep, MemoryReadStep, StateChangeStep, TraceRun, UserInputStep
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from config.clock import Clock, utc_now
from config.ids import InvalidIdError, validate_label
from profiles.json_store import outside_root, remove_stale_temp_files
from profiles.locks import KeyedLocks
from traces.loading import TraceProblem, parse_trace
from traces.storage import TraceFileError, TraceStore, dump_trace, load_trace

logger = logging.getLogger(__name__)

Verdict = Literal["good", "bad"]
FEEDBACK_KEY = "user_feedback"
FEEDBACK_STEP_ID = "feedback-001"
MAX_REASON = 300  # characters: "one line"
_SPACES = re.compile(r"\s+")
_SURROGATE = re.compile("[\ud800-\udfff]")


class FeedbackRecord(BaseModel):
    """One line of `log.jsonl`: a click (reason None) or a submitted reason."""

    model_config = ConfigDict(extra="forbid")

    user: str
    trace_id: str
    verdict: Verdict
    reason: str | None = Field(None, max_length=MAX_REASON)
    at: AwareDatetime


class CaseInfo(BaseModel):
    """`case.json`: what a replay needs to know besides the three data files."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    user: str
    session_id: str
    turn: int
    verdict: Verdict
    reason: str | None = None
    question: str | None = None
    answer: str | None = None
    created_at: AwareDatetime
    updated_at: AwareDatetime
    profile_source: Literal["trace", "current", "none"]
    provenance: dict[str, str]


class SessionSource(Protocol):
    """`profiles.sessions.SessionRepository`, passed in (traces do not import profiles' repositories)."""

    def get(self, user_id: str, session_id: str) -> Any: ...


class ProfileSource(Protocol):
    """`profiles.repository.ProfileRepository`."""

    def get(self, user_id: str) -> Any: ...


def one_line(text: str | None) -> str | None:
    """A reason as one printable line of at most `MAX_REASON` characters; None when empty."""
    if text is None:
        return None
    line = _SPACES.sub(" ", _SURROGATE.sub("\ufffd", text)).strip()
    if not line:
        return None
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 1] + "…"


class FeedbackStore:
    def __init__(
        self,
        root: Path,
        *,
        traces: TraceStore,
        sessions: SessionSource,
        profiles: ProfileSource,
        clock: Clock = utc_now,
    ) -> None:
        """`root` is `DATA_DIR/feedback`; the others are the running app's stores."""
        self.root = Path(root)
        self._traces = traces
        self._sessions = sessions
        self._profiles = profiles
        self._clock = clock
        self._locks = KeyedLocks(self.root / ".locks", inside=self.root)
        remove_stale_temp_files(self.root)

    @property
    def log_path(self) -> Path:
        return self.root / "log.jsonl"

    def case_dir(self, trace_id: str) -> Path:
        return self.root / "cases" / trace_id

    # --- API -------------------------------------------------------------------------------

    def record(
        self, user_id: str, trace_id: str, verdict: Verdict, reason: str | None = None
    ) -> FeedbackRecord | None:
        """Record a verdict (and optional reason) on one of the user's traces. None, and nothing
        stored, when the trace is not theirs (or not found). A reason given with a thumbs-down is
        kept when the user clicks thumbs-down again; a thumbs-up clears it."""
        if verdict not in ("good", "bad"):
            raise ValueError(f"verdict must be 'good' or 'bad', not {verdict!r}")
        path = self._find(user_id, trace_id)
        if path is None:
            return None
        with self._locks.hold((trace_id,)):
            try:
                trace: TraceRun | None = load_trace(path)
            except TraceFileError as exc:
                logger.warning("Feedback on trace %s is kept in the log only: %s", trace_id, exc.reason)
                trace = None
            previous = _feedback_step(trace) if trace is not None else None
            if reason is None and previous is not None and previous.new_value.get("verdict") == verdict:
                reason = previous.new_value.get("reason")
            entry = FeedbackRecord(
                user=user_id, trace_id=trace_id, verdict=verdict, reason=one_line(reason), at=self._clock()
            )
            self._append_log(entry)  # an OSError here reaches the caller: nothing was kept
            if trace is None:
                return entry
            try:
                trace = _with_feedback(trace, entry, previous)
                self._rewrite_trace(path, trace)
                if verdict == "bad" or self._case_exists(trace_id):
                    self._write_case(trace, entry)
            except (OSError, TraceProblem) as exc:  # the log has it; say what is missing
                logger.warning(
                    "Feedback on trace %s is in the log, but not fully on the trace or case: %s",
                    trace_id,
                    exc,
                )
        return entry

    def belongs(self, user_id: str, trace_id: str) -> bool:
        """Whether `trace_id` is one of this user's traces (Slack checks before opening a modal)."""
        return self._find(user_id, trace_id) is not None

    def feedback_for(self, user_id: str, trace_id: str) -> FeedbackRecord | None:
        """The user's latest verdict and reason on their trace, or None (not rated, or not theirs)."""
        path = self._find(user_id, trace_id)
        if path is None:
            return None
        try:
            step = _feedback_step(load_trace(path))
        except TraceFileError:
            return None
        if step is None:
            return None
        try:
            return FeedbackRecord(user=user_id, trace_id=trace_id, **step.new_value)
        except (TypeError, ValidationError):
            return None  # a hand-edited step we cannot read is "not rated", never a crash

    # --- internals -------------------------------------------------------------------------

    def _find(self, user_id: str, trace_id: str) -> Path | None:
        try:
            validate_label(user_id)
        except InvalidIdError:
            return None
        return self._traces.find(user_id, trace_id) if isinstance(trace_id, str) else None

    def _case_exists(self, trace_id: str) -> bool:
        try:
            return self._inside(self.case_dir(trace_id) / "case.json").exists()
        except _Refused:
            return False

    def _inside(self, path: Path) -> Path:
        """`path`, if it stays inside the feedback folder; otherwise raises `_Refused` (logged)."""
        escape = outside_root(Path(os.path.realpath(self.root)), path, name="the feedback folder")
        if escape is not None:
            logger.warning("Refused to use %s for feedback: %s; nothing was saved there.", path, escape)
            raise _Refused(escape)
        return path

    def _append_log(self, entry: FeedbackRecord) -> None:
        """One line per record, in one `write` on an O_APPEND file, under a lock shared by processes."""
        try:
            path = self._inside(self.log_path)
        except _Refused:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        line = (entry.model_dump_json() + "\n").encode("utf-8")
        with self._locks.hold(("log",)):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)

    def _rewrite_trace(self, path: Path, trace: TraceRun) -> None:
        """Atomic, checked to read back, and with the file's old modification time."""
        text = dump_trace(trace)
        parse_trace(text)  # what we write must grade (raises TraceProblem otherwise)
        stat = path.stat()
        _atomic_write(path, text, times=(stat.st_atime_ns, stat.st_mtime_ns))

    def _write_case(self, trace: TraceRun, entry: FeedbackRecord) -> None:
        folder = self.case_dir(entry.trace_id)
        try:
            files = {
                name: self._inside(folder / name)
                for name in ("trace.json", "conversation.json", "profile.json", "case.json")
            }
        except _Refused:
            return
        folder.mkdir(parents=True, exist_ok=True)
        now = self._clock()
        existing = _read_case(files["case.json"])
        if existing is None:
            metadata = trace.metadata or {}
            session_id, turn = str(metadata.get("session_id", "")), int(metadata.get("turn", 0))
            conversation, said_conversation = self._conversation(entry.user, session_id, turn)
            profile, source, said_profile = self._profile(entry.user, trace, now)
            said_earlier = self._copy_earlier_traces(entry.user, session_id, trace, folder)
            _atomic_write(files["conversation.json"], _json(conversation))
            _atomic_write(files["profile.json"], _json(profile))
            existing = CaseInfo(
                trace_id=entry.trace_id,
                user=entry.user,
                session_id=session_id,
                turn=turn,
                verdict=entry.verdict,
                question=_first(trace, UserInputStep),
                answer=_first(trace, FinalOutputStep),
                created_at=now,
                updated_at=now,
                profile_source=source,
                provenance={
                    "trace": f"the stored trace of turn {turn}, copied with the user's feedback step",
                    "conversation": said_conversation,
                    "profile": said_profile,
                    "earlier_traces": said_earlier,
                },
            )
        case = existing.model_copy(
            update={"verdict": entry.verdict, "reason": entry.reason, "updated_at": now}
        )
        _atomic_write(files["trace.json"], dump_trace(trace))
        _atomic_write(files["case.json"], case.model_dump_json(indent=2) + "\n")

    def _copy_earlier_traces(self, user_id: str, session_id: str, trace: TraceRun, folder: Path) -> str:
        """The thread's earlier traces (turns and memorize runs) into `traces/`, so a replay rebuilds
        the thread as it was — its pending question and last request too, which the messages alone
        do not carry ("what about by 6am instead?" needs the question before it)."""
        started = trace.started_at
        earlier = []
        for path in self._traces.list_for_user(user_id):
            if path.parent.name != session_id:
                continue
            try:
                other = load_trace(path)
            except (TraceFileError, TraceProblem, ValueError):
                continue
            if other.run_id != trace.run_id and other.started_at < started:
                earlier.append((other.started_at, other))
        if not earlier:
            return "none: the rated turn is the thread's first"
        try:
            target = self._inside(folder / "traces")
        except _Refused:
            return "not copied: the case folder refused them"
        target.mkdir(parents=True, exist_ok=True)
        for number, (_, other) in enumerate(sorted(earlier, key=lambda item: item[0]), start=1):
            _atomic_write(target / f"{number:04d}-{other.run_id}.json", dump_trace(other))
        return f"{len(earlier)} earlier trace(s) of thread {session_id}, copied from the trace store"

    def _conversation(self, user_id: str, session_id: str, turn: int) -> tuple[list[dict[str, Any]], str]:
        try:
            session = self._sessions.get(user_id, session_id)
        except Exception as exc:  # a broken session must not cost the case its other files
            logger.warning("Feedback case: session %s of %s unreadable: %s", session_id, user_id, exc)
            session = None
        if session is None:
            return [], f"session {session_id} could not be read: no messages"
        messages = [m.model_dump(mode="json") for m in session.messages if m.turn <= turn]
        said = f"session {session_id}: {len(messages)} message(s) of turns 1..{turn}"
        if messages and messages[0]["turn"] > 1:
            said += f"; turns before {messages[0]['turn']} were already dropped from the stored session (it is capped)"
        if not any(m["turn"] == turn for m in messages):
            said += f"; turn {turn} itself is not in the stored session"
        return messages, said

    def _profile(
        self, user_id: str, trace: TraceRun, now: datetime
    ) -> tuple[Any, Literal["trace", "current", "none"], str]:
        """The profile the turn read (its memory_read step), else the current one, said as such."""
        for step in trace.steps:
            if isinstance(step, MemoryReadStep) and step.query == {
                "namespace": ["profiles", user_id],
                "key": "profile",
            }:
                first = step.results[0] if step.results else None
                if first is None:
                    return (
                        None,
                        "none",
                        f"the user had no profile when the turn read it (trace step {step.step_id})",
                    )
                if isinstance(first, dict) and isinstance(first.get("profile"), dict):
                    return (
                        first["profile"],
                        "trace",
                        f"as the turn read it (trace step {step.step_id}), before this turn's own changes; "
                        "notes and change history are not in the trace",
                    )
        try:
            current = self._profiles.get(user_id)
        except Exception as exc:
            logger.warning("Feedback case: profile of %s unreadable: %s", user_id, exc)
            current = None
        data = current.model_dump(mode="json") if current is not None else None
        return (
            data,
            "current",
            f"the trace holds no profile read, so this is the CURRENT profile at {now.isoformat()}, "
            "which may differ from what the turn used",
        )


class _Refused(Exception):
    """A path that leads out of the feedback folder through a link."""


def _feedback_step(trace: TraceRun) -> StateChangeStep | None:
    step = next(
        (s for s in trace.steps if isinstance(s, StateChangeStep) and s.state_key == FEEDBACK_KEY), None
    )
    return step if step is not None and isinstance(step.new_value, dict) else None


def _with_feedback(trace: TraceRun, entry: FeedbackRecord, previous: StateChangeStep | None) -> TraceRun:
    """The trace with its one feedback step replaced (or added at the end)."""
    value = entry.model_dump(mode="json", include={"verdict", "reason", "at"})
    taken = {s.step_id for s in trace.steps}
    step_id = previous.step_id if previous is not None else FEEDBACK_STEP_ID
    counter = 1
    while previous is None and step_id in taken:
        counter += 1
        step_id = f"feedback-{counter:03d}"
    step = StateChangeStep(
        step_id=step_id,
        timestamp=entry.at,
        metadata={"node": "slack_feedback", "user_id": entry.user},
        state_key=FEEDBACK_KEY,
        old_value=previous.new_value if previous is not None else None,
        new_value=value,
        reason="the user rated this answer" + (" and said why" if entry.reason else ""),
    )
    steps = [s for s in trace.steps if s is not previous] + [step]
    return trace.model_copy(update={"steps": steps})


def _first(trace: TraceRun, kind: type) -> str | None:
    step = next((s for s in trace.steps if isinstance(s, kind)), None)
    content = getattr(step, "content", None)
    return content if isinstance(content, str) else None


def _read_case(path: Path) -> CaseInfo | None:
    try:
        return CaseInfo.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("Feedback case %s unreadable (%s): written again", path, exc)
        return None


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _atomic_write(path: Path, text: str, *, times: tuple[int, int] | None = None) -> None:
    """Temp file in the same folder, fsync, rename (the temp name is one `remove_stale_temp_files` knows)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if times is not None:
            os.utime(tmp, ns=times)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
