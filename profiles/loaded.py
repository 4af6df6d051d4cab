"""An item as a turn read it, with the store's version of it at that moment.

A turn reads the session and the profile once and writes each at most once. The write must not
lose a change someone else made in between (another thread of the same user, App Home, the
memorizer), so under the write's lock it compares the stored version with the one it read: the
same, and what it read is current (no second read); different, and it reads the item again and
applies its changes to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
ABSENT = "absent"  # the store knows versions and holds no such item


@dataclass(frozen=True)
class Loaded(Generic[T]):
    value: T | None
    version: str | None  # None: the store cannot tell versions (always read again before writing)


def store_version(store: Any, namespace: tuple[str, ...], key: str) -> str | None:
    """The item's version in stores that keep one (the JSON file store), else None."""
    version = getattr(store, "version", None)
    if not callable(version):
        return None
    return version(namespace, key) or ABSENT


def still_current(store: Any, namespace: tuple[str, ...], key: str, base: Loaded[Any] | None) -> bool:
    """Nobody wrote the item since `base` was read (False when that cannot be told)."""
    return (
        base is not None and base.version is not None and store_version(store, namespace, key) == base.version
    )
