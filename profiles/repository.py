"""Profiles on top of the store: read, create, save, and field-level changes with provenance.

`apply_change` is the only way facts enter a profile after creation: it validates the value
against the model, refreshes just that section's `updated_at`, and returns a `ChangeRecord`
with the old and new value and where the fact came from (FR-012, FR-014, FR-016).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from langgraph.store.base import BaseStore
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from config.clock import Clock, utc_now
from profiles.ids import validate_key, validate_label
from profiles.locks import shared_locks
from profiles.models import SECTION_MODELS, ProfileNote, UserProfile, UtcDatetime

logger = logging.getLogger(__name__)

PROFILE_NAMESPACE = "profiles"
PROFILE_KEY = "profile"


class ProfileError(Exception):
    """Base class for profile problems the caller should turn into a clear message."""


class UnknownFieldError(ProfileError):
    def __init__(self, field_path: str) -> None:
        self.field_path = field_path
        super().__init__(
            f"unknown profile field {field_path!r}; known fields: {', '.join(editable_fields())}"
        )


class InvalidValueError(ProfileError):
    def __init__(self, field_path: str, value: Any, reason: str) -> None:
        self.field_path = field_path
        self.value = value
        self.reason = reason
        super().__init__(f"{field_path} cannot be {value!r}: {reason}")


class StoredProfileError(ProfileError):
    """The stored file parses as JSON but is not a valid profile (e.g. edited by hand)."""


class ChangeSource(BaseModel):
    """Where a fact came from (FR-016): who said it, in which session and turn, in which words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["onboarding", "memorizer", "user_statement", "manual"]
    session_id: str | None = None
    turn: int | None = Field(None, ge=1)
    text: str | None = Field(None, max_length=2000)


class ChangeRecord(BaseModel):
    """The outcome of one `apply_change`: old → new, or a confirmation of the same value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    field: str
    operation: Literal["set", "updated", "confirmed"]
    old_value: Any = None
    new_value: Any = None
    previous_updated_at: UtcDatetime | None = None
    updated_at: UtcDatetime
    source: ChangeSource


def editable_fields() -> list[str]:
    """Every `section.field` path a fact may target (derived from the models, never hand-listed)."""
    return [
        f"{section}.{name}"
        for section, model in SECTION_MODELS.items()
        for name in model.model_fields
        if name != "updated_at"
    ]


def split_field_path(field_path: str) -> tuple[str, str]:
    section, _, name = field_path.partition(".")
    model = SECTION_MODELS.get(section)
    if model is None or name == "updated_at" or name not in model.model_fields:
        raise UnknownFieldError(field_path)
    return section, name


class ProfileRepository:
    """Profiles stored at namespace `("profiles", <user_id>)`, key `profile`."""

    def __init__(self, store: BaseStore, *, clock: Clock = utc_now) -> None:
        self._store = store
        self._clock = clock
        self._locks = shared_locks(store, "profiles")  # one lock per user, shared by all repositories

    def get(self, user_id: str) -> UserProfile | None:
        item = self._store.get(self._namespace(user_id), PROFILE_KEY)
        if item is None:
            return None
        return self._parse(user_id, item.value)

    def create(self, user_id: str) -> UserProfile:
        """Create an empty profile, or return the existing one (never overwrites)."""
        with self._locks.hold(user_id):
            existing = self.get(user_id)
            if existing is not None:
                return existing
            now = self._clock()
            profile = UserProfile(user_id=user_id, created_at=now, updated_at=now)
            self._write(profile)
            logger.info("Created profile for %s", user_id)
            return profile

    def get_or_create(self, user_id: str) -> UserProfile:
        return self.get(user_id) or self.create(user_id)

    def save(self, profile: UserProfile) -> UserProfile:
        """Store a whole profile as given (imports, fixtures); field changes go through apply_change."""
        with self._locks.hold(profile.user_id):
            validated = UserProfile.model_validate(profile.model_dump())
            self._write(validated)
            return validated

    def import_profile(self, data: dict[str, Any]) -> UserProfile:
        """Store a profile document such as spec 000's demo JSON (sections without a timestamp
        are kept as "unknown age"). Replaces any existing profile of that user."""
        user_id = data.get("user_id") if isinstance(data, dict) else None
        if not isinstance(user_id, str):
            raise StoredProfileError("a profile document needs a string user_id")
        profile = self._parse(user_id, data)
        return self.save(profile)

    def add_note(self, user_id: str, note: ProfileNote) -> UserProfile:
        """Append a conversation summary (EC-004) to the user's profile."""
        with self._locks.hold(user_id):
            now = self._clock()
            profile = self.get(user_id) or UserProfile(user_id=user_id, created_at=now, updated_at=now)
            updated = profile.model_copy(update={"notes": [*profile.notes, note], "updated_at": now})
            self._write(UserProfile.model_validate(updated.model_dump()))
            return updated

    def apply_change(
        self, user_id: str, field_path: str, value: Any, *, source: ChangeSource
    ) -> ChangeRecord:
        """Set one field, validated against the model; nothing is saved when the value is invalid.

        Re-stating the current value confirms it: the section's `updated_at` is refreshed and the
        record says "confirmed". A null never erases a known value (it is rejected).
        """
        section_name, field_name = split_field_path(field_path)
        if value is None:
            raise InvalidValueError(field_path, value, "a missing value never erases a known one")
        with self._locks.hold(user_id):
            profile = self.get(user_id)
            now = self._clock()
            if profile is None:
                profile = UserProfile(user_id=user_id, created_at=now, updated_at=now)
            section_model = SECTION_MODELS[section_name]
            section = profile.section(section_name)
            current = section.model_dump() if section is not None else {}
            old_value = current.get(field_name)
            try:
                updated_section = section_model.model_validate(
                    {**current, field_name: value, "updated_at": now}
                )
            except ValidationError as exc:
                reason = "; ".join(error["msg"] for error in exc.errors())
                raise InvalidValueError(field_path, value, reason) from None
            new_value = getattr(updated_section, field_name)
            operation = "set" if old_value is None else ("confirmed" if old_value == new_value else "updated")
            updated_profile = profile.model_copy(update={section_name: updated_section, "updated_at": now})
            self._write(UserProfile.model_validate(updated_profile.model_dump()))
        record = ChangeRecord(
            user_id=user_id,
            field=field_path,
            operation=operation,
            old_value=old_value,
            new_value=new_value,
            previous_updated_at=section.updated_at if section is not None else None,
            updated_at=now,
            source=source,
        )
        logger.info("Profile %s: %s %s (source: %s)", user_id, operation, field_path, source.kind)
        return record

    # --- internals ------------------------------------------------------------------------

    @staticmethod
    def _namespace(user_id: str) -> tuple[str, str]:
        return (PROFILE_NAMESPACE, validate_label(user_id))

    def _write(self, profile: UserProfile) -> None:
        validate_key(PROFILE_KEY)
        self._store.put(self._namespace(profile.user_id), PROFILE_KEY, profile.model_dump(mode="json"))

    def _parse(self, user_id: str, value: dict[str, Any]) -> UserProfile:
        data = dict(value)
        for name in SECTION_MODELS:
            section = data.get(name)
            if isinstance(section, dict) and "updated_at" not in section:
                # Legacy data without a timestamp: its age is unknown, so staleness treats it as
                # unconfirmed instead of pretending it was confirmed just now.
                data[name] = {**section, "updated_at": None}
        try:
            profile = UserProfile.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise StoredProfileError(
                f"the stored profile of {user_id} is not valid at {where}: {first['msg']} "
                f"(fix or remove {PROFILE_NAMESPACE}/{user_id}/{PROFILE_KEY}.json in the data directory)"
            ) from None
        if profile.user_id != user_id:
            raise StoredProfileError(
                f"the profile stored for {user_id} names another user ({profile.user_id})"
            )
        return profile
