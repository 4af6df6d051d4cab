"""The model reader (Ollama mode): a language model turns the message into the `Understanding`.

The model reads every message (nothing else reads it first) and answers with JSON constrained by
`ModelReading`'s schema (Ollama's `format`). Its facts then pass the same precision guards as
the offline reader's: the words it quotes must be in the message, the field must exist, and a
clause the grammar marks as about someone else or hypothetical never yields a fact. A reply that
does not validate (or a model that does not answer) falls back to the offline reader (grammar and
meaning model), and the trace records why.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.llm.errors import invoke_model
from advisor.llm.payloads import UNDERSTANDING_KEY
from advisor.memorizer import normalize_value
from advisor.prompts import understanding_system
from advisor.understanding.models import (
    Intent,
    ReadingContext,
    RequestParams,
    SlotAnswer,
    SlotStatus,
    StatedFact,
    Topic,
    Understanding,
)
from advisor.understanding.params import follow_up_params, with_household_usage
from advisor.understanding.plan_described import described_plan
from advisor.understanding.reader import (
    LearnedReader,
    command_reading,
    held_now_saved,
    saving_declined,
    says_save_nothing,
    withheld,
)
from advisor.understanding.text import clauses, clean
from advisor.understanding.values import SLOT_FIELDS, Values, read_values
from profiles.repository import editable_fields
from profiles.wording import DERIVED_FIELDS
from traces.recorder import current_trace

logger = logging.getLogger(__name__)


class ModelFact(BaseModel):
    model_config = ConfigDict(extra="ignore")

    field: str = Field(description="profile field path from FIELDS")
    value: str | int | float | bool = Field(
        description="value in the field's unit or one of its allowed values"
    )
    said: str = Field(description="the user's exact words for this fact, copied from the message")


class ModelReading(BaseModel):
    """What the model fills in; converted to an `Understanding` after the guards."""

    model_config = ConfigDict(extra="ignore")

    intent: Intent
    topic: Topic = "general"
    question: str | None = Field(None, description="the question part of the message, if it asks something")
    facts: list[ModelFact] = Field(default_factory=list)
    slot_status: SlotStatus | None = Field(None, description="answer to PENDING, if a question is pending")
    params: RequestParams = Field(default_factory=RequestParams)
    follow_up: bool = False
    remember: bool = False


READING_SCHEMA = ModelReading.model_json_schema()


class ModelUnderstander:
    def __init__(self, model: BaseChatModel, *, fallback: LearnedReader | None = None) -> None:
        self._model = model
        self._fallback = fallback or LearnedReader()
        self._fields = set(editable_fields()) - DERIVED_FIELDS  # coordinates come from the ZIP or city
        self._system = understanding_system()

    def understand(
        self, text: str, context: ReadingContext, config: RunnableConfig | None = None
    ) -> Understanding:
        try:
            reply = invoke_model(
                self._model,
                [
                    SystemMessage(self._system),
                    HumanMessage(
                        prompt(text, context),
                        additional_kwargs={
                            UNDERSTANDING_KEY: {"text": text, "context": context.model_dump(mode="json")}
                        },
                    ),
                ],
                role="understanding",
                config=config,
                format=READING_SCHEMA,
            )
            reading = ModelReading.model_validate_json(_json_part(str(reply.content)))
        except (ValidationError, ValueError) as exc:
            why = f"the model's reading did not validate: {_first_error(exc)}"
        except Exception as exc:  # the model is down: the offline reader still reads the message
            why = f"the model did not answer ({type(exc).__name__})"
        else:
            return self._guarded(reading, read_values(text, context), text, context)
        return self._fall_back(self._fallback.understand(text, context, config), why)

    # --- internals ------------------------------------------------------------------------

    @staticmethod
    def _fall_back(reading: Understanding, why: str) -> Understanding:
        logger.warning("Understanding falls back to the offline reader: %s", why)
        if (trace := current_trace()) is not None:
            trace.error(node="intake", kind="understanding_fallback", message=why)
        return reading

    def _guarded(
        self, reading: ModelReading, values: Values, text: str, context: ReadingContext
    ) -> Understanding:
        """The model's facts, kept only when they are the user's own, quoted and known fields
        (the grammar supplies the clause flags and place names)."""
        command = command_reading(reading.intent, 0.9, values, context)
        if command is not None:
            return command.model_copy(update={"source": "model"})
        message = clean(text)
        found = clauses(message)
        facts: list[StatedFact] = []
        dropped: list[str] = []
        for fact in reading.facts:
            quoted = _normalized(fact.said)
            clause = next((c for c in found if quoted and quoted in _normalized(c.text)), None)
            if fact.field not in self._fields or not quoted or quoted not in _normalized(message):
                dropped.append(f"{fact.field}: not quoted from the message")
            elif clause is not None and (clause.someone_else or clause.hypothetical):
                dropped.append(f"{fact.field}: about someone else or hypothetical")
            elif any(f.field == fact.field for f in facts):
                continue
            else:
                facts.append(
                    StatedFact(
                        field=fact.field,
                        value=_normalize_value(fact.field, fact.value),
                        said=fact.said[:200],
                        words=(clause.text if clause else message)[:500],
                        confidence=0.85,
                    )
                )
        if dropped and (trace := current_trace()) is not None:
            trace.state_change("model_facts_dropped", dropped, node="intake", reason="precision guard")
        slot = None
        if context.pending_slot in SLOT_FIELDS:
            slot = SlotAnswer(slot=context.pending_slot, status=reading.slot_status or "not_answered")
        params = reading.params
        if reading.follow_up and context.last_params is not None:
            params = follow_up_params(
                params, context.last_params
            )  # the offline reader's merge, one definition
        else:
            params = with_household_usage(params, context)  # miles and kWh said earlier in the thread
        declined = saving_declined(values, context)
        mentions, held = list(values.mentions), []
        if declined and facts:  # "dont save anything": said for this conversation only
            mentions, facts, held = mentions + withheld(facts), [], facts
        facts = [*facts, *held_now_saved(message, context, facts)]
        intent = reading.intent
        topic = reading.topic
        if reading.follow_up and context.last_topic and intent == "live_data":
            topic = context.last_topic  # type: ignore[assignment]
        return Understanding(
            intent=intent,
            topic=topic,
            asks=intent in ("live_data", "knowledge", "profile_query"),
            question=reading.question or (message if intent in ("live_data", "knowledge") else None),
            facts=facts,
            mentions=mentions,
            slot_answer=slot,
            params=params,
            follow_up=reading.follow_up,
            remember=reading.remember,
            saving_declined=declined,
            declined_now=says_save_nothing(message),
            held=held,
            hedged=values.hedged,
            place_query=values.place_query
            if not any(f.field.startswith("location.") for f in facts)
            else None,
            thanks=values.thanks,
            points_back=values.points_back,
            affirmed=values.affirmed,
            choice=values.choice,
            described_plan=described_plan(message),  # the grammar reads a plan's prices and hours
            confidence=0.9,
            source="model",
        )


def prompt(text: str, context: ReadingContext) -> str:
    """The message and what it is read against, as one compact JSON document."""
    payload: dict[str, Any] = {"message": clean(text)[:4000]}
    if context.pending_slot:
        payload["pending"] = context.pending_slot
    if context.last_intent:
        payload["last_request"] = {
            "topic": context.last_topic,
            "params": context.last_params.filled() if context.last_params else {},
        }
    if context.recent:
        payload["recent"] = context.recent[-4:]
    return json.dumps(payload, ensure_ascii=False)


def _json_part(content: str) -> str:
    match = re.search(r"\{.*\}", content, re.DOTALL)
    if match is None:
        raise ValueError("no JSON object in the reply")
    return match.group(0)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"[:200]
    return str(exc)[:200]


def _normalized(text: str) -> str:
    return re.sub(r"[^a-z0-9.%&-]+", " ", text.lower()).strip()


def _normalize_value(field: str, value: Any) -> Any:
    """'Heat Pump' -> 'heat_pump' for choice fields; numbers and other text as given."""
    if isinstance(value, str):
        return normalize_value(field, value)
    return value
