"""ProfileRepository: create/get/save and field-level changes with provenance."""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from profiles.ids import InvalidIdError
from profiles.models import UserProfile
from profiles.repository import (
    ChangeSource,
    InvalidValueError,
    ProfileRepository,
    StoredProfileError,
    UnknownFieldError,
    editable_fields,
)

SOURCE = ChangeSource(
    kind="memorizer", session_id="s1", turn=3, text="I started working from home last month"
)


def profile_file(data_dir: Path, user_id: str) -> Path:
    return data_dir / "profiles" / user_id / "profile.json"


def test_create_get_and_create_again_never_overwrites(profiles: ProfileRepository) -> None:
    assert profiles.get("T1-U1") is None
    created = profiles.create("T1-U1")
    assert created.user_id == "T1-U1" and created.household is None
    profiles.apply_change("T1-U1", "household.occupants", 3, source=SOURCE)
    again = profiles.create("T1-U1")
    assert again.household is not None and again.household.occupants == 3


def test_demo_profile_round_trips_through_save(
    profiles: ProfileRepository, demo_profile_data: dict[str, Any]
) -> None:
    demo = profiles.import_profile(demo_profile_data)
    loaded = profiles.get("home_123")
    assert loaded == demo
    assert loaded.location.updated_at is None  # the spec's location has no timestamp: unknown age
    assert loaded.household.work_schedule == "Office 9-5"
    assert loaded.household.updated_at == datetime(2025, 6, 15, 10, tzinfo=timezone.utc)


def test_apply_change_refreshes_only_that_sections_timestamp(
    profiles: ProfileRepository, demo_profile_data: dict[str, Any]
) -> None:
    profiles.import_profile(demo_profile_data)
    with freeze_time("2026-01-21T12:00:00Z"):
        record = profiles.apply_change("home_123", "household.work_schedule", "WFH", source=SOURCE)

    after = profiles.get("home_123")
    now = datetime(2026, 1, 21, 12, tzinfo=timezone.utc)
    assert after.household.work_schedule == "WFH"
    assert after.household.updated_at == now
    assert after.updated_at == now
    assert after.equipment.updated_at == datetime(2025, 9, 20, 10, tzinfo=timezone.utc)  # untouched
    assert after.preferences.updated_at == datetime(2025, 9, 20, 10, tzinfo=timezone.utc)
    assert after.household.occupants == 2  # the rest of the section is kept
    assert record.operation == "updated"
    assert (record.old_value, record.new_value) == ("Office 9-5", "WFH")
    assert record.previous_updated_at == datetime(2025, 6, 15, 10, tzinfo=timezone.utc)
    assert record.source == SOURCE


def test_restating_the_same_value_confirms_and_refreshes(profiles: ProfileRepository) -> None:
    with freeze_time("2026-01-01T00:00:00Z"):
        first = profiles.apply_change("u1", "equipment.heating_type", "heat_pump", source=SOURCE)
    with freeze_time("2026-05-01T00:00:00Z"):
        second = profiles.apply_change("u1", "equipment.heating_type", "heat_pump", source=SOURCE)
    assert first.operation == "set" and first.old_value is None
    assert second.operation == "confirmed" and second.old_value == second.new_value == "heat_pump"
    assert profiles.get("u1").equipment.updated_at == datetime(2026, 5, 1, tzinfo=timezone.utc)


def test_values_are_coerced_by_the_model(profiles: ProfileRepository) -> None:
    record = profiles.apply_change("u1", "household.occupants", "4", source=SOURCE)
    assert record.new_value == 4
    assert (
        profiles.apply_change("u1", "equipment.has_battery_storage", "true", source=SOURCE).new_value is True
    )
    assert profiles.apply_change("u1", "equipment.solar_capacity_kw", "6.5", source=SOURCE).new_value == 6.5


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("equipment.heating_type", "coal", "one of: gas, electric resistance heat, a heat pump"),
        ("location.zip_code", "9410", "five digits"),
        ("location.lat", 123.0, "between -90 and 90"),
        ("household.occupants", 0, "between 1 and 50"),
        ("household.occupants", 1000, "between 1 and 50"),
        ("equipment.battery_capacity_kwh", -5.0, "more than 0 kWh"),
        ("preferences.budget_priority", "extreme", "one of: low, medium, high"),
        ("location.timezone", "Mars/Olympus", "timezone name"),
        ("household.work_schedule", None, "never erases"),
    ],
)
def test_invalid_values_are_rejected_without_saving_anything(
    profiles: ProfileRepository, data_dir: Path, field: str, value: object, reason: str
) -> None:
    profiles.apply_change("u1", "household.work_schedule", "Office 9-5", source=SOURCE)
    before = profile_file(data_dir, "u1").read_bytes()
    with pytest.raises(InvalidValueError, match=reason) as raised:
        profiles.apply_change("u1", field, value, source=SOURCE)
    assert raised.value.field_path == field
    assert profile_file(data_dir, "u1").read_bytes() == before


@pytest.mark.parametrize("field", ["household.pets", "garage.size", "household", "household.updated_at", ""])
def test_unknown_paths_are_rejected_without_saving(
    profiles: ProfileRepository, data_dir: Path, field: str
) -> None:
    with pytest.raises(UnknownFieldError, match="known fields: equipment.solar_capacity_kw"):
        profiles.apply_change("u1", field, "x", source=SOURCE)
    assert not profile_file(data_dir, "u1").exists()


def test_editable_fields_come_from_the_models() -> None:
    fields = editable_fields()
    assert "household.work_schedule" in fields and "location.rate_schedule" in fields
    assert not any(field.endswith("updated_at") for field in fields)


def test_concurrent_changes_to_one_profile_are_all_kept(profiles: ProfileRepository) -> None:
    changes = {
        "household.occupants": 3,
        "household.work_schedule": "WFH",
        "equipment.ev_model": "Tesla Model 3",
        "equipment.ev_battery_kwh": 57.5,
        "location.zip_code": "94102",
        "location.utility_provider": "PG&E",
        "preferences.budget_priority": "high",
        "preferences.green_priority": "medium",
    }
    threads = [
        threading.Thread(target=profiles.apply_change, args=("u1", field, value), kwargs={"source": SOURCE})
        for field, value in changes.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = profiles.get("u1").model_dump()
    for field, value in changes.items():
        section, name = field.split(".")
        assert stored[section][name] == value, field


def test_hand_broken_profile_is_set_aside_not_an_error(profiles: ProfileRepository, store: Any) -> None:
    """Issue 12: an invalid stored profile is moved aside (tests/hostile/test_files.py has the cases);
    importing an invalid document is still a clear error."""
    store.put(("profiles", "u1"), "profile", {"user_id": "u1", "equipment": {"heating_type": "coal"}})
    assert profiles.get("u1") is None
    assert [p.name.split("-")[0] for p in (store.root / "profiles" / "u1").iterdir()] == [
        "profile.json.invalid"
    ]
    with pytest.raises(StoredProfileError, match=r"not valid at equipment.heating_type"):
        profiles.import_profile({"user_id": "u1", "equipment": {"heating_type": "coal"}})


def test_legacy_section_without_timestamp_reads_as_unknown_age(
    profiles: ProfileRepository, store: Any
) -> None:
    store.put(("profiles", "u1"), "profile", {"user_id": "u1", "location": {"zip_code": "94102"}})
    assert profiles.get("u1").location.updated_at is None


@pytest.mark.parametrize("bad", ["../etc", "a/b", "", "x" * 300])
def test_bad_user_ids_are_rejected(profiles: ProfileRepository, bad: str) -> None:
    with pytest.raises(InvalidIdError):
        profiles.get(bad)
    with pytest.raises(InvalidIdError):
        profiles.apply_change(bad, "household.occupants", 2, source=SOURCE)


def test_import_needs_a_user_id(profiles: ProfileRepository) -> None:
    with pytest.raises(StoredProfileError, match="user_id"):
        profiles.import_profile({"household": {}})


def test_saving_a_profile_validates_it(profiles: ProfileRepository) -> None:
    profile = UserProfile(user_id="u1")
    broken = profile.model_copy(update={"created_at": datetime(2030, 1, 1, tzinfo=timezone.utc)})
    with pytest.raises(ValueError, match="updated_at must not be earlier than created_at"):
        profiles.save(broken)
    assert profiles.get("u1") is None
