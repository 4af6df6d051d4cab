"""`energy-advisor doctor` against real local servers speaking Ollama's and Slack's APIs."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from bot.cli import main
from bot.doctor import Status, render, run_doctor
from config.settings import Settings
from tests.servers.ollama import FakeOllama
from tests.servers.slack import FakeSlack

BOT_TOKEN = "xoxb-1111-2222-secretbotvalue"
APP_TOKEN = "xapp-1-A111-3333-secretappvalue"


def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def make_settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", **values)


@pytest.fixture
def http() -> httpx.Client:
    with httpx.Client() as client:
        yield client


def test_fresh_machine_names_exactly_what_is_missing_and_how_to_fix_it(
    tmp_path: Path, http: httpx.Client
) -> None:
    ollama_url = closed_port_url()
    report = run_doctor(make_settings(tmp_path, ollama_base_url=ollama_url), http=http, probe_data_apis=False)
    text = render(report)

    assert not report.failed  # nothing blocks a start: the terminal and offline mode remain
    statuses = {check.name: check.status for check in report.checks}
    assert statuses == {
        "config files": Status.OK,
        "data directory": Status.OK,
        "ollama": Status.WARN,
        "slack": Status.WARN,
        "pvwatts": Status.WARN,
        "openei": Status.WARN,
    }
    assert f"Ollama is not reachable at {ollama_url} (connection refused)" in text
    assert "`ollama serve`" in text and "offline mode" in text
    assert "SLACK_BOT_TOKEN and SLACK_APP_TOKEN are not set" in text
    assert "SLACK_APP_TOKEN in .env" in text
    assert "NREL_API_KEY is not set" in text and "https://developer.nrel.gov/signup/" in text
    assert "Result: ready. `make run` starts the terminal chat with offline mode (no language model)." in text


def test_ollama_with_all_models_is_ok(tmp_path: Path, http: httpx.Client) -> None:
    with FakeOllama(["llama3.1:8b", "nomic-embed-text:latest"]) as ollama:
        report = run_doctor(
            make_settings(tmp_path, ollama_base_url=ollama.url), http=http, probe_data_apis=False
        )
    ollama_check = next(check for check in report.checks if check.name == "ollama")
    assert ollama_check.status is Status.OK
    assert ollama_check.detail == f"Ollama answers at {ollama.url} with llama3.1:8b, nomic-embed-text"
    assert [request.path for request in ollama.requests] == ["/api/tags"]


def test_ollama_missing_a_model_names_the_pull_command(tmp_path: Path, http: httpx.Client) -> None:
    with FakeOllama(["llama3.1:8b"]) as ollama:
        report = run_doctor(
            make_settings(tmp_path, ollama_base_url=ollama.url), http=http, probe_data_apis=False
        )
    check = next(check for check in report.checks if check.name == "ollama")
    assert check.status is Status.WARN
    assert check.detail.endswith("lacks nomic-embed-text")
    assert check.fix.startswith("Run `ollama pull nomic-embed-text`")


def test_ollama_not_needed_when_every_role_is_offline(tmp_path: Path, http: httpx.Client) -> None:
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    (config_dir / "agents.yaml").write_text(
        "understanding: {provider: offline}\nanalyzer: {provider: offline}\nrecommend: {provider: offline}\nmemorizer: {provider: offline}\n"
        "embeddings: {provider: none}\n"
    )
    (config_dir / "tools.yaml").write_text("mode: mock\n")
    (config_dir / "eval.yaml").write_text("")
    report = run_doctor(
        make_settings(tmp_path, config_dir=config_dir, ollama_base_url=closed_port_url()),
        http=http,
        probe_data_apis=False,
    )
    assert {check.name: check.detail for check in report.checks}["ollama"].startswith("not needed")
    assert {check.name: check.detail for check in report.checks}["data APIs"].startswith("mock mode")


def test_slack_tokens_are_verified_and_never_printed(tmp_path: Path, http: httpx.Client) -> None:
    with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack:
        settings = make_settings(
            tmp_path,
            slack_bot_token=BOT_TOKEN,
            slack_app_token=APP_TOKEN,
            slack_api_url=slack.api_url,
            nrel_api_key="nrel-secret-key",
            openei_api_key="openei-secret-key",
        )
        report = run_doctor(settings, http=http, probe_data_apis=False)
    text = render(report)
    check = next(check for check in report.checks if check.name == "slack")
    assert check.status is Status.OK and "team Test Team" in check.detail
    assert "Result: ready. `make run` starts the Slack bot with offline mode (no language model)." in text
    for secret in (BOT_TOKEN, APP_TOKEN, "nrel-secret-key", "openei-secret-key"):
        assert secret not in text
    assert "SLACK_BOT_TOKEN  set" in text


def test_doctor_names_the_scopes_the_bot_token_lacks(tmp_path: Path, http: httpx.Client) -> None:
    """Slack lists a token's scopes in the X-OAuth-Scopes header of every answer: the token given
    has all the manifest's scopes but assistant:write and im:write, and doctor names those two."""
    from bot.doctor import manifest_scopes

    with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack:
        slack.scopes = [scope for scope in manifest_scopes() if scope not in ("assistant:write", "im:write")]
        settings = make_settings(
            tmp_path, slack_bot_token=BOT_TOKEN, slack_app_token=APP_TOKEN, slack_api_url=slack.api_url
        )
        lacking = next(
            c for c in run_doctor(settings, http=http, probe_data_apis=False).checks if c.name == "slack"
        )
        slack.scopes = manifest_scopes()
        complete = next(
            c for c in run_doctor(settings, http=http, probe_data_apis=False).checks if c.name == "slack"
        )
    assert lacking.status is Status.WARN and lacking.detail.endswith(
        "lacks the scope(s) im:write, assistant:write"
    )
    assert "reinstall" in (lacking.fix or "")
    assert complete.status is Status.OK and "every scope the manifest asks for" in complete.detail
    assert "chat:write" in manifest_scopes() and "users:read" not in manifest_scopes()


def test_rejected_slack_token_fails(tmp_path: Path, http: httpx.Client) -> None:
    with FakeSlack(bot_token="xoxb-a-different-valid-token", app_token=APP_TOKEN) as slack:
        report = run_doctor(
            make_settings(
                tmp_path, slack_bot_token=BOT_TOKEN, slack_app_token=APP_TOKEN, slack_api_url=slack.api_url
            ),
            http=http,
            probe_data_apis=False,
        )
    check = next(check for check in report.checks if check.name == "slack")
    assert check.status is Status.FAIL and "invalid_auth" in check.detail
    assert report.failed


def test_unwritable_data_dir_fails(tmp_path: Path, http: httpx.Client) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    report = run_doctor(
        Settings(_env_file=None, data_dir=blocker / "data", ollama_base_url=closed_port_url()),
        http=http,
        probe_data_apis=False,
    )
    check = next(check for check in report.checks if check.name == "data directory")
    assert check.status is Status.FAIL and "is not writable" in check.detail
    assert "Result: something must be fixed" in render(report)


def test_cli_doctor_exit_codes_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", closed_port_url())
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    assert main(["doctor"]) == 0
    assert "Ollama is not reachable" in capsys.readouterr().out

    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "a-file" / "data"))
    assert main(["doctor"]) == 1
    assert "is not writable" in capsys.readouterr().out


def test_cli_reports_bad_settings_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACK_APP_TOKEN", "xoxb-wrong-kind-of-token")
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Configuration error: environment / .env: SLACK_APP_TOKEN=<hidden>")
    assert "wrong-kind" not in err


def test_cli_help_and_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--help"])
    assert raised.value.code == 0
    assert "doctor" in capsys.readouterr().out
    assert main([]) == 0
    assert "usage: energy-advisor" in capsys.readouterr().out


def test_data_api_reach_names_the_unreachable_host_and_the_fallback(
    tmp_path: Path, http: httpx.Client
) -> None:
    """Without internet, weather and solar questions used to take 14-18 s before 'unavailable' with
    no warning beforehand: doctor now probes the data APIs' hosts (together, briefly) and says what
    live questions will do. A host that answers at all (even 404) is reachable."""
    from bot.doctor import check_data_api_reach
    from config.files import AppConfig, ToolsConfig

    with FakeOllama(["llama3.1:8b"]) as answering:  # any local HTTP server answers the probe
        down = closed_port_url()
        tools = ToolsConfig.model_validate(
            {
                "mode": "live",
                "providers": {
                    "open_meteo": {"base_url": answering.url + "/v1"},
                    "open_meteo_geocoding": {"base_url": answering.url + "/geo"},
                    "pvwatts": {"base_url": down + "/pvwatts", "api_key_env": "NREL_API_KEY"},
                    "openei": {"base_url": answering.url + "/rates", "api_key_env": "OPENEI_API_KEY"},
                },
            }
        )
        config = AppConfig.model_construct(tools=tools)
        check = check_data_api_reach(config, http)
    assert check.status == Status.WARN
    assert "pvwatts" in check.detail and "open_meteo" not in check.detail and "openei" not in check.detail
    assert "will fall back" in check.detail and check.fix
    with FakeOllama(["llama3.1:8b"]) as answering:
        everything = ToolsConfig.model_validate(
            {
                "mode": "live",
                "providers": {
                    name: {"base_url": answering.url + "/" + name}
                    for name in ("open_meteo", "open_meteo_geocoding", "pvwatts", "openei")
                },
            }
        )
        assert check_data_api_reach(AppConfig.model_construct(tools=everything), http).status == Status.OK
