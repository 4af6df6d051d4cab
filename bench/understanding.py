"""How well messages are understood, per labelled corpus, and how many conversations are handled.

Run: .venv/bin/python -m bench.understanding                    # every corpus in tests/data
     .venv/bin/python -m bench.understanding --corpus FILE.jsonl --conversations FILE.jsonl
     .venv/bin/python -m bench.understanding --provider ollama --model llama3.1:8b [--url URL]

For each message corpus: intent routing (the reading leads to the handling the label names),
requests answered (a message labelled as asking for an answer is read as asking for one), fact
precision and recall (field and value, numbers within 0.02, names as the tables know them), slot
answers, and the reader's median latency per message with the encoder (measured in this run; each
text is encoded once, so no cache helps). For each conversation corpus: conversations and turns
handled (bench/conversations.py). Next to each figure: the first run on that corpus, recorded once
with --record-first-run before the corpus was used for anything else (bench/first_run.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.understanding.models import ReadingContext, RequestParams, Understanding
from advisor.understanding.reader import LearnedReader
from bench.conversations import load_conversations, offline_runtime, same_fact, score_conversations

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CORPUS = DATA / "understanding_corpus.jsonl"
FIRST_RUN = Path(__file__).resolve().parent / "first_run.json"
ANSWERS = ("live_data", "knowledge")


@dataclass
class Scores:
    messages: int = 0
    routed: int = 0
    requests: int = 0
    requests_read: int = 0
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

    @property
    def requests_answered(self) -> float:
        return self.requests_read / self.requests if self.requests else 1.0

    def precision(self, name: str | None = None) -> float:
        produced = self.produced[name] if name else sum(self.produced.values())
        right = self.true_positive[name] if name else sum(self.true_positive.values())
        return right / produced if produced else 1.0

    def recall(self, name: str | None = None) -> float:
        labelled = self.labelled[name] if name else sum(self.labelled.values())
        right = self.true_positive[name] if name else sum(self.true_positive.values())
        return right / labelled if labelled else 1.0

    def figures(self) -> dict[str, float]:
        return {
            "messages": self.messages,
            "routing": round(self.routing, 3),
            "requests_answered": round(self.requests_answered, 3),
            "fact_precision": round(self.precision(), 3),
            "fact_recall": round(self.recall(), 3),
            "median_ms": round(statistics.median(self.latencies_ms), 1) if self.latencies_ms else 0.0,
        }


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


def same_value(expected: Any, got: Any, name: str = "") -> bool:
    return same_fact(name, expected, got)


def label_route(item: dict[str, Any]) -> str:
    """The handling a label asks for: a correction with a value is saved like any statement."""
    intent = item["intent"]
    if intent == "correction":
        return "save" if item.get("facts") else "undo"
    return "save" if intent == "profile_statement" else intent


def reading_route(reading: Understanding) -> str:
    if reading.undo:
        return "undo"
    return "save" if reading.intent in ("profile_statement", "correction") else reading.intent


def score(corpus: Iterable[dict[str, Any]], read: Callable[[str, ReadingContext], Understanding]) -> Scores:
    scores = Scores()
    for item in corpus:
        started = time.perf_counter()
        reading = read(item["text"], context_of(item))
        scores.latencies_ms.append((time.perf_counter() - started) * 1000)
        scores.messages += 1
        if reading_route(reading) == label_route(item):
            scores.routed += 1
        else:
            scores.misses.append(f"route {reading_route(reading)} != {label_route(item)}: {item['text']!r}")
        if item["intent"] in ANSWERS:
            scores.requests += 1
            scores.requests_read += reading.intent in ANSWERS
        _score_facts(scores, item, reading)
        if item.get("slot_status"):
            scores.slots += 1
            status = reading.slot_answer.status if reading.slot_answer else None
            scores.slots_right += status == item["slot_status"]
    return scores


def _score_facts(scores: Scores, item: dict[str, Any], reading: Understanding) -> None:
    expected: dict[str, Any] = item.get("facts") or {}
    got = {fact.field: fact.value for fact in reading.facts}
    for name, value in expected.items():
        scores.labelled[name] += 1
        if name in got and same_value(value, got[name], name):
            scores.true_positive[name] += 1
        else:
            scores.misses.append(f"missed {name}={value!r} (got {got.get(name)!r}): {item['text']!r}")
    for name, value in got.items():
        scores.produced[name] += 1
        if name not in expected or not same_value(expected[name], value, name):
            scores.misses.append(f"WRONG {name}={value!r}: {item['text']!r}")


def report(scores: Scores, label: str, first: dict[str, Any] | None = None) -> str:
    def was(key: str) -> str:
        return f"   (first run {first[key]:.3f})" if first and key in first else ""

    lines = [
        f"understanding benchmark ({label}), {scores.messages} labelled messages",
        f"routing accuracy   {scores.routing:.3f}{was('routing')}",
        f"requests answered  {scores.requests_answered:.3f}{was('requests_answered')}",
        f"fact precision     {scores.precision():.3f}{was('fact_precision')}",
        f"fact recall        {scores.recall():.3f}{was('fact_recall')}   "
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


def message_corpora() -> list[Path]:
    return sorted(path for path in DATA.glob("*.jsonl") if not path.name.endswith("conversations.jsonl"))


def conversation_corpora() -> list[Path]:
    return sorted(DATA.glob("*conversations.jsonl"))


def first_runs() -> dict[str, Any]:
    return json.loads(FIRST_RUN.read_text()) if FIRST_RUN.exists() else {}


def record_first_run(name: str, figures: dict[str, Any]) -> None:
    """A corpus's first run is recorded once: a second run of the same corpus name is refused."""
    runs = first_runs()
    if name in runs:
        raise SystemExit(f"{name} already has a first run ({FIRST_RUN}); it is recorded once.")
    runs[name] = figures
    FIRST_RUN.write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--provider", choices=["offline", "ollama"], default="offline")
    parser.add_argument("--model", default="llama3.1:8b")
    parser.add_argument("--url", default="http://localhost:11434")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument("--corpus", type=Path, action="append", help="a labelled message JSONL (repeatable)")
    parser.add_argument(
        "--conversations", type=Path, action="append", help="a conversation JSONL (repeatable)"
    )
    parser.add_argument(
        "--record-first-run", action="store_true", help="record these figures as the first run"
    )
    args = parser.parse_args()
    corpora = args.corpus or ([] if args.conversations else message_corpora())
    conversations = args.conversations or ([] if args.corpus else conversation_corpora())
    if args.provider == "offline":
        reader = LearnedReader()
        read, label = (lambda text, context: reader.understand(text, context)), "offline reader"
    else:
        read, label = model_reader(args.model, args.url), f"ollama:{args.model}"
    first = first_runs()
    for path in corpora:
        scores = score(load_corpus(path), read)
        print(report(scores, f"{label}, {path.name}", first.get(path.name)) + "\n")
        if args.misses:
            print("\n".join(scores.misses) + "\n")
        if args.record_first_run:
            record_first_run(path.name, {**scores.figures(), "recorded": time.strftime("%Y-%m-%d")})
    for path in conversations:
        _conversations(path, first.get(path.name), args)


def _conversations(path: Path, first: dict[str, Any] | None, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        runtime = offline_runtime(Path(folder))
        scores = score_conversations(load_conversations(path), runtime.service)
    was = f"   (first run {first['handled']:.3f})" if first else ""
    print(
        f"conversations ({path.name}): {scores.handled}/{scores.conversations} handled "
        f"({scores.rate:.3f}){was}; turns {scores.turns_handled}/{scores.turns} ({scores.turn_rate:.3f})"
    )
    if args.misses:
        for failure in scores.failures:
            print(
                f"  {failure.conversation}#{failure.index} [{failure.kind}] {failure.user!r}: {'; '.join(failure.problems)}"
            )
    if args.record_first_run:
        record_first_run(
            path.name,
            {
                "conversations": scores.conversations,
                "handled": round(scores.rate, 3),
                "turns_handled": round(scores.turn_rate, 3),
                "recorded": time.strftime("%Y-%m-%d"),
            },
        )


if __name__ == "__main__":
    main()
