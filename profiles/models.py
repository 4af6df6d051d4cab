"""User profile models (spec 000), with timezone-aware UTC timestamps on every section.

Each section carries its own `updated_at`, because staleness is judged per section: a
household schedule confirmed 220 days ago is stale even if the EV was updated yesterday.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from config.clock import as_utc, utc_now

UtcDatetime = Annotated[datetime, AfterValidator(as_utc)]
"""A datetime stored as aware UTC; naive input is read as UTC."""

Priority = Literal["low", "medium", "high"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ProfileSection(_Model):
    """A profile section; `updated_at` is when its facts were last set or confirmed.

    None means "never timestamped" (legacy data): staleness treats it as unconfirmed.
    """

    updated_at: UtcDatetime | None = Field(default_factory=utc_now)


class Equipment(ProfileSection):
    solar_capacity_kw: float | None = Field(None, gt=0, le=1000)
    ev_model: str | None = Field(None, min_length=1, max_length=100)
    ev_battery_kwh: float | None = Field(None, gt=0, le=300)
    # Not in spec 000: the energy core needs the home charger's power (charge time = kWh / min(charger, on-board)).
    # A home charger: Level 1 (1.4 kW) to the largest Level 2 (19.2 kW on an 80 A circuit) — a DC fast
    # charger is not a home charger, so values above 20 kW are refused.
    ev_charger_kw: float | None = Field(None, gt=0, le=20)
    has_battery_storage: bool | None = None
    battery_capacity_kwh: float | None = Field(None, gt=0, le=1000)
    heating_type: Literal["gas", "electric", "heat_pump"] | None = None
    cooling_type: Literal["central_ac", "mini_split", "none"] | None = None


class Preferences(ProfileSection):
    budget_priority: Priority | None = None
    comfort_priority: Priority | None = None
    green_priority: Priority | None = None


class Household(ProfileSection):
    work_schedule: str | None = Field(None, min_length=1, max_length=100)
    occupants: int | None = Field(None, ge=1, le=50)
    typical_usage_pattern: Literal["morning_heavy", "evening_heavy", "constant"] | None = None


class Location(ProfileSection):
    """Spec 000 forgot `updated_at` here; staleness needs it, so it has one like every section."""

    lat: float | None = Field(None, ge=-90, le=90)
    lon: float | None = Field(None, ge=-180, le=180)
    zip_code: str | None = Field(None, pattern=r"^\d{5}$")
    # Not in spec 000: onboarding accepts a city when the user has no ZIP at hand (EC-003),
    # and time-of-use windows are local, so the IANA timezone is kept when known.
    city: str | None = Field(None, min_length=1, max_length=100)
    timezone: str | None = None
    utility_provider: str | None = Field(None, min_length=1, max_length=100)
    rate_schedule: str | None = Field(None, min_length=1, max_length=100)
    # Not in spec 000: what the user says they pay per kWh, for a utility whose tariff we cannot look
    # up (no OpenEI key, plan not in the catalog). Used as one flat price, and said so.
    flat_rate_usd_per_kwh: float | None = Field(None, gt=0, le=2)

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("must be an IANA timezone name such as America/Los_Angeles") from None
        return value


SECTION_MODELS: dict[str, type[ProfileSection]] = {
    "equipment": Equipment,
    "preferences": Preferences,
    "household": Household,
    "location": Location,
}


class ProfileNote(_Model):
    """Summary of conversation turns that were compressed out of the raw history (EC-004)."""

    content: str = Field(min_length=1, max_length=4000)
    source_session: str = Field(min_length=1)
    source_turns: list[int] = Field(min_length=1)
    created_at: UtcDatetime = Field(default_factory=utc_now)

    @field_validator("source_turns")
    @classmethod
    def _positive_turns(cls, turns: list[int]) -> list[int]:
        if any(turn < 1 for turn in turns):
            raise ValueError("turn numbers start at 1")
        return turns


NOTES_LIMIT = 20  # notes kept per profile: the oldest are merged into one summary note
NOTE_MAX_CHARS = 4000
MERGED_TURNS_KEPT = 500  # turn numbers a merged note remembers (the memorizer's "already summarized")


def merge_notes(notes: list[ProfileNote], limit: int = NOTES_LIMIT) -> list[ProfileNote]:
    """At most `limit` notes: the newest `limit - 1` verbatim, the older ones merged into one first
    note (their texts joined oldest first, clipped to the newest `NOTE_MAX_CHARS` characters).
    Deterministic, and a no-op at or under the limit, so merging again merges the summary too."""
    if limit < 2:
        raise ValueError("need a limit of at least 2 notes")
    if len(notes) <= limit:
        return list(notes)
    cut = len(notes) - (limit - 1)
    old, kept = notes[:cut], notes[cut:]
    newest = old[-1]
    content = "\n".join(note.content for note in old)
    if len(content) > NOTE_MAX_CHARS:
        content = "…" + content[-(NOTE_MAX_CHARS - 1) :]
    # The turns of the newest merged note's session stay known, so the memorizer never
    # summarizes them twice; other sessions' notes are older than their threads' kept messages.
    turns = sorted(
        {turn for note in old if note.source_session == newest.source_session for turn in note.source_turns}
    )
    merged = ProfileNote(
        content=content,
        source_session=newest.source_session,
        source_turns=turns[-MERGED_TURNS_KEPT:],
        created_at=newest.created_at,
    )
    return [merged, *kept]


class ExtractedFact(_Model):
    """A fact the memorizer found in the conversation, with its source (FR-016)."""

    field: str = Field(min_length=3, max_length=100)
    new_value: str = Field(max_length=500)
    confidence: float = Field(ge=0, le=1)
    source_turn: int = Field(ge=1)
    source_text: str = Field(max_length=2000)


class ChangeSource(_Model):
    """Where a fact came from (FR-016): who said it, in which session and turn, in which words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # "app_home": a button or the edit form in Slack's App Home (text: what the user typed there).
    kind: Literal["onboarding", "memorizer", "user_statement", "command", "manual", "app_home"]
    session_id: str | None = None
    turn: int | None = Field(None, ge=1)
    text: str | None = Field(None, max_length=2000)


Operation = Literal["set", "updated", "confirmed", "forgotten", "reverted"]


class HistoryEntry(_Model):
    """One value change kept in the profile, so a user can see where a fact came from and undo it.

    Confirmations (same value re-stated) only refresh the section's timestamp and are not kept."""

    group: int = Field(1, ge=1)  # changes made together (one turn, one command) share a group
    field: str = Field(min_length=3, max_length=100)
    operation: Operation
    old_value: Any = None
    new_value: Any = None
    at: UtcDatetime
    source: ChangeSource
    undoes: int | None = None  # for "reverted": the group it undid


HISTORY_LIMIT = 100  # newest entries kept per profile


class UserProfile(_Model):
    user_id: str = Field(min_length=1, max_length=128)
    equipment: Equipment | None = None
    preferences: Preferences | None = None
    household: Household | None = None
    location: Location | None = None
    notes: list[ProfileNote] = Field(default_factory=list)
    # Not in spec 000: the change history (old -> new, when, source) behind "undo" and "where did
    # you get that?". Kept inside the profile document so a change and its record are one write.
    history: list[HistoryEntry] = Field(default_factory=list, max_length=HISTORY_LIMIT)
    created_at: UtcDatetime = Field(default_factory=utc_now)
    updated_at: UtcDatetime = Field(default_factory=utc_now)

    @model_validator(mode="after")
    def _updated_after_created(self) -> UserProfile:
        if self.updated_at < self.created_at:
            raise ValueError("updated_at must not be earlier than created_at")
        return self

    def section(self, name: str) -> ProfileSection | None:
        if name not in SECTION_MODELS:
            raise KeyError(name)
        return getattr(self, name)
