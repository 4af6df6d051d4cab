"""What a message asks, from a small learned model over its sentence embedding.

The reader's *values* (ZIP, car, times, levels) come from the grammar; *meaning* — the intent
(a request for live data or knowledge, a statement, a command, small talk, off-topic), its topic
and whether a request is present — comes from here: softmax heads over the MiniLM embedding of
the message plus a few signals the grammar and the conversation supply (a question mark, how
many values the grammar found and of which kind, the question we asked last, the last request's
topic). Phrase lists generalize one phrase at a time; an embedding carries "is it bad to charge
to 100% every night" close to other general questions however it is worded.

The weights are a small committed file (`reader_model.npz`, with `reader_model.json` recording
the hash of the corpora they were trained on); `python -m advisor.understanding.train` (make
reader) trains them again, reproducibly.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import get_args

import numpy as np

from advisor.understanding.models import Intent, ReadingContext, SlotStatus, Task, Topic

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "reader_model.npz"
METADATA = HERE / "reader_model.json"

INTENTS: tuple[str, ...] = get_args(Intent)
TOPICS: tuple[str, ...] = get_args(Topic)
SLOTS = ("location", "utility", "rate_schedule", "ev", "solar_size")
LAST_INTENTS = ("live_data", "knowledge")
TASKS: tuple[str, ...] = get_args(Task)
SLOT_STATUSES: tuple[str, ...] = get_args(SlotStatus)
# Each head and its labels; `slot` learns only from replies to a question we asked, `task` only
# from requests for live data (the corpora label those rows).
FOLLOW = ("new", "same")
HEADS = {"intent": INTENTS, "topic": TOPICS, "task": TASKS, "slot": SLOT_STATUSES, "follow": FOLLOW}
# The topic whose tools each kind of live answer uses (the analyzer's tool sets, onboarding's slots)
TASK_TOPIC = {
    "charging_plan": "ev_charging",
    "prices": "rates",
    "appliance": "rates",
    "plan_comparison": "rates",
    "solar_forecast": "solar",
    "typical_solar": "solar",
    "weather": "weather",
}
# `follow`: after a live answer, does a live request continue it ("what about tomorrow?") or start
# a new one ("prices on thursday?" after a charging plan)? Learned from rows whose label keeps the
# last request's topic (same) or names another (new); see train.follow_label.
HEAD_LABEL_KEY = {
    "intent": "intent",
    "topic": "topic",
    "task": "task",
    "slot": "slot_status",
    "follow": "follow",
}


@dataclass(frozen=True)
class Signals:
    """What the grammar and punctuation say about a message, as model inputs (not decisions)."""

    question_mark: bool = False
    words: int = 0
    facts: int = 0  # values the grammar read as possible profile facts
    deadline: bool = False  # "by 6:30", "before work", "in an hour"
    charge_level: bool = False  # "80%", "from 30 to 80", "full"
    miles: bool = False
    appliance: bool = False
    day: bool = False  # today / tomorrow / a weekday
    system_size: bool = False  # "a 7 kW system" asked about
    usage: bool = False  # miles or kWh a month
    doubt: bool = False  # the grammar's doubt words ("idk", "not sure", "no clue"): a skip, or an unsure fact
    question_clause: bool = False  # a clause the grammar reads as a question ("..., what about today")
    advice: bool = False  # asks for a recommendation ("should i", "worth", "best", "cheapest")


SIGNAL_NAMES = (
    "question_mark",
    "words_1_3",
    "words_4_8",
    "words_9_plus",
    "facts_1",
    "facts_2_plus",
    "deadline",
    "charge_level",
    "miles",
    "appliance",
    "day",
    "system_size",
    "usage",
    "doubt",
    "question_clause",
    "advice",
)


def signal_vector(signals: Signals) -> list[float]:
    words = signals.words
    return [
        float(signals.question_mark),
        float(1 <= words <= 3),
        float(4 <= words <= 8),
        float(words >= 9),
        float(signals.facts == 1),
        float(signals.facts >= 2),
        float(signals.deadline),
        float(signals.charge_level),
        float(signals.miles),
        float(signals.appliance),
        float(signals.day),
        float(signals.system_size),
        float(signals.usage),
        float(signals.doubt),
        float(signals.question_clause),
        float(signals.advice),
    ]


def context_vector(context: ReadingContext) -> list[float]:
    """The question we asked (one of the slots) and the last request's kind and topic."""
    pending = [float(context.pending_slot == slot) for slot in SLOTS]
    last = [float(context.last_intent == intent) for intent in LAST_INTENTS]
    topic = [float(context.last_topic == name) for name in TOPICS]
    return [*pending, *last, *topic]


NGRAM_BUCKETS = 512
_TOKEN = re.compile(r"[a-z0-9%$']+|\?")


def ngram_vector(message: str) -> np.ndarray:
    """The message's words, word pairs and first two words, hashed into buckets (CRC-32, stable
    across runs and machines): the linear member learns which matter, the embedding carries the rest."""
    words = _TOKEN.findall(message.lower())
    grams = [f"u:{w}" for w in words] + [f"b:{a}_{b}" for a, b in zip(words, words[1:], strict=False)]
    grams += [f"f:{w}" for w in words[:2]]
    vector = np.zeros(NGRAM_BUCKETS)
    for gram in grams:
        vector[zlib.crc32(gram.encode()) % NGRAM_BUCKETS] = 1.0
    return vector


@dataclass(frozen=True)
class Inputs:
    """One message as model input: the dense row (embedding, signals, context) and its n-grams."""

    dense: np.ndarray
    ngrams: np.ndarray

    def for_member(self, ngrams: bool) -> np.ndarray:
        return np.concatenate([self.dense, self.ngrams]) if ngrams else self.dense


def features(embedding: np.ndarray, signals: Signals, context: ReadingContext, message: str = "") -> Inputs:
    """The embedding, then the signals, then the context; and the message's hashed n-grams."""
    extra = np.asarray(signal_vector(signals) + context_vector(context), dtype=np.float64)
    return Inputs(np.concatenate([np.asarray(embedding, dtype=np.float64), extra]), ngram_vector(message))


@dataclass(frozen=True)
class Prediction:
    """Each head's label and probability, plus the runner-up intent (for a clarifying question)."""

    intent: str
    intent_p: float
    runner_up: str
    runner_up_p: float
    topic: str
    topic_p: float
    task: str
    task_p: float
    slot: str
    slot_p: float
    follow: str = "new"
    follow_p: float = 0.0
    tasks: tuple[str, ...] = ()  # every task, likeliest first


@dataclass(frozen=True)
class Head:
    """A softmax head, with an optional hidden layer: logits = relu(x W1 + b1) W2 + b2."""

    labels: tuple[str, ...]
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        h = x
        for index, (weight, bias) in enumerate(self.layers):
            h = h @ weight + bias
            if index < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        h = h - h.max(-1, keepdims=True)
        e = np.exp(h)
        return e / e.sum(-1, keepdims=True)


@dataclass(frozen=True)
class Member:
    """One model of the ensemble: its input scaling, whether it reads n-grams, and its heads."""

    mean: np.ndarray
    scale: np.ndarray
    ngrams: bool
    heads: dict[str, Head]

    def probabilities(self, head: str, inputs: Inputs) -> np.ndarray:
        x = ((inputs.for_member(self.ngrams) - self.mean) / self.scale)[None, :]
        return self.heads[head].probabilities(x)[0]


class MeaningModel:
    """Two members whose probabilities are averaged: an MLP over the embedding (meaning however it
    is worded) and a linear model that also reads the words (form: "what is ..." asks, "we have ..."
    states). Each alone scored about 0.91 on cross-validation, together 0.92 (see docs)."""

    def __init__(self, members: list[Member]) -> None:
        self.members = members

    def probabilities(self, head: str, inputs: Inputs) -> np.ndarray:
        return np.mean([member.probabilities(head, inputs) for member in self.members], axis=0)

    def labels(self, head: str) -> tuple[str, ...]:
        return self.members[0].heads[head].labels

    def predict(self, inputs: Inputs) -> Prediction:
        intent = self.probabilities("intent", inputs)
        order = np.argsort(-intent, kind="stable")
        labels = self.labels("intent")
        topic, topic_p = self._best("topic", inputs)
        task, task_p = self._best("task", inputs)
        slot, slot_p = self._best("slot", inputs)
        follow, follow_p = self._best("follow", inputs)
        task_p_all = self.probabilities("task", inputs)
        tasks = tuple(self.labels("task")[i] for i in np.argsort(-task_p_all, kind="stable"))
        return Prediction(
            intent=labels[order[0]],
            intent_p=float(intent[order[0]]),
            runner_up=labels[order[1]],
            runner_up_p=float(intent[order[1]]),
            topic=topic,
            topic_p=topic_p,
            task=task,
            task_p=task_p,
            slot=slot,
            slot_p=slot_p,
            follow=follow,
            follow_p=follow_p,
            tasks=tasks,
        )

    def _best(self, head: str, inputs: Inputs) -> tuple[str, float]:
        probabilities = self.probabilities(head, inputs)
        best = int(np.argmax(probabilities))
        return self.labels(head)[best], float(probabilities[best])

    # --- files ---------------------------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {}
        for number, member in enumerate(self.members):
            arrays[f"m{number}.mean"], arrays[f"m{number}.scale"] = member.mean, member.scale
            for name, head in member.heads.items():
                for index, (weight, bias) in enumerate(head.layers):
                    arrays[f"m{number}.{name}.w{index}"] = weight
                    arrays[f"m{number}.{name}.b{index}"] = bias
        return arrays

    def save(self, weights: Path, metadata: Path, info: dict[str, object]) -> str:
        """Write both files; returns the weights' hash (recorded in the metadata)."""
        arrays = {key: np.asarray(value, dtype=np.float32) for key, value in self.arrays().items()}
        digest = weights_hash(arrays)
        np.savez_compressed(weights, **arrays)
        members = [
            {
                "ngrams": member.ngrams,
                "layers": {name: len(head.layers) for name, head in member.heads.items()},
            }
            for member in self.members
        ]
        labels = {name: list(self.labels(name)) for name in HEADS}
        document = {**info, "labels": labels, "members": members, "weights_sha256": digest}
        metadata.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        return digest

    @classmethod
    def load(cls, weights: Path = WEIGHTS, metadata: Path = METADATA) -> MeaningModel:
        info = json.loads(metadata.read_text())
        with np.load(weights) as data:
            arrays = {key: data[key].astype(np.float64) for key in data.files}
        members = []
        for number, member in enumerate(info["members"]):
            prefix = f"m{number}."
            heads = {
                name: Head(
                    labels=tuple(info["labels"][name]),
                    layers=tuple(
                        (arrays[f"{prefix}{name}.w{i}"], arrays[f"{prefix}{name}.b{i}"])
                        for i in range(member["layers"][name])
                    ),
                )
                for name in HEADS
            }
            members.append(Member(arrays[prefix + "mean"], arrays[prefix + "scale"], member["ngrams"], heads))
        return cls(members)


def weights_hash(arrays: dict[str, np.ndarray]) -> str:
    """A hash of the weights as stored (float32, keys sorted): the same corpus gives the same hash."""
    digest = hashlib.sha256()
    for key in sorted(arrays):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(arrays[key], dtype=np.float32).tobytes())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def meaning_model() -> MeaningModel:
    """The shipped model, loaded once per process."""
    return MeaningModel.load()
