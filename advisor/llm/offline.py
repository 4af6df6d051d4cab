"""The offline provider: a deterministic stand-in for demos, CI and air-gapped installs.

It is a LangChain chat model so the graph runs the same code path (create_agent, callbacks,
traces), but it is NOT a language model and says so in every answer:
- analyzer: picks the tool from keywords in the question;
- recommend: writes the answer from the tool observations and passages with templates;
- memorizer: extracts facts with patterns ("I work from home now", "we installed a heat pump").
The recommend and memorizer nodes hand it their structured input in the human message's
`additional_kwargs` (a real model reads the rendered text of the same data).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from advisor.llm.payloads import CONTEXT_KEY, CONVERSATION_KEY, PARAMS_KEY, UNDERSTANDING_KEY
from advisor.understanding.models import ReadingContext, Understanding
from advisor.understanding.params import read_params
from advisor.understanding.rules import PLAN_CHOICE, stated_facts, understand
from knowledge.documents import content_terms

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


# --- understanding: the rule reader, in the model reader's schema ---------------------------


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

_HOUR = re.compile(r"\b(?:by|before|until|at)\s+(\d{1,2})(?::00)?\s*(am|pm)?\b(?!\s*%)", re.IGNORECASE)
_PERCENT = re.compile(r"\b(?:to|(?<!is )(?<!currently )at)\s+(\d{1,3})\s*%(?!\s+now)", re.IGNORECASE)
_FROM_PERCENT = re.compile(
    r"\b(?:from|is\s+at|currently(?:\s+at)?)\s+(\d{1,3})\s*%|\b(\d{1,3})\s*%\s+now\b", re.IGNORECASE
)


def choose_tool(text: str, available: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The tool a keyword reading of the question calls for, with arguments it states."""
    lowered = text.lower()
    wants = []
    appliance = None
    if PLAN_CHOICE.search(lowered):
        wants.append("compare_rate_plans")
    if re.search(r"\b(charg\w*|ev|car|tesla)\b", lowered):
        wants.append("plan_ev_charging")
    elif appliance := read_params(text).appliance:
        wants.append("appliance_advice")  # "is it worth running the dryer now?": a verdict, not a price table
    if re.search(r"\b(typical|per year|yearly|annual|a year)\b", lowered):
        wants.append("get_typical_solar_production")
    if re.search(r"\b(solar|panels?|pv)\b", lowered):
        wants.append("get_solar_forecast")
    if re.search(r"\b(weather|forecast|temperature|hot|cold|ac|a/c|rain|cloud\w*)\b", lowered):
        wants.append("get_weather_forecast")
    wants.append("get_tariff_prices")  # prices answer "is it worth running X now?" and rate questions
    name = next((tool for tool in wants if tool in available), None)
    if name is None:
        return None
    args: dict[str, Any] = {}
    if name == "plan_ev_charging":
        hour = _HOUR.search(text)
        if hour and int(hour.group(1)) <= (12 if hour.group(2) else 23):
            suffix = (hour.group(2) or "").lower()
            number = int(hour.group(1))
            args["ready_by_hour"] = number % 12 + (12 if suffix == "pm" else 0) if suffix else number
        if target := _PERCENT.search(text):
            args["target_soc_pct"] = min(100, int(target.group(1)))
        if current := _FROM_PERCENT.search(text):
            args["current_soc_pct"] = min(100, int(current.group(1) or current.group(2)))
    if name in ("get_tariff_prices", "get_solar_forecast") and "tomorrow" in lowered:
        args["day"] = "tomorrow"
    if name == "appliance_advice":
        args["appliance"] = appliance
    return name, args


def _analyze(messages: list[BaseMessage], available: list[str]) -> AIMessage:
    if messages and isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Data gathered.")
    human = _last_human(messages)
    params = (human.additional_kwargs.get(PARAMS_KEY) if human else None) or {}
    wants_plan = any(
        params.get(key) is not None
        for key in ("ready_by_hour", "ready_in_minutes", "target_soc_pct", "current_soc_pct", "miles_needed")
    )
    text = str(human.content) if human else ""
    if params.get("appliance") and "appliance_advice" in available and not _EV_WORDS.search(text):
        # "When should I run the dishwasher (before 10pm)?": a verdict for the appliance, never a charging plan
        return _call("appliance_advice", _appliance_args(params, text))
    if wants_plan and "plan_ev_charging" in available:
        choice = ("plan_ev_charging", {})  # a deadline or charge level asks for a charging plan
    elif (
        params.get("system_kw") is not None or params.get("typical_year")
    ) and "get_typical_solar_production" in available:
        choice = ("get_typical_solar_production", {})  # "what would a 6 kW system make here?"
    else:
        choice = choose_tool(str(human.content) if human else "", available)
    if choice is None:
        return AIMessage(content="No tool needed.")
    name, args = choice
    args = {**args, **_tool_args(name, params)}
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"offline-{name}", "type": "tool_call"}]
    )


def _tool_args(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """The request's parameters (read by intake, merged for a follow-up) as this tool's arguments."""
    args: dict[str, Any] = {}
    if tool == "plan_ev_charging":
        for key in ("ready_by_hour", "ready_by_minute", "target_soc_pct", "current_soc_pct", "one_session"):
            if params.get(key) is not None:
                args[key] = int(params[key]) if key.startswith("ready_by") else params[key]
        if params.get("ready_by_day"):
            args["ready_by_day"] = params["ready_by_day"]  # "by Monday 7am", "and on saturday?": days ahead
        if params.get("ready_in_minutes") is not None:
            args["ready_in_minutes"] = int(params["ready_in_minutes"])  # "in 1 hour"
        if params.get("tonight"):
            args["tonight"] = True
        if params.get("miles_needed") is not None:
            args["miles_needed"] = params["miles_needed"]  # "I need like 40 miles": that much range
    if tool == "compare_rate_plans":
        args.update(
            {
                key: params[key]
                for key in ("ev_miles_per_month", "house_kwh_per_month", "ev_kwh_per_month")
                if params.get(key) is not None
            }
        )
    if tool == "get_typical_solar_production" and params.get("system_kw") is not None:
        args["system_kw"] = params["system_kw"]
    if tool == "get_tariff_prices" and params.get("ready_by_day") and not params.get("day"):
        args["day"] = params["ready_by_day"]  # "and friday?" after a prices answer: that day's prices
    if tool in ("get_tariff_prices", "get_solar_forecast") and params.get("day") in ("today", "tomorrow"):
        args["day"] = params["day"]
    return args


_EV_WORDS = re.compile(r"\b(?:charg\w*|ev|car|tesla)\b", re.IGNORECASE)
_BY_MORNING = re.compile(
    r"\b(?:by|before|until|til|till)\s+(?:the\s+)?(?P<tomorrow>tomorrow\s+)?morning\b", re.IGNORECASE
)
MORNING_HOUR = 7  # "by tomorrow morning": done by 07:00, and the reply names that time


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"offline-{name}", "type": "tool_call"}]
    )


def _appliance_args(params: dict[str, Any], text: str) -> dict[str, Any]:
    """appliance_advice's arguments: the appliance and any deadline ("before 10pm", "by tomorrow
    morning"), or a day to run it ("tomorrow")."""
    args: dict[str, Any] = {"appliance": params["appliance"]}
    if params.get("ready_by_hour") is not None:
        args["ready_by_hour"] = int(params["ready_by_hour"])
        if params.get("ready_by_minute") is not None:
            args["ready_by_minute"] = int(params["ready_by_minute"])
        if params.get("ready_by_day") == "tomorrow":
            args["day"] = "tomorrow"
    elif morning := _BY_MORNING.search(text):
        args["ready_by_hour"] = MORNING_HOUR
        if morning.group("tomorrow"):
            args["day"] = "tomorrow"
    elif params.get("day") == "tomorrow":
        args["day"] = "tomorrow"
    return args


# --- recommend: template answers -----------------------------------------------------------


def _recommend(messages: list[BaseMessage]) -> str:
    human = _last_human(messages)
    context = (human.additional_kwargs.get(CONTEXT_KEY) if human else None) or {}
    return offline_answer(context)


def offline_answer(context: dict[str, Any]) -> str:
    """Write the answer from the structured context: observations, passages, stale facts."""
    intent = context.get("intent")
    parts: list[str] = []
    observations = context.get("observations") or []
    passages = context.get("passages") or []
    for observation in observations:
        parts.append(
            observation["summary"] if observation.get("ok", True) else f"Sorry: {observation['summary']}"
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
    if passages and context.get("profile_facts") and intent == "knowledge":
        parts.append("For your home: " + "; ".join(context["profile_facts"]) + ".")
    if passages:
        first = passages[0]
        parts.append(
            f"{passage_excerpt(answering_part(str(context.get('question') or ''), first['text']))} [1]"
        )
        parts.append(f"Source: [1] {first['text'].split(' — ')[0]} ({first['source']}).")
    elif intent == "knowledge":
        parts.append("I don't have a knowledge-base passage on that yet, so I can't answer it reliably.")
    if not observations and intent == "live_data":
        parts.append(NO_TOOL_CHOSEN)
    for error in context.get("errors") or []:
        if error != NO_TOOL_ERROR:  # said in words above; the model's prompt keeps it as a fact
            parts.append(f"⚠️ {error}")
    for stale in context.get("stale_facts") or []:
        parts.append(f"Your profile says {stale} — is that still right?")
    parts.append(OFFLINE_LABEL)
    return "\n\n".join(parts)


NO_TOOL_ERROR = "no data tool was called"  # the analyzer's error when it chose no tool
NO_TOOL_CHOSEN = (
    "I'm not sure which of your numbers you're after, so I haven't looked anything up. I can plan EV "
    'charging, show your prices, check the forecast or estimate your solar: try "When should I charge my '
    'EV?", "What are my prices today?", "What\'s the weather tomorrow?" or "How much solar will I get today?"'
)
_ABBREVIATION_END = re.compile(r"(?:\b[ap]\.m\.|\be\.g\.|\bi\.e\.|\bvs\.|\betc\.|\bapprox\.|\bNo\.)$", re.I)
EXCERPT_CHARS = 700


def _sentences(text: str) -> list[str]:
    """Sentences of a paragraph; "4-9 p.m. every day" is not two sentences."""
    pieces = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _ABBREVIATION_END.search(sentences[-1]) and not piece[:1].isupper():
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return sentences


def answering_part(question: str, passage: str) -> str:
    """The passage's body ("Title — Section" line removed) from the paragraph that answers the
    question. The first paragraph opens the section and stays first unless it holds none of the
    question's own words (those the title and heading do not already say) and a later one does;
    then the answer starts at the later paragraph holding the most. A lead-in ending in ":" stays
    with the list after it."""
    header, _, body = passage.partition("\n\n")
    if not body:
        return passage
    paragraphs: list[str] = []
    for paragraph in re.split(r"\n\s*\n", body.strip()):
        if paragraphs and paragraphs[-1].rstrip().endswith(":"):
            paragraphs[-1] += "\n\n" + paragraph
        elif paragraph.strip():
            paragraphs.append(paragraph)
    distinctive = content_terms(question) - content_terms(header)
    said = [len(distinctive & content_terms(paragraph)) for paragraph in paragraphs]
    start = said.index(max(said)) if said and said[0] == 0 and max(said) > 0 else 0
    return "\n\n".join(paragraphs[start:])


def passage_excerpt(body: str, limit: int = EXCERPT_CHARS) -> str:
    """The start of a passage as the answer: whole lines, a list kept whole (a list cut after
    two of its three items says something the source does not), a long paragraph cut at a
    sentence end."""
    lines = [
        line.rstrip() for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    kept: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        is_item = line.lstrip().startswith(("- ", "* ")) or bool(re.match(r"\s*\d+\.\s", line))
        if kept and size + len(line) > limit and not (is_item and size + len(line) <= 2 * limit):
            break
        if not kept and len(line) > limit and not is_item:
            sentences = _sentences(line)
            taken = [sentences[0]]
            for sentence in sentences[1:]:
                if len(" ".join([*taken, sentence])) > limit:
                    break
                taken.append(sentence)
            kept.append(" ".join(taken))
            break
        kept.append(line)
        size += len(line)
        # a list's lead-in ("EV-TOU-5 has three price levels:") must bring its items
        if index + 1 < len(lines) and line.endswith(":"):
            continue
    return "\n".join(kept)


# --- memorizer: the rule reader's facts ----------------------------------------------------


def extract_facts(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ExtractedFact dicts from user messages [{turn, text}], read by the same rules as intake."""
    return stated_facts(conversation)


def _memorize(messages: list[BaseMessage]) -> str:
    human = _last_human(messages)
    payload = (human.additional_kwargs if human else {}) or {}
    if "turns_to_summarize" in payload:
        return summarize_turns(payload["turns_to_summarize"])
    return json.dumps({"facts": extract_facts(payload.get(CONVERSATION_KEY) or [])})


def summarize_turns(turns: list[dict[str, Any]]) -> str:
    """'Turns 1-5: asked about charging; rates.' from [{turn, text}] (the user's words only)."""
    if not turns:
        return ""
    from advisor.intent import topic_of  # local import: intent imports the graph's state types

    topics = sorted({topic_of(str(turn["text"])).replace("_", " ") for turn in turns} - {"general"})
    numbers = [int(turn["turn"]) for turn in turns]
    about = "; ".join(topics) if topics else "general questions"
    return f"Turns {min(numbers)}-{max(numbers)} (offline summary): the user asked about {about}."
