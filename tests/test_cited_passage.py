"""The passage an answer cites is the one that answers the question (issue 14, item 3): the
retriever gives each document's answering section, the offline answer excerpts the answering
paragraph, RetrievalRelevance fails a labelled question answered from another section, and hit@1
of the cited section over the labelled questions is measured through the real offline turn."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from context_forge.core.trace import FinalOutputStep, RetrievalStep, StateChangeStep, TraceRun, UserInputStep
from context_forge.core.types import AgentInfo, RetrievalResult
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.llm.offline import offline_answer
from bench.retrieval import cited_sections, print_cited_sections, section_labels
from config.files import EvalConfig
from knowledge.documents import load_documents
from knowledge.excerpts import answering_part
from knowledge.ingest import DOCS_DIR
from knowledge.retriever import answering_chunk
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime
from traces.graders import Verdict
from traces.graders.retrieval_relevance import (
    RetrievalRelevanceGrader,
    SectionLabel,
    _normalize,
    _normalize_all,
    configured_labels,
    question_key,
)
from traces.storage import load_trace

T0 = datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
HOW = "How do heat pumps work?"


@pytest.fixture
def knowledge_runtime(data_dir: Path):
    runtime = make_runtime(data_dir, knowledge=True, clock=lambda: T0)
    yield runtime
    runtime.close()


def passages_of(trace: TraceRun) -> list[dict[str, Any]]:
    return [
        result.metadata or {}
        for step in trace.steps
        if isinstance(step, RetrievalStep)
        for result in step.results
    ]


# --- through the offline turn -------------------------------------------------------------------


def test_how_do_heat_pumps_work_cites_and_excerpts_the_section_that_explains_it(knowledge_runtime) -> None:
    """Before: the heat-pump document ranked first through its cold-climate section (it says
    "heat pumps" most often) and the answer excerpted "Older heat pumps struggled in freezing
    weather..."."""
    knowledge_runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    reply = knowledge_runtime.service.handle_turn("T1-U1", "t", HOW)
    trace = load_trace(knowledge_runtime.service.traces.find("T1-U1", reply.trace_id))
    first = passages_of(trace)[0]
    assert (first["source"], first["section"]) == (
        "heat-pumps-how-they-work.md",
        "Moving heat instead of making it",
    )
    assert reply.citations[0] == "heat-pumps-how-they-work.md" and "[1]" in reply.text
    assert "An air-source heat pump does not burn fuel." in reply.text
    assert "Older heat pumps struggled" not in reply.text
    grade = RetrievalRelevanceGrader(EvalConfig()).grade(trace)
    check = next(item for item in grade.evidence if item.check_name == "answering_section")
    assert grade.verdict is not Verdict.FAIL and check.details["used"][0]["number"] == 1


def test_cited_section_hit_at_1_over_the_labelled_questions(
    knowledge_runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every labelled question through the real offline turn (its own user each time); the first
    cited passage's section against the label. Measured 0.400 before the answering-section choice,
    0.550 after, 0.600 once long questions were no longer clarified, 0.625 once fragments were searched with the whole message, 0.725 with hybrid retrieval offline, 0.550 with 55
    documents instead of 33 (several new sections answer these questions as well as the labelled one, and some
    take a question from the labelled one: "What percentage should I keep in my Powerwall" now cites the
    Powerwall's specifications) (the misses left are mostly the turn's reading: a plan, a clarifying question or
    a question cut to its last sentence before retrieval)."""
    report = cited_sections(knowledge_runtime, CONFIGURED_PROFILE)
    with capsys.disabled():
        print()
        print_cited_sections(report)
    assert report.asked == len(section_labels()) >= 40
    assert report.hit_at_1 >= 0.52, "\n".join(report.misses)
    assert report.retrieval_hit_at_1 >= 0.62, "\n".join(report.misses)


def test_every_section_label_names_a_heading_of_its_document() -> None:
    documents, _ = load_documents(DOCS_DIR)
    sections = {(document.source, chunk.section) for document in documents for chunk in document.chunks()}
    labels = section_labels()
    assert {question_key(label.question) for label in labels} >= {question_key(HOW)}
    assert [label for label in labels if (label.source, label.section) not in sections] == []


# --- choosing the section and the paragraph -----------------------------------------------------


def row(section: str, body: str, source: str = "doc.md", title: str = "How an air-source heat pump works"):
    return {"source": source, "title": title, "section": section, "text": f"{title} — {section}\n\n{body}"}


OUTLINE = {"doc.md": ("Moving heat instead of making it", "The refrigerant loop", "Cold-climate models")}


def test_a_question_that_restates_the_title_gets_the_opening_section() -> None:
    chunks = [
        (row("Cold-climate models", "Older heat pumps struggled; newer heat pumps heat well."), 6.7),
        (row("The refrigerant loop", "A compressor squeezes the refrigerant."), 4.0),
        (row("Moving heat instead of making it", "It carries heat from outdoors to indoors."), 3.9),
    ]
    assert answering_chunk({"heat", "pump", "work"}, chunks, OUTLINE)[0]["section"] == (
        "Moving heat instead of making it"
    )
    # without an outline (a corpus it does not know) the search's order stands
    assert answering_chunk({"heat", "pump", "work"}, chunks, {})[0]["section"] == "Cold-climate models"


def test_words_the_title_does_not_say_pick_the_section_heading_first() -> None:
    chunks = [
        (row("Cold-climate models", "Heat pumps in freezing weather."), 6.7),
        (row("The refrigerant loop", "A compressor squeezes the refrigerant gas."), 4.0),
    ]
    assert (
        answering_chunk({"heat", "pump", "refrigerant"}, chunks, OUTLINE)[0]["section"]
        == "The refrigerant loop"
    )
    assert answering_chunk({"heat", "pump", "cold"}, chunks, OUTLINE)[0]["section"] == "Cold-climate models"


PASSAGE = (
    "Reading a bill — Delivery vs generation\n\n"
    "A bill has two main parts: delivery and generation.\n\n"
    "Many cities have a Community Choice Aggregator (CCA), such as MCE, that buys the power.\n\n"
    "So:\n\n- compare total cost;\n- check the PCIA."
)


def test_the_excerpt_starts_at_the_paragraph_that_answers() -> None:
    """Before: always the passage's first paragraph, here one that never names MCE."""
    part = answering_part("Why are there charges from both PG&E and MCE?", PASSAGE)
    assert part.startswith("Many cities have a Community Choice Aggregator")
    context = {
        "intent": "knowledge",
        "question": "Why are there charges from both PG&E and MCE?",
        "passages": [{"number": 1, "source": "bill.md", "text": PASSAGE}],
    }
    assert "Community Choice Aggregator (CCA), such as MCE" in offline_answer(context)


def test_the_first_paragraph_stays_when_it_answers_or_nothing_does() -> None:
    assert answering_part("What are delivery charges?", PASSAGE).startswith("A bill has two main parts")
    assert answering_part("Tell me more", PASSAGE).startswith("A bill has two main parts")
    # a lead-in ending in ":" keeps its list
    assert answering_part("What is the PCIA?", PASSAGE) == "So:\n\n- compare total cost;\n- check the PCIA."


# --- the grader's answering-section check -------------------------------------------------------

LABELS = {
    question_key(HOW): SectionLabel(HOW, "heat-pumps-how-they-work.md", "Moving heat instead of making it")
}


def turn(
    question: str, sections: list[str | None], cited: list[int], answer: str = "Heat moves. [1]"
) -> TraceRun:
    at = [T0 + timedelta(milliseconds=n) for n in range(4)]
    results = [
        RetrievalResult(
            content=f"Passage about {section}.",
            score=0.5,
            metadata=None
            if section is None
            else {"source": "heat-pumps-how-they-work.md", "section": section},
        )
        for section in sections
    ]
    return TraceRun(
        run_id="c" * 32,
        started_at=T0,
        ended_at=T0 + timedelta(seconds=1),
        agent_info=AgentInfo(name="test"),
        steps=[
            UserInputStep(step_id="in", timestamp=at[0], content=question),
            RetrievalStep(
                step_id="ret", timestamp=at[1], query=question, results=results, match_count=len(results)
            ),
            StateChangeStep(step_id="cite", timestamp=at[2], state_key="cited_passages", new_value=cited),
            FinalOutputStep(step_id="out", timestamp=at[3], content=answer),
        ],
        metadata={"user_id": "u", "session_id": "s", "turn": 1},
    )


def test_a_labelled_question_answered_from_another_section_fails_with_evidence() -> None:
    grader = RetrievalRelevanceGrader(EvalConfig(), labels=LABELS)
    wrong = grader.grade(
        turn("how do heat pumps WORK", ["Cold-climate models", "Moving heat instead of making it"], [1])
    )
    assert wrong.verdict is Verdict.FAIL
    item = next(item for item in wrong.evidence if item.check_name == "wrong_answering_section")
    assert item.step_ids == ["ret", "out"]
    assert item.details["used"] == [
        {
            "number": 1,
            "how": "cited",
            "step_id": "ret",
            "source": "heat-pumps-how-they-work.md",
            "section": "Cold-climate models",
        }
    ]
    assert item.details["expected"] == {
        "source": "heat-pumps-how-they-work.md",
        "section": "Moving heat instead of making it",
    }
    assert (
        "Cold-climate models" in item.description and "Moving heat instead of making it" in item.description
    )
    right = grader.grade(turn(HOW, ["Cold-climate models", "Moving heat instead of making it"], [2]))
    assert right.verdict is Verdict.PASS
    assert grader.grade(turn(HOW, ["Cold-climate models"], [])).verdict is Verdict.FAIL  # cites nothing


def test_a_quoted_passage_counts_as_used() -> None:
    sentence = "An air source heat pump does not burn fuel at all in winter."
    trace = turn(HOW, ["Moving heat instead of making it"], [], answer=f"Here: {sentence}")
    trace.steps[1].results[0] = RetrievalResult(
        content=sentence,
        metadata={"source": "heat-pumps-how-they-work.md", "section": "Moving heat instead of making it"},
    )
    grade = RetrievalRelevanceGrader(EvalConfig(), labels=LABELS).grade(trace)
    assert grade.verdict is Verdict.PASS
    assert (
        next(item for item in grade.evidence if item.check_name == "answering_section").details["used"][0][
            "how"
        ]
        == "quoted"
    )


def test_unlabelled_questions_and_old_traces_are_not_judged_on_sections() -> None:
    grader = RetrievalRelevanceGrader(EvalConfig(), labels=LABELS)
    other = grader.grade(turn("Tell me about heat pumps", ["Cold-climate models"], [1]))
    assert other.verdict is Verdict.PASS and [item.check_name for item in other.evidence] == [
        "retrieval_usage"
    ]
    old = grader.grade(turn(HOW, [None], [1]))  # recorded before passages carried their section
    assert old.verdict is Verdict.PASS
    assert "answering_section_unknown" in [item.check_name for item in old.evidence]


def test_labels_come_from_the_config_once_and_can_be_turned_off() -> None:
    assert configured_labels(EvalConfig()) is configured_labels(EvalConfig())  # read once per process
    assert question_key(HOW) in configured_labels(EvalConfig())
    off = RetrievalRelevanceGrader(EvalConfig(section_labels=None))
    assert off.labels == {}
    assert off.grade(turn(HOW, ["Cold-climate models"], [1])).verdict is Verdict.PASS


# --- the fast normalization says exactly what the regex said -------------------------------------

_TOKEN = re.compile(r"[a-z0-9%$.]+")


def reference(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


PIECES = st.sampled_from([*"aZ9 .,$%-\n\t\x00É\u212aİß—", "  ", ". ", "p.m.", "Heat"])
TEXT = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=6))
def test_normalization_in_one_pass_matches_the_regex(texts: list[str]) -> None:
    assert _normalize_all(texts) == [reference(text) for text in texts]
    assert [_normalize(text) for text in texts] == [reference(text) for text in texts]
