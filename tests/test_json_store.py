"""The JSON-file LangGraph store: layout, atomicity, concurrency, quarantine, id safety."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from freezegun import freeze_time
from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from profiles.ids import InvalidIdError
from profiles.json_store import JsonFileStore, WriteRefusedError

BAD_IDS = ["../x", "a/b", "", "x" * 300, "nul\x00byte", "..", ".hidden", "a\\b", "-flag"]


def test_item_is_one_pretty_printed_json_file_under_its_namespace(
    store: JsonFileStore, data_dir: Path
) -> None:
    store.put(("profiles", "T1-U1"), "profile", {"user_id": "T1-U1", "note": "café"})

    path = data_dir / "profiles" / "T1-U1" / "profile.json"
    text = path.read_text(encoding="utf-8")
    assert "\n  " in text and "café" in text  # indented, non-ASCII kept readable
    envelope = json.loads(text)
    assert envelope["value"] == {"user_id": "T1-U1", "note": "café"}
    assert envelope["namespace"] == ["profiles", "T1-U1"] and envelope["key"] == "profile"
    item = store.get(("profiles", "T1-U1"), "profile")
    assert item is not None and item.value["note"] == "café"


def test_update_keeps_created_at_and_moves_updated_at(store: JsonFileStore) -> None:
    with freeze_time("2026-01-01T00:00:00Z"):
        store.put(("ns",), "k", {"v": 1})
    with freeze_time("2026-02-01T00:00:00Z"):
        store.put(("ns",), "k", {"v": 2})
    item = store.get(("ns",), "k")
    assert item is not None
    assert item.value == {"v": 2}
    assert item.created_at.isoformat() == "2026-01-01T00:00:00+00:00"
    assert item.updated_at.isoformat() == "2026-02-01T00:00:00+00:00"


def test_put_none_deletes_and_missing_reads_as_none(store: JsonFileStore, data_dir: Path) -> None:
    store.put(("ns",), "k", {"v": 1})
    store.delete(("ns",), "k")
    assert store.get(("ns",), "k") is None
    assert not (data_dir / "ns" / "k.json").exists()
    store.delete(("ns",), "never-existed")  # deleting a missing item is not an error


def test_public_methods_are_not_overridden_so_instrumentation_sees_every_call() -> None:
    for name in ("get", "put", "search", "delete", "list_namespaces", "aget", "aput", "asearch", "adelete"):
        assert getattr(JsonFileStore, name) is getattr(BaseStore, name), name


def test_search_prefix_filter_order_limit_offset(store: JsonFileStore) -> None:
    with freeze_time("2026-01-01T00:00:00Z") as clock:
        for index in range(5):
            clock.tick(60)
            store.put(
                ("sessions", f"user{index % 2}"), f"s{index}", {"n": index, "meta": {"status": "active"}}
            )
    store.put(("profiles", "user0"), "profile", {"n": 99})

    everything = store.search(("sessions",), limit=10)
    assert [item.key for item in everything] == ["s4", "s3", "s2", "s1", "s0"]  # newest first
    assert [item.key for item in store.search(("sessions", "user1"))] == ["s3", "s1"]
    assert [item.key for item in store.search(("sessions",), filter={"n": {"$gte": 2, "$lt": 4}})] == [
        "s3",
        "s2",
    ]
    assert [item.key for item in store.search(("sessions",), filter={"n": 1})] == ["s1"]
    assert len(store.search(("sessions",), filter={"meta.status": "active"})) == 5
    assert store.search(("sessions",), filter={"n": {"$ne": 0}, "meta.status": "ended"}) == []
    assert [item.key for item in store.search(("sessions",), limit=2, offset=1)] == ["s3", "s2"]
    assert len(store.search((), limit=100)) == 6


def test_list_namespaces_with_prefix_suffix_wildcard_and_depth(store: JsonFileStore) -> None:
    for namespace in [("profiles", "a"), ("profiles", "b"), ("sessions", "a"), ("traces", "a", "s1")]:
        store.put(namespace, "k", {"x": 1})

    assert store.list_namespaces(prefix=("profiles",)) == [("profiles", "a"), ("profiles", "b")]
    assert store.list_namespaces(suffix=("a",)) == [("profiles", "a"), ("sessions", "a")]
    assert store.list_namespaces(prefix=("*", "a")) == [
        ("profiles", "a"),
        ("sessions", "a"),
        ("traces", "a", "s1"),
    ]
    assert store.list_namespaces(max_depth=1) == [("profiles",), ("sessions",), ("traces",)]
    assert store.list_namespaces(limit=1, offset=1) == [("profiles", "b")]


def test_batch_mixes_operations_in_order(store: JsonFileStore) -> None:
    results = store.batch(
        [
            PutOp(("ns",), "a", {"v": 1}),
            GetOp(("ns",), "a"),
            SearchOp(("ns",)),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("ns",)),)),
            PutOp(("ns",), "a", None),
            GetOp(("ns",), "a"),
        ]
    )
    assert results[0] is None
    assert results[1].value == {"v": 1}
    assert [item.key for item in results[2]] == ["a"]
    assert results[3] == [("ns",)]
    assert results[5] is None


def test_async_api_goes_through_abatch(store: JsonFileStore) -> None:
    async def scenario() -> object:
        await store.aput(("ns",), "a", {"v": "async"})
        return await store.aget(("ns",), "a")

    item = asyncio.run(scenario())
    assert item.value == {"v": "async"}


def test_eight_threads_writing_shared_and_distinct_keys(store: JsonFileStore, data_dir: Path) -> None:
    written: dict[str, set[int]] = {}
    guard = threading.Lock()
    errors: list[BaseException] = []

    def writer(thread_id: int) -> None:
        rng = random.Random(thread_id)
        try:
            for index in range(200):
                key = f"shared{rng.randrange(3)}" if index % 2 else f"own{thread_id}"
                value = thread_id * 1000 + index
                store.put(("stress",), key, {"value": value, "padding": "x" * rng.randrange(2000)})
                with guard:
                    written.setdefault(key, set()).add(value)
        except BaseException as exc:  # surfaced below; a thread must not die silently
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    files = sorted((data_dir / "stress").iterdir())
    assert [path.name for path in files] == sorted(f"{key}.json" for key in written)  # no temp files left
    for path in files:
        value = json.loads(path.read_text(encoding="utf-8"))["value"]["value"]  # every file is valid JSON
        assert value in written[path.stem]
    for thread_id in range(8):  # a key written by one thread holds that thread's last value
        assert store.get(("stress",), f"own{thread_id}").value["value"] == thread_id * 1000 + 198


def test_write_interrupted_before_rename_leaves_previous_version(
    store: JsonFileStore, data_dir: Path
) -> None:
    store.put(("ns",), "k", {"version": 1})
    # A real crash: a child process dies between writing the temp file and renaming it.
    child = (
        "import os, sys\n"
        "from profiles.json_store import JsonFileStore\n"
        "store = JsonFileStore(sys.argv[1], replace=lambda src, dst: os._exit(9))\n"
        "store.put(('ns',), 'k', {'version': 2})\n"
    )
    project_root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", child, str(data_dir)],
        cwd=project_root,
        env={**os.environ, "PYTHONPATH": str(project_root)},
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 9, result.stderr.decode()
    leftovers = [path.name for path in (data_dir / "ns").iterdir() if path.name != "k.json"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".k.json.") and leftovers[0].endswith(".tmp")

    reopened = JsonFileStore(data_dir)
    assert reopened.get(("ns",), "k").value == {"version": 1}
    assert [item.key for item in reopened.search(("ns",))] == ["k"]  # the temp file is not an item


def test_failed_rename_in_process_cleans_up_and_keeps_previous(data_dir: Path) -> None:
    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    JsonFileStore(data_dir).put(("ns",), "k", {"version": 1})
    store = JsonFileStore(data_dir, replace=failing_replace)
    with pytest.raises(OSError, match="No space"):
        store.put(("ns",), "k", {"version": 2})
    assert [path.name for path in (data_dir / "ns").iterdir()] == ["k.json"]
    assert store.get(("ns",), "k").value == {"version": 1}


@pytest.mark.parametrize("bad", BAD_IDS)
def test_traversal_style_keys_are_rejected(store: JsonFileStore, data_dir: Path, bad: str) -> None:
    before = sorted(os.listdir(data_dir.parent))
    with pytest.raises(InvalidIdError, match="invalid key"):
        store.batch([PutOp(("ns",), bad, {"x": 1})])
    with pytest.raises(InvalidIdError):
        store.batch([GetOp(("ns",), bad)])
    assert sorted(os.listdir(data_dir.parent)) == before
    assert list(data_dir.iterdir()) == []


@pytest.mark.parametrize("bad", BAD_IDS)
def test_traversal_style_namespace_labels_are_rejected(
    store: JsonFileStore, data_dir: Path, bad: str
) -> None:
    with pytest.raises(ValueError):  # InvalidIdError, or LangGraph's own InvalidNamespaceError first
        store.put(("profiles", bad), "profile", {"x": 1})
    with pytest.raises(InvalidIdError, match="invalid namespace label"):
        store.batch([PutOp(("profiles", bad), "profile", {"x": 1})])
    with pytest.raises(InvalidIdError):
        store.batch([SearchOp(("profiles", bad))])
    assert list(data_dir.iterdir()) == []


def test_symlink_inside_data_dir_cannot_lead_outside(
    store: JsonFileStore, data_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A link out of the data dir is refused with a WARNING and a `WriteRefusedError` (so no
    caller can report it saved; the repositories turn it into a plain refusal and the turn is
    still answered, see tests/hostile/test_storage.py); nothing lands outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (data_dir / "profiles").mkdir()
    (data_dir / "profiles" / "evil").symlink_to(outside, target_is_directory=True)
    with caplog.at_level(logging.WARNING), pytest.raises(WriteRefusedError):
        store.put(("profiles", "evil"), "profile", {"x": 1})
    assert "profiles/evil is a symbolic link" in caplog.text and "nothing was saved" in caplog.text
    assert list(outside.iterdir()) == []


def test_corrupt_file_is_quarantined_logged_and_read_as_missing(
    store: JsonFileStore, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store.put(("profiles", "u1"), "profile", {"ok": True})
    path = data_dir / "profiles" / "u1" / "profile.json"
    path.write_text('{"value": {"ok": tr', encoding="utf-8")  # truncated by hand

    with caplog.at_level(logging.ERROR), freeze_time("2026-03-04T05:06:07Z"):
        assert store.get(("profiles", "u1"), "profile") is None

    quarantined = data_dir / "profiles" / "u1" / "profile.json.corrupt-20260304T050607000000Z"
    assert quarantined.read_text(encoding="utf-8") == '{"value": {"ok": tr'  # moved aside, not deleted
    assert not path.exists()
    assert store.quarantined == [quarantined]
    assert any(r.levelno == logging.ERROR and "moved aside" in r.getMessage() for r in caplog.records)
    store.put(("profiles", "u1"), "profile", {"ok": "again"})  # the key is usable again
    assert store.get(("profiles", "u1"), "profile").value == {"ok": "again"}


@pytest.mark.parametrize(
    "content",
    ["[1, 2]", '{"value": [1]}', '{"value": {}, "created_at": "yesterday", "updated_at": "x"}', "\udcff"],
)
def test_wrong_shapes_are_quarantined_during_search_too(
    store: JsonFileStore, data_dir: Path, content: str
) -> None:
    store.put(("ns",), "good", {"v": 1})
    (data_dir / "ns" / "bad.json").write_text(content, encoding="utf-8", errors="surrogateescape")
    assert [item.key for item in store.search(("ns",))] == ["good"]
    assert len(store.quarantined) == 1


def test_values_must_be_json_dicts_and_nothing_is_written_otherwise(
    store: JsonFileStore, data_dir: Path
) -> None:
    with pytest.raises(TypeError, match="not JSON-serializable"):
        store.put(("ns",), "k", {"when": object()})
    with pytest.raises(TypeError, match="must be dicts"):
        store.batch([PutOp(("ns",), "k", ["not", "a", "dict"])])
    assert not (data_dir / "ns" / "k.json").exists()


def test_keys_may_hold_slack_timestamps(store: JsonFileStore) -> None:
    store.put(("sessions", "T1-U1"), "1700000000.123456", {"ok": 1})
    assert store.get(("sessions", "T1-U1"), "1700000000.123456").value == {"ok": 1}
