"""Slack load: N simulated users x M DMs through the local Slack Web API + Socket Mode server,
against the bot running as its own process (`energy-advisor slack`, offline provider, mock data).

Run: .venv/bin/python -m bench.slack_load [--users 50] [--dms 10] [--rate 25]

Reports, measured in this run: ack latency p50/p99, DM-to-reply latency p50/p95, replies lost,
duplicated and in the wrong thread, and the bot process's peak RSS (VmHWM).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from profiles.json_store import JsonFileStore
from profiles.repository import ProfileRepository
from tests.servers.slack import FakeSlack

PROJECT = Path(__file__).resolve().parent.parent
BOT, APP, TEAM = "xoxb-bench-bot-token", "xapp-1-bench-app-token", "T0BENCH"


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--dms", type=int, default=10)
    parser.add_argument("--rate", type=float, default=25.0, help="DMs sent per second")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = root / "config"
        config.mkdir()
        (config / "agents.yaml").write_text(
            "analyzer: {provider: offline}\nrecommend: {provider: offline}\nmemorizer: {provider: offline}\nembeddings: {provider: none}\n"
        )
        (config / "tools.yaml").write_text("mode: mock\n")
        (config / "eval.yaml").write_text("")
        profiles = ProfileRepository(JsonFileStore(root / "data" / "memory"))
        for n in range(args.users):
            profiles.import_profile(
                {
                    "user_id": f"{TEAM}-U{n}",
                    "equipment": {"ev_model": "Tesla Model 3", "ev_battery_kwh": 57.5},
                    "location": {
                        "lat": 37.77,
                        "lon": -122.42,
                        "zip_code": "94102",
                        "timezone": "America/Los_Angeles",
                        "utility_provider": "PG&E",
                        "rate_schedule": "EV2-A",
                    },
                }
            )
        with FakeSlack(bot_token=BOT, app_token=APP, team_id=TEAM) as slack:
            env = {
                **{
                    k: v
                    for k, v in os.environ.items()
                    if not k.startswith(("SLACK_", "DATA_DIR", "CONFIG_DIR"))
                },
                "SLACK_BOT_TOKEN": BOT,
                "SLACK_APP_TOKEN": APP,
                "SLACK_API_URL": slack.api_url,
                "DATA_DIR": str(root / "data"),
                "CONFIG_DIR": str(config),
                "OLLAMA_BASE_URL": closed_port(),
                "LOG_LEVEL": "WARNING",
            }
            bot = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", "slack"],
                cwd=PROJECT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                slack.wait_for_connection(timeout=120)
                sent: dict[str, tuple[str, float]] = {}  # thread ts -> (envelope id, sent at)
                total = args.users * args.dms
                started = time.monotonic()
                for index in range(total):
                    user = f"U{index % args.users}"
                    ts = f"1700001000.{index:06d}"
                    payload = {
                        "type": "event_callback",
                        "team_id": TEAM,
                        "event_id": f"Ev{index}",
                        "event": {
                            "type": "message",
                            "channel_type": "im",
                            "channel": f"D{user}",
                            "user": user,
                            "text": "When should I charge my EV?",
                            "ts": ts,
                            "client_msg_id": f"c{index}",
                        },
                    }
                    sent[ts] = (slack.push("events_api", payload), time.monotonic())
                    time.sleep(max(0.0, started + (index + 1) / args.rate - time.monotonic()))
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline and len(slack.calls_to("chat.postMessage")) < total:
                    time.sleep(0.2)
                time.sleep(1.0)  # let any duplicate show up
                rss = peak_rss_mb(bot.pid)
            finally:
                bot.send_signal(signal.SIGTERM)
                try:
                    bot.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    bot.kill()
            posts = slack.calls_to("chat.postMessage")
            per_thread = Counter(call.params.get("thread_ts") for call in posts)
            acks = [slack.acks[envelope].at - at for envelope, at in sent.values() if envelope in slack.acks]
            first_reply = {}
            for call in posts:
                first_reply.setdefault(call.params.get("thread_ts"), call.at)
            replies = [first_reply[ts] - at for ts, (_, at) in sent.items() if ts in first_reply]
            lost = sum(1 for ts in sent if ts not in per_thread)
            duplicated = sum(count - 1 for ts, count in per_thread.items() if ts in sent and count > 1)
            wrong_thread = sum(count for ts, count in per_thread.items() if ts not in sent)
    print(
        f"slack load: {args.users} users x {args.dms} DMs = {total} DMs at {args.rate:g}/s, bot in its own process (offline provider, mock data)"
    )
    print(
        f"ack latency        p50 {percentile(acks, 50) * 1000:7.1f} ms   p99 {percentile(acks, 99) * 1000:7.1f} ms   ({len(acks)} acks)"
    )
    print(
        f"DM-to-reply        p50 {percentile(replies, 50) * 1000:7.1f} ms   p95 {percentile(replies, 95) * 1000:7.1f} ms   median {statistics.median(replies) * 1000:.1f} ms"
    )
    print(f"replies lost {lost}, duplicated {duplicated}, in the wrong thread {wrong_thread}")
    print(f"bot peak RSS {rss:.0f} MB" if rss is not None else "bot peak RSS unavailable (no /proc)")


if __name__ == "__main__":
    main()
