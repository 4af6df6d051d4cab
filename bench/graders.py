"""Grader speed: every grader on a generated 1 000-step trace, median milliseconds per grader.

Run: .venv/bin/python -m bench.graders [--steps N] [--rounds R]

The trace asks a labelled question (knowledge/eval), so retrieval_relevance also runs its
answering-section check; its passages carry the document and section the recorder stores.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import datetime, timedelta, timezone

from context_forge.core.trace import (
    FinalOutputStep,
    LLMCallStep,
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    StateChangeStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)
from context_forge.core.types import AgentInfo, FieldChange, RetrievalResult

from config.files import EvalConfig
from traces.graders import all_graders
from traces.loading import parse_trace


def generated_trace(steps: int) -> TraceRun:
    start = datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    made: list = [UserInputStep(step_id="question", timestamp=start, content="How do heat pumps work?")]
    for n in range(steps - 2):
        common = {
            "step_id": f"s{n}",
            "timestamp": start + timedelta(milliseconds=n),
            "metadata": {"node": "bench"},
        }
        kind = n % 7
        if kind == 0:
            made.append(
                LLMCallStep(
                    **common, model="m", input="question " * 50, output="answer " * 40, tokens_total=300
                )
            )
        elif kind == 1:
            made.append(
                ToolCallStep(
                    **common,
                    tool_name=f"tool{n % 5}",
                    arguments={"hours": n % 9, "day": "today"},
                    success=True,
                )
            )
        elif kind == 2:
            results = [
                RetrievalResult(
                    content=f"Passage {n}-{i}. " + "words " * 80,
                    score=0.5,
                    metadata={"source": f"doc-{i}.md", "title": "Bench", "section": f"Section {i}"},
                )
                for i in range(4)
            ]
            made.append(RetrievalStep(**common, query="q", results=results, match_count=4))
        elif kind == 3:
            sections = {"household": "2025-06-15T10:00:00+00:00", "equipment": "2025-12-01T10:00:00+00:00"}
            made.append(
                MemoryReadStep(**common, query={"k": n}, results=[{"sections": sections}], match_count=1)
            )
        elif kind == 4:
            change = FieldChange(path="household.occupants", old_value=2, new_value=3)
            made.append(
                MemoryWriteStep(
                    **common,
                    namespace=["profiles", "u"],
                    key="profile",
                    operation="update",
                    data={},
                    changes=[change],
                )
            )
        elif kind == 5:
            made.append(StateChangeStep(**common, state_key="cited_passages", new_value=[1, 2]))
        else:
            made.append(
                StateChangeStep(
                    **common,
                    state_key="stated_facts",
                    new_value=[{"field": "household.occupants", "text": "we are 3"}],
                )
            )
    made.append(
        FinalOutputStep(step_id="final", timestamp=start + timedelta(seconds=2), content="answer " * 100)
    )
    # Built without TraceRun's own validation (ContextForge's duplicate-id check is quadratic:
    # minutes at 100 000 steps) and read back through traces/loading.py, the loader `evaluate` uses.
    built = TraceRun.model_construct(
        run_id="b" * 32,
        started_at=start,
        ended_at=start + timedelta(seconds=3),
        agent_info=AgentInfo(name="bench"),
        steps=made,
        metadata={"kind": "turn"},
    )
    return parse_trace(built.model_dump_json())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    trace = generated_trace(args.steps)
    print(f"grader speed on a generated {len(trace.steps)}-step trace, {args.rounds} rounds")
    for grader in all_graders(EvalConfig()):
        timings = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            grader.grade(trace)
            timings.append((time.perf_counter() - start) * 1000)
        print(f"{grader.name:<22} median {statistics.median(timings):6.2f} ms   max {max(timings):6.2f} ms")


if __name__ == "__main__":
    main()
