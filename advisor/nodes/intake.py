"""Intake: validate the text, classify the intent, and decide whether to memorize this turn."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from advisor.intent import clarifying_question, classify, validate_message
from advisor.llm.offline import extract_facts
from advisor.state import AdvisorState
from config.files import MemorizerConfig
from traces.recorder import current_trace

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
        _record(checked.text, update, turn)
        return update

    return intake


def _record(text: str, update: dict[str, Any], turn: int) -> None:
    """Trace: the input, the routing decision, and the facts the user stated (found by the same
    deterministic patterns the offline memorizer uses), so graders can spot facts never saved."""
    trace = current_trace()
    if trace is None:
        return
    trace.user_input(text)
    trace.state_change(
        "intent",
        {"intent": update["intent"], "confidence": update["intent_confidence"], "topic": update["topic"]},
        node="intake",
        reason="clarifying question" if update["route"] == "done" else None,
    )
    stated = [
        {"field": fact["field"], "value": fact["new_value"], "turn": turn, "text": fact["source_text"]}
        for fact in extract_facts([{"turn": max(turn, 1), "text": text}])
        if fact["confidence"] >= 0.7
    ]
    if stated:
        trace.state_change("stated_facts", stated, node="intake")
    if update["should_memorize"] or update["memorize_due"]:
        trace.state_change("memorize", "now" if update["should_memorize"] else "after reply", node="intake")
