"""What the user had us forget stays forgotten when the chat ends, and a utility name two companies
share is the user's own (a homeowner-tester in Portland, OR: "pge (portland general not the cali
one)", then "pge has time of day pricing right?", then "forget everything" — PG&E's California
prices were quoted, and "Saved: your utility is PG&E" came back when the chat ended)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.advisor_helpers import make_runtime


def _held(profile, section: str, name: str):
    return getattr(getattr(profile, section, None), name, None)


def clock() -> datetime:
    return datetime(2026, 1, 21, 18, tzinfo=timezone.utc)


def test_forget_everything_keeps_what_was_said_before_it_forgotten(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    # a turn stored without its fact saved (as after a crash mid-turn): before the forget, so gone too
    service.sessions.commit_turn("U-F", "t", user_text="I work from home these days", reply_text="(lost)")
    service.handle_turn("U-F", "t", "we're in 97214 and have a model y")
    service.handle_turn("U-F", "t", "forget everything")
    bye = service.handle_turn("U-F", "t", "ok bye")
    assert "Saved" not in bye.text
    profile = service.profiles.get("U-F")
    assert (
        _held(profile, "household", "work_schedule") is None
        and _held(profile, "location", "zip_code") is None
    )


def test_a_field_forgotten_is_not_saved_again_from_an_earlier_message(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    service.sessions.commit_turn("U-G", "t", user_text="I work from home these days", reply_text="(lost)")
    service.handle_turn("U-G", "t", "forget my work schedule")
    service.sessions.commit_turn("U-G", "t", user_text="we have a nissan leaf", reply_text="(lost)")
    bye = service.handle_turn("U-G", "t", "ok bye")
    profile = service.profiles.get("U-G")
    assert _held(profile, "household", "work_schedule") is None  # said before the forget: stays forgotten
    assert (
        _held(profile, "equipment", "ev_model") == "Nissan Leaf" and "Nissan Leaf" in bye.text
    )  # said after: kept


def test_a_shared_utility_name_is_the_one_serving_their_state(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=clock).service
    first = service.handle_turn(
        "U-P", "t", "portland or 97214, pge (portland general not the cali one). we have a model y"
    )
    assert "Portland General Electric" in first.text
    peak = service.handle_turn("U-P", "t", "pge has time of day pricing right? whats the peak")
    assert "Portland General Electric" in peak.text and "E-TOU-C" not in peak.text
    service.handle_turn("U-P", "t", "bye")
    assert service.profiles.get("U-P").location.utility_provider == "Portland General Electric"
