"""Deterministic, stateless trace graders (< 10 ms per trace), thresholds from config/eval.yaml."""

from __future__ import annotations

from config.files import EvalConfig
from traces.graders.base import Grade, Grader, Verdict
from traces.graders.budget import BudgetGrader
from traces.graders.corruption import CorruptionGrader
from traces.graders.loop import LoopGrader
from traces.graders.memory_hygiene import MemoryHygieneGrader
from traces.graders.retrieval_relevance import RetrievalRelevanceGrader

__all__ = ["Grade", "Grader", "Verdict", "all_graders", "grade_trace"]


def all_graders(config: EvalConfig) -> list[Grader]:
    return [
        MemoryHygieneGrader(config),
        LoopGrader(config),
        RetrievalRelevanceGrader(config),
        BudgetGrader(config),
        CorruptionGrader(),
    ]


def grade_trace(trace, config: EvalConfig) -> list[Grade]:
    return [grader.grade(trace) for grader in all_graders(config)]
