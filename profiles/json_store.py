"""A LangGraph `BaseStore` over pretty-printed JSON files, one file per item.

Layout: `<root>/<namespace label>/.../<key>.json`, human-readable and hand-editable (FR-013).
Only `batch`/`abatch` are implemented, so instrumentation that wraps the public
`get/put/search/delete` methods (ContextForge's `LangGraphInstrumentor`) sees every call.

Safety rules:
- writes are atomic (temp file in the same folder, flush + fsync, rename) and serialized per key,
  across threads and across processes sharing the root (a `flock`ed lock file per key under
  `<root>/.locks/`; repositories lock their read-modify-writes the same way, see `profiles.locks`);
- temporary files an interrupted write left behind are removed when a store opens, once they are
  older than `STALE_TEMP_SECONDS` (a younger one may belong to another process writing right now);
- a corrupt file is moved aside to `<name>.corrupt-<UTC timestamp>`, logged at ERROR and treated
  as missing, so it never crashes a caller;
- `version(namespace, key)` names the file a write left (inode, modification time, size: a `stat`,
  not a read), so a repository that read an item can tell at write time whether anyone wrote it
  since, and skip reading it again when nobody did; a write keeps the item's `created_at` the same
  way, from what it last read or wrote, reading the file only when it changed since;
- namespace labels and keys must match strict patterns (`profiles.ids`), and every path is checked
  to lie inside the root after resolving links: a symbolic link planted inside the data directory that
  leads out of it is never followed (reads see nothing, writes raise `WriteRefusedError`; both
  logged at WARNING), so nothing outside the data directory is ever read or touched, and a caller
  that would tell the user "saved" learns that nothing was.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from config.clock import Clock, as_utc, utc_now
from profiles.ids import InvalidIdError, validate_key, validate_label, validate_namespace
from profiles.locks import KeyedLocks

logger = logging.getLogger(__name__)

ITEM_SUFFIX = ".json"
LOCK_DIR = ".locks"
STALE_TEMP_SECONDS = 15 * 60
# What `_atomic_write` (and trace storage) create: `.<name>.json.<8 random characters>.tmp`.
TEMP_FILE = re.compile(r"\..+\.json\.[A-Za-z0-9_]{8}\.tmp")
_COMPARATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


class WriteRefusedError(OSError):
    """A write the store would not make (its path leads out of the data directory through a link).
    Raised, not swallowed, so no caller can report a save that did not happen."""


class JsonFileStore(BaseStore):
    """Persistent key-value store for profiles and sessions; see the module docstring."""

    supports_ttl = False

    def __init__(
        self,
        root: Path | str,
        *,
        clock: Clock = utc_now,
        replace: Callable[[str, str], None] = os.replace,
    ) -> None:
        """`replace` is the final rename of a write; injectable so tests can interrupt a write."""
        self.root = Path(root).resolve()  # the configured directory may itself be a link
        self.root.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._replace = replace
        self.lock_dir = self.root / LOCK_DIR  # created on first use
        self._locks = KeyedLocks(self.lock_dir / "items", inside=self.root)
        self.quarantined: list[Path] = []
        self._created: dict[Path, tuple[str, datetime]] = {}  # path -> (version, created_at) last seen
        remove_stale_temp_files(self.root)

    def version(self, namespace: tuple[str, ...], key: str) -> str | None:
        """The stored item's version (None when there is none): it changes with every write."""
        path = self._item_path(namespace, key)
        if outside_root(self.root, path) is not None:
            return None
        return _file_version(path)

    # --- BaseStore ------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            if op.value is None:
                self._delete(op.namespace, op.key)
            else:
                self._put(op.namespace, op.key, op.value)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unsupported store operation: {type(op).__name__}")

    # --- operations -----------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        path = self._item_path(namespace, key)
        if (escape := outside_root(self.root, path)) is not None:
            logger.warning("Not reading %s: %s; treated as missing.", self._shown(path), escape)
            return None
        if not os.path.lexists(path):
            return None  # nothing to read or move aside: no lock (and no lock file) needed
        with self._locks.hold((*namespace, key)):
            return self._read(path, namespace, key)

    def _put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any]) -> None:
        path = self._item_path(namespace, key)
        if not isinstance(value, dict):
            raise TypeError(f"store values must be dicts, got {type(value).__name__}")
        if (escape := outside_root(self.root, path)) is not None:
            logger.warning("Refused to write %s: %s; nothing was saved.", self._shown(path), escape)
            raise WriteRefusedError(f"refused to write {self._shown(path)}: {escape}")
        with self._locks.hold((*namespace, key)):
            now = as_utc(self._clock())
            created = self._created_at(path, namespace, key) or now
            envelope = {
                "namespace": list(namespace),
                "key": key,
                "created_at": created.isoformat(),
                "updated_at": now.isoformat(),
                "value": value,
            }
            try:
                # orjson pretty-prints in C; the stdlib encoder falls back to pure Python with indent.
                data = orjson.dumps(envelope, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
            except orjson.JSONEncodeError as exc:
                raise TypeError(
                    f"value for {'/'.join(namespace)}/{key} is not JSON-serializable: {exc}"
                ) from None
            self._atomic_write(path, data)
            self._remember(path, created)

    def _created_at(self, path: Path, namespace: tuple[str, ...], key: str) -> datetime | None:
        """The item's creation time, from the last read or write when the file has not changed
        since (no second read of an item this process just read), else from the file."""
        seen = self._created.get(path)
        if seen is not None and seen[0] == _file_version(path):
            return seen[1]
        previous = self._read(path, namespace, key)
        return previous.created_at if previous else None

    def _remember(self, path: Path, created_at: datetime) -> None:
        version = _file_version(path)
        if version is not None:
            self._created[path] = (version, created_at)
            if len(self._created) > 4096:
                self._created.pop(next(iter(self._created)))

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        path = self._item_path(namespace, key)
        if (escape := outside_root(self.root, path)) is not None:
            logger.warning("Refused to delete %s: %s; nothing was removed.", self._shown(path), escape)
            return
        with self._locks.hold((*namespace, key)):
            path.unlink(missing_ok=True)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = validate_namespace(tuple(op.namespace_prefix), allow_empty=True)
        matches: list[Item] = []
        for namespace, key, path in self._iter_item_files(prefix):
            if (escape := outside_root(self.root, path)) is not None:
                logger.warning("Not reading %s: %s; skipped.", self._shown(path), escape)
                continue
            with self._locks.hold((*namespace, key)):
                item = self._read(path, namespace, key)
            if item is not None and _matches_filter(item.value, op.filter):
                matches.append(item)
        matches.sort(key=lambda item: (-item.updated_at.timestamp(), item.namespace, item.key))
        page = matches[op.offset : op.offset + op.limit]
        return [
            SearchItem(
                namespace=item.namespace,
                key=item.key,
                value=item.value,
                created_at=item.created_at,
                updated_at=item.updated_at,
            )
            for item in page
        ]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        for condition in op.match_conditions or ():
            for label in condition.path:
                if label != "*":
                    validate_label(label)
        found: set[tuple[str, ...]] = set()
        for namespace, _key, _path in self._iter_item_files(()):
            if all(_namespace_matches(condition, namespace) for condition in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    # --- files ----------------------------------------------------------------------------

    def _item_path(self, namespace: tuple[str, ...], key: str) -> Path:
        """The item's file; ids are checked here, links out of the root by each operation."""
        validate_namespace(tuple(namespace))
        validate_key(key)
        return self.root.joinpath(*namespace, key + ITEM_SUFFIX)

    def _shown(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    def _iter_item_files(self, prefix: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, Path]]:
        base = self.root.joinpath(*prefix)
        if (escape := outside_root(self.root, base)) is not None:
            logger.warning("Not searching %s: %s; skipped.", self._shown(base), escape)
            return
        if not base.is_dir():
            return
        for dirpath, dirnames, filenames in os.walk(base):
            relative = Path(dirpath).relative_to(base).parts
            namespace = prefix + tuple(relative)
            dirnames[:] = sorted(name for name in dirnames if _is_valid(validate_label, name))
            if not namespace:
                continue  # items always live in a namespace of at least one label
            for name in sorted(filenames):
                if not name.endswith(ITEM_SUFFIX):
                    continue  # temp files, quarantined files, stray files
                key = name[: -len(ITEM_SUFFIX)]
                if _is_valid(validate_key, key):
                    yield namespace, key, Path(dirpath, name)

    def _read(self, path: Path, namespace: tuple[str, ...], key: str) -> Item | None:
        """Read one item; caller holds the key's lock. Corrupt files are quarantined."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._quarantine(path, f"unreadable: {exc}")
            return None
        try:
            envelope = orjson.loads(raw)  # rejects invalid UTF-8 too
            value = envelope["value"]
            if not isinstance(value, dict):
                raise ValueError("'value' is not an object")
            created_at = as_utc(datetime.fromisoformat(envelope["created_at"]))
            updated_at = as_utc(datetime.fromisoformat(envelope["updated_at"]))
        except (ValueError, KeyError, TypeError) as exc:
            self._quarantine(path, f"not a valid store item: {exc}")
            return None
        self._remember(path, created_at)
        return Item(value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at)

    def _quarantine(self, path: Path, reason: str) -> None:
        stamp = as_utc(self._clock()).strftime("%Y%m%dT%H%M%S%fZ")
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
            counter += 1
        try:
            os.replace(path, target)
        except OSError as exc:
            logger.error("Corrupt store file %s (%s) could not be moved aside: %s", path, reason, exc)
            return
        self.quarantined.append(target)
        logger.error("Corrupt store file %s (%s) was moved aside to %s", path, reason, target.name)

    def _atomic_write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            self._replace(tmp_name, str(path))
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        _fsync_directory(path.parent)


def _file_version(path: Path) -> str | None:
    """Inode, modification time and size: a write replaces the file (a new inode), so any write changes it."""
    try:
        stat = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return f"{stat.st_ino}:{stat.st_mtime_ns}:{stat.st_size}"


def outside_root(root: Path, path: Path, *, name: str = "the data directory") -> str | None:
    """None when `path` (existing or not) stays inside `root` once links are resolved; otherwise
    why not, naming the link that leads out. `root` must already be resolved."""
    real = os.path.realpath(path)
    if real == str(root) or real.startswith(str(root) + os.sep):
        return None
    link = next((p for p in (path, *path.parents) if p.is_symlink()), None)
    if link is None or root not in link.parents:
        return f"it resolves to {real}, outside {name} {root}"
    return (
        f"{link.relative_to(root)} is a symbolic link to {os.path.realpath(link)}, outside {name} "
        f"{root}, and links out of it are never followed (replace the link with a real folder)"
    )


def remove_stale_temp_files(root: Path, *, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete the temporary files of writes that were killed before their rename (`TEMP_FILE`)
    under `root`, once older than `older_than` seconds; a younger one may be another process's
    write in progress. Links are not followed and hidden folders are skipped. Returns what went."""
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    cutoff = time.time() - older_than
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if not name.startswith(".")]
        for name in filenames:
            if not TEMP_FILE.fullmatch(name):
                continue
            path = Path(dirpath, name)
            try:
                if path.lstat().st_mtime < cutoff:
                    path.unlink()
                    removed.append(path)
            except OSError:
                continue  # gone already (another process cleaned it), or not ours to remove
    if removed:
        logger.info(
            "Removed %d stale temporary file(s) under %s, left by writes that were interrupted",
            len(removed),
            root,
        )
    return removed


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; not every platform can open a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _is_valid(validator: Callable[[str], str], name: str) -> bool:
    try:
        validator(name)
    except InvalidIdError:
        return False
    return True


def _lookup(value: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    current: Any = value
    for part in dotted.split("."):
        if not isinstance(current, dict) or part not in current:
            return False, None
        current = current[part]
    return True, current


def _matches_filter(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    for field, expected in (conditions or {}).items():
        present, actual = _lookup(value, field)
        if isinstance(expected, dict) and expected and all(k.startswith("$") for k in expected):
            for operator, operand in expected.items():
                compare = _COMPARATORS.get(operator)
                if compare is None:
                    raise ValueError(
                        f"unsupported filter operator {operator!r}; use one of {sorted(_COMPARATORS)}"
                    )
                if operator == "$ne" and not present:
                    continue
                try:
                    if not present or not compare(actual, operand):
                        return False
                except TypeError:
                    return False
        elif not present or actual != expected:
            return False
    return True


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    window = (
        namespace[: len(path)]
        if condition.match_type == "prefix"
        else namespace[len(namespace) - len(path) :]
    )
    return all(want == "*" or want == got for want, got in zip(path, window, strict=True))
