"""How well messages are understood, on the labelled corpus in tests/data/understanding_corpus.jsonl.

Run: .venv/bin/python -m bench.understanding                       # the offline rule reader
     .venv/bin/python -m bench.understanding --provider ollama --model llama3.1:8b [--url URL]

Prints routing accuracy (intent), extraction precision and recall per field and overall, slot
answers, and (for a model) the median latency per message, measured in this run. A fact counts as
correct when its field and value match the label (numbers within 0.01); precision is over the facts
the reader produced, recall over the labelled ones.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.understanding.models import ReadingContext, RequestParams, Understanding
from advisor.understanding.rules import RuleUnderstander

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "understanding_corpus.jsonl"


@dataclass
class Scores:
    messages: int = 0
    routed: int = 0
    slots: int = 0
    slots_right: int = 0
    true_positive: Counter[str] = field(default_factory=Counter)
    produced: Counter[str] = field(default_factory=Counter)
    labelled: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)

    @property
    def routing(self) -> float:
        return self.routed / self.messages if self.messages else 0.0

    def precision(self, name: str | None = None) -> float:
        produced = self.produced[name] if name else sum(self.produced.values())
        right = self.true_positive[name] if name else sum(self.true_positive.values())
        return right / produced if produced else 1.0

    def recall(self, name: str | None = None) -> float:
        labelled = self.labelled[name] if name else sum(self.labelled.values())
        right = self.true_positive[name] if name else sum(self.true_positive.values())
        return right / labelled if labelled else 1.0


def load_corpus(path: Path = CORPUS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def context_of(item: dict[str, Any]) -> ReadingContext:
    context = item.get("context") or {}
    last_intent = context.get("last_intent")
    return ReadingContext(
        pending_slot=context.get("pending_slot"),
        last_intent=last_intent,
        last_topic=context.get("last_topic"),
        last_params=RequestParams() if last_intent else None,
    )


def same_value(expected: Any, got: Any) -> bool:
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got or str(expected).lower() == str(got).lower()
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return abs(float(expected) - float(got)) <= 0.01
    return str(expected).strip().lower() == str(got).strip().lower()


# Intents that lead to the same handling count as the same route.
_ROUTE = {"correction": "correction", "forget": "forget"}


def score(corpus: Iterable[dict[str, Any]], read: Callable[[str, ReadingContext], Understanding]) -> Scores:
    scores = Scores()
    for item in corpus:
        started = time.perf_counter()
        reading = read(item["text"], context_of(item))
        scores.latencies_ms.append((time.perf_counter() - started) * 1000)
        scores.messages += 1
        if _ROUTE.get(reading.intent, reading.intent) == _ROUTE.get(item["intent"], item["intent"]):
            scores.routed += 1
        else:
            scores.misses.append(f"intent {reading.intent} != {item['intent']}: {item['text']!r}")
        expected: dict[str, Any] = item.get("facts") or {}
        got = {fact.field: fact.value for fact in reading.facts}
        for name, value in expected.items():
            scores.labelled[name] += 1
            if name in got and same_value(value, got[name]):
                scores.true_positive[name] += 1
            else:
                scores.misses.append(f"missed {name}={value!r} (got {got.get(name)!r}): {item['text']!r}")
        for name, value in got.items():
            scores.produced[name] += 1
            if name not in expected or not same_value(expected[name], value):
                scores.misses.append(f"WRONG {name}={value!r}: {item['text']!r}")
        if item.get("slot_status"):
            scores.slots += 1
            status = reading.slot_answer.status if reading.slot_answer else None
            scores.slots_right += status == item["slot_status"]
    return scores


def report(scores: Scores, label: str) -> str:
    lines = [
        f"understanding benchmark ({label}), {scores.messages} labelled messages",
        f"routing accuracy   {scores.routing:.3f}",
        f"fact precision     {scores.precision():.3f}   recall {scores.recall():.3f}   "
        f"({sum(scores.true_positive.values())} right of {sum(scores.produced.values())} produced, "
        f"{sum(scores.labelled.values())} labelled)",
        f"slot answers       {scores.slots_right}/{scores.slots}",
        f"median latency     {statistics.median(scores.latencies_ms):.2f} ms per message",
        "per field:                        precision  recall  labelled",
    ]
    for name in sorted(set(scores.labelled) | set(scores.produced)):
        lines.append(
            f"  {name:<34} {scores.precision(name):6.3f}  {scores.recall(name):6.3f}  {scores.labelled[name]:5d}"
        )
    return "\n".join(lines)


def model_reader(model: str, url: str) -> Callable[[str, ReadingContext], Understanding]:
    from langchain_ollama import ChatOllama

    from advisor.understanding.model import ModelUnderstander

    reader = ModelUnderstander(ChatOllama(base_url=url, model=model, temperature=0.0, num_ctx=4096))
    return lambda text, context: reader.understand(text, context)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--provider", choices=["offline", "ollama"], default="offline")
    parser.add_argument("--model", default="llama3.1:8b")
    parser.add_argument("--url", default="http://localhost:11434")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument(
        "--corpus", type=Path, default=CORPUS, help="a labelled JSONL file (default: the main corpus)"
    )
    args = parser.parse_args()
    if args.provider == "offline":
        rules = RuleUnderstander()
        read, label = (lambda text, context: rules.understand(text, context)), "offline rule reader"
    else:
        read, label = model_reader(args.model, args.url), f"ollama:{args.model}"
    scores = score(load_corpus(args.corpus), read)
    print(report(scores, label))
    if args.misses:
        print("\n".join(scores.misses))


if __name__ == "__main__":
    main()
