"""Staleness per profile section, read from the one clock (freezegun controls it)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from freezegun import freeze_time

from profiles.models import Household, UserProfile
from profiles.repository import ProfileRepository
from profiles.staleness import is_stale, section_ages, stale_sections, staleness_days


@pytest.fixture
def demo(profiles: ProfileRepository, demo_profile_data: dict[str, Any]) -> UserProfile:
    return profiles.import_profile(demo_profile_data)


@pytest.mark.parametrize("moment", ["2026-01-21T00:00:00Z", "2026-01-21T09:59:00Z", "2026-01-21T23:59:59Z"])
def test_demo_profile_household_is_220_days_stale_on_the_demo_date(demo: UserProfile, moment: str) -> None:
    with freeze_time(moment):
        ages = {age.section: age for age in section_ages(demo, threshold_days=90)}
    assert ages["household"].age_days == 220
    assert ages["household"].stale
    assert [age.section for age in stale_sections(demo, 90, now=datetime(2026, 1, 21, tzinfo=timezone.utc))][
        2
    ] == "household"


def test_demo_profile_other_sections_on_the_demo_date(demo: UserProfile) -> None:
    """Spec 000 dates equipment/preferences 2025-09-20: 123 days before the demo date, so they
    are stale at 90 days too (the issue expected them fresh; the dates say otherwise). They are
    fresh at a 180-day threshold, where the household (220 days) is still stale."""
    with freeze_time("2026-01-21T12:00:00Z"):
        ages = {age.section: age for age in section_ages(demo, threshold_days=90)}
        at_180 = {age.section for age in stale_sections(demo, threshold_days=180)}
    assert ages["equipment"].age_days == ages["preferences"].age_days == 123
    assert at_180 == {"household", "location"}
    assert ages["location"].age_days is None and ages["location"].stale  # never timestamped in the spec


def test_exactly_threshold_days_is_not_stale_one_more_is() -> None:
    updated = datetime(2026, 1, 1, 15, 30, tzinfo=timezone.utc)
    with freeze_time(updated + timedelta(days=90)):
        assert staleness_days(updated) == 90 and not is_stale(updated, 90)
    with freeze_time(updated + timedelta(days=91)):
        assert staleness_days(updated) == 91 and is_stale(updated, 90)


def test_section_without_a_timestamp_is_stale_with_unknown_age() -> None:
    profile = UserProfile(user_id="u", household=Household(work_schedule="WFH", updated_at=None))
    (age,) = section_ages(profile, 90)
    assert age.updated_at is None and age.age_days is None and age.stale
    assert is_stale(None, 90)


def test_absent_sections_are_not_listed() -> None:
    assert section_ages(UserProfile(user_id="u"), 90) == []


def test_naive_and_aware_inputs_agree() -> None:
    now = datetime(2026, 1, 21, 12, tzinfo=timezone.utc)
    naive = datetime(2025, 6, 15, 10)  # noqa: DTZ001 - read as UTC
    aware = datetime(2025, 6, 15, 3, tzinfo=timezone(timedelta(hours=-7)))  # the same instant
    assert staleness_days(naive, now) == staleness_days(aware, now) == 220
    assert staleness_days(aware, now.replace(tzinfo=None)) == 220
