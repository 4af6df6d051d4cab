"""Retrieval (FR-034/035): hybrid BM25 + dense (Milvus' WeightedRanker, 0.4 / 0.6) when an
embedding model is available, BM25 alone otherwise. Scores are normalized to 0..1.

Documents are ranked by their best chunk; the passage given for a document is then the section
that answers the question (`answering_chunk`), which is not always the chunk that ranked it:
"How do heat pumps work?" ranks the heat-pump document first through its cold-climate section
(it says "heat pumps" most often), but the question is answered by its opening section.

`KnowledgeRetriever.retrieve` goes through a LangChain `BaseRetriever`, so callback-based
tracing records every retrieval (query, results, scores) with no extra code.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict

from knowledge.answer_judge import COSINE_AT, answer_judge, pair_features, precedents
from knowledge.answerability import Answerability, rarity, word_coverage
from knowledge.documents import FILLER_TERMS, content_terms, load_documents
from knowledge.embeddings import document_prefix, query_prefix
from knowledge.encoder import EncoderUnavailableError, sentence_encoder
from knowledge.glossary import spelled_out
from knowledge.ingest import DOCS_DIR
from knowledge.jurisdiction import NOWHERE, Where, fits
from knowledge.models import RetrievedDocument, key_of
from knowledge.store import KnowledgeStore

logger = logging.getLogger(__name__)

BM25_HALF_SCORE = 2.0  # a BM25 score of 2 maps to 0.5; scores saturate towards 1
# Fetch k x 8 chunks: k distinct documents remain after de-duplication, and the top documents'
# other sections (a document has 3-5) are there to choose the answering one from.
CHUNKS_PER_DOCUMENT = 8
HEADING_WEIGHT = 2  # a question word in a section's heading counts twice one in its text

Outline = Mapping[str, Sequence[str]]  # document file name -> its section headings, in order


def normalize_bm25(score: float) -> float:
    return round(score / (score + BM25_HALF_SCORE), 4) if score > 0 else 0.0


def normalize_weighted(score: float) -> float:
    return round(min(1.0, max(0.0, score)), 4)


class KnowledgeBaseRetriever(BaseRetriever):
    """LangChain face of the knowledge base; documents carry `source`, `score`, `title`, `section`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: KnowledgeStore
    embeddings: Embeddings | None = None
    k: int = 4
    outline: Outline | None = None  # section order, for "the opening section" (default: knowledge/docs)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        where: Where = NOWHERE,
        skip: frozenset[str] = frozenset(),
    ) -> list[Document]:
        query = " ".join(query.split())
        if not query:
            return []
        hits, normalize = self._search(spelled_out(query))
        by_document: dict[str, list[tuple[dict[str, Any], float]]] = {}
        for row, score in hits:  # best first, so documents keep the order of their best chunk
            if skip and key_of(row["source"], row["text"]) in skip:
                continue  # already given: the document's next best passage stands for it
            by_document.setdefault(row["source"], []).append((row, score))
        outline = self.outline if self.outline is not None else shipped_outline()
        asked = content_terms(spelled_out(query))  # "hpwh", "-25F": what the words stand for too
        chosen = [
            answering_chunk(asked, chunks, outline)
            for chunks in in_their_place(by_document, where, asked)[: self.k]
        ]
        return [
            Document(
                page_content=row["text"],
                metadata={
                    "source": row["source"],
                    "title": row.get("title"),
                    "section": row.get("section"),
                    "applies_to": row.get("applies_to") or "US",
                    "score": normalize(score),
                },
            )
            for row, score in chosen
        ]

    def _search(self, query: str):
        """Chunks best first: more than k, so k distinct documents remain after de-duplication."""
        fetch = self.k * CHUNKS_PER_DOCUMENT
        if self.store.hybrid and self.embeddings is not None:
            try:
                vector = self.embeddings.embed_query(f"{query_prefix(self.embeddings)}{query[:2000]}")
                return self.store.search_hybrid(query, vector, fetch), normalize_weighted
            except Exception as exc:  # the embedding model is down: full-text search still answers
                logger.warning("Embedding the query failed (%s); using BM25 only", type(exc).__name__)
        return self.store.search_bm25(query, fetch), normalize_bm25


def in_their_place(
    by_document: dict[str, list[tuple[dict[str, Any], float]]], where: Where, asked: set[str] | None = None
) -> list[list[tuple[dict[str, Any], float]]]:
    """Documents in rank order, without those for another place; with their place unknown, the
    national ones before any state's (which stays usable, said as that state's), unless the
    question names that state's document by its title ("What is the Solar Billing Plan?")."""
    first, then = [], []
    for chunks in by_document.values():
        verdict = fits(str(chunks[0][0].get("applies_to") or "US"), where)
        title = content_terms(str(chunks[0][0].get("title") or ""))
        if verdict is True or (verdict is None and asked and len(asked) >= 2 and asked <= title):
            first.append(chunks)
        elif verdict is None:
            then.append(chunks)
    return first + then


# words that say how something is asked, not what about ("what does time of use mean anyway"): a
# section that happens to hold them is no better an answer


def answering_chunk(
    asked: set[str], chunks: list[tuple[dict[str, Any], float]], outline: Outline
) -> tuple[dict[str, Any], float]:
    """Of one document's chunks (best first), the one whose section answers the question.

    Only the question's words that the document's title does not already say can tell its
    sections apart ("How do heat pumps work?" says nothing the title "How an air-source heat pump
    works" does not). The chunk whose heading and text hold the most of those words wins (heading
    words count double), the search's order breaking ties; when no section holds any of them the
    question is about the document as a whole, and its opening section answers it."""
    if len(chunks) == 1:
        return chunks[0]
    distinctive = asked - content_terms(str(chunks[0][0].get("title") or "")) - FILLER_TERMS
    order = {section: position for position, section in enumerate(outline.get(chunks[0][0]["source"], ()))}

    def said(row: dict[str, Any]) -> int:
        heading = content_terms(str(row.get("section") or ""))
        text = _body_terms(row["text"])
        return sum(HEADING_WEIGHT * (word in heading) + (word in text) for word in distinctive)

    scores = [said(row) for row, _ in chunks]
    best = max(scores)
    if best == 0:
        # nothing but the title's words: a heading that names all of them ("whats a demand charge"
        # in "…flat, tiered, time-of-use and demand charges" is its demand-charge section), else
        # the document's opening section
        named = [asked <= content_terms(str(row.get("section") or "")) for row, _ in chunks]
        title = content_terms(str(chunks[0][0].get("title") or ""))
        # only for a question about one part of a broad title (2 of its 11 words, not 2 of 5:
        # "What is pre-cooling?" is still answered by the opening section)
        if len(asked) >= 2 and any(named) and len(asked & title) < 0.3 * len(title):
            return chunks[named.index(True)]
        return min(chunks, key=lambda chunk: order.get(chunk[0].get("section"), len(order)))
    return chunks[scores.index(best)]


@lru_cache(maxsize=4096)
def _body_terms(text: str) -> frozenset[str]:
    """Content words of a chunk without its "Title — Section" line (chunks repeat across queries)."""
    return frozenset(content_terms(text.split("\n\n", 1)[-1]))


@lru_cache(maxsize=8)
def _outline_of(folder: Path) -> dict[str, tuple[str, ...]]:
    documents, _ = load_documents(folder)
    return {
        document.source: tuple(dict.fromkeys(chunk.section for chunk in document.chunks()))
        for document in documents
    }


def shipped_outline() -> dict[str, tuple[str, ...]]:
    """Section order of the shipped corpus (what `ingest` loads by default), read once."""
    return _outline_of(DOCS_DIR)


@lru_cache(maxsize=8)
def _rarity_of(folder: Path) -> dict[str, float]:
    documents, _ = load_documents(folder)
    return rarity(chunk.text for document in documents for chunk in document.chunks())


class KnowledgeRetriever:
    """What the advisor graph uses: `retrieve(query, k, config)` -> RetrievedDocument list, and
    `judge(query, passage)`: whether that passage answers the question (knowledge/answerability.py)."""

    def __init__(
        self, store: KnowledgeStore, embeddings: Embeddings | None = None, outline: Outline | None = None
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.outline = outline
        self.mode = "hybrid (BM25 + dense, weighted)" if store.hybrid and embeddings is not None else "BM25"
        self._retrievers: dict[int, KnowledgeBaseRetriever] = {}  # one per k, built once

    def retrieve(
        self,
        query: str,
        k: int = 4,
        config: RunnableConfig | None = None,
        where: Where = NOWHERE,
        skip: frozenset[str] = frozenset(),
    ) -> list[RetrievedDocument]:
        retriever = self._retrievers.get(k)
        if retriever is None:
            retriever = self._retrievers[k] = KnowledgeBaseRetriever(
                store=self.store, embeddings=self.embeddings, k=k, outline=self.outline
            )
        documents = retriever.invoke(query, config=config, where=where, skip=skip)
        return [_to_retrieved(document) for document in documents]

    def judge(self, query: str, passage: RetrievedDocument) -> Answerability:
        """Whether `passage` answers `query`: the learned judge over the bundled encoder's
        embeddings in every mode (its features must not change with the retrieval embeddings,
        and it costs no model-server call); the thresholds on the retrieval embeddings when the
        encoder or the judge's weights are missing."""
        query = spelled_out(" ".join(query.split()))  # "hspf?" is judged as searched
        words = word_coverage(query, passage.text, _rarity_of(DOCS_DIR))
        judge = answer_judge()
        if judge is not None:
            try:
                encoder = sentence_encoder()
                asked = np.asarray(encoder.encode(query[:2000]))
                found = np.asarray(encoder.encode(passage.text))
            except EncoderUnavailableError:
                return Answerability(meaning=self._meaning(query, passage), words=words)
            features = pair_features(asked, found, words, precedents().closeness(asked, passage.source))
            return Answerability(
                meaning=float(features[COSINE_AT]),
                words=words,
                likelihood=round(judge.likelihood(features), 3),
                threshold=judge.threshold,
            )
        return Answerability(meaning=self._meaning(query, passage), words=words)

    def _meaning(self, query: str, passage: RetrievedDocument) -> float | None:
        """Cosine of the question and the passage in the retrieval embeddings (None without them)."""
        if self.embeddings is None:
            return None
        try:
            asked = np.asarray(self.embeddings.embed_query(f"{query_prefix(self.embeddings)}{query[:2000]}"))
            found = np.asarray(
                self.embeddings.embed_documents([f"{document_prefix(self.embeddings)}{passage.text}"])[0]
            )
        except Exception as exc:  # the embedding model is down: the words alone decide
            logger.warning("Embedding for the answer check failed (%s)", type(exc).__name__)
            return None
        return float(asked @ found / (np.linalg.norm(asked) * np.linalg.norm(found) or 1.0))


def _to_retrieved(document: Document) -> RetrievedDocument:
    metadata: dict[str, Any] = document.metadata
    return RetrievedDocument(
        text=document.page_content,
        source=metadata["source"],
        score=metadata["score"],
        title=metadata.get("title"),
        applies_to=metadata.get("applies_to") or "US",
    )
