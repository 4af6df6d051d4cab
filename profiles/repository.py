"""Profiles on top of the store: read, create, save, and field-level changes with provenance.

`apply_change` is the only way facts enter a profile after creation: it validates the value
against the model, refreshes just that section's `updated_at`, and returns a `ChangeRecord`
with the old and new value and where the fact came from (FR-012, FR-014, FR-016).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.store.base import BaseStore
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from config.clock import Clock, utc_now
from profiles.ids import validate_key, validate_label
from profiles.locks import shared_locks
from profiles.models import (
    HISTORY_LIMIT,
    SECTION_MODELS,
    ChangeSource,
    HistoryEntry,
    Operation,
    ProfileNote,
    UserProfile,
    UtcDatetime,
)
from profiles.wording import plain_reason

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


class ChangeRecord(BaseModel):
    """The outcome of one `apply_change`: old → new, or a confirmation of the same value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    field: str
    operation: Operation
    old_value: Any = None
    new_value: Any = None
    previous_updated_at: UtcDatetime | None = None
    updated_at: UtcDatetime
    source: ChangeSource


class RefusedChange(BaseModel):
    """A value that did not validate: nothing was saved for it; `reason` is in plain words."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    field: str
    value: Any
    reason: str
    error: InvalidValueError = Field(exclude=True, repr=False)


class AppliedChanges(BaseModel):
    model_config = ConfigDict(frozen=True)

    applied: list[ChangeRecord] = Field(default_factory=list)
    refused: list[RefusedChange] = Field(default_factory=list)


def _last_group(history: list[HistoryEntry]) -> list[HistoryEntry]:
    """The newest group of value changes not undone yet (one group: what one turn or command
    changed). Undoing twice walks further back; it never undoes the undo."""
    undone = {entry.undoes for entry in history if entry.operation == "reverted"}
    candidates = [e for e in history if e.operation != "reverted" and e.group not in undone]
    if not candidates:
        return []
    return [e for e in candidates if e.group == candidates[-1].group]


def _next_group(history: list[HistoryEntry]) -> int:
    return history[-1].group + 1 if history else 1


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
        result = self.apply_changes(user_id, [(field_path, value)], source=source)
        if result.refused:
            raise result.refused[0].error
        return result.applied[0]

    def apply_changes(
        self, user_id: str, changes: Sequence[tuple[str, Any]], *, source: ChangeSource
    ) -> AppliedChanges:
        """Set several fields in one write. Each value is validated on its own: an invalid one is
        refused (with a reason the user can act on) and the others are still saved."""
        for field_path, _ in changes:
            split_field_path(field_path)  # unknown paths are a programming error: raise at once
        with self._locks.hold(user_id):
            now = self._clock()
            profile = self.get(user_id) or UserProfile(user_id=user_id, created_at=now, updated_at=now)
            applied: list[ChangeRecord] = []
            refused: list[RefusedChange] = []
            group = _next_group(profile.history)
            for field_path, value in changes:
                try:
                    profile, record = self._set(profile, field_path, value, source=source, now=now, group=group)
                except InvalidValueError as exc:
                    refused.append(RefusedChange(field=field_path, value=value, reason=exc.reason, error=exc))
                    continue
                applied.append(record)
            if applied:
                self._write(profile)
        for record in applied:
            logger.info("Profile %s: %s %s (source: %s)", user_id, record.operation, record.field, source.kind)
        return AppliedChanges(applied=applied, refused=refused)

    def forget(self, user_id: str, fields: Iterable[str], *, source: ChangeSource) -> list[ChangeRecord]:
        """Remove known values on the user's request (the one way a value becomes empty again).
        Fields that hold nothing are skipped; the change history keeps what was removed."""
        paths = list(dict.fromkeys(fields))
        for field_path in paths:
            split_field_path(field_path)
        with self._locks.hold(user_id):
            profile = self.get(user_id)
            if profile is None:
                return []
            now = self._clock()
            records = []
            group = _next_group(profile.history)
            for field_path in paths:
                section_name, field_name = split_field_path(field_path)
                section = profile.section(section_name)
                old = getattr(section, field_name) if section is not None else None
                if old is None:
                    continue
                profile, record = self._replace(
                    profile, field_path, old, None, "forgotten", source=source, now=now, group=group
                )
                records.append(record)
            if records:
                self._write(profile)
        return records

    def undo_last(self, user_id: str, *, source: ChangeSource) -> list[ChangeRecord]:
        """Revert the most recent group of changes (those made by one source turn): each field
        goes back to its previous value, or is removed when it had none. Returns what changed."""
        with self._locks.hold(user_id):
            profile = self.get(user_id)
            if profile is None:
                return []
            group = _last_group(profile.history)
            if not group:
                return []
            now = self._clock()
            records = []
            next_group = _next_group(profile.history)
            for entry in reversed(group):
                section_name, field_name = split_field_path(entry.field)
                section = profile.section(section_name)
                current = getattr(section, field_name) if section is not None else None
                if current != entry.new_value:
                    continue  # changed again since: leave the newer value alone
                profile, record = self._replace(
                    profile,
                    entry.field,
                    current,
                    entry.old_value,
                    "reverted",
                    source=source,
                    now=now,
                    group=next_group,
                    undoes=entry.group,
                )
                records.append(record)
            if records:
                self._write(profile)
        return records

    # --- internals ------------------------------------------------------------------------

    def _set(
        self, profile: UserProfile, field_path: str, value: Any, *, source: ChangeSource, now: Any, group: int
    ) -> tuple[UserProfile, ChangeRecord]:
        section_name, field_name = split_field_path(field_path)
        if value is None:
            raise InvalidValueError(field_path, value, "a missing value never erases a known one")
        section = profile.section(section_name)
        current = section.model_dump() if section is not None else {}
        old_value = current.get(field_name)
        try:
            updated_section = SECTION_MODELS[section_name].model_validate(
                {**current, field_name: value, "updated_at": now}
            )
        except ValidationError:
            raise InvalidValueError(field_path, value, plain_reason(field_path, value)) from None
        new_value = getattr(updated_section, field_name)
        operation = "set" if old_value is None else ("confirmed" if old_value == new_value else "updated")
        return self._commit(profile, field_path, updated_section, old_value, new_value, operation, source, now, group)

    def _replace(
        self,
        profile: UserProfile,
        field_path: str,
        old: Any,
        new: Any,
        operation: Operation,
        *,
        source: ChangeSource,
        now: Any,
        group: int,
        undoes: int | None = None,
    ) -> tuple[UserProfile, ChangeRecord]:
        """Set a field to `new` (None allowed: forget / undo), keeping history; never validated away."""
        section_name, field_name = split_field_path(field_path)
        section = profile.section(section_name)
        data = section.model_dump() if section is not None else {}
        updated_section = SECTION_MODELS[section_name].model_validate({**data, field_name: new, "updated_at": now})
        return self._commit(profile, field_path, updated_section, old, new, operation, source, now, group, undoes)

    @staticmethod
    def _commit(
        profile: UserProfile,
        field_path: str,
        updated_section: Any,
        old: Any,
        new: Any,
        operation: Operation,
        source: ChangeSource,
        now: Any,
        group: int,
        undoes: int | None = None,
    ) -> tuple[UserProfile, ChangeRecord]:
        """The profile with one section replaced, its history entry (a confirmation keeps none), and
        the change record: the one place both kinds of change are written down."""
        section_name = field_path.split(".", 1)[0]
        section = profile.section(section_name)
        history = profile.history
        if operation != "confirmed":
            entry = HistoryEntry(
                group=group,
                field=field_path,
                operation=operation,
                old_value=old,
                new_value=new,
                at=now,
                source=source,
                undoes=undoes,
            )
            history = [*history, entry][-HISTORY_LIMIT:]
        updated = profile.model_copy(update={section_name: updated_section, "updated_at": now, "history": history})
        record = ChangeRecord(
            user_id=profile.user_id,
            field=field_path,
            operation=operation,
            old_value=old,
            new_value=new,
            previous_updated_at=section.updated_at if section is not None else None,
            updated_at=now,
            source=source,
        )
        return UserProfile.model_validate(updated.model_dump()), record

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
