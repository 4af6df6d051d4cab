"""The offline provider: a deterministic stand-in for demos, CI and air-gapped installs.

It is a LangChain chat model so the graph runs the same code path (create_agent, callbacks,
traces), but it is NOT a language model and says so in every answer:
- analyzer: calls the tool for the kind of answer the reader found (`RequestParams.task`);
- recommend: writes the answer from the tool observations and passages with templates;
- memorizer: extracts facts with patterns ("I work from home now", "we installed a heat pump").
The recommend and memorizer nodes hand it their structured input in the human message's
`additional_kwargs` (a real model reads the rendered text of the same data).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from advisor.llm.payloads import CONTEXT_KEY, CONVERSATION_KEY, KNOWN_KEY, PARAMS_KEY, UNDERSTANDING_KEY
from advisor.understanding.models import ReadingContext, Understanding
from advisor.understanding.reader import stated_facts, understand
from knowledge.excerpts import answering_part, passage_excerpt

OFFLINE_LABEL = "_(Offline mode: assembled from templates and calculations, without a language model.)_"

Role = Literal["understanding", "analyzer", "recommend", "memorizer"]


class OfflineChatModel(BaseChatModel):
    role: Role
    model_name: str = "offline-templates"  # how traces name it (never presented as an LLM)

    @property
    def _llm_type(self) -> str:
        return "offline-templates"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"role": self.role, "model_name": "offline"}

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.role == "understanding":
            message = AIMessage(content=_understand(messages))
        elif self.role == "analyzer":
            message = _analyze(messages, [tool["function"]["name"] for tool in kwargs.get("tools", [])])
        elif self.role == "recommend":
            message = AIMessage(content=_recommend(messages))
        else:
            message = AIMessage(content=_memorize(messages))
        # Not a model, so no real token counts: estimate characters / 4 and say it is an estimate,
        # so budgets still apply to offline runs and graders can tell the difference.
        prompt = sum(len(str(m.content)) for m in messages) + len(str(kwargs.get("tools") or ""))
        completion = len(str(message.content)) + 40 * len(message.tool_calls)
        message.usage_metadata = {
            "input_tokens": prompt // 4,
            "output_tokens": completion // 4,
            "total_tokens": prompt // 4 + completion // 4,
        }
        message.response_metadata = {
            **message.response_metadata,
            "token_estimate": "characters/4",
            "model_name": "offline",
        }
        return ChatResult(generations=[ChatGeneration(message=message)])


def _last_human(messages: list[BaseMessage]) -> HumanMessage | None:
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


# --- understanding: the offline reader, in the model reader's schema ---------------------------


def _understand(messages: list[BaseMessage]) -> str:
    human = _last_human(messages)
    request = (human.additional_kwargs.get(UNDERSTANDING_KEY) if human else None) or {}
    context = ReadingContext.model_validate(request.get("context") or {})
    return reading_json(understand(str(request.get("text", "")), context))


def reading_json(reading: Understanding) -> str:
    """An `Understanding` as the JSON the model reader asks a model for (`ModelReading`)."""
    return json.dumps(
        {
            "intent": reading.intent,
            "topic": reading.topic,
            "question": reading.question,
            "facts": [{"field": f.field, "value": f.value, "said": f.said} for f in reading.facts],
            "slot_status": reading.slot_answer.status if reading.slot_answer else None,
            "params": reading.params.filled(),
            "follow_up": reading.follow_up,
            "remember": reading.remember,
        }
    )


# --- analyzer: choose a tool ---------------------------------------------------------------

# The tool each kind of live answer calls (the reader decides the kind: `RequestParams.task`)
TASK_TOOLS = {
    "charging_plan": "plan_ev_charging",
    "prices": "get_tariff_prices",
    "appliance": "appliance_advice",
    "solar_forecast": "get_solar_forecast",
    "typical_solar": "get_typical_solar_production",
    "weather": "get_weather_forecast",
    "plan_comparison": "compare_rate_plans",
}
_CHARGING_PARAMS = (
    "ready_by_hour",
    "ready_in_minutes",
    "target_soc_pct",
    "current_soc_pct",
    "miles_needed",
    "plug_in_hour",
)


def choose_tool(params: dict[str, Any], available: list[str]) -> str | None:
    """The tool for the request's task, else the one its parameters point to, else prices."""
    wanted = [TASK_TOOLS[params["task"]]] if params.get("task") in TASK_TOOLS else []
    if params.get("monthly") and params.get("task") in (None, "charging_plan"):
        wanted.insert(0, "estimate_monthly_charging_cost")  # "what would charging cost per month"
    if params.get("fuel_price_usd") is not None:
        wanted.insert(0, "compare_heating_costs")  # "oil is 4.10 a gallon, would a heat pump be cheaper"
    if params.get("appliance"):
        wanted.append("appliance_advice")
    if any(params.get(key) is not None for key in _CHARGING_PARAMS):
        wanted.append("plan_ev_charging")
    if params.get("system_kw") is not None or params.get("typical_year"):
        wanted.append("get_typical_solar_production")
    wanted.append("get_tariff_prices")  # prices answer rate questions and "is it worth running X now?"
    return next((tool for tool in wanted if tool in available), None)


def _analyze(messages: list[BaseMessage], available: list[str]) -> AIMessage:
    if messages and isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Data gathered.")
    human = _last_human(messages)
    params = (human.additional_kwargs.get(PARAMS_KEY) if human else None) or {}
    name = choose_tool(params, available)
    if name is None:
        return AIMessage(content="No tool needed.")
    return _call(name, _tool_args(name, params))


def _tool_args(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """The request's parameters (read by intake, merged for a follow-up) as this tool's arguments."""
    args: dict[str, Any] = {}
    if tool == "plan_ev_charging":
        for key in (
            "ready_by_hour",
            "ready_by_minute",
            "target_soc_pct",
            "current_soc_pct",
            "one_session",
            "plug_in_hour",
            "plug_in_minute",
        ):
            if params.get(key) is not None:
                args[key] = int(params[key]) if key.startswith(("ready_by", "plug_in")) else params[key]
        if params.get("ready_by_day"):
            args["ready_by_day"] = params["ready_by_day"]  # "by Monday 7am", "and on saturday?": days ahead
        if params.get("ready_in_minutes") is not None:
            args["ready_in_minutes"] = int(params["ready_in_minutes"])  # "in 1 hour"
        if params.get("tonight"):
            args["tonight"] = True
        if params.get("miles_needed") is not None:
            args["miles_needed"] = params["miles_needed"]  # "I need like 40 miles": that much range
    if tool == "compare_heating_costs":
        args = {"fuel": params["fuel"], "fuel_price_usd": params["fuel_price_usd"]}
        if params.get("furnace_afue_pct") is not None:
            args["afue"] = params["furnace_afue_pct"]
        if params.get("electricity_usd_per_kwh") is not None:
            args["electricity_usd_per_kwh"] = params["electricity_usd_per_kwh"]
        if params.get("fuel_units_per_year") is not None:
            args["fuel_units_per_year"] = params["fuel_units_per_year"]
    if tool == "estimate_monthly_charging_cost" and params.get("ev_miles_per_month") is not None:
        args["miles_per_month"] = params["ev_miles_per_month"]
    if tool == "appliance_advice":
        args = _appliance_args(params)
    if tool == "compare_rate_plans":
        args.update(
            {
                key: params[key]
                for key in ("ev_miles_per_month", "house_kwh_per_month", "ev_kwh_per_month")
                if params.get(key) is not None
            }
        )
    if tool == "get_solar_forecast" and params.get("system_kw") is not None:
        args["system_kw"] = params["system_kw"]  # someone else's panels, asked about
    if tool == "get_typical_solar_production" and params.get("system_kw") is not None:
        args["system_kw"] = params["system_kw"]
    elif tool == "get_typical_solar_production" and params.get("size_needed"):
        # "how many panels do i need, we use about 900 kwh a month": the size that makes their use
        args["size_needed"] = True
        if params.get("house_kwh_per_month") is not None:
            args["house_kwh_per_month"] = params["house_kwh_per_month"]
    if tool == "get_tariff_prices" and params.get("ready_by_day") and not params.get("day"):
        args["day"] = params["ready_by_day"]  # "and friday?" after a prices answer: that day's prices
    if tool in ("get_tariff_prices", "get_solar_forecast") and params.get("day") in ("today", "tomorrow"):
        args["day"] = params["day"]
    if tool == "get_weather_forecast" and (params.get("day") or params.get("ready_by_day")) not in (
        None,
        "today",
    ):
        args["day"] = params.get("day") or params["ready_by_day"]  # "is it gonna be sunny saturday"
    if tool == "get_solar_forecast" and params.get("ready_by_day") and params.get("day") is None:
        args["day"] = params[
            "ready_by_day"
        ]  # "and saturday?" after a forecast: that day's, if the forecast reaches it
    return args


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"offline-{name}", "type": "tool_call"}]
    )


def _appliance_args(params: dict[str, Any]) -> dict[str, Any]:
    """appliance_advice's arguments: the appliance and any deadline ("before 10pm", "by tomorrow
    morning"), or a day to run it ("tomorrow")."""
    args: dict[str, Any] = {"appliance": params.get("appliance") or "dishwasher"}
    if params.get("appliance_kw") is not None:  # "a 1500w space heater for 8 hrs": their figures
        args["power_kw"] = params["appliance_kw"]
    if params.get("run_hours") is not None:  # "the pool pump needs 8 hours": their run time
        args["hours"] = params["run_hours"]
    if params.get("start_hour") is not None:  # "run the dishwasher at 5pm?": that start, priced
        args["start_hour"] = int(params["start_hour"])
        if params.get("start_minute") is not None:
            args["start_minute"] = int(params["start_minute"])
        if params.get("day") == "tomorrow" or params.get("ready_by_day") == "tomorrow":
            args["day"] = "tomorrow"
        return args
    if params.get("ready_by_hour") is not None:
        args["ready_by_hour"] = int(params["ready_by_hour"])
        if params.get("ready_by_minute") is not None:
            args["ready_by_minute"] = int(params["ready_by_minute"])
        if params.get("ready_by_day") == "tomorrow":
            args["day"] = "tomorrow"
    elif params.get("day") == "tomorrow":
        args["day"] = "tomorrow"
    return args


# --- recommend: template answers -----------------------------------------------------------


def _recommend(messages: list[BaseMessage]) -> str:
    human = _last_human(messages)
    context = (human.additional_kwargs.get(CONTEXT_KEY) if human else None) or {}
    return offline_answer(context)


def _lower_first(text: str) -> str:
    """ "Sorry: the solar forecast is unavailable": a sentence's capital after the colon goes (an
    acronym's stays: "Sorry: PG&E's …")."""
    first = text.split(" ", 1)[0]
    return text[0].lower() + text[1:] if text and first[1:].islower() else text


def offline_answer(context: dict[str, Any]) -> str:
    """Write the answer from the structured context: observations, passages, stale facts."""
    intent = context.get("intent")
    parts: list[str] = []
    observations = context.get("observations") or []
    passages = context.get("passages") or []
    for observation in observations:
        parts.append(
            observation["summary"]
            if observation.get("ok", True)
            else f"Sorry: {_lower_first(observation['summary'])}"
        )
        if observation.get("assumptions"):
            parts.append("Assumed: " + "; ".join(observation["assumptions"]) + ".")
        parts.extend(f"⚠️ {warning}" for warning in observation.get("warnings", []))
    if context.get("repeated_warnings"):
        parts.append("⚠️ The caveats I gave earlier in this thread about these figures still apply.")
    for observation in observations:
        if observation.get("is_mock"):
            parts.append("(Sample data: the data APIs are in mock mode.)")
        if observation.get("credit"):
            parts.append(observation["credit"] + ".")
    if passages and context.get("profile_said") and intent == "knowledge":
        # what the answer is read against, in words ("you heat with gas"), not a label list
        parts.append(f"What I have for your home: {context['profile_said']}.")
    if passages:
        first = passages[0]
        where = (
            f"In {first['applies_in']}: " if first.get("applies_in") else ""
        )  # one state's passage, said as such
        question = str(context.get("question") or "")
        parts.append(f"{where}{passage_excerpt(answering_part(question, first['text']))} [1]")
        second = passages[1] if len(passages) > 1 else None
        if second is not None and second["source"] == first["source"]:
            # a comparison: the same document's section on the other side, given beside it
            parts.append(f"{passage_excerpt(answering_part(question, second['text']))} [2]")
            title = first["text"].split(" — ")[0]
            parts.append(
                f'Sources: [1] "{_section(first)}" and [2] "{_section(second)}", both from {title} '
                f"({first['source']})."
            )
        else:
            parts.append(f"Source: [1] {first['text'].split(' — ')[0]} ({first['source']}).")
    elif intent == "knowledge":
        parts.append(
            nothing_more_reply(bool(context.get("place_added")))
            if context.get("nothing_more")
            else no_source_reply(bool(context.get("outside_california")))
        )
    if not observations and intent == "live_data":
        parts.append(NO_TOOL_CHOSEN)
    for error in context.get("errors") or []:
        if error != NO_TOOL_ERROR:  # said in words above; the model's prompt keeps it as a fact
            parts.append(f"⚠️ {error}")
    for stale in context.get("stale_facts") or []:
        parts.append(f"Your profile says {stale} — is that still right?")
    parts.append(OFFLINE_LABEL)
    return "\n\n".join(parts)


def _section(passage: dict[str, Any]) -> str:
    """The section of a passage ("Title — Section" is its first line)."""
    return passage["text"].split("\n", 1)[0].split(" — ", 1)[-1].strip()


NOTHING_MORE = (
    "That's everything my sources say on this; they have nothing more specific for what you've added, "
    "so I won't guess beyond it."
)


NOTHING_MORE_FOR_PLACE = "My sources have nothing specific to your area on this, so my answer above stands."


def nothing_more_reply(place_added: bool) -> str:
    """What a follow-up to an explanation gets when its documents have said it all: a place added
    ("we're in cheyenne fwiw") changes nothing, said in one line."""
    return NOTHING_MORE_FOR_PLACE if place_added else NOTHING_MORE


def no_source_reply(outside_california: bool = False) -> str:
    """An honest "I don't know": no passage answers it, so nothing is quoted or cited (the question
    is not quoted back: the reader may have kept only a fragment of it). California's rebates are
    named only to someone who may live there."""
    rebates = (
        "and the federal tax credits"
        if outside_california
        else "California's rebates and the federal tax credits"
    )
    return (
        "I don't have a source that answers that yet, so I won't guess. My sources cover how heat pumps, "
        "water heaters, insulation, rate plans and bills, solar, home batteries and EV charging work, "
        f"{rebates}; I can also work out your own prices, charging plan or solar forecast."
    )


NO_TOOL_ERROR = "no data tool was called"  # the analyzer's error when it chose no tool
NO_TOOL_CHOSEN = (
    "I'm not sure which of your numbers you're after, so I haven't looked anything up. I can plan EV "
    'charging, show your prices, check the forecast or estimate your solar: try "When should I charge my '
    'EV?", "What are my prices today?", "What\'s the weather tomorrow?" or "How much solar will I get today?"'
)
# --- memorizer: the offline reader's facts ----------------------------------------------------


def extract_facts(
    conversation: list[dict[str, Any]], known: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """ExtractedFact dicts from user messages [{turn, text}], read by the same rules as intake
    (against the profile's values `known`, as the turns were)."""
    return stated_facts(conversation, known)


def _memorize(messages: list[BaseMessage]) -> str:
    human = _last_human(messages)
    payload = (human.additional_kwargs if human else {}) or {}
    if "turns_to_summarize" in payload:
        return summarize_turns(payload["turns_to_summarize"])
    return json.dumps(
        {"facts": extract_facts(payload.get(CONVERSATION_KEY) or [], payload.get(KNOWN_KEY) or {})}
    )


def summarize_turns(turns: list[dict[str, Any]]) -> str:
    """'Turns 1-5: asked about charging; rates.' from [{turn, text}] (the user's words only)."""
    if not turns:
        return ""
    topics = sorted({understand(str(turn["text"])).topic.replace("_", " ") for turn in turns} - {"general"})
    numbers = [int(turn["turn"]) for turn in turns]
    about = "; ".join(topics) if topics else "general questions"
    return f"Turns {min(numbers)}-{max(numbers)} (offline summary): the user asked about {about}."
