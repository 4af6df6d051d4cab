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


def _quoted(passage: str, normalized_answer: str, windows: set[tuple[str, ...]] | None = None) -> bool:
    """True when a sentence of the passage (QUOTE_WORDS words or more) appears in the answer.

    `windows` (from `_windows(answer)`) makes it linear: a sentence can appear in the answer only
    if its inner words (all but the first, which may end an answer word) are consecutive answer
    words, so the substring search runs only for sentences that pass that set lookup."""
    if not normalized_answer:
        return False
    # Tokens keep their full stops, so ". " separates sentences in the normalized text.
    for sentence in _normalize(passage).split(". "):
        if sentence.count(" ") + 1 < QUOTE_WORDS:
            continue
        sentence = sentence.rstrip(".")
        if windows is not None and tuple(sentence.split(" ")[1:QUOTE_WORDS]) not in windows:
            continue
        if sentence in normalized_answer:
            return True
    return False


def _windows(normalized_answer: str) -> set[tuple[str, ...]]:
    """Every run of QUOTE_WORDS - 1 consecutive answer words (words keep their full stops, as in
    the sentences they are compared with, so a run may also end a word with its stop removed)."""
    words = normalized_answer.split(" ")
    size = QUOTE_WORDS - 1
    runs: set[tuple[str, ...]] = set()
    for start in range(max(0, len(words) - size + 1)):
        run = words[start : start + size]
        runs.add(tuple(run))
        runs.add((*run[:-1], run[-1].rstrip(".")))
    return runs


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
        windows = _windows(answer)
        for number, (step_id, result) in enumerate(passages, start=1):
            (used if number in cited or _quoted(result.content, answer, windows) else unused).append(
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
