"""Deployment settings from the environment and `.env` (pydantic-settings).

Secrets are `SecretStr`, so they never appear in reprs, logs or `doctor` output.
No other module reads `os.environ`: they receive a `Settings` instance (the one exception,
`shield_milvus_environment`, lives here too).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from config.errors import ConfigError

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434"
CONFIG_DIR = Path(__file__).resolve().parent

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

# Environment variables that may hold an API key; tools.yaml names one of these per provider.
API_KEY_VARIABLES = ("NREL_API_KEY", "OPENEI_API_KEY")

# Where the knowledge base lives. Not `MILVUS_URI`: pymilvus reads that variable itself when it is
# imported and rejects anything but a server URL, so a Milvus Lite file path there broke every command.
MILVUS_URI_VARIABLE = "ENERGY_ADVISOR_MILVUS_URI"
DEPRECATED_MILVUS_URI_VARIABLE = "MILVUS_URI"
MILVUS_SERVER_SCHEMES = ("http://", "https://", "tcp://")


class Settings(BaseSettings):
    """Where things are and the credentials to reach them."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    slack_bot_token: SecretStr | None = Field(None, description="Bot token (xoxb-...) of the Slack app")
    slack_app_token: SecretStr | None = Field(
        None, description="App-level token (xapp-...) with connections:write, for Socket Mode"
    )
    slack_api_url: str = Field(DEFAULT_SLACK_API_URL, description="Base URL of Slack's Web API")
    slack_listener_threads: int = Field(
        32, ge=1, le=256, description="Slack events handled at once (each shows a status within a second)"
    )
    slack_parallel_turns: int = Field(
        4, ge=1, le=64, description="Answers computed at once; more users wait with a status shown"
    )
    ollama_base_url: str = Field(DEFAULT_OLLAMA_BASE_URL, description="Where Ollama answers")
    data_dir: Path = Field(Path("./data"), description="Profiles, sessions, traces and the vector store")
    cache_dir: Path = Field(
        default_factory=lambda: (
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "home-energy-advisor"
        ),
        description="Sentence embeddings of text already encoded, by content hash (shared by every DATA_DIR)",
    )
    energy_advisor_milvus_uri: str | None = Field(
        None,
        description="Milvus Lite file (ending in .db) or Milvus server URI (http://host:19530)",
    )
    milvus_uri: str | None = Field(
        None, description="Deprecated name of ENERGY_ADVISOR_MILVUS_URI (pymilvus reads MILVUS_URI too)"
    )
    nrel_api_key: SecretStr | None = Field(None, description="NREL developer key (PVWatts v8)")
    openei_api_key: SecretStr | None = Field(None, description="OpenEI key (Utility Rate Database)")
    log_level: LogLevel = Field("INFO", description="Logging level")
    config_dir: Path = Field(CONFIG_DIR, description="Folder holding agents.yaml, tools.yaml, eval.yaml")
    otel_exporter_otlp_endpoint: str | None = Field(
        None, description="OTLP/HTTP base URL each trace is also sent to (Phoenix, Langfuse, Jaeger)"
    )
    otel_exporter_otlp_headers: SecretStr | None = Field(
        None, description="Headers for that endpoint: key=value,... URL-encoded (Langfuse's Authorization)"
    )
    otel_instrumentation_genai_capture_message_content: bool = Field(
        False, description="Export message text, tool arguments and results, queries and memory records too"
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator(
        "energy_advisor_milvus_uri",
        "milvus_uri",
        "nrel_api_key",
        "openei_api_key",
        "otel_exporter_otlp_endpoint",
        "otel_exporter_otlp_headers",
        mode="before",
    )
    @classmethod
    def _blank_is_not_set(cls, value: object) -> object:
        """`KEY=` (as in a `.env` copied from `.env.example`) means not set, not an empty value."""
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str) and not text.strip():
            return None
        return text.strip() if isinstance(text, str) else value

    @field_validator("energy_advisor_milvus_uri", "milvus_uri")
    @classmethod
    def _milvus_uri(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith(MILVUS_SERVER_SCHEMES):
            parsed = urlparse(value)
            _ = parsed.port  # raises ValueError on a port that is not a number
            if not parsed.hostname:
                raise ValueError("a Milvus server URI needs a host, e.g. http://localhost:19530")
            return value
        if "://" in value:
            raise ValueError(
                "use http://, https:// or tcp:// for a Milvus server, or a file path ending in .db for Milvus Lite"
            )
        if not value.endswith(".db"):
            raise ValueError(
                "a Milvus Lite file must end in .db (e.g. ./data/milvus.db); a Milvus server URI starts with http://"
            )
        return value

    @field_validator("slack_api_url", "ollama_base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("otel_exporter_otlp_endpoint")
    @classmethod
    def _otlp_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (e.g. http://localhost:4318)")
        return value

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token_prefix(cls, value: SecretStr | None) -> SecretStr | None:
        return _check_prefix(value, "xoxb-", "a bot token starting with xoxb-")

    @field_validator("cache_dir")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("slack_app_token")
    @classmethod
    def _app_token_prefix(cls, value: SecretStr | None) -> SecretStr | None:
        return _check_prefix(value, "xapp-", "an app-level token starting with xapp-")

    @property
    def memory_dir(self) -> Path:
        """Root of the JSON memory store (profiles, sessions). A folder of its own: the store walks
        its root when searching, and must never mistake traces or Milvus files for its items."""
        return self.data_dir / "memory"

    @property
    def traces_dir(self) -> Path:
        return self.data_dir / "traces"

    @property
    def effective_milvus_uri(self) -> str:
        """`ENERGY_ADVISOR_MILVUS_URI` (or the deprecated `MILVUS_URI`), else a Milvus Lite file in `DATA_DIR`."""
        return self.energy_advisor_milvus_uri or self.milvus_uri or str(self.data_dir / "milvus.db")

    @property
    def milvus_uri_notice(self) -> str | None:
        """One line when the deprecated `MILVUS_URI` is set, saying what to do instead."""
        if self.milvus_uri is None:
            return None
        if self.energy_advisor_milvus_uri is not None:
            return (
                f"{DEPRECATED_MILVUS_URI_VARIABLE} is ignored because {MILVUS_URI_VARIABLE} is set; "
                f"remove {DEPRECATED_MILVUS_URI_VARIABLE} (pymilvus reads it too)."
            )
        return (
            f"{DEPRECATED_MILVUS_URI_VARIABLE} is deprecated (pymilvus reads it too and rejects file paths); "
            f"rename it to {MILVUS_URI_VARIABLE}."
        )

    @property
    def slack_configured(self) -> bool:
        return self.slack_bot_token is not None and self.slack_app_token is not None

    def api_key(self, variable: str) -> SecretStr | None:
        """The key held by one of `API_KEY_VARIABLES` (named in tools.yaml)."""
        if variable not in API_KEY_VARIABLES:
            raise KeyError(f"{variable} is not an API-key setting; use one of {', '.join(API_KEY_VARIABLES)}")
        return getattr(self, variable.lower())


def _check_prefix(value: SecretStr | None, prefix: str, wanted: str) -> SecretStr | None:
    if value is None:
        return None
    secret = value.get_secret_value().strip()
    if not secret:
        return None
    if not secret.startswith(prefix):
        # Never echo the token itself.
        raise ValueError(f"does not look like {wanted}")
    return SecretStr(secret)


def shield_milvus_environment(environ: MutableMapping[str, str] | None = None) -> None:
    """Keep pymilvus from reading our Milvus setting. Call before pymilvus is imported.

    At import, pymilvus reads `MILVUS_URI` from the environment, and from the first `.env` it
    finds walking up from its install folder (the project's own `.env` when the virtualenv is
    inside the project), and fails on anything but a server URL. A value under that old name is
    moved to `ENERGY_ADVISOR_MILVUS_URI` (unless that is set) and `MILVUS_URI` is left empty: pymilvus
    ignores an empty value, and its `.env` loading never overwrites a variable that is set.
    """
    environ = os.environ if environ is None else environ
    value = environ.get(DEPRECATED_MILVUS_URI_VARIABLE, "").strip()
    if value and not environ.get(MILVUS_URI_VARIABLE, "").strip():
        environ[MILVUS_URI_VARIABLE] = value
    environ[DEPRECATED_MILVUS_URI_VARIABLE] = ""


def load_settings(**overrides: object) -> Settings:
    """Build `Settings`, turning a validation error into one clear `ConfigError`."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            variable = ".".join(str(part) for part in error["loc"]).upper()
            shown = "<hidden>" if "TOKEN" in variable or "KEY" in variable else repr(error.get("input"))
            problems.append(f"{variable}={shown}: {error['msg']}")
        raise ConfigError("environment / .env", problems) from None
