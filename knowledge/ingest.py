"""Ingestion (FR-033): markdown documents -> chunks -> Milvus, idempotently.

Chunks are keyed by content hash. A run compares the hashes on disk with those stored:
new or edited chunks are embedded and upserted, chunks of edited or removed documents are
deleted, and unchanged chunks cost nothing ("0 changed"). Malformed documents are reported
by name and skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, Field

from knowledge.documents import load_documents
from knowledge.embeddings import document_prefix
from knowledge.store import KnowledgeStore

DOCS_DIR = Path(__file__).resolve().parent / "docs"
EMBED_BATCH = 16
PROGRESS_AFTER_SECONDS = 1.0

Progress = Callable[[str], None]


class IngestReport(BaseModel):
    documents: int
    chunks: int
    added: int
    removed: int
    unchanged: int
    embedded: int
    skipped: list[str] = Field(default_factory=list)  # "name.md: reason"
    seconds: float = 0.0

    @property
    def changed(self) -> int:
        return self.added + self.removed

    def summary(self) -> str:
        text = (
            f"Knowledge base: {self.documents} documents, {self.chunks} chunks; {self.changed} changed "
            f"({self.added} added, {self.removed} removed, {self.unchanged} unchanged) in {self.seconds:.1f} s."
        )
        for problem in self.skipped:
            text += f"\n  skipped {problem}"
        return text


def ingest(
    store: KnowledgeStore,
    *,
    docs_dir: Path = DOCS_DIR,
    embeddings: Embeddings | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    started = time.monotonic()
    documents, problems = load_documents(docs_dir)
    wanted = {chunk.id: chunk for document in documents for chunk in document.chunks()}
    stored = store.existing()
    new = [chunk for chunk_id, chunk in wanted.items() if chunk_id not in stored]
    gone = [chunk_id for chunk_id in stored if chunk_id not in wanted]
    vectors = None
    if new and store.hybrid:
        if embeddings is None:
            raise ValueError("the knowledge base has dense vectors but no embedding model was given")
        vectors = []
        for start in range(0, len(new), EMBED_BATCH):
            batch = new[start : start + EMBED_BATCH]
            prefix = document_prefix(embeddings)
            vectors.extend(embeddings.embed_documents([f"{prefix}{chunk.text}" for chunk in batch]))
            if progress and time.monotonic() - started > PROGRESS_AFTER_SECONDS:
                progress(f"Embedding knowledge base: {min(start + EMBED_BATCH, len(new))}/{len(new)} chunks")
    store.delete(gone)
    store.insert(new, vectors)
    if new or gone:
        store.flush()
    return IngestReport(
        documents=len(documents),
        chunks=len(wanted),
        added=len(new),
        removed=len(gone),
        unchanged=len(wanted) - len(new),
        embedded=len(vectors or []),
        skipped=[str(problem) for problem in problems],
        seconds=time.monotonic() - started,
    )
