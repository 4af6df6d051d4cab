"""Hostile storage: several processes on one data dir, symbolic links planted in it, and the
leftovers of killed writes.

Each test's docstring names the hostile situation and the promise it checks: nothing lost, nothing
leaked (nothing read or written outside the data directory), no crash, a clear message.

The multi-process tests start real processes (multiprocessing; separate processes, as two
bot processes would be) that meet at a barrier and then write one profile and one session through
the real repositories.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from profiles.json_store import STALE_TEMP_SECONDS, JsonFileStore
from profiles.locks import shared_locks
from profiles.models import ChangeSource
from profiles.repository import ProfileRepository
from profiles.sessions import SessionRepository

PROJECT_ROOT = Path(__file__).resolve().parents[2]
USER = "T1-U1"
THREAD = "shared-thread"
WORKERS = 4
ROUNDS = 20  # 4 x 20 = 80 profile changes: under the profile's 100-entry history, so all are kept
SOURCE = ChangeSource(kind="manual")


# --- several processes on one data directory -----------------------------------------------


def _bot_process(data_dir: str, worker: int, barrier, results) -> None:
    """One bot process (top level: a child process imports it by name). Each round is a turn's
    writes: a profile change, then the turn committed to the thread all processes share."""
    store = JsonFileStore(data_dir)
    profiles = ProfileRepository(store)
    sessions = SessionRepository(store, max_messages=400, hard_limit=400)
    barrier.wait(timeout=60)
    changes, turns = [], []
    for round_ in range(ROUNDS):
        said = f"w{worker}-{round_}"
        record = profiles.apply_change(USER, "household.work_schedule", said, source=SOURCE)
        changes.append((record.old_value, record.new_value))  # what this process was told it saved
        turns.append(
            sessions.commit_turn(USER, THREAD, user_text=said, reply_text=f"reply to {said}").turn_count
        )
    results.put((changes, turns))


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list, list]:
    """4 bot processes (like several Socket Mode connections or bots on one data dir)
    that meet at a barrier and then write to one user's profile and one thread at the same moment.
    Returns the data dir and every change and turn number the processes were told was saved."""
    data_dir = tmp_path_factory.mktemp("crowd")
    # `forkserver`: each child is forked from a clean single-threaded server that imported this
    # module once - a separate process sharing nothing with pytest, like `spawn`, without paying
    # for 4 imports of the bot on a small machine.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    barrier = context.Barrier(WORKERS)
    results = context.Queue()
    processes = [
        context.Process(target=_bot_process, args=(str(data_dir), worker, barrier, results))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    try:
        collected = [results.get(timeout=60) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=60)
    assert [process.exitcode for process in processes] == [0] * WORKERS
    changes = [change for worker_changes, _ in collected for change in worker_changes]
    turns = [turn for _, worker_turns in collected for turn in worker_turns]
    return data_dir, changes, turns


def test_profile_changes_from_several_processes_are_never_lost(crowd: tuple[Path, list, list]) -> None:
    """Hostile: 4 bot processes change the same user's profile at the same moment, 20 times each
    (one user chatting in two threads, or a second bot started on the same data dir).
    Promise: nothing lost - every change a process was told was saved is in the file's history,
    the changes form one chain (no two processes read the same version), and the file ends at the
    last one."""
    data_dir, told, _ = crowd
    profile = ProfileRepository(JsonFileStore(data_dir)).get(USER)
    assert profile is not None
    history = [(entry.old_value, entry.new_value) for entry in profile.history]
    assert len(history) == WORKERS * ROUNDS
    assert sorted(history, key=str) == sorted(told, key=str)
    assert [old for old, _ in history] == [None, *(new for _, new in history[:-1])]
    assert profile.household is not None and profile.household.work_schedule == history[-1][1]


def test_session_turns_from_several_processes_are_never_lost(crowd: tuple[Path, list, list]) -> None:
    """Hostile: 4 bot processes append turns to one thread's session at the same moment, 20 each.
    Promise: nothing lost - all 80 turns are stored, each with both of its messages, numbered
    1..80 without a gap or a repeat, and every turn number a process was told is its own."""
    data_dir, _, told = crowd
    session = SessionRepository(JsonFileStore(data_dir), max_messages=400, hard_limit=400).get(USER, THREAD)
    assert session is not None
    total = WORKERS * ROUNDS
    assert session.turn_count == total and sorted(told) == list(range(1, total + 1))
    users = [m.content for m in session.messages if m.role == "user"]
    assert sorted(users) == sorted(f"w{w}-{r}" for w in range(WORKERS) for r in range(ROUNDS))
    assert [m.turn for m in session.messages] == [n for n in range(1, total + 1) for _ in (1, 2)]


def test_a_process_killed_while_holding_a_lock_never_blocks_the_others(data_dir: Path) -> None:
    """Hostile: a bot process is killed (`kill -9`) in the middle of a read-modify-write, holding
    a profile's lock. Promise: another process waits while the lock is held (no interleaving) and
    continues as soon as the holder dies - the kernel drops the file lock, nothing stays locked."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from profiles.json_store import JsonFileStore\n"
            "from profiles.locks import shared_locks\n"
            "with shared_locks(JsonFileStore(sys.argv[1]), 'profiles').hold(sys.argv[2]):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(60)\n",
            str(data_dir),
            USER,
        ],
        cwd=PROJECT_ROOT,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        repository = ProfileRepository(JsonFileStore(data_dir))
        done = threading.Event()
        writer = threading.Thread(
            target=lambda: (
                repository.apply_change(USER, "household.occupants", 2, source=SOURCE),
                done.set(),
            )
        )
        writer.start()
        assert not done.wait(0.3), "wrote while another process held the profile's lock"
        holder.kill()
        holder.wait(timeout=10)
        assert done.wait(10), "the lock of a killed process was never released"
        writer.join()
    finally:
        holder.kill()
        holder.wait(timeout=10)
    profile = repository.get(USER)
    assert profile is not None and profile.household is not None and profile.household.occupants == 2


def test_locks_of_one_process_are_reentrant_and_bounded(data_dir: Path) -> None:
    """Hostile: a repository that takes a key's lock again inside itself, and many users.
    Promise: no crash - no self-deadlock on the file lock; no memory kept once nobody holds a lock."""
    locks = shared_locks(JsonFileStore(data_dir), "profiles")
    with locks.hold(USER), locks.hold(USER):
        assert len(locks) == 1
    for n in range(50):
        with locks.hold(f"user-{n}"):
            pass
    assert len(locks) == 0


# --- symbolic links inside the data directory that lead out ---------------------------------


def _linked_out(folder: Path, outside: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    outside.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(outside, target_is_directory=True)


def _turn(data_dir: Path):
    from bot.service import FAILED_REPLY
    from tests.advisor_helpers import make_runtime

    reply = make_runtime(data_dir).service.handle_turn(USER, "s1", "We are 3 people at home")
    assert reply.text and not reply.text.startswith(FAILED_REPLY[:20])
    return reply


@pytest.mark.parametrize("area", ["memory/sessions", "memory/profiles", "traces"])
def test_a_user_folder_linked_out_of_the_data_dir_is_never_followed(
    tmp_path: Path, data_dir: Path, area: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Hostile: `sessions/<user>`, `profiles/<user>` or `traces/<user>` inside DATA_DIR is a
    symbolic link to a folder outside it (planted, or a careless `ln -s`).
    Promise: no crash - the turn is answered; nothing leaked - not a byte is written outside the
    data directory; a clear message - a WARNING names the link and says nothing was saved."""
    outside = tmp_path / "outside"
    _linked_out(data_dir / area / USER, outside)

    with caplog.at_level(logging.WARNING):
        _turn(data_dir)

    assert list(outside.rglob("*")) == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        f"{USER} is a symbolic link to {outside}" in message and "nothing was saved" in message
        for message in warnings
    ), warnings


def test_a_session_file_linked_out_is_neither_read_nor_overwritten(
    tmp_path: Path, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Hostile: one session file is a symbolic link to a file outside the data directory.
    Promise: nothing leaked - its content is never read into a turn and never overwritten;
    no crash - the session reads as missing, with a WARNING naming the link."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"not": "yours"}', encoding="utf-8")
    folder = data_dir / "sessions" / USER
    folder.mkdir(parents=True)
    (folder / "s1.json").symlink_to(secret)
    sessions = SessionRepository(JsonFileStore(data_dir))

    with caplog.at_level(logging.WARNING):
        assert sessions.get(USER, "s1") is None
        sessions.commit_turn(USER, "s1", user_text="hi", reply_text="hello")
        assert sessions.latest(USER) is None

    assert secret.read_text(encoding="utf-8") == '{"not": "yours"}'
    assert "s1.json is a symbolic link to" in caplog.text


def test_trace_lookups_never_read_through_a_link_out(tmp_path: Path) -> None:
    """Hostile: a trace folder (`traces/<user>`, or one session folder in it) links to a folder of
    trace-like files outside the traces folder. Promise: nothing leaked - `/energy-eval` and
    `eval --latest` never list or find a file outside."""
    from traces.recorder import TraceRecorder
    from traces.storage import TraceStore

    outside = tmp_path / "outside"
    elsewhere = TraceStore(outside)
    recorder = TraceRecorder(user_id=USER, session_id="s1", turn=1)
    recorder.final_output("hello")
    planted = elsewhere.save(recorder.finish())
    assert planted is not None

    store = TraceStore(tmp_path / "traces")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / USER).symlink_to(outside / USER, target_is_directory=True)
    assert store.list_for_user(USER) == [] and store.find(USER, recorder.run_id) is None

    (tmp_path / "traces" / USER).unlink()
    (tmp_path / "traces" / USER).mkdir()
    (tmp_path / "traces" / USER / "s1").symlink_to(outside / USER / "s1", target_is_directory=True)
    assert store.list_for_user(USER) == [] and store.find(USER, recorder.run_id) is None


def test_the_lock_folder_linked_out_gets_no_lock_files(
    tmp_path: Path, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Hostile: the store's own `.locks` folder is a symbolic link out of the data directory.
    Promise: nothing written outside (not even an empty lock file), no crash - the change is
    saved, locked within the process, with a WARNING."""
    outside = tmp_path / "outside"
    _linked_out(data_dir / ".locks", outside)
    repository = ProfileRepository(JsonFileStore(data_dir))

    with caplog.at_level(logging.WARNING):
        repository.apply_change(USER, "household.occupants", 3, source=SOURCE)

    assert repository.get(USER).household.occupants == 3
    assert list(outside.rglob("*")) == []
    assert "outside the data directory" in caplog.text


# --- leftovers of killed writes -----------------------------------------------------------------


def _age(path: Path, seconds: float) -> Path:
    """Create `path` (if missing) last modified `seconds` ago."""
    if not path.exists():
        path.write_text("{", encoding="utf-8")
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))
    return path


@pytest.mark.parametrize("kind", ["memory", "traces"])
def test_stale_temp_files_of_killed_writes_are_removed_at_start(tmp_path: Path, kind: str) -> None:
    """Hostile: writes killed between writing their temp file and renaming it (`kill -9`, power
    loss) leave hidden `.<name>.json.<random>.tmp` files behind, run after run.
    Promise: nothing piles up - a store that opens removes the stale ones; nothing lost - a fresh
    temp file (another process may be writing it now), items, moved-aside files and files of
    other names are kept; nothing touched outside through a link."""
    root = tmp_path / kind
    folder = root / "profiles" / USER if kind == "memory" else root / USER / "s1"
    folder.mkdir(parents=True)
    stale = _age(folder / ".profile.json.k2j4h5g6.tmp", STALE_TEMP_SECONDS + 60)
    fresh = folder / ".profile.json.a1b2c3d4.tmp"
    fresh.write_text("{")
    kept = [
        fresh,
        _age(folder / "profile.json", STALE_TEMP_SECONDS * 4),
        _age(folder / "profile.json.corrupt-20260101T000000000000Z", STALE_TEMP_SECONDS * 4),
        _age(folder / "notes.tmp", STALE_TEMP_SECONDS * 4),
    ]
    outside = tmp_path / "outside"
    outside.mkdir()
    outside_temp = _age(outside / ".profile.json.zzzzzzzz.tmp", STALE_TEMP_SECONDS * 4)
    from traces.storage import TraceStore

    (folder.parent / "linked").symlink_to(outside, target_is_directory=True)

    JsonFileStore(root) if kind == "memory" else TraceStore(root)

    assert not stale.exists()
    assert all(path.exists() for path in kept) and outside_temp.exists()


def test_a_refused_profile_write_is_never_reported_as_saved(tmp_path: Path, data_dir: Path) -> None:
    """Hostile: `profiles/<user>` links out of the data directory, so the write of a stated fact is
    refused. Promise: the reply never says "Saved"; it says nothing was saved and why, in words the
    user can act on; the trace records the fact as refused, not as a memory write."""
    from tests.advisor_helpers import make_runtime

    _linked_out(data_dir / "memory" / "profiles" / USER, tmp_path / "outside")
    runtime = make_runtime(data_dir)

    reply = runtime.service.handle_turn(USER, "s1", "We are 3 people at home")
    forgot = runtime.service.handle_turn(USER, "s1", "forget my household size")  # nothing readable

    assert "Saved" not in reply.text and "nothing was saved" in reply.text, reply.text
    assert "Forgotten" not in forgot.text
    assert list((tmp_path / "outside").rglob("*")) == []


def test_a_profile_that_turns_unwritable_reports_every_change_as_refused(tmp_path: Path) -> None:
    """Hostile: the profile was readable and written before; then its folder is swapped for a link
    out of the data directory (the write is refused). Promise: `apply_changes` returns every change
    as refused with the reason (none as applied), and `forget` returns no record the reply
    would call "Forgotten" (the profile reads as missing through the link)."""
    store = JsonFileStore(tmp_path / "memory")
    profiles = ProfileRepository(store)
    source = ChangeSource(kind="user_statement", text="we are 3")
    profiles.apply_changes(USER, [("household.occupants", 3)], source=source)
    folder = tmp_path / "memory" / "profiles" / USER
    kept = folder.rename(tmp_path / "kept")
    folder.symlink_to(kept, target_is_directory=True)

    result = profiles.apply_changes(USER, [("household.occupants", 4)], source=source)
    assert result.applied == [] and [r.field for r in result.refused] == ["household.occupants"]
    assert "nothing was saved" in result.refused[0].reason
    assert profiles.forget(USER, ["household.occupants"], source=source) == []
    assert '"occupants": 3' in (kept / "profile.json").read_text(encoding="utf-8")
