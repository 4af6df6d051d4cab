"""Recommend: one LLM call over a compact context; the answer cites passages as [n]."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from advisor.context import Passage, RecommendContext, clip, profile_facts, render, stale_facts
from advisor.llm.errors import invoke_model
from advisor.llm.offline import CONTEXT_KEY
from advisor.prompts import RECOMMEND_SYSTEM
from advisor.state import AdvisorState
from traces.recorder import current_trace

_CITATION = re.compile(r"\[(\d{1,2})\]")


def make_recommend(model: BaseChatModel, *, history_turns: int = 1):
    def recommend(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        context = build_context(state, history_turns=history_turns)
        messages = [
            SystemMessage(RECOMMEND_SYSTEM),
            HumanMessage(render(context), additional_kwargs={CONTEXT_KEY: context.model_dump(mode="json")}),
        ]
        reply = invoke_model(model, messages, role="recommend", config=config)
        answer = str(reply.content).strip() or "Sorry, I couldn't put an answer together this time."
        numbers = len(context.passages)
        cited = sorted({int(n) for n in _CITATION.findall(answer) if 1 <= int(n) <= numbers})
        if numbers and (trace := current_trace()) is not None:
            trace.state_change(
                "cited_passages", cited, node="recommend", reason=f"{numbers} passage(s) given"
            )
        return {"response": answer, "messages": [AIMessage(answer)], "cited_passages": cited}

    return recommend


def build_context(state: AdvisorState, *, history_turns: int = 1) -> RecommendContext:
    profile = state.get("user_profile")
    topic = state.get("topic", "general")
    history = state.get("messages", [])[:-1]  # without this turn's question
    previous = [
        f"{'user' if isinstance(message, HumanMessage) else 'you'}: {clip(str(message.content))}"
        for message in (history[-2 * history_turns :] if history_turns else [])
    ]
    intent = state.get("intent", "unclear")
    if intent == "profile_statement" and state.get("should_memorize"):
        intent = "profile_statement_saved"
    return RecommendContext(
        question=state["message"],
        intent=intent,
        topic=topic,
        profile_facts=profile_facts(profile, topic),
        stale_facts=stale_facts(profile, state.get("stale_sections", []), topic),
        observations=state.get("tool_observations", []),
        passages=[
            Passage(number=index, source=doc.source, text=doc.text)
            for index, doc in enumerate(state.get("retrieved_docs", []), start=1)
        ],
        previous=previous,
        errors=[error["message"] for error in state.get("errors", []) if error.get("node") == "analyzer"],
    )
