"""Analyzer: `create_agent` ReAct loop over the data tools (FR-007/008).

One agent per topic, each bound only to the tools its topic can use (smaller prompts), all
compiled once at build time. The agent runs with an explicit `recursion_limit`; hitting it is
a forced exit that keeps the observations gathered so far and records an error, never an
exception to the user. ToolMessages become `tool_observations`.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import patch_config
from langchain_core.tools import BaseTool
from langgraph.errors import GraphRecursionError
from pydantic import ValidationError

from advisor.energy.described_plan import DescribedPlan
from advisor.llm.errors import ModelUnavailableError, describe, is_transport_failure
from advisor.llm.payloads import PARAMS_KEY
from advisor.places import located
from advisor.prompts import ANALYZER_SYSTEM
from advisor.state import AdvisorState
from advisor.tools.models import Observation, RateSchedule, SolarEstimate, WeatherForecast
from advisor.tools.toolkit import TurnContext
from advisor.understanding.meaning import TASK_TOPIC
from config.clock import Clock
from profiles.models import UserProfile
from traces.recorder import current_trace

logger = logging.getLogger(__name__)

TOPIC_TOOLS = {
    "ev_charging": [
        "plan_ev_charging",
        "compare_charging_costs",
        "estimate_monthly_charging_cost",
        "get_tariff_prices",
    ],
    "rates": ["get_tariff_prices", "compare_charging_costs", "compare_rate_plans", "appliance_advice"],
    "solar": ["get_solar_forecast", "get_typical_solar_production", "get_weather_forecast"],
    "weather": ["get_weather_forecast", "get_solar_forecast"],
    "home": ["get_tariff_prices", "get_weather_forecast", "appliance_advice", "compare_heating_costs"],
}


class Analyzers:
    """One ReAct agent per topic (its tools only), built the first time a turn needs it: building
    all six up front was a third of building a runtime, and most runtimes use one or two."""

    def __init__(self, model: BaseChatModel, tools: list[BaseTool]) -> None:
        self._model = model
        self._tools = tools
        self._by_name = {tool.name: tool for tool in tools}
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, topic: str) -> Any:
        topic = topic if topic in TOPIC_TOOLS else "general"
        with self._lock:
            if topic not in self._built:
                tools = (
                    [self._by_name[name] for name in TOPIC_TOOLS[topic] if name in self._by_name]
                    if topic in TOPIC_TOOLS
                    else self._tools
                )
                self._built[topic] = create_agent(
                    self._model,
                    tools,
                    system_prompt=ANALYZER_SYSTEM,
                    name="analyzer",
                    context_schema=TurnContext,
                )
            return self._built[topic]


def tools_topic(state: AdvisorState) -> str:
    """Whose tools the analyzer gets: the task's when the reader named one, else the topic's."""
    params = state.get("params")
    task = params.task if params is not None else None
    return TASK_TOPIC.get(task or "", state.get("topic", "general"))


def build_analyzers(model: BaseChatModel, tools: list[BaseTool]) -> Analyzers:
    return Analyzers(model, tools)


def make_analyzer(*, agents: Analyzers, recursion_limit: int, clock: Clock):
    def analyzer(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        agent = agents.get(tools_topic(state))
        # a profile without coordinates (imported, or edited before they were derived) is placed
        # from its ZIP code or city for this turn's tools
        # someone who has told us nothing yet has an empty profile, never none (the tools read its parts)
        profile = located(state["user_profile"]) or UserProfile(user_id=state["user_id"])
        context = TurnContext(
            user_id=state["user_id"],
            profile=profile,
            now=clock(),
            one_price_plan=bool(state.get("one_price_plan")),
            described_plan=described_plan_of(state),
        )
        errors: list[dict[str, Any]] = []
        last: dict[str, Any] | None = None
        try:
            for snapshot in agent.stream(
                {"messages": [request_message(state)]},
                config=patch_config(config, recursion_limit=recursion_limit),
                context=context,
                stream_mode="values",
            ):
                last = snapshot
        except GraphRecursionError:
            errors.append(
                {
                    "node": "analyzer",
                    "type": "recursion_limit",
                    "message": f"stopped after {recursion_limit} steps (forced exit)",
                }
            )
        except Exception as exc:
            if is_transport_failure(exc):
                raise ModelUnavailableError("analyzer", describe(exc)) from exc
            logger.warning("Analyzer model output could not be used: %s", type(exc).__name__)
            errors.append(
                {
                    "node": "analyzer",
                    "type": "model_output",
                    "message": f"the model's tool call could not be read ({type(exc).__name__})",
                }
            )
        messages = (last or {}).get("messages", [])
        observations = [_observation(message) for message in messages if isinstance(message, ToolMessage)]
        if not observations and not errors and any(isinstance(m, AIMessage) for m in messages):
            errors.append({"node": "analyzer", "type": "no_tool_call", "message": "no data tool was called"})
        if (trace := current_trace()) is not None:
            for error in errors:
                trace.error(node="analyzer", kind=error["type"], message=error["message"])
            forced = any(error["type"] == "recursion_limit" for error in errors)
            trace.state_change(
                "analyzer_exit",
                "forced (recursion limit)" if forced else "natural",
                node="analyzer",
                reason=f"{len(observations)} observation(s)",
            )
        return {"tool_observations": observations, "errors": errors, **_typed_data(observations)}

    return analyzer


def described_plan_of(state: AdvisorState) -> DescribedPlan | None:
    """The plan they described in this thread, as stored with the session (None if unreadable)."""
    held = state.get("described_plan")
    try:
        return DescribedPlan.model_validate(held) if held else None
    except ValidationError:
        return None


def request_message(state: AdvisorState) -> HumanMessage:
    """The question with its parameters stated once, as text for a model and as data for the
    offline one (a follow-up's merged parameters override what the old question's words said)."""
    params = state.get("params")
    filled = params.filled() if params is not None else {}
    text = state["message"]
    if filled:
        details = ", ".join(f"{key}={value}" for key, value in filled.items())
        text = f"{text}\n(Request details — use these as tool arguments: {details})"
    return HumanMessage(text, additional_kwargs={PARAMS_KEY: filled})


def _observation(message: ToolMessage) -> dict[str, Any]:
    try:
        return Observation.model_validate_json(str(message.content)).model_dump(mode="json")
    except (ValidationError, ValueError):
        # ToolNode's own error messages (unknown tool, bad arguments) are not Observations.
        return {
            "tool": message.name or "unknown",
            "ok": False,
            "summary": "The data tool failed: " + str(message.content)[:200],
            "facts": {},
            "source": "none",
            "as_of": None,
            "is_mock": False,
            "assumptions": [],
            "warnings": [],
            "credit": None,
        }


def _typed_data(observations: list[dict[str, Any]]) -> dict[str, Any]:
    """Fill the spec's typed state fields from observation facts when a tool produced them."""
    typed: dict[str, Any] = {}
    for observation in observations:
        facts = observation.get("facts") or {}
        try:
            if "weather_forecast" in facts:
                typed["weather_data"] = WeatherForecast.model_validate(facts["weather_forecast"])
            if "rate_schedule" in facts:
                typed["rate_data"] = RateSchedule.model_validate(facts["rate_schedule"])
            if "solar_estimate" in facts:
                typed["solar_estimate"] = SolarEstimate.model_validate(facts["solar_estimate"])
        except (ValidationError, json.JSONDecodeError):
            continue
    return typed
