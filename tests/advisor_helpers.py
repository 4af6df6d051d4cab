"""Building a real advisor runtime for tests: temp data dir, mock data APIs, chosen LLM provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from bot.wiring import AppRuntime, build_runtime
from config.files import AgentsConfig, AppConfig, EvalConfig, ToolsConfig
from config.settings import Settings


def app_config(
    *, provider: str = "offline", timeout: float = 30, recursion_limit: int = 10, **memorizer: Any
) -> AppConfig:
    role = {"provider": provider, "request_timeout_seconds": timeout}
    return AppConfig(
        agents=AgentsConfig.model_validate(
            {
                "understanding": role,
                "analyzer": {**role, "recursion_limit": recursion_limit},
                "recommend": role,
                "memorizer": {**role, **memorizer},
                "embeddings": {"provider": "encoder"},  # the offline default (the fake Ollama has no nomic)
            }
        ),
        tools=ToolsConfig(mode="mock"),
        eval=EvalConfig(),
    )


def make_runtime(
    data_dir: Path,
    *,
    ollama_url: str | None = None,
    config: AppConfig | None = None,
    clock=None,
    knowledge: bool = False,
    memory: Any = None,
) -> AppRuntime:
    settings = Settings(_env_file=None, data_dir=data_dir, ollama_base_url=ollama_url or "http://127.0.0.1:9")
    kwargs: dict[str, Any] = {"clock": clock} if clock else {}
    return build_runtime(
        settings,
        config=config or app_config(provider="ollama" if ollama_url else "offline"),
        http=httpx.Client(),
        probe_ollama=ollama_url is not None,
        knowledge=knowledge,
        memory=memory,
        **kwargs,
    )


CONFIGURED_PROFILE = {
    "user_id": "T1-U1",
    "equipment": {
        "ev_model": "Tesla Model 3",
        "ev_battery_kwh": 57.5,
        "ev_charger_kw": 11.5,
        "updated_at": "2026-01-10T10:00:00Z",
    },
    "household": {"work_schedule": "Office 9-5", "occupants": 2, "updated_at": "2026-01-10T10:00:00Z"},
    "location": {
        "lat": 37.7749,
        "lon": -122.4194,
        "zip_code": "94102",
        "city": "San Francisco",
        "timezone": "America/Los_Angeles",
        "utility_provider": "PG&E",
        "rate_schedule": "EV2-A",
        "updated_at": "2026-01-10T10:00:00Z",
    },
    "created_at": "2026-01-10T10:00:00Z",
    "updated_at": "2026-01-10T10:00:00Z",
}


def seeded_user(runtime: Any, user: str, profile: dict[str, Any]) -> str:
    """A user whose profile starts with these fields (field -> value), as if said before."""
    from profiles.models import ChangeSource

    if profile:
        runtime.service.profiles.apply_changes(
            user, list(profile.items()), source=ChangeSource(kind="manual")
        )
    return user
