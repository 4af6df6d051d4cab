"""The one clock: timezone-aware UTC everywhere, so freezegun controls time in tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """Current time as an aware UTC datetime (never `utcnow()`, which is naive)."""
    return datetime.now(timezone.utc)


def as_utc(value: datetime) -> datetime:
    """Read a naive datetime as UTC; convert an aware one to UTC."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)
