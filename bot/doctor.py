"""`energy-advisor doctor`: what is configured, what is missing, and how to fix each piece.

Never prints a secret: secrets are reported only as "set" or "not set".
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from pathlib import Path

import httpx
import yaml
from pydantic import BaseModel, SecretStr

from config.errors import ConfigError
from config.files import AppConfig, display_path, load_app_config
from config.settings import MILVUS_URI_VARIABLE, Settings

OLLAMA_DOWNLOAD_URL = "https://ollama.com/download"
NREL_SIGNUP_URL = "https://developer.nrel.gov/signup/"
OPENEI_SIGNUP_URL = "https://openei.org/services/api/signup/"
SETTINGS_COLUMN = 16  # longest setting name that the report's values line up after


class Status(str, Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


class Check(BaseModel):
    name: str
    status: Status
    detail: str
    fix: str | None = None


class Report(BaseModel):
    settings: list[tuple[str, str]]
    checks: list[Check]
    config: AppConfig | None = None

    @property
    def failed(self) -> bool:
        return any(check.status is Status.FAIL for check in self.checks)

    def status_of(self, name: str) -> Status | None:
        return next((check.status for check in self.checks if check.name == name), None)


def run_doctor(settings: Settings, *, http: httpx.Client, probe_data_apis: bool = True) -> Report:
    config_check, config = check_config_files(settings)
    checks = [config_check, check_data_dir(settings.data_dir)]
    checks.append(check_ollama(settings, config, http))
    checks.append(check_slack(settings, http))
    if settings.milvus_uri_notice is not None:
        checks.append(check_milvus_uri(settings))
    if config is not None:
        checks.extend(check_api_keys(settings, config))
        if probe_data_apis and config.tools.mode == "live":
            checks.append(check_data_api_reach(config, http))
    return Report(settings=describe_settings(settings), checks=checks, config=config)


def describe_settings(settings: Settings) -> list[tuple[str, str]]:
    """Each setting as (ENV NAME, shown value); secrets only as set / not set."""
    rows = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            shown = "set"
        elif value is None:
            shown = "not set"
        else:
            shown = str(value)
        if name == "energy_advisor_milvus_uri" and value is None:
            shown = f"not set (using {settings.effective_milvus_uri})"
        if name == "milvus_uri":
            if value is None:
                continue  # the deprecated name: shown only when someone still uses it
            shown = f"{value} (deprecated name: use {MILVUS_URI_VARIABLE})"
        rows.append((name.upper(), shown))
    return rows


def check_milvus_uri(settings: Settings) -> Check:
    """The deprecated MILVUS_URI works (it is taken out of pymilvus' way at start-up), but say so."""
    return Check(
        name="knowledge base",
        status=Status.WARN,
        detail=f"using {settings.effective_milvus_uri}; {settings.milvus_uri_notice}",
        fix=f"In .env or the environment, replace MILVUS_URI=... with {MILVUS_URI_VARIABLE}=...",
    )


def check_config_files(settings: Settings) -> tuple[Check, AppConfig | None]:
    try:
        config = load_app_config(settings.config_dir)
    except ConfigError as exc:
        return Check(
            name="config files",
            status=Status.FAIL,
            detail=str(exc),
            fix="Correct the value named above (each key is commented in the file).",
        ), None
    return Check(
        name="config files",
        status=Status.OK,
        detail=f"agents.yaml, tools.yaml and eval.yaml in {display_path(settings.config_dir)} are valid",
    ), config


def check_data_dir(data_dir: Path) -> Check:
    shown = display_path(data_dir)
    probe = data_dir / f".doctor-{uuid.uuid4().hex}"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        return Check(
            name="data directory",
            status=Status.FAIL,
            detail=f"DATA_DIR {shown} is not writable ({exc.strerror or exc})",
            fix="Set DATA_DIR in .env to a folder you can write, or fix its permissions.",
        )
    return Check(name="data directory", status=Status.OK, detail=f"DATA_DIR {shown} is writable")


def check_ollama(settings: Settings, config: AppConfig | None, http: httpx.Client) -> Check:
    base = settings.ollama_base_url.rstrip("/")
    needed = _models_needed(config) if config is not None else []
    if config is not None and not needed:
        return Check(
            name="ollama", status=Status.OK, detail="not needed: every role uses the offline provider"
        )
    try:
        response = http.get(f"{base}/api/tags", timeout=3.0)
        response.raise_for_status()
        available = [str(model.get("name", "")) for model in response.json().get("models", [])]
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        return Check(
            name="ollama",
            status=Status.WARN,
            detail=f"Ollama is not reachable at {base} ({_short_error(exc)})",
            fix=(
                f"Install Ollama ({OLLAMA_DOWNLOAD_URL}) and start it with `ollama serve`, or set "
                "OLLAMA_BASE_URL to where it runs. Until then the advisor runs in offline mode "
                "(deterministic answers, no language model)."
            ),
        )
    missing = [model for model in needed if not _has_model(available, model)]
    if missing:
        pulls = "; ".join(f"`ollama pull {model}`" for model in missing)
        return Check(
            name="ollama",
            status=Status.WARN,
            detail=f"Ollama answers at {base} but lacks {', '.join(missing)}",
            fix=f"Run {pulls}. Until then the advisor runs in offline mode.",
        )
    return Check(name="ollama", status=Status.OK, detail=f"Ollama answers at {base} with {', '.join(needed)}")


def check_slack(settings: Settings, http: httpx.Client) -> Check:
    missing = [
        name
        for name, value in (
            ("SLACK_BOT_TOKEN", settings.slack_bot_token),
            ("SLACK_APP_TOKEN", settings.slack_app_token),
        )
        if value is None
    ]
    if missing:
        return Check(
            name="slack",
            status=Status.WARN,
            detail=f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set",
            fix=(
                "Create the Slack app from slack-manifest.yaml (README: 'Install in your Slack workspace'), "
                "install it, and put its bot token (xoxb-...) as SLACK_BOT_TOKEN and an app-level token with "
                "connections:write (xapp-...) as SLACK_APP_TOKEN in .env. Until then `make run` uses the terminal."
            ),
        )
    assert settings.slack_bot_token is not None
    url = settings.slack_api_url.rstrip("/") + "/auth.test"
    try:
        response = http.post(
            url,
            headers={"Authorization": f"Bearer {settings.slack_bot_token.get_secret_value()}"},
            timeout=5.0,
        )
        body = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        return Check(
            name="slack",
            status=Status.WARN,
            detail=f"Slack tokens are set but {settings.slack_api_url} is not reachable ({_short_error(exc)})",
            fix="Check the network or SLACK_API_URL.",
        )
    if not body.get("ok"):
        return Check(
            name="slack",
            status=Status.FAIL,
            detail=f"Slack rejected SLACK_BOT_TOKEN ({body.get('error', 'unknown error')})",
            fix="Copy the Bot User OAuth Token again from the app's OAuth & Permissions page.",
        )
    works = f"the bot token works (team {body.get('team', '?')}, bot user {body.get('user', '?')})"
    granted = response.headers.get("x-oauth-scopes")
    if granted is None:
        return Check(name="slack", status=Status.OK, detail=f"Slack tokens set; {works}")
    wanted = manifest_scopes()
    if not wanted:
        return Check(
            name="slack",
            status=Status.WARN,
            detail=f"Slack tokens set; {works}; slack-manifest.yaml could not be read, so its scopes were not compared",
            fix="Run doctor from the project folder (the manifest is not installed with the package).",
        )
    lacking = [scope for scope in wanted if scope not in {s.strip() for s in granted.split(",")}]
    if lacking:
        return Check(
            name="slack",
            status=Status.WARN,
            detail=f"Slack tokens set; {works}, but it lacks the scope(s) {', '.join(lacking)}",
            fix=(
                "Add them under OAuth & Permissions (or recreate the app from slack-manifest.yaml) and reinstall "
                "the app; until then what needs them fails (e.g. assistant:write: status, prompts and titles)."
            ),
        )
    return Check(
        name="slack",
        status=Status.OK,
        detail=f"Slack tokens set; {works}, with every scope the manifest asks for",
    )


MANIFEST = Path(__file__).resolve().parent.parent / "slack-manifest.yaml"


def manifest_scopes(path: Path = MANIFEST) -> list[str]:
    """The bot scopes the app's manifest asks for (what the code uses)."""
    try:
        manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
        return list(manifest["oauth_config"]["scopes"]["bot"])
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return []


def check_api_keys(settings: Settings, config: AppConfig) -> list[Check]:
    if config.tools.mode == "mock":
        return [
            Check(name="data APIs", status=Status.OK, detail="mock mode: recorded fixtures, no keys needed")
        ]
    checks = []
    providers = config.tools.providers
    key_notes = {
        "pvwatts": (
            "typical-year solar estimates fall back to PVWatts' DEMO_KEY, which is heavily rate-limited",
            f"Get a free key at {NREL_SIGNUP_URL} and set NREL_API_KEY in .env.",
        ),
        "openei": (
            "tariffs come from the built-in catalog (PG&E E-TOU-C, EV2-A, E-ELEC; SDG&E EV-TOU-5) with illustrative prices",
            f"Get a free key at {OPENEI_SIGNUP_URL} and set OPENEI_API_KEY in .env.",
        ),
    }
    for provider, (consequence, fix) in key_notes.items():
        variable = getattr(providers, provider).api_key_env
        if variable is None:
            continue
        if settings.api_key(variable) is None:
            checks.append(
                Check(
                    name=provider, status=Status.WARN, detail=f"{variable} is not set: {consequence}", fix=fix
                )
            )
        else:
            checks.append(Check(name=provider, status=Status.OK, detail=f"{variable} is set"))
    return checks


DATA_API_PROBE_SECONDS = 2.0


def check_data_api_reach(
    config: AppConfig, http: httpx.Client, *, timeout: float = DATA_API_PROBE_SECONDS
) -> Check:
    """Can the data APIs' hosts be reached at all? Probed together, each for at most `timeout`
    seconds; any HTTP answer (even 404 or 401: no key is sent) counts as reachable. Without them live
    questions fall back (cached data, the built-in tariff catalog, no weather or solar), and each
    turn waits at most its data budget before it does: better known before the first question."""
    providers = config.tools.providers
    urls = {name: getattr(providers, name).base_url for name in type(providers).model_fields}

    def probe(url: str) -> str | None:
        try:
            http.get(url, timeout=timeout)
        except httpx.HTTPError as exc:
            return _short_error(exc)
        return None

    with ThreadPoolExecutor(max_workers=len(urls) or 1) as pool:
        results = dict(zip(urls, pool.map(probe, urls.values()), strict=True))
    down = {name: error for name, error in results.items() if error is not None}
    if not down:
        return Check(name="data API reach", status=Status.OK, detail="every data API host answers")
    listed = "; ".join(f"{name} ({urls[name]}): {error}" for name, error in down.items())
    return Check(
        name="data API reach",
        status=Status.WARN,
        detail=f"not reachable: {listed}. Live questions will fall back (cached data, the built-in tariff catalog, "
        f"no weather or solar), each within the turn's data budget ({config.tools.limits.turn_budget_seconds:g} s).",
        fix="Check the internet connection or proxy, or set `mode: mock` in config/tools.yaml for demos.",
    )


def render(report: Report) -> str:
    marks = {Status.OK: "ok  ", Status.WARN: "WARN", Status.FAIL: "FAIL"}
    # One long name (ENERGY_ADVISOR_MILVUS_URI) overflows the column instead of pushing every value right.
    width = max((len(name) for name, _ in report.settings if len(name) <= SETTINGS_COLUMN), default=0)
    lines = ["Settings (environment and .env):"]
    lines += [f"  {name.ljust(width)}  {shown}" for name, shown in report.settings]
    lines += ["", "Checks:"]
    for check in report.checks:
        lines.append(f"  [{marks[check.status]}] {check.name}: {check.detail}")
        if check.fix and check.status is not Status.OK:
            lines.append(f"         fix: {check.fix}")
    lines += ["", _summary(report)]
    return "\n".join(lines)


def _summary(report: Report) -> str:
    if report.failed:
        return "Result: something must be fixed before the advisor can start (see FAIL above)."
    model = "Ollama" if report.status_of("ollama") is Status.OK else "offline mode (no language model)"
    if report.status_of("slack") is Status.OK:
        return f"Result: ready. `make run` starts the Slack bot with {model}."
    return f"Result: ready. `make run` starts the terminal chat with {model}."


def _models_needed(config: AppConfig) -> list[str]:
    models = [role.model for role in config.agents.chat_roles().values() if role.provider == "ollama"]
    if config.agents.embeddings.provider == "ollama":
        models.append(config.agents.embeddings.model)
    return list(dict.fromkeys(models))


def _has_model(available: list[str], wanted: str) -> bool:
    wanted_full = wanted if ":" in wanted else f"{wanted}:latest"
    return any(name in (wanted, wanted_full) for name in available)


def _short_error(exc: BaseException) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, ValueError):
        return "the answer is not JSON"
    return type(exc).__name__
