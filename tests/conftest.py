"""Shared fixtures: every test gets its own data directory and a clean environment."""

from __future__ import annotations

import json
import logging
import os
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx._transports.default
import pytest

from config.settings import Settings
from profiles.json_store import JsonFileStore
from profiles.repository import ProfileRepository
from profiles.sessions import SessionRepository

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parent.parent
SETTINGS_VARIABLES = [name.upper() for name in Settings.model_fields]


@pytest.fixture(autouse=True, scope="session")
def shared_default_ssl_context() -> Iterator[None]:
    """Every `httpx.Client()` loads certifi's CA bundle into a new SSL context (~50 ms of CPU); the
    tests build ~600 clients (each runtime has several, the Ollama client two), ~30 s of a 2-core run.
    Clients with the default verification share one context per CA setting instead. Tests talk to
    local http:// servers; a context only differs by the CA source, which is part of the key."""
    create = httpx._transports.default.create_ssl_context
    contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}

    def shared(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is not True or cert is not None:
            return create(verify=verify, cert=cert, trust_env=trust_env)
        key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")) if trust_env else (None, None)
        if key not in contexts:
            contexts[key] = create(verify=verify, cert=cert, trust_env=trust_env)
        return contexts[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx._transports.default, "create_ssl_context", shared)
        yield


def _not_pytests(handler: logging.Handler) -> bool:
    return not type(handler).__module__.startswith("_pytest")


@pytest.fixture(autouse=True)
def restored_logging() -> Iterator[None]:
    """Commands run in process (`main([...])`) set logging up for a terminal: the root logger's
    handler and level, quieter library loggers. Put back after each test, so no later test in the
    same worker loses warnings (caplog) or writes to a closed capture stream. pytest's own capture
    handlers come and go with each phase and are left to pytest."""
    root = logging.getLogger()
    handlers = [handler for handler in root.handlers if _not_pytests(handler)]
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    root_level = root.level
    yield
    for handler in [handler for handler in root.handlers if _not_pytests(handler)]:
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(root_level)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or exported variable leaks into a test (like simonw/llm's user-dir fixture)."""
    for variable in SETTINGS_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    # the sentence-embedding cache (by content hash) in the checkout's .cache, not the user's home:
    # shared by every test and the commands they start, so the knowledge base is encoded once
    monkeypatch.setenv("XDG_CACHE_HOME", str(REPOSITORY / ".cache"))
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
