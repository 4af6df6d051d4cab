"""What the advisor says when no model writes the answer: greetings, off-topic, what it knows, and
why something was not saved. Shared by the nodes that answer without a model."""

from __future__ import annotations

from advisor.understanding.models import Understanding
from profiles.models import SECTION_MODELS, UserProfile
from profiles.wording import DERIVED_FIELDS, join, statement

GREETING = (
    "Hi! I can plan EV charging around your rates, tell you what your solar will make today, and explain "
    "things like heat pumps or time-of-use pricing. What would you like to know?"
)
# A new user's greeting: what the advisor does, and what to tell it (an invitation, not a question
# that holds anything up: onboarding asks only what an answer needs)
FIRST_GREETING = (
    "Hi! I'm your home energy advisor. I can plan EV charging around your rates, tell you what your "
    "solar will make, and explain things like heat pumps or time-of-use pricing. Tell me your ZIP code "
    "and utility whenever you like (I'll remember them), or just ask a question."
)
# "what can you do": what the advisor does, with questions to try (not the greeting said again)
CAPABILITIES = (
    "Here's what I can do for your home:\n"
    "- plan EV charging around your rates (when to plug in, what it costs, how long it takes)\n"
    "- tell you whether to run the dryer, dishwasher or pool pump now or later\n"
    "- show today's or tomorrow's prices and peak hours, and compare your utility's rate plans\n"
    "- estimate what your solar makes (tomorrow, or a typical year for a size)\n"
    "- explain heat pumps, insulation, batteries, net metering, rebates and tax credits\n"
    "I remember what you tell me about your home, and you can ask what I've saved or have me forget it. "
    'Try "When should I charge my EV tonight?" or "Is a heat pump cheaper to run than gas?"'
)
GOODBYE = "Bye! Thanks for chatting."
THANKS_REPLY = "You're welcome! Ask me anything else about your energy use whenever you like."
# "ok good", "lol perfect" after an answer: taken as said, not greeted again
ACKNOWLEDGED_REPLY = "Glad that helps. Anything else I can work out for you?"
QUESTION_COMING_REPLY = "Sure, go ahead: what would you like to know?"
# our question about the place or the car passed over with the same request again: answered anyway
IGNORED_LEAD = "I'll go ahead with what I have. "
OFF_TOPIC = (
    "That's outside what I can help with: I'm a home energy advisor. I plan EV charging around your "
    "rates, tell you when to run appliances, estimate your solar, and explain things like heat pumps "
    'and time-of-use pricing. Try "When should I charge my EV tonight?" or "Is a heat pump cheaper '
    'to run than gas?"'
)
HIRE = (
    "I can't recommend particular contractors or businesses: I have no listings or reviews. Utility "
    "rebate programs often list the contractors who take part in them. I can explain what the work "
    "involves, so you know what to ask for in a quote."
)
DISPUTED = (
    "I can't check that against your bill. Here is what I used and where it comes from; where your "
    "utility's rate page or your bill says otherwise, they're right, and if you tell me your plan's "
    "name I'll use its hours."
)
DEED = (
    "I can't act on your accounts or devices: I can't switch your rate plan, pay a bill or change a "
    "thermostat for you. Your utility switches plans (its website or the number on your bill); once "
    "you've switched, tell me the new plan and I'll use it. I can compare your plans, tell you when to "
    "run things, or explain how the settings work."
)
IN_SPANISH = (
    "Lo siento: por ahora solo puedo responder en inglés. Sorry, I can only answer in English for now. "
    'Try, for example: "my bill is very high, what can I do?" or "when should I charge my car?"'
)
UNCLEAR = (
    "Sorry, I didn't understand that. I can plan EV charging around your rates, tell you when to run "
    'appliances, estimate your solar and explain energy topics. For example: "When should I charge my '
    'EV?" or "How do heat pumps work?"'
)
FORGET_WHAT = (
    'What should I forget? For example "forget my ZIP code", "forget my car" or "forget everything". '
    "To talk about something else, just ask; nothing is removed until you say what."
)
KEPT_FIELDS = (
    "I keep: your ZIP code or city, utility and rate plan, EV, charger, solar, home battery, heating and "
    "cooling, household size, work schedule and priorities."
)
NOTHING_TO_SAVE = "I couldn't find anything in that I can save. " + KEPT_FIELDS
SAVING_DECLINED_REPLY = (
    "Got it: I won't save anything from this conversation unless you tell me to (\"you can save my "
    'ZIP"). Ask away: what you tell me here is used for your answers here.'
)
NOTHING_KEPT = (
    "Noted. That isn't something I keep in your profile, so I haven't saved it. What would you like to know?"
)
EMPTY_PROFILE = (
    "I don't have anything saved about you yet. Tell me your ZIP code, utility or car "
    "(or ask a question) and I'll remember what you say."
)
# "idk" to the plan an answer priced without one just asked for (a utility with no usual plan)
STANDS_NOTE = (
    "That's fine, my answer above stands: it used your state's average price, and I'll keep using it "
    "until you tell me your plan (it's printed on your bill)."
)
SKIP_NOTE = {
    "location": "Without a ZIP code or city I can't look up your weather or solar; for prices your utility is enough.",
    "utility": "Without your utility I'll use your state's average price once I know where you are (no hour is cheaper at one price).",
    "utility_placed": "Without your utility I'll use your state's average price (no hour is cheaper at one price).",
    "rate_schedule": "I'll use your utility's most common plan if I know it, else your state's average price, and say so.",
    "ev": "I'll plan for a typical EV and say so.",
    "solar_size": "Without your system's size I can't estimate what your panels make.",
}
TOPIC_OF = {  # what a not-saved fact is about, in a few words
    "equipment.ev_model": "the EV",
    "equipment.ev_battery_kwh": "the EV",
    "equipment.ev_charger_kw": "the charger",
    "equipment.solar_capacity_kw": "the solar panels",
    "equipment.has_battery_storage": "the home battery",
    "equipment.battery_capacity_kwh": "the home battery",
    "equipment.heating_type": "the heating",
    "equipment.cooling_type": "the cooling",
    "location.zip_code": "the ZIP code",
    "location.city": "the city",
    "location.utility_provider": "the utility",
    "location.rate_schedule": "the rate plan",
    "location.flat_rate_usd_per_kwh": "your price per kWh",
    "household.occupants": "the household size",
    "household.work_schedule": "the work schedule",
    "household.typical_usage_pattern": "energy habits",
}
_REASONS = {
    "someone_else": "it sounds like it's about someone else's home, and I only keep facts about yours",
    "hypothetical": "it sounds like something you're considering, not something you have",
    "unverified": "you didn't sound sure; tell me once you've checked",
    "part_of_day": "a price for part of the day isn't one price for every hour; tell me your rate plan's name "
    "(it's on your bill) and I'll use its hours",
    "declined": 'you asked me not to save anything in this conversation (say "you can save it" if that '
    "changes)",
    "uncatalogued": "my plan catalog doesn't hold that plan yet (it has PG&E's and SDG&E's), so I can't use its "
    "hours; answers use your utility's usual plan if I know it, else your state's average price, and say so",
}


def not_saved(understanding: Understanding) -> str:
    """Why a statement saved nothing (about someone else, hypothetical, unsure)."""
    reasons = []
    lacks = sorted(
        {TOPIC_OF[m.field] for m in understanding.mentions if m.reason == "lacks" and m.field in TOPIC_OF}
    )
    if lacks:
        reasons.append(
            f"Noted: {join(['no ' + noun.removeprefix('the ') for noun in lacks])}, so there's nothing to save."
        )
    if unkept := unkept_note(understanding):
        reasons.append(unkept)
    for reason, text in _REASONS.items():
        fields = [mention.field for mention in understanding.mentions if mention.reason == reason]
        if fields:
            nouns = join(sorted({TOPIC_OF[field] for field in fields if field in TOPIC_OF}))
            reasons.append(
                f"I haven't saved anything about {nouns}: {text}."
                if nouns
                else f"I haven't saved that: {text}."
            )
    return " ".join(reasons) or NOTHING_KEPT


def unkept_note(understanding: Understanding) -> str:
    """ "we heat w oil", "i have a level 2 charger": heard, and why it is not kept (said beside what
    was saved too)."""
    notes = []
    heat = [
        m.words
        for m in understanding.mentions
        if m.reason == "unkept" and m.field == "equipment.heating_type"
    ]
    if heat:
        notes.append(
            f"Noted: you heat with {heat[0]}. I can keep heating only as gas, electric or a heat pump, "
            "so I haven't saved it."
        )
    if any(m.reason == "unkept" and m.field == "equipment.ev_charger_kw" for m in understanding.mentions):
        notes.append(
            "Noted: a Level 2 charger. Level 2 runs anywhere from about 16 to 48 amps (3.8 to 11.5 kW), "
            "so I haven't saved its power: tell me the amps on the charger or its breaker and I'll use them."
        )
    return " ".join(notes)


def uncatalogued_note(understanding: Understanding) -> str:
    """ "phoenix 85016, aps, were on the saver choice plan (4-7pm peak)": the ZIP and utility saved,
    and the plan said to be heard and why it is not used (it had vanished without a word)."""
    named = [m.words for m in understanding.mentions if m.reason == "uncatalogued"]
    if not named:
        return ""
    return f"Noted: you're {named[0].strip()}. I haven't saved it: {_REASONS['uncatalogued']}."


def unsure_note(understanding: Understanding) -> str:
    """A request that came with an unsure value ("e-26 i think? not 100%"): the answer is given,
    and the value it did not keep is said."""
    fields = [m.field for m in understanding.mentions if m.reason == "unverified"]
    nouns = join(sorted({TOPIC_OF[field] for field in fields if field in TOPIC_OF}))
    about = f"anything about {nouns}" if nouns else "that"
    return f"I haven't saved {about}: {_REASONS['unverified']}."


def second_values(understanding: Understanding) -> str:
    """'a Bolt and a Model 3': the profile keeps one value per field; say which was kept."""
    fields = [m.field for m in understanding.mentions if m.reason == "second_value"]
    if not fields:
        return ""
    nouns = join(sorted({TOPIC_OF.get(field, "that") for field in fields}))
    return (
        f"I can keep only one value for {nouns} for now, so I saved the first one you named; "
        "tell me if it should be the other."
    )


def holds(
    profile: UserProfile | None,
    *,
    lead: str = "Your profile now holds:",
    empty: str = "Your profile is now empty.",
) -> str:
    """'Your profile now holds: your ZIP code is 94110, ...' in plain words."""
    facts = []
    for section in SECTION_MODELS:
        data = getattr(profile, section) if profile else None
        if data is None:
            continue
        for name in SECTION_MODELS[section].model_fields:
            field = f"{section}.{name}"
            value = getattr(data, name)
            if name != "updated_at" and value is not None and field not in DERIVED_FIELDS:
                facts.append(statement(field, value))
    return f"{lead} {join(facts)}." if facts else empty
