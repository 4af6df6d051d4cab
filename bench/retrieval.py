"""Knowledge-base benchmark: ingest time of the shipped corpus, and retrieval latency
(median, p95) on a synthetic 1 000-chunk corpus, BM25 alone and hybrid (BM25 + dense, weighted).
`--cited`: hit@1 of the cited section instead, over the labelled questions (knowledge/eval):
each asked through the real offline turn, and the first passage its answer cites compared with
the labelled `expected_section` (also printed by tests/test_cited_passage.py).

Run: .venv/bin/python -m bench.retrieval [--queries N] [--cited]

The hybrid run uses a deterministic in-process embedder (hashed bag of words, 768-d), so
it measures Milvus Lite's side of the work, not an embedding model's.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from advisor.nodes.retrieve import where_for
from knowledge.embeddings import ENCODER_MODEL, EncoderEmbeddings
from knowledge.encoder import sentence_encoder
from knowledge.ingest import ingest
from knowledge.retriever import KnowledgeRetriever
from knowledge.store import KnowledgeStore
from traces.graders.retrieval_relevance import PROJECT_DIR, SectionLabel, load_section_labels
from traces.storage import load_trace

LABELS_DIR = PROJECT_DIR / "knowledge" / "eval"

WORDS = (
    "heat pump battery solar panel inverter charger tariff peak off-peak kilowatt hour evening morning "
    "insulation attic duct window thermostat setback water heater dryer dishwasher rebate credit export "
    "import grid outage reserve efficiency compressor refrigerant coil furnace gas electric vehicle range "
    "level circuit breaker panel amp volt cost bill season summer winter fog cloud tilt azimuth shade"
).split()


class HashEmbeddings(Embeddings):
    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * 768
        for word in text.lower().split():
            digest = hashlib.sha256(word.encode()).digest()
            vector[int.from_bytes(digest[:4], "big") % 768] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def synthetic_corpus(folder: Path, documents: int = 200, sections: int = 5) -> None:
    rng = random.Random(7)
    for number in range(documents):
        body = "\n\n".join(
            f"## Section {s}\n" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 160)))
            for s in range(sections)
        )
        (folder / f"doc-{number:03d}.md").write_text(
            f"---\ntitle: Synthetic document {number}\ntopics: [bench]\nsources:\n  - title: bench\n"
            f"    url: https://example.org/{number}\nas_of: 2026-01-15\n---\n# Synthetic document {number}\n\n{body}\n",
            encoding="utf-8",
        )


def latencies(retriever: KnowledgeRetriever, queries: list[str]) -> tuple[float, float]:
    timings = []
    for query in queries:
        start = time.perf_counter()
        retriever.retrieve(query, 4)
        timings.append((time.perf_counter() - start) * 1000)
    ordered = sorted(timings)
    return statistics.median(timings), ordered[max(0, int(len(ordered) * 0.95) - 1)]


# --- hit@1 of the cited section ------------------------------------------------------------


def section_labels() -> list[SectionLabel]:
    """The labelled questions that name the section answering them."""
    return [label for label in load_section_labels(LABELS_DIR).values() if label.section]


@dataclass
class CitedSections:
    asked: int = 0
    hits: int = 0
    retrieval_hits: int = 0  # the retriever's first passage, on the question as written
    misses: list[str] = field(default_factory=list)
    not_retrieved: list[str] = field(default_factory=list)  # answered by a plan or a clarifying question

    @property
    def hit_at_1(self) -> float:
        return self.hits / self.asked if self.asked else 0.0

    @property
    def retrieval_hit_at_1(self) -> float:
        return self.retrieval_hits / self.asked if self.asked else 0.0


def cited_sections(runtime: Any, profile: dict[str, Any]) -> CitedSections:
    """Ask every labelled question through `runtime` (tests.advisor_helpers.make_runtime(...,
    knowledge=True)), each as a new user with `profile`, and compare the section of the first
    passage the answer cites with the label."""
    report = CitedSections()
    store = runtime.knowledge
    embeddings = EncoderEmbeddings(sentence_encoder()) if store.embedding_model == ENCODER_MODEL else None
    retriever = KnowledgeRetriever(
        store, embeddings
    )  # as the turn searches (offline: hybrid with the encoder)
    for number, label in enumerate(section_labels()):
        user = f"T1-Q{number}"
        runtime.advisor.profiles.import_profile({**profile, "user_id": user})
        reply = runtime.service.handle_turn(user, f"q{number}", label.question)
        trace = load_trace(runtime.service.traces.find(user, reply.trace_id))
        passages = [
            result.metadata or {}
            for step in trace.steps
            if step.step_type == "retrieval"
            for result in step.results
        ]
        cited = [
            n
            for step in trace.steps
            if step.step_type == "state_change" and step.state_key == "cited_passages"
            for n in step.new_value
        ]
        report.asked += 1
        first = retriever.retrieve(
            label.question, 1, where=where_for(None, runtime.advisor.profiles.get(user))
        )
        report.retrieval_hits += (
            bool(first) and first[0].source == label.source and _section(first[0].text) == label.section
        )
        if not passages:
            report.not_retrieved.append(label.question)
        used = passages[cited[0] - 1] if cited else {}
        if (used.get("source"), used.get("section")) == (label.source, label.section):
            report.hits += 1
        else:
            report.misses.append(
                f"{label.question!r}: cited {used.get('source')} § {used.get('section')!r}, "
                f"expected {label.source} § {label.section!r}"
            )
    return report


def _section(text: str) -> str:
    return text.split("\n\n", 1)[0].split(" — ", 1)[-1]


def print_cited_sections(report: CitedSections) -> None:
    print(
        f"cited section hit@1 on {report.asked} labelled questions (offline turn): {report.hit_at_1:.3f} "
        f"({report.hits}/{report.asked}); {len(report.not_retrieved)} answered without retrieval "
        f"(a plan or a clarifying question); retriever's first passage on the question as written: "
        f"{report.retrieval_hit_at_1:.3f}"
    )
    for miss in report.misses:
        print("  miss:", miss)


def run_cited() -> None:
    from datetime import datetime, timezone

    from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime  # the tests' offline runtime

    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        data.mkdir()
        runtime = make_runtime(
            data, knowledge=True, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
        )
        try:
            print_cited_sections(cited_sections(runtime, CONFIGURED_PROFILE))
        finally:
            runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cited", action="store_true", help="hit@1 of the cited section instead")
    args = parser.parse_args()
    if args.cited:
        run_cited()
        return
    count = args.queries
    rng = random.Random(11)
    queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))) for _ in range(count)]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with KnowledgeStore(
            str(root / "corpus" / "milvus.db"), dense_dimensions=None, embedding_model=None
        ) as store:
            report = ingest(store)
            again = ingest(store)
        print(
            f"shipped corpus: {report.documents} documents, {report.chunks} chunks; first ingest {report.seconds * 1000:.0f} ms (BM25), re-run with no change {again.seconds * 1000:.0f} ms"
        )

        docs = root / "synthetic"
        docs.mkdir()
        synthetic_corpus(docs)
        with KnowledgeStore(
            str(root / "bm25" / "milvus.db"), dense_dimensions=None, embedding_model=None
        ) as store:
            built = ingest(store, docs_dir=docs)
            median, p95 = latencies(KnowledgeRetriever(store), queries)
            print(f"synthetic corpus: {built.chunks} chunks, ingest {built.seconds:.1f} s (BM25)")
            print(f"BM25 retrieval      median {median:6.2f} ms  p95 {p95:6.2f} ms  ({count} queries, k=4)")
        # after a restart nothing changed, so nothing is re-flushed: the sealed segment must be reused
        with KnowledgeStore(
            str(root / "bm25" / "milvus.db"), dense_dimensions=None, embedding_model=None
        ) as store:
            assert ingest(store, docs_dir=docs).changed == 0
            median, p95 = latencies(KnowledgeRetriever(store), queries)
            print(f"BM25 after reopen   median {median:6.2f} ms  p95 {p95:6.2f} ms  ({count} queries, k=4)")
        embeddings = HashEmbeddings()
        with KnowledgeStore(
            str(root / "hybrid" / "milvus.db"), dense_dimensions=768, embedding_model="hash"
        ) as store:
            built = ingest(store, docs_dir=docs, embeddings=embeddings)
            median, p95 = latencies(KnowledgeRetriever(store, embeddings), queries)
            print(
                f"synthetic corpus: {built.chunks} chunks, ingest {built.seconds:.1f} s (hybrid, in-process embedder)"
            )
            print(f"hybrid retrieval    median {median:6.2f} ms  p95 {p95:6.2f} ms  ({count} queries, k=4)")


if __name__ == "__main__":
    main()
