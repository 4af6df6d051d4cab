"""Per-key locks that are created on demand and dropped when nobody holds them (bounded memory)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable, Iterator
from contextlib import contextmanager


class KeyedLocks:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Hashable, tuple[threading.RLock, int]] = {}

    @contextmanager
    def hold(self, key: Hashable) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(key, (None, 0))
            if lock is None:
                lock = threading.RLock()
            self._locks[key] = (lock, users + 1)
        lock.acquire()
        try:
            yield
        finally:
            lock.release()
            with self._guard:
                _, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)


_SHARED: weakref.WeakKeyDictionary[object, dict[str, KeyedLocks]] = weakref.WeakKeyDictionary()
_SHARED_GUARD = threading.Lock()


def shared_locks(owner: object, name: str) -> KeyedLocks:
    """The `KeyedLocks` named `name` for `owner` (a store): every repository over the same store
    gets the same locks, so two repository instances can never interleave a read-modify-write."""
    with _SHARED_GUARD:
        per_owner = _SHARED.setdefault(owner, {})
        return per_owner.setdefault(name, KeyedLocks())
