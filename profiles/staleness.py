"""How old each profile section is, and which ones are stale (spec 000, 90-day rule).

Ages are whole UTC calendar days ("confirmed 220 days ago" on any hour of that day).
Exactly `threshold_days` old is not stale; one day more is. A section with no timestamp
(legacy data) has an unknown age and counts as stale: the advisor should confirm it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from config.clock import as_utc, utc_now
from profiles.models import SECTION_MODELS, UserProfile, UtcDatetime

DEFAULT_STALENESS_DAYS = 90


class SectionAge(BaseModel):
    model_config = ConfigDict(frozen=True)

    section: str
    updated_at: UtcDatetime | None
    age_days: int | None  # None: never timestamped
    stale: bool


def staleness_days(updated_at: datetime, now: datetime | None = None) -> int:
    """UTC calendar days from `updated_at` to `now` (naive values are read as UTC)."""
    moment = as_utc(now) if now is not None else utc_now()
    return (moment.date() - as_utc(updated_at).date()).days


def is_stale(
    updated_at: datetime | None, threshold_days: int = DEFAULT_STALENESS_DAYS, now: datetime | None = None
) -> bool:
    if updated_at is None:
        return True
    return staleness_days(updated_at, now) > threshold_days


def section_ages(
    profile: UserProfile, threshold_days: int = DEFAULT_STALENESS_DAYS, now: datetime | None = None
) -> list[SectionAge]:
    """Age of every section the profile has (absent sections are not listed)."""
    moment = as_utc(now) if now is not None else utc_now()
    ages = []
    for name in SECTION_MODELS:
        section = profile.section(name)
        if section is None:
            continue
        updated_at = section.updated_at
        ages.append(
            SectionAge(
                section=name,
                updated_at=updated_at,
                age_days=None if updated_at is None else staleness_days(updated_at, moment),
                stale=is_stale(updated_at, threshold_days, moment),
            )
        )
    return ages


def stale_sections(
    profile: UserProfile, threshold_days: int = DEFAULT_STALENESS_DAYS, now: datetime | None = None
) -> list[SectionAge]:
    return [age for age in section_ages(profile, threshold_days, now) if age.stale]
