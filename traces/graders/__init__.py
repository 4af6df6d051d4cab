"""Deterministic, stateless trace graders (< 10 ms per trace), thresholds from config/eval.yaml."""

from __future__ import annotations

from config.files import EvalConfig
from traces.graders.base import Grade, Grader, Verdict
from traces.graders.budget import BudgetGrader
from traces.graders.claims import ClaimsGrader
from traces.graders.corruption import CorruptionGrader
from traces.graders.loop import LoopGrader
from traces.graders.memory_hygiene import MemorizeRuns, MemoryHygieneGrader, memorize_runs_beside
from traces.graders.retrieval_relevance import RetrievalRelevanceGrader

__all__ = ["Grade", "Grader", "MemorizeRuns", "Verdict", "all_graders", "grade_trace", "memorize_runs_beside"]


def all_graders(config: EvalConfig, memorize_runs: MemorizeRuns | None = None) -> list[Grader]:
    """`memorize_runs` finds a thread's memorize traces, so a fact a turn deferred can be shown
    handled (MemoryHygiene); e.g. `memorize_runs_beside(trace_path)`."""
    return [
        MemoryHygieneGrader(config, memorize_runs),
        LoopGrader(config),
        RetrievalRelevanceGrader(config),
        BudgetGrader(config),
        CorruptionGrader(),
        ClaimsGrader(config),
    ]


def grade_trace(trace, config: EvalConfig, memorize_runs: MemorizeRuns | None = None) -> list[Grade]:
    return [grader.grade(trace) for grader in all_graders(config, memorize_runs)]
