"""A trace file's text → ContextForge `TraceRun`, in linear time, refusing values the graders cannot
handle with one short reason (`TraceProblem`). `traces.storage.load_trace` reads the file and calls
`parse_trace`; `traces.evaluate` reports a refused file as an error entry and grades the others.

Why not `TraceRun.model_validate(data)`: its `model_validator` `validate_steps` (contextforge-eval
0.1.2, `context_forge/core/trace.py`) finds duplicate step ids with `step_ids.count(sid)` for every
step, which is quadratic (10 000 steps took 1.1 s, 20 000 steps 4.9 s, 100 000 steps 14 minutes),
its error message lists every duplicate (over 100 KB for a file of copied steps), and its
`ended_at < started_at` comparison raises a bare `TypeError` (not a validation error) when one of the
two times is naive. So `parse_trace`

1. parses the JSON itself: numbers beyond a double's range (`10**400` has 401 digits), `NaN` and
   `Infinity`, and nesting deeper than `MAX_DEPTH` are refused (`'[' * 200_000` makes `json.loads`
   raise `RecursionError`, which is caught);
2. validates every field with `_TraceRunFields`: TraceRun's own field definitions (the same step
   models, discriminated by `step_type`) *without* its model validator;
3. runs the model validator's two checks itself — unique step ids with a set, `ended_at` not before
   `started_at` — and also requires timezone-aware times that convert to UTC, and the shapes the
   graders rely on (`check_values`);
4. builds the `TraceRun` with `model_construct`, which runs no validation: the result is a real
   `TraceRun` holding the values step 2 validated, exactly what `model_validate` would have built.

All of it with the cyclic garbage collector paused (`_collector_paused`). Measured on traces made of
a sample's steps with new ids (67 MB for 100 000 steps), medians: 10 000 / 20 000 / 100 000 steps
took 1.14 s / 4.91 s / 824 s (one run) before, and take 0.16 s / 0.37 s / 1.73 s now: twice the
steps, 2.3x the time. `tests/hostile/test_evaluate.py` checks the ratios, never absolute times.

If ContextForge's validator gains a check, add it to `check_values` (a test compares both paths on
the sample traces).
"""

from __future__ import annotations

import gc
import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from context_forge.core.trace import MemoryReadStep, StateChangeStep, TraceRun
from pydantic import ValidationError, create_model

MAX_DEPTH = 100  # JSON nesting; a real trace nests fewer than 10 levels
MAX_REASON = 200  # characters in one reason
MAX_NUMBER_DIGITS = 309  # a double's range ends near 1.8e308
_SHOWN_IDS = 3


class TraceProblem(ValueError):
    """The file is not a trace we can grade; `reason` is one short line."""

    def __init__(self, reason: str) -> None:
        self.reason = clip(reason)
        super().__init__(self.reason)


def clip(text: str, limit: int = MAX_REASON) -> str:
    """One printable line of at most `limit` characters (control characters and lone surrogates,
    e.g. from a file name that is not UTF-8, become '?')."""
    line = " ".join("".join(c if c.isprintable() or c.isspace() else "?" for c in str(text)).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


_TraceRunFields = create_model(
    "_TraceRunFields",
    __config__=TraceRun.model_config,
    **{name: (field.annotation, field) for name, field in TraceRun.model_fields.items()},
)


def parse_trace(text: str) -> TraceRun:
    with _collector_paused():
        return _parse_trace(text)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Every object built while loading survives, so the cyclic garbage collector's passes over
    them find nothing; they cost up to 40 % of the loading time and make it jump at the collector's
    thresholds (100 000 steps: 2.6 s with them, 1.5 s without). JSON parsing and pydantic validation
    create no reference cycles. The switch is process-wide (other threads' cycles wait for the next
    collection, a second or two at most); it is switched back on only if it was on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse_trace(text: str) -> TraceRun:
    data = _parse_json(text)
    _check_depth(data)
    try:
        fields = _TraceRunFields.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise TraceProblem(
            f"not a valid ContextForge trace: {clip(where, 80)}: {first['msg']}{more}"
        ) from None
    trace = TraceRun.model_construct(
        _fields_set=set(fields.model_fields_set),
        **{name: getattr(fields, name) for name in TraceRun.model_fields},
    )
    check_values(trace)
    return trace


def _integer(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    value = int(literal) if digits <= MAX_NUMBER_DIGITS else None
    if value is None or abs(value) > sys.float_info.max:
        raise TraceProblem(f"a JSON number with {digits} digits is out of range ({literal[:12]}…)")
    return value


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise TraceProblem(f"the JSON number {literal[:24]} is out of range")
    return value


def _constant(name: str) -> float:
    raise TraceProblem(f"{name} is not a JSON number")


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text, parse_int=_integer, parse_float=_float, parse_constant=_constant)
    except TraceProblem:
        raise
    except RecursionError:
        raise TraceProblem(f"not valid JSON (nested deeper than {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # JSONDecodeError
        raise TraceProblem(f"not valid JSON ({exc})") from None


def _check_depth(data: Any) -> None:
    """Breadth-first, without recursion (the graders recurse into arguments and results)."""
    level, depth = [data], 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise TraceProblem(f"not valid JSON for a trace (nested deeper than {MAX_DEPTH} levels)")
        deeper: list[Any] = []
        for value in level:
            if type(value) is dict:
                value = value.values()
            elif type(value) is not list:
                continue
            deeper.extend([item for item in value if type(item) is dict or type(item) is list])
        level = deeper


def check_values(trace: TraceRun) -> None:
    """ContextForge's own model checks, in linear time, plus what our graders rely on."""
    seen: set[str] = set()
    duplicates: dict[str, None] = {}
    for step in trace.steps:
        if step.step_id in seen:
            duplicates[step.step_id] = None
        seen.add(step.step_id)
    if duplicates:
        shown = ", ".join(repr(clip(step_id, 40)) for step_id in list(duplicates)[:_SHOWN_IDS])
        more = f" and {len(duplicates) - _SHOWN_IDS} more" if len(duplicates) > _SHOWN_IDS else ""
        raise TraceProblem(f"duplicate step ids: {shown}{more} (each step needs its own step_id)")
    started = _utc("started_at", trace.started_at)
    if trace.ended_at is not None and _utc("ended_at", trace.ended_at) < started:
        raise TraceProblem(f"ended_at ({trace.ended_at}) is before started_at ({trace.started_at})")
    for number, step in enumerate(trace.steps):
        try:
            _utc("timestamp", step.timestamp)
            if isinstance(step, MemoryReadStep):
                _check_section_stamps(step.results)
            elif isinstance(step, StateChangeStep):
                _check_state(step.state_key, step.new_value)
        except TraceProblem as exc:  # the step's place, built only when needed (linear, and fast)
            raise TraceProblem(f"steps.{number} ({clip(step.step_id, 40)}): {exc.reason}") from None


def _utc(what: str, moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise TraceProblem(f"{what} {moment.isoformat()} has no UTC offset (trace times must be aware)")
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        raise TraceProblem(f"{what} {moment.isoformat()} is out of range in UTC") from None


def _check_section_stamps(results: list[Any]) -> None:
    """memory_hygiene ages each profile section's stamp in UTC; unreadable stamps count as never
    confirmed (a warning), but a stamp that cannot be converted to UTC is refused here."""
    for result in results:
        sections = result.get("sections") if isinstance(result, dict) else None
        if not isinstance(sections, dict):
            continue
        for section, stamp in sections.items():
            if stamp is None:
                continue
            try:
                moment = datetime.fromisoformat(str(stamp))
            except ValueError:
                continue
            if moment.tzinfo is not None and moment.utcoffset() is not None:
                _utc(f"section {clip(section, 40)!r} timestamp", moment)


def _check_state(key: str, value: Any) -> None:
    if key == "stated_facts" and isinstance(value, list):
        for fact in value:
            if isinstance(fact, dict) and "field" in fact and not isinstance(fact["field"], str):
                kind = type(fact["field"]).__name__
                raise TraceProblem(f"stated_facts: a fact's field is a {kind}, not a string")
    elif (
        key == "removal_requested"
        and isinstance(value, dict)
        and not isinstance(value.get("fields", []), list)
    ):
        kind = type(value["fields"]).__name__
        raise TraceProblem(f"removal_requested: fields is a {kind}, not a list")
