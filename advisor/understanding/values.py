"""The grammar's half of reading a message: every value it carries, before anyone decides what
the message means.

Facts about the user (from the clause reader and the slot tables in `facts.py`), the request's
parameters (`params.py`), the fields a command names (`commands.py`), a place to look up, and the
signals the meaning model takes as input. Nothing here decides the intent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from advisor.energy.utilities import find_utility, utility_named
from advisor.energy.vehicles import find_vehicle, vehicles_named
from advisor.onboarding import usual_utility
from advisor.places import STATE_NAMES, STATE_TIMEZONES, find_city, find_town, is_us_town_name, zip_place
from advisor.understanding import commands
from advisor.understanding.facts import (
    CHARGE_WANTED,
    JUST_ONE,
    POWERWALL_KWH,
    VOLTS_L2,
    answer_words,
    as_said,
    charger_readings,
    facts_in,
    place_phrase,
    plan_named,
    read_clause,
    solar_talk,
)
from advisor.understanding.meaning import Signals
from advisor.understanding.models import Mention, ReadingContext, RequestParams, StatedFact
from advisor.understanding.params import only_when, read_params, someone_elses_size
from advisor.understanding.text import (
    FIRST_PERSON,
    HOUSEHOLD_MEMBER,
    NUMBER_WORDS,
    QUESTION_START,
    REQUEST_WITHOUT_MARK,
    WITHDRAWN,
    Clause,
    clauses,
    clean,
)
from knowledge.glossary import names_a_document_term

SLOT_FIELDS = {
    "location": ("location.zip_code", "location.city"),
    "utility": ("location.utility_provider",),
    "rate_schedule": ("location.rate_schedule", "location.flat_rate_usd_per_kwh"),
    "ev": ("equipment.ev_model", "equipment.ev_battery_kwh"),
    "solar_size": ("equipment.solar_capacity_kw",),
}
_PLAN_WORDS = re.compile(
    r"\b(?:rate\s+plan|plan|tariff|rate\s+schedule|time[\s-]of[\s-]use\s+(?:one|thing|plan|rate))\b", re.I
)
# the words of a question about rate plans (a plan's code is read from the catalog, not here)
_ABOUT_PLANS = re.compile(
    r"\b(?:plans?|rates?|tariffs?|tou|time[\s-]of[\s-]use|switch\w*|tier(?:s|ed)?|"
    r"rate\s+schedule|schedule\s+(?:\d\w*|[a-z]\d*)\b|pricing|demand\s+charges?|compar\w*)",
    re.I,
)
# A short plain answer to the location or utility question: a name to look up or keep as said
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z .,'&-]*")
_UTILITY_WORDS = re.compile(
    r"\b(?:electric|power|energy|utility|utilities|light|edison|coop|co-op|cooperative|municipal|city\s+of|pud|emc|"
    r"public\s+service)\b",
    re.I,
)


@dataclass(frozen=True)
class Values:
    message: str  # cleaned, without a leading "remember that"
    facts: list[StatedFact]
    mentions: list[Mention]
    params: RequestParams
    signals: Signals
    question: str | None = None  # the question clauses, without the statements
    hedged: bool = False
    remember: bool = False
    thanks: bool = False
    place_query: str | None = None
    plain_answer: bool = False  # a short name answering the location or utility question
    only_a_place: bool = False  # "chicago", "Des Moines, IA": where they live and nothing else
    plan_unknown: bool = False  # "idk the plan": the rate-plan question answered ahead
    acknowledged: bool = False  # "ok good", "lol perfect": an answer taken
    question_coming: bool = False  # "hi i have a question about my bill": the question is still to come
    withdrawn: bool = False  # "nvm on the powerwall, …": what they said before, taken back
    defined: str | None = None  # "what does time of use mean": the term asked to be defined
    meaning_asked: bool = False  # … in so many words ("mean", "stand for", "define", "don't know what … is")
    one_price_plan: bool = False  # "standard residential, not the hourly thing": one price all day
    named: list[str] = field(default_factory=list)  # profile fields the words name ("my zip")
    gone: list[str] = field(default_factory=list)  # equipment said to be gone ("sold the tesla")
    gone_words: str | None = None  # the words that named it ("tesla")
    forget_lead: bool = False  # the message is a command to remove ("forget the gas heat")
    undo_cue: bool = False  # words that say something we saved is wrong ("nope", "undo")
    removal_cue: bool = False  # words that ask to remove something ("forget", "delete")
    forget_everything: bool = False
    last_change: bool = False  # "forget that", "scratch it"
    choice: int | None = None  # "the first one": which of two readings we offered
    affirmed: bool = False  # "yes" / "yep, that's it"
    only_when: bool = False  # nothing but a connective and a time ("and tmrw morning?")
    # an appliance and when to run it ("is it cheaper to run the dishwasher at night"): their prices answer it
    when_to_run: bool = False
    when_to_charge: bool = False  # "when should i charge my leaf": a plan from their prices
    # speaks of rate plans ("which plan", "should i switch", "is tou worth it", "ev2-a"): what a
    # comparison of their utility's plans answers
    about_plans: bool = False
    # "put in a 40 amp charger last week": equipment they got, told as news (no request in it)
    acquired: bool = False
    declines: bool = False  # "not giving you my address", "rather not share my zip"
    charge_duration: bool = False  # "how long to charge a bolt from empty on 240v": a plan's hours
    sun_words: bool = False  # "panels", "solar", "produce", "sunny": what a solar answer is about
    asks_action: bool = False  # "can you set my thermostat", "can you pay my bill": a deed, not advice
    # a clause asks in so many words, sure of itself ("what is the CARE discount and would we
    # qualify", "… normal or broken"): not a doubt with a question mark ("aep i think?")
    asks_plainly: bool = False
    setpoint_asked: bool = False  # "what temp should i set it to at night": advice, not a forecast
    points_back: bool = False  # "do that every night", "what about tankless": leans on what came before
    home_battery_charge: bool = False  # "charge the powerwalls from the grid at night": not a car
    place_abroad: bool = False  # "the weather in cancun": a forecast for a place outside the US
    weather_words: bool = False  # "the low tonight", "forecast", "snow": the weather, which we answer
    forecast_asked: bool = False  # "how cold we talking", "whats the rest of the week look like"
    leaving: bool = False  # "gotta run", "gtg", "good night", "thats it for today": the chat ends
    # "we heat with baseboard heaters if that matters": said as context for the question before
    adds_context: bool = False
    # nothing said of their own home as it is: someone else's, what they don't have, what they might get
    aside: bool = False
    first_person: bool = False  # the user speaks of themself ("i", "we", "our", "here")
    asking: bool = False  # asks, even without a question word ("heat pump dryers worth it", "any rebates")
    bare_number: float | None = None  # "and 10?", "what about 12 kw": a number and nothing else
    rough_kw: float | None = (
        None  # "maybe 5 or 6 kw?", "8ish kw": a size said roughly (the middle of a range)
    )
    what_if: bool = False  # equipment they might add or use ("if we added a battery", "would a powerwall")
    # how to set up or find out something ("how do i make my ev wait until…", "how would i know my plan")
    how_to: bool = False
    definition: bool = False  # what a word means ("whats a kwh", "what does seer mean")
    own_place: bool = False  # "here", "for us", "on our roof": the user's own place, not one asked about
    what_about: bool = False  # a short "what about X" / "and for X?" that leans on the last question
    forget_target: str | None = None  # the words a forget command names ("the pool stuff")
    also: bool = False  # a short addition to what was just said ("and the city too", "that too")
    about_advisor: bool = False  # asks what the advisor is or does ("what can u do then")
    in_spanish: bool = False  # written in Spanish ("mi factura de luz es muy alta, que puedo hacer?")
    # "its 35% not 25", "not 25, 35": a number said in place of another (new, old)
    swapped: tuple[float, float] | None = None
    # the ZIP code and the utility a question names ("when's peak for ameren tmrw"): asked about,
    # and theirs when the reader says so (a live request while the profile has none)
    asked_facts: list[StatedFact] = field(default_factory=list)

    @cached_property
    def energy_words(self) -> bool:
        """Names a utility or home-energy equipment: never off-topic (a car alone may be: "how much
        is insurance on a model 3"). Read only when the model calls a message off-topic."""
        if _NOT_HOME_ENERGY.search(self.message):
            return False  # "my iphone battery", "duke energy stock", "best energy drink"
        return bool(
            EQUIPMENT_WORDS.search(self.message)
            or find_utility(self.message)
            or _ENERGY.search(self.message)
            or names_a_document_term(self.message)  # "what are CARE and FERA", "whats pcia"
        )

    def about_other_fields(self, slot: str) -> bool:
        fields = [fact.field for fact in self.facts] + [m.field for m in self.mentions if m.field]
        return any(name not in SLOT_FIELDS[slot] for name in fields)


def read_values(text: str, context: ReadingContext, *, about: str | None = None) -> Values:
    """`about`: the topic the meaning model gave the request, when it is sure ("we have 9.5kw and
    a powerwall, how much will we make today": a bare kW is the panels' size in a solar question)."""
    cleaned = clean(text)
    rest = commands.remember_lead(cleaned)
    message = rest if rest is not None else cleaned
    meant = _more_of_what_they_have(_what_they_meant(message), context)
    found = clauses(meant)
    home_state = _home_state(context)
    params = read_params(message)
    usual = usual_utility(
        str(context.known_fields.get("location.zip_code") or "") or None,
        str(context.known_fields.get("location.city") or "") or None,
    )
    facts, mentions = facts_in(
        found,
        message=meant,
        pending_slot=context.pending_slot or _price_asked_for(meant, context),
        suggested={"location.utility_provider": usual} if usual else None,
        about_charging=context.last_topic == "ev_charging"
        or context.pending_slot == "ev"
        or context.pending_topic == "ev_charging"
        or "equipment.ev_model" in context.known_fields,
        about_solar=context.last_topic == "solar"
        or context.pending_slot == "solar_size"
        or context.pending_topic == "solar"  # "97006, 9 kw" answering the ZIP question for a forecast
        or about == "solar"
        # "8 kw" after "sunny enough for the panels?" (answered with the weather)
        or bool(re.search(r"\b(?:solar|panels?|pv|array)\b", context.last_question or "", re.I))
        # "we have about 20 panels, not sure the kw" then "found the paperwork, 7.6 kw": their panels' size
        or any(solar_talk(earlier) for earlier in context.said_before(message)[-2:])
        # "we upgraded, 10 kw now" with their panels saved: the size changed
        or ("equipment.solar_capacity_kw" in context.known_fields and bool(_CORRECTION_CUE.search(message))),
        home_state=home_state,
    )
    facts = [_their_car_named_shorter(fact, context) for fact in facts]
    facts = _the_car_charged_here(message, facts)
    facts = _no_town_inside_a_utility(facts)
    # "correction, it's elk grove not sacramento, still smud tho": what they say we hold already is
    # no change, so the correction is still looked for
    held = [fact for fact in facts if context.known_fields.get(fact.field) == fact.value]
    new = [fact for fact in facts if fact not in held]
    if new and not any(fact.field == "equipment.ev_model" for fact in new):
        # "and the leaf is a plus, 62 kwh": the trim of the car they have, beside another value
        trim = _trim_of_their_car(message, context)
        held = [fact for fact in held if not (trim and fact.field == "equipment.ev_model")]
        new = new + trim
    # ("nvm what i said about the heat pump its not installed yet": withdrawn, nothing put in its place)
    facts = held + (
        new or ([] if WITHDRAWN.match(message) else _said_otherwise(message, context, mentions, params))
    )
    facts = [_corrected_in_place(fact, message) for fact in facts]
    plain = _plain_answer(message, context, found, facts)
    facts = facts + _utility_as_said(message, context, plain, facts)
    if params.appliance is None and _RUN_ONE.search(message):
        # "ok when's cheapest to run one today" after "are space heaters cheaper than the
        # baseboards": the appliance the last question named
        earlier = (context.last_params.appliance if context.last_params else None) or (
            read_params(context.last_question).appliance if context.last_question else None
        )
        # ("running the swamp cooler all aft, is that peak", "its gonna be 100 tmrw right", "should i
        # run it early tmrw then": the last appliance named in the conversation, a few lines back)
        for said in reversed(context.said_before(message)[-3:] if earlier is None else []):
            if (earlier := read_params(said).appliance) is not None:
                break
        if earlier:
            params = params.model_copy(update={"appliance": earlier})
    if _DURATION_ASKED.search(message):
        params = params.model_copy(update={"duration": True})
    answered = _zip_answering_our_question(mentions, facts, context) or _utility_answering_our_question(
        message, facts, context
    )
    if answered is not None:
        # "whats the low tomorrow in 04101" right after we asked for their ZIP: the answer, with a question
        facts = [*facts, answered]
        mentions = [m for m in mentions if m.field != "location.zip_code"]
    if params.system_kw is None and params.day is not None and _PRODUCE_ASKED.search(message):
        # "my mom has 6kw of panels on her house in racine, what'll they make today": their panels'
        # day, for their size (never saved as ours)
        params = params.model_copy(update={"system_kw": someone_elses_size(mentions)})
    asked_place = _asked_place(found, facts) or _their_place(found, facts, params)
    facts, second_car = _second_car_asked(message, facts, params, context)
    asked_car = (
        second_car or _asked_car(message, facts, mentions) or _their_other_car(message, facts, context)
    )
    asked_charger = _asked_charger(message, facts, mentions, for_another_car=asked_car is not None)
    if asked_charger is not None:
        params = params.model_copy(update={"charger_kw": asked_charger})
    if asked_car is not None:
        params = params.model_copy(update={"vehicle": asked_car})
    if asked_place is not None:
        params = params.model_copy(update={"place": asked_place})
    if (state := _state_named_in(message)) is not None:
        params = params.model_copy(update={"state": state})
    asked_utility = _asked_utility(mentions, home_state)
    if asked_utility is not None:
        params = params.model_copy(update={"utility": asked_utility.value})
    asked_plan = _asked_plan(mentions)
    if asked_plan is not None:
        params = params.model_copy(update={"plan": asked_plan})
    if params.appliance is None and (referred := _appliance_referred_to(message, context)) is not None:
        params = params.model_copy(update={"appliance": referred})
    asked_zip = _asked_zip(mentions) if asked_place is not None else None
    hedged = any(clause.hedged for clause in found)
    named = commands.named_fields(message)
    battery_charge = _HOME_BATTERY_CHARGE.search(message) is not None
    weather = _WEATHER.search(message) is not None
    gone, gone_words = commands.gone(message)
    if gone_words:
        # "the id4 went back", "the powerwall got pulled out": the thing named is the one that went,
        # not a fact about what they have ("sold the tesla and got a rivian" keeps the rivian)
        facts = [f for f in facts if not (f.field in gone and commands.same_words(f.said, gone_words))]
    if not any(m.field == "location.rate_schedule" for m in mentions):
        mentions = mentions + _unsure_plan_named(found, facts)  # "the TOU-REO plan i think?"
    said_of = _someone_else(found, facts, mentions)  # with "my brother has solar" said why nothing was kept
    return Values(
        message=message,
        facts=facts,
        mentions=said_of,
        params=params,
        signals=_signals(message, params, facts, mentions, hedged, any(c.question for c in found)),
        question=" ".join(c.text for c in found if c.question) or None,
        hedged=hedged,
        remember=rest is not None,
        thanks=bool(commands.THANKS.search(message)),
        acknowledged=bool(_ACKNOWLEDGED.match(message)),
        question_coming=bool(_QUESTION_COMING.match(message)),
        withdrawn=bool(WITHDRAWN.match(message)),
        defined=(term := _term_asked(message))[0],
        meaning_asked=term[1],
        points_back=bool(_POINTS_BACK.search(_OWN_SUBJECT_WORTH.sub(r"\1", message))),
        asks_action=bool(_ASKS_ACTION.match(message)),
        asks_plainly=any(_asks_plainly(clause) for clause in found),
        aside=_aside(found, facts),
        setpoint_asked=bool(_SETPOINT_ASKED.search(message)),
        sun_words=bool(_SUN_WORDS.search(message)),
        charge_duration=bool(_CHARGE_DURATION.search(message)),
        place_query=_place_query(found, facts, plain, message, context),
        plain_answer=plain,
        only_a_place=_only_a_place(message, facts),
        plan_unknown=_plan_unknown(found, facts),
        one_price_plan=bool(_ONE_PRICE_PLAN.search(message)) and find_vehicle(message) is None,
        named=named,
        gone=gone,
        gone_words=gone_words,
        # "forget the battery on my profile": the battery, not the whole profile
        forget_everything=bool(commands.EVERYTHING.search(message)) and not named,
        last_change=bool(commands.LAST_CHANGE.search(message)),
        forget_lead=bool(commands.FORGET_LEAD.match(message)),
        undo_cue=bool(commands.UNDO_CUE.search(message)),
        removal_cue=bool(commands.REMOVAL_CUE.search(message)),
        choice=commands.choice(message),
        affirmed=bool(commands.YES.match(message)),
        only_when=only_when(message),
        when_to_run=params.appliance is not None
        and _WHEN_TO_RUN.search(message) is not None
        and not WHY.match(message),
        home_battery_charge=(
            battery_charge
            or _BATTERY_RUNTIME.search(message) is not None
            or _BATTERY_SETTING.search(message) is not None
        )
        and find_vehicle(message) is None,
        # "is charging at night cheaper": the appliance question asked of the car
        # (never a home battery's: "is it worth charging my home battery from the grid at night")
        when_to_charge=not battery_charge
        and (
            _WHEN_TO_CHARGE.search(message) is not None
            or (
                params.appliance is None
                and _CHARGING.search(message) is not None
                and _WHEN_TO_RUN.search(message) is not None
                and not WHY.match(message)
            )
        ),
        acquired=_ACQUIRED.search(message) is not None and _WANTS.search(message) is None,
        about_plans=_ABOUT_PLANS.search(message) is not None
        or params.plan is not None
        or any(f.field == "location.rate_schedule" for f in [*facts, *mentions]),
        declines=_DECLINES.search(message) is not None,
        weather_words=weather,
        forecast_asked=bool(_FORECAST_ASKED.search(message)),
        place_abroad=weather and params.place is None and _place_abroad(message),
        leaving=_LEAVING.search(message) is not None and len(message.split()) <= 16,
        adds_context=_ADDS_CONTEXT.search(message) is not None,
        first_person=bool(FIRST_PERSON.search(message)) or bool(re.search(r"\bhere\b", message, re.I)),
        asking="?" in message
        or bool(_ADVICE.search(message))
        or bool(_ASKING.search(message))
        or bool(QUESTION_START.match(message)),
        bare_number=float(bare.group(1)) if (bare := _BARE_NUMBER.match(message)) else None,
        rough_kw=_rough_kw(message),
        what_if=bool(_WHAT_IF.search(message) and (EQUIPMENT_WORDS.search(message) or find_vehicle(message))),
        # "how do i figure out when to charge it": the plan itself answers it
        how_to=bool(_HOW_TO.match(message) or (_HOW_TO_CHOOSE.match(message) and not params.plan))
        and not _WHEN_TO_CHARGE.match(message),
        definition=bool(_DEFINITION.match(message)),
        own_place=bool(_OWN_PLACE.search(message)),
        what_about=len(message.split()) <= 8 and bool(_WHAT_ABOUT.match(message)),
        forget_target=(target.group("what").strip() if (target := _FORGET_TARGET.search(message)) else None),
        also=len(message.split()) <= 7 and bool(_ALSO.search(message)),
        in_spanish=in_spanish(message),
        about_advisor=bool(_ABOUT_ADVISOR.match(message))
        or (_HELP_OFFERED.search(message) is not None and "?" not in message),
        swapped=_swapped(message),
        asked_facts=_unknown_yet([fact for fact in (asked_zip, asked_utility) if fact is not None], context)
        + _the_car_to_charge(message, facts, said_of, context),
    )


_SPANISH_WORDS = frozenset(
    "de la el que mi es muy por para con una los las del qué que cómo como cuándo cuando puedo hacer tengo luz "
    "factura casa está esta pero también tenemos somos hay necesito cuánto cuanto gracias hola usted "
    "nuestra nuestro carro coche".split()
)
_ENGLISH_WORDS = frozenset("the is my i we what how to and our it a of in for you can do when".split())


def in_spanish(message: str) -> bool:
    """Mostly Spanish: three or more of its common words and at most one of English's. A Spanish
    phrase inside an English message ("Somos 5 en la casa. My husband works nights") is read as usual."""
    words = re.findall(r"[a-záéíóúñü]+", message.lower())
    spanish = {word for word in words if word in _SPANISH_WORDS}
    english = [word for word in words if word in _ENGLISH_WORDS]
    return len(spanish) >= 3 and len(english) <= 1


def _zip_answering_our_question(
    mentions: list[Mention], facts: list[StatedFact], context: ReadingContext
) -> StatedFact | None:
    if context.pending_slot != "location" or any(f.field.startswith("location.") for f in facts):
        return None
    return _asked_zip(mentions)


# "Is Evergy", "its xcel", "es OG&E": the answer to the utility question, said with its verb
_NAMED_WITH_ITS_VERB = re.compile(
    r"^\W*(?:is|it'?s|its|it\s+is|es|that'?s|we\s+(?:have|use|got)|we'?re\s+(?:on|with)|we\s+are\s+(?:on|with))\s+"
    r"(?:the\s+)?(?P<name>[\w&.' -]{2,40}?)\W*$",
    re.I,
)


def _utility_answering_our_question(
    message: str, facts: list[StatedFact], context: ReadingContext
) -> StatedFact | None:
    """ "Is Evergy" right after we asked for their utility (how "it's Evergy" comes out in a second
    language): the answer, not a question about Evergy."""
    if context.pending_slot != "utility" or any(f.field == "location.utility_provider" for f in facts):
        return None
    said = _NAMED_WITH_ITS_VERB.match(message)
    found = find_utility(said.group("name"), answer=True, state=_home_state(context)) if said else None
    if found is None or found[1].lower() != said.group("name").strip().lower():
        return None
    return StatedFact(
        field="location.utility_provider", value=found[0].name, said=found[1], words=message.strip()
    )


def _asked_zip(mentions: list[Mention]) -> StatedFact | None:
    """The one ZIP code a question names ("whats the low tomorrow in 04101"), as a fact to keep
    only where the reader decides it is theirs."""
    for mention in mentions:
        if mention.field == "location.zip_code" and mention.reason == "question":
            codes = [code for code in re.findall(r"\b\d{5}\b", mention.words) if zip_place(code) is not None]
            if len(codes) == 1:
                return StatedFact(field=mention.field, value=codes[0], said=codes[0], words=mention.words)
    return None


def _unknown_yet(asked: list[StatedFact], context: ReadingContext) -> list[StatedFact]:
    """What a question names that the profile has no value for yet (a utility only where it serves
    the state the profile's place is in): asked about another place or utility than theirs, the
    answer stays for that one only."""
    known = context.known_fields
    state = _home_state(context)
    kept = []
    for fact in asked:
        if fact.field == "location.zip_code" and not (
            known.get("location.zip_code") or known.get("location.city")
        ):
            kept.append(fact)
        elif fact.field == "location.utility_provider" and not known.get(fact.field):
            utility = utility_named(str(fact.value))
            if state is None or (utility is not None and state in utility.states):
                kept.append(fact)
    return kept


# the car's charge asked about: charging, plugging in, a level or a range to put in it
_CHARGE_WORDS = re.compile(
    r"\bcharg\w*|\bplug\w*|\btop(?:ped)?\s+(?:it\s+)?up|\d+\s*(?:%|percent)|\bfrom\s+\d+\s+to\s+\d+|\bfull\b",
    re.I,
)


def _car_said(spec: Any, words: str, message: str, *, confidence: float) -> StatedFact:
    """The car a message names, as the user said it (a trim kept: "Leaf Plus")."""
    return StatedFact(
        field="equipment.ev_model",
        value=as_said(spec.name, words),
        said=words,
        words=message[:500],
        confidence=confidence,
    )


def _the_car_to_charge(
    message: str, facts: list[StatedFact], mentions: list[Mention], context: ReadingContext
) -> list[StatedFact]:
    """ "when should the leaf charge", "whats it gonna cost me to take the ev6 from 10 to 80": a
    request to charge a car the profile has none of names the car they drive (the fresh authors
    all say so). Never a car someone else has, one they are considering or test drove, or one a
    general question names ("how long does a bolt take on 240v" is asked about, `_asked_car`)."""
    if context.known_fields.get("equipment.ev_model") or any(f.field == "equipment.ev_model" for f in facts):
        return []
    if any(m.field == "equipment.ev_model" and m.reason != "question" for m in mentions):
        return []  # someone else's, hypothetical, negated, unsure
    if any(m.reason == "someone_else" for m in mentions):
        return []  # "son just got a used kona, its at his apartment. when should he charge it"
    if any(m.field == "equipment.ev_model" and HOUSEHOLD_MEMBER.search(m.words) for m in mentions):
        return []  # "my sons got a used leaf, how long does that take": his
    if _CONSIDERING.search(message) or _CHARGE_DURATION.search(message) or not _CHARGE_WORDS.search(message):
        return []
    found = find_vehicle(message)
    if found is None:
        return []
    spec, words = found
    before = message.lower().split(words.lower(), 1)[0]
    if HOUSEHOLD_MEMBER.search(before) and re.search(r"\b(?:her|his|their)\s+$", before):
        return []  # "daughter's comin home from college w her leaf, she needs it charged": hers
    asked = "?" in message or bool(_QUESTION_WORDS.search(before))
    if asked and re.search(rf"\b(?:a|an|any)\s+(?:\w+\s+)?{re.escape(words)}", message, re.I):
        return []  # "what would it cost to charge a model 3 here": a car asked about
    return [_car_said(spec, words, message, confidence=0.7)]


def _no_town_inside_a_utility(facts: list[StatedFact]) -> list[StatedFact]:
    """ "la plata electric, its a co-op": the "la" of a utility's name is not Los Angeles (a town said
    beside the utility, "tampa, on tampa electric", still is)."""
    utilities = [fact for fact in facts if fact.field == "location.utility_provider" and fact.said]

    def inside(town: StatedFact) -> bool:
        word = rf"\b{re.escape(town.said.lower())}\b"
        return any(
            len(re.findall(word, utility.said.lower())) >= len(re.findall(word, town.words.lower())) > 0
            for utility in utilities
        )

    return [fact for fact in facts if not (fact.field == "location.city" and fact.said and inside(fact))]


def _the_car_charged_here(message: str, facts: list[StatedFact]) -> list[StatedFact]:
    """ "a model y and an ev9, the ev9 is the one that charges here": of two cars, the one charged
    at home is the one plans are for (the other charges elsewhere)."""
    said = _CHARGED_HERE.search(message)
    if said is None or not any(fact.field == "equipment.ev_model" for fact in facts):
        return facts
    # ("the ioniq is the one…" after "an ioniq 6": the car named in full earlier)
    named = (
        find_vehicle(m.group(0))
        for m in re.finditer(rf"\b{re.escape(said.group('car'))}(?:\s+[\w.-]+)?", message, re.I)
    )
    found = find_vehicle(said.group("car")) or next((car for car in named if car is not None), None)
    if found is None:
        return facts
    spec, words = found
    car = _car_said(spec, words, message, confidence=0.8)
    return [car if fact.field == "equipment.ev_model" else fact for fact in facts]


_CHARGED_HERE = re.compile(
    r"\b(?:the\s+|our\s+|my\s+)?(?P<car>[a-z0-9][\w-]*(?:\.\w+)?(?:\s+[\w-]+(?:\.\w+)?){0,2}?)\s+(?:is\s+(?:the\s+one\s+)?(?:that|which)\s+|"
    r"is\s+the\s+one\s+)?(?:charges|gets\s+charged|plugs\s+in|we\s+charge)\s+(?:here|at\s+(?:home|the\s+house|our\s+place))\b",
    re.I,
)


def _asked_plan(mentions: list[Mention]) -> str | None:
    """The rate plan a question names ("what would that cost me overnight on ev2-a"): the answer
    is priced on it, never saved as theirs."""
    for mention in mentions:
        if mention.field == "location.rate_schedule" and mention.reason == "question":
            found = plan_named(mention.words)
            if found is not None:
                return found
    return None


def _asked_utility(mentions: list[Mention], home_state: str | None = None) -> StatedFact | None:
    """The utility a question names ("when's peak for ameren tmrw"): the answer is for it; kept
    only where the reader decides it is theirs. A name two utilities share is the one serving
    their home's state ("pge" from Portland is Portland General Electric)."""
    for mention in mentions:
        # (a clause comparing two times or two plans reads as a what-if, but the utility it names is
        # the one asked about: "run the dishwasher at 10pm vs 6pm on pg&e")
        if mention.field == "location.utility_provider" and mention.reason in ("question", "hypothetical"):
            found = find_utility(mention.words, answer=True, about_utility=True, state=home_state)
            if found is not None:
                name = found[0].name
                return StatedFact(field=mention.field, value=name, said=found[1], words=mention.words)
    return None


def _home_state(context: ReadingContext) -> str | None:
    """The state of the place the profile holds, from its ZIP code or its "City, ST"."""
    known_zip = str(context.known_fields.get("location.zip_code") or "")
    place = zip_place(known_zip) if known_zip else None
    if place is not None:
        return place.state
    city = str(context.known_fields.get("location.city") or "")
    if re.search(r", [A-Z]{2}$", city):
        return city.rsplit(", ", 1)[1]
    town = (find_city(city) or find_town(city)) if city else None
    return town.state if town is not None else None


# Asking for a recommendation: "what plan should i be on" is a request, "what plan am i on" a question
# about what we saved
_ADVICE = re.compile(
    r"\b(?:should|shud|shld|shall)\s+(?:i|we)\b|\bworth\b|\bbetter\b|\bbest\b|\bcheapest\b|\brecommend\w*|"
    r"\bsmartest\b|\bwise\b|\bmakes?\s+sense\b",
    re.I,
)


_BARE_NUMBER = re.compile(
    # ("and if we went 12?", "what if we did 10 instead": the size they would go to)
    r"^\W*(?:(?:and|ok|okay|so|what\s+about|how\s+about|what\s+if|or|try|do|for|with|if\s+(?:we|i)\s+(?:went|go|did|do|got|get|had)(?:\s+(?:with|to|up\s+to))?)\s+)*"
    r"(?:a\s+|an\s+)?(\d{1,3}(?:\.\d+)?)\s*-?\s*(?:kw|kilowatts?)?"
    r"(?:\s+(?:one|system|array|setup))?(?:\s+(?:then|instead))?\W*$",
    re.I,
)
_ROUGH_KW = re.compile(
    r"(?<![\d.])(\d{1,2}(?:\.\d+)?)(?:\s*(?:or|-|to)\s*(\d{1,2}(?:\.\d+)?))?\s*(?:ish)?\s*-?\s*(?:kw|kilowatts?)?\b(?!h)",
    re.I,
)


def _rough_kw(message: str) -> float | None:
    """The size said in a doubtful answer to our solar-size question, as a number (a range's middle)."""
    if not re.search(r"\b(?:kw|kilowatts?)\b(?!h)|\d\s*ish\b|\bmaybe\s+\d", message, re.I):
        return None
    match = _ROUGH_KW.search(message)
    if match is None:
        return None
    low = float(match.group(1))
    high = float(match.group(2)) if match.group(2) else low
    return round((low + high) / 2, 2) if 0 < low <= high <= 100 else None


# a question about the advisor itself ("what can u do then", "who are you", "what should i ask")
_ABOUT_ADVISOR = re.compile(
    r"^\W*(?:(?:ok|okay|so|lol|hi|hey|hmm|and|well|then)\W+)*(?:"
    r"(?:what|wat|wut)\s+(?:else\s+)?(?:can|could|do|will)\s+(?:you|u|ya|this\s+(?:bot|thing))\s+"
    r"(?:actually\s+|even\s+|really\s+|exactly\s+)?(?:do|help(?:\s+(?:me\s+)?with)?|answer|tell\s+me)|"
    r"(?:who|what)\s+(?:are|r)\s+(?:you|u)|how\s+do\s+(?:you|u)\s+work|how\s+does\s+this\s+(?:bot|thing)\s+work|"
    r"what\s+(?:can|should)\s+i\s+ask(?:\s+(?:you|u))?|what\s+(?:are|r)\s+(?:you|u)\s+(?:for|good\s+at)|"
    # "what kind of stuff can you help with", "what sorts of things do you do"
    r"(?:what|which)\s+(?:kinds?|sorts?|types?)\s+of\s+(?:stuff|things|questions|help)\s+(?:can|could|do|will)\s+"
    r"(?:you|u|ya|this\s+(?:bot|thing))\s+(?:actually\s+|even\s+|really\s+)?(?:do|help(?:\s+(?:me\s+)?with)?|answer|handle)|"
    r"(?:what|how)\s+(?:can|could)\s+(?:you|u)\s+help(?:\s+(?:me|us))?|(?:can|could)\s+(?:you|u)\s+help\s+(?:me|us)\W*$"
    r")\b[^?]{0,12}\??\W*$",
    re.I,
)
# "hi i have a question about my bill", "quick q on solar": the question is still to come
_QUESTION_COMING = re.compile(
    r"^\W*(?:(?:hi|hey|hello|howdy|ok(?:ay)?|so|um|yo|good\s+(?:morning|afternoon|evening))\b[\s,.!]*)*"
    r"(?:(?:i|we)\s+(?:have|had|got|'ve\s+got|ve\s+got)|i'?ve\s+got|(?:can|could|may)\s+i\s+ask(?:\s+(?:you|u))?|"
    r"(?:just\s+)?(?:a\s+)?quick)\s+(?:(?:a|an|one|another|some|few|a\s+few|couple(?:\s+of)?|quick|small|dumb|silly|"
    r"random|general|weird)\s+)*(?:questions?|qs?|thing\s+to\s+ask|something|a\s+thing)\b"
    r"(?:\s+(?:about|on|re|regarding|for\s+you\s+about)\s+(?P<about>(?:my|our|the)?\s*[\w\s&/-]{1,30}?))?[\s.!?:,-]*$",
    re.I,
)
_ACKNOWLEDGED = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|k|kk|lol|haha|oh|ah|cool|great|perfect|awesome|nice|good|sweet|gotcha|got\s+it|alright|"
    r"all\s+right|sounds\s+good|makes\s+sense|that\s+works|will\s+do|noted|fair\s+enough|good\s+to\s+know|wow|neat|"
    r"ok\s+then|bet|word|yep|yup|right)\b[\s,.!]*){1,4}(?:[\W\s]|\b(?:then|thx|ty)\b)*$",
    re.I,
)
# "I am not sure how this works. My son said you could help me with my electric bill": someone new
# asking what we do, not a question to look up
_HELP_OFFERED = re.compile(
    r"\b(?:not\s+sure\s+how\s+(?:this|it|you)\s+works?|(?:said|says|told\s+me)\s+(?:that\s+)?(?:you|u)\s+"
    r"(?:could|can|would|might)\s+help)\b",
    re.I,
)
_ALSO = re.compile(r"^\W*(?:and|also|plus)\b|\b(?:too|as\s+well|also)\W*(?:pls|please|plz)?\W*$", re.I)
_FORGET_TARGET = re.compile(
    r"\b(?:forget|delete|remove|erase|drop|clear|wipe)\s+(?:about\s+)?(?P<what>(?:the|my|our|that)\s+[^,.;!?]{2,40}?)"
    r"(?=\s*(?:$|[,.;!?]|\b(?:too|as\s+well|please|pls|we|i|since|because|cuz|bc)\b))",
    re.I,
)
_WHAT_ABOUT = re.compile(
    r"^\W*(?:(?:ok|okay|so|and|but)\s+)*(?:what|how)\s+about\b|^\W*(?:and|but)\s+(?:for|with|on|in)\b|"
    r"^\W*(?:same|does\s+that\s+go|is\s+that\s+true)\s+(?:for|with)\b",
    re.I,
)
_HOW_TO = re.compile(
    r"^\W*how\s+(?:do|can|would|should)\s+(?:i|we|you)\s+(?:(?:make|set(?:\s+up)?|get|program|schedule|tell|change|turn|"
    r"use|enable|configure)\s+(?:my|our|the|a|an)\s|(?:know|find\s+out|find|check|tell|look\s+up|see|figure\s+out)\b)",
    re.I,
)
_RUN_ONE = re.compile(r"\b(?:run|use|turn\s+on)\s+(?:one|it|them|that|those|mine|ours)\b", re.I)
# "how do i pick a plan in texas": how to choose (with no plan named to compare for them)
_HOW_TO_CHOOSE = re.compile(
    r"^\W*how\s+(?:do|can|should|would)\s+(?:i|we|you|one)\s+(?:pick|choose|select|shop\s+for|find)\s+"
    r"(?:a|an|the|my|our)?\s*(?:new\s+|good\s+|better\s+)?(?:electric\w*\s+|power\s+|energy\s+|retail\s+)?"
    r"(?:plan|provider|company|supplier|retailer)s?\b",
    re.I,
)
# "whats a kwh", "what is an hpwh", "what does seer mean": what a word means
# "what does time of use mean anyway", "whats net metering", "what is a therm": the term asked about
_TERM_ASKED = re.compile(
    r"^\W*(?:(?:ok|okay|so|hey|hi|um|sorry)\W+)*(?:"
    r"what\s+(?:does|do)\s+(?P<means>[\w\s&/-]{2,40}?)\s+(?:even\s+|actually\s+|exactly\s+)?(?:mean|stand\s+for)|"
    r"(?:what'?s|whats|what\s+is|what\s+are)\s+(?:a\s+|an\s+)?(?P<is>[\w\s&/-]{2,40}?)|"
    r"(?:define|meaning\s+of)\s+(?P<define>[\w\s&/-]{2,40}?)|"
    # "i dont know what time of use means", "not sure what net metering is"
    r"(?:i\s+)?(?:don'?t|dont|do\s+not|not\s+sure)\s+(?:really\s+)?(?:know|understand|get|sure)?\s*what\s+"
    r"(?P<unknown>[\w\s&/-]{2,40}?)\s+(?:means|is|stands\s+for)|"
    # "how does net metering work w duke in nc": how the thing works, wherever they are
    r"how\s+(?:does|do)\s+(?P<works>[\w\s&/-]{2,40}?)\s+(?:actually\s+|even\s+|really\s+)?work"
    r"(?:\s+(?:w/?|with|for|in|at|on)\s+[\w\s&.'-]{1,40}?)?"
    r")(?:\s+(?:anyway|anyways|exactly|again|even|tho|though|lol|mean|actually|then))*"
    # "what's a heat pump water heater and would it save me money": the term, then more asked of it
    # ("whats community solar, can i do that in an apt": the same, after a comma)
    r"(?:(?:\W+(?:and|&)\s+|\s*,\s*)(?:would|will|is|are|does|do|can|could|should|how|why|when|where)\b.*)?\W*$",
    re.I,
)
_NOT_A_TERM = re.compile(
    r"\b(?:my|our|your|me|us|it|that|this|good|best|better|cheap\w*|right|the\s+(?:weather|price|peak|forecast)|"
    r"today|tonight|tomorrow|tmrw|now|rn|for|to|up|going\s+on|happening)\b",
    re.I,
)


def _term_asked(message: str) -> tuple[str | None, bool]:
    """The term a definition question asks about, when it names one (never advice, never theirs),
    and whether the meaning is asked in so many words ("what does tou mean", "i dont know what net
    metering is"; never "what are peak hours": their prices, asked)."""
    asked = _TERM_ASKED.match(message)
    if asked is None:
        return None, False
    term = next(group for group in asked.groups() if group).strip()
    if _NOT_A_TERM.search(term):
        return None, False
    # ("ok whats time of use then" after an appliance verdict: a concept's name asks what it is)
    return term, not asked.group("is") or _CONCEPTS.fullmatch(term) is not None


# Names of ideas, not of anything priced or timed for the user ("what are peak hours" asks their
# prices): "what's <one of these>" asks what it is, whatever was answered before
_CONCEPTS = re.compile(
    r"(?:a\s+|an\s+|the\s+)?(?:time[-\s]of[-\s]use(?:\s+(?:pricing|plan|rates?))?|tou(?:\s+(?:pricing|plan|rates?))?|"
    r"net\s+meter(?:ing)?|nem(?:\s*[23](?:\.0)?)?|net\s+billing|demand\s+charges?|demand\s+response|"
    r"k(?:ilo)?w(?:att)?[-\s]?h(?:ours?)?|kwh|kilowatts?|seer2?|eer2?|hspf2?|afue|cop|uef|baseline(?:\s+allowance)?|"
    r"tiered\s+(?:rates?|pricing)|true[-\s]?up|critical\s+peak\s+pricing|v2[hgl]|vehicle[-\s]to[-\s](?:home|grid)|"
    r"level\s*[12]|dc\s+fast\s+charging|a\s+heat\s+pump|heat\s+pump|mini[-\s]?split|therms?|"
    r"base\s+services\s+charge|delivery\s+charges?|a\s+therm|"
    # a program, a kind of pricing or a credit, by name ("comed hourly pricing", "the care program")
    r"(?:[\w&-]+\s+){0,3}(?:pricing|programs?|metering|billing|credits?|rebates?|discounts?|incentives?))",
    re.I,
)


_DEFINITION = re.compile(
    r"^\W*(?:(?:sorry|ok|okay|so|hey|dumb\s+question|this\s+is\s+prob\w*\s+dumb)[^,.?!]{0,30}[,.!]?\s*)*"
    r"(?:what'?s|whats|what\s+is|what\s+are)\s+(?:a|an|this|these)\s+"
    # "whats a time of use plan anyway"; not "whats a good time to charge" (advice) or "… for us"
    r"(?!(?:good|best|better|cheap\w*|right|smart|fair|reasonable|normal|typical|ok|safe)\b)"
    r"(?![\w\s-]*\b(?:to|for|my|our|me|us|today|tonight|tomorrow|tmrw|now|rn)\b)[\w-]+(?:\s+[\w-]+){0,4}"
    r"(?:\s+(?:anyway|anyways|exactly|again|even|tho|though|lol|"
    # "what is this time of use pricing I keep hearing about": a word heard of, asked about
    r"(?:that\s+)?(?:i|we)\s+(?:keep\s+)?(?:hearing|heard|read|reading|see|seeing|saw)\s+(?:about|of)(?:\s+\w+){0,3}|"
    r"(?:that\s+)?every(?:one|body)\s+(?:talks|is\s+talking)\s+about))?\W*$|"
    r"^\W*what\s+does\s+[\w\s-]{1,30}\s+mean\W*$",
    re.I,
)
_OWN_PLACE = re.compile(
    r"\b(?:here|for\s+(?:us|me)|(?:our|my)\s+(?:house|home|place|roof|area|town|city)|at\s+home|where\s+(?:we|i)\s+live)\b",
    re.I,
)
# Things that share home energy's words and are something else: a phone's battery, a car's 12 V one,
# an energy company's stock, an energy drink
_NOT_HOME_ENERGY = re.compile(
    r"\b(?:stocks?|shares|dividends?|invest(?:ing|ment|or)?|i?phones?|laptops?|airpods|headphones|watch|"
    r"12\s*v|9\s*v|aaa?|alternator|jump[-\s]?start\w*|eclipse|rankings?|drinks?|red\s+bull|monster)\b",
    re.I,
)
_ENERGY = re.compile(
    r"\b(?:kwh|kw|rate\s+plan|tou|time[-\s]of[-\s]use|peak|off[-\s]?peak|electric\w*|utility|power\s+bill|energy|"
    # the home's own energy: heating, cooling, drafts, insulation, bills, appliances
    r"heat(?:ing|er|ers)?|cooling|a/c|drafts?|drafty|insulat\w*|weather(?:iz|strip)\w*|attic|thermostat|hvac|furnace|"
    r"geothermal|ground[-\s]source|propane|wood\s+stove|boiler|"
    # an old house's heat, safety and wiring ("radiators banging", "co alarm chirping", "knob and tube")
    r"radiators?|steam\s+(?:heat|boiler|pipes?|system)|hydronic|pilot\s+light|chimney|flue|"
    r"carbon\s+monoxide|co\s+(?:alarms?|detectors?)|gas\s+leak|smell\w*\s+(?:of\s+)?gas|"
    r"knob[-\s]and[-\s]tube|(?:aluminum|old)\s+wiring|fuse\s+box|(?:breaker|electrical)\s+panel|vermiculite|"
    r"dimmers?|lumens?|"
    # the weather that drives heating and cooling ("what is a polar vortex", "cold snap coming")
    r"polar\s+vortex|cold\s+snaps?|heat\s*waves?|ice\s+storms?|deep\s+freeze|arctic\s+blast|"
    # what cools, dries, lights and runs a home ("ceiling fan direction?", "dehumidifier setting")
    r"(?:ceiling|whole[-\s]house|attic|box|bathroom)\s+fans?|(?:de)?humidi\w*|air\s+condition\w*|window\s+units?|"
    r"space\s+heaters?|fridge|freezer|refrigerator|led\s+bulbs?|light\s*bulbs?|pool\s+pump|ducts?|ductwork|erv|hrv|"
    r"ventilat\w*|gas\s+pack|net\s+meter\w*|nem\s*[23]?|outages?|power\s+outages?|"
    # a solar owner's words: "my enlighten app shows 0 production", "psps alert", "true-up bill"
    r"inverters?|micro-?inverters?|micros|enlighten|psps|true[-\s]?up|"
    r"(?:electric|power|utility|energy|gas)\s+bills?|dryer|washer|dishwasher|appliances?|water\s+heater|"
    # choosing who sells the power ("how do i pick a plan in texas, the free nights ones seem sketchy")
    r"free\s+nights?|free\s+weekends?|power\s+to\s+choose|retail\s+(?:electric|energy)\s+provider|"
    r"(?:pick|choose|compare|switch)\w*\s+(?:to\s+)?(?:a\s+|an\s+|my\s+|our\s+)?(?:new\s+|different\s+|another\s+|cheaper\s+|retail\s+)?"
    r"(?:electric\w*\s+|power\s+|energy\s+)?(?:plan|provider|supplier|retailer)|shop\s+around\s+for\s+(?:power|electricity)|"
    # "a letter from some third party supplier offering 9.9 cents": who sells them power, and at what
    r"(?:third[-\s]party|alternative|alternate|competitive|energy|electric\w*|power)\s+suppliers?|escos?|"
    r"price\s+to\s+compare|supply\s+(?:charges?|rate|price)|delivery\s+charges?|fixed\s+(?:rate|price)|"
    r"\d+(?:\.\d+)?\s*(?:cents?|¢)(?:\s+(?:fixed|flat|a\s+kwh|per\s+kwh))?)\b",
    re.I,
)
# Equipment someone might add or use: a question about it is advice, not a live figure
_WHAT_IF = re.compile(
    r"\bif\s+(?:we|i)\s+(?:just\s+)?(?:added|add|got|get|bought|buy|installed|install|used|use|went\s+with)\b|"
    r"\bwhat\s+if\b|\b(?:adding|getting|buying|installing)\s+(?:a|an|another|some|more)\b|"
    r"\bwould\s+(?:a|an|another)\s+|\bworth\s+(?:it|getting|adding|switching|replacing|upgrading|converting)\b|\bmakes?\s+sense\b|"
    # "should i wait to do solar or do both now": when to get equipment is a decision, not a figure
    r"\b(?:wait|hold\s+off)\s+(?:to|on|until|before|for)\s+(?:do(?:ing)?|get(?:ting)?|go(?:ing)?|install(?:ing)?|add(?:ing)?|buy(?:ing)?)\b",
    re.I,
)
EQUIPMENT_WORDS = re.compile(
    r"\b(?:batter(?:y|ies)|powerwalls?|heat\s+pumps?|solar|panels?|supercharg\w*|fast\s+charg\w*|generator|"
    r"level\s*2|charger|ev|induction|insulation|thermostat|mini[-\s]?splits?|hpwh|water\s+heater|furnace|boiler|"
    r"(?:oil|propane|gas|electric|baseboard)\s+heat)\b",
    re.I,
)
_ASKING = re.compile(
    r"^\s*any\b|\byes\s+or\s+no\b|\bor\s+not\b|\b(?:vs\.?|versus)\b|\b(?:cheaper|more\s+expensive)\b|^\s*generally\b|"
    # "…, anything we can do as renters": a request without its question mark
    r"\bwhat\s+(?:i|we|you)\s+(?:can|could|should)\s+do\b|\bany\s+way\b|\b" + REQUEST_WITHOUT_MARK,
    re.I,
)


def _signals(
    message: str,
    params: RequestParams,
    facts: list[StatedFact],
    mentions: list[Mention],
    doubt: bool,
    question_clause: bool,
) -> Signals:
    return Signals(
        doubt=doubt,
        question_clause=question_clause,
        question_mark="?" in message,
        words=len(message.split()),
        facts=len(facts) + len([m for m in mentions if m.field]),
        deadline=params.ready_by_hour is not None
        or params.ready_in_minutes is not None
        or bool(params.tonight),
        charge_level=params.target_soc_pct is not None or params.current_soc_pct is not None,
        miles=params.miles_needed is not None,
        appliance=params.appliance is not None,
        day=params.day is not None or params.ready_by_day is not None,
        system_size=params.system_kw is not None,
        usage=any(
            value is not None
            for value in (params.ev_miles_per_month, params.house_kwh_per_month, params.ev_kwh_per_month)
        ),
        advice=bool(_ADVICE.search(message)),
    )


_CHAT_WORDS = re.compile(
    r"\b(?:bye|goodbye|thanks|thank|thx|ty|ok|okay|cool|lol|haha|hmm+|yes|yeah|yep|no|nope|nah|sure|idk|"
    r"later|cya|ttyl|gtg|nvm|why|what|how|when|which|where|who|then|plans?|help|please|pls|hi|hello|hey|skip|pass|"
    r"whatever|dunno)\b",
    re.I,
)


def _plain_answer(
    message: str, context: ReadingContext, found: list[Clause], facts: list[StatedFact]
) -> bool:
    """A short name answering the location question (a place to geocode) or the utility question
    (a utility our table does not know, kept as said)."""
    slot = context.pending_slot
    if slot not in ("location", "utility") or any(f.field in SLOT_FIELDS[slot] for f in facts):
        return False
    short = message.strip().strip(".!")
    plain = (
        2 <= len(short) <= 60
        and len(short.split()) <= 5
        and _PLAIN_NAME.fullmatch(short) is not None
        and not any(clause.hedged for clause in found)
        and "?" not in message
        and not _CHAT_WORDS.search(short)  # "cool, bye" is no town to look up
    )
    return plain and (slot == "location" or bool(_UTILITY_WORDS.search(short)))


def _only_a_place(message: str, facts: list[StatedFact]) -> bool:
    """A message that is a place and nothing more ("austin tx", "Des Moines, IA", "in tulsa"):
    where they live, told, not a question about the town."""
    if not facts or not all(fact.field.startswith("location.") for fact in facts):
        return False
    return len(message.split()) <= 5 and "?" not in message and _says_only_where(message, _place_words(facts))


def without_place_clauses(text: str, facts: Sequence[StatedFact]) -> str:
    """The message without the clauses that only say where the home is and whose customer they are
    ("im in ohio w aep. how do i lower my bill" -> "how do i lower my bill"): what is asked, for the
    answer check, which the place around it pulls off the question (the search keeps the place)."""
    placed = _place_words([fact for fact in facts if fact.field.startswith("location.")])
    if not placed:
        return text
    clauses = _CLAUSE_BREAK.split(text)
    kept = [clause for clause in clauses if not _says_only_where(clause, placed)]
    return " ".join(kept) if kept and len(kept) < len(clauses) else text


def _place_words(facts: Sequence[StatedFact]) -> set[str]:
    return {word for fact in facts for word in re.findall(r"[a-z0-9'&]+", (fact.said or fact.words).lower())}


def _says_only_where(clause: str, placed: set[str]) -> bool:
    words = [word for word in re.findall(r"[a-z0-9'&]+", clause.lower()) if word not in placed]
    return all(
        word in _PLACE_FILLERS or word in STATE_NAMES or word.upper() in STATE_TIMEZONES for word in words
    )


# "we're in dayton, on aep": words that only say where they are and whose customers they are
_PLACE_FILLERS = frozenset(
    "in from near outside here im i'm i we we're were are am live living located based the area city "
    "w with on and & customer customers our my is electric power utility company zip code".split()
)
_CLAUSE_BREAK = re.compile(r"(?<=[.;!?\n])\s+|,\s+")


# "landlord pays the electric actually", "its included in the rent": no utility of theirs to name
_SOMEONE_PAYS = re.compile(
    r"\b(?:landlord|owner|hoa|building|management|roommate|parents?)\b|\bincluded\b|\b(?:pays?|covers?|handles?)\b",
    re.I,
)


def _utility_as_said(
    message: str, context: ReadingContext, plain: bool, facts: list[StatedFact]
) -> list[StatedFact]:
    if not plain or context.pending_slot != "utility" or facts or _SOMEONE_PAYS.search(message):
        return []
    name = _utility_name_as_said(message)
    return [
        StatedFact(
            field="location.utility_provider", value=name, said=name, words=message[:500], confidence=0.7
        )
    ]


_GENERIC_UTILITY_WORDS = frozenset(
    "we we're were were're a an the our its it's it is on with w w/ co-op coop cooperative electric power energy "
    "utility company co light municipal city of".split()
)


def _utility_name_as_said(message: str) -> str:
    """ "we're a co-op, jackson emc" -> "jackson emc": the part of a short answer that names the
    utility (a segment with a utility word and a name of its own), without lead words."""
    parts = [part.strip(" .!") for part in re.split(r"\s*[,;]\s*", message) if part.strip(" .!")]
    named = [
        part
        for part in parts
        if _UTILITY_WORDS.search(part)
        and any(word.lower() not in _GENERIC_UTILITY_WORDS for word in re.findall(r"[\w'&/-]+", part))
    ]
    # "its a co-op, holy cross": the one part with a word of its own is the name
    own = [
        part
        for part in parts
        if any(word.lower() not in _GENERIC_UTILITY_WORDS for word in re.findall(r"[\w'&/-]+", part))
    ]
    chosen = named[-1] if named else own[0] if len(own) == 1 else message.strip().strip(".!")
    return re.sub(r"^(?:(?:we'?re|were|it'?s|its|it\s+is|our|on|with|the)\s+)+", "", chosen, flags=re.I)


def _place_query(
    found: list[Clause], facts: list[StatedFact], plain: bool, message: str, context: ReadingContext
) -> str | None:
    if any(f.field.startswith("location.") for f in facts):
        return None
    if QUESTION_START.match(message):
        return None  # "is that something KU has" while we wait for their ZIP: a question, no town
    # "its the euv actually" while we wait for their ZIP: a fact about something else, no town
    phrase = _place_phrase_of(found, plain and not facts, message, context)
    if phrase is not None and phrase.strip(" .,!").lower() in STATE_NAMES:
        return None  # "we're in minnesota": a state is no town to look up (and no ZIP to ask for here)
    return phrase


# "gotta go", "i have to run", "u there?": words a town's name is not made of
_NO_TOWN_WORDS = re.compile(
    r"\b(?:i|i'?m|im|we|we'?re|you|u|go|gotta|gonna|have\s+to|got\s+to|run|leave|leaving|later|brb|busy|"
    r"need|want|think|know|sure|idk|dunno|there|"
    # "rerun the numbers", "do it again", "show me": a request, not a town
    r"again|numbers?|math|redo|re-?run|recalc\w*|calculate|show|tell|give|please|pls|plz|what|how|why|"
    r"it|that|this|those|them)\b",
    re.I,
)


def _place_phrase_of(found: list[Clause], plain: bool, message: str, context: ReadingContext) -> str | None:
    if plain and context.pending_slot == "location" and not _NO_TOWN_WORDS.search(message):
        return answer_words(message) or message.strip().strip(".!")
    return next(
        (
            phrase
            for clause in found
            if clause.about_user and not clause.hedged and (phrase := place_phrase(clause.text))
        ),
        None,
    )


_IN_PLACE = re.compile(r"\b(?:in|for|near|around)\s+(?P<place>[A-Za-z][A-Za-z .'-]{1,40})")


_CORRECTION_CUE = re.compile(
    r"\b(?:not|wrong|actually|meant|should\s+be|correction|typo|flipped|mistake|changed|updated|upgraded|"
    r"bumped|added|is\s+off|now)\b",
    re.I,
)
# a number, with a unit run into it ("7.2kw", "40mi") as well as alone
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:kwh|kw|k|mi|amps?)?(?![\w.]|\.\d)", re.I)


def _their_car_named_shorter(fact: StatedFact, context: ReadingContext) -> StatedFact:
    """ "when should i charge the bolt" with a Chevrolet Bolt EUV held: every word they typed is in
    the held car's name, so it is that car (the table's "Bolt EV" would have replaced it)."""
    held = context.known_fields.get("equipment.ev_model")
    if fact.field != "equipment.ev_model" or not held or fact.value == held:
        return fact
    typed = set(re.findall(r"[a-z0-9]+", fact.said.lower()))
    name = set(re.findall(r"[a-z0-9]+", str(held).lower()))
    return fact.model_copy(update={"value": held}) if typed and typed < name else fact


def _trim_of_their_car(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "its actually the euv" with a Bolt EV saved, "the long range one" with a Model 3: a trim said
    on its own is read against the car they have (the vehicle table decides what is a trim)."""
    known = context.known_fields.get("equipment.ev_model")
    words = [word for word in re.findall(r"[\w.+-]+", message.lower().replace("'", "")) if len(word) >= 3]
    have = find_vehicle(str(known)) if known else None
    named = find_vehicle(message)
    if (
        not known
        or len(words) > 8  # ("its the euv not the regular one": a short sentence still)
        or "?" in message
        or QUESTION_START.match(message)
        # ("and the leaf is a plus" names the car they have, with its trim)
        or (named is not None and (have is None or named[0] != have[0]))
    ):
        return []  # (a question is not a statement of the car: "what's the forecast" is no Model S)
    names = str(known).split()
    windows = [" ".join(words[i : i + n]) for n in (2, 1) for i in range(len(words) - n + 1)]
    for cut in range(len(names), 1, -1):
        base = " ".join(names[:cut])
        alone = find_vehicle(base)
        for window in windows:
            found = find_vehicle(f"{base} {window}")
            if found is None or (alone is not None and found[0] == alone[0]):
                continue
            if have is not None and found[0] == have[0]:
                continue
            return [
                StatedFact(
                    field="equipment.ev_model",
                    value=found[0].name,
                    said=window,
                    words=message[:500],
                    confidence=0.8,
                )
            ]
    return []


def _just_one_powerwall(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "you have me down for 2 powerwalls?? it's just one": the count we hold, corrected in words."""
    held = context.known_fields.get("equipment.battery_capacity_kwh")
    if (
        not isinstance(held, int | float)
        or held <= POWERWALL_KWH
        or not re.search(r"\bpowerwalls?\b", message, re.I)
    ):
        return []
    one = JUST_ONE.search(message)
    if one is None:
        return []
    return [
        StatedFact(
            field="equipment.battery_capacity_kwh",
            value=POWERWALL_KWH,
            said=one.group(0),
            unit="kWh",
            words=message[:500],
            assumption=f"a Powerwall stores {POWERWALL_KWH:g} kWh",
        )
    ]


_MORE_OF_THEM = re.compile(
    r"^\W*(?:(?:actually|wait|oh|sorry|oops|no|and)\W+)*(?:it'?s|its|we\s+have|we\s+got|there'?s|there\s+are|make\s+(?:it|that))\s+"
    r"(?P<count>two|2|three|3)(?:\s+of\s+them|\s+powerwalls?|\s+actually)?\W*(?:actually\W*)?$",
    re.I,
)


def _more_powerwalls(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "we have a powerwall too" then "actually wait, its two of them": the count of the one we hold."""
    held = context.known_fields.get("equipment.battery_capacity_kwh")
    more = _MORE_OF_THEM.match(message)
    if (
        more is None
        or not isinstance(held, int | float)
        or abs(held - POWERWALL_KWH) > 1e-9
        or not any(re.search(r"\bpowerwalls?\b", line, re.I) for line in [*context.recent[-3:], message])
    ):
        return []
    count = {"two": 2, "2": 2, "three": 3, "3": 3}[more.group("count").lower()]
    return [
        StatedFact(
            field="equipment.battery_capacity_kwh",
            value=count * POWERWALL_KWH,
            said=more.group(0).strip(),
            unit="kWh",
            words=message[:500],
            assumption=f"a Powerwall stores {POWERWALL_KWH:g} kWh",
        )
    ]


_NEW_NOT_OLD = re.compile(
    r"(?<![\d.])(?P<new>\d+(?:\.\d+)?)(?![\d.])\s*(?:[a-z]+\s*)?,?\s+not\s+(?:the\s+)?(?P<old>\d+(?:\.\d+)?)(?![\d.])",
    re.I,
)


def _earlier_number_put_right(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "the charger in the garage is 48 amps" then "ugh sorry its 40 not 48": the number is put
    right in what they said, which is read again with it; a field we hold that changes is the fact."""
    said = _NEW_NOT_OLD.search(message)
    if said is None:
        return []
    old, new = said.group("old"), said.group("new")
    for earlier in reversed(context.said_before(message)[-3:]):
        where = re.search(rf"(?<![\d.]){re.escape(old)}(?![\d.])", earlier)
        if where is None:
            continue
        again = earlier[: where.start()] + new + earlier[where.end() :]
        facts, _ = facts_in(clauses(again), message=again)
        changed = [
            fact.model_copy(update={"words": message[:500], "confidence": 0.8})
            for fact in facts
            if fact.field in context.known_fields and context.known_fields[fact.field] != fact.value
        ]
        if changed:
            return changed
    return []


def _corrected_number(message: str, context: ReadingContext, params: RequestParams) -> list[StatedFact]:
    """ "no wait its 4.7 not 7.4", "the 8.4 kw you have is wrong, its 11.2 now": a correction naming a
    number we hold (7.4 kW of solar) and one other number sets that field to the other; only when
    exactly one known value is named and exactly one other number is said."""
    if not (_CORRECTION_CUE.search(message) or _JUST_SAID.search(message)):
        return []
    # ("no wait its a model 3 not y": the 3 is the car's name, no number to correct)
    unnamed = message
    for _, words in vehicles_named(message):
        unnamed = unnamed.replace(words, " ")
    numbers = [float(n) for n in _NUMBER.findall(unnamed)]
    known = {
        # a price we hold in dollars is said in cents: "its 12 cents not 11" with 0.11 held
        name: float(value)
        * (100 if name == "location.flat_rate_usd_per_kwh" and _IN_CENTS.search(message) else 1)
        for name, value in context.known_fields.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    named = [name for name, value in known.items() if any(abs(value - n) < 1e-9 for n in numbers)]
    # ("actually its at 60 now" after a plan from 45 %: the charge level put right, not the charger)
    levels = _request_numbers(params)
    others = [
        n for n in numbers if all(abs(value - n) >= 1e-9 for value in known.values()) and n not in levels
    ]
    if not named and len(others) == 1 and _JUST_SAID.search(message):
        # "oops sorry that was 4.8", "no wait 4.5 i forgot the garage panels": the one value we hold
        # within a factor of two of the number said (none, or two, and nothing is changed)
        near = [
            name
            for name, value in known.items()
            if name in _CORRECTABLE and value > 0 and 0.5 <= _as_held(name, others[0], message) / value <= 2
        ]
        named = near if len(near) == 1 else []
    # ("occupants is wrong, baby came in march so 4 now": a count, corrected only where its words name it)
    fields = [
        name
        for name in commands.named_fields(message)
        if name in known
        and (name in _CORRECTABLE or (name == "household.occupants" and _a_household_count(others)))
    ]
    if not named and len(others) == 1 and len(fields) == 1:
        # "thats wrong, we added panels, its 8.4 now": the one held number the words name
        named = fields
    if not named and _a_household_count(others) and _count_just_said(message, context):
        # "it's the two of us plus my mother in law", then "wait it's 4, forgot the baby lol"
        named = ["household.occupants"]
    if not named and len(others) == 1 and _JUST_SAID.search(message):
        return _corrected_unsaved(others[0], message, context)
    if len(named) != 1 or len(others) != 1:
        return []
    said = f"{others[0]:g}"
    value = int(others[0]) if named[0] == "household.occupants" else _as_held(named[0], others[0], message)
    unit = "A" if value != others[0] else None
    return [
        StatedFact(field=named[0], value=value, said=said, unit=unit, words=message[:500], confidence=0.8)
    ]


_IN_CENTS = re.compile(r"\d\s*(?:cents?|¢|c\b)", re.I)
_REQUEST_NUMBERS = ("current_soc_pct", "target_soc_pct", "miles_needed", "ready_by_hour", "plug_in_hour")


def _request_numbers(params: RequestParams) -> set[float]:
    """The numbers a message says as its request's own (a charge level, miles, a time): none of
    them corrects a saved value."""
    return {float(value) for key in _REQUEST_NUMBERS if (value := getattr(params, key)) is not None}


def _count_just_said(message: str, context: ReadingContext) -> bool:
    """Their last message said how many live at home (and we hold a count)."""
    said = context.said_before(message)
    if not said or "household.occupants" not in context.known_fields:
        return False
    facts, _ = facts_in(clauses(said[-1]), message=said[-1])
    return any(fact.field == "household.occupants" for fact in facts)


def _a_household_count(numbers: list[float]) -> bool:
    return len(numbers) == 1 and numbers[0].is_integer() and 1 <= numbers[0] <= 20


def _corrected_unsaved(number: float, message: str, context: ReadingContext) -> list[StatedFact]:
    """ "we pay like 14 cents i think" (not saved: unsure) then "no wait its 13.5, checked the bill":
    the number said in place of one they just said is that value, now sure (a price in cents is
    read as cents)."""
    said = context.said_before(message)
    if not said:
        return []
    earlier = said[-1]
    # (a bare "14 cents" is read as the plan question's answer would be: a price per kWh)
    readings = [
        reading
        for clause in clauses(earlier)
        for slot in (None, "rate_schedule")
        for reading in read_clause(clause, message=earlier, pending_slot=slot)
    ]
    for reading in readings:
        if reading.field not in _CORRECTABLE or not isinstance(reading.value, int | float):
            continue
        value = number / 100 if reading.field == "location.flat_rate_usd_per_kwh" and number >= 1 else number
        if reading.value > 0 and 0.5 <= value / float(reading.value) <= 2:
            return [
                StatedFact(
                    field=reading.field,
                    value=value,
                    said=f"{number:g}",
                    words=message[:500],
                    confidence=0.8,
                )
            ]
    return []


def _as_held(field: str, number: float, message: str) -> float:
    """A number said for a held value, in the value's own unit: "wired for 40" is amps for a
    charger held in kW (a charger above 24 kW is none a home has), 9.6 kW at 240 V."""
    if field == "equipment.ev_charger_kw" and (
        number > 24 or re.search(r"\bamps?\b|\d\s*a\b", message, re.I)
    ):
        return round(number * VOLTS_L2 / 1000, 2)
    if field == "location.flat_rate_usd_per_kwh" and number >= 1:
        return round(number / 100, 4)  # "its 12 cents not 11": $0.12
    return number


# "meant tempe not mesa", "its a bolt not a volt", "the solar is 6.6 not 6": the value meant, then the one it replaces
_VALUE_SWAP = re.compile(
    r"(?P<new>[A-Za-z0-9][\w.'&-]*(?:\s+[A-Za-z0-9][\w.'&-]*){0,3})\s*,?\s+(?:not|instead\s+of|rather\s+than)\s+"
    r"(?:the\s+|an?\s+|my\s+|our\s+)?(?P<old>[A-Za-z0-9][\w.'&-]*(?:\s+[A-Za-z0-9][\w.'&-]*){0,3}?)\s*(?:[,.;!?)]|$)",
    re.I,
)
_SWAP_FILLER = frozenset(
    "its it's it is was meant mean said i no yes oops sorry actually wait the a an our my is".split()
)
_FIELD_WORDS = {
    "equipment.solar_capacity_kw": re.compile(r"\b(?:solar|panels?|array|pv|system)\b", re.I),
    "household.occupants": re.compile(r"\b(?:people|persons|of\s+us|in\s+the\s+house)\b", re.I),
    "equipment.ev_charger_kw": re.compile(r"\b(?:charger|amps?|wall\s+connector|wallbox)\b", re.I),
}


def _readings_of(words: str) -> dict[str, tuple[Any, bool]]:
    """What a short phrase names, by field: (value, named without our question's help)."""
    found: dict[str, tuple[Any, bool]] = {}
    for slot in (None, *SLOT_FIELDS):
        # "40 amps" in a swap is a charger's, as it is while we talk about charging
        for fact in facts_in(clauses(words), message=words, pending_slot=slot, about_charging=True)[0]:
            if fact.field not in found:
                found[fact.field] = (fact.value, slot is None)
    return found


def _value_in_place(message: str, context: ReadingContext, mentions: list[Mention]) -> list[StatedFact]:
    """A value corrected by naming the one it replaces: the new one is read as a value of the
    field the old one names ("tempe" as a town because "mesa" is one). A bare number needs its
    field's own word in the message ("the solar is 6.6 not 6"); a new value no field takes, or one
    that fits two fields, saves nothing."""
    match = _VALUE_SWAP.search(message)
    if match is None:
        return []
    new_words = match.group("new").split()
    if new_words and new_words[-1].lower() in (
        "but",
        "and",
        "or",
        "so",
        "yet",
        "if",
        "though",
        "just",
        "still",
    ):
        return []  # "considering a model 3 but not sold yet": no value put in place of another
    while new_words and new_words[0].lower() in _SWAP_FILLER:
        new_words = new_words[1:]
    old = _readings_of(match.group("old"))
    bare_old = re.fullmatch(r"[\d.]+", match.group("old").strip()) is not None
    for size in range(min(len(new_words), 3), 0, -1):  # "i said 6 people": the longest phrase a field takes
        new = _readings_of(" ".join(new_words[-size:]))
        fields = [
            name
            for name, (value, alone) in new.items()
            if ((name in old and old[name][0] != value) or (not old and alone) or (bare_old and alone))
            # a bare number replaced needs its field's own word ("the solar is 6.6 not 6", "6 people not 8")
            and (not bare_old or (name in _FIELD_WORDS and _FIELD_WORDS[name].search(message)))
        ]
        if fields:
            break
    else:
        return []
    if len(fields) != 1 or any(mention.field == fields[0] for mention in mentions):
        return []  # "we're on EV2-A, not sure", "my friend has a bolt not a volt": set aside already
    value = new[fields[0]][0]
    if context.known_fields.get(fields[0]) == value:
        return []
    return [
        StatedFact(
            field=fields[0], value=value, said=" ".join(new_words), words=message[:500], confidence=0.8
        )
    ]


_ADDS_CONTEXT = re.compile(
    r"\b(?:if\s+(?:that|it)\s+(?:matters|helps|makes\s+a\s+difference)|in\s+case\s+(?:that|it)\s+(?:matters|helps)|"
    r"fwiw|for\s+(?:context|what\s+it'?s\s+worth|reference)|not\s+sure\s+if\s+(?:that|it)\s+matters)\b",
    re.I,
)
_LEAVING = re.compile(
    r"\b(?:got+a|have\s+to|gotta)\s+(?:run|go|bounce|jet)\b|\bgtg\b|\bg2g\b|\bgood\s*night\b|\bnight\s+night\b|"
    # "k thx gn", "ty gn": good night, typed short at the end
    r"\bgn\W*$|"
    r"\b(?:that'?s|thats)\s+(?:it|all)\s+for\s+(?:today|now|tonight)\b|\bsigning\s+off\b|\btalk\s+(?:to\s+you\s+)?later\b|"
    # "Thank you. That's everything.", "ok thats all", "thanks, thats it": said as the end of the chat
    r"(?:^|[,.!]\s*)(?:ok(?:ay)?\W+|thanks?\W+|thank\s+you\W+)?(?:that'?s|thats)\s+(?:it|all|everything)"
    r"(?:\W+(?:thanks?|thank\s+you|thx|ty)(?:\s+so\s+much)?)?[\s.!]*$|"
    r"(?:^|[,.!]\s*)(?:(?:ok(?:ay)?|k|kk|alright|aight|well)\W+)?(?:later|night|nite|g'?night|nighty\s+night)\W*$|\bcya\b|"
    # "k later", "ok by": a short leave-taking after an ok (and "bye" typed "by")
    r"^\W*(?:k|kk|ok(?:ay)?|thx|thanks|cool)\W+(?:later|by+e?)\W*$|\bttyl\b|\b(?:good\s*)?bye\b|\bsee\s+(?:ya|you)\b|\bhasta\s+(?:luego|la\s+vista|pronto)\b|"
    r"\badi[oó]s\b|\bhave\s+a\s+(?:good|great|nice|lovely|wonderful|blessed)\s+(?:day|night|evening|weekend|one)\b",
    re.I,
)
_WEATHER = re.compile(
    r"\b(?:forecast|weather|temperature|temps?|freez\w*|snow\w*|sunny|cloudy|rain\w*|heat\s+wave|cold\s+snap|"
    r"wind(?:y|s)?|gusts?|humid(?:ity)?|storms?|stormy|overcast|scorcher|heat\s+index|wind\s*chill|polar\s+vortex|"
    r"cold\s+front|blizzard|sleet|hail|ice\s+storm|frost|heat\s+dome|"
    r"(?:the\s+)?(?:low|high)\s+(?:tonight|tomorrow|tmrw|today))\b",
    re.I,
)
# the coming days' weather asked in plain words, no weather word needed
_FORECAST_ASKED = re.compile(
    r"\bhow\s+(?:cold|hot|warm|chilly|windy)\s+(?:is\s+it\s+(?:gonna|going\s+to)|will\s+it|we|are\s+we|"
    r"it'?s?\s+(?:gonna|going\s+to)|gonna)\b|"
    r"\b(?:rest\s+of\s+(?:the\s+)?week|this\s+week(?:end)?|next\s+(?:few|couple(?:\s+of)?)\s+days|next\s+week|"
    r"(?:the\s+)?weekend)\b[^.?!]{0,15}\blook(?:s|ing)?\s+like\b|"
    r"\bwhat(?:'?s|\s+is)\s+(?:it|the\s+weather)\s+(?:gonna|going\s+to)\s+(?:be|do)\b|"
    # "whats the low friday morning", "what's the high tmrw": a day's temperature
    r"\bwhat(?:'?s|s|\s+is|\s+will)\s+(?:be\s+)?the\s+(?:low|high|overnight\s+low|temp(?:erature)?)\s+"
    r"(?:gonna\s+be\s+|going\s+to\s+be\s+|be\s+)?(?:on\s+)?(?:today|tonight|tomorrow|tmrw|tmr|this|next|"
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?)\b",
    re.I,
)
_DECLINES = re.compile(
    r"\b(?:not|won'?t|rather\s+not|prefer\s+not\s+to|don'?t\s+(?:want|wanna)\s+(?:to\s+)?)\s*(?:going\s+to\s+|gonna\s+)?"
    r"(?:giv(?:e|ing)|shar(?:e|ing)|tell(?:ing)?|say(?:ing)?|post(?:ing)?|hand(?:ing)?\s+over)\b",
    re.I,
)
_WHEN = (
    r"(?:at\s+night|overnight|tonight|in\s+the\s+(?:morning|evening|day)|"
    r"later|now|during\s+(?:the\s+)?(?:day|peak|off[-\s]?peak)|off[-\s]?peak|after\s+\d|before\s+\d|on\s+weekends?)"
)
# "is it cheaper to run the dishwasher at night", "is running the dryer at night cheaper"
WHY = re.compile(
    r"^\W*(?:why(?:'?s)?|how\s+come)\b", re.I
)  # "why is charging at night cheaper?": an explanation
_WHEN_TO_RUN = re.compile(
    r"\b(?:cheaper|better|cheapest|best|smarter|worth)\b[^.?!]{0,40}\b" + _WHEN + r"\b|"
    r"\b" + _WHEN + r"\b[^.?!]{0,20}\b(?:cheaper|cheapest|less\s+expensive|costs?\s+less)\b|"
    # "i just want to know when the ac is cheapest to run": which hours, asked with "when"
    r"\bwhen(?:'?s|\s+is|\s+are)?\b[^.?!]{0,30}\b(?:cheapest|cheaper|least\s+expensive|best)\s+(?:to\s+)?(?:run|use|turn\s+on)\b",
    re.I,
)
# "when should i charge my leaf", "best time to plug in the ev": when to charge their own car is
# a plan from their prices (unlike "how often should i charge", "is it bad to charge to 100")
_WHEN_TO_CHARGE = re.compile(
    # a sentence of its own: "just got a chevy equinox ev. how do i figure out when to charge it"
    r"(?:(?:^|[.!?]\s+)\W*(?:(?:ok|so|hey|hi|and|also)\W+)*"
    r"(?:how\s+(?:do|can|should)\s+(?:i|we)\s+(?:know|figure\s+out|find\s+out|tell|decide|work\s+out)\s+)?|"
    # "got a used leaf last week and honestly no idea when i'm supposed to charge it": asked, indirectly
    r"\b(?:no\s+idea|not\s+sure|idk|dunno|(?:i\s+)?don'?t\s+know|no\s+clue)\s+)"
    r"(?:when|what\s+time|what\s+hours?|(?:the\s+)?(?:best|cheapest)\s+time)\b"
    r"[^.?!]{0,25}\b(?:charg\w*|plug\w*\s+in)\b(?:\s+(?:it|her|him|(?:my|our|the)\s+[\w.-]+(?:\s+[\w.-]+)?))?"
    r"(?:\s+(?:tonight|tonite|tomorrow|tmrw|today|this\s+week))?\s*[?!.]*\s*$",
    re.I,
)
_CHARGING = re.compile(
    r"\b(?:charg(?:e|ing)\s+(?:the\s+|my\s+|our\s+)?(?:car|ev|it)?|plug(?:ging)?\s+in)\b", re.I
)
_ACQUIRED = re.compile(
    r"\b(?:put\s+in|installed|got|bought|added|picked\s+up|leased|upgraded\s+to|switched\s+to|"
    r"had\s+(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+){0,3}\s+(?:installed|put\s+in))\b",
    re.I,
)
_WANTS = re.compile(
    r"\b(?:need|needs|want|help|pls|please|plz|can\s+you|could\s+you|should|how|when|what)\b", re.I
)
_JUST_SAID = re.compile(
    r"^\W*(?:(?:no|nope|wait|oops|sorry|my\s+bad|typo|actually|correction)\b\W*)+|\b(?:that\s+was|i\s+meant|make\s+that|should\s+be)\b",
    re.I,
)
_CORRECTABLE = frozenset(
    {
        "equipment.solar_capacity_kw",
        "equipment.ev_charger_kw",
        "equipment.ev_battery_kwh",
        "equipment.battery_capacity_kwh",
        "location.flat_rate_usd_per_kwh",
    }
)


_IN_ZIP = re.compile(r"\b(?:in|for|near|around|at)\s+(\d{5})\b", re.I)


# "ok we bought it!!", "picked it up today", "its in the driveway now": the car talked about is theirs now
_GOT_IT = re.compile(
    r"\b(?:(?:we|i)\s+(?:just\s+|finally\s+)?(?:bought|got|leased)\s+(?:it|one|her|him)\b|picked\s+(?:it|her|him)\s+up|"
    r"took\s+delivery|pulled\s+the\s+trigger|(?:it'?s|its|she'?s)\s+in\s+(?:the|our|my)\s+(?:driveway|garage))",
    re.I,
)


_WH_START = re.compile(
    r"^\W*(?:(?:so|ok|and|but|also)\W+)?(?:what|whats|what's|how|why|when|where|which)\b", re.I
)
_SOFT_DOUBT = re.compile(r"\b(?:i\s+think|maybe|probably|i\s+guess|not\s+sure)\b", re.I)


_JUST_CURIOUS = re.compile(r"\b(?:just\s+)?curious\b|\bjust\s+wondering\b|\bjust\s+asking\b", re.I)


def _aside(found: list[Clause], facts: list[StatedFact]) -> bool:
    """Every clause is about someone else, negated, considered or idle curiosity, and nothing is saved."""
    worded = [clause for clause in found if re.search(r"\w", clause.text)]
    return (
        not facts
        and bool(worded)
        and all(c.someone_else or c.negated or c.hypothetical or _JUST_CURIOUS.search(c.text) for c in worded)
    )


def _asks_plainly(clause: Clause) -> bool:
    """A clause that asks in so many words and is sure of itself: a wh-question, a yes/no question
    with its mark, or a choice put last ("normal or broken"); never "i think we're on tou-dr2??"."""
    text = clause.text
    if not clause.question or clause.hedged or _WISH.match(text) or _SOFT_DOUBT.search(text):
        return False
    if _WH_START.match(text):
        return True
    if "?" in text and re.search(r"\w\s+or\s+\w[^?]*\?", text):
        return True  # "building in nashville, heat pump or gas pack?": a choice asked with its mark
    if "?" in text or _SUBJECT_ASKED.match(text):
        # "…, is that high": a yes/no question with its subject asks without the mark
        return bool(QUESTION_START.match(text))
    return not QUESTION_START.match(
        text
    )  # a choice put last ("normal or broken"), not "is out the door by 8"


_SUBJECT_ASKED = re.compile(
    r"^\W*(?:is|are|was|does|do|did|should|can|could|will|would)\s+(?:that|it|this|there|i|we|those|these|they)\b"
    r"(?!\s+(?:is|are|was|were|do|does|have|has)\b)",
    re.I,
)
# a wish, a rhetorical "who else would it be?" or a joking "why, u gonna visit?": no question to answer
_WISH = re.compile(r"^\W*(?:i|we)?\s*(?:would|'?d)\s+(?:love|like|want)\b|^\W*(?:who\s+else|why\s*,)", re.I)
_CONSIDERING = re.compile(
    r"\btest[-\s]?drov?e\b|\bthinking\s+(?:of|about)\b|\bconsidering\b|"
    # "im fixing to buy an equinox ev next month", "gonna get a model y": a car still to come
    r"\b(?:fix(?:ing|in'?)|going|gonna|about|planning|plan|hoping)\s+(?:to\s+)?(?:buy|get|lease|order)\b|"
    # "were also gettin a chevy bolt next month": a car on its way, not theirs yet
    r"\b(?:getting|gettin'?|picking\s+up|taking\s+delivery\s+of|ordered|reserved)\b[^.?!]{0,40}?"
    r"\b(?:next\s+(?:week|month|year|spring|summer|fall|winter)|soon|in\s+(?:a\s+)?(?:few\s+|couple\s+(?:of\s+)?)?"
    r"(?:days?|weeks?|months?))\b",
    re.I,
)


def _asked_charger(
    message: str, facts: list[StatedFact], mentions: list[Mention], *, for_another_car: bool = False
) -> float | None:
    """ "how long will my leaf take to charge on a regular outlet": the charger the question is
    about (the answer's, for this request only), read as a charger said as theirs would be; for a
    car asked about that is not theirs, the charger said with it ("my dad has a lightning and wants
    to know how long it takes on a regular 120v outlet")."""
    if any(f.field == "equipment.ev_charger_kw" for f in facts):
        return None
    reasons = (
        ("question", "hypothetical", "someone_else") if for_another_car else ("question", "hypothetical")
    )
    if not any(m.field == "equipment.ev_charger_kw" and m.reason in reasons for m in mentions):
        return None
    # (a charger heard without its power, "a level 2 charger", prices nothing)
    reading = next((r for r in charger_readings(message) if isinstance(r.value, (int, float))), None)
    return float(reading.value) if reading is not None else None


_QUESTION_WORDS = re.compile(r"\b(?:what|how|which|would|could|should|does|do|is)\b", re.I)


def _asked_car(message: str, facts: list[StatedFact], mentions: list[Mention]) -> str | None:
    """A car the message asks about without it being theirs ("test drove an ioniq 5 today, how much
    would charging it cost", "what would it cost to charge a model 3 here"): the answer's car for
    this request only."""
    if any(f.field == "equipment.ev_model" for f in facts):
        return None
    asked = any(
        m.field == "equipment.ev_model" and m.reason in ("question", "hypothetical") for m in mentions
    )
    found = find_vehicle(message)
    # "how much would it cost to charge a model y from 10 to 90": a car asked about, named with "a"
    asked = asked or (
        found is not None
        and (
            _QUESTION_WORDS.search(message) is not None
            or "?" in message
            # ("… w her leaf, she needs it charged back up by noon sunday": a request, said as a need)
            or CHARGE_WANTED.search(message) is not None
        )
        # ("how long would that leaf take from empty": the car named, whoever's it is)
        and re.search(
            # ("… my brothers bolt", "my mom's leaf": someone else's car)
            rf"\b(?:a|an|any|that|this|her|his|their|the|\w+'s|(?:my|our)\s+\w+s)\s+(?:\w+\s+)?{re.escape(found[1])}",
            message,
            re.I,
        )
        is not None
    )
    # "how long to charge a bolt from empty": the car the hours are asked for
    if not asked and not _CONSIDERING.search(message) and not _CHARGE_DURATION.search(message):
        return None
    return as_said(found[0].name, found[1]) if found is not None else None


# "traded the tesla for a bolt", "we got a leaf now": the car they have changed, said in a request
_CAR_CHANGED = re.compile(
    r"\b(?:trade[ds]?|traded|sold|replaced|swapp?ed|switched|upgraded|got|bought|picked\s+up|leased|"
    r"new|now|instead|anymore|no\s+longer|(?:we|i)\s+(?:have|own|drive)|(?:we|i)'ve\s+got|only\s+have|"
    # ("sorry i meant model y, charge it to 90": a correction of the car saved)
    r"meant|actually|not\s+(?:a|an|the)|wrong|correction)\b",
    re.I,
)


def _second_car_asked(
    message: str, facts: list[StatedFact], params: RequestParams, context: ReadingContext
) -> tuple[list[StatedFact], str | None]:
    """ "how much to charge my wife's bolt from 20 to 80" with a Model 3 saved: the plan is for the
    Bolt and the Model 3 stays saved. The profile keeps one EV, and a car named only inside a
    charging request is the car for that answer, not news that theirs changed (precision over recall:
    "we traded the tesla for a bolt, how long to charge it" does replace it)."""
    held = context.known_fields.get("equipment.ev_model")
    named = next((fact for fact in facts if fact.field == "equipment.ev_model"), None)
    if (
        not held
        or named is None
        or named.value == held
        or not (
            _CHARGE_WORDS.search(message)
            or params.miles_needed
            or params.target_soc_pct
            or params.ready_by_hour
        )
        or _CAR_CHANGED.search(message) is not None
    ):
        return facts, None
    return [fact for fact in facts if fact is not named], str(named.value)


# "what about the tesla" in a two-EV home: the car named by its make (or "the truck")
_CAR_BY_MAKE = re.compile(
    r"\b(?:the|our|my|his|her)\s+(?P<make>tesla|ford|chevy|chevrolet|nissan|hyundai|kia|rivian|vw|volkswagen|bmw|"
    r"toyota|honda|audi|volvo|polestar|lucid|cadillac|gmc|jeep|truck|suv)\b(?!\s+(?:model|ev|bolt|leaf|ioniq|f-?150|r1|id))",
    re.I,
)
_MAKE_WORDS = {"chevy": "chevrolet", "vw": "volkswagen", "truck": "f-150 lightning|r1t|cybertruck|silverado"}


def _their_other_car(message: str, facts: list[StatedFact], context: ReadingContext) -> str | None:
    """ "we have 2 evs, a model y and an f150 lightning" then "what about the tesla, its at 50%": the
    second car they named earlier, by its make, for this request (the profile keeps one EV)."""
    said = _CAR_BY_MAKE.search(message)
    held = str(context.known_fields.get("equipment.ev_model") or "")
    if said is None or any(f.field == "equipment.ev_model" for f in facts) or find_vehicle(message):
        return None
    make = said.group("make").lower()
    wanted = re.compile(_MAKE_WORDS.get(make, make), re.I)
    for earlier in reversed(context.said_before(message)):
        for spec, words in vehicles_named(earlier):
            if wanted.search(spec.name) and spec.name.lower() != held.lower():
                return as_said(spec.name, words)
    return None


_SELF_CORRECTION = re.compile(
    r"(?<![\w.])(?P<old>\d+(?:\.\d+)?)(?![\d.])[^,.;\d]{0,20}[,;.]*\s*(?:no\s+wait|wait\s+no|wait|i\s+mean|sorry|actually|no|oops|"
    r"make\s+(?:it|that)|correction|scratch\s+that)[,:]?\s+(?:its\s+|it'?s\s+)?(?:(?:just|only)\s+)?"
    # "2 powerwalls, wait no just 1", "… no wait, just one"
    r"(?P<new>\d+(?:\.\d+)?(?![\d.])|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b)",
    re.I,
)


def _number(said: str) -> float:
    """A number as digits or a word ("one")."""
    return float(NUMBER_WORDS.get(said.lower(), 0)) if said.isalpha() else float(said)


def _corrected_in_place(fact: StatedFact, message: str) -> StatedFact:
    """ "our charger runs at 32 amps, no wait 24, just checked the app": the number they corrected
    themselves to, in the same units (a number the fact was read from, then the one after the cue)."""
    value = fact.value
    if fact.field == "location.zip_code":
        # "zip 89123 sorry 89128": the ZIP they corrected themselves to
        for match in _SELF_CORRECTION.finditer(message):
            if match.group("old") == value and len(match.group("new")) == 5 and zip_place(match.group("new")):
                return fact.model_copy(update={"value": match.group("new"), "said": match.group("new")})
        return fact
    if isinstance(value, bool) or not isinstance(value, int | float):
        return fact
    for match in _SELF_CORRECTION.finditer(message):
        old, new = float(match.group("old")), _number(match.group("new"))
        if value == new:
            return fact  # already the value they corrected themselves to ("i said 7 kw but its actually 7.2")
        if old > 0 and fact.said and match.group("old") in fact.said and old != new:
            corrected = round(value / old * new, 2)
            return fact.model_copy(
                update={
                    "value": int(corrected) if isinstance(value, int) else corrected,
                    "said": match.group(0),
                }
            )
    return fact


# "run it", "turn that on", "crank it": a thing one runs, not a car one charges
_RUN_IT = re.compile(r"\b(?:run|use|turn\s+on|crank|leave|set)\s+(?:it|that|them|those)\b", re.I)


def _appliance_referred_to(message: str, context: ReadingContext) -> str | None:
    """ "we put in a heat pump" then "should i run it harder overnight when its cheaper": the
    appliance "it" stands for is the one the last two things they said named."""
    if not _RUN_IT.search(message):
        return None
    for earlier in reversed(context.said_before(message)[-2:]):
        appliance = read_params(earlier).appliance
        if appliance is not None:
            return appliance
    return None


def _the_car_they_got(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "test drove a model 3 today …" then "ok we bought it!!": the car of the last two things they
    said is theirs now (never a car someone else has, and only when this message names no other)."""
    got = _GOT_IT.search(message)
    if not got or find_vehicle(message) is not None:
        return []
    if any(clause.hypothetical or clause.question for clause in clauses(message[: got.end()])):
        return []  # "if we got one would a 40 amp charger be enough": not bought
    for earlier in reversed(context.said_before(message)[-2:]):
        named = vehicles_named(earlier)
        if named:
            if len({spec.name for spec, _ in named}) > 1:
                return []  # "test drove an ioniq 5 and a model y": which one they got is not said
            spec, words = named[0]
            return [_car_said(spec, words, message, confidence=0.8)]
    return []


_CHOSE_SIZE = re.compile(
    r"\b(?:went|go|going|gone)\s+(?:w/?|with)\s+(?:the\s+)?(?P<n>\d{1,2}(?:\.\d+)?)\s*(?:kw)?\b(?!\s*(?:amps?|a\b|kwh|%))",
    re.I,
)
_INSTALLED_NOW = re.compile(
    r"\binstall(?:ed|er\s+finished)|\bput\s+in\b|\bfinished\b|\bup\s+and\s+running\b|\bwent\s+live\b|"
    r"\bturned\s+on\b|\bpto\b|\bdone\b",
    re.I,
)


def _the_size_they_chose(message: str, context: ReadingContext) -> list[StatedFact]:
    """ "what would 8 or 10 kw make" then "ok we went w the 10, got installed last month": the size
    they chose, installed, is their panels' (only while solar is what was talked about)."""
    chose = _CHOSE_SIZE.search(message)
    if chose is None or not _INSTALLED_NOW.search(message):
        return []
    solar_talk = context.last_topic == "solar" or (
        context.last_params is not None and context.last_params.system_kw is not None
    )
    if not solar_talk:
        return []
    return [
        StatedFact(
            field="equipment.solar_capacity_kw",
            value=float(chose.group("n")),
            said=chose.group(0),
            unit="kW",
            words=message[:500],
            confidence=0.8,
        )
    ]


_PRODUCE_ASKED = re.compile(r"\b(?:make|makes|produce|produces|generate|generates|do|output)\b", re.I)


def _asked_place(found: list[Clause], facts: list[StatedFact]) -> str | None:
    """A town a question is about ("what would 7 kW make per year in san diego?", "whats the low
    tomorrow in 04101"): the answer's place for this request only (the user may not live there),
    never a profile fact."""
    if any(f.field.startswith("location.") for f in facts):
        return None
    for clause in found:
        if not clause.question:
            continue
        for code in _IN_ZIP.findall(clause.text):
            if (place := zip_place(code)) is not None:
                return f"{place.name}, {place.state}"
        if (town := _town_named_in(clause.text)) is not None:
            return town
    return None


def _their_place(found: list[Clause], facts: list[StatedFact], params: RequestParams) -> str | None:
    """ "my brother in austin just got 10kw of solar. what would that make in a year": the size
    asked about is someone else's, so the answer is for their town (never saved as ours); so is a
    place they are looking at buying ("a ranch near dillon mt w 10kw of solar already on it")."""
    if params.system_kw is None or any(f.field.startswith("location.") for f in facts):
        return None
    return next(
        (
            town
            for clause in found
            if (clause.someone_else or clause.hypothetical) and (town := _town_named_in(clause.text))
        ),
        None,
    )


_STATE_IN = re.compile(
    r"\b(?:in|for|around|across|out\s+here\s+in|here\s+in)\s+(?:the\s+state\s+of\s+)?(?P<state>"
    + "|".join(sorted((re.escape(name) for name in STATE_NAMES), key=len, reverse=True))
    + r")\b",
    re.I,
)


# a unit said with the number ("its 40 miles not 60", "48 amps not 40"): the same number
_UNIT = r"(?:%|\s*(?:percent|miles?|mi|kwh|kw|amps?|people|hours?|hrs?)\b)?"
_NUMBER_IN_PLACE = re.compile(
    r"(?P<new>\d{1,3}(?:\.\d+)?)"
    + _UNIT
    + r"\s*,?\s*(?:not|instead\s+of|rather\s+than)\s+(?P<old>\d{1,3}(?:\.\d+)?)\b|"
    r"\bnot\s+(?P<old2>\d{1,3}(?:\.\d+)?)\s*%?\s*[,;]?\s*(?:(?:its|it's|it\s+is|but|it\s+was)\s+)?(?P<new2>\d{1,3}(?:\.\d+)?)\b",
    re.I,
)


# how long a charge takes, asked: "how long for 10 to 80", "how many hours to fill it", "can i just
# charge on the regular 120v outlet" (whether an outlet is enough is its hours)
_DURATION_ASKED = re.compile(
    r"\bhow\s+(?:long|many\s+hours)\b(?![^.?!]{0,40}\b(?:last|run|power|keep|back\s*up)\b)|"
    r"\b(?:can|could)\s+(?:i|we)\s+(?:just\s+)?(?:charge|plug)\b[^.?!]{0,40}\b(?:outlet|120\s*v|240\s*v|wall\s+plug|"
    r"level\s*(?:1|one|2|two)|l[12])\b",
    re.I,
)
_CHARGE_DURATION = re.compile(
    r"\bhow\s+(?:long|many\s+hours)\b[^.?!]{0,40}?\b(?:to|will|would|does|do|it|take)\b[^.?!]{0,30}?\bcharg\w*",
    re.I,
)
_ASKS_ACTION = re.compile(
    r"^\W*(?:(?:ok|so|hey|hi)\W+)*(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+|just\s+)?"
    r"(?:set|turn|pay|call|book|schedule|order|buy|cancel|adjust|lower|raise|email|text|contact|sign\s+me|control|unlock|program|"
    # "ok can u switch me then lol", "can you change my plan": a deed at the utility, not ours to do
    r"switch\s+(?:me|us|my|our|it)|change\s+(?:my|our)\s+(?:plan|rate|provider|utility)|enroll|sign\s+us)\b",
    re.I,
)
_SETPOINT_ASKED = re.compile(
    r"\b(?:what|which)\s+(?:temp(?:erature)?|setting|number)\s+(?:should|do|would|to)\s+(?:i|we)?\s*(?:set|keep|put|leave|run)\b|"
    r"\b(?:should|do)\s+(?:i|we)\s+(?:set|keep|put|leave|turn)\s+(?:it|the\s+(?:thermostat|heat|ac|a/c|heat\s+pump))\s+"
    r"(?:to|at|down|up|lower|higher)\b",
    re.I,
)
_SUN_WORDS = re.compile(
    r"\b(?:solar|panels?|array|pv|inverter|roof|produc\w*|generat\w*|make|making|made|sun\w*|cloud\w*|kw)\b",
    re.I,
)
# words that point back at what was said before; the "it" of "is it better to …" points at nothing
# "is solar worth it in florida": "worth it" of a subject named in the message points at nothing
# said before ("is it worth it" does)
_OWN_SUBJECT_WORTH = re.compile(
    r"(\b(?:is|are|would|will)\s+(?!(?:it|that|this|those|these|they|them|one)\b)[a-z][\w-]*(?:\s+[\w-]+){0,4}?\s+worth)\s+it\b",
    re.I,
)
_POINTS_BACK = re.compile(
    r"^\W*(?:and|but|so|also)\b|\b(?:what|how)\s+about\b|"
    r"\b(?:that|this|those|these|them|there|one|ones)\b|"
    # "how long do they last" after a question about heat pumps: they are what was just asked about
    r"^\W*(?:\w+\W+){0,3}they\b(?:\W+\w+){0,4}\W*$|"
    r"\bit\b(?!\s*(?:'?s\s+)?(?:is\s+|be\s+)?(?:better|worth|bad|ok|okay|safe|possible|cheaper|true|normal|smart|wise|"
    r"best|necessary|fine|good|legal|cheapest|expensive|hard|easy)\b)",
    re.I,
)
_HOME_BATTERY_CHARGE = re.compile(
    r"\b(?:charg\w*|fill\w*|top\w*\s+(?:up|off))\s+(?:up\s+)?(?:the|my|our|a)?\s*(?:power\s*walls?|home\s+batter(?:y|ies)|batter(?:y|ies)\s+(?:bank|storage)|"
    r"enphase|franklin|encharge|base\s+power)\b|\b(?:power\s*walls?|home\s+batter(?:y|ies))\b[^.?!]{0,30}\bcharg",
    re.I,
)
# "should i set the powerwall to backup only", "put the batteries in storm mode": how a home battery
# is set, explained (no car's plan)
_BATTERY_SETTING = re.compile(
    r"\b(?:power\s*walls?|home\s+batter(?:y|ies)|batter(?:y|ies))\b[^.?!]{0,25}?\b(?:to|in|on|into)\s+"
    r"(?:backup|back-up|reserve|self[-\s]?powered|storm|time[-\s]based|grid[-\s]charg\w*)",
    re.I,
)
# "how long will a 13.5 kwh battery run the fridge", "how long would one run the house overnight":
# what a home battery keeps going, explained (no car's plan, no appliance's verdict)
_BATTERY_RUNTIME = re.compile(
    r"\bhow\s+long\s+(?:will|would|could|can|does|do|might|'?ll)\s+(?:a|an|the|my|our|one|two|2)?\s*(?:[\d.]+\s*kwh\s+)?"
    r"(?:(?:home\s+)?batter(?:y|ies)|power\s*walls?)\s+(?:run|last|power|keep|back\s*up|cover|carry|hold|get)\b|"
    r"\bhow\s+long\s+(?:will|would|could|can|does|might|'?ll)\s+(?:one|it|that|they|those)\s+(?:run|power|keep|last)\s+"
    r"(?:(?:the|my|our)\s+)?(?:house|home|fridge|freezer|essentials|lights|well\s+pump|through|overnight|in\s+an?\s+outage)\b",
    re.I,
)
_TIME_IN_PLACE = re.compile(
    r"\b(?P<new>\d{1,2})\s*(?P<new_half>[ap])\.?m\.?\s*,?\s*(?:not|instead\s+of|rather\s+than)\s+"
    r"(?P<old>\d{1,2})\s*(?P<old_half>[ap])\.?m\.?(?!\w)",
    re.I,
)


def _hour(number: str, half: str) -> float:
    return float(int(number) % 12 + (12 if half.lower() == "p" else 0))


def _swapped(message: str) -> tuple[float, float] | None:
    """ "wait no its 35% not 25": the number meant, and the one it replaces; "meant 7 pm not 7 am":
    the hours (19 for 7)."""
    time = _TIME_IN_PLACE.search(message)
    if time is not None:
        return _hour(time.group("new"), time.group("new_half")), _hour(
            time.group("old"), time.group("old_half")
        )
    match = _NUMBER_IN_PLACE.search(message)
    if match is None:
        return None
    new, old = (
        (match.group("new"), match.group("old"))
        if match.group("new")
        else (match.group("new2"), match.group("old2"))
    )
    return float(new), float(old)


# what may follow "in" without naming a place: "in the morning", "in july", "in 3 days", "in general"
_NOT_A_PLACE = frozenset(
    "the a an my our your his her their this that these those general total advance case time town here there "
    "winter summer spring fall autumn january february march april may june july august september october "
    "november december jan feb mar apr jun jul aug sep sept oct nov dec next coming about like around "
    "degrees celsius fahrenheit kw kwh hours hour days day weeks week minutes morning afternoon evening "
    "a.m am pm p.m terms short full half real person mind order fact addition particular case f c".split()
)


_AFTER_IN = re.compile(r"\bin\s+(?P<word>[A-Za-z][A-Za-z'-]+)(?P<more>(?:\s+[A-Za-z][A-Za-z'-]+){0,2})")


# "cant plug in till after 10pm", "the ac kicks in around noon": "in" of a verb, no place after it
_VERB_BEFORE_IN = re.compile(
    r"\b(?:plug(?:s|ged|ging)?|kick(?:s|ed|ing)?|come|comes|coming|came|get|gets|got|log(?:s|ged)?|"
    r"check(?:s|ed)?|chip(?:s|ped)?|opt(?:s|ed)?|sign(?:s|ed)?|lock(?:s|ed)?|fill(?:s|ed)?|turn(?:s|ed)?|"
    r"phase(?:s|d)?|factor(?:s|ed)?|give|gives|gave|drop(?:s|ped)?|cut(?:s)?|pay(?:s)?|paid)\s+$",
    re.I,
)


def _place_abroad(message: str) -> bool:
    """ "whats the weather in cancun next week": a name after "in" that is no US town, city or
    state (nothing to forecast; a town in several states is still ours to ask about)."""
    for match in _AFTER_IN.finditer(message):
        first = match.group("word").lower()
        if first in _NOT_A_PLACE or first in STATE_NAMES or _VERB_BEFORE_IN.search(message[: match.start()]):
            continue
        words = [first, *match.group("more").lower().split()]
        if not any(is_us_town_name(" ".join(words[:size])) for size in range(len(words), 0, -1)):
            return True
    return False


def _state_named_in(text: str) -> str | None:
    """ "is geothermal worth it in wisconsin", "rebates for insulation in minnesota": the state a
    question is about (for which documents apply), never a profile fact."""
    match = _STATE_IN.search(text)
    return STATE_NAMES[match.group("state").lower()] if match else None


def _town_named_in(text: str) -> str | None:
    """ "… in san diego", "near austin": the first known town after "in"/"for"/"near"/"around",
    as "Town, ST" (the longest name that is one, up to four words)."""
    for lead in re.finditer(r"\b(?:in|for|near|around)\s+", text, re.I):  # each one: "in a year in san jose"
        match = _IN_PLACE.match(text, lead.start())
        if match is None:
            continue
        words = match.group("place").strip(" .").split()
        for size in range(min(len(words), 4), 0, -1):
            place = find_city(" ".join(words[:size])) or find_town(" ".join(words[:size]), asked=True)
            if place is not None:
                return f"{place.name}, {place.state}"
    return None


# "whichever one is the default", "whatever dte put us on", "just assume the normal one"
_WEIGHED_AGAINST = re.compile(
    r"\b(?:vs\.?|versus|compared\s+(?:to|with)|than|against|or\s+(?:the|a|stay))\b", re.I
)
_DEFAULT_PLAN = re.compile(
    r"\b(?:whatever|whichever|the)\s+(?:one\s+|plan\s+|rate\s+)?(?:is\s+the\s+)?(?:default|normal|standard|usual|regular)\b"
    # "the regular 120v outlet", "a standard wall plug": a socket, not a plan
    r"(?!\s+(?:\d+\s*v\b|\d+\s*volt|wall|outlet|plug|socket|household|house\s+(?:outlet|plug|current)|120|240|cord|charger|"
    r"level|l1|l2|one\s+(?:outlet|plug)))|"
    r"\bwhatever\s+(?:\w+\s+){0,2}(?:put|gave|has|set)\s+(?:us|me)\b|\b(?:assume|use)\s+the\s+(?:normal|default|usual|standard)\b|"
    r"\bwhatever\s+(?:fixed|flat)\s+rate\b",
    re.I,
)


# "were on the TOU-REO plan i think?", "the overnight plan maybe": a plan named, however unsure
# (not known to them at all: "not sure what plan", "whatever the normal plan is")
# "were on …", "i'm still on …": the plan they are on, said
ON_A_PLAN = re.compile(r"\b(?:we'?re|were|i'?m|im|we\s+are|i\s+am)\s+(?:currently\s+|still\s+)?on\b", re.I)
A_PLAN_NAMED = re.compile(
    r"\b(?:on|called|it'?s|its)\s+(?:the\s+|a\s+)?(?!(?:a|the|regular|normal|default|standard|usual|basic|any|which|what|"
    r"whatever|whichever|some|that|this|same|right|wrong|cheapest|best|other|one)\b)[\w/-]+(?:\s+[\w&/-]+){0,3}\s+(?:plan|rate)\b",
    re.I,
)


def _unsure_plan_named(found: list[Clause], facts: list[StatedFact]) -> list[Mention]:
    """A plan named with a doubt that no table knows: said back as not saved, never "skipped"."""
    if any(f.field in SLOT_FIELDS["rate_schedule"] for f in facts):
        return []
    unsure = [
        Mention(field="location.rate_schedule", words=clause.text[:500], reason="unverified")
        for clause in found
        if clause.hedged and A_PLAN_NAMED.search(clause.text)
    ][:1]
    # "were on the saver choice plan 4-7pm is peak": a plan of theirs the catalog does not hold,
    # said back as what it is (never "isn't something I keep")
    uncatalogued = [
        Mention(field="location.rate_schedule", words=named.group(0)[:200], reason="uncatalogued")
        for clause in found
        if not (
            clause.hedged or clause.question or clause.someone_else or clause.hypothetical or clause.negated
        )
        and (named := A_PLAN_NAMED.search(clause.text)) is not None
        and ON_A_PLAN.search(clause.text)
    ][:1]
    return unsure or uncatalogued


# "oops earlier i said 4 of us, its 5", "when i said the leaf was 40 kwh i meant 62, its the plus":
# what they said before, quoted, then the number they meant in its place
_SAID_THEN_MEANT = re.compile(
    r"\b(?:earlier\s+|before\s+|when\s+)?(?:i|we)\s+(?:said|told\s+(?:you|u)|put|typed|wrote)\s+(?:that\s+)?"
    r"(?P<old>[^,;.]*?(?<![\d.])(?P<number>\d+(?:\.\d+)?)(?![\d.])[^,;.]*?)"
    r"\s*,?\s*(?:but\s+)?(?:its|it'?s|it\s+is|i\s+meant|meant|should\s+be)\s+(?:actually\s+|really\s+)?"
    r"(?P<new>\d+(?:\.\d+)?)(?![\d.])",
    re.I,
)


def _what_they_meant(message: str) -> str:
    """The message with a quoted old value put right: "earlier i said 4 of us, its 5" is read as
    "5 of us" (the old words, with the number they meant)."""
    said = _SAID_THEN_MEANT.search(message)
    if said is None:
        return message
    old, number = said.group("old"), said.group("number")
    at = said.start("number") - said.start("old")
    meant = old[:at] + said.group("new") + old[at + len(number) :]
    before = message[: said.start()]
    if re.fullmatch(r"\W*(?:(?:oops|sorry|actually|wait|no|ok|okay|so|um|uh)\W*)*", before, re.I):
        before = ""  # ("oops earlier i said …": the apology is no doubt about what they meant)
    return before + meant + message[said.end() :]


# "oh and a powerwall", "plus a level 2 charger": one more thing, in a verbless fragment
_AND_ONE_MORE = re.compile(
    r"^\W*(?:(?:oh|ah|and|plus|also|oh\s+yeah|oh\s+yea)\W+)*(?:and|plus|also)\W+"
    r"(?P<rest>(?:a|an|one|two|three|\d+(?:\.\d+)?)\b[^?]{1,40}?)\W*(?:too|as\s+well)?\W*$",
    re.I,
)
_VERB_OR_QUESTION = re.compile(
    r"\b(?:is|are|was|were|do|does|did|can|could|would|should|will|what|when|how|which|why|if|"
    r"my|our|his|her|their|dad'?s|mom'?s)\b",
    re.I,
)
_THEIRS_SAID = re.compile(
    r"\b(?:i|we)\s*(?:'ve|'re|\s+have|\s+got|\s+own|\s+drive|\s+just\s+got)\b|\b(?:my|our)\b", re.I
)


_PRICE_TALK = re.compile(r"\b(?:pay|price|rate|charge[sd]?)\b[^.?!]{0,25}\b(?:kwh|kilowatt)", re.I)


def _price_asked_for(message: str, context: ReadingContext) -> str | None:
    """ "idk what we pay per kwh" (or our answer asking what they pay per kWh) then "its like 11
    cents": a short reply is read as the answer to the price-or-plan question."""
    if len(message.split()) > 8:
        return None
    said = context.said_before(message)[-1:]
    ours = [line for line in context.recent[-2:] if line.startswith("advisor: ")]
    asked = any(_PRICE_TALK.search(line) for line in said) or any(
        "what you pay per kWh" in line for line in ours
    )
    # "compare my plan to the time of use one" … "found it, says RS": their plan, looked up on the bill
    looked_up = _LOOKED_UP.search(message) is not None and any(
        re.search(r"\b(?:plan|rate|bill)\b", line, re.I) for line in context.said_before(message)[-2:]
    )
    return "rate_schedule" if asked or looked_up else None


_LOOKED_UP = re.compile(r"\b(?:found\s+it|(?:it|bill)\s+says|says)\b", re.I)


def _more_of_what_they_have(message: str, context: ReadingContext) -> str:
    """ "we've got 8 kw of panels" then "oh and a powerwall": the fragment continues what they said
    they have, so it is read as "we also have a powerwall" (only right after a statement of theirs)."""
    more = _AND_ONE_MORE.match(message)
    if (
        more is None
        or _VERB_OR_QUESTION.search(more.group("rest"))
        or context.last_intent != "profile_statement"
    ):
        return message
    earlier = context.said_before(message)
    if not earlier or not _THEIRS_SAID.search(earlier[-1]):
        return message
    said = clauses(earlier[-1])
    if any(c.someone_else or c.question or c.hypothetical or c.negated or c.hedged for c in said):
        return message  # "my dad has solar" then "and a powerwall": his, not theirs
    return "we also have " + more.group("rest")


def _said_otherwise(
    message: str, context: ReadingContext, mentions: list[Mention], params: RequestParams
) -> list[StatedFact]:
    """A value said in a shape the clause reader leaves: a number or name put in place of ours, the
    car they got, the size they chose, a Powerwall count, their car's trim."""
    return (
        _corrected_number(message, context, params)
        or _earlier_number_put_right(message, context)
        or _value_in_place(message, context, mentions)
        or _the_car_they_got(message, context)
        or _the_size_they_chose(message, context)
        or _just_one_powerwall(message, context)
        or _more_powerwalls(message, context)
        or _trim_of_their_car(message, context)
    )


# "standard residential i guess", "the normal one", "not the hourly pricing thing", "never changed
# it": their plan is the utility's standard one, with one price at every hour
_ONE_PRICE_PLAN = re.compile(
    r"\b(?:standard|normal|regular|basic|plain|default|usual|ordinary)\s+(?:residential|res|resi|home|household|"
    r"plan|rate|one|service|schedule)\b(?!\s+(?:\d+\s*v\b|outlet|plug|socket|charger|level))|"
    r"\bresidential\s+(?:standard|service|basic|regular)\b|"
    r"\b(?:not|isn'?t|aren'?t)\s+(?:on\s+)?(?:the\s+|a\s+|any\s+)?(?:time[-\s]of[-\s]use|tou|hourly|peak|smart)\b|"
    r"\bno\s+(?:time[-\s]of[-\s]use|tou|hourly\s+pricing|peak\s+pricing)\b|"
    r"\bnever\s+(?:changed|switched)\s+(?:it|plans?|the\s+plan|anything)\b",
    re.I,
)


_OFFERS_A_PLAN = re.compile(
    r"\b(?:has|have|offers?|got|runs?)\s+(?:a|an|some|the|this|that)\s+(?:[\w&-]+\s+){0,4}?(?:plans?|rates?|programs?)\b",
    re.I,
)


def _plan_unknown(found: list[Clause], facts: list[StatedFact]) -> bool:
    """ "idk the plan, whatever is normal", "not sure what plan we're on", "whichever one is the
    default": the rate plan is not known to them (answered ahead, or after we assumed one)."""
    if any(f.field in SLOT_FIELDS["rate_schedule"] for f in facts):
        return False
    # "its a bolt euv not the regular one": the regular one is the thing they named, not a plan
    equipment = any(f.field.startswith("equipment.") for f in facts)
    return any(
        (
            clause.hedged
            and _PLAN_WORDS.search(clause.text)
            and not A_PLAN_NAMED.search(clause.text)
            # ("georgia power has some nights and weekends plan right?": a plan the utility offers, asked)
            and not _OFFERS_A_PLAN.search(clause.text)
        )
        or (
            _DEFAULT_PLAN.search(clause.text)
            and not (equipment and not _PLAN_WORDS.search(clause.text))
            # "is hourly pricing worth it vs the regular plan": the regular plan weighed, not theirs unknown
            and not (clause.question and _WEIGHED_AGAINST.search(clause.text))
        )
        for clause in found
    )


def _someone_else(found: list[Clause], facts: list[StatedFact], mentions: list[Mention]) -> list[Mention]:
    """ "my brother has solar": nothing to read, but say why nothing was kept."""
    if facts or mentions or not any(c.someone_else for c in found):
        return mentions
    return [Mention(field="", words=c.text[:500], reason="someone_else") for c in found if c.someone_else]
