"""ContextForge's own MemoryCorruptionGrader (a known value deleted or set to null), as a Grade."""

from __future__ import annotations

from context_forge.core.trace import TraceRun
from context_forge.graders.deterministic.memory_corruption import MemoryCorruptionGrader

from traces.graders.base import Grade, make_grade


class CorruptionGrader:
    name = MemoryCorruptionGrader.name

    def __init__(self) -> None:
        self._grader = MemoryCorruptionGrader()

    def grade(self, trace: TraceRun) -> Grade:
        result = self._grader.grade(trace)
        return make_grade(
            self.name,
            result.evidence,
            score=result.score,
            threshold=None,
            metadata=result.metadata,
            timestamp=trace.started_at,
        )
