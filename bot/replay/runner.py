"""`energy-advisor replay SUITE`: re-run recorded conversations through the current graph and compare.

Per case: a fresh data folder; the profile (and thread) as they were before the first trace; then
every trace in order, through the real conversation service and graph, with the recording served
back for what came from outside — the LLM's answers (roles that were a real model), the tools'
results (the data APIs), the knowledge base's passages and the clock. The offline provider is
deterministic code under test, so roles recorded with it run live. A case fails when the graph asks
for something the recording lacks (the message names the step), when a recorded answer or tool
result is no longer asked for, when a grader's verdict gets worse than recorded (or differs from the
one `expect.yaml` names), or when an expected phrase or profile value does not hold. A changed
answer is shown as a diff; it fails only with `--strict-answers`.

Lives in `bot/` because it builds the whole runtime (advisor graph + conversation service)."""

from __future__ import annotations

import difflib
import tempfile
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field, ValidationError

from advisor.graph import Toolkit, build_advisor
from advisor.llm.factory import ModelSet
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import build_tools
from bot.replay.recording import OFFLINE_MODELS, TurnRecording, canonical, read_recording
from bot.replay.stand_ins import (
    Cassette,
    CheckedOfflineModel,
    RecordedChatModel,
    RecordedRetriever,
    RecordedTool,
    ReplayClock,
)
from bot.replay.suite import CaseFiles, SuiteError, find_cases, load_trace_file, read_case
from bot.service import ConversationService
from config.clock import as_utc
from config.files import AgentsConfig, AppConfig, ToolsConfig
from config.settings import Settings
from profiles.json_store import JsonFileStore
from profiles.models import UserProfile
from traces.graders import grade_trace, memorize_runs_beside
from traces.storage import TraceStore, load_trace

ROLES = ("understanding", "analyzer", "recommend", "memorizer")
_RANK = {"PASS": 0, "WARN": 1, "FAIL": 2}


class TurnOutcome(BaseModel):
    index: int  # position among the case's traces (1-based)
    kind: str
    recorded_run: str
    message: str | None = None
    recorded_answer: str | None = None
    answer: str | None = None
    verdicts: dict[str, tuple[str, str]] = Field(default_factory=dict)  # grader -> (recorded, replayed)
    problems: list[str] = Field(default_factory=list)

    @property
    def changed(self) -> bool:
        return (self.recorded_answer or "").strip() != (self.answer or "").strip()

    def diff(self, width: int = 12) -> list[str]:
        lines = difflib.unified_diff(
            (self.recorded_answer or "").splitlines(),
            (self.answer or "").splitlines(),
            "recorded",
            "now",
            lineterm="",
            n=0,
        )
        return [line for line in lines if not line.startswith(("---", "+++", "@@"))][:width]


class CaseOutcome(BaseModel):
    name: str
    turns: list[TurnOutcome] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)  # case-level (profile, unreadable files)
    error: str | None = None  # the case could not be replayed at all

    @property
    def passed(self) -> bool:
        return self.error is None and not self.problems and not any(turn.problems for turn in self.turns)


@dataclass
class _Replay:
    """The runtime one case replays through."""

    cassette: Cassette
    service: ConversationService
    traces: TraceStore
    config: AppConfig
    http: httpx.Client
    seen: set[Path] = field(default_factory=set)


def replay_suite(suite: Path, config: AppConfig, *, strict_answers: bool = False) -> list[CaseOutcome]:
    return [replay_case(folder, config, strict_answers=strict_answers) for folder in find_cases(suite)]


def replay_case(folder: Path, config: AppConfig, *, strict_answers: bool = False) -> CaseOutcome:
    try:
        case = read_case(folder)
        recordings = [(path, load_trace_file(path)) for path in case.traces]
        recordings.sort(
            key=lambda item: (as_utc(item[1].started_at), item[0].name)
        )  # a thread folder's order
        readings = [read_recording(trace) for _, trace in recordings]
        _check_case(case, readings)
        if case.expectations.agents:
            config = _with_agents(config, case.expectations.agents)
    except SuiteError as exc:
        return CaseOutcome(name=folder.name, error=str(exc))
    except ValidationError as exc:
        return CaseOutcome(
            name=folder.name, error=f"{folder / 'expect.yaml'}: agents: {exc.errors()[0]['msg']}"
        )
    outcome = CaseOutcome(name=case.name)
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        replay = None
        try:
            replay = _build(Path(tmp), readings, case, config)
            _seed(replay, case, readings)
        except Exception as exc:  # a profile or thread the replay cannot set up: this case only
            if replay is not None:
                replay.http.close()
            return CaseOutcome(
                name=case.name, error=f"{folder}: cannot set the case up ({type(exc).__name__}: {exc})"
            )
        try:
            written_files = []
            for index, reading in enumerate(readings, start=1):
                turn, written = _replay_one(replay, index, reading)
                outcome.turns.append(turn)
                written_files.append(written)
            # graded once every trace is replayed, so a turn sees the memorize runs that came after it
            turn_index = 0
            for recorded_file, reading, turn, written in zip(
                recordings, readings, outcome.turns, written_files, strict=True
            ):
                if reading.kind == "turn":
                    turn_index += 1
                if written is not None:
                    turn.verdicts = _verdicts(recorded_file, written, replay.config)
                _check(turn, case, turn_index if reading.kind == "turn" else None, strict_answers)
            outcome.problems.extend(_check_profile(replay, case, readings))
        finally:
            replay.http.close()
    return outcome


def _check_case(case: CaseFiles, readings: list[TurnRecording]) -> None:
    """What a replay cannot set up, said as an error of this case (exit 2), not as a regression."""
    if not readings:
        raise SuiteError(f"{case.folder}: no traces")
    users = {reading.user_id for reading in readings}
    if len(users) != 1:
        raise SuiteError(
            f"{case.folder}: traces of {len(users)} users ({', '.join(sorted(users))}); a case is one user's"
        )
    threads = {reading.session_id for reading in readings}
    if len(threads) != 1:
        raise SuiteError(f"{case.folder}: traces of {len(threads)} threads; a case is one thread")
    if readings[0].kind == "memorize" and not case.conversation:
        raise SuiteError(
            f"{case.folder}: the first trace is a memorize run, which needs the thread's turns before it "
            "(add those traces, or conversation.json)"
        )
    turns = sum(reading.kind == "turn" for reading in readings)
    outside = sorted(number for number in case.expectations.turns if not 1 <= number <= turns)
    if outside:
        raise SuiteError(
            f"{case.folder / 'expect.yaml'}: turns {outside} do not exist (the case has {turns})"
        )
    unknown = [path for path in case.expectations.profile if not _profile_path(path)]
    if unknown:
        raise SuiteError(f"{case.folder / 'expect.yaml'}: no such profile field: {', '.join(unknown)}")


def _profile_path(path: str) -> bool:
    model: Any = UserProfile
    for part in path.split("."):
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return False
        annotation = fields[part].annotation
        model = next((arg for arg in typing.get_args(annotation) if hasattr(arg, "model_fields")), annotation)
    return True


def _with_agents(config: AppConfig, override: dict[str, Any]) -> AppConfig:
    merged = config.agents.model_dump()
    for role, values in override.items():
        merged[role] = {**merged.get(role, {}), **values} if isinstance(values, dict) else values
    return config.model_copy(update={"agents": AgentsConfig.model_validate(merged)})


def _build(root: Path, readings: list[TurnRecording], case: CaseFiles, config: AppConfig) -> _Replay:
    cassette = Cassette()
    clock = ReplayClock(cassette)
    recorded = {role: _recorded_model(readings, role) for role in ROLES}
    models: dict[str, Any] = {}
    for role in ROLES:
        if recorded[role]:
            models[role] = RecordedChatModel(
                role=role, cassette=cassette, model_name=f"replay:{recorded[role]}", tags=[f"role:{role}"]
            )
        elif role != "understanding":  # the deterministic stand-in runs live; its prompts are still checked
            models[role] = CheckedOfflineModel(role=role, cassette=cassette, tags=[f"role:{role}"])
    labels = {role: (f"replay:{recorded[role]}" if recorded[role] else "offline") for role in ROLES}
    model_set = ModelSet(
        analyzer=models["analyzer"],
        recommend=models["recommend"],
        memorizer=models["memorizer"],
        understanding=models.get("understanding"),
        labels=labels,
    )
    tools_config = ToolsConfig.model_validate({**config.tools.model_dump(), "mode": "mock"})
    http = httpx.Client()
    data = build_data_sources(Settings(_env_file=None, data_dir=root), tools_config, http, clock=clock)
    served = [RecordedTool.like(tool, cassette) for tool in build_tools(data)]
    knowledge = case.expectations.knowledge
    if knowledge is None:
        knowledge = any(reading.retrievals for reading in readings)
    advisor = build_advisor(
        models=model_set,
        tools=Toolkit(tools=served, data=data),  # type: ignore[arg-type]
        store=JsonFileStore(root / "memory", clock=clock),
        config=config,
        retriever=RecordedRetriever(cassette) if knowledge else None,
        clock=clock,
    )
    traces = TraceStore(root / "traces")
    service = ConversationService(
        advisor=advisor, traces=traces, labels=labels, offline=model_set.offline, clock=clock
    )
    return _Replay(cassette=cassette, service=service, traces=traces, config=config, http=http)


def _recorded_model(readings: list[TurnRecording], role: str) -> str | None:
    """The recorded model of a role when it was a real LLM (its answers are served back)."""
    for reading in readings:
        model = reading.models.get(role)
        if model and model not in OFFLINE_MODELS:
            return model
    return None


def _seed(replay: _Replay, case: CaseFiles, readings: list[TurnRecording]) -> None:
    first = next(
        (reading for reading in readings if reading.kind == "turn"), readings[0] if readings else None
    )
    if first is None:
        return
    replay.cassette.load(first)
    profile = case.profile if case.profile is not None else first.profile
    if profile is not None:
        replay.service.profiles.import_profile({**profile, "user_id": first.user_id})
    before = [m for m in case.conversation if first.turn is None or int(m.get("turn", 0)) < first.turn]
    if before:  # what those turns held was handled before the recorded turn: imported as memorized
        replay.service.sessions.import_messages(
            first.user_id,
            first.session_id,
            [
                (m["role"], str(m.get("content", "")))
                for m in before
                if m.get("role") in ("user", "assistant")
            ],
        )


def _replay_one(replay: _Replay, index: int, reading: TurnRecording) -> tuple[TurnOutcome, Path | None]:
    cassette = replay.cassette
    cassette.load(reading)
    before = len(cassette.divergences)
    turn = TurnOutcome(
        index=index,
        kind=reading.kind,
        recorded_run=reading.run_id,
        message=reading.message,
        recorded_answer=reading.answer,
    )
    try:
        if reading.kind == "memorize":
            replay.service.memorize(reading.user_id, reading.session_id)
        else:
            replay.service.handle_turn(reading.user_id, reading.session_id, reading.message or "")
    except Exception as exc:  # a crash of the current code is a finding, not the end of the suite
        turn.problems.append(f"the replay raised {type(exc).__name__}: {exc}")
    turn.problems.extend(cassette.divergences[before:])
    turn.problems.extend(_unused(reading, cassette))
    new = _new_trace(replay)
    if new is None:
        turn.problems.append("the replay wrote no trace")
    else:
        replay.seen.add(new)
        turn.answer = _answer(new)
    return turn, new


def _unused(reading: TurnRecording, cassette: Cassette) -> list[str]:
    """What the recording holds that the graph no longer asked for: model calls, tool calls and
    knowledge-base searches."""
    where = f"turn {reading.turn} (trace {reading.run_id})"
    calls = [call for queue in reading.calls.values() for call in queue]
    return (
        [
            f"{where}: the graph no longer asks the {call.role} model what it asked at step {call.step_id}"
            for call in calls
        ]
        + [
            f"{where}: the graph no longer calls {tool.name} {canonical(tool.arguments)} (step {tool.step_id})"
            for tool in cassette.unused_tools()
        ]
        + [
            f"{where}: the graph no longer searches the knowledge base for {found.query!r} (step {found.step_id})"
            for found in cassette.unused_retrievals()
        ]
    )


def _new_trace(replay: _Replay) -> Path | None:
    files = [path for path in (replay.traces.root).glob("*/*/*.json") if path not in replay.seen]
    return max(files, key=lambda path: path.stat().st_mtime_ns) if files else None


def _answer(path: Path) -> str | None:
    return read_recording(load_trace(path)).answer


def _verdicts(recorded: tuple[Path, Any], written: Path, config: AppConfig) -> dict[str, tuple[str, str]]:
    """Both traces graded with their own thread's memorize runs beside them."""
    path, trace = recorded
    before = {
        grade.grader_name: grade.verdict.value
        for grade in grade_trace(trace, config.eval, memorize_runs_beside(path))
    }
    now = {
        grade.grader_name: grade.verdict.value
        for grade in grade_trace(load_trace(written), config.eval, memorize_runs_beside(written))
    }
    recorded = before
    return {name: (recorded.get(name, "-"), verdict) for name, verdict in now.items()}


def _check(turn: TurnOutcome, case: CaseFiles, turn_index: int | None, strict_answers: bool) -> None:
    expected = case.expectations.turns.get(turn_index) if turn_index is not None else None
    explicit = expected.verdicts if expected else {}
    for grader, (recorded, now) in turn.verdicts.items():
        if grader in explicit:
            if now != explicit[grader]:
                turn.problems.append(f"{grader} is {now}, expected {explicit[grader]}")
        elif recorded in _RANK and _RANK[now] > _RANK[recorded]:
            turn.problems.append(f"{grader} got worse: {recorded} when recorded, {now} now")
    for grader in explicit.keys() - turn.verdicts.keys():
        turn.problems.append(f"{grader}: no such grader ran")
    answer = (turn.answer or "").lower()
    if expected:
        turn.problems.extend(f"the answer lacks {p!r}" for p in expected.contains if p.lower() not in answer)
        turn.problems.extend(f"the answer says {p!r}" for p in expected.not_contains if p.lower() in answer)
    if strict_answers and turn.changed:
        turn.problems.append("the answer changed (--strict-answers)")


def _check_profile(replay: _Replay, case: CaseFiles, readings: list[TurnRecording]) -> list[str]:
    if not case.expectations.profile or not readings:
        return []
    profile = replay.service.profiles.get(readings[0].user_id)
    data = profile.model_dump(mode="json") if profile is not None else {}
    problems = []
    for path, wanted in case.expectations.profile.items():
        value: Any = data
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value != wanted:
            problems.append(f"profile {path} is {value!r}, expected {wanted!r}")
    return problems


def render(outcomes: list[CaseOutcome], *, show_diffs: bool = True) -> str:
    lines = []
    for case in outcomes:
        mark = "PASS" if case.passed else ("ERROR" if case.error else "FAIL")
        changed = sum(turn.changed for turn in case.turns)
        lines.append(
            f"{mark:5} {case.name} ({len(case.turns)} trace(s)"
            + (f", {changed} answer(s) changed" if changed else "")
            + ")"
        )
        if case.error:
            lines.append(f"      {case.error}")
        for turn in case.turns:
            said = f"{turn.index}. {turn.kind}" + (f" {turn.message[:60]!r}" if turn.message else "")
            for problem in turn.problems:
                lines.append(f"      {said}: {problem}")
            if show_diffs and turn.changed:
                lines.append(f"      {said}: answer changed")
                lines.extend(f"        {line[:160]}" for line in turn.diff())
        lines.extend(f"      {problem}" for problem in case.problems)
    passed = sum(case.passed for case in outcomes)
    lines.append(f"{passed} of {len(outcomes)} case(s) passed")
    return "\n".join(lines)


def exit_code(outcomes: list[CaseOutcome]) -> int:
    if any(case.error for case in outcomes):
        return 2
    return 0 if all(case.passed for case in outcomes) else 1


__all__ = ["CaseOutcome", "SuiteError", "TurnOutcome", "exit_code", "render", "replay_case", "replay_suite"]
