"""`energy-advisor slack`: wire the Slack bot from settings and run it until SIGINT/SIGTERM."""

from __future__ import annotations

import logging
import signal
import threading

from bot.dedup import SeenEvents
from bot.scheduler import MemorizeScheduler
from bot.slack_app import InFlight, SlackBot, create_app
from bot.wiring import AppRuntime
from config.clock import Clock, utc_now

logger = logging.getLogger(__name__)


def build_slack_bot(runtime: AppRuntime, *, clock: Clock = utc_now) -> SlackBot:
    settings = runtime.settings
    assert settings.slack_app_token is not None
    scheduler = MemorizeScheduler(
        service=runtime.service, idle_minutes=runtime.config.agents.memorizer.idle_minutes, clock=clock
    )
    in_flight = InFlight()
    app = create_app(
        settings=settings,
        service=runtime.service,
        seen=SeenEvents(settings.data_dir / "slack" / "seen-events.txt"),
        eval_config=runtime.config.eval,
        scheduler=scheduler,
        in_flight=in_flight,
        feedback=runtime.feedback,
    )
    return SlackBot(
        app=app,
        app_token=settings.slack_app_token.get_secret_value(),
        scheduler=scheduler,
        in_flight=in_flight,
        concurrency=settings.slack_listener_threads,
    )


def run_until_signalled(bot: SlackBot) -> None:
    stop = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        logger.info("Received %s: finishing running turns, then stopping", signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        bot.start()
        print(
            "Connected to Slack over Socket Mode. DM the bot; Ctrl-C stops it (running answers finish first)."
        )
        stop.wait()
    finally:
        drained = bot.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        print("Stopped." if drained else "Stopped (some answers were still running after 60 s).")
