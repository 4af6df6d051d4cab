"""Deployment settings from the environment and `.env` (pydantic-settings).

Secrets are `SecretStr`, so they never appear in reprs, logs or `doctor` output.
No other module reads `os.environ`: they receive a `Settings` instance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from config.errors import ConfigError

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434"
CONFIG_DIR = Path(__file__).resolve().parent

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

# Environment variables that may hold an API key; tools.yaml names one of these per provider.
API_KEY_VARIABLES = ("NREL_API_KEY", "OPENEI_API_KEY")


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
    ollama_base_url: str = Field(DEFAULT_OLLAMA_BASE_URL, description="Where Ollama answers")
    data_dir: Path = Field(Path("./data"), description="Profiles, sessions, traces and the vector store")
    milvus_uri: str | None = Field(None, description="Milvus Lite file or Milvus server URI")
    nrel_api_key: SecretStr | None = Field(None, description="NREL developer key (PVWatts v8)")
    openei_api_key: SecretStr | None = Field(None, description="OpenEI key (Utility Rate Database)")
    log_level: LogLevel = Field("INFO", description="Logging level")
    config_dir: Path = Field(CONFIG_DIR, description="Folder holding agents.yaml, tools.yaml, eval.yaml")

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("slack_api_url", "ollama_base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token_prefix(cls, value: SecretStr | None) -> SecretStr | None:
        return _check_prefix(value, "xoxb-", "a bot token starting with xoxb-")

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
        """`MILVUS_URI`, or a Milvus Lite file inside `DATA_DIR`."""
        return self.milvus_uri or str(self.data_dir / "milvus.db")

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
