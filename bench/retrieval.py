"""Knowledge-base benchmark: ingest time of the shipped corpus, and retrieval latency
(median, p95) on a synthetic 1 000-chunk corpus, BM25 alone and hybrid (BM25 + dense, RRF).

Run: .venv/bin/python -m bench.retrieval [--queries N]

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
from pathlib import Path

from langchain_core.embeddings import Embeddings

from knowledge.ingest import ingest
from knowledge.retriever import KnowledgeRetriever
from knowledge.store import KnowledgeStore

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=200)
    count = parser.parse_args().queries
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
