"""Recommend: one LLM call over a compact context; the answer cites passages as [n]."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately, trim_messages
from langchain_core.runnables import RunnableConfig

from advisor.context import (
    Passage,
    RecommendContext,
    cited_passages,
    clip,
    profile_facts,
    profile_said,
    render,
    stale_facts,
    without_repeated_warnings,
)
from advisor.llm.errors import invoke_model
from advisor.llm.offline import OfflineChatModel, no_source_reply, nothing_more_reply
from advisor.llm.payloads import CONTEXT_KEY
from advisor.nodes.retrieve import where_asked
from advisor.places import STATE_TITLES
from advisor.prompts import RECOMMEND_SYSTEM
from advisor.state import AdvisorState
from knowledge.jurisdiction import Where, fits, parts
from traces.recorder import current_trace


def make_recommend(model: BaseChatModel, *, history_tokens: int = 400):
    def recommend(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        context = build_context(state, history_tokens=history_tokens)
        if _no_source(context) and not isinstance(model, OfflineChatModel):
            # a model given no passage answers from its own memory, uncited: the honest "no source"
            # needs no model (the offline template says the same words)
            answer = (
                nothing_more_reply(context.place_added)
                if context.nothing_more
                else no_source_reply(context.outside_california)
            )
            return {"response": answer, "messages": [AIMessage(answer)], "cited_passages": []}
        messages = [
            SystemMessage(RECOMMEND_SYSTEM),
            HumanMessage(render(context), additional_kwargs={CONTEXT_KEY: context.model_dump(mode="json")}),
        ]
        reply = invoke_model(model, messages, role="recommend", config=config)
        answer = str(reply.content).strip() or "Sorry, I couldn't put an answer together this time."
        numbers = len(context.passages)
        cited = cited_passages(answer, numbers)
        if numbers and (trace := current_trace()) is not None:
            trace.state_change(
                "cited_passages", cited, node="recommend", reason=f"{numbers} passage(s) given"
            )
            if not cited and context.intent == "knowledge" and not context.observations:
                # the model found no passage that answers (as told to say): its decline, on record
                trace.state_change(
                    "knowledge_declined",
                    {"closest": context.passages[0].source, "by": "model"},
                    node="recommend",
                    reason="the model cited no passage",
                )
        return {"response": answer, "messages": [AIMessage(answer)], "cited_passages": cited}

    return recommend


def _no_source(context: RecommendContext) -> bool:
    """An explanation asked for with no passage and no tool facts to stand on."""
    return context.intent == "knowledge" and not context.passages and not context.observations


def recent_history(messages: list[BaseMessage], max_tokens: int) -> list[BaseMessage]:
    """The newest messages that fit the token budget, starting on a user message (LangChain's
    trim_messages with its approximate counter: no tokenizer download, stable across models)."""
    if max_tokens <= 0 or not messages:
        return []
    clipped = [type(m)(clip(str(m.content))) for m in messages]
    return trim_messages(
        clipped,
        max_tokens=max_tokens,
        token_counter=count_tokens_approximately,
        strategy="last",
        start_on="human",
    )


def applies_in(applies_to: str, where: Where) -> str | None:
    """The place to name with a passage that is one state's (or one utility's) when the user is
    not known to be there: "California", "California, PG&E customers"."""
    if fits(applies_to, where) is True:
        return None
    state, utility = parts(applies_to)
    name = STATE_TITLES.get(state or "", state or "")
    return f"{name}, {utility} customers" if utility else name


def build_context(state: AdvisorState, *, history_tokens: int = 400) -> RecommendContext:
    profile = state.get("user_profile")
    topic = state.get("topic", "general")
    history = state.get("messages", [])[:-1]  # without this turn's question
    previous = [
        f"{'user' if isinstance(message, HumanMessage) else 'you'}: {message.content}"
        for message in recent_history(history, history_tokens)
    ]
    intent = state.get("intent", "unclear")
    where = where_asked(state)
    said_before = "\n".join(str(m.content) for m in history if isinstance(m, AIMessage))
    observations, repeated = without_repeated_warnings(state.get("tool_observations", []), said_before)
    return RecommendContext(
        question=state["message"],
        intent=intent,
        topic=topic,
        profile_facts=profile_facts(profile, topic),
        # (what it says it has for them is what is stored, never this turn's assumed values)
        profile_said=_not_said_before(
            profile_said(state.get("stored_profile") if state.get("viewed_profile") else profile, topic),
            said_before,
        ),
        stale_facts=stale_facts(profile, state.get("stale_sections", []), topic),
        observations=observations,
        repeated_warnings=repeated,
        passages=[
            Passage(
                number=index, source=doc.source, text=doc.text, applies_in=applies_in(doc.applies_to, where)
            )
            for index, doc in enumerate(state.get("retrieved_docs", []), start=1)
        ],
        nothing_more=bool(state.get("nothing_more")),
        place_added=bool(state.get("nothing_more")) and _only_place_said(state),
        outside_california=where.known and "CA" not in where.states,
        previous=previous,
        earlier=[
            clip(note.content, 300)
            for note in (profile.notes if profile else [])
            if note.source_session == state.get("session_id")
        ][-2:],
        errors=[error["message"] for error in state.get("errors", []) if error.get("node") == "analyzer"],
    )


def _not_said_before(said: str, said_before: str) -> str:
    """What we hold for them, said once in a thread: repeated before every explanation it was noise
    (a homeowner-tester met it before four answers in a row)."""
    return "" if said and said in said_before else said


def _only_place_said(state: AdvisorState) -> bool:
    """The turn's facts are all where they live (a ZIP, a town, a utility)."""
    understanding = state.get("understanding")
    facts = understanding.facts if understanding is not None else []
    return bool(facts) and all(fact.field.startswith("location.") for fact in facts)
