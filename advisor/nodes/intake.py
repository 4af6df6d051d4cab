"""Intake: validate the text and understand it once (intent, stated facts, slot answer, request
parameters); every later node reads the `Understanding` instead of re-parsing the words.

A clarifying question only when the reader is torn between two readings (a plan for their home
or a general explanation): it names both in the user's own words, and the answer resumes the
question with the reading they chose.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from advisor.energy.utilities import usual_plan
from advisor.message import validate_message
from advisor.replies import DISPUTED
from advisor.state import AdvisorState
from advisor.understanding.meaning import TASK_TOPIC
from advisor.understanding.models import ReadingContext, RequestParams, Understanding
from advisor.understanding.reader import LearnedReader, Understander
from advisor.understanding.requests import split_requests
from config.files import MemorizerConfig
from profiles.models import SECTION_MODELS, UserProfile
from traces.recorder import current_trace

EMPTY_REPLY = (
    'I didn\'t get any text. Ask me about your energy use, for example "When should I charge my EV?", '
    '"Is it worth running the dryer now?" or "How do heat pumps work?"'
)
TRUNCATED_NOTICE = "Your message was very long, so I read only its first 1000 words."
CLARIFY = "clarify"  # the pending "slot" after a clarifying question: which of two readings?
_READINGS = {  # what each reading gives, by topic, for the clarifying question
    "live_data": {
        "ev_charging": "a charging plan for your car (when to plug in and what it costs)",
        "rates": "your own prices and cheapest hours",
        "solar": "what your panels will make",
        "weather": "the forecast where you live",
        "home": "advice for your home with today's prices",
        "general": "an answer worked out for your home with today's data",
    },
    "knowledge": "a general explanation of how it works",
}


def make_intake(memorizer: MemorizerConfig, understander: Understander):
    # a message's pieces are read by the offline reader (fast, no model call) to find a second request
    pieces_reader = understander if isinstance(understander, LearnedReader) else LearnedReader()

    def read_pieces(text: str, context: ReadingContext) -> Understanding:
        return pieces_reader.understand(text, context)

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
        context = reading_context(state)
        said = checked.text
        understanding = understander.understand(said, context, config)
        split = split_requests(said, understanding, context, read_pieces)
        if split is not None:
            said = split.first  # this turn answers the first request; the second is the next turn's
            understanding = understander.understand(said, context, config)
        understanding = _chosen_reading(understanding, state)
        last = state.get("last_request") or {}
        replan = ""
        if not state.get("pending_slot") and last.get("turn") == state.get("turn_count", 0) - 1:
            # right after that live answer (an answer to our question resumes that question instead)
            replanned = _replan_after_correction(understanding, last, plan_to_try=_usual_plan_known(state))
            if replanned is not understanding:
                # redone when a fact it stood on changes; a plan they don't know redoes it on the usual one
                replan = "facts" if understanding.facts else "plan"
            understanding = replanned
        question = understanding.question or said
        if understanding.follow_up and last.get("question"):
            question = str(last["question"])  # re-plan the last request with the changed parameter
        turn = state.get("turn_count", 0)
        goodbye = understanding.intent == "goodbye"
        due = turn - state.get("memorized_through_turn", 0) >= memorizer.turn_threshold
        update: dict[str, Any] = {
            "original_message": said if split is not None else state["message"],
            "message": question,
            "messages": [HumanMessage(said)],
            "next_request": split.second if split is not None else None,
            "understanding": understanding,
            "params": understanding.params,
            "intent": understanding.intent,
            "intent_confidence": understanding.confidence,
            "topic": understanding.topic,
            "notices": [
                *state.get("notices", []),
                *([TRUNCATED_NOTICE] if checked.truncated else []),
                *([DISPUTED] if understanding.disputed else []),  # "thats not right, peak is 2-7"
            ],
            # Goodbye memorizes inside the turn (what the idle job would catch); stated facts were
            # already saved by remember. The turn threshold only flags a run after the reply.
            "should_memorize": goodbye,
            "memorize_due": due and not goodbye,
            "route": "understood",
            "saving_declined": understanding.saving_declined,
            "held_facts": _held_facts(state.get("held_facts") or {}, understanding),
            "replan": replan,  # onboarding redoes the answer only if the statement changed something
        }
        if (
            understanding.alternative is not None
            and not understanding.facts
            and not state.get("pending_slot")
        ):
            update.update(_clarify(understanding, question))
        _record(said, understanding, update, turn)
        if split is not None and (trace := current_trace()) is not None:
            trace.state_change(
                "two_requests", f"answered next: {split.second[:200]}", node="intake", reason="two requests"
            )
        return update

    return intake


def _clarify(understanding: Understanding, question: str) -> dict[str, Any]:
    """One question naming the two readings, quoting the user; the answer picks one."""
    readings = [_reading(understanding.intent, understanding.topic)]
    readings.append(_reading(str(understanding.alternative), understanding.topic))
    words = question.split()
    # quoted whole when short, else its first words marked as cut ("my last bill was like $180 in jan
    # not sure how much" read as the whole question)
    quoted = " ".join(words) if len(words) <= 20 else " ".join(words[:12]) + "…"
    return {
        "response": f'For "{quoted}", do you want {readings[0]}, or {readings[1]}?',
        "route": "done",
        "pending_slot": CLARIFY,
        "pending_question": question,
        "pending_request": {
            "intent": understanding.intent,
            "alternative": understanding.alternative,
            "topic": understanding.topic,
            "params": understanding.params.filled(),
        },
    }


def _reading(intent: str, topic: str) -> str:
    described = _READINGS.get(intent, _READINGS["knowledge"])
    return described if isinstance(described, str) else described.get(topic, described["general"])


def _chosen_reading(understanding: Understanding, state: AdvisorState) -> Understanding:
    """After "do you want A or B?": the reply that reads as one of the two (or says "the first" /
    "the second") resumes the question asked before with that reading."""
    request = state.get("pending_request") or {}
    question = state.get("pending_question")
    if state.get("pending_slot") != CLARIFY or not question or not request.get("alternative"):
        return understanding
    options = [request["intent"], request["alternative"]]
    task = understanding.params.task
    if understanding.choice not in (1, 2) and task and TASK_TOPIC.get(task) != request.get("topic"):
        # "how much will the panels make tmrw" after "a charging plan or an explanation?": a request
        # of its own, not a pick of one of the two
        return understanding
    chosen = (
        options[understanding.choice - 1]
        if understanding.choice in (1, 2)
        else understanding.intent
        if understanding.intent in options and not understanding.facts
        else None
    )
    if chosen is None:
        return understanding  # not an answer to it: the message on its own
    return understanding.model_copy(
        update={
            "intent": chosen,
            "topic": request.get("topic") or understanding.topic,
            "asks": True,
            "question": question,
            "params": RequestParams.model_validate(request.get("params") or {}),
            "follow_up": False,
            "alternative": None,
            "confidence": 0.9,
        }
    )


# Profile fields the last live answer stood on, by its topic: correcting or filling in one ("60647"
# after prices priced without a ZIP) re-runs that answer.
_PLACE = ("location.zip_code", "location.city")
_PRICES = ("location.rate_schedule", "location.utility_provider", "location.flat_rate_usd_per_kwh")
_REPLAN_FIELDS = {
    "ev_charging": (
        "equipment.ev_model",
        "equipment.ev_battery_kwh",
        "equipment.ev_charger_kw",
        *_PRICES,
        *_PLACE,
    ),
    "rates": (*_PRICES, *_PLACE),
    "solar": ("equipment.solar_capacity_kw", *_PLACE),
    "weather": _PLACE,
}


def _usual_plan_known(state: AdvisorState) -> bool:
    """Their utility has a usual plan in the catalog (or we hold no utility, so one may be found)."""
    profile = state.get("user_profile")
    held = profile.location.utility_provider if profile is not None and profile.location else None
    return held is None or usual_plan(held) is not None


def _replan_after_correction(
    understanding: Understanding, last: dict[str, Any], *, plan_to_try: bool = True
) -> Understanding:
    """ "no wait, it's a Model Y not a 3" right after a charging plan: saved, and the plan redone
    for the Model Y (it was saved and the old plan left standing). "whichever plan is the default"
    right after an answer priced without their plan: redone on the utility's usual plan."""
    fields = _REPLAN_FIELDS.get(str(last.get("topic")), ())
    if (last.get("params") or {}).get("place"):
        # the last answer was for a town they asked about ("my brother in austin …"): where they live
        # themselves changes nothing in it
        fields = tuple(field for field in fields if field not in ("location.zip_code", "location.city"))
    if (last.get("params") or {}).get("task") == "plan_comparison":
        # "ok switched to ev2-a today" after the plans compared: every plan was priced already, so
        # the plan they are on now is saved and acknowledged, not the comparison redone
        fields = tuple(field for field in fields if field != "location.rate_schedule")
    if (last.get("params") or {}).get("vehicle"):
        # the last answer was for a car they asked about ("my buddy has a rivian"): their own car,
        # said next ("i drive a bolt euv fwiw"), changes nothing in it
        fields = tuple(field for field in fields if not field.startswith("equipment.ev_"))
    plan_unknown = (
        understanding.slot_answer is not None
        and understanding.slot_answer.slot == "rate_schedule"
        and understanding.slot_answer.status == "skipped"
        and "location.rate_schedule" in fields
        # ("idk" after a Georgia Power answer: no usual plan to redo it on, so the same answer again
        # would say nothing new; the doubt is taken note of instead)
        and plan_to_try
    )
    if (
        understanding.intent not in ("correction", "profile_statement")
        or understanding.asks
        or understanding.remember
        or last.get("intent") != "live_data"
        or not last.get("question")
        or not (plan_unknown or any(fact.field in fields for fact in understanding.facts))
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


def _held_facts(held: dict[str, Any], understanding: Understanding) -> dict[str, Any]:
    """What they told us unsaved in this conversation ("dont save anything", then "94110"): this
    message's unsaved facts join it; a fact saved now, or one they ask to forget, leaves it (a later
    saved ZIP is never overridden by an earlier unsaved one)."""
    if understanding.forget_everything:
        return {fact.field: fact.value for fact in understanding.held}
    gone = {fact.field for fact in understanding.facts} | set(understanding.forget)
    kept = {field: value for field, value in held.items() if field not in gone}
    return {**kept, **{fact.field: fact.value for fact in understanding.held}}


def reading_context(state: AdvisorState) -> ReadingContext:
    last = state.get("last_request") or {}
    waiting = state.get("pending_request") or {}
    if state.get("pending_slot") and waiting.get("intent") == "live_data" and waiting.get("params"):
        # the request waiting for our onboarding answer is the last thing they asked: "wait its
        # actually 80% not 70" while we wait for their ZIP changes that request
        last = {**waiting, "question": waiting.get("question") or state.get("pending_question")}
    params = last.get("params") or {}
    recent = [
        f"{'advisor' if isinstance(message, AIMessage) else 'user'}: {str(message.content)[:300]}"
        for message in state.get("messages", [])[-4:]
    ]
    pending = state.get("pending_slot")
    live = state.get("last_live_request") or {}
    # (only the live request answered right before the explanation: an older one is not "the plan")
    aside = last.get("intent") != "live_data" and live and live.get("turn") == (last.get("turn") or 0) - 1
    return ReadingContext(
        earlier_live_params=RequestParams.model_validate(live.get("params") or {}) if aside else None,
        earlier_live_topic=live.get("topic") if aside else None,
        pending_slot=pending if pending != CLARIFY else None,
        last_intent=last.get("intent"),
        last_topic=last.get("topic"),
        last_params=RequestParams.model_validate(params) if last else None,
        last_question=last.get("question"),
        pending_topic=(state.get("pending_request") or {}).get("topic") if pending else None,
        recent=recent,
        known_fields=_known_fields(state),
        saving_declined=bool(state.get("saving_declined")),
        held_fields=dict(state.get("held_facts") or {}),
    )


def _known_fields(state: AdvisorState) -> dict[str, Any]:
    """What the profile holds (read this turn, so after any undo or forget). Only without a
    profile do the thread's saved facts stand in for it: an Ioniq saved, then undone, was still
    "held" and "we dont have an ev, just curious…" forgot it again instead of answering."""
    profile = state.get("user_profile")
    if profile is not None:
        return profile_values(profile)
    return {
        str(fact["field"]): fact.get("value")
        for fact in state.get("prior_facts") or []
        if isinstance(fact, dict) and fact.get("field") and fact.get("status") in ("saved", "confirmed")
    }


def profile_values(profile: UserProfile | None) -> dict[str, Any]:
    """The profile's values by field path ("equipment.solar_capacity_kw": 8.4)."""
    if profile is None:
        return {}
    values = {}
    for section in SECTION_MODELS:
        data = getattr(profile, section)
        if data is None:
            continue
        for name, value in data.model_dump(exclude={"updated_at"}).items():
            if value is not None:
                values[f"{section}.{name}"] = value
    return values


def _record(text: str, understanding: Understanding, update: dict[str, Any], turn: int) -> None:
    """Trace: the input, the reading, and the facts the user stated about themself (the hygiene
    grader checks each was saved or refused in the turn)."""
    trace = current_trace()
    if trace is None:
        return
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
