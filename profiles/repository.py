"""Profiles on top of the store: read, create, save, and field-level changes with provenance.

`apply_change` is the only way facts enter a profile after creation: it validates the value
against the model, refreshes just that section's `updated_at`, and returns a `ChangeRecord`
with the old and new value and where the fact came from (FR-012, FR-014, FR-016).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from config.clock import Clock, as_utc, utc_now
from profiles.ids import validate_key, validate_label
from profiles.json_store import WriteRefusedError
from profiles.loaded import Loaded, still_current, store_version
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
    merge_notes,
)
from profiles.wording import plain_reason

logger = logging.getLogger(__name__)

PROFILE_NAMESPACE = "profiles"
PROFILE_KEY = "profile"
NOTICE_NAMESPACE = "notices"

PROFILE_RESET_NOTICE = (
    "I couldn't read your saved profile (it was damaged), so I've set it aside and started fresh; "
    "tell me your details again."
)
PROFILE_PARTLY_KEPT_NOTICE = (
    "I couldn't read all of your saved profile (it was damaged), so I've set the file aside and kept only "
    "the details I could read; ask me what I know about you to check them, and tell me the rest again."
)
SESSION_RESET_NOTICE = (
    "I couldn't read our earlier conversation (it was damaged), so I've set it aside and started a new one."
)
_NOTICE_TEXTS = {"profile": PROFILE_RESET_NOTICE, "session": SESSION_RESET_NOTICE}


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


class ProfileNotSavedError(ProfileError):
    """The store refused the write (see `WriteRefusedError`): nothing was saved, and the reply must
    say so instead of "Saved". `reason` is in plain words; the log holds the path."""

    reason = "your profile folder can't be written right now (the bot's log says why), so nothing was saved"

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id
        super().__init__(f"the profile of {user_id} was not saved: {self.reason}")


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
    error: InvalidValueError | ProfileNotSavedError = Field(exclude=True, repr=False)


class AppliedChanges(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    applied: list[ChangeRecord] = Field(default_factory=list)
    refused: list[RefusedChange] = Field(default_factory=list)
    profile: UserProfile | None = None  # the profile as stored after the write (None: no profile)


def _last_group(history: list[HistoryEntry]) -> list[HistoryEntry]:
    """The newest group of value changes not undone yet (one group: what one turn or command
    changed). Undoing twice walks further back; it never undoes the undo."""
    undone = {entry.undoes for entry in history if entry.operation == "reverted"}
    candidates = [e for e in history if e.operation != "reverted" and e.group not in undone]
    if not candidates:
        return []
    return [e for e in candidates if e.group == candidates[-1].group]


def _undoable_group(history: list[HistoryEntry], session_id: str | None) -> list[HistoryEntry]:
    """The last group, when it was made in `session_id` (any conversation's, without one)."""
    group = _last_group(history)
    if session_id is not None and group and group[-1].source.session_id != session_id:
        return []
    return group


def last_change_fields(history: list[HistoryEntry], session_id: str | None = None) -> set[str]:
    """The fields an undo would change now: "scratch that, the powerwall's my dad's" is about the
    last change only when it touched the battery."""
    return {entry.field for entry in _undoable_group(history, session_id)}


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
        self.notices = ResetNotices(store, clock=clock)

    def get(self, user_id: str) -> UserProfile | None:
        """The user's profile, or None. A stored file that is not a valid profile never locks the
        user out: it is moved aside (kept for a human), what validates on its own is kept, and the
        user is told once (`notices`)."""
        namespace = self._namespace(user_id)
        mark = quarantine_mark(self._store)
        item = self._store.get(namespace, PROFILE_KEY)
        if item is None:
            if quarantined_since(self._store, mark, namespace, PROFILE_KEY):  # unreadable JSON, moved aside
                self.notices.record(user_id, "profile", PROFILE_RESET_NOTICE)
            return None
        try:
            return self._parse(user_id, item.value)
        except StoredProfileError:
            return self._recover(user_id)

    def load(self, user_id: str) -> Loaded[UserProfile]:
        """The profile with the store's version of it, for a turn that may write it later."""
        version = store_version(self._store, self._namespace(user_id), PROFILE_KEY)
        return Loaded(self.get(user_id), version)

    def _current(self, user_id: str, base: Loaded[UserProfile] | None) -> UserProfile | None:
        """The stored profile, under the user's lock: `base` when nobody wrote it since it was read."""
        if still_current(self._store, self._namespace(user_id), PROFILE_KEY, base):
            return base.value  # type: ignore[union-attr]
        return self.get(user_id)

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
            # Bounded: past NOTES_LIMIT the oldest notes are merged into one (the newest stay verbatim).
            updated = profile.model_copy(
                update={"notes": merge_notes([*profile.notes, note]), "updated_at": now}
            )
            validated = UserProfile.model_validate(updated.model_dump())
            self._write(validated)
            return validated

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
        self,
        user_id: str,
        changes: Sequence[tuple[str, Any]],
        *,
        source: ChangeSource,
        removals: Sequence[str] = (),
        base: Loaded[UserProfile] | None = None,
    ) -> AppliedChanges:
        """Set several fields, and remove others (`removals`: values a change made wrong, such as
        the old car's battery size), in one write and one change group. Each value is validated on
        its own: an invalid one is refused (with a reason the user can act on) and the others are
        still saved. `base`: the profile as the caller read it (not read again if nobody wrote it since)."""
        for field_path in [*(path for path, _ in changes), *removals]:
            split_field_path(field_path)  # unknown paths are a programming error: raise at once
        with self._locks.hold(user_id):
            now = self._clock()
            stored = self._current(user_id, base)
            profile = stored or UserProfile(user_id=user_id, created_at=now, updated_at=now)
            applied: list[ChangeRecord] = []
            refused: list[RefusedChange] = []
            group = _next_group(profile.history)
            for field_path in dict.fromkeys(removals):
                section_name, field_name = split_field_path(field_path)
                section = profile.section(section_name)
                old = getattr(section, field_name) if section is not None else None
                if old is not None:
                    profile, record = self._replace(
                        profile, field_path, old, None, "forgotten", source=source, now=now, group=group
                    )
                    applied.append(record)
            for field_path, value in changes:
                try:
                    profile, record = self._set(
                        profile, field_path, value, source=source, now=now, group=group
                    )
                except InvalidValueError as exc:
                    refused.append(RefusedChange(field=field_path, value=value, reason=exc.reason, error=exc))
                    continue
                applied.append(record)
            if applied:
                try:
                    self._write(profile)
                except ProfileNotSavedError as exc:  # said as refused: never reported as saved
                    refused += [
                        RefusedChange(field=r.field, value=r.new_value, reason=exc.reason, error=exc)
                        for r in applied
                        if r.new_value is not None
                    ]
                    applied, profile = [], stored
            else:
                profile = stored
        for record in applied:
            logger.info(
                "Profile %s: %s %s (source: %s)", user_id, record.operation, record.field, source.kind
            )
        return AppliedChanges(applied=applied, refused=refused, profile=profile)

    def forget(self, user_id: str, fields: Iterable[str], *, source: ChangeSource) -> list[ChangeRecord]:
        """Remove known values on the user's request (the one way a value becomes empty again).
        Fields that hold nothing are skipped; the change history keeps what was removed."""
        return self.forget_with_profile(user_id, fields, source=source).applied

    def forget_with_profile(
        self,
        user_id: str,
        fields: Iterable[str],
        *,
        source: ChangeSource,
        base: Loaded[UserProfile] | None = None,
    ) -> AppliedChanges:
        """`forget`, with the profile as the write left it (no second read to show it)."""
        paths = list(dict.fromkeys(fields))
        for field_path in paths:
            split_field_path(field_path)
        with self._locks.hold(user_id):
            profile = self._current(user_id, base)
            if profile is None:
                return AppliedChanges()
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
        return AppliedChanges(applied=records, profile=profile)

    def undo_last(self, user_id: str, *, source: ChangeSource) -> list[ChangeRecord]:
        """Revert the most recent group of changes (those made by one source turn): each field
        goes back to its previous value, or is removed when it had none. Returns what changed."""
        return self.undo_with_profile(user_id, source=source).applied

    def undo_with_profile(
        self,
        user_id: str,
        *,
        source: ChangeSource,
        base: Loaded[UserProfile] | None = None,
        session_id: str | None = None,
    ) -> AppliedChanges:
        """`undo_last`, with the profile as the write left it. With `session_id`, only a change
        made in that conversation is undone: "undo that" in a new chat cannot mean last week's
        facts, so nothing changes then."""
        with self._locks.hold(user_id):
            profile = self._current(user_id, base)
            if profile is None:
                return AppliedChanges()
            group = _undoable_group(profile.history, session_id)
            if not group:
                return AppliedChanges(profile=profile)
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
        return AppliedChanges(applied=records, profile=profile)

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
        return self._commit(
            profile, field_path, updated_section, old_value, new_value, operation, source, now, group
        )

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
        updated_section = SECTION_MODELS[section_name].model_validate(
            {**data, field_name: new, "updated_at": now}
        )
        return self._commit(
            profile, field_path, updated_section, old, new, operation, source, now, group, undoes
        )

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
        updated = profile.model_copy(
            update={section_name: updated_section, "updated_at": now, "history": history}
        )
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
        try:
            self._store.put(self._namespace(profile.user_id), PROFILE_KEY, profile.model_dump(mode="json"))
        except WriteRefusedError:
            raise ProfileNotSavedError(profile.user_id) from None

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
            raise StoredProfileError(
                f"the stored profile of {user_id} is not valid at {first_error(exc)} "
                f"(fix or remove {PROFILE_NAMESPACE}/{user_id}/{PROFILE_KEY}.json in the data directory)"
            ) from None
        if profile.user_id != user_id:
            raise StoredProfileError(
                f"the profile stored for {user_id} names another user ({profile.user_id})"
            )
        return profile

    def _recover(self, user_id: str) -> UserProfile | None:
        """Move an invalid stored profile aside and keep what validates on its own (see `salvage`)."""
        namespace = self._namespace(user_id)
        with self._locks.hold(user_id):
            item = self._store.get(namespace, PROFILE_KEY)  # again, under the lock: it may be fixed already
            if item is None:
                return None
            try:
                return self._parse(user_id, item.value)
            except StoredProfileError:
                pass
            reason = _profile_problem(user_id, item.value)
            now = self._clock()
            kept = salvage(user_id, item.value, now)
            try:
                aside = set_aside(self._store, namespace, PROFILE_KEY, item.value, clock=self._clock)
            except OSError as exc:  # cannot even rename: answer from what validates, write nothing
                logger.error(
                    "Stored profile %s is not valid (%s) and could not be moved aside: %s",
                    store_location(self._store, namespace, PROFILE_KEY),
                    reason,
                    exc,
                )
                return kept
            logger.warning(
                "Stored profile %s is not valid (%s); moved aside to %s; %s",
                store_location(self._store, namespace, PROFILE_KEY),
                reason,
                aside,
                f"kept {_kept_count(kept)} values that validate on their own" if kept else "starting empty",
            )
            if kept is not None:
                self._write(kept)
            self.notices.record(
                user_id, "profile", PROFILE_PARTLY_KEPT_NOTICE if kept else PROFILE_RESET_NOTICE
            )
            return kept


# --- invalid stored files: set aside, salvage, tell the user once ----------------------------


def first_error(exc: ValidationError) -> str:
    """`where: what` of a validation error's first problem, without the offending value (a hand-edited
    file may hold anything, secrets included)."""
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part)[:40] for part in first["loc"]) or "(top level)"
    return f"{where}: {first['msg']}"


def _profile_problem(user_id: str, value: Any) -> str:
    try:
        profile = UserProfile.model_validate(value)
    except ValidationError as exc:
        return first_error(exc)
    return "user_id: names another user" if profile.user_id != user_id else "unknown problem"


def _validates(model: type[BaseModel], data: dict[str, Any]) -> bool:
    try:
        model.model_validate(data)
    except (ValidationError, ValueError, TypeError):
        return False
    return True


def salvage(user_id: str, data: Any, now: Any) -> UserProfile | None:
    """The parts of an invalid stored profile that validate on their own: each section field with
    its section's timestamp (an invalid timestamp becomes "unknown age"), each note, each history
    entry. Precision over recall: nothing that fails validation is kept, and nothing at all when
    the document names another user. None when nothing is left."""
    if not isinstance(data, dict) or data.get("user_id") != user_id:
        return None
    kept: dict[str, Any] = {}
    for name, model in SECTION_MODELS.items():
        section = data.get(name)
        if not isinstance(section, dict):
            continue
        stamp = section.get("updated_at")
        if not _validates(model, {"updated_at": stamp}):
            stamp = None
        values = {
            field: value
            for field, value in section.items()
            if field != "updated_at"
            and field in model.model_fields
            and value is not None
            and _validates(model, {"updated_at": stamp, field: value})
        }
        if values:
            kept[name] = model.model_validate({**values, "updated_at": stamp})
    notes = [n for n in _items(data.get("notes")) if _validates(ProfileNote, n)]
    history = [h for h in _items(data.get("history")) if _valid_change(h)][-HISTORY_LIMIT:]
    if not kept and not notes and not history:
        return None
    created = data.get("created_at")
    if not _validates(UserProfile, {"user_id": user_id, "created_at": created, "updated_at": now}):
        created = now
    try:
        profile = UserProfile.model_validate(
            {
                **kept,
                "user_id": user_id,
                "notes": merge_notes([ProfileNote.model_validate(n) for n in notes]),
                "history": history,
                "created_at": created,
                "updated_at": now,
            }
        )
    except (ValidationError, ValueError, TypeError):  # parts valid alone, not together: keep nothing
        return None
    return profile


def _valid_change(entry: dict[str, Any]) -> bool:
    """A history entry that is valid, names a known field, and whose values that field could hold
    (undo puts the old value back)."""
    if not _validates(HistoryEntry, entry):
        return False
    try:
        section, name = split_field_path(entry["field"])
    except UnknownFieldError:
        return False
    model = SECTION_MODELS[section]
    values = (entry.get("old_value"), entry.get("new_value"))
    return all(value is None or _validates(model, {"updated_at": None, name: value}) for value in values)


def _items(value: Any) -> list[Any]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _kept_count(profile: UserProfile) -> int:
    sections = (profile.section(name) for name in SECTION_MODELS)
    fields = sum(
        1
        for section in sections
        if section is not None
        for name, value in section
        if name != "updated_at" and value is not None
    )
    return fields + len(profile.notes) + len(profile.history)


def _item_file(store: BaseStore, namespace: tuple[str, ...], key: str) -> Path | None:
    """The file behind a store item, for the JSON file store (the one store with files)."""
    root = getattr(store, "root", None)
    if not isinstance(root, Path):
        return None
    from profiles.json_store import ITEM_SUFFIX

    return root.joinpath(*namespace, key + ITEM_SUFFIX)


def store_location(store: BaseStore, namespace: tuple[str, ...], key: str) -> str:
    path = _item_file(store, namespace, key)
    return str(path) if path is not None else "/".join((*namespace, key))


def set_aside(
    store: BaseStore, namespace: tuple[str, ...], key: str, value: dict[str, Any], *, clock: Clock = utc_now
) -> str:
    """Keep an invalid item out of the way, unchanged: the file is renamed to
    `<key>.json.invalid-<UTC timestamp>` (the store reads only `*.json`); in another store the value
    is copied to `("set_aside", *namespace)` and removed. Returns the new name. The caller holds
    the item's lock."""
    stamp = as_utc(clock()).strftime("%Y%m%dT%H%M%SZ")
    path = _item_file(store, namespace, key)
    if path is not None:
        target = path.with_name(f"{path.name}.invalid-{stamp}")
        counter = 1
        while target.exists():
            target = path.with_name(f"{path.name}.invalid-{stamp}-{counter}")
            counter += 1
        os.replace(path, target)
        return target.name
    aside_key = f"{key}.invalid-{stamp}"
    store.put(("set_aside", *namespace), aside_key, value)
    store.delete(namespace, key)
    return "/".join(("set_aside", *namespace, aside_key))


def quarantine_mark(store: BaseStore) -> int:
    """Where the store's list of corrupt files moved aside ends now (see `quarantined_since`)."""
    return len(getattr(store, "quarantined", None) or ())


def quarantined_since(
    store: BaseStore, mark: int, namespace: tuple[str, ...], key: str | None = None, *, any_user: bool = False
) -> list[Path]:
    """Files of `namespace` (and `key`, if given) that the store moved aside as unreadable since
    `mark`; with `any_user`, files of any namespace next to it (`("sessions", <any user>)`)."""
    quarantined = getattr(store, "quarantined", None)
    folder = _item_file(store, namespace, key or "x")
    if not quarantined or folder is None:
        return []
    prefix = f"{key}.json." if key is not None else ""
    return [
        path
        for path in list(quarantined)[mark:]
        if isinstance(path, Path)
        and (path.parent.parent == folder.parent.parent if any_user else path.parent == folder.parent)
        and path.name.startswith(prefix)
    ]


class ResetNotices:
    """One sentence per kind ("profile", "session") owed to a user whose stored file was set aside,
    kept in the store at `("notices", <user_id>)` so it is said exactly once, across restarts:
    `pending` peeks (the turn puts it in its reply), `take` removes it once the reply is built."""

    def __init__(self, store: BaseStore, *, clock: Clock = utc_now) -> None:
        self._store = store
        self._clock = clock
        self._locks = shared_locks(store, "notices")

    @property
    def store(self) -> BaseStore:
        """Where the notices live (repositories over one store share them)."""
        return self._store

    def record(self, user_id: str, kind: str, text: str) -> None:
        try:
            with self._locks.hold(user_id):
                self._store.put(
                    (NOTICE_NAMESPACE, validate_label(user_id)),
                    kind,
                    {"text": text, "at": as_utc(self._clock()).isoformat()},
                )
        except Exception:  # telling the user is a courtesy: it must never cost them the turn
            logger.exception("Could not record a notice for %s", user_id)

    def pending(self, user_id: str) -> list[str]:
        return [text for _, text in self._read(user_id)]

    def take(self, user_id: str) -> list[str]:
        if not self._read(user_id):
            return []  # the usual case, every turn: nothing owed, no cross-process lock taken
        with self._locks.hold(user_id):
            found = self._read(user_id)
            for kind, _ in found:
                self._store.delete((NOTICE_NAMESPACE, validate_label(user_id)), kind)
        return [text for _, text in found]

    def _read(self, user_id: str) -> list[tuple[str, str]]:
        found = []
        for kind, default in _NOTICE_TEXTS.items():
            item = self._store.get((NOTICE_NAMESPACE, validate_label(user_id)), kind)
            if item is None:
                continue
            text = item.value.get("text")
            found.append((kind, text if isinstance(text, str) and text in _KNOWN_NOTICES else default))
        return found


_KNOWN_NOTICES = frozenset({PROFILE_RESET_NOTICE, PROFILE_PARTLY_KEPT_NOTICE, SESSION_RESET_NOTICE})
