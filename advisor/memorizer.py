"""The memorizer (FR-015/016): a subgraph `extract -> apply -> summarize`, compiled once.

- extract: the memorizer model reads the user's messages not yet memorized and returns facts
  (field, new_value, confidence, source_turn, source_text);
- apply: facts at or above the confidence threshold with a known field path go through
  `ProfileRepository.apply_change` (invalid values rejected; a re-statement confirms; old -> new kept);
- summarize: turns older than `max_raw_turns` become a `ProfileNote`.
Then the session is marked memorized through its last turn. `memorize_session` runs it on its own
(for the idle scheduler); the advisor graph's memorizer node calls the same method.
"""

from __future__ import annotations

import json
import logging
import re
import typing
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field, ValidationError

from advisor.llm.errors import invoke_model
from advisor.llm.payloads import CONVERSATION_KEY, KNOWN_KEY
from advisor.nodes.intake import profile_values
from advisor.prompts import MEMORIZER_SYSTEM, SUMMARIZE_SYSTEM
from advisor.state import MemorizerState
from advisor.understanding.reader import stated_facts
from config.files import MemorizerConfig
from profiles.models import SECTION_MODELS, ExtractedFact, ProfileNote
from profiles.repository import (
    ChangeRecord,
    ChangeSource,
    ProfileError,
    ProfileRepository,
    editable_fields,
    split_field_path,
)
from profiles.sessions import SessionRepository
from profiles.wording import describe_saved
from traces.recorder import current_trace

logger = logging.getLogger(__name__)


class ExtractionResult(BaseModel):
    """What the memorizer model must return; its JSON schema is sent as Ollama's `format`, so the
    runtime constrains decoding to it (what `with_structured_output(method="json_schema")` does
    for ChatOllama, kept as a plain `invoke` so the trace callbacks and transport errors stay the same)."""

    facts: list[ExtractedFact] = Field(default_factory=list)


EXTRACTION_SCHEMA = ExtractionResult.model_json_schema()


class MemorizeOutputError(ValueError):
    """The memorizer model's reply did not validate: nothing is applied, the session is not marked
    memorized, and the scheduler retries."""


class MemorizeResult(BaseModel):
    user_id: str
    session_id: str
    through_turn: int
    facts: list[ExtractedFact] = Field(default_factory=list)
    applied: list[ChangeRecord] = Field(default_factory=list)
    rejected: list[dict[str, Any]] = Field(default_factory=list)
    notes_added: int = 0
    errors: list[dict[str, Any]] = Field(default_factory=list)

    def describe_changes(self) -> str:
        """'Saved: you work from home.' in plain words (empty when nothing changed)."""
        return describe_saved([change for change in self.applied if change.operation != "confirmed"])


def field_catalog() -> str:
    """'household.work_schedule (text); equipment.heating_type (gas|electric|heat_pump); ...' for the prompt."""
    entries = []
    for path in editable_fields():
        section, name = path.split(".")
        annotation = SECTION_MODELS[section].model_fields[name].annotation
        literals = [arg for arg in typing.get_args(annotation) if typing.get_origin(arg) is typing.Literal]
        if literals:
            kind = "|".join(str(v) for v in typing.get_args(literals[0]))
        elif any(arg in (int, float) for arg in typing.get_args(annotation)):
            kind = "number"
        elif bool in typing.get_args(annotation):
            kind = "true|false"
        else:
            kind = "text"
        entries.append(f"{path} ({kind})")
    return "; ".join(entries)


def normalize_value(field_path: str, value: str) -> str:
    """'Heat Pump' -> 'heat_pump' for fields with fixed choices; other values are left as said."""
    section, name = split_field_path(field_path)
    annotation = SECTION_MODELS[section].model_fields[name].annotation
    literals = [arg for arg in typing.get_args(annotation) if typing.get_origin(arg) is typing.Literal]
    if not literals:
        return value
    candidate = re.sub(r"[\s-]+", "_", value.strip().lower())
    return candidate if candidate in typing.get_args(literals[0]) else value


class Memorizer:
    def __init__(
        self,
        *,
        model: BaseChatModel,
        profiles: ProfileRepository,
        sessions: SessionRepository,
        config: MemorizerConfig,
    ) -> None:
        self._model = model
        self._profiles = profiles
        self._sessions = sessions
        self._config = config
        self._fields = field_catalog()
        self.graph = self._build().compile(name="memorizer")

    def memorize_session(
        self, session_id: str, *, user_id: str, config: RunnableConfig | None = None
    ) -> MemorizeResult:
        """Memorize everything the user said in the session since the last run."""
        session = self._sessions.get(user_id, session_id)
        if session is None:
            raise ProfileError(f"no session {session_id} for {user_id}")
        state = self.graph.invoke(
            {"user_id": user_id, "session_id": session_id, "through_turn": session.turn_count},
            config=config,
        )
        self._sessions.mark_memorized(user_id, session_id, state["through_turn"])
        if (trace := current_trace()) is not None:
            trace.state_change("memorized_through_turn", state["through_turn"], node="memorizer")
        return MemorizeResult(
            user_id=user_id,
            session_id=session_id,
            through_turn=state["through_turn"],
            facts=state.get("extracted_facts", []),
            applied=[ChangeRecord.model_validate(change) for change in state.get("changes", [])],
            rejected=state.get("rejected_facts", []),
            notes_added=1 if state.get("summary") else 0,
            errors=state.get("errors", []),
        )

    # --- subgraph -------------------------------------------------------------------------

    def _build(self) -> StateGraph:
        graph = StateGraph(MemorizerState)
        graph.add_node("extract", self._extract)
        graph.add_node("apply", self._apply)
        graph.add_node("summarize", self._summarize)
        graph.add_edge(START, "extract")
        graph.add_edge("extract", "apply")
        graph.add_edge("apply", "summarize")
        graph.add_edge("summarize", END)
        return graph

    def _extract(self, state: MemorizerState, config: RunnableConfig) -> dict[str, Any]:
        session = self._sessions.get(state["user_id"], state["session_id"])
        assert session is not None
        conversation = [
            {"turn": message.turn, "text": message.content}
            for message in session.messages
            if message.role == "user"
            # (never a turn of "dont save anything", nor one after it before they said to save)
            and max(session.memorized_through_turn, session.declined_through_turn)
            < message.turn
            <= state["through_turn"]
        ]
        if not conversation:
            return {"extracted_facts": []}
        _record_stated(conversation, handled={(fact.turn, fact.field) for fact in session.facts})
        numbered = "\n".join(f"[{item['turn']}] {item['text']}" for item in conversation)
        messages = [
            SystemMessage(MEMORIZER_SYSTEM),
            HumanMessage(
                f"FIELDS: {self._fields}\nMESSAGES:\n{numbered}",
                # (read against what the profile holds, as each turn was: "whats the tdu charge on my
                # bill, centerpoint something" from a Reliant customer asks about CenterPoint)
                additional_kwargs={
                    CONVERSATION_KEY: conversation,
                    KNOWN_KEY: profile_values(self._profiles.get(state["user_id"])),
                },
            ),
        ]
        reply = invoke_model(self._model, messages, role="memorizer", config=config, format=EXTRACTION_SCHEMA)
        facts, errors = _parse_facts(str(reply.content))
        unreadable = [error for error in errors if error["type"] == "unreadable_output"]
        if unreadable:
            if (trace := current_trace()) is not None:
                trace.error(
                    node="memorizer.extract", kind="unreadable_output", message=unreadable[0]["message"]
                )
            raise MemorizeOutputError(f"the memorizer's reply did not validate: {unreadable[0]['message']}")
        return {"extracted_facts": facts, "errors": errors}

    def _apply(self, state: MemorizerState) -> dict[str, Any]:
        validated, rejected, changes = [], [], []
        session = self._sessions.get(state["user_id"], state["session_id"])
        handled = {(fact.turn, fact.field) for fact in (session.facts if session else [])}
        forgotten = {
            fact.field: fact.turn for fact in (session.facts if session else []) if fact.status == "forgotten"
        }
        for fact in sorted(state.get("extracted_facts", []), key=lambda f: f.source_turn):
            if (fact.source_turn, fact.field) in handled:
                continue  # saved (or refused) in its own turn: never re-applied
            if fact.source_turn <= forgotten.get(fact.field, 0):
                continue  # "forget my zip" after it was said: forgotten stays forgotten
            if fact.confidence < self._config.confidence_threshold:
                rejected.append(
                    {"fact": fact.model_dump(), "reason": f"confidence {fact.confidence:.2f} below threshold"}
                )
                continue
            try:
                value = normalize_value(fact.field, fact.new_value)
                change = self._profiles.apply_change(
                    state["user_id"],
                    fact.field,
                    value,
                    source=ChangeSource(
                        kind="memorizer",
                        session_id=state["session_id"],
                        turn=fact.source_turn,
                        text=fact.source_text,
                    ),
                )
            except ProfileError as exc:
                rejected.append({"fact": fact.model_dump(), "reason": str(exc)})
                continue
            validated.append(fact)
            changes.append(change.model_dump(mode="json"))
            if (trace := current_trace()) is not None:
                trace.memory_write(
                    ("profiles", state["user_id"]),
                    "profile",
                    operation="update",
                    data={change.field: change.new_value},
                    changes=[(change.field, change.old_value, change.new_value)],
                    node="memorizer.apply",
                )
        if rejected and (trace := current_trace()) is not None:
            trace.state_change("rejected_facts", rejected, node="memorizer.apply")
        return {"validated_facts": validated, "rejected_facts": rejected, "changes": changes}

    def _summarize(self, state: MemorizerState, config: RunnableConfig) -> dict[str, Any]:
        session = self._sessions.get(state["user_id"], state["session_id"])
        profile = self._profiles.get(state["user_id"])
        assert session is not None
        already = {
            turn
            for note in (profile.notes if profile else [])
            if note.source_session == session.session_id
            for turn in note.source_turns
        }
        cutoff = state["through_turn"] - self._config.max_raw_turns
        old = [
            {"turn": message.turn, "text": message.content}
            for message in session.messages
            if message.role == "user" and message.turn <= cutoff and message.turn not in already
        ]
        if not old:
            return {"summary": None, "turns_to_summarize": []}
        text = "\n".join(f"[{item['turn']}] {item['text']}" for item in old)
        messages = [
            SystemMessage(SUMMARIZE_SYSTEM),
            HumanMessage(text, additional_kwargs={"turns_to_summarize": old}),
        ]
        summary = str(invoke_model(self._model, messages, role="memorizer", config=config).content).strip()
        turns = sorted({item["turn"] for item in old})
        if summary:
            note = ProfileNote(content=summary[:4000], source_session=session.session_id, source_turns=turns)
            self._profiles.add_note(state["user_id"], note)
            if (trace := current_trace()) is not None:
                trace.memory_write(
                    ("profiles", state["user_id"]),
                    "profile",
                    operation="add",
                    data={"note": note.model_dump(mode="json")},
                    node="memorizer.summarize",
                )
        return {"summary": summary or None, "turns_to_summarize": turns}


def _parse_facts(content: str) -> tuple[list[ExtractedFact], list[dict[str, Any]]]:
    """Facts from the model's JSON; anything unreadable is reported, never guessed."""
    match = re.search(r"\{.*\}", content, re.DOTALL)
    try:
        payload = json.loads(match.group(0) if match else content)
        raw = payload.get("facts", []) if isinstance(payload, dict) else payload
        if not isinstance(raw, list):
            raise ValueError("'facts' is not a list")
    except (json.JSONDecodeError, ValueError, AttributeError) as exc:
        return [], [{"node": "memorizer.extract", "type": "unreadable_output", "message": str(exc)[:200]}]
    facts, errors = [], []
    for item in raw:
        try:
            if isinstance(item, dict) and "new_value" in item and not isinstance(item["new_value"], str):
                item = {
                    **item,
                    "new_value": json.dumps(item["new_value"])
                    if isinstance(item["new_value"], bool)
                    else str(item["new_value"]),
                }
            facts.append(ExtractedFact.model_validate(item))
        except ValidationError as exc:
            errors.append(
                {"node": "memorizer.extract", "type": "invalid_fact", "message": str(exc.errors()[0]["msg"])}
            )
    return facts, errors


def _record_stated(conversation: list[dict[str, Any]], *, handled: set[tuple[int, str]]) -> None:
    """Trace the user messages this run reads and the facts deterministic patterns find in them,
    independently of the model, so a run that misses a fact is caught by the hygiene grader."""
    trace = current_trace()
    if trace is None:
        return
    if trace.kind == "memorize":  # inside a turn, intake already recorded the turn's own input
        for item in conversation:
            trace.user_input(str(item["text"]), node="memorizer.extract")
    stated = [
        {
            "field": fact["field"],
            "value": fact["new_value"],
            "turn": fact["source_turn"],
            "text": fact["source_text"],
        }
        for fact in stated_facts(conversation)
        if (fact["source_turn"], fact["field"]) not in handled  # saved or refused in its own turn
    ]
    if stated:
        trace.state_change("stated_facts", stated, node="memorizer.extract")
