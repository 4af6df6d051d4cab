"""The learned answer check (knowledge/answer_judge.py): the shipped weights are the ones its
metadata describes, it beat the thresholds on sets it was not trained on, a question next to a
document's topic gets an honest "no source" through the chat, the spec's own question is answered,
and without the weights the thresholds still decide."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

import numpy as np
import pytest

import knowledge.retriever as retriever_module
from knowledge.answer_judge import PRECEDENTS, WEIGHTS, Precedents, answer_judge, precedents, trained_on
from knowledge.answerability import Answerability
from knowledge.embeddings import EncoderEmbeddings
from knowledge.encoder import sentence_encoder
from knowledge.retriever import KnowledgeRetriever
from tests.advisor_helpers import app_config, make_runtime
from tests.servers.ollama import FakeOllama, Step
from traces.storage import load_trace


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(
        tmp_path_factory.mktemp("judge"),
        knowledge=True,
        clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc),
    )
    yield built
    built.close()


def _fraction(text: str) -> tuple[int, int]:
    part, whole = text.split("/")
    return int(part), int(whole)


def test_the_shipped_weights_are_the_ones_described_and_beat_the_thresholds_held_out() -> None:
    metadata = trained_on()
    assert metadata["weights_sha256"] == hashlib.sha256(WEIGHTS.read_bytes()).hexdigest()[:12]
    assert answer_judge() is not None and answer_judge().threshold == metadata["threshold"]
    kept = declined = kept_alone = declined_alone = 0
    for figures in metadata["held_out"].values():  # each set judged by a model trained on the others
        kept += _fraction(figures["right_first_passages_kept"])[0]
        declined += _fraction(figures["other_first_passages_declined"])[0]
        kept_alone += _fraction(figures["thresholds_alone_kept"])[0]
        declined_alone += _fraction(figures["thresholds_alone_declined"])[0]
    assert declined > declined_alone and kept >= kept_alone, (kept, kept_alone, declined, declined_alone)


@pytest.mark.parametrize(
    "question",
    [
        "pigeons nesting under my solar panels, what do people do about that",
        "are powerwalls a fire risk if mounted inside an attached garage",
    ],
)
def test_a_question_next_to_a_documents_topic_gets_no_source(runtime, question: str) -> None:
    """Both share words and meaning with a passage on the topic next door (the solar-lease and the
    home-battery passages); no document answers them. (From the q23 set, which the judge is now
    trained on: a regression check, not an estimate. "transfer switch vs interlock kit" was here
    until q26 and q28 labelled generator hook-up questions as answered by the transfer-switch
    section: the labels disagree on it, so it is no clear case.)"""
    reply = runtime.service.handle_turn(f"J-{len(question)}", "t", question)
    assert reply.citations == [] and "I don't have a source" in reply.text


def test_the_spec_question_on_ev_charging_is_answered_from_its_own_document(runtime) -> None:
    reply = runtime.service.handle_turn("J-2", "t", "What are best practices for EV charging at home?")
    assert reply.citations and reply.citations[0] == "ev-home-charging-best-practices.md"


def test_the_shipped_precedents_are_the_labelled_questions_described() -> None:
    metadata = trained_on()
    assert metadata["precedents_sha256"] == hashlib.sha256(PRECEDENTS.read_bytes()).hexdigest()[:12]
    shipped = precedents()
    assert len(shipped.answered_by) == metadata["precedents"] == shipped.questions.shape[0]
    assert any(not docs for docs in shipped.answered_by) and any(docs for docs in shipped.answered_by)


def test_closeness_is_to_the_questions_each_document_answered() -> None:
    east, north = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    known = Precedents(
        questions=np.array([east, north, (east + north) / np.sqrt(2)]),
        answered_by=(frozenset({"a.md"}), frozenset(), frozenset({"b.md"})),
    )
    same, none, other = known.closeness(east * 3, "a.md")
    assert (
        same == pytest.approx(1.0) and none == pytest.approx(0.0) and other == pytest.approx(0.7071, abs=1e-3)
    )
    assert known.closeness(east, "c.md")[0] == 0.0  # a document no earlier question was answered by


def test_a_held_out_sets_labels_reach_no_feature_of_the_model_that_judges_it() -> None:
    from knowledge.train_judge import SETS, Pairs

    one, two = SETS[0], SETS[1]
    vector = np.array([1.0] + [0.0] * 383)
    labelled = {name: Precedents(questions=np.zeros((0, 384)), answered_by=()) for name in SETS}
    labelled[one] = Precedents(questions=np.array([vector]), answered_by=(frozenset({"a.md"}),))
    found = Pairs(
        base=np.zeros((2, 3)),
        asked=np.array([vector, vector]),
        sources=["a.md", "a.md"],
        labels=np.array([True, True]),
        sets=np.array([one, two]),
        first=np.array([True, True]),
        labelled=labelled,
    )
    assert found.features()[1, -3] == pytest.approx(1.0)  # set two's pair sees set one's question
    assert found.features(leaving_out=frozenset({one}))[1, -3] == 0.0  # not when set one is held out
    assert found.features()[0, -3] == 0.0  # never its own set's


def test_without_the_weights_the_thresholds_decide(runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retriever_module, "answer_judge", lambda: None)
    retriever = KnowledgeRetriever(runtime.knowledge, EncoderEmbeddings(sentence_encoder()))
    passage = retriever.retrieve("how do heat pumps work", 1)[0]
    verdict = retriever.judge("how do heat pumps work", passage)
    assert verdict.likelihood is None and verdict.meaning is not None and verdict.answers
    assert not Answerability(meaning=0.2, words=0.9).answers and Answerability(meaning=0.5, words=0.5).answers


def test_a_plain_match_is_kept_whatever_the_judge_says() -> None:
    unsure = Answerability(meaning=0.6, words=0.5, likelihood=0.1, threshold=0.3)
    assert unsure.answers
    assert not Answerability(meaning=0.4, words=0.5, likelihood=0.1, threshold=0.3).answers
    assert Answerability(meaning=0.2, words=0.1, likelihood=0.9, threshold=0.3).answers


@pytest.fixture()
def ollama():
    with FakeOllama(["llama3.1:8b"]) as server:
        yield server


def _ollama_runtime(tmp_path, ollama):
    return make_runtime(
        tmp_path,
        ollama_url=ollama.url,
        config=app_config(provider="ollama"),
        clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc),
        knowledge=True,
    )


def test_with_ollama_a_declined_question_gets_no_source_without_asking_the_model(tmp_path, ollama) -> None:
    """Given no passage, a model answers from its own memory, uncited: the decline is said as offline,
    with no recommend call."""
    runtime = _ollama_runtime(tmp_path, ollama)
    try:
        reply = runtime.service.handle_turn(
            "J-O1", "t", "pigeons nesting under my solar panels, what do people do about that"
        )
    finally:
        runtime.close()
    assert reply.citations == [] and "I don't have a source" in reply.text
    assert not [body for body in ollama.chat_requests if "QUESTION:" in json.dumps(body)]


def test_with_ollama_the_model_is_told_to_decline_and_its_decline_is_traced(tmp_path, ollama) -> None:
    ollama.responder = lambda body: Step(content="I don't have a source on that.")
    runtime = _ollama_runtime(tmp_path, ollama)
    try:
        reply = runtime.service.handle_turn("J-O2", "t", "How do heat pumps work?")
        trace = load_trace(runtime.service.traces.find("J-O2", reply.trace_id))
    finally:
        runtime.close()
    (prompt,) = [body for body in ollama.chat_requests if "QUESTION:" in json.dumps(body)]
    assert "If no PASSAGE answers the question" in prompt["messages"][0]["content"]
    declined = [step for step in trace.steps if getattr(step, "state_key", None) == "knowledge_declined"]
    assert reply.citations == [] and declined and declined[0].new_value["by"] == "model"


def test_the_passage_the_judge_is_sure_of_goes_first_then_one_it_accepts_over_one_it_declines() -> None:
    from advisor.nodes.retrieve import SWITCH_AT, _most_likely_first

    def judged(likelihoods: dict[str, float | None]):
        return lambda _query, doc: Answerability(
            meaning=0.3, words=0.3, likelihood=likelihoods[doc], threshold=0.3
        )

    docs = ["a", "b", "c", "d"]
    ordered, verdict = _most_likely_first(docs, "q", judged({"a": 0.4, "b": 0.2, "c": SWITCH_AT + 0.1}))
    assert ordered == ["c", "a", "b", "d"] and verdict.likelihood == SWITCH_AT + 0.1
    ordered, verdict = _most_likely_first(docs, "q", judged({"a": 0.4, "b": SWITCH_AT - 0.1, "c": 0.2}))
    assert ordered == docs and verdict.likelihood == 0.4  # not sure enough to move: the first answers
    ordered, verdict = _most_likely_first(docs, "q", judged({"a": 0.1, "b": 0.2, "c": 0.35}))
    assert ordered == ["c", "a", "b", "d"] and verdict.answers  # the first declined, the third accepted
    ordered, verdict = _most_likely_first(docs, "q", judged({"a": 0.1, "b": 0.2, "c": 0.25}))
    assert ordered == docs and not verdict.answers  # none accepted: the first is judged, and declined
    ordered, _ = _most_likely_first(docs, "q", judged({"a": None, "b": None, "c": None}))
    assert ordered == docs  # the thresholds' fallback has no likelihoods: the search's order stands


@pytest.mark.parametrize(
    ("query", "leans"),
    [
        ("is it bad to do that every night", True),
        ("ok cool, what about tankless", True),
        ("and is it worth it", True),
        ("is it better to charge the powerwalls from the grid at night", False),  # a question of its own
        ("whats a heat pump dryer", False),
    ],
)
def test_only_a_question_that_points_back_is_searched_again_with_the_last_one(
    query: str, leans: bool
) -> None:
    from advisor.understanding.reader import understand

    assert understand(query).points_back is leans


def test_a_first_kept_only_for_shared_words_gives_way_to_one_the_judge_accepts() -> None:
    from advisor.nodes.retrieve import _most_likely_first

    verdicts = {
        # the ceiling-fan page: plainly many shared words (kept whatever the judge says), judged 0.15
        "fans": Answerability(meaning=0.53, words=0.48, likelihood=0.15, threshold=0.3),
        "ac": Answerability(meaning=0.48, words=0.37, likelihood=0.22, threshold=0.3),
        "setbacks": Answerability(meaning=0.51, words=0.37, likelihood=0.56, threshold=0.3),
    }
    docs = ["fans", "ac", "setbacks", "other"]
    ordered, verdict = _most_likely_first(docs, "q", lambda _q, doc: verdicts[doc])
    assert ordered[0] == "setbacks" and verdict.likelihood == 0.56
    verdicts["fans"] = Answerability(meaning=0.53, words=0.48, likelihood=0.4, threshold=0.3)
    ordered, _ = _most_likely_first(docs, "q", lambda _q, doc: verdicts[doc])
    assert ordered == docs  # the judge accepts the first itself: the search's order stands
