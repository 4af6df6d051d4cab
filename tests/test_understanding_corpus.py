"""The offline reader against the older labelled corpora (tests/data/understanding_corpus.jsonl and
understanding_heldout.jsonl), kept as regression tests: the meaning model learned from them, so
these figures are training-set figures, not an estimate of how it generalizes (that is the
first-run figure on the fresh corpus, README "Understanding")."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.understanding.reader import LearnedReader
from bench.understanding import CORPUS, load_corpus, report, score

HELDOUT = CORPUS.with_name("understanding_heldout.jsonl")  # a second author's 120 messages

PRECISION, RECALL, ROUTING = 0.98, 0.85, 0.90


def test_the_corpus_is_big_and_covers_every_kind_of_message() -> None:
    corpus = load_corpus()
    assert len(corpus) >= 250
    intents = {item["intent"] for item in corpus}
    assert {"live_data", "knowledge", "profile_statement", "goodbye", "smalltalk"} <= intents
    assert sum(1 for item in corpus if item.get("facts")) >= 100
    assert sum(1 for item in corpus if (item.get("context") or {}).get("pending_slot")) >= 30


@pytest.mark.parametrize("corpus", [CORPUS, HELDOUT], ids=["main", "second"])
def test_the_offline_reader_meets_the_targets(corpus: Path) -> None:
    reader = LearnedReader()
    scores = score(load_corpus(corpus), lambda text, context: reader.understand(text, context))
    summary = report(scores, "offline") + "\n" + "\n".join(scores.misses[:40])
    assert scores.precision() >= PRECISION, summary
    assert scores.recall() >= RECALL, summary
    assert scores.routing >= ROUTING, summary
