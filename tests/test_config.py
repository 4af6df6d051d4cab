"""Settings and YAML loaders: defaults, and one clear message for every bad value."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from config.errors import ConfigError
from config.files import AgentsConfig, EvalConfig, ToolsConfig, load_app_config, load_yaml_model
from config.settings import CONFIG_DIR, Settings, load_settings


def test_shipped_yaml_files_load_with_the_documented_defaults() -> None:
    config = load_app_config(CONFIG_DIR)
    assert config.agents.analyzer.model == "llama3.1:8b"
    assert config.agents.analyzer.recursion_limit == 10
    memorizer = config.agents.memorizer
    assert (memorizer.confidence_threshold, memorizer.turn_threshold, memorizer.max_raw_turns) == (
        0.7,
        10,
        20,
    )
    assert config.agents.embeddings.model == "nomic-embed-text" and config.agents.embeddings.dimensions == 768
    assert config.eval == EvalConfig(
        staleness_days=90, max_repeats=3, usage_ratio_warn=0.5, max_tokens=5000, max_tool_calls=10
    )
    assert config.tools.providers.pvwatts.api_key_env == "NREL_API_KEY"
    # The shipped files say the same as the code defaults, so neither can drift silently.
    assert config.agents == AgentsConfig() and config.eval == EvalConfig() and config.tools == ToolsConfig()


def test_empty_file_means_all_defaults(tmp_path: Path) -> None:
    path = tmp_path / "eval.yaml"
    path.write_text("# nothing set\n", encoding="utf-8")
    assert load_yaml_model(path, EvalConfig) == EvalConfig()


@pytest.mark.parametrize(
    ("model", "text", "expected"),
    [
        (
            AgentsConfig,
            "analyzer:\n  provider: openai\n",
            "agents.yaml: analyzer.provider = 'openai' is not allowed: Input should be 'ollama' or 'offline'",
        ),
        (
            AgentsConfig,
            "recommend:\n  temperature: 5\n",
            "agents.yaml: recommend.temperature = 5 is not allowed: Input should be less than or equal to 2",
        ),
        (
            AgentsConfig,
            "analyzer:\n  num_ctx: big\n",
            "agents.yaml: analyzer.num_ctx = 'big' is not allowed: Input should be a valid integer, unable to parse string as an integer",
        ),
        (
            AgentsConfig,
            "memorizer:\n  confidence_treshold: 0.7\n",
            "agents.yaml: memorizer.confidence_treshold: unknown key (allowed keys: provider, model, temperature, "
            "num_ctx, request_timeout_seconds, confidence_threshold, turn_threshold, max_raw_turns, idle_minutes)",
        ),
        (
            AgentsConfig,
            "planner:\n  model: x\n",
            "agents.yaml: planner: unknown key (allowed keys: understanding, analyzer, recommend, memorizer, embeddings, retrieval)",
        ),
        (
            ToolsConfig,
            "mode: sometimes\n",
            "tools.yaml: mode = 'sometimes' is not allowed: Input should be 'mock' or 'live'",
        ),
        (
            ToolsConfig,
            "providers:\n  pvwatts:\n    base_url: ftp://nrel\n",
            "tools.yaml: providers.pvwatts.base_url = 'ftp://nrel' is not allowed: Value error, must be an http:// or https:// URL",
        ),
        (
            ToolsConfig,
            "providers:\n  openei:\n    base_url: https://api.openei.org\n    api_key_env: HOME\n",
            "tools.yaml: providers.openei.api_key_env = 'HOME' is not allowed: Input should be 'NREL_API_KEY' or 'OPENEI_API_KEY'",
        ),
        (
            ToolsConfig,
            "providers:\n  openei:\n    timeout_seconds: 3\n",
            "tools.yaml: providers.openei.base_url: required but missing",
        ),
        (
            EvalConfig,
            "staleness_days: -5\n",
            "eval.yaml: staleness_days = -5 is not allowed: Input should be greater than or equal to 1",
        ),
        (
            EvalConfig,
            "usage_ratio_warn: 1.5\n",
            "eval.yaml: usage_ratio_warn = 1.5 is not allowed: Input should be less than or equal to 1",
        ),
    ],
)
def test_bad_values_give_one_message_naming_file_key_value_and_what_is_allowed(
    tmp_path: Path, model: type, text: str, expected: str
) -> None:
    name = expected.split(":", 1)[0]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_yaml_model(path, model)
    assert str(raised.value) == expected  # cwd is tmp_path, so the file shows by its relative name


def test_yaml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text("analyzer:\n  model: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^agents.yaml: line 3, column 1: not valid YAML"):
        load_yaml_model(path, AgentsConfig)


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "eval.yaml"
    path.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="eval.yaml: the top level must be a mapping of keys, not list"):
        load_yaml_model(path, EvalConfig)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^missing/tools.yaml: file not found$"):
        load_yaml_model(tmp_path / "missing" / "tools.yaml", ToolsConfig)


def test_load_app_config_reports_the_broken_file(tmp_path: Path) -> None:
    for name in ("agents.yaml", "tools.yaml", "eval.yaml"):
        shutil.copy(CONFIG_DIR / name, tmp_path / name)
    (tmp_path / "tools.yaml").write_text("mode: offline\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="tools.yaml: mode = 'offline'"):
        load_app_config(tmp_path)


def test_settings_defaults_and_derived_values() -> None:
    settings = load_settings()
    assert settings.slack_api_url == "https://slack.com/api/"
    assert settings.data_dir == Path("data")
    assert settings.effective_milvus_uri == str(Path("data") / "milvus.db")
    assert settings.slack_bot_token is None and not settings.slack_configured
    assert settings.config_dir == CONFIG_DIR


def test_settings_read_environment_and_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text(
        "DATA_DIR=/srv/advisor\nLOG_LEVEL=debug\nSLACK_BOT_TOKEN=xoxb-from-dotenv\n"
    )
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-from-env")
    settings = load_settings()
    assert settings.data_dir == Path("/srv/advisor") and settings.log_level == "DEBUG"
    assert settings.slack_configured
    assert settings.slack_bot_token.get_secret_value() == "xoxb-from-dotenv"
    assert "xoxb-from-dotenv" not in repr(settings)


def test_blank_token_in_dotenv_counts_as_not_set(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=\nSLACK_APP_TOKEN=   \n")
    assert not load_settings().slack_configured


def test_bad_settings_give_one_message_without_echoing_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xapp-swapped-secret-value")
    monkeypatch.setenv("OLLAMA_BASE_URL", "localhost:11434")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith("environment / .env: ")
    assert (
        "SLACK_BOT_TOKEN=<hidden>: Value error, does not look like a bot token starting with xoxb-" in message
    )
    assert "OLLAMA_BASE_URL='localhost:11434': Value error, must start with http:// or https://" in message
    assert "swapped-secret" not in message


def test_api_key_lookup_only_for_key_settings() -> None:
    settings = Settings(_env_file=None, nrel_api_key="abc123456")
    assert settings.api_key("NREL_API_KEY").get_secret_value() == "abc123456"
    assert settings.api_key("OPENEI_API_KEY") is None
    with pytest.raises(KeyError, match="not an API-key setting"):
        settings.api_key("SLACK_BOT_TOKEN")
