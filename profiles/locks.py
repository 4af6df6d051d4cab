"""Per-key locks that are created on demand and dropped when nobody holds them (bounded memory).

With a `directory`, a key's lock also holds an exclusive `fcntl.flock` on a lock file of its own
(`<directory>/<label>/.../<key>.lock`), so several processes sharing a data directory serialize
their read-modify-writes too, not only the threads of one process. The file lock is taken by the
outermost holder in this process and released when it lets go (re-entrant like the thread lock);
the kernel drops it when a process dies, so a `kill -9` never leaves a key locked.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import weakref
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path

from config.ids import InvalidIdError, validate_key, validate_label

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"


class _Entry:
    __slots__ = ("depth", "fd", "lock", "users")

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.users = 0  # threads holding or waiting for this key
        self.depth = 0  # re-entrant holds by the owning thread
        self.fd: int | None = None  # the lock file, open while depth > 0


class KeyedLocks:
    def __init__(self, directory: Path | str | None = None, *, inside: Path | str | None = None) -> None:
        """`directory`: where the per-key lock files live (None: this process only); created on
        first use. `inside`: the folder no lock file may leave through a symbolic link (the data
        directory; default `directory` itself)."""
        self._directory = Path(directory) if directory is not None else None
        boundary = inside if inside is not None else directory
        self._inside = os.path.realpath(boundary) if boundary is not None else ""
        self._guard = threading.Lock()
        self._locks: dict[Hashable, _Entry] = {}
        self._warned: set[Hashable] = set()

    @contextmanager
    def hold(self, key: Hashable) -> Iterator[None]:
        with self._guard:
            entry = self._locks.get(key)
            if entry is None:
                entry = self._locks[key] = _Entry()
            entry.users += 1
        try:
            with entry.lock:
                if entry.depth == 0 and self._directory is not None:
                    entry.fd = self._lock_file(key)
                entry.depth += 1
                try:
                    yield
                finally:
                    entry.depth -= 1
                    if entry.depth == 0 and entry.fd is not None:
                        fd, entry.fd = entry.fd, None
                        _unlock(fd)
        finally:
            with self._guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[key]

    def lock_path(self, key: Hashable) -> Path | None:
        """The lock file of `key`, or None when `key` could not name a stored item (ids are
        checked by the store before anything is written, so such a key never needs one)."""
        if self._directory is None:
            return None
        parts = key if isinstance(key, tuple) else (key,)
        try:
            if not parts:
                return None
            for label in parts[:-1]:
                validate_label(label)
            validate_key(parts[-1])
        except InvalidIdError:
            return None
        return self._directory.joinpath(*parts[:-1], parts[-1] + LOCK_SUFFIX)

    def _lock_file(self, key: Hashable) -> int | None:
        """Open and lock the key's file (blocks while another process holds it). A lock file that
        cannot be used is logged at WARNING (once per cause) and this hold is for this process only."""
        path = self.lock_path(key)
        if path is None:
            return None
        real_parent = os.path.realpath(path.parent)
        if real_parent != self._inside and not real_parent.startswith(self._inside + os.sep):
            self._warn_once(
                ("outside", real_parent),
                "Lock file %s resolves to %s, outside the data directory %s (a symbolic link leads out): "
                "not followed, so writes there are only locked within this process. Remove the link.",
                path,
                real_parent,
                self._inside,
            )
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            self._warn_once(
                ("open", exc.errno),
                "Cannot open lock file %s (%s): writes are only locked within this process",
                path,
                exc,
            )
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            os.close(fd)
            self._warn_once(
                ("lock", exc.errno),
                "Cannot lock %s (%s): writes are only locked within this process",
                path,
                exc,
            )
            return None
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _warn_once(self, cause: Hashable, message: str, *args: object) -> None:
        with self._guard:
            first = cause not in self._warned
            self._warned.add(cause)
        logger.log(logging.WARNING if first else logging.DEBUG, message, *args)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)


def _unlock(fd: int) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


_SHARED: weakref.WeakKeyDictionary[object, dict[str, KeyedLocks]] = weakref.WeakKeyDictionary()
_SHARED_GUARD = threading.Lock()


def shared_locks(owner: object, name: str) -> KeyedLocks:
    """The `KeyedLocks` named `name` for `owner` (a store): every repository over the same store
    gets the same locks, so two repository instances can never interleave a read-modify-write.

    A store with a `lock_dir` (the JSON file store) gets file locks under `<lock_dir>/shared/<name>`,
    so repositories in other processes over the same data directory are serialized as well."""
    validate_label(name)
    with _SHARED_GUARD:
        per_owner = _SHARED.setdefault(owner, {})
        locks = per_owner.get(name)
        if locks is None:
            lock_dir = getattr(owner, "lock_dir", None)
            locks = per_owner[name] = (
                KeyedLocks(Path(lock_dir) / "shared" / name, inside=getattr(owner, "root", lock_dir))
                if lock_dir
                else KeyedLocks()
            )
        return locks
