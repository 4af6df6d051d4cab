"""Short-term memory: one session per Slack thread (or terminal chat)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from config.clock import utc_now
from profiles.models import UtcDatetime


class SessionMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str
    timestamp: UtcDatetime = Field(default_factory=utc_now)
    turn: int = Field(ge=1)


class SessionFact(BaseModel):
    """A fact the user stated in this session and what became of it, so the idle memorizer never
    re-applies (or re-refuses) what a turn already handled."""

    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1)
    field: str = Field(min_length=3, max_length=100)
    value: Any = None
    # "unsure": said with a doubt ("aep ohio i think"), never saved; the thread's answers use it and say so
    status: Literal["saved", "confirmed", "refused", "forgotten", "undone", "unsure"]
    words: str = Field("", max_length=500)


class LastRequest(BaseModel):
    """The last question answered with data, and its parameters, so a follow-up ("what about by
    6am instead?") re-plans with one thing changed."""

    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1)
    intent: str = Field(max_length=40)
    topic: str = Field(max_length=40)
    question: str = Field(max_length=2000)
    params: dict[str, Any] = Field(default_factory=dict)
    # the passages an explanation cited (their keys): a follow-up on it ("my husband thinks its a
    # waste of money") is answered from the next passage, not the same one again
    passages: list[str] = Field(default_factory=list, max_length=10)


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    session_id: str = Field(min_length=1, max_length=128)
    user_id: str = Field(min_length=1, max_length=128)
    channel: str | None = None
    thread_ts: str | None = None
    messages: list[SessionMessage] = Field(default_factory=list)
    turn_count: int = Field(0, ge=0)
    created_at: UtcDatetime = Field(default_factory=utc_now)
    last_activity_at: UtcDatetime = Field(default_factory=utc_now)
    # Turns up to and including this one have been through the memorizer.
    memorized_through_turn: int = Field(0, ge=0)
    status: Literal["active", "ended"] = "active"
    # Onboarding in progress: the slot asked for last, and the question to answer once filled.
    pending_slot: str | None = None
    pending_question: str | None = Field(None, max_length=20000)
    # ... and how it was understood (intent, topic, parameters), so answering it needs no re-reading
    pending_request: dict[str, Any] | None = None
    # a second request of the same message ("… and is it gonna rain"), waiting until the first one's
    # question is answered
    queued_request: str | None = Field(None, max_length=2000)
    # Onboarding questions the user skipped ("not sure"): not asked again in this thread.
    skipped_slots: list[str] = Field(default_factory=list, max_length=20)
    # They said their plan has one price all day ("the standard one, not the hourly thing").
    one_price_plan: bool = False
    # their time-of-use plan as they described it ("25 cents on peak 5-9pm weekdays, 11 off"): the
    # profile keeps a plan's code, not its prices, so the thread keeps the description
    described_plan: dict[str, Any] | None = None
    # the last turn of "dont save anything" (nothing more is saved in this thread until they say
    # to; the memorizer never reads a turn up to it), and what they said meanwhile, unsaved
    declined_through_turn: int = Field(0, ge=0)
    held_facts: dict[str, Any] = Field(default_factory=dict, max_length=40)
    facts: list[SessionFact] = Field(default_factory=list, max_length=200)
    last_request: LastRequest | None = None
    # the last live answer's request, kept across an explanation asked in between ("need 90% by
    # 6:45", "whats a therm anyway", "and if i wait till midnight to plug in?")
    last_live_request: LastRequest | None = None

    @property
    def needs_memorizing(self) -> bool:
        return self.memorized_through_turn < self.turn_count
