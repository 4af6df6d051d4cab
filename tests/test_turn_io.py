"""A turn reads the thread's session and the user's profile once each, and writes each at most
once (issue 21): the graph loads both at its start (`load_session`), every node reads them from
the state, and a write compares the store's version with the one read instead of reading again."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, PutOp

from profiles.json_store import JsonFileStore
from tests.advisor_helpers import make_runtime

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)


class CountingStore(JsonFileStore):
    """The JSON store, counting reads and writes per namespace and reading files for real."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, clock=lambda: NOW)
        self.reads: Counter[str] = Counter()
        self.writes: Counter[str] = Counter()
        self.file_reads = 0

    def batch(self, ops):
        ops = list(ops)
        for op in ops:
            if isinstance(op, GetOp):
                self.reads[op.namespace[0]] += 1
            elif isinstance(op, PutOp):
                self.writes[op.namespace[0]] += 1
        return super().batch(ops)

    def _read(self, path, namespace, key):
        if namespace and namespace[0] in ("profiles", "sessions"):
            self.file_reads += 1
        return super()._read(path, namespace, key)


@pytest.fixture
def counted(data_dir: Path):
    store = CountingStore(data_dir / "memory")
    runtime = make_runtime(data_dir, clock=lambda: NOW, memory=store)
    yield store, runtime.service
    runtime.close()


def turn(store: CountingStore, service, text: str) -> tuple[Counter, Counter, int]:
    store.reads.clear()
    store.writes.clear()
    store.file_reads = 0
    service.handle_turn("T1-IO", "t", text)
    return store.reads, store.writes, store.file_reads


def test_every_kind_of_turn_reads_session_and_profile_once_and_writes_each_at_most_once(counted) -> None:
    store, service = counted
    for text, profile_written in [
        ("im on pge ev2-a, zip 94110, i drive a tesla model 3", True),  # statements: saved
        ("when should i charge tonight? need 80% by 7am", False),  # a live answer
        ("how do heat pumps work?", False),  # an explanation
        ("actually its a model y", True),  # a correction re-plans the last answer
        ("thanks!", False),
        ("forget my zip", True),  # a command
        ("undo that", True),
        ("what do you know about me?", False),
    ]:
        reads, writes, file_reads = turn(store, service, text)
        assert reads["sessions"] == 1 and reads["profiles"] == 1, (text, reads)
        assert writes["sessions"] == 1 and writes["profiles"] == (1 if profile_written else 0), (text, writes)
        assert file_reads == 2, (text, file_reads)  # the two reads; no write reads a file again


def test_a_change_made_meanwhile_is_not_lost(counted, data_dir: Path) -> None:
    """The version check: another writer between the turn's read and its write is noticed, and the
    turn's change is applied to what that writer left (one more read, never a lost update)."""
    store, service = counted
    service.handle_turn("T1-IO", "t", "we're in 94110")
    from profiles.models import ChangeSource
    from profiles.repository import ProfileRepository

    other = ProfileRepository(JsonFileStore(data_dir / "memory"), clock=lambda: NOW)
    loaded = service.profiles.load("T1-IO")
    other.apply_changes(
        "T1-IO", [("equipment.ev_model", "Nissan Leaf")], source=ChangeSource(kind="app_home")
    )
    result = service.profiles.apply_changes(
        "T1-IO", [("location.utility_provider", "PG&E")], source=ChangeSource(kind="manual"), base=loaded
    )
    assert result.profile.equipment.ev_model == "Nissan Leaf"  # the other writer's change kept
    assert service.profiles.get("T1-IO").location.utility_provider == "PG&E"
