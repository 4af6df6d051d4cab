"""Facts a person states about their home, read precisely from one clause at a time.

Precision over recall: a value is only read when the words leave no doubt what it is (a number
with its unit and the thing it belongs to, a name from the utility / vehicle / city tables).
Signs and units are kept as said ("-5 kWh" is -5, and validation refuses it); conversions are
stated as assumptions the reply repeats ("32 A at 240 V ≈ 7.68 kW").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from advisor.energy.catalog import normalize_plan
from advisor.energy.utilities import Utility, find_utility, is_word_alias, utilities_in, utility_by_shape
from advisor.energy.vehicles import find_vehicle, vehicle_spec
from advisor.places import (
    REGION_STATES,
    STATE_NAMES,
    STATE_TIMEZONES,
    distance_km,
    find_city,
    find_town,
    is_real_zip,
    zip_place,
)
from advisor.understanding.models import Mention, StatedFact
from advisor.understanding.text import (
    HOUSEHOLD_MEMBER,
    NEGATION,
    NUMBER_WORDS,
    QUESTION_START,
    STILL_TO_COME,
    WITHDRAWN,
    Clause,
)

# Level 2 chargers run at 240 V; a charger's continuous draw is 80 % of its circuit breaker
# (NEC 625.41, as knowledge/docs/charger-circuit-sizing.md explains: a 40 A breaker feeds 32 A).
VOLTS_L2 = 240
CONTINUOUS_SHARE = 0.8
OUTLET_KW = 1.44  # Level 1: 12 A continuous on a 120 V household outlet
POWERWALL_KWH = 13.5

_NUMBER_WORDS = {
    **NUMBER_WORDS,
    "a single": 1,
    "just one": 1,
}
_NUM = r"(?<![\w.])(-?\d+(?:\.\d+)?)"
VOLTS_L1 = 120
_ON_120_VOLTS = re.compile(r"\b(?:granny|trickle|120\s*-?\s*v(?:olts?)?|level\s*1|l1|wall\s+outlet)\b", re.I)
_COUNT = r"(-?\d+|" + "|".join(_NUMBER_WORDS) + r")"

_CAR_WORDS = re.compile(
    r"\b(?:car|ev|vehicle|tesla|model\s*[3ysx]|truck|its\s+battery|it\s+has|it's\s+got)\b", re.I
)
HOME_BATTERY_WORDS = re.compile(
    r"\b(?:home\s+batter(?:y|ies)|house\s+batter(?:y|ies)|battery\s+storage|backup\s+batter(?:y|ies)|"
    r"storage\s+batter(?:y|ies)|powerwalls?|enphase\s+batter(?:y|ies)|wall\s+battery|solar\s+batter(?:y|ies)|"
    # the home batteries sold beside Tesla's: "a franklin apower", "an encharge 10", "sonnen"
    r"franklin(?:\s+(?:apower|whole\s+home))?|apower|encharge|iq\s+batter(?:y|ies)|sonnen\w*|pwrcell|lg\s+resu|resu)\b",
    re.I,
)
_CHARGER_WORDS = re.compile(
    r"\b(?:charger|wall\s*connector|evse|level\s*2|l2|charging\s+station|wallbox|chargepoint|juicebox|"
    r"charge\s+(?:at|with)|charging\s+(?:at|with)|(?:nema\s+)?(?:14|6)-50(?:\s+(?:outlet|plug|receptacle))?)\b",
    re.I,
)
# the verbs that make a thing theirs: "we just picked up a used mach-e", "i ended up with a bolt"
_ACQUIRED = (
    r"(?:have|has|own|drive|got|bought|purchased|financed|leased|lease|share|use|run|installed|put\s+in|added|"
    r"picked\s+up|took\s+delivery\s+of|ended\s+up\s+with|traded\s+(?:\w+\s+)?for|charge)"
)
_OWN = re.compile(
    # ("we could charge a bolt", "we might get one": a modal says it is not so yet)
    r"\b(?:i|we)\s+(?:(?!(?:could|would|might|should|may|will|can|gonna|wanna|want|plan|hope)\b)\w+\s+)?"
    + _ACQUIRED
    + r"\b|"
    r"\b(?:my|our)\b|\b(?:ours|mine)\s+(?:is|are|'s)\b|"
    # "we just had 3 hyper heat heads put in": had installed for them
    r"\b(?:i|we)\s+(?:just\s+)?(?:had|got)\s+(?:[\w-]+\s+){1,12}?(?:put\s+in|installed|added)\b|"
    # "nvm what i said about the heat pump, its actually a gas furnace": what they told us is theirs
    r"\b(?:i|we)\s+(?:said|told\s+(?:you|u)|mentioned)\b|"
    # "you have us as electric heat, its actually gas": what we hold about them, corrected
    r"\byou(?:'ve)?\s+(?:have|had|got|put|listed|saved)\s+(?:us|me)\b|"
    # "sticking w the gas furnace", "keeping the old furnace": what they have stays
    r"\b(?:sticking|staying|stick|stay)\s+(?:with|w/?)\s+(?:the|our|my)\b|\b(?:keeping|keep)\s+(?:the|our|my)\b|\b(?:i've|we've|ive)\s+got\b|\b(?:i'm|we're|im)\s+(?:driving|running|using)\b|"
    r"^\s*(?:(?:also|now|just|recently|finally)\s+)?(?:drive|own|have|got|bought|leased?|use|run|installed|added|put\s+in|picked\s+up|took\s+delivery\s+of)\b|"
    # "renting in spokane, baseboard heat, no ac": a message about the home they live in
    r"\b(?:renting|rent|live|living)\s+(?:in|at)\b|"
    # "im in columbus oh 43215 gas furnace": where they are, with a ZIP or a state, then their things
    r"\b(?:i'?m|im|we'?re|we\s+are|i\s+am)\s+(?:in|out\s+in|up\s+in|down\s+in)\s+[a-z]+(?:\s+[a-z]+)?,?\s+(?:\d{5}|[a-z]{2}\b)|"
    # "xcel customer in denver, got 8.2kw on the roof and a powerwall": a list item of their own
    # ("hey there, just picked up a used leaf": a greeting, then theirs)
    r"(?<=[,.;!] )(?:(?:also|now|just|recently|finally)\s+)?(?:own|have|got|bought|leased?|installed|added|put\s+in|"
    r"picked\s+up|took\s+delivery\s+of|(?:driving|running|rocking)\s+(?:a|an)\s+(?:used|new|\d{4})\b)\b|"
    # ("im in ridgeland with gas heat": the home they are in, with its heat)
    r"\b(?:we'?re|we\s+are|i'?m|i\s+am)\b[^.?]*\bwith\s+(?:(?:a|an|the)\b|(?:natural\s+)?(?:gas|electric|baseboard|"
    r"propane|oil)\s+(?:heat(?:ing)?|furnace|boiler)\b)|"
    r"\b(?:i|we)\s+(?:just\s+|finally\s+|recently\s+)?had\s+(?:[\w-]+\s+){1,4}(?:installed|put\s+in|added)\b|"  # "we had a second powerwall put in"
    # "heat pump went in tuesday", "the panels got installed in may": installed at their home
    r"\b(?:went|go(?:es)?)\s+in\b(?!\s+(?:the|a|an|to|for)\b)|\b(?:got|was|were|been)\s+(?:installed|put\s+in)\b|"
    r"\b(?:i|we)\s+(?:heat|cool)\s+(?:the\s+house|the\s+home|our\s+(?:house|home|place)|my\s+(?:house|home|place))?\s*(?:with|w/?)(?=\s)",
    re.I,
)


@dataclass(frozen=True)
class Reading:
    """What one clause says, before it is judged to be about the user or not."""

    field: str
    value: str | int | float | bool
    said: str
    unit: str | None = None
    assumption: str | None = None


# "tampa, FPL... wait no, tampa electric": a value taken back inside the clause, the next one meant
_TAKEN_BACK = re.compile(
    r"(?:\.{2,}|[,;:]|\s)\s*(?:wait\s+no|no\s+wait|no\s+sorry|sorry\s+no|i\s+mean|i\s+meant|oops|scratch\s+that|my\s+bad)\b[\s,.:!-]*",
    re.I,
)


def read_clause(
    clause: Clause,
    *,
    message: str,
    pending_slot: str | None = None,
    about_charging: bool = False,
    about_solar: bool = False,
    home_state: str | None = None,
) -> Iterator[Reading]:
    """Every value the clause states, whoever it is about (the caller decides). `about_charging`:
    the conversation is about charging their car (a plain "regular outlet" is then the charger);
    `home_state`: the state of the place the profile holds (a town in two states is the one there).
    A value taken back inside the clause ("FPL... wait no, tampa electric") gives way to the next."""
    back = _TAKEN_BACK.search(clause.text)
    if back is not None and back.start() > 0 and clause.text[back.end() :].strip():
        options = {
            "message": message,
            "pending_slot": pending_slot,
            "about_charging": about_charging,
            "about_solar": about_solar,
            "home_state": home_state,
        }
        meant = list(read_clause(replace(clause, text=clause.text[back.end() :]), **options))
        fields = {reading.field for reading in meant}
        before = read_clause(replace(clause, text=clause.text[: back.start()]), **options)
        yield from [reading for reading in before if reading.field not in fields] + meant
        return
    instead = _INSTEAD.search(clause.text) if WITHDRAWN.match(clause.text) else None
    if instead is not None:
        # "nvm what i said about the heat pump its actually a gas furnace": what is true now is
        # what follows "it's actually", read as said plainly; what is taken back gives nothing
        yield from read_clause(
            replace(clause, text=clause.text[instead.start() :], negated=False),
            message=message,
            pending_slot=pending_slot,
            about_charging=about_charging,
            about_solar=about_solar,
            home_state=home_state,
        )
        return
    text = clause.text
    yield from _zip(text, message=message, pending_slot=pending_slot)
    region = _region(message, home_state)
    yield from _city(text, message=message, pending_slot=pending_slot, region=region)
    yield from _utility(text, pending_slot=pending_slot, region=region, message=message)
    yield from _plan(text, pending_slot=pending_slot)
    yield from _price(text, pending_slot=pending_slot, message=message)
    yield from _vehicle(text, pending_slot=pending_slot, message=message)
    yield from _batteries(text, message=message, pending_slot=pending_slot, about_charging=about_charging)
    yield from _charger(text, message=message, about_charging=about_charging)
    yield from _solar(text, pending_slot=pending_slot, about_solar=about_solar, message=message)
    owns = bool(_OWN.search(message)) or bool(_HOME_WORDS.search(text))
    yield from _heating(text, negated=clause.negated, owns=owns, message=message)
    yield from _cooling(text, negated=clause.negated, owns=owns, message=message)
    yield from _occupants(text)
    yield from _schedule(text, message)
    yield from _usage(text)
    yield from _preferences(text)


# Values a negation turns into an answer ("no AC", "no home battery"): not dropped when negated.
_NEGATION_IS_VALUE = {("equipment.cooling_type", "none"), ("equipment.has_battery_storage", False)}


def facts_in(
    clauses: list[Clause],
    *,
    message: str,
    pending_slot: str | None = None,
    suggested: dict[str, Any] | None = None,
    about_charging: bool = False,
    about_solar: bool = False,
    home_state: str | None = None,
) -> tuple[list[StatedFact], list[Mention]]:
    """Facts about the user, and what looked like a fact but was not one about them (and why).
    `suggested`: values another source already points to (the utility that usually serves their
    ZIP code); a hedged statement of the same value ("sdge i guess" in 92101) is two signals
    agreeing, and is kept."""
    facts: list[StatedFact] = []
    mentions: list[Mention] = []
    for clause in clauses:
        for reading in read_clause(
            clause,
            message=message,
            pending_slot=pending_slot,
            about_charging=about_charging,
            about_solar=about_solar or solar_talk(message),
            home_state=home_state,
        ):
            reason = _not_a_fact(clause, reading, pending_slot=pending_slot)
            if (
                reason == "unverified"
                and suggested
                and suggested.get(reading.field) == reading.value
                # only a short answer ("sdge i guess", "comed i think?"), not an opinion ("I guess
                # sdge is expensive")
                and len(clause.text.split()) <= 4
            ):
                reason = None
            if reason is None and reading.assumption == PART_OF_DAY:
                reason = "part_of_day"  # their price, but not for every hour: said, not saved
            if reason is None and str(reading.value).startswith(UNKEPT):
                reason = "unkept"  # "we heat with oil": theirs, but not a value the profile holds
            if reason is not None:
                # the fuel of heat it cannot keep ("oil"), said back; otherwise the clause
                said = str(reading.value).removeprefix(UNKEPT) if reason == "unkept" else clause.text
                mentions.append(Mention(field=reading.field, words=said[:500], reason=reason))
                continue
            earlier = next((fact for fact in facts if fact.field == reading.field), None)
            if earlier is not None and not _later_value_kept(
                earlier, reading, clause, message, facts, mentions
            ):
                continue
            facts.append(
                StatedFact(
                    field=reading.field,
                    value=reading.value,
                    said=reading.said[:200],
                    unit=reading.unit,
                    words=clause.text[:500],
                    assumption=reading.assumption,
                    household=clause.household,
                )
            )
    if not any(fact.field == "household.occupants" for fact in facts) and not any(
        mention.field == "household.occupants" for mention in mentions
    ):
        # "house is me, my mom and the twins so 4": a list of who lives there, across the commas
        # that split it into clauses ("my mom" alone would be someone else's)
        listed = _listed_household(message) or _couple_and_their_kids(message)
        if listed is not None and listed.value:
            facts.append(
                StatedFact(
                    field=listed.field,
                    value=listed.value,
                    said=listed.said[:200],
                    unit="people",
                    words=message[:500],
                )
            )
    usage = next((f for f in facts if f.field == "household.typical_usage_pattern"), None)
    if usage is not None and _both_ends_of_the_day(message):
        facts.remove(usage)  # "most in the morning and in the evening" (split in two clauses): no one pattern
    # "it's me, my wife and our 3 kids" spans clauses: count the household over the whole message
    plain = all(c.about_user and not c.hedged for c in clauses)
    counted = next((f for f in facts if f.field == "household.occupants"), None)
    whole = next(iter(_occupants(message)), None)
    if counted is not None and whole is not None and whole.value != counted.value:
        # "its just me and my partner": the clause "its just me" alone undercounts
        facts[facts.index(counted)] = counted.model_copy(update={"value": whole.value, "said": whole.said})
        mentions[:] = [
            m for m in mentions if not (m.field == "household.occupants" and m.reason == "second_value")
        ]
    elif counted is not None and whole is None and _OTHER_MEMBERS.search(message.replace(counted.words, " ")):
        # "we live in boston with my husband and his mom": one clause's count leaves someone out
        facts.remove(counted)
    facts.extend(_count_after_change(message, facts))
    if plain and not any(f.field == "household.occupants" for f in facts):
        for reading in _occupants(message):
            facts.append(
                StatedFact(
                    field=reading.field,
                    value=reading.value,
                    said=reading.said,
                    unit=reading.unit,
                    words=message[:500],
                )
            )
    _drop_one_of_two(facts, mentions)
    _one_of_both_cars(facts, mentions, message)
    _household_car_asked_about(facts, mentions, clauses, message)
    return facts, mentions


def _count_after_change(message: str, facts: list[StatedFact]) -> list[StatedFact]:
    """ "forget my mom lol she moved out, its 3 now": who left, and the count now, in two clauses
    (when no clause counted them on its own)."""
    changed = _COUNT_AFTER_CHANGE.search(message)
    if (
        changed is None
        or not _HOUSEHOLD_CHANGE.search(message)
        or _EQUIPMENT_TALK.search(message)
        or any(f.field == "household.occupants" for f in facts)
    ):
        return []
    said = changed.group(0).strip()
    return [
        StatedFact(
            field="household.occupants",
            value=_count(changed.group(1)),
            said=said,
            unit="people",
            words=message[:500],
        )
    ]


# "she needs it charged back up by noon sunday": a charge wanted, a request without its question mark
CHARGE_WANTED = re.compile(
    r"\b(?:needs?|wants?)\s+(?:it|her|his|the\s+car)?\s*(?:charged|full|topped\s+off)\b|\bcharged\s+(?:back\s+)?up\s+by\b",
    re.I,
)
_CHILDS = re.compile(r"\b(?:sons?|daughters?|kids?|teens?|child|children)\b", re.I)
# a car said as the user's own: "i got a lightning", "my car", "our ev"
_OWN_CAR = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:have|has|got|drive|own|bought|leased?|just\s+got)\b|\b(?:my|our)\s+(?:car|ev|truck)\b",
    re.I,
)


def _household_car_asked_about(
    facts: list[StatedFact], mentions: list[Mention], clauses: list[Clause], message: str
) -> None:
    """A household member's car is not saved as the user's when the message asks about it ("my
    husband keeps plugging his mach e in at 5pm, how much is that costing us") or the user names
    their own beside it ("my wife drives a model y and i got a lightning": the Lightning): it is
    the car asked about, kept as a mention for this answer."""
    car = next((f for f in facts if f.field == "equipment.ev_model"), None)
    if car is None or not car.household:
        return
    # a child's car asked about is theirs to plan ("my sons got a used leaf, how long does that
    # take"); a spouse's shares the home and its charger, and stays the household's
    asked = (
        any(c.question for c in clauses) or CHARGE_WANTED.search(message) is not None
    ) and _CHILDS.search(car.words) is not None
    own = next(
        (
            m
            for m in mentions
            if m.field == "equipment.ev_model"
            and m.reason == "second_value"
            and _OWN_CAR.search(m.words)
            and not HOUSEHOLD_MEMBER.search(m.words)
        ),
        None,
    )
    if not asked and own is None:
        return
    facts[:] = [f for f in facts if f.field not in ("equipment.ev_model", "equipment.ev_battery_kwh")]
    mentions.append(
        Mention(field="equipment.ev_model", words=car.words, reason="question" if asked else "someone_else")
    )
    if own is not None:
        found = find_vehicle(own.words)
        if found is not None:
            mentions.remove(own)
            facts.append(
                StatedFact(
                    field="equipment.ev_model",
                    value=as_said(found[0].name, found[1]),
                    said=found[1],
                    words=own.words,
                )
            )


def _later_value_kept(
    earlier: StatedFact,
    reading: Reading,
    clause: Clause,
    message: str,
    facts: list[StatedFact],
    mentions: list[Mention],
) -> bool:
    """Two values for one field in one message: whether the later one is saved (the earlier one
    removed from `facts` when the later replaces it; a second one kept back is mentioned)."""
    pair = {earlier.value, reading.value}
    if pair in ({"Retired", "WFH"}, {"Hybrid", "WFH"}):
        # "we're both retired so we're home all day": being home all day is what retired says;
        # "i work from home mon and fri and go in the other days": from home some days, hybrid
        if reading.value not in ("Retired", "Hybrid"):
            return False
        facts.remove(earlier)
        return True
    if earlier.value == reading.value:
        return False  # the same value said twice
    if earlier.words == clause.text[:500] and re.search(
        r"\bor\b|\bvs\.?(?!\w)|\bversus\b", clause.text, re.I
    ):
        # "48 amp or 40 amp charger, does it matter": two options weighed, neither stated
        facts.remove(earlier)
        mentions.append(Mention(field=reading.field, words=clause.text[:500], reason="hypothetical"))
        return False
    if _the_one_meant(message, earlier.said):
        return False  # "its the leaf we charge, the bolt is my sons": the earlier one is meant
    if _the_one_meant(message, reading.said) or _CHANGED.search(message):
        # "the prius prime and a model 3 but its the model 3 i want to charge": the one they mean;
        # "upgraded from the 5kw array to 9.6 kw", "was a bolt but we traded it for a model 3",
        # "no more sdge, its aps now": the message says the value changed; the later one is now
        facts.remove(earlier)
        return True
    # "a Bolt and a Model 3": the profile keeps one; say so instead of dropping it quietly
    mentions.append(Mention(field=reading.field, words=clause.text[:500], reason="second_value"))
    return False


def _the_one_meant(message: str, said: str) -> bool:
    """ "its the model 3 i want to charge", "the leaf is the one we charge at home": the value said as
    the one they mean, of two named."""
    if not said:
        return False
    name = re.escape(said)
    return (
        re.search(rf"\b(?:it'?s|its|it\s+is)\s+(?:the|our|my)\s+{name}\b", message, re.I) is not None
        or re.search(rf"\b{name}\s+(?:is|'s)\s+the\s+one\b", message, re.I) is not None
    )


# Fields that hold one name: a second, doubted name for one of them leaves the first in doubt too
_ONE_NAME = ("location.rate_schedule", "location.utility_provider", "equipment.ev_model", "location.zip_code")


_ASKS_ABOUT = re.compile(
    r"\W*(?:and\s+|but\s+|so\s+)?(?:is|are|would|will|should|does|do|did|can|could\s+(?:i|we)|what|whats|what's|how|"
    r"which|when|why|where|compare|vs)\b",
    re.I,
)


_BOTH_CARS = re.compile(
    r"\bboth\s+(?:of\s+(?:the|our)\s+)?(?:cars|evs|vehicles|trucks)\b|\bboth\s+of\s+(?:them|em)\b",
    re.I,
)


def _one_of_both_cars(facts: list[StatedFact], mentions: list[Mention], message: str) -> None:
    """ "both cars need 70% by 7:30 tmrw, the ioniq and the bolt": the profile keeps one EV, and
    which of the two is the one to keep they did not say; neither is saved."""
    if not _BOTH_CARS.search(message):
        return
    for fact in [f for f in facts if f.field in ("equipment.ev_model", "equipment.ev_battery_kwh")]:
        facts.remove(fact)
        mentions.append(Mention(field=fact.field, words=message[:500], reason="second_value"))


def _drop_one_of_two(facts: list[StatedFact], mentions: list[Mention]) -> None:
    """ "my partner swears we're on e-tou-c but i'm pretty sure she moved us to EV2-A", "i think
    we're on E-ELEC? could be E-TOU-C honestly": two names for one field, one of them doubted, is
    someone unsure which it is; neither is saved (precision before recall), both are mentioned."""
    for fact in list(facts):
        if fact.field not in _ONE_NAME:
            continue
        doubted = [
            m
            for m in mentions
            if m.field == fact.field
            and m.words != fact.words
            # "could be E-TOU-C honestly" doubts; "is ev2-a better for us?" asks about another one
            and (m.reason == "unverified" or (m.reason == "question" and not _ASKS_ABOUT.match(m.words)))
        ]
        if doubted:
            facts.remove(fact)
            mentions.append(Mention(field=fact.field, words=fact.words, reason="unverified"))


# Words that say a value changed, so of two values for one field the later one is current
_CHANGED = re.compile(
    r"\bfrom\b[^.;!?]{1,40}\bto\b|\b(?:now|anymore|any\s+more|no\s+more|no\s+longer|used\s+to|was|were|"
    r"traded|swapped|replaced|switched|upgraded|moved|sold|instead|not|actually|really|still|take\s+back|gone|totaled|"
    # "a model 3, i mean a model y": the value said again, meant this time
    r"i\s+mean|i\s+meant|wait\s+no|no\s+wait|oops|scratch\s+that|my\s+bad)\b|"
    r"\byou(?:'ve)?\s+(?:have|had|got|put)\s+(?:me|us)\b",
    re.I,
)
# "idk, we pay about 28 cents" / "not sure, around 30 cents" answering the rate-plan question: the
# doubt is about the plan's name, and the price is what they do know.
_PRICE_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|i\s+guess|not\s+sure|no\s+idea|idk|don'?t\s+know|dunno|no\s+clue|might|could\s+be|possibly|"
    r"not|never|don'?t|doesn'?t|isn'?t|wrong)\b",
    re.I,
)
_PLAN_DOUBT = re.compile(
    r"^\s*(?:idk|dunno|no\s+idea|no\s+clue|not\s+sure|i'?m\s+not\s+sure|i\s+don'?t\s+know|don'?t\s+know)"
    r"(?:\s+(?:the\s+)?(?:plan|name|which\s+(?:plan|one)|what\s+(?:plan|it'?s\s+called)))?\s*[,.;:!-]*\s+",
    re.I,
)


# "youve got me as office 9-5", "you have me down as gas heat": what the advisor holds, quoted back
QUOTED_BACK = re.compile(
    # "wait you have me as a leaf?", "hmm why do you have us at 8 kw": a lead before it changes nothing
    r"^\W*(?:(?:wait|hold\s+on|hmm+|huh|um+|uh+|so|ok|why\s+do|why\s+did|how\s+come)[,!.?]*\s+)*(?:you|u)\s*(?:'?ve|\s+have|\s+had|\s+got|'?d)?\s*(?:got\s+)?(?:me|us)\s+(?:down\s+|saved\s+|listed\s+)?"
    r"(?:as|for|at|with|on)\b",
    re.I,
)


# "why i typed aps", "i wrote 40 by mistake": a word they put down, quoted back
_WORD_QUOTED = re.compile(
    # ("we put in 8 kw of solar": what they installed, never a word quoted)
    r"\b(?:i|we|u|you)\s+(?:typed(?:\s+in)?|wrote|put\s+down|entered|said)\s+$",
    re.I,
)


# "… on our roof here in fresno would make": where they are, whatever the clause imagines
_HERE_IN = re.compile(r"\b(?:here\s+in|we'?re\s+in|we\s+are\s+in|i'?m\s+in|(?:we|i)\s+live\s+in)\s+$", re.I)


def _home_said_in(text: str, reading: Reading) -> bool:
    if reading.field not in ("location.city", "location.zip_code") or not reading.said:
        return False
    at = text.lower().find(reading.said.lower())
    return at > 0 and _HERE_IN.search(text[:at]) is not None


def _not_a_fact(clause: Clause, reading: Reading, *, pending_slot: str | None = None) -> str | None:
    if QUOTED_BACK.match(clause.text):
        return "negated"  # the value they say we hold (being corrected), not a new fact: said as not theirs
    if (
        pending_slot == "rate_schedule"
        and reading.field == "location.flat_rate_usd_per_kwh"
        and not clause.someone_else
        and not clause.hypothetical
        and not clause.question
        and (doubt := _PLAN_DOUBT.match(clause.text))
    ):
        rest = clause.text[doubt.end() :]
        if not _PRICE_HEDGE.search(rest):
            return None
    if clause.someone_else and not (
        # "its 5 now that my in-laws moved in": who came or went is their own household's count
        reading.field == "household.occupants" and _HOUSEHOLD_CHANGE.search(clause.text)
    ):
        return "someone_else"
    if clause.hypothetical and STILL_TO_COME.search(clause.text):
        return "hypothetical"  # "our new heat pump is being installed next tuesday": not theirs yet
    said_at = clause.text.lower().find(reading.said.lower()) if reading.said else -1
    if said_at > 0 and _WORD_QUOTED.search(clause.text[:said_at]):
        return "negated"  # "no clue why i typed aps", "i said 7 kw earlier": the word they typed, not a fact
    if (
        reading.field in ("equipment.heating_type", "equipment.cooling_type")
        and said_at >= 0
        and _possessed(clause.text, said_at)
        and not clause.negated
        and not clause.hedged
    ):
        return None  # "would a heat pump save us money vs our gas furnace": their furnace, in a what-if
    if (
        reading.field == "equipment.ev_model"
        and said_at > 0
        and re.search(r"\b(?:my|our)\s+$", clause.text[:said_at], re.I)
        and not clause.negated
        and not clause.hedged
    ):
        return None  # "would a tou plan save me anything w my ioniq 5": their car, in a what-if
    if clause.hypothetical and not _home_said_in(clause.text, reading):
        return "hypothetical"
    if clause.question and not _statement_inside_question(clause.text, reading):
        return "question"
    negation_matters = not reading.field.startswith("preferences.") and reading.field not in (
        "location.zip_code",
        "location.city",
        "household.occupants",
    )
    if (
        clause.negated
        and negation_matters
        and (reading.field, reading.value) not in _NEGATION_IS_VALUE
        and (_negation_reaches(clause.text, reading.said) or WITHDRAWN.match(clause.text) is not None)
        and not _said_instead(clause.text, reading.said)
    ):
        return "negated"  # "take back the working from home thing": withdrawn, whatever it names
    if clause.hedged:
        return "unverified"
    return None


# "nvm what i said about the heat pump its actually a gas furnace": what is true, after what is taken back
_INSTEAD = re.compile(
    r"\b(?:it'?s|its|it\s+is|we\s+have|we'?re\s+on|we\s+are\s+on)\s+(?:actually|really)\b", re.I
)


def _said_instead(text: str, said: str) -> bool:
    """The value is said after "it's actually" in a clause that takes something back."""
    instead = _INSTEAD.search(text)
    at = text.lower().find(said.lower()) if said else -1
    # ("…its actually not gas": the negation after it still holds)
    return (
        WITHDRAWN.match(text) is not None
        and instead is not None
        and at >= instead.end()
        and NEGATION.search(text[instead.end() :]) is None
    )


def _negation_reaches(text: str, said: str) -> bool:
    """Whether the clause's negation is said of this value: "got rid of the gas furnace, heat pump
    went in tuesday" negates the furnace, not the heat pump in the part after the comma."""
    at = text.lower().find(said.lower()) if said else -1
    if at < 0:
        return True
    # "we're not on pge we're smud": a second subject starts a part of its own
    parts = list(re.finditer(r"(?:[^,;]|\s(?!(?:but|we'?re|we\s+are|i'?m|it'?s|its)\b))+", text, re.I))
    part = next((m.group(0) for m in parts if m.start() <= at < m.end()), text)
    return NEGATION.search(part) is not None or len(parts) == 1


# a fragment without a verb or a question word: "7 kw system", "the 48 amp one", "model y"
_FRAGMENT = re.compile(
    r"^[\s,;:-]*(?:(?:a|an|the|its|it's|our|my)\s+)?[\w.-]+(?:\s+[\w.-]+){0,3}\s*[?!.]*\s*$", re.I
)
_NOT_FRAGMENT = re.compile(
    r"\b(?:what|when|how|which|why|where|who|would|could|should|will|can|if|is|are|does|do|vs|or|like)\b",
    re.I,
)


# what the user calls the equipment a field describes, after "my"/"our"
_OWN_THING = {
    "equipment.solar_capacity_kw": r"panels|solar|system|array",
    "equipment.ev_model": r"car|ev|vehicle|truck",
    "equipment.ev_charger_kw": r"charger|wall\s+connector|wallbox",
    "equipment.battery_capacity_kwh": r"battery|batteries|powerwalls?",
    "location.rate_schedule": r"plan|rate|rate\s+plan|tariff",
}


def _trailing_fragment(text: str, at: int, field: str) -> bool:
    """The value stands in a short verbless fragment after the question's last comma, and the
    question speaks of that equipment as the user's ("will my panels do ok then, 7 kw system")."""
    comma = text.rfind(",", 0, at)
    own = _OWN_THING.get(field)
    if comma < 0 or own is None:
        return False
    tail = text[comma + 1 :]
    return (
        bool(_FRAGMENT.match(tail))
        and not _NOT_FRAGMENT.search(tail)
        and re.search(rf"\b(?:my|our)\s+(?:{own})\b", text[:comma], re.I) is not None
    )


# the plan they have, as the other side of a comparison: "than what im on", "vs our current plan"
_AGAINST_THEIRS = re.compile(
    r"\b(?:than|vs\.?|versus|compared\s+(?:to|with)|instead\s+of)\s+(?:(?:what|the\s+(?:one|plan|rate))\s+"
    r"(?:i'?m|im|we'?re|were|i\s+am|we\s+are|i\s+have|we\s+have|i'?ve\s+got|we'?ve\s+got)\b|"
    r"(?:my|our|the)\s+(?:current|existing|present|old)\b)",
    re.I,
)


_ASKED_IF_HELD = re.compile(
    r"^\W*(?:did|do|does|have|has|can)\s+(?:you|u|ya|the\s+bot)\s+(?:\w+\s+)?"
    r"(?:save|saved|store|stored|keep|kept|have|got|get|know|remember|see|note|record)\b"
    r"(?!\s+(?:that\s+)?(?:i|we)\b)",  # ("did u get that i have a model y": said, and asked if heard)
    re.I,
)


def _statement_inside_question(text: str, reading: Reading) -> bool:
    """'With my 11 kW charger, when should I charge?' states the charger inside a question; 'how long
    will a powerwall run my house' does not state a Powerwall (the "my" is the house's)."""
    if _ASKED_IF_HELD.match(text):
        return False  # "did you save my powerwall or nah": whether we hold it, asked
    if reading.field == "location.rate_schedule" and _SWITCH_FROM.search(text):
        return True  # "should i switch from e-tou-c to ev2-a": E-TOU-C is the plan they are on
    at = text.lower().find(reading.said.lower()) if reading.said else -1
    if reading.field == "location.rate_schedule" and at >= 0 and _AGAINST_THEIRS.search(text[at:]):
        return False  # "would ev2-a be cheaper than what im on": weighed against the plan they have
    if (
        reading.field in ("location.zip_code", "location.city")
        and at > 0
        and re.search(
            r"\b(?:here|at\s+(?:my|our)\s+(?:place|house|home)|on\s+(?:my|our)\s+roof|(?:my|our)\s+(?:place|house|home))\s+in\s+$",
            text[:at],
            re.I,
        )
    ):
        return True  # "is it going to freeze tonight here in 55811": where they are
    if at > 0 and re.search(
        r"\b(?:now\s+that|since|because)\s+(?:we|i)\s+(?:have|got|own|bought|drive|leased?)\s+(?:[\w-]+\s+){0,3}$",
        text[:at],
        re.I,
    ):
        return True  # "should i switch to ev2-a now that we have a bolt euv": the car is theirs
    if at > 0 and re.search(
        r"\b(?:switch|switching|change|changing|move|moving|go|going)\s+(?:over\s+)?to\s+$|"
        # "now that we have a 2nd ev am i better off on tou-d-prime": the plan weighed
        r"\bbetter\s+off\s+(?:on|with)\s+(?:the\s+)?$",
        text[:at],
        re.I,
    ):
        return False  # "is it cheaper for me to switch to ev-tou-5 or stay where i am": the plan asked about
    if (
        at > 0
        and re.search(r"\bsince\s+(?:the|our|my)\s+(?:new\s+)?$", text[:at], re.I)
        and re.match(
            r"[\w-]*\s+(?:went\s+in|got\s+(?:put\s+in|installed)|(?:was|were)\s+(?:put\s+in|installed))\b",
            text[at + len(reading.said) :],
            re.I,
        )
    ):
        return True  # "why has our bill gone up since the heat pumps went in": theirs, installed
    if reading.field in (
        "equipment.heating_type",
        "equipment.cooling_type",
        "household.work_schedule",
        "preferences.budget_priority",
        "preferences.comfort_priority",
        "preferences.green_priority",
    ) or re.search(r"\b(?:should|could|would)\s+(?:i|we)\s+(?:get|buy|switch|install|change)\b", text, re.I):
        return False
    if re.search(
        r"\b(?:we'?re|we\s+are|i'?m|i\s+am|i\s+have|we\s+have|i'?ve\s+got|we'?ve\s+got)\b", text, re.I
    ):
        return True
    if at > 0 and _trailing_fragment(text, at, reading.field):
        return True  # "will my panels do ok then, 7 kw system": their system, said after the question
    said = at
    before = text[:said] if said >= 0 else ""
    if reading.field == "equipment.ev_model" and (
        re.search(
            r"\b(?:charge|charging|plug|plugging|plug\s+in|plugging\s+in)\s+(?:in\s+)?(?:my|our)\s+$",
            before,
            re.I,
        )
        # "would a tou plan save me anything w my ioniq 5": the car they would charge on it
        or re.search(r"\b(?:with|w/?|for)\s+(?:my|our)\s+$", before, re.I)
        or (
            # "the" is theirs when the question is about their night: "when should i plug in the ioniq 5 tonight"
            re.search(
                r"\b(?:charge|charging|plug|plugging|plug\s+in|plugging\s+in|need|get)\s+(?:in\s+)?the\s+$",
                before,
                re.I,
            )
            and re.search(r"\b(?:tonight|tomorrow|tmrw|now|rn|today|by\s+\d|before\s+\d|i|we)\b", text, re.I)
        )
    ):
        return True  # "when should i plug in the ioniq 5 tonight": the car they charge is theirs
    if (
        reading.field == "location.utility_provider"
        and re.search(r"\b(?:we|us|our|i|me|my)\b", before, re.I)
        and re.search(r"\b(?:with|w/?|on|from|through|thru)\s+$", before, re.I)
    ):
        return True  # "which plan should we be on w georgia power": the user's utility, asked about
    if (
        reading.field == "location.utility_provider"
        and said >= 0
        and re.match(
            r"'?s?\s+(?:\w+\s+){0,2}(?:plans?|rates?|prices?|tou)\b", text[said + len(reading.said) :], re.I
        )
        and re.search(r"\b(?:for\s+(?:us|me)|we|our|my|i)\b", text[said:], re.I)
    ):
        return True  # "whats georgia power's cheapest plan for us": their utility's plans
    # the possessive belongs to the value: "my 11 kW charger", "our ev2-a plan", "my zip 94110"
    return said >= 0 and _possessed(text, said)


# --- location ------------------------------------------------------------------------------

_ZIP = re.compile(
    r"(?<![\d$.,-])(\d{5})(?:-\d{4})?(?!\d|\.\d|,\d|\s*(?:kwh|kw|miles|mi\b|dollars|bucks|\$|watts|w\b(?!/?\s*[a-z])|%|sq|square|ft|feet|lbs?))",
    re.I,
)
_ZIP_CONTEXT = re.compile(
    r"\b(?:zip|zipcode|postcode|postal|live|living|located|based|in|moved|area|from|at)\b", re.I
)
# A bare five-digit number is a ZIP unless money or a quantity is being talked about.
_NOT_A_ZIP = re.compile(
    r"\b(?:cost|costs|paid|pay|spent|spend|bill|price|drove|driven|miles|mileage|odometer|serial|model\s+number|"
    r"account|order|invoice|phone)\b|\$",
    re.I,
)


_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19",
}  # fmt: skip
_TENS = {
    "twenty": "2",
    "thirty": "3",
    "forty": "4",
    "fifty": "5",
    "sixty": "6",
    "seventy": "7",
    "eighty": "8",
    "ninety": "9",
}


def _spoken_zip(text: str) -> str | None:
    """A ZIP said digit by digit or as voice typing spells it ("5 2 4 0 2", "twenty eight two oh
    five"): the five digits, when one run of number words and single digits makes exactly five."""
    tokens = re.findall(r"[a-z]+|\d", text.lower())
    best: list[str] = []
    run: list[str] = []
    for index, token in enumerate([*tokens, ""]):
        if token.isdigit():
            run.append(token)
        elif token in _DIGIT_WORDS:
            run.append(_DIGIT_WORDS[token])
        elif token in _TENS:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            unit = _DIGIT_WORDS.get(following, "")
            run.append(
                _TENS[token] + ("" if len(unit) == 1 and following not in ("oh", "o", "zero") else "0")
            )
        elif run:
            if len("".join(run)) == 5 and len(run) >= 3:
                best = run
            run = []
    code = "".join(best)
    return code if len(code) == 5 else None


def _only_number_words(message: str) -> bool:
    """ "twenty eight two oh five" as a whole message: a number said and nothing else (a ZIP when
    it makes five digits)."""
    tokens = re.findall(r"[a-z]+|\d", message.lower())
    return len(tokens) >= 3 and all(t.isdigit() or t in _DIGIT_WORDS or t in _TENS for t in tokens)


_NOT_HOME_ZIP_AFTER = re.compile(
    r"\s*(?:is|'s)\s+(?:just\s+|only\s+)?(?:the|my|our|a)?\s*(?:p\.?\s*o\.?\s*box|post\s+office|mailing|work|office|"
    r"business|billing|job)\b",
    re.I,
)


def _zip(text: str, *, message: str, pending_slot: str | None) -> Iterator[Reading]:
    if not _ZIP.search(text) and (
        pending_slot == "location" or re.search(r"\bzip\b", text, re.I) or _only_number_words(message)
    ):
        # "zip is 5 2 4 0 2", "twenty eight two oh five" answering the ZIP question
        spoken = _spoken_zip(text)
        if spoken is not None and is_real_zip(spoken):
            yield Reading("location.zip_code", spoken, said=spoken)
            return
    for match in _ZIP.finditer(text):
        code = match.group(1)
        alone = re.fullmatch(r"\s*\d{5}(?:-\d{4})?\s*[.!]?\s*", message) is not None
        if not (
            _ZIP_CONTEXT.search(text) or pending_slot == "location" or alone or not _NOT_A_ZIP.search(text)
        ):
            continue
        if _NOT_HOME_BEFORE.search(text[: match.start()].rstrip()) or _NOT_HOME_ZIP_AFTER.match(
            text, match.end()
        ):
            continue  # "work is in 94105 but home's 94501", "78028 is the post office box, the house is 78013"
        if re.search(r"\bnot\W*$", text[: match.start()], re.I) and _ZIP.search(text, match.end()):
            continue  # "no its not 37919 its 37920": the one said after "not" is the wrong one
        if is_real_zip(code):
            yield Reading("location.zip_code", code, said=code)
            return


_PLACE_LEAD = re.compile(
    r"\b(?:live|living|located|based|moved|relocated|reside|residing|renting|rent|i'm|im|i\s+am|we're|we\s+are|home\s+is|here|"
    r"(?<!we\s)(?<!they\s)(?<!you\s)(?<!i\s)were)"  # "no wait were in clovis": "we're" typed without the apostrophe
    r"(?:\s+(?:here\s+|away\s+)?from\s+[A-Za-z .'&-]+?(?=\s+to\b))?"  # "moved from fresno to clovis"
    # ("we're outside austin", "out near glenwood springs": near a town is not in it, so not saved)
    # "we live just outside duluth in hermantown": the town they are in, past the one they are near
    r"(?:\s+(?:just\s+)?(?:outside(?:\s+of)?|near|close\s+to|(?:north|south|east|west)\s+of)\s+[A-Za-z.'-]+(?:\s+[A-Za-z.'-]+)?(?=\s+in\b))?"
    r"\s+(?:(?:now|actually|really|currently|still|just|all)\s+)?(?:in|to)\s+(?P<place>[A-Za-z][A-Za-z .'-]*(?:,\s*[A-Za-z]{2,}(?:\s+[A-Za-z]+)?)?)",
    re.I,
)


def place_phrase(text: str) -> str | None:
    """'I live in Springfield' -> 'Springfield': a place the tables do not know, to geocode."""
    match = _PLACE_LEAD.search(text)
    if match is None:
        return None
    phrase = re.split(r"\s+(?:with|and|on|but|for|since|where|so)\b", match.group("place"), flags=re.I)[0]
    # "a mobile home outside salina, electric furnace": the town after the last word of place, and
    # what follows a comma only when it is a state
    town, _, after = phrase.partition(",")
    town = re.split(r"\b(?:outside(?:\s+of)?|near|by|around|close\s+to|in)\s+", town, flags=re.I)[-1]
    state = after.strip(" .!").lower()
    phrase = (
        f"{town.strip()}, {after.strip()}"
        if state in STATE_NAMES or re.fullmatch(r"[a-z]{2}", state)
        else town
    )
    phrase = phrase.strip(" .,!")
    return phrase if 2 <= len(phrase) <= 60 and not re.search(r"\d", phrase) else None


# Names several US cities share: kept with their state ("Portland, OR").
_SHARED_NAMES = frozenset(
    {
        "portland",
        "kansas city",
        "columbus",
        "springfield",
        "richmond",
        "arlington",
        "aurora",
        "rochester",
        "albany",
        "charleston",
        "columbia",
        "manchester",
        "lexington",
        "wilmington",
        "burlington",
        "concord",
        "glendale",
        "augusta",
        "jackson",
        "cambridge",
    }
)


def _city_value(place: Any) -> str:
    """The name as stored: with its state when the name alone names another place or none."""
    alone = find_city(place.name) or find_town(place.name)
    shared = place.name.lower() in _SHARED_NAMES or alone is None or alone.state != place.state
    return f"{place.name}, {place.state}" if shared else place.name


_AFTER_ZIP = re.compile(r"\b(?P<zip>\d{5})\b[\s,-]+(?P<name>[A-Za-z][A-Za-z .'-]{2,30})")
_BEFORE_ZIP = re.compile(r"(?P<name>[A-Za-z][A-Za-z .'-]{2,30}?)[\s,]+(?P<zip>\d{5})\b")


_DWELLING_IN = re.compile(
    r"\b(?:(?:live|living|rent|renting|own|bought|buying|moved\s+into)\b[^.,;!?]{0,40}?\b|"
    r"(?:my|our)\s+(?:(?:own|new|old|little|small|first)\s+)?|"
    # "retired couple in a condo in sarasota", "both retired, condo in naples"
    r"\b(?:in|at)\s+(?:an?|the)\s+(?:(?:new|old|little|small|tiny|big)\s+)?|"
    r"(?:^|,)\W*(?:an?\s+)?(?:(?:new|old|little|small|tiny|big)\s+)?)"
    r"(?:condo|house|home|apartment|apt|townhouse|townhome|"
    r"duplex|bungalow|trailer|mobile\s+home|cape(?:\s+cod)?|ranch|colonial|farmhouse|victorian|row\s*house|"
    r"split[-\s]level|craftsman|brownstone|cottage|two[-\s]stor(?:y|ey))\s+(?:is\s+)?in\s+(?P<place>[A-Za-z][A-Za-z .'-]{1,40})",
    re.I,
)
_TOWN_HOME = re.compile(
    r"\b(?:my|our)\s+(?:(?:new|first|own)\s+)?(?P<place>[A-Za-z][A-Za-z.'-]+(?:\s+[A-Za-z][A-Za-z.'-]+)?)\s+"
    r"(?:house|home|condo|apartment|apt|townhouse)\b(?!\s*(?:office|depot|warranty|insurance))",
    re.I,
)
# "we were in fresno last year", "at work in mesa": a place that is not their home now
_NOT_HOME_BEFORE = re.compile(
    r"(?:\b(?:moved|moving|relocated|relocating|came|transferred|originally)\s+(?:here\s+|over\s+)?from|"
    r"\b(?:we|i|they)\s+(?:were|was|lived|used\s+to\s+live)\s+(?:in|near)|"
    # "we have to be in philadelphia by 10 friday": where they are going
    r"\b(?:have|has|need|needs|got|gotta)\s+(?:to\s+)?be\s+(?:in|at)|\bsold\s+(?:our|my|the)\s+(?:place|house|home|condo)\s+(?:in|near)|"
    r"\b(?:work|office|job|visiting|visit|trip|vacation|travel(?:l?ing)?|parents?|mom|dad|"
    # "need it charged by 7:30 for my doctor appointment in tampa": where they are going
    r"appointments?|appt|doctors?|dentist|hospital|meeting|game|wedding|funeral|concert|flight|airport|interview)\b[^,.;!?]{0,12}|"
    # "gas is $5.40 at the chevron in san jose": a shop's or a station's town
    r"\bat\s+(?:the|a)\s+[\w'&-]+(?:\s+[\w'&-]+)?|"
    # "bought a used leaf off a guy in tumwater": a seller's or someone's town
    r"\b(?:a|the|some|this)\s+(?:guy|dealer(?:ship)?|seller|lady|man|woman|person|shop|store|lot|friend|neighbou?r|"
    r"couple|family)(?:\s+(?:in|near|from|of|out\s+in))?)\s*$",
    re.I,
)


@lru_cache(maxsize=512)
def _place_region(message: str, guess: bool = True) -> str | None:
    """The state a message places itself in (a ZIP's, a town's named with its state, a state's name;
    with `guess`, also a town of the curated table named alone)."""
    for code in re.findall(r"\b\d{5}\b", message):
        if (place := zip_place(code)) is not None:
            return place.state
    with_state = _towns_with_state(message)
    if with_state:
        return with_state[0].split()[-1].upper()
    # ("kansas city, missouri side": a state's name inside a town's is no state said)
    named = re.search(
        r"\b(" + "|".join(sorted(STATE_NAMES, key=len, reverse=True)) + r")\b(?!\s+city\b)", message, re.I
    )
    if named:
        return STATE_NAMES[named.group(1).lower()]
    region = re.search(
        r"\b(" + "|".join(sorted(REGION_STATES, key=len, reverse=True)) + r")\b", message, re.I
    )
    if region:
        return REGION_STATES[region.group(1).lower()]
    if not guess:
        return None
    # "family of 5 in raleigh, duke": a city of the curated table named after "in", or as a list item
    candidates = [m.group(1) for m in re.finditer(r"\bin\s+([a-z][a-z .'-]{1,30})", message, re.I)]
    candidates += re.split(r"\s*,\s*", message)
    for candidate in candidates:
        words = candidate.strip(" .!").split()
        for size in range(min(len(words), 3), 0, -1):
            if (city := find_city(" ".join(words[:size]))) is not None:
                return city.state
    return None


@lru_cache(maxsize=512)
def _utility_region(message: str) -> str | None:
    """ "PSE&G customers in montclair": the one state of the utility the message names."""
    utility = find_utility(message)
    return utility[0].states[0] if utility is not None and len(utility[0].states) == 1 else None


def _region(message: str, home_state: str | None = None) -> str | None:
    """Where the message is: its own place words, else the home the profile holds, else its
    utility's state ("pge" said by someone in Portland, OR is Portland General Electric)."""
    # ("i said columbus but we moved to dayton" from Ohio: a town named alone is looked for in the
    # state they live in before the curated table's guess)
    return (
        _place_region(message, guess=False)
        or home_state
        or _place_region(message)
        or _utility_region(message)
    )


_OWN_EQUIPMENT_BEFORE = re.compile(
    # "we have … in", or a clause that goes on from theirs with the equipment ("…furnace and central air in")
    # ("we have 10.2 kw of solar in phoenix": a decimal point is no sentence's end)
    r"(?:\b(?:we|i)\s+(?:have|got|own|run|use|heat\s+with|cool\s+with)\b(?:[^,.;!?]|(?<=\d)\.(?=\d)){0,40}|^\s*(?:an?\s+|the\s+)?)"
    r"\b(?:solar|panels?|kw|heat\s*pump|furnace|central\s+air|ac|a/c|mini[-\s]?splits?|boiler|baseboards?|"
    r"powerwalls?|battery|charger|ev|leaf|tesla|bolt|model\s+[3ysx])\b[^,.;!?]{0,20}$",
    re.I,
)


# "no sorry its lubbock", "ok, plano": the words around a short answer that are not the answer
_ANSWER_LEAD = re.compile(
    r"^\W*(?:(?:no|nope|sorry|oops|wait|actually|ok|okay|yeah|yes|yep|oh|um|uh|its|it'?s|it\s+is|thats|that'?s|"
    r"we'?re\s+in|we\s+are\s+in|i'?m\s+in|im\s+in|in|they'?re|we\s+have)\b[\s,.:!-]*)+",
    re.I,
)


def answer_words(text: str) -> str:
    """A short answer without the words around it ("no sorry its lubbock" -> "lubbock")."""
    return _ANSWER_LEAD.sub("", text).strip(" .!")


_WHO_OR_UP_BEFORE = re.compile(
    r"(?:\b(?:family|household|couple|retirees|retired\s+couple)(?:\s+of\s+(?:\d{1,2}|two|three|four|five|six|seven|eight))?|"
    r"\b(?:\d{1,2}|two|three|four|five|six|seven|eight)\s+(?:of\s+us|people|ppl|adults|folks)|"
    r"(?:^|[,.;!])\s*(?:(?:we'?re|we\s+are|i'?m)\s+)?(?:up|down|out|over|way\s+out))\s*$",
    re.I,
)


def _city(
    text: str, *, message: str = "", pending_slot: str | None, region: str | None = None
) -> Iterator[Reading]:
    """A city the user lives in: from the curated city table wherever it is named, and from the
    ZIP dataset's towns only where the words say it is their place ("we live in cary", a ZIP beside
    it, the answer to our ZIP question). A town in two states ("clovis") is the one in `region`."""
    strong = [m.group("place") for m in _PLACE_LEAD.finditer(text)]
    # "we live in a small condo in tampa", "live alone w my cat in a condo in chicago"
    strong += [m.group("place") for m in _DWELLING_IN.finditer(text)]
    # "first summer in our tampa house": the town named as theirs before the home
    strong += [m.group("place") for m in _TOWN_HOME.finditer(text)]
    for m in re.finditer(r"\bin\s+(?P<place>[A-Za-z][A-Za-z .'-]{1,40})", text):
        # "national grid in syracuse", "we're a family of 4 in savannah": the user's utility or the
        # user themself just before "in" says it is their place
        before = text[max(0, m.start() - 40) : m.start()]
        if _NOT_HOME_BEFORE.search(text[: m.start()] + "in"):
            continue  # "we were in fresno last year"
        if (
            find_utility(before, answer=True) is not None
            or re.search(r"\b(?:we'?re|i'?m|im|we\s+are|i\s+am)\b[^,.;!?]{0,30}$", before, re.I)
            # "we have central air in st louis": their own equipment, where it is
            or _OWN_EQUIPMENT_BEFORE.search(before)
            # "family of 5 in lubbock", "keep it in the garage, up in bozeman": who they are, or
            # a bare "up in <town>", just before "in"
            or _WHO_OR_UP_BEFORE.search(before)
            # "…and no battery, in plano": a bare "in <town>" after their own statement
            or not text[: m.start()].strip(" -")
            or text[: m.start()].rstrip().endswith(",")
        ):
            strong.append(m.group("place"))
    # "no it's montclair, and we have pse&g": the town put right, in the state they are in
    put_right = _TOWN_PUT_RIGHT.match(text) if region is not None else None
    in_region_first = [put_right.group("place")] if put_right else []
    bare = answer_words(text)
    if pending_slot == "location" or (
        # "lubbock" while we wait for the system's size: a town on its own answers the place question
        # ahead (only a town known by its name alone; "bolt" or "leaf" is none)
        pending_slot is not None and re.fullmatch(r"[A-Za-z][A-Za-z .'-]{2,30}", bare) and find_town(bare)
    ):
        strong.append(bare)
    beside = _towns_beside_zip(text) + _towns_with_state(text)
    # ("best green chile in abq", "where can i recycle a fridge in tulsa": a search in a town, not home)
    searched = re.match(
        r"\W*(?:best|good|great|top|favou?rite|cheapest|where\s+(?:to|can|do|should))\b"
        r"(?!\s+(?:\w+\s+)?(?:time|times|hours?|plan|rate|way|day|days)\b)",
        text,
        re.I,
    )
    weak = [
        m.group("place")
        for m in re.finditer(r"\b(?:in|from|of)\s+(?P<place>[A-Za-z][A-Za-z .'-]{1,40})", text)
        if not _NOT_HOME_BEFORE.search(text[: m.end("place") - len(m.group("place"))].rstrip())
        and not searched
    ]
    # a bare list: "zip is 80302, boulder" / "chicago, comed"
    listed = [segment for segment in re.split(r"\s*,\s*", text) if 0 < len(segment.split()) <= 3]
    after_word = list(weak)
    weak += listed
    if here := re.match(r"^\s*(?P<place>[A-Za-z][A-Za-z .'-]{1,40}?)\s+(?:here|area|based)\b", text, re.I):
        # "dayton ohio here": where they are, said of themselves
        strong.append(here.group("place"))
    # (the message's ZIPs: "edison, 92618" splits into two clauses, the ZIP still says where they are)
    zips = [
        home for code in re.findall(r"\b\d{5}\b", message or text) if (home := zip_place(code)) is not None
    ]
    # "dayton, aes ohio": a town of the state the message's utility (or ZIP, or state) serves; a bare
    # list item needs the message's own place or utility ("cool, bye" from a Californian is no town)
    own_region = _place_region(text) or _utility_region(text)
    in_region = in_region_first + (
        (listed if "," in text and own_region else []) + after_word if region is not None else []
    )
    # "wichita, evergy": a town listed beside a utility that serves the town's state
    utility = find_utility(text) or find_utility(message) or acronym_utility(message or text)
    served = set(utility[0].states) if utility is not None else set()
    # "retired couple in roanoke, appalachian power": a town named after "in" in a state the
    # message's utility serves
    # ("whens cheapest to charge tonight, lincoln, LES": a list item is a clause of its own)
    by_utility = ((listed if "," in (message or text) else []) + after_word) if served else []
    # "eugene, EWEB customer": a message that opens with a town (one state's, by its name alone)
    # and names its utility
    opening = (message or text).lstrip().lower()
    if not served and listed and opening.startswith(listed[0].lower()) and utility_by_shape(message or text):
        strong.append(listed[0])
    if (opens := _opening_place(message or text)) is not None and opening.startswith(
        text.lstrip().lower()[:12]
    ):
        # "minneapolis xcel customer. gas furnace", "akron ohio. need the car at 80 by 7": a message
        # that opens with a town, then its state or a utility serving it
        strong.append(opens)
    for candidates, towns in (
        (beside, True),
        (strong, True),
        (strong + weak, False),
        (in_region, True),
        (by_utility, True),
    ):
        for candidate in candidates:
            found = _place_in(candidate, towns=towns, region=region)
            if found is not None and found[1].strip().lower() in STATE_NAMES and find_city(found[1]) is None:
                continue  # "we're in florida till may": the state, not Florida, OH ("new york" is the city)
            if found is not None:
                place, said = found
                if candidates is in_region and place.state != region:
                    continue
                if candidates is by_utility and place.state not in served:
                    continue
                if zips and all(distance_km(place, home) > _BESIDE_KM for home in zips):
                    continue  # "edison, 92618": a town far from the ZIP said with it is not their town
                if candidate in listed and candidates is not strong and not _whole_item(candidate, said):
                    continue  # "flat 10.9 cents", "energy charge combined": a list item that is no town
                yield Reading("location.city", _city_value(place), said=said)
                return


_TOWN_PUT_RIGHT = re.compile(
    r"^\W*(?:no|nope|nah|actually|sorry|oops|wait)\W+(?:(?:no|wait|sorry)\W+)?(?:it'?s|its|it\s+is)\s+"
    r"(?P<place>[A-Za-z][A-Za-z .'-]{1,30}?)(?=\s*(?:[,.;!]|$|\s+(?:and|not)\b))",
    re.I,
)


def _opening_place(message: str) -> str | None:
    """The town a message opens with, when what follows it is the town's state ("akron ohio") or a
    utility that serves it ("chicago comed …", "minneapolis xcel customer"); None otherwise."""
    first = re.split(r"[,.;!?\n]", message.strip(), maxsplit=1)[0]
    words = first.split()
    for size in range(min(3, len(words) - 1), 0, -1):
        name, rest = " ".join(words[:size]), " ".join(words[size:])
        place = find_city(name) or find_town(name)
        if place is None:
            continue
        state_said = re.match(r"(\w+(?:\s+\w+)?)", rest)
        named_state = next(
            (
                STATE_NAMES.get(candidate.lower())
                for candidate in ([state_said.group(1), state_said.group(1).split()[0]] if state_said else [])
                if candidate.lower() in STATE_NAMES
            ),
            None,
        )
        if named_state == place.state:
            return f"{name}, {place.state}"
        utility = find_utility(rest, state=place.state)
        if (
            utility is not None
            and place.state in utility[0].states
            and rest.lower().startswith(utility[1].lower())
        ):
            return name
    return None


def _whole_item(item: str, said: str) -> bool:
    """A bare list item names a town only when the town is all it says (a state may follow):
    "wichita" and "columbus oh" do; "flat 10.9 cents" (Flat, TX) does not."""
    rest = item.strip(" .!?").lower().removeprefix(said.lower()).strip(" ,.")
    return not rest or rest.upper() in STATE_TIMEZONES or rest in STATE_NAMES


# "phoenix az", "Springfield, IL": a town with its state's code. The codes that are also common
# words ("in", "or", "me", "hi", "ok") count only in capitals or after a comma.
_WITH_STATE = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z.'-]*(?:\s+[A-Za-z][A-Za-z.'-]*){0,3})(?P<comma>,?)\s+(?P<state>[A-Za-z]{2})\b"
)
_WORD_LIKE_STATES = frozenset(
    {
        "in",
        "or",
        "me",
        "hi",
        "oh",
        "ok",
        "de",
        "la",
        "pa",
        "co",
        "ma",
        "al",
        "id",
        "mo",
        "ne",
        "ga",
        "mi",
        "ms",
    }
)


def _word_not_state(code: str, *, comma: bool = False) -> bool:
    """ "in", "or", "me" in lowercase, not after a comma: words, not Indiana, Oregon or Maine."""
    return code.lower() in _WORD_LIKE_STATES and not (code.isupper() or comma)


def _towns_with_state(text: str) -> list[str]:
    """ "phoenix az aps customer" -> "phoenix az": a town named with its state's code."""
    found = []
    for match in _WITH_STATE.finditer(text):
        code = match.group("state")
        if code.upper() not in STATE_TIMEZONES:
            continue
        # "in springfield mo": a code that is also a word counts after "in" (or in capitals, or a comma)
        word_like = _word_not_state(code, comma=bool(match.group("comma")))
        words = match.group("name").split()
        for size in range(len(words), 0, -1):
            span = " ".join(words[-size:])
            town = find_town(f"{span} {code}")
            before = text[: match.end("name") - len(span)]
            # ("i drive a kia ev6, savannah ga": a list item that is a town and its state alone)
            alone = re.search(r"(?:^|[,;])\s*$", before) is not None and re.match(
                r"\s*(?:$|[,;.!])", text[match.end() :]
            )
            if (
                word_like
                and not alone
                and (
                    not re.search(r"\bin\s+$", before, re.I)
                    or re.match(
                        r"\s+(?:so|something|whatever|maybe|not|two|three|less|more)\b",
                        text[match.end() :],
                        re.I,
                    )
                )
            ):
                continue  # "in portland or so" is no state code
            if _NOT_HOME_BEFORE.search(re.split(r"[,;]", before)[-1].rstrip()):
                break  # "i charge at work in mesa az" ("i drive a kia ev6, savannah ga": a list item of its own)
            if town is not None and town.state == code.upper():
                found.append(f"{span} {code.lower()}")
                break
    return found


_BESIDE_KM = 40
_LEAD_FILLER = frozenset("still now in near the we're were im i'm so and also just".split())


def _towns_beside_zip(text: str) -> list[str]:
    """ "27705 durham", "fredericksburg 78624": a town named beside a ZIP of its own state."""
    found = []
    for match in [*_AFTER_ZIP.finditer(text), *_BEFORE_ZIP.finditer(text)]:
        home = zip_place(match.group("zip"))
        words = match.group("name").strip().split()
        while words and words[0].lower() in _LEAD_FILLER:
            words = words[1:]  # "97214, still portland", "94110 in sf"
        if match.re is _BEFORE_ZIP:
            words = words[-4:]  # the town is what comes right before the ZIP
        spans = [words[:size] for size in range(min(len(words), 4), 0, -1)]
        if match.re is _BEFORE_ZIP:
            spans = [words[-size:] for size in range(min(len(words), 4), 0, -1)]
        for span in spans:
            if home is None:
                break
            town = find_city(" ".join(span)) or find_town(f"{' '.join(span)} {home.state}")
            # the ZIP's own town or one beside it: "edison, 92618" names the utility, not Edison, CA
            if town is not None and town.state == home.state and distance_km(town, home) <= _BESIDE_KM:
                found.append(f"{' '.join(span)} {home.state.lower()}")  # the ZIP's state goes with it
                break
    return found


_DIRECTIONS = frozenset(
    "western eastern northern southern central upstate downstate north south east west northeast northwest "
    "southeast southwest rural coastal".split()
)


_NEIGHBORHOOD_WORDS = frozenset({"square", "heights", "village", "district", "neighborhood", "neighbourhood"})
_NAMES_A_COMPANY = (
    r"(?:clean\s+power|community\s+(?:power|energy|choice)|power|energy|electric|gas|utilities|water)\b"
)


def _place_in(candidate: str, *, towns: bool, region: str | None = None) -> tuple[Any, str] | None:
    """The longest known place at the start of `candidate` (never a utility's name)."""
    utility = find_utility(candidate)  # a short alias that is also a town ("edison") does not block it
    if utility is not None and candidate.strip().lower().startswith(utility[1].lower()):
        return None  # "austin energy" is the utility, not the city
    words = re.split(
        r"\s+",
        re.split(r"\s+(?:with|and|on|but|for|since|where|so|,?\s*zip)\b", candidate, flags=re.I)[0].strip(
            " .,!"
        ),
    )
    # "silver spring, gas heat": a comma ends the town unless its state follows ("Springfield, IL")
    for index, word in enumerate(words[:-1]):
        if word.endswith(","):
            following = words[index + 1].strip(" .,!")
            if not (following.upper() in STATE_TIMEZONES or following.lower() in STATE_NAMES):
                words = words[: index + 1]
            break
    words = [word.strip(",") for word in words]
    if (
        len(words) >= 2
        and words[0].lower() in _DIRECTIONS
        and (" ".join(words[1:3]).lower() in STATE_NAMES or words[1].lower() in STATE_NAMES)
    ):
        return None  # "western nebraska", "upstate new york": part of a state, not the town "Western"
    for size in range(min(len(words), 4), 0, -1):  # longest known city name first
        named = " ".join(words[:size])
        last = words[size - 1]
        if size > 1 and _word_not_state(last):
            continue  # "dayton in": the town, then a word
        code = words[size] if size < len(words) else ""
        # ("moved to dayton in sept": a lowercase "in", "or", "me" is a word there, not Indiana)
        with_state = " ".join(words[: size + 1]) if len(code) == 2 and not _word_not_state(code) else named
        place = find_city(with_state) or find_city(named)
        if place is None and towns:
            place = find_town(with_state) or find_town(named)
            if place is None and region is not None and with_state == named:
                place = find_town(f"{named} {region}")
        if place is not None and region is not None and place.state != region and with_state == named:
            # "texarkana on the arkansas side": a town in two states is the one in the state they name
            place = find_town(f"{named} {region}") or place
        if place is not None and re.match(_NAMES_A_COMPANY, " ".join(words[size : size + 2]), re.I):
            return None  # "sonoma clean power", "austin energy": the town names a company
        if place is not None and size < len(words) and words[size].lower() in ("county", "parish", "borough"):
            return None  # "out in isanti county": a county, not its seat
        if (
            place is not None
            and size < len(words)
            and words[size].lower().strip(",.;") in _NEIGHBORHOOD_WORDS
        ):
            return None  # "logan square": a neighbourhood of a city, not the town Logan
        if place is not None:
            return place, named
    if len(words) >= 2 and words[0].lower() in _DIRECTIONS:
        # "renting in east nashville": a part of a town (a town named so, "east lansing", came first)
        return _place_in(" ".join(words[1:]), towns=towns, region=region)
    return None


# --- utility and plan -----------------------------------------------------------------------

_SWITCH_TO = re.compile(r"\b(?:switched|moved|changed|went|go)\b.*?\bto\b(?P<rest>.*)", re.I)
_SWITCH_FROM = re.compile(
    r"\b(?:switch|switching|change|changing|move|moving|go|going|leave|leaving)\s+(?:from|off(?:\s+of)?)\s+"
    r"(?P<current>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:to|for)\b",
    re.I,
)
_NOT_BEFORE = re.compile(r"\b(?:not|isn'?t|aren'?t|never)\s+(?:with\s+|on\s+|the\s+)?$", re.I)
_COMPARED = re.compile(r"\b(?:or|vs\.?|versus|compared\s+(?:to|with))\b", re.I)


_ABOUT_UTILITY = re.compile(
    r"\b(?:utility|provider|customers?|power\s+company|electric\s+company|service\s+from)\b|"
    r"\b(?:we'?re|were|i'?m|im|we\s+are|i\s+am)\b[^,.;!?]{0,30}?\b(?:with|w/?|on)\s+\w|"
    # "closed on the house in tucson … its on tep": the home is on that utility
    r"\b(?:it'?s|its|it\s+is|(?:the\s+)?house\s+is|home\s+is)\s+(?:on|with|w/?|served\s+by)\s+\w|"
    # "ok she says yes it's dominion", "checked the bill, its dominion": a name confirmed once checked
    r"\b(?:says|said|checked|confirmed|looked)\b[^.;!?]{0,20}?\b(?:it'?s|its|it\s+is)\s+\w|"
    # "Dominion is who we have", "duke is what we use"
    r"\bis\s+(?:who|what)\s+(?:we|i)\s+(?:have|use|got|are\s+with|pay)\b|"
    r"\b(?:power|electric|light)\s+co\b",
    re.I,
)


def _one_slip(typed: str, alias: str) -> bool:
    """One letter swapped with the next, changed, added or left out ("opdd" for "oppd")."""
    if typed == alias or abs(len(typed) - len(alias)) > 1:
        return False
    if len(typed) == len(alias):
        diff = [i for i, (a, b) in enumerate(zip(typed, alias, strict=True)) if a != b]
        swapped = (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and typed[diff[0]] == alias[diff[1]]
            and typed[diff[1]] == alias[diff[0]]
        )
        return len(diff) == 1 or swapped
    short, long = sorted((typed, alias), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


@lru_cache(maxsize=64)
def _slip_aliases(region: str) -> tuple[tuple[str, int, Utility], ...]:
    """The names a slip is looked for in, per state: (alias, its spaces, utility)."""
    return tuple(
        (alias.lower(), alias.count(" "), utility)
        for utility in utilities_in(region)
        for alias in utility.aliases
        if len(alias) >= 4 and not is_word_alias(alias)
    )


def _misspelled_utility(text: str, region: str) -> tuple[Utility, str] | None:
    """A utility's name with one slip ("opdd", "gerogia power"), of a utility serving the state their
    place is in (only names of four letters or more: a slip in "pge" could be anything)."""
    tokens = re.findall(r"[A-Za-z&]+", text.lower())
    windows = {" ".join(tokens[i : i + n]) for n in (1, 2, 3) for i in range(len(tokens) - n + 1)}
    matches = {
        (utility.name, window): utility
        for alias, words, utility in _slip_aliases(region)
        for window in windows
        if abs(len(window) - len(alias)) <= 1 and window.count(" ") == words and _one_slip(window, alias)
    }
    if len({name for name, _ in matches}) != 1:
        return None  # none, or two utilities one slip away: not a guess we make
    (_, word), utility = next(iter(matches.items()))
    return utility, word


_ACRONYM = re.compile(
    r"(?P<cue>\b(?:w/\s*|with\s+|through\s+|thru\s+|from\s+|via\s+|by\s+))?(?<![\w&])(?P<name>[A-Za-z&]{2,4})(?![\w&])"
)


# short names that are words or brands first ("ACE hardware", "got it from ace", "the ui")
_WORDS_NOT_INITIALS = frozenset({"ace", "les", "nes", "ui", "mea", "duke"})


def acronym_utility(text: str, region: str | None = None, message: str = "") -> tuple[Utility, str] | None:
    """ "bellingham, PSE", "in tulsa w/ pso", "2 powerwalls through gmp": a utility's initials, which
    alone could be an ordinary word, written in capitals or after "with"/"through"/"from" (and, where
    we know their state, one that serves it)."""
    for match in _ACRONYM.finditer(text):
        name = match.group("name")
        if not (name.isupper() or match.group("cue")):
            continue
        if re.search(
            r"\b(?:work(?:s|ed|ing)?|job|contract(?:or)?|intern(?:ship)?)\b[^,.;!?]{0,12}$",
            text[: match.start("name")],
            re.I,
        ):
            continue  # "i work with TEP on a project": an employer, not their utility
        found = find_utility(name, answer=True, state=region)
        if (
            found is not None
            and is_word_alias(found[1])
            and found[1].lower() == name.lower()
            and (
                name.lower() not in _WORDS_NOT_INITIALS
                or _initials_placed(name, found[0].states, message or text, region)
            )
            and (region is None or region in found[0].states)
        ):
            return found
    return _cued_short_name(text, region)


# "on pse, peak hrs tmrw", "we're nes in nashville", "seattle 98103 on city light": a short name
# that is also a word, said where a utility is said ("on", "with", "we're"), then a pause
_CUED_NAME = re.compile(
    r"\b(?:on|with|w/|w(?=\s)|thru|through|via|we'?re|were|we\s+are)\s+(?P<name>[a-z&]{2,}(?:\s+[a-z]{2,})?)"
    r"(?=\s*(?:$|[,.;!?]|\s+(?:in|here|customer|now|too|tho|btw|fwiw|and)\b))",
    re.I,
)


def _cued_short_name(text: str, region: str | None) -> tuple[Utility, str] | None:
    for match in _CUED_NAME.finditer(text):
        if re.search(r"\w+ing\s*$|\b(?:plans?|rates?|programs?|tou)\s*$", text[: match.start()], re.I):
            continue  # "charging on liberty": a street; "a tou plan on city light": that utility's plan
        words = match.group("name").split()
        for name in (" ".join(words), words[0]) if len(words) > 1 else (words[0],):
            found = find_utility(name, answer=True, state=region)
            if (
                found is not None
                and is_word_alias(found[1])
                and found[1].lower() == name.lower()
                and (
                    region in found[0].states
                    if region
                    else name.lower() not in _WORDS_NOT_INITIALS - _CUED_ENOUGH
                )
            ):
                return found
    return None


# "we're duke, in greenville": after "we're", "on" or "with" and before a pause, the name is the
# utility's even where no state places it (Duke Energy serves six)
_CUED_ENOUGH = frozenset({"duke"})


def _initials_placed(name: str, states: tuple[str, ...], text: str, region: str | None) -> bool:
    """ "lincoln, LES, model y": initials that are also a word count in capitals beside a place
    their utility serves (the message's state, or a town listed with them)."""
    if not name.isupper():
        return False
    if region is not None:
        return region in states
    towns = (find_town(item.strip(" .!?")) for item in re.split(r"\s*,\s*", text))
    return any(town is not None and town.state in states for town in towns)


def _utility(
    text: str, *, pending_slot: str | None, region: str | None = None, message: str = ""
) -> Iterator[Reading]:
    switched = _SWITCH_TO.search(text)
    scope = switched.group("rest") if switched and find_utility(switched.group("rest")) else text
    # "nope thats not my utility, its dominion": the clause beside the one that says "utility"
    # ("its dominion": a short answer, without the words around it, of one or two words)
    about_utility = _ABOUT_UTILITY.search(text) or (
        len(answer_words(text).split()) <= 2 and _ABOUT_UTILITY.search(message)
    )
    found = find_utility(
        scope,
        answer=pending_slot == "utility" or bool(about_utility),
        about_utility=bool(about_utility),
        state=region,
    )
    if found is None and region is not None and ("," in text or "," in message):
        # "family of 5 in raleigh, duke, 2 evs": a list item that is a utility's short name serving
        # the state the message (or the profile) places them in
        for segment in re.split(r"\s*,\s*", text):
            # ("went w reliant, 77007": the company after the words that say it is theirs)
            short = re.sub(
                r"^(?:(?:went|go|going|signed\s+up|switched)\s+)?(?:with|w/?|on|using|use|have|got)\s+",
                "",
                segment.strip(" .!"),
                flags=re.I,
            )
            if 0 < len(short.split()) <= 3:
                listed = find_utility(short, answer=True, state=region)
                if (
                    listed is not None
                    and region in listed[0].states
                    and short.lower().startswith(listed[1].lower())
                ):
                    found = listed
                    break
    if found is None and region is not None:
        # "im in 45202 cincinnati duke, gas furnace": a short name closing the words of where they
        # are, serving that state
        closing = find_utility(
            re.split(r"\s*,\s*", text)[0].split()[-1] if text.split() else "", answer=True, state=region
        )
        if (
            closing is not None
            and region in closing[0].states
            and re.search(r"(?:\d{5}|[a-z]{3,})\s+" + re.escape(closing[1]) + r"\s*(?:,|$)", text, re.I)
            and (_PLACE_LEAD.search(text) or re.search(r"\b\d{5}\b", text))
        ):
            found = closing
    if found is None and len(text.split()) <= 3:
        # "duke" said on its own after "we're in greenville sc": a utility's short name that is the
        # whole message (and serves the state their place is in, when we know it)
        alone = find_utility(text, answer=True, state=region)
        if (
            alone is not None
            and text.strip(" .!").lower() == alone[1].lower()
            # a short name that is also a word ("ace", "reliant") only where their place is served
            and (region in alone[0].states if region or is_word_alias(alone[1]) else True)
        ):
            found = alone
    if found is None:
        found = acronym_utility(text, region, message)  # "bellingham, PSE", "in tulsa w/ pso"
    if found is None and region is not None:
        found = _misspelled_utility(text, region)  # "omaha 68102, opdd": OPPD with two letters swapped
    if found is None:
        # "we're with singing river electric", "EWEB customer": a utility the table does not know,
        # named the way utilities are, kept as said
        if (shaped := utility_by_shape(scope)) is not None:
            yield Reading("location.utility_provider", shaped[0], said=shaped[1])
        return
    if found is not None and _NOT_BEFORE.search(scope[: scope.lower().find(found[1].lower())]):
        # "on pedernales not austin energy": the utility said after "not" is the one they are not with
        return
    if (
        found is not None
        and (delivers := _ONLY_DELIVERS.search(scope)) is not None
        and _wires_company(scope[: delivers.start()], region) == found[0]
    ):
        # "oncor delivers to us but TXU is who we pay", "centerpoint is just the wires, reliant is
        # our provider": the company that owns the wires is not the one they buy from; the other
        # one, named after it, is ("reliant is my provider, centerpoint delivers": the one before)
        found = find_utility(scope[delivers.end() :], answer=True, about_utility=True, state=region)
        if found is None:
            return
        scope = scope[delivers.end() :]
    if found is not None:
        utility, words = found
        base = re.sub(r"(?:'s|’s)$", "", words)  # the alias pattern keeps a possessive with the name
        owner = re.search(
            re.escape(base) + r"(?:'s|’s)\s+(?:(?:new|own|whole|that|this|their|the)\s+)?(?:[\w-]+\s+){0,2}?"
            r"(?:plans?|programs?|rates?|tou|time[-\s]of[-\s]use|peak|prices?|hours|tariffs?)\b|"
            + re.escape(base)
            + r"\s+(?:has|have|offers?|charges?|raised|says|changed|is\s+(?:raising|changing))\b",
            text,
            re.I,
        )
        asked = "?" in text or QUESTION_START.match(text) is not None  # a question's utility is the answer's
        if owner is not None and not about_utility and pending_slot != "utility" and not asked:
            return  # "LADWP's time-of-use plan", "ComEd has that hourly program": the utility's, not said to be theirs
        yield Reading("location.utility_provider", utility.name, said=words)


def _wires_company(before: str, region: str | None) -> Utility | None:
    """The utility named last before the words that say it only delivers the power."""
    last = None
    while (named := find_utility(before, answer=True, about_utility=True, state=region)) is not None:
        last = named[0]
        cut = before.lower().find(named[1].lower())
        before = before[cut + len(named[1]) :] if cut >= 0 else ""
    return last


_ONLY_DELIVERS = re.compile(
    r"\b(?:deliver(?:s|ing)?\b|(?:is|are|'s)\s+(?:just|only)?\s*(?:the\s+)?(?:wires|poles|delivery|tdu|tdsp)\b|"
    r"just\s+(?:the\s+)?(?:wires|poles|delivery)\b|wires\s+company|delivery\s+(?:company|only))",
    re.I,
)
# "d1.11", "D1.8": a code with a dot, as DTE writes its residential plans
_DOTTED_CODE = r"[a-z]{1,2}\d{1,2}\.\d{1,2}"
_PLAN_CODE = re.compile(
    r"\b([A-Z][A-Z0-9]{0,5}(?:[-/][A-Z0-9]{1,6}){1,3})\b(?:\s+(?:plan|rate|schedule|tariff))?"
)
# A plan code typed lowercase after the words that name one ("on", "plan is", "its"): letters, an
# optional digit, and one to three hyphenated parts ("tou-d-prime", "tou-dr1", "e-1")
_CUED_CODE = re.compile(
    r"\b(?:on|currently|plan\s+is|plan:|rate\s+is|schedule\s+is|tariff\s+is|it'?s|its|it\s+is|bill\s+says|says|"
    r"(?:switched|moved|changed|went)\s+(?:over\s+)?to)\s+"
    r"(?:the\s+)?(?P<code>[a-z]{1,5}\d?(?:-[a-z0-9]{1,6}){1,3}|" + _DOTTED_CODE + r")\b"
    r"(?![-.]?\d|\s*(?:kw|kwh|miles|mi\b|%|percent|amps?))",
    re.I,
)
_PLAN_PREFIX = r"(?:tou|ev|e|dr|d|rs|r|tod|res|gs|rt|ee|ra)-"
_NOT_PLAN_CODES = frozenset(
    "time-of-use off-peak on-peak mid-peak super-off-peak part-peak e-bike wi-fi co-op set-up "
    "pre-cool pre-heat re-do all-electric mini-split year-round day-time night-time well-known "
    "so-so so-called follow-up check-in plug-in add-on x-ray e-mail t-shirt".split()
)
_PLAN_WORDS = re.compile(r"\b(?:plan|rate|schedule|tariff|tou)\b", re.I)
# capitals that are words, not a plan's code ("its OK", "says TOU": the kind, not the name)
_NOT_PLAN_CAPITALS = frozenset("I A OK NO YES IDK TOU EV AC PM AM US USA TBH LOL IRL NA".split())


def plan_named(text: str) -> str | None:
    """The rate plan a text names ("what would it cost on ev2-a": EV2-A), or None."""
    return next((str(reading.value) for reading in _plan(text, pending_slot=None)), None)


# letters as voice typing writes them: "e tou see" is E-TOU-C
_LETTER_SOUNDS = {
    "see": "C",
    "sea": "C",
    "bee": "B",
    "dee": "D",
    "gee": "G",
    "jay": "J",
    "kay": "K",
    "pee": "P",
    "pea": "P",
    "cue": "Q",
    "tee": "T",
    "tea": "T",
    "vee": "V",
    "why": "Y",
    "zee": "Z",
    "ay": "A",
}


# insulation's R-values ("attic has r-38, should i go to r-60"): never a rate plan's code
_R_VALUE = re.compile(r"\br-?(?:1[1-9]|[2-6]\d)\b(?!-)", re.I)


def _plan(text: str, *, pending_slot: str | None) -> Iterator[Reading]:
    text = _R_VALUE.sub(" ", text)
    leaving = _SWITCH_FROM.search(text)
    switched = _SWITCH_TO.search(text)
    # "should i switch from e-tou-c to ev2-a": the plan they are on is the one they would leave
    scope = leaving.group("current") if leaving else switched.group("rest") if switched else text
    words = re.findall(r"[A-Za-z0-9-]+", scope)
    named = {
        normalize_plan(word) or word.upper()
        for word in re.findall(r"[A-Za-z0-9-]+", text)
        if normalize_plan(word)
        or re.fullmatch(r"[a-z]{1,5}\d?(?:-[a-z0-9]{1,6}){1,3}", word, re.I)
        and re.search(r"\d|-.*-", word)
    }
    if leaving is None and len(named) >= 2 and _COMPARED.search(text):
        return  # "ev-tou-5 or tou-dr1, which is better for us": plans compared, neither is said to be theirs
    for size in (1, 2, 3):  # "EV2-A", "e tou c", "EV TOU 5"
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start : start + size])
            plan = normalize_plan(phrase)
            if plan:
                yield Reading("location.rate_schedule", plan, said=phrase)
                return
    if _PLAN_WORDS.search(scope) or pending_slot == "rate_schedule":
        if pending_slot == "rate_schedule" and len(scope.split()) <= 3:
            scope = scope.upper()  # "tou-d-prime" answering the plan question
        spaced = re.search(
            r"\b(?:plan|rate|schedule)\s+(?:is\s+|code\s+is\s+)?([a-z]{1,5}(?:\s+[a-z0-9]{1,6}){1,3})\s*$",
            scope,
            re.I,
        )
        if (
            spaced
            and re.search(r"\btou\b|\bev\b|\bd\b|\b\d\b", spaced.group(1), re.I)
            # ("charge plan for the ioniq 5": words about a car, no plan's name)
            and not re.match(r"(?:for|to|the|a|an|my|our|on|with|so|of)\b", spaced.group(1), re.I)
            and find_vehicle(spaced.group(1)) is None
        ):
            # "tou d prime" -> "TOU-D-PRIME"; "e tou see" (a letter as voice typing spells it) -> "E-TOU-C"
            code = "-".join(
                _LETTER_SOUNDS.get(part.lower(), part.upper()) for part in spaced.group(1).split()
            )
            yield Reading("location.rate_schedule", normalize_plan(code) or code, said=spaced.group(1))
            return
        for match in _PLAN_CODE.finditer(scope):
            code = match.group(1)
            if re.search(r"\d|-", code) and not re.fullmatch(r"\d+-\d+", code) and not find_utility(code):
                # "TOU-D 4-9": the peak hours said after the code are part of its name ("TOU-D-4-9PM")
                hours = re.match(
                    r"\s*\(?\s*(\d{1,2})\s*(?:-|to|–)\s*(\d{1,2})\s*(?:pm|p)?\b", scope[match.end() :], re.I
                )
                if hours and not re.search(r"\d", code.split("-")[-1]):
                    code = f"{code}-{hours.group(1)}-{hours.group(2)}PM"
                yield Reading("location.rate_schedule", code, said=code)  # kept as printed on the bill
                return
        # "found it, says RS" answering the plan question: a short code in capitals, as printed
        bare = re.search(r"(?:^|\b(?:says|its|it'?s|is|on|code)\s+)([A-Z]{1,4}\d{0,2})\W*$", text.strip())
        if pending_slot == "rate_schedule" and bare and bare.group(1) not in _NOT_PLAN_CAPITALS:
            yield Reading("location.rate_schedule", bare.group(1), said=bare.group(1))
            return
    cued = (
        _CUED_CODE.search(scope)
        or (switched and _CUED_CODE.search(text))
        or _code_after_utility(scope)
        or _BARE_CODE.match(scope)
    )
    if cued and _plan_like(code := cued.group("code")):
        # "its tou-dr1 w sdge", "plan is tou-d-prime", "sdge, tou-dr1": a code typed in lowercase, as
        # on the bill
        yield Reading("location.rate_schedule", normalize_plan(code) or code.upper(), said=code)


# "e-29, the ev one", "r-1": a code said on its own (or with what kind of plan it is) is their plan
_BARE_CODE = re.compile(
    r"^\W*(?:the\s+)?(?P<code>[a-z]{1,5}-\d{1,2}[a-z]?|[a-z]{1,5}\d?(?:-[a-z0-9]{1,6}){2,3}|"
    + _DOTTED_CODE
    + r")(?!\.?\d)\W*"
    r"(?:(?:rn|now|currently|atm)\b\W*)?(?:$|,|(?:the\s+)?(?:[\w-]+\s+){0,2}(?:one|1|plan|rate|schedule)\b[^,.;!?]*$)",
    re.I,
)


def _plan_like(code: str) -> bool:
    return bool(
        # ("re-tou", "r-tod": a time-of-use part names a plan whatever its prefix)
        (
            re.search(r"\d", code)
            or code.count("-") >= 2
            or re.match(_PLAN_PREFIX, code, re.I)
            or re.search(r"(?:^|-)(?:tou|tod)(?:-|$)", code, re.I)
        )
        and not re.search(r"-\d{3,}\b", code)  # "f-150" is a truck
        and code.lower() not in _NOT_PLAN_CODES
        and not find_utility(code)
        and not find_vehicle(code)
    )


def _code_after_utility(text: str) -> re.Match[str] | None:
    """ "sdge, tou-dr1", "pge e-tou-c": a code said right after their utility's name is its plan."""
    utility = find_utility(text, answer=True)
    if utility is None:
        return None
    at = text.lower().find(utility[1].lower())
    if at < 0:
        return None
    return re.match(
        r"[\s,:;/-]*(?:on\s+|plan\s+|rate\s+)?(?P<code>[a-z]{1,5}\d?(?:-[a-z0-9]{1,6}){1,3})\b(?![-.]?\d|\s*(?:kw|kwh|%))",
        text[at + len(utility[1]) :],
        re.I,
    )


_PER_KWH = r"\s*(?:a|an|per|/|each)?\s*(?:kwh|kw\s*h|kilowatt[\s-]?hours?)\b"
_CENTS_PRICE = re.compile(r"(?<![\w.])(-?\d{1,3}(?:\.\d+)?)\s*(?:cents?\b|¢|c\b)" + _PER_KWH, re.I)
# "$0.28/kWh", and "0.48/kwh" with the dollar sign left out (a figure under a dollar)
_DOLLAR_PRICE = re.compile(r"(?:\$\s*(-?\d?\.\d{1,4}|\d)|(?<![\w.$])(0?\.\d{2,4}))\b" + _PER_KWH, re.I)
# A price without "per kWh", read only as the answer to the rate-plan question (never per mile, therm or month)
_NOT_PER_KWH = (
    r"(?!\s*(?:a|an|per|/|each|every)\s*(?:mile|mi\b|therm|gallon|gal\b|month|mo\b|day|week|year|hour|minute|min\b|kw\b|load|cycle))"
    # "12 cents more", "5 cents cheaper": a difference, not a price
    r"(?!\s*(?:more|less|higher|lower|cheaper|extra|off|back|difference|increase|up|down)\b)"
)
_BARE_CENTS = re.compile(r"(?<![\w.$-])(\d{1,2}(?:\.\d+)?)\s*(?:cents?\b|¢|c\b)" + _NOT_PER_KWH, re.I)
_BARE_DOLLARS = re.compile(r"\$\s*(0?\.\d{1,4})\b" + _NOT_PER_KWH, re.I)
_FIRST_PERSON_ON = re.compile(r"\b(?:we'?re|we\s+are|i'?m|i\s+am)\s+on\b", re.I)
_OFFERED = re.compile(
    r"\b(?:offer\w*|quot(?:e|ed|ing)|pitch\w*|promis\w*|advertis\w*|door[-\s]to[-\s]door|knock\w*|"
    r"sales\s*(?:man|guy|rep|person)|would\s+(?:charge|give|be)|could\s+get)\b",
    re.I,
)
_PRICE_OWNER = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:pay|paying|get\s+charged|are\s+charged)\b|\b(?:my|our)\s+(?:rate|price|electricity|power)\b|"
    r"^\s*(?:about|around|roughly|approximately|like|maybe)?\s*[$\d]|"
    # "flat 11.5 cents a kwh", "flat rate, 10 cents/kwh from our co-op": a flat price stated as theirs
    r"^\W*(?:it'?s\s+|its\s+|we'?re\s+|were\s+)?(?:on\s+)?(?:a\s+)?flat\b|\bfrom\s+(?:our|my)\s+(?:co-?op|utility|provider)\b|"
    r"(?:^|[,;]\s*)(?:and\s+)?(?:pay|paying)\b|"
    r"\bpaying\b|\b(?:flat\s+)?rate\b[^.?!]{0,25}\bis\b|\bbill\s+(?:says|shows|has)\b",  # "I'm in 02134 with Eversource and pay 31 cents per kWh": the clause's subject is the user
    re.I,
)


# "we're on txu, flat 14 cents": a flat price is per kWh even unsaid
_FLAT_CENTS = re.compile(
    r"\bflat(?:\s+rate)?(?:\s+of)?(?:\s+(?:is|at))?\s+(?:about\s+|around\s+|like\s+)?(-?\d{1,2}(?:\.\d+)?)\s*(?:cents?\b|¢|c\b)|"
    # "we pay 13 cents flat", "pay 12 cents flat"
    r"(?<![\w.])(\d{1,2}(?:\.\d+)?)\s*(?:cents?\b|¢|c\b)\s+(?:a\s+kwh\s+|per\s+kwh\s+)?flat\b",
    re.I,
)


PART_OF_DAY = "a price for part of the day"


# what makes a bare "10 cents" a price per kWh: the message speaks of their rate or their bill
_RATE_TALK = re.compile(
    r"\bflat(?:\s+rate|\s+plan)?\b|\b(?:my|our)\s+(?:rate|bill)\b|\brate\s+is\b|\bbill\s*(?:says|shows|:)|"
    r"\b(?:renewed|locked\s+in)\s+at\b|\bon\s+(?:my|our|the)\s+bill\b|\benergy\s+charge\b|"
    # "fixed w gexa at 13.9c", "new contract started, 15.2 cents now": a retail contract's price is
    # per kWh ("we pay about 28 cents" alone is not said of what)
    r"\bfixed\b|\bcontract\b|\b(?:that|the|this)\s+rate\b|"
    # "we pay 13 cents for power", "electricity is like 11 cents here": a price said of their power
    r"(?<![\w.])\d{1,2}(?:\.\d+)?\s*(?:cents?|¢|c)\s+(?:for|on)\s+(?:the\s+)?(?:power|electricity|electric)\b|"
    r"\b(?:power|electricity|electric|elec)\s+(?:is|runs|costs?)\s+(?:us\s+)?(?:about\s+|around\s+|like\s+|roughly\s+)?\d{1,2}(?:\.\d+)?\s*(?:cents?|¢|c)\b|"
    # "gas is $1.10/therm, elec 15c": the price of electricity listed beside a fuel's
    r"(?<!-)\b(?:electricity|electric|elec)\s+(?:about\s+|around\s+|like\s+|~)?\d{1,2}(?:\.\d+)?\s*(?:cents?|¢|c)\b",
    re.I,
)
# "same all day", "every hour": one price for the whole day (not a period's)
_WHOLE_DAY = re.compile(
    r"\b(?:same\s+)?all\s+day\b|\bevery\s+hour\b|\b24/7\b|\ball\s+(?:the\s+)?time\b", re.I
)


_PRICE_ALL_IN = re.compile(
    r"\ball[-\s]in\b|\bincluded\b|\bincluding\b|\bincl\b|\bin\s+total\b|\btotal\b|\bwith\s+(?:delivery|supply)\b|"
    r"\b(?:delivery|supply)\s+and\s+(?:delivery|supply|generation)\b",
    re.I,
)
_PRICE_PART = re.compile(
    r"\b(?:delivery|distribution|transmission|supply|generation|fuel\s+(?:charge|adjustment|cost)|rider|surcharge|"
    r"capacity\s+charge|demand\s+charge)\b",
    re.I,
)


def _price_listed(text: str, said: str, message: str) -> bool:
    """ "we're in kailua, heco, 42c/kwh, 10kw solar": a price per kWh listed among their own facts."""
    item = next((part for part in re.split(r"\s*,\s*", text) if said in part), "")
    return (
        "," in text
        and len(item.split()) <= 3
        and re.search(r"kwh", item, re.I) is not None
        and re.search(r"\b(?:we|we'?re|i'?m|im|our|my)\b", message or text, re.I) is not None
    )


def _price(text: str, *, pending_slot: str | None, message: str = "") -> Iterator[Reading]:
    """'we pay about 30 cents a kWh' / '$0.28/kWh' -> 0.30 $/kWh (a flat price, said so)."""
    rate_talk = _RATE_TALK.search(message or text) is not None
    match = _CENTS_PRICE.search(text) or _FLAT_CENTS.search(text)
    value = float(match.group(1) or match.group(2)) / 100 if match else None
    if match is None and (dollars := _DOLLAR_PRICE.search(text)):
        match, value = dollars, float(dollars.group(1) or dollars.group(2))
    fuel = re.search(r"\b(?:gas|propane|oil|therms?|gallons?|gal)\b", text, re.I)
    if match is None and (pending_slot == "rate_schedule" or rate_talk) and not fuel:
        # "idk, we pay about 28 cents" answering the rate-plan question: a price per kWh is what it asks for
        # ("im on the flat rate, 10 cents", "bill says 12.5 cents": their rate, so per kWh)
        if bare := _BARE_CENTS.search(text):
            match, value = bare, float(bare.group(1)) / 100
        elif bare := _BARE_DOLLARS.search(text):
            match, value = bare, float(bare.group(1))
    if match is None or value is None:
        return
    if re.search(
        r"\b(?:summer|winter)\b[^.;]{0,40}\b(?:summer|winter)\b|\b(?:first|next|over|above)\s+\d{2,4}\s*kwh\b",
        text,
        re.I,
    ):
        # "Energy Charge Summer 0.1128/kWh  Winter First 1000 kWh 0.0832": a season's or a tier's
        # price, one of several on the bill, not one flat price
        return
    if _PRICE_PART.search(text) and not _PRICE_ALL_IN.search(text):
        # "Delivery Svc 1,142 kWh @ $0.0891", "supply charge is 7 cents": one part of the bill's
        # price per kWh, not what they pay for one (the other part is on another line)
        return
    if _OFFERED.search(text[max(0, match.start() - 40) : match.end() + 20]):
        return  # "some guy offered me 8.9 cents fixed for 12 months": someone's offer, not what they pay
    if not (
        _PRICE_OWNER.search(text)
        or pending_slot == "rate_schedule"
        or _FIRST_PERSON_ON.search(text)
        or rate_talk
        or _price_listed(text, match.group(0), message)
    ):
        return
    if re.search(
        r"\b(?:peak|off[-\s]?peak|nights?|days?|daytime|evenings?|mornings?)\b", text, re.I
    ) and not (_WHOLE_DAY.search(text)):
        # "i pay 19c/kwh during the day": one period's price needs its hours, it is not one flat price
        yield Reading(
            "location.flat_rate_usd_per_kwh", round(value, 4), said=match.group(0), assumption=PART_OF_DAY
        )
        return
    yield Reading("location.flat_rate_usd_per_kwh", round(value, 4), said=match.group(0), unit="$/kWh")


# --- equipment ------------------------------------------------------------------------------


def _just_the_car(text: str, words: str) -> bool:
    """ "yo got a model y", "zip is 94110, got a model y": a greeting or a list item that is only "got
    a <car>" (nothing but a comma or the end after the car: "got a quote for a model y", "got a model
    y test drive tomorrow" and "have u seen the new model 3" are not)."""
    return (
        re.search(
            r"(?:^|,)\s*(?:(?:yo|hey|hi|ok(?:ay)?|so|well)[,!]?\s+)?(?:just\s+)?(?:got|have|drive|bought)\s+"
            r"(?:a|an)\s+(?:\d{4}\s+)?(?:[a-z]+\s+)?" + re.escape(words) + r"\s*(?:[.!,]|$)",
            text,
            re.I,
        )
        is not None
    )


# "bolt at 15% need it at 80 by 7am", "need the ioniq 5 at 90%", "plan the r1t charging": a car named
# with its charge level, a deadline or its plug is the car they charge (their own)
_CAR_IN_REQUEST = re.compile(
    r"\b\d{1,3}\s*%|\bat\s+\d{1,3}\b|\bfull\b|\bplug(?:ged)?\s+in|\bcharging\b|\b\d{1,3}\s+(?:more\s+)?miles\b|\bby\s+\d|"
    r"\b(?:charge|plug)\s+(?:in\s+)?(?:the|my|our)\s",
    re.I,
)
_REPLACED_CAR = re.compile(r"\b(?:traded(?:\s+in)?|sold|swapped|replaced|got\s+rid\s+of|returned)\b", re.I)
# "the car is a model y", "our ev's a bolt": the user's car named as what it is
_THE_CAR_IS = re.compile(r"(?:\b(?:the|my|our)\s+|^\W*)(?:car|ev|vehicle|truck|suv)\s*(?:is|'s)\b", re.I)
_CAR_FILLER = frozenset(
    "a an the my our here its it's it is mine ours new used w/ with now also and just".split()
    + "tesla chevy chevrolet nissan hyundai kia ford vw volkswagen rivian bmw polestar audi toyota".split()
    + "subaru honda cadillac gmc volvo jaguar porsche fiat mini jeep chrysler lucid mustang".split()
)


def _only_the_car(text: str, words: str) -> bool:
    """A clause that names nothing but the car ("mustang mach-e.", "2023 ioniq 5"): a list item of
    the user's own facts, as in "nyc 10025, con ed. mustang mach-e. when should I charge?"."""
    rest = re.sub(re.escape(words), " ", text, flags=re.I)
    left = [w for w in re.findall(r"[a-z0-9/'&-]+", rest.lower()) if not re.fullmatch(r"(?:19|20)\d\d", w)]
    return all(word in _CAR_FILLER for word in left)


# "kia ev6 replaced the leaf": the car before "replaced" is the one they have now
_REPLACED_BY = re.compile(
    r"^(?P<new>.+?)\s+(?:replaced|replaces|is\s+replacing|took\s+over\s+from)\s+(?P<old>.+)$", re.I
)


def _vehicle(text: str, *, pending_slot: str | None, message: str = "") -> Iterator[Reading]:
    replaced = _REPLACED_BY.search(text)
    if replaced and find_vehicle(replaced.group("new")) and find_vehicle(replaced.group("old")):
        spec, words = find_vehicle(replaced.group("new"))  # type: ignore[misc]
        yield Reading("equipment.ev_model", as_said(spec.name, words), said=words)
        return
    found = find_vehicle(text)
    if found is None:
        return
    spec, words = found
    rest = text[text.lower().find(words.lower()) + len(words) :]
    second = find_vehicle(rest)
    if second is not None and re.search(r"\bnot\b", rest[: rest.lower().find(second[1].lower())], re.I):
        second = None  # "a model y not a model 3": a correction, not two cars
    if (
        second is not None
        and second[0].name != spec.name
        and _REPLACED_CAR.search(text[: text.lower().find(words.lower())])
    ):
        spec, words = second  # "traded in the model 3 for a lightning": the second car is theirs now
        second = None
    if second is not None and second[0].name != spec.name:
        yield Reading("equipment.ev_model", as_said(spec.name, words), said=words)
        yield Reading("equipment.ev_model", as_said(second[0].name, second[1]), said=second[1])
        return
    starts = (
        r"^\s*(?:(?:actually|no\s+wait|no|nope|nah|naw|sorry|oops|wait|i\s+meant|i\s+mean|meant|correction|correct|for\s+(?:me|us))[,.!:]?\s+)*"  # "wait no its the bolt euv": leads said one after another
        # "also its a leaf plus", "ok its a kia ev6": a filler only before "it's" ("and a model 3 would be nice" is not)
        r"(?:(?:also|and|oh|ok|okay|yeah|yes|yep|well|ah|um|btw)[,.!:]?\s+(?=(?:it'?s|its|it\s+is|that'?s)\s))?"
        r"(?:(?:it'?s|its|it\s+is|that'?s|ours\s+is|ours'?s|mine\s+is|mine'?s)\s+(?:actually\s+|really\s+)?)?"
        r"(?:a\s+|an\s+|the\s+)?(?:\d{4}\s+)?(?:(?:lfp|base|used|new|white|red|black|blue|gr[ae]y|silver)\s+)?(?:(?:tesla|chevy|chevrolet|nissan|hyundai|"
        r"kia|ford|vw|volkswagen|rivian|bmw|polestar|audi|toyota|subaru|honda|cadillac|gmc|volvo|jaguar|porsche|fiat|mini|"
        r"jeep|chrysler|lucid)\s+)?"
    )
    household = re.search(
        r"\b(?:hubby|wife|husband|partner|spouse|son|daughter|kid|teen)\s+(?:drives?|has|owns?|uses?|charges?)\b|"
        r"\b(?:i|we)\s+meant\b",
        text,
        re.I,
    )
    # "im on pge ev2a, zip 94110, its a tesla model 3": in a list of the user's facts, one item names the car
    listed = any(
        re.match(
            starts
            + re.escape(words)
            # "tesla model 3 w/ a 32 amp charger": the car with its own charger or battery
            # ("model y on a 40 amp wall charger": the charger it is on)
            + r"(?:(?:\s+[\w.-]+){0,3}|\s+(?:with|w/|w|on)\s+[^,]{0,60}?\b(?:charger|battery|kwh|amps?|kw|wall\s+connector|"
            r"wall\s*box|wallbox|juicebox|chargepoint|evse|level\s*[12])\b)" + r"\s*[.!]?\s*$",
            segment,
            re.I,
        )
        for segment in re.split(r"\s*,\s*", text)[1:]
    )
    if not (
        _OWN.search(text)
        or household
        or pending_slot == "ev"
        or re.match(starts + re.escape(words), text, re.I)
        or listed
        or _just_the_car(text, words)
        or _THE_CAR_IS.search(text)
        or _only_the_car(text, words)
        or _REPLACED_CAR.search(text)
        or _CAR_IN_REQUEST.search(text)
        # "a 40 amp charger for the lightning", "had a charger put in for the ioniq 5": the car
        # their charger is for
        or re.search(
            r"\b(?:charger|evse|wall\s*connector|outlet|plug)\s+(?:(?:put\s+in|installed|wired|added)\s+)?for\s+"
            r"(?:the|our|my)\s+(?:\d{4}\s+)?" + re.escape(words),
            text,
            re.I,
        )
        # "got a heat pump and an ev (model 3)": a bare item of a list the message says is theirs
        or (
            _OWN.search(message)
            and re.match(
                r"^\W*(?:a|an|the)\s+(?:(?:ev|car|electric\s+car|truck)\s*\(?\s*)?"
                + re.escape(words)
                + r"\s*\)?\W*$",
                text,
                re.I,
            )
        )
    ):
        return
    battery = _kwh_near_car(text)
    if battery is not None and battery > 0:
        spec = vehicle_spec(spec.name, battery) or spec
    yield Reading("equipment.ev_model", as_said(spec.name, words), said=words)


_TRIMS = re.compile(r"\s+(?:RWD|AWD|Long Range|Performance|Standard Range|Extended Range)$")


def as_said(name: str, words: str) -> str:
    """'Tesla Model 3 RWD' -> 'Tesla Model 3' unless the user named the trim (never invent one;
    the plan states the typical battery it assumes)."""
    trim = _TRIMS.search(name)
    if trim is None:
        return name
    said = re.sub(r"\s+", " ", words.lower())
    trim_words = {
        "long range": ("long range", "lr"),
        "performance": ("performance",),
        "awd": ("awd",),
        "rwd": ("rwd",),
    }
    stated = trim_words.get(trim.group(0).strip().lower(), (trim.group(0).strip().lower(),))
    return name if any(word in said for word in stated) else name[: trim.start()]


def _kwh_near_car(text: str) -> float | None:
    match = re.search(_NUM + r"\s*-?\s*kwh\b", text, re.I)
    return float(match.group(1)) if match else None


JUST_ONE = re.compile(
    r"\b(?:it'?s|its|we\s+have|only|just)\s+(?:just\s+|only\s+)?(?:one|1|a\s+single)\b(?!\s*(?:kw|kwh|%))",
    re.I,
)


def _batteries(
    text: str, *, message: str, pending_slot: str | None = None, about_charging: bool = False
) -> Iterator[Reading]:
    # answering "which EV do you drive?", a bare kWh figure is the car's battery
    car_here = bool(_CAR_WORDS.search(text)) or find_vehicle(text) is not None or pending_slot == "ev"
    home_here = bool(HOME_BATTERY_WORDS.search(text))
    # "just picked up a used leaf, its a 2018 so 40 kwh": "it", after their car, is the car
    car_here = car_here or bool(
        re.match(r"\W*(?:it'?s|its|it\s+is|it\s+has|it'?s\s+got)\b", text, re.I)
        and find_vehicle(message) is not None
        and not HOME_BATTERY_WORDS.search(message)
    )
    kwh = re.search(
        _NUM + r"\s*-?\s*kwh\b(?!\s*(?:a|an|per|each|every|/)\s*(?:night|day|week|month|year|mo|yr)\b)",
        text,
        re.I,
    )
    if kwh and (
        re.search(
            r"\b(?:need|needs|needed|want|add|adding|put|putting|get|getting)\s+(?:(?:about|like|around|another|over|at\s+least|~)\s*)?$",
            text[: kwh.start()],
            re.I,
        )
        or re.match(
            r"\s+(?:in|into|back\s+in)\s+(?:the|my|our|her|his)\s+(?:car|ev|truck|battery)\b",
            text[kwh.end() :],
            re.I,
        )
    ):
        kwh = None  # "need 40 kwh in the car by 7am": the energy to put in, not the battery's size
    powerwalls = re.search(_COUNT + r"\s+powerwalls?\b", text, re.I) or re.search(
        r"\b(second|2nd|third|3rd)\s+powerwall\b",
        text,
        re.I,  # "we added a second powerwall": two now
    )
    negated_battery = re.search(
        r"\b(?:no|don'?t\s+have(?:\s+(?:an?|any))?|do\s+not\s+have(?:\s+(?:an?|any))?|without\s+(?:an?|any))\s+"
        # "we don't have a generator or a home battery": the battery last in what they lack
        r"(?:[\w-]+(?:\s+[\w-]+)?\s*,?\s*\b(?:or|nor)\s+(?:an?\s+|any\s+)?)?(?:home\s+|backup\s+)?"
        r"(?:batter(?:y|ies)(?:\s+storage)?|powerwall|battery\s+storage)\b",
        text,
        re.I,
    )
    negated_battery = negated_battery or re.search(
        r"\bbatter(?:y|ies)\s*[:=-]\s*(?:none|no|nope)\b", text, re.I
    )
    if about_charging and kwh and not home_here and not HOME_BATTERY_WORDS.search(message):
        # talking about their car: "its the extended range, 131 kwh", "its the 40 kwh one", "62 kwh
        # battery, and the charger is 32 amps" (a home battery is rarely this big, or called a pack)
        size = float(kwh.group(1))
        car_here = (
            car_here
            or size >= 35
            or bool(re.search(r"\b(?:pack|range|trim|version|one|charger)\b", message, re.I))
        )
    if (
        negated_battery
        and negated_battery.group(0).lower().startswith("without")
        and (QUESTION_START.search(text) or "?" in text or re.match(r"\W*if\b", text, re.I))
    ):
        # "if the grid goes down do my panels still work without a battery": a case asked about
        negated_battery = None
    if negated_battery and not car_here:
        yield Reading("equipment.has_battery_storage", False, said=negated_battery.group(0))
        return
    if kwh and car_here and not home_here:
        yield Reading("equipment.ev_battery_kwh", float(kwh.group(1)), said=kwh.group(0), unit="kWh")
        return
    battery_words = home_here or re.search(r"\bbatter(?:y|ies)\b", text, re.I)
    car_in_message = find_vehicle(message) is not None or _CAR_WORDS.search(message) is not None
    if kwh and battery_words and not car_here and (home_here or not car_in_message):
        if float(kwh.group(1)) > 0:  # "-5 kWh" is refused below; it says nothing about owning one
            yield Reading("equipment.has_battery_storage", True, said=kwh.group(0))
        yield Reading("equipment.battery_capacity_kwh", float(kwh.group(1)), said=kwh.group(0), unit="kWh")
        return
    if powerwalls and not kwh:
        ordinal = {"second": 2, "2nd": 2, "third": 3, "3rd": 3}.get(powerwalls.group(1).lower())
        count = ordinal or _count(powerwalls.group(1))
        if JUST_ONE.search(text[powerwalls.end() :]):
            count = 1  # "you have me down for 2 powerwalls?? it's just one"
        yield Reading("equipment.has_battery_storage", True, said=powerwalls.group(0))
        yield Reading(
            "equipment.battery_capacity_kwh",
            round(count * POWERWALL_KWH, 1),
            said=powerwalls.group(0),
            unit="kWh",
            assumption=f"a Powerwall stores {POWERWALL_KWH:g} kWh",
        )
        return
    # "we have 7kw solar and a powerwall": the clause "a powerwall" has no subject of its own and
    # takes the message's (a neighbour's or a what-if clause is still ruled out by its flags)
    subjectless = re.fullmatch(  # the clause is only the thing: "a powerwall", "a powerwall in 94110"
        r"\s*(?:(?:and|\+|&|plus)\s*)?(?:a|an|one|two|\d)?\s*(?:tesla\s+)?(?:powerwalls?|home\s+batter(?:y|ies)|battery\s+storage)"
        r"(?:\s+(?:in|at)\s+[\w-]+(?:\s+[\w-]+)?)?(?:\s*,\s*(?P<tail>.*))?[\s.,!]*",  # a list may follow: "a powerwall, pge, 95126"
        text,
        re.I,
    )
    if (
        subjectless
        and subjectless.group("tail")
        and re.search(
            r"\b(?:want|would|quote|order|getting|thinking|plan|maybe|soon|wish|like|if)\b",
            subjectless.group("tail"),
            re.I,
        )
    ):
        subjectless = None  # "a powerwall, maybe next year": not theirs yet
    if (
        home_here
        and not kwh
        and (
            _OWN.search(text)
            or re.search(r"\b(?:have|has|got|installed)\b", text, re.I)
            or (subjectless and (_OWN.search(message) or _A_LIST_OF_THEIR_SETUP.search(message)))
        )
    ):
        yield Reading("equipment.has_battery_storage", True, said=HOME_BATTERY_WORDS.search(text).group(0))
        if re.search(r"\b(?:a|one|my|our)\s+powerwall\b", text, re.I):
            yield Reading(
                "equipment.battery_capacity_kwh",
                POWERWALL_KWH,
                said="a Powerwall",
                unit="kWh",
                assumption=f"a Powerwall stores {POWERWALL_KWH:g} kWh",
            )


# "san antonio, cps energy, 10 kw solar and a powerwall", "8 kw and a powerwall": a list of their
# setup with a solar size in it and nothing asked (a subjectless Powerwall in it is theirs too)
_A_LIST_OF_THEIR_SETUP = re.compile(
    r"^(?![^?]*\?)(?!\W*(?:" + QUESTION_START.pattern[1:] + r"))[^?]*\b\d+(?:\.\d+)?\s*kw\b", re.I
)


# "I only have a 120V outlet", "just a regular wall outlet": how the car charges, said on its own
_ONLY_OUTLET = re.compile(
    r"^\s*(?:(?:i|we)\s+(?:only\s+|just\s+)?(?:have|got|use)\s+(?:only\s+|just\s+)?|(?:i'?ve|we'?ve)\s+(?:only\s+)?got\s+|"
    r"(?:just|only)\s+(?:(?:have|got|use)\s+)?|it'?s\s+(?:just\s+|only\s+)?)?(?:a\s+|an\s+)?(?:(?:regular|standard|normal|ordinary|plain|household|wall|"
    r"120\s*-?\s*v(?:olts?)?)\s+)*(?:(?<=\s)(?:outlet|plug|socket)|level\s*1|l1)"
    r"(?:\s+(?:only|in\s+the\s+garage|here|for\s+now|charger|charging))*\s*[.!]?\s*$",
    re.I,
)
_OTHER_APPLIANCES = re.compile(
    r"\b(?:dryer|washer|dishwasher|oven|stove|heat\s+pump|water\s+heater|hot\s+tub|space\s+heater|ac|a/c|"
    r"air\s+condition\w*|fridge|freezer|microwave|kettle|tv|computer|heater|pool)\b",
    re.I,
)


_PANEL_AFTER = re.compile(
    r"\s*(?:is\s+(?:the|my|our)\s+|(?:main|electrical|breaker|service)\s+)?(?:panel|service|main|box|subpanel)\b",
    re.I,
)
_SOLAR_AFTER = re.compile(r"\s*(?:of\s+)?(?:solar|pv|panels?|array|system\s+on)\b", re.I)


def _charger_kw(text: str) -> re.Match[str] | None:
    """The kW figure that is the charger's: not one said of solar ("6 kw of panels", "a 5kw solar
    system"); when the clause speaks of solar without saying which figure is which, none."""
    found = [m for m in re.finditer(_NUM + r"\s*-?\s*(?:kw|kilowatts?)\b(?!h)", text, re.I)]
    for match in found:
        before = text[max(0, match.start() - 12) : match.start()]
        if _SOLAR_AFTER.match(text, match.end()) or re.search(r"\b(?:solar|pv)\s*$", before, re.I):
            continue
        near = text[match.end() : match.end() + 30]
        if re.match(
            r"\s*(?:level\s*2\s+|l2\s+|home\s+|ev\s+)?(?:charger|wall\s*connector|evse|wallbox|charging)",
            near,
            re.I,
        ):
            return match
        lead = text[max(0, match.start() - 30) : match.start()]
        if re.search(
            r"(?:charger|wall\s*connector|evse|wallbox)\s*(?:is|'s|does|delivers|runs\s+at|at|of|:|=)?\s*(?:about|around|a|an)?\s*$",
            lead,
            re.I,
        ):
            return match  # "the charger is 7.2kw"
        if not re.search(r"\b(?:solar|pv|array)\b|\bpanels\b", text, re.I):  # "60 amp panel" is not solar
            return match
    return None


_OLD_VALUE_BEFORE = re.compile(
    r"\b(?:old|was|were|used\s+to(?:\s+be)?|previous(?:ly)?|before|from)\b(?:(?!\b(?:to|now|but)\b)[^,.;]){0,20}$",
    re.I,
)


_INVERTER_AFTER = re.compile(
    r"\s*(?:ac\s+)?(?:(?:solaredge|enphase|sma|fronius|tesla|string|hybrid|grid[-\s]?tie)\s+)?inverters?\b",
    re.I,
)


def _solar_kw(text: str) -> re.Match[str] | None:
    """The kW figure said of solar ("6 kw of panels", "a 5kw solar system", "solar: 4 kW"); any
    kW figure when no charger is named in the clause."""
    found = list(re.finditer(_NUM + r"\s*-?\s*(?:kw|kilowatts?|kwp)\b(?!h)", text, re.I))
    # "8 kwh of panels on the roof": a size said in the wrong unit, the panels' all the same
    # (energy made is not this: "we make 30 kwh of solar a day")
    if not re.search(
        r"\b(?:make|makes|made|produce[sd]?|generate[sd]?|get|got)\b|\b(?:a|per|each|every|/)\s*(?:day|week|month|year)\b",
        text,
        re.I,
    ):
        found += list(re.finditer(_NUM + r"\s*-?\s*kwh\s+(?:of\s+)?(?:solar|panels|pv)\b", text, re.I))
    # "solaredge 7.6 kw inverter": an inverter's rating, not the panels' size ("10 kw of panels on a
    # 7.6 kw inverter" is 10)
    found = [m for m in found if not _INVERTER_AFTER.match(text, m.end())]
    # "upgraded from the 5kw array to 9.6 kw": the value the clause says it was is not the one now
    current = [m for m in found if not _OLD_VALUE_BEFORE.search(text[: m.start()])]
    found = current or found
    for match in found:
        before = text[max(0, match.start() - 12) : match.start()]
        if _SOLAR_AFTER.match(text, match.end()) or re.search(
            r"\b(?:solar|pv|panels|array)\b\W*(?:is|are|of|:)?\s*$", before, re.I
        ):
            return match
    return found[0] if found and not _CHARGER_WORDS.search(text) else None


def charger_readings(message: str) -> Iterator[Reading]:
    """The charger a whole message names, read as when it is said as theirs (for one asked about)."""
    return _charger(message, message=message, about_charging=True)


_GOES_ON = re.compile(
    r"\W*(?:and\s+)?(?:(?:is|it'?s|its)\s+)?(?:set|runs?|running|limited|capped|dialed|turned)\s+(?:to|at|down\s+to|up\s+to)\b",
    re.I,
)
_THEIRS_IS = re.compile(r"\b(?:ours|mine)\s+(?:is|'s)\b|\b(?:we|i)\s+(?:have|got)\s+(?:a|the)\b", re.I)


def _charger(text: str, *, message: str = "", about_charging: bool = False) -> Iterator[Reading]:
    named = (
        _CHARGER_WORDS.search(text)
        or re.search(r"\bcharg\w*\b|\boutlet\b|\b120\s*v|\blevel\s*1\b", text, re.I)
        # "charger's hardwired and set to 48 amps": the clause after "and" goes on about the charger
        or (_CHARGER_WORDS.search(message) and _GOES_ON.match(text))
    )
    # "its a 48 amp" while we talk about charging their car: the charger's amps
    if not named and not (about_charging and re.search(_NUM + r"\s*-?\s*(?:amps?|a|kw)\b", text, re.I)):
        return
    if re.search(
        _NUM
        + r"\s*-?\s*(?:a|amps?|kw)\b[^.?!]{0,20}?\b(?:or|vs\.?|versus)\s+(?:a\s+)?"
        + _NUM
        + r"\s*-?\s*(?:a|amps?|kw)\b",
        text,
        re.I,
    ):
        return  # "48 amp or 40 amp charger, does it matter": two options weighed, neither said to be theirs
    kw = _charger_kw(text)
    # "ours is the 9.6 kw kind" while we talk about chargers: the kW of theirs
    if kw and (_CHARGER_WORDS.search(text) or (about_charging and _THEIRS_IS.search(text))):
        yield Reading("equipment.ev_charger_kw", float(kw.group(1)), said=kw.group(0), unit="kW")
        return
    amps = next(
        (
            found
            for found in re.finditer(
                _NUM + r"\s*-?\s*(?:a|amps?|amperes?)\b(?P<circuit>\s*(?:breaker|circuit))?", text, re.I
            )
            if not _PANEL_AFTER.match(text, found.end())  # "60 amp panel": the house's service, not a charger
            # ("it's about $190 a month in summer": money a month, not amps)
            and text[max(0, found.start() - 1) : found.start()] != "$"
            and not re.match(
                r"\s+(?:month|mo|year|yr|day|week|night|kwh|piece|pop|load)\b", text[found.end() :], re.I
            )
            and text[max(0, found.start() - 1) : found.start()] != ":"  # "by 5:30a" is a time
            # "full by 5a", "til 6a": a bare "a" after a word of time is the morning, not amps
            and not (
                re.match(_NUM + r"\s*a\b", found.group(0), re.I)
                # ("l2 at 48a": no hour of the morning is 48)
                and float(found.group(1)) <= 12
            )
            # "old charger was 16 amps but i upgraded to a 48 amp one": the old value is not theirs now
            and not _OLD_VALUE_BEFORE.search(text[: found.start()])
        ),
        None,
    )
    # "breaker for the charger is 50 amp but the charger itself runs at 40 amp": the charger's own
    # current, said as such, wins over its circuit's
    own = re.search(
        r"\b(?:charger|it)\s+(?:itself\s+)?(?:runs|is\s+set|set|charges|pulls|draws|delivers)\s+(?:at\s+|to\s+)?"
        + _NUM
        # ("60 amp breaker but the charger is set to 40": the unit said once, for both)
        + r"(?P<unit>\s*-?\s*(?:a|amps?)\b)?(?!\s*(?:%|percent|kw|mi|miles|pm|am|o'?clock)\b)(?![\d:.])",
        text,
        re.I,
    )
    if own is not None and not own.group("unit") and not re.search(r"\bamps?\b", message or text, re.I):
        own = None
    if own is not None and 0 < float(own.group(1)) <= 80:
        current = float(own.group(1))
        yield Reading(
            "equipment.ev_charger_kw",
            round(current * VOLTS_L2 / 1000, 2),
            said=own.group(0),
            unit="A",
            assumption=f"{current:g} A at {VOLTS_L2} V",
        )
        return
    # "the charger setting you have is wrong, i bumped it to 48 amps": the message names the charger
    charger_named = _CHARGER_WORDS.search(message) is not None or about_charging
    if amps and (_CHARGER_WORDS.search(text) or re.search(r"\bcharg\w*\b", text, re.I) or charger_named):
        current = float(amps.group(1))
        # ("charging at 32a off a 40a breaker": the other figure is the breaker's, this one the charger's)
        breaker_elsewhere = any(
            other.group("circuit") and other.start() != amps.start()
            for other in re.finditer(
                _NUM + r"\s*-?\s*(?:a|amps?)\b(?P<circuit>\s*(?:breaker|circuit))?", text, re.I
            )
        )
        if not breaker_elsewhere and (
            amps.group("circuit")
            or re.search(r"\b(?:breaker|circuit)\b", text, re.I)
            # ("the charger is 40 amps on a 50 amp breaker": the charger's; "breaker for the charger
            # is 50 amp": the breaker's)
            and not re.search(r"^\W*(?:the\s+|my\s+|our\s+)?charger\s+is\b", text, re.I)
        ):
            kw_value = round(current * CONTINUOUS_SHARE * VOLTS_L2 / 1000, 2)
            note = f"a {current:g} A circuit feeds a charger {CONTINUOUS_SHARE:.0%} of that ({current * CONTINUOUS_SHARE:g} A) at {VOLTS_L2} V"
        elif _ON_120_VOLTS.search(message or text) and current <= 16:
            # "16 amp granny charger": a cord on a household outlet is 120 V
            kw_value = round(current * VOLTS_L1 / 1000, 2)
            note = f"{current:g} A at {VOLTS_L1} V (a cord on a household outlet)"
        else:
            kw_value = round(current * VOLTS_L2 / 1000, 2)
            note = f"{current:g} A at {VOLTS_L2} V"
        yield Reading(
            "equipment.ev_charger_kw", kw_value, said=amps.group(0).strip(), unit="A", assumption=note
        )
        return
    outlet = re.search(
        r"\b(?:(?:standard|regular|normal|household|wall|120(?:\s*-?\s*v(?:olts?)?)?)\s+)+(?:outlet|plug|socket)s?\b|\blevel\s*1\b|\btrickle\b|"
        r"\bon\s+(?:a\s+)?120\s*-?\s*v(?:olts?)?\b|"
        # "the outlet in the garage is just a normal one": the kind said after the outlet
        r"\boutlet\b[^.;!?]{0,25}?\b(?:is|'s)\s+(?:just\s+|only\s+)?(?:a\s+)?(?:regular|normal|standard|household|120)\b",
        text,
        re.I,
    )
    alone = _ONLY_OUTLET.match(text) is not None and not _OTHER_APPLIANCES.search(message or text)
    # "all i have in the garage is a regular 120 outlet", "i'm on a level 1 rn" in a charging talk
    charging_talk = (
        about_charging or re.search(r"\bcharg\w*", message, re.I)
    ) and not _OTHER_APPLIANCES.search(message or text)
    alone = alone or bool(
        charging_talk
        and re.search(
            r"\b(?:i|we|i'?m|we'?re|i\s+have|all\s+i\s+have|it'?s|its|it\s+is|the\s+car)\b", text, re.I
        )
    )
    # "only have a regular outlet for the car": the car's charger, said (not asked about)
    # ("only got the regular outlet in the carport": where a car is kept, no other appliance named)
    for_the_car = bool(
        _CAR_WORDS.search(text)
        or (
            re.search(r"\b(?:garage|carport|driveway)\b", text, re.I)
            and not _OTHER_APPLIANCES.search(message or text)
        )
    ) and not ("?" in text or QUESTION_START.search(text))
    weighed = re.search(
        r"\b(?:charger|level\s*2|l2|240)\b[^.?!]{0,40}\bor\b[^.?!]{0,30}\b(?:outlet|plug|level\s*1|120)\b|"
        r"\b(?:outlet|level\s*1|120)\b[^.?!]{0,40}\bor\b[^.?!]{0,30}\b(?:charger|level\s*2|240)\b",
        text,
        re.I,
    )  # "level 2 charger or just the regular outlet, whats the point": two ways weighed, neither theirs
    if (
        outlet
        and not weighed
        and (
            re.search(r"\bcharg\w*|plug\w*\b", text, re.I)
            or find_vehicle(text) is not None
            or alone
            or for_the_car
        )
    ):
        yield Reading(
            "equipment.ev_charger_kw",
            OUTLET_KW,
            said=outlet.group(0),
            unit="kW",
            assumption="a household outlet charges at about 12 A on 120 V",
        )
        return
    level_two = re.search(r"\b(?:level\s*(?:2|two)|l2)\b", text, re.I)
    if (
        level_two
        and (_OWN.search(text) or _THEIRS_IS.search(text))
        and not re.search(_NUM + r"\s*-?\s*(?:a|amps?|kw)\b", text, re.I)
        and not weighed
    ):
        # "i have a level 2 charger": theirs, but Level 2 runs 16 to 48 A; heard, said back, not saved
        yield Reading("equipment.ev_charger_kw", UNKEPT + "a Level 2 charger", said=level_two.group(0))


_SOLAR_NAMED = re.compile(r"\b(?:my|our)\s+(?:solar|panels?|array|pv|system)\b", re.I)
# "24 panels at 400w each", "20 x 350 W panels": the size is their product
# panel counts said as words run past twelve ("twenty panels", "thirty two panels")
_PANEL_NUMBER_WORDS = {
    **NUMBER_WORDS,
    **{
        w: n
        for n, w in enumerate("thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(), 13)
    },
    **{
        f"{tens}{sep}{unit}".strip(): 10 * t + u
        for t, tens in ((2, "twenty"), (3, "thirty"), (4, "forty"), (5, "fifty"))
        for u, unit in enumerate(["", *"one two three four five six seven eight nine".split()])
        for sep in ((" ", "-") if unit else ("",))
    },
}
_PANEL_COUNT = re.compile(
    r"\b(?P<count>\d{1,3}|"
    + "|".join(sorted((w.replace(" ", r"\s+") for w in _PANEL_NUMBER_WORDS), key=len, reverse=True))
    + r")\s*(?:x\s*)?(?:solar\s+)?panels?\s*"
    r"(?:at|x|of|@|,|rated(?:\s+at)?)?\s*"
    # "20 panels each one says 350 W", "24 panels, 400 watts each"
    r"(?:(?:each|that|which|and)(?:\s+(?:one|of\s+them|panel))?\s+(?:says|say|is|are|rated(?:\s+at)?|at)\s+)?"
    r"(?P<watts>\d{3})\s*(?:w|watts?)\b(?:\s+(?:a\s+piece|apiece|each))?|"
    # "22 x 410w panels", "its 24 x 410w, enphase micros": the count, times each panel's watts
    r"\b(?P<times>\d{1,3})\s*(?:x|×|\*)\s*(?P<each>\d{3})\s*(?:w|watts?)\b",
    re.I,
)
# what says a system is installed, not asked about: "on the roof", "net metered", "since 2020"
_INSTALLED = re.compile(
    r"\bon\s+(?:the|our|my)\s+(?:roof|garage|barn|shed|carport)\b|\brooftop\b|\bnet[-\s]?metered\b|\bsince\s+(?:19|20)\d\d\b|^\W*\d",
    re.I,
)
# "a 7.4 kW system", "10 kW on the roof": a size with nothing but solar it could be
_ROOFTOP = re.compile(
    r"\d\s*-?\s*kw\s+(?:system|array|setup)\b|\bon\s+(?:the|our|my)\s+(?:roof|garage|barn|shed|carport|house)\b|"
    r"\brooftop\b",
    re.I,
)


_KW_SYSTEM = re.compile(r"\d\s*-?\s*kw\s+(?:solar\s+)?(?:system|array)\b", re.I)
# "12.3 kw on the roof and 2 powerwalls": a kW said of the roof is the panels', whatever else is named
_KW_ON_ROOF = re.compile(
    r"\d\s*-?\s*kw\s+(?:up\s+)?on\s+(?:the|our|my)\s+(?:roof|garage|barn|carport|house)\b|\d\s*-?\s*kw\s+rooftop\b|"
    # "we got 9.2kw installed in march": kilowatts installed, with nothing else rated in kW named, are panels
    r"\b(?:we|i)\s+(?:got|had|have|just\s+got)\s+(?:a\s+)?\d+(?:\.\d+)?\s*-?\s*kw\s+(?:installed|put\s+in)\b"
    r"(?![^.;!?]*\b(?:garage|car|ev|truck|tesla|charg\w*|level\s*2|outlet|plug)\b)",
    re.I,
)


_SOLAR_GOT = re.compile(
    r"\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:added|have|got|installed|put\s+in|bought|went\s+with)\b"
    r"[^.?!,;]{0,25}\b(?:solar|panels?|pv|array)\b",
    re.I,
)


def solar_talk(message: str) -> bool:
    """The message is about their panels: "our solar", or panels named beside a kW with no other
    kW-rated equipment in it ("we added panels, we're at 8.4 kw now": the size is in its own clause)."""
    if _SOLAR_NAMED.search(message):
        return True
    if re.search(r"\b\d{1,2}(?:\.\d+)?\s*-?\s*kw\s+(?:solar\s+)?(?:system|array)\b", message, re.I) and not (
        _CHARGER_WORDS.search(message) or HOME_BATTERY_WORDS.search(message)
    ):
        return True  # "we have a 10 kw system": a home's kW system is its panels
    return (
        _SOLAR_GOT.search(message) is not None
        and not _CHARGER_WORDS.search(message)
        and not HOME_BATTERY_WORDS.search(message)
    )


_MICROS_OR_INVERTER = re.compile(
    r"\b(?:micros?|microinverters?|inverters?|enphase|iq\s?[78]\w*|solaredge|optimi[sz]ers?)\b", re.I
)


_TWO_ARRAYS = re.compile(
    r"(\d{1,2}(?:\.\d+)?)\s*-?\s*kw\b(?!h)[^.;?]{0,40}?\b(?:and|plus|\+)\s+(?:another|an\s+extra|an\s+additional|a\s+second)\s+"
    r"(\d{1,2}(?:\.\d+)?)\s*(?:-?\s*kw\b(?!h))?(?:\s+(?:on|over|at|in)\s+the\s+(?:barn|garage|shop|shed|carport|ground|pole\s+barn))",
    re.I,
)


def _solar(
    text: str, *, pending_slot: str | None, about_solar: bool = False, message: str = ""
) -> Iterator[Reading]:
    """`about_solar`: the talk is about their panels ("ok found the paperwork, its 8.8 kw")."""
    other_kw = _CHARGER_WORDS.search(text) or HOME_BATTERY_WORDS.search(text)
    solar_here = (
        re.search(r"\b(?:solar|pv|panels?|photovoltaic|array|ground[-\s]?mount(?:ed)?)\b", text, re.I)
        or (_ROOFTOP.search(text) and (_OWN.search(text) or _INSTALLED.search(text)) and not other_kw)
        # "two powerwalls with our 11 kw system": a battery is sized in kWh, so "<n> kW system" stays solar
        or (_KW_SYSTEM.search(text) and _OWN.search(text) and not _CHARGER_WORDS.search(text))
        or _KW_ON_ROOF.search(text)
        or (about_solar and not other_kw and not re.search(r"\bkwh\b", text, re.I))
    )
    counted = panels = _PANEL_COUNT.search(text)
    if panels and panels.group("times") and not (solar_here or pending_slot == "solar_size"):
        # "its 24 x 410w, enphase micros": a count times panel watts is an array in any words
        counted = panels if _MICROS_OR_INVERTER.search(message or text) or about_solar else None
    if counted and (solar_here or pending_slot == "solar_size" or panels.group("times")):
        said_count = re.sub(r"\s+", " ", (panels.group("count") or panels.group("times")).lower())
        count = _PANEL_NUMBER_WORDS.get(said_count) or int(said_count)
        watts = float(panels.group("watts") or panels.group("each"))
        kw = round(count * watts / 1000, 2)
        said = panels.group(0)
        yield Reading(
            "equipment.solar_capacity_kw", kw, said=said, unit="kW", assumption=f"{count} × {watts:g} W"
        )
        return
    total = _SIZE_NOW_TOTAL.search(text)
    if (
        total
        and _ADDED_KW.search(message)
        and not re.search(r"\b(?:charger|battery|powerwall)\b", message, re.I)
    ):
        # "we added 4 more kw so it's 10 total now": the size after the panels they added
        yield Reading(
            "equipment.solar_capacity_kw", _amount(total.group(1)), said=total.group(0).strip(), unit="kW"
        )
        return
    if not solar_here and pending_slot != "solar_size":
        return
    both = _TWO_ARRAYS.search(message or text)  # (the second array is a clause of its own)
    if both and not other_kw and re.search(rf"\b{re.escape(both.group(1))}\s*-?\s*kw", text, re.I):
        # "8 kw on the house and another 4 on the barn": one home's two arrays, 12 kW in all
        kw_sum = _amount(both.group(1)) + _amount(both.group(2))
        yield Reading("equipment.solar_capacity_kw", round(kw_sum, 2), said=both.group(0), unit="kW")
        return
    kw = _solar_kw(text) or _SOLAR_IS.search(text)
    added = _ADDED_KW.search(text)
    if kw and added and added.start() <= kw.start() < added.end():
        return  # "added 3 kw more panels": what was added, not the size they have
    if kw:
        # "8 kwh of panels": a panel array is sized in kW, said so when we read it that way
        misnamed = "panels are sized in kW" if re.search(r"kwh", kw.group(0), re.I) else None
        yield Reading(
            "equipment.solar_capacity_kw",
            float(kw.group(1)),
            said=kw.group(0),
            unit="kW",
            assumption=misnamed,
        )
    elif pending_slot == "solar_size" and (bare := _lone_size(text)):
        yield Reading("equipment.solar_capacity_kw", float(bare), said=bare, unit="kW")
    elif about_solar and (size := _ITS_A_SIZE.search(text)) and 0 < float(size.group(1)) <= 30:
        # "husband says its 6.5" right after an estimate that assumed a size: their system's size
        yield Reading(
            "equipment.solar_capacity_kw", float(size.group(1)), said=size.group(0).strip(), unit="kW"
        )


# a size said in digits or words ("so ten total now", "added four more kw")
_KW_AMOUNT = r"(\d{1,3}(?:\.\d+)?|" + "|".join(w for w in NUMBER_WORDS if " " not in w) + r")"
_ITS_A_SIZE = re.compile(
    r"\b(?:it'?s|its|it\s+is|ours\s+is|we\s+have|we'?ve\s+got)\s+(?:actually\s+|about\s+|like\s+|around\s+)?"
    r"(\d{1,2}\.\d+|\d{1,2})(?!\s*(?:%|percent|am|pm|a\.m|p\.m|:|cents?|¢|\$|kwh|years?|yrs?|amps?|panels?|miles?|mi\b))\W*$",
    re.I,
)
_SIZE_NOW_TOTAL = re.compile(
    r"(?:^\W*(?:so\s+)?(?:now\s+)?(?:(?:it'?s|its|it\s+is|that'?s|thats|we'?re\s+at|we\s+have)\s+)?|\bso\s+(?:now\s+)?)"
    + _KW_AMOUNT
    + r"\s*(?:kw\s+)?(?:total|in\s+total|altogether|all\s+together|combined)\b",
    re.I,
)
_ADDED_KW = re.compile(
    r"\b(?:added|put\s+up|expanded\s+by)\s+(?:another\s+|an\s+extra\s+)?"
    + _KW_AMOUNT
    + r"\s*(?:more\s+)?kw\b(?:\s+(?:more|extra))?",
    re.I,
)

# "ugh typo, solar's 6.7", "the system is 8.2": the size said right after the panels, its unit left out
_SOLAR_IS = re.compile(
    r"\b(?:solar|system|array|panels)(?:'s|’s|\s+is|\s+are|\s+was|\s+=)\s+(?:now\s+|actually\s+|really\s+)?"
    # ("panels are 6.3 not 3.6" is read as the number corrected)
    r"(\d{1,2}(?:\.\d+)?)(?![\d.]|\s*(?:kwh|%|percent|panels?|years?|yrs?|y/?o|cents?|¢|\$|a\s+month|/|(?:kw\s*)?,?\s*not\b))",
    re.I,
)


def _lone_size(text: str) -> str | None:
    """The one number in an answer to the size question, without a unit of its own ("6.5",
    "checked the app its 5.6"): the kW we asked for."""
    # "7.6k": kilowatts said the short way
    # (a number that counts something else is no size: "we're 3 adults now", "2 of us")
    numbers = re.findall(
        r"(?<![\w.])(\d{1,3}(?:\.\d+)?)(?:k\b)?(?![\w.%])(?!\s+(?!kw\b|kilowatts?\b|k\b|i\b|we\b|or\b|maybe\b)[a-z])",
        text,
        re.I,
    )
    if len(numbers) != 1 or not 0.3 <= float(numbers[0]) <= 100:
        return None
    if re.search(r"\b(?:kwh|amps?|miles?|years?|yrs?|panels?|watts?|w|percent|months?|days?)\b", text, re.I):
        return None
    return numbers[0]


_HOME_WORDS = re.compile(
    r"\b(?:the\s+house|the\s+home|our\s+place|here|upstairs|downstairs|bedrooms?|heat\s+is|cooling\s+is|"
    r"for\s+(?:heating|cooling|heat(?!\s*pumps?)|ac)|(?:house|home|place)\s+(?:has|is)|in\s+the\s+(?:house|home)|heating\s+is|"
    r"in\s+(?:every|each|all\s+the)\s+rooms?|"
    r"(?:handles?|does|do)\s+(?:both\s+)?(?:the\s+|our\s+)?(?:cooling|heating|heat(?!\s*pumps?))|(?:with|w/?)\s+(?:a\s+|an\s+)?(?:heat\s+pump|gas\s+furnace|mini|baseboard|electric\s+baseboard)|"
    # "its got a gas furnace", "the apartment has electric baseboard heat", "we're on electric
    # baseboard", "a regular house … with gas heat": the dwelling's own heat
    r"(?:it'?s|its)\s+got|\bit\s+has|(?:apartment|apt|unit|condo|house|home|place|townhouse|rental|duplex)\b"
    r"[^,.;!?]{0,30}?\s(?:has|came\s+with|with|w/|w(?=\s))|\bwe'?re\s+on|\bwe\s+are\s+on|"
    # "furnace is gas btw": the furnace, said bare, is theirs
    r"^\W*(?:the\s+)?(?:furnace|boiler|heat|heating)\s+(?:is|runs\s+on)|"
    # "the furnace is gas": the house's own furnace, said by what it runs on
    r"(?:the|our|my)\s+(?:furnace|boiler|heater|hvac)\s+(?:is|runs\s+on)\s+(?:all\s+)?(?:gas|electric|a\s+heat\s+pump))\b|"
    # a bare item of a statement: "also gas furnace", "ducted heat pump does heat and ac"
    r"(?:^|,)\s*(?:(?:also|and|plus|just|only)\s+)?(?:a\s+|an\s+|two\s+|\d\s+)?(?:(?:old|new|ducted|central)\s+)?"
    r"(?:baseboard\s+|forced[-\s]air\s+)?(?:gas|electric|central|mini|ductless|heat\s+pump|oil|propane|geo[-\s]?thermal|hp\b)"
    # ("gas furnace prices went up", "gas furnace or heat pump": talked about, not theirs)
    r"(?![\w\s-]{0,20}?\b(?:prices?|rates?|bills?|quotes?)\b)(?!(?:\s+[\w-]+){0,2}\s+(?:or|vs\.?|versus)\b)",
    re.I,
)
_REPLACED = re.compile(
    r"\b(?:replaced|swapped|switched|upgraded|changed|went(?!\s+in\b)|converted)\b.*?\b(?:with|to|for)\b(?P<new>.*)",
    re.I,
)
_HEAT_PUMP = re.compile(
    # ("mini splits just for cooling, still heat with gas": the heat is the gas)
    r"\bheat\s*pumps?\b(?!\s+water)|\b(?:ducted|ductless|cold[-\s]climate|air[-\s]source|ground[-\s]source|central)\s+hps?\b|\bmini[-\s]?splits?\b(?![^.;]*\b(?:just|only)\s+for\s+(?:cooling|ac|a/c)\b)"
    r"[^.;]*\bheat(?!\s+(?:with|w/?|using|by|on)\s+(?:natural\s+)?(?:gas|oil|propane|wood|pellets?))|\bductless\s+heat|"
    # a geothermal (ground-source) system is a heat pump; a geothermal power plant is not
    r"\bgeo[-\s]?thermal\b(?!\s+(?:plants?|power|energy|electricity|stocks?))",
    re.I,
)
_GAS_HEAT = re.compile(
    r"\bgas\s+(?:furnace|heat(?:ing|er)?|boiler)\b|\bheat(?:ing)?\s+(?:is\s+(?:by\s+)?|with\s+|w/?\s+|using\s+|by\s+|on\s+)(?:natural\s+)?gas\b|"
    r"\b(?:furnace|boiler)\s+(?:is|runs\s+on)\s+(?:natural\s+)?gas\b|\bnatural\s+gas\s+(?:furnace|heat)|\bgas\s+(?:forced[-\s]air|fired)\b|"
    r"\bforced[-\s]air\s+gas\b|"
    # "and we use gas for the heat": the fuel said by what it is used for
    r"\b(?:use|uses|using|burn|burns)\s+(?:natural\s+)?gas\s+(?:for|to)\s+(?:the\s+|our\s+)?heat(?:ing)?\b",
    re.I,
)
_ELECTRIC_HEAT = re.compile(
    r"\belectric\s+(?:baseboards?|heat(?:ing|ers)?|furnace|resistance)\b|\ball\s+electric\s+resistance\b|\bbaseboard\s+heat(?:ers|ing)?\b|\bheat\s+with\s+electricity\b|"
    # "all electric, heat strips and everything": resistance strips in the air handler
    r"\b(?:electric\s+)?heat\s+strips?\b|"
    # "electric wall heaters" in a rental: the home's heat (a portable space heater is not)
    r"\b(?:electric\s+)?wall\s+heat(?:ers?|ing)\b|"
    # "the heat is electric", "we use electric for heat": said by what it runs on
    r"\bheat(?:ing)?\s+(?:is|are)\s+(?:all\s+|just\s+|only\s+)?electric\b(?!\s+(?:heat\s*pump|hp|baseboard))|"
    r"\b(?:use|uses|using)\s+electric(?:ity)?\s+(?:for|to)\s+(?:the\s+|our\s+)?heat(?:ing)?\b",
    re.I,
)

# "we heat with oil", "propane furnace", "a pellet stove heats the whole place": heat the profile
# cannot hold (it keeps gas, electric or heat pump); read so the reply can say it was heard and why
# it was not saved ("propane stove" alone is a cooktop, not heat)
_OTHER_FUEL_HEAT = re.compile(
    r"\b(?P<fuel>(?:heating\s+|fuel\s+)?oil|propane|lp|kerosene|wood|pellets?)\s+(?:fired\s+)?(?:furnace|boiler|heat(?:ing|er)?)\b|"
    r"\b(?P<stove>wood|pellet)\s+stove\b|"
    r"\bheat(?:ing)?\s+(?:is\s+)?(?:with|w/?|by|on|using)\s+(?:heating\s+)?(?P<by>oil|propane|wood|pellets|kerosene)\b|"
    r"\b(?:furnace|boiler)\s+(?:is|runs\s+on)\s+(?:heating\s+)?(?P<runs>oil|propane)\b",
    re.I,
)
UNKEPT = "unkept:"  # a value prefix: heard, said back, never saved (oil heat, a Level 2 charger)


def _other_fuel(match: re.Match[str]) -> str:
    fuel = next(group for group in match.groups() if group).lower().split()[-1]
    return {"lp": "propane", "pellets": "pellet", "kerosene": "kerosene"}.get(fuel, fuel)


# "which is cheaper to run, heat pump or gas furnace? ours is gas": theirs, said by what it runs on
_OURS_RUNS_ON = re.compile(
    r"^\W*(?:and\s+|but\s+)?(?:ours|mine)\s+(?:is|'s|are)\s+(?:all\s+)?(?P<fuel>gas|electric|a\s+heat\s*pump)\W*$",
    re.I,
)
_IT_IS = re.compile(
    r"^\W*(?:(?:actually|but|no|nope|oh)\W+)*(?:it'?s|its|it\s+is)\s+(?:actually\s+|really\s+)?(?:an?\s+)?",
    re.I,
)
_HEAT_TALK = re.compile(r"\b(?:furnaces?|boilers?|heat(?:ing|ers?)?)\b", re.I)


# "mini splits upstairs and down for heat and ac", "mini splits in every room, no more furnace, they
# heat and cool": ductless heat pumps that heat the home (said anywhere in the message)
# ("3 mitsubishi hyper heat heads put in": Mitsubishi's cold-climate ductless heat pumps, by their name)
_SPLITS = re.compile(r"\b(?:mini[-\s]?splits?|ductless|hyper[-\s]?heat)\b", re.I)
_SPLITS_HEAT = re.compile(
    r"\b(?:for\s+(?:the\s+)?heat(?:ing)?|heat\s+(?:and|&|\+)\s+(?:cool(?:ing)?|ac|a/c|air)|they\s+(?:both\s+)?heat|"
    r"heats?\s+(?:and|&)\s+cools?|no\s+(?:more\s+)?furnace|"
    # "put in hyper heat mini splits … and ripped out the gas boiler": they are the heat now
    r"hyper[-\s]?heat|(?:ripped|tore|took|pulled)\s+out\s+(?:the|our|my)\s+(?:old\s+)?(?:\w+\s+)?(?:furnace|boiler|baseboards?))\b",
    re.I,
)


# "gas furnace for heat, mini splits for cooling": another fuel does the heating, the splits cool
_OTHER_HEAT = re.compile(
    r"\b(?:gas|furnace|boiler|oil|propane|baseboards?|wood\s+stove)\b[^.,;]{0,20}?\bfor\s+(?:the\s+)?heat(?:ing)?\b",
    re.I,
)


def _heating(text: str, *, negated: bool, owns: bool = False, message: str = "") -> Iterator[Reading]:
    if (
        _SPLITS.search(text)
        and _SPLITS_HEAT.search(message or text)
        and not _OTHER_HEAT.search(message or text)
        and not negated
        and (owns or _OWN.search(message or text) or _SPLITS.match(text.lstrip()))
    ):
        yield Reading("equipment.heating_type", "heat_pump", said=_SPLITS.search(text).group(0))
        return
    ours = _OURS_RUNS_ON.match(text)
    if ours and _HEAT_TALK.search(message) and not negated:
        fuel = ours.group("fuel").lower()
        value = "heat_pump" if "pump" in fuel else fuel
        yield Reading("equipment.heating_type", value, said=ours.group(0).strip())
        return
    replaced = _REPLACED.search(text)
    scope = replaced.group("new") if replaced else text
    if re.search(r"\bwater\s+heater\b", scope, re.I) and not re.search(
        r"\bheat\s+pump\b(?!\s+water)", scope, re.I
    ):
        return
    for pattern, value in _HEAT_KINDS:
        for match in pattern.finditer(
            text if replaced is None else ""
        ):  # "we replaced our gas furnace with …": the new one
            if _possessed(text, match.start()) and not _as_backup(text, match):
                # "should we replace our gas furnace with a heat pump": what they have is what is theirs
                yield Reading(
                    "equipment.heating_type", value or UNKEPT + _other_fuel(match), said=match.group(0)
                )
                return
    # "we have gas heat, not a heat pump": the kind said after "not" is the one they lack; "we have
    # gas heat, wanted to ask about heat pumps": the kind asked about is not theirs; of the rest, the
    # kind said first is the one they have
    candidates = [
        (m.start(), value or UNKEPT + _other_fuel(m), m.group(0))
        for pattern, value in _HEAT_KINDS
        for m in pattern.finditer(scope)
        if not _RULED_OUT.search(scope[: m.start()])
        and not _ASKED_ABOUT.search(scope[: m.start()])
        and not _OFFERED_ON.search(scope[: m.start()])
        and not _as_backup(scope, m)
    ]
    if candidates and (
        replaced
        or _OWN.search(text)
        or owns
        or re.search(r"\bheat\s+with\b", text, re.I)
        # "we dont have gas heat, its a heat pump": "it" is the heat the message was talking about
        or (
            _IT_IS.match(text)
            and _HEAT_TALK.search(message.replace(text, " "))
            and not re.search(r"\bwater\s+heat", message, re.I)
        )
    ):
        _, value, said = min(candidates)
        yield Reading("equipment.heating_type", value, said=said)


# "electric baseboard as backup", "gas backup", "emergency heat strips": heat that backs up the main
# system is not the home's heating
_BACKUP_AFTER = re.compile(
    r"^\W*(?:heat(?:ing|er)?s?\s+)?(?:(?:as|for)\s+(?:an?\s+|the\s+|our\s+)?)?(?:back\s*-?up|aux(?:iliary)?|emergency|"
    r"supplement(?:al|ary)?|secondary)\b",
    re.I,
)
_BACKUP_BEFORE = re.compile(
    r"\b(?:back\s*-?up|aux(?:iliary)?|emergency|supplement(?:al|ary)?|secondary)\s+$", re.I
)


def _as_backup(text: str, match: re.Match[str]) -> bool:
    return bool(_BACKUP_AFTER.match(text[match.end() :]) or _BACKUP_BEFORE.search(text[: match.start()]))


# the kinds of heat, in the order a tie is read; the last is heat the profile cannot hold
_HEAT_KINDS = (
    (_HEAT_PUMP, "heat_pump"),
    (_GAS_HEAT, "gas"),
    (_ELECTRIC_HEAT, "electric"),
    (_OTHER_FUEL_HEAT, ""),
)

# "my co-op offers 500 bucks back on a heat pump": a rebate on a kind of heat is no heat of theirs
_OFFERED_ON = re.compile(
    r"\b(?:back|rebates?|credits?|discounts?|incentives?|off|deals?|financing|loans?)\s+(?:on|for|towards?)\s+"
    r"(?:an?\s+|the\s+|new\s+)*$",
    re.I,
)
_RULED_OUT = re.compile(r"\b(?:not|instead\s+of|rather\s+than)\s+(?:an?\s+|the\s+|any\s+)?$", re.I)
# "wanted to ask about heat pumps", "got rid of the gas furnace": a kind of heat that is not theirs now
_ASKED_ABOUT = re.compile(
    r"\b(?:about|abt|into|considering|interested\s+in|curious\s+(?:about|if)|vs\.?|versus|"
    r"got\s+rid\s+of|removed|ripped\s+out|tore\s+out|used\s+to\s+have|replaced|sold)\s+"
    r"(?:an?\s+|the\s+|our\s+|my\s+|old\s+|getting\s+(?:an?\s+)?)*$",
    re.I,
)


def _possessed(text: str, at: int) -> bool:
    """ "our gas furnace", "my old central air": the thing right after "my"/"our" is theirs."""
    return re.search(r"\b(?:my|our)\s+(?:[\w.&/-]+\s+){0,2}$", text[:at], re.I) is not None


# "no central air, just a couple window units": cooling all the same, of a kind the profile has no name for
_WINDOW_UNITS = re.compile(r"\b(?:window|portable|wall)\s+(?:units?|ac|a/c|air\s+conditioners?|acs)\b", re.I)


def _cooling(text: str, *, negated: bool, owns: bool = False, message: str = "") -> Iterator[Reading]:
    none = re.search(
        r"\b(?:no|don'?t\s+have(?:\s+any)?|do\s+not\s+have(?:\s+any)?|without(?:\s+any)?)\s+(?:central\s+)?(?:ac|a/c|air\s+con(?:ditioning|ditioner)?|aircon|air)\b",
        text,
        re.I,
    )
    # ("mini splits for cooling, no central air": what cools them is the mini splits)
    if none:
        split_here = re.search(r"\b(?:mini[-\s]?splits?|ductless)\b", text, re.I)
        if split_here and (_OWN.search(text) or owns):
            yield Reading("equipment.cooling_type", "mini_split", said=split_here.group(0))
        elif not _WINDOW_UNITS.search(message or text) and not re.search(
            r"\b(?:mini[-\s]?splits?|ductless)\b", message or text, re.I
        ):
            yield Reading("equipment.cooling_type", "none", said=none.group(0))
        return
    if negated:
        return
    central = re.search(
        r"\bcentral\s+(?:ac|a/c|air(?:\s+conditioning)?|cooling)\b|\bcooling\s+is\s+central\b|"
        # "ducted heat pump does heat and ac": the ducts carry the cooling too
        r"\bducted\s+heat\s*pump\b.*?\b(?:ac|a/c|cool(?:ing|s)?|air\s+conditioning)\b",
        text,
        re.I,
    )
    if central and re.search(
        r"\b(?:not|no|isn'?t|aren'?t)\s+(?:a\s+|the\s+)?$", text[: central.start()], re.I
    ):
        central = None  # "nope its mini splits, not central air": the one they do not have
    split = re.search(r"\b(?:mini[-\s]?splits?|ductless)\b", text, re.I)
    # ("its central air btw": what cools the home they are telling us about)
    if central and (_OWN.search(text) or owns or _IT_IS.match(text)):
        yield Reading("equipment.cooling_type", "central_ac", said=central.group(0))
    elif split and (_OWN.search(text) or owns or _IT_IS.match(text)):
        yield Reading("equipment.cooling_type", "mini_split", said=split.group(0))


# --- household and preferences -----------------------------------------------------------------

_OCCUPANTS = [
    re.compile(
        r"\b(?:we\s+are|we're|were|there\s+are|there're)\s+"
        + _COUNT
        + r"(?:\s+(?:of\s+us|people|persons|adults|in\s+(?:the|our|my)\s+\w+))?(?:\s+(?:now|again|total))?\s*[.!]?$",
        re.I,
    ),
    re.compile(r"\b(?:we\s+are|we're|there\s+are)\s+" + _COUNT + r"\s+(?:of\s+us|people|persons)\b", re.I),
    re.compile(r"\b(?:family|household|house(?:hold)?)\s+of\s+" + _COUNT + r"\b", re.I),
    # "our house is 5 people now", "my household has 3 people"
    re.compile(
        r"(?:\b(?:our|my|the)\s+|^\W*)(?:house|home|household|family|place)\s+(?:is|has)\s+(?:now\s+)?"
        + _COUNT
        + r"\s+(?:people|persons?|of\s+us)\b",
        re.I,
    ),
    # "we're a 5 person household", "4-person family"
    re.compile(r"(?<![\w.])" + _COUNT + r"[-\s]+(?:person|people)\s+(?:household|home|family|house)\b", re.I),
    # "we have 4 people", "we've got 5 people in the house", "i have 3 kids and a wife" is not this
    re.compile(r"\b(?:we|we'?ve)\s+(?:have|got)\s+" + _COUNT + r"\s+(?:people|persons|adults)\b", re.I),
    re.compile(r"(?<![\w.])" + _COUNT + r"\s+of\s+us\b", re.I),
    re.compile(r"^\s*" + _COUNT + r"\s+(?:people|persons|adults)\s*$", re.I),
    re.compile(
        _COUNT + r"\s+(?:people|persons|of\s+us)\s+(?:live|living|in\s+(?:the|my|our)|at\s+home|here)\b", re.I
    ),
    # a correction: "actually it's 3 people, not 4", "no, 3 people not 4", "make that 3 people"
    re.compile(
        r"(?:^|\b(?:it'?s|its|actually|no|nope|make\s+that|sorry|correction)\s*[,:]?\s+)"
        + _COUNT
        + r"\s+(?:people|persons|of\s+us)\b(?=\s*,?\s*(?:not\s+(?:"
        + _COUNT[1:-1]
        + r")\b|[.!]?\s*$))",
        re.I,
    ),
]


_OTHER_MEMBERS = re.compile(
    r"\b(?:kids?|children|son|daughter|baby|babies|teens?|toddler|roommates?|housemates?|mom|dad|mother|father|"
    r"parents?|grandm\w*|grandp\w*|in-?laws?|sister|brother|nanny|tenant)\b",
    re.I,
)


# "my oldest shipped out with the navy, so 4", "my roommate moved out, its 2 now": a new count said
# right after who came or went
_COUNT_AFTER_CHANGE = re.compile(
    r"\b(?:so(?:\s+still)?|still|well|actually|its|it'?s|now(?:\s+its)?|making\s+it|that\s+makes(?:\s+it|\s+us)?|we'?re)\s+"
    + _COUNT
    # "its 5 now that my in-laws moved in": the count, then why
    # ("its 5 now, my mom moved in": the count, then who)
    + r"(?:\s+(?:now|people|of\s+us|total))?(?:\W*$|\s+(?:now\s+)?(?:that|since|because|bc|cuz|cause)\b|\s*,)",
    re.I,
)
_HOUSEHOLD_CHANGE = re.compile(
    r"\b(?:moved\s+(?:out|in|away|back)|shipped\s+out|deployed|left\s+for|went\s+(?:off\s+)?to\s+college|born|"
    r"new\s+baby|roommates?|housemates?|doesn'?t\s+live|don'?t\s+live|lives?\s+(?:here|with\s+us)|passed\s+away)\b",
    re.I,
)


_RELATIVE = (
    r"wife|husband|hubby|partner|spouse|fianc[eé]e?|gf|bf|girlfriend|boyfriend|mom|mum|mother|dad|father|son|"
    r"daughter|kid|baby|toddler|teen|brother|sister|roommate|housemate|grandma|grandmother|grandpa|grandfather|"
    r"mother-in-law|father-in-law|niece|nephew|aunt|uncle|cousin|friend|bro|sis"
)
_PAIR = r"twins|parents|in-?laws|folks"
_PEOPLE = r"kids|children|teens|teenagers|boys|girls|roommates|housemates|adults|grandkids|sons|daughters"
_PET = re.compile(
    r"(?:an?|one|two|\d+|my|our|the)?\s*(?:[a-z]+\s+){0,3}?(?:dogs?|cats?|pups?|puppy|puppies|kitty|kittens?|pets?|"
    r"fish|birds?|parrot|hamster|bunny|rabbit)",
    re.I,
)
_LIST_LEAD = re.compile(
    r"^(?:.*?\b(?:it'?s|its|it\s+is|(?P<whole>house\s+is|home\s+is|household\s+is|family\s+is|we'?re|we\s+are|"
    r"there\s+are|we\s+have|we'?ve\s+got))\s+)?"
    r"(?:(?:just|only)\s+)?(?P<rest>.*)$",
    re.I,
)


_COUPLE = re.compile(
    r"\b(?:my\s+(?:wife|husband|partner|spouse|hubby)\s+(?:and|&)\s+(?:i|me)|(?:i|me)\s+(?:and|&)\s+my\s+"
    r"(?:wife|husband|partner|spouse|hubby))\b",
    re.I,
)
_OUR_KIDS = re.compile(
    r"\bwe\s+(?:have|'?ve\s+got|got)\s+"
    + _COUNT
    + r"\s+(?:little\s+|young\s+)?(?:kids|children|boys|girls)\b",
    re.I,
)


def _couple_and_their_kids(message: str) -> Reading | None:
    """ "my wife and i both wfh and we have 2 kids": the two of them and the children they count
    (anyone else named — a roommate, a parent — and there is no count)."""
    couple, kids = _COUPLE.search(message), _OUR_KIDS.search(message)
    if couple is None or kids is None or kids.start() < couple.start():
        return None
    if re.search(
        r"\b(?:roommates?|housemates?|mom|dad|mother|father|parents|in-?laws?|grand\w+|tenants?)\b",
        message,
        re.I,
    ):
        return None
    said = message[couple.start() : kids.end()]
    return Reading("household.occupants", 2 + _count(kids.group(1)), said=said, unit="people")


# "3 kids + us two": the user and their partner
_US_TWO = r"us\s+(?:two|2|both)|the\s+two\s+of\s+us|both\s+of\s+us"
# "3 of us + my mom": the user and theirs, counted, with more listed after
_US_COUNTED = re.compile(r"(?:the\s+)?" + _COUNT + r"\s+of\s+us", re.I)


def _member_count(piece: str) -> int | None:
    """ "me" 1, "my fiance" 1, "the twins" 2, "our 3 kids" 3, "a very loud dog" 0; None for
    anything that is not one of the household."""
    # "1 toddler in 30306", "3 kids now": where they live or since when is not who
    piece = re.sub(
        r"\s+(?:now|here|at\s+home|in\s+(?:the\s+house|\d{5}|[a-z]+(?:\s+[a-z]+)?))$",
        "",
        piece.strip(" .!"),
        flags=re.I,
    )
    if re.fullmatch(r"me|myself|i|yours\s+truly", piece, re.I):
        return 1
    if re.fullmatch(_US_TWO, piece, re.I):
        return 2
    if (counted_us := _US_COUNTED.fullmatch(piece)) is not None:
        return _count(counted_us.group(1))
    if re.fullmatch(
        r"(?:(?:my|our|the|a|one)\s+)?(?:(?:new|little|older|younger|oldest|youngest)\s+)?(?:"
        + _RELATIVE
        + r")",
        piece,
        re.I,
    ):
        return 1
    if re.fullmatch(r"(?:(?:my|our|the)\s+)?(?:" + _PAIR + r")", piece, re.I):
        return 2
    counted = re.fullmatch(
        r"(?:(?:my|our|the)\s+)?"
        + _COUNT
        + r"\s+(?:little\s+|young\s+)?(?:"
        + _PEOPLE
        + r"|"
        + _RELATIVE
        + r"|adult)",
        piece,
        re.I,
    )
    if counted:
        return _count(counted.group(1))
    # "kids are 3 of em", "the boys, 2 of them"
    said_after = re.fullmatch(
        r"(?:(?:my|our|the)\s+)?(?:"
        + _PEOPLE
        + r")\s+(?:are\s+)?"
        + _COUNT
        + r"(?:\s+of\s+(?:em|'em|them))?",
        piece,
        re.I,
    )
    if said_after:
        return _count(said_after.group(1))
    if _PET.fullmatch(piece):
        return 0
    return None


def _between_commas(sentence: str) -> list[str]:
    """Every run of comma-separated parts that starts after a comma ("a, b, c" -> "b", "b, c", "c")."""
    parts = sentence.split(",")
    return [",".join(parts[i:j]).strip() for i in range(1, len(parts)) for j in range(i + 1, len(parts) + 1)]


def _listed_household(text: str) -> Reading | None:
    """ "its me and my fiance + a very loud dog" (2), "2 kids, wife and me" (4), "just me and the
    cat" (1): a list of who lives there, with the user in it, that ends the sentence; every item
    must be a person or a pet the count knows ("kids" with no number says no count)."""
    sentences = re.split(r"[.;!?]+", text)
    # "we're 2 adults and 1 toddler in 30306, georgia power": a list may end at a comma too
    sentences += [s[: comma.start()] for s in sentences for comma in reversed(list(re.finditer(",", s)))]
    # "we're with cobb emc, me the wife and two boys, gas furnace": a list between commas, with them in it
    sentences += [
        middle
        for s in re.split(r"[.;!?]+", text)
        for middle in _between_commas(s)
        if re.search(r"\b(?:me|myself|of\s+us)\b", middle, re.I)
    ]
    for sentence in sentences:
        # "me, my mom and the twins so 4": the total they give is the count
        total = re.search(r"\s+so\s+" + _COUNT + r"\s*$", sentence, re.I)
        if total:
            sentence = sentence[: total.start()]
        # ("me the wife and two boys": a list typed without its first comma)
        pieces = [
            piece
            for piece in re.split(
                r"\s*(?:,|\+|&|\band\b|\bplus\b|\bw/?\b|\bwith\b|(?<=\bme)\s+(?=(?:the|my)\s))\s*",
                sentence.strip(),
            )
            if piece
        ]
        members: list[int] = []
        opened = whole = False
        for piece in reversed(pieces):
            count = _member_count(piece)
            if count is None:
                lead = _LIST_LEAD.match(piece)
                rest = lead.group("rest") if lead else ""
                if rest != piece and (count := _member_count(rest)) is not None:
                    members.append(count)
                    opened = True
                    # "we're 2 adults and 1 toddler": a list that is the whole household has the user in it
                    whole = bool(lead and lead.group("whole"))
                break
            members.append(count)
        else:
            opened = True  # the whole sentence is the list
            # "2 adults and a toddler": a list that counts the adults is the whole household
            whole = any(re.search(r"\badults?\b", piece, re.I) for piece in pieces)
        listed = [piece for piece in pieces if piece][-len(members) :] if members else []
        if (
            opened
            and len(members) >= 2
            and (
                whole
                or any(
                    re.fullmatch(r"(?:.*\s)?(?:me|myself|i|" + _US_TWO + ")", piece.strip(" .!"), re.I)
                    or _US_COUNTED.fullmatch(piece.strip(" .!"))
                    for piece in listed
                )
            )
        ):
            count = _count(total.group(1)) if total else sum(members)
            first = listed[0].split()[-1] if _member_count(listed[0]) is None else listed[0]
            said = sentence[sentence.lower().rfind(first.lower(), 0, len(sentence) - len(listed[-1]) + 1) :]
            return Reading("household.occupants", count, said=said.strip(), unit="people")
    return None


_ONE_MORE_MOVED_IN = re.compile(
    _COUNT + r"\s+of\s+us\s*,?\s*(?:plus|\+|and|&)\s+(?:my|our|the|a|an)\s+"
    r"(?!(?:dogs?|cats?|pets?|pups?|puppy|kitty|kitten|fish|birds?)\b)[a-z-]+(?:\s+in\s+law)?"
    r"\s+(?:(?:who\s+)?(?:just\s+)?(?:moved\s+in|lives?\s+(?:here|with\s+us)|living\s+(?:here|with\s+us)|"
    r"staying\s+with\s+us))\b",
    re.I,
)


def _occupants(text: str) -> Iterator[Reading]:
    joined = _ONE_MORE_MOVED_IN.search(text)
    if joined and not re.search(r"\b(?:total|altogether|all\s+together)\b", text, re.I):
        # "theres 4 of us plus my mother in law moved in last month": one more who lives there now
        count = _count(joined.group(1)) + 1
        yield Reading("household.occupants", count, said=joined.group(0).strip(), unit="people")
        return
    listed = _listed_household(text)
    if listed is not None and listed.value:
        yield listed
        return
    changed = _COUNT_AFTER_CHANGE.search(text)
    if changed and _HOUSEHOLD_CHANGE.search(text):
        yield Reading(
            "household.occupants", _count(changed.group(1)), said=changed.group(0).strip(), unit="people"
        )
        return
    # "4 of us plus grandma so 5 total": the total said is the count
    total = re.search(
        r"(?:\b(?:so|that'?s|thats|makes?)\s+"
        + _COUNT
        + r"(?:\s+people)?|\b"
        + _COUNT
        + r"\s+(?:people|of\s+us))"
        r"\s+(?:total|in\s+total|altogether|all\s+together)\b",
        text,
        re.I,
    )
    # ("we added four more kw of panels so ten total now" is a size, not a household)
    if total and (
        re.search(r"\b(?:people|of\s+us)\b", total.group(0), re.I) or not _EQUIPMENT_TALK.search(text)
    ):
        said = next(group for group in total.groups() if group)
        yield Reading("household.occupants", _count(said), said=total.group(0).strip(), unit="people")
        return
    family = re.search(
        _COUNT
        + r"\s+adults?\s+(?:and|&|\+|plus)\s+"
        + _COUNT
        + r"\s+(?:kids?|children|teens?|teenagers?|boys?|girls?)\b",
        text,
        re.I,
    )
    family = family or re.search(
        _COUNT + r"\s+adults?\s*,?\s*" + _COUNT + r"\s+(?:kids?|children|teens?|toddlers?|babies|baby)\b",
        text,
        re.I,
    )
    if family:
        total = _count(family.group(1)) + _count(family.group(2))
        yield Reading("household.occupants", total, said=family.group(0), unit="people")
        return
    members = re.search(
        r"\b(?:it'?s\s+)?me,?\s+my\s+(?:wife|husband|partner|spouse)(?:\s*,)?\s+and\s+(?:our|my)\s+"
        r"(?:(?P<count>"
        + _COUNT[1:-1]
        + r")\s+(?:kids?|children|boys|girls)|(?:baby|son|daughter|kid|toddler|teen))\b",
        text,
        re.I,
    )
    if members:
        extra = _count(members.group("count")) if members.group("count") else 1
        yield Reading("household.occupants", 2 + extra, said=members.group(0), unit="people")
        return
    roommates = re.search(
        r"\b(?:(?:i|we)\s+share\s+the\s+(?:place|house|apartment|home)\s+with|(?:^|apartment|apt|place|house|condo|i\s+live|"
        r"living)\s*(?:[\w ]{0,20}?)\s(?:with|w/?))\s+" + _COUNT + r"\s+(?:roommates?|housemates?|others?)\b",
        text,
        re.I,
    )
    roommates = roommates or re.search(
        r"\bme\s+(?:and|&|\+)\s+" + _COUNT + r"\s+(?:roommates?|housemates?|others?)\b", text, re.I
    )
    if roommates:
        sharing = 2 if re.match(r"\s*we\b", roommates.group(0), re.I) else 1
        yield Reading(
            "household.occupants",
            sharing + _count(roommates.group(1)),
            said=roommates.group(0),
            unit="people",
        )
        return
    spouse_and_i = re.search(
        r"\b(?:(?:just\s+|only\s+)?my\s+(?:wife|husband|partner|spouse)\s+and\s+(?:i|me)|(?:just\s+|only\s+)?(?:i|me)\s+and\s+my\s+"
        r"(?:wife|husband|partner|spouse))\b",
        text,
        re.I,
    )
    # "renting a 2br in denver w my partner", "we live here with my husband": a home shared with one partner
    living_with = re.search(
        r"\b(?:live|living|rent|renting|share|sharing)\b[^,.;!?]{0,30}?\b(?:with|w/?)\s+my\s+"
        r"(?:wife|husband|partner|spouse|gf|bf|girlfriend|boyfriend|fianc[eé]e?)\b(?!\s*(?:and|&|\+))",
        text,
        re.I,
    )
    # "my wife and I are both retired", "just my husband and me": the two of them, said as all there is
    if (spouse_and_i and re.search(r"\b(?:both|just|only)\b", text, re.I) or living_with) and not re.search(
        r"\b(?:kids?|children|son|daughter|baby|babies|teens?|toddler|roommates?|mom|dad|parents?|\d+\s+of\s+us|"
        r"family\s+of|household\s+of|\w+\s+people)\b",
        text,
        re.I,
    ):
        # "my wife and I are both retired": the two of them (a child or a count said anywhere is not this)
        said = (spouse_and_i or living_with).group(0)  # type: ignore[union-attr]
        yield Reading("household.occupants", 2, said=said, unit="people")
        return
    if re.search(r"\bjust\s+(?:the\s+)?two\s+of\s+us\b", text, re.I):
        yield Reading("household.occupants", 2, said="the two of us", unit="people")
        return
    pair = re.search(
        r"\b(?:(?:it'?s|its)\s+(?:just\s+|only\s+)?|just\s+|only\s+)me\s+(?:and|&|\+)\s+(?:my\s+)?(?:wife|husband|partner|spouse|roommate|girlfriend|"
        r"boyfriend|gf|bf|fianc[eé]e?|son|daughter|kid|mom|dad|mother|father)\b"
        # a list goes on after a comma ("me and my wife, my son"), a clause does not ("…, both of us work")
        r"(?!\s*(?:,\s*(?:(?:and|&|\+|plus|my|our|his|her|the|a|an|\d+|two|three)\b|\w+\s+(?:and|&)\b)|and\b|plus\b|&|\+))",
        text,
        re.I,
    )
    if pair:  # "its just me and my partner now": the two of them
        yield Reading("household.occupants", 2, said=pair.group(0), unit="people")
        return
    pets = (
        r"(?:\s+(?:and|&|\+|w/?|with)\s+(?:my|the|a|our)\s+(?:dogs?|cats?|pets?|pups?|puppy|kitty|kitten))?"
    )
    if re.search(
        r"\b(?:(?:i\s+)?live\s+(?:alone|by\s+myself|on\s+my\s+own)|it'?s\s+just\s+me|^\W*just\s+me|(?:(?<=,)|(?<=,\s))just\s+me(?=\W*$|\s*[,.;]))\b"
        + pets
        + r"(?!\s*(?:and|&|\+|,\s*(?:my|our)))",
        text,
        re.I,
    ):
        yield Reading("household.occupants", 1, said="live alone", unit="people")
        return
    segments = [text, *re.split(r"\s*,\s*", text)]
    for pattern, segment in ((p, s) for p in _OCCUPANTS for s in segments):
        match = pattern.search(segment)
        if (
            match
            and re.fullmatch(r"\d{5}", match.group(1))
            and not re.search(r"\bpeople\b", match.group(0), re.I)
        ):
            continue  # "we're 30316, georgia power": a ZIP code, never a household
        if match:
            yield Reading(
                "household.occupants", _count(match.group(1)), said=match.group(0).strip(), unit="people"
            )
            return


_WEEKDAY = r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri)(?:day)?s?"
_SCHEDULES = [
    (
        re.compile(
            r"\b(?:office|in\s+person)\s+\w+\s+days?\s+a\s+week\b|\b\w+\s+days?\s+(?:a\s+week\s+)?(?:in\s+the\s+office|at\s+the\s+office)\b|"
            # "in the office tue and thu", "wfh mon and fri and go in the other days"
            rf"\bin\s+the\s+office\s+(?:on\s+)?{_WEEKDAY}\s+(?:and|&|\+)\s+{_WEEKDAY}\b|"
            r"\bgo\s+in\s+(?:the\s+)?other\s+days\b|"
            # "both hybrid", "hybrid actually": the word said of their work, alone
            r"(?:^|,)\s*(?:both\s+|we'?re\s+both\s+)?hybrid(?:\s+actually)?\s*[.!]?\s*(?=$|,)|\bhybrid\s+actually\b|"
            # "put me down as hybrid", "i work hybrid", "office tue wed thu"
            r"\b(?:as|work|working|i'?m|im|i\s+am|we'?re)\s+(?:a\s+)?hybrid\b|\bhybrid\s+schedule\b|"
            rf"\b(?:office|in\s+the\s+office)\s+(?:on\s+)?{_WEEKDAY}(?:\s*(?:,|and|&|\+)?\s*{_WEEKDAY}){{1,3}}\b",
            re.I,
        ),
        "Hybrid",
    ),
    (
        re.compile(
            r"\b(?:second|swing|evening|2nd)\s+shift\b",
            re.I,
        ),
        "Second shift",
    ),
    (
        re.compile(r"\b(?:day\s+shift|(?:i'?m|im|i\s+am|we'?re)\s+on\s+days)\b", re.I),
        "Day shift",
    ),
    (re.compile(r"\b(?:retired|retiree)\b", re.I), "Retired"),  # "retired, home all day" is retired
    (
        re.compile(
            # (being "home all day" says nothing of work: retired, a baby, between jobs)
            r"\b(?:works?|working)\s+from\s+home|\bwfh\b|\bworks?\s+remote(?:ly)?|\bremote\s+work(?:er)?",
            re.I,
        ),
        "WFH",
    ),
    (
        re.compile(
            # ("a kia niro plug-in hybrid now" is a car)
            r"(?<!plug-in\s)(?<!plugin\s)(?<!plug\sin\s)\bhybrid\s+(?:schedule|work|worker|employee|job|now)\b|"
            r"\bwork(?:ing)?\s+hybrid\b|"
            r"\b(?:i'?m|we'?re|i\s+am|we\s+are)\s+(?:both\s+)?hybrid\b",
            re.I,
        ),
        "Hybrid",
    ),
    (
        re.compile(
            r"\b(?:night\s+shifts?|works?\s+nights|(?:on|do|doing)\s+nights|(?:switched|moved|went|back)\s+to\s+nights|"
            r"overnight\s+shifts?|graveyard\s+shift|"
            # "on 3rd shift now", "I work in the night" (how it comes out in a second language)
            r"(?:3rd|third)\s+shift|(?:i|we)\s+(?:\w+\s+)?work\s+(?:in\s+the\s+|at\s+)night|"
            r"nights?\s+nurse)\b",
            re.I,
        ),
        "Night shift",
    ),
    (
        re.compile(
            r"\b(?:work|commute)\s+(?:in|to|at)\s+(?:an?\s+|the\s+)?office\b|\b9\s*(?:-|to)\s*5s?\b|\bnine\s+to\s+five\b|\boffice\s+job\b|"
            # "back in the office, 8-5", "went back to the office"
            r"\b(?:back|going|go)\s+(?:in|into|to)\s+(?:the\s+)?office\b|"
            # "i'm at the office downtown 8-5": where they are on working days, with its hours
            r"\b(?:i'?m|im|i\s+am)\s+(?:at|in)\s+the\s+office\b(?=[^.;!?]{0,25}\b\d{1,2}(?::\d\d)?\s*(?:-|to)\s*\d)",
            re.I,
        ),
        "Office 9-5",
    ),
]


_NO_LONGER = re.compile(r"\b(?:not|no\s+longer|no\s+more|stopped|quit|used\s+to\s+be)\s+(?:\w+\s+)?$", re.I)


# "from home monday through thursday and go into the office on fridays": the office on some days
_OFFICE_SOME_DAYS = re.compile(
    rf"\b(?:office|go\s+in(?:to)?|commute)\b[^.;]*\bon\s+{_WEEKDAY}\b|\b{_WEEKDAY}\s+(?:in\s+the\s+|at\s+the\s+)office\b",
    re.I,
)


# a working day's hours ("8-5", "7 to 4", "9:00-5:30"): morning start, afternoon end
_OFFICE_HOURS = re.compile(
    r"(?<![\d:$.])(?P<start>(?:0?[5-9]|1[01])(?::[0-5]\d)?)\s*(?:am\s*)?(?:-|to|–)\s*(?P<end>[1-7](?::[0-5]\d)?)"
    r"(?!\s*(?:%|kw|amps?|miles|people|kids|days?|years?|hours?)|\d)",
    re.I,
)


# "wfh tmrw so 11am is fine", "working from home today": one day, not how they work
_ONE_DAY = re.compile(
    r"\b(?:wfh|from\s+home|remote(?:ly)?|in\s+the\s+office|office|nights?)\s+(?:(?:on\s+|this\s+|next\s+)?"
    r"(?:today|tonight|tmrw|tmr|tomorrow|tmw|this\s+week|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b(?!s)"
    # ("wfh monday and friday": some days of every week, a hybrid schedule)
    r"(?!\s*(?:and|&|,|\+|through|thru|to|-)\s*\w)",
    re.I,
)


def _schedule(text: str, message: str = "") -> Iterator[Reading]:
    if re.search(r"\bused\s+to\b", text, re.I) or _ONE_DAY.search(text):
        return
    part_time = re.search(
        r"\b(?:on\s+(?:mon|tues|wednes|thurs|fri)days?|some\s+days|(?:one|two|three|four|\d)\s+days?\s+a\s+week|twice\s+a\s+week|"
        r"part\s+of\s+the\s+week|"
        # "from home three days, office the other two", "office the rest": the other days elsewhere
        r"office\s+(?:the\s+)?(?:other|rest)|(?:the\s+)?other\s+(?:one|two|three|four|\d)(?:\s+days?)?\s*$|"
        # "wfh 3 days office 2", "2 days in the office": days split between home and office
        r"(?:one|two|three|four|\d)\s+days?\b[^.;]{0,20}\boffice\b|\boffice\s+(?:one|two|three|four|[1-4])\b(?!\s*(?:-|–|to\b|:|am\b|pm\b))|"
        r"(?:the\s+)?rest\s+of\s+the\s+week|"
        # "wfh mon and fri": some weekdays only
        rf"{_WEEKDAY}\s+(?:and|&|\+|,)\s+{_WEEKDAY})\b",
        text,
        re.I,
    ) or _OFFICE_SOME_DAYS.search(message)
    for pattern, value in _SCHEDULES:
        match = next(
            (
                m
                for m in pattern.finditer(text)
                if not _NO_LONGER.search(text[max(0, m.start() - 20) : m.start()])
            ),
            None,
        )  # "not wfh anymore, back in the office 9-5": the schedule now
        if match and value in ("WFH", "Office 9-5") and part_time:
            yield Reading("household.work_schedule", "Hybrid", said=f"{match.group(0)} {part_time.group(0)}")
            return
        if match:  # someone else's job never gets here: the caller drops clauses about others
            hours = _OFFICE_HOURS.search(text) if value == "Office 9-5" else None
            if hours:  # "back in the office, 8-5": the hours they said
                value = f"Office {hours.group('start').lstrip('0')}-{hours.group('end')}"
            yield Reading("household.work_schedule", value, said=match.group(0))
            return


_USAGE_WORDS = (
    r"(?:(?<!of\s)(?<!of-)use|uses|using|usage|used|users?|power\s+use|electricity\s+use|consumption|load|"
    r"run\s+(?:everything|most\s+(?:stuff|things)|the\s+appliances|our\s+appliances))"
)
# When a household's use is heaviest, in the words people use for the parts of their day
_EVENING_TIME = (
    r"\b(?:evenings?|nights?|after\s+(?:dinner|supper|work|school|the\s+kids\s+get\s+home)|"
    r"after\s+(?:[3-9]|1[0-1])(?:\s*(?:pm|p\.m\.|o'?clock))?(?!\s*(?:am|a\.m\.|%|kw|miles?))\b|"
    r"when\s+every(?:one|body)(?:'?s|\s+is|\s+gets)?\s+(?:home|back)|"
    # "most of our power 5-10pm", "between 4 and 9 pm": hours of the evening
    r"(?:[3-9]|1[01])(?::\d\d)?\s*(?:pm\s*)?(?:-|–|to|and|til+|until)\s*(?:[5-9]|1[0-2])(?::\d\d)?\s*(?:pm|p\.m\.))"
)
_MORNING_TIME = (
    r"\b(?:mornings?|before\s+(?:work|school)|first\s+thing(?:\s+in\s+the\s+(?:am|morning))?|in\s+the\s+am|"
    r"[4-9](?::\d\d)?\s*(?:am\s*)?(?:-|–|to|and|til+|until)\s*(?:[6-9]|1[01])(?::\d\d)?\s*(?:am|a\.m\.))(?!\w)"
)
_HEAVY = re.compile(
    r"\b(?:most|heaviest|heavy|mostly|peak|biggest|highest|the\s+bulk|a\s+lot|lots|a\s+ton|tons|main(?:ly)?)\b",
    re.I,
)


def _both_ends_of_the_day(text: str) -> bool:
    return bool(re.search(_EVENING_TIME, text, re.I) and re.search(_MORNING_TIME, text, re.I))


# "we're heavy in the evenings", "we're heavy users at night": who uses, said of themselves
_HEAVY_SELF = re.compile(
    r"\b(?:we'?re|we\s+are|i'?m|i\s+am|(?:our\s+)?house(?:hold)?\s+is)\s+(?:really\s+|pretty\s+|super\s+)?heavy"
    # ("we are heavy sleepers": heavy at something else)
    r"(?=\s+(?:users?|in|at|on|during|after|around|evenings?|mornings?|nights?)\b|\W*$)",
    re.I,
)


def _usage(text: str) -> Iterator[Reading]:
    if not (
        # ("we use 700 kwh a month and most of it in the mornings": the clause after "and" is the use's)
        re.search(
            r"\b" + _USAGE_WORDS + r"\b|\buse\s+(?:the\s+)?most\b|^\W*(?:and\s+)?most\s+of\s+(?:it|that)\b",
            text,
            re.I,
        )
        or _HEAVY_SELF.search(text)
    ):
        return
    if re.search(
        r"\b(?:constant|evenly|steady|around\s+the\s+clock|same\s+all\s+day|all\s+day\s+long|flat|"
        r"(?:even|spread\s+out|level)\s+(?:all|through(?:out)?\s+the)\s+day)\b",
        text,
        re.I,
    ):
        yield Reading("household.typical_usage_pattern", "constant", said="constant")
        return
    evening = re.search(_EVENING_TIME, text, re.I)
    morning = re.search(_MORNING_TIME, text, re.I)
    match = evening or morning
    if match is not None and _HEAVY.search(text) and not (evening and morning):
        value = "evening_heavy" if evening else "morning_heavy"
        yield Reading("household.typical_usage_pattern", value, said=match.group(0))


_PREFERENCE_TOPICS = [
    ("preferences.budget_priority", r"saving\s+money|money|cost|costs|bills?|budget|cheap(?:est)?|price"),
    (
        "preferences.green_priority",
        r"environment(?:al)?|planet|carbon|emissions|green(?:\s+energy)?|climate|clean\s+energy|sustainab\w+|eco(?:\s+stuff)?",
    ),
    ("preferences.comfort_priority", r"comfort(?:able)?|comfy|cozy"),
]
_LOW = re.compile(
    r"\b(?:low|least|doesn'?t\s+(?:really\s+)?matter(?:\s+(?:to|for)\s+(?:me|us))?|don'?t\s+(?:really\s+)?care|not\s+(?:important|a\s+priority|a\s+big\s+deal)|"
    r"low\s+on\s+my\s+list|bottom|unimportant|not\s+(?:a\s+)?(?:big\s+)?concern|not\s+worried)\b",
    re.I,
)
_MEDIUM = re.compile(
    r"\b(?:medium|moderate|somewhat|middle|so-so|kind\s+of|sort\s+of|not\s+the\s+top)\b", re.I
)
_HIGH = re.compile(
    r"\b(?:high|top(?!\s+of\b)|most|main|big\s+one|biggest|first(?=\s*(?:$|[,.;!?)]|priority|and\s+foremost|then|over|above|for\s+(?:me|us)|to\s+(?:me|us)))|number\s+one|#1|really\s+care|care\s+(?:a\s+lot|most)|matters?|priority|important|care|"
    # ("he always handled the bills": how often, not how much it matters)
    r"as\s+\w+\s+as\s+possible|mostly\s+want|tight|above\s+all|only\s+thing)\b|#\s*1\b",
    re.I,
)


def _preferences(text: str) -> Iterator[Reading]:
    """'budget is high priority, comfort medium, green low' -> one level per topic, each from its own part."""
    # ("i dont care about saving money i just want to be green": a second "i want" starts a part)
    parts = r"\s*(?:,|;|\bbut\b|\band\b|\bthen\b)\s*|\s+(?=(?:i|we)\s+(?:just\s+|really\s+|only\s+)?(?:want|need|prefer)\b)"
    for segment in re.split(parts, text):
        # "being green matters more to me than saving money": what it is compared with gets no level
        # "green matters a lot even if it costs a bit more": what is conceded gets no level either
        segment = re.split(
            r"\b(?:than|rather\s+than|instead\s+of|even\s+if|even\s+though|even\s+when|although|though|no\s+matter|"
            r"as\s+long\s+as|so\s+long\s+as)\b",
            segment,
            maxsplit=1,
            flags=re.I,
        )[0]
        for field, words in _PREFERENCE_TOPICS:
            topic = re.search(r"\b(?:" + words + r")\b", segment, re.I)
            if topic is None:
                continue
            # "keeping the bill low is what matters most": that "low" is the bill's, not the priority's
            # ("the bill is always high in summer": the bill's level too)
            judged = re.sub(
                r"\b(?:bills?|costs?|prices?|rates?|it|them)\s+(?:(?:is|are|was|were|gets?|got|been|has\s+been)\s+)?"
                r"(?:(?:always|so|really|too|very|way|super|kinda|pretty|getting)\s+)*(?:low|down|high|up)\b|"
                # ("complaining about high bills": the bills' level, before them)
                r"\b(?:high|low|big|huge)\s+(?:electric\s+|power\s+|energy\s+)?(?:bills?|costs?|prices?|rates?)\b",
                " ",
                segment,
                flags=re.I,
            )
            level = (
                "low"
                if _LOW.search(judged)
                else "medium"
                if _MEDIUM.search(judged)
                else "high"
                if _HIGH.search(judged)
                else None
            )
            if level is None and re.fullmatch(r"\s*\w+\s+(high|medium|low)\s*", segment, re.I):
                level = segment.split()[-1].lower()
            if level is not None:
                yield Reading(field, level, said=segment.strip())


_EQUIPMENT_TALK = re.compile(
    r"\b(?:kw|kwh|panels?|solar|powerwalls?|batter(?:y|ies)|chargers?|amps?|cars?|evs?|trucks?|cents?)\b",
    re.I,
)


def _amount(word: str) -> float:
    """A size said in digits or as a number word."""
    lowered = word.lower()
    return float(NUMBER_WORDS[lowered]) if lowered in NUMBER_WORDS else float(lowered)


def _count(word: str) -> int:
    lowered = word.lower()
    return _NUMBER_WORDS.get(lowered) or int(lowered)
