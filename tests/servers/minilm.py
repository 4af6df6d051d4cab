"""The product's sentence encoder (knowledge/encoder.py) as the test Ollama server's embedder.

The local Ollama-API server serves it from `/api/embed`, standing in for nomic-embed-text where
retrieval quality is measured. Embeddings are cached in pytest's cache folder (`.pytest_cache`,
not tracked): the first run computes them (about 20 s of NumPy for the corpus), later runs read
them; `MINILM_CACHE=off` turns the disk cache off.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from knowledge.encoder import DIMENSIONS, SentenceEncoder, sentence_encoder

__all__ = ["DIMENSIONS", "embed_minilm", "test_encoder"]


@lru_cache(maxsize=1)
def test_encoder() -> SentenceEncoder:
    setting = os.environ.get("MINILM_CACHE", "")
    default = Path(__file__).resolve().parents[2] / ".pytest_cache" / "minilm-embeddings.sqlite3"
    return sentence_encoder(None if setting == "off" else Path(setting) if setting else default)


test_encoder.__test__ = False  # type: ignore[attr-defined]  # not a test, despite its name


def embed_minilm(text: str) -> list[float]:
    """nomic-embed-text's task prefixes are not MiniLM's: drop them before encoding."""
    for prefix in ("search_document: ", "search_query: "):
        text = text.removeprefix(prefix)
    return test_encoder().encode(text).tolist()
