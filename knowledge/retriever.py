"""Retrieval (FR-034/035): hybrid BM25 + dense (RRF, k = 60) when an embedding model is
available, BM25 alone otherwise. Scores are normalized to 0..1.

`KnowledgeRetriever.retrieve` goes through a LangChain `BaseRetriever`, so callback-based
tracing records every retrieval (query, results, scores) with no extra code.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict

from knowledge.models import RetrievedDocument
from knowledge.store import RRF_K, KnowledgeStore

logger = logging.getLogger(__name__)

BM25_HALF_SCORE = 2.0  # a BM25 score of 2 maps to 0.5; scores saturate towards 1
MAX_RRF = 2 / (RRF_K + 1)  # first in both rankings
CHUNKS_PER_DOCUMENT = 3  # fetch k x 3 chunks; answer with the best chunk of k distinct documents


def normalize_bm25(score: float) -> float:
    return round(score / (score + BM25_HALF_SCORE), 4) if score > 0 else 0.0


def normalize_rrf(score: float) -> float:
    return round(min(1.0, score / MAX_RRF), 4)


class KnowledgeBaseRetriever(BaseRetriever):
    """LangChain face of the knowledge base; documents carry `source`, `score`, `title`, `section`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: KnowledgeStore
    embeddings: Embeddings | None = None
    k: int = 4

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        query = " ".join(query.split())
        if not query:
            return []
        hits, normalize = self._search(query)
        best: dict[str, tuple[dict[str, Any], float]] = {}
        for row, score in hits:  # best first: keep each document's best chunk only
            best.setdefault(row["source"], (row, score))
        return [
            Document(
                page_content=row["text"],
                metadata={
                    "source": row["source"],
                    "title": row.get("title"),
                    "section": row.get("section"),
                    "score": normalize(score),
                },
            )
            for row, score in list(best.values())[: self.k]
        ]

    def _search(self, query: str):
        """Chunks best first: more than k, so k distinct documents remain after de-duplication."""
        fetch = self.k * CHUNKS_PER_DOCUMENT
        if self.store.hybrid and self.embeddings is not None:
            try:
                vector = self.embeddings.embed_query(f"search_query: {query[:2000]}")
                return self.store.search_hybrid(query, vector, fetch), normalize_rrf
            except Exception as exc:  # the embedding model is down: full-text search still answers
                logger.warning("Embedding the query failed (%s); using BM25 only", type(exc).__name__)
        return self.store.search_bm25(query, fetch), normalize_bm25


class KnowledgeRetriever:
    """What the advisor graph uses: `retrieve(query, k, config)` -> RetrievedDocument list."""

    def __init__(self, store: KnowledgeStore, embeddings: Embeddings | None = None) -> None:
        self.store = store
        self.embeddings = embeddings
        self.mode = "hybrid (BM25 + dense, RRF)" if store.hybrid and embeddings is not None else "BM25"
        self._retrievers: dict[int, KnowledgeBaseRetriever] = {}  # one per k, built once

    def retrieve(
        self, query: str, k: int = 4, config: RunnableConfig | None = None
    ) -> list[RetrievedDocument]:
        retriever = self._retrievers.get(k)
        if retriever is None:
            retriever = self._retrievers[k] = KnowledgeBaseRetriever(
                store=self.store, embeddings=self.embeddings, k=k
            )
        documents = retriever.invoke(query, config=config)
        return [_to_retrieved(document) for document in documents]


def _to_retrieved(document: Document) -> RetrievedDocument:
    metadata: dict[str, Any] = document.metadata
    return RetrievedDocument(
        text=document.page_content,
        source=metadata["source"],
        score=metadata["score"],
        title=metadata.get("title"),
    )
