"""The advisor graph (FR-001..009): load_session -> intake -> [commands | remember -> onboarding
-> [chat | retrieve -> recommend | analyzer -> recommend]] -> [memorizer] -> save_session.

A turn is one invocation (a message with two requests is two turns, `TurnOutput.next_request`):
`{"message": text}` in, `TurnOutput` out, the thread as
`configurable.thread_id` and the user as the runtime context (`ThreadContext`), as in the
LangGraph memory-agent template. Built and compiled once per process; the store is injected at
compile time and the same store backs the repositories the nodes use.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from advisor.llm.factory import ModelSet
from advisor.memorizer import Memorizer
from advisor.nodes.analyzer import build_analyzers, make_analyzer
from advisor.nodes.chat import chat
from advisor.nodes.commands import is_command, make_commands
from advisor.nodes.intake import make_intake
from advisor.nodes.memorize import make_memorize
from advisor.nodes.onboarding import make_onboarding
from advisor.nodes.recommend import make_recommend
from advisor.nodes.remember import make_remember
from advisor.nodes.retrieve import make_retrieve
from advisor.nodes.session import ThreadContext, make_load_session, make_save_session
from advisor.state import AdvisorState, TurnInput, TurnOutput
from advisor.tools.data import DataSources
from advisor.understanding.model import ModelUnderstander
from advisor.understanding.reader import LearnedReader, Understander
from config.clock import Clock, utc_now
from config.files import AppConfig
from knowledge.models import Retriever
from profiles.repository import ProfileRepository
from profiles.sessions import SessionRepository


@dataclass(frozen=True)
class Toolkit:
    """The analyzer's tools and the data sources behind them (remember geocodes with them too)."""

    tools: list[BaseTool]
    data: DataSources


def session_repository(store: BaseStore, config: AppConfig, clock: Clock = utc_now) -> SessionRepository:
    """Sessions keep two messages per raw turn the memorizer may still need."""
    return SessionRepository(store, max_messages=2 * config.agents.memorizer.max_raw_turns, clock=clock)


@dataclass(frozen=True)
class Advisor:
    """The compiled graph plus what the conversation service and scheduler use beside it."""

    graph: CompiledStateGraph
    memorizer: Memorizer
    profiles: ProfileRepository
    sessions: SessionRepository


def build_advisor_graph(
    *,
    models: ModelSet,
    tools: Toolkit,
    store: BaseStore,
    config: AppConfig,
    retriever: Retriever | None = None,
    clock: Clock = utc_now,
) -> CompiledStateGraph:
    return build_advisor(
        models=models, tools=tools, store=store, config=config, retriever=retriever, clock=clock
    ).graph


def build_advisor(
    *,
    models: ModelSet,
    tools: Toolkit,
    store: BaseStore,
    config: AppConfig,
    retriever: Retriever | None = None,
    clock: Clock = utc_now,
    understander: Understander | None = None,
) -> Advisor:
    profiles = ProfileRepository(store, clock=clock)
    sessions = session_repository(store, config, clock)
    memorizer = Memorizer(
        model=models.memorizer, profiles=profiles, sessions=sessions, config=config.agents.memorizer
    )

    graph = StateGraph(
        AdvisorState, context_schema=ThreadContext, input_schema=TurnInput, output_schema=TurnOutput
    )
    graph.add_node("load_session", make_load_session(sessions, profiles))
    if understander is None:
        understander = (
            ModelUnderstander(models.understanding) if models.understanding is not None else LearnedReader()
        )
    graph.add_node("intake", make_intake(config.agents.memorizer, understander))
    graph.add_node("commands", make_commands(profiles=profiles))
    graph.add_node("remember", make_remember(profiles=profiles, data=tools.data))
    graph.add_node("onboarding", make_onboarding(evaluation=config.eval, clock=clock))
    graph.add_node("chat", chat)
    graph.add_node("retrieve", make_retrieve(retriever=retriever, k=config.agents.retrieval.k))
    graph.add_node(
        "analyzer",
        make_analyzer(
            agents=build_analyzers(models.analyzer, tools.tools),
            recursion_limit=config.agents.analyzer.recursion_limit,
            clock=clock,
        ),
    )
    graph.add_node(
        "recommend", make_recommend(models.recommend, history_tokens=config.agents.recommend.history_tokens)
    )
    graph.add_node("memorizer", make_memorize(memorizer))
    graph.add_node("save_session", make_save_session(sessions))

    graph.add_edge(START, "load_session")
    graph.add_edge("load_session", "intake")
    graph.add_conditional_edges("intake", _after_intake, ["commands", "remember", "memorizer", SAVE])
    graph.add_edge("commands", SAVE)
    graph.add_edge("remember", "onboarding")
    graph.add_conditional_edges(
        "onboarding", _after_onboarding, ["chat", "retrieve", "analyzer", "memorizer", SAVE]
    )
    graph.add_conditional_edges("chat", _finish, ["memorizer", SAVE])
    graph.add_edge("retrieve", "recommend")
    graph.add_edge("analyzer", "recommend")
    graph.add_conditional_edges("recommend", _finish, ["memorizer", SAVE])
    graph.add_edge("memorizer", SAVE)
    graph.add_edge(SAVE, END)
    compiled = graph.compile(store=store, name="advisor")
    return Advisor(graph=compiled, memorizer=memorizer, profiles=profiles, sessions=sessions)


SAVE = "save_session"


def _finish(state: AdvisorState) -> str:
    return "memorizer" if state.get("should_memorize") else SAVE


def _after_intake(state: AdvisorState) -> str:
    if state.get("route") != "understood":
        return _finish(state)  # nothing to read (empty) or a clarifying question
    return "commands" if is_command(state["understanding"]) else "remember"


def _after_onboarding(state: AdvisorState) -> str:
    route = state.get("route")
    return route if route in ("chat", "retrieve", "analyzer") else _finish(state)
