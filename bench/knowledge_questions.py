"""Knowledge questions through the real offline turn: does the first citation answer, does a
question no document answers get "I don't know", is another place's passage ever the answer?

Each labelled question (JSONL: question, where, expected, also_ok, jurisdiction_only) is asked by a
new user with no profile (the place comes from the question, as for a stranger in Slack):

- *hit@1*: of the questions a document answers for that person, the share whose first citation is
  the labelled document (or one of `also_ok`);
- *declined*: of the questions no document answers for them, the share answered with no citation;
- *wrong place*: answers whose first citation is a document for another state than the one the
  question is from.

Run once on a new set before anything uses it, with --record-first-run (bench/first_run.json).
Run: .venv/bin/python -m bench.knowledge_questions --questions FILE [--record-first-run]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.conversations import offline_runtime
from bench.understanding import record_first_run
from knowledge.documents import load_documents
from knowledge.ingest import DOCS_DIR
from knowledge.jurisdiction import parts


@dataclass
class KnowledgeScores:
    answerable: int = 0
    hits: int = 0
    uncovered: int = 0
    declined: int = 0
    not_explained: int = 0  # read as something else than a question to explain (a plan, an ask)
    wrong_place: int = 0
    misses: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        return {
            "answerable": self.answerable,
            "hit_at_1": round(self.hits / self.answerable, 3) if self.answerable else 0.0,
            "uncovered": self.uncovered,
            "declined": round(self.declined / self.uncovered, 3) if self.uncovered else 0.0,
            "not_explained": self.not_explained,
            "wrong_place": self.wrong_place,
        }


def answerable_for_them(row: dict[str, Any], where_of: dict[str, str]) -> bool:
    """A labelled answer counts when its document applies where the person is (or is national)."""
    if not row.get("expected"):
        return False
    if not row.get("jurisdiction_only") and not row.get("california_only"):
        return True
    state, _ = parts(where_of.get(row["expected"], "US"))
    return state is None or state == row.get("where")


def score(rows: list[dict[str, Any]], service: Any) -> KnowledgeScores:
    documents, _ = load_documents(DOCS_DIR)
    applies = {document.source: document.meta.applies_to for document in documents}
    scores = KnowledgeScores()
    for number, row in enumerate(rows):
        reply = service.handle_turn(f"KQ-{number}", f"kq{number}", row["question"])
        first = reply.citations[0] if reply.citations else None
        if first is not None and row.get("where"):
            state, _ = parts(applies.get(first, "US"))
            scores.wrong_place += state is not None and state != row["where"]
        if reply.intent != "knowledge":
            scores.not_explained += 1
        if answerable_for_them(row, applies):
            scores.answerable += 1
            right = first is not None and (first == row["expected"] or first in row.get("also_ok", []))
            scores.hits += right
            if not right:
                scores.misses.append(f"{row['question'][:90]!r}: cited {first}, expected {row['expected']}")
        else:
            scores.uncovered += 1
            scores.declined += first is None and reply.intent == "knowledge"
            if first is not None:
                scores.misses.append(f"{row['question'][:90]!r}: no document answers it, cited {first}")
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--record-first-run", action="store_true")
    args = parser.parse_args()
    rows = [
        json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    with tempfile.TemporaryDirectory() as folder:
        runtime = offline_runtime(Path(folder))
        try:
            scores = score(rows, runtime.service)
        finally:
            runtime.close()
    figures = scores.figures()
    print(f"knowledge questions ({args.questions.name}), {len(rows)} asked through the offline turn")
    print(f"first citation right (hit@1)   {figures['hit_at_1']:.3f} of {scores.answerable} answerable")
    print(f"'I don't know' when uncovered  {figures['declined']:.3f} of {scores.uncovered}")
    print(f"read as no explanation          {scores.not_explained}")
    print(f"another state's passage given   {scores.wrong_place}")
    for miss in scores.misses:
        print("  miss:", miss)
    if args.record_first_run:
        record_first_run(args.questions.name, {**figures, "recorded": time.strftime("%Y-%m-%d")})


if __name__ == "__main__":
    main()
