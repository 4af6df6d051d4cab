"""RetrievalRelevance: the share of retrieved passages the answer used (cited as [n] or quoted);
WARN below `usage_ratio_warn`, with an estimate of the tokens spent on unused passages.

When the turn's question is a labelled one (`knowledge/eval/questions-*.yaml`, loaded once per
process from `section_labels` in config/eval.yaml, or handed to the constructor), the answer must
also have used a passage from the labelled section (`expected_section`; the labelled document when
no section is labelled): otherwise FAIL, with the retrieval and final-output step ids, the passages
used and the one expected. A passage's document and section are the retrieval results' metadata
(`source`, `section`, recorded by traces/recorder.py); a trace without them is not judged on that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from context_forge.core.trace import FinalOutputStep, RetrievalStep, StateChangeStep, TraceRun, UserInputStep

from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "retrieval_relevance"
QUOTE_WORDS = 8  # a passage sentence of at least this many words found in the answer counts as quoted
PROJECT_DIR = Path(__file__).resolve().parents[2]  # `section_labels` is relative to it


_TOKEN = re.compile(r"[a-z0-9%$.]+")
# The same tokens for ASCII text in C passes: every other byte becomes a space, runs of spaces are
# squeezed. ASCII text lower-cases to ASCII, and the maximal runs of kept bytes are exactly the
# regex's matches; other text (a Kelvin sign lower-cases to "k") takes the regex.
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789%$.")
_SEPARATOR = "\x00"  # between passages normalized together: neither kept nor a space
# lower-cases as it goes (A-Z -> a-z), so ASCII text needs no `lower()` pass
_ASCII_TOKENS = bytes(
    byte + 32 if 65 <= byte <= 90 else byte if byte in _KEEP or byte == 0 else 0x20 for byte in range(256)
)


def _normalize(text: str) -> str:
    if text.isascii() and _SEPARATOR not in text:
        return _squeeze(text.encode("ascii").translate(_ASCII_TOKENS).decode("ascii"))
    return " ".join(_TOKEN.findall(text.lower()))


def _squeeze(spaced: str) -> str:
    """Runs of spaces to one, none at either end: what " ".join(spaced.split()) gives when the
    only whitespace is " ", without making a string per word."""
    while "  " in spaced:
        spaced = spaced.replace("  ", " ")
    return spaced.strip(" ")


def _normalize_all(texts: list[str]) -> list[str]:
    """`_normalize` of each text, the ASCII ones in one pass over their concatenation (a 100 000-step
    trace holds ~57 000 passages: a call per passage was most of the grader's time)."""
    ascii_texts = [text for text in texts if text.isascii() and _SEPARATOR not in text]
    if len(ascii_texts) < 2:
        return [_normalize(text) for text in texts]
    joined = _SEPARATOR.join(ascii_texts).encode("ascii").translate(_ASCII_TOKENS).decode("ascii")
    joined = _squeeze(joined).replace(" " + _SEPARATOR, _SEPARATOR).replace(_SEPARATOR + " ", _SEPARATOR)
    normalized = iter(joined.split(_SEPARATOR))
    return [
        next(normalized) if text.isascii() and _SEPARATOR not in text else _normalize(text) for text in texts
    ]


def _quoted(
    passage: str,
    normalized_answer: str,
    windows: set[tuple[str, ...]] | None = None,
    *,
    normalized: str | None = None,
) -> bool:
    """True when a sentence of the passage (QUOTE_WORDS words or more) appears in the answer.

    `windows` (from `_windows(answer)`) makes it linear: a sentence can appear in the answer only
    if its inner words (all but the first, which may end an answer word) are consecutive answer
    words, so the substring search runs only for sentences that pass that set lookup.
    `normalized` is the passage already normalized (`_normalize_all`)."""
    if not normalized_answer:
        return False
    # Tokens keep their full stops, so ". " separates sentences in the normalized text.
    for sentence in (_normalize(passage) if normalized is None else normalized).split(". "):
        if sentence.count(" ") + 1 < QUOTE_WORDS:
            continue
        sentence = sentence.rstrip(".")
        # split at most QUOTE_WORDS times: the inner words are all that is looked up
        if windows is not None and tuple(sentence.split(" ", QUOTE_WORDS)[1:QUOTE_WORDS]) not in windows:
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


# --- labelled questions ------------------------------------------------------------------------


@dataclass(frozen=True)
class SectionLabel:
    question: str
    source: str  # the document that answers it, e.g. heat-pumps-how-they-work.md
    section: str | None  # the heading of the section that answers it, when one clearly does


def question_key(text: str) -> str:
    """What a labelled question and a trace's question are matched on: case, spacing and
    punctuation apart ("How do heat pumps work?" == "how do heat pumps work")."""
    return _normalize(text).rstrip(".")


def load_section_labels(path: Path) -> dict[str, SectionLabel]:
    """Labelled questions from a questions-*.yaml file or a folder of them, by `question_key`;
    none when the path does not exist (an install without the evaluation set)."""
    files = sorted(path.glob("questions-*.yaml")) if path.is_dir() else [path] if path.is_file() else []
    labels: dict[str, SectionLabel] = {}
    for file in files:
        for item in yaml.safe_load(file.read_text(encoding="utf-8")) or []:
            label = SectionLabel(str(item["question"]), str(item["expected"]), item.get("expected_section"))
            labels[question_key(label.question)] = label
    return labels


@lru_cache(maxsize=8)
def _labels_at(path: str) -> Mapping[str, SectionLabel]:
    return load_section_labels(Path(path))


def configured_labels(config: EvalConfig) -> Mapping[str, SectionLabel]:
    """The labels `config.section_labels` names, read once per process (graders are built per trace)."""
    if config.section_labels is None:
        return {}
    path = Path(config.section_labels)
    return _labels_at(str(path if path.is_absolute() else PROJECT_DIR / path))


# --- the grader --------------------------------------------------------------------------------


class RetrievalRelevanceGrader:
    name = NAME

    def __init__(self, config: EvalConfig, labels: Mapping[str, SectionLabel] | None = None) -> None:
        self.warn_below = config.usage_ratio_warn
        self.labels = configured_labels(config) if labels is None else labels

    def grade(self, trace: TraceRun) -> Grade:
        # one pass over the steps: a 100 000-step trace is read once, not once per kind
        retrievals: list[RetrievalStep] = []
        finals: list[FinalOutputStep] = []
        cited: set[int] = set()
        question = None
        for step in trace.steps:
            if isinstance(step, RetrievalStep):
                retrievals.append(step)
            elif isinstance(step, StateChangeStep):
                if step.state_key == "cited_passages" and isinstance(step.new_value, list):
                    cited.update(int(number) for number in step.new_value if isinstance(number, int))
            elif isinstance(step, FinalOutputStep):
                finals.append(step)
            elif question is None and isinstance(step, UserInputStep):
                question = step.content
        label = self.labels.get(question_key(question)) if question is not None and self.labels else None
        threshold = {"usage_ratio_warn": self.warn_below}
        if not any(step.results for step in retrievals):
            evidence = [
                Evidence(
                    check_name="no_retrieval",
                    description="no passages were retrieved in this trace",
                    severity=Severity.INFO,
                )
            ]
            if label is not None:
                evidence.append(_unretrieved(label))
            return make_grade(
                NAME,
                evidence,
                score=1.0,
                threshold=threshold,
                metadata={"retrieved": 0},
                timestamp=trace.started_at,
            )
        answer = _normalize(" ".join(str(step.content) for step in finals))
        windows = _windows(answer)
        results = [(step.step_id, result) for step in retrievals for result in step.results]
        normalized = _normalize_all([result.content for _, result in results]) if answer else []
        used: list[tuple[int, str, Any]] = []
        unused_ids: set[str] = set()
        wasted_tokens = 0
        for number, (step_id, result) in enumerate(results, start=1):
            if number in cited or (
                answer and _quoted(result.content, answer, windows, normalized=normalized[number - 1])
            ):
                used.append((number, step_id, result))
            else:
                unused_ids.add(step_id)
                wasted_tokens += len(result.content) // 4
        retrieved = len(results)
        ratio = len(used) / retrieved
        details = {
            "retrieved": retrieved,
            "used": [n for n, _, _ in used],
            "usage_ratio": round(ratio, 3),
            "wasted_tokens_estimate": wasted_tokens,
        }
        description = (
            f"{len(used)} of {retrieved} retrieved passages were used (usage ratio {ratio:.2f}); "
            f"about {wasted_tokens} tokens went to unused passages"
        )
        severity = Severity.WARN if ratio < self.warn_below else Severity.INFO
        evidence = [
            Evidence(
                check_name="retrieval_waste" if severity is Severity.WARN else "retrieval_usage",
                description=description
                + (f" (below {self.warn_below})" if severity is Severity.WARN else ""),
                severity=severity,
                step_ids=sorted(unused_ids) or [step.step_id for step in retrievals],
                details=details,
            )
        ]
        if label is not None:
            evidence.append(_section_check(label, used, cited, retrievals, finals))
        return make_grade(
            NAME, evidence, score=ratio, threshold=threshold, metadata=details, timestamp=trace.started_at
        )


def _expected(label: SectionLabel) -> dict[str, str]:
    return {"source": label.source, **({"section": label.section} if label.section else {})}


def _unretrieved(label: SectionLabel) -> Evidence:
    """A labelled question answered without retrieval (a plan, a clarifying question): nothing
    retrieved, so nothing for this grader to judge; said, not failed."""
    return Evidence(
        check_name="labelled_question_not_retrieved",
        description=f"labelled question {label.question!r} was answered without retrieving passages",
        severity=Severity.INFO,
        details={"question": label.question, "expected": _expected(label)},
    )


def _section_check(
    label: SectionLabel,
    used: list[tuple[int, str, Any]],
    cited: set[int],
    retrievals: list[RetrievalStep],
    finals: list[FinalOutputStep],
) -> Evidence:
    """Did the answer use (cite or quote) a passage from the labelled section (or document)?"""
    passages = [
        {
            "number": number,
            "how": "cited" if number in cited else "quoted",
            "step_id": step_id,
            **{key: (result.metadata or {}).get(key) for key in ("source", "section")},
        }
        for number, step_id, result in used
    ]
    expected = _expected(label)
    details = {"question": label.question, "expected": expected, "used": passages}
    step_ids = [step.step_id for step in retrievals] + [step.step_id for step in finals]
    if passages and all(passage["source"] is None for passage in passages):
        return Evidence(
            check_name="answering_section_unknown",
            description="the trace does not record which document and section each passage came from",
            severity=Severity.INFO,
            step_ids=step_ids,
            details=details,
        )
    where = f"{label.source} § {label.section!r}" if label.section else label.source
    if any(
        passage["source"] == label.source and (label.section is None or passage["section"] == label.section)
        for passage in passages
    ):
        return Evidence(
            check_name="answering_section",
            description=f"the answer used the passage that answers the question ({where})",
            severity=Severity.INFO,
            step_ids=step_ids,
            details=details,
        )
    shown = (
        "; ".join(
            f"[{passage['number']}] {passage['how']}: {passage['source']} § {passage['section']!r}"
            for passage in passages
        )
        or "no passage"
    )
    return Evidence(
        check_name="wrong_answering_section",
        description=f"the answer used {shown}, not the passage that answers the question: {where}",
        severity=Severity.ERROR,
        step_ids=step_ids,
        details=details,
    )
