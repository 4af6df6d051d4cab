"""ContextForge's own MemoryCorruptionGrader (a known value deleted or set to null), as a Grade.

Its rule is that user data is never deleted "without explicit user request". A turn where the user
asked ("forget my ZIP", "that's wrong", "we sold the Tesla") records a `removal_requested` state
change naming the fields; deletions of exactly those fields are reported as INFO, not corruption.
"""

from __future__ import annotations

from dataclasses import replace

from context_forge.core.trace import StateChangeStep, TraceRun
from context_forge.graders.deterministic.memory_corruption import MemoryCorruptionGrader

from traces.graders.base import Evidence, Grade, Severity, make_grade


class CorruptionGrader:
    name = MemoryCorruptionGrader.name

    def __init__(self) -> None:
        self._grader = MemoryCorruptionGrader()

    def grade(self, trace: TraceRun) -> Grade:
        result = self._grader.grade(trace)
        requested = _requested_removals(trace)
        evidence = [_sanctioned(item, requested) for item in result.evidence]
        errors = sum(1 for item in evidence if item.severity == Severity.ERROR)
        return make_grade(
            self.name,
            evidence,
            score=max(0.0, 1.0 - 0.5 * errors),
            threshold=None,
            metadata={**(result.metadata or {}), "corruption_errors": errors},
            timestamp=trace.started_at,
        )


def _requested_removals(trace: TraceRun) -> set[str]:
    fields: set[str] = set()
    for step in trace.steps:
        if isinstance(step, StateChangeStep) and step.state_key == "removal_requested":
            value = step.new_value if isinstance(step.new_value, dict) else {}
            fields.update(str(field) for field in value.get("fields", []))
    return fields


def _sanctioned(item: Evidence, requested: set[str]) -> Evidence:
    if item.check_name != "data_corruption" or item.severity != Severity.ERROR or not requested:
        return item
    paths = {str(change.get("path")) for change in (item.details or {}).get("corrupted_fields", [])}
    if not paths or not paths <= requested:
        return item
    return replace(
        item,
        severity=Severity.INFO,
        check_name="removed_on_request",
        description=f"Removed at the user's request: {sorted(paths)}",
    )
