"""The offline reader: one message -> one `Understanding`, without a language model.

Two parts with separate jobs. The *grammar* (`values.py`: facts, request parameters, command
targets, a place to look up) reads the values a message carries, from tables. The *meaning
model* (`meaning.py`: softmax heads over the message's sentence embedding) decides what the
message asks: the intent, the topic, the kind of live answer, whether it answers the question
we asked. This module joins the two, with a few rules that only look at values and context
(never at the words): facts make an otherwise empty message a statement, a correction without a
value is an undo, a follow-up keeps the last request's parameters.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Protocol

from langchain_core.runnables import RunnableConfig

from advisor.energy.described_plan import DescribedPlan
from advisor.energy.utilities import usual_plan
from advisor.energy.vehicles import find_vehicle, vehicles_named
from advisor.understanding import commands
from advisor.understanding.facts import HOME_BATTERY_WORDS, QUOTED_BACK
from advisor.understanding.meaning import TASK_TOPIC, MeaningModel, Prediction, features, meaning_model
from advisor.understanding.models import (
    Mention,
    ReadingContext,
    RequestParams,
    SlotAnswer,
    StatedFact,
    Understanding,
)
from advisor.understanding.params import follow_up_params, heating_changes, with_household_usage
from advisor.understanding.plan_described import described_plan
from advisor.understanding.text import QUESTION_START
from advisor.understanding.values import (
    A_PLAN_NAMED,
    EQUIPMENT_WORDS,
    ON_A_PLAN,
    SLOT_FIELDS,
    WHY,
    Values,
    read_values,
)
from knowledge.encoder import SentenceEncoder, sentence_encoder

# Below this probability a reading torn between a live answer and an explanation is asked about
CLARIFY_BELOW = 0.45
_RUNNER_UP_AT_LEAST = 0.3
_SKIP_AT_LEAST = 0.6
_SURE_TASK = 0.8
_NEW_TASK_AT_LEAST = 0.5  # with a question that leans on nothing before it
_LIKELY_TASK = 0.5  # after a comparison of plans, which has no hour or level to change
# words about what electricity costs and when ("peak", "off-peak", "rate plan", "tou", "my bill")
_ABOUT_PRICES = re.compile(
    r"\b(?:peak|off[-\s]?peak|on[-\s]?peak|super\s+off[-\s]?peak|rates?|rate\s+plans?|tariffs?|tou|"
    r"time[-\s]of[-\s]use|per\s+kwh|price|prices|bill|bills)\b",
    re.I,
)
# a range said alone ("more like 40 miles"), never a distance per day or month
# "for 12kw", "with a 10 kw one": a size asked about in a follow-up
_KW_SAID = re.compile(r"\b(\d+(?:\.\d+)?)\s*-?\s*kw\b(?!\s*h)", re.I)
_SIZE_FOR = re.compile(r"\b(?:for|with|about)\s+(?:a\s+|an\s+)?(\d+(?:\.\d+)?)\s*-?\s*kw\b", re.I)
_MILES_SAID = re.compile(
    r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*(?:miles?|mi)\b(?!\s*(?:a|an|per|/|each|every)\s*(?:day|week|month|year)\b)",
    re.I,
)
# what a run costs, asked ("how much to run…", "is it cheaper to run … at night")
_COST_ASKED = re.compile(r"\b(?:how\s+much|cost|costs|costing|price|spend|add\s+to|cheaper|cheapest)\b", re.I)
# a "statement" the model doubts that states nothing, while it is sure what answer it asks for
_UNSURE_STATEMENT = 0.4
_SURE_REQUEST = 0.95
# A goodbye ends the terminal chat: an unsure one ("sold the leaf" sounds like one) is asked about
_GOODBYE_AT_LEAST = 0.6
# "nope, thats wrong", "sorry undo that": short; a longer correction says what is wrong instead
_UNDO_WORDS_AT_MOST = 6
_USAGE = ("ev_miles_per_month", "house_kwh_per_month", "ev_kwh_per_month")
_ANSWERS = ("live_data", "knowledge")
_QUIET = ("smalltalk", "unclear", "off_topic", "goodbye")


class Understander(Protocol):
    def understand(
        self, text: str, context: ReadingContext, config: RunnableConfig | None = None
    ) -> Understanding: ...


class LearnedReader:
    """The offline reader (and the model reader's fallback): grammar for values, a learned model
    for meaning. The encoder and the model are passed in (one of each per process by default)."""

    def __init__(self, model: MeaningModel | None = None, encoder: SentenceEncoder | None = None) -> None:
        self._model = model
        self._encoder = encoder

    def understand(
        self, text: str, context: ReadingContext, config: RunnableConfig | None = None
    ) -> Understanding:
        model = self._model or meaning_model()
        encoder = self._encoder or sentence_encoder()
        return read(text, context, model, encoder)


# "sorry, fat thumbs. when's peak today": an apology or an aside before the question, nothing in it
_ASIDE_FIRST = re.compile(
    r"^\W*(?:sorry|oops|whoops|my\s+bad|ugh|lol|haha|ignore\s+that|oh|ah|hmm+|ok(?:ay)?)\b[^.!?\d]*[.!?]+\s+"
    # ("oh. well what is this time of use pricing": a filler before the question word too)
    r"(?:(?:well|so|but|and|ok(?:ay)?)\W+)?(?P<rest>\S.*)$",
    re.I | re.S,
)


# "sorry my toddler grabbed the phone, meant to ask about inversion days and solar": what follows
# "meant to ask" is the question ("meant to say 94107" stays a correction)
_MEANT_TO_ASK = re.compile(
    r"^(?P<before>[^\d]*?)\bmeant\s+to\s+ask\s+(?:you\s+)?(?:(?P<about>about|abt)\s+)?(?P<rest>\S.*)$|"
    # "sorry, pocket text. i meant whens peak": the question they meant to send
    r"^(?P<slip>[^\d]*?)\bi\s+meant\s*[:,]?\s+(?P<asked>(?:wh\w*|how|is|are|can|should|will|does|do)\b.*)$",
    re.I | re.S,
)
# … when what comes before it is an apology or nothing ("we have solar, meant to ask …" keeps its fact)
_APOLOGY_BEFORE = re.compile(
    r"^\W*(?:(?:i|also|actually|oh|ok|so|wait)\W*)*$|\b(?:sorry|oops|whoops|my\s+bad|ugh|lol|haha|typo|autocorrect)\b",
    re.I,
)


def _past_an_aside(text: str) -> str:
    """The message after a leading apology or aside, when what follows is a question."""
    meant = _MEANT_TO_ASK.match(text)
    if meant is not None and meant.group("asked") and _APOLOGY_BEFORE.search(meant.group("slip")):
        return meant.group("asked")
    if meant is not None and meant.group("rest") and _APOLOGY_BEFORE.search(meant.group("before")):
        rest = meant.group("rest")
        return f"tell me about {rest}" if meant.group("about") else rest
    aside = _ASIDE_FIRST.match(text)
    if aside is None or not QUESTION_START.match(aside.group("rest")):
        return text
    return aside.group("rest")


def read(text: str, context: ReadingContext, model: MeaningModel, encoder: SentenceEncoder) -> Understanding:
    text = _past_an_aside(text)
    context = _the_forgotten_value_awaited(text, context)
    values = read_values(text, context)
    prediction = model.predict(
        features(encoder.encode(values.message), values.signals, context, values.message)
    )
    topic = TASK_TOPIC.get(prediction.task or "")
    if (
        topic == "solar"
        and prediction.intent == "live_data"
        and prediction.task_p >= _SURE_TASK
        and context.last_topic != "solar"
        and not any(fact.field == "equipment.solar_capacity_kw" for fact in values.facts)
    ):
        values = read_values(text, context, about=topic)  # the request says what a bare kW is
    reading = compose(prediction, values, context)
    if reading.intent == "forget" and not reading.forget and _SAVE_NOTHING.search(values.message):
        # "dont save anything": not a removal of something unnamed, but how this conversation goes
        return Understanding(
            intent="smalltalk",
            topic="general",
            saving_declined=True,
            declined_now=True,
            confidence=reading.confidence,
        )
    return reading


_BARE_VALUE = re.compile(
    r"^\W*(?:(?:it'?s|its|it\s+is|should\s+be|make\s+it|more\s+like|actually|really|oh|ok)\W+)*"
    r"[\w.$-]+(?:\s+(?:kw|kwh|kilowatts?|cents?|c|¢))?\W*$",
    re.I,
)


def _the_forgotten_value_awaited(text: str, context: ReadingContext) -> ReadingContext:
    """ "forget the solar size, its wrong anyway" then "its 6.5": the value of what they just had
    removed, read as the answer to a question for it (we asked none, but that is what it answers)."""
    if context.pending_slot or not _BARE_VALUE.match(text) or not re.search(r"\d", text):
        return context
    said = context.said_before(text)
    if not said or not commands.FORGET_LEAD.match(said[-1]):
        return context
    named = set(commands.named_fields(said[-1]))
    slots = [slot for slot, fields in SLOT_FIELDS.items() if named and named <= set(fields)]
    return context.model_copy(update={"pending_slot": slots[0]}) if len(slots) == 1 else context


def understand(text: str, context: ReadingContext | None = None) -> Understanding:
    """Read with the process's shared model and encoder."""
    return read(text, context or ReadingContext(), meaning_model(), sentence_encoder())


def _thanks_not_a_skip(
    intent: str, slot_answer: SlotAnswer | None, values: Values
) -> tuple[str, SlotAnswer | None]:
    """ "ok I'll tell him. thank you" while we asked which EV, "ok thanks, we'll prob make an offer"
    while we asked for their ZIP: thanks, not a skip to answer past nor an answer to ask for again
    ("skip, thanks" still skips)."""
    if (
        slot_answer is not None
        and slot_answer.status in ("skipped", "not_answered")
        and values.thanks
        and not (values.facts or values.asking or values.question)
        and not _SKIP_WORDS.search(values.message)
    ):
        return "smalltalk", None
    return intent, slot_answer


def _a_size_said_roughly(slot_answer: SlotAnswer | None, values: Values) -> SlotAnswer | None:
    """ "like 7.5ish" to "how big is your solar system": a size said roughly, used (not saved)."""
    if (
        slot_answer is not None
        and slot_answer.slot == "solar_size"
        and slot_answer.status == "not_answered"
        and values.rough_kw is not None
        and not values.facts
        and len(values.message.split()) <= 5
    ):
        return SlotAnswer(slot="solar_size", status="skipped")
    return slot_answer


def _plan_doubt_with_nothing_to_redo(
    intent: str, slot_answer: SlotAnswer | None, values: Values, context: ReadingContext
) -> bool:
    """Not knowing (or doubting) the plan right after an answer priced without it, when their
    utility has no usual plan to redo it on."""
    doubted = (
        slot_answer is not None and slot_answer.slot == "rate_schedule" and slot_answer.status == "skipped"
    ) or (
        _PLAN_DOUBT.search(values.message) is not None
        # ("regular residential i think": a short doubt right after the answer is about its plan)
        and (
            re.search(r"\b(?:plan|rate|tou|time[-\s]of[-\s]use)\b", values.message, re.I) is not None
            or len(values.message.split()) <= 5
        )
    )
    return (
        intent in ("live_data", "profile_statement")
        and doubted
        and _priced_without_plan(context)
        and not _a_usual_plan_to_try(context)
        and not (values.question or values.facts)
    )


def _one_price_plan_said(intent: str, values: Values, context: ReadingContext) -> bool:
    """ "standard residential, not the hourly pricing thing" right after an answer priced without
    their plan, for a utility with no usual plan in the catalog (else it is redone on that plan)."""
    return (
        values.one_price_plan
        and intent not in ("off_topic", "goodbye", "forget")
        and _priced_without_plan(context)
        and not _a_usual_plan_to_try(context)
        and context.last_params is not None
        and not (values.question or values.facts)
    )


def _plan_said_after_answer(
    intent: str, slot_answer: SlotAnswer | None, values: Values, context: ReadingContext
) -> tuple[str, SlotAnswer | None, Values, bool]:
    """What they say of their plan right after an answer priced without it, for a utility with no
    usual plan: "the standard one" (one price all day) has the answer given again saying so; "idk"
    is taken note of (the same answer again would say nothing new)."""
    if _one_price_plan_said(intent, values, context):
        return "live_data", SlotAnswer(slot="rate_schedule", status="skipped"), values, True
    if _plan_doubt_with_nothing_to_redo(intent, slot_answer, values, context):
        intent = "profile_statement"
        skipped = slot_answer is not None and slot_answer.status == "skipped"
        if not skipped and not any(mention.field == "location.rate_schedule" for mention in values.mentions):
            doubt = Mention(field="location.rate_schedule", words=values.message[:500], reason="unverified")
            values = replace(values, mentions=[*values.mentions, doubt])
    return intent, slot_answer, values, False


def compose(prediction: Prediction, values: Values, context: ReadingContext) -> Understanding:
    """The prediction, checked against the values the grammar found."""
    # "wait no its 35% not 25" after a plan from 25 %: the plan again from 35 %; "and no ev": said
    early = (
        _number_changed_in_last_request(values, context)
        or _purpose_of_last_request(values, context)
        or _said_they_lack(prediction, values, context)
        or _disputes_our_prices(prediction, values, context)
        or _deed_asked(prediction, values)
        or _hearsay_to_check(prediction, values)
    )
    if early is not None:
        return early
    denied = _denied_equipment(values, context)
    if denied:
        # "thats from the old house, we dont have solar here" with 6 kW of solar saved: it goes
        return Understanding(intent="forget", forget=denied, confidence=round(prediction.intent_p, 3))
    command = command_reading(prediction.intent, round(prediction.intent_p, 3), values, context)
    if command is not None:
        return command
    intent = _intent(prediction, values, context)
    slot_answer = _slot_answer(prediction, values, context)
    intent, slot_answer = _thanks_not_a_skip(intent, slot_answer, values)
    if (
        slot_answer is not None
        and slot_answer.status != "not_answered"
        and intent in _QUIET
        and not (intent == "goodbye" and slot_answer.status == "skipped")  # "later, gotta go" leaves
    ):
        intent = "profile_statement"  # "pge" answering the utility question, "no" skipping it
    slot_answer = _a_size_said_roughly(slot_answer, values)
    if _rough_size_answer(slot_answer, values):
        # "not sure, maybe 5 or 6 kw?": not saved, but the estimate can use it as the size asked about
        values = replace(values, params=values.params.model_copy(update={"system_kw": values.rough_kw}))
    detail = _detail_for_last_explanation(intent, prediction, values, context)
    if detail:
        intent = "knowledge"  # "we have a 50 gallon electric tank now" after "would a hpwh save me money"
    elif _aside_after_explanation(intent, values, context):
        intent = "profile_statement"  # "my neighbor has two and swears by them": said, not asked
    intent, slot_answer, values, one_price = _plan_said_after_answer(intent, slot_answer, values, context)
    described = described_plan(values.message)
    unsure = (
        one_price
        or _unsure_detail_for_last_answer(intent, values, context)
        # "i think i'm on the overnight advantage plan, 7.3 cents 11pm-7am and like 18 cents
        # otherwise" right after an answer: that answer again, on the plan they described
        or (
            described is not None
            and intent in ("live_data", "profile_statement", "correction")
            and not values.question
            and context.last_intent == "live_data"
            and context.last_params is not None
        )
    )
    if unsure:
        intent = "live_data"  # "e-26 i think? not 100%" after a plan that assumed one: answered again
    facts = values.facts
    if intent == "off_topic":
        facts = []  # "best pizza in brooklyn": nothing in an off-topic question is about their home
    if intent == "knowledge" and not values.first_person and values.asking:
        # "heat pump dryers worth it", "any rebates in massachusetts for heat pumps": a general
        # question, all one clause, names equipment without saying anyone has it ("2 people, 6kw
        # solar. what's net metering?" states it in a clause of its own)
        whole = values.message.strip(" ?!.").lower()
        facts = [
            f
            for f in facts
            if not (f.field.startswith("equipment.") and f.words.strip(" ?!.").lower() == whole)
        ]
    gone = _gone_beside_facts(intent, values, context)
    asks = intent in (*_ANSWERS, "profile_query")
    params = _appliance_of_it(_params(prediction, values, intent), values, context)
    intent, params, prediction, values = _home_battery_of_it(intent, params, prediction, values, context)
    if (
        intent == "live_data"
        and params.task == "plan_comparison"
        # ("idk what plan im on" right after a live answer: that answer again on the usual plan)
        and not (values.plan_unknown and context.last_intent == "live_data")
        and (
            ON_A_PLAN.search(values.message)
            # "georgia power, savannah. on the nights & weekends plan": the plan they are on, named
            or A_PLAN_NAMED.search(values.message)
            or any(f.field == "location.rate_schedule" for f in values.facts)
        )
        # ("i think we might be on the nights and weekends plan? not sure": a doubt, not a question to us)
        and not (
            ((values.question or values.asking) and not values.hedged) or _WEIGH_WORDS.search(values.message)
        )
    ):
        # "were on the saver choice plan 4-7pm is peak": the plan they are on, said, not a comparison asked
        intent, params, asks = "profile_statement", RequestParams(), False
    if _plans_not_asked(prediction, intent, params, values, context):
        # "what temp should i set the thermostat to save money", "is it better to charge as soon as
        # i get home": a comparison of rate plans answers neither; the question is explained
        intent, params = "knowledge", values.params
    context = _the_plan_before_an_aside(intent, params, values, context)
    follow_up = (
        unsure
        or _plan_unknown_after_answer(intent, values, context)
        or _is_follow_up(
            intent,
            params,
            context,
            prediction,
            values.only_when,
            _asks_anew(values.message),
            weighs_switch=SWITCH_WEIGHED.search(values.message) is not None,
        )
        or _same_request_corrected(intent, params, values, context)
        or _another_size(intent, values, context)
    )
    # (a heating fuel's price compared: the home's tools, where the comparison is)
    topic = TASK_TOPIC.get(params.task or "", "home" if params.fuel_price_usd else prediction.topic)
    if (
        intent == "knowledge"
        and topic in ("home", "general")
        and _ABOUT_PRICES.search(values.message)
        and not EQUIPMENT_WORDS.search(values.message)  # "my gas bill vs a heat pump" stays the home's
    ):
        topic = "rates"  # "Is every evening peak?": a question about prices, whatever else it names
    if (heated := _heating_compared_again(values, facts, context)) is not None:
        # "my furnace is actually 95%", "what if oil goes to 3.50", "we pay 18 cents a kwh btw"
        # after a heating comparison: the comparison again, with what they put right
        intent, asks, follow_up, topic, params = "live_data", True, True, "home", heated
    elif follow_up:
        last = context.last_params or RequestParams()
        # (a heating comparison has no task: its fuel price picks the tool)
        task = last.task or (None if last.fuel_price_usd is not None else params.task)
        params = follow_up_params(params.model_copy(update={"task": task}), last)
        if params.monthly and not values.params.monthly and values.when_to_charge:
            params = params.model_copy(
                update={"monthly": None}
            )  # "ok so when should i plug in tonite": tonight's plan
        topic = context.last_topic or topic
        if params.place and values.params.place is None and values.own_place:
            params = params.model_copy(update={"place": None})  # "…make here": their own place again
        if params.vehicle and values.params.vehicle is None and _OWN_CAR_AGAIN.search(values.message):
            # "how long for mine from 10 to 80" after a buddy's Rivian: their own car (and charger) again
            params = params.model_copy(update={"vehicle": None, "charger_kw": values.params.charger_kw})
        params, facts = _changed_in_the_follow_up(params, last, values, facts)
    elif intent == "live_data":
        params = _size_asked(with_household_usage(params, context), values, facts, context)
    declined = saving_declined(values, context)
    params, facts, held = _what_is_saved(intent, params, values, facts, declined)
    facts = [*facts, *held_now_saved(values.message, context, facts)]
    # a what-if or a how-to is advice: not asked about
    # … and a follow-up changes the last request ("actually its more like 30 miles"): not asked about
    alternative = None if values.what_if or values.how_to or follow_up else _alternative(prediction, intent)
    return Understanding(
        intent=intent,
        topic=topic,  # type: ignore[arg-type]
        asks=asks,
        question=f"{context.last_question} {values.message}"
        if detail
        else (values.question or values.message)
        if asks
        else None,
        facts=facts,
        forget=gone,
        mentions=[
            mention
            for mention in _kept_mentions(values, facts, context) + withheld(held)
            # (a plan they described is used as described, not "not in my catalog")
            if not (described is not None and mention.field == "location.rate_schedule")
        ],
        slot_answer=slot_answer,
        params=_without_the_plans_hours(params, described, values),
        follow_up=follow_up,
        remember=values.remember,
        saving_declined=declined,
        declined_now=says_save_nothing(values.message),
        held=held,
        # "i drive maybe 30 mi a day" in a follow-up: the doubt is the figure's, used as said
        hedged=values.hedged and not (follow_up and values.params.said() and not values.mentions),
        one_price_plan=one_price,
        described_plan=described,
        place_query=None
        if slot_answer is not None and slot_answer.status == "skipped"
        else values.place_query,
        confidence=round(prediction.intent_p, 3),
        alternative=alternative,  # type: ignore[arg-type]
        thanks=values.thanks,
        acknowledged=values.acknowledged and intent == "smalltalk" and context.last_intent is not None,
        question_coming=values.question_coming and intent == "smalltalk",
        queried=commands.named_fields(values.message) if intent == "profile_query" else [],
        defined=values.defined if intent == "knowledge" else None,
        about_advisor=values.about_advisor and not values.facts,
        in_spanish=values.in_spanish,
        points_back=values.points_back,
        choice=values.choice,
        affirmed=values.affirmed,
        deed=values.asks_action and intent == "off_topic",
        hire=intent == "off_topic" and _WHO_TO_HIRE.search(values.message) is not None,
        no_more_questions=context.pending_slot is not None
        and _NO_MORE_QUESTIONS.search(values.message) is not None,
    )


_SKIP_WORDS = re.compile(
    r"\b(?:skip|pass|next|no|nope|nah|idk|dunno|not\s+sure|no\s+idea|rather\s+not|don'?t\s+know)\b", re.I
)
_START_OVER = re.compile(
    r"^\W*(?:(?:can\s+(?:we|you)|let'?s|pls|please)\s+)?(?:reset|restart|start\s+(?:over|fresh|again)|clear|wipe)"
    r"(?:\s+(?:it|this|pls|please))?\W*$",
    re.I,
)


def _what_to_forget(values: Values, new: set[str], confidence: float) -> Understanding | None:
    """A command to forget: everything, the last change, or the fields it names."""
    if values.forget_everything:
        return Understanding(intent="forget", forget_everything=True, confidence=confidence)
    if values.last_change:
        return Understanding(intent="correction", undo=True, undo_about=values.named, confidence=confidence)
    named = [field for field in values.named if field not in new]
    if any(field in new for field in values.named):
        return None  # "forget what i said about the car, its actually a model y": put right, not removed
    if named or not values.facts:
        # none named: asked what to forget ("forget the pool stuff" names something we never keep)
        words = None if named else values.forget_target
        return Understanding(intent="forget", forget=named, forget_words=words, confidence=confidence)
    return None


def _removes_what_we_hold(intent: str, values: Values, new: set[str]) -> bool:
    """ "take the powerwall off my profile" with a Powerwall held: the equipment named is what we
    hold already (no news), and the words ask to remove it."""
    return (
        intent in ("correction", "profile_statement")
        and bool(values.facts)
        and not new
        and bool(values.named)
        and (values.removal_cue or values.forget_lead)
    )


def command_reading(
    intent: str, confidence: float, values: Values, context: ReadingContext | None = None
) -> Understanding | None:
    """forget / undo / equipment that is gone: whether it is a command is the intent's call, what
    it is about comes from the tables."""
    if _START_OVER.match(values.message):
        # "reset", "start over": forget what, or only a new subject? asked, nothing removed yet
        return Understanding(intent="forget", forget=[], confidence=confidence)
    if _KEEP_IT.search(values.message) and not values.facts:
        # "dont forget my zip": keep it (it had been forgotten); what we hold for it is shown
        return Understanding(
            intent="profile_query",
            asks=True,
            queried=commands.named_fields(values.message),
            confidence=confidence,
        )
    if _WHAT_WAS_UNDONE.match(values.message):
        # "hmm what did u just undo": what we hold now, shown (it had been read as another undo)
        return Understanding(intent="profile_query", asks=True, confidence=confidence)
    stated = {fact.field for fact in values.facts}
    known = context.known_fields if context is not None else {}
    # ("take the powerwall off my profile" with one held: the Powerwall named is what we hold, not news)
    new = {fact.field for fact in values.facts if known.get(fact.field) != fact.value}
    if values.gone and stated & set(values.gone):
        return None  # "we sold the tesla and got a rivian": the new car replaces the old one (a statement)
    gone = [field for field in values.gone if field not in stated]
    if gone and intent not in (*_ANSWERS, "profile_query") and not values.facts:
        # "sold the leaf" (whatever else the words sound like): the tables say what went, and
        # only the car the profile holds is removed
        held = (context.known_fields if context else {}).get("equipment.ev_model")
        if "equipment.ev_model" in gone and commands.another_car(values.gone_words or "", held):
            return Understanding(intent="forget", not_held=values.gone_words, confidence=confidence)
        return Understanding(intent="forget", forget=gone, confidence=confidence)
    if (
        values.named
        and not values.facts
        and (_more_of_the_last_forget(values, context) or _not_to_keep(values))
    ):
        # "forget my zip" then "and the city too pls": that field as well; "dont need u storing my
        # work schedule, drop it": the field named, not whatever changed last
        return Understanding(intent="forget", forget=list(values.named), confidence=confidence)
    if (
        values.forget_lead
        and not values.last_change
        and (
            intent in ("correction", "profile_statement")
            # "forget the baby thing, i mean the household size" after an explanation: a field we keep named
            or (intent in ("knowledge", "unclear", "smalltalk") and values.named)
        )
    ):
        intent = "forget"  # "forget that i have gas heat": the imperative names what to remove
    held = [field for field in values.named if context is not None and field in context.known_fields]
    if (
        (intent == "correction" or values.withdrawn)
        and held
        and not values.facts
        and _NOT_THEIRS.search(values.message)
        and not _UNDO_ASKED.search(values.message)  # "that's my sister's car not ours, undo that": undone
    ):
        # "undo the solar thing entirely, that number was from the quote": not theirs at all, it goes
        return Understanding(intent="forget", forget=list(values.named), confidence=confidence)
    if intent == "forget" and not (
        values.removal_cue or values.forget_lead or values.forget_everything or values.last_change
    ):
        return None  # "traded the leaf in for a kia ev9": nothing asks to remove anything
    if _removes_what_we_hold(intent, values, new):
        return Understanding(intent="forget", forget=list(values.named), confidence=confidence)
    if (
        intent in ("correction", "forget")
        and not values.facts
        and context is not None
        and context.last_intent == "live_data"
        and (values.signals.charge_level or values.signals.deadline or values.signals.miles)
    ):
        # "nvm 80 is fine, trip got cancelled", "scratch that last one, i meant 50%": the last plan
        # with that level, not an undo
        return None
    if intent == "forget":
        return _what_to_forget(values, new, confidence)
    if (
        intent == "profile_statement"
        and not values.facts
        and values.named
        and _CORRECTION_FIRST.match(values.message)
        and _undo_cue(values)
        and not values.mentions
        and not values.last_change
        and not values.question
    ):
        intent = "correction"  # "wait no its 3 kids": a value put right, whatever the model made of it
    if intent == "correction" and not values.facts and (values.plan_unknown or values.one_price_plan):
        return None  # "I don't know the plan name. Sorry" after an answer: their plan is not known, nothing is wrong
    if intent == "correction" and not values.facts:
        if values.named and _undo_cue(values) and not values.last_change:
            # "it's not the bolt ev, it's the euv" with a value we could not read: never undo a
            # whole change for it; ask what the named fact should be, and change nothing
            return Understanding(intent="correction", fix=values.named, confidence=confidence)
        if values.last_change or (
            # "actually its 50 miles not 35" that no request or fact holds: never a blind undo of
            # whatever changed last (the car saved two turns ago)
            _undo_cue(values)
            # ("undo that actually, shes only here till feb": asked in so many words, with the why)
            and (
                values.signals.words <= _UNDO_WORDS_AT_MOST or _UNDO_ASKED.search(values.message) is not None
            )
            and values.swapped is None
            # "thats wrong, its gas actually" with nothing saved for gas: what is true is said, so
            # never undo a whole earlier change for it (it had emptied a right profile)
            and not _VALUE_SAID.search(values.message)
        ):
            return Understanding(
                intent="correction", undo=True, undo_about=values.named, confidence=confidence
            )
        if _undo_cue(values):
            # "wait i said boise but we're actually in meridian" with a place we could not read: a
            # long message says what is wrong; undoing a whole earlier turn for it is never right
            return Understanding(intent="correction", confidence=confidence)
    return None


def _not_to_keep(values: Values) -> bool:
    """ "no need to keep my zip, delete it", "dont want you tracking how many ppl live here": a
    field named as one not to keep, with a word asking to remove it."""
    return values.removal_cue and bool(_NOT_KEPT.search(values.message))


_NOT_KEPT = re.compile(
    r"\b(?:(?:do\s*n[o']?t|dont|do\s+not)\s+(?:need|want)|no\s+need)\s+(?:(?:u|you|ya|the\s+bot)\s+)?(?:to\s+)?"
    r"(?:stor|keep|sav|rememb|hav|track|hold)\w*|"
    # "you dont need my work schedule, forget that", "u don't need to know how many of us live here"
    r"\b(?:you|u)\s+(?:do\s*n[o']?t|dont|do\s+not)\s+need\s+(?:to\s+know\s+)?(?:my|our|how|where|what)\b|"
    # "dont keep my utility info, delete it", "stop storing my work schedule"
    r"\b(?:do\s*n[o']?t|dont|do\s+not|stop)\s+(?:keep|keeping|stor\w*|sav\w*|track\w*|hold\w*)\s+(?:my|our)\b",
    re.I,
)


_SAVE_NOTHING = re.compile(
    # "dont save anything", "don't want you storing anything about me", "i'd rather you not keep my info"
    r"\b(?:don'?t|dont|do\s+not|(?:rather|prefer)\s+(?:you|u)\s+(?:not|didn'?t))\s+"
    r"(?:(?:want|need)\s+(?:you|u|ya|the\s+bot)\s+(?:to\s+)?)?"
    r"(?:sav|stor|keep|rememb|record|track)\w*\s+"
    r"(?:anything|any\s+of\s+(?:this|that|it)|my\s+(?:info|information|details|data|stuff)|"
    r"(?:stuff|info|anything)\s+(?:abt|about)\s+(?:me|us)|this)\b"
    r"(?!\s+(?:in|on|at|out|plugged|running|there|inside|outside|near)\b)|"  # ("dont keep anything in the garage")
    r"\bno\s+saving\b",
    re.I,
)


_SAVE_NOW = re.compile(
    r"(?<!n't\s)(?<!dont\s)(?<!not\s)(?<!never\s)\b(?:save|store|remember|keep)\s+(?:it|that|this|them|those|"
    r"everything|all\s+(?:of\s+)?(?:it|that|this)|my|our)\b|\b(?:you|u)\s+can\s+(?:save|store|remember|keep)\b",
    re.I,
)


def says_save_nothing(text: str) -> bool:
    """ "dont save anything", "don't want you storing anything about me"."""
    return _SAVE_NOTHING.search(text) is not None


def saving_declined(values: Values, context: ReadingContext) -> bool:
    """Nothing is saved from a message that says not to, nor later in that conversation until they
    say to save ("dont save anything, just curious. whats peak for pge", then "94110": not saved)."""
    if _SAVE_NOTHING.search(values.message):
        return True
    return context.saving_declined and not (values.remember or _SAVE_NOW.search(values.message))


def _what_is_saved(
    intent: str, params: RequestParams, values: Values, facts: list[StatedFact], declined: bool
) -> tuple[RequestParams, list[StatedFact], list[StatedFact]]:
    """The facts to save and the request's parameters beside them: what a request takes as theirs
    joins the facts; "dont save anything abt me but whats peak today for ameren missouri" saves
    nothing and asks as they said, for this answer only (and so for the rest of the conversation)."""
    taken = _taken_as_theirs(intent, params, values)
    if taken:
        facts = [*facts, *taken]
        params = params.model_copy(
            update={"place": None if _has(taken, "location.zip_code") else params.place}
            | ({"utility": None} if _has(taken, "location.utility_provider") else {})
            | ({"vehicle": None} if _has(taken, "equipment.ev_model") else {})
        )
    if facts and declined:
        return params, [], facts  # (this conversation's view of their home answers with them)
    return params, facts, []


def held_now_saved(message: str, context: ReadingContext, facts: list[StatedFact]) -> list[StatedFact]:
    """ "ok go ahead and save my zip" after "dont save anything" and their ZIP: what they told us
    unsaved and now name (or "save it all"), saved now."""
    if not context.saving_declined or not context.held_fields or not _SAVE_NOW.search(message):
        return []
    named = set(commands.named_fields(message))
    everything = _SAVE_ALL.search(message) is not None or not named
    return [
        StatedFact(field=field, value=value, said=str(value), words=message[:500], confidence=0.9)
        for field, value in context.held_fields.items()
        if (everything or field in named) and not _has(facts, field)
    ]


_SAVE_ALL = re.compile(
    r"(?:everything|all\s+(?:of\s+)?(?:it|that|this)|it\s+all|save\s+(?:it|that|them|those))", re.I
)


def withheld(facts: list[StatedFact]) -> list[Mention]:
    """Their facts, not saved because they asked us not to (said in the reply and the trace)."""
    return [Mention(field=fact.field, words=fact.words[:500], reason="declined") for fact in facts]


_KEEP_IT = re.compile(
    r"\b(?:don'?t|dont|do\s+not|never|pls\s+don'?t|please\s+don'?t)\s+(?:you\s+)?"
    r"(?:forget|delete|remove|erase|lose|drop|wipe|clear)\b",
    re.I,
)
_WHAT_WAS_UNDONE = re.compile(
    r"^\W*(?:(?:hmm+|um+|wait|ok|so)\W+)*(?:what|which)\s+(?:did|have)\s+(?:you|u|ya)\s+(?:just\s+)?"
    r"(?:undo|undid|undone|change|changed|remove|removed|delete|deleted|erase|erased)\b",
    re.I,
)
_OWN_CAR_AGAIN = re.compile(
    r"\b(?:mine|ours|my\s+(?:own\s+)?(?:car|ev|truck|one)|our\s+(?:own\s+)?(?:car|ev|truck|one))\b", re.I
)
_VALUE_SAID = re.compile(
    r"\b(?:it'?s|its|it\s+is|should\s+be|make\s+it)\s+(?:actually\s+|really\s+)?"
    r"(?!(?:wrong|not|right|correct|fine|ok|okay|off|incorrect|all|that|this|me|my|mine)\b)[a-z0-9]",
    re.I,
)


_LACKS = re.compile(
    r"^\W*(?:(?:and|also|but|oh|plus)\s+)?(?:(?:we|i)\s+)?(?:no|(?:do\s*n[o']?t|never)\s+(?:have|had|own))\s+"
    r"(?:an?\s+|any\s+)?(?:evs?|electric\s+(?:cars?|vehicles?)|cars?(?!\s+charger)|solar|panels|(?:home\s+)?batter(?:y|ies)|powerwalls?)\b",
    re.I,
)


# "thats not right, smud peak is 5-8 not 4-9", "no, duke charges like 11 cents": our answer disputed
_DISPUTE = re.compile(
    r"\b(?:not\s+right|wrong|incorrect|not\s+correct|(?:that'?s|thats|it'?s|its)\s+not|isn'?t|pretty\s+sure|"
    r"no\s+(?:it'?s|its|they)|you'?re\s+off|(?:doesn'?t|does\s+not|dont|don'?t)\s+(?:look|sound|seem)\s+right|"
    r"i\s+thought)\b",
    re.I,
)
_HOURS_CLAIM = re.compile(r"\b\d{1,2}\s*(?:-|to|–)\s*\d{1,2}\b", re.I)
_CENTS_CLAIM = re.compile(r"\d\s*(?:cents?|¢|c\b)|\$\s*0?\.\d", re.I)
# "that doesn't sound right", "thats wrong": our last answer doubted, said first
_DOUBTED = r"(?:(?:that|this|it)\s+(?:doesn'?t|does\s+not|dont)\s+(?:sound|seem|look)\s+right|(?:that'?s|thats)\s+(?:not\s+right|wrong))"
_DISPUTE_FIRST = re.compile(r"^\W*" + _DOUBTED + r"\b", re.I)
_PRICE_LEVEL_CLAIM = re.compile(
    r"\b(?:cheap|cheaper|expensive|pricey|pricier|(?:that|so|too)\s+(?:low|high))\b", re.I
)


def _disputes_our_prices(
    prediction: Prediction, values: Values, context: ReadingContext
) -> Understanding | None:
    """Our prices or peak hours said to be wrong, with nothing new about their home: answered again
    with the prices and where they come from (not "Confirmed: your utility is SMUD")."""
    if (
        # (after a statement too: "thats not right, isnt peak 4-9?" had undone the utility, plan and ZIP)
        (context.last_intent != "live_data" and (values.facts or not values.asking))
        or (
            prediction.intent not in ("correction", "profile_statement", "unclear", "smalltalk")
            and not _DISPUTE_FIRST.match(values.message)  # "that doesn't sound right, …" leads
        )
        or not _DISPUTE.search(values.message)
        or not (
            _CENTS_CLAIM.search(values.message)
            or (_HOURS_CLAIM.search(values.message) and _ABOUT_PRICES.search(values.message))
            # "that doesn't sound right, ameren isnt that cheap is it" after their prices
            or (context.last_topic == "rates" and _PRICE_LEVEL_CLAIM.search(values.message))
        )
        or any(context.known_fields.get(fact.field) != fact.value for fact in values.facts)
    ):
        return None
    day = (context.last_params.day if context.last_params else None) or values.params.day
    return Understanding(
        intent="live_data",
        topic="rates",
        asks=True,
        question=values.message,
        params=RequestParams(task="prices", day=day),
        disputed=True,
        confidence=round(prediction.intent_p, 3),
    )


# "my oil guy says heat pumps dont work up here", "i heard you should never run the dryer at night":
# a claim someone made, with nothing said about their own home; what they want is whether it holds
_HEARSAY = re.compile(
    # ("that doesn't sound right, my friend says …": our answer doubted, with the claim behind it)
    r"^\W*(?:(?:" + _DOUBTED + r"|hmm+|idk|not\s+sure\s+about\s+that)[,.!]*\s+)?"
    r"(?:(?:so\s+|but\s+|well\s+|ok\s+|and\s+)?(?:(?:my|our|the|a|this)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?|someone|somebody|"
    r"people|everyone|everybody)\s+"
    r"(?:says|said|told\s+(?:me|us)|tells\s+(?:me|us)|claims|claimed|swears(?!\s+by)|keeps?\s+saying|insists?)\b|"
    r"(?:so\s+|but\s+)?(?:i|we)\s+(?:(?:always\s+|just\s+)?(?:heard(?!\s+back)|read|saw)(?:\s+(?:online|somewhere|on\s+\w+))?|"
    r"was\s+told|were\s+told|keep\s+hearing)\b|"
    r"(?:heard|read)\s+(?:somewhere\s+)?that)"
    r"\s+(?:that\s+)?(?P<claim>\S.{6,})$",
    re.I,
)

_THEIR_OWN = re.compile(r"\b(?:our|my|we|we'?re|we'?ve|us|i|i'?m|i'?ve|me|mine|ours)\b", re.I)


def _hearsay_to_check(prediction: Prediction, values: Values) -> Understanding | None:
    """A claim heard from someone, with no fact about their home in it: the claim is looked up, so
    the answer says what the sources say about it (not "Noted", not a plan for the dryer)."""
    heard = _HEARSAY.match(values.message)
    if (
        heard is None
        or values.facts
        or prediction.intent in ("off_topic", "goodbye")
        # "my installer says our system is 7.6 kw": news about their own home, not a claim to check
        or _THEIR_OWN.search(heard.group("claim"))
    ):
        return None
    claim = heard.group("claim").strip(" ?!.")
    return Understanding(
        intent="knowledge",
        topic=prediction.topic if prediction.topic != "general" else "home",  # type: ignore[arg-type]
        asks=True,
        question=f"is it true that {claim}?",
        confidence=round(prediction.intent_p, 3),
    )


# "skip that, just give me a general idea", "stop asking": asked nothing more ("rather not say where i
# live" skips that question only: the utility is still asked, as prices need no more)
_NO_MORE_QUESTIONS = re.compile(
    r"\b(?:general|rough|ballpark|broad|basic)\s+(?:idea|answer|estimate|picture|sense|number)|\bballpark\b|"
    r"\bjust\s+(?:answer|tell\s+me|give\s+me\s+(?:something|an?\s+(?:answer|idea|estimate|guess)))|"
    r"\bstop\s+asking|\bno\s+more\s+questions|\benough\s+questions",
    re.I,
)


# "ok switch me to ev2-a", "sign us up for e-elec": a deed on their account, which only the utility
# can do; the plan named is not theirs yet (it had been saved as their plan)
_SWITCH_ME = re.compile(
    r"^\W*(?:(?:ok|okay|so|then|great|cool|alright|perfect|yes|yeah)\W+)*(?:please\s+|pls\s+)?"
    r"(?:switch|move|change|put|sign|enroll|enrol)\s+(?:me|us)\s+(?:up\s+)?(?:to|on|onto|over|for|in|into)\b",
    re.I,
)


def _deed_asked(prediction: Prediction, values: Values) -> Understanding | None:
    """ "ok switch me to ev2-a", "can u just call my utility and switch my plan": a deed (what it
    names is its object, not a fact or a topic)."""
    if not (_SWITCH_ME.match(values.message) or (values.asks_action and not values.facts)):
        return None
    return Understanding(intent="off_topic", deed=True, confidence=round(prediction.intent_p, 3))


# "charge it", "let the panels fill it", "top it off": what "it" is gets charged
_IT_CHARGED = re.compile(
    r"\b(?:charge|charging|fill|filling|top|topping|refill)\s+(?:it|them)\b|\bit\s+(?:charge|charges|charged|fill|fills)\b",
    re.I,
)


def _without_the_plans_hours(
    params: RequestParams, described: DescribedPlan | None, values: Values
) -> RequestParams:
    """ "its free from 9pm to 6am and like 16 cents otherwise": those hours are the plan's, never
    when the car is plugged in or must be ready (it had been planned "plugged in at 21:00, as you
    said"); a question beside the plan keeps its own."""
    if described is None or values.question:
        return params
    return params.model_copy(
        update={"plug_in_hour": None, "plug_in_minute": None, "ready_by_hour": None, "ready_by_minute": None}
    )


def _home_battery_of_it(
    intent: str, params: RequestParams, prediction: Prediction, values: Values, context: ReadingContext
) -> tuple[str, RequestParams, Prediction, Values]:
    """ "we just got a powerwall installed" then "should i charge it from the grid overnight or just
    let the panels fill it": a charge of "it" right after they spoke of a home battery, with no car
    in either message, is the battery's charging, explained (not a plan for a car nobody named)."""
    unchanged = intent, params, prediction, values
    if (
        intent not in ("live_data", "knowledge")
        or params.task not in (None, "charging_plan")
        or params.vehicle
    ):
        return unchanged
    if not _IT_CHARGED.search(values.message) or _A_CAR.search(values.message):
        return unchanged
    earlier = context.said_before(values.message)[-1:]
    if not any(HOME_BATTERY_WORDS.search(line) and not _A_CAR.search(line) for line in earlier):
        return unchanged
    # searched as what "it" is
    asked = re.sub(
        r"\b(it|them)\b", "the home battery", values.question or values.message, count=1, flags=re.I
    )
    return "knowledge", RequestParams(), replace(prediction, topic="solar"), replace(values, question=asked)


_A_CAR = re.compile(
    r"\b(?:car|cars|ev|evs|vehicle|truck|tesla|model\s*[3ysx]|leaf|bolt|ioniq|mach-?e|rivian)\b", re.I
)


# "when should it run then": a machine that runs (a car charges), named in what they said before
_IT_RUNS = re.compile(r"\b(?:it|that|this|one)\s+(?:run|runs|be\s+run|go\s+on)\b|\brun\s+(?:it|that)\b", re.I)


def _appliance_of_it(params: RequestParams, values: Values, context: ReadingContext) -> RequestParams:
    """ "can u turn off my water heater at 4pm" then "eh ok. when should it run then": the water
    heater's timing, not a charging plan for a car nobody named."""
    if (
        params.task != "charging_plan"
        or params.vehicle
        or not _IT_RUNS.search(values.message)
        or _about_a_car(values.message)
    ):
        return params
    for earlier in reversed(context.said_before(values.message)[-2:]):
        appliance = read_values(earlier, ReadingContext()).params.appliance
        if appliance:
            return params.model_copy(update={"task": "appliance", "appliance": appliance})
    return params


def _kept_mentions(values: Values, facts: list[StatedFact], context: ReadingContext) -> list[Mention]:
    """What looked like facts and is not saved, for the reply and the trace; with what they say they
    lack beside a question ("we dont have an ev, just curious what charging costs"): no car is asked."""
    kept = [m for m in values.mentions if not (m.reason == "question" and _has(facts, m.field))]
    lacked = _lacks_unsaved(values, context)
    return kept + [Mention(field=field, words=values.message[:500], reason="lacks") for field in lacked]


def _said_they_lack(prediction: Prediction, values: Values, context: ReadingContext) -> Understanding | None:
    """ "and no ev" while setting up, with no car saved: what they lack, said; nothing to remove."""
    lacked = _lacks_unsaved(values, context)
    if not lacked or prediction.intent in _ANSWERS:
        return None  # "we dont have solar yet lol, how much would a 6kw system make here": asked
    mentions = [Mention(field=field, words=values.message[:500], reason="lacks") for field in lacked]
    if values.question or values.asking:
        # "we dont have an ev, just curious what charging at home costs here": no car of theirs to
        # plan for (or to forget), so the question is explained
        return Understanding(
            intent="knowledge",
            topic=prediction.topic,  # type: ignore[arg-type]
            asks=True,
            question=values.question or values.message,
            mentions=mentions,
            confidence=round(prediction.intent_p, 3),
        )
    return Understanding(
        intent="profile_statement", mentions=mentions, confidence=round(prediction.intent_p, 3)
    )


_NO_LONGER = re.compile(r"\b(?:anymore|any\s+more|no\s+longer|sold|got\s+rid|gone|removed)\b", re.I)


def _lacks_unsaved(values: Values, context: ReadingContext) -> list[str]:
    """ "and no ev", "we don't have solar": equipment they say they lack, of which we hold nothing
    (with it held, "no ev anymore" removes it)."""
    named = [field for field in values.named if field.startswith("equipment.")]
    if (
        not named
        or context.pending_slot is not None  # "no ev" to "which EV?" skips the question
        or values.facts
        or set(named) & set(context.known_fields)
        or values.removal_cue
        or values.forget_lead
        or values.forget_everything
        or _LACKS.search(values.message) is None
        or _NO_LONGER.search(values.message)  # "we don't have solar anymore": it went
    ):
        return []
    return named


_UNDO_ASKED = re.compile(r"\bundo\s+(?:that|it|this|the\s+last)\b|\bundo\W*$", re.I)


def _more_of_the_last_forget(values: Values, context: ReadingContext | None) -> bool:
    """The last thing the user said was a forget command, and this one adds to it ("and the city too")."""
    if context is None or not values.also or values.question or values.asking:
        return False  # ("also whats the solar forecast today": a question of its own, nothing removed)
    said = context.said_before(values.message)
    return bool(said) and bool(commands.FORGET_LEAD.match(said[-1]))


def _read_otherwise(prediction: Prediction, values: Values, context: ReadingContext) -> str | None:
    """What the values show the message is, where the model read it as something else."""
    if values.only_a_place and context.last_intent not in _ANSWERS:
        return "profile_statement"  # "chicago", "austin tx": where they live, saved; nothing asked
    if values.params.fuel_price_usd is not None and (
        _HEATING_WORDS.search(values.message) or context.last_topic == "home"
    ):
        return "live_data"  # "oil is 4.10 a gallon, would a heat pump save us money": at their prices
    if (
        values.forecast_asked
        and prediction.intent in ("knowledge", "off_topic", "unclear")
        and not values.how_to
    ):
        return "live_data"  # "polar vortex supposed to hit thurs, how cold we talking": the forecast
    if prediction.intent == "live_data" and values.params.appliance_kw and values.params.appliance:
        return "live_data"  # "cost to run a 1500w space heater for 8 hrs": priced from their figures, whatever kind
    answer = _an_answer_after_all(prediction, values, context) or _off_topic_after_all(prediction, values)
    if (
        (answer or prediction.intent) == "live_data"
        and _SETTING_ADVISED.search(values.message)
        and not values.facts
    ):
        return "knowledge"  # "whats the best temp to set the heat pump at night": advice on a setting
    if (
        (answer or prediction.intent) == "live_data"
        and _REPLACING.search(values.message)
        and not (values.when_to_run or values.signals.deadline or values.signals.charge_level)
    ):
        return "knowledge"  # "water heater is from 2009, replace now or run it till it dies": advice
    if (
        (answer or prediction.intent) == "live_data"
        and _PLAN_HOURS.search(values.message)
        and not (values.question or values.asking or "?" in values.message)
        and not (values.signals.charge_level or values.signals.miles or values.params.appliance)
        and not _DISPUTE.search(values.message)  # "that's wrong, peak here is 5 to 8pm": our prices disputed
    ):
        return "profile_statement"  # "were on the saver choice plan (4-7pm peak)": their plan, described
    if (answer or prediction.intent) == "live_data" and _BILL_TERMS.search(values.message):
        return "knowledge"  # "whats the price to compare on my bill": a line of the bill explained
    if (answer or prediction.intent) == "profile_query" and _CHANGE_WEIGHED.search(values.message):
        return "knowledge"  # "do i need to change my rate plan now": advice, not what we saved
    return answer


# equipment replaced or kept: a choice advised, not a run timed
_REPLACING = re.compile(
    r"\b(?:replac\w*|swap(?:ping)?\s+(?:it\s+)?out|run\s+it\s+(?:till|until|til)\s+it\s+(?:dies|breaks|fails))\b",
    re.I,
)
_HEATING_WORDS = re.compile(r"\b(?:heat(?:ing)?|furnace|boiler|heat\s*pump|mini[-\s]?split)\b", re.I)
# a plan's hours said as what their plan is, not as a deadline: "saver choice plan (4-7pm peak)",
# "free nights plan (9pm-6am free)"
_HOURS = (
    r"\d{1,2}(?::\d\d)?\s*(?:am|pm|a|p)?\s*(?:-|–|to|til|till|until)\s*\d{1,2}(?::\d\d)?\s*(?:am|pm|a|p)?"
)
_PLAN_HOURS = re.compile(
    r"\bplan\b[^.?!]{0,30}?\b" + _HOURS + r"\b|\b" + _HOURS + r"\s*(?:peak|free|off[-\s]?peak)\b",
    re.I,
)
# lines of a bill no tool of ours prices: what they mean is explained
_BILL_TERMS = re.compile(
    r"\bprice\s+to\s+compare\b|\b(?:supply|delivery|distribution|transmission)\s+charges?\b", re.I
)
_CHANGE_WEIGHED = re.compile(
    r"\b(?:do|should|would|must)\s+(?:i|we)\s+(?:need\s+to\s+|have\s+to\s+)?(?:change|switch|update|move|get|replace)\b",
    re.I,
)


def _an_answer_after_all(prediction: Prediction, values: Values, context: ReadingContext) -> str | None:
    """A message the model read as something else that the values show asks for an answer (or an
    explanation the model took for a live request)."""
    if values.asks_action and not (values.facts or values.named):
        return "off_topic"  # "can you set my thermostat for me", "can you pay my bill": not ours to do
    if values.params.size_needed and prediction.intent in ("knowledge", "live_data", "profile_statement"):
        return "live_data"  # "how many solar panels do i need, we use about 900 kwh a month": sized here
    if context.last_intent == "live_data" and _ASKED_AGAIN.match(values.message):
        return "live_data"  # "ok prices again", "the plan again pls": the last answer, once more
    if prediction.intent == "live_data" and _only_their_day(values):
        # "i work nights, usually home by 8am. my car is a 2018 bolt": when they get home, said
        # with their facts, is no request
        return "profile_statement"
    answer = _an_answer_after_all_read(prediction, values, context)
    if answer is None and prediction.intent == "profile_statement" and values.when_to_charge:
        # "got a used leaf last week and honestly no idea when i'm supposed to charge it": the car
        # is saved and when to charge it is answered
        return "live_data"
    if (answer or prediction.intent) == "knowledge" and (
        (values.charge_duration and _a_car_in_it(values, context))
        # "can i just charge on the 120v outlet? 35 mi round trip": their miles' hours answer it
        or (values.params.duration and (values.params.miles_needed or values.params.target_soc_pct))
    ):
        return "live_data"  # "how long to charge a bolt from empty on 240v": the plan's hours answer it
    if (answer or prediction.intent) != "live_data" or any(
        not fact.field.startswith("location.") for fact in values.facts
    ):
        return answer  # (where they live says nothing of what they ask: "drafty victorian in providence, …")
    if values.home_battery_charge:
        return "knowledge"  # "is it better to charge the powerwalls from the grid at night": no car's plan
    if context.last_intent != "live_data" and (
        _nothing_of_the_task(prediction, values)
        or _no_car_to_charge(prediction, values, context)
        or _said_no_car(prediction, values)
    ):
        # "when is national grid going to restore power on my street" read as a solar forecast:
        # nothing of a forecast is in the words, so it is a question (answered, or "no source");
        # nothing asked at all ("denver, or boulder") is a statement
        asked = values.question or values.signals.question_clause or values.signals.question_mark
        return "knowledge" if asked else "profile_statement"
    return answer


_ASKED_AGAIN = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|k|so|and|um)\W+)*(?:(?:the|my|those|that)\s+)?"
    r"(?:(?:prices?|rates?|peak(?:\s+hours)?|forecast|weather|plan|numbers?|answer|estimate)\s+(?:again|one\s+more\s+time)|"
    # "redo it w/ the right car", "run it again now": the last answer worked out again
    r"(?:redo|re-?run|recalculate|rework|run|do)\s+(?:it|that|the\s+(?:plan|math|numbers))(?:\s+again)?"
    r"(?:\s+(?:w/?|with)\s+(?:the\s+)?(?:right|correct|new|updated)\s+\w+|\s+now)?)"
    r"(?:\W+(?:pls|plz|please))?\W*$",
    re.I,
)


def _only_their_day(values: Values) -> bool:
    """Facts and the hour they get home or plug in, nothing asked: no level, no deadline, no
    question, no appliance or task word of a request."""
    params = values.params
    return (
        bool(values.facts)
        and params.plug_in_hour is not None
        and params.ready_by_hour is None
        and not values.asking
        and not values.question
        and not (values.signals.charge_level or values.signals.miles or values.signals.appliance)
        and not values.when_to_charge
    )


def _a_car_in_it(values: Values, context: ReadingContext) -> bool:
    """A car named in the message, or the one the profile holds."""
    named = any(fact.field == "equipment.ev_model" for fact in values.facts) or values.params.vehicle
    return bool(named or find_vehicle(values.message) or context.known_fields.get("equipment.ev_model"))


_CHARGING_WORDS = re.compile(
    r"\b(?:charg\w*|plug\w*|ev|evs|car|cars|vehicle|truck|range|miles?|mi|battery|level|%|percent)\b|%", re.I
)


def _said_no_car(prediction: Prediction, values: Values) -> bool:
    """ "no car, just an e-bike. is it worth charging it off peak": they said they have no EV and
    name none, so there is no car's plan to make; the question is explained."""
    lacks = _LACKS.search(values.message)
    return (
        prediction.task == "charging_plan"
        and lacks is not None
        and re.search(r"\b(?:evs?|electric|cars?)\b", lacks.group(0), re.I) is not None
        and find_vehicle(values.message) is None
    )


def _no_car_to_charge(prediction: Prediction, values: Values, context: ReadingContext) -> bool:
    """ "can you pay my bill for me its due friday" read as a charging plan: no car, no charging
    word, none in the profile and none talked about — nothing to plan."""
    return (
        prediction.task == "charging_plan"
        and not values.when_to_charge
        and not _CHARGING_WORDS.search(values.message)
        and find_vehicle(values.message) is None
        and not context.known_fields.get("equipment.ev_model")
        and context.last_topic != "ev_charging"
        # "need it full by 7am": a level or an hour is a plan's, whatever else is missing
        and values.params.target_soc_pct is None
        and values.params.current_soc_pct is None
        and values.params.miles_needed is None
        and values.params.ready_by_hour is None
        # "cost to put 40 kwh in tonite", "go from 20 to 80": a number is a plan's too
        and not re.search(r"\d", values.message)
    )


_PRICE_WORDS = re.compile(
    r"\b(?:prices?|pric\w+|rates?|peak|off-?peak|cost\w*|cheap\w*|expensive|kwh|cents?|plan|tou|time[-\s]of[-\s]use|"
    r"charge\w*|pay\w*|bill\w*|\$|now|today|tomorrow|tmrw|tonight|hours?)\b",
    re.I,
)


def _nothing_of_the_task(prediction: Prediction, values: Values) -> bool:
    """A solar or weather answer the model guessed (unsure of the kind) with no word of panels,
    sun or weather and no size in the message; a price answer guessed for a question with no word
    of a price in it."""
    if prediction.task == "prices":
        # "when is national grid going to restore power on my street": a utility named, nothing of
        # a price, a rate, a peak or a cost in the words
        return (
            prediction.task_p < _SURE_REQUEST
            and values.question is not None
            and not _PRICE_WORDS.search(values.message)
        )
    if prediction.task not in ("solar_forecast", "typical_solar", "weather"):
        return False
    if values.setpoint_asked:
        return True  # "what temp should i set it to at night in winter": a setting, not a forecast
    if (
        prediction.task_p >= _SURE_REQUEST
        or values.sun_words
        or values.weather_words
        or values.forecast_asked
    ):
        return False
    return not (values.signals.system_size or values.params.place or values.signals.day)


_READ_BACK = re.compile(
    r"\b(?:read|show|tell|give|list)\s+(?:me\s+)?(?:back\s+)?(?:my|the|your)\s+(?:profile|info|details|data|file)\b|"
    r"\bread\s+(?:it\s+|that\s+)?(?:me\s+)?back\b|^\W*(?:and\s+|so\s+)?what'?s\s+left\W*$|^\W*(?:and\s+|so\s+)?whats\s+left\W*$|"
    # "what rate am i on", "what car do u have me down as": the value we hold, asked back
    r"^\W*(?:(?:so|and|wait|ok|um)\W+)*what\s+(?:rate(?:\s+plan)?|plan|utility|car|ev|charger|zip(?:\s+code)?)\s+"
    r"(?:am\s+i|are\s+we|do\s+(?:you|u)\s+have\s+(?:me|us)|did\s+(?:you|u)\s+(?:save|put)(?:\s+(?:for\s+)?(?:me|us))?)"
    r"(?:\s+(?:on|with|in|down\s+(?:as|for)|under))?(?:\s+(?:again|now|rn))?\W*(?:(?:idk|lol)\W*)?$",
    re.I,
)
# a practice weighed, not a run priced: "is precooling at 3pm worth it or just wasting energy"
_PRACTICE = r"pre-?cool\w*|pre-?heat\w*"
_WEIGHING = r"worth|help|helps|save|saves|waste|wasting|point|pointless|smart|dumb|myth"
# "would a variable speed pump really save that much", "would a heat pump dryer pay for itself":
# new equipment weighed (not a run of theirs priced)
_UPGRADE_WEIGHED = re.compile(
    r"\bwould\s+(?:a|an|getting\s+(?:a|an)|switching\s+to\s+(?:a|an)|upgrading\s+to\s+(?:a|an)|"
    r"replacing\s+it\s+with\s+(?:a|an))\s+(?:new\s+)?(?!(?:[\w-]+\s+){0,3}?(?:plans?|rates?|pricing|programs?)\b)"
    r"(?:[\w-]+\s+){1,3}?(?:really\s+|actually\s+)?"
    r"(?:save|pay\s+(?:for\s+itself|off)|be\s+worth|cut|lower)\b",
    re.I,
)
_PRACTICE_WEIGHED = re.compile(
    rf"\b(?:{_PRACTICE})\b[^.?!]*\b(?:{_WEIGHING})\b|\b(?:{_WEIGHING})\b[^.?!]*\b(?:{_PRACTICE})\b|"
    # "should i precool the house before peak", "when to preheat before peak tmrw": whether or when
    # to, asked of the practice itself
    rf"\bshould\s+(?:i|we)\s+(?:even\s+|still\s+)?(?:{_PRACTICE})\b|"
    rf"\bwhen\s+(?:to|should\s+(?:i|we)|do\s+(?:i|we))\s+(?:{_PRACTICE})\b|"
    # "should i bump the heat up before the peak tomorrow morning": pre-heating, said in plain words
    r"\b(?:bump|turn|crank|raise|push|run|lower|drop)\s+(?:up\s+|down\s+)?(?:the\s+)?(?:heat|ac|a/c|air|thermostat)"
    r"(?:\s+(?:up|down))?\s+(?:a\s+bit\s+|a\s+little\s+)?(?:before|ahead\s+of)\s+(?:the\s+)?peak\b",
    re.I,
)
# "whats the best temp to set the heat pump at night": a setting advised, not a run priced
_SETTING_ADVISED = re.compile(
    r"\b(?:best|right|good|ideal|optimal|recommended)\s+(?:temp|temperature|thermostat\s+setting|setpoint)\b|"
    r"\bwhat\s+(?:temp|temperature)\s+(?:should|do|to|would)\b|"
    r"\bhow\s+(?:hot|warm|cold|cool|high|low)\s+should\s+(?:i|we)\s+(?:set|keep|put|leave|have|run)\b",
    re.I,
)


# "is ev2a cheaper than e-tou-c for me", "would we save on tou-d-prime": a plan weighed for them
_WEIGHED_FOR_THEM = re.compile(r"\b(?:cheaper|better|save|saves|saving|worth|costs?\s+(?:less|more))\b", re.I)


def _an_answer_after_all_read(prediction: Prediction, values: Values, context: ReadingContext) -> str | None:
    intent = prediction.intent
    if values.only_when and context.last_intent == "live_data" and not (values.facts or values.leaving):
        return "live_data"  # "and tmrw morning?", "how about here": the last live answer, moved
    if (
        (
            intent in ("smalltalk", "unclear", "correction", "profile_statement", "forget")
            or (intent == "goodbye" and prediction.intent_p < _GOODBYE_AT_LEAST)  # an unsure goodbye
        )
        and not values.facts
        and not values.removal_cue  # "forget my zip": a command, whatever numbers it has
        and context.pending_slot is None  # "tou d 4-9pm" answering our plan question is no new deadline
        and context.last_intent == "live_data"
        and (values.signals.charge_level or values.signals.deadline or values.signals.miles)
    ):
        return "live_data"  # "nvm 80 is fine, trip got cancelled": the last plan with that level
    if intent == "profile_query" and values.plan_unknown and not _READ_BACK.search(values.message):
        return "profile_statement"  # "I don't know what plan I have, dear": not knowing, not a question to us
    if intent == "profile_query" and values.signals.advice and prediction.runner_up in _ANSWERS:
        return prediction.runner_up  # "what plan should i be on": advice, not what we saved
    if _READ_BACK.search(values.message) and not values.facts:
        return "profile_query"  # "ok read me back my profile", "and whats left?": what we hold
    if (
        intent == "knowledge"
        and prediction.runner_up == "live_data"
        and _THEIR_OUTPUT_ASKED.search(values.message)
        and not (values.how_to or values.definition)
    ):
        return "live_data"  # "how much would solar produce on my house": their home's output, estimated
    if (
        intent == "knowledge"
        and prediction.runner_up == "live_data"
        and _THEIR_PEAK_PRICE_ASKED.search(values.message)
    ):
        return (
            "live_data"  # "what do i actually pay during peak vs off peak on hawaiian electric": their prices
        )
    if (
        intent == "knowledge"
        and context.last_intent == "live_data"
        and context.last_topic == "rates"
        and SWITCH_WEIGHED.search(values.message)
    ):
        return "live_data"  # "is that worth switching to hourly pricing for" after their prices: for them
    if (
        intent == "live_data"
        and _UPGRADE_WEIGHED.search(values.message)
        and not (values.signals.deadline or values.params.fuel_price_usd)  # (a heating comparison priced)
    ):
        return (
            "knowledge"  # "would a variable speed pump really save that much": an upgrade weighed, explained
        )
    if intent == "live_data" and _PRACTICE_WEIGHED.search(values.message):
        return (
            "knowledge"  # "is precooling the house at 3pm actually worth it": a practice weighed, explained
        )
    if (
        intent in ("profile_query", "live_data")
        and (values.definition or values.how_to)
        and not (values.signals.deadline or values.signals.charge_level or values.signals.appliance)
    ):
        return "knowledge"  # "how would i know what plan im on", "whats a kwh": an explanation
    if (
        intent == "knowledge"
        and (values.when_to_run or values.when_to_charge)
        and not (values.what_if or values.how_to or values.definition)
    ):
        # "is it cheaper to run the dishwasher at night", "when should i charge my leaf" (read as a
        # general question after an explanation): a verdict or a plan on their own prices
        return "live_data"
    if (
        intent == "off_topic"
        and values.weather_words
        and not values.place_abroad
        and (
            (prediction.runner_up == "live_data" and prediction.runner_up_p >= _RUNNER_UP_AT_LEAST)
            or values.params.place is not None  # a US town's forecast asked for
        )
    ):
        return "live_data"  # "whats the low tonight in denver": a forecast, the town named
    if intent == "live_data" and values.place_abroad and not (values.facts or values.energy_words):
        return "off_topic"  # "whats the weather in cancun next week": no forecast of ours, nor their home's
    if (
        intent == "knowledge"
        and prediction.task == "plan_comparison"
        and prediction.task_p >= _SURE_TASK
        and prediction.runner_up == "live_data"
        and values.params.plan is not None
        and values.first_person
        and _WEIGHED_FOR_THEM.search(values.message)
    ):
        return "live_data"  # "is ev2a actually cheaper than e-tou-c for me?": their year priced on each
    if intent == "off_topic" and values.energy_words and (prediction.runner_up in _ANSWERS or values.asking):
        # "whats pge's best plan": a utility's plans are ours to answer ("how do i pick a plan in
        # texas": how, explained; "will nem 3 get reversed next year": asked, explained)
        return "knowledge" if values.how_to or prediction.runner_up not in _ANSWERS else prediction.runner_up
    if (
        intent in ("profile_statement", "forget", "unclear", "correction")
        and prediction.intent_p < _UNSURE_STATEMENT
        and prediction.task_p >= _SURE_REQUEST
        and not (values.facts or values.mentions or values.remember or context.pending_slot)
        and not (values.removal_cue or values.undo_cue or values.forget_everything)
    ):
        return "live_data"  # "need the car charged": nothing stated, a request the model is sure of
    return None


_THANKS_ALONE_WORDS = 4  # "gracias", "thank you so much": thanks and nothing else


def _goodbye_or_thanks(prediction: Prediction, values: Values) -> str | None:
    """A goodbye the model is unsure of, or one with no word of leaving: thanks ("gracias": the
    conversation may go on; "gracias, hasta luego" leaves), or an answer ("ok fine 96816")."""
    if values.facts and not values.leaving:
        return "profile_statement"  # "ok fine 96816", "thanks, pge": no farewell, and facts that count
    if values.thanks and not values.leaving and values.signals.words <= _THANKS_ALONE_WORDS:
        return "smalltalk"
    if prediction.intent_p < _GOODBYE_AT_LEAST:
        return "smalltalk" if values.thanks else "unclear"
    return None


# "do you know a good electrician", "can u recommend a solar installer near me": a business to hire,
# which no source or calculation here can name
_WHO_TO_HIRE = re.compile(
    r"\b(?:know|recommend|suggest|got)\s+(?:me\s+)?(?:of\s+)?(?:a|an|any|some)\s+"
    r"(?:(?:good|decent|reliable|trustworthy|local|reputable|honest|cheap)\s+)*"
    r"(?:electricians?|plumbers?|contractors?|installers?|roofers?|handym[ae]n|hvac\s+(?:guys?|compan(?:y|ies)|techs?|people)|"
    r"(?:solar|hvac|insulation|heat\s+pump)\s+(?:installers?|compan(?:y|ies)|contractors?|guys?|people))\b",
    re.I,
)


def _off_topic_after_all(prediction: Prediction, values: Values) -> str | None:
    """ "whats the best pizza in minneapolis" after an explanation: not a follow-up."""
    if (
        prediction.intent == "knowledge"
        and prediction.runner_up == "off_topic"
        and prediction.runner_up_p >= _RUNNER_UP_AT_LEAST
        and not (values.energy_words or values.facts or values.first_person)
    ):
        return "off_topic"
    return None


def _nothing_said_wrong(prediction: Prediction, values: Values, context: ReadingContext) -> str:
    """ "ok redo it", "my sister got a powerwall, would that work for us too": read as a correction,
    but nothing says a saved value is wrong, so nothing is undone; a question gets its answer, a
    re-ask the last answer, news of the house ("built in 1952, no insulation in the walls") a note."""
    if values.question and prediction.runner_up in _ANSWERS:
        return prediction.runner_up
    if not values.question and prediction.runner_up == "profile_statement":
        return "profile_statement"
    if context.last_intent == "live_data":
        return "live_data"
    # (a statement about the home, not a question: news of the house whichever reading came second)
    return (
        "profile_statement" if values.energy_words and not (values.question or values.asking) else "unclear"
    )


def _us_or_a_term_asked(intent: str, values: Values) -> str | None:
    """ "what can u do then": what the advisor does, not a passage on chargers; "i dont know what
    time of use means" after a plan: the term explained, not the plan again."""
    if values.facts:
        return None
    if values.about_advisor or values.question_coming:
        return "smalltalk"  # ("hi i have a question about my bill": asked to go on, nothing looked up yet)
    return "knowledge" if values.meaning_asked and intent != "off_topic" else None


def _intent(prediction: Prediction, values: Values, context: ReadingContext) -> str:
    intent = prediction.intent
    settled = _settled_by_what_is_asked(intent, values)
    if settled is not None:
        return settled
    answer = _read_otherwise(prediction, values, context)
    if answer is not None:
        return answer
    if (
        intent in ("smalltalk", "unclear", "goodbye", "profile_statement", "correction")
        and values.leaving
        and not values.undo_cue
        and not (values.facts or values.mentions or values.question)
    ):
        return "goodbye"  # "thanks!! gotta run, soccer practice", "Ha, fair. Later.", "Good night."
    asked = _us_or_a_term_asked(intent, values)
    if asked is not None:
        return asked
    if values.remember and intent in _QUIET:
        return "profile_statement"  # "remember that I like pizza": said why nothing was kept
    if (
        intent == "off_topic"
        and prediction.intent_p >= _SURE_TASK
        and values.facts
        and all(fact.field == "location.city" for fact in values.facts)
    ):
        return "off_topic"  # "best pizza in brooklyn": a town in an off-topic question is not where they live
    intent, settled = _facts_in_quiet_words(intent, values, context)
    if settled:
        return intent
    if (
        intent == "profile_statement"
        and values.thanks
        and not (values.facts or values.mentions or values.question or context.pending_slot)
    ):
        return "smalltalk"  # "gracias", "ok thx that helps": thanks with nothing to save is thanks
    if intent == "goodbye" and (farewell := _goodbye_or_thanks(prediction, values)) is not None:
        return farewell
    if (
        intent == "profile_statement"
        and (values.question or values.what_if)  # "we have gas heat, worth switching to a heat pump"
        and prediction.runner_up in _ANSWERS
        and prediction.runner_up_p >= _RUNNER_UP_AT_LEAST
    ):
        # "family of 5, central ac, phoenix. what can i do?": the facts are saved and the closing
        # question is answered
        return prediction.runner_up
    asked = _asked_after_all(intent, prediction, values, context)
    if asked is not None:
        return asked
    command = _command_after_all(intent, values)
    if command is not None:
        return command
    if intent == "forget" and not (values.removal_cue or values.forget_everything or values.last_change):
        intent = "correction" if values.undo_cue else "profile_statement" if values.facts else "unclear"
    if (
        intent == "correction"
        and not values.facts
        and context.last_intent == "live_data"
        and (values.signals.charge_level or values.signals.deadline or values.signals.miles)
    ):
        return "live_data"  # "scratch that last one, i meant 50%": the last plan again, at 50 %
    if intent == "correction" and not values.facts and not (_undo_cue(values) or values.last_change):
        return _nothing_said_wrong(prediction, values, context)
    params = values.params
    if (
        intent == "live_data"
        and (values.what_if or values.how_to)
        and params.system_kw is None
        and params.appliance is None
        and not (values.signals.deadline or values.signals.charge_level or values.signals.miles)
    ):
        # "and if we added a battery would that help with the peak", "what if i just use a
        # supercharger": equipment they might get is advice, not a figure from their own data
        return "knowledge"
    if intent == "live_data" and _described_not_asked(values):
        return "profile_statement"  # "put in a 40 amp charger last week": news of their home, saved
    explained = _explained_after_all(intent, values)
    if explained is not None:
        return explained
    if (
        intent in ("profile_statement", "correction")
        and values.signals.usage
        and context.last_intent == "live_data"
    ):
        return "live_data"  # "we use about 600 kWh a month": the usage the last answer assumed, redo it
    return intent


# "no insulation in the walls", "no basement": "no" before a noun says what the house lacks, not
# that something we said is wrong ("no its 94611", "no, the zip is wrong" still do)
_NO_BEFORE_A_NOUN = re.compile(
    r"\bno\s+(?!(?:it|its|it'?s|that|thats|that'?s|this|the|my|our|we|we'?re|i|i'?m|im|you|wait|actually|sorry|not|"
    r"no|nope|way|thanks|thank|problem|worries|i'?ve|ive|he|she|they|its)\b)(?=[a-z])",
    re.I,
)


def _undo_cue(values: Values) -> bool:
    """Words that say something we saved or said is wrong, "no" before a noun aside."""
    return values.undo_cue and bool(commands.UNDO_CUE.search(_NO_BEFORE_A_NOUN.sub("", values.message)))


# "that number was from the quote, nothing's installed yet", "that was my neighbors system": what
# they named is not theirs at all, so it goes (not "what should it be?")
_NOT_THEIRS = re.compile(
    r"\b(?:not\s+(?:mine|ours)|neighbou?rs?'?|from\s+(?:the|a)\s+(?:quote|bid|proposal)|nothing'?s\s+installed|"
    r"(?:don'?t|dont|do\s+not)\s+(?:have|own)|never\s+had|(?:undo|scratch|remove|drop)\b[^.,;]{0,30}\b(?:entirely|altogether)|"
    # "oops no that's my brother's car, ours is still on order": another's, or not here yet
    r"(?:that'?s|thats|it'?s|its|that\s+was|it\s+was)\s+(?:my|our)\s+[a-z-]+'?s\s+(?:car|ev|truck|panels?|solar|charger|"
    r"battery|powerwall)|someone\s+else'?s|(?:still\s+)?on\s+order|not\s+(?:here|delivered|installed|in)\s+yet|"
    # "nvm on the powerwall, thats at my parents place"
    r"(?:that'?s|thats|it'?s|its)\s+(?:at|from|in|on)\s+(?:my|our)\s+[a-z-]+'?s?\s+(?:place|house|home|farm|cabin))\b",
    re.I,
)


# words that want something done, whatever the grammar: "need", "gotta", "pls", "plan"
_WANTS_SOMETHING = re.compile(
    r"\b(?:need|needs|want|wanna|gotta|got\s+to|have\s+to|has\s+to|must|should|help|tell|show|check|"
    # ("plan my charging", "plan for tmrw"; "the evening/morning savers plan" is a plan's name)
    r"let\s+me\s+know|pls|plz|please|plan(?=\s+(?:my|our|the|a|it|for|out|this|that)\b)|figure|cheapest|best|"
    # what an answer is made of, named alone: "60618 comed, prices", "8kw in 30306, production"
    r"prices?|peak|off-?peak|forecast|weather|production|estimate|timing|when|how)\b",
    re.I,
)


# "whats e-tou-c", "what does EV2-A mean": what a named plan is, asked with nothing else
_WHAT_IS = re.compile(
    r"^\W*(?:what'?s|whats|what\s+is|what\s+does)\s+(?:an?\s+|the\s+)?\S+(?:\s+\S+)?(?:\s+(?:mean|stand\s+for))?\W*$",
    re.I,
)


# what their power costs, asked: a price word and when or where it is paid
_PRICE_ASKED = re.compile(
    r"^\W*(?:(?:so|and|ok|okay|hey)\W+)*(?:what(?:'?s|\s+is|\s+does|\s+do|\s+are)?|whats|how\s+much)\b[^?.!]*?"
    r"\b(?:cost\w*|charg(?:e|es|ing)|pay|price\w*)\b[^?.!]*?\b(?:kwh|per\s+kwh|at\s+night|tonight|today|tomorrow|tmrw|now|rn|"
    r"right\s+now|around\s+here|here)\b",
    re.I,
)
_CAR_DEAL = re.compile(
    r"\b(?:fair|good|best|right|decent)\s+(?:price|deal)\b|\bmsrp\b|\bdealer(?:ship)?s?\b|\btrade[-\s]?in\b|"
    r"\bresale\b|\b(?:car\s+)?(?:insurance|financing|loan|apr)\b|\bhow\s+much\s+(?:is|are|does|do)\s+(?:a|an)\s+(?:used|new)\b",
    re.I,
)
_POWERING_A_CAR = re.compile(
    r"\bcharg|\bplug|\bkwh\b|\bbatter(?:y|ies)\b|\brange\b|\bkw\b|\bsolar\b|\belectric(?:ity)?\s+(?:bill|cost)|"
    r"\bper\s+month\b|\ba\s+month\b|\bpower\b|\bgrid\b|\bpanel\b",
    re.I,
)


def _settled_by_what_is_asked(intent: str, values: Values) -> str | None:
    """Whom to hire, a car to buy, two cars weighed, a message in Spanish: what is asked settles the
    kind of answer."""
    if _WHO_TO_HIRE.search(values.message) and not values.facts:
        return "off_topic"
    if values.in_spanish and not values.facts:
        return "unclear"  # said so in both languages (the chat reply), never "I don't have a source"
    if _a_car_deal(values.message):
        return "off_topic"  # "whats a fair price on a used r1s": buying the car, not powering it
    if intent == "live_data" and _two_cars_weighed(values.message):
        # "we test drove an ioniq 5 and a model y, which one is cheaper to charge at home": how the
        # two compare is explained (a plan for one of them answers neither)
        return "knowledge"
    if values.facts and QUOTED_BACK.match(values.message) and re.search(r"\bbut\b", values.message, re.I):
        return "correction"  # "u have me down as a model 3 but its a model y": what we hold, put right
    checked = QUOTED_BACK.match(values.message) and _HELD_CHECKED.search(values.message)
    if not values.facts and (_WHAT_WE_HOLD.search(values.message) or checked):
        return "profile_query"  # "what rate plan do you have me on, e-tou-c or ev2-a": what we hold, asked
    return None


_WHAT_WE_HOLD = re.compile(
    r"^\W*(?:what|which)\s+(?:\w+\s+){0,2}(?:do|did)\s+(?:you|u|ya)\s+(?:have|got)\s+(?:me|us)\s+(?:down\s+)?"
    r"(?:as|for|on|with|at|in)\b",
    re.I,
)
# "you have us on ev2-a, correct?": what we hold (QUOTED_BACK), checked
_HELD_CHECKED = re.compile(r"(?:,?\s*(?:right|correct|yes|yeah)\W*\??|\?)\s*$", re.I)


def _a_car_deal(message: str) -> bool:
    """A question about buying, financing or insuring a car, with nothing about energy in it."""
    return bool(
        _CAR_DEAL.search(message)
        and (_CAR_WORDS.search(message) or find_vehicle(message))
        and not _POWERING_A_CAR.search(message)
    )


def _two_cars_weighed(message: str) -> bool:
    """Two different cars named and one asked for between them ("which one", "vs")."""
    weighed = re.search(r"\bwhich\b|\bvs\.?\b|\bversus\b|\bcompared?\b|\bor\s+(?:a|an|the)\b", message, re.I)
    return weighed is not None and len({spec.name for spec, _ in vehicles_named(message)}) > 1


_IS_THAT_CHEAPEST = re.compile(
    # ("is it cheaper to charge the car now" asks for their car's plan)
    r"\bis\s+(?:that|this|\d{1,2}(?::\d\d)?\s*(?:am|pm)?|midnight|(?:over)?night)\s+(?:really\s+)?(?:the\s+)?"
    r"(?:cheapest|cheaper|best|off-?peak)\b",
    re.I,
)
_CAR_WORDS = re.compile(r"\b(?:car|ev|evs|tesla|leaf|bolt|truck|vehicle|miles?|battery|charger|plug)\b", re.I)
# "what does duke charge at night": the utility charges (a price); "charging at night" is the car's
_UTILITY_CHARGES = re.compile(r"\b(?:does|do|will|would)\s+(?:[\w&]+\s+){1,3}charge\b", re.I)


def _about_a_car(message: str) -> bool:
    charging = re.search(r"\bcharg", message, re.I) is not None and not _UTILITY_CHARGES.search(message)
    return bool(_CAR_WORDS.search(message)) or charging


_WHAT_IT_RUNS_ON = re.compile(
    r"^\W*(?:is|are)\s+(?:my|our|the)\s+(?:[a-z-]+\s+){1,2}(?:electric|gas|propane|a\s+heat\s+pump)\W*$", re.I
)


_SWITCH_TO = re.compile(r"\b(?:switch|mov|chang|go|jump)\w*\s+(?:over\s+)?to\b", re.I)


def _explained_after_all(intent: str, values: Values) -> str | None:
    """A question the model read as a live request that asks why or what, or a live cost the
    model read as a general question."""
    params = values.params
    if intent == "live_data" and not (
        values.when_to_run or values.when_to_charge or values.signals.deadline or values.signals.charge_level
    ):
        if (
            WHY.match(values.message)
            or (values.question is not None and WHY.match(values.question))  # "…, whys it so high"
            or _WHAT_IT_RUNS_ON.match(values.message)
        ):
            # "why is my dryer so slow": a cause, not a time to run it; "is my dryer electric?": how
            # to tell, not a price
            return "knowledge"
        if params.plan is not None and _WHAT_IS.match(values.message):
            return "knowledge"  # "whats e-tou-c": what the plan is
        if values.home_battery_charge and params.vehicle is None:
            # "is it worth charging my home battery from the grid at night": no car's plan answers it
            return "knowledge"
    if (
        intent == "knowledge"
        and params.plan is not None
        and _SWITCH_TO.search(values.message)
        and not (values.what_if or values.how_to)
    ):
        return "live_data"  # "should I switch to EV2-A?": that plan against theirs, for their usage
    if (
        intent == "knowledge"
        and _PRICE_ASKED.search(values.message)
        and not (_about_a_car(values.message) or params.appliance or values.what_if or values.how_to)
    ):
        return "live_data"  # "what does duke charge at night", "what's a kwh cost around here": their prices
    if (
        intent == "knowledge"
        and params.monthly
        and _COST_ASKED.search(values.message)
        and re.search(r"\bcharg", values.message, re.I)
        and not values.how_to
    ):
        return "live_data"  # "how much would it cost us to charge one each month on duke": priced here
    return None


def _described_not_asked(values: Values) -> bool:
    """ "pool pump runs 8 hrs a day", "upgraded to a 40 amp charger this weekend": their home
    described, nothing asked of it. A request typed as a statement carries what it asks about (an
    hour, a level, miles, a size, a day, an appliance to time: "dishwasher tonight"); a description
    carries at most how long something runs, or a day the news happened on."""
    signals, params = values.signals, values.params
    return bool(
        (values.facts or (values.mentions and values.hedged))  # "pge or smud, not sure": said, unsure
        and not (values.question or values.asking or values.asks_action or signals.question_clause)
        and not (signals.deadline or signals.charge_level or signals.miles or signals.system_size)
        and not _WANTS_SOMETHING.search(values.message)
        # "and for a 10kw system", "and a 10kw one": the next size asked about, a follow-up
        and not _SIZE_FOR.search(values.message)
        and not re.match(r"\W*(?:and|&|or|what\s+about|how\s+about|same)\b", values.message, re.I)
        and (params.appliance is None or params.run_hours is not None)
        # ("added 4 more kw so it's 10 total now": a day beside news is when it happened)
        and (params.day is None or values.acquired)
    )


def _command_after_all(intent: str, values: Values) -> str | None:
    """What a correction or forget reading settles from the values."""
    if intent == "correction" and values.facts:
        return "correction"
    if intent == "forget" and {fact.field for fact in values.facts} & set(values.gone):
        return "profile_statement"  # "sold the bolt, its just the mach-e now": the new car replaces it
    return None


def _facts_in_quiet_words(intent: str, values: Values, context: ReadingContext) -> tuple[str, bool]:
    """Facts in a message the model read as small talk or a statement count as a statement ("thanks!
    btw we got 6 kW of solar"); a plain question beside them is still to be answered ("i'm paying 15
    cents, is that high"). Returns the intent and whether it is settled."""
    if not values.facts or intent not in _QUIET or intent == "goodbye":
        return intent, False
    return "profile_statement", not values.asks_plainly or bool(context.pending_slot)


def _asked_after_all(
    intent: str, prediction: Prediction, values: Values, context: ReadingContext
) -> str | None:
    """A request the model read as something else."""
    if intent == "profile_statement" and values.asks_plainly and not context.pending_slot:
        # "1960s ranch in pasadena, zero attic insulation … insulation or windows first", "what is
        # the CARE discount and would we qualify, family of 4 …": the facts are saved and the
        # question they end on is answered, however unsure the model was of it
        return prediction.runner_up if prediction.runner_up in _ANSWERS else "knowledge"
    if (
        intent == "profile_statement"
        and context.pending_slot
        and values.asks_plainly
        and not values.facts
        and (prediction.runner_up in _ANSWERS or context.last_intent == "live_data")
    ):
        # "and whats that cost me" while we wait for their ZIP: a question, not an answer to ours
        return prediction.runner_up if prediction.runner_up in _ANSWERS else "live_data"
    if (
        intent == "profile_statement"
        and values.question
        and not values.facts
        and not context.pending_slot
        and values.mentions
        and all(mention.reason == "question" for mention in values.mentions)
    ):
        # "what's EV-TOU-5", "whats e-tou-c": a plan (or a car, a utility) named only inside a
        # question is asked about, so there is nothing to save and the question is the message
        return prediction.runner_up if prediction.runner_up in _ANSWERS else "knowledge"
    params = values.params
    if (
        intent == "knowledge"
        and params.appliance_kw is not None
        and params.appliance is not None
        and (params.run_hours is not None or values.when_to_run or _COST_ASKED.search(values.message))
    ):
        # "how much to run a 1500 watt heater for 3 hours": their own figures, priced at their prices
        return "live_data"
    return None


def _rough_size_answer(slot_answer: SlotAnswer | None, values: Values) -> bool:
    return (
        slot_answer is not None
        and slot_answer.slot == "solar_size"
        and slot_answer.status == "skipped"
        and values.rough_kw is not None
        and values.params.system_kw is None
    )


def _gone_beside_facts(intent: str, values: Values, context: ReadingContext) -> list[str]:
    """ "we rent, no ev, electric baseboard heat": a statement that also says equipment went; the
    facts are saved and what went is removed in the same write (only the car the profile holds)."""
    stated = {fact.field for fact in values.facts}
    gone = [field for field in values.gone if field not in stated]
    if intent != "profile_statement" or not values.facts or not gone:
        return []
    held = context.known_fields.get("equipment.ev_model")
    if "equipment.ev_model" in gone and commands.another_car(values.gone_words or "", held):
        return [field for field in gone if not field.startswith("equipment.ev_")]
    return gone


# "we dont have solar here", "i don't own an ev": equipment said not to be theirs
_DENIED = re.compile(
    r"\b(?:we|i)\s+(?:don'?t|dont|do\s+not)\s+(?:actually\s+|really\s+|even\s+)?(?:have|own)\s+(?:any\s+|a\s+|an\s+)?(?P<what>[\w -]{2,30}?)"
    r"(?=\s*(?:$|[,.;!?]|\b(?:here|now|at\s+all|and|but|so|anymore|any\s+more)\b))",
    re.I,
)


def _denied_equipment(values: Values, context: ReadingContext) -> list[str]:
    """Equipment the profile holds that the message says they do not have: removed (a value said
    instead, such as "no home battery" as a fact, is saved as a statement, not removed here)."""
    if values.asking or values.facts:
        return []
    match = _DENIED.search(values.message)
    if match is None:
        return []
    held = context.known_fields
    return [
        field
        for field in commands.named_fields(match.group("what"))
        if field.startswith("equipment.") and held.get(field) not in (None, False)
    ]


# "to charge the car", "i mean for charging my ev": what the last request was for, said after it
_FOR_THE_CAR = re.compile(
    r"^\W*(?:(?:i\s+)?mean(?:t)?\s+|like\s+|no\s*,?\s+|it'?s\s+|its\s+)?(?:to|for)\s+(?:charg\w*|plug\w*\s+in)"
    r"(?:\s+(?:the|my|our)\s+\w+)?\W*$|"
    r"^\W*(?:(?:i\s+)?mean(?:t)?\s+|like\s+|no\s*,?\s+)?for\s+(?:the|my|our)\s+(?:car|ev|truck)\W*$",
    re.I,
)


def _purpose_of_last_request(values: Values, context: ReadingContext) -> Understanding | None:
    """ "whats cheapest tomorrow" then "to charge the car": the prices were asked for a charge, so
    the answer is the car's plan, ready by the usual morning (not a choice between a plan and an
    explanation)."""
    last = context.last_params
    if (
        last is None
        or context.last_intent != "live_data"
        or last.task not in ("prices", "appliance")
        or values.facts
        or not _FOR_THE_CAR.match(values.message)
    ):
        return None
    params = RequestParams(task="charging_plan")  # by the usual morning, the next one to come
    return Understanding(
        intent="live_data",
        topic="ev_charging",
        asks=True,
        question=f"{context.last_question or ''} {values.message}".strip(),
        params=params,
        confidence=0.9,
    )


def _number_changed_in_last_request(values: Values, context: ReadingContext) -> Understanding | None:
    """A number said in place of one the last live request used ("its 35% not 25", "not 7, 6:30"):
    the request again with that value changed; nothing in the profile is touched (it was never
    saved there), so it is not an undo."""
    last = context.last_params
    if values.swapped is None or values.facts or last is None or context.last_intent != "live_data":
        return None
    new, old = values.swapped
    saved = [
        value
        for value in context.known_fields.values()
        if isinstance(value, int | float) and not isinstance(value, bool) and float(value) == old
    ]
    if saved:
        return None  # "wait its 11.3 not 12.3" with 12.3 kW saved: the profile is corrected (a statement)
    named = [key for key, value in last.filled().items() if isinstance(value, int | float) and value == old]
    if not named and last.task == "charging_plan" and _MILES_SAID.search(values.message):
        # "actually its 50 miles not 35" after a plan that assumed a level: the range they need
        named = ["miles_needed"]
        last = last.model_copy(update={"miles_needed": float(old), "target_soc_pct": None})
    if len(named) != 1:
        return None
    try:
        params = last.model_copy(update={named[0]: type(getattr(last, named[0]))(new)})
        params = RequestParams.model_validate(params.model_dump())
    except (ValueError, TypeError):
        return None
    return Understanding(
        intent="live_data",
        topic=context.last_topic or TASK_TOPIC.get(last.task or "", "general"),  # type: ignore[arg-type]
        asks=True,
        question=context.last_question or values.message,
        params=params,
        follow_up=True,
        confidence=0.9,
    )


def _size_asked(
    params: RequestParams, values: Values, facts: list[StatedFact], context: ReadingContext
) -> RequestParams:
    """ "ok so what would 12 kw get me": a size named in an estimate asked for, not said to be
    theirs, is the size asked about; so is one they said they are considering just before ("thinking
    about 10kw", then "ok what would it make a year"), when they have no panels of their own."""
    if (
        params.task != "typical_solar"
        or params.system_kw is not None
        or _has(facts, "equipment.solar_capacity_kw")
    ):
        return params
    sized = _KW_SAID.search(values.message)
    if sized is None and "equipment.solar_capacity_kw" not in context.known_fields:
        earlier = context.said_before(values.message)[-2:]
        sized = next((found for text in reversed(earlier) if (found := _SIZE_CONSIDERED.search(text))), None)
    if sized is None:
        return params
    return params.model_copy(update={"system_kw": float(sized.group(1))})


# "thinking about 10kw", "got quoted 8.4 kw", "looking at a 7 kw system": a size considered, not owned
_SIZE_CONSIDERED = re.compile(
    r"\b(?:thinking|looking|considering|quoted|quote|pricing|getting\s+bids?|bids?)\b[^.?!]{0,30}?"
    r"(\d{1,2}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)\b(?!h)",
    re.I,
)


def _taken_as_theirs(intent: str, params: RequestParams, values: Values) -> list[StatedFact]:
    """A live request naming a ZIP code or a utility the profile has none for ("when's peak for
    ameren tmrw", "is it gonna freeze tonight in 55408"): a homeowner asking what their prices or
    weather are asks about their own home, and every fresh corpus's authors expect it kept. Saved
    and said so (undo takes it back); a solar size asked about ("what would 7 kW make in 85718")
    is a what-if, and a knowledge question ("does pge charge a fixed fee") keeps nothing."""
    if intent != "live_data" or params.system_kw is not None:
        return []
    return list(values.asked_facts)


def _has(facts: list[StatedFact], field: str) -> bool:
    return any(fact.field == field for fact in facts)


def _detail_for_last_explanation(
    intent: str, prediction: Prediction, values: Values, context: ReadingContext
) -> bool:
    """A statement with nothing to save, on the topic of the explanation we just gave: the user is
    adding to that question, which is answered again with their detail."""
    if (
        intent == "knowledge"
        and values.what_about
        and context.pending_slot is None
        and context.last_intent == "knowledge"
        and bool(context.last_question)
    ):
        return True  # "what about for lfp batteries" after "is it bad to charge to 100% every night"
    return (
        intent in ("profile_statement", "knowledge")
        and not values.question  # a statement: a new question is read on its own
        and context.pending_slot is None
        and context.last_intent == "knowledge"
        and bool(context.last_question)
        # nothing to save and on its topic; or facts said as context for it (saved too)
        and ((not values.facts and prediction.topic == context.last_topic) or values.adds_context)
        and not values.aside
        and not _TO_COME.search(values.message)  # "ok we're getting one installed in april": news, not detail
    )


def _aside_after_explanation(intent: str, values: Values, context: ReadingContext) -> bool:
    """A statement after an explanation that says nothing of their own home as it is ("we don't have
    panels, just curious", "my neighbor has two", "we're getting quotes next week"): acknowledged,
    not the explanation again."""
    return (
        intent == "knowledge"
        and values.aside
        and not (values.question or values.asking or values.what_about)
        and context.pending_slot is None
        and context.last_intent == "knowledge"
    )


_TO_COME = re.compile(
    r"\b(?:getting|buying|ordering|installing|adding|gonna\s+(?:get|buy)|going\s+to\s+(?:get|buy)|will\s+(?:get|buy)|"
    r"plan(?:ning)?\s+(?:to|on))\b",
    re.I,
)


def _unsure_detail_for_last_answer(intent: str, values: Values, context: ReadingContext) -> bool:
    """An unsure statement with nothing we can save, right after a live answer ("regular residential
    i think", "we're on the saver choice plan, not positive"): the user is telling us what the
    answer assumed; nothing is saved, and the answer is given again with that said."""
    return (
        intent == "profile_statement"
        and values.hedged
        and not values.facts
        and context.pending_slot is None
        and context.last_intent == "live_data"
        and context.last_params is not None
        and _a_usual_plan_to_try(context)  # (else the same answer again)
        # ("ok we're probably getting one. maybe two": a purchase to come, not what the answer assumed)
        and not _TO_COME.search(values.message)
        and all(mention.reason == "unverified" for mention in values.mentions)
    )


# "skip the utility", "pass on the plan": a skip that names the question it skips
_SKIP_NAMED = re.compile(
    r"\b(?:skip|pass\s+on|forget\s+about|never\s*mind|(?:i\s+)?(?:don'?t|dont|do\s+not)\s+know|idk|not\s+sure\s+(?:of|about))"
    r"\s+(?:the|my|our)\s+(?P<what>utility|power\s+company|plan|rate|zip|"
    r"location|address|car|ev|solar|panels?|system\s+size|size)\b",
    re.I,
)
_SKIPPED_SLOT = {
    "utility": "utility",
    "power": "utility",
    "plan": "rate_schedule",
    "rate": "rate_schedule",
    "zip": "location",
    "location": "location",
    "address": "location",
    "car": "ev",
    "ev": "ev",
    "solar": "solar_size",
    "panels": "solar_size",
    "panel": "solar_size",
    "size": "solar_size",
    "system": "solar_size",
}
_BARE_SKIP = re.compile(
    # ("idk", "not sure" to the plan the last answer asked for: the plan is what they do not know)
    r"^\W*(?:ok(?:ay)?\W+)?(?:skip|pass|no\s+thanks|rather\s+not|i'?ll\s+pass|nah|idk|dunno|not\s+sure|no\s+idea|no\s+clue)"
    r"(?:\s+(?:that|that\s+one|it|this\s+one|for\s+now|on\s+that))?\W*$",
    re.I,
)


_WEIGH_WORDS = re.compile(
    r"\b(?:cheaper|better|best|switch\w*|compare\w*|vs\.?|versus|worth|which|should|save|saving|cheapest)\b",
    re.I,
)
_PLAN_DOUBT = re.compile(
    r"\b(?:i\s+think|i\s+guess|i\s+believe|not\s+sure|not\s+100|maybe|probably|idk|dunno|some\s+kind\s+of)\b",
    re.I,
)


def _a_usual_plan_to_try(context: ReadingContext) -> bool:
    """Their utility (when we hold it) has a usual plan in the catalog, so an answer on it differs
    from the state-average one they already had."""
    held = context.known_fields.get("location.utility_provider")
    return held is None or usual_plan(str(held)) is not None


def _priced_without_plan(context: ReadingContext) -> bool:
    """The last answer was a price-based one made without their rate plan (so it asked for it)."""
    return (
        context.last_intent == "live_data"
        and context.last_topic in ("ev_charging", "rates")
        and "location.rate_schedule" not in context.known_fields
        # (a plan comparison we could not make priced nothing)
        and (context.last_params is None or context.last_params.task != "plan_comparison")
    )


def _slot_answer(prediction: Prediction, values: Values, context: ReadingContext) -> SlotAnswer | None:
    slot = context.pending_slot
    if values.plan_unknown and slot != "rate_schedule":
        return SlotAnswer(slot="rate_schedule", status="skipped")  # "idk the plan" before we asked
    if slot is None and _BARE_SKIP.match(values.message) and _priced_without_plan(context):
        # "skip that one" after an answer that asked for their plan: the plan is what they skip
        return SlotAnswer(slot="rate_schedule", status="skipped")
    if slot is None or slot not in SLOT_FIELDS:
        return None
    if any(fact.field in SLOT_FIELDS[slot] for fact in values.facts):
        return SlotAnswer(slot=slot, status="answered")
    if values.declines and set(values.named) & set(SLOT_FIELDS[slot]):
        return SlotAnswer(slot=slot, status="skipped")  # "Consumers Energy. Not giving you my address."
    if values.plain_answer and prediction.slot != "skipped" and (slot != "location" or values.place_query):
        return SlotAnswer(slot=slot, status="answered")  # a place name to look up
    status = prediction.slot if prediction.slot != "answered" else "not_answered"
    if status == "skipped" and prediction.slot_p < _SKIP_AT_LEAST:
        status = "not_answered"  # "the one with the blue logo": asked again, not skipped
    if prediction.slot == "answered" and values.hedged and not values.about_other_fields(slot):
        # "regular residential i think", "i think its e-tou-c but not sure": an unsure answer we
        # cannot keep is a "not sure" (however unsure the model was that it answered at all)
        status = "skipped"
    other = _other_slot_named(values, slot)
    skip = _SKIP_NAMED.search(values.message)
    named_skip = _SKIPPED_SLOT[skip.group("what").lower().split()[0]] if skip else None
    if (
        named_skip
        and named_skip != slot
        and not any(f.field in SLOT_FIELDS[named_skip] for f in values.facts)
    ):
        # "skip the utility, i'll check the bill later. it's a kia ev6" when we asked for the ZIP:
        # that question is skipped (and the car saved); ours still stands
        return SlotAnswer(slot=named_skip, status="skipped")  # type: ignore[arg-type]
    if status == "skipped" and other is not None and not (values.facts or values.mentions):
        # "idk who my utility is, i just moved" when we asked for the ZIP: the utility is what they
        # don't know; our question still stands
        return SlotAnswer(slot=other, status="skipped")  # type: ignore[arg-type]
    if (
        status == "skipped"
        and values.about_other_fields(slot)
        and not set(values.named) & set(SLOT_FIELDS[slot])
    ):
        # "idk what car, it's a bolt i think" when we asked for the ZIP (the doubt is the car's);
        # "rather not give my zip. its a kia niro ev" names the ZIP it skips
        status = "not_answered"
    return SlotAnswer(slot=slot, status=status)  # type: ignore[arg-type]


def _other_slot_named(values: Values, slot: str) -> str | None:
    """The one other onboarding question the words name when they do not name ours."""
    named = set(values.named)
    if not named or named & set(SLOT_FIELDS[slot]):
        return None
    others = [name for name, fields in SLOT_FIELDS.items() if name != slot and named & set(fields)]
    return others[0] if len(others) == 1 else None


def _params(prediction: Prediction, values: Values, intent: str) -> RequestParams:
    if intent != "live_data":
        return values.params
    if values.params.fuel_price_usd is not None:
        return values.params  # a heating comparison: the price said picks the tool, not a task
    task = prediction.task
    if values.params.size_needed:
        return values.params.model_copy(update={"task": "typical_solar"})  # the size their use needs
    if values.params.appliance_kw is not None and values.params.appliance is not None:
        task = "appliance"  # a run with the power they gave: priced from their figures
    elif _WHICH_PLAN.search(values.message) and not (values.signals.charge_level or values.signals.miles):
        # "which plan is best if i charge my kona overnight": the plan is asked, the car is why
        task = "plan_comparison"
    elif (
        (values.signals.charge_level or values.signals.miles)
        # ("storm makes landfall thursday. want the car at 100 by wed 8pm": the car's level, by then)
        and (
            _CHARGE_WORD.search(values.message) or (values.signals.deadline and _about_a_car(values.message))
        )
        and not values.home_battery_charge
    ):
        # "we got an ioniq 5 and a heat pump. whens the best time to charge it, need like 70% by
        # 7:15": a level to reach is the car's; the heat pump is a fact about the home
        return values.params.model_copy(update={"task": "charging_plan", "appliance": None})
    elif values.forecast_asked and not values.when_to_run:
        task = "weather"  # "3rd day over 105, whats the rest of the week look like"
    elif values.when_to_run:
        task = "appliance"  # "is it cheaper to run my dryer at night": a verdict, whatever else it mentions
    elif SWITCH_WEIGHED.search(values.message):
        task = "plan_comparison"  # "is that worth switching to hourly pricing for": which plan, for them
    elif _OUTPUT_ASKED.search(values.message) and task not in ("solar_forecast", "typical_solar"):
        # "how much are we gonna make today" after a question about rates: what the panels make
        task = "typical_solar" if values.params.typical_year else "solar_forecast"
    elif _PRICE_ASKED.search(values.message) and not _about_a_car(values.message) and task != "appliance":
        task = "prices"  # "what does duke charge at night": their prices, whatever kind the model guessed
    elif (
        _IS_THAT_CHEAPEST.search(values.message)
        and values.params.vehicle is None
        and not values.signals.charge_level
    ):
        # "my neighbor charges at like 2am, is that the cheapest time here": whether an hour is
        # cheap is read off their prices; no car's plan needed
        task = "prices"
    elif values.when_to_charge or (values.params.monthly and _CHARGE_WORD.search(values.message)):
        task = "charging_plan"  # ("what would charging one cost each month": the car's monthly cost)
    if (
        task in ("solar_forecast", "typical_solar")
        and values.params.appliance is not None
        and not (values.sun_words or values.signals.system_size or values.params.typical_year)
    ):
        # "running a space heater. how much is that costing me": the appliance named is what is
        # asked about, with no word of panels or sun
        task = "appliance"
    if task == "solar_forecast" and values.params.typical_year:
        task = "typical_solar"  # "what will my solar make this year": a year's output, not a day's
    elif (
        task == "typical_solar"
        and values.params.day is not None
        and values.params.system_kw is None
        and _OUTPUT_ASKED.search(values.message)
    ):
        task = "solar_forecast"  # "how much will it make today": that day's output, from the forecast
    if task == "appliance" and values.params.appliance is None:
        # "when's peak tomorrow": an appliance verdict needs an appliance; the next likeliest kind
        task = next((name for name in prediction.tasks if name != "appliance"), task)
    return _daily_miles_as_the_need(values.params.model_copy(update={"task": task}), values)


def _daily_miles_as_the_need(params: RequestParams, values: Values) -> RequestParams:
    """ "i drive about 40 miles a day and need the car charged by 7am": with no level asked for, the
    charge is the day's miles (it had planned 30 % to 80 %, about 110 miles)."""
    if (
        params.task != "charging_plan"
        or params.miles_needed is not None
        or params.target_soc_pct is not None
        or not params.ev_miles_per_month
        or not _A_DAY.search(values.message)
        or not (
            values.signals.deadline or _CHARGE_WORD.search(values.message)
        )  # a charge asked for, not usage
    ):
        return params
    return params.model_copy(update={"miles_needed": round(params.ev_miles_per_month * 12 / 365)})


_A_DAY = re.compile(r"\b(?:a|per|each|every)\s+day\b|\bdaily\b|/\s*day\b", re.I)


_CHARGE_WORD = re.compile(r"\bcharg(?:e|ed|ing)\b", re.I)
# a change of plan weighed: "is that worth switching to hourly pricing for", "should we switch to tou"
_WHICH_PLAN = re.compile(
    r"\b(?:which|what)\s+(?:rate\s+)?(?:plan|rate\s+plan|tariff)\s+(?:is|would\s+be|should|makes|'?s)\b"
    r"(?!\s+(?:i|we)\s+on\b)|\b(?:best|cheapest|right)\s+(?:rate\s+)?plan\s+(?:for|if|when|since|with)\b",
    re.I,
)
SWITCH_WEIGHED = re.compile(
    r"\b(?:worth|should\s+(?:i|we)|better\s+(?:to|off)|does\s+it\s+make\s+sense)\s+(?:\w+\s+){0,2}?"
    r"(?:switch(?:ing)?|mov(?:e|ing)|chang(?:e|ing)|go(?:ing)?)\s+(?:over\s+)?to\s+(?:\w+\s+){0,3}?"
    r"(?:plans?|pricing|rates?|tou|time[-\s]of[-\s]use|program)\b",
    re.I,
)
# "what do i actually pay during peak vs off peak on hawaiian electric": their own prices, asked
_THEIR_PEAK_PRICE_ASKED = re.compile(
    r"\bwhat\s+(?:do|would|will|does)\s+(?:i|we|it\s+cost\s+(?:me|us))\s+(?:actually\s+|really\s+)?(?:pay\s+)?"
    r"(?:during|at|for|in)\s+(?:the\s+)?(?:on[-\s]?|off[-\s]?)?peak\b",
    re.I,
)
# "how much would solar produce on my house", "how many kwh does my system make in a normal year":
# what their own home's panels make (a typical year), asked
_THEIR_OUTPUT_ASKED = re.compile(
    r"\bhow\s+(?:much|many\s+kwh)\b[^.?!]{0,30}\b(?:make|makes|produce|produces|generate|generates)\b"
    r"[^.?!]{0,30}\b(?:my|our)\s+(?:house|home|roof|place)\b|"
    r"\bhow\s+(?:much|many\s+kwh)\s+(?:does|will|would|do)\s+(?:my|our)\s+(?:system|panels|solar|array)\s+"
    r"(?:make|produce|generate)\b",
    re.I,
)
_OUTPUT_ASKED = re.compile(
    r"\b(?:how\s+much|what)\s+(?:will|are|is|would|do|does|did|can|should)\s+(?:we|it|they|i|(?:the|our|my)\s+"
    r"(?:panels|system|solar|array))\s+(?:gonna\s+|going\s+to\s+)?(?:make|produce|generate|put\s+out)\b"
    r"(?![^.?!]{0,20}\b(?:money|\$|dollars|bucks|back|credit|savings?)\b)",
    re.I,
)
# what makes a question lean on the last answer: "and", "what about", "instead", "it", "that" …
_FOLLOW_CUE = re.compile(
    r"^\W*(?:and|but|so|or)\b|\b(?:what\s+about|how\s+about|what\s+if|wait|instead|then|too|also|again|same|"
    r"it|that|this|"
    r"those|them|there)\b",
    re.I,
)


def _plans_not_asked(
    prediction: Prediction, intent: str, params: RequestParams, values: Values, context: ReadingContext
) -> bool:
    """The model's live task is a comparison of rate plans, but nothing in the message speaks of
    plans or rates (nor of their usage, which a comparison is redone with), it does not follow a
    comparison, and the model's next reading is a general question: its default for a question
    about money ("what temp should i set it to save money"), not a request for a comparison."""
    return (
        intent == "live_data"
        and prediction.runner_up == "knowledge"
        and params.task == "plan_comparison"
        and not values.about_plans
        and not values.signals.usage
        and not (context.last_params is not None and context.last_params.task == "plan_comparison")
        # "which of those would be cheaper for us" leans on what was said before: the model's reading stands
        and not (context.last_intent is not None and _FOLLOW_CUE.search(values.message))
    )


def _another_size(intent: str, values: Values, context: ReadingContext) -> bool:
    """ "and if we went 12?" after an estimate for 9.6 kW: the same estimate for that size."""
    last = context.last_params
    return (
        intent == "live_data"
        and context.last_intent == "live_data"
        and last is not None
        and last.system_kw is not None
        and values.bare_number is not None
        and 0 < values.bare_number <= 100
    )


def _asks_anew(message: str) -> bool:
    """ "whats time of use pricing and should i switch" after an appliance verdict: a question that
    opens with its own question word and leans on nothing said before (no "and", "what about",
    "it", "that" …) starts a new request."""
    return bool(QUESTION_START.match(message)) and not _FOLLOW_CUE.search(message)


_SKIPS = re.compile(
    r"^\W*(?:ok(?:ay)?\W+)?(?:skip|pass|next)(?:\s+(?:it|that|this|that\s+one|this\s+one|for\s+now))?\W*$",
    re.I,
)


def _plan_unknown_after_answer(intent: str, values: Values, context: ReadingContext) -> bool:
    """ "idk the plan" after a charging plan: that plan again on the usual plan, not a comparison
    of plans (which was then stuck to every follow-up) — when there is a usual plan to try; without
    one the answer would only be the same again, so the doubt is taken note of instead."""
    return (
        intent == "live_data"
        and _a_usual_plan_to_try(context)
        # ("skip that one", "pass" after an answer that said it did not know their plan's hours)
        and (values.plan_unknown or _SKIPS.match(values.message) is not None or values.declines)
        and not values.question  # "idk the plan, which one should i be on" asks for a comparison
        and context.last_intent == "live_data"
        and context.last_params is not None
        and context.last_params.task not in (None, "plan_comparison")
    )


_CORRECTION_FIRST = re.compile(r"^\W*(?:wait|no|nope|actually|sorry|oops|hmm+|correction)\b", re.I)


def _changed_in_the_follow_up(
    params: RequestParams, last: RequestParams, values: Values, facts: list[StatedFact]
) -> tuple[RequestParams, list[StatedFact]]:
    """What a follow-up changes in the last request beyond what the grammar reads on its own: the
    charge now, the miles, the size asked about (and a size asked about is never theirs)."""
    level = _LEVEL_NOW.search(values.message)
    said = (level.group(1) or level.group(2)) if level else None
    if last.task == "charging_plan" and values.params.current_soc_pct is None and said and int(said) <= 100:
        # "wait no its at 40" after a plan from 35 %: where the charge is now, put right
        params = params.model_copy(update={"current_soc_pct": float(said)})
    miles = _MILES_SAID.search(values.message)
    if (
        last.miles_needed is not None
        and values.params.miles_needed is None
        and miles
        and not values.signals.usage
    ):
        # "actually its more like 40 miles" after a plan for 60: the range asked for now
        params = params.model_copy(update={"miles_needed": float(miles.group(1))})
    sized = _KW_SAID.search(values.message)
    if (
        last.system_kw is not None
        and sized
        and (_SIZE_FOR.search(values.message) or not _has(facts, "equipment.solar_capacity_kw"))
    ):
        # "same thing but for 12kw", "ok so what would 10 kw get me" after 8 kW asked about: the
        # next size asked about, not theirs ("we actually have 5 kw" is theirs)
        params = params.model_copy(update={"system_kw": float(sized.group(1))})
        facts = [fact for fact in facts if fact.field != "equipment.solar_capacity_kw"]
    if last.system_kw is not None and values.bare_number is not None and 0 < values.bare_number <= 100:
        params = params.model_copy(update={"system_kw": values.bare_number})  # "and 10?" after 8 kW
        # "and for a 10kw system": the next size asked about, not theirs
        facts = [fact for fact in facts if fact.field != "equipment.solar_capacity_kw"]
    return params, facts


_LEVEL_NOW = re.compile(
    # ("its 6 now" may be the clock: a level is said "at 40" or "40%")
    r"\b(?:it'?s|its|it\s+is|car'?s|car\s+is|battery'?s|battery\s+is)\s+"
    # ("its at like 20": a level said roughly is the level)
    r"(?:(?:only\s+|sitting\s+|still\s+)?(?:at|on)\s+(?:like\s+|about\s+|around\s+|maybe\s+|~\s*)?(\d{1,3})\s*(?:%|percent)?|"
    r"(\d{1,3})\s*(?:%|percent))\s*(?:now|rn|right\s+now)?\W*$",
    re.I,
)


def _same_request_corrected(
    intent: str, params: RequestParams, values: Values, context: ReadingContext
) -> bool:
    """ "wait no its the overnight plan, the one with super cheap midnight to 6" right after a plan
    for 7:30 from 20 %: the same request, put right, not a new one without its deadline and level."""
    last = context.last_params
    return (
        intent == "live_data"
        and context.last_intent == "live_data"
        and last is not None
        and params.task == last.task
        and not (params.said().keys() - {"task"})
        and _CORRECTION_FIRST.match(values.message) is not None
    )


# the parameters a bare change of the plan names ("and if i wait till midnight to plug in?")
_PLAN_CHANGES = frozenset(
    {"plug_in_hour", "plug_in_minute", "ready_by_hour", "ready_by_minute", "ready_by_day", "target_soc_pct",
     "current_soc_pct", "miles_needed", "day", "tonight", "task"}
)  # fmt: skip


def _the_plan_before_an_aside(
    intent: str, params: RequestParams, values: Values, context: ReadingContext
) -> ReadingContext:
    """ "need 90% by 6:45 tmrw", then "whats a therm anyway", then "and if i wait till midnight to
    plug in?": the change is to the plan answered before the explanation, read against it as if it
    were the last request (it had been planned from scratch, 30 to 80 % by 7:00)."""
    if (
        intent != "live_data"
        or context.last_intent == "live_data"
        or context.earlier_live_params is None
        or not params.said()
        or set(params.said()) - _PLAN_CHANGES
        or (
            params.task
            and context.earlier_live_params.task
            and params.task != context.earlier_live_params.task
        )
        or values.facts
    ):
        return context
    return context.model_copy(
        update={
            "last_intent": "live_data",
            "last_topic": context.earlier_live_topic,
            "last_params": context.earlier_live_params,
        }
    )


def _is_follow_up(
    intent: str,
    params: RequestParams,
    context: ReadingContext,
    prediction: Prediction,
    only_when: bool,
    asks_anew: bool = False,
    weighs_switch: bool = False,
) -> bool:
    """Changes (or repeats) the last live request ("what about by 6am instead?", "and tomorrow?"),
    as the model reads it against the last request's topic; never a new appliance or a size."""
    last = context.last_params
    if intent != "live_data" or context.last_intent != "live_data" or last is None:
        return False
    if params.appliance and params.appliance != last.appliance:
        return False  # "and the dryer?" after the dishwasher: that appliance's own verdict
    if only_when:
        return True  # "and tmrw morning?": nothing names another kind of answer, only another time
    other = params.task != last.task if last.task else TASK_TOPIC.get(params.task or "") != context.last_topic
    if params.task and other and asks_anew and prediction.task_p >= _NEW_TASK_AT_LEAST:
        return False  # a question of its own, for another kind of answer (usage said with it or not)
    if params.task == "plan_comparison" and other and weighs_switch:
        return False  # "is that worth switching to hourly pricing for" after the prices: another plan weighed
    if any(getattr(params, key) is not None for key in _USAGE):
        return True  # "we use about 700 kWh a month": the last answer again, with their usage
    if params.task and other and prediction.task_p >= _SURE_TASK:
        return False  # "when's peak tomorrow" after a dryer verdict: the prices, a new request
    if (
        last.task == "plan_comparison"
        and params.task in ("charging_plan", "appliance", "prices")
        and prediction.task_p >= _LIKELY_TASK
    ):
        # "so whens cheapest to charge now" after the plans compared: a comparison of plans has no
        # hour to change, so hours asked for are a request of their own ("and with solar?" still
        # changes the comparison)
        return False
    return prediction.follow == "same"


def _heating_compared_again(
    values: Values, facts: list[StatedFact], context: ReadingContext
) -> RequestParams | None:
    """The last heating comparison with what this message changes in it (a fuel price, the
    furnace's efficiency, the price of electricity, or their flat price per kWh saved now)."""
    last = context.last_params
    if context.last_intent != "live_data" or last is None:
        return None
    changes = heating_changes(values.message, last)
    if not changes and not (
        last.fuel_price_usd is not None and _has(facts, "location.flat_rate_usd_per_kwh")
    ):
        return None
    return last.model_copy(update=changes)


def _alternative(prediction: Prediction, intent: str) -> str | None:
    """The other reading, when the model is torn between a plan and an explanation."""
    if (
        intent in _ANSWERS
        and intent == prediction.intent  # a reading the rules settled is not asked about
        and prediction.runner_up in _ANSWERS
        and prediction.runner_up != intent
        and prediction.intent_p < CLARIFY_BELOW
        and prediction.runner_up_p >= _RUNNER_UP_AT_LEAST
    ):
        return prediction.runner_up
    return None


def stated_facts(
    conversation: list[dict[str, object]], known: dict[str, object] | None = None
) -> list[dict[str, object]]:
    """ExtractedFact-shaped dicts for user messages [{turn, text}]: the offline memorizer's reading
    and the trace's record of what the user stated (values as text, as the memorizer returns them).
    Read whole, as a turn is ("ok switch me to ev-tou-5" asks a deed and states no plan; an
    off-topic question's town is not theirs), never from the grammar's values alone."""
    found: list[dict[str, object]] = []
    for item in conversation:
        turn, text = int(str(item["turn"])), str(item["text"])
        for fact in understand(text, ReadingContext(known_fields=dict(known or {}))).facts:
            value = fact.value
            found.append(
                {
                    "field": fact.field,
                    "new_value": ("true" if value else "false") if isinstance(value, bool) else str(value),
                    "confidence": fact.confidence,
                    "source_turn": turn,
                    "source_text": fact.words or text[:2000],
                }
            )
    return found


__all__ = [
    "CLARIFY_BELOW",
    "LearnedReader",
    "command_reading",
    "Understander",
    "compose",
    "read",
    "stated_facts",
    "understand",
]
