"""The shipped corpus: every document is well-formed and sourced, retrieval quality on the
labelled question set (BM25 alone and hybrid), and cited answers through the advisor (US4)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from langchain_ollama import OllamaEmbeddings

from bench.retrieval import where_as_read as where_of
from knowledge.documents import load_documents
from knowledge.embeddings import ENCODER_DIMENSIONS, ENCODER_MODEL, EncoderEmbeddings
from knowledge.encoder import sentence_encoder
from knowledge.ingest import DOCS_DIR, ingest
from knowledge.jurisdiction import Where, fits
from knowledge.retriever import KnowledgeRetriever
from knowledge.store import KnowledgeStore
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime
from tests.servers.minilm import DIMENSIONS, embed_minilm
from tests.servers.ollama import FakeOllama
from traces.storage import load_trace

EVAL_DIR = Path(__file__).resolve().parent.parent / "knowledge" / "eval"


def labelled_questions() -> list[tuple[str, str]]:
    pairs = []
    for path in sorted(EVAL_DIR.glob("questions-*.yaml")):
        pairs += [
            (item["question"], item["expected"]) for item in yaml.safe_load(path.read_text(encoding="utf-8"))
        ]
    return pairs


def hit_at_3(retriever: KnowledgeRetriever, questions: list[tuple[str, str]]) -> tuple[float, list[str]]:
    misses = []
    for question, expected in questions:
        sources = [hit.source for hit in retriever.retrieve(question, 3, where=where_of(question))]
        if expected not in sources:
            misses.append(f"{question!r}: expected {expected}, got {sources}")
    return 1 - len(misses) / len(questions), misses


def test_corpus_is_complete_and_well_formed() -> None:
    documents, problems = load_documents(DOCS_DIR)
    assert problems == []
    assert len(documents) >= 30
    for document in documents:
        assert all(source.url.startswith("https://") for source in document.meta.sources), document.source
        words = len(document.body.split())
        assert 120 <= words <= 600, (document.source, words)
        assert "\n## " in document.body, document.source
    questions = labelled_questions()
    assert len(questions) >= 25
    assert {expected for _, expected in questions} <= {document.source for document in documents}


def measure_bm25_and_hybrid(tmp_path: Path) -> tuple[float, list[str], float, list[str]]:
    """hit@3 of BM25 alone and of hybrid retrieval, the dense half embedded by a real semantic model
    (all-MiniLM-L6-v2, 384-d) that the local Ollama-API server serves from /api/embed."""
    questions = labelled_questions()
    with KnowledgeStore(
        str(tmp_path / "bm25" / "milvus.db"), dense_dimensions=None, embedding_model=None
    ) as store:
        ingest(store)
        bm25, bm25_misses = hit_at_3(KnowledgeRetriever(store), questions)
    with FakeOllama(["nomic-embed-text"], embedder=embed_minilm) as ollama:
        embeddings = OllamaEmbeddings(model="nomic-embed-text", base_url=ollama.url)
        with KnowledgeStore(
            str(tmp_path / "hy" / "milvus.db"), dense_dimensions=DIMENSIONS, embedding_model="minilm"
        ) as store:
            ingest(store, embeddings=embeddings)
            hybrid, hybrid_misses = hit_at_3(KnowledgeRetriever(store, embeddings), questions)
    return bm25, bm25_misses, hybrid, hybrid_misses


def test_retrieval_quality_bm25_alone_and_hybrid_not_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bm25, bm25_misses, hybrid, hybrid_misses = measure_bm25_and_hybrid(tmp_path)
    with capsys.disabled():
        print(
            f"\nretrieval hit@3 on {len(labelled_questions())} labelled questions: BM25 {bm25:.3f}, hybrid {hybrid:.3f}"
        )
    # 0.941 / 0.961 on 33 documents; 0.843 / 0.941 on 55, where new documents answer several of
    # these questions as well as the labelled one ("How full should I charge my EV every day?")
    assert bm25 >= 0.8, "\n".join(bm25_misses)
    assert hybrid >= 0.9 and hybrid >= bm25, "\n".join(hybrid_misses)


@pytest.fixture
def knowledge_runtime(data_dir: Path):
    runtime = make_runtime(
        data_dir, knowledge=True, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc)
    )
    yield runtime
    runtime.close()


def test_how_do_heat_pumps_work_retrieves_and_cites_heat_pump_documents(knowledge_runtime) -> None:
    knowledge_runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    reply = knowledge_runtime.service.handle_turn("T1-U1", "t", "How do heat pumps work?")
    assert reply.intent == "knowledge"
    assert reply.citations and reply.citations[0].startswith("heat-pump")
    assert "[1]" in reply.text and "Source: [1]" in reply.text and reply.citations[0] in reply.text


def test_a_question_needing_profile_and_knowledge_combines_them(knowledge_runtime) -> None:
    profile = {**CONFIGURED_PROFILE, "equipment": {**CONFIGURED_PROFILE["equipment"], "heating_type": "gas"}}
    knowledge_runtime.advisor.profiles.import_profile(profile)
    reply = knowledge_runtime.service.handle_turn("T1-U1", "t", "Should I switch my heating to a heat pump?")
    assert "What I have for your home:" in reply.text and "you heat with gas" in reply.text
    assert "heating: gas" not in reply.text  # a sentence, not the prompt's labels
    assert reply.citations and "[1]" in reply.text


def first(retriever: KnowledgeRetriever, question: str) -> str | None:
    found = retriever.retrieve(question, 1, where=where_of(question))
    return found[0].source if found else None


def test_offline_retrieval_is_hybrid_with_the_bundled_encoder_and_finds_more(tmp_path: Path) -> None:
    """Offline (no Ollama) the knowledge base is searched by BM25 and the bundled MiniLM encoder
    together. Measured on the 82 questions (of 110 a helper wrote before reading the documents)
    that a document answers for the person asking, labelled against the 55 documents
    (knowledge/eval/knowledge_dev_questions.jsonl, development data; a California-only answer counts
    only for a Californian): first document right 0.756 with BM25 alone, 0.829 hybrid when
    recorded; with 74 documents (the rebates-by-state page answers several of them for BM25 too)
    0.805 and 0.829, so the hybrid is asked to find more, not a margin. Restarting embeds nothing
    that did not change."""
    from bot.wiring import open_knowledge_base
    from config.files import EmbeddingsConfig
    from config.settings import Settings
    from tests.advisor_helpers import app_config

    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    tests_config = app_config()  # with the shipped embeddings setting: Ollama's model, else the encoder
    config = tests_config.model_copy(
        update={"agents": tests_config.agents.model_copy(update={"embeddings": EmbeddingsConfig()})}
    )
    store, retriever, report = open_knowledge_base(settings, config, usable_ollama=False)
    try:
        assert retriever.mode.startswith("hybrid") and report.embedded == report.chunks > 200
        questions = [
            (row["question"], {row["expected"], *row["also_ok"]})
            for line in (EVAL_DIR / "knowledge_dev_questions.jsonl").read_text().splitlines()
            # a California-only answer counts only for a Californian (to anyone else it is not theirs)
            if (row := json.loads(line))["expected"] and (not row["california_only"] or row["where"] == "CA")
        ]
        hybrid = sum(first(retriever, q) in ok for q, ok in questions) / len(questions)
        bm25_only = KnowledgeRetriever(store)  # the same collection, its sparse half alone
        bm25 = sum(first(bm25_only, q) in ok for q, ok in questions) / len(questions)
    finally:
        store.close()
    assert hybrid >= 0.80 and hybrid > bm25, (hybrid, bm25)
    store, _, again = open_knowledge_base(settings, config, usable_ollama=False)
    store.close()
    assert again.embedded == 0 and again.unchanged == report.chunks


def test_another_states_passage_is_never_the_answer_and_an_unknown_place_hears_it_named(
    knowledge_runtime,
) -> None:
    """A Georgia Power customer asking whether solar pays never gets California's Solar Billing
    Plan; someone whose place is unknown gets national passages first, and a state's passage, when
    one is given, is said as that state's ("In California: …"); a question naming the state gets it."""
    service = knowledge_runtime.service
    profiles = knowledge_runtime.advisor.profiles
    profiles.import_profile(
        {"user_id": "T-GA", "location": {"zip_code": "30309", "utility_provider": "Georgia Power"}}
    )
    georgia = service.handle_turn(
        "T-GA", "t", "my solar panels barely earn anything for what i send back to the grid"
    )
    assert not any(source.startswith(("california-", "pge-", "sdge-")) for source in georgia.citations)
    # (with q26 in the judge, "what does the base services charge on my bill pay for" from an unknown
    # place is declined: the national passages found only name fixed charges in general)
    unknown = service.handle_turn(
        "T-NEW", "t", "whats the solar billing plan and how does it pay for exports"
    )
    assert unknown.citations and (
        not unknown.citations[0].startswith(("california-", "pge-", "sdge-"))
        or "In California" in unknown.text
    )  # a state's passage, when given, is said as that state's
    asked = service.handle_turn("T-NEW2", "t", "whats the base services charge in california")
    assert asked.citations[0] == "pge-base-services-charge.md" and "In California" not in asked.text


@pytest.mark.parametrize(
    ("applies_to", "where", "verdict"),
    [
        ("US", Where(), True),
        ("CA", Where(), None),
        ("CA", Where(frozenset({"GA"})), False),
        ("CA:PG&E", Where(frozenset({"CA"}), frozenset({"SDG&E"})), False),
        ("CA:PG&E", Where(frozenset({"CA"})), True),
        ("TX", Where(frozenset({"TX"}), frozenset({"Oncor"})), True),
    ],
)
def test_where_a_passage_applies(applies_to: str, where: Where, verdict: bool | None) -> None:
    assert fits(applies_to, where) is verdict


def test_a_question_no_passage_answers_gets_an_honest_no_and_no_citation(knowledge_runtime) -> None:
    """ "whats a virtual power plant" used to get the battery-reserve section quoted as its answer;
    now: no source, nothing cited, the decline in the trace. A covered question still cites."""
    service = knowledge_runtime.service
    reply = service.handle_turn("T-IDK", "t", "whats a virtual power plant")
    assert reply.citations == [] and "I don't have a source" in reply.text and "[1]" not in reply.text
    trace = load_trace(service.traces.find("T-IDK", reply.trace_id))
    declined = [step for step in trace.steps if getattr(step, "state_key", None) == "knowledge_declined"]
    assert declined and declined[0].new_value["closest"].endswith(".md")
    covered = service.handle_turn("T-IDK2", "t", "is it bad to leave my car at 100% all weekend")
    assert covered.citations == ["ev-battery-health-and-charging-habits.md"]


@pytest.mark.parametrize(
    ("name", "right_at_least"),
    # the newest set only: each costs about 15 s here (q22 is measured by bench.knowledge_questions)
    [("fresh_knowledge_q23.jsonl", 0.85)],
)
def test_the_fresh_question_set_as_recorded_regression(
    tmp_path: Path, name: str, right_at_least: float
) -> None:
    """The 160 questions of each of issue 22's first runs (q22: first citation right 0.615, "I don't
    know" on 0.580 of the uncovered through the turn then; q23: 0.647 and 0.609), now development
    data, at the retriever: its first document right (q22 75 of 89 answerable, q23 53 of 58), and the
    answer judge, which is trained on these sets, declining the uncovered (58 of 66, 81 of 92) while
    declining at most a few right first passages (2, 1). Regression figures, not estimates: the
    honest ones are the judge's held-out figures (knowledge/answer_judge.json)."""
    rows = [json.loads(line) for line in (EVAL_DIR / name).read_text().splitlines()]
    encoder = EncoderEmbeddings(sentence_encoder())
    with KnowledgeStore(
        str(tmp_path / "milvus.db"), dense_dimensions=ENCODER_DIMENSIONS, embedding_model=ENCODER_MODEL
    ) as store:
        ingest(store, embeddings=encoder)
        retriever = KnowledgeRetriever(store, encoder)
        right = answerable = declined = uncovered = right_declined = 0
        for row in rows:
            first = retriever.retrieve(row["question"], 1, where=where_of(row["question"]))[0]
            declines = not retriever.judge(row["question"], first).answers
            if row["expected"] and not row["jurisdiction_only"]:
                answerable += 1
                good = first.source in {row["expected"], *row["also_ok"]}
                right += good
                right_declined += good and declines
            elif not row["expected"]:
                uncovered += 1
                declined += declines
    assert right / answerable >= right_at_least, (right, answerable)
    assert declined / uncovered >= 0.8 and right_declined <= 5, (declined, uncovered, right_declined)


def test_a_follow_up_that_says_that_is_searched_with_the_last_question(knowledge_runtime) -> None:
    """ "is it bad to do that every night" right after a plan to 80 % found nothing on its own words
    and said "no source"; searched with the last question it finds a passage on how full to charge. A
    section the title only lists is found by its heading ("whats a demand charge")."""
    service = knowledge_runtime.service
    knowledge_runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    service.handle_turn("T1-U1", "t", "when should i charge it tonight, need like 80% by 7")
    reply = service.handle_turn("T1-U1", "t", "is it bad to do that every night")
    assert reply.citations and reply.citations[0] in {
        "ev-battery-health-and-charging-habits.md",
        "scheduled-charging.md",  # its "How full to charge" section answers it too
    }
    demand = service.handle_turn("T-DEM", "t", "whats a demand charge")
    assert "demand charge bills your highest rate of use" in demand.text


def test_a_stranger_naming_a_states_program_gets_it_said_as_that_states(knowledge_runtime) -> None:
    """With the place unknown, national passages come first, unless the question names a state's
    document by its title: "What is the Solar Billing Plan?" is California's, said as such."""
    reply = knowledge_runtime.service.handle_turn("T-SBP", "t", "What is the Solar Billing Plan?")
    assert reply.citations[0] == "california-solar-billing-plan.md" and reply.text.startswith(
        "In California:"
    )


def test_a_detail_added_to_the_last_explanation_never_reads_as_no_source(knowledge_runtime) -> None:
    """ "our house was built in 1962" after "does insulation or new windows save more" said "I
    don't have a source" though one had just answered; the documents that answered are not judged
    again, and when they have said it all the reply says so. A ZIP in a question is no word the
    passage must hold ("we just moved to 02139, how does time of use pricing work"; the broader
    "what should i know about electricity rates here" finds the bill-spike passage first, which the
    answer judge declines)."""
    service = knowledge_runtime.service
    first = service.handle_turn("T-WIN", "t", "does insulation or new windows save more")
    assert first.citations
    more = service.handle_turn("T-WIN", "t", "our house was built in 1962")
    assert "I don't have a source" not in more.text
    assert more.citations or "That's everything my sources say on this" in more.text
    moved = service.handle_turn("T-ZIP", "t", "we just moved to 02139, how does time of use pricing work")
    assert moved.citations


def test_a_definition_question_gets_the_sentence_that_defines_it(knowledge_runtime) -> None:
    """ "what even is a kwh" was answered with the demand-charge paragraph the kWh sentence opens
    (a homeowner trying the bot); the answer is the definition, up to the next term defined."""
    service = knowledge_runtime.service
    kwh = service.handle_turn("T-KWH", "t", "i rent so i cant do much but im curious. what even is a kwh")
    assert "A kWh measures energy used over time" in kwh.text and "Ameren" not in kwh.text
    demand = service.handle_turn("T-DC", "t", "whats a demand charge")
    assert demand.text.startswith("A demand charge bills") and "A kWh measures" not in demand.text


def test_the_federal_credit_question_gets_the_credit_that_ended_not_californias_programs(
    knowledge_runtime,
) -> None:
    """An Ohioan asking "whats the federal tax credit for heat pumps right now" was shown "California
    state programs" from the national document's last section."""
    knowledge_runtime.advisor.profiles.import_profile(
        {"user_id": "T-OH", "location": {"zip_code": "43214", "utility_provider": "AEP"}}
    )
    reply = knowledge_runtime.service.handle_turn(
        "T-OH", "t", "whats the federal tax credit for heat pumps right now"
    )
    assert "25C" in reply.text and "not allowed" in reply.text and "California" not in reply.text


def test_what_about_another_subject_after_an_explanation_is_not_the_same_passage_again(
    knowledge_runtime,
) -> None:
    user = "T-TANK"
    first = knowledge_runtime.service.handle_turn(
        user, "s1", "whats a heat pump water heater and do they work in a basement"
    )
    then = knowledge_runtime.service.handle_turn(user, "s1", "ok cool, what about tankless")
    assert "Tankless" in then.text and then.text.split("\n")[0] != first.text.split("\n")[0]
