"""A grade: ContextForge's `GraderResult` plus a verdict (PASS / WARN / FAIL) and the threshold applied."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from context_forge.core.trace import TraceRun
from context_forge.graders.base import Evidence, GraderResult, Severity


class Verdict(str, Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass
class Grade(GraderResult):
    verdict: Verdict = Verdict.PASS
    threshold: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "verdict": self.verdict.value, "threshold": self.threshold}


class Grader(Protocol):
    name: str

    def grade(self, trace: TraceRun) -> Grade: ...


def make_grade(
    name: str,
    evidence: list[Evidence],
    *,
    score: float,
    threshold: Any,
    metadata: dict[str, Any] | None = None,
    timestamp: Any = None,
) -> Grade:
    """Verdict from the evidence: any ERROR fails, any WARN warns, otherwise pass."""
    severities = {item.severity for item in evidence}
    verdict = (
        Verdict.FAIL
        if Severity.ERROR in severities
        else Verdict.WARN
        if Severity.WARN in severities
        else Verdict.PASS
    )
    extra = {"timestamp": timestamp} if timestamp is not None else {}
    return Grade(
        grader_name=name,
        passed=verdict is not Verdict.FAIL,
        score=round(min(1.0, max(0.0, score)), 4),
        evidence=evidence,
        metadata=metadata,
        verdict=verdict,
        threshold=threshold,
        **extra,
    )


__all__ = ["Evidence", "Grade", "Grader", "Severity", "Verdict", "make_grade"]
