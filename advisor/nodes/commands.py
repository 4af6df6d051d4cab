"""Commands about the profile itself: forget a fact, undo the last change, say what is known.

Each changes the profile in one write (or none) and says what it did in plain words; a write the
store refuses is said as such, never as "Forgotten" or "Undone".
"""

from __future__ import annotations

from typing import Any

from advisor.energy.vehicles import find_vehicle
from advisor.nodes.remember import change_source, loaded_profile, record_write
from advisor.replies import EMPTY_PROFILE, FORGET_WHAT, KEPT_FIELDS, TOPIC_OF, holds
from advisor.state import AdvisorState
from advisor.understanding.commands import model_year_said
from advisor.understanding.models import Understanding
from advisor.understanding.values import SLOT_FIELDS
from profiles.models import ChangeSource
from profiles.repository import (
    AppliedChanges,
    ProfileNotSavedError,
    ProfileRepository,
    editable_fields,
    last_change_fields,
)
from profiles.wording import NOUNS, describe_removed, join, statement
from traces.recorder import current_trace

COMMAND_INTENTS = ("forget", "profile_query")


def is_command(understanding: Understanding) -> bool:
    """Forget / undo / "what do you know about me", said without new facts (those are saved first)."""
    return not understanding.facts and (
        understanding.undo
        or bool(understanding.fix)
        or understanding.intent in COMMAND_INTENTS
        or (understanding.intent == "correction" and not understanding.place_query)
    )


def make_commands(*, profiles: ProfileRepository):
    def commands(state: AdvisorState) -> dict[str, Any]:
        understanding: Understanding = state["understanding"]
        user_id, profile = state["user_id"], state.get("user_profile")
        source = change_source(state, understanding).model_copy(update={"kind": "user_statement"})
        if understanding.undo and _about_something_else(understanding.undo_about, profile, state):
            return _nothing_saved_for(understanding.undo_about, profile)
        if understanding.undo:
            return _undo(profiles, user_id, source, state)
        if understanding.fix or understanding.intent == "correction":
            return _ask_right_value(understanding.fix, profile, str(state.get("original_message") or ""))
        if understanding.not_held:
            return _not_held(understanding.not_held, profile)
        if understanding.intent == "forget":
            if not (understanding.forget or understanding.forget_everything):
                text = (
                    f"I don't keep anything about \"{understanding.forget_words}\", so there's nothing to forget. "
                    + KEPT_FIELDS
                    if understanding.forget_words
                    else FORGET_WHAT
                )
                return {"response": text, "route": "done", "answered_by": "commands"}
            return _forget(profiles, user_id, understanding, source, state)
        text = holds(profile, lead="Here's what I have for you:", empty=EMPTY_PROFILE)
        lacking = _not_yet_told(understanding.queried, profile)
        if state.get("saving_declined"):
            # "dont save anything", then "what do you remember": nothing is (and what they said here is
            # used only here), never "tell me … and I'll remember"
            text = (text + " " if text != EMPTY_PROFILE else "") + _held_this_conversation(state)
            return {"response": lacking + text, "route": "done", "answered_by": "commands"}
        return {
            "response": lacking
            + (text if text == EMPTY_PROFILE else text + " Tell me if anything is wrong."),
            "route": "done",
            "answered_by": "commands",
        }

    return commands


def _held_this_conversation(state: AdvisorState) -> str:
    """What a conversation that declined saving holds, said as not saved."""
    held = state.get("held_facts") or {}
    said = join([statement(field, value) for field, value in held.items()])
    return "As you asked, I'm not saving anything from this conversation" + (
        f"; here I'm using what you told me: {said}." if said else "."
    )


def _not_yet_told(queried: list[str], profile: Any) -> str:
    """ "what rate am i on" with no plan saved: said first, before what we do hold."""
    topics = []
    for field in queried:
        section, _, name = field.partition(".")
        held = getattr(getattr(profile, section, None), name, None) if profile is not None else None
        topic = TOPIC_OF.get(field)
        topic = topic.replace("the ", "your ", 1) if topic else None
        if held in (None, "") and topic and topic not in topics:
            topics.append(topic)
    if not topics:
        return ""
    where = " (it's printed on your bill)" if "your rate plan" in topics else ""
    return f"You haven't told me {' or '.join(topics)} yet{where}. "


def _forget(
    profiles: ProfileRepository,
    user_id: str,
    understanding: Understanding,
    source: ChangeSource,
    state: AdvisorState,
) -> dict[str, Any]:
    fields = editable_fields() if understanding.forget_everything else understanding.forget
    _record_removal(fields, f"the user asked: {source.text!r}")
    try:
        result = profiles.forget_with_profile(user_id, fields, source=source, base=loaded_profile(state))
    except ProfileNotSavedError as exc:
        return _write_refused(user_id, "forget that", exc, state.get("user_profile"))
    records = result.applied
    if records:
        text = describe_removed(records)
    else:
        text = "Noted: your profile has nothing saved for " + (
            "you yet."
            if understanding.forget_everything
            else f"{join([NOUNS.get(f, f) for f in fields[:2]])}."
        )
    return {**_done(user_id, result, text), **_kept_forgotten(fields, understanding, state)}


def _kept_forgotten(fields: list[str], understanding: Understanding, state: AdvisorState) -> dict[str, Any]:
    """What was said before a forget stays forgotten: the memorizer, which reads the thread's
    messages later, never saves it again ("pge has time of day pricing right?" said before "forget
    everything" had come back as a saved PG&E when the chat ended). Everything: nothing said up to
    this turn is read again; some fields: they are recorded as forgotten at this turn."""
    turn = state.get("turn_count") or 1
    if understanding.forget_everything:
        return {"memorized_through_turn": turn}
    return {"session_facts": [{"turn": turn, "field": field, "status": "forgotten"} for field in fields]}


def _undo(
    profiles: ProfileRepository, user_id: str, source: ChangeSource, state: AdvisorState
) -> dict[str, Any]:
    try:
        result = profiles.undo_with_profile(
            user_id, source=source, base=loaded_profile(state), session_id=state.get("session_id")
        )
    except ProfileNotSavedError as exc:
        return _write_refused(user_id, "undo that", exc, state.get("user_profile"))
    records = result.applied
    _record_removal([r.field for r in records if r.new_value is None], f"the user asked: {source.text!r}")
    if records:
        text = describe_removed(records, verb="Undone")
    else:
        text = (
            "I haven't changed anything in this conversation, so there's nothing to undo."
            ' Tell me what\'s wrong and I\'ll fix it (say "my ZIP is 94110" or "forget my EV").'
        )
    return _done(user_id, result, text)


def _about_something_else(named: list[str], profile: Any, state: AdvisorState) -> bool:
    """An undo that names fields ("scratch that, the powerwall's at my dad's") when the last change
    touched none of them: undoing it would take back something they did not mean."""
    if not named or profile is None:
        return False
    return not last_change_fields(profile.history, state.get("session_id")) & set(named)


def _nothing_saved_for(named: list[str], profile: Any) -> dict[str, Any]:
    noun = next((NOUNS[field] for field in named if field in NOUNS), "that")
    text = f"I hadn't saved {noun}, so there's nothing to take back; I've changed nothing."
    held = holds(profile, lead="Your profile holds:", empty="")
    return {"response": text + (" " + held if held else ""), "route": "done", "answered_by": "commands"}


def _not_held(words: str, profile: Any) -> dict[str, Any]:
    """ "we sold the leaf" when the profile holds a Tesla: the Tesla stays (the user may have two
    cars, or misremember what they told us); say so and how to remove it."""
    held = profile.equipment.ev_model if profile is not None and profile.equipment else None
    named = find_vehicle(words)
    words = named[0].name if named is not None else words
    text = (
        f"Your profile has a {held}, not a {words}, so I've left it as it is."
        ' If the car you charge now is different, tell me which (or say "forget my EV").'
    )
    return {"response": text, "route": "done", "answered_by": "commands"}


def _ask_right_value(fields: list[str], profile: Any, said: str = "") -> dict[str, Any]:
    """ "the 8.4 kW you have is wrong" without the right value (or one we could not read): nothing
    changes; we ask for it, and the next message is read as the answer."""
    held = profile.equipment.ev_model if profile is not None and profile.equipment else None
    if not fields and held and model_year_said(said):
        text = f"Thanks. I keep your car's model ({held}), not its year, so nothing needs changing."
        return {"response": text, "route": "done", "answered_by": "commands"}
    if not fields:
        text = (
            "Sorry, I couldn't tell what to change, so I haven't changed anything. Tell me the right value"
            ' (for example "my ZIP is 83642" or "it\'s a Kia EV6"), or say "undo" to take back my last change.'
        )
        return {"response": text, "route": "done", "answered_by": "commands"}
    slot = next((slot for slot, named in SLOT_FIELDS.items() if set(named) & set(fields)), None)
    # ("whether you have a home battery" reads badly in a question beside the battery's size)
    named = [NOUNS[field] for field in fields if field in NOUNS]
    plain = [noun for noun in named if not noun.startswith("whether ")] or named
    nouns = join(sorted(set(plain))[:2]) or "that"
    text = f"Sorry about that. What's right for {nouns}? I haven't changed anything yet."
    update: dict[str, Any] = {"response": text, "route": "done", "answered_by": "commands"}
    if slot is not None:
        update.update(pending_slot=slot, pending_question=None, pending_request=None)
    return update


def _write_refused(user_id: str, what: str, exc: ProfileNotSavedError, profile: Any) -> dict[str, Any]:
    """The store refused the write: say nothing changed (the profile as loaded stands)."""
    if (trace := current_trace()) is not None:
        trace.state_change("write_refused", {"user_id": user_id}, node="commands", reason=exc.reason)
    text = f"I couldn't {what}: {exc.reason}. {holds(profile)}".strip()
    return {"response": text, "route": "done", "answered_by": "commands", "profile_changes": []}


def _done(user_id: str, result: AppliedChanges, text: str) -> dict[str, Any]:
    for record in result.applied:
        record_write(user_id, record, node="commands")
    return {
        "user_profile": result.profile,
        "response": f"{text} {_holds_after(result)}".strip(),
        "profile_changes": [record.model_dump(mode="json") for record in result.applied],
        "pending_slot": None,
        "pending_question": None,
        "route": "done",
        "answered_by": "commands",
    }


def _holds_after(result: AppliedChanges) -> str:
    if result.applied:
        return holds(result.profile)
    return holds(result.profile, lead="Your profile holds:", empty="Your profile is empty.")


def _record_removal(fields: list[str], reason: str) -> None:
    """Deleting a value is corruption unless the user asked for it: say that they did."""
    if (trace := current_trace()) is not None:
        trace.state_change("removal_requested", {"fields": fields}, node="commands", reason=reason)
