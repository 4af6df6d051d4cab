"""Cost of the storage work one turn does: read a profile, apply a change, commit the turn to the
session (both messages and the turn's state in one write); the old three-write path for comparison.

Run: .venv/bin/python -m bench.store [--rounds N]
Prints medians and p95 in milliseconds, measured in this run on a temporary data directory.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from profiles.json_store import JsonFileStore
from profiles.repository import ChangeSource, ProfileRepository
from profiles.sessions import SessionRepository

SOURCE = ChangeSource(kind="manual")


def timed(action: Callable[[int], object], rounds: int) -> list[float]:
    samples = []
    for index in range(rounds):
        start = time.perf_counter()
        action(index)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def describe(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"{name:<38} median {statistics.median(samples):7.3f} ms   p95 {p95:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        store = JsonFileStore(Path(folder))
        profiles = ProfileRepository(store)
        sessions = SessionRepository(store, max_messages=40)
        profiles.apply_change("bench-user", "household.work_schedule", "WFH", source=SOURCE)
        sessions.get_or_create("bench-user", "thread-1")

        results = {
            "profile read": timed(lambda _: profiles.get("bench-user"), rounds),
            "profile apply_change": timed(
                lambda i: profiles.apply_change(
                    "bench-user", "household.occupants", 1 + i % 5, source=SOURCE
                ),
                rounds,
            ),
            "session: commit_turn (one write)": timed(
                lambda i: sessions.commit_turn(
                    "bench-user",
                    "thread-2",
                    user_text=f"question {i} " * 20,
                    reply_text=f"answer {i} " * 60,
                    updates={"memorized_through_turn": i + 1},
                ),
                rounds,
            ),
            "old path: 2 appends + mark memorized": timed(
                lambda i: (
                    sessions.append_message("bench-user", "thread-1", "user", f"question {i} " * 20),
                    sessions.append_message("bench-user", "thread-1", "assistant", f"answer {i} " * 60),
                    # the memorizer keeps up (every turn here), so the cap can drop old turns
                    sessions.mark_memorized("bench-user", "thread-1", i + 1),
                ),
                rounds,
            ),
        }
    print(f"storage benchmark, {rounds} rounds each (session capped at 40 messages)")
    for name, samples in results.items():
        print(describe(name, samples))
    per_turn = sum(statistics.median(results[name]) for name in results if not name.startswith("old path"))
    print(f"{'storage work of one turn (sum of medians)':<38} {per_turn:7.3f} ms")


if __name__ == "__main__":
    main()
