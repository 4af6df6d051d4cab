"""Loop: the same tool with the same canonicalized arguments called more than `max_repeats` times."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from context_forge.core.trace import ToolCallStep, TraceRun

from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "loop"


def canonical(value: Any) -> Any:
    """Sorted keys and normalized numbers, so {"b": 1.0, "a": 2} equals {"a": 2, "b": 1}."""
    if isinstance(value, dict):
        return {str(key): canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        number = round(float(value), 6)
        return int(number) if number.is_integer() else number
    if isinstance(value, str):
        return value.strip()
    return str(value)


class LoopGrader:
    name = NAME

    def __init__(self, config: EvalConfig) -> None:
        self.max_repeats = config.max_repeats

    def grade(self, trace: TraceRun) -> Grade:
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for step in trace.steps:
            if isinstance(step, ToolCallStep):
                key = (step.tool_name, json.dumps(canonical(step.arguments), sort_keys=True))
                groups[key].append(step.step_id)
        evidence = []
        worst = 0
        for (tool, arguments), step_ids in groups.items():
            worst = max(worst, len(step_ids))
            if len(step_ids) > self.max_repeats:
                evidence.append(
                    Evidence(
                        check_name="tool_loop",
                        description=(
                            f"{tool} was called {len(step_ids)} times with the same arguments {arguments} "
                            f"(more than {self.max_repeats})"
                        ),
                        severity=Severity.ERROR,
                        step_ids=step_ids,
                        details={"tool": tool, "arguments": json.loads(arguments), "count": len(step_ids)},
                    )
                )
        score = 1.0 if worst <= self.max_repeats else self.max_repeats / worst
        return make_grade(
            NAME,
            evidence,
            score=score,
            threshold={"max_repeats": self.max_repeats},
            metadata={"tool_calls": sum(len(ids) for ids in groups.values()), "distinct_calls": len(groups)},
            timestamp=trace.started_at,
        )
