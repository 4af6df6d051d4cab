"""The Slack bot as users run it: the manifest, `energy-advisor slack` as a real process against
the local Slack server (start-up wiring, a DM, SIGTERM), and a graceful stop during a turn."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import yaml

from bot.dedup import SeenEvents
from bot.slack_app import InFlight, SlackBot, create_app
from bot.wiring import build_runtime
from config.settings import Settings
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config
from tests.servers.slack import FakeSlack
from tests.test_doctor import closed_port_url

PROJECT = Path(__file__).resolve().parent.parent
BOT, APP, TEAM = "xoxb-process-bot-token", "xapp-1-process-app-token", "T0TEST"


def test_manifest_declares_what_the_bot_uses() -> None:
    manifest = yaml.safe_load((PROJECT / "slack-manifest.yaml").read_text())
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "chat:write",
        "im:history",
        "im:write",  # conversations.open (a mention answered in the asker's DM)
        "commands",
        "app_mentions:read",
        "assistant:write",
        "reactions:write",
    }
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {
        "message.im",
        "app_mention",
        "app_home_opened",
        "assistant_thread_started",
        "assistant_thread_context_changed",
    }
    assert manifest["settings"]["socket_mode_enabled"] and manifest["settings"]["interactivity"]["is_enabled"]
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == ["/energy-eval"]
    assert (
        manifest["features"]["app_home"]["messages_tab_enabled"]
        and not manifest["features"]["app_home"]["messages_tab_read_only_enabled"]
    )


def dm_payload(text: str, ts: str) -> dict:
    return {
        "type": "event_callback",
        "team_id": TEAM,
        "event_id": f"Ev{ts}",
        "event": {
            "type": "message",
            "channel_type": "im",
            "channel": "DU1",
            "user": "U1",
            "text": text,
            "ts": ts,
            "client_msg_id": ts,
        },
    }


def test_energy_advisor_slack_process_answers_and_stops_on_sigterm(tmp_path: Path) -> None:
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    (config_dir / "agents.yaml").write_text(
        "analyzer: {provider: offline}\nrecommend: {provider: offline}\nmemorizer: {provider: offline}\nembeddings: {provider: none}\n"
    )
    (config_dir / "tools.yaml").write_text("mode: mock\n")
    (config_dir / "eval.yaml").write_text("")
    with FakeSlack(bot_token=BOT, app_token=APP, team_id=TEAM) as slack:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATA_DIR", "CONFIG_DIR"))},
            "SLACK_BOT_TOKEN": BOT,
            "SLACK_APP_TOKEN": APP,
            "SLACK_API_URL": slack.api_url,
            "DATA_DIR": str(tmp_path / "data"),
            "CONFIG_DIR": str(config_dir),
            "OLLAMA_BASE_URL": closed_port_url(),
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "slack"],
            cwd=PROJECT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            slack.wait_for_connection(timeout=120)
            slack.push("events_api", dm_payload("hello", "1700000100.000001"))
            slack.wait_for(lambda: [m for m in slack.answers() if m.get("state") != "streaming"], timeout=60)
            with slack.pinging():  # its socket closes at once instead of after its 3 s read
                process.send_signal(signal.SIGTERM)
                output, _ = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, output
    assert "Connected to Slack over Socket Mode" in output and "\nStopped.\n" in output
    assert BOT not in output and APP not in output  # tokens never printed
    assert "ZIP code" in slack.answers()[0]["text"]  # a new user is onboarded


class HeldService:
    """The real conversation service, with a first turn held until the test releases it (a slow
    model), to test stopping mid-turn."""

    def __init__(self, service) -> None:
        self._service = service
        self.started = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name: str):
        return getattr(self._service, name)

    def handle_turn(self, *args, **kwargs):
        self.started.set()
        assert self.release.wait(30)
        return self._service.handle_turn(*args, **kwargs)


def test_stop_lets_a_running_turn_finish(data_dir: Path) -> None:
    with FakeSlack(bot_token=BOT, app_token=APP, team_id=TEAM) as slack:
        settings = Settings(
            _env_file=None,
            data_dir=data_dir,
            slack_bot_token=BOT,
            slack_app_token=APP,
            slack_api_url=slack.api_url,
        )
        runtime = build_runtime(
            settings, config=app_config(), http=httpx.Client(), probe_ollama=False, knowledge=False
        )
        runtime.advisor.profiles.import_profile({**CONFIGURED_PROFILE, "user_id": f"{TEAM}-U1"})
        held = HeldService(runtime.service)
        in_flight = InFlight()
        app = create_app(
            settings=settings,
            service=held,
            seen=SeenEvents(None),
            eval_config=runtime.config.eval,
            in_flight=in_flight,
        )
        bot = SlackBot(app=app, app_token=APP, scheduler=None, in_flight=in_flight)
        bot.start()
        slack.wait_for_connection()
        slack.push("events_api", dm_payload("When should I charge my EV?", "1700000200.000001"))
        assert held.started.wait(20)
        stopped: list[bool] = []
        with slack.pinging():  # its socket closes at once instead of after its 3 s read
            stopping = threading.Thread(target=lambda: stopped.append(bot.stop(timeout=30)))
            stopping.start()
            stopping.join(1.0)
            assert stopping.is_alive() and not stopped  # still waiting for the running turn
            held.release.set()
            stopping.join(30)
        assert stopped == [True]  # the turn finished within the stop's timeout
        assert [m["state"] for m in slack.answers()] == ["stopped"]  # its answer was still delivered
        runtime.close()
