"""Hostile files in the data directory, and hostile values on the command line and in logs.

Each test's docstring names the hostile input and the promise it checks: nothing lost (the bad file
is kept, set aside), no crash (the turn answers, /profile works, the chat starts), a clear message
(the user is told once, in plain words), nothing leaked (no secret in the logs).
"""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from bot.chat import describe_profile, run_chat
from bot.service import FAILED_REPLY
from config.logging_setup import configure_logging
from profiles.json_store import JsonFileStore
from profiles.models import NOTES_LIMIT, ProfileNote
from profiles.repository import (
    PROFILE_PARTLY_KEPT_NOTICE,
    PROFILE_RESET_NOTICE,
    SESSION_RESET_NOTICE,
    ProfileRepository,
)
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime

NOW = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)
USER = "T1-U1"
QUESTION = "When should I charge my EV tonight?"
ENERGY_ADVISOR = Path(sys.executable).with_name("energy-advisor")


def clock() -> datetime:
    return NOW


def _envelope(namespace: list[str], key: str, value: Any) -> str:
    return json.dumps(
        {
            "namespace": namespace,
            "key": key,
            "created_at": "2026-01-10T10:00:00+00:00",
            "updated_at": "2026-01-10T10:00:00+00:00",
            "value": value,
        },
        indent=2,
    )


def _profile(**changes: Any) -> dict[str, Any]:
    """The configured test profile with one section's fields changed (`section__field=value`)."""
    profile = copy.deepcopy(CONFIGURED_PROFILE)
    for path, value in changes.items():
        if "__" in path:
            section, name = path.split("__")
            profile[section][name] = value
        else:
            profile[path] = value
    return profile


def _profile_file(data_dir: Path) -> Path:
    return data_dir / "memory" / "profiles" / USER / "profile.json"


def _aside(folder: Path, name: str) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.name.startswith(f"{name}.json.invalid-"))


# --- a schema-invalid or unreadable profile ------------------------------------------------------

# (case, file text, secret that must stay out of the logs, what is kept, the notice)
PROFILE_CASES = [
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(household__occupants="many")),
        "many",
        {"location.zip_code": "94102", "household.work_schedule": "Office 9-5", "household.occupants": None},
        PROFILE_PARTLY_KEPT_NOTICE,
        id="occupants-many",
    ),
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(household__wifi_password="hunter2-XYZ")),
        "hunter2-XYZ",
        {"location.zip_code": "94102", "household.occupants": 2},
        PROFILE_PARTLY_KEPT_NOTICE,
        id="unknown-field",
    ),
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(household__occupants=977)),
        "977",
        {"location.zip_code": "94102", "household.occupants": None, "equipment.ev_battery_kwh": 57.5},
        PROFILE_PARTLY_KEPT_NOTICE,
        id="out-of-range",
    ),
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(user_id="mallory-7731")),
        "mallory-7731",
        None,  # another user's document: nothing of it is kept
        PROFILE_RESET_NOTICE,
        id="wrong-user-id",
    ),
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(location__updated_at="last-tuesday-4411")),
        "last-tuesday-4411",
        {"location.zip_code": "94102", "location.updated_at": None},  # kept, of unknown age
        PROFILE_PARTLY_KEPT_NOTICE,
        id="bad-date",
    ),
    pytest.param(
        _envelope(["profiles", USER], "profile", _profile(location__timezone="Mars/Olympus_Mons")),
        "Olympus",
        {"location.zip_code": "94102", "location.timezone": None},
        PROFILE_PARTLY_KEPT_NOTICE,
        id="bad-timezone",
    ),
    pytest.param(
        '{"namespace": ["profiles", "' + USER + '"], "value": {"user_id": ',
        None,
        None,
        PROFILE_RESET_NOTICE,
        id="unreadable-json",
    ),
]


@pytest.mark.parametrize(("text", "secret", "kept", "notice"), PROFILE_CASES)
def test_a_damaged_profile_costs_only_what_is_damaged_and_is_said_once(
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
    text: str,
    secret: str | None,
    kept: dict[str, Any] | None,
    notice: str,
) -> None:
    """Hostile input: a profile.json edited into something that is not a valid profile (a word for
    a number, an unknown field, a value out of range, another user's id, a bad date or timezone, or
    not JSON at all). Promise: no crash (/profile works, the turn answers normally, every turn and
    across restarts); nothing lost (the file is kept, set aside, and the fields that validate on
    their own are kept); a clear message (the next reply starts by saying so, once, never again
    after a restart); nothing leaked (the log names the file and the problem, not the value)."""
    path = _profile_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    runtime = make_runtime(data_dir, clock=clock)
    service = runtime.service
    caplog.set_level(logging.WARNING)

    shown = describe_profile(service, USER, staleness_days=90)  # /profile in the chat
    assert isinstance(shown, str)
    aside = [p for p in path.parent.iterdir() if p.name.startswith("profile.json.")]
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == text  # kept, byte for byte
    assert str(path) in caplog.text or path.name in caplog.text
    if secret is not None:
        assert secret not in caplog.text

    first = service.handle_turn(USER, "t1", QUESTION)
    assert not first.failed and FAILED_REPLY not in first.text
    assert first.text.startswith(notice + "\n\n")
    second = service.handle_turn(USER, "t1", "How do heat pumps work?")
    assert not second.failed and "couldn't read" not in second.text

    profile = service.profiles.get(USER)
    if kept is None:
        assert profile is None or all(profile.section(name) is None for name in ("location", "household"))
    else:
        for field, value in kept.items():
            section, name = field.split(".")
            assert getattr(profile.section(section), name) == value, field
    runtime.close()

    restarted = make_runtime(data_dir, clock=clock)
    again = restarted.service.handle_turn(USER, "t1", QUESTION)
    assert not again.failed and "couldn't read" not in again.text
    assert describe_profile(restarted.service, USER, staleness_days=90)
    assert len([p for p in path.parent.iterdir() if p.name.startswith("profile.json.")]) == 1
    restarted.close()


def test_the_notice_is_said_even_when_the_profile_was_only_shown(data_dir: Path) -> None:
    """Hostile input: a schema-invalid profile found by /profile, before any turn. Promise: a clear
    message — the next reply (whatever it is about) starts with the notice, exactly once."""
    path = _profile_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(
        _envelope(["profiles", USER], "profile", _profile(household__occupants="many")), encoding="utf-8"
    )
    runtime = make_runtime(data_dir, clock=clock)
    lines = iter(["/profile", "what do you know about me?", "hi", "/quit"])
    output: list[str] = []
    run_chat(runtime.service, user_id=USER, read=lambda prompt: next(lines), write=output.append)
    replies = [line for line in output if line.startswith("advisor> ")]
    assert replies[0].startswith("advisor> " + PROFILE_PARTLY_KEPT_NOTICE)
    assert "94102" in replies[0]  # what could be read is still there
    assert sum("couldn't read" in line for line in output) == 1
    runtime.close()


def test_only_values_that_validate_are_kept_from_a_damaged_profile(data_dir: Path) -> None:
    """Hostile input: a profile with several bad values at once — in sections, in the change history
    (an undo would put "many" back), in the notes. Promise: precision over recall — every value kept
    validates, everything else stays only in the file set aside."""
    history = [
        {
            "group": 1,
            "field": "household.occupants",
            "operation": "set",
            "old_value": None,
            "new_value": 3,
            "at": "2026-01-10T10:00:00Z",
            "source": {"kind": "manual"},
        },
        {
            "group": 2,
            "field": "household.occupants",
            "operation": "updated",
            "old_value": 3,
            "new_value": "many",
            "at": "2026-01-10T10:00:00Z",
            "source": {"kind": "manual"},
        },
        {
            "group": 3,
            "field": "household.pets",
            "operation": "set",
            "old_value": None,
            "new_value": 2,
            "at": "2026-01-10T10:00:00Z",
            "source": {"kind": "manual"},
        },
    ]
    notes = [
        {"content": "likes cheap nights", "source_session": "t0", "source_turns": [1]},
        {"content": "", "source_session": "t0", "source_turns": [2]},
        {"content": "bad turns", "source_session": "t0", "source_turns": [0]},
    ]
    value = _profile(household__occupants="many", location__zip_code="ABCDE", history=history, notes=notes)
    value["equipment"]["ev_charger_kw"] = 350  # a DC fast charger is not a home charger
    path = _profile_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(_envelope(["profiles", USER], "profile", value), encoding="utf-8")
    profiles = ProfileRepository(JsonFileStore(data_dir / "memory"), clock=clock)
    profile = profiles.get(USER)
    assert profile.household.occupants is None and profile.household.work_schedule == "Office 9-5"
    assert profile.location.zip_code is None and profile.location.rate_schedule == "EV2-A"
    assert profile.equipment.ev_charger_kw is None and profile.equipment.ev_model == "Tesla Model 3"
    assert [entry.new_value for entry in profile.history] == [3]
    assert [note.content for note in profile.notes] == ["likes cheap nights"]
    assert profiles.get(USER) == profile  # saved: the next read is the same, and quiet
    assert profiles.notices.take(USER) == [PROFILE_PARTLY_KEPT_NOTICE] and profiles.notices.take(USER) == []


# --- a schema-invalid session ----------------------------------------------------------------------


def _session(**changes: Any) -> dict[str, Any]:
    now = NOW.isoformat()
    session = {
        "session_id": "cli-20260120-abcd1234",
        "user_id": USER,
        "messages": [
            {"role": "user", "content": "hi", "timestamp": now, "turn": 1},
            {"role": "assistant", "content": "Hello!", "timestamp": now, "turn": 1},
        ],
        "turn_count": 1,
        "created_at": now,
        "last_activity_at": now,
        "memorized_through_turn": 0,
        "status": "active",
    }
    session.update(changes)
    return session


SESSION_CASES = [
    pytest.param(_session(turn_count="lots"), id="wrong-type"),
    pytest.param(_session(mood="grumpy"), id="unknown-field"),
    pytest.param(_session(turn_count=-4), id="out-of-range"),
    pytest.param(_session(user_id="mallory-7731"), id="another-users-session"),
    pytest.param(_session(last_activity_at="soon"), id="bad-date"),
]


def _write_session(data_dir: Path, value: dict[str, Any]) -> Path:
    path = data_dir / "memory" / "sessions" / USER / "cli-20260120-abcd1234.json"
    path.parent.mkdir(parents=True)
    path.write_text(_envelope(["sessions", USER], "cli-20260120-abcd1234", value), encoding="utf-8")
    return path


@pytest.mark.parametrize("value", SESSION_CASES)
def test_a_damaged_session_does_not_stop_the_chat(data_dir: Path, value: dict[str, Any]) -> None:
    """Hostile input: the chat's last session file is valid JSON but not a valid session (a word
    for a number, an unknown field, a negative count, another user's id, a bad date). Promise: no
    crash (the chat starts and answers); nothing lost (the file is kept, set aside; a session naming
    another user is never written into that user's sessions); a clear message, said once."""
    path = _write_session(data_dir, value)
    original = path.read_text(encoding="utf-8")
    runtime = make_runtime(data_dir, clock=clock)
    lines = iter(["hi", "How do heat pumps work?", "/quit"])
    output: list[str] = []
    assert run_chat(runtime.service, user_id=USER, read=lambda prompt: next(lines), write=output.append) == 0
    replies = [line for line in output if line.startswith("advisor> ")]
    assert len(replies) == 2 and not any(FAILED_REPLY in line for line in replies)
    assert replies[0].startswith("advisor> " + SESSION_RESET_NOTICE)
    assert SESSION_RESET_NOTICE not in replies[1]
    (kept,) = _aside(path.parent, "cli-20260120-abcd1234")
    assert kept.read_text(encoding="utf-8") == original
    assert not (data_dir / "memory" / "sessions" / "mallory-7731").exists()
    runtime.close()


def _chat(data_dir: Path, *lines: str, user: str = USER) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SLACK_", "OLLAMA_", "NREL_", "OPENEI_", "MILVUS_", "ENERGY_ADVISOR_"))
    }
    env.update(DATA_DIR=str(data_dir), OLLAMA_BASE_URL="http://127.0.0.1:9", LOG_LEVEL="WARNING")
    return subprocess.run(
        [str(ENERGY_ADVISOR), "chat", "--user", user],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_chat_command_starts_over_a_damaged_session(tmp_path: Path) -> None:
    """Hostile input: `energy-advisor chat` started over a data directory whose last session file
    is not a valid session (`turn_count: "lots"`). Promise: no crash (exit 0, the question is
    answered); nothing lost (the file is kept, set aside); a clear message, said once — not again
    after a restart of the command."""
    data_dir = tmp_path / "data"
    path = _write_session(data_dir, _session(turn_count="lots"))
    first = _chat(data_dir, "hi", "/profile", "/quit")
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert f"advisor> {SESSION_RESET_NOTICE}" in first.stdout
    assert len(_aside(path.parent, "cli-20260120-abcd1234")) == 1
    # The restart, in process (the same chat loop on a new runtime over the same data directory):
    # a second process start would only repeat what the first one showed.
    runtime = make_runtime(data_dir)
    lines: list[str] = []
    answers = iter(["hi", "/quit"])
    try:
        assert (
            run_chat(runtime.service, user_id=USER, read=lambda _prompt: next(answers), write=lines.append)
            == 0
        )
    finally:
        runtime.close()
    said = "\n".join(lines)
    assert "couldn't read" not in said and "advisor> " in said


def test_an_empty_user_name_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hostile input: `energy-advisor chat --user ""`. Promise: a clear message — stderr says that no
    user was given and which profile is used instead, rather than silently switching profiles."""
    from bot import cli
    from config.settings import Settings

    started: list[Settings] = []
    monkeypatch.setattr(cli, "_start_runtime", lambda settings: (started.append(settings), (None, 7))[1])
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    assert cli.chat(settings, user="", new_session=False) == 7 and started  # went on, as local-<login>
    assert "No --user given (empty); using local-" in capsys.readouterr().err
    cli.chat(settings, user=None, new_session=False)  # simply not given: the documented default
    cli.chat(settings, user="U1", new_session=False)
    assert "No --user given" not in capsys.readouterr().err


# --- notes: bounded ----------------------------------------------------------------------------------


def test_profile_notes_stay_bounded_over_1400_turns(tmp_path: Path) -> None:
    """Hostile input: a very long conversation (1 400 turns, a summary note every 2 turns — before
    the fix 182 notes and 48 KB after 1 400 turns). Promise: the profile stays bounded (at most
    NOTES_LIMIT notes, a small file) and the newest notes are kept verbatim; older ones are merged
    into one summary note, deterministically."""
    store = JsonFileStore(tmp_path / "memory")
    profiles = ProfileRepository(store, clock=clock)
    added = []
    for turn in range(1, 1401, 2):
        note = ProfileNote(
            content=f"Turns {turn}-{turn + 1}: the user asked about charging and said they work from home. "
            * 3,
            source_session="t1",
            source_turns=[turn, turn + 1],
            created_at=NOW + timedelta(minutes=turn),
        )
        profiles.add_note(USER, note)
        added.append(note)
    notes = profiles.get(USER).notes
    assert len(notes) == NOTES_LIMIT
    assert notes[1:] == added[-(NOTES_LIMIT - 1) :]  # the newest, verbatim
    assert len(notes[0].content) <= 4000 and notes[0].content.endswith(added[-NOTES_LIMIT].content)
    assert (tmp_path / "memory" / "profiles" / USER / "profile.json").stat().st_size < 24_000
    # the memorizer never summarizes the same turns twice: the merged note still names them
    assert {turn for note in notes for turn in note.source_turns} >= set(range(1400 - 2 * NOTES_LIMIT, 1401))


# --- nothing leaked in the logs ------------------------------------------------------------------------


def test_the_socket_mode_ticket_never_reaches_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    """Hostile input: slack_sdk logging, at DEBUG, the apps.connections.open response whose `url` is
    the Socket Mode websocket URL (`wss://…/link/?ticket=…`), a secret that opens the bot's event
    stream. Promise: nothing leaked — through the app's configured logging the ticket is redacted."""
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    ticket = "6c0b7a53-9f1e-4d2b-8a1c-0123456789ab"
    url = f"wss://wss-primary.slack.com/link/?ticket={ticket}&app_id=A0123456789"
    try:
        configure_logging("DEBUG")
        logging.getLogger("slack_sdk.web.base_client").debug(
            "Received the following response - status: 200, headers: {}, body: %s", {"ok": True, "url": url}
        )
        logging.getLogger("slack_sdk.socket_mode.builtin.client").debug("Connecting to %s", url)
        logging.getLogger("slack_sdk.web.base_client").debug(
            'body: {"ok":true,"url":"%s"}', url.replace("/", "\\/")
        )
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
    output = capsys.readouterr().err
    assert output.count("wss-primary.slack.com") == 3  # the records were written...
    assert ticket not in output and ticket[:8] not in output  # ...without the ticket
    assert "app_id=A0123456789" in output
