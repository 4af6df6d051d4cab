"""Trace files: `DATA_DIR/traces/<user>/<session>/<turn>-<run_id>.json`, validated with
ContextForge's `TraceRun` when written and when read.

Lookups are scoped to one user's folder, so a trace id that belongs to someone else is
simply "not found" (the Slack `/energy-eval` command relies on that).

A symbolic link inside the traces folder that leads out of it is never followed: a trace is not
written there and no file is read from there (logged at WARNING; the turn's answer is unaffected).
Temporary files of writes killed before their rename are removed when the store opens, once stale.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from pathlib import Path

from context_forge.core.trace import TraceRun

from config.ids import validate_key, validate_label
from profiles.json_store import outside_root, remove_stale_temp_files
from traces.loading import TraceProblem, clip, parse_trace

logger = logging.getLogger(__name__)

_RUN_ID = re.compile(r"[0-9a-f]{32}")


class TraceFileError(Exception):
    """A trace file that cannot be read or is not a valid ContextForge trace."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def dump_trace(trace: TraceRun) -> str:
    """ContextForge's own format: nulls dropped (we never emit required fields as null)."""
    return trace.model_dump_json(indent=2, exclude_none=True) + "\n"


def load_trace(path: Path) -> TraceRun:
    """The trace in `path`, in linear time (see `traces.loading`, which skips ContextForge's
    quadratic duplicate-id validator and checks the same things itself); any problem, hostile
    values included, is a `TraceFileError` with one short reason."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise TraceFileError(Path(path), clip(f"cannot be read ({exc.strerror or exc})")) from None
    except UnicodeDecodeError as exc:
        raise TraceFileError(Path(path), clip(f"not valid JSON ({exc})")) from None
    try:
        return parse_trace(text)
    except TraceProblem as exc:
        raise TraceFileError(Path(path), exc.reason) from None


class TraceStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        remove_stale_temp_files(self.root)

    def _escape(self, path: Path) -> str | None:
        """Why `path` is out of bounds (a link inside the traces folder leads out), or None. The
        configured folder itself may be a link: it is resolved each time."""
        return outside_root(Path(os.path.realpath(self.root)), path, name="the traces folder")

    def save(self, trace: TraceRun) -> Path | None:
        """Write the trace; None (logged at WARNING) when its folder is a link out of the root."""
        metadata = trace.metadata or {}
        user = validate_label(str(metadata.get("user_id", "")))
        session = validate_key(str(metadata.get("session_id", "")))
        turn = int(metadata.get("turn", 0))
        folder = self.root / user / session
        if (escape := self._escape(folder)) is not None:
            logger.warning(
                "Refused to write trace %s to %s/%s: %s; nothing was saved.",
                trace.run_id,
                user,
                session,
                escape,
            )
            return None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{turn:04d}-{trace.run_id}.json"
        text = dump_trace(trace)
        TraceRun.model_validate(json.loads(text))  # what we write must read back
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def list_for_user(self, user_id: str) -> list[Path]:
        """The user's trace files, newest first."""
        folder = self.root / validate_label(user_id)
        if (escape := self._escape(folder)) is not None:
            logger.warning("Not reading the traces of %s: %s.", user_id, escape)
            return []
        if not folder.is_dir():
            return []
        files = [
            path
            for path in folder.glob("*/*.json")
            if not path.name.startswith(".") and self._escape(path) is None  # a link leading out is skipped
        ]
        return sorted(files, key=lambda path: (path.stat().st_mtime_ns, path.name), reverse=True)

    def latest(self, user_id: str) -> Path | None:
        files = self.list_for_user(user_id)
        return files[0] if files else None

    def find(self, user_id: str, run_id: str) -> Path | None:
        """A trace of this user by run id; other users' traces are never found."""
        if not _RUN_ID.fullmatch(run_id):
            return None
        return next((path for path in self.list_for_user(user_id) if path.stem.endswith(run_id)), None)
