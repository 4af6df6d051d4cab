"""Shared fixtures: every test gets its own data directory and a clean environment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from config.settings import Settings
from profiles.json_store import JsonFileStore
from profiles.repository import ProfileRepository
from profiles.sessions import SessionRepository

FIXTURES = Path(__file__).parent / "fixtures"
SETTINGS_VARIABLES = [name.upper() for name in Settings.model_fields]


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or exported variable leaks into a test (like simonw/llm's user-dir fixture)."""
    for variable in SETTINGS_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def store(data_dir: Path) -> JsonFileStore:
    return JsonFileStore(data_dir)


@pytest.fixture
def profiles(store: JsonFileStore) -> ProfileRepository:
    return ProfileRepository(store)


@pytest.fixture
def sessions(store: JsonFileStore) -> SessionRepository:
    return SessionRepository(store, max_messages=6, hard_limit=10)


@pytest.fixture
def demo_profile_data() -> dict[str, Any]:
    """Spec 000's demo profile `home_123`, byte-for-byte from the spec."""
    return json.loads((FIXTURES / "home_123.json").read_text(encoding="utf-8"))
