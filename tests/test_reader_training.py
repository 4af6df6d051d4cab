"""The meaning model is trained by a script in the repository, reproducibly: the same corpora give
the same weights (hash), a changed label gives other weights, and the shipped weights record the
hash of the corpora they came from (a corpus edited without `make reader` fails here)."""

from __future__ import annotations

import json

import numpy as np

from advisor.understanding import train
from advisor.understanding.meaning import METADATA, WEIGHTS, MeaningModel, weights_hash
from tests.servers.minilm import test_encoder

QUICK = (
    train.Settings(hidden=16, epochs=40, learning_rate=0.01, l2=1e-3),
    train.Settings(hidden=0, epochs=40, learning_rate=0.01, l2=0.03, ngrams=True),
)


def _hash(items: list[dict]) -> str:
    model = train.fit(train.design_matrix(items, test_encoder()), items, QUICK)
    return weights_hash({key: np.asarray(value, dtype=np.float32) for key, value in model.arrays().items()})


def test_the_same_corpus_gives_the_same_weights_and_a_changed_label_other_weights() -> None:
    items = train.load_items(train.corpus_paths())[:120]
    first, second = _hash(items), _hash([dict(item) for item in items])
    assert first == second
    changed = [dict(item) for item in items]
    changed[0]["intent"] = "off_topic" if changed[0]["intent"] != "off_topic" else "knowledge"
    assert _hash(changed) != first


def test_the_shipped_weights_are_those_of_the_shipped_corpora() -> None:
    info = json.loads(METADATA.read_text())
    paths = train.corpus_paths()
    assert info["corpora"] == [path.name for path in paths]
    assert info["corpora_sha256"] == train.corpora_hash(paths), "corpora changed: run `make reader`"
    with np.load(WEIGHTS) as data:
        assert weights_hash({key: data[key] for key in data.files}) == info["weights_sha256"]
    assert info["messages"] == len(train.load_items(paths))
    assert len(MeaningModel.load().members) == len(train.MEMBERS)


def test_the_check_command_says_whether_the_weights_match(capsys) -> None:
    assert train.main(["--check"]) == 0
    assert "match" in capsys.readouterr().out


def test_conversation_turns_teach_the_intent_their_replies_agree_on_in_the_context_before() -> None:
    conversation = {
        "id": "x-c1",
        "turns": [
            {
                "user": "when should i charge",
                "expect": {"kind": ["charging_plan", "ask"], "asks_for": ["location"]},
            },
            {"user": "94110", "expect": {"kind": ["ask"], "asks_for": "utility"}},
            {"user": "pge", "expect": {"kind": ["charging_plan"]}},
            {"user": "what about by 6", "expect": {"kind": ["charging_plan"]}},
            {"user": "wait its 48 amps", "expect": {"kind": ["ack", "charging_plan"]}},
            {"user": "is that bad for the battery", "expect": {"kind": ["explanation"]}},
        ],
    }
    items = {item["text"]: item for item in train.conversation_items(conversation)}
    assert "94110" not in items and "wait its 48 amps" not in items  # only a question, or two intents
    assert items["when should i charge"]["intent"] == "live_data"
    assert items["pge"]["context"]["pending_slot"] == "utility"
    assert items["what about by 6"]["context"] == {
        "pending_slot": None,
        "last_intent": "live_data",
        "last_topic": "ev_charging",
    }
    assert items["what about by 6"]["task"] == "charging_plan"
    assert (
        items["is that bad for the battery"]["intent"] == "knowledge"
        and "task" not in items["is that bad for the battery"]
    )


def test_the_conversations_of_a_held_out_set_join_only_with_its_messages() -> None:
    names = {path.name for path in train.corpus_paths()}
    for name in names:
        if name.startswith("fresh_h") and name.endswith("_conversations.jsonl"):
            assert name.replace("_conversations", "_messages") in names
