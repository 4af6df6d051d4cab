"""Memorizer node: runs the memorizer subgraph when intake decided this turn should memorize."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from advisor.memorizer import Memorizer
from advisor.state import AdvisorState


def make_memorize(memorizer: Memorizer):
    def memorize(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        result = memorizer.memorize_session(state["session_id"], user_id=state["user_id"], config=config)
        saved = result.describe_changes()
        response = state.get("response", "")
        return {
            "extracted_facts": result.facts,
            "profile_changes": [
                *state.get("profile_changes", []),
                *(c.model_dump(mode="json") for c in result.applied),
            ],
            "memorized_through_turn": result.through_turn,
            "response": f"{response}\n\n{saved}".strip() if saved else response,
            "errors": result.errors,
        }

    return memorize
