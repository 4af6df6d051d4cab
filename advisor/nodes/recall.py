"""Recall: read the profile, apply onboarding answers, find stale sections and missing slots,
and retrieve knowledge only when the question needs it."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.runnables import RunnableConfig

from advisor.context import describe_saved
from advisor.intent import classify
from advisor.onboarding import missing_slots, parse_answer, question_for
from advisor.state import AdvisorState
from advisor.tools.data import DataSources
from advisor.tools.http import ApiError
from advisor.tools.open_meteo import Place
from config.clock import Clock
from config.files import EvalConfig
from knowledge.models import Retriever
from profiles.models import SECTION_MODELS, UserProfile
from profiles.repository import ChangeSource, InvalidValueError, ProfileRepository
from profiles.staleness import stale_sections
from traces.recorder import current_trace

logger = logging.getLogger(__name__)

GREETING = (
    "Hi! I can plan EV charging around your rates, tell you what your solar will make today, and explain "
    "things like heat pumps or time-of-use pricing. What would you like to know?"
)
GOODBYE = "Bye! Thanks for chatting."


def make_recall(
    *,
    profiles: ProfileRepository,
    data: DataSources,
    retriever: Retriever | None,
    evaluation: EvalConfig,
    clock: Clock,
    retrieve_k: int = 4,
):
    def geocode(query: str) -> Place | None:
        try:
            return data.open_meteo.geocode(query)
        except ApiError as exc:
            logger.info("Geocoding failed (%s); using the built-in ZIP table", exc.reason)
            return None

    def recall(state: AdvisorState, config: RunnableConfig) -> dict[str, Any]:
        user_id = state["user_id"]
        profile = profiles.get(user_id)
        _record_read(user_id, profile)
        message, intent, topic = state["message"], state["intent"], state.get("topic", "general")
        update: dict[str, Any] = {"user_profile": profile, "pending_slot": None, "pending_question": None}
        notices = list(state.get("notices", []))
        changes: list[dict[str, Any]] = []

        if intent == "slot_answer":
            slot = state["pending_slot"]
            found = parse_answer(slot, message, profile=profile, geocode=geocode)
            source = ChangeSource(
                kind="onboarding",
                session_id=state.get("session_id"),
                turn=state.get("turn_count") or None,
                text=message[:2000],
            )
            for field, value in found.items():
                try:
                    change = profiles.apply_change(user_id, field, value, source=source)
                    changes.append(change.model_dump(mode="json"))
                    _record_write(user_id, change.field, change.old_value, change.new_value, node="recall")
                except InvalidValueError as exc:
                    notices.append(f"I couldn't use {value!r} for {field.split('.')[-1]}: {exc.reason}.")
            if not changes:
                return {
                    **update,
                    "response": "Sorry, I didn't catch that. " + question_for(slot, profile),
                    "pending_slot": slot,
                    "pending_question": state.get("pending_question"),
                    "route": "done",
                    "notices": notices,
                }
            profile = profiles.get(user_id)
            notices.append(f"Got it: {describe_saved(changes)}.")
            pending_question = state.get("pending_question")
            if pending_question:
                result = classify(pending_question)
                message, intent, topic = pending_question, result.intent, result.topic
            else:
                intent = "smalltalk"
            update.update(message=message, intent=intent, topic=topic, user_profile=profile)

        update["profile_changes"] = changes
        update["notices"] = notices
        stale = stale_sections(profile, evaluation.staleness_days, clock()) if profile else []
        update["stale_sections"] = stale

        missing = missing_slots(profile, intent, topic)
        if missing or (intent == "smalltalk" and profile is None):
            slot = missing[0] if missing else "location"
            if (trace := current_trace()) is not None:
                trace.state_change(
                    "slot_request", slot, node="recall", reason=f"missing: {', '.join(missing) or 'location'}"
                )
            return {
                **update,
                "missing_slots": missing or ["location"],
                "response": question_for(slot, profile, first_contact=profile is None),
                "pending_slot": slot,
                "pending_question": message if intent == "live_data" else None,
                "route": "done",
            }
        if intent == "smalltalk":
            greeting = "You're all set up. " + GREETING if changes else GREETING
            return {**update, "missing_slots": [], "response": greeting, "route": "done"}
        if intent == "goodbye":
            return {**update, "missing_slots": [], "response": GOODBYE, "route": "done"}

        # Only questions that need knowledge retrieve: "just in case" retrieval is waste the graders
        # flag. The run config goes along so callback tracing records the retrieval.
        docs = (
            retriever.retrieve(message, retrieve_k, config)
            if retriever is not None and intent == "knowledge"
            else []
        )
        route = "analyzer" if intent == "live_data" else "recommend"
        if (trace := current_trace()) is not None:
            trace.state_change("route", route, node="recall")
        return {**update, "missing_slots": [], "retrieved_docs": docs, "route": route}

    return recall


def _record_read(user_id: str, profile: UserProfile | None) -> None:
    """Trace the profile read with each section's timestamp (what the staleness grader judges)."""
    trace = current_trace()
    if trace is None:
        return
    results = []
    if profile is not None:
        sections = {
            name: (section.updated_at.isoformat() if section.updated_at else None)
            for name in SECTION_MODELS
            if (section := getattr(profile, name)) is not None
        }
        results = [
            {
                "user_id": user_id,
                "sections": sections,
                "profile": profile.model_dump(mode="json", exclude={"notes"}),
            }
        ]
    trace.memory_read(("profiles", user_id), "profile", results, node="recall")


def _record_write(user_id: str, field: str, old: Any, new: Any, *, node: str) -> None:
    trace = current_trace()
    if trace is not None:
        trace.memory_write(
            ("profiles", user_id),
            "profile",
            operation="update",
            data={field: new},
            changes=[(field, old, new)],
            node=node,
        )
