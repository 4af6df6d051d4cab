"""Slack load: N simulated users x M DMs through the local Slack Web API + Socket Mode server,
against the bot running as its own process (`energy-advisor slack`, mock data).

Run: .venv/bin/python -m bench.slack_load [--users 50] [--dms 10] [--rate 25]
     .venv/bin/python -m bench.slack_load --users 20 --dms 1 --rate 100 --slow-model 5
     (20 users at once against a slow model: a local server speaking Ollama's API that waits
     `--slow-model` seconds, then streams the answer a word every 0.05 s)

Reports, measured in this run: ack latency p50/p99, DM-to-status (the first
assistant.threads.setStatus of the thread), DM-to-first-token (the first answer text streamed
into it), DM-to-reply (the answer finished) p50/p95, replies lost, duplicated and in the wrong
thread, and the bot process's peak RSS (VmHWM).
"""

from __future__ import annotations

import argparse
import contextlib
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
from tests.servers.ollama import FakeOllama, Step, call
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
    parser.add_argument(
        "--slow-model",
        type=float,
        default=None,
        metavar="SECONDS",
        help="use a model this slow (default: offline)",
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        ollama = stack.enter_context(FakeOllama(["llama3.1:8b"])) if args.slow_model is not None else None
        if ollama is not None:
            ollama.responder = lambda body: slow_answer(body, args.slow_model)
        run(args, ollama)


ANSWER = "Charge after midnight, when the off-peak price starts; you will be full well before seven."


def slow_answer(body: dict, seconds: float) -> Step:
    """The analyzer asks for the charging plan at once; the answer comes after `seconds`, streamed."""
    if body.get("tools"):
        return call("plan_ev_charging", target_soc_pct=80)
    return Step(content=ANSWER, hang_seconds=seconds, token_seconds=0.05)


def run(args: argparse.Namespace, ollama: FakeOllama | None) -> None:
    provider = "offline" if ollama is None else "ollama"
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = root / "config"
        config.mkdir()
        roles = "".join(
            f"{role}: {{provider: {provider}}}\n"
            for role in ("understanding", "analyzer", "recommend", "memorizer")
        )
        (config / "agents.yaml").write_text(roles + "embeddings: {provider: none}\n")
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
                "OLLAMA_BASE_URL": ollama.url if ollama is not None else closed_port(),
                "SLACK_LISTENER_THREADS": str(max(32, args.users)),
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
                while time.monotonic() < deadline and len(finished(slack)) < total:
                    time.sleep(0.2)
                time.sleep(1.0)  # let any duplicate show up
                rss = peak_rss_mb(bot.pid)
            finally:
                bot.send_signal(signal.SIGTERM)
                try:
                    bot.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    bot.kill()
            answers = finished(slack)
            per_thread = Counter(answer["thread_ts"] for answer in answers)
            acks = [slack.acks[envelope].at - at for envelope, at in sent.values() if envelope in slack.acks]
            first_reply: dict[str, float] = {}
            for answer in answers:
                first_reply.setdefault(answer["thread_ts"], answer["done_at"])
            replies = [first_reply[ts] - at for ts, (_, at) in sent.items() if ts in first_reply]
            status_at: dict[str, float] = {}
            for status in slack.calls_to("assistant.threads.setStatus"):
                status_at.setdefault(str(status.params.get("thread_ts")), status.at)
            statuses = [status_at[ts] - at for ts, (_, at) in sent.items() if ts in status_at]
            token_at = first_text(slack)
            tokens = [token_at[ts] - at for ts, (_, at) in sent.items() if ts in token_at]
            lost = sum(1 for ts in sent if ts not in per_thread)
            duplicated = sum(count - 1 for ts, count in per_thread.items() if ts in sent and count > 1)
            wrong_thread = sum(count for ts, count in per_thread.items() if ts not in sent)
    model = (
        "offline provider" if ollama is None else f"a model answering after {args.slow_model:g} s, streamed"
    )
    print(
        f"slack load: {args.users} users x {args.dms} DMs = {total} DMs at {args.rate:g}/s, bot in its own process ({model}, mock data)"
    )
    print(
        f"ack latency        p50 {percentile(acks, 50) * 1000:7.1f} ms   p99 {percentile(acks, 99) * 1000:7.1f} ms   ({len(acks)} acks)"
    )
    print(
        f"DM-to-status       p50 {percentile(statuses, 50) * 1000:7.1f} ms   p95 {percentile(statuses, 95) * 1000:7.1f} ms   ({len(statuses)} threads)"
    )
    if tokens:
        print(
            f"DM-to-first-token  p50 {percentile(tokens, 50) * 1000:7.1f} ms   p95 {percentile(tokens, 95) * 1000:7.1f} ms   ({len(tokens)} threads)"
        )
    print(
        f"DM-to-reply        p50 {percentile(replies, 50) * 1000:7.1f} ms   p95 {percentile(replies, 95) * 1000:7.1f} ms   median {statistics.median(replies) * 1000:.1f} ms"
    )
    print(f"replies lost {lost}, duplicated {duplicated}, in the wrong thread {wrong_thread}")
    print(f"bot peak RSS {rss:.0f} MB" if rss is not None else "bot peak RSS unavailable (no /proc)")


def finished(slack: FakeSlack) -> list[dict]:
    """Answers users can read in full: posted messages and stopped streams, with when each ended."""
    done = []
    stops = {str(c.params.get("ts")): c.at for c in slack.calls_to("chat.stopStream")}
    for answer in slack.answers():
        if answer["streamed"] and answer["state"] != "stopped":
            continue
        ended = answer["at"]
        if answer["streamed"]:
            ended = next(
                (
                    at
                    for ts, at in stops.items()
                    if slack.streams.get(ts) and slack.streams[ts].thread_ts == answer["thread_ts"]
                ),
                ended,
            )
        done.append({**answer, "done_at": ended})
    return done


def first_text(slack: FakeSlack) -> dict[str, float]:
    """When each thread first showed answer text (a streamed markdown chunk, or a posted reply)."""
    by_stream = {ts: message.thread_ts for ts, message in slack.streams.items()}
    seen: dict[str, float] = {}
    for api_call in slack.calls:
        chunks = api_call.params.get("chunks") or []
        has_text = any(
            c.get("type") == "markdown_text" and c.get("text") for c in chunks
        ) or api_call.params.get("markdown_text")
        if api_call.method in ("chat.appendStream", "chat.stopStream") and has_text:
            thread = by_stream.get(str(api_call.params.get("ts")))
        elif (api_call.method == "chat.startStream" and has_text) or api_call.method == "chat.postMessage":
            thread = str(api_call.params.get("thread_ts"))
        else:
            continue
        if thread is not None:
            seen.setdefault(thread, api_call.at)
    return seen


if __name__ == "__main__":
    main()
