"""A replay suite on disk: a folder of cases, each a folder of recorded traces plus expectations.

```
SUITE/<case>/
    traces/*.json     the conversation's traces (turns and memorize runs), replayed in the order they started
    trace.json        or one trace (a 👎 feedback case from Slack is exactly this layout)
    expect.yaml       optional: what must hold after the replay (`Expectations`)
    profile.json      optional: the profile before the first trace (default: as the first turn read it)
    conversation.json optional: the thread's messages before the first trace (feedback cases)
    case.json         optional: a feedback case's record (kept as provenance)
```

A case without `expect.yaml` still checks that the graph asks nothing new and that no grader's
verdict got worse than the recorded one; so copying a feedback case folder into the suite is enough
to make a user's report a regression test, and adding `expect.yaml` says what the fix must keep."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from traces.loading import TraceProblem, parse_trace

VerdictName = Literal["PASS", "WARN", "FAIL"]


class TurnExpectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    contains: list[str] = Field(default_factory=list)  # phrases the answer must include (case-insensitive)
    not_contains: list[str] = Field(default_factory=list)  # phrases it must not include
    verdicts: dict[str, VerdictName] = Field(default_factory=dict)  # grader -> exact verdict


class Expectations(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = ""  # what the case checks and where its traces came from
    turns: dict[int, TurnExpectation] = Field(default_factory=dict)  # 1 = the case's first turn trace
    # Profile fields after the last trace, by dotted path ("location.zip_code"); null = must be unset.
    profile: dict[str, Any] = Field(default_factory=dict)
    knowledge: bool | None = None  # serve recorded passages (default: when the recording has any)
    # config/agents.yaml values the case was recorded with, where they differ (e.g. a history budget).
    agents: dict[str, Any] = Field(default_factory=dict)


class CaseFiles(BaseModel):
    name: str
    folder: Path
    traces: list[Path]
    expectations: Expectations
    profile: dict[str, Any] | None = None
    conversation: list[dict[str, Any]] = Field(default_factory=list)


class SuiteError(Exception):
    """A case folder that cannot be replayed; the message says which file and why."""


def find_cases(suite: Path) -> list[Path]:
    """The case folders of a suite (or the suite itself when it is one case)."""
    if not suite.is_dir():
        raise SuiteError(f"{suite}: not a folder")
    if _is_case(suite):
        return [suite]
    cases = sorted(path for path in suite.iterdir() if path.is_dir() and _is_case(path))
    if not cases:
        raise SuiteError(f"{suite}: no case folders (a case holds traces/*.json or trace.json)")
    return cases


def _is_case(folder: Path) -> bool:
    return (folder / "trace.json").is_file() or any((folder / "traces").glob("*.json"))


def read_case(folder: Path) -> CaseFiles:
    traces = sorted((folder / "traces").glob("*.json")) if (folder / "traces").is_dir() else []
    if (folder / "trace.json").is_file():
        traces = [folder / "trace.json", *traces]
    expectations = Expectations()
    if (folder / "expect.yaml").is_file():
        try:
            expectations = Expectations.model_validate(
                yaml.safe_load((folder / "expect.yaml").read_text("utf-8")) or {}
            )
        except (yaml.YAMLError, ValidationError) as exc:
            raise SuiteError(f"{folder / 'expect.yaml'}: {_first_line(exc)}") from exc
    profile = _json_file(folder / "profile.json")
    conversation = _json_file(folder / "conversation.json") or []
    if profile is not None and not isinstance(profile, dict):
        raise SuiteError(f"{folder / 'profile.json'}: not a profile object")
    if not isinstance(conversation, list) or not all(_message(item) for item in conversation):
        raise SuiteError(
            f"{folder / 'conversation.json'}: not a list of messages "
            '({"role": "user" or "assistant", "content": text, "turn": number})'
        )
    return CaseFiles(
        name=folder.name,
        folder=folder,
        traces=traces,
        expectations=expectations,
        profile=profile,
        conversation=conversation,
    )


def _message(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("role") in ("user", "assistant")
        and isinstance(item.get("content"), str)
        and isinstance(item.get("turn", 0), int)
    )


def load_trace_file(path: Path):
    try:
        return parse_trace(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, TraceProblem) as exc:
        raise SuiteError(f"{path}: {_first_line(exc)}") from exc


def _json_file(path: Path) -> Any:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SuiteError(f"{path}: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
