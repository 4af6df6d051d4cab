"""Chat: the replies that need no data and no model — a greeting, thanks, goodbye, and one line on
what the advisor does for a message outside home energy or one it could not read."""

from __future__ import annotations

from typing import Any

from advisor.replies import (
    ACKNOWLEDGED_REPLY,
    CAPABILITIES,
    DEED,
    FIRST_GREETING,
    GOODBYE,
    GREETING,
    HIRE,
    IN_SPANISH,
    OFF_TOPIC,
    QUESTION_COMING_REPLY,
    SAVING_DECLINED_REPLY,
    THANKS_REPLY,
    UNCLEAR,
)
from advisor.state import AdvisorState
from advisor.understanding.models import Understanding


def chat(state: AdvisorState) -> dict[str, Any]:
    understanding: Understanding = state["understanding"]
    intent = state.get("intent")
    if intent == "goodbye":
        reply = GOODBYE
    elif intent == "off_topic":
        # "switch me to ev2-a": a deed, not off-topic talk; "know a good electrician": a business to hire
        reply = DEED if understanding.deed else HIRE if understanding.hire else OFF_TOPIC
    elif intent == "unclear":
        reply = IN_SPANISH if understanding.in_spanish else UNCLEAR
    elif understanding.declined_now and not state.get("profile_changes") and not understanding.held:
        reply = SAVING_DECLINED_REPLY  # "dont save anything": said back, not greeted with "I'll remember"
    elif understanding.question_coming:
        reply = QUESTION_COMING_REPLY
    elif understanding.about_advisor:
        reply = CAPABILITIES
    elif understanding.thanks and not state.get("profile_changes"):
        reply = THANKS_REPLY
    elif understanding.acknowledged and not state.get("profile_changes"):
        reply = ACKNOWLEDGED_REPLY
    elif state.get("user_profile") is None and not state.get("saving_declined"):
        reply = FIRST_GREETING
    else:
        answered = understanding.slot_answer is not None and understanding.slot_answer.status == "answered"
        reply = "You're all set up. " + GREETING if state.get("profile_changes") and answered else GREETING
    return {"response": reply, "route": "done", "answered_by": "chat"}
