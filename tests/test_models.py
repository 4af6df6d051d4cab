"""Validation rules of the profile and fact models (spec 000)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from profiles.models import Equipment, ExtractedFact, Household, Location, ProfileNote, UserProfile
from profiles.session import Session, SessionMessage


@pytest.mark.parametrize(
    "fields",
    [
        {"lat": 90.5},
        {"lat": -91},
        {"lon": 180.1},
        {"lon": -200},
        {"zip_code": "941021"},
        {"zip_code": "ABCDE"},
    ],
)
def test_location_rejects_out_of_range_values(fields: dict) -> None:
    with pytest.raises(ValidationError):
        Location(**fields)


def test_location_accepts_edges_and_has_its_own_timestamp() -> None:
    location = Location(lat=-90, lon=180, zip_code="02134", timezone="America/New_York")
    assert location.updated_at is not None and location.updated_at.tzinfo is not None


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (Equipment, {"heating_type": "coal"}),
        (Equipment, {"cooling_type": "fan"}),
        (Household, {"typical_usage_pattern": "random"}),
        (Equipment, {"solar_capacity_kw": -1}),
        (Household, {"surprise": 1}),
    ],
)
def test_literals_ranges_and_unknown_fields_are_rejected(model: type, fields: dict) -> None:
    with pytest.raises(ValidationError):
        model(**fields)


@pytest.mark.parametrize("confidence", [-0.01, 1.01])
def test_fact_confidence_is_between_zero_and_one(confidence: float) -> None:
    with pytest.raises(ValidationError):
        ExtractedFact(
            field="household.work_schedule",
            new_value="WFH",
            confidence=confidence,
            source_turn=1,
            source_text="",
        )


def test_spec_example_fact_is_valid() -> None:
    fact = ExtractedFact(
        field="household.work_schedule",
        new_value="WFH",
        confidence=0.95,
        source_turn=3,
        source_text="I actually started working from home last month",
    )
    assert fact.confidence == 0.95


def test_profile_updated_at_must_not_precede_created_at() -> None:
    created = datetime(2026, 1, 2, tzinfo=timezone.utc)
    with pytest.raises(ValidationError, match="updated_at must not be earlier"):
        UserProfile(user_id="u", created_at=created, updated_at=created - timedelta(seconds=1))
    assert UserProfile(user_id="u", created_at=created, updated_at=created).updated_at == created


def test_naive_datetimes_are_read_as_utc_and_aware_ones_converted() -> None:
    naive = Household(updated_at=datetime(2025, 6, 15, 10, 0))  # noqa: DTZ001 - the point of the test
    assert naive.updated_at == datetime(2025, 6, 15, 10, tzinfo=timezone.utc)
    pacific = timezone(timedelta(hours=-8))
    aware = Household(updated_at=datetime(2025, 6, 15, 2, 0, tzinfo=pacific))
    assert aware.updated_at.tzinfo == timezone.utc and aware.updated_at.hour == 10
    parsed = UserProfile.model_validate(
        {"user_id": "u", "created_at": "2025-05-01T10:00:00Z", "updated_at": "2025-05-01T10:00:00"}
    )
    assert parsed.created_at == parsed.updated_at


def test_profile_note_needs_positive_turns() -> None:
    with pytest.raises(ValidationError, match="turn numbers start at 1"):
        ProfileNote(content="summary", source_session="s", source_turns=[0, 1])
    with pytest.raises(ValidationError):
        ProfileNote(content="", source_session="s", source_turns=[1])


def test_session_defaults_and_message_roles() -> None:
    session = Session(session_id="1700000000.000100", user_id="T1-U1")
    assert session.turn_count == 0 and session.status == "active" and not session.needs_memorizing
    with pytest.raises(ValidationError):
        SessionMessage(role="system", content="x", turn=1)
    with pytest.raises(ValidationError):
        Session(session_id="s", user_id="u", status="paused")
