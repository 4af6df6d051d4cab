"""`energy-advisor samples`: produce the sample traces (FR-050/051, SC-004) by running the real
graph on the evaluation scenarios. Nothing here writes a trace by hand.

- ev-charging-good: a configured user, the offline provider;
- ev-charging-stale-memory: spec 000's demo profile (household confirmed 2025-06-15) on 2026-01-21;
- ev-charging-loop: a scripted misbehaving analyzer that asks for the same forecast four times;
- ev-charging-retrieval-waste: five passages retrieved, one cited;
- ev-charging-budget: eighteen months of history loaded into the prompt.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from advisor.graph import Toolkit, build_advisor
from advisor.llm.factory import ModelSet
from advisor.llm.offline import OfflineChatModel
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import build_tools
from bot.service import ConversationService
from config.files import AgentsConfig, AppConfig, EvalConfig, ToolsConfig
from config.settings import Settings
from knowledge.ingest import ingest
from knowledge.models import Retriever
from knowledge.retriever import KnowledgeRetriever
from knowledge.store import KnowledgeStore
from profiles.json_store import JsonFileStore
from traces.storage import TraceStore, dump_trace, load_trace

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "traces" / "samples"
DEMO_DATE = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # spec 000's demo date, 10:00 in California
DEMO_PROFILE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "home_123.json"

CONFIGURED = {
    "user_id": "sample-user",
    "equipment": {
        "ev_model": "Tesla Model 3",
        "ev_battery_kwh": 57.5,
        "ev_charger_kw": 11.5,
        "updated_at": "2026-01-10T10:00:00Z",
    },
    "household": {"work_schedule": "WFH", "occupants": 2, "updated_at": "2026-01-10T10:00:00Z"},
    "location": {
        "lat": 37.7749,
        "lon": -122.4194,
        "zip_code": "94102",
        "city": "San Francisco",
        "timezone": "America/Los_Angeles",
        "utility_provider": "PG&E",
        "rate_schedule": "EV2-A",
        "updated_at": "2026-01-10T10:00:00Z",
    },
    "created_at": "2025-12-01T10:00:00Z",
    "updated_at": "2026-01-10T10:00:00Z",
}


class RepeatingAnalyzer(BaseChatModel):
    """A deliberately misbehaving analyzer for the loop scenario: it asks for the same weather
    forecast four times in one turn. Labelled as scripted in every trace (`model_name`)."""

    model_name: str = "scripted-misbehaving-analyzer"
    repeats: int = 4

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        if messages and isinstance(messages[-1], ToolMessage):
            message = AIMessage(content="done")
        else:
            calls = [
                {
                    "name": "get_weather_forecast",
                    "args": {"hours": 24},
                    "id": f"repeat-{n}",
                    "type": "tool_call",
                }
                for n in range(self.repeats)
            ]
            message = AIMessage(content="", tool_calls=calls)
        prompt = sum(len(str(m.content)) for m in messages) // 4
        message.usage_metadata = {"input_tokens": prompt, "output_tokens": 40, "total_tokens": prompt + 40}
        message.response_metadata = {"token_estimate": "characters/4", "model_name": self.model_name}
        return ChatResult(generations=[ChatGeneration(message=message)])


def _config(**agents: Any) -> AppConfig:
    offline = {"provider": "offline"}
    base: dict[str, Any] = {
        "analyzer": offline,
        "recommend": offline,
        "memorizer": offline,
        "embeddings": {"provider": "none"},
    }
    for role, values in agents.items():
        base[role] = {**base.get(role, {}), **values}
    return AppConfig(
        agents=AgentsConfig.model_validate(base), tools=ToolsConfig(mode="mock"), eval=EvalConfig()
    )


def _offline_models(analyzer: BaseChatModel | None = None) -> ModelSet:
    roles = {
        role: OfflineChatModel(role=role, tags=[f"role:{role}"])
        for role in ("analyzer", "recommend", "memorizer")
    }
    if analyzer is not None:
        # The tag on the model itself (not `with_config`, which create_agent's bind_tools drops), so
        # the trace names the role and a replay serves this analyzer's recorded calls back.
        roles["analyzer"] = analyzer.model_copy(update={"tags": ["role:analyzer"]})  # type: ignore[assignment]
    labels = {role: "offline" for role in roles}
    if analyzer is not None:
        labels["analyzer"] = "scripted-misbehaving-analyzer"
    return ModelSet(**roles, labels=labels)


def _run(
    folder: Path,
    *,
    profile: dict[str, Any],
    question: str,
    config: AppConfig,
    models: ModelSet,
    retriever: Retriever | None = None,
    history: list[tuple[datetime, str, str]] = (),
) -> Path:
    """One real turn through the service; returns the trace file it wrote."""
    clock: Callable[[], datetime] = lambda: DEMO_DATE  # noqa: E731 - the scenarios run at the demo date
    data = build_data_sources(Settings(_env_file=None), config.tools, httpx.Client(), clock=clock)
    store = JsonFileStore(folder / "memory", clock=clock)
    advisor = build_advisor(
        models=models,
        tools=Toolkit(tools=build_tools(data), data=data),
        store=store,
        config=config,
        retriever=retriever,
        clock=clock,
    )
    advisor.profiles.import_profile(profile)
    user = profile["user_id"]
    advisor.sessions.get_or_create(user, "sample-thread")
    for _, role, text in history:
        advisor.sessions.append_message(user, "sample-thread", role, text)  # type: ignore[arg-type]
    if history:
        advisor.sessions.mark_memorized(user, "sample-thread", 10**6)
    traces = TraceStore(folder / "traces")
    service = ConversationService(
        advisor=advisor,
        traces=traces,
        labels=models.labels,
        offline=True,
        clock=clock,
    )
    service.handle_turn(user, "sample-thread", question)
    path = traces.latest(user)
    assert path is not None
    return path


def eighteen_months_of_history() -> list[tuple[datetime, str, str]]:
    """Two short exchanges a week for 18 months, as a long-time user's thread would hold."""
    messages = []
    start = DEMO_DATE - timedelta(days=548)
    topics = [
        "charging the car overnight",
        "the solar output in winter",
        "our PG&E bill",
        "running the dryer",
        "the heat pump settings",
    ]
    for week in range(78):
        for day in (1, 4):
            when = start + timedelta(days=7 * week + day)
            topic = topics[(week + day) % len(topics)]
            messages.append(
                (
                    when,
                    "user",
                    f"Quick question about {topic} this week, week {week + 1}: what would you suggest?",
                )
            )
            messages.append(
                (
                    when,
                    "assistant",
                    f"For {topic}, shift flexible use to off-peak hours after midnight and keep an eye on the 4-9 pm peak.",
                )
            )
    return messages[-400:]  # the session keeps at most 400 unmemorized messages


def generate(out: Path = SAMPLES_DIR) -> dict[str, Path]:
    """Run every scenario; write `<name>.json` into `out`. Returns name -> path."""
    out.mkdir(parents=True, exist_ok=True)
    demo = json.loads(DEMO_PROFILE.read_text(encoding="utf-8"))
    written: dict[str, Path] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        scenarios: list[tuple[str, Callable[[Path], Path]]] = [
            (
                "ev-charging-good",
                lambda f: _run(
                    f,
                    profile=CONFIGURED,
                    question="When should I charge my EV?",
                    config=_config(),
                    models=_offline_models(),
                ),
            ),
            (
                "ev-charging-stale-memory",
                lambda f: _run(
                    f,
                    profile=demo,
                    question="When should I charge my EV?",
                    config=_config(),
                    models=_offline_models(),
                ),
            ),
            (
                "ev-charging-loop",
                lambda f: _run(
                    f,
                    profile=CONFIGURED,
                    question="What's the weather forecast for today?",
                    config=_config(),
                    models=_offline_models(analyzer=RepeatingAnalyzer()),
                ),
            ),
            ("ev-charging-retrieval-waste", lambda f: _waste(f)),
            (
                "ev-charging-budget",
                lambda f: _run(
                    f,
                    profile=CONFIGURED,
                    question="What are the current rates?",
                    config=_config(recommend={"history_tokens": 1_000_000}),
                    models=_offline_models(),
                    history=eighteen_months_of_history(),
                ),
            ),
        ]
        for name, scenario in scenarios:
            folder = root / name
            folder.mkdir()
            trace = load_trace(scenario(folder))
            target = out / f"{name}.json"
            target.write_text(dump_trace(trace), encoding="utf-8")
            written[name] = target
    return written


def _waste(folder: Path) -> Path:
    config = _config(retrieval={"k": 5})
    with KnowledgeStore(str(folder / "milvus.db"), dense_dimensions=None, embedding_model=None) as store:
        ingest(store)
        return _run(
            folder,
            profile=CONFIGURED,
            question="What are best practices for EV charging at home?",
            config=config,
            models=_offline_models(),
            retriever=KnowledgeRetriever(store),
        )


def copy_samples(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.json"):
        shutil.copy(path, target / path.name)
