"""The rule reader: one message -> one `Understanding`, without a language model (offline mode).

It separates what the user states about themself (saved at once) from what they ask (answered),
reads the answer to the question we asked, "remember / forget / undo", and a follow-up that
changes one parameter of the previous request ("what about by 6am instead?").
"""

from __future__ import annotations

import re
from typing import Protocol

from langchain_core.runnables import RunnableConfig

from advisor.intent import classify, topic_of
from advisor.onboarding import utility_for_zip
from advisor.understanding.facts import facts_in, place_phrase
from advisor.understanding.models import (
    WEEKDAYS,
    Mention,
    ReadingContext,
    RequestParams,
    SlotAnswer,
    StatedFact,
    Understanding,
)
from advisor.understanding.params import read_params
from advisor.understanding.text import clauses, clean

SLOT_FIELDS = {
    "location": ("location.zip_code", "location.city"),
    "utility": ("location.utility_provider",),
    "rate_schedule": ("location.rate_schedule", "location.flat_rate_usd_per_kwh"),
    "ev": ("equipment.ev_model", "equipment.ev_battery_kwh"),
    "solar_size": ("equipment.solar_capacity_kw",),
}

_GOODBYE = re.compile(
    r"^\s*(?:ok(?:ay)?[,!. ]+)?(?:thanks?(?:\s+you)?[,!. ]+)?(?:bye|goodbye|good\s*bye|see\s+(?:you|ya)|"
    r"that'?s\s+all(?:\s+for\s+now)?|cya|ttyl|i'?m\s+done|gotta\s+go|talk\s+(?:to\s+you\s+)?later|"
    r"(?:alright|ok(?:ay)?)[,!.]?\s+later|later|laters|catch\s+you\s+later)\b",
    re.I,
)
_REMEMBER = re.compile(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?(?:remember|note|save|keep\s+in\s+mind|make\s+a\s+note)"
    r"(?:\s+(?:that|this))?\s*[:,-]?\s*",
    re.I,
)
_FORGET = re.compile(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?(?:forget|delete|remove|erase|clear|drop)\s+(?P<what>.+?)\s*[.!?]*$",
    re.I,
)
_UNDO = re.compile(
    r"^\s*(?:(?:no|nope|nah)[,.!]?\s+)?(?:that'?s|that\s+is|this\s+is|thats)\s+(?:wrong|not\s+right|incorrect|not\s+true|not\s+correct)\b|"
    r"^\s*(?:undo|scratch\s+that|cancel\s+that|take\s+that\s+back|wrong)\b|^\s*that'?s\s+not\s+what\s+i\s+(?:said|meant)\b|^\s*(?:no[,.!]?\s+)?you\s+got\s+(?:it|that)\s+wrong\b",
    re.I,
)
_SKIP = re.compile(
    r"^\s*(?:skip|pass|later|next|no\s+idea|not\s+sure|unsure|dunno|idk|i\s+don'?t\s+know|don'?t\s+know|"
    r"i'?m\s+not\s+sure|no\s+clue|rather\s+not(?:\s+say)?|prefer\s+not(?:\s+to\s+say)?|none\s+of\s+your\s+business|"
    r"(?:i\s+)?don'?t\s+have\s+(?:one|it|that|any)|n/?a|none|nope|no)\b",
    re.I,
)
# Subjects only the knowledge base answers (a question about them is an explanation, not a plan)
_KNOWLEDGE_SUBJECT = re.compile(
    r"\b(?:rebates?|incentives?|tax\s+(?:credits?|breaks?)|credits?|grants?|subsid(?:y|ies)|programs?)\b",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:them|it|they|those|these|that|one)\b", re.I)
# "idk the plan", "not sure what plan we're on", "no idea about our tariff": the user does not know
# their rate plan (a skip of that question, whether or not we asked it yet)
_PLAN_UNKNOWN = re.compile(
    r"\b(?:idk|dunno|no\s+idea|not\s+sure|unsure|(?:i\s+)?(?:don'?t|do\s+not)\s+know)\b[^.?!]{0,25}?"
    r"\b(?:rate\s+plan|plan|tariff|rate\s+schedule)\b"
    r"|\b(?:rate\s+plan|plan|tariff)\b[^.?!]{0,15}?\b(?:idk|dunno|no\s+idea|not\s+sure|unsure|don'?t\s+know)\b",
    re.I,
)
# "what about the dishwasher?", "and the dryer?", "how about laundry": the same kind of question, for
# another appliance (read with `params.appliance`)
_APPLIANCE_NEXT = re.compile(
    r"^\s*(?:(?:and|or|ok(?:ay)?,?)\s+(?:(?:what|how)\s+about\s+)?|(?:what|how)\s+about\s+)"
    r"(?:the\s+|my\s+|our\s+|a\s+)?(?:dryer|dish\s*washer|washer|washing\s+machine|laundry|oven|pool\s+pump|"
    r"water\s+heater|hot\s+tub|space\s+heater|stove)(?:\s+(?:then|now|too|instead))?\s*[?.!]*\s*$",
    re.I,
)
_FOLLOW_UP = re.compile(
    r"^\s*(?:and\s+|ok(?:ay)?[,]?\s+|so\s+)?(?:what|how)\s+about\b|^\s*and\s+(?:if|what\s+if|by|for|with|to|at)\b|"
    r"\binstead\b|^\s*what\s+if\b|^\s*(?:and\s+)?(?:if\s+)?(?:i|we)\s+only\s+need\b|^\s*(?:only|just)\s+\d|"
    r"^\s*(?:ok(?:ay)?[,]?\s+)?(?:and\s+)?(?:by|before|until)\s+\d|^\s*same\s+(?:but|for)\b|"
    r"^\s*(?:and|or|what\s+about|how\s+about)?\s*(?:on\s+|for\s+)?(?:today|tonight|tomorrow|now|this\s+weekend|"
    r"(?:this\s+|next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s*\??\s*$|"
    # "in 30 minutes", "and in an hour and a half?"
    r"^\s*(?:ok(?:ay)?[,]?\s+)?(?:and\s+|or\s+|but\s+)?(?:(?:i\s+)?need\s+it\s+)?(?:in|within)\s+(?:about\s+)?(?:an?|half|\d|one|two|three|four|five|six)\b[^?.!]{0,30}[?.!]?\s*$|"
    r"^\s*(?:ok(?:ay)?[,]?\s+)?(?:make|change)\s+(?:it|that)\b",
    re.I,
)
# "prices on thursday?", "and the rates for tomorrow?" after a prices question
_PRICES_ON = re.compile(
    r"^\s*(?:and\s+|what\s+about\s+|how\s+about\s+)?(?:the\s+)?(?:prices?|rates?)\s+(?:on|for)\s+"
    r"(?:today|tonight|tomorrow|(?:this\s+|next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s*\??\s*$",
    re.I,
)
# "same question", "again?", "try again": the last request as it was (after a correction, say)
_SAME_AGAIN = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|now|then)[,]?\s+)?(?:(?:same\s+(?:question|thing|one|request)(?:\s+(?:again|as\s+before|then|now))?)|"
    r"(?:ask(?:ing)?\s+)?again|try\s+(?:it\s+|that\s+)?again|redo\s+(?:it|that)|re-?run\s+(?:it|that)|"
    r"(?:what\s+about\s+)?now\s+with\s+that|one\s+more\s+time)\s*[.!?]*\s*$",
    re.I,
)
# Money questions about when to charge ("how much would I save by charging at night", "what's cheaper,
# charging at 3pm or 11pm?", "I charged from 1am to 6am, how much did I save?"): priced with their
# rates by a charging plan, not a knowledge passage.
_CHARGING_MONEY = re.compile(
    r"\b(?:how\s+much\b[^.?!]{0,30}\b(?:save|saving|savings|cost|spend|pay)|save|saving|savings|cheaper|cheapest|costs?\s+(?:less|more)|"
    r"(?:more|less)\s+expensive)\b",
    re.I,
)
_CHARGING_WORDS = re.compile(r"\b(?:charg(?:e|es|ed|ing)|plug(?:ged|ging)?\s+in)\b", re.I)
_CHARGING_TIME = re.compile(
    r"\b(?:at\s+night|overnight|tonight|last\s+night|(?:during|in)\s+the\s+day|daytime|morning|afternoon|evening|"
    r"off[-\s]?peak|on[-\s]?peak|peak|midnight|noon|\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?))\b",
    re.I,
)
# A charge level or deadline stated after a charging plan: re-plan with it ("it's at 10% right now").
_CHARGING_PARAMS = ("current_soc_pct", "target_soc_pct", "ready_by_hour", "ready_in_minutes", "miles_needed")
# What the household uses: describes the home, not one question, so it stays for the thread's later questions
_USAGE_PARAMS = ("ev_miles_per_month", "house_kwh_per_month", "ev_kwh_per_month")
_DEADLINE_PARAMS = ("ready_by_hour", "ready_by_minute", "ready_by_day", "ready_in_minutes", "tonight")
# "we don't have solar anymore", "we sold the Tesla": equipment that is gone is removed.
_NO_LONGER = re.compile(
    r"^\s*(?:(?:actually|oh|well|so)[, ]+)?(?:i|we)\s+(?:(?:no\s+longer)\s+(?:have|own|drive|use)|"
    r"(?:don'?t|do\s+not)\s+(?:have|own|drive|use)(?=.*\b(?:anymore|any\s+more|now)\b)|"
    r"(?:just\s+)?(?:sold|got\s+rid\s+of|removed|returned|traded\s+in))\s+(?:a\s+|an\s+|the\s+|any\s+|our\s+|my\s+)?"
    r"(?P<what>solar(?:\s+panels)?|panels|ev|car|tesla|bolt|leaf|home\s+battery|battery|powerwall|heat\s+pump)\b"
    r"(?!.*\?)",
    re.I,
)
_WH_QUESTION = re.compile(r"^\s*(?:what|which|how|why|who|does|do|is|are|can|could|should\s+i\s+get)\b", re.I)
# "actually …", "no wait, 94107", "sorry I meant a Model X": a correction that states the right value
_CORRECTING = re.compile(
    r"^\s*(?:actually|no\s+wait|wait|sorry|oops|correction|i\s+meant|wrong\s+\w+|my\s+bad|typo|"
    r"(?:no|nope|nah)[,.!]?\s+(?:that'?s|it'?s|thats)\s+(?:not|wrong))\b",
    re.I,
)
_INSTALL = re.compile(
    r"\b(?:cost|costs|price)\s+to\s+(?:install|put\s+in|add|upgrade)\b|\binstall(?:ation|ing)?\s+cost", re.I
)
_LIVE_EXTRA = re.compile(
    r"\bgood\s+time\s+to\b|\bwill\s+it\s+(?:rain|snow|be\s+(?:sunny|cloudy|hot|cold|windy))\b|"
    r"\b(?:is\s+it\s+going\s+to|gonna)\s+(?:rain|snow|be\s+(?:sunny|cloudy|hot|cold|windy))\b|"
    r"\b(?:power|electricity)\s+(?:right\s+)?now\b|\bhow\s+much\s+is\s+(?:power|electricity)\b|"
    r"\b(?:run|start|use)\s+the\s+[\w ]{2,20}\s+(?:now|later|tonight|today|tomorrow)\b|\bnow\s+or\s+later\b|"
    r"\b(?:what'?s|whats|what\s+is|how'?s|hows|how\s+is)\s+the\s+weather\b|"
    r"\bweather\s+(?:like|looking|today|tonight|tomorrow|forecast|this\s+week)\b|\bforecast\s+for\b",
    re.I,
)
# "when should I do laundry?", "is it worth running the dryer?": when to run an appliance, a live question
_WHEN_TO_RUN = re.compile(
    r"\bwhen\s+(?:should|can)\b|\b(?:good|best|cheapest|right)\s+time\b|\bworth\s+(?:running|doing|using|starting)\b|"
    r"\bshould\s+(?:i|we)\s+(?:run|do|start|use|put\s+on|wait)\b|\b(?:better|cheaper|smarter)\s+to\s+(?:run|do|start|use)\b",
    re.I,
)
_SMALLTALK = re.compile(
    r"^\s*(?:ty|thx|thanks|thank\s+you|cool|great|awesome|perfect|nice|got\s+it|ok(?:ay)?|sounds\s+good|"
    r"super\s+helpful|helpful|appreciate\s+it)\b",
    re.I,
)
_PROFILE_QUESTION = re.compile(
    r"\bwhat\s+do\s+you\s+(?:know|remember|have)\s+(?:about|on)\s+me\b|\bwhat(?:'s|\s+is)\s+in\s+my\s+profile\b|"
    r"\b(?:what|which)\s+(?:\w+\s+){0,2}(?:am\s+i\s+on|do\s+i\s+have|do\s+you\s+have\s+(?:for\s+me|on\s+file))\b|"
    r"\bwhat(?:'s|\s+is)\s+my\s+(?:zip|city|utility|plan|rate\s+plan|car|ev|charger|solar|battery)\b|"
    r"\b(?:do\s+you\s+have|you\s+have)\s+(?:saved|on\s+file|stored)\b|\baccording\s+to\s+you\b|\bsaved\s+for\s+me\b|"
    r"\bdo\s+you\s+think\s+i\s+(?:drive|have|use|live)\b|\bhave\s+me\s+(?:down|as)\b|\bdo\s+you\s+have\s+me\b",
    re.I,
)
_UTILITY_WORDS = re.compile(
    r"\b(?:electric|power|energy|utility|utilities|light|edison|coop|co-op|cooperative|municipal|city\s+of|pud|emc|public\s+service)\b",
    re.I,
)

# "forget my X" -> the fields X names (a place is all of its parts).
_FORGET_TARGETS = [
    (r"zip|postcode|postal", ("location.zip_code",)),
    (
        r"city|location|address|where\s+i\s+live|town|place",
        (
            "location.zip_code",
            "location.city",
            "location.lat",
            "location.lon",
            "location.timezone",
        ),
    ),
    (r"utility|provider|power\s+company", ("location.utility_provider",)),
    (
        r"price|prices|(?:rate|price)\s+(?:i|we)\s+pay|what\s+(?:i|we)\s+pay|per\s+kwh|cents|flat\s+rate",
        ("location.flat_rate_usd_per_kwh",),
    ),
    (r"plan|rate|tariff|schedule\s+code", ("location.rate_schedule",)),
    (r"charger|charging\s+speed", ("equipment.ev_charger_kw",)),
    (
        r"home\s+battery|powerwall|battery\s+storage|storage",
        ("equipment.has_battery_storage", "equipment.battery_capacity_kwh"),
    ),
    (r"ev|car|vehicle|tesla|model|bolt|leaf", ("equipment.ev_model", "equipment.ev_battery_kwh")),
    (r"battery", ("equipment.has_battery_storage", "equipment.battery_capacity_kwh")),
    (r"solar|panels?", ("equipment.solar_capacity_kw",)),
    (r"heating|heat\s+pump|furnace|heat", ("equipment.heating_type",)),
    (r"cooling|ac|a/c|air\s+conditioning", ("equipment.cooling_type",)),
    (r"work|job|schedule", ("household.work_schedule",)),
    (r"household|people|occupants|family", ("household.occupants",)),
    (r"usage|habits", ("household.typical_usage_pattern",)),
    (
        r"preferences?|priorities",
        ("preferences.budget_priority", "preferences.comfort_priority", "preferences.green_priority"),
    ),
]


class Understander(Protocol):
    def understand(
        self, text: str, context: ReadingContext, config: RunnableConfig | None = None
    ) -> Understanding: ...


class RuleUnderstander:
    """Deterministic reading for offline mode (and the fallback when a model's reading fails)."""

    def understand(
        self, text: str, context: ReadingContext, config: RunnableConfig | None = None
    ) -> Understanding:
        return understand(text, context)


# "Which plan is cheapest for me?", "should I switch to E-ELEC?", "compare plans": a year priced on
# each plan of the user's utility (the compare_rate_plans tool), not a knowledge passage.
PLAN_CHOICE = re.compile(
    r"\b(?:which|best|cheapest|cheaper|better|right|lowest)\b[^.?!]*\b(?:rate\s+)?plans?\b|"
    r"\bswitch(?:ing)?\s+(?:to\s+)?(?:(?:a|the|another|different)\s+)?(?:rate|plan|e-?elec|ev2-?a|e-?tou)|"
    r"\bcompare\b[^.?!]*\bplans?\b|\bplans?\b[^.?!]*\bcheapest\b|"
    r"\b(?:e-?elec|ev2-?a|e-?tou-?c|ev-?tou-?5)\b[^.?!]*\b(?:better|cheaper|worth\s+it|save\s+(?:me\s+)?money)\b",
    re.IGNORECASE,
)


def is_command(reading: Understanding) -> bool:
    """The unambiguous commands the rules settle without a model: goodbye, forget, undo."""
    return reading.intent == "forget" or reading.undo or (reading.intent == "goodbye" and not reading.facts)


def understand(text: str, context: ReadingContext | None = None) -> Understanding:
    context = context or ReadingContext()
    message = clean(text)
    remember = bool(_REMEMBER.match(message)) and not re.match(
        r"^\s*(?:do|did)\s+you\s+remember", message, re.I
    )
    body = _REMEMBER.sub("", message, count=1) if remember else message

    forget = _FORGET.match(body)
    if forget and not remember:
        what = forget.group("what").lower()
        if re.fullmatch(r"(?:it|that|this|what\s+i\s+(?:just\s+)?said)", what.strip()):
            return Understanding(intent="correction", undo=True)
        if re.search(
            r"\b(?:everything|all(?:\s+of\s+it)?|my\s+(?:whole\s+)?profile|all\s+my\s+data|about\s+me|me)\b",
            what,
        ):
            return Understanding(intent="forget", forget_everything=True)
        fields = _forget_fields(what)
        if fields:
            return Understanding(intent="forget", forget=fields)

    gone = _NO_LONGER.search(body)
    if gone and not remember:
        fields = _forget_fields(gone.group("what"))
        if fields:
            return Understanding(intent="forget", forget=fields, confidence=0.8)

    found = clauses(body)
    usual = utility_for_zip(str(context.known_fields.get("location.zip_code") or "") or None)
    facts, mentions = facts_in(
        found,
        message=body,
        pending_slot=context.pending_slot,
        # only a short answer ("sdge i guess"), not an opinion ("I guess sdge is expensive")
        suggested={"location.utility_provider": usual} if usual and len(body.split()) <= 4 else None,
    )
    hedged = any(clause.hedged for clause in found)
    undo = bool(_UNDO.match(body)) and not facts

    slot_answer, place_query = _slot_answer(
        body, context, [f.field for f in facts], hedged, elsewhere=[m.field for m in mentions]
    )
    if place_query is None and not any(f.field.startswith("location.") for f in facts):
        place_query = next(
            (
                phrase
                for clause in found
                if clause.about_user and not clause.hedged and (phrase := place_phrase(clause.text))
            ),
            None,
        )
    if (
        slot_answer is not None
        and slot_answer.slot == "utility"
        and slot_answer.status == "answered"
        and not facts
    ):
        name = body.strip().strip(".!")
        facts = [
            StatedFact(
                field="location.utility_provider", value=name, said=name, words=body[:500], confidence=0.7
            )
        ]

    questions = [clause.text for clause in found if clause.question]
    question_text = " ".join(questions) if questions else None
    params = read_params(body)  # "I'm at 20% now" may be its own sentence beside the question

    if _GOODBYE.match(body) and len(body.split()) <= 10 and not questions:
        return Understanding(
            intent="goodbye", facts=facts, mentions=mentions, remember=remember, hedged=hedged, params=params
        )
    if undo:
        return Understanding(intent="correction", undo=True)

    if _PROFILE_QUESTION.search(body) and questions:
        return Understanding(
            intent="profile_query", asks=True, question=question_text, facts=facts, mentions=mentions
        )

    if context.last_intent == "live_data" and _is_follow_up(body, params, questions, context):
        merged = follow_up_params(params, context.last_params or RequestParams())
        return Understanding(
            intent="live_data",
            topic=context.last_topic or "general",  # type: ignore[arg-type]
            asks=True,
            question=question_text or body,
            facts=facts,
            mentions=mentions,
            params=merged,
            follow_up=True,
            remember=remember,
            hedged=hedged,
            confidence=0.8,
        )

    params = with_household_usage(
        params, context
    )  # "we use 700 kWh a month" said earlier in the thread still holds
    plan_request = (
        params.ready_by_hour is not None
        or params.target_soc_pct is not None
        # "I need the car ready in 1 hour": a deadline from now, for the car ("in 30 minutes" alone is not a request)
        or (
            params.ready_in_minutes is not None
            and (params.current_soc_pct is not None or classify(body).topic == "ev_charging")
        )
    )
    if question_text and hedged and not _WH_QUESTION.match(question_text):
        question_text = None  # "our plan might be EV2-A? not sure" is an unsure statement, not a question
    if question_text and not re.search(r"[A-Za-z]", question_text):
        question_text = None  # "???"
    if question_text:
        result = classify(question_text)
        intent, confidence, topic = result.intent, result.confidence, result.topic
        if topic == "general":
            topic = classify(body).topic  # "12 kW solar here, what will production look like today?"
            if (
                intent != "live_data"
                and topic != "general"
                and re.search(r"\b(?:today|tonight|tomorrow|now)\b", question_text, re.I)
            ):
                intent, confidence = "live_data", 0.8
        hypothetical = any(c.hypothetical for c in found if c.question) or bool(
            re.match(r"^\s*(?:if|would|could)\b", question_text, re.I)
        )
        if PLAN_CHOICE.search(question_text):  # "would E-ELEC be cheaper?" is a real question, not a what-if
            intent, confidence, topic = (
                "live_data",
                0.85,
                "rates",
            )  # "which plan is cheapest for me?": priced per plan
        elif (
            params.appliance
            and (
                params.day
                or params.ready_by_hour is not None
                or _WHEN_TO_RUN.search(question_text)
                or _APPLIANCE_NEXT.match(body)  # "what about the dishwasher", "and the dryer?"
            )
            and topic in ("home", "rates", "general")
            and not _INSTALL.search(question_text)
        ):
            # "will the space heater cost a lot tonight?", "when should I do laundry?", "dishwasher before 10pm?"
            intent, confidence, topic = "live_data", 0.8, "rates"
        elif (
            plan_request and topic in ("ev_charging", "general") and not hypothetical and not params.appliance
        ):
            # "charge from 20% to 90% by 6am?", "how long to get to 90%?" ask for a charging plan
            intent, confidence, topic = "live_data", 0.85, "ev_charging"
        elif (
            _CHARGING_MONEY.search(question_text)
            and _CHARGING_WORDS.search(body)
            and _CHARGING_TIME.search(body)
            and not re.match(r"^\s*(?:why|explain)\b", question_text, re.I)
            and not _INSTALL.search(question_text)
            and not params.appliance
        ):
            # "how much would I save by charging at night?": their prices and a charging plan answer it
            intent, confidence, topic = "live_data", 0.8, "ev_charging"
        elif _INSTALL.search(question_text) or (hypothetical and intent == "live_data"):
            intent, confidence = "knowledge", 0.75  # what things cost to install, what-ifs: explanations
        elif intent != "live_data" and _LIVE_EXTRA.search(question_text):
            intent, confidence = (
                "live_data",
                0.8,
            )  # "good time to run the washing machine?", "will it rain tomorrow?"
            topic = (
                "weather"
                if re.search(r"\b(?:rain|snow|sunny|cloudy|wind\w*|weather)\b", question_text, re.I)
                else "rates"
            )
        elif (
            intent == "live_data"
            and confidence < 0.7
            and params.ready_by_day in WEEKDAYS
            and topic in ("rates", "ev_charging", "solar")
        ):
            confidence = 0.8  # "prices on thursday?": a day named is a live question
        elif intent == "live_data" and confidence < 0.7 and _WH_QUESTION.match(question_text):
            intent, confidence = "knowledge", 0.7  # "what rate plans does Con Ed have?"
        if params.system_kw is not None and not params.appliance and not re.search(r"\bwhy\b", body, re.I):
            # "how much would a 6 kW system make here?": a typical-year estimate for that size (PVWatts),
            # a live answer even as a what-if; the size is the question's, never saved
            intent, confidence, topic = "live_data", 0.85, "solar"
        if intent in ("profile_statement", "smalltalk", "goodbye", "unclear") and (
            question_text.rstrip().endswith("?") or len(question_text.split()) >= 4
        ):
            intent, confidence = "knowledge", 0.7 if topic != "general" else 0.5
        if intent == "knowledge" and confidence < 0.7 and len(question_text.split()) >= 8 and "?" in body:
            confidence = 0.7  # a whole question is answered from the knowledge base, not met with "plan or explanation?"
        if (
            intent == "knowledge"
            and topic == "general"
            and context.last_topic
            and _PRONOUN.search(question_text)
        ):
            topic = context.last_topic  # "are there rebates for them?" after an answer about heat pumps
        if intent == "knowledge" and confidence < 0.7 and _KNOWLEDGE_SUBJECT.search(question_text):
            confidence = 0.75  # rebates and credits are explained from the knowledge base, never a plan
        result = result.model_copy(update={"topic": topic})
        return Understanding(
            intent=intent,
            topic=result.topic,
            asks=True,
            question=question_text,
            facts=facts,
            mentions=mentions,
            slot_answer=slot_answer,
            params=params,
            remember=remember,
            hedged=hedged,
            confidence=confidence,
            place_query=place_query,
        )
    if (
        plan_request
        and not facts
        and not remember
        and not params.appliance
        and classify(body).topic in ("ev_charging", "general")
    ):
        # "It's at 30% and I want 80% by 7am." asks for a charging plan without a question mark
        return Understanding(
            intent="live_data", topic="ev_charging", asks=True, question=body, params=params, confidence=0.8
        )
    if facts or remember or place_query or (slot_answer is not None and slot_answer.status != "not_answered"):
        return Understanding(
            intent="correction" if facts and _CORRECTING.match(body) else "profile_statement",
            topic=classify(body).topic,
            facts=facts,
            mentions=mentions,
            slot_answer=slot_answer,
            params=params,
            remember=remember,
            hedged=hedged,
            place_query=place_query,
        )
    if not facts and not mentions and any(c.someone_else for c in found):
        # "my brother has solar": nothing to read, but say why nothing was kept
        mentions = [
            Mention(field="", words=c.text[:500], reason="someone_else") for c in found if c.someone_else
        ]
    result = classify(body)
    intent = result.intent
    if not question_text and _SMALLTALK.match(body) and len(body.split()) <= 6:
        intent = "smalltalk"
    elif not question_text and (
        mentions
        or any(c.someone_else or c.hypothetical or c.hedged for c in found)
        or re.match(r"^\s*(?:i|we|my|our|i'?m|we'?re|it'?s\s+me)\b", body, re.I)
    ):
        intent = (
            "profile_statement"  # about someone else, unsure, or nothing we keep: say why nothing was saved
        )
    elif intent == "profile_statement":
        intent = "unclear"
    return Understanding(
        intent=intent,
        topic=result.topic,
        asks=intent in ("live_data", "knowledge"),
        question=body if intent in ("live_data", "knowledge") else None,
        mentions=mentions,
        slot_answer=slot_answer,
        params=params,
        hedged=hedged,
        confidence=result.confidence,
    )


def _is_follow_up(body: str, params: RequestParams, questions: list[str], context: ReadingContext) -> bool:
    """Changes (or repeats) the last request: "what about by 6am instead?", "same question",
    "it's at 10% right now" after a charging plan, "we use about 700 kWh a month"."""
    if _SAME_AGAIN.match(body):
        return True
    if params.appliance and context.last_topic != "rates":
        return False  # "what about the dishwasher" after a charging plan: a new appliance question
    if (
        params.appliance
        and context.last_params is not None
        and params.appliance != context.last_params.appliance
    ):
        return False  # "and the dryer?" after the dishwasher: that appliance's own verdict
    if _FOLLOW_UP.search(body) and _new_subject(body, params, context):
        return False  # "what about heat pumps?" after a charging plan: a new question, not the plan again
    if _FOLLOW_UP.search(body) and (params.filled() or questions):
        return True
    if _PRICES_ON.match(body):
        return context.last_topic == "rates"  # after a charging plan it is a new prices question
    if questions:
        return False
    if any(getattr(params, key) is not None for key in _USAGE_PARAMS):
        return True  # usage stated after a question: re-run it with their usage
    charging = any(getattr(params, key) is not None for key in _CHARGING_PARAMS)
    return context.last_topic == "ev_charging" and charging and not params.appliance


def _new_subject(body: str, params: RequestParams, context: ReadingContext) -> bool:
    """The message names something other than the last request was about: another topic (heat
    pumps, solar, a battery after a charging plan) or a subject only the knowledge base answers
    (rebates). Changing a deadline, a day or a charge level keeps the subject."""
    if any(getattr(params, key) is not None for key in _CHARGING_PARAMS) or params.day:
        return False
    topic = topic_of(body)
    same_family = {context.last_topic, "general"} | (
        {"rates"} if context.last_topic == "ev_charging" else set()
    )
    return (
        _KNOWLEDGE_SUBJECT.search(body) is not None or topic not in same_family
    )  # "what about the cost?" stays


def follow_up_params(params: RequestParams, last: RequestParams) -> RequestParams:
    """A follow-up's parameters over the last request's; a new deadline replaces the old one
    ("in 30 minutes" after "by 7am"), a weekday replaces "today"."""
    data = params.merged_over(last).model_dump()
    if params.ready_in_minutes is not None:
        for key in _DEADLINE_PARAMS:
            if key != "ready_in_minutes" and getattr(params, key) is None:
                data[key] = None
    elif params.ready_by_hour is not None or params.ready_by_day is not None or params.tonight:
        data["ready_in_minutes"] = None
        if params.ready_by_day is not None or params.day is not None:
            data["tonight"] = None  # "by saturday 7am instead" names the day itself
        # "what about by 6am instead?" after "tonight" changes the hour, not the night
    if params.ready_by_day in WEEKDAYS and params.day is None:
        data["day"] = None  # "and on saturday?": that day, not the earlier "today"
    elif params.day is not None and params.ready_by_day is None and last.ready_by_day in WEEKDAYS:
        data["ready_by_day"] = None  # "and today?" after "on saturday"
    return RequestParams.model_validate(data)


def with_household_usage(params: RequestParams, context: ReadingContext) -> RequestParams:
    """Miles driven and kWh used, stated earlier in the thread, for a new question that doesn't restate them."""
    last = context.last_params
    if last is None:
        return params
    kept = {
        key: getattr(last, key)
        for key in _USAGE_PARAMS
        if getattr(params, key) is None and getattr(last, key) is not None
    }
    return params.model_copy(update=kept) if kept else params


def _forget_fields(what: str) -> list[str]:
    fields: list[str] = []
    for pattern, targets in _FORGET_TARGETS:
        named = re.compile(r"\b(?:" + pattern + r")\b", re.I)
        if named.search(what):
            fields.extend(target for target in targets if target not in fields)
            if pattern.startswith(("zip", "charger", "home")):
                break  # "forget my ZIP" is not the whole place; "home battery" is not the EV's
            if pattern.startswith("price"):
                what = named.sub(" ", what)  # "the rate I pay" is the price: not also the rate plan
    return fields


def _slot_answer(
    body: str, context: ReadingContext, fields: list[str], hedged: bool, *, elsewhere: list[str] | None = None
) -> tuple[SlotAnswer | None, str | None]:
    """`elsewhere`: fields the message spoke of without stating them (unsure, someone else's): an
    "idk" about those ("idk what car, it's a bolt i think" when we asked for the ZIP) does not skip
    the question we asked."""
    slot = context.pending_slot
    if (
        slot != "rate_schedule"
        and _PLAN_UNKNOWN.search(body)
        and not any(f in SLOT_FIELDS["rate_schedule"] for f in fields)
    ):
        # "idk the plan, whatever is normal" before we asked: the plan question is answered ahead
        return SlotAnswer(slot="rate_schedule", status="skipped"), None
    if slot is None or slot not in SLOT_FIELDS:
        return None, None
    if any(field in SLOT_FIELDS[slot] for field in fields):
        return SlotAnswer(slot=slot, status="answered"), None
    about_other = any(field not in SLOT_FIELDS[slot] for field in [*fields, *(elsewhere or [])])
    if _SKIP.match(body) and len(body.split()) <= 8 and not about_other:
        return SlotAnswer(slot=slot, status="skipped"), None
    short = body.strip().strip(".!")
    plain = (
        2 <= len(short) <= 60
        and len(short.split()) <= 5
        and re.fullmatch(r"[A-Za-z][A-Za-z .,'&-]*", short) is not None
        and not hedged
        and "?" not in body
    )
    if slot == "location" and plain:
        return SlotAnswer(slot=slot, status="answered"), short  # a place name to geocode
    if slot == "utility" and plain and _UTILITY_WORDS.search(short):
        return SlotAnswer(slot=slot, status="answered"), None  # kept as said: not in our table
    return SlotAnswer(slot=slot, status="not_answered"), None


def stated_facts(conversation: list[dict[str, object]]) -> list[dict[str, object]]:
    """ExtractedFact-shaped dicts for user messages [{turn, text}]: the offline memorizer's reading
    and the trace's record of what the user stated (values as text, as the memorizer returns them)."""
    found: list[dict[str, object]] = []
    for item in conversation:
        turn, text = int(str(item["turn"])), str(item["text"])
        for fact in understand(text).facts:
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
