"""Build the running app from settings, once per process: store, models, tools, graph, service."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx
from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore

from advisor.graph import Advisor, Toolkit, build_advisor
from advisor.llm.factory import ModelSet, build_models
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import build_tools
from bot.doctor import Status, check_ollama
from bot.service import ConversationService
from config.clock import Clock, utc_now
from config.files import AppConfig, load_app_config
from config.settings import Settings
from knowledge.embeddings import ENCODER_DIMENSIONS, ENCODER_MODEL, EncoderEmbeddings
from knowledge.encoder import EncoderUnavailableError, sentence_encoder
from knowledge.ingest import IngestReport, Progress, ingest
from knowledge.models import Retriever
from knowledge.retriever import KnowledgeRetriever
from knowledge.store import KnowledgeStore
from profiles.json_store import JsonFileStore
from traces.feedback import FeedbackStore
from traces.storage import TraceStore

if TYPE_CHECKING:
    from traces.otlp_export import OtlpTraceExporter

logger = logging.getLogger(__name__)


@dataclass
class AppRuntime:
    settings: Settings
    config: AppConfig
    models: ModelSet
    advisor: Advisor
    service: ConversationService
    http: httpx.Client
    knowledge: KnowledgeStore | None = None
    notices: list[str] = field(default_factory=list)  # said once at start-up (offline mode, ...)
    feedback: FeedbackStore | None = None  # Slack's 👍/👎 on answers (log, trace step, cases)
    exporter: OtlpTraceExporter | None = None  # an OpenTelemetry copy of each trace, when configured

    def close(self) -> None:
        if self.exporter is not None:
            self.exporter.close()  # sends what is pending, bounded by its short timeout
        if self.knowledge is not None:
            self.knowledge.close()
        self.http.close()


def build_runtime(
    settings: Settings,
    *,
    config: AppConfig | None = None,
    http: httpx.Client | None = None,
    retriever: Retriever | None = None,
    clock: Clock = utc_now,
    probe_ollama: bool = True,
    knowledge: bool = True,
    progress: Progress | None = None,
    exporter: OtlpTraceExporter | None = None,
    memory: BaseStore | None = None,
) -> AppRuntime:
    """`knowledge=True` opens the knowledge base and ingests anything new first (FR-033);
    `retriever` replaces it (tests). `exporter` replaces the OpenTelemetry exporter the settings
    ask for (tests). `memory`: the profile and session store (default: JSON files in DATA_DIR)."""
    config = config or load_app_config(settings.config_dir)
    http = http or httpx.Client()
    notices: list[str] = []
    force_offline = False
    if probe_ollama:
        check = check_ollama(settings, config, http)
        if check.status is not Status.OK:
            force_offline = True
            notices.append(f"{check.detail}. {check.fix}")
    models = build_models(
        config.agents, ollama_base_url=settings.ollama_base_url, force_offline=force_offline
    )
    if models.offline and not force_offline:
        notices.append(
            "Every role uses the offline provider (config/agents.yaml): answers come from templates, not a language model."
        )
    store = None
    if knowledge and retriever is None:
        store, retriever, report = open_knowledge_base(
            settings, config, usable_ollama=not force_offline, progress=progress
        )
        if report.changed or report.skipped:
            notices.append(report.summary())
    data = build_data_sources(settings, config.tools, http, clock=clock)
    advisor = build_advisor(
        models=models,
        tools=Toolkit(tools=build_tools(data), data=data),
        store=memory if memory is not None else JsonFileStore(settings.memory_dir, clock=clock),
        config=config,
        retriever=retriever,
        clock=clock,
    )
    traces = TraceStore(settings.traces_dir)
    exporter = exporter or trace_exporter(settings, config)
    service = ConversationService(
        advisor=advisor,
        traces=traces,
        labels=models.labels,
        offline=models.offline,
        clock=clock,
        on_trace=exporter.submit if exporter is not None else None,
    )
    feedback = FeedbackStore(
        settings.data_dir / "feedback",
        traces=traces,
        sessions=advisor.sessions,
        profiles=advisor.profiles,
        clock=clock,
    )
    return AppRuntime(
        settings=settings,
        config=config,
        models=models,
        advisor=advisor,
        service=service,
        http=http,
        knowledge=store,
        notices=notices,
        feedback=feedback,
        exporter=exporter,
    )


def trace_exporter(settings: Settings, config: AppConfig) -> OtlpTraceExporter | None:
    """The OpenTelemetry exporter when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `--otlp-endpoint`) is set;
    its library is imported only then."""
    if not settings.otel_exporter_otlp_endpoint:
        return None
    from traces.graders import all_graders
    from traces.otlp_export import OtlpTraceExporter, parse_headers

    headers = settings.otel_exporter_otlp_headers
    return OtlpTraceExporter(
        settings.otel_exporter_otlp_endpoint,
        graders=all_graders(config.eval),
        headers=parse_headers(headers.get_secret_value() if headers else None),
        capture_content=settings.otel_instrumentation_genai_capture_message_content,
    )


def _knowledge_embeddings(
    settings: Settings, config: AppConfig, *, usable_ollama: bool
) -> tuple[Embeddings | None, str | None, int | None]:
    """The embeddings object, its model name and its dimensions (all None: BM25 only)."""
    embedding = config.agents.embeddings
    if embedding.provider == "none":
        return None, None, None
    if embedding.provider == "ollama" and usable_ollama:
        from langchain_ollama import OllamaEmbeddings  # on first use, as ChatOllama (advisor/llm/factory.py)

        return (
            OllamaEmbeddings(model=embedding.model, base_url=settings.ollama_base_url),
            embedding.model,
            embedding.dimensions,
        )
    try:
        encoder = sentence_encoder(settings.cache_dir / "encoder-embeddings.sqlite3")
    except EncoderUnavailableError as exc:
        logger.warning("Knowledge base: %s; searching with BM25 only", exc)
        return None, None, None
    return EncoderEmbeddings(encoder), ENCODER_MODEL, ENCODER_DIMENSIONS


def open_knowledge_base(
    settings: Settings, config: AppConfig, *, usable_ollama: bool, progress: Progress | None = None
) -> tuple[KnowledgeStore, KnowledgeRetriever, IngestReport]:
    """Open the store and ingest: hybrid with Ollama's embedding model when it is usable, else
    hybrid with the bundled MiniLM encoder (offline), BM25 alone only when configured so or when
    the encoder is not installed."""
    embeddings, model, dimensions = _knowledge_embeddings(settings, config, usable_ollama=usable_ollama)
    store = KnowledgeStore(settings.effective_milvus_uri, dense_dimensions=dimensions, embedding_model=model)
    try:
        report = ingest(store, embeddings=embeddings, progress=progress)
    except BaseException:
        store.close()
        raise
    return store, KnowledgeRetriever(store, embeddings), report
