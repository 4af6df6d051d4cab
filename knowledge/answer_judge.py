"""A learned answer check: does this passage answer this question?

Two thresholds (cosine ≥ 0.35 and distinctive-word share ≥ 0.25, `knowledge/answerability.py`)
declined 192 of 328 first passages that do not answer and kept 215 of 262 that do, on the four
labelled question sets. Both signals are blunt: a question about a topic next to a document's
("how far from the house does a portable generator need to be" against the EV-as-backup passage)
shares its words and much of its meaning. What separates them better is *which* parts of the
meaning the two share, so the judge is a logistic regression over the pair's sentence embeddings
(their elementwise product and absolute difference, 768 numbers) plus the cosine and the word
share, from the bundled MiniLM encoder in every mode (the features must not change with the
retrieval embeddings), and the question's closeness to the labelled questions it was trained on
(its precedents: the nearest one this passage's document answered, one nothing answered, one
another document answered — what earlier askers teach where a passage's own words are far from
the question). Trained by `python -m knowledge.train_judge` (`make judge`) on the
labelled sets in knowledge/eval/; `answer_judge.json` records what it was trained on and its
leave-one-set-out figures (each set, by its own authors, judged by a model trained on the others).

Written here rather than taken from a library: a logistic regression over NumPy arrays is a
dozen lines, and scikit-learn would be a dependency for one dot product. A cross-encoder would
judge better, but none can be installed here (model hubs are unreachable; PyPI carries no
packaged cross-encoder weights this project could vet).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
WEIGHTS = HERE / "answer_judge.npz"
METADATA = HERE / "answer_judge.json"
PRECEDENTS = HERE / "answer_judge_precedents.npz"


@dataclass(frozen=True)
class Precedents:
    """The labelled questions the judge was trained on, as embeddings, each with the documents
    that answer it (none for a question no document answers). How close a new question comes to
    questions this document answered, to questions nothing answered, and to questions other
    documents answered is what people asking before teach: "is a 13.5 kWh powerwall enough for the
    fridge in an outage" is near earlier questions the battery document answered even where the
    passage's own words are far from it."""

    questions: np.ndarray  # (n, 384), unit vectors
    answered_by: tuple[frozenset[str], ...]

    def closeness(self, question: np.ndarray, source: str) -> tuple[float, float, float]:
        """The nearest cosine among questions `source` answered, none answered, others answered."""
        if not len(self.answered_by):
            return 0.0, 0.0, 0.0
        similarity = self.questions @ (question / (np.linalg.norm(question) or 1.0))
        same = [s for s, docs in zip(similarity, self.answered_by, strict=True) if source in docs]
        none = [s for s, docs in zip(similarity, self.answered_by, strict=True) if not docs]
        other = [
            s for s, docs in zip(similarity, self.answered_by, strict=True) if docs and source not in docs
        ]
        return float(max(same, default=0.0)), float(max(none, default=0.0)), float(max(other, default=0.0))


# where the cosine and the word share sit in `pair_features`' output (after 2 × 384 numbers)
COSINE_AT, WORDS_AT = 768, 769
NO_PRECEDENTS = Precedents(questions=np.zeros((0, 384)), answered_by=())


def pair_features(
    question: np.ndarray, passage: np.ndarray, words: float, closeness: tuple[float, float, float]
) -> np.ndarray:
    """What the judge reads: how the two embeddings agree dimension by dimension, how far apart
    each dimension is, their cosine, the share of the question's distinctive words, and how close
    the question is to earlier ones this passage's document answered, nothing answered, or another
    document answered (`Precedents.closeness`)."""
    cosine = float(question @ passage / ((np.linalg.norm(question) * np.linalg.norm(passage)) or 1.0))
    return np.concatenate([question * passage, np.abs(question - passage), [cosine, words], closeness])


@dataclass(frozen=True)
class AnswerJudge:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float

    def likelihood(self, features: np.ndarray) -> float:
        z = (features - self.mean) / self.scale
        return float(1.0 / (1.0 + np.exp(-(z @ self.weights + self.bias))))

    def save(self, path: Path = WEIGHTS) -> None:
        # rounded so that training again on the same pairs writes the same bytes (the last bits of
        # a float sum move with the BLAS build)
        np.savez(
            path,
            mean=self.mean.round(9),
            scale=self.scale.round(9),
            weights=self.weights.round(9),
            bias=np.array([round(self.bias, 9)]),
            threshold=np.array([self.threshold]),
        )


def fit(
    features: np.ndarray, answers: np.ndarray, *, threshold: float, penalty: float = 0.1, steps: int = 400
) -> AnswerJudge:
    """L2-regularized logistic regression by gradient descent on standardized features
    (deterministic: the same pairs give the same weights)."""
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-6
    z = (features - mean) / scale
    weights = np.zeros(z.shape[1])
    bias = 0.0
    target = answers.astype(float)
    for _ in range(steps):
        predicted = 1.0 / (1.0 + np.exp(-(z @ weights + bias)))
        error = predicted - target
        weights -= 0.1 * (z.T @ error / len(target) + penalty * weights)
        bias -= 0.1 * float(error.mean())
    return AnswerJudge(mean, scale, weights, bias, threshold)


@lru_cache(maxsize=1)
def answer_judge() -> AnswerJudge | None:
    """The shipped judge, or None when its weights or its precedents are missing (the thresholds
    decide then: weights trained with precedents misjudge without them)."""
    if not WEIGHTS.exists() or not PRECEDENTS.exists():
        return None
    data = np.load(WEIGHTS)
    return AnswerJudge(
        mean=data["mean"],
        scale=data["scale"],
        weights=data["weights"],
        bias=float(data["bias"][0]),
        threshold=float(data["threshold"][0]),
    )


@lru_cache(maxsize=1)
def precedents() -> Precedents:
    """The labelled questions shipped with the judge (none when the file is missing)."""
    if not PRECEDENTS.exists():
        return NO_PRECEDENTS
    data = np.load(PRECEDENTS)
    answered_by = tuple(frozenset(json.loads(docs)) for docs in data["answered_by"])
    return Precedents(questions=data["questions"].astype(np.float64), answered_by=answered_by)


def save_precedents(found: Precedents, path: Path | None = None) -> None:
    np.savez_compressed(
        path or PRECEDENTS,
        questions=found.questions.astype(np.float16),  # half precision: a cosine to 3 decimals is plenty
        answered_by=np.array([json.dumps(sorted(docs)) for docs in found.answered_by]),
    )


def trained_on() -> dict:
    """The metadata written with the weights (sets, pairs, figures)."""
    return json.loads(METADATA.read_text()) if METADATA.exists() else {}
