"""The bundled sentence encoder as a LangChain `Embeddings`, so offline retrieval is hybrid too.

Without Ollama the knowledge base used to be BM25 alone, and BM25 only finds the words a
question shares with a passage ("whats a kwh" found the self-consumption passage). The product
already ships MiniLM for the reader (`knowledge/encoder.py`); the same vectors rank passages by
meaning. Ingestion embeds only new or edited chunks (`knowledge/ingest.py` compares content
hashes), and the encoder's SQLite cache keeps a rebuilt collection from re-encoding anything.

Ollama's `nomic-embed-text` wants task prefixes ("search_query: …"); MiniLM was trained without
them, so each embeddings object says which prefixes it takes (`query_prefix`, `document_prefix`).
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from knowledge.encoder import DIMENSIONS, SentenceEncoder

ENCODER_MODEL = "all-MiniLM-L6-v2"
ENCODER_DIMENSIONS = DIMENSIONS
# nomic-embed-text's task prefixes (Ollama's default embedding model here)
NOMIC_QUERY_PREFIX = "search_query: "
NOMIC_DOCUMENT_PREFIX = "search_document: "


class EncoderEmbeddings(Embeddings):
    """MiniLM vectors (384 floats, unit length) for chunks and queries, no prefixes."""

    query_prefix = ""
    document_prefix = ""

    def __init__(self, encoder: SentenceEncoder) -> None:
        self._encoder = encoder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._encoder.encode(text).tolist() for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._encoder.encode(text).tolist()


def query_prefix(embeddings: Embeddings) -> str:
    return getattr(embeddings, "query_prefix", NOMIC_QUERY_PREFIX)


def document_prefix(embeddings: Embeddings) -> str:
    return getattr(embeddings, "document_prefix", NOMIC_DOCUMENT_PREFIX)
