"""Graph state (spec 000's AdvisorState and MemorizerState, plus routing fields).

TypedDict with `total=False`: nodes return partial updates. Reducers only where lists
accumulate across nodes (`messages`, `errors`).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, Required, TypedDict

from langchain_core.messages import BaseMessage

from advisor.tools.models import RateSchedule, SolarEstimate, WeatherForecast
from advisor.understanding.models import Intent, RequestParams, Topic, Understanding
from knowledge.models import RetrievedDocument
from profiles.loaded import Loaded
from profiles.models import ExtractedFact, UserProfile
from profiles.session import Session
from profiles.staleness import SectionAge

Route = Literal["understood", "chat", "retrieve", "analyzer", "recommend", "done"]


class AdvisorState(TypedDict, total=False):
    # --- spec 000 ---
    user_id: str
    session_id: str
    message: str
    messages: Annotated[list[BaseMessage], operator.add]
    turn_count: int
    user_profile: UserProfile | None
    # this turn's answer may plan on a view of the profile (an assumed plan, a car asked about):
    # the profile as stored then, for what an answer says it knows about them
    stored_profile: UserProfile | None
    viewed_profile: bool
    weather_data: WeatherForecast | None
    rate_data: RateSchedule | None
    solar_estimate: SolarEstimate | None
    retrieved_docs: list[RetrievedDocument]
    nothing_more: bool  # more was asked on the last explanation, and its documents have said it all
    tool_observations: list[dict[str, Any]]
    response: str
    extracted_facts: list[ExtractedFact]
    should_memorize: bool  # memorize inside this turn (goodbye, "remember that ...")
    # --- routing and bookkeeping ---
    memorize_due: bool  # turn threshold reached: memorize right after the reply, outside the turn
    intent: Intent
    intent_confidence: float
    topic: Topic
    route: Route
    missing_slots: list[str]
    stale_sections: list[SectionAge]
    errors: Annotated[list[dict[str, Any]], operator.add]
    notices: list[str]  # said before the answer (e.g. "your message was truncated")
    pending_slot: str | None  # the onboarding question asked last turn
    pending_question: str | None  # the question to answer once the slots are filled
    pending_request: dict[str, Any] | None  # its intent, topic and parameters
    memorized_through_turn: int
    profile_changes: list[dict[str, Any]]
    cited_passages: list[int]  # 1-based numbers of the passages the answer cites
    # --- working memory (issue 9): read from the session by the service, written back in one commit ---
    understanding: Understanding  # what this message means (intake)
    params: RequestParams  # the request's parameters (a follow-up merges over the last ones)
    last_request: dict[str, Any] | None  # the last data question: turn, intent, topic, question, params
    skipped_slots: list[str]  # onboarding questions the user skipped in this thread
    last_live_request: dict[str, Any] | None  # the last live answer's request (kept across an explanation)
    one_price_plan: bool  # they said their plan has one price all day (this thread)
    described_plan: dict[str, Any] | None  # their time-of-use plan as they described it (this thread)
    saving_declined: bool  # they said "dont save anything" in this thread (until they say to save)
    held_facts: dict[str, Any]  # what they told us in this thread while saving was declined (unsaved)
    session_facts: list[dict[str, Any]]  # facts stated this turn and what became of them
    prior_facts: list[dict[str, Any]]  # facts handled in earlier turns of the thread
    original_message: str  # the user's words as sent (stored in the session)
    next_request: str | None  # a second request in the message, answered as the next turn
    queued_request: str | None  # one waiting while we asked for what the first one needed
    resumed: bool  # this turn answers the request asked before our onboarding question, not its words
    fell_back: (
        bool  # a live request explained in general for want of a skipped slot (redone once it is given)
    )
    # what that general explanation is searched for ("running the dishwasher off-peak"): the request's
    # own words ("run dishwasher now or later") ask for a verdict no passage gives
    fallback_query: str | None
    replan: str  # "facts": a statement changed what the last live answer stood on; "plan": they don't know their plan
    statement_changed: bool  # this turn's statements changed the profile (not only confirmed it)
    place_unknown: bool  # a place was named that no table or geocoder could find: ask for the ZIP
    said: bool  # the reply already says what became of this turn's statements
    loaded_session: Loaded[Session]  # the session as read at the start (written back at the end)
    profile_version: str | None  # the store's version of the profile as read at the start
    # --- output (TurnOutput) ---
    text: str
    turn: int
    session: Any
    citations: list[str]
    warnings: list[str]
    memorized: bool
    asked_for: str | None
    answered_by: str


class TurnInput(TypedDict, total=False):
    """What a turn is invoked with; the thread is `configurable.thread_id`, the user the runtime
    context. `loaded_session`: the session as the caller already read it (the service does, under
    the thread's lock), so the turn does not read it again."""

    message: Required[str]
    loaded_session: Loaded[Session]


class TurnOutput(TypedDict, total=False):
    """What a turn returns: the reply and what the transport and listeners need to know."""

    text: str
    turn: int
    session: Any  # profiles.session.Session as stored after the turn
    intent: str
    topic: str
    citations: list[str]
    warnings: list[str]
    memorized: bool
    memorize_due: bool
    profile_changes: list[dict[str, Any]]
    asked_for: str | None
    answered_by: str
    next_request: str | None
    errors: Annotated[list[dict[str, Any]], operator.add]


class MemorizerState(TypedDict, total=False):
    """The memory-offload subgraph (spec 000): extract -> apply -> summarize."""

    user_id: str
    session_id: str
    messages: list[BaseMessage]
    user_profile: UserProfile
    extracted_facts: list[ExtractedFact]
    validated_facts: list[ExtractedFact]
    rejected_facts: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    summary: str | None
    turns_to_summarize: list[int]
    through_turn: int
    errors: Annotated[list[dict[str, Any]], operator.add]
