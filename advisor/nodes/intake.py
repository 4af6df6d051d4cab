"""Intake: validate the text and understand it once (intent, stated facts, slot answer, request
parameters); every later node reads the `Understanding` instead of re-parsing the words."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from advisor.intent import CLARIFY_BELOW, IntentResult, clarifying_question, classify, validate_message
from advisor.state import AdvisorState
from advisor.understanding.models import ReadingContext, RequestParams, Understanding
from advisor.understanding.rules import Understander
from config.files import MemorizerConfig
from traces.recorder import current_trace

EMPTY_REPLY = (
    'I didn\'t get any text. Ask me about your energy use, for example "When should I charge my EV?", '
    '"Is it worth running the dryer now?" or "How do heat pumps work?"'
)
TRUNCATED_NOTICE = "Your message was very long, so I read only its first 1000 words."


def make_intake(memorizer: MemorizerConfig, understander: Understander):
    def intake(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        checked = validate_message(state.get("message"))
        if checked.empty:
            return {
                "original_message": state.get("message") or "",
                "response": EMPTY_REPLY,
                "route": "done",
                "intent": "unclear",
                "intent_confidence": 0.0,
            }
        notices = [TRUNCATED_NOTICE] if checked.truncated else []
        understanding = understander.understand(checked.text, reading_context(state), config)
        last = state.get("last_request") or {}
        replan = False
        if not state.get("pending_slot") and last.get("turn") == state.get("turn_count", 0) - 1:
            # right after that live answer (an answer to our question resumes that question instead)
            replanned = _replan_after_correction(understanding, last)
            replan, understanding = replanned is not understanding, replanned
        question = understanding.question or checked.text
        if understanding.follow_up and last.get("question"):
            question = str(last["question"])  # re-plan the last request with the changed parameter
        turn = state.get("turn_count", 0)
        goodbye = understanding.intent == "goodbye"
        due = turn - state.get("memorized_through_turn", 0) >= memorizer.turn_threshold
        update: dict[str, Any] = {
            "original_message": state["message"],
            "message": question,
            "messages": [HumanMessage(checked.text)],
            "understanding": understanding,
            "params": understanding.params,
            "intent": understanding.intent,
            "intent_confidence": understanding.confidence,
            "topic": understanding.topic,
            "notices": notices,
            # Goodbye memorizes inside the turn (what the idle job would catch); stated facts were
            # already saved by recall. The turn threshold only flags a run after the reply.
            "should_memorize": goodbye,
            "memorize_due": due and not goodbye,
            "route": "recall",
            "replan": replan,  # recall answers it only if the statement changed something
        }
        resolved = _resolve_clarification(checked.text, state)
        if resolved is not None:  # "a plan for now" answers the clarifying question we asked
            update.update(resolved)
        elif _needs_clarification(understanding, state):
            result = IntentResult(
                intent=understanding.intent, confidence=understanding.confidence, topic=understanding.topic
            )
            # remember what was asked, so the answer to the clarifying question resolves it
            update.update(
                response=clarifying_question(result),
                route="done",
                pending_slot=CLARIFY,
                pending_question=question,
            )
        _record(checked.text, understanding, update, turn)
        return update

    return intake


# Profile fields the last live answer stood on, by its topic: correcting one re-runs that answer.
_REPLAN_FIELDS = {
    "ev_charging": (
        "equipment.ev_model",
        "equipment.ev_battery_kwh",
        "equipment.ev_charger_kw",
        "location.rate_schedule",
        "location.utility_provider",
        "location.flat_rate_usd_per_kwh",
    ),
    "rates": ("location.rate_schedule", "location.utility_provider", "location.flat_rate_usd_per_kwh"),
    "solar": ("equipment.solar_capacity_kw", "location.zip_code", "location.city"),
}


def _replan_after_correction(understanding: Understanding, last: dict[str, Any]) -> Understanding:
    """ "no wait, it's a Model Y not a 3" right after a charging plan: saved, and the plan redone
    for the Model Y (it was saved and the old plan left standing)."""
    fields = _REPLAN_FIELDS.get(str(last.get("topic")), ())
    if (
        understanding.intent not in ("correction", "profile_statement")
        or understanding.asks
        or understanding.remember
        or last.get("intent") != "live_data"
        or not last.get("question")
        or not any(fact.field in fields for fact in understanding.facts)
    ):
        return understanding
    return understanding.model_copy(
        update={
            "intent": "live_data",
            "topic": last["topic"],
            "follow_up": True,
            "confidence": max(understanding.confidence, 0.8),
            # a size asked about before is not carried over a statement of their own
            "params": RequestParams.model_validate(
                {k: v for k, v in (last.get("params") or {}).items() if k not in ("system_kw",)}
            ),
        }
    )


CLARIFY = "clarify"  # the pending "question" after a clarifying question: plan or explanation?
_WANTS_PLAN = re.compile(
    r"\b(?:plan|now|tonight|today|tomorrow|when|schedule|my\s+(?:car|ev|home|house)|first|the\s+first)\b",
    re.I,
)
_WANTS_INFO = re.compile(
    r"\b(?:explain|explanation|info|information|general|in\s+general|how\s+it\s+works|learn|second|the\s+second|"
    r"curious|just\s+wondering)\b",
    re.I,
)


def _resolve_clarification(text: str, state: AdvisorState) -> dict[str, Any] | None:
    """After "a plan or an explanation?", the reply picks one for the question asked before."""
    question = state.get("pending_question")
    if state.get("pending_slot") != CLARIFY or not question:
        return None
    info, plan = bool(_WANTS_INFO.search(text)), bool(_WANTS_PLAN.search(text))
    if info == plan:
        return None  # not an answer to it: read the message on its own
    topic = classify(question).topic
    intent = "knowledge" if info else "live_data"
    if intent == "live_data" and topic == "general":
        topic = "ev_charging" if re.search(r"\b(?:ev|car|charg\w*)\b", question, re.I) else "rates"
    return {
        "message": question,
        "intent": intent,
        "topic": topic,
        "intent_confidence": 0.9,
        "pending_slot": None,
    }


def reading_context(state: AdvisorState) -> ReadingContext:
    last = state.get("last_request") or {}
    params = last.get("params") or {}
    recent = [
        f"{'advisor' if isinstance(message, AIMessage) else 'user'}: {str(message.content)[:300]}"
        for message in state.get("messages", [])[-4:]
    ]
    return ReadingContext(
        pending_slot=state.get("pending_slot"),
        last_intent=last.get("intent"),
        last_topic=last.get("topic"),
        last_params=RequestParams.model_validate(params) if last else None,
        recent=recent,
        # what this thread already saved (the profile itself is read later, by recall)
        known_fields={
            str(fact["field"]): fact.get("value")
            for fact in state.get("prior_facts") or []
            if isinstance(fact, dict) and fact.get("field") and fact.get("status") in ("saved", "confirmed")
        },
    )


def _needs_clarification(understanding: Understanding, state: AdvisorState) -> bool:
    if state.get("pending_slot") or understanding.facts or understanding.slot_answer is not None:
        return False
    if understanding.intent == "unclear":
        return True
    return (
        understanding.wants_answer
        and understanding.confidence < CLARIFY_BELOW
        and not understanding.follow_up
    )


def _record(text: str, understanding: Understanding, update: dict[str, Any], turn: int) -> None:
    """Trace: the input, the reading, and the facts the user stated about themself (the hygiene
    grader checks each was saved or refused in the turn)."""
    trace = current_trace()
    if trace is None:
        return
    trace.user_input(text)
    trace.state_change(
        "intent",
        {
            "intent": understanding.intent,
            "confidence": understanding.confidence,
            "topic": understanding.topic,
            "source": understanding.source,
        },
        node="intake",
        reason="clarifying question" if update["route"] == "done" else None,
    )
    if understanding.params.filled():
        trace.state_change(
            "request_params",
            understanding.params.filled(),
            node="intake",
            reason="follow-up: merged over the last request" if understanding.follow_up else None,
        )
    stated = [
        {"field": fact.field, "value": fact.value, "turn": max(turn, 1), "text": fact.words}
        # how a value was derived ("assuming 32 A at 240 V"): the reply repeats it, the claims grader checks it
        | ({"assumption": fact.assumption} if fact.assumption else {})
        for fact in understanding.facts
    ]
    if stated:
        trace.state_change("stated_facts", stated, node="intake")
    if understanding.mentions:
        trace.state_change(
            "not_saved",
            [mention.model_dump() for mention in understanding.mentions],
            node="intake",
            reason="not a plain statement about the user",
        )
    if update["should_memorize"] or update["memorize_due"]:
        trace.state_change("memorize", "now" if update["should_memorize"] else "after reply", node="intake")
