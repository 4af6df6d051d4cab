"""Strict patterns for ids used in paths (namespace labels, keys, trace folders); Slack ids are never used raw."""

from __future__ import annotations

import re

_LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")
# Keys may contain single dots (Slack thread timestamps such as 1700000000.123456).
_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
MAX_NAMESPACE_DEPTH = 8


class InvalidIdError(ValueError):
    """A namespace label or key that could escape DATA_DIR or is otherwise unusable as a file name."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def validate_label(label: object) -> str:
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise InvalidIdError(
            f"invalid namespace label {_shown(label)}: use 1-64 letters, digits, '_' or '-', "
            "not starting with '-'"
        )
    return label


def validate_key(key: object) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key) or ".." in key:
        raise InvalidIdError(
            f"invalid key {_shown(key)}: use 1-128 letters, digits, '_', '-' or '.', "
            "not starting with '.' or '-', with no '..' and no path separators"
        )
    return key


def validate_namespace(namespace: tuple[str, ...], *, allow_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(namespace, tuple):
        raise InvalidIdError(f"namespace must be a tuple of labels, not {type(namespace).__name__}")
    if not namespace and not allow_empty:
        raise InvalidIdError("namespace must have at least one label")
    if len(namespace) > MAX_NAMESPACE_DEPTH:
        raise InvalidIdError(f"namespace is deeper than {MAX_NAMESPACE_DEPTH} labels")
    for label in namespace:
        validate_label(label)
    return namespace
