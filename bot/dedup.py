"""Remember which Slack events were handled: Slack re-delivers on timeouts and reconnects.

Bounded (the newest `capacity` ids) and kept across restarts in an append-only file that is
compacted when the bot starts, so a restart never answers the same message twice.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from pathlib import Path

logger = logging.getLogger(__name__)


class SeenEvents:
    def __init__(self, path: Path | None, *, capacity: int = 10_000) -> None:
        self._path = path
        self._capacity = capacity
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        if path is not None:
            self._load(path)

    def first_time(self, *ids: str | None) -> bool:
        """Record the ids; True when none of them was seen before (then handle the event)."""
        keys = [key for key in ids if key]
        with self._lock:
            if any(key in self._seen for key in keys):
                return False
            for key in keys:
                self._seen[key] = None
                while len(self._seen) > self._capacity:
                    self._seen.popitem(last=False)
            if self._path is not None and keys:
                with open(self._path, "a", encoding="utf-8") as handle:
                    handle.write("".join(f"{key}\n" for key in keys))
        return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen)

    def _load(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            lines = []
        except (OSError, UnicodeDecodeError) as exc:
            logger.error("Could not read %s (%s); starting with no remembered events", path, exc)
            lines = []
        for key in lines[-self._capacity :]:
            if key.strip():
                self._seen[key.strip()] = None
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(f"{key}\n" for key in self._seen), encoding="utf-8")
        os.replace(tmp, path)
