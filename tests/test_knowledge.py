"""Knowledge base mechanics: ingestion idempotence, edits, deletes, malformed and empty
corpora, hybrid retrieval through the real OllamaEmbeddings client, edge-case queries,
and the single-process lock of Milvus Lite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_ollama import OllamaEmbeddings

from bot.cli import main
from knowledge.documents import MAX_CHUNK_WORDS, parse_document
from knowledge.ingest import ingest
from knowledge.retriever import KnowledgeRetriever, normalize_bm25, normalize_weighted
from knowledge.store import KnowledgeBaseLockedError, KnowledgeStore
from tests.servers.ollama import FakeOllama

PROJECT = Path(__file__).resolve().parent.parent


def write_doc(folder: Path, slug: str, title: str, sections: dict[str, str]) -> Path:
    body = "\n\n".join(f"## {heading}\n{text}" for heading, text in sections.items())
    path = folder / f"{slug}.md"
    path.write_text(
        textwrap.dedent(
            f"""\
            ---
            title: {title}
            topics: [test]
            applies_to: US
            sources:
              - title: "Energy Saver"
                url: https://www.energy.gov/energysaver
            as_of: 2026-01-15
            ---
            # {title}

            """
        )
        + body
        + "\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_doc(
        folder,
        "heat-pumps",
        "How heat pumps work",
        {
            "The refrigerant cycle": "A heat pump moves heat from the outdoor air into the house with a refrigerant, a compressor and two coils, instead of burning fuel.",
            "Efficiency": "A heat pump delivers two to four units of heat for each unit of electricity in mild weather, far more than electric resistance heaters.",
        },
    )
    write_doc(
        folder,
        "time-of-use",
        "Time-of-use pricing",
        {
            "Peak hours": "Time-of-use plans charge more per kilowatt-hour in the late afternoon and evening peak, when the grid is busiest.",
            "Shifting loads": "Running the dishwasher or charging an electric car after the peak lowers the bill on a time-of-use plan.",
        },
    )
    write_doc(
        folder,
        "ev-levels",
        "EV charging levels",
        {
            "Level 1 and Level 2": "Level 1 charging uses an ordinary 120 volt outlet; Level 2 uses 240 volts and adds range several times faster.",
        },
    )
    return folder


@pytest.fixture
def store(tmp_path: Path) -> KnowledgeStore:
    with KnowledgeStore(
        str(tmp_path / "data" / "milvus.db"), dense_dimensions=None, embedding_model=None
    ) as opened:
        yield opened


def test_ingestion_is_idempotent_and_propagates_edits_and_deletes(store: KnowledgeStore, docs: Path) -> None:
    first = ingest(store, docs_dir=docs)
    assert (first.documents, first.chunks, first.added, first.removed) == (3, 5, 5, 0)
    again = ingest(store, docs_dir=docs)
    assert again.changed == 0 and again.unchanged == 5 and "0 changed" in again.summary()

    write_doc(
        docs,
        "ev-levels",
        "EV charging levels",
        {
            "Level 1 and Level 2": "Level 2 chargers on a 240 volt circuit are what most EV owners install in the garage.",
        },
    )
    edited = ingest(store, docs_dir=docs)
    assert (edited.added, edited.removed) == (1, 1)
    hits = KnowledgeRetriever(store).retrieve("garage charger circuit", 1)
    assert "most EV owners install in the garage" in hits[0].text

    (docs / "time-of-use.md").unlink()
    removed = ingest(store, docs_dir=docs)
    assert (removed.added, removed.removed, removed.chunks) == (0, 2, 3)
    assert all(
        hit.source != "time-of-use.md" for hit in KnowledgeRetriever(store).retrieve("peak evening prices", 5)
    )


def test_malformed_document_is_reported_by_name_and_skipped(store: KnowledgeStore, docs: Path) -> None:
    (docs / "no-front-matter.md").write_text(
        "# Just a heading\n\nSome text without any front matter at all here.\n"
    )
    (docs / "bad-source.md").write_text(
        "---\ntitle: Bad\ntopics: [x]\napplies_to: US\nsources: []\nas_of: 2026-01-01\n---\n# Bad\n"
        + "word " * 30
    )
    report = ingest(store, docs_dir=docs)
    assert report.documents == 3
    assert report.skipped == [
        "bad-source.md: front matter sources: List should have at least 1 item after validation, not 0",
        "no-front-matter.md: no front matter (a '---' block with title, topics, sources, as_of)",
    ]
    assert "skipped no-front-matter.md" in report.summary()


def test_empty_docs_folder(store: KnowledgeStore, tmp_path: Path, docs: Path) -> None:
    ingest(store, docs_dir=docs)
    empty = tmp_path / "empty"
    empty.mkdir()
    report = ingest(store, docs_dir=empty)
    assert (report.documents, report.chunks, report.removed) == (0, 0, 5)
    assert KnowledgeRetriever(store).retrieve("heat pump", 3) == []


def test_chunks_keep_the_title_and_stay_small(docs: Path) -> None:
    long_section = "\n\n".join(f"Paragraph {n}. " + "words " * 120 for n in range(5))
    path = write_doc(docs, "long", "A long guide", {"Everything": long_section})
    chunks = parse_document(path).chunks()
    assert len(chunks) >= 3 and all(chunk.text.startswith("A long guide — Everything") for chunk in chunks)
    assert all(len(chunk.text.split()) <= MAX_CHUNK_WORDS + 10 for chunk in chunks)
    assert len({chunk.id for chunk in chunks}) == len(chunks)


@pytest.mark.parametrize(
    "query", ["", "   ", "heat " * 2000, "¿Cómo funcionan las bombas de calor? 热泵 🔥", "\x00\x01"]
)
def test_edge_case_queries_never_crash(store: KnowledgeStore, docs: Path, query: str) -> None:
    ingest(store, docs_dir=docs)
    hits = KnowledgeRetriever(store).retrieve(query, 3)
    assert all(0 <= hit.score <= 1 for hit in hits)
    if not query.strip("\x00\x01 "):
        assert hits == []
    if query.startswith("heat"):
        assert hits and hits[0].source == "heat-pumps.md"


def test_scores_are_normalized_to_zero_one() -> None:
    assert normalize_bm25(0) == 0 and normalize_bm25(2.0) == 0.5 and 0.99 < normalize_bm25(500) < 1
    assert (
        normalize_weighted(1.2) == 1.0 and normalize_weighted(0.5) == 0.5 and normalize_weighted(-0.1) == 0.0
    )


def test_hybrid_retrieval_through_ollama_embeddings(tmp_path: Path, docs: Path) -> None:
    with FakeOllama(["nomic-embed-text"]) as ollama:
        embeddings = OllamaEmbeddings(model="nomic-embed-text", base_url=ollama.url)
        with KnowledgeStore(
            str(tmp_path / "hy" / "milvus.db"), dense_dimensions=768, embedding_model="nomic-embed-text"
        ) as store:
            report = ingest(store, docs_dir=docs, embeddings=embeddings)
            assert report.embedded == 5
            embed_calls = [r for r in ollama.requests if r.path == "/api/embed"]
            assert all(
                text.startswith("search_document: ") for call in embed_calls for text in call.json()["input"]
            )
            assert (
                ingest(store, docs_dir=docs, embeddings=embeddings).embedded == 0
            )  # nothing changed: no embedding
            assert len([r for r in ollama.requests if r.path == "/api/embed"]) == len(embed_calls)

            retriever = KnowledgeRetriever(store, embeddings)
            assert retriever.mode.startswith("hybrid")
            hits = retriever.retrieve("how does a heat pump work", 2)
            assert hits[0].source == "heat-pumps.md" and 0 < hits[0].score <= 1
            assert ollama.requests[-1].json()["input"][0].startswith("search_query: ")


def test_changing_the_embedding_setup_rebuilds_the_collection(tmp_path: Path, docs: Path) -> None:
    uri = str(tmp_path / "data" / "milvus.db")
    with KnowledgeStore(uri, dense_dimensions=None, embedding_model=None) as store:
        ingest(store, docs_dir=docs)
    with (
        FakeOllama(["nomic-embed-text"]) as ollama,
        KnowledgeStore(uri, dense_dimensions=768, embedding_model="nomic-embed-text") as store,
    ):
        report = ingest(
            store, docs_dir=docs, embeddings=OllamaEmbeddings(model="nomic-embed-text", base_url=ollama.url)
        )
        assert report.added == 5  # rebuilt with dense vectors, not mixed


def test_retrievals_reach_langchain_callbacks(store: KnowledgeStore, docs: Path) -> None:
    ingest(store, docs_dir=docs)

    class Recorder(BaseCallbackHandler):
        def __init__(self) -> None:
            self.events: list[tuple[str, object]] = []

        def on_retriever_start(self, serialized, query, **kwargs) -> None:
            self.events.append(("start", query))

        def on_retriever_end(self, documents, **kwargs) -> None:
            self.events.append(("end", [(d.metadata["source"], d.metadata["score"]) for d in documents]))

    recorder = Recorder()
    KnowledgeRetriever(store).retrieve("heat pump efficiency", 2, {"callbacks": [recorder]})
    assert recorder.events[0] == ("start", "heat pump efficiency")
    assert recorder.events[1][0] == "end" and recorder.events[1][1][0][0] == "heat-pumps.md"


def test_a_second_process_gets_a_clear_message_naming_the_first(tmp_path: Path, docs: Path, capsys) -> None:
    uri = tmp_path / "data" / "milvus.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from knowledge.store import KnowledgeStore\n"
            "store = KnowledgeStore(sys.argv[1], dense_dimensions=None, embedding_model=None)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n",
            str(uri),
        ],
        cwd=PROJECT,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(KnowledgeBaseLockedError) as raised:
            KnowledgeStore(str(uri), dense_dimensions=None, embedding_model=None)
        message = str(raised.value)
        assert f"in use by process {holder.pid}" in message and f"kill {holder.pid}" in message
        os.environ["DATA_DIR"] = str(tmp_path / "data")
        try:
            assert main(["ingest"]) == 1
        finally:
            del os.environ["DATA_DIR"]
        assert "is in use by process" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait(timeout=30)
    started = time.monotonic()
    with KnowledgeStore(
        str(uri), dense_dimensions=None, embedding_model=None
    ):  # usable again once it is gone
        assert time.monotonic() - started < 30
        assert json.loads((tmp_path / "data" / "milvus.db.owner").read_text())["pid"] == os.getpid()
    assert (tmp_path / "data" / "milvus.db.owner").read_text() == ""  # released on close


def test_abbreviations_are_searched_spelled_out_too() -> None:
    from knowledge.glossary import spelled_out

    assert spelled_out("is a hpwh worth it on tou") == (
        "is a hpwh worth it on tou (heat pump water heater; time-of-use)"
    )
    assert spelled_out("how do heat pumps work") == "how do heat pumps work"
    assert spelled_out("whats the diff between seer and seer2") == (
        "whats the diff between seer and seer2 (seasonal energy efficiency ratio)"
    )
