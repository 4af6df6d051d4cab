"""Short-term memory: one session per Slack thread (or terminal chat)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from config.clock import utc_now
from profiles.models import UtcDatetime


class SessionMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str
    timestamp: UtcDatetime = Field(default_factory=utc_now)
    turn: int = Field(ge=1)


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

    @property
    def needs_memorizing(self) -> bool:
        return self.memorized_through_turn < self.turn_count
