"""Onboarding: decide what this turn answers, and ask only for what that answer still needs.

After the turn's statements are saved (`remember`): the question asked before our onboarding
question resumes once it is answered; a skipped question is not asked again in the thread (the
answer says what it assumes instead); a live question asks for the first slot it still needs, one
at a time; a pure statement is acknowledged. Everything else goes on to the node that answers it:
`chat` (small talk, goodbye, off-topic), `retrieve` (an explanation) or the analyzer (live data).
"""

from __future__ import annotations

from typing import Any

from advisor.energy.catalog import normalize_utility, plans_of, utility_of_plan
from advisor.energy.utilities import usual_plan, utility_named
from advisor.onboarding import missing_slots, question_for
from advisor.places import find_city, find_town, place_fields
from advisor.replies import (
    DEED,
    HIRE,
    IGNORED_LEAD,
    NOTHING_TO_SAVE,
    OFF_TOPIC,
    SKIP_NOTE,
    STANDS_NOTE,
    not_saved,
)
from advisor.state import AdvisorState
from advisor.tools.data import utility_state
from advisor.understanding.models import RequestParams, Understanding
from advisor.understanding.values import SLOT_FIELDS
from config.clock import Clock
from config.files import EvalConfig
from profiles.models import Equipment, Location, UserProfile
from profiles.staleness import stale_sections
from profiles.wording import join, statement
from traces.recorder import current_trace

STATEMENTS = ("profile_statement", "correction", "forget")
CHAT = ("smalltalk", "goodbye", "off_topic", "unclear")
# What an answer to an onboarding question may add to the question it resumes: the car's charge
# level ("it's a Model 3, battery at 20%") and the household's usage ("E-TOU-C, we use 700 kWh a
# month"). Never its day or deadline words ("I'm on EV2-A now" does not make the question today's).
_RESUMED_PARAMS = (
    "current_soc_pct",
    "target_soc_pct",
    "ev_miles_per_month",
    "house_kwh_per_month",
    "system_kw",  # "not sure, maybe 5 or 6 kw?" answering the size question: that size, not saved
)


def make_onboarding(*, evaluation: EvalConfig, clock: Clock):
    def onboarding(state: AdvisorState) -> dict[str, Any]:
        understanding: Understanding = state["understanding"]
        request = _request(state, understanding)
        skipped, skip_notice = _skipped(state, understanding)
        update: dict[str, Any] = {
            **request,
            "pending_slot": None,
            "pending_question": None,
            "skipped_slots": skipped,
            "one_price_plan": _one_price_plan(state, understanding) and understanding.described_plan is None,
            "described_plan": understanding.described_plan.model_dump()
            if understanding.described_plan is not None
            else state.get("described_plan"),
            "notices": [*state.get("notices", []), *skip_notice],
            "missing_slots": [],
            "fell_back": False,
        }
        reask = _reask(state, understanding)
        if reask is not None:
            return {**update, **reask}
        profile = stored = state.get("user_profile")
        update["stale_sections"] = (
            stale_sections(profile, evaluation.staleness_days, clock()) if profile else []
        )
        held = _held_view(profile, state.get("held_facts") or {})
        if held is not None:
            profile = update["user_profile"] = held[0]  # this conversation's view only: nothing is saved
            if request["intent"] == "live_data" and understanding.held:  # (said when something is new)
                update["notices"].append(held[1])
        assumed = _assumed_plan(profile, skipped)
        if assumed is not None and request["intent"] == "live_data":
            profile = update["user_profile"] = assumed[0]  # this turn's view only: nothing is saved
        rough = _rough_size(profile, request, skipped)
        if rough is not None:
            # this turn's view only: nothing is saved
            profile = update["user_profile"] = rough[0]
            update["notices"] = [n for n in update["notices"] if n not in skip_notice] + [rough[1]]
            # (the skip stays in the thread: asked for the ZIP next, the answer still stands on it)
        other_car = _asked_car(profile, request)
        if other_car is not None:
            profile = update["user_profile"] = other_car[0]  # this turn's view only: nothing is saved
            update["notices"].append(other_car[1])
        asked_charger = _asked_charger(profile, request)
        if asked_charger is not None:
            profile = update["user_profile"] = asked_charger[0]  # this turn's view only: nothing is saved
            update["notices"].append(asked_charger[1])
        thought = _utility_they_think(profile, state) if request["intent"] == "live_data" else None
        if thought is not None:
            profile = update["user_profile"] = thought[0]  # this turn's view only: nothing is saved
            update["notices"] += [thought[1]] if thought[1] else []
        asked_utility = _asked_utility(profile, request)
        if asked_utility is not None:
            profile = update["user_profile"] = asked_utility[0]  # this turn's view only: nothing is saved
            update["notices"].append(asked_utility[1])
        elsewhere = _asked_place(profile, request)
        if elsewhere is not None:
            profile = update["user_profile"] = elsewhere[0]  # this turn's view only: nothing is saved
            update["notices"].append(elsewhere[1])
        if profile is not stored:
            update["stored_profile"], update["viewed_profile"] = stored, True
        # a utility asked about is priced on its usual plan: their own plan is not asked for it
        asking = (
            {**update, "skipped_slots": [*update["skipped_slots"], "rate_schedule"]}
            if asked_utility
            else update
        )
        ask = _ask(state, understanding, asking, profile)
        if ask is not None:
            if asked_utility is not None:  # said with the answer, once
                update["notices"] = [n for n in update["notices"] if n != asked_utility[1]]
            return {**update, **ask}
        if update["intent"] in STATEMENTS:
            return {**update, **_acknowledge(state, understanding)}
        if update["intent"] in CHAT:
            return {**update, "route": "chat"}
        route = "analyzer" if update["intent"] == "live_data" else "retrieve"
        if route == "retrieve" and _still_pending(state, understanding):
            # "why do you need my zip?" asked instead of answering: answered, and our question
            # still stands, so "ok fine, 96816" next resumes what they asked before
            update.update(
                pending_slot=state.get("pending_slot"),
                pending_question=state.get("pending_question"),
                pending_request=state.get("pending_request"),
            )
        if route == "analyzer" and assumed is not None:
            # "Without your rate plan, this assumes …" says what the skip notice would
            notices = [n for n in update["notices"] if n not in skip_notice]
            update["notices"] = [*notices, assumed[1]]
        if (trace := current_trace()) is not None:
            trace.state_change("route", "analyzer" if route == "analyzer" else "recommend", node="onboarding")
        return {**update, "route": route}

    return onboarding


def _request(state: AdvisorState, understanding: Understanding) -> dict[str, Any]:
    """This turn's question, or the one asked before our onboarding question (as it was
    understood then) once the user has answered ours."""
    message, intent, topic = state["message"], state["intent"], state.get("topic", "general")
    params = state.get("params") or RequestParams()
    if state.get("replan") == "facts" and not state.get("statement_changed"):
        intent = "profile_statement"  # "we're with pge btw": nothing changed, so the answer stands
    slot_answer = understanding.slot_answer
    answered = slot_answer is not None and slot_answer.status != "not_answered"
    pending_question = state.get("pending_question")
    if pending_question and (
        understanding.no_more_questions  # "skip that, just give me a general idea": what they asked
        or (not understanding.wants_answer and (answered or state.get("profile_changes")))
    ):
        request = state.get("pending_request") or {}
        message = pending_question
        intent, topic = request.get("intent", "live_data"), request.get("topic", "general")
        params = _with_stated_levels(RequestParams.model_validate(request.get("params") or {}), understanding)
        return {"message": message, "intent": intent, "topic": topic, "params": params, "resumed": True}
    return {"message": message, "intent": intent, "topic": topic, "params": params, "resumed": False}


def _still_pending(state: AdvisorState, understanding: Understanding) -> bool:
    answer = understanding.slot_answer
    return (
        state.get("pending_slot") in SLOT_FIELDS
        and bool(state.get("pending_question"))
        and answer is not None
        and answer.status == "not_answered"
    )


def _with_stated_levels(params: RequestParams, understanding: Understanding) -> RequestParams:
    stated = {
        key: value for key in _RESUMED_PARAMS if (value := getattr(understanding.params, key)) is not None
    }
    return params.model_copy(update=stated) if stated else params


# Questions whose answer can be assumed and said (the utility's usual plan, the state's average
# price): asked once; a user who asks something else instead is not asked again in the thread.
ASSUMABLE = ("utility", "rate_schedule")


def _one_price_plan(state: AdvisorState, understanding: Understanding) -> bool:
    """Their plan has one price all day, as they said in this thread — until they say anything else
    about their plan ("actually we're on the time of use one, forgot the name")."""
    if understanding.one_price_plan:
        return True
    said_otherwise = (
        understanding.slot_answer is not None and understanding.slot_answer.slot == "rate_schedule"
    ) or any(m.field == "location.rate_schedule" for m in understanding.mentions)
    return bool(state.get("one_price_plan")) and not said_otherwise


def _skipped(state: AdvisorState, understanding: Understanding) -> tuple[list[str], list[str]]:
    """Onboarding questions skipped in this thread; without the utility its plan cannot be asked."""
    skipped = list(state.get("skipped_slots") or [])
    answer = understanding.slot_answer
    if understanding.described_plan is not None:
        # "25 cents on peak 5-9pm, 11 off": the plan's prices and hours are what the plan question
        # was for; it is not asked
        noted = (
            f"Noted for this conversation: your plan's {understanding.described_plan.said()}. I'll price "
            "your answers with it (your profile keeps a plan's name, not its prices)."
        )
        # (the utility question was for its plan's prices too: the described plan answers it)
        return [*skipped, *[slot for slot in ("rate_schedule", "utility") if slot not in skipped]], [noted]
    if understanding.one_price_plan:
        # "the standard one": no plan to ask for; the answer, given again, says what that means
        return [*skipped, *(["rate_schedule"] if "rate_schedule" not in skipped else [])], []
    if (
        answer is not None
        and answer.status == "not_answered"
        and answer.slot in ASSUMABLE
        and answer.slot not in skipped
        and (understanding.intent == "live_data" or (understanding.facts and state.get("pending_question")))
    ):
        # asked our question back with another request, or ("which rate plan?" answered "model 3")
        # told us something else the answer needs: answer it, assuming (and saying) what we asked
        # for, never asked a second time
        return [*skipped, answer.slot, *(["rate_schedule"] if answer.slot == "utility" else [])], []
    if _asked_again_instead(state, understanding):
        # "need the ioniq at 80% by 7:15" → ZIP? → "what if i can only plug in after 10": the same
        # request again instead of an answer; a patient advisor goes on with what it has, without
        # asking anything else first
        slot = str(answer.slot)  # type: ignore[union-attr]
        return _every_question_skipped(skipped), [IGNORED_LEAD + SKIP_NOTE[slot]]
    if understanding.no_more_questions and state.get("pending_slot"):
        # "skip that, just give me a general idea": every question skipped, answered with what we have
        return _every_question_skipped(skipped), ["No problem, I'll answer with what I have."]
    lacks = {
        "ev" for m in understanding.mentions if m.reason == "lacks" and m.field.startswith("equipment.ev_")
    }
    if lacks - set(skipped):
        # "we dont have an ev, just curious what charging at home costs": never asked which EV
        skipped = [*skipped, *(lacks - set(skipped))]
    if answer is None or answer.status != "skipped" or answer.slot in skipped:
        return skipped, []
    slots = [answer.slot]
    pending = state.get("pending_slot")
    if pending in (*ASSUMABLE, "ev") and pending != answer.slot and pending not in skipped:
        # "no idea on the plan, sorry" while we asked which EV, "no idea what car, skip" while we
        # asked the utility: what they named is skipped, and our question, left unanswered, is not
        # asked again in the same breath — the answer goes on with what it can assume
        slots.append(pending)
    profile = state.get("user_profile")
    location = profile.location if profile is not None else None
    placed = location is not None and bool(location.zip_code or location.city)
    notes = []
    for slot in slots:
        skipped += [slot] + (["rate_schedule"] if slot == "utility" else [])
        # ("…once I know where you are" to someone whose town we hold reads as if we forgot it)
        notes.append(SKIP_NOTE.get(f"{slot}_placed" if placed else slot) or SKIP_NOTE.get(slot, ""))
    # ("i think we're on some kind of TOU plan?" before we asked anything: nothing of ours is skipped)
    last = state.get("last_request") or {}
    held = location.utility_provider if location is not None else None
    if (
        not pending
        and usual_plan(held) is None
        and slots == ["rate_schedule"]
        and last.get("intent") == "live_data"
        # (a comparison we could not make priced nothing: no answer above stands on an average)
        and (last.get("params") or {}).get("task") != "plan_comparison"
        and last.get("turn") == state.get("turn_count", 0) - 1
    ):
        # "idk" to the plan an answer just asked for: that answer stands, it is not given again
        return skipped, [STANDS_NOTE]
    lead = "No problem, I'll skip that. " if pending else "That's fine, I won't ask for it. "
    return skipped, [lead + " ".join(notes)]


def _every_question_skipped(skipped: list[str]) -> list[str]:
    """No onboarding question is asked again in the thread: the answer goes on with what it has."""
    return [*skipped, *(slot for slot in SLOT_FIELDS if slot not in skipped)]


def _asked_again_instead(state: AdvisorState, understanding: Understanding) -> bool:
    """Our question about the place or the car went unanswered and the same kind of request came
    back instead (a follow-up to the request we asked it for)."""
    answer = understanding.slot_answer
    pending_task = ((state.get("pending_request") or {}).get("params") or {}).get("task")
    return (
        answer is not None
        and answer.status == "not_answered"
        and answer.slot in ("location", "ev")
        and answer.slot == state.get("pending_slot")
        and answer.slot not in (state.get("skipped_slots") or [])
        and understanding.intent == "live_data"
        and pending_task is not None
        and understanding.params.task == pending_task
    )


def _reask(state: AdvisorState, understanding: Understanding) -> dict[str, Any] | None:
    """Our question got no answer and nothing else to act on: say so and ask it again."""
    pending_slot, answer = state.get("pending_slot"), understanding.slot_answer
    if (
        pending_slot not in SLOT_FIELDS
        or answer is None
        or answer.status != "not_answered"
        or understanding.wants_answer
        or understanding.intent in ("smalltalk", "goodbye")
        or state.get("profile_changes")
        or state.get("said")
    ):
        return None
    if understanding.intent == "off_topic":
        # "can u just call my utility and switch my plan" while we wait for the utility: said what we can't do
        lead = (DEED if understanding.deed else HIRE if understanding.hire else OFF_TOPIC) + " "
    elif understanding.mentions:
        lead = not_saved(understanding) + " "
    else:
        lead = "Sorry, I didn't catch that. "
    return {
        "response": lead + question_for(str(pending_slot), state.get("user_profile")),
        "pending_slot": pending_slot,
        "pending_question": state.get("pending_question"),
        "pending_request": state.get("pending_request"),
        "route": "done",
        "answered_by": "onboarding",
    }


def _ask(
    state: AdvisorState, understanding: Understanding, update: dict[str, Any], profile: UserProfile | None
) -> dict[str, Any] | None:
    """The first slot the answer needs and the profile lacks (one question at a time)."""
    intent, topic, params = update["intent"], update["topic"], update["params"]
    needed = missing_slots(profile, intent, topic, task=params.task)
    if params.system_kw is not None or params.size_needed:
        # the size they asked about, or the size they need (what they ask is the size)
        needed = [slot for slot in needed if slot != "solar_size"]
    if params.monthly:
        needed = [slot for slot in needed if slot != "ev"]  # a month's cost stands on miles, not the car
    if params.duration and params.task == "charging_plan":
        # "how long for 10 to 80", "can i just charge on the 120v outlet": hours stand on the car and
        # the charger, not on prices (the answer says what the cheapest hours would need)
        # (miles to put in need no battery size: "35 mi round trip" is the same hours in any car)
        needed = [
            slot for slot in needed if slot == "ev" and not params.vehicle and params.miles_needed is None
        ]
    if params.task in ("prices", "appliance", "charging_plan") and (
        _utility_of_one_state(profile) or (_flat_price(profile) and params.ready_by_hour is None)
    ):
        # "when is peak for pge today", "what would it cost overnight on ev2-a": prices and their
        # hours come from the utility (its state's time zone); a place adds nothing to them. "flat 11
        # cents a kwh … what would it cost to take the bolt from 20 to 80": the price they pay is every
        # hour's (with no deadline, the clock's zone changes nothing; the answer says what it assumed)
        needed = [slot for slot in needed if slot != "location"]
    if params.fuel_price_usd is not None and (
        params.electricity_usd_per_kwh or _flat_price(profile) or _utility_of_one_state(profile)
    ):
        # "4 bucks a gallon for oil and 22 cents a kwh, would a heat pump be cheaper": the place only
        # ever gives an electricity price, and they said theirs (or their utility's state has one)
        needed = [slot for slot in needed if slot != "location"]
    skipped = update["skipped_slots"]
    missing = [
        slot
        for slot in needed
        if slot not in skipped and not (slot == "rate_schedule" and not _plans_known(profile))
    ]
    if (
        intent == "live_data"
        and not missing
        and any(s in ("location", "solar_size") for s in skipped if s in needed)
        and not _priced_without_place(profile, params.task, topic, skipped)
    ):
        # The user skipped something the answer cannot be estimated without: the general picture,
        # honestly labelled. (A skipped car is planned as a typical one, and the plan says so.)
        if params.task == "charging_plan":
            # "gotta have 50% by noon", then "skip, just gimme a general idea": the energy and the
            # hours stand on the car and the charger alone; the answer says what prices would need
            update["params"] = params.model_copy(update={"duration": True})
            update["fell_back"] = True  # (the request as asked is redone once the place is given)
            return None
        update["intent"] = "knowledge"
        update["fell_back"] = True
        update["fallback_query"] = _general_question(params)
        # a sentence of its own: what follows may be an explanation or "I don't have a source"
        update["notices"].append("Without that I can't work out a plan for your home.")
        return None
    if not missing:
        return None  # a greeting is greeted (chat), not questioned: onboarding asks what an answer needs
    slot = missing[0]
    if (trace := current_trace()) is not None:
        trace.state_change("slot_request", slot, node="onboarding", reason=f"missing: {', '.join(missing)}")
    said = bool(state.get("said"))
    return {
        "missing_slots": missing,
        "response": question_for(
            slot,
            profile,
            first_contact=profile is None and not said and state.get("turn_count", 1) == 1,
            kept=not state.get("saving_declined"),
        ),
        "pending_slot": slot,
        "pending_question": update["message"] if intent == "live_data" else None,
        "pending_request": {"intent": intent, "topic": topic, "params": params.filled()},
        "route": "done",
        "answered_by": "onboarding",
    }


# Answers that need only a price and a clock: the utility's state gives both without a ZIP
_PRICE_TASKS = ("prices", "appliance", "charging_plan", "plan_comparison")


def _general_question(params: RequestParams) -> str | None:
    """What a live request is explained by when it cannot be worked out for their home: the
    practice behind the verdict it asked for."""
    if params.task == "appliance":
        return f"running the {params.appliance or 'appliances'} off-peak with a delay-start timer"
    if params.task == "prices":
        return "how time-of-use pricing works and when peak hours are"
    if params.task in ("solar_forecast", "typical_solar"):
        return "what drives how much a solar system makes"
    return None


def _priced_without_place(
    profile: UserProfile | None, task: str | None, topic: str, skipped: list[str]
) -> bool:
    """ "rather not say where i live" then "fpl": prices, appliance timing and charging plans are
    answered from the utility (its plan, or its state's average price and time zone)."""
    location = profile.location if profile else None
    if "solar_size" in skipped or location is None or not location.utility_provider:
        return False
    return (task in _PRICE_TASKS) or (task is None and topic in ("rates", "ev_charging"))


def _plans_known(profile: UserProfile | None) -> bool:
    """The rate plan is asked only when we know the utility's plans: otherwise the answer uses the
    state's average price (and says so) instead of asking a question the user rarely can answer."""
    location = profile.location if profile else None
    utility = normalize_utility(location.utility_provider) if location and location.utility_provider else None
    return bool(utility and plans_of(utility))


def _acknowledge(state: AdvisorState, understanding: Understanding) -> dict[str, Any]:
    """A pure statement: what was saved is the answer; else say why nothing was."""
    skipped_now = understanding.slot_answer is not None and understanding.slot_answer.status == "skipped"
    # "our utility is aep ohio i think. not sure what plan": the skip note answers the plan, and the
    # utility they doubted is still said as not saved
    doubted = [
        m for m in understanding.mentions if m.reason in ("unverified", "someone_else", "hypothetical")
    ]
    response = (
        ""
        if state.get("said")
        else (not_saved(understanding) + " " if doubted else "") + "What would you like to know?"
        if skipped_now and not understanding.remember
        else (NOTHING_TO_SAVE if understanding.remember else not_saved(understanding))
    )
    update: dict[str, Any] = {"response": response, "route": "done", "answered_by": "onboarding"}
    if state.get("place_unknown"):  # we just asked for the ZIP: read the next message as the answer
        update.update(
            pending_slot="location",
            pending_question=state.get("pending_question"),
            pending_request=state.get("pending_request"),
        )
    return update


def _viewed(
    profile: UserProfile | None,
    *,
    location: dict[str, Any] | None = None,
    equipment: dict[str, Any] | None = None,
) -> UserProfile:
    """This turn's view of the profile with some values put in (an assumed plan, a place or a car
    asked about): the answer uses it, nothing saves it."""
    base = profile or UserProfile(user_id="this-turn")
    update: dict[str, Any] = {}
    if location:
        update["location"] = (base.location or Location()).model_copy(update=location)
    if equipment:
        update["equipment"] = (base.equipment or Equipment()).model_copy(update=equipment)
    return base.model_copy(update=update)


def _held_view(profile: UserProfile | None, held: dict[str, Any]) -> tuple[UserProfile, str] | None:
    """What they told us after "dont save anything" (their ZIP, utility, car), as this conversation's
    view of their home: answered with, said as unsaved, never written to the profile."""
    sections: dict[str, dict[str, Any]] = {"location": {}, "equipment": {}}
    for field, value in held.items():
        section, _, name = field.partition(".")
        if section in sections:
            sections[section][name] = value
    if not any(sections.values()):
        return None
    view = _viewed(profile, location=sections["location"], equipment=sections["equipment"])
    said = join(
        [statement(field, value) for field, value in held.items() if field.partition(".")[0] in sections]
    )
    return view, f"Used for this conversation only, not saved (as you asked): {said}."


def _asked_car(profile: UserProfile | None, request: dict[str, Any]) -> tuple[UserProfile, str] | None:
    """A charging question about a car they do not own ("test drove an ioniq 5, what would charging
    it cost", "how long to charge a bolt from empty" from a Leaf owner): planned for that car, said,
    never saved; their own car stays in the profile."""
    car = request["params"].vehicle
    equipment = profile.equipment if profile else None
    own = equipment.ev_model if equipment is not None else None
    if car is None or request["intent"] != "live_data" or own == car:
        return None
    view = _viewed(profile, equipment={"ev_model": car, "ev_battery_kwh": None})
    kept = f"; your {own} stays in your profile" if own else ""
    return view, f"This is for a {car}, the car you asked about (not saved to your profile{kept})."


def _asked_charger(profile: UserProfile | None, request: dict[str, Any]) -> tuple[UserProfile, str] | None:
    """ "how long will my leaf take on a regular outlet": planned at that charger's power, said,
    never saved (their own charger, if any, stays in the profile)."""
    charger = request["params"].charger_kw
    if charger is None or request["intent"] != "live_data":
        return None
    view = _viewed(profile, equipment={"ev_charger_kw": charger})
    return view, f"This is at {charger:g} kW, the charger you asked about (not saved to your profile)."


def _flat_price(profile: UserProfile | None) -> bool:
    location = profile.location if profile is not None else None
    return location is not None and bool(location.flat_rate_usd_per_kwh)


def _utility_of_one_state(profile: UserProfile | None) -> bool:
    location = profile.location if profile else None
    return utility_state(location.utility_provider if location else None) is not None


def _asked_utility(profile: UserProfile | None, request: dict[str, Any]) -> tuple[UserProfile, str] | None:
    """A live question about a named utility ("when's peak for ameren tmrw") is answered for that
    utility; it is not saved, since asking about a utility does not say it serves them."""
    params = request["params"]
    asked_plan = params.plan
    utility = params.utility or (utility_of_plan(asked_plan) if asked_plan else None)
    location = profile.location if profile else None
    held = location.utility_provider if location else None
    held_plan = location.rate_schedule if location else None
    if utility is None or request["intent"] != "live_data":
        return None
    same = held is not None and (normalize_utility(held) or held) == (normalize_utility(utility) or utility)
    if same and asked_plan in (None, held_plan):
        return None
    if same and params.task == "plan_comparison":
        # "would ev2-a be cheaper than what im on": every plan of theirs is priced, theirs marked as
        # theirs; the plan asked about is one of the rows, not put in place of their own
        return None
    if asked_plan is not None:
        # "what would that cost me overnight on ev2-a": priced on the plan asked about
        view = _viewed(profile, location={"utility_provider": utility, "rate_schedule": asked_plan})
        return view, f"This is on {asked_plan}, the plan you asked about (not saved to your profile)."
    # their own plan is not that utility's: its most common plan, said (no plan: its state's average)
    known = utility_named(utility)
    plan = known.default_plan if known is not None else None
    view = _viewed(profile, location={"utility_provider": utility, "rate_schedule": plan})
    note = f"This is for {utility}" + (f" on its most common plan, {plan}" if plan else "")
    note += ", the utility you asked about (not saved to your profile"
    return view, note + (f'; say "my utility is {utility}" if it serves you).' if held is None else ").")


def _utility_they_think(profile: UserProfile | None, state: AdvisorState) -> tuple[UserProfile, str] | None:
    """ "aep ohio i think" earlier in the thread, with no utility saved: the answer uses it and says
    so (it is not saved: they were not sure), rather than asking for the utility they just named."""
    location = profile.location if profile else None
    if location is not None and location.utility_provider:
        return None
    facts = [*(state.get("prior_facts") or []), *(state.get("session_facts") or [])]
    unsure = [
        fact
        for fact in facts
        if isinstance(fact, dict)
        and fact.get("status") == "unsure"
        and fact.get("field") == "location.utility_provider"
    ]
    if not unsure:
        return None
    utility = str(unsure[-1]["value"])
    view = _viewed(profile, location={"utility_provider": utility})
    if int(unsure[-1].get("turn") or 0) < int(state.get("turn_count") or 1) - 1:
        return view, ""  # said with the first answer that used it
    return view, (
        f"You weren't sure your utility is {utility}, so I haven't saved it; this uses {utility} "
        f'(say "my utility is {utility}" to keep it).'
    )


def _asked_place(profile: UserProfile | None, request: dict[str, Any]) -> tuple[UserProfile, str] | None:
    """A live question about a named town ("what would 7 kW make per year in san diego?") is
    answered for that town, whoever asks and wherever they live; the profile keeps its own place."""
    place_name = request["params"].place
    place = (
        (find_city(place_name) or find_town(place_name))
        if place_name and request["intent"] == "live_data"
        else None
    )
    if place is None:
        return None
    fields = {"city": place.name, "zip_code": None, **{f.split(".")[1]: v for f, v in place_fields(place)}}
    return _viewed(profile, location=fields), (
        f"This is for {place_name}, the place you asked about (not saved to your profile)."
    )


COMMON_SYSTEM_KW = 7.0  # a common US home system size, used when the user does not know theirs


def _rough_size(
    profile: UserProfile | None, request: dict[str, Any], skipped: list[str]
) -> tuple[UserProfile, str] | None:
    """ "not sure, maybe 5 or 6 kw?" answering our size question for a forecast: the forecast for
    that size, said as the user's rough figure and never saved."""
    params: RequestParams = request["params"]
    size = params.system_kw
    equipment = profile.equipment if profile else None
    if (
        "solar_size" not in skipped
        or request["intent"] != "live_data"
        or params.task not in ("solar_forecast", "typical_solar", None)
        or (equipment is not None and equipment.solar_capacity_kw)
    ):
        return None
    if size is None:
        # "idk, like a normal size": a common size, said, rather than no figure at all
        view = _viewed(profile, equipment={"solar_capacity_kw": COMMON_SYSTEM_KW})
        return view, (
            f"Without a size, this uses {COMMON_SYSTEM_KW:g} kW, a common size for a US home system "
            "(not saved to your profile): the output scales with the size, so tell me yours for your own figure."
        )
    view = _viewed(profile, equipment={"solar_capacity_kw": size})
    return view, (
        f"You weren't sure of your system's size, so this uses about {size:g} kW (not saved to your "
        "profile; tell me the size on your paperwork for an exact figure)."
    )


def _assumed_plan(profile: UserProfile | None, skipped: list[str]) -> tuple[UserProfile, str] | None:
    """A skipped rate plan: plan with the utility's most common plan, said and never saved."""
    location = profile.location if profile else None
    if (
        "rate_schedule" not in skipped
        or location is None
        or location.rate_schedule
        or not location.utility_provider
    ):
        return None
    utility = utility_named(location.utility_provider)
    if utility is None or utility.default_plan is None:
        return None
    view = _viewed(profile, location={"rate_schedule": utility.default_plan})
    return view, (
        f"Without your rate plan, this assumes {utility.name}'s most common plan, "
        f"{utility.default_plan} (not saved to your profile; tell me your plan for exact hours)."
    )
