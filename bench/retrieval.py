"""Knowledge-base benchmark: ingest time of the shipped corpus, and retrieval latency
(median, p95) on a synthetic 1 000-chunk corpus, BM25 alone and hybrid (BM25 + dense, weighted).
`--quality`: over each labelled question set (knowledge/eval/*.jsonl), hit@1 and hit@3 of the
first documents for BM25, dense and hybrid on the shipped corpus with the bundled encoder (each
question in the asker's place, as the turn reads it), and the offline hybrid latency including
the query's encoding (the encoder's cache is bypassed for queries: every one is encoded anew).
`--cited`: hit@1 of the cited section instead, over the labelled questions (knowledge/eval):
each asked through the real offline turn, and the first passage its answer cites compared with
the labelled `expected_section` (also printed by tests/test_cited_passage.py).

Run: .venv/bin/python -m bench.retrieval [--queries N] [--cited] [--quality]

The hybrid run uses a deterministic in-process embedder (hashed bag of words, 768-d), so
it measures Milvus Lite's side of the work, not an embedding model's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
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
from advisor.understanding.reader import understand
from knowledge.documents import load_documents
from knowledge.embeddings import ENCODER_DIMENSIONS, ENCODER_MODEL, EncoderEmbeddings
from knowledge.encoder import SentenceEncoder, sentence_encoder
from knowledge.ingest import DOCS_DIR, ingest
from knowledge.jurisdiction import Where, parts
from knowledge.retriever import (
    CHUNKS_PER_DOCUMENT,
    KnowledgeBaseRetriever,
    KnowledgeRetriever,
    normalize_bm25,
)
from knowledge.store import KnowledgeStore
from knowledge.train_judge import CACHE as JUDGE_CACHE
from profiles.models import UserProfile
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


QUESTION_SETS = ("knowledge_dev_questions.jsonl", "fresh_knowledge_q22.jsonl", "fresh_knowledge_q23.jsonl")


def where_as_read(question: str) -> Where:
    """Where the advisor takes a question to be for, as the turn does: the place or utility it
    names, or the home it states ("I live in San Diego …" is saved before retrieval)."""
    reading = understand(question)
    location = {f.field.split(".", 1)[1]: f.value for f in reading.facts if f.field.startswith("location.")}
    profile = UserProfile.model_validate({"user_id": "U-Q", "location": location}) if location else None
    return where_for(reading.params, profile)


class DenseOnly(KnowledgeBaseRetriever):
    """The shipped retriever with its search replaced by the dense half alone."""

    def _search(self, query: str):
        vector = self.embeddings.embed_query(query[:2000])  # type: ignore[union-attr]
        return self.store.search_dense(vector, self.k * CHUNKS_PER_DOCUMENT), lambda score: score


class BM25Only(KnowledgeBaseRetriever):
    def _search(self, query: str):
        return self.store.search_bm25(query, self.k * CHUNKS_PER_DOCUMENT), normalize_bm25


@dataclass
class SetQuality:
    name: str
    answerable: int = 0
    hits: dict[str, list[int]] = field(default_factory=dict)  # mode -> [hit@1, hit@3]


def quality(sets: tuple[str, ...] = QUESTION_SETS) -> tuple[list[SetQuality], list[float]]:
    """hit@1 / hit@3 per set and mode, and the hybrid latencies (ms, query encoding included)."""
    documents, _ = load_documents(DOCS_DIR)
    applies = {document.source: document.meta.applies_to for document in documents}
    encoder = sentence_encoder(JUDGE_CACHE)
    embeddings = EncoderEmbeddings(encoder)
    report: list[SetQuality] = []
    timings: list[float] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        KnowledgeStore(
            str(Path(folder) / "milvus.db"),
            dense_dimensions=ENCODER_DIMENSIONS,
            embedding_model=ENCODER_MODEL,
        ) as store,
    ):
        ingest(store, embeddings=embeddings)
        modes = {
            "BM25": BM25Only(store=store, k=3),
            "dense": DenseOnly(store=store, embeddings=embeddings, k=3),
            "hybrid": KnowledgeBaseRetriever(store=store, embeddings=embeddings, k=3),
        }
        fresh = UncachedQueries(encoder)
        timed = KnowledgeBaseRetriever(store=store, embeddings=fresh, k=4)
        for name in sets:
            result = SetQuality(name, hits={mode: [0, 0] for mode in modes})
            for line in (LABELS_DIR / name).read_text().splitlines():
                row = json.loads(line)
                state, _ = parts(applies.get(row.get("expected") or "", "US"))
                if not row.get("expected") or (state is not None and state != row.get("where")):
                    continue  # no document answers it for them
                result.answerable += 1
                accepted = {row["expected"], *(row.get("also_ok") or [])}
                where = where_as_read(row["question"])
                for mode, retriever in modes.items():
                    found = [d.metadata["source"] for d in retriever.invoke(row["question"], where=where)]
                    result.hits[mode][0] += bool(found[:1]) and found[0] in accepted
                    result.hits[mode][1] += bool(accepted & set(found[:3]))
                started = time.perf_counter()
                timed.invoke(row["question"], where=where)
                timings.append((time.perf_counter() - started) * 1000)
            report.append(result)
    return report, timings


class UncachedQueries(EncoderEmbeddings):
    """Queries encoded anew every time (a new message is never in the cache), for honest timings."""

    def __init__(self, encoder: SentenceEncoder) -> None:
        super().__init__(encoder)
        self._uncached = encoder

    def embed_query(self, text: str) -> list[float]:
        return self._uncached.encode_uncached(text).tolist()


def print_quality(report: list[SetQuality], timings: list[float]) -> None:
    print("first documents right, over the questions a document answers for the asker (k = 3):")
    print(f"{'set':34} {'n':>4}  " + "  ".join(f"{mode:>15}" for mode in report[0].hits))
    for result in report:
        cells = "  ".join(
            f"{one / result.answerable:.3f} / {three / result.answerable:.3f}"
            for one, three in result.hits.values()
        )
        print(f"{result.name:34} {result.answerable:>4}  {cells}")
    print("(each cell: hit@1 / hit@3)")
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"offline hybrid retrieval with the query encoded each time: median {statistics.median(timings):.1f} ms, "
        f"p95 {p95:.1f} ms over {len(timings)} questions (target ≤ 50 / ≤ 100 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cited", action="store_true", help="hit@1 of the cited section instead")
    parser.add_argument(
        "--quality", action="store_true", help="hit@1 / hit@3 per set for BM25, dense, hybrid"
    )
    args = parser.parse_args()
    if args.cited:
        run_cited()
        return
    if args.quality:
        print_quality(*quality())
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
