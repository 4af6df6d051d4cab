"""Intake: validate the text, classify the intent, and decide whether to memorize this turn."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from advisor.intent import clarifying_question, classify, validate_message
from advisor.state import AdvisorState
from config.files import MemorizerConfig

EMPTY_REPLY = (
    'I didn\'t get any text. Ask me about your energy use, for example "When should I charge my EV?", '
    '"Is it worth running the dryer now?" or "How do heat pumps work?"'
)
TRUNCATED_NOTICE = "Your message was very long, so I read only its first 1000 words."


def make_intake(memorizer: MemorizerConfig):
    def intake(state: AdvisorState) -> dict[str, Any]:
        checked = validate_message(state.get("message"))
        if checked.empty:
            return {"response": EMPTY_REPLY, "route": "done", "intent": "unclear", "intent_confidence": 0.0}
        notices = [TRUNCATED_NOTICE] if checked.truncated else []
        result = classify(checked.text)
        intent, confidence = result.intent, result.confidence
        pending = state.get("pending_slot")
        if pending and not (intent in ("goodbye", "live_data", "knowledge") and confidence >= 0.8):
            intent, confidence = "slot_answer", 0.9  # an answer to the onboarding question we asked
        turn = state.get("turn_count", 0)
        due = turn - state.get("memorized_through_turn", 0) >= memorizer.turn_threshold
        update: dict[str, Any] = {
            "message": checked.text,
            "messages": [HumanMessage(checked.text)],
            "intent": intent,
            "intent_confidence": confidence,
            "topic": result.topic,
            "notices": notices,
            # Goodbye and "remember that ..." memorize inside the turn (the reply confirms it); the
            # turn threshold only flags it, so an ordinary turn never pays for the memorizer.
            "should_memorize": intent == "goodbye" or result.remember,
            "memorize_due": due and not (intent == "goodbye" or result.remember),
            "route": "recall",
        }
        if not pending and result.needs_clarification:
            update.update(response=clarifying_question(result), route="done")
        if pending and intent != "slot_answer":
            update.update(pending_slot=None, pending_question=None)  # the user moved on
        return update

    return intake
