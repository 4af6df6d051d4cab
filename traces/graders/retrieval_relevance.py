"""RetrievalRelevance: the share of retrieved passages the answer used (cited as [n] or quoted);
WARN below `usage_ratio_warn`, with an estimate of the tokens spent on unused passages."""

from __future__ import annotations

import re

from context_forge.core.trace import FinalOutputStep, RetrievalStep, StateChangeStep, TraceRun

from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "retrieval_relevance"
QUOTE_WORDS = 8  # a passage sentence of at least this many words found in the answer counts as quoted


_TOKEN = re.compile(r"[a-z0-9%$.]+")


def _normalize(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


def _quoted(passage: str, normalized_answer: str) -> bool:
    """True when a sentence of the passage (QUOTE_WORDS words or more) appears in the answer."""
    if not normalized_answer:
        return False
    # Tokens keep their full stops, so ". " separates sentences in the normalized text.
    for sentence in _normalize(passage).split(". "):
        if sentence.count(" ") + 1 >= QUOTE_WORDS and sentence.rstrip(".") in normalized_answer:
            return True
    return False


class RetrievalRelevanceGrader:
    name = NAME

    def __init__(self, config: EvalConfig) -> None:
        self.warn_below = config.usage_ratio_warn

    def grade(self, trace: TraceRun) -> Grade:
        retrievals = [step for step in trace.steps if isinstance(step, RetrievalStep)]
        passages = [(step.step_id, result) for step in retrievals for result in step.results]
        threshold = {"usage_ratio_warn": self.warn_below}
        if not passages:
            return make_grade(
                NAME,
                [
                    Evidence(
                        check_name="no_retrieval",
                        description="no passages were retrieved in this trace",
                        severity=Severity.INFO,
                    )
                ],
                score=1.0,
                threshold=threshold,
                metadata={"retrieved": 0},
                timestamp=trace.started_at,
            )
        cited = {
            int(number)
            for step in trace.steps
            if isinstance(step, StateChangeStep)
            and step.state_key == "cited_passages"
            and isinstance(step.new_value, list)
            for number in step.new_value
            if isinstance(number, int)
        }
        answer = _normalize(
            " ".join(str(step.content) for step in trace.steps if isinstance(step, FinalOutputStep))
        )
        used, unused = [], []
        for number, (step_id, result) in enumerate(passages, start=1):
            (used if number in cited or _quoted(result.content, answer) else unused).append(
                (number, step_id, result)
            )
        ratio = len(used) / len(passages)
        wasted_tokens = sum(len(result.content) // 4 for _, _, result in unused)
        details = {
            "retrieved": len(passages),
            "used": [number for number, _, _ in used],
            "usage_ratio": round(ratio, 3),
            "wasted_tokens_estimate": wasted_tokens,
        }
        description = (
            f"{len(used)} of {len(passages)} retrieved passages were used (usage ratio {ratio:.2f}); "
            f"about {wasted_tokens} tokens went to unused passages"
        )
        severity = Severity.WARN if ratio < self.warn_below else Severity.INFO
        evidence = [
            Evidence(
                check_name="retrieval_waste" if severity is Severity.WARN else "retrieval_usage",
                description=description
                + (f" (below {self.warn_below})" if severity is Severity.WARN else ""),
                severity=severity,
                step_ids=sorted({step_id for _, step_id, _ in unused})
                or [step.step_id for step in retrievals],
                details=details,
            )
        ]
        return make_grade(
            NAME, evidence, score=ratio, threshold=threshold, metadata=details, timestamp=trace.started_at
        )
