"""Memorizer node: on goodbye, run the memorizer subgraph over what the turns did not save.

A memorizer failure never costs the user their goodbye: the turns stay un-memorized (the idle
scheduler retries them) and the reply claims nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.runnables import RunnableConfig

from advisor.llm.errors import ModelUnavailableError
from advisor.memorizer import MemorizeOutputError, Memorizer
from advisor.state import AdvisorState
from profiles.repository import ProfileError

logger = logging.getLogger(__name__)


def make_memorize(memorizer: Memorizer):
    def memorize(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        response = state.get("response", "")
        try:
            result = memorizer.memorize_session(state["session_id"], user_id=state["user_id"], config=config)
        except ProfileError:  # a first-turn goodbye: no earlier turns to read
            return {"memorized_through_turn": state.get("turn_count", 0)}
        except (MemorizeOutputError, ModelUnavailableError) as exc:
            logger.warning("Memorizing on goodbye failed (%s); the idle job will retry", exc)
            return {"errors": [{"node": "memorizer", "type": type(exc).__name__, "message": str(exc)[:200]}]}
        saved = result.describe_changes()
        return {
            "extracted_facts": result.facts,
            "profile_changes": [
                *state.get("profile_changes", []),
                *(c.model_dump(mode="json") for c in result.applied),
            ],
            # This turn's own facts were saved by remember; the memorizer read every earlier turn.
            "memorized_through_turn": state.get("turn_count", result.through_turn),
            "response": f"{response}\n\n{saved}".strip() if saved else response,
            "errors": result.errors,
        }

    return memorize
