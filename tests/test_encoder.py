"""The bundled sentence encoder (knowledge/encoder.py) against sentence-transformers' own output.

The reference numbers were computed once on this machine with sentence-transformers 6.2.0
(torch 2.13.0, CPU) loading the same `model.zip`, `normalize_embeddings=True`: the first eight
and last four of the 384 dimensions. The NumPy forward pass agreed to 2e-7 in every dimension.
"""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.encoder import DIMENSIONS, DiskCache, SentenceEncoder, sentence_encoder

REFERENCE = {
    "This is an example sentence": (
        [0.067657, 0.063496, 0.048713, 0.079305, 0.037448, 0.002653, 0.039375, -0.007098],
        [-0.019192, 0.038071, 0.059965, -0.042229],
    ),
    "i need 80% by 6:30 tmrw": (
        [0.050532, 0.039973, -0.04198, 0.007039, 0.017503, -0.013978, -0.023661, 0.046455],
        [0.050253, 0.013172, -0.041628, -0.03015],
    ),
}


@pytest.mark.parametrize("text", list(REFERENCE))
def test_encoder_matches_sentence_transformers(text: str) -> None:
    vector = sentence_encoder().encode(text)
    head, tail = REFERENCE[text]
    assert vector.shape == (DIMENSIONS,)
    assert np.allclose(vector[:8], head, atol=2e-6)
    assert np.allclose(vector[-4:], tail, atol=2e-6)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-6


def test_embeddings_are_cached_by_content_in_memory_and_on_disk(tmp_path) -> None:
    calls: list[str] = []

    def compute(text: str) -> np.ndarray:
        calls.append(text)
        return np.full(DIMENSIONS, float(len(text)))

    first = SentenceEncoder(compute, "model-a", disk=DiskCache(tmp_path / "cache.sqlite3"))
    assert first.encode("hello")[0] == 5.0
    first.encode("hello")
    assert calls == ["hello"]  # the second time from memory
    second = SentenceEncoder(compute, "model-a", disk=DiskCache(tmp_path / "cache.sqlite3"))
    assert second.encode("hello")[0] == 5.0
    assert calls == ["hello"]  # a new process reads it from disk
    other_model = SentenceEncoder(compute, "model-b", disk=DiskCache(tmp_path / "cache.sqlite3"))
    other_model.encode("hello")
    assert calls == ["hello", "hello"]  # another model file is another key


def test_one_encoder_per_process() -> None:
    assert sentence_encoder() is sentence_encoder()
