"""Message validation and intent classification for the intake node (spec 003 patterns).

Rules, not an LLM: intake runs on every turn and must be instant and predictable. All
keyword matching uses word boundaries ("every" is not "ev", "peak" is not "speak").
Below `CLARIFY_BELOW` confidence the advisor asks one clarifying question instead of guessing.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from advisor.state import Intent, Topic

MAX_WORDS = 1000
CLARIFY_BELOW = 0.7


class ValidatedMessage(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    empty: bool
    truncated: bool
    word_count: int


class IntentResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    intent: Intent
    confidence: float
    topic: Topic
    remember: bool = False  # an explicit "remember that ..."

    @property
    def needs_clarification(self) -> bool:
        return self.confidence < CLARIFY_BELOW


def validate_message(text: str | None) -> ValidatedMessage:
    """Empty/whitespace is rejected; over 1000 words is cut to the first 1000 and flagged."""
    stripped = (text or "").strip()
    words = stripped.split()
    if not words:
        return ValidatedMessage(text="", empty=True, truncated=False, word_count=0)
    if len(words) > MAX_WORDS:
        return ValidatedMessage(
            text=" ".join(words[:MAX_WORDS]), empty=False, truncated=True, word_count=len(words)
        )
    return ValidatedMessage(text=stripped, empty=False, truncated=False, word_count=len(words))


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


_GOODBYE = _words(
    r"bye",
    r"goodbye",
    r"good\s*bye",
    r"see\s+(?:you|ya)",
    r"that'?s\s+all",
    r"exit",
    r"quit",
    r"cya",
    r"ttyl",
)
_REMEMBER = _words(r"remember\s+(?:that|this)", r"please\s+remember", r"note\s+that", r"keep\s+in\s+mind")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|yo|thanks|thank\s+you|thx|good\s+(?:morning|afternoon|evening)|how\s+are\s+you)\b",
    re.IGNORECASE,
)
_STATEMENT = re.compile(
    r"\b(?:i|we)\s+(?:just\s+|recently\s+|now\s+|actually\s+|finally\s+)?"
    r"(?:have|had|got|bought|installed|switched|moved|work|started|live|own|drive|added|replaced|sold|leased|put\s+in)\b"
    r"|\b(?:i'?m|we'?re|i\s+am|we\s+are)\s+(?:now\s+)?(?:on|working|retired|home|a\s+family|\d+|two|three|four|five|six)\b"
    r"|\bmy\s+(?:utility|rate\s+plan|plan|zip(?:\s+code)?|car|ev|schedule)\s+is\b",
    re.IGNORECASE,
)
_LIVE = _words(
    r"now",
    r"today",
    r"tonight",
    r"tomorrow",
    r"this\s+(?:morning|afternoon|evening|week|weekend)",
    r"when\s+(?:should|to|(?:i|we)\s+should)",  # "when should I", "want to know when to charge", "when I should"
    r"should\s+i\s+(?:run|charge|use|turn|start|wait)",
    r"is\s+it\s+worth\s+(?:running|charging|using)",
    r"right\s+now",
    r"current(?:ly)?",
    r"how\s+much\s+(?:will|would|does|do|is)",
    r"forecast",
    r"cheapest\s+time",
    r"best\s+time",
)
_KNOWLEDGE = _words(
    r"how\s+(?:do|does|can|should|to)",
    r"what\s+(?:is|are|does|do)",
    r"what'?s",
    r"why",
    r"explain",
    r"tips?",
    r"best\s+practices?",
    r"difference\s+between",
    r"pros\s+and\s+cons",
    r"worth\s+(?:it|getting|installing|buying)",
    r"should\s+i\s+(?:get|buy|install|switch|upgrade)",
)
_TOPICS: list[tuple[Topic, re.Pattern[str]]] = [
    (
        "ev_charging",
        _words(
            r"evs?",
            r"electric\s+(?:car|vehicle)s?",
            r"charg(?:e|es|ed|ing|er)",
            r"tesla",
            r"model\s+[3ysx]",
            r"car",
            r"vehicle",
            r"plug\s+in",
        ),
    ),
    ("solar", _words(r"solar", r"pv", r"panels?", r"sunny", r"sunshine", r"inverter", r"photovoltaic")),
    (
        "weather",
        _words(
            r"weather",
            r"temperature",
            r"hot",
            r"cold",
            r"ac",
            r"a/c",
            r"air\s+condition(?:er|ing)?",
            r"thermostat",
            r"pre-?cool(?:ing)?",
            r"pre-?heat(?:ing)?",
        ),
    ),
    (
        "home",
        _words(
            r"heat\s+pumps?",
            r"insulation",
            r"water\s+heaters?",
            r"home\s+batter(?:y|ies)",
            r"powerwall",
            r"dryer",
            r"dishwasher",
            r"washer",
            r"appliances?",
            r"setbacks?",
            r"ducts?",
            r"windows?",
            r"air\s+sealing",
            r"standby",
        ),
    ),
    (
        "rates",
        _words(
            r"rates?",
            r"prices?",
            r"tariffs?",
            r"tou",
            r"time[-\s]of[-\s]use",
            r"peak",
            r"off[-\s]peak",
            r"bill",
            r"costs?",
            r"cheap(?:er|est)?",
            r"expensive",
            r"kwh",
            r"pg&e",
            r"sdg&e",
            r"ev2-?a",
            r"e-?elec",
            r"e-?tou-?c",
            r"ev-?tou-?5",
        ),
    ),
]


def topic_of(text: str) -> Topic:
    """The first matching topic in priority order (EV before rates: 'charging cost' is about the EV)."""
    return next((topic for topic, pattern in _TOPICS if pattern.search(text)), "general")


def classify(text: str) -> IntentResult:
    topic = topic_of(text)
    words = len(text.split())
    question = "?" in text
    if _GOODBYE.search(text) and words <= 8:
        return IntentResult(intent="goodbye", confidence=0.95, topic=topic)
    if _REMEMBER.search(text):
        return IntentResult(intent="profile_statement", confidence=0.9, topic=topic, remember=True)
    live = bool(_LIVE.search(text))
    knowledge = bool(_KNOWLEDGE.search(text))
    if live and topic != "general":
        # "Is it worth running the dryer now?" is about prices now.
        return IntentResult(intent="live_data", confidence=0.85, topic="rates" if topic == "home" else topic)
    if knowledge and (topic != "general" or words >= 4):
        return IntentResult(intent="knowledge", confidence=0.8 if topic != "general" else 0.7, topic=topic)
    if _STATEMENT.search(text) and not question:
        return IntentResult(intent="profile_statement", confidence=0.85, topic=topic)
    if _GREETING.search(text) and words <= 6:
        return IntentResult(intent="smalltalk", confidence=0.9, topic="general")
    if topic != "general":
        # A topic with no cue ("EV charging?"): a plan or an explanation? Ask.
        return IntentResult(intent="live_data", confidence=0.55, topic=topic)
    return IntentResult(intent="unclear", confidence=0.3, topic="general")


CLARIFYING_QUESTION = (
    'I want to get this right: are you after a plan for now (for example "When should I charge my EV tonight?" '
    'or "How much solar will I get today?") or an explanation (for example "How do heat pumps work?")?'
)


def clarifying_question(result: IntentResult) -> str:
    if result.topic == "ev_charging":
        return (
            "Do you want a charging plan for your car (when to charge and what it costs), "
            "or general information about EV charging?"
        )
    return CLARIFYING_QUESTION
