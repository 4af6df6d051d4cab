"""What a message means, as one typed result (the `Understanding`), and what it is read against.

Intake produces it once per turn; recall, onboarding, the analyzer and the memorizer read it, and
nothing else re-parses the user's text. Its JSON schema is also what a language model is asked to
fill in when one is available.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from advisor.energy.described_plan import DescribedPlan

Intent = Literal[
    "live_data",  # a question answered with their data now: prices, a charging plan, the forecast
    "knowledge",  # a general question the knowledge base answers
    "profile_statement",  # only facts about themselves (or "remember that ...")
    "correction",  # "that's wrong", "undo"
    "forget",  # "forget my ZIP"
    "profile_query",  # "what plan am I on?", "what do you know about me?"
    "smalltalk",  # greetings, thanks
    "goodbye",
    "off_topic",  # not about home energy: one line on what the advisor does
    "unclear",
]
Topic = Literal["ev_charging", "solar", "rates", "weather", "home", "general"]
# The kind of live answer a request wants (one analyzer tool each)
Task = Literal[
    "charging_plan",  # plan_ev_charging
    "prices",  # get_tariff_prices
    "appliance",  # appliance_advice
    "solar_forecast",  # get_solar_forecast
    "typical_solar",  # get_typical_solar_production
    "weather",  # get_weather_forecast
    "plan_comparison",  # compare_rate_plans
]
SlotStatus = Literal["answered", "skipped", "not_answered"]
Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAYS: tuple[str, ...] = get_args(Weekday)  # Monday first, as date.weekday() counts


class StatedFact(BaseModel):
    """A fact the user stated about themself: the profile field, the value in the field's unit,
    the value as they said it, their words, and how sure the reading is."""

    model_config = ConfigDict(frozen=True)

    field: str = Field(description="profile field path, e.g. location.zip_code")
    value: str | int | float | bool = Field(description="value in the field's unit (kW, kWh, people)")
    said: str = Field("", max_length=200, description="the value as the user said it, e.g. '32 amps'")
    unit: str | None = Field(None, max_length=20, description="unit the user used, if any")
    words: str = Field("", max_length=500, description="the user's words the fact comes from")
    confidence: float = Field(0.9, ge=0, le=1)
    assumption: str | None = Field(
        None, max_length=200, description="how the value was derived, said to the user"
    )
    household: bool = Field(False, description="said of a household member, not the user")


class Mention(BaseModel):
    """Something that looked like a fact but is not one about the user (kept for the trace)."""

    model_config = ConfigDict(frozen=True)

    field: str
    words: str = Field("", max_length=500)
    reason: Literal[
        "question",
        "hypothetical",
        "someone_else",
        "negated",
        "unverified",
        "second_value",
        "part_of_day",
        "lacks",  # "and no ev": equipment they say they don't have (nothing saved, nothing to remove)
        "unkept",  # "we heat with oil": theirs, but a value the profile cannot hold (words: "unkept:oil")
        "uncatalogued",  # "were on the saver choice plan": their plan, one the catalog does not hold
        "declined",  # theirs, but they asked us not to save anything in this conversation
    ]


class RequestParams(BaseModel):
    """Parameters of the question: a follow-up changes one of them and keeps the rest."""

    model_config = ConfigDict(frozen=True)

    task: Task | None = Field(None, description="the kind of live answer wanted")
    ready_by_hour: int | None = Field(None, ge=0, le=23, description="local hour the car must be ready")
    ready_by_minute: int | None = Field(None, ge=0, le=59)
    ready_by_day: Weekday | Literal["today", "tomorrow"] | None = None
    plug_in_hour: int | None = Field(
        None, ge=0, le=23, description="local hour the car is plugged in, when not now ('I get home at 6pm')"
    )
    plug_in_minute: int | None = Field(None, ge=0, le=59)
    target_soc_pct: float | None = Field(None, description="charge level wanted, percent")
    current_soc_pct: float | None = Field(None, description="charge level now, percent")
    appliance: str | None = Field(None, max_length=40)
    appliance_kw: float | None = Field(
        None, gt=0, le=50, description="the appliance's power as said ('a 1500w space heater'): kW"
    )
    run_hours: float | None = Field(None, gt=0, le=24, description="how long it runs, as said ('for 8 hrs')")
    day: Literal["today", "tomorrow"] | None = None
    typical_year: bool | None = Field(None, description="a typical year rather than a forecast")
    one_session: bool | None = Field(None, description="charge in one uninterrupted session")
    ready_in_minutes: int | None = Field(
        None, ge=1, le=10_080, description="ready this many minutes from now ('in 1 hour')"
    )
    tonight: bool | None = Field(None, description="the user said tonight (ready the morning after)")
    ev_miles_per_month: float | None = Field(
        None, ge=0, le=20_000, description="miles driven a month, as said"
    )
    house_kwh_per_month: float | None = Field(
        None, ge=0, le=20_000, description="household kWh a month, as said"
    )
    miles_needed: float | None = Field(
        None,
        gt=0,
        le=1000,
        description="range the charge must add ('I need like 40 miles'), instead of a level",
    )
    ev_kwh_per_month: float | None = Field(
        None, ge=0, le=20_000, description="the car's kWh a month, as said ('250 of that is the car')"
    )
    fuel: Literal["gas", "oil", "propane"] | None = Field(
        None, description="a heating fuel whose price the user gave ('oil is 4.10 a gallon')"
    )
    fuel_price_usd: float | None = Field(
        None,
        gt=0,
        le=100,
        description="that fuel's price: dollars per therm of gas, per gallon of oil or propane",
    )
    furnace_afue_pct: float | None = Field(
        None, ge=50, le=99, description="their furnace's or boiler's efficiency as said ('my 80% furnace')"
    )
    electricity_usd_per_kwh: float | None = Field(
        None,
        gt=0,
        le=2,
        description="an electricity price said beside a fuel's ('electric 15c'), for that comparison",
    )
    fuel_units_per_year: float | None = Field(
        None,
        gt=0,
        le=100_000,
        description="the fuel they burn a year, in its unit ('we burned like 800 gal last winter'), for a year's cost",
    )
    system_kw: float | None = Field(
        None,
        gt=0,
        le=100,
        description="size of a solar system asked about ('what would 6 kW make'), never saved",
    )
    size_needed: bool | None = Field(
        None, description="the solar size their use needs is asked ('how many panels do i need')"
    )
    place: str | None = Field(
        None,
        max_length=80,
        description="a place the question is about ('… make per year in san diego'), never saved",
    )
    start_hour: int | None = Field(
        None,
        ge=0,
        le=23,
        description="when they would start an appliance ('run the dishwasher at 5pm?'), local",
    )
    start_minute: int | None = Field(None, ge=0, le=59)
    monthly: bool | None = Field(
        None, description="asks what it costs a month ('what would charging cost per month'), not one plan"
    )
    utility: str | None = Field(
        None,
        max_length=80,
        description="a utility the question is about ('when's peak for ameren tmrw'), never saved",
    )
    plan: str | None = Field(
        None,
        max_length=40,
        description="a rate plan the question is about ('what would it cost on ev2-a'), never saved",
    )
    state: str | None = Field(
        None,
        pattern=r"^[A-Z]{2}$",
        description="a state the question is about ('is geothermal worth it in wisconsin'), never saved",
    )
    charger_kw: float | None = Field(
        None,
        gt=0,
        le=350,
        description="a charger's power the question is about, not theirs ('how long on a regular outlet'), never saved",
    )
    duration: bool | None = Field(
        None,
        description="how long a charge takes is asked ('how long for 10 to 80', 'can i just charge on the 120v "
        "outlet'): its hours need the car and the charger, not prices",
    )
    vehicle: str | None = Field(
        None,
        max_length=60,
        description="a car the question is about but the user does not (yet) own ('test drove an ioniq 5, what "
        "would charging it cost'), never saved",
    )

    def merged_over(self, earlier: RequestParams) -> RequestParams:
        """These parameters with the earlier question's filling the gaps (a follow-up)."""
        data = earlier.model_dump()
        data.update({key: value for key, value in self.model_dump().items() if value is not None})
        if self.ready_by_hour is not None and self.ready_by_minute is None:
            data["ready_by_minute"] = None
        if self.plug_in_hour is not None and self.plug_in_minute is None:
            data["plug_in_minute"] = None
        if self.target_soc_pct is not None and self.miles_needed is None:
            data["miles_needed"] = None  # "actually charge it to 90%" after "I need 40 miles": the level now
        if self.miles_needed is not None and self.target_soc_pct is None:
            data["target_soc_pct"] = None
        if (self.day or self.ready_by_day) and self.system_kw is None and not self.typical_year:
            data["system_kw"] = data["typical_year"] = None  # "and tomorrow?" after an estimate: a forecast
        return RequestParams.model_validate(data)

    def filled(self) -> dict[str, Any]:
        return {key: value for key, value in self.model_dump().items() if value is not None}

    def said(self) -> dict[str, Any]:
        """What the user's words set (the task is the reader's decision, not their words)."""
        return {key: value for key, value in self.filled().items() if key != "task"}


class SlotAnswer(BaseModel):
    model_config = ConfigDict(frozen=True)

    slot: str
    status: SlotStatus


class Understanding(BaseModel):
    """One message, understood: what the user wants, what they said about themselves, the answer
    to the question we asked, and the question's parameters."""

    model_config = ConfigDict(frozen=True)

    intent: Intent
    topic: Topic = "general"
    asks: bool = Field(False, description="the message asks something (it may also state facts)")
    question: str | None = Field(None, description="the question part, without the statements")
    facts: list[StatedFact] = Field(default_factory=list)
    mentions: list[Mention] = Field(default_factory=list)
    slot_answer: SlotAnswer | None = None
    params: RequestParams = Field(default_factory=RequestParams)
    follow_up: bool = Field(False, description="changes a parameter of the previous question")
    remember: bool = Field(False, description='an explicit "remember that ..."')
    saving_declined: bool = Field(
        False,
        description='"dont save anything": nothing they say is saved for the rest of the conversation, '
        'until they say to ("ok you can save my zip")',
    )
    declined_now: bool = Field(False, description='this message says "dont save anything"')
    held: list[StatedFact] = Field(
        default_factory=list,
        description="their facts, not saved because they asked; used in this conversation only",
    )
    forget: list[str] = Field(default_factory=list, description="field paths the user asks to forget")
    forget_everything: bool = False
    forget_words: str | None = Field(
        None, max_length=200, description="what a forget command named that the profile has no field for"
    )
    not_held: str | None = Field(
        None, description='equipment said to be gone that the profile does not hold ("sold the leaf")'
    )
    undo: bool = Field(False, description='"that\'s wrong" / "undo" about the last saved facts')
    undo_about: list[str] = Field(
        default_factory=list,
        description='fields an undo names ("scratch that, the powerwall is my dad\'s"): undone only if the last change touched one',
    )
    fix: list[str] = Field(
        default_factory=list, description="fields the user says are wrong without a value we could read"
    )
    hedged: bool = Field(False, description='the user was not sure ("I think", "maybe")')
    one_price_plan: bool = Field(
        False, description='"the standard one, not the hourly thing": their plan has one price all day'
    )
    described_plan: DescribedPlan | None = Field(
        None, description='their time-of-use plan in words ("25 cents on peak, 11 off, peak 5-9pm weekdays")'
    )
    thanks: bool = Field(False, description="the message thanks us")
    acknowledged: bool = Field(False, description='"ok good", "lol perfect": our answer taken, nothing asked')
    queried: list[str] = Field(
        default_factory=list,
        description='fields a profile question names ("what rate am i on": the rate plan)',
    )
    question_coming: bool = Field(
        False, description='"hi i have a question about my bill": a question announced, not yet asked'
    )
    defined: str | None = Field(
        None,
        max_length=60,
        description='the term a definition question asks about ("what does tou mean": tou)',
    )
    about_advisor: bool = Field(False, description='asks what the advisor is or does ("what can u do")')
    in_spanish: bool = Field(False, description="written in Spanish, which the advisor cannot answer in yet")
    points_back: bool = Field(
        False, description="leans on what was said before ('do that every night', 'what about tankless')"
    )
    choice: int | None = Field(
        None, ge=1, le=2, description='"the first" / "the second" of two readings offered'
    )
    affirmed: bool = Field(False, description='"yes" to what we suggested')
    deed: bool = Field(False, description='"switch me to ev2-a", "can you set my thermostat": asks us to act')
    disputed: bool = Field(False, description='"thats not right, peak is 5-8": our prices said to be wrong')
    hire: bool = Field(False, description='"do you know a good electrician": asks for a business to hire')
    no_more_questions: bool = Field(
        False,
        description='"skip that, just give me a general idea": answer with what we have, ask nothing more',
    )
    place_query: str | None = Field(
        None, description="a place name answering the location question, to geocode"
    )
    confidence: float = Field(0.9, ge=0, le=1)
    alternative: Intent | None = Field(
        None, description="the runner-up reading, when the reader was unsure between two"
    )
    source: Literal["rules", "model"] = "rules"

    @property
    def wants_answer(self) -> bool:
        return self.intent in ("live_data", "knowledge")


class ReadingContext(BaseModel):
    """What a message is read against: the question we asked last, the last request's
    parameters (for follow-ups) and the recent conversation (for a model)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    pending_slot: str | None = None
    last_intent: str | None = None
    last_topic: str | None = None
    last_params: RequestParams | None = None
    last_question: str | None = None  # the words of the last request answered
    pending_topic: str | None = None  # the topic of the request our pending question is for
    recent: list[str] = Field(default_factory=list)  # "user: ..." / "advisor: ..." lines, oldest first
    known_fields: dict[str, Any] = Field(default_factory=dict)  # the profile's current values
    # the live request answered just before an explanation ("whats a therm anyway" in between)
    earlier_live_params: RequestParams | None = None
    earlier_live_topic: str | None = None
    saving_declined: bool = False  # earlier in the conversation: "dont save anything"
    held_fields: dict[str, Any] = Field(default_factory=dict)  # what they told us meanwhile, unsaved

    def said_before(self, message: str) -> list[str]:
        """What the user said earlier in the recent conversation, oldest first (without this
        message, when the recent lines already hold it)."""
        said = [line[len("user: ") :] for line in self.recent if line.startswith("user: ")]
        return said[:-1] if said and said[-1].strip() == message.strip() else said
