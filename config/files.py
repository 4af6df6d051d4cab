"""Typed loaders for `config/agents.yaml`, `config/tools.yaml` and `config/eval.yaml`.

A bad file fails at start-up with one `ConfigError` naming the file, the key, the bad value
and what is allowed, instead of surfacing later as a confusing runtime error.
"""

from __future__ import annotations

import os
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from config.errors import ConfigError

DEFAULT_CHAT_MODEL = "llama3.1:8b"  # FR-006
DEFAULT_EMBEDDING_MODEL = "nomic-embed-text"  # FR-032


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- agents.yaml -------------------------------------------------------------------------


class RoleConfig(_Strict):
    """One LLM role of the advisor graph."""

    provider: Literal["ollama", "offline"] = "ollama"
    model: str = Field(DEFAULT_CHAT_MODEL, min_length=1, max_length=200)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    num_ctx: int = Field(4096, ge=512, le=131072)
    request_timeout_seconds: float = Field(120.0, gt=0, le=900)


class AnalyzerConfig(RoleConfig):
    # LangGraph's default is ~10000 steps: never rely on it (FR-007/008).
    recursion_limit: int = Field(10, ge=3, le=100)


class RecommendConfig(RoleConfig):
    temperature: float = Field(0.3, ge=0.0, le=2.0)
    # Token budget for the thread's recent messages in the prompt (trimmed newest-first with
    # LangChain's trim_messages). Older history is left to the memorizer's notes: loading it all is
    # what blows the token budget (evaluation scenario D); past the budget the prompt stays flat.
    history_tokens: int = Field(400, ge=0, le=1_000_000)


class MemorizerConfig(RoleConfig):
    confidence_threshold: float = Field(0.7, ge=0.0, le=1.0)
    turn_threshold: int = Field(10, ge=1, le=1000)
    max_raw_turns: int = Field(20, ge=1, le=1000)
    # Fractions of a minute are allowed so tests and demos can use seconds.
    idle_minutes: float = Field(30.0, gt=0, le=7 * 24 * 60)


class EmbeddingsConfig(_Strict):
    # "ollama": its embedding model when Ollama is usable, else the bundled encoder; "encoder": the
    # bundled MiniLM encoder always; "none": BM25 only
    provider: Literal["ollama", "encoder", "none"] = "ollama"
    model: str = Field(DEFAULT_EMBEDDING_MODEL, min_length=1, max_length=200)
    dimensions: int = Field(768, ge=8, le=8192)


class RetrievalConfig(_Strict):
    k: int = Field(4, ge=1, le=10)  # passages given to the answer (distinct documents)


class AgentsConfig(_Strict):
    # Reads each message into intent, facts and parameters (Ollama mode; offline the offline reader does: grammar for values, a learned model for meaning).
    understanding: RoleConfig = RoleConfig()
    analyzer: AnalyzerConfig = AnalyzerConfig()
    recommend: RecommendConfig = RecommendConfig()
    memorizer: MemorizerConfig = MemorizerConfig()
    embeddings: EmbeddingsConfig = EmbeddingsConfig()
    retrieval: RetrievalConfig = RetrievalConfig()

    def chat_roles(self) -> dict[str, RoleConfig]:
        return {
            "understanding": self.understanding,
            "analyzer": self.analyzer,
            "recommend": self.recommend,
            "memorizer": self.memorizer,
        }


# --- tools.yaml --------------------------------------------------------------------------


class ProviderConfig(_Strict):
    """One external data API."""

    base_url: str = Field(min_length=8)
    timeout_seconds: float = Field(10.0, gt=0, le=120)
    retries: int = Field(2, ge=0, le=10)
    cache_ttl_seconds: int = Field(900, ge=0, le=7 * 24 * 3600)
    # Name of the setting (environment variable) that holds the key; None for keyless APIs.
    api_key_env: Literal["NREL_API_KEY", "OPENEI_API_KEY"] | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value.rstrip("/")


class ProvidersConfig(_Strict):
    open_meteo: ProviderConfig = ProviderConfig(base_url="https://api.open-meteo.com/v1")
    open_meteo_geocoding: ProviderConfig = ProviderConfig(
        base_url="https://geocoding-api.open-meteo.com/v1", cache_ttl_seconds=86400
    )
    # Typical-year production and tariffs change rarely: a day of caching is plenty.
    pvwatts: ProviderConfig = ProviderConfig(
        base_url="https://developer.nrel.gov/api/pvwatts/v8",
        api_key_env="NREL_API_KEY",
        timeout_seconds=15,
        cache_ttl_seconds=86400,
    )
    openei: ProviderConfig = ProviderConfig(
        base_url="https://api.openei.org/utility_rates",
        api_key_env="OPENEI_API_KEY",
        timeout_seconds=15,
        cache_ttl_seconds=86400,
    )


class DataLimitsConfig(_Strict):
    """How long one turn may wait for the data APIs, and how a failing API is remembered."""

    # All data calls of one turn share this many seconds (each request's timeout is the smaller of
    # its own and the time left); when it is used up, the tools fall back at once and say so.
    turn_budget_seconds: float = Field(10.0, gt=0, le=600)
    # In a turn, one request waits at most this long (less when the turn has less left), so a
    # hanging API leaves time for the others; one that gets no answer in this time is skipped at
    # once for `breaker_open_seconds`.
    slow_request_seconds: float = Field(6.0, gt=0, le=600)
    # After this many failures in a row (network errors, HTTP 429/5xx, a wait cut short by the
    # turn's budget) an API is not asked again for `breaker_open_seconds`; then one request tries
    # it again, and one more failure skips it again.
    breaker_failures: int = Field(2, ge=1, le=100)
    breaker_open_seconds: float = Field(300.0, ge=0, le=24 * 3600)
    # A Retry-After longer than this (or than the turn's time left) is not waited for: the API is
    # skipped until then and the answer falls back at once.
    max_retry_after_seconds: float = Field(30.0, ge=0, le=3600)


class ToolsConfig(_Strict):
    mode: Literal["mock", "live"] = "live"
    providers: ProvidersConfig = ProvidersConfig()
    limits: DataLimitsConfig = DataLimitsConfig()


# --- eval.yaml ---------------------------------------------------------------------------


class EvalConfig(_Strict):
    staleness_days: int = Field(90, ge=1, le=3650)
    max_repeats: int = Field(3, ge=1, le=100)
    usage_ratio_warn: float = Field(0.5, ge=0.0, le=1.0)
    max_tokens: int = Field(5000, ge=1)
    max_tool_calls: int = Field(10, ge=0)
    max_latency_ms: float | None = Field(None, gt=0)
    # RetrievalRelevance: labelled questions (`expected` document, `expected_section` heading); a
    # turn asking one must cite or quote that section. A folder of questions-*.yaml or one file,
    # relative to the project folder; null = no section check.
    section_labels: str | None = Field("knowledge/eval", min_length=1)


# --- loading -----------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


class AppConfig(_Strict):
    """The three behaviour files, loaded together at start-up."""

    agents: AgentsConfig
    tools: ToolsConfig
    eval: EvalConfig


def load_app_config(config_dir: Path) -> AppConfig:
    return AppConfig(
        agents=load_yaml_model(config_dir / "agents.yaml", AgentsConfig),
        tools=load_yaml_model(config_dir / "tools.yaml", ToolsConfig),
        eval=load_yaml_model(config_dir / "eval.yaml", EvalConfig),
    )


def load_yaml_model(path: Path, model: type[M]) -> M:
    """Parse one YAML file into `model`; any problem becomes one `ConfigError`."""
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(shown, ["file not found"]) from None
    except OSError as exc:
        raise ConfigError(shown, [f"cannot be read ({exc.strerror})"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(shown, [f"{where}not valid YAML ({problem})"]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(shown, [f"the top level must be a mapping of keys, not {type(data).__name__}"])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(shown, [_describe(error, model) for error in exc.errors()]) from None


def display_path(path: Path) -> str:
    """A path relative to the working directory when it is inside it (shorter messages)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _describe(error: Any, model: type[BaseModel]) -> str:
    loc = tuple(error["loc"])
    key = ".".join(str(part) for part in loc) or "(top level)"
    if error["type"] == "extra_forbidden":
        allowed = ", ".join(_allowed_keys(model, loc[:-1])) or "none"
        return f"{key}: unknown key (allowed keys: {allowed})"
    if error["type"] == "missing":
        return f"{key}: required but missing"
    return f"{key} = {error.get('input')!r} is not allowed: {error['msg']}"


def _allowed_keys(model: type[BaseModel], parent: tuple[Any, ...]) -> list[str]:
    """Field names of the model found at `parent` inside `model` (for 'unknown key' messages)."""
    current: Any = model
    for part in parent:
        if (
            not (isinstance(current, type) and issubclass(current, BaseModel))
            or part not in current.model_fields
        ):
            return []
        current = _unwrap_model(current.model_fields[part].annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap_model(annotation: Any) -> Any:
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return annotation
